//! `volbench doctor [TARGET]`: one screen of what on this host can change a result, each line
//! with its consequence and its fix. Reads only.

use crate::cli::DoctorArgs;
use anyhow::Result;
use host::{Finding, Level};
use std::path::PathBuf;
use std::process::ExitCode;

pub fn main(a: DoctorArgs) -> Result<ExitCode> {
    let target = a.target.clone().unwrap_or_else(|| PathBuf::from("."));
    let findings = host::doctor(&target, a.watch, a.numjobs).map_err(super::usage)?;
    let out = match a.output_format.as_str() {
        "json" => {
            let v = serde_json::json!({
                "target": target.display().to_string(),
                "findings": findings,
            });
            serde_json::to_string_pretty(&v)? + "\n"
        }
        "text" => text(&target, &findings),
        other => {
            return Err(super::usage(format!(
                "--output-format={other}: doctor writes text or json"
            )))
        }
    };
    crate::output::stdout(out.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// The screen: a heading per area, a line per finding, marked by level.
fn text(target: &std::path::Path, findings: &[Finding]) -> String {
    let mut s = format!("volbench doctor: {}\n", target.display());
    let mut area = "";
    for f in findings {
        if f.area != area {
            area = f.area;
            s += &format!("\n{}\n", heading(area));
        }
        let mark = match f.level {
            Level::Ok => "  ok   ",
            Level::Note => "  note ",
            Level::Warn => "  WARN ",
        };
        s += &format!("{mark}{}\n", f.line());
    }
    let warns = findings.iter().filter(|f| f.level == Level::Warn).count();
    let notes = findings.iter().filter(|f| f.level == Level::Note).count();
    s += &format!("\n{warns} warning(s), {notes} note(s)\n");
    s
}

fn heading(area: &str) -> &'static str {
    match area {
        "limits" => "Limits on this process",
        "other_io" => "Other I/O on the device",
        "block" => "Block layer",
        "filesystem" => "File system",
        "cpu" => "CPU",
        "cloud" => "Where we are",
        _ => "Other",
    }
}
