//! fio's trace replay: the trace to replay (`read_iolog`, volbench's own format, blktrace's
//! files or fio's iologs), how its time and offsets are taken (`replay_*`), and the iolog a
//! job writes of what it issued (`write_iolog`).

use super::{names, show_flag, Category as C, FioOption as O, Kind};
use crate::replay::Replay;
use std::path::PathBuf;

fn path(v: &super::Val) -> Result<PathBuf, crate::fio::OptError> {
    Ok(PathBuf::from(v.need()?))
}

pub(super) const OPTIONS: &[O] = &[
    O {
        details: "the format is detected (volbench's trace, blktrace's per-CPU files given \
                  by their base name or any of them, fio's iolog v2 or v3) and read as a \
                  stream in bounded memory; each I/O is issued at its time, with as many in \
                  flight as the trace had where it holds completions (else `iodepth`); \
                  flushes are fsyncs, trims are counted and left out; the report's replay \
                  section gives how late each I/O went (lag percentiles, longest) and the \
                  trace's latency beside the target's",
        show: Some(|j| {
            j.replay
                .read_iolog
                .as_ref()
                .map(|p| p.display().to_string())
        }),
        ..O::new(
            names::READ_IOLOG,
            C::Pattern,
            Kind::Text,
            "Replay this trace (volbench's, blktrace's or fio's iolog) instead of a pattern",
            "app.trace",
            |j, v| {
                j.replay.read_iolog = Some(path(v)?);
                Ok(())
            },
        )
    },
    O {
        details: "as fio: `read_iolog`'s blktrace traces (`A:B`) are merged into this file \
                  in time order, which is then replayed; each trace's times scaled by \
                  `merge_blktrace_scalars` and repeated `merge_blktrace_iters` times, a \
                  repeat starting where its trace's last I/O was. fio 3.33's merge writes an \
                  empty file (a read into the wrong buffer, fixed after it), so the check is \
                  the kernel's: the device sees every merged I/O",
        show: Some(|j| j.replay.merge.as_ref().map(|p| p.display().to_string())),
        ..O::new(
            "merge_blktrace_file",
            C::Pattern,
            Kind::Text,
            "Merge read_iolog's blktrace traces into this file and replay it",
            "merged.bin",
            |j, v| {
                j.replay.merge = Some(path(v)?);
                Ok(())
            },
        )
    },
    O {
        details: "percent per trace, `:`-separated, one per trace (fio's float list, taken \
                  whole): 50 replays that trace at twice its speed",
        show: Some(|j| join(&j.replay.merge_scalars)),
        ..O::new(
            names::MERGE_BLKTRACE_SCALARS,
            C::Pattern,
            Kind::Text,
            "Each merged trace's time scale in percent (A:B)",
            "50:100",
            |j, v| {
                j.replay.merge_scalars = list(v)?;
                Ok(())
            },
        )
    },
    O {
        details: "repeats per trace, `:`-separated, one per trace",
        show: Some(|j| join(&j.replay.merge_iters)),
        ..O::new(
            names::MERGE_BLKTRACE_ITERS,
            C::Pattern,
            Kind::Text,
            "How many times each merged trace runs (A:B)",
            "2:1",
            |j, v| {
                j.replay.merge_iters = list(v)?;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| show_flag(j.replay.no_stall)),
        ..O::new(
            names::REPLAY_NO_STALL,
            C::Pattern,
            Kind::Flag,
            "Replay as fast as the queue allows, in the trace's order, ignoring its times",
            "1",
            |j, v| {
                j.replay.no_stall = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| (j.replay.time_scale != 100).then(|| j.replay.time_scale.to_string())),
        ..O::new(
            names::REPLAY_TIME_SCALE,
            C::Pattern,
            Kind::Int {
                min: 1,
                max: 1_000_000,
            },
            "Replay at this % of the trace's rate (200: twice as fast)",
            "200",
            |j, v| {
                j.replay.time_scale = v.int()?;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| j.replay.redirect.as_ref().map(|p| p.display().to_string())),
        ..O::new(
            "replay_redirect",
            C::Pattern,
            Kind::Text,
            "Replay every I/O on this one file or device, whatever the trace names",
            "/dev/sdc",
            |j, v| {
                j.replay.redirect = Some(path(v)?);
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| (j.replay.align > 0).then(|| j.replay.align.to_string())),
        ..O::new(
            "replay_align",
            C::Pattern,
            Kind::Size,
            "Round the trace's offsets down to this power of 2",
            "4k",
            |j, v| {
                let a = v.size()?;
                if !a.is_power_of_two() {
                    return Err(v.bad(v.need()?, "give a power of 2 (4k, 64k)"));
                }
                j.replay.align = a;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| (j.replay.scale > 1).then(|| j.replay.scale.to_string())),
        ..O::new(
            "replay_scale",
            C::Pattern,
            Kind::Int {
                min: 1,
                max: u32::MAX as u64,
            },
            "Divide the trace's offsets by this",
            "4",
            |j, v| {
                j.replay.scale = v.int()?;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| (j.replay.skip != 0).then(|| Replay::show_skip(j.replay.skip))),
        ..O::new(
            names::REPLAY_SKIP,
            C::Pattern,
            Kind::Text,
            "Leave these I/O kinds out of the replay: a list of read, write, trim, sync",
            "write",
            |j, v| {
                let s = v.need()?;
                j.replay.skip = Replay::parse_skip(s)
                    .map_err(|w| v.bad(&w, "give a list of read, write, trim, sync"))?;
                Ok(())
            },
        )
    },
    O {
        details: "volbench's own: where the trace holds no completions, the job's iodepth \
                  stays; without this option, a job at depth 1 takes the trace's depth",
        show: Some(|j| show_flag(j.replay.trace_depth)),
        ..O::new(
            names::REPLAY_TRACE_DEPTH,
            C::Pattern,
            Kind::Flag,
            "Replay at the trace's own deepest queue, where it holds completions",
            "1",
            |j, v| {
                j.replay.trace_depth = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "volbench's own: without it, a trace that reaches past its target's end is \
                  refused before any I/O",
        show: Some(|j| show_flag(j.replay.wrap)),
        ..O::new(
            names::REPLAY_WRAP,
            C::Pattern,
            Kind::Flag,
            "Wrap the trace's offsets into a target smaller than its reach (with a warning)",
            "1",
            |j, v| {
                j.replay.wrap = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "volbench's own: a list of SRC=DST, SRC as the trace names its file or \
                  device (`253,0` in a blktrace), DST one of the job's files; a trace of one \
                  device replays on a job's only file without it",
        show: Some(|j| {
            let m = &j.replay.map;
            (!m.is_empty()).then(|| {
                m.iter()
                    .map(|(s, d)| format!("{s}={}", d.display()))
                    .collect::<Vec<_>>()
                    .join(",")
            })
        }),
        ..O::new(
            names::REPLAY_MAP,
            C::Pattern,
            Kind::Text,
            "Replay the trace's file or device SRC on the job's file DST (SRC=DST, a list)",
            "/dev/sda=/dev/vdb",
            |j, v| {
                for pair in v.need()?.split(',').filter(|p| !p.is_empty()) {
                    let (s, d) = pair
                        .split_once('=')
                        .filter(|(s, d)| !s.is_empty() && !d.is_empty())
                        .ok_or_else(|| v.bad(pair, "give SRC=DST"))?;
                    j.replay.map.push((s.to_string(), PathBuf::from(d)));
                }
                Ok(())
            },
        )
    },
    O {
        details: "fio's iolog v3: a line per I/O with its submission time in µs, so that \
                  the run can be replayed by volbench or fio, and its issue times compared \
                  with a trace's",
        show: Some(|j| {
            j.reporting
                .write_iolog
                .as_ref()
                .map(|p| p.display().to_string())
        }),
        ..O::new(
            names::WRITE_IOLOG,
            C::Reporting,
            Kind::Text,
            "Write an iolog (fio's v3) of every I/O issued, with its time",
            "issued.iolog",
            |j, v| {
                j.reporting.write_iolog = Some(path(v)?);
                Ok(())
            },
        )
    },
];

/// fio's float list (`50:100`), each value taken whole, as fio's merge casts it.
fn list(v: &super::Val) -> Result<Vec<u32>, crate::fio::OptError> {
    let s = v.need()?;
    s.split(':')
        .map(|x| {
            x.trim()
                .parse::<f64>()
                .ok()
                .filter(|f| *f >= 0.0 && *f < 1e9)
                .map(|f| f as u32)
                .ok_or_else(|| v.bad(s, "give numbers separated by ':', one per trace"))
        })
        .collect()
}

fn join(v: &[u32]) -> Option<String> {
    (!v.is_empty()).then(|| v.iter().map(u32::to_string).collect::<Vec<_>>().join(":"))
}
