//! fio's options and how job sections become a [`Workload`] (inheritance from `[global]`,
//! `numjobs`, stonewalls). What each option means lives in the option table ([`table`]); fio's
//! command line is read in [`cmdline`] and the generated docs come from [`docs`].

pub mod arith;
pub mod cmdline;
pub mod docs;
pub mod table;

use crate::jobfile::{RawOption, Section};
use crate::spec::{JobSpec, Workload};
pub use table::{apply, find, FioOption, Support};

/// What is wrong with one option.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum OptError {
    #[error("fio option '{key}' is not supported by volbench{hint}")]
    Unsupported { key: String, hint: String },
    #[error("'{key}' is not a fio option{suggestion}")]
    Unknown { key: String, suggestion: String },
    #[error("{key}={value}: {why}")]
    BadValue {
        key: String,
        value: String,
        why: String,
    },
    #[error("{key} needs a value, e.g. {key}={example}")]
    MissingValue { key: String, example: &'static str },
    #[error(
        "no job section: add one such as [randread] with its options (only [global] was found)"
    )]
    NoJobs,
    /// The options are each valid but the job they make is not (job, why).
    #[error("{1} (job [{0}])")]
    Job(String, String),
}

/// An option error with its place in a job file.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{at}: {err}")]
pub struct LocatedError {
    pub at: String,
    pub err: OptError,
}

/// Whether `key` is one of fio's options (supported or not): what the command line hands to
/// this layer rather than calling it unknown.
pub fn is_option(key: &str) -> bool {
    find(key).is_some()
}

/// Whether the option is skipped with a warning (it only shapes logs or reports).
pub fn is_ignorable(key: &str) -> bool {
    find(key).is_some_and(|o| o.support == Support::Ignored)
}

/// The option a name means: itself, or what it is fio's alias of.
pub fn canonical(key: &str) -> &str {
    find(key).map_or(key, |o| o.name)
}

/// Whether a section is global to fio: its name starts with `global`, case and all (fio's
/// `strncmp(name, "global", 6)`), so `[global-2]` is global and `[Global]` is a job.
fn is_global(name: &str) -> bool {
    name.starts_with("global")
}

/// Job sections (and `[global]`s) as a workload: each job starts from fio's defaults plus the
/// global options seen before it. Options that cannot change the measured I/O (logs and reports
/// volbench does not produce) are skipped and returned as warnings, never silently; the flag is
/// kept for callers that pass fio's `--ignore-unsupported`, which changes nothing.
pub fn workload(
    sections: &[Section],
    _ignore_unsupported: bool,
) -> Result<(Workload, Vec<String>), LocatedError> {
    let mut global: Vec<RawOption> = Vec::new();
    let mut jobs = Vec::new();
    let mut warnings = Vec::new();
    for s in sections {
        let is_global = is_global(&s.name);
        let mut j = JobSpec::fio_default(&s.name);
        let opts = section_options(s, &global, is_global);
        for o in &opts {
            apply_located(&mut j, o, &mut warnings)?;
        }
        if is_global {
            global.extend(s.options.iter().cloned());
            continue;
        }
        // fio: "time_based requires a runtime/timeout setting", and the job runs size-based.
        if j.time_based && j.runtime.is_none() {
            j.time_based = false;
            warnings.push(format!(
                "{}: time_based without a runtime: the job runs to its size, as fio runs it",
                s.name
            ));
        }
        let j = finish_job(j, s, &opts)?;
        warnings.extend(depth_note(&j));
        warnings.extend(verify_note(&j));
        jobs.push(j);
    }
    if jobs.is_empty() {
        return Err(LocatedError {
            at: sections
                .first()
                .map(|s| s.file.display().to_string())
                .unwrap_or_else(|| "job file".into()),
            err: OptError::NoJobs,
        });
    }
    let global_options = sections
        .iter()
        .filter(|s| is_global(&s.name))
        .flat_map(|s| s.options.iter())
        .map(|o| (o.key.clone(), o.value.clone().unwrap_or_default()))
        .collect();
    Ok((
        Workload {
            jobs,
            global_options,
        },
        warnings,
    ))
}

