//! Saving results to the history store, once or point by point.

use crate::cli::StoreArgs;
use report::Document;
use store::Store;

/// Records one document (and, for sweeps, its updates) unless `--no-store`. A store that
/// cannot be written never fails the run: the results are already on screen or in the output
/// file, so the problem is reported as a warning.
pub struct Recorder {
    store: Option<Store>,
    id: Option<i64>,
    label: Option<String>,
    tags: Vec<String>,
    quiet: bool,
}

impl Recorder {
    pub fn new(a: &StoreArgs, quiet: bool) -> Recorder {
        // Under MPI only rank 0 stores: the merged report is one entry.
        let store = if a.no_store || !crate::scale::is_root() {
            None
        } else {
            let path = a.store.clone().unwrap_or_else(Store::default_path);
            match Store::open(&path) {
                Ok(s) => Some(s),
                Err(e) => {
                    eprintln!("warning: results will not be stored: {e}");
                    None
                }
            }
        };
        Recorder {
            store,
            id: None,
            label: a.label.clone(),
            tags: a.tags.clone(),
            quiet,
        }
    }

    /// Inserts the document the first time, replaces it after that.
    pub fn record(&mut self, d: &Document) {
        let Some(store) = self.store.as_mut() else {
            return;
        };
        let r = match self.id {
            None => store
                .insert(d, self.label.as_deref(), &self.tags)
                .map(|id| self.id = Some(id)),
            Some(id) => store.update(id, d),
        };
        if let Err(e) = r {
            eprintln!("warning: could not store the result: {e}");
            self.store = None;
        }
    }

    /// Says where the result went, once it is final.
    pub fn announce(&self) {
        if let (Some(id), Some(s), false) = (self.id, &self.store, self.quiet) {
            eprintln!(
                "saved as #{id} in {} (volbench show {id})",
                s.path().display()
            );
        }
    }
}
