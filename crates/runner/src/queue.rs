//! A job's queue: its slots, what each holds ([`Meta`]), the batch being pushed and the
//! completions reaped; fio's iodepth_low, iodepth_batch_submit and serialize_overlap.

use crate::pick::{Next, NOT_DUE};
use engine::{Completion, Op};
use workload::JobSpec;

/// An I/O in a queue slot: what it is, and when it was prepared and submitted.
#[derive(Clone, Copy)]
pub(crate) struct Meta {
    pub(crate) op: Op,
    pub(crate) len: u32,
    pub(crate) file: u32,
    /// Pushed and not yet reaped.
    pub(crate) busy: bool,
    /// A read whose data is checked: a read-back of the backlog, or any read of a job that
    /// only reads (fio checks a mixed job's own reads only when it reads back what it wrote).
    pub(crate) verify: bool,
    pub(crate) offset: u64,
    pub(crate) start: u64,
    pub(crate) sub: u64,
    /// When the rate's schedule had it due, or NOT_DUE.
    pub(crate) due: u64,
    /// Since when volbench could have issued it: the queue had room (`Queue::room_at`) and
    /// the submission before it had returned (`Queue::sub_end`).
    pub(crate) room: u64,
}

pub(crate) const EMPTY: Meta = Meta {
    op: Op::Read,
    len: 0,
    file: 0,
    busy: false,
    verify: false,
    offset: 0,
    start: 0,
    sub: 0,
    due: NOT_DUE,
    room: 0,
};

impl Meta {
    /// The I/O `n` pushed into its slot, prepared at `prep_at` (its submission time too until
    /// the submission returns), a checked read when `verify`, issuable since `room`.
    #[inline]
    pub(crate) fn pushed(n: &Next, prep_at: u64, verify: bool, room: u64) -> Meta {
        Meta {
            op: n.op,
            len: n.len,
            file: n.file,
            busy: true,
            verify,
            offset: n.offset,
            start: prep_at,
            sub: prep_at,
            due: n.due,
            room,
        }
    }
}

/// The queue: free slots, what each slot holds, the batch being pushed, the completions.
pub(crate) struct Queue {
    pub(crate) depth: usize,
    pub(crate) free: Vec<u32>,
    pub(crate) meta: Vec<Meta>,
    pub(crate) batch: Vec<u32>,
    /// fio's iodepth_batch_submit: hand the kernel each group of this many at once (1, the
    /// default, submits every I/O as soon as it is ready).
    pub(crate) batch_submit: usize,
    pub(crate) comps: Vec<Completion>,
    pub(crate) in_flight: usize,
    pub(crate) serialize: bool,
    /// fio's iodepth_low: a full queue drains to this many before it is filled again.
    pub(crate) low: usize,
    /// When the queue last had room again after being full (the job's clock): an I/O due
    /// before then waited for the device, one issued later than both was late by
    /// volbench's own doing (a busy host: issue 53).
    pub(crate) room_at: u64,
    /// When the last submission returned. A submission the kernel holds (a cgroup v1
    /// throttle blocks it, as does a block layer out of requests) delays the I/Os after it:
    /// the device's doing, not the host's (a throttled curve's 110 % point read 91 ms of
    /// "lateness" that was io_submit waiting in the throttle).
    pub(crate) sub_end: u64,
}

impl Queue {
    pub(crate) fn new(spec: &JobSpec, depth: usize) -> Queue {
        Queue {
            depth,
            free: (0..depth as u32).rev().collect(),
            meta: vec![EMPTY; depth],
            batch: Vec::with_capacity(depth),
            batch_submit: (spec.engine.iodepth_batch_submit.max(1) as usize).min(depth),
            comps: Vec::with_capacity(depth),
            in_flight: 0,
            serialize: spec.pattern.serialize_overlap && depth > 1,
            low: match spec.engine.iodepth_low as usize {
                0 => depth,
                n => n.min(depth),
            },
            room_at: 0,
            sub_end: 0,
        }
    }
}

/// fio's `serialize_overlap`: does `n` touch a byte of an I/O still in flight on its file?
/// One pass over the queue's slots, only for jobs that ask.
pub(crate) fn overlaps(meta: &[Meta], n: &Next) -> bool {
    let end = n.offset + n.len as u64;
    meta.iter()
        .any(|m| m.busy && m.file == n.file && m.offset < end && n.offset < m.offset + m.len as u64)
}
