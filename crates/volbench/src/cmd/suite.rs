//! `volbench suite` and `volbench quick`: named, versioned suites shipped as fio job files (each
//! section is a test); quick is the `quick` suite on a temporary file.

use crate::cli::{OutputArgs, QuickArgs, StoreArgs, SuiteArgs};
use crate::output::Output;
use crate::overrides::Overrides;
use crate::points::{checkpoint, run_test};
use crate::usage::usage;
use anyhow::{Context, Result};
use report::{Document, Status, SuiteReport};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use workload::fio::table::names;
use workload::{fio, format_bytes, jobfile, short_size, JobSpec};

/// The shipped suites: name and job file, compiled into the binary.
pub const SUITES: [(&str, &str); 4] = [
    ("quick", include_str!("../../../../suites/quick.fio")),
    (
        "cloud-volume",
        include_str!("../../../../suites/cloud-volume.fio"),
    ),
    ("scaling", include_str!("../../../../suites/scaling.fio")),
    ("crystal", include_str!("../../../../suites/crystal.fio")),
];

/// A header line of a suite file: `; key: value`.
fn header<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .filter_map(|l| l.strip_prefix(';'))
        .filter_map(|l| l.trim().strip_prefix(key))
        .find_map(|l| l.strip_prefix(':'))
        .map(str::trim)
}

fn load(name_or_file: &str) -> Result<(String, String, Vec<jobfile::Section>)> {
    if let Some((name, text)) = SUITES.iter().find(|(n, _)| *n == name_or_file) {
        let sections = jobfile::parse_str(
            text,
            Path::new(&format!("suite {name}")),
            &|k| std::env::var(k).ok(),
            0,
        )
        .map_err(|e| usage(e.to_string()))?;
        let version = header(text, "version").unwrap_or("1");
        return Ok((name.to_string(), version.to_string(), sections));
    }
    let path = Path::new(name_or_file);
    if !path.exists() {
        let names: Vec<&str> = SUITES.iter().map(|(n, _)| *n).collect();
        return Err(usage(format!(
            "no suite named '{name_or_file}': use one of {} or a suite job file",
            names.join(", ")
        )));
    }
    let text = workload::input::read_bounded(path, workload::input::MAX_TEXT)
        .map_err(|e| usage(format!("suite file {} {e}", path.display())))?;
    // Parsed from the text just read (its header lines are needed too), not read again.
    let sections = jobfile::parse_str(&text, path, &|k| std::env::var(k).ok(), 0)
        .map_err(|e| usage(e.to_string()))?;
    let name = header(&text, "volbench-suite")
        .map(String::from)
        .unwrap_or_else(|| {
            path.file_stem()
                .map_or("suite".into(), |s| s.to_string_lossy().into_owned())
        });
    Ok((
        name,
        header(&text, "version").unwrap_or("1").to_string(),
        sections,
    ))
}

/// The swept values a test stands for, so the analysis can find knees across a suite.
fn params(j: &JobSpec) -> Vec<(String, String)> {
    vec![
        (names::RW.into(), j.rw_name().into()),
        (names::BS.into(), workload::short_size(j.bs)),
        (names::IODEPTH.into(), j.effective_iodepth().to_string()),
        (names::NUMJOBS.into(), j.numjobs.to_string()),
    ]
}

/// A suite's test as it runs here: on the suite's file, alone (no stonewall), with the command
/// line's overrides (`--runtime`, `--size`, `--ioengine`, `--direct`) applied by the option table.
fn suite_job(job: &JobSpec, filename: &Path, o: &Overrides) -> Result<JobSpec> {
    let mut j = job.clone();
    j.filename = vec![filename.to_path_buf()];
    j.files.directory = None;
    j.timing.stonewall = false;
    j.allow_destructive |= o.allow_destructive;
    for (k, v) in [
        (names::RUNTIME, &o.runtime),
        (names::SIZE, &o.size),
        (names::IOENGINE, &o.ioengine),
        (names::DIRECT, &o.direct),
    ] {
        if let Some(v) = v {
            fio::apply(&mut j, k, Some(v)).map_err(|e| usage(format!("--{e}")))?;
        }
    }
    Ok(j)
}

/// Runs every job of a suite file as its own test against `target` and reports them together.
/// Where the suite's tests run: in a directory, a private temporary directory (removed with
/// everything in it) holding the test file; else the file or device named.
fn test_file(target: &Path, name: &str) -> Result<(Option<tempfile::TempDir>, PathBuf)> {
    if target.is_dir() {
        let t = tempfile::Builder::new()
            .prefix(&format!(".volbench-{name}-"))
            .tempdir_in(target)
            .with_context(|| {
                format!(
                    "cannot create a temporary directory in {}",
                    target.display()
                )
            })?;
        let f = t.path().join(format!("{name}.test"));
        Ok((Some(t), f))
    } else if target.exists() {
        Ok((None, target.to_path_buf()))
    } else {
        Err(usage(format!(
            "target {} does not exist: give a directory, a file or a block device",
            target.display()
        )))
    }
}

