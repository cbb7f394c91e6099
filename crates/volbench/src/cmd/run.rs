//! `volbench run`: one workload from fio-style options.

use crate::cli::RunArgs;
use crate::output::Output;
use crate::usage::usage;
use anyhow::Result;
use std::process::ExitCode;
use workload::fio::cmdline::{self, Given};
use workload::fio::{self, OptError};

use workload::Workload;

pub fn main(a: RunArgs) -> Result<ExitCode> {
    let Some(jobfile) = &a.jobfile else {
        let job = a.spec()?;
        // volbench's own default depth (32) is not the user's: the note is for one given.
        let depth_given = a
            .fio
            .iter()
            .any(|(k, _)| fio::canonical(k) == fio::table::names::IODEPTH);
        let depth = fio::depth_note(&job).filter(|_| depth_given);
        let verify = fio::verify_note(&job);
        let notes = cmdline::notes(&a.fio)
            .into_iter()
            .chain(depth)
            .chain(verify);
        let w = Workload {
            jobs: vec![job],
            ..Default::default()
        };
        return run_workload(w, notes.collect(), &a, false, "options");
    };
    if a.fio
        .iter()
        .any(|(k, _)| fio::canonical(k) == fio::table::names::NAME)
    {
        return Err(usage(format!(
            "--{} with a job file would add a job (as in fio): put the job in {}",
            fio::table::names::NAME,
            jobfile.display()
        )));
    }
    if let Some(why) = value_taken_as_jobfile(jobfile) {
        return Err(usage(why));
    }
    let mut sections = workload::jobfile::parse_file(jobfile).map_err(|e| usage(e.to_string()))?;
    // fio's --section: those jobs only (the [global] sections stay, as fio keeps them).
    if !a.section.is_empty() {
        sections.retain(|s| s.name == "global" || a.section.contains(&s.name));
    }
    if sections.iter().all(|s| s.name == "global") {
        return Err(usage(format!(
            "{}: {}",
            workload::shown(&jobfile.display().to_string()),
            OptError::NoJobs
        )));
    }
    // fio's rule: options on the command line are defaults for every job of the file, which
    // the file's own options override (`fio --runtime=30 job.fio`): said, not silent.
    if let Some(note) = cmdline::overridden(&a.fio, &sections) {
        if scaleout::world::speaks() {
            eprintln!("note: {note}");
        }
    }
    let sections: Vec<_> = std::iter::once(cmdline::as_global(&a.fio))
        .chain(sections)
        .collect();
    let (w, warnings) = fio::workload(&sections, a.ignore_unsupported).map_err(|e| {
        let names = sections.iter().map(|s| s.name.as_str());
        let names: Vec<&str> = names.filter(|&n| n != "global").collect();
        failed_as_fio(&a, &names, &e.to_string());
        usage(e.to_string())
    })?;
    run_workload(w, warnings, &a, true, &jobfile.display().to_string())
}

/// A job file refused, or jobs that failed before any I/O, under a fio JSON format: fio's
/// document with each job's error goes out before the error line (fio 3.33 writes one for
/// jobs whose engine cannot start), so a harness reading fio's JSON finds the jobs and why.
fn failed_as_fio(a: &RunArgs, names: &[&str], why: &str) {
    let Ok(mut out) = Output::open(&a.out, true) else {
        return;
    };
    if !matches!(
        out.format,
        render::Format::FioJson | render::Format::FioJsonPlus
    ) {
        return;
    }
    let now = std::time::SystemTime::now();
    let unix = now
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let at = humantime::format_rfc3339_seconds(now).to_string();
    let doc = render::fio_json::failed(names, why, unix, &at);
    if let Ok(mut v) = serde_json::to_vec_pretty(&doc) {
        v.push(b'\n');
        let _ = out.write(&v);
    }
}

