//! `volbench report ID|LABEL|FILE...`: one self-contained HTML page with charts for stored
//! results or JSON files; several inputs are compared side by side, then shown one by one.

use super::compare::input;
use crate::cli::ReportArgs;
use anyhow::{Context, Result};
use std::process::ExitCode;

pub fn main(a: ReportArgs) -> Result<ExitCode> {
    let mut store = None;
    let mut docs = Vec::new();
    for r in &a.results {
        docs.push((r.clone(), input(&mut store, &a.store, r)?));
    }
    let page = report::export::html::report(&docs)?;
    let out = a.output.clone().unwrap_or_else(|| "report.html".into());
    if out.as_os_str() == "-" {
        crate::output::stdout(&page)?;
    } else {
        std::fs::write(&out, &page).with_context(|| format!("writing {}", out.display()))?;
        eprintln!(
            "wrote {} ({}): open it in a browser",
            out.display(),
            workload::format_bytes(page.len() as f64)
        );
    }
    Ok(ExitCode::SUCCESS)
}
