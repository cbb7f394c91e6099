//! The SQLite backend: one file per host.
//!
//! Each write is one transaction in WAL mode, so a crash or `kill -9` leaves the previous
//! state readable; a sweep rewrites its entry after every point, so an interrupted sweep keeps
//! what it measured. The file's `user_version` is the schema version.

use crate::entry::{listed_columns, Columns, Filter, Row, Stored, LISTED};
use crate::{Result, StoreError, SCHEMA_VERSION};
use rusqlite::{params, Connection, OptionalExtension};
use std::path::{Path, PathBuf};

pub struct Sqlite {
    conn: Connection,
    path: PathBuf,
}

/// Version 1: the schema of the first volbench (`what` was added to it in place).
const V1: &str = "
CREATE TABLE IF NOT EXISTS entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    started_at TEXT NOT NULL,
    label TEXT,
    suite TEXT,
    target TEXT NOT NULL,
    hostname TEXT NOT NULL,
    status TEXT NOT NULL,
    iops REAL,
    bw_bytes REAL,
    points INTEGER NOT NULL,
    report TEXT NOT NULL,
    what TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS tags (
    entry INTEGER NOT NULL REFERENCES entries(id) ON DELETE CASCADE,
    tag TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS entries_label ON entries(label);
CREATE INDEX IF NOT EXISTS tags_entry ON tags(entry);
";

/// Version 2 (issue 47): each entry's uid (copies and pushes match on it), its host's machine
/// and kernel (history --machine), and the PostgreSQL store a result waits for.
const V2: &str = "
ALTER TABLE entries ADD COLUMN uid TEXT;
ALTER TABLE entries ADD COLUMN machine TEXT NOT NULL DEFAULT '';
ALTER TABLE entries ADD COLUMN kernel TEXT NOT NULL DEFAULT '';
ALTER TABLE entries ADD COLUMN pending TEXT;
UPDATE entries SET uid = lower(hex(randomblob(16))) WHERE uid IS NULL;
CREATE UNIQUE INDEX entries_uid ON entries(uid);
CREATE INDEX entries_host ON entries(hostname);
";

/// Version 3 (issue 64): the reports in a table of their own, so that listing, counting and
/// filtering a year of results reads the short columns alone (a row's columns after a 14 KB
/// report were read through its overflow pages), and an index for each filter that can have
/// one, so a page costs the same at a thousand results and at a million. Every index holds
/// the rowid, so `WHERE kind = ? ORDER BY id DESC` walks one index backward.
const V3: &str = "
CREATE TABLE reports (
    entry INTEGER PRIMARY KEY REFERENCES entries(id) ON DELETE CASCADE,
    report NOT NULL
);
INSERT INTO reports (entry, report) SELECT id, report FROM entries;
ALTER TABLE entries DROP COLUMN report;
CREATE INDEX entries_kind ON entries(kind);
CREATE INDEX entries_suite ON entries(suite);
CREATE INDEX entries_started ON entries(started_at);
";

/// volbench's own data directory: the only directory volbench creates for a store.
pub(crate) fn own_dir() -> PathBuf {
    dirs::data_dir()
        .unwrap_or_else(|| PathBuf::from("."))
        .join("volbench")
}

fn stored(v: rusqlite::types::Value) -> Stored {
    use rusqlite::types::Value;
    match v {
        Value::Text(t) => Stored::Text(t),
        Value::Blob(b) => Stored::Packed(b),
        Value::Null => Stored::Other("NULL"),
        Value::Integer(_) => Stored::Other("INTEGER"),
        Value::Real(_) => Stored::Other("REAL"),
    }
}

/// How long a store held by another volbench is waited for (it holds it only while it
/// writes one result).
const BUSY_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// How long one try at opening waits for a lock another volbench holds.
const TRY_WAIT: std::time::Duration = std::time::Duration::from_millis(20);

/// A pause of 5 to 50 ms between tries, different in each process so that two do not meet
/// again (the clock's nanoseconds are random enough for that).
fn jitter() -> std::time::Duration {
    let ns = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    std::time::Duration::from_millis(5 + u64::from(ns ^ std::process::id()) % 46)
}

/// A store another connection holds: worth another try.
fn is_busy(e: &StoreError) -> bool {
    use rusqlite::ErrorCode::{DatabaseBusy, DatabaseLocked};
    matches!(e, StoreError::Sqlite { source: rusqlite::Error::SqliteFailure(f, _), .. }
        if matches!(f.code, DatabaseBusy | DatabaseLocked))
}

impl Sqlite {
    /// Opens (creating if needed) the store at `path`. Only volbench's own data directory is
    /// created when missing; a user-given path whose directory is missing is an error, so a
    /// typo never makes a directory chain at some unexpected place.
    pub fn open(path: &Path) -> Result<Sqlite> {
        let deadline = std::time::Instant::now() + BUSY_WAIT;
        loop {
            match Sqlite::open_once(path) {
                Err(e) if is_busy(&e) && std::time::Instant::now() < deadline => {
                    std::thread::sleep(jitter())
                }
                r => return r,
            }
        }
    }

    /// One try at [`Sqlite::open`]. In exclusive locking mode a connection keeps the shared
    /// lock of its first read, so volbench processes opening together can each hold one and
    /// wait for the others' to go: twelve runs started together on one store waited out
    /// SQLite's busy timeout and seven failed. A try therefore waits only briefly for the
    /// lock, and one that does not get it lets go of its connection and tries again after a
    /// random pause, so one of them wins.
    fn open_once(path: &Path) -> Result<Sqlite> {
        // SQLite would open /dev/null and make /dev/null-journal beside it.
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            return Err(StoreError::NotFile(path.display().to_string()));
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            if !dir.is_dir() {
                make_own_dir(path, dir)?;
            }
        }
        // SQLite would open such a file read-only without a word and fail at the first write
        // with "disk I/O error": the cause is said instead, before anything is measured.
        if !writable(path) {
            return Err(StoreError::Setup(
                path.display().to_string(),
                "cannot be written here (a read-only file, directory or file system, or no permission): give a store this user can write, or --no-store; history, show and export still read it".into(),
            ));
        }
        let err = |source| StoreError::Sqlite {
            path: path.display().to_string(),
            source,
        };
        let new = std::fs::metadata(path).map_or(true, |m| m.len() == 0);
        create_private(path)?;
        let conn = Connection::open(path).map_err(err)?;
        // Another volbench holding the store: a short wait, then a fresh try (see above).
        conn.busy_timeout(TRY_WAIT).map_err(err)?;
        // Exclusive locking before WAL keeps the WAL index in memory instead of a mapped
        // `-shm` file: a full file system then fails a write with SQLITE_FULL (the store is
        // lost, not the run) rather than a mapping that cannot grow, and a full disk still
        // lets `history` read. It must come before anything reads the file, which would map
        // the index of a store already in WAL mode. The lock lasts as long as the
        // connection, so writers open the store only while they write (volbench's Recorder).
        conn.pragma_update(None, "locking_mode", "EXCLUSIVE")
            .map_err(err)?;
        // Pages a sweep frees as its report is rewritten after each point go back to the
        // file system. Only a new store can take it (older ones keep their size), and asked
        // of an existing one it writes, which a full disk refuses even to a reader.
        if new {
            conn.pragma_update(None, "auto_vacuum", "INCREMENTAL")
                .map_err(err)?;
        }
        // After auto_vacuum: switching to WAL writes the header, which fixes that setting.
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(err)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(err)?;
        let mut s = Sqlite {
            conn,
            path: path.to_path_buf(),
        };
        // Before the migration, whose writes a planted trigger would ride as well.
        s.refuse_foreign_sql()?;
        s.migrate()?;
        s.probe_writable()?;
        // The write lock is held now, for as long as the connection.
        s.conn.busy_timeout(BUSY_WAIT).map_err(s.err())?;
        Ok(s)
    }

    /// Takes the write lock and lets it go: a store SQLite opened read-only by itself (a
    /// read-only file or mount, which it opens quietly for reading) fails here, before a
    /// command measures anything, rather than when the result is to be stored.
    fn probe_writable(&self) -> Result<()> {
        self.conn
            .execute_batch("BEGIN IMMEDIATE; ROLLBACK;")
            .map_err(self.err())
    }

    /// Opens an existing store to read it. One this process can write is opened as for
    /// writing (so an older schema is migrated first); one it cannot (a read-only file, mount
    /// or directory) is opened immutable, which needs neither a lock nor the WAL's index.
    pub fn open_read(path: &Path) -> Result<Sqlite> {
        if !path.exists() || writable(path) {
            return Sqlite::open(path);
        }
        if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
            return Err(StoreError::NotFile(path.display().to_string()));
        }
        let err = |source| StoreError::Sqlite {
            path: path.display().to_string(),
            source,
        };
        use rusqlite::OpenFlags;
        let uri = format!("file:{}?immutable=1", uri_path(path));
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI;
        let conn = Connection::open_with_flags(uri, flags).map_err(err)?;
        let s = Sqlite {
            conn,
            path: path.to_path_buf(),
        };
        let version: i64 = s
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(s.err())?;
        match version {
            v if v > SCHEMA_VERSION => Err(StoreError::Newer(path.display().to_string(), v)),
            v if v < SCHEMA_VERSION => Err(StoreError::Setup(
                path.display().to_string(),
                format!("schema version {v} needs an upgrade this read-only store cannot take: copy it somewhere writable (cp) and read the copy"),
            )),
            _ => s.refuse_foreign_sql().map(|_| s),
        }
    }

    /// Refuses a store holding SQL volbench never makes: a trigger runs its own statements
    /// inside volbench's writes, as the user running volbench (root's delete by filter then
    /// deleted every row of a store another user had handed over, and said it deleted one),
    /// and a view could stand where a table should. volbench makes tables and indexes only.
    fn refuse_foreign_sql(&self) -> Result<()> {
        let found: Option<(String, String)> = self
            .conn
            .query_row(
                "SELECT type, name FROM sqlite_master WHERE type NOT IN ('table', 'index') LIMIT 1",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(self.err())?;
        match found {
            Some((kind, name)) => Err(StoreError::Setup(
                self.path.display().to_string(),
                format!(
                    "holds a {kind} named '{}', which volbench never makes: its SQL would run as this user inside volbench's writes; drop it (sqlite3 FILE 'DROP {} \"...\"') if you trust the file, or use another store",
                    clip_name(&name),
                    kind.to_uppercase()
                ),
            )),
            None => Ok(()),
        }
    }

    /// Brings the file to [`SCHEMA_VERSION`]; a file from a newer volbench is left alone.
    fn migrate(&mut self) -> Result<()> {
        let version: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(self.err())?;
        if version > SCHEMA_VERSION {
            return Err(StoreError::Newer(self.path.display().to_string(), version));
        }
        if version == SCHEMA_VERSION {
            return Ok(());
        }
        let err = self.owned_err();
        let tx = self.conn.transaction().map_err(&err)?;
        // Version 0 is a new file or one made before versions were kept (version 1's tables,
        // perhaps without the `what` column, which those versions added in place).
        if version < 1 {
            tx.execute_batch(V1).map_err(&err)?;
            if tx.prepare("SELECT what FROM entries LIMIT 0").is_err() {
                tx.execute_batch("ALTER TABLE entries ADD COLUMN what TEXT NOT NULL DEFAULT ''")
                    .map_err(&err)?;
            }
        }
        if version < 2 {
            tx.execute_batch(V2).map_err(&err)?;
            backfill_hosts(&tx).map_err(&err)?;
        }
        if version < 3 {
            tx.execute_batch(V3).map_err(&err)?;
        }
        tx.pragma_update(None, "user_version", SCHEMA_VERSION)
            .map_err(&err)?;
        tx.commit().map_err(&err)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// [`Sqlite::err`] that owns the path: for a transaction, which borrows the connection.
    fn owned_err(&self) -> impl Fn(rusqlite::Error) -> StoreError + 'static {
        let path = self.path.display().to_string();
        move |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        }
    }

    fn err(&self) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
        move |source| StoreError::Sqlite {
            path: self.path.display().to_string(),
            source,
        }
    }

    pub fn insert(
        &mut self,
        c: &Columns,
        report: &[u8],
        label: Option<&str>,
        tags: &[String],
        uid: &str,
    ) -> Result<i64> {
        let err = self.owned_err();
        let tx = self.conn.transaction().map_err(&err)?;
        tx.execute(
            "INSERT INTO entries (kind, started_at, label, suite, target, hostname, status, iops, bw_bytes, points, what, uid, machine, kernel)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            params![c.kind, c.started_at, label, c.suite, c.target, c.hostname, c.status, c.iops, c.bw_bytes, c.points, c.what, uid, c.machine, c.kernel],
        )
        .map_err(&err)?;
        let id = tx.last_insert_rowid();
        tx.execute(
            "INSERT INTO reports (entry, report) VALUES (?1, ?2)",
            params![id, report],
        )
        .map_err(&err)?;
        for t in tags {
            tx.execute(
                "INSERT INTO tags (entry, tag) VALUES (?1, ?2)",
                params![id, t],
            )
            .map_err(&err)?;
        }
        tx.commit().map_err(&err)?;
        Ok(id)
    }

    pub fn update(&mut self, id: i64, c: &Columns, report: &[u8]) -> Result<()> {
        let err = self.owned_err();
        let tx = self.conn.transaction().map_err(&err)?;
        tx.execute(
            "UPDATE entries SET status = ?2, target = ?3, hostname = ?4, iops = ?5, bw_bytes = ?6, points = ?7, what = ?8, machine = ?9, kernel = ?10 WHERE id = ?1",
            params![id, c.status, c.target, c.hostname, c.iops, c.bw_bytes, c.points, c.what, c.machine, c.kernel],
        )
        .map_err(&err)?;
        tx.execute(
            "UPDATE reports SET report = ?2 WHERE entry = ?1",
            params![id, report],
        )
        .map_err(&err)?;
        tx.commit().map_err(&err)?;
        self.give_back_free_pages()
    }

    /// A page of the filter's rows, newest first (`limit` of them, or all).
    pub fn list(&self, f: &Filter, limit: Option<u64>) -> Result<Vec<Row>> {
        let (sql, args) = f.page_sql(&DIALECT, "entries", &listed_columns(), limit);
        let mut stmt = self.conn.prepare(&sql).map_err(self.err())?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(args.iter()), |r| {
                (0..15)
                    .map(|i| r.get(i))
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(self.err())?;
        let mut out = Vec::new();
        for row in rows {
            let mut row = lenient_row(row.map_err(self.err())?);
            row.tags = self.tags(row.id)?;
            out.push(row);
        }
        Ok(crate::entry::newest_first(out, f, limit))
    }

    /// How many rows the filter picks.
    pub fn count(&self, f: &Filter) -> Result<u64> {
        let (cond, args) = f.sql(&DIALECT);
        let sql = format!("SELECT count(*) FROM entries WHERE 1=1{cond}");
        self.conn
            .query_row(&sql, rusqlite::params_from_iter(args.iter()), |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n as u64)
            .map_err(self.err())
    }

    /// Deletes every entry the filter picks (their reports and tags with them) in one
    /// transaction, then gives the file's freed space back: the count deleted.
    pub fn delete_where(&mut self, f: &Filter) -> Result<u64> {
        let (cond, args) = f.sql(&DIALECT);
        let sql = format!("DELETE FROM entries WHERE 1=1{cond}");
        let n = self
            .conn
            .execute(&sql, rusqlite::params_from_iter(args.iter()))
            .map_err(self.err())?;
        self.reclaim()?;
        Ok(n as u64)
    }

    /// Gives the free pages back to the file system: a store made with incremental
    /// auto-vacuum hands them back a page at a time; an older one is rewritten (VACUUM).
    fn reclaim(&self) -> Result<()> {
        let auto: i64 = self
            .conn
            .query_row("PRAGMA auto_vacuum", [], |r| r.get(0))
            .map_err(self.err())?;
        match auto {
            0 => self.conn.execute_batch("VACUUM").map_err(self.err())?,
            _ => self.give_back_free_pages()?,
        }
        // The pages a VACUUM or a large delete wrote to the WAL reach the file, and the
        // WAL is emptied: the space is back now, not at the next checkpoint.
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
            .map_err(self.err())
    }

    /// The file and its WAL, in bytes.
    pub fn size(&self) -> u64 {
        let len = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
        let mut wal = self.path.clone().into_os_string();
        wal.push("-wal");
        len(&self.path) + len(Path::new(&wal))
    }

    fn tags(&self, id: i64) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT substr(tag, 1, 512) FROM tags WHERE entry = ?1 ORDER BY rowid")
            .map_err(self.err())?;
        let tags = stmt
            .query_map([id], |r| r.get(0))
            .map_err(self.err())?
            .collect::<rusqlite::Result<Vec<String>>>()
            .map_err(self.err())?;
        Ok(tags)
    }

    pub(crate) fn get(&self, id: i64) -> Result<Option<Stored>> {
        let v: Option<rusqlite::types::Value> = self
            .conn
            .query_row("SELECT report FROM reports WHERE entry = ?1", [id], |r| {
                r.get(0)
            })
            .optional()
            .map_err(self.err())?;
        Ok(v.map(stored))
    }

    pub fn find_uid(&self, uid: &str) -> Result<Option<i64>> {
        self.conn
            .query_row("SELECT id FROM entries WHERE uid = ?1", [uid], |r| r.get(0))
            .optional()
            .map_err(self.err())
    }

    pub fn find_label(&self, label: &str) -> Result<Vec<i64>> {
        let mut st = self
            .conn
            .prepare("SELECT id FROM entries WHERE label = ?1 ORDER BY id DESC")
            .map_err(self.err())?;
        let ids = st
            .query_map([label], |r| r.get(0))
            .map_err(self.err())?
            .collect::<std::result::Result<Vec<i64>, _>>()
            .map_err(self.err())?;
        Ok(ids)
    }

    pub fn delete(&mut self, id: i64) -> Result<bool> {
        let n = self
            .conn
            .execute("DELETE FROM entries WHERE id = ?1", [id])
            .map_err(self.err())?;
        self.give_back_free_pages()?;
        Ok(n > 0)
    }

    pub fn set_pending(&mut self, id: i64, dest: Option<&str>) -> Result<()> {
        self.conn
            .execute(
                "UPDATE entries SET pending = ?2 WHERE id = ?1",
                params![id, dest],
            )
            .map_err(self.err())?;
        Ok(())
    }

    pub fn pending(&self) -> Result<Vec<(i64, String)>> {
        let mut st = self
            .conn
            .prepare("SELECT id, pending FROM entries WHERE pending IS NOT NULL ORDER BY id")
            .map_err(self.err())?;
        let v = st
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(self.err())?
            .collect::<std::result::Result<Vec<(i64, String)>, _>>()
            .map_err(self.err())?;
        Ok(v)
    }

    fn give_back_free_pages(&self) -> Result<()> {
        // The pragma frees one page per step: it must be stepped to its end.
        let mut st = self
            .conn
            .prepare("PRAGMA incremental_vacuum")
            .map_err(self.err())?;
        let mut rows = st.query([]).map_err(self.err())?;
        while rows.next().map_err(self.err())?.is_some() {}
        Ok(())
    }

    pub fn integrity_check(&self) -> Result<String> {
        self.conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .map_err(self.err())
    }
}

