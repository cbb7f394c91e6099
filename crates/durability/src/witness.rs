//! The witness: the machine that does not lose power keeps, in its own synced SQLite journal
//! (`journal`), every record a client announced (intent) and every one it said was durable
//! (ack).
//!
//! A reply is sent only after the journal committed the request, so a witness killed at any
//! moment has every record it confirmed. Requests from all connections go to one journal
//! thread that commits them in groups (one sync per group), so many clients cost few syncs.
//! Verification reads run on their own read-only connection beside it (WAL mode). Before a
//! connection has said hello with the token it holds only a bounded place (`gate`).

use crate::gate::{Gate, Timed, HELLO_DEADLINE};
use crate::journal::{self, Journal, Op};
use crate::protocol::{self, read_line, LineError, Reply, Request};
use crate::writers::Who;
use std::io::{BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// Connections served at once; more are told the witness is busy and closed.
pub const MAX_CONNECTIONS: usize = 256;
/// Requests committed in one journal transaction at most.
const GROUP: usize = 512;

pub struct ServeOptions {
    pub listen: SocketAddr,
    /// The token clients must present; `None`: the journal's own (made on first start).
    pub token: Option<String>,
    pub journal: PathBuf,
}

/// A request waiting for the journal, with who sent it and where its reply goes.
struct Job {
    op: Op,
    who: Who,
    reply: mpsc::Sender<Reply>,
}

/// What every connection thread shares.
struct Ctx {
    token_hash: String,
    tx: mpsc::SyncSender<Job>,
    journal: PathBuf,
    gate: Gate,
}

/// Serves until `stop` is set. `ready` gets the bound address and, when this start knows it,
/// the token (a restarted witness keeps only the hash of the one it printed first).
pub fn serve(
    o: &ServeOptions,
    stop: Arc<AtomicBool>,
    ready: impl FnOnce(SocketAddr, Option<&str>),
) -> anyhow::Result<()> {
    // Written down first: a witness killed with records in its write-ahead log has them
    // folded into the journal by the next volbench to start.
    let _held = leftovers::hold(leftovers::Kind::Journal, &o.journal);
    let conn = journal::open(&o.journal)?;
    let (token_hash, token) = journal::token(&conn, o.token.as_deref())?;
    let listener = TcpListener::bind(o.listen).map_err(|e| {
        anyhow::anyhow!(
            "cannot listen on {}: {e}: choose another --listen",
            o.listen
        )
    })?;
    listener.set_nonblocking(true)?;
    let (tx, rx) = mpsc::sync_channel::<Job>(4 * GROUP);
    // Connection threads are not joined on stop (they may wait on idle clients for minutes,
    // and every answered request is already committed); the journal's thread is, so its
    // connection closes and SQLite folds the write-ahead log back into the journal.
    let closing = stop.clone();
    let journal = std::thread::spawn(move || journal_loop(Journal::new(conn), rx, &closing));
    ready(listener.local_addr()?, token.as_deref());
    let ctx = Arc::new(Ctx {
        token_hash,
        tx,
        journal: o.journal.clone(),
        gate: Gate::default(),
    });
    accept_loop(&listener, &stop, &ctx);
    let _ = journal.join();
    Ok(())
}

fn accept_loop(listener: &TcpListener, stop: &AtomicBool, ctx: &Arc<Ctx>) {
    let active = Arc::new(AtomicUsize::new(0));
    while !stop.load(SeqCst) {
        let (s, peer) = match listener.accept() {
            Ok(x) => x,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                std::thread::sleep(Duration::from_millis(20));
                continue;
            }
            Err(_) => continue,
        };
        if active.load(SeqCst) >= MAX_CONNECTIONS {
            let _ = (&s).write_all(&protocol::line(&Reply::Error {
                error: "witness busy: too many connections".into(),
            }));
            continue;
        }
        active.fetch_add(1, SeqCst);
        let (ctx, active) = (ctx.clone(), active.clone());
        std::thread::spawn(move || {
            if let Ok(place) = ctx.gate.admit(&s, peer.ip()) {
                let _ = connection(s, peer, &ctx, place);
                ctx.gate.leave(place);
            }
            active.fetch_sub(1, SeqCst);
        });
    }
}

