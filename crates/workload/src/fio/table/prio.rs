//! fio's per-I/O priority options of io_uring and libaio (`cmdprio_percentage`,
//! `cmdprio_class`, `cmdprio`, `cmdprio_bssplit`): each takes a value for reads and writes
//! (`30,10`; one value is both), as fio's.

use super::{num, Category as C, FioOption as O, Kind, Val};
use crate::fio::OptError;
use crate::spec::{CmdPrio, JobSpec, PrioSplit};

const CHECKED: &str = "the same share of requests carries the class and level as in fio: \
                       libaio's iocbs under strace (IOCB_FLAG_IOPRIO, aio_reqprio), io_uring's \
                       sqe ioprio; psync ignores it, as fio's pvsync2 has no such option. \
                       fio's per-priority latency in its JSON (`prios`) is not written";

fn prio(j: &mut JobSpec) -> &mut CmdPrio {
    j.process.cmdprio.get_or_insert_with(CmdPrio::new)
}

/// `a` or `a,b` (reads, writes), each at most `max`.
fn pair(v: &Val, max: u8) -> Result<[u8; 2], OptError> {
    let s = v.need()?;
    let (r, w) = s.split_once(',').unwrap_or((s, s));
    let one = |p: &str| -> Result<u8, OptError> {
        let n: u8 = num(v.opt.name, p.trim())?;
        if n > max {
            return Err(v.bad(s, "out of range"));
        }
        Ok(n)
    };
    Ok([one(r)?, one(if w.is_empty() { r } else { w })?])
}

fn show_pair(p: [u8; 2]) -> String {
    if p[0] == p[1] {
        p[0].to_string()
    } else {
        format!("{},{}", p[0], p[1])
    }
}

/// One direction's `bs/percent[/class/level]:...`.
fn splits(v: &Val, s: &str) -> Result<Vec<PrioSplit>, OptError> {
    let mut out = Vec::new();
    for entry in s.split(':').filter(|e| !e.is_empty()) {
        let f: Vec<&str> = entry.split('/').collect();
        if f.len() != 2 && f.len() != 4 {
            return Err(v.bad(entry, "give bs/percent or bs/percent/class/level"));
        }
        let n = |p: &str| num::<u8>(v.opt.name, p);
        out.push(PrioSplit {
            bs: v.size_of(f[0])?,
            percent: n(f[1])?.min(100),
            own: match f.len() {
                4 => Some((n(f[2])?.min(3), n(f[3])?.min(7))),
                _ => None,
            },
        });
    }
    Ok(out)
}

fn show_splits(p: &CmdPrio) -> Option<String> {
    let side = |d: usize| {
        let e = p.bssplit[d].iter().map(|s| match s.own {
            Some((c, l)) => format!("{}/{}/{c}/{l}", s.bs, s.percent),
            None => format!("{}/{}", s.bs, s.percent),
        });
        e.collect::<Vec<_>>().join(":")
    };
    (!p.bssplit[0].is_empty() || !p.bssplit[1].is_empty())
        .then(|| format!("{},{}", side(0), side(1)))
}

pub(super) const OPTIONS: &[O] = &[
    O {
        details: CHECKED,
        show: Some(|j| j.process.cmdprio.as_ref().map(|p| show_pair(p.percent))),
        ..O::new(
            "cmdprio_percentage",
            C::Engine,
            Kind::Text,
            "io_uring, libaio: this share of I/Os (reads,writes) at cmdprio_class/cmdprio",
            "30",
            |j, v| {
                prio(j).percent = pair(v, 100)?;
                Ok(())
            },
        )
    },
    O {
        details: "1 realtime (the default: fio's highest), 2 best effort, 3 idle",
        show: Some(|j| j.process.cmdprio.as_ref().map(|p| show_pair(p.class))),
        ..O::new(
            "cmdprio_class",
            C::Engine,
            Kind::Text,
            "The class of the cmdprio I/Os: 1 realtime, 2 best effort, 3 idle",
            "2",
            |j, v| {
                prio(j).class = pair(v, 3)?;
                Ok(())
            },
        )
    },
    O {
        details: "0 (the default, highest) to 7",
        show: Some(|j| j.process.cmdprio.as_ref().map(|p| show_pair(p.level))),
        ..O::new(
            "cmdprio",
            C::Engine,
            Kind::Text,
            "The level of the cmdprio I/Os: 0 (highest) to 7",
            "5",
            |j, v| {
                prio(j).level = pair(v, 7)?;
                Ok(())
            },
        )
    },
    O {
        details: "per block size (with bssplit): `4k/30:64k/10` at cmdprio_class/cmdprio, or \
                  `4k/30/1/0:64k/10/2/5` with each entry's own class and level; reads,writes \
                  apart with a comma",
        show: Some(|j| j.process.cmdprio.as_ref().and_then(show_splits)),
        ..O::new(
            "cmdprio_bssplit",
            C::Engine,
            Kind::Text,
            "Per block size, the share of I/Os at a priority: 4k/30:64k/10",
            "4k/30:64k/10",
            |j, v| {
                let s = v.need()?;
                let (r, w) = s.split_once(',').unwrap_or((s, s));
                let w = if w.is_empty() { r } else { w };
                prio(j).bssplit = [splits(v, r)?, splits(v, w)?];
                Ok(())
            },
        )
    },
];
