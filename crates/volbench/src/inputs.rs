//! Results read back: a stored one by id, label or `last`, or a JSON file volbench wrote
//! (what compare, report, chart, show, export, infer and cloud check take as input).

use crate::usage::usage;
use anyhow::Result;
use report::Document;
use std::path::{Path, PathBuf};
use store::Store;

/// The store a read command reads: opened read-only where it cannot be written. A `--store`
/// file that does not exist is refused: opening it would make an empty store there, and a
/// mistyped path would read as an empty history (the default store is made on first use).
pub fn open(path: &Option<PathBuf>) -> Result<Store> {
    if let Some(p) = path {
        named_store_exists(p)?;
    }
    Ok(Store::open_read(
        &path.clone().unwrap_or_else(Store::default_path),
    )?)
}

/// A store named by `--store` that is a file must be one already.
pub fn named_store_exists(p: &Path) -> Result<()> {
    match store::Location::of(p)? {
        store::Location::File(f) if !f.exists() => Err(usage(format!(
            "--store {}: no such results store (the file does not exist): check the path \
             (volbench makes a store where a result is first stored)",
            f.display()
        ))),
        _ => Ok(()),
    }
}

/// An id, or the newest result with that label.
pub fn resolve(store: &mut Store, what: &str) -> Result<i64> {
    if let Ok(id) = what.parse::<i64>() {
        return Ok(id);
    }
    // `last`: the newest entry, so "run a sweep, then report last" needs no id.
    if what.eq_ignore_ascii_case("last") {
        return store
            .list(&store::Filter::default(), Some(1))?
            .first()
            .map(|r| r.id)
            .ok_or_else(|| usage("the results store is empty: run something first"));
    }
    let ids = store.find_label(what)?;
    let Some((&newest, older)) = ids.split_first() else {
        return Err(usage(format!(
            "no stored result has id or label '{what}': see volbench history"
        )));
    };
    // Several results may share a label (a rerun): take the newest, and say so once.
    if !older.is_empty() {
        let others: Vec<String> = older.iter().take(5).map(|i| format!("#{i}")).collect();
        let more = if older.len() > 5 { ", ..." } else { "" };
        eprintln!(
            "note: {} results are labelled '{what}': using the newest, #{newest} (also {}{more}); give an id to choose another",
            ids.len(),
            others.join(", ")
        );
    }
    Ok(newest)
}

pub fn load(store: &mut Store, what: &str) -> Result<(i64, Document)> {
    let id = resolve(store, what)?;
    let doc = store
        .get(id)?
        .ok_or_else(|| usage(format!("no stored result #{id}: see volbench history")))?;
    Ok((id, doc))
}

/// A JSON file volbench wrote (`--output-format=json` of run, quick, suite, sweep, or
/// `export --format=json`), or a stored id or label.
pub fn input(
    store: &mut Option<store::Store>,
    path: &Option<std::path::PathBuf>,
    what: &str,
) -> Result<Document> {
    let p = Path::new(what);
    if p.is_file() {
        let text = workload::input::read_bounded(p, workload::input::MAX_JSON)
            .map_err(|e| usage(format!("{what} {e}")))?;
        return report::read::from_json(&text).map_err(|e| usage(format!("{what}: {e}")));
    }
    if store.is_none() {
        *store = Some(open(path)?);
    }
    Ok(load(store.as_mut().unwrap(), what)?.1)
}