fn send(s: &mut TcpStream, r: &Reply) -> std::io::Result<()> {
    s.write_all(&protocol::line(r))
}

fn refuse(s: &mut TcpStream, msg: impl Into<String>) -> std::io::Result<()> {
    send(s, &Reply::Error { error: msg.into() })
}

/// One client: a complete hello with the right token within the deadline, then requests
/// until it hangs up. Any error is answered with one error line and ends the connection.
/// A connection that created a run gives up its writer's place when it ends.
fn connection(s: TcpStream, peer: SocketAddr, ctx: &Ctx, place: u64) -> std::io::Result<()> {
    s.set_nonblocking(false)?;
    s.set_nodelay(true)?;
    let mut who = Who {
        peer: peer.to_string(),
        key: None,
    };
    let mut created = None;
    let r = requests(s, &mut who, ctx, place, &mut created);
    if let Some(file) = created {
        let (rtx, rrx) = mpsc::channel();
        journaled(ctx, Op::Released(file), &who, &rtx, &rrx);
    }
    r
}

/// What an accepted request makes of the connection: the writer key a `create` answered or a
/// `join` named is the one it sends its records with; a create's connection frees the
/// writer's place when it ends.
fn holds(
    req_file: Option<(String, Option<String>)>,
    rep: &Reply,
    who: &mut Who,
    created: &mut Option<String>,
) {
    let Some((file, joined)) = req_file else {
        return;
    };
    match (rep, joined) {
        (Reply::Created { writer }, _) => {
            who.key = Some(writer.clone());
            *created = Some(file);
        }
        (Reply::Ok, Some(key)) => who.key = Some(key),
        _ => {}
    }
}

fn requests(
    s: TcpStream,
    who: &mut Who,
    ctx: &Ctx,
    place: u64,
    created: &mut Option<String>,
) -> std::io::Result<()> {
    let mut w = s.try_clone()?;
    let timed = Timed {
        s,
        until: Some(Instant::now() + HELLO_DEADLINE),
    };
    let mut r = BufReader::with_capacity(protocol::MAX_LINE, timed);
    let mut buf = Vec::with_capacity(256);
    let mut hello = false;
    let (rtx, rrx) = mpsc::channel();
    loop {
        let req = match next_request(&mut r, &mut buf) {
            Ok(Some(q)) => q,
            Ok(None) | Err(None) => return Ok(()),
            Err(Some(msg)) => return refuse(&mut w, msg),
        };
        match (req, hello) {
            (Request::Hello { version, token }, false) => {
                if let Some(why) = hello_refused(version, &token, &ctx.token_hash) {
                    return refuse(&mut w, why);
                }
                hello = true;
                ctx.gate.leave(place);
                r.get_mut().until = None;
                send(&mut w, &Reply::Ok)?;
            }
            (_, false) => return refuse(&mut w, "say hello with the token first"),
            (Request::Hello { .. }, true) => return refuse(&mut w, "hello sent twice"),
            (Request::Verify { file }, true) => return verify(&mut w, ctx, &file, who),
            (req, true) => {
                let file = match &req {
                    Request::Create { file, .. } => Some((file.clone(), None)),
                    Request::Join { file, writer } => Some((file.clone(), Some(writer.clone()))),
                    _ => None,
                };
                let rep = journaled(ctx, Op::Req(req), who, &rtx, &rrx);
                holds(file, &rep, who, created);
                let end = matches!(rep, Reply::Error { .. });
                send(&mut w, &rep)?;
                if end {
                    return Ok(());
                }
            }
        }
    }
}

