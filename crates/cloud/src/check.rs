//! `cloud check`: measured against advertised. Each test of a stored run, sweep or suite is set
//! against the model's figure at its block size, in the metric whose cap binds there, with a
//! verdict and the likely reasons a result sits above or below the model.

use crate::measured::Measured;
use crate::model::Model;
use report::JobReport;
use workload::BufferMode;

/// Within this ratio of the model either way a result is "as advertised": providers promise
/// their figures 90-99.9 % of the time, and a guest's own measurement moves a few percent.
pub const TOLERANCE: f64 = 0.10;

pub use report::volume::{CurveCheck, Row};

/// The verdict for one measured test against `m`.
pub fn check(m: &Model, t: &Measured) -> Option<Row> {
    let (iops, bw, _) = crate::measured::rates(&t.report);
    if iops <= 0.0 {
        return None;
    }
    let bs = (bw / iops).round().max(1.0) as u64;
    let writes_only = t.report.read.is_none();
    let mut model = m.clone();
    if writes_only {
        model.iops = m.write_iops;
        model.bw_bytes = m.write_bw_bytes;
    }
    let at = model.at(bs);
    let (metric, want, got) = if at.bound == "iops" {
        ("iops", at.iops, iops)
    } else {
        ("bandwidth", at.bw_bytes, bw)
    };
    let ratio = got / want;
    let verdict = verdict_of(ratio);
    let mut reasons = match verdict {
        "above" => above(
            m,
            t,
            ratio,
            at.burst_iops.map(|b| b * bs as f64),
            got,
            metric,
        ),
        "below" => below(m, t, want, metric, bs),
        _ => Vec::new(),
    };
    // MiB vs MB (4.9 %) and GiB vs GB (7.4 %) hide inside the tolerance: say so whatever the
    // verdict, before someone reads the gap as the volume's. Only where the model's unit is in
    // doubt (a user's catalog, or a provider that does not define its "MB"): volbench counts
    // bytes, so against a confirmed unit a ratio near a unit factor is chance (a throttle's
    // slice moved a 12 MB/s run to 1.024, and that was blamed on KiB vs KB).
    if let Some(u) = units(ratio).filter(|_| m.units_uncertain()) {
        if reasons
            .first()
            .is_some_and(|r| r.starts_with("unexplained"))
        {
            reasons.clear();
        }
        reasons.push(u);
    }
    Some(Row {
        test: t.test.clone(),
        bs,
        metric,
        model: want,
        measured: got,
        ratio,
        verdict,
        reasons,
    })
}

/// Above, below or as advertised, by the tolerance the model allows.
fn verdict_of(ratio: f64) -> &'static str {
    if ratio > 1.0 + TOLERANCE {
        "above"
    } else if ratio < 1.0 - TOLERANCE {
        "below"
    } else {
        "as advertised"
    }
}

/// Why a result beats the model, most likely first.
fn above(
    m: &Model,
    t: &Measured,
    ratio: f64,
    burst_bw: Option<f64>,
    got: f64,
    metric: &str,
) -> Vec<String> {
    let s = &t.spec;
    let mut why = Vec::new();
    let flushed = s.sync.end_fsync
        || s.sync.sync_every > 0
        || !matches!(s.sync.sync_io, workload::SyncIo::None);
    if !s.direct && (s.rw.reads() || !flushed) {
        why.push("page cache: buffered I/O without a flush measures memory, not the volume (use --direct=1, or --end_fsync=1 for writes as dd's conv=fdatasync)".to_string());
    }
    if !matches!(s.buffers.buffer, BufferMode::Random) {
        why.push("compression: the data written was zeros or a repeated pattern, which compressing or deduplicating storage hardly writes (volbench writes incompressible data by default)".to_string());
    }
    if let Some(b) = burst_bw {
        let burst = if metric == "iops" {
            b / t.spec.bs.max(1) as f64
        } else {
            b
        };
        if got <= burst * (1.0 + TOLERANCE) {
            let d = m.burst_duration_s.map_or(String::new(), |d| {
                format!(" (a full bucket lasts {})", figures::fmt_secs(d))
            });
            why.push(format!("burst credits: the result is within the burst rate{d}; run longer than the burst to see the sustained rate"));
        }
    }
    if let Some(st) = crate::measured::series_step(&t.report) {
        why.push(format!(
            "burst: the per-second rate fell from {:.0} to {:.0} IOPS after {:.0} s",
            st.before, st.after, st.at_s
        ));
    }
    if why.is_empty() && !(m.units_uncertain() && units(ratio).is_some()) {
        why.push("unexplained: the volume delivered more than its published model; run longer, and check the model's size and level".into());
    }
    why
}

/// Why a result falls short of the model, most likely first.
/// The reason when the machine the test ran on caps all its volumes below the model's figure.
fn instance_cap_below(t: &Measured, want: f64, metric: &str) -> Option<String> {
    let c = crate::instance::cap(t.machine.as_ref()?, t.cpus)?;
    let (cap, scale, unit) = match metric {
        "iops" => (c.max_iops, 1.0, "IOPS"),
        _ => (c.max_bytes, 1e6, "MB/s"),
    };
    (cap < want).then(|| {
        format!(
            "instance cap: {} sends at most {} {unit} to all its volumes, below this model's {} {unit}",
            c.what,
            figures::fmt_count(cap / scale),
            figures::fmt_count(want / scale)
        )
    })
}