/// `--direct 1`, as clap users type a value: fio's options take their value after '=' where
/// it is optional (fio refuses the form too), so the `1` became a job file that does not
/// exist. Says so, with the form that works, rather than "1: no such file".
fn value_taken_as_jobfile(jobfile: &std::path::Path) -> Option<String> {
    if jobfile.exists() {
        return None;
    }
    let given = jobfile.to_str()?;
    let args: Vec<String> = std::env::args().collect();
    let at = args.iter().position(|a| a == given)?;
    let prev = args.get(at.checked_sub(1)?)?;
    let key = prev.trim_start_matches('-');
    (prev.starts_with('-') && !key.contains('=') && fio::is_option(key)).then(|| {
        format!(
            "`{prev} {given}`: give the value after '=' ({prev}={given}), as fio takes it; as \
             given, '{given}' was read as a job file, and there is none"
        )
    })
}

/// How ranks share the storage under mpirun (ignored alone).
fn layout(shared: bool) -> scaleout::world::Layout {
    if shared {
        scaleout::world::Layout::Shared
    } else {
        scaleout::world::Layout::FilePerProcess
    }
}

/// Runs (or shows, or only checks) a workload and writes its report; `a` gives volbench's own
/// flags (output, store, --showcmd, --parse-only, --shared-file).
fn run_workload(
    w: Workload,
    warnings: Vec<String>,
    a: &RunArgs,
    fio_input: bool,
    source: &str,
) -> Result<ExitCode> {
    for warn in warnings.iter().filter(|_| scaleout::world::speaks()) {
        eprintln!("warning: {warn}");
    }
    crate::live::identify("workload", source);
    if let Some(j) = w.jobs.iter().find(|j| a.readonly && j.rw.writes()) {
        return Err(usage(format!(
            "--readonly: job {} writes ({}); drop --readonly or the writes",
            j.name,
            j.rw_name()
        )));
    }
    if a.showcmd {
        crate::output::stdout(format!("{}\n", workload::fio::showcmd(&w)).as_bytes())?;
        return Ok(ExitCode::SUCCESS);
    }
    if a.parse_only {
        return parse_only(&w, a, source);
    }
    let mut out = Output::open(&a.out, fio_input)?;
    out.no_progress |= a.eta.as_deref() == Some("never");
    // Before the measurement: a store that cannot take the result is said now (exit 2).
    let mut recorder = crate::recording::recorder(&a.store, out.quiet)?;
    let opts = runner::RunOptions {
        stop: crate::stop::stop_flag(),
        ..Default::default()
    };
    let report = measured(&w, a, &opts, &out, fio_input)?;
    // fio's log files, where the jobs asked for them, in the current directory as fio writes
    // them (rank 0 only under MPI: the merged series).
    if scaleout::world::is_root() && report.workload.jobs.iter().any(|j| j.reporting.logs.any()) {
        if let Err(e) = render::fio_logs::write(&report, std::path::Path::new(".")) {
            eprintln!("warning: {e}");
        }
    }
    let doc = report::Document::Run(Box::new(report));
    recorder.record(&doc);
    let code = out.emit(&doc)?;
    recorder.announce();
    Ok(code)
}

/// `--parse-only`: the effective jobs as JSON with a JSON format, else one line naming them.
fn parse_only(w: &Workload, a: &RunArgs, source: &str) -> Result<ExitCode> {
    // With a JSON format, the effective jobs (every default filled in) for scripts and
    // for checking that --showcmd round-trips.
    if a.out.output_format.contains("json") {
        let mut v = serde_json::to_vec_pretty(&w.jobs)?;
        v.push(b'\n');
        crate::output::stdout(&v)?;
        return Ok(ExitCode::SUCCESS);
    }
    let threads: u32 = w.jobs.iter().map(|j| j.numjobs).sum();
    let n = w.jobs.len();
    let clones = if threads as usize != n {
        format!(" ({threads} threads with numjobs)")
    } else {
        String::new()
    };
    crate::output::stdout(
        format!(
            "{source}: {n} job{}{clones}, no errors\n",
            if n == 1 { "" } else { "s" }
        )
        .as_bytes(),
    )?;
    Ok(ExitCode::SUCCESS)
}

