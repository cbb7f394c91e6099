//! `DbReport`: a TPC-B-like database benchmark on one or more directories, with the
//! explanation of each result by the device's flush latency.
//!
//! For one target the report carries that run's figures at top level (`tps`, `transactions`,
//! `failed`, `latency_ns`) as well as in `runs`; for several, `runs` holds one object each.

use crate::export::table::{grid, pipes, StrTable};
use crate::{Environment, Status, Tool, WarningRecord};
use serde::{Deserialize, Serialize};
use stats::LatencySummary;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DbReport {
    pub schema_version: u32,
    pub tool: Tool,
    pub started_at: String,
    pub started_unix: u64,
    pub command_line: Vec<String>,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `sqlite` or `postgres`.
    pub engine: String,
    pub scale: u32,
    pub clients: u32,
    /// Transactions per client, when the run was sized by count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transactions_per_client: Option<u64>,
    /// Seconds, when the run was sized by time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_s: Option<f64>,
    pub environment: Environment,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tps: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transactions: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ns: Option<LatencySummary>,
    pub runs: Vec<DbRun>,
    #[serde(default)]
    pub warnings: Vec<WarningRecord>,
}

/// The workload on one directory (or one server given by URL).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DbRun {
    /// The directory, or the server URL without its password.
    pub target: String,
    pub engine: String,
    /// The server's version, or SQLite's.
    pub engine_version: String,
    pub status: Status,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Committed transactions.
    pub transactions: u64,
    /// Transactions that failed for good (a client stops at its first such failure).
    pub failed: u64,
    /// Attempts retried after a serialization failure, deadlock or busy database.
    pub retried: u64,
    pub tps: f64,
    /// Latency of each committed transaction, retries and waits included.
    pub latency_ns: LatencySummary,
    /// Committed transactions in each second of the run.
    pub tps_per_sec: Vec<f64>,
    pub elapsed_ns: u64,
    /// Creating and filling the tables (pgbench -i's work), in nanoseconds.
    pub load_ns: u64,
    pub explanation: Explanation,
}

/// Why the tps is what it is.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Explanation {
    /// Median and mean of a QD1 8 KiB write + fdatasync in the directory (the probe).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush_p50_ns: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush_mean_ns: Option<f64>,
    /// Commits per second one flush stream allows: 1 s / the probe's mean durable write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit_ceiling_tps: Option<f64>,
    /// WAL flushes during the run (PostgreSQL's pg_stat_wal; SQLite: one per commit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wal_flushes: Option<u64>,
    /// Share of the run the WAL spent flushing (0..1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flush_busy: Option<f64>,
    /// CPU of client and server over the CPU the workload could use (0..1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_busy: Option<f64>,
    /// `flush`, `cpu`, `lock` or `unknown`.
    pub bound: String,
    pub summary: String,
}

fn num(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// The side-by-side table: one row per target, ratios to the first.
pub(crate) fn table(d: &DbReport) -> StrTable {
    let first = d.runs.first().map_or(0.0, |r| r.tps);
    let rows = d
        .runs
        .iter()
        .map(|r| {
            let [mean, p50, p99, p999, max] = crate::export::table::lat_cells(&r.latency_ns);
            let mut row = vec![
                r.target.clone(),
                num(r.tps),
                if first > 0.0 {
                    format!("{:.2}x", r.tps / first)
                } else {
                    "-".into()
                },
                mean,
                p50,
                p99,
                p999,
                max,
                r.failed.to_string(),
                r.retried.to_string(),
                crate::fmt_ns(r.load_ns as f64),
            ];
            if let Some(e) = &r.error {
                row.push(format!("error: {e}"));
            }
            row
        })
        .collect();
    StrTable {
        caption: "TPC-B-like transactions (pgbench's tpcb-like script)".into(),
        head: [
            "target",
            "tps",
            "vs first",
            "lat mean",
            "p50",
            "p99",
            "p99.9",
            "max",
            "failed",
            "retried",
            "table load",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
        rows,
    }
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

pub(crate) fn header(d: &DbReport) -> String {
    let size = match (d.transactions_per_client, d.time_s) {
        (Some(t), _) => format!("{} clients x {t} transactions", d.clients),
        (None, Some(s)) => format!("{} clients for {s} s", d.clients),
        _ => format!("{} clients", d.clients),
    };
    format!(
        "volbench db: {}, scale {} ({} accounts), {size}",
        d.engine,
        d.scale,
        thousands(d.scale as u64 * 100_000)
    )
}

pub(crate) fn text(d: &DbReport) -> String {
    let mut out = header(d);
    if d.status != Status::Complete {
        out.push_str(&format!(" [{:?}]", d.status).to_lowercase());
    }
    out.push('\n');
    if let Some(e) = &d.error {
        out.push_str(&format!("error: {e}\n"));
    }
    out.push('\n');
    out.push_str(&grid(&table(d)));
    out.push_str(
        "  (table load: creating and filling pgbench's tables before the run; not in tps)\n",
    );
    out.push_str("\nWhy:\n");
    for r in &d.runs {
        out.push_str(&format!("  {}: {}\n", r.target, r.explanation.summary));
    }
    for w in &d.warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    out
}

pub(crate) fn markdown(d: &DbReport) -> String {
    let mut out = format!("# {}\n\n{}\n", header(d), pipes(&table(d)));
    for r in &d.runs {
        out.push_str(&format!("- {}: {}\n", r.target, r.explanation.summary));
    }
    out
}

pub(crate) fn csv(d: &DbReport) -> String {
    let mut out = String::from("target,engine,tps,transactions,failed,retried,lat_mean_ns,lat_p50_ns,lat_p99_ns,lat_p99_9_ns,lat_max_ns,load_ns,flush_p50_ns,commit_ceiling_tps,bound\n");
    for r in &d.runs {
        let p = |x| {
            r.latency_ns
                .percentile(x)
                .map_or(String::new(), |v| v.to_string())
        };
        let e = &r.explanation;
        out.push_str(&format!(
            "\"{}\",{},{:.3},{},{},{},{:.0},{},{},{},{},{},{},{},{}\n",
            r.target.replace('"', "\"\""),
            r.engine,
            r.tps,
            r.transactions,
            r.failed,
            r.retried,
            r.latency_ns.mean_ns,
            p(50.0),
            p(99.0),
            p(99.9),
            r.latency_ns.max_ns,
            r.load_ns,
            e.flush_p50_ns.map_or(String::new(), |v| v.to_string()),
            e.commit_ceiling_tps
                .map_or(String::new(), |v| format!("{v:.1}")),
            e.bound
        ));
    }
    out
}