/// The next request: `Ok(None)` at the end of the stream, `Err(Some(why))` for a message to
/// refuse, `Err(None)` when the connection failed or its time ran out.
fn next_request(
    r: &mut BufReader<Timed>,
    buf: &mut Vec<u8>,
) -> Result<Option<Request>, Option<String>> {
    match read_line(r, buf) {
        Ok(false) => return Ok(None),
        Ok(true) => {}
        Err(LineError::TooLong) => {
            return Err(Some(
                "message too long: the protocol's lines are under 4096 bytes".into(),
            ))
        }
        Err(LineError::Io(_)) => return Err(None),
    }
    serde_json::from_slice(buf)
        .map(Some)
        .map_err(|e| Some(format!("malformed message: {e}")))
}

fn hello_refused(version: u32, token: &str, hash: &str) -> Option<String> {
    if version != protocol::VERSION {
        return Some(format!(
            "protocol version {version} is not {}: use the same volbench version on both machines",
            protocol::VERSION
        ));
    }
    (!protocol::same_token(&journal::token_hash(token), hash))
        .then(|| "wrong token: pass the token `volbench durability serve` printed (--token)".into())
}

/// Sends `op` to the journal thread and waits for its reply.
fn journaled(
    ctx: &Ctx,
    op: Op,
    who: &Who,
    rtx: &mpsc::Sender<Reply>,
    rrx: &mpsc::Receiver<Reply>,
) -> Reply {
    let down = || Reply::Error {
        error: "witness is shutting down".into(),
    };
    let job = Job {
        op,
        who: who.clone(),
        reply: rtx.clone(),
    };
    if ctx.tx.send(job).is_err() {
        return down();
    }
    rrx.recv().unwrap_or_else(|_| down())
}

/// Streams the file's records; once all were sent, the journal may let a new run replace
/// them.
fn verify(w: &mut TcpStream, ctx: &Ctx, file: &str, who: &Who) -> std::io::Result<()> {
    let began = Instant::now();
    if journal::stream(w, &ctx.journal, file)? {
        let (rtx, rrx) = mpsc::channel();
        journaled(ctx, Op::Verified(file.to_string(), began), who, &rtx, &rrx);
    }
    Ok(())
}

/// Commits requests in groups: waits for one, takes whatever else is queued, one transaction,
/// then the replies.
fn journal_loop(mut j: Journal, rx: mpsc::Receiver<Job>, stop: &AtomicBool) {
    let mut acks = Acks::default();
    loop {
        let first = match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(job) => job,
            Err(mpsc::RecvTimeoutError::Timeout) if !stop.load(SeqCst) => continue,
            Err(_) => return,
        };
        let mut jobs = vec![first];
        while jobs.len() < GROUP {
            match rx.try_recv() {
                Ok(job) => jobs.push(job),
                Err(_) => break,
            }
        }
        let ops: Vec<(&Op, &Who)> = jobs.iter().map(|j| (&j.op, &j.who)).collect();
        let replies = match j.commit(&ops) {
            Ok(r) => r,
            Err(e) => {
                let msg = format!("witness journal failed: {e}");
                jobs.iter()
                    .map(|_| Reply::Error { error: msg.clone() })
                    .collect()
            }
        };
        for (job, r) in jobs.into_iter().zip(replies) {
            acks.count(&job.op, &r);
            let _ = job.reply.send(r);
        }
    }
}

/// The acknowledged records the witness journaled, per file, for live watchers
/// (`--metrics-listen`, `--live` on `serve` or `cycle`): each a durable write on the tested
/// machine, counted when the witness has it.
#[derive(Default)]
struct Acks(std::collections::HashMap<String, runner::board::Tally>);

impl Acks {
    fn count(&mut self, op: &Op, r: &Reply) {
        let (Op::Req(Request::Ack { file, .. }), Reply::Ok) = (op, r) else {
            return;
        };
        if !self.0.contains_key(file) {
            let job = format!("witness {file}");
            // None: nobody watches.
            let Some(t) = runner::board::tally(&job, runner::board::Unit::Io) else {
                return;
            };
            self.0.insert(file.clone(), t);
        }
        if let Some(t) = self.0.get(file) {
            t.acked(1);
        }
    }
}
