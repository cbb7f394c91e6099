//! The results store for a command's `--store` options: the store's own service
//! (`store::Recorder`: retries, the local fallback, pending marks) with the binary's hooks
//! (live metrics name the entry; a result no store took is written as a file atomically) and
//! MPI's rule (only rank 0 stores: the merged report is one entry).

use crate::cli::StoreArgs;
use store::{Asked, Hooks, Location, Recorder, Store};

/// The recorder for `a`. A SQLite store that cannot be written is a usage error now, before
/// anything is measured: the result would be lost.
pub fn recorder(a: &StoreArgs, quiet: bool) -> anyhow::Result<Recorder> {
    let at = match a.no_store || !scaleout::world::is_root() {
        true => None,
        false => Some(Location::of(
            &a.store.clone().unwrap_or_else(Store::default_path),
        )?),
    };
    let asked = Asked {
        at,
        label: a.label.clone(),
        tags: a.tags.clone(),
        quiet,
    };
    let hooks = Hooks {
        identify: crate::live::identify,
        keep: |p, bytes| crate::output::replace_file(p, bytes).map_err(|e| format!("{e:#}")),
    };
    Recorder::new(asked, hooks).map_err(|e| {
        crate::usage::usage(format!(
            "{e} (nothing was measured: the result would have been lost)"
        ))
    })
}
