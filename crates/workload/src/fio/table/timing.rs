//! When the job runs and how fast: runtime, ramp, start delay, rate caps, think time and flows.

use super::{
    names, num, show_flag, show_size, show_time, Category as C, FioOption as O, Kind, Val,
};
use crate::fio::OptError;
use crate::spec::{JobSpec, Think};
use crate::units::parse_duration;

/// The measured time; given on volbench's own command line it also makes the run time-based.
pub(super) const RUNTIME: O = O {
    aliases: &["timeout"],
    show: Some(|j| j.runtime.map(show_time)),
    common: true,
    ..O::new(
        names::RUNTIME,
        C::Timing,
        Kind::Time,
        "Measured time, e.g. 30s, 2m",
        "5s",
        |j, v| {
            let d = v.time()?;
            j.runtime = (!d.is_zero()).then_some(d);
            Ok(())
        },
    )
};

/// Whether the job runs for its runtime; the single-job command line infers it when not given.
pub(super) const TIME_BASED: O = O {
    show: Some(|j| show_flag(j.time_based)),
    common: true,
    ..O::new(
        names::TIME_BASED,
        C::Timing,
        Kind::Flag,
        "Run for runtime even if size is done, looping over the region (volbench run: on, \
         off when only --size is given)",
        "",
        |j, v| {
            j.time_based = v.flag()?;
            Ok(())
        },
    )
};