/// The run (or its repeats); jobs that could not start get fio's document with their error
/// under a fio JSON format before the error goes up.
fn measured(
    w: &Workload,
    a: &RunArgs,
    opts: &runner::RunOptions,
    out: &Output,
    fio_input: bool,
) -> Result<report::RunReport> {
    // A bad --until-stable is refused as the run's error, so a fio job file still gets
    // fio's document with it, as when the repeats checked it before their first run.
    let report = a.repeat.plan().and_then(|repeat| {
        let driver = experiment::Driver {
            layout: layout(a.shared_file),
            repeat,
            ..experiment::Driver::new(opts)
        };
        driver.measure(w, &mut || Box::new(out.progress()))
    });
    report.inspect_err(|e| {
        if fio_input {
            let clones = w
                .jobs
                .iter()
                .flat_map(|j| std::iter::repeat_n(j.name.as_str(), j.numjobs as usize));
            failed_as_fio(a, &clones.collect::<Vec<_>>(), &format!("{e:#}"));
        }
    })
}

/// Splits `volbench run`/`sweep` arguments into volbench's own (for clap) and fio's options,
/// which the option table applies (`--key=value`, `--key value` where the option takes a value,
/// or a bare `--flag`). Anything that is neither stays for clap to reject with its "did you
/// mean".
pub fn split_fio_options(args: Vec<String>) -> (Vec<String>, Vec<Given>) {
    let sub = match args.get(1).map(String::as_str) {
        Some(s @ ("run" | "sweep" | "curve")) => s.to_string(),
        _ => return (args, Vec::new()),
    };
    let own = crate::cli::own_flags(&sub);
    let mut keep = args[..2].to_vec();
    let (rest, fio) = cmdline::split(args[2..].to_vec(), &|k| own.iter().any(|(n, _)| n == k));
    keep.extend(rest);
    (keep, fio)
}

/// True for `volbench run` with `--name`: fio's command line (a pasted `fio --name=...`), which
/// means what it means to fio, fio's defaults included, rather than volbench's single-job form.
pub fn is_fio_cli(args: &[String]) -> bool {
    args.get(1).is_some_and(|a| a == "run")
        && !args
            .iter()
            .skip(2)
            .any(|a| !a.starts_with('-') && std::path::Path::new(a).is_file())
        && cmdline::starts_jobs(args)
}

/// fio's command line: options before the first `--name` are global, each `--name` starts a
/// job, and every option means what it means in a job file. volbench's own flags among them
/// are read by clap, as for any `volbench run`.
pub fn main_fio_cli(args: &[String]) -> Result<ExitCode> {
    use clap::Parser;
    let own = crate::cli::own_flags("run");
    let takes = |k: &str| own.iter().find(|(n, _)| n == k).map(|(_, t)| *t);
    let (sections, mine) = cmdline::sections(args, &takes).map_err(usage)?;
    let mut argv = vec!["volbench".to_string(), "run".to_string()];
    for (k, v) in mine {
        argv.push(if k.len() == 1 {
            format!("-{k}")
        } else {
            format!("--{k}")
        });
        argv.extend(v);
    }
    let (a, live) = match crate::cli::Cli::try_parse_from(argv) {
        Ok(crate::cli::Cli {
            cmd: crate::cli::Cmd::Run(a),
        }) => {
            let live = a.live.clone();
            (a, live)
        }
        Ok(_) => return Err(usage("fio's command line is volbench run's")),
        Err(e) => {
            let msg = e.to_string();
            let line = msg.lines().next().unwrap_or_default();
            return Err(usage(line.trim_start_matches("error: ").to_string()));
        }
    };
    let (w, warnings) =
        fio::workload(&sections, a.ignore_unsupported).map_err(|e| usage(e.to_string()))?;
    let _watch = crate::live::start(&live).map_err(|e| usage(format!("{e:#}")))?;
    run_workload(w, warnings, &a, true, "command line")
}
