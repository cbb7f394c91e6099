//! `volbench compare A B [C ...]`: results side by side, with ratios to the first.

use super::usage;
use crate::cli::CompareArgs;
use anyhow::{Context, Result};
use report::Document;
use std::path::Path;
use std::process::ExitCode;

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
            .map_err(|e| super::usage(format!("{what} {e}")))?;
        return from_json(&text).map_err(|e| usage(format!("{what}: {e}")));
    }
    if store.is_none() {
        *store = Some(super::history::open(path)?);
    }
    Ok(super::history::load(store.as_ref().unwrap(), what)?.1)
}

/// A result from JSON volbench wrote. A report with a bad field is blamed by the field's path
/// (`status: unknown variant "weird"`), against the kind of report it most looks like; an
/// unknown schema_version or fio's JSON is named as such.
fn from_json(text: &str) -> std::result::Result<Document, String> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    if v.get("fio version").is_some() {
        return Err(
            "is fio's JSON; compare takes volbench's: write --output-format=volbench-json".into(),
        );
    }
    if let Some(n) = v.get("schema_version").and_then(|s| s.as_u64()) {
        if n != report::SCHEMA_VERSION as u64 {
            return Err(format!(
                "schema_version {n} is not one this build reads ({}): use the volbench that wrote it",
                report::SCHEMA_VERSION
            ));
        }
    }
    read_as_its_kind(&v)
}

/// Reads the JSON as the kind of report it looks like (a `kind` tag says it, else a kind's
/// own fields), so a bad field is blamed by its path (serde_path_to_error) within that kind.
fn read_as_its_kind(v: &serde_json::Value) -> std::result::Result<Document, String> {
    fn read<T: serde::de::DeserializeOwned>(
        v: &serde_json::Value,
        kind: &str,
    ) -> std::result::Result<T, String> {
        serde_path_to_error::deserialize(v)
            .map_err(|e| format!("as {kind}, field `{}`: {}", e.path(), e.inner()))
    }
    let has = |k: &str| v.get(k).is_some();
    if has("kind") {
        read(v, "a stored result")
    } else if has("engine") {
        // Before "runs": a db report has its own list of runs.
        read(v, "a db report").map(|r| Document::Db(Box::new(r)))
    } else if has("cases") {
        read(v, "an fsync report").map(|r| Document::Fsync(Box::new(r)))
    } else if has("limits") {
        read(v, "an infer report").map(|r| Document::Infer(Box::new(r)))
    } else if has("runs") || has("suite") {
        read(v, "a sweep or suite report").map(|r| Document::Suite(Box::new(r)))
    } else {
        read(v, "a run report").map(|r| Document::Run(Box::new(r)))
    }
}

pub fn main(a: CompareArgs) -> Result<ExitCode> {
    let mut store = None;
    let mut inputs = Vec::new();
    for r in &a.results {
        inputs.push((r.clone(), input(&mut store, &a.store, r)?));
    }
    let c = report::compare::compare(&inputs);
    let bytes = match a.output_format.as_str() {
        "normal" => c.to_text(),
        "md" | "markdown" => c.to_markdown(),
        "csv" => c.to_csv(),
        "json" => serde_json::to_string_pretty(&c)? + "\n",
        "html" => String::from_utf8(report::export::html::comparison(&c)?)?,
        f => {
            return Err(usage(format!(
                "--output-format={f} is not a format here: use normal, json, md, csv or html"
            )))
        }
    };
    match &a.output {
        Some(p) => std::fs::write(p, bytes).with_context(|| format!("writing {}", p.display()))?,
        None => crate::output::stdout(bytes.as_bytes())?,
    }
    Ok(ExitCode::SUCCESS)
}
