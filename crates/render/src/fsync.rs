//! The fsync-cost report as tables: the device facts, the cases, the penalty, and the verdict.
use crate::table::{grid, pipes, StrTable};
use report::{FsyncReport, Status};
use stats::LatencySummary;

fn heads(h: &[&str]) -> Vec<String> {
    h.iter().map(|s| s.to_string()).collect()
}

fn rate(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// The device facts of every target: the evidence the verdict reads.
/// A device's facts row (dashes where the target has no device volbench could name).
fn device_row(name: String, fs: &str, d: Option<&report::DeviceInfo>) -> Vec<String> {
    let or = |s: &str| match s.is_empty() {
        true => "-".to_string(),
        false => s.to_string(),
    };
    let yes = |b: bool| if b { "yes" } else { "no" }.to_string();
    match d {
        Some(d) => vec![
            name,
            fs.to_string(),
            d.name.clone(),
            or(&d.write_cache),
            d.fua.map_or("-".into(), yes),
            yes(d.rotational),
            or(&d.model),
            or(&d.firmware),
        ],
        None => [name, fs.to_string()]
            .into_iter()
            .chain(std::iter::repeat_n("-".to_string(), 6))
            .collect(),
    }
}

pub(crate) fn facts_table(f: &FsyncReport) -> StrTable {
    let mut rows = Vec::new();
    for t in &f.environment.targets {
        let fs = t
            .filesystem
            .as_ref()
            .map_or("-".to_string(), |x| x.fs_type.clone());
        rows.push(device_row(t.path.clone(), &fs, t.device.as_ref()));
        let mut stack: Vec<(u32, &report::DeviceInfo)> = t
            .device
            .iter()
            .flat_map(|d| d.members.iter().map(|m| (1, m)))
            .collect();
        while let Some((lvl, m)) = stack.pop() {
            let name = format!("{}└ member", "  ".repeat(lvl as usize));
            rows.push(device_row(name, &fs, Some(m)));
            stack.extend(m.members.iter().map(|x| (lvl + 1, x)));
        }
    }
    StrTable {
        caption: "Device facts".into(),
        head: heads(&[
            "target",
            "fs",
            "device",
            "write cache",
            "FUA",
            "rotational",
            "model",
            "firmware",
        ]),
        rows,
    }
}

/// One row per measured case.
/// One case's row (its target first where there are several); a case that failed before it
/// wrote says so in place of its figures.
fn case_row(c: &report::FsyncCase, many: bool) -> Vec<String> {
    let mut r = Vec::new();
    if many {
        r.push(c.target.clone());
    }
    r.push(c.method.clone());
    r.push(workload::short_size(c.bs));
    r.push(c.threads.to_string());
    if let Some(e) = c.error.as_ref().filter(|_| c.writes == 0) {
        r.push(format!("not measured: {e}"));
        return r;
    }
    let [mean, p50, p99, p999, max] = crate::table::lat_cells(&c.lat_ns);
    let sync = |p| {
        c.sync_lat_ns.as_ref().map_or("-".to_string(), |s| {
            figures::fmt_ns(s.percentile(p).unwrap_or(0) as f64)
        })
    };
    let syncs = match c.syncs {
        0 => "-".into(),
        _ => figures::fmt_count(c.syncs_per_sec),
    };
    let rate = rate(c.mib_per_sec);
    r.extend([
        syncs,
        rate,
        mean,
        p50,
        p99,
        p999,
        max,
        sync(50.0),
        sync(99.0),
    ]);
    r
}

pub(crate) fn cases_table(f: &FsyncReport) -> StrTable {
    let many = f.verdicts.len() > 1;
    let mut head = Vec::new();
    if many {
        head.push("target");
    }
    head.extend([
        "method",
        "bs",
        "threads",
        "syncs/s",
        "MiB/s",
        "lat mean",
        "p50",
        "p99",
        "p99.9",
        "max",
        "flush p50",
        "flush p99",
    ]);
    let rows = f.cases.iter().map(|c| case_row(c, many)).collect();
    StrTable {
        caption:
            "What durability costs (latency: the whole durable write; flush: the sync call alone)"
                .into(),
        head: heads(&head),
        rows,
    }
}

/// The penalty's ratio; under 1 the synced runs were the faster, which no sync can cause: the
/// syncs cost nothing these runs could see, and the ratio is their own spread.
fn penalty_cell(penalty: f64) -> String {
    match penalty < 0.95 {
        true => format!("{penalty:.1}x (none seen: synced ran faster, the runs' own spread)"),
        false => format!("{penalty:.1}x"),
    }
}

/// The seed-003 table: one line per target.
pub(crate) fn penalty_table(f: &FsyncReport) -> StrTable {
    let rows = f
        .penalty
        .iter()
        .map(|p| {
            let mut r = vec![p.target.clone()];
            match &p.error {
                Some(e) => r.push(format!("not measured: {e}")),
                None => r.extend([
                    rate(p.no_sync.read_mib_per_sec),
                    rate(p.no_sync.write_mib_per_sec),
                    rate(p.fsync_every_write.read_mib_per_sec),
                    rate(p.fsync_every_write.write_mib_per_sec),
                    penalty_cell(p.penalty),
                ]),
            }
            r
        })
        .collect();
    let caption = f.penalty.first().map_or(String::new(), |p| {
        format!(
            "fsync penalty: random {} read+write {}/{}, {} threads, {}; MiB/s without a sync and with fsync after every write",
            workload::short_size(p.bs),
            p.rwmixread,
            100 - p.rwmixread,
            p.threads,
            if p.direct { "O_DIRECT" } else { "buffered (O_DIRECT unsupported)" }
        )
    });
    StrTable {
        caption,
        head: heads(&[
            "target",
            "read (no sync)",
            "write (no sync)",
            "read (fsync)",
            "write (fsync)",
            "penalty",
        ]),
        rows,
    }
}

/// Every table of the report, in reading order.
pub(crate) fn tables(f: &FsyncReport) -> Vec<StrTable> {
    let mut v = vec![facts_table(f)];
    if !f.cases.is_empty() {
        v.push(cases_table(f));
    }
    if !f.penalty.is_empty() {
        v.push(penalty_table(f));
    }
    v
}

/// The text form `volbench fsync` prints.
pub(crate) fn text(f: &FsyncReport) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let targets: Vec<&str> = f.verdicts.iter().map(|v| v.target.as_str()).collect();
    let what = match f.cases.len() {
        0 => "the penalty only".to_string(),
        1 => "1 case".to_string(),
        n => format!("{n} cases"),
    };
    let _ = writeln!(
        out,
        "volbench fsync: {} ({what}, {} each){}",
        targets.join(", "),
        figures::fmt_ns(f.runtime_ns as f64),
        match f.status {
            Status::Complete => String::new(),
            s => format!(
                " [{}]",
                serde_json::to_value(s)
                    .ok()
                    .and_then(|v| v.as_str().map(String::from))
                    .unwrap_or_default()
            ),
        }
    );
    if let Some(e) = &f.error {
        let _ = writeln!(out, "error: {e}");
    }
    for t in tables(f) {
        let _ = writeln!(out, "\n{}:", t.caption);
        out.push_str(&grid(&t));
    }
    out.push_str("\nFlush honesty (evidence, not proof: `volbench durability` proves it with a power cut):\n");
    for v in &f.verdicts {
        let _ = writeln!(out, "  {}: {}", v.target, v.summary);
        for e in &v.evidence {
            let _ = writeln!(out, "    - {e}");
        }
    }
    for w in &f.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}

