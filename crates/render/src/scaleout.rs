//! The multi-rank part of a run report (`mpirun -n N volbench run ...`) as tables: one per
//! host, one per rank, built once here and printed by the text and HTML exporters alike.

use crate::table::StrTable;
use figures::{fmt_count, fmt_ns};
use report::{RankReport, ScaleOut};
use workload::format_bytes;

fn ms(ns: u64) -> String {
    format!("{:.2} ms", ns as f64 / 1e6)
}

fn rate(iops: f64, bw: f64) -> [String; 2] {
    [fmt_count(iops), format!("{}/s", format_bytes(bw))]
}

/// How the ranks ran together, in one line.
pub(crate) fn caption(so: &ScaleOut) -> String {
    format!(
        "{} ranks on {} host{} ({}, {}): start skew {}, end skew {}, common interval {:.2} s",
        so.size,
        so.hosts.len(),
        if so.hosts.len() == 1 { "" } else { "s" },
        so.library,
        so.layout,
        ms(so.start_skew_ns),
        ms(so.end_skew_ns),
        so.common_ns as f64 / 1e9
    )
}

/// A row per host: its ranks, their summed rates and the host's machine.
pub(crate) fn hosts_table(so: &ScaleOut) -> StrTable {
    let mut t = StrTable::new(&["host", "ranks", "IOPS", "bandwidth", "I/Os", "environment"]);
    t.caption = caption(so);
    for h in &so.hosts {
        let list: Vec<String> = h.ranks.iter().map(|r| r.to_string()).collect();
        let [i, b] = rate(h.iops, h.bw_bytes);
        let env = &h.environment;
        t.row(vec![
            h.host.clone(),
            list.join(","),
            i,
            b,
            figures::fmt_count(h.ios as f64),
            format!("{} ({} CPUs), {}", env.cpu_model, env.cpus, env.kernel),
        ]);
    }
    t
}

/// A row per rank: its own rates, latency, measured interval and start offset.
pub(crate) fn ranks_table(ranks: &[RankReport]) -> StrTable {
    let mut t = StrTable::new(&[
        "rank",
        "host",
        "IOPS",
        "bandwidth",
        "lat mean",
        "p99",
        "measured",
        "start +",
        "error",
    ]);
    t.caption = "Per rank".into();
    for k in ranks {
        let [i, b] = rate(k.total_iops(), k.total_bw_bytes());
        let lat = k.read.as_ref().or(k.write.as_ref()).map(|d| &d.lat_ns);
        let cell = |f: &dyn Fn(&stats::LatencySummary) -> f64| {
            lat.map_or("-".to_string(), |l| fmt_ns(f(l)))
        };
        t.row(vec![
            k.rank.to_string(),
            k.host.clone(),
            i,
            b,
            cell(&|l| l.mean_ns),
            cell(&|l| l.percentile(99.0).unwrap_or(0) as f64),
            format!("{:.2} s", k.runtime_ns as f64 / 1e9),
            ms(k.start_offset_ns),
            k.error.clone().unwrap_or_default(),
        ]);
    }
    t
}

/// The slowest and fastest rank and the spread, when there are several.
pub(crate) fn spread_line(so: &ScaleOut, ranks: usize) -> Option<String> {
    let sp = so.spread.as_ref().filter(|_| ranks > 1)?;
    Some(format!(
        "slowest rank {} at {} IOPS ({:.2}x the mean), fastest rank {} at {}; spread {:.1}% (cv)",
        sp.slowest_rank,
        fmt_count(sp.slowest_iops),
        if sp.mean_iops > 0.0 {
            sp.slowest_iops / sp.mean_iops
        } else {
            0.0
        },
        sp.fastest_rank,
        fmt_count(sp.fastest_iops),
        sp.cv_percent
    ))
}
