//! Markdown tables: for pasting a run, a suite or a sweep into an issue or a wiki.

use super::table::{cpu_percent, latency, run_rows, suite_rows, TableRow};
use crate::Exporter;
use figures::{fmt_count, fmt_ns};
use report::{RunReport, SuiteReport};
use std::fmt::Write;
use workload::format_bytes;

pub struct Markdown;

fn table(out: &mut String, rows: &[TableRow]) {
    let _ = writeln!(
        out,
        "| test | IOPS | bandwidth | lat mean | p50 | p99 | p99.9 | CPU |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|");
    for r in rows {
        let l = latency(r.job);
        let (mean, p50, p99, p999) = (l.mean, l.p50, l.p99, l.p999);
        let _ = writeln!(
            out,
            "| {}{}{} | {} | {}/s | {} | {} | {} | {} | {:.0}% |",
            r.label,
            l.mark(),
            if r.status.is_empty() {
                String::new()
            } else {
                format!(" ({})", r.status)
            },
            fmt_count(r.job.total_iops()),
            format_bytes(r.job.total_bw_bytes()),
            fmt_ns(mean),
            fmt_ns(p50 as f64),
            fmt_ns(p99 as f64),
            fmt_ns(p999 as f64),
            cpu_percent(r.job)
        );
    }
}

fn env_line(r: &RunReport) -> String {
    let e = &r.environment;
    let t = e.targets.first();
    format!(
        "{} · {} · kernel {} · {}",
        report::targets_phrase(&e.targets, false),
        t.and_then(|t| t.device.as_ref())
            .map_or(String::new(), |d| format!("{} {}", d.name, d.model)
                .trim()
                .to_string()),
        e.kernel,
        e.cpu_model
    )
}

impl Exporter for Markdown {
    fn export_compare(&self, c: &report::compare::Comparison) -> anyhow::Result<Vec<u8>> {
        Ok(crate::compare::markdown(c).into_bytes())
    }

    fn export(&self, r: &RunReport) -> anyhow::Result<Vec<u8>> {
        let mut out = format!("## volbench run, {}\n\n{}\n\n", r.started_at, env_line(r));
        table(&mut out, &run_rows(r));
        if let Some(rep) = &r.repeats {
            out.push_str(&crate::repeats::markdown(rep));
        }
        if !r.warnings.is_empty() {
            out.push_str("\n**Warnings**\n\n");
            for w in &r.warnings {
                let _ = writeln!(out, "- {w}");
            }
        }
        Ok(out.into_bytes())
    }

    fn export_suite(&self, s: &SuiteReport) -> anyhow::Result<Vec<u8>> {
        let mut out = format!("## volbench {}, {}\n\n", s.suite, s.started_at);
        if let Some(r) = s.runs.first() {
            let _ = writeln!(out, "{}\n", env_line(&r.report));
        }
        table(&mut out, &suite_rows(s));
        if let Some(c) = &s.curve {
            out.push_str("\n**Latency under load**\n\n");
            out.push_str(&crate::curve::markdown(c));
        }
        if !s.findings.is_empty() {
            out.push_str("\n**Findings**\n\n");
            for f in &s.findings {
                let _ = writeln!(out, "- {}", f.message);
            }
        }
        Ok(out.into_bytes())
    }

    fn export_fsync(&self, f: &report::FsyncReport) -> anyhow::Result<Vec<u8>> {
        Ok(crate::fsync::markdown(f).into_bytes())
    }

    fn export_db(&self, d: &report::DbReport) -> anyhow::Result<Vec<u8>> {
        Ok(crate::db::markdown(d).into_bytes())
    }

    fn export_durability(&self, d: &report::DurabilityReport) -> anyhow::Result<Vec<u8>> {
        Ok(crate::durability::markdown(d).into_bytes())
    }
}