pub(super) const OPTIONS: &[O] = &[
    RUNTIME,
    TIME_BASED,
    O {
        show: Some(|j| Some(show_time(j.timing.ramp_time))),
        common: true,
        ..O::new(
            "ramp_time",
            C::Timing,
            Kind::Time,
            "Warm-up time before measuring starts",
            "2s",
            |j, v| {
                j.timing.ramp_time = v.time()?;
                Ok(())
            },
        )
    },
    O {
        details: "fio 3.36's option: the ramp ends once the job has done this much I/O \
                  (reads and writes), and its runtime counts from there; per job (fio counts a \
                  group's together with group_reporting)",
        show: Some(|j| (j.timing.ramp_size > 0).then(|| show_size(j, j.timing.ramp_size))),
        ..O::new(
            "ramp_size",
            C::Timing,
            Kind::Size,
            "Warm-up as an amount of I/O: measuring starts after it",
            "64m",
            |j, v| {
                j.timing.ramp_size = v.size()?;
                Ok(())
            },
        )
    },
    O {
        details: "one time, or `low-high` (also `low:high`, `low,high`): each clone of the job \
                  waits a time drawn uniformly from the range, as fio draws one per thread \
                  (repeatable from `randseed`)",
        show: Some(|j| {
            let lo = show_time(j.timing.startdelay);
            Some(match j.timing.startdelay_high {
                Some(hi) => format!("{lo}-{}", show_time(hi)),
                None => lo,
            })
        }),
        ..O::new(
            "startdelay",
            C::Timing,
            Kind::Time,
            "Wait this long before starting the job",
            "2s",
            |j, v| {
                let s = v.need()?;
                let sides = super::fio_sides(s);
                let time = |p: &str| parse_duration(p.trim()).map_err(|_| v.bad(s, "not a time"));
                let lo = time(sides[0])?;
                let hi = sides.get(1).map(|p| time(p)).transpose()?;
                if hi.is_some_and(|h| h < lo) {
                    return Err(v.bad(s, "give low-high with low <= high, e.g. 2-5"));
                }
                j.timing.startdelay = lo;
                j.timing.startdelay_high = hi.filter(|&h| h > lo);
                Ok(())
            },
        )
    },
    O {
        details: "`r,w` forms; each direction keeps fio's schedule (an I/O not issued on time \
                  is owed, and issued as soon as the device allows); the report adds each \
                  direction's latency from when its I/Os were due (`lat_due_ns`) and warns when \
                  the device fell behind",
        show: Some(|j| {
            (j.rates.rate != [0, 0]).then(|| format!("{},{}", j.rates.rate[0], j.rates.rate[1]))
        }),
        ..O::new(
            "rate",
            C::Timing,
            Kind::Size,
            "Bandwidth cap per direction, bytes/s: 10m, or read,write",
            "1m,",
            |j, v| {
                j.rates.rate = pair(v, |s| v.size_of(s))?;
                Ok(())
            },
        )
    },
    O {
        details: "as `rate`, in I/Os per second",
        show: Some(|j| {
            (j.rates.rate_iops != [0, 0])
                .then(|| format!("{},{}", j.rates.rate_iops[0], j.rates.rate_iops[1]))
        }),
        ..O::new(
            names::RATE_IOPS,
            C::Timing,
            Kind::Text,
            "IOPS cap per direction: 500, or read,write",
            "100",
            |j, v| {
                j.rates.rate_iops = pair(v, |s| num(v.opt.name, s))?;
                Ok(())
            },
        )
    },
    O {
        details: "`r,w` forms; from 2 s after the job starts (fio's settling), once per \
                  `rate_cycle`, a direction that moved less than this over the cycle ends the \
                  job with fio's error (EIO, `rate_min=... not met, got ...`); checked against \
                  fio on a throttled device",
        aliases: &["ratemin"],
        show: Some(|j| {
            (j.rates.rate_min != [0, 0])
                .then(|| format!("{},{}", j.rates.rate_min[0], j.rates.rate_min[1]))
        }),
        ..O::new(
            names::RATE_MIN,
            C::Timing,
            Kind::Size,
            "End the job when its bandwidth falls under this, bytes/s: 1m, or read,write",
            "1m,",
            |j, v| {
                j.rates.rate_min = pair(v, |s| v.size_of(s))?;
                Ok(())
            },
        )
    },
    O {
        details: "as `rate_min`, in I/Os per second (fio judges bytes when both are given)",
        show: Some(|j| {
            (j.rates.rate_iops_min != [0, 0])
                .then(|| format!("{},{}", j.rates.rate_iops_min[0], j.rates.rate_iops_min[1]))
        }),
        ..O::new(
            names::RATE_IOPS_MIN,
            C::Timing,
            Kind::Text,
            "End the job when its IOPS fall under this: 100, or read,write",
            "100",
            |j, v| {
                j.rates.rate_iops_min = pair(v, |s| num(v.opt.name, s))?;
                Ok(())
            },
        )
    },
    O {
        details: "a number alone is milliseconds, as in fio",
        aliases: &["ratecycle"],
        show: Some(|j| (j.rates.rate_cycle_ms != 1000).then(|| j.rates.rate_cycle_ms.to_string())),
        ..O::new(
            "rate_cycle",
            C::Timing,
            Kind::Int {
                min: 1,
                max: 3_600_000,
            },
            "The span, in ms, over which rate_min and rate_iops_min are judged (1000)",
            "500",
            |j, v| {
                j.rates.rate_cycle_ms = v.int()?;
                Ok(())
            },
        )
    },
    O {
        details: "`poisson`: rate-limited I/Os arrive with exponential gaps of the rate's mean \
                  (a Poisson process), `linear` (default) evenly; the gaps' p90/median is checked \
                  under strace for both tools (about 3.3 for Poisson, 1 for linear)",
        show: Some(|j| {
            Some(
                if j.rates.rate_poisson {
                    "poisson"
                } else {
                    "linear"
                }
                .into(),
            )
        }),
        ..O::new(
            names::RATE_PROCESS,
            C::Timing,
            Kind::Choice(&["linear", "poisson"]),
            "How rate-capped I/Os are spaced: linear or poisson",
            "poisson",
            |j, v| {
                j.rates.rate_poisson = v.choice()? == 1;
                Ok(())
            },
        )
    },
    O {
        details: "after every `thinktime_blocks` I/Os (completed, or issued with \
                  `thinktime_blocks_type=issue`) the job waits for those in flight, spins \
                  `thinktime_spin` µs and sleeps the rest of `thinktime` (a unit may be given), \
                  checked after each issue as fio does; like fio it stops the sleep short and \
                  spins the last 100 µs, so a 1 ms think lasts 1 ms. IOPS against fio's on the \
                  null engine, psync and libaio. Counted at completion with several I/Os in \
                  flight on an asynchronous engine it is refused: how many I/Os fall between \
                  thinks then depends on when each tool reaps (fio only reaps with a full queue), \
                  and the counts differ; `thinktime_blocks_type=issue`, depth 1 or \
                  `thinktime_blocks=1` match fio",
        show: Some(|j| {
            j.timing
                .think
                .filter(|t| t.us > 0)
                .map(|t| t.us.to_string())
        }),
        ..O::new(
            "thinktime",
            C::Timing,
            Kind::Time,
            "Pause between I/Os, in µs unless a unit is given",
            "1000",
            |j, v| {
                think(j).us = micros(v)?;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| {
            j.timing
                .think
                .filter(|t| t.us > 0 && t.spin_us > 0)
                .map(|t| t.spin_us.to_string())
        }),
        ..O::new(
            "thinktime_spin",
            C::Timing,
            Kind::Time,
            "Of the pause, spin this long (µs) on the CPU",
            "100",
            |j, v| {
                think(j).spin_us = micros(v)?;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| {
            j.timing
                .think
                .filter(|t| t.us > 0 && t.blocks_set)
                .map(|t| t.blocks.to_string())
        }),
        ..O::new(
            names::THINKTIME_BLOCKS,
            C::Timing,
            Kind::Int {
                min: 0,
                max: u64::MAX,
            },
            "Pause after every N I/Os",
            "4",
            |j, v| {
                let t = j.timing.think.get_or_insert_with(Default::default);
                t.blocks = v.int::<u64>()?.max(1);
                t.blocks_set = true;
                Ok(())
            },
        )
    },
    O {
        details: "as fio: the job starts when the I/O of every clone of the named job (an \
                  earlier section) has ended, while the other jobs of its group run on; its \
                  measured time starts then. A test times it against fio's (the waiting job \
                  starts after the 2 s job, beside a 4 s one)",
        show: Some(|j| j.timing.wait_for.clone()),
        ..O::new(
            "wait_for",
            C::Timing,
            Kind::Text,
            "Start when the named earlier job has ended",
            "prep",
            |j, v| {
                j.timing.wait_for = Some(v.need()?.to_string());
                Ok(())
            },
        )
    },
    O {
        details: "as fio: the job thinks after this long doing I/O since its last think (a \
                  number alone is seconds), or after `thinktime_blocks` I/Os when those are \
                  given too, whichever comes first; `thinktime_iotime=9s thinktime=1s` is a \
                  10 s cycle, 9 s of I/O and 1 s idle (a test counts the idle gaps against \
                  fio's)",
        show: Some(|j| {
            j.timing
                .think
                .filter(|t| t.us > 0 && t.iotime_us > 0)
                .map(|t| format!("{}us", t.iotime_us))
        }),
        ..O::new(
            "thinktime_iotime",
            C::Timing,
            Kind::Time,
            "Think after this long doing I/O (seconds unless a unit is given)",
            "9s",
            |j, v| {
                let s = v.need()?;
                think(j).iotime_us = match s.trim().parse::<u64>() {
                    Ok(secs) => secs.saturating_mul(1_000_000),
                    Err(_) => v.time()?.as_micros() as u64,
                };
                Ok(())
            },
        )
    },
    O {
        details: "as fio: with a rate cap, the time spent thinking is not made up afterwards \
                  (the rate's schedule moves on by the think, less one block so the next I/O \
                  goes at once); without it the job catches up on what it did not issue while \
                  thinking, as fio's does by default",
        show: Some(|j| j.rates.rate_ignore_thinktime.then(|| "1".into())),
        ..O::new(
            "rate_ignore_thinktime",
            C::Timing,
            Kind::Flag,
            "Do not catch up on the rate after a think",
            "1",
            |j, v| {
                j.rates.rate_ignore_thinktime = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| {
            j.timing
                .think
                .filter(|t| t.us > 0 && t.on_issue)
                .map(|_| "issue".into())
        }),
        ..O::new(
            names::THINKTIME_BLOCKS_TYPE,
            C::Timing,
            Kind::Choice(&["complete", "issue"]),
            "Count thinktime_blocks as I/Os complete or as they are issued",
            "issue",
            |j, v| {
                think(j).on_issue = v.choice()? == 1;
                Ok(())
            },
        )
    },
    O {
        details: "jobs of one `flow_id` issue I/Os in proportion to their weights (0 to 1000): a \
                  job ahead of its share holds back until the others catch up, and one that ends \
                  gives the rest its share. A job takes its I/Os from the group 32 at a time (one \
                  shared-counter update per 32, not per I/O), so the ratio is exact to 32 I/Os: \
                  the test holds volbench to the weights (3:1 on the null engine within 3 %). fio \
                  gives 3:1 too on an idle machine, but its balance is erratic under load (844 \
                  against 25,799 I/Os for weights 3:1 in one CI run)",
        show: Some(|j| Some(j.rates.flow.to_string())),
        ..O::new(
            "flow",
            C::Timing,
            Kind::Int { min: 0, max: 1000 },
            "This job's weight among the jobs of its flow_id",
            "3",
            |j, v| {
                j.rates.flow = v.int()?;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| Some(j.rates.flow_id.to_string())),
        ..O::new(
            "flow_id",
            C::Timing,
            Kind::Int {
                min: 0,
                max: u32::MAX as u64,
            },
            "The group of jobs whose I/Os are balanced by their flow weights",
            "1",
            |j, v| {
                j.rates.flow_id = v.int()?;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| Some(j.rates.flow_sleep.to_string())),
        ..O::new(
            "flow_sleep",
            C::Timing,
            Kind::Int {
                min: 0,
                max: u64::MAX,
            },
            "µs a job ahead of its share sleeps before trying again",
            "100",
            |j, v| {
                j.rates.flow_sleep = v.int()?;
                Ok(())
            },
        )
    },
];

/// The job's think settings, made on first use with fio's one block between thinks.
fn think(j: &mut JobSpec) -> &mut Think {
    j.timing.think.get_or_insert(Think {
        blocks: 1,
        ..Default::default()
    })
}

/// fio's think times: a number alone is microseconds, a unit may be given.
pub(super) fn micros(v: &Val) -> Result<u64, OptError> {
    let s = v.need()?;
    match s.trim().parse::<u64>() {
        Ok(n) => Ok(n),
        Err(_) => Ok(v.time()?.as_micros() as u64),
    }
}

/// fio's `rate=r,w,t` form: one value for both directions, or one per direction (split as
/// fio splits them: `rate=1m:2m` and `rate=1m-2m` are `rate=1m,2m`). A trim value is checked
/// and has nothing to cap: volbench's rates cap reads and writes.
pub(super) fn pair(
    v: &Val,
    parse: impl Fn(&str) -> Result<u64, OptError>,
) -> Result<[u64; 2], OptError> {
    let s = v.need()?;
    let mut parts = super::fio_sides(s).into_iter();
    let r = parts.next().unwrap_or("");
    let w = parts.next();
    let pr = if r.is_empty() { 0 } else { parse(r)? };
    let pw = match w {
        None => pr,
        Some("") => 0,
        Some(w) => parse(w)?,
    };
    if let Some(t) = parts.next().filter(|t| !t.is_empty()) {
        parse(t)?;
    }
    if parts.next().is_some() {
        return Err(v.bad(s, "give at most read,write,trim"));
    }
    Ok([pr, pw])
}
