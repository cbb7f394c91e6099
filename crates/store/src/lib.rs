//! The results history: every run, sweep and suite, in one SQLite file per host or in a
//! PostgreSQL database a team's hosts share.
//!
//! Both backends hold the same documents (zlib-compressed JSON) beside the same few columns for
//! listing, and answer the same queries through [`Store`], so the commands never know which one
//! they talk to. Every entry carries a `uid` made when it is first stored: copies between
//! stores and pushes of pending results match on it, so running them twice doubles nothing.

pub mod conninfo;
mod dates;
mod entry;
pub mod location;
mod pg;
mod pgconn;
pub mod service;
mod sqlite;
pub mod transfer;

pub use entry::{new_uid, Columns, Entry, Filter, Row, KINDS, LISTED_TEXT_MAX, PAGE_STRING_MAX};
pub use location::Location;
pub use service::{Asked, Hooks, Recorder, STORE_MISCONFIGURED};
use std::path::{Path, PathBuf};

/// The schema version this volbench writes (both backends); see `sqlite::MIGRATIONS` and
/// `pg::MIGRATIONS` for the steps from each older one.
pub const SCHEMA_VERSION: i64 = 3;

/// PostgreSQL's migration steps, step `i` taking the schema from version `i` to `i + 1`
/// (public so a test can build a store as an older volbench left it).
pub use pg::MIGRATIONS as PG_MIGRATIONS;

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
    /// The store was made by a newer volbench: writing it could break that version's data.
    #[error("results store {0} has schema version {1}, made by a newer volbench (this one knows up to {SCHEMA_VERSION}): upgrade volbench on this host")]
    Newer(String, i64),
    /// The PostgreSQL store cannot be used as configured: unreachable, refused, no rights.
    /// The message names the cause and the fix.
    #[error("results store {0}: {1}")]
    Setup(String, String),
    /// The PostgreSQL server could not be reached, or the connection dropped: a command
    /// cannot start on it, and a result being stored is retried, then kept locally.
    #[error("results store {0}: cannot connect ({1}): check that the server runs and listens there (listen_addresses, pg_hba.conf, the network between), or use --store FILE")]
    Connection(String, String),
    #[error("results store {0}: {1}")]
    Postgres(String, String),
    /// A history filter that does not read (a date that is none).
    #[error("{0}")]
    BadFilter(String),
    /// A store path the rules for user-named files refuse (a link planted in a directory
    /// others can write, a device): outfile's one line.
    #[error("{0}")]
    Refused(String),
}

impl StoreError {
    /// A store that cannot be used as named (bad input: exit code 2): misconfigured, made by
    /// a newer volbench, or not reachable when a command starts on it.
    pub fn is_setup(&self) -> bool {
        use rusqlite::ErrorCode as C;
        match self {
            StoreError::Setup(..)
            | StoreError::Newer(..)
            | StoreError::Connection(..)
            | StoreError::NotFile(..)
            | StoreError::NoParent(..)
            | StoreError::Dir(..)
            | StoreError::BadFilter(..)
            | StoreError::Refused(..) => true,
            // A file that is not a store, or one this user cannot write: the path is the
            // user's to fix, as a missing directory is.
            StoreError::Sqlite { source, .. } => matches!(
                source.sqlite_error_code(),
                Some(C::NotADatabase | C::ReadOnly | C::CannotOpen | C::PermissionDenied)
            ),
            _ => false,
        }
    }

    /// Lost or refused connections: the result may still reach the store on a retry or later.
    pub fn is_connection(&self) -> bool {
        matches!(self, StoreError::Connection(..))
    }
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// An open results store.
pub enum Store {
    Sqlite(sqlite::Sqlite),
    Postgres(Box<pg::Pg>),
}

/// An entry as a backend handed it back ([`Store::fetch`]).
pub struct Packed(i64, entry::Stored);

impl Packed {
    /// The entry, inflated and read within the bounds of a document (`report::read`).
    pub fn open(self) -> Result<Entry> {
        entry::unpack(self.0, self.1)
    }