/// A name from the file, as a message repeats it: printable and short.
fn clip_name(s: &str) -> String {
    s.chars().filter(|c| !c.is_control()).take(40).collect()
}

/// SQLite's parameter marks and substring test, for the filter's SQL.
const DIALECT: crate::entry::Dialect = crate::entry::Dialect {
    mark: |n| format!("?{n}"),
    position: "instr",
};

/// One row's cells as SQLite holds them, read leniently: what does not read is noted.
struct Cells {
    v: Vec<rusqlite::types::Value>,
    bad: Vec<&'static str>,
}

impl Cells {
    fn text(&mut self, i: usize) -> Option<String> {
        use rusqlite::types::Value as V;
        match &self.v[i] {
            V::Text(t) => Some(t.clone()),
            V::Null => None,
            V::Integer(n) => Some(n.to_string()),
            V::Real(x) => Some(x.to_string()),
            V::Blob(_) => {
                self.bad.push(LISTED[i]);
                None
            }
        }
    }

    fn num(&mut self, i: usize) -> Option<f64> {
        use rusqlite::types::Value as V;
        match &self.v[i] {
            V::Real(x) => Some(*x),
            V::Integer(n) => Some(*n as f64),
            V::Null => None,
            _ => {
                self.bad.push(LISTED[i]);
                None
            }
        }
    }

