//! What written blocks hold, and how what was written is checked.

use super::{names, Category as C, FioOption as O, Kind, Val};
use crate::fio::OptError;
use crate::spec::{BufferMode, JobSpec, Verify};

pub(super) const OPTIONS: &[O] = &[
    O {
        details: "the pattern fills each buffer (flagged as compressible data in the report); \
                  with `buffer_compress_percentage`, it fills each chunk's compressible part \
                  instead of zeros, as fio's",
        show: Some(|j| match &j.buffers.buffer {
            BufferMode::Pattern(p) => Some(hex(p)),
            BufferMode::Compressible { filler, .. } if !filler.is_empty() => Some(hex(filler)),
            _ => None,
        }),
        common: true,
        ..O::new(
            names::BUFFER_PATTERN,
            C::Data,
            Kind::Text,
            "Fill write buffers with this pattern (hex 0x..., a number, or a quoted string)",
            "0xdeadbeef",
            |j, v| {
                let p = pattern(v)?;
                j.buffers.buffer = match &j.buffers.buffer {
                    BufferMode::Compressible { percent, chunk, .. } => BufferMode::Compressible {
                        percent: *percent,
                        chunk: *chunk,
                        filler: p,
                    },
                    _ => BufferMode::Pattern(p),
                };
                Ok(())
            },
        )
    },
    O {
        details: "flagged as compressible data in the report",
        show: Some(|j| (j.buffers.buffer == BufferMode::Zero).then(String::new)),
        common: true,
        ..O::new(
            "zero_buffers",
            C::Data,
            Kind::Flag,
            "Fill write buffers with zeros",
            "",
            |j, v| {
                if v.flag()? {
                    j.buffers.buffer = BufferMode::Zero;
                }
                Ok(())
            },
        )
    },
    O {
        details: "in every chunk (`buffer_compress_chunk`, 512 bytes by default), the first \
                  (100 - N) % random, fresh for every write, and the rest zeros (or \
                  `buffer_pattern`), as fio shapes it; 100 writes zeros (or the pattern); \
                  written files compress as fio's do, within a few points (a test writes the \
                  same job with both tools); flagged in the report",
        show: Some(|j| match j.buffers.buffer {
            BufferMode::Compressible { percent, .. } => Some(percent.to_string()),
            _ => None,
        }),
        ..O::new(
            "buffer_compress_percentage",
            C::Data,
            Kind::Int { min: 0, max: 100 },
            "Make written data compress by about this percentage",
            "60",
            |j, v| {
                let (_, chunk, filler) = compressible(j);
                j.buffers.buffer = BufferMode::Compressible {
                    percent: v.int()?,
                    chunk,
                    filler,
                };
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| match j.buffers.buffer {
            BufferMode::Compressible { chunk, .. } => Some(chunk.to_string()),
            _ => None,
        }),
        ..O::new(
            "buffer_compress_chunk",
            C::Data,
            Kind::Size,
            "The unit of compressibility (512 bytes by default)",
            "4096",
            |j, v| {
                let (percent, _, filler) = compressible(j);
                let chunk = v.size()?.clamp(1, 1 << 20) as u32;
                j.buffers.buffer = BufferMode::Compressible {
                    percent,
                    chunk,
                    filler,
                };
                Ok(())
            },
        )
    },
    O {
        details: "volbench's data is fresh for every write whether or not this is set; it \
                  matters with `scramble_buffers=0`, where leaving both off writes each buffer \
                  as it was filled once, as fio does",
        show: Some(|j| j.buffers.refill_buffers.then(String::new)),
        ..O::new(
            "refill_buffers",
            C::Data,
            Kind::Flag,
            "Fill write buffers with new random data for every write",
            "",
            |j, v| {
                j.buffers.refill_buffers = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "on (fio's default): every write's data is fresh (volbench changes every \
                  byte, where fio changes a few bytes of each 512; see differences); off with \
                  `refill_buffers` off: each buffer is written as it was filled once, so \
                  blocks repeat as fio's do",
        show: Some(|j| Some(if j.buffers.scramble_buffers { "1" } else { "0" }.into())),
        ..O::new(
            "scramble_buffers",
            C::Data,
            Kind::Flag,
            "Change write buffers for every write (on by default)",
            "0",
            |j, v| {
                j.buffers.scramble_buffers = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "that share of the written buffers repeats another, whole, as fio's: in \
                  `repeat` mode the next unique buffer, in `working_set` mode one of the first \
                  unique buffers (`dedupe_working_set_percentage` of the size); the written \
                  file holds as many duplicate 4 KiB blocks as fio's, within a few points (a \
                  test writes the same job with both tools)",
        show: Some(|j| {
            j.buffers
                .dedupe
                .on()
                .then(|| j.buffers.dedupe.percent.to_string())
        }),
        ..O::new(
            "dedupe_percentage",
            C::Data,
            Kind::Int { min: 0, max: 100 },
            "Make this percentage of the written buffers duplicates",
            "30",
            |j, v| {
                j.buffers.dedupe.percent = v.int()?;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| j.buffers.dedupe.working_set.then(|| "working_set".into())),
        ..O::new(
            "dedupe_mode",
            C::Data,
            Kind::Choice(&["repeat", "working_set"]),
            "What a duplicate repeats: the next unique buffer, or a page of a working set",
            "working_set",
            |j, v| {
                j.buffers.dedupe.working_set = match v.need()? {
                    "repeat" => false,
                    "working_set" => true,
                    s => return Err(v.bad(s, "choose repeat or working_set")),
                };
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| {
            (j.buffers.dedupe.working_set_percent != 5)
                .then(|| j.buffers.dedupe.working_set_percent.to_string())
        }),
        ..O::new(
            "dedupe_working_set_percentage",
            C::Data,
            Kind::Int { min: 0, max: 100 },
            "The working set's share of the size, for dedupe_mode=working_set (5 by default)",
            "10",
            |j, v| {
                j.buffers.dedupe.working_set_percent = v.int()?;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| j.buffers.dedupe.global.then(String::new)),
        ..O::new(
            "dedupe_global",
            C::Data,
            Kind::Flag,
            "Share the working set's pages among the run's jobs",
            "",
            |j, v| {
                j.buffers.dedupe.global = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "`crc32c` (also `crc32c-intel`), `md5`, `sha1`, `sha256`, `sha512`; `crc32`, \
                  `crc64`, `crc16`, `crc7`, `xxhash` and `meta` are checked with crc32c, \
                  `sha3-224`/`sha3-256` with sha256 and `sha3-384`/`sha3-512` with sha512 (every \
                  block still carries its offset, sequence and a checksum; a warning says so). A \
                  flipped byte is caught with each, by a test; see differences",
        show: Some(|j| {
            j.checking.verify.map(|v| {
                match v {
                    Verify::Crc32c => "crc32c",
                    Verify::Md5 => "md5",
                    Verify::Sha1 => "sha1",
                    Verify::Sha256 => "sha256",
                    Verify::Sha512 => "sha512",
                    Verify::Pattern => "pattern",
                }
                .into()
            })
        }),
        note: Some(verify_note),
        common: true,
        ..O::new(
            names::VERIFY,
            C::Data,
            Kind::Text,
            "Write a checksummed header into every block and check it on read: crc32c, md5, \
             sha1, sha256, sha512; or pattern (verify_pattern in every byte)",
            "md5",
            set_verify,
        )
    },
    O {
        details: "fio's forms: hex bytes (`0xAA`, `0xdeadbeef`), a decimal number (32 bits), a \
                  quoted string; every written block holds it, repeated from the block's start \
                  (under the header with a checksum method), and `verify=pattern` checks every \
                  byte of each block read against it, as fio's pattern check",
        show: Some(|j| j.checking.verify_pattern.as_deref().map(hex)),
        ..O::new(
            "verify_pattern",
            C::Data,
            Kind::Text,
            "The pattern every written block holds and verify=pattern checks: 0xAA, 'text'",
            "0xdeadbeef",
            |j, v| {
                j.checking.verify_pattern = Some(pattern(v)?);
                Ok(())
            },
        )
    },
    O {
        details: "the job writes nothing: it reads its region with its own pattern (random \
                  jobs at random, sequential ones in order) and checks every block, what an \
                  earlier run of the same job wrote, as fio's verify_only",
        show: Some(|j| j.checking.verify_only.then(|| "1".into())),
        ..O::new(
            "verify_only",
            C::Data,
            Kind::Flag,
            "Write nothing; read back and check what an earlier run of the job wrote",
            "1",
            |j, v| {
                j.checking.verify_only = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "as fio: in a verifying write job, this percent of the written blocks are \
                  discarded again (BLKDISCARD, a device only), after every `trim_backlog` \
                  writes; the closing verify reads them as zeros (`trim_verify_zero`) or \
                  skips them. A block is drawn once its write has completed. On zram both \
                  tools trim about this share and verify clean; the device's stored bytes \
                  are the writes less the trims",
        show: Some(|j| {
            (j.checking.trim_back.percent > 0).then(|| j.checking.trim_back.percent.to_string())
        }),
        ..O::new(
            "trim_percentage",
            C::Data,
            Kind::Int { min: 0, max: 100 },
            "Percent of written blocks to trim again (with verify and trim_backlog)",
            "50",
            |j, v| {
                j.checking.trim_back.percent = v.int()?;
                Ok(())
            },
        )
    },
    O {
        details: "trims fall due after every this many writes (without it fio trims nothing)",
        show: Some(|j| {
            (j.checking.trim_back.backlog > 0).then(|| j.checking.trim_back.backlog.to_string())
        }),
        ..O::new(
            "trim_backlog",
            C::Data,
            Kind::Int {
                min: 0,
                max: u32::MAX as u64,
            },
            "Trim after every this many writes",
            "16",
            |j, v| {
                j.checking.trim_back.backlog = v.int()?;
                Ok(())
            },
        )
    },
    O {
        details: "trims per batch (0: `trim_backlog`)",
        show: Some(|j| {
            (j.checking.trim_back.batch > 0).then(|| j.checking.trim_back.batch.to_string())
        }),
        ..O::new(
            "trim_backlog_batch",
            C::Data,
            Kind::Int {
                min: 0,
                max: u32::MAX as u64,
            },
            "Trims issued per batch",
            "4",
            |j, v| {
                j.checking.trim_back.batch = v.int()?;
                Ok(())
            },
        )
    },
    O {
        details: "the closing verify reads trimmed blocks and expects zeros (fio's default \
                  1); 0 leaves them out of the verify",
        show: Some(|j| (!j.checking.trim_back.verify_zero).then(|| "0".into())),
        ..O::new(
            "trim_verify_zero",
            C::Data,
            Kind::Flag,
            "Trimmed blocks must read as zeros",
            "0",
            |j, v| {
                j.checking.trim_back.verify_zero = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "a verifying write job writes `local-JOB-N-verify.state` in the working \
                  directory (fio's name; volbench's JSON): how many writes it issued and \
                  which of the last `iodepth` completed. fio writes it by default; volbench \
                  only when the job asks (`1`), so runs leave no files behind unasked",
        show: Some(|j| j.checking.verify_state_save.then(|| "1".into())),
        ..O::new(
            "verify_state_save",
            C::Data,
            Kind::Flag,
            "Write down which writes completed, for a later verify_state_load",
            "1",
            |j, v| {
                j.checking.verify_state_save = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "fio 3.42's option. `fsynced`: the state `verify_state_save` writes covers \
                  only the writes issued before the last fsync (`fsync=N`) that completed, so \
                  a verify after a crash or power cut checks only what an fsync made durable \
                  (volbench issues an fsync once the writes before it have completed, so \
                  these are exactly the writes it covered); none if no fsync completed. \
                  `completed` (default): every write that completed",
        show: Some(|j| j.checking.verify_fsynced.then(|| "fsynced".into())),
        ..O::new(
            "verify_policy",
            C::Data,
            Kind::Choice(&["completed", "fsynced"]),
            "Which writes a saved verify state covers: completed, or fsynced",
            "fsynced",
            |j, v| {
                j.checking.verify_fsynced = v.choice()? == 1;
                Ok(())
            },
        )
    },
    O {
        details: "with `verify_only`, checks only the writes the state file of the same job \
                  (written with `verify_state_save=1`) says completed: every write more than \
                  `iodepth` before the last one issued, and those of the last `iodepth` that \
                  completed; the job ends at the first that had not, as fio's \
                  verify_state_should_stop. A job killed mid-write then verifies clean, \
                  where a whole verify_only would find the blocks it never wrote",
        show: Some(|j| j.checking.verify_state_load.then(|| "1".into())),
        ..O::new(
            "verify_state_load",
            C::Data,
            Kind::Flag,
            "Verify only what the saved state says completed",
            "1",
            |j, v| {
                j.checking.verify_state_load = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| {
            j.checking
                .verify
                .and((!j.checking.do_verify).then(|| "0".into()))
        }),
        ..O::new(
            "do_verify",
            C::Data,
            Kind::Flag,
            "Read back and check what a verified write job wrote",
            "0",
            |j, v| {
                j.checking.do_verify = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "a verified write job reads back what it wrote while writing: once \
                  `verify_backlog` written blocks are waiting it reads back the oldest \
                  `verify_backlog_batch` (default: all of them), then writes on; the rest is \
                  read back when the writes are done (not in a time-based job whose time ran \
                  out). The reads are counted as reads, as fio counts them. Read and write counts \
                  and the order of the calls (strace) match fio's; `do_verify=0` turns it off, as \
                  in fio. In a job that also reads, the read-backs come on top of its own reads, \
                  which are not checked, as in fio",
        show: Some(|j| Some(j.checking.verify_backlog.to_string())),
        ..O::new(
            names::VERIFY_BACKLOG,
            C::Data,
            Kind::Int {
                min: 0,
                max: u64::MAX,
            },
            "Read back written blocks once this many are waiting",
            "16",
            |j, v| {
                j.checking.verify_backlog = v.int()?;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| Some(j.checking.verify_backlog_batch.to_string())),
        ..O::new(
            "verify_backlog_batch",
            C::Data,
            Kind::Int {
                min: 0,
                max: u64::MAX,
            },
            "How many waiting blocks each read-back checks",
            "8",
            |j, v| {
                j.checking.verify_backlog_batch = v.int()?;
                Ok(())
            },
        )
    },
];

/// The job's compressibility so far (none yet: 0 % in fio's 512-byte chunks), with the
/// pattern that fills the compressible part (a `buffer_pattern` given before).
fn compressible(j: &JobSpec) -> (u8, u32, Vec<u8>) {
    match &j.buffers.buffer {
        BufferMode::Compressible {
            percent,
            chunk,
            filler,
        } => (*percent, *chunk, filler.clone()),
        BufferMode::Pattern(p) => (0, 512, p.clone()),
        _ => (0, 512, Vec::new()),
    }
}

fn hex(p: &[u8]) -> String {
    format!(
        "0x{}",
        p.iter().map(|b| format!("{b:02x}")).collect::<String>()
    )
}

fn pattern(v: &Val) -> Result<Vec<u8>, OptError> {
    let s = v.need()?;
    let s = s.trim().trim_matches(|c| c == '\'' || c == '"');
    if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        if hex.is_empty() || hex.len() % 2 != 0 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return Err(v.bad(s, "not whole hex bytes: use e.g. 0xdeadbeef"));
        }
        return (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|_| v.bad(s, "not hex")))
            .collect();
    }
    if let Ok(n) = s.parse::<u32>() {
        // fio: a decimal number is a 32-bit pattern.
        return Ok(n.to_le_bytes().to_vec());
    }
    if s.is_empty() {
        return Err(v.bad(s, "empty pattern"));
    }
    Ok(s.as_bytes().to_vec())
}

fn set_verify(j: &mut JobSpec, v: &Val) -> Result<(), OptError> {
    let s = v.need()?;
    j.checking.verify = match s {
        "0" | "null" => None,
        "crc32c" | "crc32c-intel" => Some(Verify::Crc32c),
        "md5" => Some(Verify::Md5),
        "sha1" => Some(Verify::Sha1),
        "sha256" | "sha3-224" | "sha3-256" => Some(Verify::Sha256),
        "sha512" | "sha3-384" | "sha3-512" => Some(Verify::Sha512),
        "pattern" => Some(Verify::Pattern),
        // Checked with crc32c, which catches the same torn, stale and corrupt blocks; only the
        // checksum's CPU cost differs (a warning says so).
        "crc32" | "crc64" | "crc16" | "crc7" | "xxhash" | "meta" | "1" => Some(Verify::Crc32c),
        _ => {
            return Err(OptError::Unsupported {
                key: format!("{}={s}", v.opt.name),
                hint: ": use crc32c, md5, sha1, sha256, sha512 or pattern (crc32, crc64, crc16, \
                       crc7, xxhash and meta are checked with crc32c, sha3-* with sha256 or \
                       sha512)"
                    .into(),
            })
        }
    };
    Ok(())
}

fn verify_note(v: &str) -> Option<String> {
    if let Some(bits) = v.strip_prefix("sha3-") {
        let with = if matches!(bits, "224" | "256") {
            "sha256"
        } else {
            "sha512"
        };
        return Some(format!(
            "verify={v} is checked with {with}: a cryptographic checksum of the same strength \
             over every block, with its offset and sequence; only the checksum's CPU cost differs"
        ));
    }
    matches!(v, "crc32" | "crc64" | "crc16" | "crc7" | "xxhash" | "meta").then(|| {
        format!(
            "verify={v} is checked with crc32c: every block still carries its offset, sequence \
             and a checksum, so the same torn, misplaced or corrupt blocks are caught; only the \
             checksum's CPU cost differs"
        )
    })
}
