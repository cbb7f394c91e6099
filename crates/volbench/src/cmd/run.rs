//! `volbench run`: one workload from fio-style options.

use super::usage;
use crate::cli::RunArgs;
use crate::output::Output;
use anyhow::Result;
use std::process::ExitCode;
use workload::fio::{self, OptError};
use workload::{parse_bool, JobSpec, Workload};

fn flag(v: &Option<String>) -> Result<Option<bool>> {
    v.as_deref()
        .map(parse_bool)
        .transpose()
        .map_err(|e| usage(e.to_string()))
}

/// An option error in command-line spelling (`--bs=4x: ...`).
fn cli_error(e: OptError) -> anyhow::Error {
    usage(match e {
        OptError::BadValue { key, value, why } => format!("--{key}={value}: {why}"),
        OptError::MissingValue { key, example } => {
            format!("--{key} needs a value, e.g. --{key}={example}")
        }
        other => other.to_string(),
    })
}

/// The fio options given on the command line, declared ones first, in fio's spelling.
fn given_options(a: &RunArgs) -> Vec<(String, Option<String>)> {
    let mut given: Vec<(String, Option<String>)> = Vec::new();
    let mut opt = |k: &str, v: Option<String>| {
        if let Some(v) = v {
            given.push((k.to_string(), Some(v)));
        }
    };
    opt("name", a.name.clone());
    opt("rw", a.rw.clone());
    opt("rwmixread", a.rwmixread.map(|v| v.to_string()));
    opt("bs", a.bs.clone());
    opt("iodepth", a.iodepth.clone());
    opt("iodepth_batch_submit", a.iodepth_batch_submit.clone());
    opt("numjobs", a.numjobs.clone());
    opt("size", a.size.clone());
    opt("offset", a.offset.clone());
    opt("runtime", a.runtime.clone());
    opt("ramp_time", a.ramp_time.clone());
    opt("direct", a.direct.clone());
    opt("ioengine", a.ioengine.clone());
    opt("filename", a.filename.clone());
    opt(
        "directory",
        a.directory.as_ref().map(|p| p.display().to_string()),
    );
    opt("fsync", a.fsync.map(|v| v.to_string()));
    opt("fdatasync", a.fdatasync.map(|v| v.to_string()));
    opt("end_fsync", a.end_fsync.clone());
    opt("randseed", a.randseed.map(|v| v.to_string()));
    opt("zero_buffers", a.zero_buffers.clone());
    opt("buffer_pattern", a.buffer_pattern.clone());
    opt("verify", a.verify.clone());
    opt("time_based", a.time_based.clone());
    opt("unlink", a.unlink.clone());
    given.extend(a.fio.iter().cloned());
    given
}

/// Turns options into a job: volbench's defaults, then every option given, each applied by the
/// same code that reads fio job files.
pub fn spec_from_args(a: &RunArgs) -> Result<JobSpec> {
    let mut j = JobSpec::default();
    let given = given_options(a);
    if a.fsync.is_some() && a.fdatasync.is_some() {
        return Err(usage(
            "--fsync and --fdatasync exclude each other: pick one",
        ));
    }
    for (k, v) in &given {
        fio::apply(&mut j, k, v.as_deref()).map_err(cli_error)?;
    }
    let runtime_given = a.runtime.is_some() || a.fio.iter().any(|(k, _)| k == "runtime");
    let time_based_flag = match a.fio.iter().rev().find(|(k, _)| k == "time_based") {
        Some((_, v)) => Some(
            v.as_deref()
                .map_or(Ok(true), parse_bool)
                .map_err(|e| usage(e.to_string()))?,
        ),
        None => flag(&a.time_based)?,
    };
    // fio's rule is "time-based only if asked"; volbench's default run is 30 s time-based, but a
    // bare --size means "do this much I/O once", as a fio user expects.
    j.time_based = match time_based_flag {
        Some(t) => t,
        None => runtime_given || j.size.is_none(),
    };
    if !j.time_based && !runtime_given {
        j.runtime = None;
    }
    j.allow_destructive = a.allow_destructive;
    j.validate().map_err(|e| usage(e.to_string()))?;
    Ok(j)
}

