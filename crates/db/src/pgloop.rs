//! The PostgreSQL clients' loop, pgbench's design: the clients spread over `--jobs` threads
//! (pgbench -j, 1 by default as pgbench's), each thread one `poll(2)` over its clients'
//! sockets, each client a state machine that sends the next statement of its TPC-B
//! transaction when the last one's response is complete.
//!
//! One thread per client spent ~1.5x pgbench's CPU per transaction in wake-ups on a machine with
//! few cores; a tokio runtime per thread cost two wake-ups per statement (see [`crate::wire`]).
//! Two threads on two cores (once the default, as min(clients, cores)) lost 40 % of the tps
//! on a disk-bound cluster when two low-priority busy threads shared the host, as pgbench -j2
//! does, where one thread lost 10 % as pgbench -j1 does; without them one thread is as fast
//! (docs/PERFORMANCE.md, "volbench db beside a busy host").

use crate::measure::{Load, Measured, Size, MAX_TRIES};
use crate::tpcb::Tx;
use crate::wire::{error_text, Conn};
use crate::TxError;
use postgres_protocol::message::backend::Message;
use rand::SeedableRng;
use std::sync::atomic::AtomicBool;
use std::sync::{Barrier, OnceLock};
use std::time::{Duration, Instant};

/// What the clients share: how long they run and when the clock started.
#[derive(Clone, Copy)]
struct Plan<'a> {
    scale: u32,
    size: Size,
    start: Instant,
    stop: &'a AtomicBool,
}

/// One client: its connection and where it is in its transaction.
struct Client {
    conn: Conn,
    id: u32,
    rng: rand::rngs::SmallRng,
    statements: [String; 5],
    /// 0 BEGIN, 1-5 the statements, 6 END.
    step: usize,
    t0: Instant,
    tries: u32,
    error: Option<TxError>,
    rolling_back: bool,
    done: bool,
    m: Measured,
}

/// Runs `clients` clients on the URL's server until `size`; sets the run's elapsed time from
/// the moment every client was connected.
pub fn run(url: &str, load: Load, stop: &AtomicBool) -> anyhow::Result<Measured> {
    let Load {
        clients,
        jobs,
        scale,
        size,
    } = load;
    let threads = jobs.clamp(1, clients.max(1));
    let ready = Barrier::new(threads as usize);
    let start = OnceLock::new();
    let results: Vec<anyhow::Result<Measured>> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let ids: Vec<u32> = (t..clients).step_by(threads as usize).collect();
                let (ready, start) = (&ready, &start);
                sc.spawn(move || one_thread(url, &ids, scale, size, stop, ready, start))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("a client thread panicked")))
            })
            .collect()
    });
    let mut total = Measured::new();
    for r in results {
        total.merge(r?);
    }
    total.elapsed = start
        .get()
        .map_or(Duration::ZERO, |s: &Instant| s.elapsed());
    Ok(total)
}

/// One thread: connects its clients, waits for every thread to be connected (a thread that
/// cannot connect still reaches the barrier, so the others are not left waiting), then runs
/// them until the run's size is reached.
fn one_thread(
    url: &str,
    ids: &[u32],
    scale: u32,
    size: Size,
    stop: &AtomicBool,
    ready: &Barrier,
    start: &OnceLock<Instant>,
) -> anyhow::Result<Measured> {
    let mut conns = Vec::new();
    let mut failed = None;
    for &i in ids {
        match Conn::open(url) {
            Ok(c) => conns.push((c, i)),
            Err(e) => {
                failed = Some(anyhow::anyhow!(
                    "cannot connect to PostgreSQL ({}): {e}",
                    crate::wire::redact(url)
                ));
                break;
            }
        }
    }
    ready.wait();
    let start = *start.get_or_init(Instant::now);
    if let Some(e) = failed {
        return Err(e);
    }
    let plan = Plan {
        scale,
        size,
        start,
        stop,
    };
    let mut clients: Vec<Client> = conns
        .into_iter()
        .map(|(conn, id)| Client::new(conn, id, plan))
        .collect();
    serve(&mut clients, plan)?;
    let mut total = Measured::new();
    for c in clients {
        total.merge(c.m);
    }
    Ok(total)
}

