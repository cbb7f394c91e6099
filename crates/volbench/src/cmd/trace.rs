//! `volbench trace`: record a device's block I/O through tracefs, summarize a trace, convert
//! one between volbench's format, fio's iolog v3 and blktrace's files.

use crate::cli::{TraceConvertArgs, TraceFileArgs, TraceRecordArgs};
use crate::usage::usage;
use anyhow::Result;
use std::io::BufWriter;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Refuses to replace a file: volbench deletes nothing it did not create.
fn fresh(p: &Path) -> Result<()> {
    if p.exists() {
        return Err(usage(format!(
            "{} exists: give another --output (volbench does not replace files it did not write)",
            p.display()
        )));
    }
    Ok(())
}

pub fn record(a: TraceRecordArgs) -> Result<ExitCode> {
    let name = a
        .device
        .file_name()
        .map_or("device".into(), |n| n.to_string_lossy().to_string());
    let output = a
        .output
        .unwrap_or_else(|| PathBuf::from(format!("{name}.trace")));
    fresh(&output)?;
    let stop = crate::stop::stop_flag();
    let plan = trace::record::Plan {
        device: a.device.clone(),
        duration: Some(a.duration),
        output: output.clone(),
        stop: &stop,
    };
    eprintln!(
        "recording {} for {} (Ctrl-C stops earlier) into {}",
        a.device.display(),
        humantime::format_duration(a.duration),
        output.display()
    );
    let rec = trace::record::record(&plan, &mut |ios, t| {
        eprintln!(
            "  {} s: {} I/Os",
            t.as_secs(),
            figures::fmt_count(ios as f64)
        );
    });
    let rec = match rec {
        Ok(r) => r,
        Err(e) => {
            let _ = std::fs::remove_file(&output);
            return Err(usage(e.to_string()));
        }
    };
    let sum = summarize(&output)?;
    let text = match a.output_format.as_str() {
        "json" => {
            let v = serde_json::json!({ "recorded": rec, "summary": sum });
            format!("{}\n", serde_json::to_string_pretty(&v)?)
        }
        _ => recorded_text(&rec, &output, &sum),
    };
    crate::output::stdout(text.as_bytes())?;
    if rec.lost_events > 0 {
        eprintln!(
            "warning: the kernel dropped {} trace events (its buffer overran): the trace misses \
             I/Os; record a shorter time or a quieter device",
            rec.lost_events
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// What a recording caught, then the trace's summary, as text.
fn recorded_text(rec: &trace::record::Recorded, output: &Path, sum: &trace::Summary) -> String {
    let stopped = if rec.interrupted {
        " (stopped by Ctrl-C)"
    } else {
        ""
    };
    let mut text = format!(
        "recorded {} I/Os on {} in {:.1} s with {}{stopped}\n",
        figures::fmt_count(rec.ios as f64),
        rec.device,
        rec.seconds,
        rec.method,
    );
    text.push_str(&render::replay::summary_text(
        &output.display().to_string(),
        sum,
    ));
    text
}

fn summarize(p: &Path) -> Result<trace::Summary> {
    let r = trace::open(p).map_err(|e| usage(e.to_string()))?;
    trace::summarize(r).map_err(|e| usage(e.to_string()))
}

pub fn summary(a: TraceFileArgs) -> Result<ExitCode> {
    let sum = summarize(&a.trace)?;
    let bytes = match a.output_format.as_str() {
        "json" => format!("{}\n", serde_json::to_string_pretty(&sum)?),
        _ => render::replay::summary_text(&a.trace.display().to_string(), &sum),
    };
    crate::output::stdout(bytes.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// Streams the trace into the chosen format.
pub fn convert(a: TraceConvertArgs) -> Result<ExitCode> {
    let mut r = trace::open(&a.trace).map_err(|e| usage(e.to_string()))?;
    // The file names are known once they have been seen: one pass for them first.
    let names = summarize(&a.trace)?.files;
    let mut sink = sink(&a, &r, &names)?;
    let mut n = 0u64;
    while let Some(io) = r.next_io().map_err(|e| usage(e.to_string()))? {
        sink.put(&io)?;
        n += 1;
    }
    sink.close()?;
    eprintln!(
        "wrote {} I/Os to {}",
        figures::fmt_count(n as f64),
        a.output.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The writer of `--to`'s format at `--output`, which must not exist yet.
fn sink(a: &TraceConvertArgs, r: &trace::Reader, names: &[String]) -> Result<Box<dyn trace::Sink>> {
    let create = |p: &Path| -> Result<BufWriter<std::fs::File>> {
        fresh(p)?;
        let f = outfile::Opener::log("--output").open(p)?;
        Ok(BufWriter::new(f))
    };
    Ok(match a.to.as_str() {
        "volbench" => {
            let h = trace::Header {
                method: format!("converted from {} ({})", a.trace.display(), r.format.name()),
                files: names.iter().map(|n| (n.clone(), None)).collect(),
            };
            Box::new(trace::TraceWriter::new(create(&a.output)?, &h)?)
        }
        "fio" => Box::new(trace::IologWriter::new(create(&a.output)?, names)?),
        "blktrace" => {
            fresh(&blk_part(&a.output))?;
            let devs: Vec<u32> = names.iter().enumerate().map(|(i, s)| dev_t(s, i)).collect();
            Box::new(trace::BlktraceWriter::create(&a.output, 1, &devs)?)
        }
        other => {
            return Err(usage(format!(
                "--to {other}: give volbench, fio (iolog v3) or blktrace"
            )))
        }
    })
}

fn blk_part(base: &Path) -> PathBuf {
    let mut p = base.as_os_str().to_owned();
    p.push(".blktrace.0");
    PathBuf::from(p)
}

/// A trace file's name as a dev_t for blktrace: `MAJ,MIN`, a device node's own number, or
/// else the file's index as a minor of major 0.
fn dev_t(name: &str, i: usize) -> u32 {
    if let Some((a, b)) = name.split_once(',') {
        if let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) {
            return (a << 20) | b;
        }
    }
    trace::record::device_id(Path::new(name))
        .map(|(d, _)| d)
        .unwrap_or(i as u32)
}
