//! fio's steady-state stop: the criterion and its limit, the window, the time before data is
//! collected and the check interval, with fio's names, aliases and defaults.

use super::{show_time, Category as C, FioOption as O, Kind, Val};
use crate::fio::OptError;
use crate::steady::{Criterion, Metric};
use crate::units::parse_duration;

pub(super) const OPTIONS: &[O] = &[
    O {
        aliases: &["ss"],
        details: "`iops`, `bw` or `lat` (the mean completion latency), each also `_slope`; \
                  the limit as a percentage of the window's mean (`iops_slope:0.1%`) or \
                  absolute (IOPS, bytes/s with units, or a time: `lat:2ms`); fio's rules: \
                  deviation, every sample of the window within the limit of its mean; slope, \
                  the least-squares slope per interval below it. Active with `ss_dur`",
        show: Some(|j| {
            j.steadystate
                .on()
                .then(|| j.steadystate.criterion.as_option())
        }),
        ..O::new(
            "steadystate",
            C::Timing,
            Kind::Text,
            "Stop the job once this criterion holds over ss_dur: iops|bw|lat[_slope]:LIMIT[%]",
            "iops_slope:0.1%",
            |j, v| {
                j.steadystate.criterion = criterion(v)?;
                Ok(())
            },
        )
    },
    O {
        aliases: &["ss_dur"],
        show: Some(|j| j.steadystate.on().then(|| show_time(j.steadystate.dur))),
        ..O::new(
            "steadystate_duration",
            C::Timing,
            Kind::Time,
            "The window steady state is judged over (turns the steady-state stop on)",
            "30s",
            |j, v| {
                j.steadystate.dur = v.time()?;
                Ok(())
            },
        )
    },
    O {
        aliases: &["ss_ramp"],
        show: Some(|j| {
            let s = j.steadystate;
            (s.on() && !s.ramp.is_zero()).then(|| show_time(s.ramp))
        }),
        ..O::new(
            "steadystate_ramp_time",
            C::Timing,
            Kind::Time,
            "Collect no steady-state data before this time into the job",
            "10s",
            |j, v| {
                j.steadystate.ramp = v.time()?;
                Ok(())
            },
        )
    },
    O {
        aliases: &["ss_interval"],
        show: Some(|j| {
            let s = j.steadystate;
            (s.on() && s.interval.as_secs() != 1).then(|| show_time(s.interval))
        }),
        ..O::new(
            "steadystate_check_interval",
            C::Timing,
            Kind::Time,
            "One steady-state sample per interval (1s)",
            "2s",
            |j, v| {
                let d = v.time()?;
                if d.as_millis() < 100 {
                    return Err(v.bad(v.need()?, "give at least 100ms"));
                }
                j.steadystate.interval = d;
                Ok(())
            },
        )
    },
];

/// `METRIC[_slope]:LIMIT[%]`, as fio's str_steadystate_cb reads it.
fn criterion(v: &Val) -> Result<Criterion, OptError> {
    let s = v.need()?;
    let usage = "give iops, bw or lat (each also _slope), a colon and the limit: iops_slope:0.1%";
    let (name, limit) = s.split_once(':').ok_or_else(|| v.bad(s, usage))?;
    let (metric, slope) = match name.trim().to_ascii_lowercase().as_str() {
        "iops" => (Metric::Iops, false),
        "iops_slope" => (Metric::Iops, true),
        "bw" => (Metric::Bw, false),
        "bw_slope" => (Metric::Bw, true),
        "lat" => (Metric::Lat, false),
        "lat_slope" => (Metric::Lat, true),
        _ => return Err(v.bad(s, usage)),
    };
    let limit = limit.trim();
    let number = |t: &str| {
        t.trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0)
    };
    let (value, percent) = match limit.strip_suffix('%') {
        Some(p) => (number(p), true),
        None => match metric {
            Metric::Iops => (number(limit), false),
            Metric::Bw => (v.size_of(limit).ok().map(|b| b as f64), false),
            // A bare number is µs, as fio's times without a unit.
            Metric::Lat => (
                number(limit)
                    .map(|us| us * 1000.0)
                    .or_else(|| parse_duration(limit).ok().map(|d| d.as_nanos() as f64)),
                false,
            ),
        },
    };
    let limit =
        value.ok_or_else(|| v.bad(s, "the limit is not a number (or a size, or a time)"))?;
    Ok(Criterion {
        metric,
        slope,
        limit,
        percent,
    })
}
