//! fio's log files and which percentiles reports print.

use super::{show_bit, Category as C, FioOption as O, Kind};

const MSEC: Kind = Kind::Int {
    min: 0,
    max: u32::MAX as u64,
};

/// A log's prefix: fio names the log after the job when the prefix is left out (`write_bw_log`
/// alone, or `write_bw_log=` with nothing after it: an empty prefix would name no file).
fn prefix(v: &super::Val, j: &crate::JobSpec) -> Option<String> {
    Some(
        v.raw
            .filter(|s| !s.is_empty())
            .unwrap_or(&j.name)
            .to_string(),
    )
}

const LOG_DETAILS: &str = "fio's averaged log files, written in the current directory after \
     the run: `NAME_bw.N.log` (KiB/s), `NAME_iops.N.log`, `NAME_lat/clat/slat.N.log` (mean ns), \
     lines `msec, value, ddir, 0, 0`, one per window and direction (a prefix left out is the \
     job's name). Names, format and line counts (within the last partial second) are checked \
     against fio's";

pub(super) const OPTIONS: &[O] = &[
    O {
        details: LOG_DETAILS,
        show: Some(|j| j.reporting.logs.bw.clone()),
        ..O::new(
            "write_bw_log",
            C::Reporting,
            Kind::Text,
            "Write NAME_bw.N.log, bandwidth per window",
            "bwlog",
            |j, v| {
                j.reporting.logs.bw = prefix(v, j);
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| j.reporting.logs.iops.clone()),
        ..O::new(
            "write_iops_log",
            C::Reporting,
            Kind::Text,
            "Write NAME_iops.N.log, IOPS per window",
            "iopslog",
            |j, v| {
                j.reporting.logs.iops = prefix(v, j);
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| j.reporting.logs.lat.clone()),
        ..O::new(
            "write_lat_log",
            C::Reporting,
            Kind::Text,
            "Write NAME_lat/clat/slat.N.log, mean latency per window",
            "latlog",
            |j, v| {
                j.reporting.logs.lat = prefix(v, j);
                Ok(())
            },
        )
    },
    O {
        details: "`NAME_clat_hist.N.log`: per `log_hist_msec` window and direction, `msec, ddir, \
                  bs, ` and the counts of fio's 1856 completion-latency bins (exact below 128 ns, \
                  then 64 per power of two), 2^N bins summed per column with coarseness N; as in \
                  fio, a window is written when a later completion closes it (so the last is \
                  not) and `log_hist_msec=0` writes an empty file. Bins, columns and lines per \
                  window are checked against fio's, and the bins' median against the report's \
                  (fio's `tools/hist/fiologparser_hist.py` reads the files)",
        show: Some(|j| j.reporting.logs.hist.clone()),
        ..O::new(
            "write_hist_log",
            C::Reporting,
            Kind::Text,
            "Write NAME_clat_hist.N.log, completion-latency histograms per window",
            "histlog",
            |j, v| {
                j.reporting.logs.hist = prefix(v, j);
                Ok(())
            },
        )
    },
    O {
        details: "from 100 ms; 0 or unset (fio: one line per I/O) gives one line per second, \
                  since volbench keeps no per-I/O record. Past the first 1,200 windows a long \
                  run's lines follow the report's folded samples: one a second until the first \
                  hour ends, one a minute after (fio writes every window; docs/live.md)",
        show: Some(|j| Some(j.reporting.logs.avg_msec.to_string())),
        ..O::new(
            "log_avg_msec",
            C::Reporting,
            MSEC,
            "The window of the averaged logs, ms",
            "500",
            |j, v| {
                j.reporting.logs.avg_msec = v.int()?;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| Some(j.reporting.logs.hist_msec.to_string())),
        ..O::new(
            "log_hist_msec",
            C::Reporting,
            MSEC,
            "The window of the histogram log, ms",
            "1000",
            |j, v| {
                j.reporting.logs.hist_msec = v.int()?;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| Some(j.reporting.logs.hist_coarseness.to_string())),
        ..O::new(
            "log_hist_coarseness",
            C::Reporting,
            Kind::Int { min: 0, max: 6 },
            "Sum 2^N histogram bins per column",
            "2",
            |j, v| {
                j.reporting.logs.hist_coarseness = v.int()?;
                Ok(())
            },
        )
    },
    // fio 3.33 knows 0 (the window's mean) and 1 (its largest value); newer fio's name,
    // log_window_value, spells them avg and max and adds both (two value columns).
    O {
        aliases: &["log_window_value"],
        details: "with `1` or `max` the latency logs give each window's largest value (kept per \
                  completion by the job thread); the largest line equals the report's maximum. \
                  Newer fio's `both` writes the window's mean and then its largest value, \
                  `msec, mean, max, ddir, 0, 0`, as fio's HOWTO gives the form",
        show: Some(
            |j| match (j.reporting.logs.max_value, j.reporting.logs.both_values) {
                (_, true) => Some("both".into()),
                (true, false) => Some("1".into()),
                _ => None,
            },
        ),
        ..O::new(
            "log_max_value",
            C::Reporting,
            Kind::Flag,
            "Latency logs give each window's largest value, not its mean",
            "1",
            |j, v| {
                let both = v.raw.map(str::trim) == Some("both");
                j.reporting.logs.max_value = match v.raw.map(str::trim) {
                    Some("max" | "both") => true,
                    Some("avg") => false,
                    // fio 3.33's boolean: bare, 1/0, on/off ...
                    _ => v.flag()?,
                };
                j.reporting.logs.both_values = both;
                Ok(())
            },
        )
    },
    O {
        details: "fio-json prints percentiles for exactly the latencies and the percentiles fio \
                  prints (checked key by key); native reports keep fio's default set and add the \
                  list",
        show: Some(|j| {
            j.reporting.percentile_list.as_ref().map(|ps| {
                let l: Vec<String> = ps.iter().map(|p| p.to_string()).collect();
                l.join(":")
            })
        }),
        ..O::new(
            "percentile_list",
            C::Reporting,
            Kind::Text,
            "Percentiles to report: 99.5:99.9:99.99",
            "50:99.5",
            |j, v| {
                let s = v.need()?;
                let mut ps = Vec::new();
                for part in s.split(':').filter(|p| !p.trim().is_empty()) {
                    let p: f64 = part.trim().parse().map_err(|_| v.bad(s, "not a number"))?;
                    if !(0.0..=100.0).contains(&p) {
                        return Err(v.bad(s, "percentiles go from 0 to 100"));
                    }
                    ps.push(p);
                }
                if ps.is_empty() {
                    return Err(v.bad(s, "give one or more percentiles, e.g. 99:99.9"));
                }
                j.reporting.percentile_list = Some(ps);
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| show_bit(j.reporting.percentiles_for[0])),
        ..O::new(
            "clat_percentiles",
            C::Reporting,
            Kind::Flag,
            "Print completion-latency percentiles (fio-json)",
            "0",
            |j, v| {
                j.reporting.percentiles_for[0] = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| show_bit(j.reporting.percentiles_for[1])),
        ..O::new(
            "lat_percentiles",
            C::Reporting,
            Kind::Flag,
            "Print total-latency percentiles (fio-json)",
            "1",
            |j, v| {
                j.reporting.percentiles_for[1] = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| show_bit(j.reporting.percentiles_for[2])),
        ..O::new(
            "slat_percentiles",
            C::Reporting,
            Kind::Flag,
            "Print submission-latency percentiles (fio-json)",
            "1",
            |j, v| {
                j.reporting.percentiles_for[2] = v.flag()?;
                Ok(())
            },
        )
    },
];
