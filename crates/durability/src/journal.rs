//! The witness's journal: a synced SQLite file of every record a client announced (intent)
//! and every one it said was durable (ack), plus the rules that keep one run's records from
//! being replaced or confused with another's.
//!
//! One file has one writer at a time (`writers`): the connection that created the run and
//! those that joined it with its key, while heard from within the lease. Records stay until
//! a verify has read them: a new `create` of a file whose records no verify read is refused
//! unless it asks to discard them. All writes happen on the journal thread, so these rules
//! need no locks.

use crate::protocol::{self, Rec, Reply, Request};
use crate::writers::{Who, Writers};
use rusqlite::{params, Connection, OptionalExtension};
use std::collections::HashSet;
use std::io::Write;
use std::net::TcpStream;
use std::path::Path;
use std::time::Instant;

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

/// Opens (creating, readable by its owner only) the journal.
pub fn open(path: &Path) -> anyhow::Result<Connection> {
    let fail = |e: &dyn std::fmt::Display| {
        anyhow::anyhow!(
            "witness journal {}: {e}: choose another --journal",
            path.display()
        )
    };
    private(path).map_err(|e| fail(&e))?;
    let c = Connection::open(path).map_err(|e| fail(&e))?;
    c.pragma_update(None, "journal_mode", "WAL")?;
    // FULL: a commit is on stable storage before the client hears "ok".
    c.pragma_update(None, "synchronous", "FULL")?;
    c.execute_batch(SCHEMA)?;
    // Journals from before `verified` get it; their files count as verified (old behaviour).
    if c.prepare("SELECT verified FROM files LIMIT 0").is_err() {
        c.execute_batch("ALTER TABLE files ADD COLUMN verified INTEGER NOT NULL DEFAULT 1")?;
    }
    // Journals from before `status` count acks from here on.
    if c.prepare("SELECT acks FROM files LIMIT 0").is_err() {
        c.execute_batch("ALTER TABLE files ADD COLUMN acks INTEGER NOT NULL DEFAULT 0")?;
    }
    Ok(c)
}

/// The journal and its WAL files readable and writable by their owner only: the journal
/// holds the token's hash and every record. SQLite gives its -wal and -shm files the
/// journal's own mode.
fn private(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    let side = |ext: &str| std::path::PathBuf::from(format!("{}-{ext}", path.display()));
    for p in [path.to_path_buf(), side("wal"), side("shm")] {
        if p.exists() {
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600))?;
        }
    }
    Ok(())
}

