//! `volbench doctor [TARGET]`: one screen of what on this host can change a result, each line
//! with its consequence and its fix. Reads only.

use crate::cli::DoctorArgs;
use anyhow::Result;
use host::{Finding, Level};
use std::process::ExitCode;

pub fn main(a: DoctorArgs) -> Result<ExitCode> {
    let target = a.target.clone().unwrap_or_else(crate::cli::here);
    missing(&target).map_or(Ok(()), |why| Err(crate::usage::usage(why)))?;
    let findings = host::doctor(&target, a.watch, a.numjobs).map_err(crate::usage::usage)?;
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
            return Err(crate::usage::usage(format!(
                "--output-format={other}: doctor writes text or json"
            )))
        }
    };
    crate::output::stdout(out.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// A target doctor cannot speak for: a device path that does not exist (a typo: describing
/// /dev instead would say nothing of it), or a file whose directory does not exist. A file
/// the run is yet to create, in an existing directory, is that directory's file system.
fn missing(target: &std::path::Path) -> Option<String> {
    if target.exists() {
        return None;
    }
    let parent = target.parent().filter(|p| !p.as_os_str().is_empty());
    if parent.is_some_and(|p| p.starts_with("/dev")) {
        return Some(format!(
            "{}: no such device: give one that exists (lsblk lists them)",
            target.display()
        ));
    }
    match parent {
        Some(p) if !p.is_dir() => Some(format!(
            "{}: no such directory: give an existing directory, device or file",
            p.display()
        )),
        _ => None,
    }
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