/// The Markdown form: the same tables as pipes.
pub(crate) fn markdown(f: &FsyncReport) -> String {
    let mut out = format!("# volbench fsync\n\nStarted {}.\n", f.started_at);
    for t in tables(f) {
        out.push_str(&format!("\n**{}**\n\n", t.caption));
        out.push_str(&pipes(&t));
    }
    out.push_str("\n**Flush honesty**\n\n");
    for v in &f.verdicts {
        out.push_str(&format!("- {}: {}\n", v.target, v.summary));
        for e in &v.evidence {
            out.push_str(&format!("  - {e}\n"));
        }
    }
    out
}

/// The CSV form: one line per case, numbers unformatted.
pub(crate) fn csv(f: &FsyncReport) -> String {
    let mut out = String::from(
        "target,method,bs,threads,writes,syncs,syncs_per_sec,writes_per_sec,mib_per_sec,lat_mean_ns,lat_p50_ns,lat_p99_ns,lat_p99_9_ns,lat_max_ns,sync_p50_ns,sync_p99_ns,status,error\n",
    );
    let q = |s: &str| {
        if s.contains([',', '"', '\n']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_string()
        }
    };
    for c in &f.cases {
        let p = |l: &LatencySummary, x| l.percentile(x).map_or(String::new(), |v| v.to_string());
        let sp = |x| c.sync_lat_ns.as_ref().map_or(String::new(), |s| p(s, x));
        let status = c.status.name();
        out.push_str(&format!(
            "{},{},{},{},{},{},{:.3},{:.3},{:.3},{:.0},{},{},{},{},{},{},{},{}\n",
            q(&c.target),
            c.method,
            c.bs,
            c.threads,
            c.writes,
            c.syncs,
            c.syncs_per_sec,
            c.writes_per_sec,
            c.mib_per_sec,
            c.lat_ns.mean_ns,
            p(&c.lat_ns, 50.0),
            p(&c.lat_ns, 99.0),
            p(&c.lat_ns, 99.9),
            c.lat_ns.max_ns,
            sp(50.0),
            sp(99.0),
            status,
            q(c.error.as_deref().unwrap_or(""))
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::penalty_cell;

    /// A ratio under one is said to be no cost and the runs' spread, not printed bare.
    #[test]
    fn a_penalty_under_one_is_named_as_none_seen() {
        assert_eq!(penalty_cell(1.33), "1.3x");
        assert_eq!(penalty_cell(0.97), "1.0x");
        assert!(
            penalty_cell(0.8).starts_with("0.8x (none seen"),
            "{}",
            penalty_cell(0.8)
        );
    }
}
