//! CSV: one row per test (run group, suite test or sweep point), raw numbers in base units, for
//! spreadsheets and plotting.

use super::table::{cpu_percent, latency, run_rows, suite_rows, TableRow};
use super::Exporter;
use crate::compare::csv_field;
use report::{RunReport, SuiteReport};
use std::fmt::Write;

pub struct Csv;

fn rows(rows: &[TableRow]) -> Vec<u8> {
    let params: Vec<String> = rows
        .iter()
        .flat_map(|r| r.params.iter().map(|(k, _)| k.clone()))
        .fold(Vec::new(), |mut acc, k| {
            if !acc.contains(&k) {
                acc.push(k);
            }
            acc
        });
    let mut out = String::from("test");
    for p in &params {
        let _ = write!(out, ",{p}");
    }
    out.push_str(",status,read_iops,write_iops,iops,bw_bytes,lat_mean_ns,lat_p50_ns,lat_p99_ns,lat_p999_ns,cpu_percent,runtime_ns,lat_from\n");
    for r in rows {
        let l = latency(r.job);
        let (mean, p50, p99, p999) = (l.mean, l.p50, l.p99, l.p999);
        let _ = write!(out, "{}", csv_field(&r.label));
        for p in &params {
            let v = r
                .params
                .iter()
                .find(|(k, _)| k == p)
                .map_or("", |(_, v)| v.as_str());
            let _ = write!(out, ",{}", csv_field(v));
        }
        let _ = writeln!(
            out,
            ",{},{:.3},{:.3},{:.3},{:.1},{:.1},{p50},{p99},{p999},{:.2},{},{}",
            r.status,
            r.job.read.as_ref().map_or(0.0, |d| d.iops),
            r.job.write.as_ref().map_or(0.0, |d| d.iops),
            r.job.total_iops(),
            r.job.total_bw_bytes(),
            mean,
            cpu_percent(r.job),
            r.job.runtime_ns,
            if l.due { "due" } else { "issue" }
        );
    }
    out.into_bytes()
}

impl Exporter for Csv {
    fn export_compare(&self, c: &report::compare::Comparison) -> anyhow::Result<Vec<u8>> {
        Ok(crate::compare::csv(c).into_bytes())
    }

    /// A repeated run: the mean's row(s), then each run's, labelled `run N`.
    fn export(&self, r: &RunReport) -> anyhow::Result<Vec<u8>> {
        let Some(rep) = &r.repeats else {
            return Ok(rows(&run_rows(r)));
        };
        let mut all = run_rows(r);
        for (i, run) in rep.runs.iter().enumerate() {
            all.extend(run_rows(run).into_iter().map(|mut t| {
                t.label = format!("{} run {}", t.label, i + 1);
                t
            }));
        }
        Ok(rows(&all))
    }
    fn export_suite(&self, s: &SuiteReport) -> anyhow::Result<Vec<u8>> {
        if let Some(c) = &s.curve {
            return Ok(crate::curve::csv(c).into_bytes());
        }
        Ok(rows(&suite_rows(s)))
    }

    fn export_fsync(&self, f: &report::FsyncReport) -> anyhow::Result<Vec<u8>> {
        Ok(crate::fsync::csv(f).into_bytes())
    }

    fn export_db(&self, d: &report::DbReport) -> anyhow::Result<Vec<u8>> {
        Ok(crate::db::csv(d).into_bytes())
    }
}
