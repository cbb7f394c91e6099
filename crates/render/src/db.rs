//! The database report as text, Markdown and CSV: one row per target, ratios to the first.
use crate::table::{grid, pipes, StrTable};
use report::{DbReport, Status};

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
            let [mean, p50, p99, p999, max] = crate::table::lat_cells(&r.latency_ns);
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
                figures::fmt_ns(r.load_ns as f64),
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

pub(crate) fn header(d: &DbReport) -> String {
    // The threads only when more than pgbench's one: they change what a busy host does to tps.
    let clients = match d.jobs {
        Some(j) if j > 1 => format!("{} clients on {j} threads", d.clients),
        _ => format!("{} clients", d.clients),
    };
    let size = match (d.transactions_per_client, d.time_s) {
        (Some(t), _) => format!("{clients} x {t} transactions"),
        (None, Some(s)) => format!("{clients} for {s} s"),
        _ => clients,
    };
    format!(
        "volbench db: {}, scale {} ({} accounts), {size}",
        d.engine,
        d.scale,
        figures::fmt_thousands(d.scale as u64 * 100_000)
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
