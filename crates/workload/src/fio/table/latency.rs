//! fio's latency-target search: the target, the window each depth is judged over, the share
//! of I/Os that must meet the target, and whether to go on adjusting after it has settled.

use super::timing::micros;
use super::{show_flag, Category as C, FioOption as O, Kind};

pub(super) const OPTIONS: &[O] = &[
    O {
        details: "fio's limit on any one I/O: an I/O whose latency (issue to completion, fio's \
                  lat) exceeds it ends the job with ETIMEDOUT, its figures kept up to there. \
                  `R,W` gives reads and writes their own; one value is both",
        show: Some(|j| {
            let [r, w] = j.latency.max_latency_ns;
            match (r, w) {
                (0, 0) => None,
                (r, w) if r == w => Some(show_us(r)),
                (r, w) => Some(format!("{},{}", show_us(r), show_us(w))),
            }
        }),
        ..O::new(
            "max_latency",
            C::Timing,
            Kind::Time,
            "End the job with an error when an I/O takes longer than this (µs unless a unit is given; R,W)",
            "50ms",
            |j, v| {
                let us = |p: &str| match p.trim().parse::<u64>() {
                    Ok(n) => Ok(n),
                    Err(_) => crate::units::parse_duration(p)
                        .map(|d| d.as_micros() as u64)
                        .map_err(|e| v.bad(p, e.to_string())),
                };
                j.latency.max_latency_ns = super::timing::pair(v, us)?.map(|u| u.saturating_mul(1000));
                Ok(())
            },
        )
    },
    O {
        details: "the job starts at depth 1, doubles it while each `latency_window` meets the \
                  target, bisects between the last good and first bad depth once one misses, \
                  and once a window picks the same depth again, restarts its counts there and \
                  ends after the next window that meets the target (fio's rules); the \
                  report's figures are those last windows' and it names the depth. Latency is \
                  issue to completion (fio's lat). With `latency_percentile=100` an I/O over \
                  the target at depth 1 ends the job with an error, as in fio",
        show: Some(|j| {
            let t = j.latency.lat_target;
            t.on().then(|| show_us(t.target_ns))
        }),
        ..O::new(
            "latency_target",
            C::Timing,
            Kind::Time,
            "Find the deepest queue (up to iodepth) that keeps latency within this (µs unless a unit is given)",
            "2ms",
            |j, v| {
                j.latency.lat_target.target_ns = micros(v)?.saturating_mul(1000);
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| {
            let t = j.latency.lat_target;
            (t.on() && t.window_ns > 0).then(|| show_us(t.window_ns))
        }),
        ..O::new(
            "latency_window",
            C::Timing,
            Kind::Time,
            "Run each depth this long before judging it (µs unless a unit is given)",
            "1s",
            |j, v| {
                j.latency.lat_target.window_ns = micros(v)?.saturating_mul(1000);
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| {
            let t = j.latency.lat_target;
            (t.on() && t.percentile != 100.0).then(|| t.percentile.to_string())
        }),
        ..O::new(
            "latency_percentile",
            C::Timing,
            Kind::Text,
            "The share of I/Os (%) that must meet latency_target (100)",
            "99",
            |j, v| {
                let s = v.need()?;
                let p = s
                    .trim()
                    .trim_end_matches('%')
                    .parse::<f64>()
                    .ok()
                    .filter(|p| *p > 0.0 && *p <= 100.0)
                    .ok_or_else(|| v.bad(s, "give a percentage above 0, up to 100"))?;
                j.latency.lat_target.percentile = p;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| {
            let t = j.latency.lat_target;
            (t.on() && t.run).then(|| show_flag(true)).flatten()
        }),
        ..O::new(
            "latency_run",
            C::Timing,
            Kind::Flag,
            "Keep adjusting the depth to the end of the run instead of ending at the depth found",
            "1",
            |j, v| {
                j.latency.lat_target.run = v.flag()?;
                Ok(())
            },
        )
    },
];

/// A time in whole µs, as fio reads it back.
fn show_us(ns: u64) -> String {
    format!("{}us", ns / 1000)
}
