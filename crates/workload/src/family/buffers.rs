//! What the write buffers hold: random, refilled, scrambled, deduplicable.

use crate::values::*;
use serde::{Deserialize, Serialize};

/// What the write buffers hold: random, refilled, scrambled, deduplicable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Buffers {
    pub buffer: BufferMode,
    /// fio's `refill_buffers` and `scramble_buffers`: with both off, each buffer is filled
    /// once and written as it is, as fio does; otherwise every write's data is fresh.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refill_buffers: bool,
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub scramble_buffers: bool,
    #[serde(default, skip_serializing_if = "dedupe_off")]
    pub dedupe: Dedupe,
}

impl Default for Buffers {
    fn default() -> Self {
        Buffers {
            buffer: BufferMode::Random,
            refill_buffers: false,
            scramble_buffers: true,
            dedupe: Dedupe::default(),
        }
    }
}