    /// A whole number (an id, a count), read as a number (exact below 2^53).
    fn int(&mut self, i: usize) -> Option<i64> {
        self.num(i).map(|x| x as i64)
    }

    fn string(&mut self, i: usize) -> String {
        self.text(i).unwrap_or_default()
    }
}

/// A row from its columns as SQLite holds them. SQLite keeps any type in any column, so a
/// damaged or hand-edited row can hold text where a rate belongs: what reads is kept, what
/// does not is left empty and named in the row's status, and the other rows list as ever.
fn lenient_row(v: Vec<rusqlite::types::Value>) -> Row {
    let mut c = Cells { v, bad: Vec::new() };
    let mut row = Row {
        id: c.int(0).unwrap_or(0),
        uid: c.string(1),
        kind: c.string(2),
        started_at: c.string(3),
        label: c.text(4),
        suite: c.text(5),
        target: c.string(6),
        hostname: c.string(7),
        machine: c.string(8),
        kernel: c.string(9),
        status: c.string(10),
        iops: c.num(11),
        bw_bytes: c.num(12),
        points: c.int(13).unwrap_or(0),
        what: c.string(14),
        tags: Vec::new(),
    };
    if !c.bad.is_empty() {
        row.status = format!("damaged ({} unreadable)", c.bad.join(", "));
    }
    row
}

