//! The store as one service: a command hands its result to a `Recorder`, once or point by
//! point, and the policy that makes the two backends one store lives here, not in callers.
//!
//! A result is never lost to its store: a SQLite store that cannot be written is refused
//! before anything is measured (one line, exit code 2), and one that fails later (a disk that
//! filled) has the result written to a JSON file in the current directory, said in one line; a
//! PostgreSQL store that cannot be reached or refuses is retried, then the result is kept in
//! the local SQLite store marked pending, in one line that says why and that `volbench store
//! push` sends it later.

use crate::{Location, Store, StoreError};
use report::Document;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Set when the named store was set up wrongly (a wrong password, no rights, a newer schema,
/// no server): the command still shows and keeps its result, then exits with code 2.
pub static STORE_MISCONFIGURED: AtomicBool = AtomicBool::new(false);

/// How often a write to a PostgreSQL store is tried before the result is kept locally, and
/// the pause between tries (a restarting server or a network blip).
const TRIES: u32 = 3;
const PAUSE: Duration = Duration::from_secs(1);

/// Where the result is being written.
enum Dest {
    /// The store it was asked for.
    Asked(Location),
    /// The local SQLite store, the result waiting for the PostgreSQL store named here.
    Fallback(std::path::PathBuf, String),
    /// A JSON file: the SQLite store failed after the measurement began (a disk that filled).
    /// Each later write (a sweep's next point) replaces the file.
    Kept(std::path::PathBuf),
}

/// What the command around the recorder does for it: names the entry where it is watched
/// (live metrics), and writes a result no store took to a file, replacing it whole.
#[derive(Clone, Copy)]
pub struct Hooks {
    /// Told each entry's identity once it is known: ("label", the label) and ("store_id",
    /// the id).
    pub identify: fn(&str, &str),
    /// Writes `bytes` to `path` in place of what is there, atomically.
    pub keep: fn(&Path, &[u8]) -> Result<(), String>,
}

/// What to record, and where.
pub struct Asked {
    /// The store asked for (`--store`, or the default), None with `--no-store`.
    pub at: Option<Location>,
    pub label: Option<String>,
    pub tags: Vec<String>,
    /// Say nothing on success.
    pub quiet: bool,
}

/// Records one document (and, for sweeps, its updates) unless `--no-store`.
///
/// The store is opened for each write and closed after it: a SQLite connection holds an
/// exclusive lock (see `store::sqlite`), and a sweep of an hour must not keep `history` out.
pub struct Recorder {
    dest: Option<Dest>,
    id: Option<i64>,
    /// The result's identity in every store it reaches (the fallback and, later, the push).
    uid: String,
    label: Option<String>,
    tags: Vec<String>,
    quiet: bool,
    hooks: Hooks,
}

impl Recorder {
    /// The recorder for what was asked. A SQLite store that cannot be written is an error
    /// now, before anything is measured (the caller refuses to measure: the result would be
    /// lost); a PostgreSQL store that cannot be reached now falls back to the local store.
    pub fn new(a: Asked, hooks: Hooks) -> Result<Recorder, StoreError> {
        let mut r = Recorder {
            dest: a.at.map(Dest::Asked),
            id: None,
            uid: crate::new_uid(),
            label: a.label,
            tags: a.tags,
            quiet: a.quiet,
            hooks,
        };
        if let Some(l) = &r.label {
            (hooks.identify)("label", l);
        }
        // Opened once now, so a store that cannot be used is said before a long sweep.
        if let Some(Dest::Asked(at)) = &r.dest {
            match Store::open_at(at) {
                Ok(_) => {}
                Err(e) if matches!(at, Location::File(_)) => return Err(e),
                Err(e) => r.failed(e, true),
            }
        }
        Ok(r)
    }

    /// Inserts the document the first time, replaces it after that.
    pub fn record(&mut self, d: &Document) {
        let Some(dest) = &self.dest else { return };
        let at = match dest {
            Dest::Asked(at) => at.clone(),
            Dest::Fallback(p, _) => Location::File(p.clone()),
            Dest::Kept(p) => {
                let _ = self.write_json(p, d);
                return;
            }
        };
        let remote = matches!(at, Location::Postgres(_));
        let mut tries = 0;
        let result = loop {
            tries += 1;
            match self.write(&at, d) {
                Err(e) if remote && e.is_connection() && tries < TRIES => std::thread::sleep(PAUSE),
                r => break r,
            }
        };
        match result {
            Err(e) if matches!(at, Location::File(_)) => self.keep_in_file(d, &at, e),
            Err(e) => {
                self.failed(e, false);
                if let Some(Dest::Fallback(..)) = self.dest {
                    self.record(d);
                }
            }
            Ok(()) => {}
        }
    }

    /// A SQLite store that failed after the measurement began (it was writable when the
    /// command started): the result is written as volbench-json in the current directory (or
    /// the temporary directory), to be read with `volbench report FILE`, and said in one
    /// line. Only if no file can be written either is it lost, and the exit code 2.
    fn keep_in_file(&mut self, d: &Document, at: &Location, e: StoreError) {
        let name = format!(
            "volbench-unstored-{}.json",
            &self.uid[..self.uid.len().min(12)]
        );
        let kept = [std::path::PathBuf::from("."), std::env::temp_dir()]
            .into_iter()
            .map(|dir| dir.join(&name))
            .find(|p| self.write_json(p, d).is_ok());
        self.id = None;
        match kept {
            Some(p) => {
                eprintln!(
                    "warning: the result could not be stored in {}: {e}; it is kept in {} (volbench report {})",
                    at.shown(),
                    p.display(),
                    p.display()
                );
                self.dest = Some(Dest::Kept(p));
            }
            None => {
                eprintln!("warning: the result could not be stored: {e}; nor written to a file");
                STORE_MISCONFIGURED.store(true, Ordering::SeqCst);
                self.dest = None;
            }
        }
    }

    /// A document as volbench-json, replaced atomically (a sweep rewrites it after each point).
    fn write_json(&self, p: &Path, d: &Document) -> Result<(), String> {
        let json = serde_json::to_vec_pretty(d).map_err(|e| e.to_string())?;
        (self.hooks.keep)(p, &json)
    }

    fn write(&mut self, at: &Location, d: &Document) -> crate::Result<()> {
        let mut store = Store::open_at(at)?;
        match self.id {
            None => {
                let id = store.insert_uid(d, self.label.as_deref(), &self.tags, &self.uid)?;
                self.id = Some(id);
                (self.hooks.identify)("store_id", &id.to_string());
                if let Some(Dest::Fallback(_, url)) = &self.dest {
                    store.set_pending(id, Some(url))?;
                }
                Ok(())
            }
            Some(id) => store.update(id, d),
        }
    }

    /// A store that failed: a PostgreSQL store's result goes to the local store (said once);
    /// the local store's own failure leaves the result unstored (said once, exit code 2). A PostgreSQL store
    /// unusable from the `start` is the user's to fix (exit code 2); one lost later is not.
    fn failed(&mut self, e: StoreError, start: bool) {
        match self.dest.take() {
            Some(Dest::Asked(Location::Postgres(url))) => {
                if start && e.is_setup() {
                    STORE_MISCONFIGURED.store(true, Ordering::SeqCst);
                }
                let shown = crate::location::masked(&url);
                let local = Store::local_path();
                eprintln!(
                    "warning: {e}; the result is kept in {} and sent later by `volbench store push`",
                    local.display()
                );
                self.id = None;
                self.dest = Some(Dest::Fallback(local, shown));
            }
            _ => {
                eprintln!("warning: the result could not be stored: {e}");
                STORE_MISCONFIGURED.store(true, Ordering::SeqCst);
                self.id = None;
            }
        }
    }

    /// Says where the result went, once it is final (a result kept in a file was said when
    /// it was written there).
    pub fn announce(&self) {
        let (Some(id), Some(dest), false) = (self.id, &self.dest, self.quiet) else {
            return;
        };
        match dest {
            Dest::Asked(at) => eprintln!("saved as #{id} in {} (volbench show {id})", at.shown()),
            Dest::Fallback(p, url) => eprintln!(
                "saved as #{id} in {}, pending for {url} (volbench store push)",
                p.display()
            ),
            Dest::Kept(_) => {}
        }
    }
}