/// The thread's loop: waits for any of its clients' responses and lets each ready client take
/// its next step. The wait wakes every 100 ms so a stop (Ctrl-C) is seen even when a server
/// has stopped answering; transactions in flight then are not counted.
fn serve(clients: &mut [Client], plan: Plan) -> anyhow::Result<()> {
    for c in clients.iter_mut() {
        c.begin(plan);
    }
    let mut fds: Vec<libc::pollfd> = Vec::with_capacity(clients.len());
    loop {
        fds.clear();
        fds.extend(clients.iter().filter(|c| !c.done).map(|c| libc::pollfd {
            fd: c.conn.fd(),
            events: libc::POLLIN,
            revents: 0,
        }));
        if fds.is_empty() {
            return Ok(());
        }
        // SAFETY: `fds` is a valid array of fds.len() pollfds for the call's duration.
        let n = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, 100) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e.into());
        }
        if n == 0 && plan.stop.load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(());
        }
        let ready = fds.iter().map(|p| p.revents != 0);
        let live = clients.iter_mut().filter(|c| !c.done);
        for (c, _) in live.zip(ready).filter(|(_, r)| *r) {
            c.on_readable(plan);
        }
    }
}

impl Client {
    fn new(conn: Conn, id: u32, plan: Plan) -> Client {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(0x7bcb_0000 + id as u64);
        let statements = Tx::random(plan.scale, &mut rng).statements();
        Client {
            conn,
            id,
            rng,
            statements,
            step: 0,
            t0: Instant::now(),
            tries: 1,
            error: None,
            rolling_back: false,
            done: false,
            m: Measured::for_client(),
        }
    }

    /// Starts the transaction in `statements` (a first attempt or a retry), or ends the client
    /// when it has done its share.
    fn begin(&mut self, plan: Plan) {
        if self.m.finished(plan.size, plan.start, plan.stop) {
            self.done = true;
            return;
        }
        self.step = 0;
        self.send("BEGIN");
    }

    fn send(&mut self, q: &str) {
        if let Err(e) = self.conn.send_query(q) {
            self.lost(format!("cannot send to PostgreSQL: {e}"));
        }
    }

    /// The connection failed: the client stops, as pgbench stops a client whose connection
    /// is lost, and says why.
    fn lost(&mut self, why: String) {
        let e = TxError {
            retryable: false,
            message: why,
        };
        self.m
            .outcome(self.id as u64, Err(e), self.t0, Instant::now());
        self.done = true;
    }

    /// Reads what arrived and handles every whole message in it.
    fn on_readable(&mut self, plan: Plan) {
        match self.conn.receive() {
            Ok(true) => {}
            Ok(false) => return self.lost("PostgreSQL closed the connection".into()),
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return,
            Err(e) => return self.lost(format!("cannot read from PostgreSQL: {e}")),
        }
        while !self.done {
            match self.conn.message() {
                Ok(Some(m)) => self.on_message(m, plan),
                Ok(None) => return,
                Err(e) => return self.lost(format!("a malformed message from PostgreSQL: {e}")),
            }
        }
    }

    fn on_message(&mut self, m: Message, plan: Plan) {
        match m {
            Message::ErrorResponse(b) if self.error.is_none() => {
                let (message, code) = error_text(&mut b.fields());
                self.error = Some(TxError {
                    retryable: matches!(code.as_str(), "40001" | "40P01"),
                    message,
                });
            }
            Message::ReadyForQuery(_) => self.on_ready(plan),
            _ => {}
        }
    }

    /// One statement's response is complete: the next statement, or after a failed one a
    /// ROLLBACK and then a retry (serialization failures and deadlocks, as pgbench retries
    /// them) or the failure counted.
    fn on_ready(&mut self, plan: Plan) {
        if self.rolling_back {
            self.rolling_back = false;
            let e = self.error.take().unwrap_or(TxError {
                retryable: false,
                message: "ROLLBACK without a failed statement".into(),
            });
            return self.attempt_ended(Err(e), plan);
        }
        if self.error.is_some() {
            self.rolling_back = true;
            return self.send("ROLLBACK");
        }
        self.step += 1;
        match self.step {
            1..=5 => {
                let q = std::mem::take(&mut self.statements[self.step - 1]);
                self.send(&q);
                self.statements[self.step - 1] = q;
            }
            6 => self.send("END"),
            _ => self.attempt_ended(Ok(()), plan),
        }
    }

    fn attempt_ended(&mut self, r: Result<(), TxError>, plan: Plan) {
        match r {
            Err(e) if e.retryable && self.tries < MAX_TRIES => {
                self.m.retried += 1;
                self.tries += 1;
                self.begin(plan)
            }
            r => {
                if !self.m.outcome(self.id as u64, r, self.t0, plan.start) {
                    self.done = true;
                    return;
                }
                self.statements = Tx::random(plan.scale, &mut self.rng).statements();
                self.t0 = Instant::now();
                self.tries = 1;
                self.begin(plan)
            }
        }
    }
}
