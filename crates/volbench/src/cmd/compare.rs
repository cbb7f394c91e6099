//! `volbench compare A B [C ...]`: results side by side, with ratios to the first.

use super::usage;
use crate::cli::CompareArgs;
use anyhow::Result;
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
    Ok(super::history::load(store.as_mut().unwrap(), what)?.1)
}

pub fn main(a: CompareArgs) -> Result<ExitCode> {
    let mut store = None;
    let mut inputs = Vec::new();
    for r in &a.results {
        inputs.push((r.clone(), input(&mut store, &a.store, r)?));
    }
    let c = report::compare::compare(&inputs);
    // The same output as every other document: one exporter, and --output replaced
    // atomically (a kill never leaves it half written).
    let args = crate::cli::OutputArgs {
        output_format: a.output_format.clone(),
        output: a.output.clone(),
        quiet: false,
    };
    let mut out = crate::output::Output::open(&args, false)?;
    if matches!(
        out.format,
        render::Format::FioJson | render::Format::FioJsonPlus
    ) {
        return Err(usage(
            "--output-format=fio-json has no form for a comparison: use normal, json, md, csv or html",
        ));
    }
    let bytes = render::render(&Document::Compare(Box::new(c)), out.format)?;
    out.write(&bytes)?;
    Ok(ExitCode::SUCCESS)
}
