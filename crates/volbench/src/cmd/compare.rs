//! `volbench compare A B [C ...]`: results side by side, with ratios to the first.

use crate::cli::CompareArgs;
use crate::usage::usage;
use anyhow::Result;
use report::Document;
use std::process::ExitCode;

pub fn main(a: CompareArgs) -> Result<ExitCode> {
    let mut store = None;
    let mut inputs = Vec::new();
    for r in &a.results {
        inputs.push((r.clone(), crate::inputs::input(&mut store, &a.store, r)?));
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
