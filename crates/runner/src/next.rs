//! The one I/O a job issues next, as the picker hands it to the loop: from the job's
//! pattern, its verify backlog or a replayed trace alike.

use engine::Op;

/// One I/O to issue.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Next {
    pub op: Op,
    /// 0 reads, 1 writes: the index of the job's per-direction figures.
    pub dir: usize,
    pub len: u32,
    pub file: u32,
    pub offset: u64,
    /// A read back of the verify backlog: not part of the job's byte or I/O budget.
    pub back: bool,
    /// When the rate's schedule had this I/O due (ns into the job), or [`NOT_DUE`](crate::pace::NOT_DUE) where no
    /// cap paces its direction.
    pub due: u64,
}
