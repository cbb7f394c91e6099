//! The power-cut loop's report as text, Markdown and HTML tables: one row per cycle, the
//! tested device's facts and the flush cost beside them, and the one verdict.

use crate::table::{grid, pipes, StrTable};
use figures::{fmt_count, fmt_ns};
use report::{Cycle, DurabilityReport};

/// "tested:/srv/dc.dat through `ssh root@tested`, 5 cycles, cut 30-90 s after the first ack,
/// fdatasync 4k x4".
pub(crate) fn header(d: &DurabilityReport) -> String {
    let s = &d.settings;
    let host = if d.tested_host.is_empty() {
        String::new()
    } else {
        format!("{}:", d.tested_host)
    };
    let via = if d.remote.is_empty() {
        "on this machine".to_string()
    } else {
        format!("through `{}`", d.remote)
    };
    format!(
        "{host}{} {via}, {} of {} cycles, cut {}-{} s after the first ack, {} {} x{} threads",
        d.file,
        d.cycles.len(),
        s.cycles,
        secs(s.wait_min_s),
        secs(s.wait_max_s),
        s.sync,
        workload::short_size(s.block as u64),
        s.threads
    )
}

/// Whole seconds bare, others to a tenth: "30", "1.5".
fn secs(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// Where most losses sit: "0 s" for the last second before the cut, "0-3 s" for a spread.
fn lost_when(c: &Cycle) -> String {
    match (
        c.lost_seconds_before_cut.iter().min(),
        c.lost_seconds_before_cut.iter().max(),
    ) {
        (Some(a), Some(b)) if a == b => format!("{a} s"),
        (Some(a), Some(b)) => format!("{a}-{b} s"),
        _ => "-".into(),
    }
}

/// One row per cycle.
pub(crate) fn cycles_table(d: &DurabilityReport) -> StrTable {
    let mut t = StrTable::new(&[
        "cycle",
        "wrote",
        "acknowledged",
        "checked",
        "LOST",
        "stale/corrupt",
        "before the cut",
        "in flight (torn)",
        "back after",
        "verdict",
    ]);
    t.caption = "Power cuts".into();
    for c in &d.cycles {
        let judged = c.judged();
        let n = |v: u64| {
            if judged {
                fmt_count(v as f64)
            } else {
                "-".into()
            }
        };
        let verdict = match &c.error {
            Some(e) => format!("{}: {e}", c.verdict),
            None => c.verdict.clone(),
        };
        t.row(vec![
            c.index.to_string(),
            format!("{:.1} s", c.wrote_s),
            fmt_count(c.acknowledged as f64),
            n(c.checked),
            match (judged, c.header_lost) {
                (true, true) => format!("{} (header too)", fmt_count(c.lost as f64)),
                _ => n(c.lost),
            },
            if judged {
                format!("{}/{}", c.lost_stale, c.lost_corrupt)
            } else {
                "-".into()
            },
            lost_when(c),
            if judged {
                format!("{} ({})", c.in_flight, c.torn)
            } else {
                "-".into()
            },
            c.back_after_s.map_or("-".into(), |s| format!("{s:.0} s")),
            verdict,
        ]);
    }
    t
}

/// The tested target's facts and the flush cost measured on it.
pub(crate) fn facts_table(d: &DurabilityReport) -> StrTable {
    let mut t = StrTable::new(&["fact", "value"]);
    t.caption = "The tested target".into();
    if let Some(ti) = &d.target {
        if let Some(fs) = &ti.filesystem {
            t.row(vec![
                "file system".into(),
                format!("{} ({})", fs.fs_type, fs.mount_options),
            ]);
        }
        if let Some(dev) = &ti.device {
            let model = format!("{} {} {}", dev.name, dev.model, dev.firmware);
            t.row(vec!["device".into(), model.trim().to_string()]);
            t.row(vec!["write cache".into(), dev.write_cache.clone()]);
            let fua = dev.fua.map_or("unknown", |f| if f { "yes" } else { "no" });
            t.row(vec!["FUA".into(), fua.into()]);
        }
    } else {
        t.row(vec![
            "device".into(),
            "unknown (no cycle reached verify)".into(),
        ]);
    }
    match &d.fsync {
        Some(f) => {
            t.row(vec![
                format!("{} {} (one thread)", f.method, workload::short_size(f.bs)),
                format!(
                    "{} syncs/s, p50 {}, p99 {}",
                    fmt_count(f.syncs_per_sec),
                    fmt_ns(f.lat_p50_ns as f64),
                    fmt_ns(f.lat_p99_ns as f64)
                ),
            ]);
            t.row(vec!["flush verdict".into(), f.summary.clone()]);
        }
        None => t.row(vec![
            "fsync cost".into(),
            "not measured (--no-fsync)".into(),
        ]),
    }
    t
}

pub(crate) fn text(d: &DurabilityReport) -> String {
    let mut s = format!("volbench durability cycle: {}\n\n", header(d));
    // Facts as aligned pairs: a grid would right-align a value that starts with a digit.
    let f = facts_table(d);
    let w = f
        .rows
        .iter()
        .map(|r| r[0].chars().count())
        .max()
        .unwrap_or(0);
    s.push_str(&format!("{}:\n", f.caption));
    for r in &f.rows {
        s.push_str(&format!("  {:<w$}  {}\n", r[0], r[1]));
    }
    s.push('\n');
    let c = cycles_table(d);
    s.push_str(&format!("{}:\n{}\n", c.caption, grid(&c)));
    for w in &d.warnings {
        s.push_str(&format!("  ! {}\n", w.message));
    }
    s.push_str(&format!("{}: {}\n", d.verdict.to_uppercase(), d.summary));
    s
}

pub(crate) fn markdown(d: &DurabilityReport) -> String {
    let mut s = format!("# volbench durability cycle\n\n{}\n\n", header(d));
    for t in [facts_table(d), cycles_table(d)] {
        s.push_str(&format!("## {}\n\n{}\n", t.caption, pipes(&t)));
    }
    s.push_str(&format!(
        "**{}**: {}\n",
        d.verdict.to_uppercase(),
        d.summary
    ));
    s
}