fn below(m: &Model, t: &Measured, want: f64, metric: &str, bs: u64) -> Vec<String> {
    let r = &t.report;
    let mut why = Vec::new();
    let outstanding = (t.spec.iodepth.max(1) * t.spec.numjobs.max(1)) as f64;
    let (_, _, lat_ns) = crate::measured::rates(r);
    let want_iops = if metric == "iops" {
        want
    } else {
        want / bs as f64
    };
    // Little's law: reaching the cap at this latency needs cap x latency I/Os in flight.
    let needed = want_iops * lat_ns / 1e9;
    if lat_ns > 0.0 && outstanding < needed * 0.9 {
        let most = outstanding / lat_ns * 1e9;
        why.push(format!(
            "too little queue depth: {} I/O(s) in flight at {} each can do at most {} IOPS ({}/s); the cap needs about {:.0} in flight (raise --iodepth or --numjobs)",
            outstanding,
            figures::fmt_ns(lat_ns),
            rate(most),
            figures::fmt_bytes(most * bs as f64),
            needed.ceil()
        ));
    }
    if let Some(j) = cpu_per_job(r, t.spec.numjobs) {
        if j >= 90.0 {
            why.push(format!("CPU-bound tool: each job thread used {j:.0} % of a CPU; add jobs or use a cheaper engine"));
        }
    }
    // The machine's own cap where the catalog knows it, first; else the product's note.
    match instance_cap_below(t, want, metric) {
        Some(reason) => why.insert(0, reason),
        None if !m.instance_caps.is_empty() => {
            why.push(format!("instance cap: {}", m.instance_caps[0]))
        }
        None => {}
    }
    // Moving a large block at the cap takes time of its own: that part is transfer, not a
    // round trip, and only the rest is the network's.
    let transfer_ns = if metric == "bandwidth" && want > 0.0 {
        bs as f64 / want * 1e9
    } else {
        0.0
    };
    if lat_ns > 2e6 && outstanding <= 4.0 && transfer_ns >= lat_ns / 2.0 {
        why.push(format!(
            "large I/Os at low depth: {} per I/O, of which {} is moving {} at the cap; a deeper queue (or more jobs) overlaps the transfers",
            figures::fmt_ns(lat_ns),
            figures::fmt_ns(transfer_ns.min(lat_ns)),
            figures::fmt_bytes(bs as f64)
        ));
    } else if lat_ns > 2e6 && outstanding <= 4.0 {
        why.push(format!(
            "network: {} per I/O at low depth is a long round trip to the volume",
            figures::fmt_ns(lat_ns)
        ));
    }
    if why.is_empty() {
        why.push("below the model with enough depth and CPU: another tenant, a snapshot-restored volume not yet initialized, or a cap the catalog does not know".into());
    }
    why
}

/// A rate as a reader takes it: below 10 with two decimals (a 1 GiB write at one in flight
/// does 0.26 IOPS, not "0").
fn rate(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.2}")
    } else {
        figures::fmt_count(v)
    }
}

/// A ratio that is a binary/decimal unit factor (either way) within 1 %.
fn units(ratio: f64) -> Option<String> {
    for (f, name) in [
        (1.048576, "MiB vs MB"),
        (1.073741824, "GiB vs GB"),
        (1.024, "KiB vs KB"),
    ] {
        for r in [f, 1.0 / f] {
            if (ratio / r - 1.0).abs() < 0.005 {
                return Some(format!(
                    "units: the ratio is the {name} factor ({r:.4}); check which unit each side uses"
                ));
            }
        }
    }
    None
}

/// A group's CPU is the whole process's: its share per job thread.
fn cpu_per_job(r: &JobReport, jobs: u32) -> Option<f64> {
    let c = r.cpu.usr_percent + r.cpu.sys_percent;
    (c > 0.0).then(|| c / jobs.max(1) as f64)
}

pub fn curve(m: &Model, c: &report::curve::CurveReport) -> Option<CurveCheck> {
    let bs = (c.max.bw_bytes / c.max.iops.max(1e-9)).round().max(1.0) as u64;
    let cap = m.at(bs).iops;
    if cap <= 0.0 {
        return None;
    }
    let pct = |v: f64| format!("{:.0} %", 100.0 * v / cap);
    let n = figures::fmt_count;
    let mut lines = vec![format!(
        "curve maximum {} IOPS: {} of the model's {} IOPS at {}",
        n(c.max.iops),
        pct(c.max.iops),
        n(cap),
        workload::short_size(bs)
    )];
    if let Some(k) = c.knee {
        lines.push(format!(
            "knee {} IOPS ({} of the cap): the latency climbs past it",
            n(k.achieved_iops),
            pct(k.achieved_iops)
        ));
    }
    for a in &c.slo {
        // A host too busy to judge is not a volume that never meets the SLO, and an answer
        // the host cut short says where it stopped.
        let at = match (a.slo_iops, a.host_late_ns) {
            (_, Some(late)) => format!(
                "cannot judge here: volbench itself was late by {} at the lightest load",
                figures::fmt_ns(late as f64)
            ),
            (None, None) => "never".into(),
            (Some(v), None) => match a.cut_by_host_at() {
                Some(p) => format!(
                    "{} IOPS, {} of the cap, the last load judged (the host was late from {p} % of the load up)",
                    n(v),
                    pct(v)
                ),
                None => format!("{} IOPS, {} of the cap", n(v), pct(v)),
            },
        };
        lines.push(format!(
            "SLO p{} within {}: {at}",
            a.percentile,
            figures::fmt_ns(a.limit_ns as f64)
        ));
    }
    Some(CurveCheck {
        model_iops: cap,
        max_ratio: c.max.iops / cap,
        knee_ratio: c.knee.map(|k| k.achieved_iops / cap),
        lines,
    })
}