pub fn run_suite(
    name_or_file: &str,
    target: &Path,
    o: &Overrides,
    out_args: &OutputArgs,
    store_args: &StoreArgs,
) -> Result<ExitCode> {
    let (name, version, sections) = load(name_or_file)?;
    let (w, warnings) = fio::workload(&sections, false).map_err(|e| usage(e.to_string()))?;
    for warn in warnings.iter().filter(|_| scaleout::world::speaks()) {
        eprintln!("warning: {warn}");
    }
    let out = Output::open(out_args, false)?;
    let (tmp, filename) = test_file(target, &name)?;
    // Under mpirun a directory gives each rank its own temporary file; a file or device is
    // shared, a region per rank.
    let layout = if tmp.is_some() {
        scaleout::world::Layout::AsGiven
    } else {
        scaleout::world::Layout::Shared
    };
    let stop = crate::stop::stop_flag();
    let opts = runner::RunOptions {
        stop: stop.clone(),
        ..Default::default()
    };
    let recorder = crate::recording::recorder(store_args, out.quiet)?;
    let suite = SuiteReport::started(&name, &version);
    let mut list = runner::Points::new(stop.clone(), Some(w.jobs.len()));
    let mut state = (suite, out, recorder);
    let driver = experiment::Driver {
        layout,
        repeat: o.repeat.plan()?,
        ..experiment::Driver::new(&opts)
    };
    list.each(
        &mut state,
        w.jobs.iter(),
        |(suite, out, _), step, job| {
            let mut j = suite_job(job, &filename, o)?;
            // volbench's own temporary file is written whole before its first test (fio's
            // overwrite): a time-based write that does not cover it (a slow volume, a short
            // --runtime) would leave the reading tests after it unwritten extents to refuse.
            j.files.overwrite |= tmp.is_some();
            let label = j.description.clone().unwrap_or_else(|| j.name.clone());
            let prefix = format!("{} {label} ", step.position());
            let st = run_test(suite, out, &driver, label, params(&j), j, prefix)?;
            Ok(st == Status::Complete)
        },
        checkpoint,
    )?;
    let (mut suite, mut out, mut recorder) = state;
    suite.finish();
    let doc = Document::Suite(Box::new(suite));
    recorder.record(&doc);
    let code = out.emit(&doc)?;
    recorder.announce();
    drop(tmp);
    Ok(code)
}

pub fn main(a: SuiteArgs) -> Result<ExitCode> {
    if a.list {
        crate::output::stdout(
            format!("{:<14} {:>7} {:>6}  about\n", "suite", "version", "tests").as_bytes(),
        )?;
        for (name, text) in SUITES {
            let tests = text
                .lines()
                .filter(|l| l.starts_with('[') && !l.starts_with("[global]"))
                .count();
            crate::output::stdout(
                format!(
                    "{name:<14} {:>7} {tests:>6}  {}\n",
                    header(text, "version").unwrap_or("1"),
                    header(text, "about").unwrap_or("")
                )
                .as_bytes(),
            )?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(name) = &a.show {
        let (_, text) = SUITES.iter().find(|(n, _)| n == name).ok_or_else(|| {
            usage(format!(
                "no suite named '{name}': see volbench suite --list"
            ))
        })?;
        print!("{text}");
        return Ok(ExitCode::SUCCESS);
    }
    let Some(suite) = &a.suite else {
        return Err(usage(
            "name a suite (volbench suite --list shows them) or a suite job file",
        ));
    };
    let target = a.target.clone().unwrap_or_else(crate::cli::here);
    run_suite(suite, &target, &Overrides::of(&a), &a.out, &a.store)
}

/// Below this a file is too small to leave the device's caches, so the numbers mean little.
const MIN_SIZE: u64 = 64 << 20;

/// The default 1 GiB, or, on a small filesystem, the largest multiple of 64 MiB that leaves a
/// fifth of the free space free (said on stderr). A newcomer's first command should run.
fn fitting_size(dir: &Path) -> Result<String> {
    let want = runner::DEFAULT_FILE_SIZE;
    let Some(free) = runner::free_bytes(dir) else {
        return Ok(short_size(want));
    };
    if free >= want + want / 4 {
        return Ok(short_size(want));
    }
    let fits = free / 5 * 4 / MIN_SIZE * MIN_SIZE;
    if fits < MIN_SIZE {
        return Err(usage(format!(
            "only {} is free in {}: quick needs at least {} for its test file; free space or name \
             another directory",
            format_bytes(free as f64),
            dir.display(),
            format_bytes((MIN_SIZE + MIN_SIZE / 4) as f64)
        )));
    }
    eprintln!(
        "note: only {} is free in {}, so quick uses a {} test file instead of {} (--size to choose)",
        format_bytes(free as f64),
        dir.display(),
        format_bytes(fits as f64),
        format_bytes(want as f64)
    );
    Ok(short_size(fits))
}

/// `volbench quick [DIR]`: the `quick` suite (five standard tests) on a temporary file.
pub fn quick(a: QuickArgs) -> Result<ExitCode> {
    if a.dir.exists() && !a.dir.is_dir() {
        return Err(usage(format!(
            "{} is not a directory: quick writes its test file in one; for a device, `volbench suite quick {}` (it asks for --allow-destructive)",
            a.dir.display(),
            a.dir.display()
        )));
    }
    if !a.dir.is_dir() {
        return Err(usage(format!(
            "directory {} does not exist: create it or name another",
            a.dir.display()
        )));
    }
    let size = match &a.size {
        Some(s) => s.clone(),
        None => fitting_size(&a.dir)?,
    };
    let o = Overrides {
        runtime: Some(a.runtime.clone()),
        size: Some(size),
        ioengine: Some(a.ioengine.clone()),
        direct: Some(a.direct.clone()),
        allow_destructive: false,
        repeat: a.repeat.clone(),
    };
    run_suite("quick", &a.dir, &o, &a.out, &a.store)
}
