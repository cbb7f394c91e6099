//! A latency-under-load curve as text, Markdown and CSV: the maximum, one row per point
//! (offered and achieved load, latency from the due time beside clat) and the SLO answers.

use figures::{fmt_count, fmt_ns};
use report::curve::{CurvePoint, CurveReport};
use std::fmt::Write;
use workload::format_bytes;

/// The column heads of the point table.
pub(crate) const HEAD: [&str; 11] = [
    "load",
    "offered IOPS",
    "achieved IOPS",
    "bandwidth",
    "due p50",
    "due p90",
    "due p99",
    "due p99.9",
    "due max",
    "clat p99",
    "",
];

pub(crate) fn cells(p: &CurvePoint) -> Vec<String> {
    let ns = |v: u64| fmt_ns(v as f64);
    let mut note = Vec::new();
    if p.fell_behind {
        note.push("fell behind");
    }
    if p.depth_reached {
        note.push("queue full");
    }
    if p.host_late {
        note.push("volbench late (busy host)");
    }
    vec![
        format!("{} %", p.share_percent),
        fmt_count(p.offered_iops),
        fmt_count(p.achieved_iops),
        format!("{}/s", format_bytes(p.achieved_bw_bytes)),
        ns(p.lat_due.p50_ns),
        ns(p.lat_due.p90_ns),
        ns(p.lat_due.p99_ns),
        ns(p.lat_due.p99_9_ns),
        ns(p.lat_due.max_ns),
        ns(p.clat.p99_ns),
        note.join(", "),
    ]
}

/// What the curve stands on, in one line.
pub fn max_line(c: &CurveReport) -> String {
    format!(
        "maximum {} IOPS ({}/s) closed-loop at QD{}; points: Poisson arrivals at each share of it, QD{}, latency from each I/O's due time",
        fmt_count(c.max.iops),
        format_bytes(c.max.bw_bytes),
        c.max.iodepth,
        c.point_iodepth
    )
}

pub fn text(c: &CurveReport) -> String {
    let rows: Vec<Vec<String>> = c.points.iter().map(cells).collect();
    let widths: Vec<usize> = (0..HEAD.len())
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([HEAD[i].len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cols: &[String]| {
        let s: Vec<String> = cols
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (c, w))| match i {
                0 | 10 => format!("{c:<w$}"),
                _ => format!("{c:>w$}"),
            })
            .collect();
        format!("  {}", s.join("  ").trim_end())
    };
    let mut out = format!("\n  {}\n\n", max_line(c));
    let head: Vec<String> = HEAD.iter().map(|s| s.to_string()).collect();
    let _ = writeln!(out, "{}", line(&head));
    for r in &rows {
        let _ = writeln!(out, "{}", line(r));
    }
    out.push('\n');
    for f in findings(c) {
        let _ = writeln!(out, "  {f}");
    }
    for a in &c.slo {
        let _ = writeln!(out, "  SLO {}", a.message);
    }
    out
}

/// What the curve found beyond its table: the knee, the points that fell behind, and the
/// points a busy host made late; each note the table flags has its line here.
pub fn findings(c: &CurveReport) -> Vec<String> {
    knee_line(c)
        .into_iter()
        .chain(behind_line(c))
        .chain(host_line(c))
        .collect()
}

/// The points flagged "fell behind", in one line with the flag's own rule (a point's run
/// warns only of time behind schedule; the flag also counts IOPS short of the offered).
fn behind_line(c: &CurveReport) -> Option<String> {
    let behind: Vec<String> = c
        .points
        .iter()
        .filter(|p| p.fell_behind)
        .map(|p| format!("{} %", p.share_percent))
        .collect();
    if behind.is_empty() {
        return None;
    }
    Some(format!(
        "fell behind at {}: achieved short of offered by more than random arrivals explain, or a tenth of the run behind schedule; the device could not take that load, and those points' latency holds the wait for it",
        behind.join(", ")
    ))
}

