//! A replayed trace in words and tables: the fidelity (how late the I/Os went, the replay's
//! length against the trace's) and the latency where the trace was recorded beside the
//! target's, per direction and size class. Text and Markdown share the rows; HTML its table.

use figures::{fmt_count, fmt_ns, fmt_secs};
use report::{JobReport, ReplayReport};
use std::fmt::Write;

/// The lines under a run's figures, one block per replaying job.
pub fn text(out: &mut String, jobs: &[JobReport]) {
    for (j, r) in jobs.iter().filter_map(|j| Some((j, j.replay.as_ref()?))) {
        let _ = writeln!(out, "\n  {}: {}", j.name, headline(r));
        let _ = writeln!(out, "    fidelity: {}", fidelity(r));
        if let Some(s) = left_out(r) {
            let _ = writeln!(out, "    {s}");
        }
        let _ = writeln!(
            out,
            "    {:<6} {:<8} {:>8}  {:>22}  {:>22}",
            "", "size", "I/Os", "recorded p50 / p99", "here p50 / p99"
        );
        for row in rows(r) {
            let _ = writeln!(
                out,
                "    {:<6} {:<8} {:>8}  {:>22}  {:>22}",
                row[0], row[1], row[2], row[3], row[4]
            );
        }
    }
}

/// What was replayed, from where, how fast, at what depth.
pub fn headline(r: &ReplayReport) -> String {
    let depth = match r.recorded_depth {
        Some(d) => format!("depth up to {} (the trace's deepest: {d})", r.depth),
        None => format!("depth up to {} (the trace holds no completions)", r.depth),
    };
    let loops = match r.loops {
        1 => String::new(),
        n => format!(", {n} loops"),
    };
    format!(
        "replay of {} ({}), {} I/Os, at {} speed{loops}, {depth}",
        r.trace,
        r.format,
        fmt_count(r.trace_ios as f64),
        r.speed
    )
}

/// The replay's length against the trace's, and how late its I/Os went.
pub fn fidelity(r: &ReplayReport) -> String {
    let took = secs(r.replay_ns);
    let length = match r.stretch() {
        Some(x) => format!("took {took} for a trace of {} ({x:.2}x)", secs(r.trace_ns)),
        None => format!("took {took}, as fast as the queue allowed"),
    };
    let Some(lag) = &r.lag_ns else {
        return length;
    };
    let p = |q| fmt_ns(lag.percentile(q).unwrap_or(0) as f64);
    format!(
        "{length}; I/Os issued after their due time by p50 {}, p99 {}, p99.9 {}, at most {}",
        p(50.0),
        p(99.0),
        p(99.9),
        fmt_ns(lag.max_ns as f64)
    )
}

/// Seconds to the ms under a minute (a replay's length is compared to the trace's), else as
/// figures writes them.
fn secs(ns: u64) -> String {
    match ns {
        n if n < 60_000_000_000 => format!("{:.3} s", n as f64 / 1e9),
        n => fmt_secs(n as f64 / 1e9),
    }
}

