//! Saving results to the history store, once or point by point.

use crate::cli::StoreArgs;
use report::Document;
use std::path::PathBuf;
use store::Store;

/// Records one document (and, for sweeps, its updates) unless `--no-store`. A store that
/// cannot be written never fails the run: the results are already on screen or in the output
/// file, so the problem is reported as a warning, once.
///
/// The store is opened for each write and closed after it: its connection holds an exclusive
/// lock (see `Store::open`), and a sweep of an hour must not keep `history` out for that hour.
pub struct Recorder {
    path: Option<PathBuf>,
    id: Option<i64>,
    label: Option<String>,
    tags: Vec<String>,
    quiet: bool,
}

impl Recorder {
    pub fn new(a: &StoreArgs, quiet: bool) -> Recorder {
        // Under MPI only rank 0 stores: the merged report is one entry.
        let path = if a.no_store || !scaleout::world::is_root() {
            None
        } else {
            let path = a.store.clone().unwrap_or_else(Store::default_path);
            // Opened once now so a store that cannot be used is said before the run.
            match Store::open(&path) {
                Ok(_) => Some(path),
                Err(e) => {
                    eprintln!("warning: results will not be stored: {e}");
                    None
                }
            }
        };
        Recorder {
            path,
            id: None,
            label: a.label.clone(),
            tags: a.tags.clone(),
            quiet,
        }
    }

    /// Inserts the document the first time, replaces it after that.
    pub fn record(&mut self, d: &Document) {
        let Some(path) = self.path.as_ref() else {
            return;
        };
        let r = Store::open(path).and_then(|mut store| match self.id {
            None => store
                .insert(d, self.label.as_deref(), &self.tags)
                .map(|id| self.id = Some(id)),
            Some(id) => store.update(id, d),
        });
        if let Err(e) = r {
            eprintln!("warning: could not store the result: {e}");
            self.path = None;
            self.id = None;
        }
    }

    /// Says where the result went, once it is final.
    pub fn announce(&self) {
        if let (Some(id), Some(p), false) = (self.id, &self.path, self.quiet) {
            eprintln!("saved as #{id} in {} (volbench show {id})", p.display());
        }
    }
}