/// Whether this process may write the file (if it exists) and make files beside it (SQLite's WAL and its
/// journal live in the same directory).
fn writable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let ok = |p: &Path| {
        let c = std::ffi::CString::new(p.as_os_str().as_bytes()).unwrap_or_default();
        // SAFETY: a NUL-terminated path; access(2) only reads it.
        unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    (!path.exists() || ok(path)) && ok(dir)
}

/// A path as an SQLite URI's path: characters URIs reserve are percent-encoded.
fn uri_path(p: &Path) -> String {
    let abs = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut out = String::new();
    for b in abs.to_string_lossy().bytes() {
        match b {
            b'?' | b'#' | b'%' | b' ' | b'&' | b'=' => out.push_str(&format!("%{b:02X}")),
            b if b >= 0x80 => out.push_str(&format!("%{b:02X}")),
            _ => out.push(b as char),
        }
    }
    out
}

/// A store is every result of a team's machine: made 0600 (SQLite gives its `-wal` the
/// same mode; under the exclusive lock there is no `-shm`), and never through a link planted in a directory others can write.
fn create_private(path: &Path) -> Result<()> {
    let opener = outfile::Opener::private("the results store");
    opener.check(path).map_err(|r| StoreError::Refused(r.0))?;
    // SQLite opens the store and makes its -wal by name, so what another user could put or
    // swap on the way (a directory link, their own file at the name) it would write into,
    // and results there are theirs to read: a store lives where only the user or root can.
    if let Some(why) = outfile::planted_by_others(outfile::parent(path)) {
        return Err(StoreError::Refused(format!(
            "the results store {} is in {why}: SQLite opens it by name, so another user could change what it is; give a store in a directory of your own that no one else can write",
            path.display()
        )));
    }
    // Through the link (one the user made, the check says): a link to a store not made yet
    // is made here 0600, not left to SQLite and the umask.
    if std::fs::metadata(path).is_err() {
        opener
            .open(path)
            .map_err(|e| StoreError::Refused(e.to_string()))?;
    }
    Ok(())
}

