//! Which files a job uses, how large, which region of them, how much I/O, and how they are laid
//! out before the job and left after it.

use super::{
    names, num, percent, show_bit, show_size, Category as C, FioOption as O, Kind, Phase, Val,
};
use crate::fio::OptError;
use crate::spec::{FileService, FileServiceKind, JobSpec};
use std::path::PathBuf;

const COUNT: Kind = Kind::Int {
    min: 0,
    max: u32::MAX as u64,
};

pub(super) const OPTIONS: &[O] = &[
    O {
        details: "`:`-separated lists, `\\:` for a literal colon; I/O goes round-robin over the \
                  files",
        show: Some(|j| {
            (!j.filename.is_empty()).then(|| {
                let f: Vec<String> = j
                    .filename
                    .iter()
                    .map(|p| p.display().to_string().replace(':', "\\:"))
                    .collect();
                f.join(":")
            })
        }),
        sweep: 1,
        common: true,
        ..O::new(
            names::FILENAME,
            C::Files,
            Kind::Text,
            "File or block device to test; several separated by ':' (volbench run: DIR/NAME.test)",
            "/tmp/a:/tmp/b\\:c",
            set_filename,
        )
    },
    O {
        details: "files are named as fio names them, `$jobname.$jobnum.$filenum` (volbench's own \
                  command line: `name.test` for one file); `directory` prefixes `filename` as in \
                  fio (`directory=/d filename=a` is `/d/a`, an absolute `filename=/x/a` becomes \
                  `/d/x/a`), checked against fio's placement by a test",
        show: Some(|j| j.files.directory.as_ref().map(|d| d.display().to_string())),
        common: true,
        ..O::new(
            names::DIRECTORY,
            C::Files,
            Kind::Text,
            "Directory for test files when --filename is not given (volbench run: .)",
            "/mnt/test",
            |j, v| {
                j.files.directory = Some(PathBuf::from(v.need()?));
                Ok(())
            },
        )
    },
    O {
        details: "takes `$jobname`, `$jobnum`, `$filenum` and `$clientuid` (the MPI rank)",
        show: Some(|j| j.files.filename_format.clone()),
        ..O::new(
            "filename_format",
            C::Files,
            Kind::Text,
            "How files are named: $jobname.$jobnum.$filenum",
            "$jobname.$filenum",
            |j, v| {
                j.files.filename_format = Some(v.need()?.to_string());
                Ok(())
            },
        )
    },
    O {
        aliases: &["nr_files"],
        show: Some(|j| Some(j.files.nrfiles.to_string())),
        ..O::new(
            names::NRFILES,
            C::Files,
            COUNT,
            "Files per job",
            "4",
            |j, v| {
                j.files.nrfiles = v.int()?;
                Ok(())
            },
        )
    },
    // At or above the job's file count it changes nothing; the runner compares.
    O {
        phase: Phase::Last,
        details: "below the job's file count, I/O goes round robin to this many files until \
                  each has done its share, then to the next ones, in fio's order (checked \
                  against fio's reads under strace); volbench keeps every descriptor open, \
                  so fio's close and reopen between files is not timed",
        show: Some(|j| (j.files.openfiles > 0).then(|| j.files.openfiles.to_string())),
        ..O::new(
            "openfiles",
            C::Files,
            COUNT,
            "Files worked on at once",
            "4",
            |j, v| {
                j.files.openfiles = v.int()?;
                Ok(())
            },
        )
    },
    O {
        details: "`roundrobin` (the default), `sequential` (each file's share done before the \
                  next starts) and `random` (a file drawn among those with work left), each \
                  with `:N`, the I/Os issued to a file before the next is chosen, as fio \
                  (checked against fio's file switches under strace). `zipf`, `pareto` and \
                  `normal` (`gauss`), with fio's defaults 1.1, 0.2 and 0 or `:PARAM`, draw \
                  each I/O's file by that distribution over the files, a hot file read again \
                  after it has had its size, as fio starts such a file's map over (the hottest \
                  files' share of the reads against fio's). A third part, `zipf:1.2:0.25`, is \
                  fio's center: the hottest file that share of the way along (normal's middle \
                  moved there; without it zipf's and pareto's at random, normal's in the \
                  middle): the same two busiest files as fio's under strace",
        show: Some(|j| {
            let f = j.files.file_service;
            (!f.is_default()).then(|| {
                let k = match f.kind {
                    FileServiceKind::RoundRobin => "roundrobin",
                    FileServiceKind::Sequential => "sequential",
                    FileServiceKind::Random => "random",
                    FileServiceKind::Zipf => "zipf",
                    FileServiceKind::Pareto => "pareto",
                    FileServiceKind::Normal => "normal",
                };
                match (f.distribution(), f.center()) {
                    (Some(_), Some(c)) => format!("{k}:{}:{c}", f.skew_milli as f64 / 1000.0),
                    (Some(_), None) => format!("{k}:{}", f.skew_milli as f64 / 1000.0),
                    (None, _) if f.every == 1 => k.to_string(),
                    (None, _) => format!("{k}:{}", f.every),
                }
            })
        }),
        ..O::new(
            "file_service_type",
            C::Files,
            Kind::Text,
            "Which file the next I/O goes to: roundrobin, sequential or random, with :N I/Os per turn",
            "random:8",
            |j, v| {
                let s = v.need()?;
                let (k, n) = s.split_once(':').unwrap_or((s, "1"));
                let (kind, default) = match k.trim() {
                    "roundrobin" => (FileServiceKind::RoundRobin, None),
                    "sequential" => (FileServiceKind::Sequential, None),
                    "random" => (FileServiceKind::Random, None),
                    "zipf" => (FileServiceKind::Zipf, Some(1.1)),
                    "pareto" => (FileServiceKind::Pareto, Some(0.2)),
                    "normal" | "gauss" => (FileServiceKind::Normal, Some(0.0)),
                    _ => return Err(v.bad(s, "use roundrobin, sequential or random (with :N), or zipf, pareto, normal (with :PARAM)")),
                };
                if let Some(d) = default {
                    // fio 3.26's `zipf:THETA:CENTER`: where the hottest file is, 0 to 1.
                    let (p, center) = match s.split_once(':') {
                        Some((_, rest)) => {
                            let (p, c) = crate::distribution::split_center(rest).map_err(|why| v.bad(s, why))?;
                            let p = p.trim().parse::<f64>().map_err(|_| v.bad(s, "the number after ':' is the distribution's parameter"))?;
                            (p, c)
                        }
                        None => (d, None),
                    };
                    let ok = match kind {
                        FileServiceKind::Zipf => p > 0.0 && p != 1.0,
                        FileServiceKind::Pareto => p > 0.0 && p < 1.0,
                        _ => (0.0..100.0).contains(&p),
                    };
                    if !ok {
                        return Err(v.bad(s, "zipf's theta is over 0 and not 1, pareto's h between 0 and 1, normal's deviation 0 to 100"));
                    }
                    let center_micro = center.map(|c| (c * 1e6).round() as u32);
                    j.files.file_service = FileService { kind, every: 1, skew_milli: (p * 1000.0).round() as u32, center_micro };
                    return Ok(());
                }
                let every = n
                    .trim()
                    .parse::<u32>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| v.bad(s, "the number after ':' is the I/Os per file, 1 or more"))?;
                j.files.file_service = FileService { kind, every, skew_milli: 0, center_micro: None };
                Ok(())
            },
        )
    },
    O {
        details: "bytes or a percentage of the file/device (`size=50%`); split over the job's \
                  files",
        show: Some(|j| match (j.size, j.region.size_percent) {
            (Some(s), _) => Some(show_size(j, s)),
            (None, Some(p)) => Some(format!("{p}%")),
            _ => None,
        }),
        common: true,
        ..O::new(
            names::SIZE,
            C::Files,
            Kind::Size,
            "Bytes per job: the file size, or the region of a device (volbench run: 1g; whole device)",
            "64m",
            set_size,
        )
    },
    O {
        details: "each file's size (a range picks one per file); `size` is then the I/O to do \
                  over the files, as in fio",
        show: Some(|j| j.region.filesize.map(|(lo, hi)| format!("{lo}-{hi}"))),
        ..O::new(
            "filesize",
            C::Files,
            Kind::Size,
            "Each file's size, or a range to draw it from (size is then the I/O to do)",
            "1m-2m",
            |j, v| {
                j.region.filesize = Some(super::pattern::range(v, v.need()?)?);
                Ok(())
            },
        )
    },
    O {
        aliases: &["fileoffset"],
        details: "byte offsets, anywhere in the file as in fio (O_DIRECT needs them on the \
                  device's logical block; an error says so); `offset=N%` starts at that share \
                  of the existing file or device, rounded down to `bs` (a new file starts at 0, \
                  as in fio), checked against fio's bytes and where the writes land. A new or \
                  short file is laid out (or, for a write-only job, allocated) over the job's \
                  region only, the part before `offset` left a hole: fio writes the whole file \
                  from byte 0, which for `--offset=20g --size=4m` is 20 GB of writes no I/O of \
                  the job reads",
        show: Some(|j| {
            Some(match j.region.offset_percent {
                Some(p) => format!("{p}%"),
                None => show_size(j, j.region.offset),
            })
        }),
        common: true,
        ..O::new(
            names::OFFSET,
            C::Files,
            Kind::Size,
            "Where the job's region starts: bytes, or a share of the file (25%)",
            "8k",
            set_offset,
        )
    },
    O {
        details: "bytes, or a share of the existing file or device (`25%`), which rounds each \
                  clone's start up to `offset_align` or the smallest block, as fio's \
                  get_start_offset",
        show: Some(|j| match j.region.offset_increment_percent {
            Some(p) => Some(format!("{p}%")),
            None => Some(show_size(j, j.region.offset_increment)),
        }),
        ..O::new(
            "offset_increment",
            C::Files,
            Kind::Size,
            "Each numjobs clone's region starts this much after the previous one's",
            "1m",
            |j, v| {
                let s = v.need()?;
                (j.region.offset_increment, j.region.offset_increment_percent) = match percent(s) {
                    Some(p) => match num::<u8>(v.opt.name, p)? {
                        p if p <= 100 => (0, Some(p)),
                        _ => return Err(v.bad(s, "a percentage is 0 to 100")),
                    },
                    None => (v.size()?, None),
                };
                Ok(())
            },
        )
    },
    O {
        aliases: &["io_limit"],
        details: "the I/O to do, which may be more or less than `size`",
        show: Some(|j| j.region.io_size.map(|s| show_size(j, s))),
        ..O::new(
            "io_size",
            C::Files,
            Kind::Size,
            "Bytes of I/O to do over the region",
            "10m",
            |j, v| {
                j.region.io_size = Some(v.size()?);
                Ok(())
            },
        )
    },
    O {
        details: "stops a job early but never extends it past `size`, as in fio",
        show: Some(|j| j.region.number_ios.map(|n| n.to_string())),
        ..O::new(
            "number_ios",
            C::Files,
            Kind::Int {
                min: 0,
                max: u64::MAX,
            },
            "Stop after this many I/Os",
            "1000",
            |j, v| {
                j.region.number_ios = Some(v.int()?);
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| Some(j.region.loops.to_string())),
        ..O::new(
            names::LOOPS,
            C::Files,
            COUNT,
            "Run the job this many times over",
            "3",
            |j, v| {
                j.region.loops = v.int()?;
                Ok(())
            },
        )
    },
    O {
        details: "layout as fio: data is written into a file first only where the job reads (or \
                  `overwrite=1`); a write-only job's new file gets its space by `fallocate` \
                  (`native` (default), `posix`, `keep`, `truncate`, `none`), so a 10-I/O write \
                  job writes 10 I/Os, not the file. Sizes and allocated blocks are checked \
                  against fio's; the report's `targets[].layout` says `existing`, `filled`, \
                  `allocated` or `sparse`",
        show: Some(|j| Some(j.files.fallocate.as_str().into())),
        ..O::new(
            "fallocate",
            C::Files,
            Kind::Text,
            "How a new file gets its space: native, posix, keep, truncate, none",
            "posix",
            |j, v| {
                let s = v.need()?;
                j.files.fallocate = crate::spec::Fallocate::parse(s)
                    .ok_or_else(|| v.bad(s, "use native, posix, keep, truncate or none"))?;
                Ok(())
            },
        )
    },
    O {
        show: Some(|j| show_bit(j.files.overwrite)),
        ..O::new(
            "overwrite",
            C::Files,
            Kind::Flag,
            "Write a new file in full before the job",
            "1",
            |j, v| {
                j.files.overwrite = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "`0` refuses to create a missing file (a guard against a mistyped device name)",
        show: Some(|j| show_bit(j.files.allow_file_create)),
        ..O::new(
            "allow_file_create",
            C::Files,
            Kind::Flag,
            "Create missing files (0: refuse)",
            "0",
            |j, v| {
                j.files.allow_file_create = v.flag()?;
                Ok(())
            },
        )
    },
    // Files are created before the jobs start either way; the I/O measured is the same.
    O {
        details: "accepted: files are created before the jobs start either way",
        ..O::new(
            "create_on_open",
            C::Files,
            Kind::Flag,
            "Create files when they are opened",
            "1",
            super::accept,
        )
    },
    O {
        details: "drops the file's cached pages (`posix_fadvise`) before the job and, as fio, \
                  at every further pass of a buffered time-based or `loops` job",
        show: Some(|j| show_bit(j.files.invalidate)),
        ..O::new(
            "invalidate",
            C::Files,
            Kind::Flag,
            "Drop the file's cached pages before the job",
            "0",
            |j, v| {
                j.files.invalidate = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "the job's region is read once through the page cache before the job starts \
                  (after laying it out), so a buffered job begins with its data cached; as in \
                  fio it turns `invalidate` off. With `direct=1` the job's I/O bypasses that \
                  cache, as in fio",
        show: Some(|j| j.files.pre_read.then(|| "1".into())),
        ..O::new(
            "pre_read",
            C::Files,
            Kind::Flag,
            "Read the files into the page cache before the job starts",
            "0",
            |j, v| {
                j.files.pre_read = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "as fio: every regular file below the directory (depth first, in name \
                  order, at most 100,000) is one of the job's files, after any `filename`; \
                  the whole of each, or `size` split over them. Tested against fio's bytes \
                  and the files read (strace)",
        show: Some(|j| j.files.opendir.as_ref().map(|d| d.display().to_string())),
        ..O::new(
            "opendir",
            C::Files,
            Kind::Text,
            "Use every file below this directory",
            "/data",
            |j, v| {
                j.files.opendir = Some(PathBuf::from(v.need()?));
                Ok(())
            },
        )
    },
    O {
        details: "removes the job's files afterwards, only if volbench created them",
        show: Some(|j| j.files.unlink.then(|| "1".into())),
        common: true,
        ..O::new(
            "unlink",
            C::Files,
            Kind::Flag,
            "Remove the test files this run created when it ends",
            "1",
            |j, v| {
                j.files.unlink = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "as fio: after each loop but the last the job's files are deleted, and the \
                  next loop creates them empty (its writes allocate afresh; a job that only \
                  reads then fails with ENOENT, as fio's); volbench also removes the last \
                  loop's files. Only files this run created, unless --allow-destructive",
        show: Some(|j| j.files.unlink_each_loop.then(|| "1".into())),
        ..O::new(
            "unlink_each_loop",
            C::Files,
            Kind::Flag,
            "Delete the job's files after each loop; the next loop creates them",
            "1",
            |j, v| {
                j.files.unlink_each_loop = v.flag()?;
                Ok(())
            },
        )
    },
    O {
        details: "as fio: `strided` does `zonesize` bytes of I/O in a zone of `zonerange` \
                  bytes (sequential, or random within the zone with its own random map), then \
                  moves `zonerange + zoneskip` on, wrapping to the start past the end, until \
                  the job's bytes are done; a `zonesize` over `zonerange` goes round a zone \
                  more than once. A job of several files runs without zones, as fio's. `zbd` \
                  (zoned devices) is refused: it needs a zoned device. The offsets are fio's \
                  under strace. volbench keeps a zone's bytes per direction, fio per job: a \
                  job that both reads and writes moves zones at other points",
        show: Some(|j| j.region.zones.strided.map(|s| if s { "strided" } else { "none" }.into())),
        ..O::new(
            names::ZONEMODE,
            C::Files,
            Kind::Text,
            "Zones: none, strided (zbd needs a zoned device)",
            "strided",
            |j, v| {
                let s = v.need()?;
                j.region.zones.strided = Some(match s.trim() {
                    "strided" => true,
                    "none" => false,
                    "zbd" => {
                        return Err(OptError::Unsupported {
                            key: format!("zonemode={s}"),
                            hint: ": volbench does not drive zoned devices (ZNS, SMR); test a \
                                   conventional namespace, or zonemode=strided for fio's \
                                   strided zones on any device"
                                .into(),
                        })
                    }
                    _ => return Err(v.bad(s, "use none or strided")),
                });
                Ok(())
            },
        )
    },
    O {
        details: "with `zonemode=strided`, the bytes of I/O done in each zone (without it, \
                  an error, as in fio 3.33, whose zonemode defaults to none)",
        show: Some(|j| (j.region.zones.size > 0).then(|| show_size(j, j.region.zones.size))),
        ..O::new(
            names::ZONESIZE,
            C::Files,
            Kind::Size,
            "Bytes of I/O in each zone (zonemode=strided)",
            "1m",
            |j, v| {
                j.region.zones.size = v.size()?;
                Ok(())
            },
        )
    },
    O {
        details: "a zone's size (default: `zonesize`)",
        show: Some(|j| (j.region.zones.range > 0).then(|| show_size(j, j.region.zones.range))),
        ..O::new(
            "zonerange",
            C::Files,
            Kind::Size,
            "The size of a zone (zonemode=strided)",
            "4m",
            |j, v| {
                j.region.zones.range = v.size()?;
                Ok(())
            },
        )
    },
    O {
        details: "bytes skipped after each zone",
        show: Some(|j| (j.region.zones.skip > 0).then(|| show_size(j, j.region.zones.skip))),
        ..O::new(
            "zoneskip",
            C::Files,
            Kind::Size,
            "Bytes skipped after each zone (zonemode=strided)",
            "4m",
            |j, v| {
                j.region.zones.skip = v.size()?;
                Ok(())
            },
        )
    },
    O {
        details: "as fio: one lock per file, shared by every job and clone that names it, \
                  held from an I/O's preparation to the return of its submission: with a \
                  synchronous engine (psync), the whole I/O, so `exclusive` lets one job's I/O \
                  reach the file at a time and `readwrite` lets reads overlap but never a \
                  write; with io_uring or libaio only the queueing is serialised, as in fio. \
                  The wait for the lock is not in the latency (fio starts its clock after \
                  it). fio 3.33 locks only files named after `lockfile` is set (give it \
                  before `filename`, or in `[global]`); volbench locks them wherever it is \
                  given. No I/O of two jobs overlaps under strace, in both tools",
        show: Some(|j| (!j.files.lockfile.is_none()).then(|| j.files.lockfile.as_str().into())),
        ..O::new(
            "lockfile",
            C::Files,
            Kind::Text,
            "Lock each file per I/O: none, exclusive, readwrite",
            "exclusive",
            |j, v| {
                let s = v.need()?;
                j.files.lockfile = crate::spec::LockFile::parse(s)
                    .ok_or_else(|| v.bad(s, "use none, exclusive or readwrite"))?;
                Ok(())
            },
        )
    },
];

/// fio separates several files with ':' (a literal colon is written '\:').
fn set_filename(j: &mut JobSpec, v: &Val) -> Result<(), OptError> {
    let s = v.need()?;
    let mut files = Vec::new();
    let mut cur = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&':') => {
                cur.push(':');
                chars.next();
            }
            ':' => files.push(PathBuf::from(std::mem::take(&mut cur))),
            c => cur.push(c),
        }
    }
    files.push(PathBuf::from(cur));
    j.filename = files
        .into_iter()
        .filter(|p| !p.as_os_str().is_empty())
        .collect();
    Ok(())
}

fn set_size(j: &mut JobSpec, v: &Val) -> Result<(), OptError> {
    let s = v.need()?;
    if let Some(p) = percent(s) {
        j.region.size_percent = Some(num(v.opt.name, p)?);
        j.size = None;
    } else {
        j.size = Some(v.size()?);
        j.region.size_percent = None;
    }
    Ok(())
}

fn set_offset(j: &mut JobSpec, v: &Val) -> Result<(), OptError> {
    let s = v.need()?;
    if let Some(p) = percent(s) {
        let p: u8 = num(v.opt.name, p)?;
        if p > 100 {
            return Err(v.bad(s, "a percentage is 0 to 100"));
        }
        j.region.offset_percent = Some(p);
        j.region.offset = 0;
    } else {
        j.region.offset = v.size()?;
        j.region.offset_percent = None;
    }
    Ok(())
}
