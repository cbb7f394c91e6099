//! A volume's inferred limits as text: the limits found and the closest catalog models.
use crate::table::{grid, StrTable};
use figures::{fmt_count, fmt_ns};
use report::InferReport;

fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map_or("-".into(), f)
}

/// The limits found, one row each.
pub(crate) fn limits_table(r: &InferReport) -> StrTable {
    let l = &r.limits;
    let mut t = StrTable::new(&["limit", "value"]);
    t.caption = format!("Limits of {} (confidence {})", r.target, r.confidence);
    t.row(vec![
        "IOPS cap (sustained)".into(),
        opt(l.iops_cap, fmt_count),
    ]);
    t.row(vec!["bandwidth cap".into(), opt(l.bw_cap_bytes, mib)]);
    t.row(vec![
        "crossover block size".into(),
        opt(l.crossover_bs, kib),
    ]);
    t.row(vec![
        "latency floor (4k QD1 p50)".into(),
        opt(l.latency_floor_ns, fmt_ns),
    ]);
    t.row(vec![
        "queue depth for the cap".into(),
        l.qd_needed.map_or("-".into(), |q| q.to_string()),
    ]);
    if let Some(b) = &l.bw_burst {
        t.row(vec![
            "throughput burst".into(),
            format!(
                "{} for {:.1} s, then {}",
                mib(b.burst_bw_bytes),
                b.duration_s,
                mib(b.baseline_bw_bytes)
            ),
        ]);
    }
    let Some(b) = &l.burst else {
        t.row(vec!["burst".into(), "none seen".into()]);
        return t;
    };
    t.row(vec![
        "burst".into(),
        format!("{} IOPS for {:.1} s", fmt_count(b.burst_iops), b.duration_s),
    ]);
    t.row(vec![
        "baseline after it".into(),
        format!("{} IOPS", fmt_count(b.baseline_iops)),
    ]);
    t.row(vec![
        "bucket".into(),
        format!("{} I/Os", fmt_count(b.bucket_ios)),
    ]);
    if let Some(f) = b.refill_ios_per_s {
        t.row(vec![
            "refill".into(),
            format!("{} I/Os per idle second", fmt_count(f)),
        ]);
    }
    t
}

/// The catalog products nearest to what was found.
pub(crate) fn closest_table(r: &InferReport) -> StrTable {
    let mut c = StrTable::new(&["model", "IOPS", "bandwidth", "burst IOPS", "off by"]);
    c.caption = "Closest catalog products".into();
    for x in &r.closest {
        c.row(vec![
            x.model.clone(),
            fmt_count(x.iops),
            mib(x.bw_bytes),
            opt(x.burst_iops, fmt_count),
            format!("{:.0} %", x.distance * 100.0),
        ]);
    }
    c
}

pub(crate) fn text(r: &InferReport) -> String {
    let t = limits_table(r);
    let mut s = format!("{}\n{}", t.caption, grid(&t));
    s.push_str("\nEvidence:\n");
    for e in &r.evidence {
        s.push_str(&format!("  - {e}\n"));
    }
    if !r.closest.is_empty() {
        let c = closest_table(r);
        s.push_str(&format!("\n{}:\n{}", c.caption, grid(&c)));
    }
    s.push_str(&format!(
        "\nProbe: {} points, {:.0} s of I/O\n",
        r.points.len(),
        r.io_time_s
    ));
    s
}

fn mib(v: f64) -> String {
    format!("{:.1} MiB/s", v / 1048576.0)
}

fn kib(v: f64) -> String {
    format!("{:.0} KiB", v / 1024.0)
}