/// SHA-256 of a token, in hex: the journal keeps only this.
pub fn token_hash(token: &str) -> String {
    use sha2::Digest;
    hex(&sha2::Sha256::digest(token.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The token's hash, and the token itself when it is known to this start (given, made now,
/// or moved out of an old journal that kept it in plain text). A restarted witness without
/// --token keeps the hash of the one printed at its first start.
pub fn token(c: &Connection, given: Option<&str>) -> anyhow::Result<(String, Option<String>)> {
    let get = |k: &str| -> rusqlite::Result<Option<String>> {
        c.query_row("SELECT value FROM meta WHERE key = ?1", [k], |r| r.get(0))
            .optional()
    };
    let (stored, plain) = (get("token_sha256")?, get("token")?);
    let known = match (given, plain, &stored) {
        (Some(g), _, _) => Some(g.to_string()),
        (None, Some(p), _) => Some(p),
        (None, None, Some(_)) => None,
        (None, None, None) => Some(new_token()),
    };
    let hash = match &known {
        Some(t) => token_hash(t),
        None => stored.unwrap_or_default(),
    };
    c.execute(
        "INSERT INTO meta (key, value) VALUES ('token_sha256', ?1) ON CONFLICT(key) DO UPDATE SET value = ?1",
        [&hash],
    )?;
    c.execute("DELETE FROM meta WHERE key = 'token'", [])?;
    Ok((hash, known))
}

/// A fresh random token: 128 bits in hex.
pub fn new_token() -> String {
    use rand::RngCore;
    let mut b = [0u8; 16];
    rand::thread_rng().fill_bytes(&mut b);
    hex(&b)
}

/// What the journal thread does: a client's request, marking a file as read by verify, or
/// the end of the connection that created a file's run (its writer has stopped: the key it
/// was answered with is the sender's).
pub enum Op {
    Req(Request),
    /// The file, and when the verify began reading it.
    Verified(String, Instant),
    Released(String),
}

/// The journal thread's state: the connection, who writes which file, and the runs `stop`
/// ended (kept in memory only: a restarted witness has no writer to refuse).
pub struct Journal {
    c: Connection,
    writers: Writers,
    stopped: HashSet<String>,
}

impl Journal {
    pub fn new(c: Connection) -> Journal {
        Journal {
            c,
            writers: Writers::default(),
            stopped: HashSet::new(),
        }
    }

    /// Applies every op in one transaction: their replies, or the journal's error.
    pub fn commit(&mut self, ops: &[(&Op, &Who)]) -> rusqlite::Result<Vec<Reply>> {
        let t = self.c.transaction()?;
        let now = protocol::now_ms() as i64;
        let mut out = Vec::with_capacity(ops.len());
        for (op, who) in ops {
            out.push(match op {
                Op::Req(Request::Status { file }) => {
                    status(&t, &self.writers, &self.stopped, file)?
                }
                Op::Req(Request::Stop { file }) => {
                    stop(&t, &mut self.writers, &mut self.stopped, file)?
                }
                Op::Req(r) => request(&t, (&mut self.writers, &mut self.stopped), r, who, now)?,
                Op::Verified(f, began) => verified(&t, &mut self.writers, f, *began)?,
                Op::Released(f) => {
                    if let Some(key) = &who.key {
                        self.writers.release(f, key);
                    }
                    Reply::Ok
                }
            });
        }
        t.commit()?;
        Ok(out)
    }
}

/// A client's request; a stopped run refuses intents until a create (an accepted one: found
/// by fuzzing, a malformed create from anyone un-stopped it) starts a new run.
fn request(
    t: &rusqlite::Transaction,
    (writers, stopped): (&mut Writers, &mut HashSet<String>),
    r: &Request,
    who: &Who,
    now: i64,
) -> rusqlite::Result<Reply> {
    if let Request::Intent { file, .. } = r {
        if stopped.contains(file) {
            return Ok(error(format!(
                "the run of {file} was stopped (by `durability cycle`): this client is done"
            )));
        }
    }
    let reply = apply(t, writers, r, who, now)?;
    if let (Request::Create { file, .. }, Reply::Created { .. }) = (r, &reply) {
        stopped.remove(file);
    }
    Ok(reply)
}

fn error(msg: String) -> Reply {
    Reply::Error { error: msg }
}

fn lookup(t: &rusqlite::Transaction, name: &str) -> rusqlite::Result<Option<i64>> {
    t.query_row("SELECT id FROM files WHERE name = ?1", [name], |r| r.get(0))
        .optional()
}

/// Any record of a file is news no verify has read yet; `acks` more were acknowledged.
fn touch(t: &rusqlite::Transaction, id: i64, now: i64, acks: i64) -> rusqlite::Result<()> {
    t.execute(
        "UPDATE files SET last_ms = ?1, verified = 0, acks = acks + ?3 WHERE id = ?2",
        params![now, id, acks],
    )?;
    Ok(())
}

fn unknown(file: &str) -> Reply {
    error(format!(
        "unknown file {file}: run `volbench durability create` for it first"
    ))
}

/// What only the run's writer may send: refused from a connection that neither created the
/// run nor joined it with its key (another token holder forging records).
fn not_writer(file: &str) -> Reply {
    error(format!(
        "this connection is not the writer of {file}: a run's records come from the connection that created it and those that joined it with its writer key"
    ))
}

/// The run a writer's request (intent, ack, join) names, sent holding `key`: its id, or the
/// refusal (an unknown file; a connection without the run's writer key).
fn run_of(
    t: &rusqlite::Transaction,
    writers: &Writers,
    file: &str,
    key: Option<&str>,
) -> rusqlite::Result<Result<i64, Reply>> {
    Ok(match lookup(t, file)? {
        None => Err(unknown(file)),
        Some(_) if !writers.holds(file, key) => Err(not_writer(file)),
        Some(id) => Ok(id),
    })
}

fn apply(
    t: &rusqlite::Transaction,
    writers: &mut Writers,
    req: &Request,
    who: &Who,
    now: i64,
) -> rusqlite::Result<Reply> {
    let key = who.key.as_deref();
    match req {
        Request::Create {
            file,
            size,
            block,
            discard,
        } => create(t, writers, (file, *size, *block, *discard), &who.peer, now),
        Request::Join { file, writer } => Ok(match run_of(t, writers, file, Some(writer))? {
            Ok(_) => {
                writers.heard(file);
                Reply::Ok
            }
            Err(no) => no,
        }),
        Request::Intent {
            file,
            block,
            seq,
            sum,
        } => match run_of(t, writers, file, key)? {
            Ok(id) => intent(t, writers, (id, file), (*block, *seq, *sum), now),
            Err(no) => Ok(no),
        },
        Request::Ack { file, block, seq } => match run_of(t, writers, file, key)? {
            Ok(id) => ack(t, writers, (id, file), (*block, *seq), now),
            Err(no) => Ok(no),
        },
        Request::Hello { .. }
        | Request::Verify { .. }
        | Request::Status { .. }
        | Request::Stop { .. } => Ok(error("unexpected message".into())),
    }
}

/// The block's pending intent `seq` is now its acknowledged record.
fn ack(
    t: &rusqlite::Transaction,
    writers: &mut Writers,
    (id, file): (i64, &str),
    (block, seq): (u64, u64),
    now: i64,
) -> rusqlite::Result<Reply> {
    let n = t.execute(
        "UPDATE blocks SET acked_seq = intent_seq, acked_sum = intent_sum, acked_ms = ?4,
         intent_seq = NULL, intent_sum = NULL, intent_ms = NULL
         WHERE file = ?1 AND block = ?2 AND intent_seq = ?3",
        params![id, block as i64, seq as i64, now],
    )?;
    // One update of the file's row per ack: its news and its count.
    touch(t, id, now, n as i64)?;
    // Only an accepted ack is the writer's voice: a refused one keeps no writer alive.
    Ok(if n == 1 {
        writers.heard(file);
        Reply::Ok
    } else {
        error(format!(
            "ack for record {seq} in block {block} without its intent"
        ))
    })
}

fn create(
    t: &rusqlite::Transaction,
    writers: &mut Writers,
    (file, size, block, discard): (&str, u64, u32, bool),
    peer: &str,
    now: i64,
) -> rusqlite::Result<Reply> {
    if let Err(e) = protocol::check_file(file).and(protocol::check_geometry(size, block)) {
        return Ok(error(format!("create: {e}")));
    }
    if let Some(w) = writers.live(file) {
        return Ok(error(format!(
            "{file} already has a writer ({}, since {} ms after the epoch, last heard {:.1} s ago): one writer per file at a time; stop it first",
            w.peer,
            w.since_ms,
            w.heard.elapsed().as_secs_f64()
        )));
    }
    let known: Option<(i64, bool, i64)> = t
        .query_row(
            "SELECT id, verified, last_ms FROM files WHERE name = ?1",
            [file],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    if let Some((id, verified, last)) = known {
        let unread: i64 =
            t.query_row("SELECT COUNT(*) FROM blocks WHERE file = ?1", [id], |r| {
                r.get(0)
            })?;
        if unread > 0 && !verified && !discard {
            return Ok(error(format!(
                "the witness holds {unread} blocks of records of {file} that no verify has read (last heard at {last} ms after the epoch): run `volbench durability verify` for it first, or create with --discard-unverified"
            )));
        }
        t.execute("DELETE FROM blocks WHERE file = ?1", [id])?;
        t.execute("DELETE FROM files WHERE id = ?1", [id])?;
    }
    t.execute(
        "INSERT INTO files (name, size, block, last_ms, verified) VALUES (?1, ?2, ?3, ?4, 0)",
        params![file, size as i64, block as i64, now],
    )?;
    let writer = writers.claim(file, peer, new_token(), now as u64);
    Ok(Reply::Created { writer })
}

fn intent(
    t: &rusqlite::Transaction,
    writers: &mut Writers,
    (id, file): (i64, &str),
    (block, seq, sum): (u64, u64, u32),
    now: i64,
) -> rusqlite::Result<Reply> {
    touch(t, id, now, 0)?;
    let (size, bs): (i64, i64) =
        t.query_row("SELECT size, block FROM files WHERE id = ?1", [id], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    if block == 0 || block >= (size / bs) as u64 {
        return Ok(error(format!("block {block} is outside the file")));
    }
    // A block's records are written one after another by one thread: each new seq is above
    // every seq the block had.
    let last: Option<i64> = t.query_row(
        "SELECT MAX(COALESCE(acked_seq, 0), COALESCE(intent_seq, 0)) FROM blocks WHERE file = ?1 AND block = ?2",
        params![id, block as i64],
        |r| r.get(0),
    ).optional()?;
    let last = last.unwrap_or(0) as u64;
    if seq == 0 || seq <= last || seq > i64::MAX as u64 {
        return Ok(error(format!(
            "seq {seq} for block {block} is not above the block's last record ({last}): a block's records only go up"
        )));
    }
    writers.heard(file);
    t.execute(
        "INSERT INTO blocks (file, block, intent_seq, intent_sum, intent_ms) VALUES (?1, ?2, ?3, ?4, ?5)
         ON CONFLICT(file, block) DO UPDATE SET intent_seq = ?3, intent_sum = ?4, intent_ms = ?5",
        params![id, block as i64, seq as i64, sum as i64, now],
    )?;
    Ok(Reply::Ok)
}

/// The run `file` names: its exact name, or, for an absolute path, the one run of that path
/// on any host. Its id and name, or the reply that says why there is none.
fn resolve(
    t: &rusqlite::Transaction,
    file: &str,
) -> rusqlite::Result<Result<(i64, String), Reply>> {
    let exact: Option<i64> = t
        .query_row("SELECT id FROM files WHERE name = ?1", [file], |r| r.get(0))
        .optional()?;
    if let Some(id) = exact {
        return Ok(Ok((id, file.to_string())));
    }
    if !file.starts_with('/') {
        return Ok(Err(unknown(file)));
    }
    // Compared as text, not LIKE: a path may hold '%' or '_'.
    let mut q = t.prepare(
        "SELECT id, name FROM files WHERE length(name) > length(?1)
         AND substr(name, length(name) - length(?1)) = ':' || ?1 LIMIT 2",
    )?;
    let runs: Vec<(i64, String)> = q
        .query_map([file], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(match runs.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(unknown(file)),
        _ => Err(error(format!(
            "{file} is the path of runs on several hosts: name one as host:{file}"
        ))),
    })
}

fn status(
    t: &rusqlite::Transaction,
    writers: &Writers,
    stopped: &HashSet<String>,
    file: &str,
) -> rusqlite::Result<Reply> {
    let (id, name) = match resolve(t, file)? {
        Ok(x) => x,
        Err(reply) => return Ok(reply),
    };
    let (acks, last_ms): (i64, i64) =
        t.query_row("SELECT acks, last_ms FROM files WHERE id = ?1", [id], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    Ok(Reply::Status {
        writing: writers.live(&name).is_some() && !stopped.contains(&name),
        stopped: stopped.contains(&name),
        file: name,
        acks: acks as u64,
        last_ms: last_ms as u64,
    })
}

/// Ends the writing of `file`'s run: its writer loses its place and its next intent is
/// refused. Its records stay, unverified.
fn stop(
    t: &rusqlite::Transaction,
    writers: &mut Writers,
    stopped: &mut HashSet<String>,
    file: &str,
) -> rusqlite::Result<Reply> {
    let name = match resolve(t, file)? {
        Ok((_, name)) => name,
        Err(reply) => return Ok(reply),
    };
    writers.remove(&name);
    stopped.insert(name);
    Ok(Reply::Ok)
}

/// A verify read `file` whole: its records may be replaced by a new run, and its writer,
/// silent since before the verify began, has stopped (a writer whose machine lost power is
/// never heard again). Not when the writer was heard from after the verify began: what it
/// wrote since has not been read.
fn verified(
    t: &rusqlite::Transaction,
    writers: &mut Writers,
    file: &str,
    began: Instant,
) -> rusqlite::Result<Reply> {
    if writers.last_heard(file).is_none_or(|h| h <= began) {
        writers.remove(file);
        t.execute("UPDATE files SET verified = 1 WHERE name = ?1", [file])?;
    }
    Ok(Reply::Ok)
}

/// Streams what the journal knows of `file`: `info`, one `block` per block, `end`. True when
/// the whole stream was sent.
pub fn stream(w: &mut TcpStream, journal: &Path, file: &str) -> std::io::Result<bool> {
    let refuse = |w: &mut TcpStream, e: String| {
        w.write_all(&protocol::line(&error(format!("witness journal: {e}"))))
            .map(|_| false)
    };
    let c = match Connection::open_with_flags(journal, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY) {
        Ok(c) => c,
        Err(e) => return refuse(w, e.to_string()),
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
        w.write_all(&protocol::line(&unknown(file)))?;
        return Ok(false);
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
    let n = match stream_blocks(&c, id, &mut out) {
        Ok(n) => n,
        Err(e) => return refuse(w, e.to_string()),
    };
    out.write_all(&protocol::line(&Reply::End { blocks: n }))?;
    out.flush()?;
    Ok(n == blocks as u64)
}

fn stream_blocks(c: &Connection, id: i64, out: &mut impl Write) -> anyhow::Result<u64> {
    let mut q = c.prepare(
        "SELECT block, acked_seq, acked_sum, acked_ms, intent_seq, intent_sum, intent_ms
         FROM blocks WHERE file = ?1 ORDER BY block",
    )?;
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
    })?;
    let mut n = 0u64;
    for b in rows {
        out.write_all(&protocol::line(&b?))?;
        n += 1;
    }
    Ok(n)
}