pub fn main(a: RunArgs) -> Result<ExitCode> {
    if let Some(jobfile) = &a.jobfile {
        if a.name.is_some() {
            return Err(usage(format!(
                "--name with a job file would add a job (as in fio): put the job in {}",
                jobfile.display()
            )));
        }
        let sections = workload::jobfile::parse_file(jobfile).map_err(|e| usage(e.to_string()))?;
        if sections.iter().all(|s| s.name == "global") {
            return Err(usage(format!(
                "{}: {}",
                workload::shown(&jobfile.display().to_string()),
                workload::fio::OptError::NoJobs
            )));
        }
        // fio's rule: options on the command line are defaults for every job of the file,
        // which the file's own options override (`fio --runtime=30 job.fio`).
        let cli = workload::jobfile::Section {
            name: "global".into(),
            options: given_options(&a)
                .into_iter()
                .map(|(key, value)| workload::jobfile::RawOption {
                    key,
                    value,
                    file: "command line".into(),
                    line: 0,
                })
                .collect(),
            file: "command line".into(),
            line: 0,
        };
        let sections: Vec<_> = std::iter::once(cli).chain(sections).collect();
        let (mut w, warnings) = workload::fio::workload(&sections, a.ignore_unsupported)
            .map_err(|e| usage(e.to_string()))?;
        if a.allow_destructive {
            w.jobs.iter_mut().for_each(|j| j.allow_destructive = true);
        }
        return run_workload(
            w,
            warnings,
            &a.out,
            &a.store,
            true,
            a.showcmd,
            a.parse_only,
            &jobfile.display().to_string(),
            layout(a.shared_file),
        );
    }
    let spec = spec_from_args(&a)?;
    let mut w = Workload {
        jobs: vec![spec],
        ..Default::default()
    };
    if flag(&a.unlink)?.unwrap_or(false) {
        w.jobs[0].unlink = true;
    }
    run_workload(
        w,
        Vec::new(),
        &a.out,
        &a.store,
        false,
        a.showcmd,
        a.parse_only,
        "options",
        layout(a.shared_file),
    )
}

/// How ranks share the storage under mpirun (ignored alone).
fn layout(shared: bool) -> crate::scale::Layout {
    if shared {
        crate::scale::Layout::Shared
    } else {
        crate::scale::Layout::FilePerProcess
    }
}

