//! `volbench report ID|LABEL|FILE...`: one self-contained HTML page with charts for stored
//! results or JSON files; several inputs are compared side by side, then shown one by one.

use crate::cli::{ChartArgs, ReportArgs};
use crate::inputs::input;
use anyhow::Result;
use std::process::ExitCode;

pub fn main(a: ReportArgs) -> Result<ExitCode> {
    let mut store = None;
    let mut docs = Vec::new();
    for r in &a.results {
        // A file is named by its file name on the page: the directory says nothing there.
        let name = std::path::Path::new(r)
            .file_name()
            .filter(|_| std::path::Path::new(r).is_file())
            .map_or(r.clone(), |f| f.to_string_lossy().into_owned());
        docs.push((name, input(&mut store, &a.store, r)?));
    }
    let page = render::html::report(&docs)?;
    let out = a.output.clone().unwrap_or_else(|| "report.html".into());
    if out.as_os_str() == "-" {
        crate::output::stdout(&page)?;
    } else {
        crate::output::write_named("--output", &out, &page)?;
        eprintln!(
            "wrote {} ({}): open it in a browser",
            out.display(),
            workload::format_bytes(page.len() as f64)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `volbench chart`: one metric of one result as an SVG file.
pub fn chart(a: ChartArgs) -> Result<ExitCode> {
    use render::svg;
    let metric = svg::Metric::parse(&a.metric).ok_or_else(|| {
        crate::usage::usage(format!(
            "--metric={}: use iops, bw, p99 or lat",
            workload::shown(&a.metric)
        ))
    })?;
    let doc = input(&mut None, &a.store, &a.result)?;
    let text = svg::chart(&doc, metric, a.x.as_deref()).map_err(crate::usage::usage)?;
    let out = a.output.clone().unwrap_or_else(|| "chart.svg".into());
    if out.as_os_str() == "-" {
        crate::output::stdout(text.as_bytes())?;
    } else {
        crate::output::write_named("--output", &out, text.as_bytes())?;
        eprintln!("wrote {}", out.display());
    }
    Ok(ExitCode::SUCCESS)
}
