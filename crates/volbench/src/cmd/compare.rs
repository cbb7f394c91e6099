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
        return report::read::from_json(&text).map_err(|e| usage(format!("{what}: {e}")));
    }
    if store.is_none() {
        *store = Some(super::history::open(path)?);
    }
    Ok(super::history::load(store.as_ref().unwrap(), what)?.1)
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