/// Runs (or shows, or only checks) a workload and writes its report.
#[allow(clippy::too_many_arguments)]
fn run_workload(
    w: Workload,
    warnings: Vec<String>,
    out_args: &crate::cli::OutputArgs,
    store_args: &crate::cli::StoreArgs,
    fio_input: bool,
    showcmd: bool,
    parse_only: bool,
    source: &str,
    layout: crate::scale::Layout,
) -> Result<ExitCode> {
    for warn in warnings.iter().filter(|_| crate::scale::speaks()) {
        eprintln!("warning: {warn}");
    }
    if showcmd {
        crate::output::stdout(format!("{}\n", workload::fio::showcmd(&w)).as_bytes())?;
        return Ok(ExitCode::SUCCESS);
    }
    if parse_only {
        // With a JSON format, the effective jobs (every default filled in) for scripts and
        // for checking that --showcmd round-trips.
        if out_args.output_format.contains("json") {
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
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = Output::open(out_args, fio_input)?;
    let opts = runner::RunOptions {
        stop: super::stop_flag(),
        ..Default::default()
    };
    let mut progress = out.progress();
    let report = crate::scale::run(&w, &opts, &mut progress, layout)?;
    drop(progress);
    // fio's log files, where the jobs asked for them, in the current directory as fio writes
    // them (rank 0 only under MPI: the merged series).
    if crate::scale::is_root() && report.workload.jobs.iter().any(|j| j.logs.any()) {
        if let Err(e) = render::fio_logs::write(&report, std::path::Path::new(".")) {
            eprintln!("warning: the fio log files could not be written: {e}");
        }
    }
    let mut recorder = super::record::Recorder::new(store_args, out.quiet);
    let doc = report::Document::Run(Box::new(report));
    recorder.record(&doc);
    let code = out.emit(&doc)?;
    recorder.announce();
    Ok(code)
}

/// Splits `volbench run`/`sweep` arguments into those clap declares and the other fio options
/// (`--key=value`, `--key value` where the option needs a value, or a bare `--flag`), which the
/// fio option table applies. Anything that is not a fio option stays for clap to reject with
/// its "did you mean".
pub fn split_fio_options(args: Vec<String>) -> (Vec<String>, Vec<(String, Option<String>)>) {
    use clap::CommandFactory;
    let sub = match args.get(1).map(String::as_str) {
        Some(s @ ("run" | "sweep")) => s.to_string(),
        _ => return (args, Vec::new()),
    };
    let cmd = crate::cli::Cli::command();
    let declared: Vec<String> = cmd
        .find_subcommand(&sub)
        .map(|c| {
            c.get_arguments()
                .flat_map(|a| {
                    a.get_long()
                        .into_iter()
                        .chain(a.get_all_aliases().unwrap_or_default())
                        .map(String::from)
                        .collect::<Vec<_>>()
                })
                .collect()
        })
        .unwrap_or_default();
    let mut keep = args[..2].to_vec();
    let mut fio_opts = Vec::new();
    let mut it = args.into_iter().skip(2).peekable();
    while let Some(a) = it.next() {
        let Some(body) = a.strip_prefix("--").filter(|b| !b.is_empty()) else {
            keep.push(a);
            continue;
        };
        let (key, inline) = match body.split_once('=') {
            Some((k, v)) => (k.to_string(), Some(v.to_string())),
            None => (body.to_string(), None),
        };
        if declared.contains(&key) || !fio::is_option(&key) {
            keep.push(a);
            continue;
        }
        let needs_value = matches!(
            fio::apply(&mut JobSpec::default(), &key, None),
            Err(OptError::MissingValue { .. })
        );
        let value = match inline {
            Some(v) => Some(v),
            None if needs_value && it.peek().is_some_and(|n| !n.starts_with("--")) => it.next(),
            None => None,
        };
        fio_opts.push((key.to_ascii_lowercase(), value));
    }
    (keep, fio_opts)
}

/// Output and control flags volbench adds to fio's command line, with whether they take a value.
const OWN_FLAGS: &[(&str, bool)] = &[
    ("store", true),
    ("no-store", false),
    ("label", true),
    ("tag", true),
    ("output-format", true),
    ("output", true),
    ("quiet", false),
    ("q", false),
    ("showcmd", false),
    ("parse-only", false),
    ("ignore-unsupported", false),
    ("shared-file", false),
];

/// True for `volbench run` with `--name`: fio's command line (a pasted `fio --name=...`), which
/// means what it means to fio, fio's defaults included, rather than volbench's single-job form.
pub fn is_fio_cli(args: &[String]) -> bool {
    args.get(1).is_some_and(|a| a == "run")
        && !args
            .iter()
            .skip(2)
            .any(|a| !a.starts_with('-') && std::path::Path::new(a).is_file())
        && args
            .iter()
            .any(|a| a.starts_with("--name=") || *a == "--name")
}

/// fio's command line: options before the first `--name` are global, each `--name` starts a
/// job, and every option means what it means in a job file.
pub fn main_fio_cli(args: &[String]) -> Result<ExitCode> {
    use workload::jobfile::{RawOption, Section};
    let mut out = crate::cli::OutputArgs {
        output_format: "normal".into(),
        output: None,
        quiet: false,
    };
    let (mut showcmd, mut parse_only, mut ignore, mut shared) = (false, false, false, false);
    let mut store = crate::cli::StoreArgs::default();
    let mut sections = vec![Section {
        name: "global".into(),
        options: Vec::new(),
        file: "command line".into(),
        line: 0,
    }];
    let mut it = args.iter().enumerate().peekable();
    while let Some((pos, arg)) = it.next() {
        let Some(body) = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')) else {
            return Err(usage(format!(
                "'{arg}': fio's multi-job command line takes only --option=value arguments"
            )));
        };
        let (key, inline) = match body.split_once('=') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => (body, None),
        };
        if let Some(&(_, takes)) = OWN_FLAGS.iter().find(|(k, _)| *k == key) {
            let value = if takes {
                match inline {
                    Some(v) => Some(v),
                    None => it.next().map(|(_, v)| v.clone()),
                }
                .ok_or_else(|| usage(format!("--{key} needs a value")))?
                .into()
            } else {
                None
            };
            match key {
                "output-format" => out.output_format = value.unwrap(),
                "output" => out.output = Some(value.unwrap().into()),
                "quiet" | "q" => out.quiet = true,
                "showcmd" => showcmd = true,
                "parse-only" => parse_only = true,
                "shared-file" => shared = true,
                "store" => store.store = value.map(Into::into),
                "no-store" => store.no_store = true,
                "label" => store.label = value,
                "tag" => store.tags.extend(value),
                _ => ignore = true,
            }
            continue;
        }
        if key == "name" {
            let name = inline
                .or_else(|| it.next().map(|(_, v)| v.clone()))
                .ok_or_else(|| usage("--name needs a value"))?;
            sections.push(Section {
                name,
                options: Vec::new(),
                file: "command line".into(),
                line: pos + 1,
            });
            continue;
        }
        sections.last_mut().unwrap().options.push(RawOption {
            key: key.to_ascii_lowercase(),
            value: inline,
            file: "command line argument".into(),
            line: pos + 1,
        });
    }
    let (w, warnings) =
        workload::fio::workload(&sections, ignore).map_err(|e| usage(e.to_string()))?;
    run_workload(
        w,
        warnings,
        &out,
        &store,
        true,
        showcmd,
        parse_only,
        "command line",
        layout(shared),
    )
}