/// Creates volbench's own data directory (private: it holds the results and the witness's
/// journal); any other missing directory is the user's typo, and an error.
fn make_own_dir(path: &Path, dir: &Path) -> Result<()> {
    if dir != own_dir() {
        return Err(StoreError::NoParent(
            path.display().to_string(),
            dir.display().to_string(),
        ));
    }
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir)
        .and_then(|_| std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)))
        .map_err(|e| StoreError::Dir(dir.display().to_string(), e))
}

/// Version 2's host columns for the entries an older volbench stored, from their reports.
/// A report that no longer reads keeps empty columns (it is reported when it is opened).
fn backfill_hosts(tx: &rusqlite::Transaction) -> rusqlite::Result<()> {
    let ids: Vec<i64> = tx
        .prepare("SELECT id FROM entries")?
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for id in ids {
        let v: rusqlite::types::Value =
            tx.query_row("SELECT report FROM entries WHERE id = ?1", [id], |r| {
                r.get(0)
            })?;
        if let Ok(e) = crate::entry::unpack(id, stored(v)) {
            let c = Columns::of(&e);
            tx.execute(
                "UPDATE entries SET machine = ?2, kernel = ?3 WHERE id = ?1",
                params![id, c.machine, c.kernel],
            )?;
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "sqlite_tests.rs"]
mod tests;
