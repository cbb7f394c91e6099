//! The witness: the machine that does not lose power keeps, in its own synced SQLite journal,
//! every record a client announced (intent) and every one it said was durable (ack).
//!
//! A reply is sent only after the journal committed the request, so a witness killed at any
//! moment has every record it confirmed. Requests from all connections go to one journal
//! thread that commits them in groups (one sync per group), so many clients cost few syncs.
//! Verification reads run on their own read-only connection beside it (WAL mode).

use crate::protocol::{self, read_line, LineError, Rec, Reply, Request};
use rusqlite::{params, Connection, OptionalExtension};
use std::io::{BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// Connections served at once; more are told the witness is busy and closed.
pub const MAX_CONNECTIONS: usize = 256;
/// Requests committed in one journal transaction at most.
const GROUP: usize = 512;
/// A connection that has not said hello within this time is closed.
const HELLO_TIMEOUT: Duration = Duration::from_secs(10);
/// A silent connection after hello is closed after this (a client syncing on a stalled disk
/// may be slow, but not this slow).
const IDLE_TIMEOUT: Duration = Duration::from_secs(600);

pub struct ServeOptions {
    pub listen: SocketAddr,
    /// The token clients must present; `None`: the journal's own (made on first start).
    pub token: Option<String>,
    pub journal: PathBuf,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, size INTEGER NOT NULL,
    block INTEGER NOT NULL, last_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS blocks (
    file INTEGER NOT NULL, block INTEGER NOT NULL,
    acked_seq INTEGER, acked_sum INTEGER, acked_ms INTEGER,
    intent_seq INTEGER, intent_sum INTEGER, intent_ms INTEGER,
    PRIMARY KEY (file, block)
) WITHOUT ROWID;
";

fn open_journal(path: &Path) -> anyhow::Result<Connection> {
    let c = Connection::open(path).map_err(|e| {
        anyhow::anyhow!(
            "witness journal {}: {e}: choose another --journal",
            path.display()
        )
    })?;
    c.pragma_update(None, "journal_mode", "WAL")?;
    // FULL: a commit is on stable storage before the client hears "ok".
    c.pragma_update(None, "synchronous", "FULL")?;
    c.execute_batch(SCHEMA)?;
    Ok(c)
}

/// The token: the one given, else the journal's (so a restarted witness takes the same
/// clients), else a new random one stored in the journal.
fn token(c: &Connection, given: Option<&str>) -> anyhow::Result<String> {
    let stored: Option<String> = c
        .query_row("SELECT value FROM meta WHERE key = 'token'", [], |r| {
            r.get(0)
        })
        .optional()?;
    let t = match (given, stored) {
        (Some(g), _) => g.to_string(),
        (None, Some(s)) => s,
        (None, None) => {
            use rand::RngCore;
            let mut b = [0u8; 16];
            rand::thread_rng().fill_bytes(&mut b);
            b.iter().map(|x| format!("{x:02x}")).collect()
        }
    };
    c.execute(
        "INSERT INTO meta (key, value) VALUES ('token', ?1) ON CONFLICT(key) DO UPDATE SET value = ?1",
        [&t],
    )?;
    Ok(t)
}

/// A request waiting for the journal, with where its reply goes.
struct Job {
    req: Request,
    reply: mpsc::Sender<Reply>,
}

/// Serves until `stop` is set. `ready` gets the bound address and the token once listening.
pub fn serve(
    o: &ServeOptions,
    stop: Arc<AtomicBool>,
    ready: impl FnOnce(SocketAddr, &str),
) -> anyhow::Result<()> {
    let conn = open_journal(&o.journal)?;
    let token = Arc::new(token(&conn, o.token.as_deref())?);
    let listener = TcpListener::bind(o.listen).map_err(|e| {
        anyhow::anyhow!(
            "cannot listen on {}: {e}: choose another --listen",
            o.listen
        )
    })?;
    listener.set_nonblocking(true)?;
    let (tx, rx) = mpsc::sync_channel::<Job>(4 * GROUP);
    // Not joined on stop: connection threads may wait on idle clients for minutes, and every
    // answered request is already committed, so leaving with the process loses nothing.
    std::thread::spawn(move || journal_loop(conn, rx));
    ready(listener.local_addr()?, &token);
    let active = Arc::new(AtomicUsize::new(0));
    while !stop.load(SeqCst) {
        let (s, _) = match listener.accept() {
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
        let (tx, token, active, journal_path) =
            (tx.clone(), token.clone(), active.clone(), o.journal.clone());
        std::thread::spawn(move || {
            let _ = connection(s, &token, &tx, &journal_path);
            active.fetch_sub(1, SeqCst);
        });
    }
    Ok(())
}

fn send(s: &mut TcpStream, r: &Reply) -> std::io::Result<()> {
    s.write_all(&protocol::line(r))
}

fn refuse(s: &mut TcpStream, msg: impl Into<String>) -> std::io::Result<()> {
    send(s, &Reply::Error { error: msg.into() })
}

/// One client: hello with the right token, then requests until it hangs up. Any error is
/// answered with one error line and ends the connection.
fn connection(
    s: TcpStream,
    token: &str,
    tx: &mpsc::SyncSender<Job>,
    journal: &Path,
) -> std::io::Result<()> {
    s.set_nonblocking(false)?;
    s.set_nodelay(true)?;
    s.set_read_timeout(Some(HELLO_TIMEOUT))?;
    let mut w = s.try_clone()?;
    let mut r = BufReader::with_capacity(protocol::MAX_LINE, s);
    let mut buf = Vec::with_capacity(256);
    let mut hello = false;
    let (rtx, rrx) = mpsc::channel();
    loop {
        match read_line(&mut r, &mut buf) {
            Ok(false) => return Ok(()),
            Ok(true) => {}
            Err(LineError::TooLong) => {
                return refuse(
                    &mut w,
                    "message too long: the protocol's lines are under 4096 bytes",
                )
            }
            Err(LineError::Io(e)) => return Err(e),
        }
        let req: Request = match serde_json::from_slice(&buf) {
            Ok(q) => q,
            Err(e) => return refuse(&mut w, format!("malformed message: {e}")),
        };
        match (&req, hello) {
            (Request::Hello { version, token: t }, false) => {
                if *version != protocol::VERSION {
                    return refuse(&mut w, format!("protocol version {version} is not {}: use the same volbench version on both machines", protocol::VERSION));
                }
                if !protocol::same_token(t, token) {
                    return refuse(
                        &mut w,
                        "wrong token: pass the token `volbench durability serve` printed (--token)",
                    );
                }
                hello = true;
                // Socket options are shared by both handles: the reader gets the longer wait.
                w.set_read_timeout(Some(IDLE_TIMEOUT))?;
                send(&mut w, &Reply::Ok)?;
            }
            (_, false) => return refuse(&mut w, "say hello with the token first"),
            (Request::Hello { .. }, true) => return refuse(&mut w, "hello sent twice"),
            (Request::Verify { file }, true) => return verify(&mut w, journal, file),
            (_, true) => {
                if tx
                    .send(Job {
                        req,
                        reply: rtx.clone(),
                    })
                    .is_err()
                {
                    return refuse(&mut w, "witness is shutting down");
                }
                let rep = rrx.recv().unwrap_or(Reply::Error {
                    error: "witness is shutting down".into(),
                });
                let end = matches!(rep, Reply::Error { .. });
                send(&mut w, &rep)?;
                if end {
                    return Ok(());
                }
            }
        }
    }
}

/// Commits requests in groups: waits for one, takes whatever else is queued, one transaction,
/// then the replies.
fn journal_loop(mut c: Connection, rx: mpsc::Receiver<Job>) {
    while let Ok(first) = rx.recv() {
        let mut jobs = vec![first];
        while jobs.len() < GROUP {
            match rx.try_recv() {
                Ok(j) => jobs.push(j),
                Err(_) => break,
            }
        }
        let replies = match commit(&mut c, &jobs) {
            Ok(r) => r,
            Err(e) => {
                let msg = format!("witness journal failed: {e}");
                jobs.iter()
                    .map(|_| Reply::Error { error: msg.clone() })
                    .collect()
            }
        };
        for (j, r) in jobs.into_iter().zip(replies) {
            let _ = j.reply.send(r);
        }
    }
}

fn commit(c: &mut Connection, jobs: &[Job]) -> rusqlite::Result<Vec<Reply>> {
    let t = c.transaction()?;
    let now = protocol::now_ms() as i64;
    let mut out = Vec::with_capacity(jobs.len());
    for j in jobs {
        out.push(apply(&t, &j.req, now)?);
    }
    t.commit()?;
    Ok(out)
}

fn file_id(t: &rusqlite::Transaction, name: &str, now: i64) -> rusqlite::Result<Option<i64>> {
    let id = t
        .query_row("SELECT id FROM files WHERE name = ?1", [name], |r| r.get(0))
        .optional()?;
    if let Some(id) = id {
        t.execute(
            "UPDATE files SET last_ms = ?1 WHERE id = ?2",
            params![now, id],
        )?;
    }
    Ok(id)
}

fn unknown(file: &str) -> Reply {
    Reply::Error {
        error: format!("unknown file {file}: run `volbench durability create` for it first"),
    }
}

fn apply(t: &rusqlite::Transaction, req: &Request, now: i64) -> rusqlite::Result<Reply> {
    match req {
        Request::Create { file, size, block } => {
            if *block == 0 || *size / (*block as u64) < 2 {
                return Ok(Reply::Error {
                    error: "create: size must hold at least two blocks".into(),
                });
            }
            if let Some(id) = file_id(t, file, now)? {
                t.execute("DELETE FROM blocks WHERE file = ?1", [id])?;
                t.execute("DELETE FROM files WHERE id = ?1", [id])?;
            }
            t.execute(
                "INSERT INTO files (name, size, block, last_ms) VALUES (?1, ?2, ?3, ?4)",
                params![file, *size as i64, *block as i64, now],
            )?;
            Ok(Reply::Ok)
        }
        Request::Intent {
            file,
            block,
            seq,
            sum,
        } => {
            let Some(id) = file_id(t, file, now)? else {
                return Ok(unknown(file));
            };
            let size: (i64, i64) =
                t.query_row("SELECT size, block FROM files WHERE id = ?1", [id], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })?;
            if *block == 0 || *block >= (size.0 / size.1) as u64 {
                return Ok(Reply::Error {
                    error: format!("block {block} is outside the file"),
                });
            }
            t.execute(
                "INSERT INTO blocks (file, block, intent_seq, intent_sum, intent_ms) VALUES (?1, ?2, ?3, ?4, ?5)
                 ON CONFLICT(file, block) DO UPDATE SET intent_seq = ?3, intent_sum = ?4, intent_ms = ?5",
                params![id, *block as i64, *seq as i64, *sum as i64, now],
            )?;
            Ok(Reply::Ok)
        }
        Request::Ack { file, block, seq } => {
            let Some(id) = file_id(t, file, now)? else {
                return Ok(unknown(file));
            };
            let n = t.execute(
                "UPDATE blocks SET acked_seq = intent_seq, acked_sum = intent_sum, acked_ms = ?4,
                 intent_seq = NULL, intent_sum = NULL, intent_ms = NULL
                 WHERE file = ?1 AND block = ?2 AND intent_seq = ?3",
                params![id, *block as i64, *seq as i64, now],
            )?;
            Ok(if n == 1 {
                Reply::Ok
            } else {
                Reply::Error {
                    error: format!("ack for record {seq} in block {block} without its intent"),
                }
            })
        }
        Request::Hello { .. } | Request::Verify { .. } => Ok(Reply::Error {
            error: "unexpected message".into(),
        }),
    }
}

/// Streams what the journal knows of `file`: `info`, one `block` per block, `end`.
fn verify(w: &mut TcpStream, journal: &Path, file: &str) -> std::io::Result<()> {
    let c = match Connection::open_with_flags(journal, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY) {
        Ok(c) => c,
        Err(e) => return refuse(w, format!("witness journal: {e}")),
    };
    let info: Option<(i64, i64, i64, i64)> = c
        .query_row(
            "SELECT id, size, block, last_ms FROM files WHERE name = ?1",
            [file],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()
        .unwrap_or(None);
    let Some((id, size, block, last_ms)) = info else {
        return send(w, &unknown(file));
    };
    let blocks: i64 = c
        .query_row("SELECT COUNT(*) FROM blocks WHERE file = ?1", [id], |r| {
            r.get(0)
        })
        .unwrap_or(0);
    let mut out = std::io::BufWriter::new(w.try_clone()?);
    out.write_all(&protocol::line(&Reply::Info {
        size: size as u64,
        block: block as u32,
        blocks: blocks as u64,
        last_ms: last_ms as u64,
    }))?;
    let mut q = match c.prepare(
        "SELECT block, acked_seq, acked_sum, acked_ms, intent_seq, intent_sum, intent_ms
         FROM blocks WHERE file = ?1 ORDER BY block",
    ) {
        Ok(q) => q,
        Err(e) => return refuse(w, format!("witness journal: {e}")),
    };
    let rec = |s: Option<i64>, u: Option<i64>, m: Option<i64>| {
        s.map(|s| Rec {
            seq: s as u64,
            sum: u.unwrap_or(0) as u32,
            ms: m.unwrap_or(0) as u64,
        })
    };
    let rows = q.query_map([id], |r| {
        Ok(Reply::Block {
            block: r.get::<_, i64>(0)? as u64,
            acked: rec(r.get(1)?, r.get(2)?, r.get(3)?),
            intent: rec(r.get(4)?, r.get(5)?, r.get(6)?),
        })
    });
    let mut n = 0u64;
    if let Ok(rows) = rows {
        for b in rows.flatten() {
            out.write_all(&protocol::line(&b))?;
            n += 1;
        }
    }
    out.write_all(&protocol::line(&Reply::End { blocks: n }))?;
    out.flush()
}