/// fio's own note: a synchronous engine does one I/O at a time, so an iodepth above 1 is
/// capped at 1 (fio: "queue depth will be capped at 1"). Said, not dropped silently.
pub fn depth_note(j: &JobSpec) -> Option<String> {
    (j.ioengine.is_sync() && j.iodepth > 1).then(|| {
        format!(
            "{}: iodepth={} with the synchronous engine {}: one I/O at a time, so the queue depth \
             is 1, as fio caps it; use ioengine=io_uring or libaio for a deeper queue",
            j.name,
            j.iodepth,
            j.ioengine.as_str()
        )
    })
}

/// A verifying write job whose written blocks will not be read back at the end (fio reads
/// back its log of writes in every such job): said, so a run that checked nothing does not
/// pass for one that checked. volbench reads back one block size after any run, mixed sizes
/// only after one size-based pass that writes every block once.
pub fn verify_note(j: &JobSpec) -> Option<String> {
    let asks = j.checking.verify.is_some()
        && j.checking.do_verify
        && j.rw.writes()
        && j.checking.verify_backlog == 0;
    (asks && !j.reads_back_at_end()).then(|| {
        format!(
            "{}: verify: the written blocks are not read back at the end: with mixed block sizes (or \
             a blockalign off the block size's grid) \
             a later write cuts into an earlier one, so volbench reads them back only after one \
             size-based pass over the whole region (loops=1, the random map); use one block \
             size, or verify_backlog=N to check blocks soon after they are written",
            j.name
        )
    })
}

/// A section's options in the order they apply: the `[global]` ones seen before it, then its
/// own, each group in the table's phases. fio reads a section's options in its option table's
/// order, where kb_base comes first: it sets the units of every size in its section (and in
/// later ones, from [global]), not of sizes [global] set before. An option checked against
/// others (openfiles against nrfiles) goes last wherever it was written.
fn section_options<'a>(
    s: &'a Section,
    global: &'a [RawOption],
    is_global: bool,
) -> Vec<&'a RawOption> {
    // fio names a job by its section: `name=` in [global] does not rename the jobs.
    let mut opts: Vec<&RawOption> = if is_global {
        s.options.iter().collect()
    } else {
        global
            .iter()
            .filter(|o| canonical(&o.key) != table::names::NAME)
            .chain(s.options.iter())
            .collect()
    };
    let phase = |o: &RawOption| find(&o.key).map_or(table::Phase::Written, |x| x.phase);
    opts.sort_by_key(|o| {
        let own = !is_global && s.options.iter().any(|x| std::ptr::eq(x, *o));
        let p = phase(o);
        (p == table::Phase::Last, own, p != table::Phase::First)
    });
    opts
}

/// Applies one option of a section, adding its note (or, for a log- or report-only option, the
/// warning that it was skipped) to `warnings` once.
fn apply_located(
    j: &mut JobSpec,
    o: &RawOption,
    warnings: &mut Vec<String>,
) -> Result<(), LocatedError> {
    let w = match apply(j, &o.key, o.value.as_deref()) {
        Ok(()) => match table::note(&o.key, o.value.as_deref()) {
            Some(note) => format!("{}: {note}", o.at()),
            None => return Ok(()),
        },
        // A job file parses as written: an option that only shapes logs or reports volbench
        // does not produce is skipped, and the warning says so.
        Err(OptError::Unsupported { .. }) if is_ignorable(&o.key) => format!(
            "{}: ignored '{}' (it only affects logs or reporting, which volbench does not \
             produce)",
            o.at(),
            o.key
        ),
        Err(err) => return Err(LocatedError { at: o.at(), err }),
    };
    if !warnings.contains(&w) {
        warnings.push(w);
    }
    Ok(())
}

/// The job once its options are in: fio's reading of size beside filesize, then the checks,
/// an error naming the line of the option it is about (the job's own before [global]'s), or
/// the section when the defaults alone make it.
fn finish_job(mut j: JobSpec, s: &Section, opts: &[&RawOption]) -> Result<JobSpec, LocatedError> {
    // With filesize, fio's size is the I/O to do over the files, not their size.
    if j.region.filesize.is_some() && j.region.io_size.is_none() {
        j.region.io_size = j.size.take();
    }
    j.settle_sizes();
    j.validate().map_err(|e| {
        let at = e
            .keys()
            .iter()
            .find_map(|k| opts.iter().rev().find(|o| canonical(&o.key) == *k))
            .map(|o| o.at())
            .unwrap_or_else(|| format!("{}:{}", s.file.display(), s.line));
        LocatedError {
            at,
            err: OptError::Job(s.name.clone(), e.to_string()),
        }
    })?;
    Ok(j)
}