/// What the trace held that was not replayed as it was, if anything.
pub fn left_out(r: &ReplayReport) -> Option<String> {
    let mut parts = Vec::new();
    if r.syncs > 0 {
        parts.push(format!(
            "{} flushes replayed as fsync",
            fmt_count(r.syncs as f64)
        ));
    }
    if r.trims_skipped > 0 {
        parts.push(format!(
            "{} trims not replayed (no engine issues discards)",
            fmt_count(r.trims_skipped as f64)
        ));
    }
    if r.skipped > 0 {
        parts.push(format!(
            "{} left out by replay_skip",
            fmt_count(r.skipped as f64)
        ));
    }
    if r.wrapped > 0 {
        parts.push(format!(
            "{} I/Os wrapped into the target (it is smaller than the trace's reach)",
            fmt_count(r.wrapped as f64)
        ));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// A traced time: tracefs and fio's iologs time in whole µs, so a 0 is under one.
fn traced_ns(ns: f64) -> String {
    if ns == 0.0 {
        "<1 µs".into()
    } else {
        fmt_ns(ns)
    }
}

/// Direction, size class, I/Os, recorded p50 / p99, here p50 / p99.
pub fn rows(r: &ReplayReport) -> Vec<[String; 5]> {
    let pair = |l: &stats::LatencySummary| {
        let p = |q| traced_ns(l.percentile(q).unwrap_or(0) as f64);
        format!("{} / {}", p(50.0), p(99.0))
    };
    // A direction of one size class has one row: its class's.
    let classes = |dir: &str| r.latency.iter().filter(|x| x.dir == dir).count();
    r.latency
        .iter()
        .filter(|row| !(row.class == "all" && classes(&row.dir) == 2))
        .map(|row| {
            [
                row.dir.clone(),
                row.class.clone(),
                fmt_count(row.ios as f64),
                row.recorded.as_ref().map_or("-".into(), pair),
                pair(&row.here),
            ]
        })
        .collect()
}

/// A trace's summary in words: what it holds, its sizes, its rate over time, the latency the
/// device gave and the deepest queue.
pub fn summary_text(path: &str, s: &trace::Summary) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "trace {path} ({})", s.format);
    for (name, reach) in s.files.iter().zip(&s.extent) {
        let _ = writeln!(
            out,
            "  {name}: I/O reaches {} into it",
            workload::format_bytes(*reach as f64)
        );
    }
    let each = |k: usize| {
        format!(
            "{} {}s ({})",
            fmt_count(s.ios[k] as f64),
            trace::Op::ALL[k].name(),
            workload::format_bytes(s.bytes[k] as f64)
        )
    };
    let _ = writeln!(
        out,
        "  {} I/Os over {}: {}, {}, {} flushes, {} trims; {} with FUA",
        fmt_count(s.total() as f64),
        secs(s.span_ns),
        each(0),
        each(1),
        fmt_count(s.ios[2] as f64),
        fmt_count(s.ios[3] as f64),
        fmt_count(s.fua as f64),
    );
    let sizes: Vec<String> = s
        .classes
        .iter()
        .enumerate()
        .filter(|(_, c)| c[0] + c[1] > 0)
        .map(|(i, c)| format!("{} {}r/{}w", trace::class_name(i), c[0], c[1]))
        .collect();
    let _ = writeln!(out, "  sizes: {}", sizes.join(", "));
    rate_line(&mut out, s);
    latency_lines(&mut out, s);
    match s.max_depth {
        Some(d) => {
            let _ = writeln!(out, "  deepest queue: {d} in flight");
        }
        None => {
            let _ = writeln!(
                out,
                "  no completions in the trace: its latency and depth are unknown"
            );
        }
    }
    out
}

/// Each direction's latency as the device served it, where the trace has completions.
fn latency_lines(out: &mut String, s: &trace::Summary) {
    for (d, name) in [(0, "read"), (1, "write")] {
        if let Some(l) = &s.latency[d] {
            let p = |q| traced_ns(l.percentile(q).unwrap_or(0) as f64);
            let [mean, p50, p99, p999, max] = [
                traced_ns(l.mean_ns),
                p(50.0),
                p(99.0),
                p(99.9),
                traced_ns(l.max_ns as f64),
            ];
            let _ = writeln!(
                out,
                "  {name} latency as the device served it: mean {mean}, p50 {p50}, p99 {p99}, p99.9 {p999}, max {max}"
            );
        }
    }
}

/// The I/O rate over the trace's seconds: its lowest, mean and highest second.
fn rate_line(out: &mut String, s: &trace::Summary) {
    let per: Vec<u64> = s.per_second.iter().map(|x| x[0] + x[1]).collect();
    if per.is_empty() {
        return;
    }
    let mean = per.iter().sum::<u64>() as f64 / per.len() as f64;
    let (lo, hi) = (
        per.iter().min().unwrap_or(&0),
        per.iter().max().unwrap_or(&0),
    );
    let _ = writeln!(
        out,
        "  rate: {} IOPS mean over {} seconds, lowest second {}, highest {}",
        fmt_count(mean),
        per.len(),
        fmt_count(*lo as f64),
        fmt_count(*hi as f64)
    );
}
