//! The results history: every run, sweep and suite in one SQLite file.
//!
//! Each write is one transaction in WAL mode, so a crash or `kill -9` leaves the previous
//! state readable; a sweep rewrites its entry after every point, so an interrupted sweep keeps
//! what it measured. Reports are stored whole as JSON beside a few columns for listing.

use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("results store {path}: {source}: check the path, or pass --store PATH or --no-store")]
    Sqlite {
        path: String,
        #[source]
        source: rusqlite::Error,
    },
    #[error("cannot create the directory for the results store {0}: {1}")]
    Dir(String, std::io::Error),
    #[error("results store {0}: directory {1} does not exist: create it, or choose another --store PATH")]
    NoParent(String, String),
    #[error("results store {0} is not a regular file (a device, FIFO or directory): give a file path, or --no-store")]
    NotFile(String),
    #[error("entry {0} in the results store is not a report this version can read: {1}")]
    Corrupt(i64, serde_json::Error),
    #[error("entry {0} in the results store cannot be unpacked ({1}): the file is damaged; delete the entry (volbench delete {0})")]
    Unpack(i64, String),
}

/// A stored report is zlib-compressed JSON: a sweep's reports hold each point's latency
/// histograms three times over (job, group, reporting group), which compress about tenfold.
/// Entries from older versions are plain JSON text and read as they are.
fn pack(e: &Entry) -> Vec<u8> {
    use std::io::Write;
    let json = serde_json::to_vec(e).expect("reports serialize");
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&json).expect("writing to memory");
    z.finish().expect("writing to memory")
}

/// The largest report an entry unpacks to: far above any real one (a 64-job, 100-point
/// sweep is a few tens of MB), and a bound on what a damaged or hostile file can make us
/// allocate.
const MAX_REPORT: u64 = 1 << 30;

fn unpack(id: i64, stored: rusqlite::types::Value) -> Result<Entry> {
    use rusqlite::types::Value;
    use std::io::Read;
    let json = match stored {
        Value::Text(t) => t.into_bytes(),
        Value::Blob(b) => {
            let mut out = Vec::new();
            flate2::read::ZlibDecoder::new(&b[..])
                .take(MAX_REPORT + 1)
                .read_to_end(&mut out)
                .map_err(|e| StoreError::Unpack(id, e.to_string()))?;
            if out.len() as u64 > MAX_REPORT {
                return Err(StoreError::Unpack(id, "larger than 1 GiB".into()));
            }
            out
        }
        other => {
            return Err(StoreError::Unpack(
                id,
                format!("a {:?} value", other.data_type()),
            ))
        }
    };
    serde_json::from_slice(&json).map_err(|e| StoreError::Corrupt(id, e))
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// What one entry holds: a run, or a suite or sweep.
pub use report::Document as Entry;

fn status_name(e: &Entry) -> String {
    serde_json::to_value(e.status())
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default()
}

/// One line of `volbench history`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    pub id: i64,
    pub kind: String,
    pub started_at: String,
    pub label: Option<String>,
    pub suite: Option<String>,
    pub target: String,
    pub hostname: String,
    pub status: String,
    /// Total IOPS and bandwidth of a run with one reporting group (empty for suites, sweeps and
    /// runs of several stonewalled groups, whose sum over different workloads means nothing).
    pub iops: Option<f64>,
    pub bw_bytes: Option<f64>,
    pub points: i64,
    /// What the entry is ("randread 4k QD32", "2 groups: ...", "sweep of numjobs").
    pub what: String,
    pub tags: Vec<String>,
}

/// Which rows `list` returns; empty fields match everything.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub label: Option<String>,
    pub target: Option<String>,
    pub suite: Option<String>,
    pub kind: Option<String>,
    /// RFC 3339 prefix bounds, e.g. "2026-11-01".
    pub since: Option<String>,
    pub until: Option<String>,
}

pub struct Store {
    conn: Connection,
    path: PathBuf,
}

const SCHEMA: &str = "
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

