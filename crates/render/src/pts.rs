//! A SNIA PTS test as text: what was done before the rounds, the convergence of the tracked
//! figure round by round with the steady-state window and its limits, and the measurement
//! window's table (R/W mix by block size).

use figures::{fmt_count, fmt_ns};
use report::pts::{Figure, PtsReport};
use stats::steady::{PTS_EXCURSION_PCT, PTS_RANGE_PCT};
use std::fmt::Write;
use workload::{format_bytes, short_size};

/// The tracked or tabled figure as reports show it.
pub(crate) fn show(f: Figure, v: f64) -> String {
    match f {
        Figure::Iops => fmt_count(v),
        Figure::BwBytes => format!("{}/s", format_bytes(v)),
        Figure::LatMeanNs => fmt_ns(v),
    }
}

pub fn text(p: &PtsReport) -> String {
    let mut out = String::new();
    for l in setup_lines(p) {
        let _ = writeln!(out, "  {l}");
    }
    convergence(&mut out, p);
    table(&mut out, p);
    out
}

/// What the figures stand on: the test, the target and its purge, the preconditioning, the
/// point's length and depth, and the sizes left out.
pub(crate) fn setup_lines(p: &PtsReport) -> Vec<String> {
    let plan = &p.plan;
    let mut v = vec![
        format!(
            "{} ({} profile) on {}, {} tested; {}",
            plan.test,
            p.profile,
            p.target,
            format_bytes(p.capacity as f64),
            p.purge
        ),
        format!(
            "preconditioned: {} written in 128k sequential writes in {:.1} s; {} a point, {} \
             jobs x QD{}",
            format_bytes(p.precondition_bytes as f64),
            p.precondition_ns as f64 / 1e9,
            fmt_ns(p.point_runtime_ns as f64),
            plan.numjobs,
            plan.iodepth
        ),
    ];
    if !p.skipped_sizes.is_empty() {
        let s: Vec<String> = p.skipped_sizes.iter().map(|&b| short_size(b)).collect();
        v.push(format!(
            "left out: {} (below the device's logical block)",
            s.join(", ")
        ));
    }
    v
}

/// The steady-state verdict over the window with both rules' figures, limits and band.
pub(crate) fn verdict_line(p: &PtsReport) -> String {
    let f = p.plan.tracked_figure;
    let Some(s) = &p.steady_state else {
        return "steady state: fewer than 5 rounds, not judged".into();
    };
    let r = &s.rule;
    format!(
        "steady state {} over rounds {}-{}: mean {}, range {:.1}% of it (limit \
         {PTS_RANGE_PCT}%, band {}..{}), best-fit excursion {:.1}% (limit {PTS_EXCURSION_PCT}%)",
        s.verdict(),
        s.first_round,
        s.last_round,
        show(f, r.mean),
        r.range_pct,
        show(f, r.mean * 0.9),
        show(f, r.mean * 1.1),
        r.excursion_pct
    )
}

/// The tracked figure per round, the window marked, and the verdict with both limits.
fn convergence(out: &mut String, p: &PtsReport) {
    let (m, b) = p.plan.tracked;
    let f = p.plan.tracked_figure;
    let _ = writeln!(
        out,
        "\n  tracked: {}/{} {} per round",
        m,
        100 - m,
        short_size(b)
    );
    let window = p
        .steady_state
        .as_ref()
        .map(|s| s.first_round..=s.last_round);
    for (i, v) in p.tracked().iter().enumerate() {
        let r = i as u32 + 1;
        let mark = if window.as_ref().is_some_and(|w| w.contains(&r)) {
            "  window"
        } else {
            ""
        };
        let _ = writeln!(out, "  round {r:>2}  {:>12}{mark}", show(f, *v));
    }
    let _ = writeln!(out, "  {}", verdict_line(p));
}

/// The window's mean of each point: a row per R/W mix, a column per block size.
fn table(out: &mut String, p: &PtsReport) {
    if p.table.is_empty() {
        return;
    }
    let f = p.plan.tracked_figure;
    let _ = write!(out, "\n  {:>8}", "R/W");
    for b in &p.plan.sizes {
        let _ = write!(out, " {:>10}", short_size(*b));
    }
    out.push('\n');
    for m in &p.plan.mixes {
        let _ = write!(out, "  {:>8}", format!("{m}/{}", 100 - m));
        for b in &p.plan.sizes {
            let cell = p.table.iter().find(|c| c.read_pct == *m && c.bs == *b);
            let v = cell.map_or(0.0, |c| c.figure(f));
            let _ = write!(out, " {:>10}", show(f, v));
        }
        out.push('\n');
    }
}