/// The job as fio options (key, value), everything that differs from fio's defaults plus the
/// name: what `--showcmd` prints and what fio-json calls "job options". A bare flag has "".
pub fn options(j: &JobSpec) -> Vec<(String, String)> {
    table::options_against(j, &JobSpec::fio_default(&j.name))
}

/// The command line that runs this workload (`--showcmd`): `volbench run`'s own options for one
/// job, fio's multi-job form (one `--name` per job, fio's defaults) for several.
pub fn showcmd(w: &Workload) -> String {
    let mut lines = vec!["volbench run".to_string()];
    for j in &w.jobs {
        // Every line starts with --name, so the command reads as fio's: options against
        // fio's defaults.
        let opts = options(j);
        let args: Vec<String> = opts
            .into_iter()
            .map(|(k, v)| {
                if v.is_empty() {
                    format!("--{k}")
                } else {
                    format!("--{k}={v}")
                }
            })
            .map(|a| {
                if a.contains(char::is_whitespace) {
                    format!("'{a}'")
                } else {
                    a
                }
            })
            .collect();
        lines.push(args.join(" "));
    }
    lines.join(" \\\n  ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jobfile::parse_str;
    use crate::spec::{BsSplit, EngineKind, Rw, SyncIo, SyncMode, Verify};
    use std::path::Path;
    use std::path::PathBuf;

    fn load(t: &str) -> Result<Workload, LocatedError> {
        let s = parse_str(t, Path::new("t.fio"), &|_| None, 0).unwrap();
        workload(&s, false).map(|(w, _)| w)
    }

    #[test]
    fn jobs_inherit_globals_seen_before_them() {
        let w = load("[global]\nbs=64k\nioengine=libaio\n[a]\nrw=randread\n[global]\niodepth=8\n[b]\nbs=8k\n").unwrap();
        assert_eq!(w.jobs.len(), 2);
        assert_eq!((w.jobs[0].bs, w.jobs[0].iodepth), (65536, 1));
        assert_eq!(w.jobs[0].ioengine, EngineKind::Libaio);
        assert_eq!((w.jobs[1].bs, w.jobs[1].iodepth), (8192, 8));
        assert_eq!(w.jobs[0].name, "a");
    }

    #[test]
    fn fio_defaults_apply_to_job_files() {
        let w = load("[j]\nsize=1m\n").unwrap();
        let j = &w.jobs[0];
        assert_eq!(
            (j.rw, j.iodepth, j.direct, j.time_based),
            (Rw::Read, 1, false, false)
        );
        assert_eq!(j.ioengine, EngineKind::Psync);
    }

    #[test]
    fn options_parse_as_fio_documents() {
        let w = load("[j]\nrw=randrw\nrwmixwrite=30\nbssplit=4k/60:64k/:1m/\nsize=50%\nrate=1m,\nrate_iops=100\nfilename=/a:/b\\:c\nsync=dsync\nfdatasync=4\nverify=md5\nnorandommap\nstartdelay=2\nloops=3\n").unwrap();
        let j = &w.jobs[0];
        assert_eq!(j.rwmixread, 70);
        assert_eq!(
            j.pattern.bssplit,
            vec![
                BsSplit {
                    bs: 4096,
                    percent: 60
                },
                BsSplit {
                    bs: 65536,
                    percent: 20
                },
                BsSplit {
                    bs: 1 << 20,
                    percent: 20
                }
            ]
        );
        assert_eq!(j.region.size_percent, Some(50));
        assert_eq!(j.rates.rate, [1 << 20, 0]);
        assert_eq!(j.rates.rate_iops, [100, 100]);
        assert_eq!(j.filename, vec![PathBuf::from("/a"), PathBuf::from("/b:c")]);
        assert_eq!(j.sync.sync_io, SyncIo::Dsync);
        assert_eq!(
            (j.sync.sync_every, j.sync.sync_mode),
            (4, SyncMode::Fdatasync)
        );
        assert_eq!(j.checking.verify, Some(Verify::Md5));
        assert!(j.pattern.norandommap);
        assert_eq!(j.timing.startdelay, std::time::Duration::from_secs(2));
        assert_eq!(j.region.loops, 3);
    }

    #[test]
    fn unsupported_and_unknown_options_name_file_and_line() {
        let e = load("[j]\nsize=1m\nzonemode=zbd\n").unwrap_err();
        assert_eq!(e.at, "t.fio:3");
        assert!(matches!(e.err, OptError::Unsupported { .. }), "{e}");
        let e = load("[j]\niodeph=4\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.fio:2: 'iodeph' is not a fio option (did you mean 'iodepth'?)"
        );
        let e = load("[j]\nbs=4q\n").unwrap_err();
        assert!(e.to_string().starts_with("t.fio:2: bs=4q:"), "{e}");
        let e = load("[j]\nioengine=rbd\n").unwrap_err();
        assert!(e.to_string().contains("ioengine=rbd"), "{e}");
    }

    #[test]
    fn ignore_unsupported_skips_only_reporting_options_and_says_so() {
        let s = parse_str(
            "[j]\nsize=1m\nlog_offset=1\n",
            Path::new("t.fio"),
            &|_| None,
            0,
        )
        .unwrap();
        for flag in [true, false] {
            let (w, warns) = workload(&s, flag).unwrap();
            assert_eq!(w.jobs.len(), 1);
            assert_eq!(
                warns,
                vec![
                    "t.fio:3: ignored 'log_offset' (it only affects logs or reporting, \
                      which volbench does not produce)"
                        .to_string()
                ]
            );
        }
        let s = parse_str("[j]\nzonemode=zbd\n", Path::new("t.fio"), &|_| None, 0).unwrap();
        assert!(
            workload(&s, true).is_err(),
            "options that change the I/O are never skipped"
        );
    }

    #[test]
    fn showcmd_round_trips() {
        let w = load("[global]\nioengine=libaio\ndirect=1\n[a]\nrw=randwrite\nbs=8k\niodepth=16\nsize=64m\nfsync=4\n[b]\nstonewall\nrw=read\nsize=1m\n").unwrap();
        let cmd = showcmd(&w);
        // Turn the command back into sections and compare.
        let mut text = String::new();
        for line in cmd.split(" \\\n  ").skip(1) {
            for a in line.split(' ') {
                let a = a.trim_start_matches("--");
                if let Some(n) = a.strip_prefix("name=") {
                    text.push_str(&format!("[{n}]\n"));
                } else {
                    text.push_str(a);
                    text.push('\n');
                }
            }
        }
        // The jobs round-trip; the job file's raw [global] lines have no command-line form.
        assert_eq!(load(&text).unwrap().jobs, w.jobs, "{cmd}");
    }

    #[test]
    fn offset_percent_is_a_share_and_replaces_a_byte_offset() {
        let w = load("[a]\noffset=1m\noffset=25%\n[b]\noffset=25%\noffset=8k\n").unwrap();
        assert_eq!(
            (w.jobs[0].region.offset, w.jobs[0].region.offset_percent),
            (0, Some(25))
        );
        assert_eq!(
            (w.jobs[1].region.offset, w.jobs[1].region.offset_percent),
            (8192, None)
        );
        let e = load("[a]\noffset=101%\n").unwrap_err().to_string();
        assert!(e.contains("t.fio:2") && e.contains("0 to 100"), "{e}");
        // --showcmd keeps it.
        assert!(showcmd(&load("[a]\noffset=25%\n").unwrap()).contains("--offset=25%"));
    }

    #[test]
    fn openfiles_is_kept_in_either_order() {
        for t in [
            "[a]\nopenfiles=1\nnrfiles=4\n",
            "[a]\nnrfiles=4\nopenfiles=1\n",
            "[global]\nopenfiles=1\n[a]\nnrfiles=4\n",
        ] {
            let j = &load(t).unwrap().jobs[0];
            assert_eq!((j.files.openfiles, j.files.nrfiles), (1, 4), "{t}");
        }
    }

    #[test]
    fn fios_aliases_mean_their_options() {
        let w = load(
            "[a]\ntimeout=5\nfileoffset=8k\nnr_files=2\nlog_window_value=1\nwrite_lat_log=l\n",
        )
        .unwrap();
        let j = &w.jobs[0];
        assert_eq!(j.runtime, Some(std::time::Duration::from_secs(5)));
        assert_eq!(
            (j.region.offset, j.files.nrfiles, j.reporting.logs.max_value),
            (8192, 2, true)
        );
        // A reporting-only option under its alias is skipped like the option.
        let s = parse_str(
            "[a]\nsize=1m\ndisable_bw=1\n",
            Path::new("t.fio"),
            &|_| None,
            0,
        )
        .unwrap();
        let (_, warns) = workload(&s, false).unwrap();
        assert!(warns[0].contains("disable_bw"), "{warns:?}");
        // An error about the option points at the alias's line.
        let e = load("[a]\nio_limit=4q\n").unwrap_err().to_string();
        assert!(e.contains("t.fio:2"), "{e}");
        // fio: "time_based requires a runtime/timeout setting", and runs the job by size.
        let (w, warns) = workload(
            &parse_str(
                "[a]\ntimeout=0\ntime_based\n",
                Path::new("t.fio"),
                &|_| None,
                0,
            )
            .unwrap(),
            false,
        )
        .unwrap();
        assert!(
            !w.jobs[0].time_based && warns.iter().any(|w| w.contains("time_based")),
            "{warns:?}"
        );
    }

    #[test]
    fn a_verify_that_will_not_read_back_says_so() {
        let warns = |t: &str| {
            let s = parse_str(t, Path::new("t.fio"), &|_| None, 0).unwrap();
            workload(&s, false).unwrap().1
        };
        let base = "[a]\nrw=randwrite\nverify=crc32c\nsize=1m\nruntime=1\n";
        // Mixed sizes over a time-based run: not read back, and said.
        let w = warns(&format!("{base}bsrange=4k-64k\ntime_based\n"));
        assert!(w.iter().any(|w| w.contains("not read back")), "{w:?}");
        // One size, time-based, or mixed sizes in one size-based pass: read back, nothing said.
        for extra in [
            "bs=4k\ntime_based\n",
            "bsrange=4k-64k\n",
            "bsrange=4k-64k\nverify_backlog=8\n",
        ] {
            let w = warns(&format!("{base}{extra}"));
            assert!(
                !w.iter().any(|w| w.contains("not read back")),
                "{extra}: {w:?}"
            );
        }
    }

    #[test]
    fn newer_fios_options_mean_fios_meaning_or_are_refused_with_a_reason() {
        // fio 3.38's log_window_value spells fio 3.33's log_max_value as avg and max.
        for (v, max) in [("max", true), ("avg", false), ("1", true), ("0", false)] {
            let w = load(&format!("[a]\nwrite_lat_log=l\nlog_window_value={v}\n")).unwrap();
            assert_eq!(w.jobs[0].reporting.logs.max_value, max, "{v}");
        }
        let w = load("[a]\nwrite_lat_log=l\nlog_window_value=both\n").unwrap();
        let logs = &w.jobs[0].reporting.logs;
        assert!(logs.max_value && logs.both_values);
        let w = load("[a]\nverify=crc32c\nverify_policy=fsynced\n").unwrap();
        assert!(w.jobs[0].checking.verify_fsynced);
        for (opt, says) in [("sprandom=1", "pts-"), ("spr_op=0.15", "sprandom")] {
            let e = load(&format!("[a]\n{opt}\n")).unwrap_err().to_string();
            assert!(e.contains(says), "{opt}: {e}");
        }
        // The issue-time column only changes a log: skipped in a job file, with a warning.
        let s = parse_str(
            "[a]\nsize=1m\nlog_issue_time=1\n",
            Path::new("t.fio"),
            &|_| None,
            0,
        )
        .unwrap();
        let (_, warns) = workload(&s, false).unwrap();
        assert!(warns[0].contains("log_issue_time"), "{warns:?}");
        // ignore_error: fio's three lists, names or numbers, each turning its kind on.
        let j = &load("[a]\nignore_error=EAGAIN,ENOSPC:122,0x54\n")
            .unwrap()
            .jobs[0];
        assert_eq!(j.errors.ignore_error, [vec![11], vec![28, 122], vec![84]]);
        assert_eq!(j.errors.continue_on_error, 7);
        let j = &load("[a]\nignore_error=,ENOSPC\n").unwrap().jobs[0];
        assert_eq!(
            (j.errors.continue_on_error, j.errors.ignore_error[1].clone()),
            (2, vec![28])
        );
        let e = load("[a]\nignore_error=EWHAT\n").unwrap_err().to_string();
        assert!(e.contains("unknown error EWHAT: use its number"), "{e}");
        // continue_on_error, fill_fs (fill_device) and file_append are fio's, not refused.
        let w = load("[a]\ncontinue_on_error=io\nfill_device=1\nfile_append=1\n").unwrap();
        let j = &w.jobs[0];
        assert_eq!(
            (
                j.errors.continue_on_error,
                j.files.fill_fs,
                j.files.file_append
            ),
            (3, true, true)
        );
    }
}