impl Store {
    /// `VOLBENCH_STORE` if set, else `results.db` in the user's data directory.
    pub fn default_path() -> PathBuf {
        if let Some(p) = std::env::var_os("VOLBENCH_STORE") {
            return PathBuf::from(p);
        }
        Self::own_dir().join("results.db")
    }

    /// volbench's own data directory: the only directory volbench creates for a store.
    fn own_dir() -> PathBuf {
        dirs::data_dir()
            .unwrap_or_else(|| PathBuf::from("."))
            .join("volbench")
    }

    /// Opens (creating if needed) the store at `path`. Only volbench's own data directory is
    /// created when missing; a user-given path whose directory is missing is an error, so a
    /// typo never makes a directory chain at some unexpected place.
    pub fn open(path: &Path) -> Result<Store> {
        // SQLite would open /dev/null and make /dev/null-journal beside it.
        if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
            return Err(StoreError::NotFile(path.display().to_string()));
        }
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            if !dir.is_dir() {
                if dir != Self::own_dir() {
                    return Err(StoreError::NoParent(
                        path.display().to_string(),
                        dir.display().to_string(),
                    ));
                }
                // Private: it holds the results and the witness's journal.
                use std::os::unix::fs::PermissionsExt;
                std::fs::create_dir_all(dir)
                    .and_then(|_| {
                        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
                    })
                    .map_err(|e| StoreError::Dir(dir.display().to_string(), e))?;
            }
        }
        let err = |source| StoreError::Sqlite {
            path: path.display().to_string(),
            source,
        };
        let new = std::fs::metadata(path).map_or(true, |m| m.len() == 0);
        let conn = Connection::open(path).map_err(err)?;
        // Another volbench holding the store waits us out (up to 5 s), from the first lock on.
        conn.busy_timeout(std::time::Duration::from_secs(5))
            .map_err(err)?;
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
        conn.execute_batch(SCHEMA).map_err(err)?;
        // Stores made before the `what` column get it (empty for their old rows).
        let has_what = conn.prepare("SELECT what FROM entries LIMIT 0").is_ok();
        if !has_what {
            conn.execute_batch("ALTER TABLE entries ADD COLUMN what TEXT NOT NULL DEFAULT ''")
                .map_err(err)?;
        }
        Ok(Store {
            conn,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
        move |source| StoreError::Sqlite {
            path: self.path.display().to_string(),
            source,
        }
    }

    fn columns(e: &Entry) -> (String, String, Option<f64>, Option<f64>, i64) {
        let env = e.environment();
        let target = env
            .map(|env| {
                env.targets
                    .iter()
                    .map(|t| t.path.as_str())
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .unwrap_or_default();
        let hostname = env.map(|env| env.hostname.clone()).unwrap_or_default();
        match e {
            Entry::Run(r) if r.groups.len() <= 1 => (
                target,
                hostname,
                Some(r.group.total_iops()),
                Some(r.group.total_bw_bytes()),
                1,
            ),
            Entry::Run(r) => (target, hostname, None, None, r.groups.len() as i64),
            Entry::Suite(s) => (target, hostname, None, None, s.runs.len() as i64),
            Entry::Fsync(f) => (target, hostname, None, None, f.cases.len() as i64),
            Entry::Compare(c) => (target, hostname, None, None, c.inputs.len() as i64),
            // A db result's targets are its runs' directories (or the server), and its rate
            // is transactions per second, kept in the rate column (history prints "tps").
            Entry::Db(d) => (
                d.runs
                    .iter()
                    .map(|r| r.target.as_str())
                    .collect::<Vec<_>>()
                    .join(","),
                hostname,
                match d.runs.as_slice() {
                    [one] => Some(one.tps),
                    _ => None,
                },
                None,
                d.runs.len() as i64,
            ),
            // The tested file (on another machine) and host, and one point per cycle.
            Entry::Durability(d) => (
                d.file.clone(),
                d.tested_host.clone(),
                None,
                None,
                d.cycles.len() as i64,
            ),
            Entry::Infer(i) => (
                target,
                hostname,
                i.limits.iops_cap,
                i.limits.bw_cap_bytes,
                i.points.len() as i64,
            ),
        }
    }

    /// Stores an entry with its label and tags; returns its id.
    pub fn insert(&mut self, e: &Entry, label: Option<&str>, tags: &[String]) -> Result<i64> {
        let json = pack(e);
        let (target, hostname, iops, bw, points) = Self::columns(e);
        let path = self.path.display().to_string();
        let err = move |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(&err)?;
        tx.execute(
            "INSERT INTO entries (kind, started_at, label, suite, target, hostname, status, iops, bw_bytes, points, report, what)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![e.kind(), e.started_at(), label, e.suite_name(), target, hostname, status_name(e), iops, bw, points, json, e.what()],
        )
        .map_err(&err)?;
        let id = tx.last_insert_rowid();
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

    /// Replaces an entry's report (a sweep after each point).
    pub fn update(&mut self, id: i64, e: &Entry) -> Result<()> {
        let json = pack(e);
        let (target, hostname, iops, bw, points) = Self::columns(e);
        self.conn
            .execute(
                "UPDATE entries SET status = ?2, target = ?3, hostname = ?4, iops = ?5, bw_bytes = ?6, points = ?7, report = ?8, what = ?9 WHERE id = ?1",
                params![id, status_name(e), target, hostname, iops, bw, points, json, e.what()],
            )
            .map_err(self.err())?;
        self.give_back_free_pages()
    }

    pub fn list(&self, f: &Filter) -> Result<Vec<Row>> {
        let mut sql = String::from(
            "SELECT id, kind, started_at, label, suite, target, hostname, status, iops, bw_bytes, points, what FROM entries WHERE 1=1",
        );
        let mut args: Vec<String> = Vec::new();
        let mut cond = |clause: &str, v: &Option<String>| {
            if let Some(v) = v {
                args.push(v.clone());
                sql.push_str(&clause.replace('?', &format!("?{}", args.len())));
            }
        };
        cond(" AND label = ?", &f.label);
        cond(" AND target LIKE '%' || ? || '%'", &f.target);
        cond(" AND suite = ?", &f.suite);
        cond(" AND kind = ?", &f.kind);
        cond(" AND started_at >= ?", &f.since);
        cond(" AND started_at < ?", &f.until);
        sql.push_str(" ORDER BY id");
        let mut stmt = self.conn.prepare(&sql).map_err(self.err())?;
        let rows = stmt
            .query_map(rusqlite::params_from_iter(args.iter()), |r| {
                Ok(Row {
                    id: r.get(0)?,
                    kind: r.get(1)?,
                    started_at: r.get(2)?,
                    label: r.get(3)?,
                    suite: r.get(4)?,
                    target: r.get(5)?,
                    hostname: r.get(6)?,
                    status: r.get(7)?,
                    iops: r.get(8)?,
                    bw_bytes: r.get(9)?,
                    points: r.get(10)?,
                    what: r.get(11)?,
                    tags: Vec::new(),
                })
            })
            .map_err(self.err())?;
        let mut out = Vec::new();
        for row in rows {
            let mut row = row.map_err(self.err())?;
            row.tags = self.tags(row.id)?;
            out.push(row);
        }
        Ok(out)
    }

    fn tags(&self, id: i64) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare("SELECT tag FROM tags WHERE entry = ?1 ORDER BY rowid")
            .map_err(self.err())?;
        let tags = stmt
            .query_map([id], |r| r.get(0))
            .map_err(self.err())?
            .collect::<rusqlite::Result<Vec<String>>>()
            .map_err(self.err())?;
        Ok(tags)
    }

    pub fn get(&self, id: i64) -> Result<Option<Entry>> {
        let stored: Option<rusqlite::types::Value> = self
            .conn
            .query_row("SELECT report FROM entries WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .optional()
            .map_err(self.err())?;
        stored.map(|v| unpack(id, v)).transpose()
    }

    /// Every entry with this label, newest first.
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

    /// SQLite's own consistency check: "ok" when the file is sound.
    pub fn integrity_check(&self) -> Result<String> {
        self.conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .map_err(self.err())
    }
}