    /// The entry for a page, with every string cut to [`entry::PAGE_STRING_MAX`] bytes, and
    /// its size inflated (what a page's budget counts).
    pub fn open_for_page(self) -> Result<(Entry, usize)> {
        entry::unpack_with(self.0, self.1, Some(entry::PAGE_STRING_MAX))
    }
}

impl Store {
    /// `VOLBENCH_STORE` if set (a path or a PostgreSQL URL), else `results.db` in the user's
    /// data directory.
    pub fn default_path() -> PathBuf {
        if let Some(p) = std::env::var_os("VOLBENCH_STORE") {
            return PathBuf::from(p);
        }
        Self::local_path()
    }

    /// The local SQLite store: `VOLBENCH_LOCAL_STORE`, or `VOLBENCH_STORE` when that is a file,
    /// else `results.db` in the user's data directory. Results a PostgreSQL store could not
    /// take wait here until `volbench store push`.
    pub fn local_path() -> PathBuf {
        if let Some(p) = std::env::var_os("VOLBENCH_LOCAL_STORE") {
            return PathBuf::from(p);
        }
        match std::env::var_os("VOLBENCH_STORE").map(PathBuf::from) {
            Some(p) if matches!(Location::of(&p), Ok(Location::File(_))) => p,
            _ => sqlite::own_dir().join("results.db"),
        }
    }

    /// Opens (creating and migrating if needed) the store a `--store` value names: a file
    /// path, or a PostgreSQL URL (`postgresql://...`) or key=value connection string.
    pub fn open(at: &Path) -> Result<Store> {
        Self::open_at(&Location::of(at)?)
    }

    /// Opens a store only to read it (history, show, export, serve): a SQLite file that is
    /// read-only, on a read-only mount, or in a directory this user cannot write is still
    /// read; a missing one is an error rather than a new empty store.
    pub fn open_read(at: &Path) -> Result<Store> {
        Ok(match Location::of(at)? {
            Location::File(p) => Store::Sqlite(sqlite::Sqlite::open_read(&p)?),
            Location::Postgres(url) => Store::Postgres(Box::new(pg::Pg::open(&url)?)),
        })
    }

    pub fn open_at(at: &Location) -> Result<Store> {
        Ok(match at {
            Location::File(p) => Store::Sqlite(sqlite::Sqlite::open(p)?),
            Location::Postgres(url) => Store::Postgres(Box::new(pg::Pg::open(url)?)),
        })
    }

    /// The store as messages name it: its path, or its URL without a password.
    pub fn describe(&self) -> String {
        match self {
            Store::Sqlite(s) => s.path().display().to_string(),
            Store::Postgres(p) => p.shown().to_string(),
        }
    }

    /// Stores an entry with its label and tags; returns its id.
    pub fn insert(&mut self, e: &Entry, label: Option<&str>, tags: &[String]) -> Result<i64> {
        let uid = entry::new_uid();
        self.insert_uid(e, label, tags, &uid)
    }

    /// Stores an entry under a given uid (a copy, or the local fallback of a result that
    /// keeps its uid until it reaches its store).
    pub fn insert_uid(
        &mut self,
        e: &Entry,
        label: Option<&str>,
        tags: &[String],
        uid: &str,
    ) -> Result<i64> {
        let cols = Columns::of(e);
        let packed = entry::pack(e);
        match self {
            Store::Sqlite(s) => s.insert(&cols, &packed, label, tags, uid),
            Store::Postgres(p) => p.insert(&cols, &packed, label, tags, uid),
        }
    }

    /// Replaces an entry's report (a sweep after each point).
    pub fn update(&mut self, id: i64, e: &Entry) -> Result<()> {
        let cols = Columns::of(e);
        let packed = entry::pack(e);
        match self {
            Store::Sqlite(s) => s.update(id, &cols, &packed),
            Store::Postgres(p) => p.update(id, &cols, &packed),
        }
    }

    /// A page of the rows the filter picks, newest first: `limit` rows at most, or all of
    /// them (`None`). Its dates are checked (a bad one is [`StoreError::BadFilter`]); a row
    /// whose columns are damaged is listed with what could be read and its status saying so,
    /// rather than failing the whole list. Each filter but the two substrings (target,
    /// machine) is served by an index, so the newest page costs the same in any history.
    pub fn list(&mut self, f: &Filter, limit: Option<u64>) -> Result<Vec<Row>> {
        let f = &f.checked()?;
        match self {
            Store::Sqlite(s) => s.list(f, limit),
            Store::Postgres(p) => p.list(f, limit),
        }
    }

