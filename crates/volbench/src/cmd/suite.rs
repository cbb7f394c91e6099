//! `volbench suite`: named, versioned suites shipped as fio job files; each section is a test.

use super::overrides::Overrides;
use super::record::Recorder;
use super::usage;
use crate::cli::{OutputArgs, RepeatArgs, StoreArgs, SuiteArgs};
use crate::output::Output;
use anyhow::{Context, Result};
use report::{Document, Status, SuiteReport, SuiteRun};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use workload::fio::table::names;
use workload::{fio, jobfile, JobSpec, Workload};

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
    // A directory gets a private temporary directory, removed with everything in it.
    let (tmp, filename): (Option<tempfile::TempDir>, PathBuf) = if target.is_dir() {
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
        (Some(t), f)
    } else if target.exists() {
        (None, target.to_path_buf())
    } else {
        return Err(usage(format!(
            "target {} does not exist: give a directory, a file or a block device",
            target.display()
        )));
    };
    // Under mpirun a directory gives each rank its own temporary file; a file or device is
    // shared, a region per rank.
    let layout = if tmp.is_some() {
        scaleout::world::Layout::AsGiven
    } else {
        scaleout::world::Layout::Shared
    };
    let stop = super::stop_flag();
    let opts = runner::RunOptions {
        stop: stop.clone(),
        ..Default::default()
    };
    let recorder = Recorder::new(store_args, out.quiet)?;
    let suite = SuiteReport::started(&name, &version);
    let mut list = runner::Points::new(stop.clone(), Some(w.jobs.len()));
    let mut state = (suite, out, recorder);
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
            let how = (&opts, layout, &o.repeat);
            let st = run_test(suite, out, how, label, params(&j), j, prefix)?;
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

/// What a suite or sweep keeps while its points run: the report, the output and the store.
pub type Running = (SuiteReport, Output, Recorder);

/// Written after every point (store and `--output`), so an interrupted suite or sweep keeps
/// what it measured.
pub fn checkpoint((suite, out, recorder): &mut Running) -> Result<()> {
    let doc = Document::Suite(Box::new(suite.clone()));
    recorder.record(&doc);
    out.checkpoint(&doc)
}

/// Runs one test of a suite or sweep (a single job), appends it with its swept values, and
/// redoes the analysis over everything so far. Returns how the test ended.
pub fn run_test(
    suite: &mut SuiteReport,
    out: &Output,
    (opts, layout, repeat): (&runner::RunOptions, scaleout::world::Layout, &RepeatArgs),
    label: String,
    params: Vec<(String, String)>,
    spec: JobSpec,
    prefix: String,
) -> Result<Status> {
    let w = Workload {
        jobs: vec![spec],
        ..Default::default()
    };
    let mut once = || -> Result<report::RunReport> {
        let checks = super::hostcheck::before(&w);
        let mut bar = out.progress();
        bar.set_prefix(prefix.clone());
        let mut report = scaleout::world::run(&w, opts, &mut bar, layout)?;
        drop(bar);
        checks.into_report(&mut report);
        Ok(report)
    };
    let report = if repeat.repeat.is_some() || repeat.until_stable.is_some() {
        super::repeat::runs(repeat, &opts.stop, &mut once)?
    } else {
        once()?
    };
    let st = report.status;
    suite.runs.push(SuiteRun {
        label,
        params,
        report,
    });
    suite.findings = report::analysis::analyze(suite);
    if st != Status::Complete {
        suite.status = st;
    }
    Ok(st)
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
    let o = Overrides {
        runtime: a.runtime.clone(),
        size: a.size.clone(),
        ioengine: a.ioengine.clone(),
        direct: a.direct.clone(),
        allow_destructive: a.allow_destructive,
        repeat: a.repeat.clone(),
    };
    let target = a.target.clone().unwrap_or_else(crate::cli::here);
    if suite.starts_with("pts-") {
        let p = super::pts::PtsOptions {
            capacity: a.capacity.as_deref(),
            client: a.profile == "client",
            max_rounds: a.rounds,
            out: &a.out,
            store: &a.store,
        };
        return super::pts::run(suite, &target, &o, &p);
    }
    run_suite(suite, &target, &o, &a.out, &a.store)
}