/// The points where volbench itself issued late, in one line.
fn host_line(c: &CurveReport) -> Option<String> {
    let late: Vec<&CurvePoint> = c.points.iter().filter(|p| p.host_late).collect();
    let worst = late.iter().map(|p| p.issue_late.p99_ns).max()?;
    let shares: Vec<String> = late
        .iter()
        .map(|p| format!("{} %", p.share_percent))
        .collect();
    Some(format!(
        "warning: volbench itself issued I/Os late at {} (p99 up to {}, half or more of those points' due p99): the host was busy, so those points are left out of the knee and of any SLO they would move; stop other work on this host and run the curve again",
        shares.join(", "),
        fmt_ns(worst as f64)
    ))
}

/// Where the latency starts to climb, in words.
fn knee_line(c: &CurveReport) -> Option<String> {
    if let Some(l) = c.knee_host_late {
        return Some(format!(
            "knee: not named here: where the due p99 rose past twice the curve's lowest ({}), at {} %, volbench itself issued I/Os late by {} at p99, so the rise may be the host's; stop other work on this host and run the curve again",
            fmt_ns(l.bar_ns as f64),
            l.share_percent,
            fmt_ns(l.issue_late_p99_ns as f64)
        ));
    }
    let k = c.knee?;
    // The share of what it achieved, as cloud check reads it; the point's offered load too
    // where it fell behind (a point offered 100 % that did 57 % read as "100 % of the maximum").
    let share = (100.0 * k.achieved_iops / c.max.iops.max(1e-9)).round() as u32;
    let offered = if share.abs_diff(k.share_percent) > 2 {
        format!(", at the {} % load", k.share_percent)
    } else {
        String::new()
    };
    Some(format!(
        "knee: {} IOPS ({share} % of the maximum{offered}, due p99 {}); past it the due p99 stays above twice the curve's lowest",
        fmt_count(k.achieved_iops),
        fmt_ns(k.lat_due_p99_ns as f64)
    ))
}

pub fn markdown(c: &CurveReport) -> String {
    let mut out = format!("{}\n\n", max_line(c));
    let _ = writeln!(out, "| {} |", HEAD[..10].join(" | "));
    let _ = writeln!(out, "|---|{}", "---:|".repeat(9));
    for p in &c.points {
        let mut cs = cells(p);
        let note = cs.pop().unwrap_or_default();
        if !note.is_empty() {
            cs[0] = format!("{} ({note})", cs[0]);
        }
        let _ = writeln!(out, "| {} |", cs.join(" | "));
    }
    out.push('\n');
    for f in findings(c) {
        let _ = writeln!(out, "- {f}");
    }
    for a in &c.slo {
        let _ = writeln!(out, "- **SLO** {}", a.message);
    }
    out
}

/// One row per point, raw numbers (ns, bytes/s); then one row per SLO answer.
pub fn csv(c: &CurveReport) -> String {
    let mut out = String::from(
        "load_percent,offered_iops,achieved_iops,achieved_bw_bytes,lat_due_p50_ns,lat_due_p90_ns,\
         lat_due_p99_ns,lat_due_p99_9_ns,lat_due_max_ns,clat_p50_ns,clat_p99_ns,clat_max_ns,\
         fell_behind,queue_full,issue_late_p99_ns,host_late\n",
    );
    for p in &c.points {
        let (d, k) = (&p.lat_due, &p.clat);
        let _ = writeln!(
            out,
            "{},{:.1},{:.1},{:.1},{},{},{},{},{},{},{},{},{},{},{},{}",
            p.share_percent,
            p.offered_iops,
            p.achieved_iops,
            p.achieved_bw_bytes,
            d.p50_ns,
            d.p90_ns,
            d.p99_ns,
            d.p99_9_ns,
            d.max_ns,
            k.p50_ns,
            k.p99_ns,
            k.max_ns,
            p.fell_behind,
            p.depth_reached,
            p.issue_late.p99_ns,
            p.host_late
        );
    }
    if !c.slo.is_empty() {
        out.push_str("\nslo_percentile,slo_limit_ns,slo_iops,interpolated,broke_at_percent\n");
        for a in &c.slo {
            let _ = writeln!(
                out,
                "{},{},{},{},{}",
                a.percentile,
                a.limit_ns,
                a.slo_iops.map_or(String::new(), |v| format!("{v:.1}")),
                a.interpolated,
                a.broke_at_percent.map_or(String::new(), |v| v.to_string())
            );
        }
    }
    out
}