    /// Every row the filter picks, oldest first (a copy between stores, in stored order).
    pub fn all(&mut self, f: &Filter) -> Result<Vec<Row>> {
        let mut rows = self.list(f, None)?;
        rows.reverse();
        Ok(rows)
    }

    /// How many rows the filter picks (its page bounds included).
    pub fn count(&mut self, f: &Filter) -> Result<u64> {
        let f = &f.checked()?;
        match self {
            Store::Sqlite(s) => s.count(f),
            Store::Postgres(p) => p.count(f),
        }
    }

    /// Deletes every entry the filter picks, which must narrow the history (a filter of
    /// nothing is refused, never "everything"), and gives SQLite's freed space back to the
    /// file system. The count deleted.
    pub fn delete_where(&mut self, f: &Filter) -> Result<u64> {
        let f = &f.checked()?;
        if !f.narrows() {
            return Err(StoreError::BadFilter(
                "a delete by filter needs at least one filter (--before, --label, --kind ...)"
                    .into(),
            ));
        }
        match self {
            Store::Sqlite(s) => s.delete_where(f),
            Store::Postgres(p) => p.delete_where(f),
        }
    }

    pub fn get(&mut self, id: i64) -> Result<Option<Entry>> {
        self.fetch(id)?.map(Packed::open).transpose()
    }

    /// The entry as stored, not yet unpacked: what a server takes while it holds the store,
    /// unpacking after it lets go (a big entry then keeps no one else waiting).
    pub fn fetch(&mut self, id: i64) -> Result<Option<Packed>> {
        let stored = match self {
            Store::Sqlite(s) => s.get(id)?,
            Store::Postgres(p) => p.get(id)?.map(entry::Stored::Packed),
        };
        Ok(stored.map(|v| Packed(id, v)))
    }

    /// The id of the entry with this uid, if the store has it.
    pub fn find_uid(&mut self, uid: &str) -> Result<Option<i64>> {
        match self {
            Store::Sqlite(s) => s.find_uid(uid),
            Store::Postgres(p) => p.find_uid(uid),
        }
    }

    /// Every entry with this label, newest first.
    pub fn find_label(&mut self, label: &str) -> Result<Vec<i64>> {
        match self {
            Store::Sqlite(s) => s.find_label(label),
            Store::Postgres(p) => p.find_label(label),
        }
    }

    pub fn delete(&mut self, id: i64) -> Result<bool> {
        match self {
            Store::Sqlite(s) => s.delete(id),
            Store::Postgres(p) => p.delete(id),
        }
    }

    /// Marks a local entry as waiting for the PostgreSQL store `dest` (its URL without a
    /// password), or clears the mark (`None`). Only the SQLite store keeps such marks.
    pub fn set_pending(&mut self, id: i64, dest: Option<&str>) -> Result<()> {
        match self {
            Store::Sqlite(s) => s.set_pending(id, dest),
            Store::Postgres(_) => Ok(()),
        }
    }

    /// Local entries waiting for a PostgreSQL store: (id, destination).
    pub fn pending(&mut self) -> Result<Vec<(i64, String)>> {
        match self {
            Store::Sqlite(s) => s.pending(),
            Store::Postgres(_) => Ok(Vec::new()),
        }
    }

    /// The bytes a SQLite store takes on disk (its file and its WAL); `None` for PostgreSQL.
    pub fn size(&self) -> Option<u64> {
        match self {
            Store::Sqlite(s) => Some(s.size()),
            Store::Postgres(_) => None,
        }
    }

    /// SQLite's own consistency check: "ok" when the file is sound (PostgreSQL: always "ok").
    pub fn integrity_check(&self) -> Result<String> {
        match self {
            Store::Sqlite(s) => s.integrity_check(),
            Store::Postgres(_) => Ok("ok".into()),
        }
    }
}
