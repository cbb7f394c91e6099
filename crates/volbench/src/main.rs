//! volbench: how fast is this volume really, for my workload?
//!
//! Table of contents: parse the command line (`cli`), dispatch to a thin subcommand (`cmd`),
//! print one `error:` line on failure. Exit codes: 0 done, 1 run failed or partial,
//! 2 usage error, 130 interrupted.

mod args;
mod argv;
mod catalog;
mod cli;
mod cmd;
mod durable;
mod inputs;
mod live;
mod output;
mod overrides;
mod points;
mod recording;
mod stop;
mod usage;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let code = dispatch();
    crate::stop::FINISHED.store(true, std::sync::atomic::Ordering::SeqCst);
    // MPI_Finalize, when this process joined an MPI world.
    scaleout::world::shutdown();
    code
}

fn dispatch() -> ExitCode {
    let given: Vec<String> = std::env::args().collect();
    // Read from here on is this copy: a password or token in argv can go now (issue 63).
    argv::hide_secrets();
    let args = match fio_argv(cli::subcommand_first(given)) {
        Ok(a) => a,
        Err(e) => return finish(Err(e)),
    };
    // fio's command line repeats --name, one per job: clap's one-value options cannot hold that,
    // so that form goes through the fio option layer directly.
    if cmd::run::is_fio_cli(&args) {
        if let Err(e) = usage::refused_if(scaleout::world::init("run")) {
            return refused_launch(e);
        }
        cmd::clean::at_start();
        return finish(cmd::run::main_fio_cli(&args[2..]));
    }
    // `volbench help --help` asks for help about help: the top-level help answers it.
    if args.get(1).is_some_and(|a| a == "help")
        && args[2..].iter().any(|a| a == "--help" || a == "-h")
    {
        return usage::usage_error(
            <cli::Cli as clap::CommandFactory>::command()
                .try_get_matches_from(["volbench", "--help"])
                .unwrap_err(),
        );
    }
    // fio options the clap declaration does not list are taken out here and applied by the
    // fio option table, so `--blocksize=8k` or `--norandommap` work as in a job file.
    let (args, fio) = cmd::run::split_fio_options(args);
    let sub = args.get(1).cloned().unwrap_or_default();
    let mut cli = match cli::Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => return usage::usage_error(e),
    };
    // Under a launcher of several processes: join the MPI world, or refuse to run N copies.
    if let Err(e) = usage::refused_if(scaleout::world::init(&sub)) {
        return refused_launch(e);
    }
    if !matches!(cli.cmd, cli::Cmd::Clean(_)) {
        cmd::clean::at_start();
    }
    let _watch = match live::start(&cli.cmd.live()) {
        Ok(w) => w,
        Err(e) => return finish(Err(crate::usage::usage(format!("{e:#}")))),
    };
    match &mut cli.cmd {
        cli::Cmd::Run(a) => a.fio = fio,
        cli::Cmd::Sweep(a) => a.run.fio = fio,
        cli::Cmd::Curve(a) => a.fio = fio,
        _ => {}
    }
    finish(run(cli.cmd))
}

/// The subcommand, run.
fn run(c: cli::Cmd) -> anyhow::Result<ExitCode> {
    match c {
        cli::Cmd::Run(a) => cmd::run::main(*a),
        cli::Cmd::Quick(a) => cmd::suite::quick(a),
        cli::Cmd::Sweep(a) => cmd::sweep::main(*a),
        cli::Cmd::Curve(a) => cmd::curve::main(*a),
        cli::Cmd::Suite(a) if a.is_pts() => cmd::pts::main(a),
        cli::Cmd::Suite(a) => cmd::suite::main(a),
        cli::Cmd::History(a) => cmd::history::history(a),
        cli::Cmd::Show(a) => cmd::history::show(a),
        cli::Cmd::Export(a) => cmd::history::export(a),
        cli::Cmd::Delete(a) => cmd::history::delete(a),
        cli::Cmd::Store(c) => match c {
            cli::StoreCmd::Copy(a) => cmd::storecmd::copy(a),
            cli::StoreCmd::Push(a) => cmd::storecmd::push(a),
        },
        cli::Cmd::Serve(a) => cmd::serve::main(a),
        cli::Cmd::Compare(a) => cmd::compare::main(a),
        cli::Cmd::Report(a) => cmd::report::main(a),
        cli::Cmd::Chart(a) => cmd::report::chart(a),
        cli::Cmd::Fsync(a) => cmd::fsync::main(a),
        cli::Cmd::Durability(c) => match c {
            cli::DurabilityCmd::Serve(a) => cmd::durability::serve(a),
            cli::DurabilityCmd::Create(a) => cmd::durability::create(a),
            cli::DurabilityCmd::Verify(a) => cmd::durability::verify(a),
            cli::DurabilityCmd::Cycle(a) => cmd::cycle::main(*a),
        },
        cli::Cmd::Db(a) => cmd::db::main(a),
        cli::Cmd::Cloud(c) => cmd::cloud::main(c),
        cli::Cmd::Infer(a) => cmd::infer::main(a),
        cli::Cmd::Emulate(a) => cmd::emulate::main(a),
        cli::Cmd::Clean(a) => cmd::clean::main(a),
        cli::Cmd::Doctor(a) => cmd::doctor::main(a),
        cli::Cmd::Trace(c) => match c {
            cli::TraceCmd::Record(a) => cmd::trace::record(a),
            cli::TraceCmd::Summary(a) => cmd::trace::summary(a),
            cli::TraceCmd::Convert(a) => cmd::trace::convert(a),
        },
        cli::Cmd::Replay(a) => cmd::replay::args(*a).and_then(cmd::run::main),
        cli::Cmd::Completions(a) => cmd::manual::completions(a),
        cli::Cmd::Man(a) => cmd::manual::man(a),
    }
}

/// `volbench run` with a pasted fio command line: fio's single-dash form and its
/// command-line-only options, as fio reads them (see `workload::fio::cmdline::fio_argv`).
fn fio_argv(args: Vec<String>) -> anyhow::Result<Vec<String>> {
    if args.get(1).map(String::as_str) != Some("run") {
        return Ok(args);
    }
    let (rest, note) =
        workload::fio::cmdline::fio_argv(args[2..].to_vec()).map_err(usage::usage)?;
    if let Some(n) = note.filter(|_| scaleout::world::speaks()) {
        eprintln!("note: {n}");
    }
    Ok(args[..2].iter().cloned().chain(rest).collect())
}

/// A launch of several processes refused on every rank alike: rank 0 says why and exits 2;
/// the others leave quietly with 0. Open MPI's mpirun kills the whole job when a process
/// exits non-zero, so a silent rank that got there first killed rank 0 before it could say
/// why (a rank 0 started a second late said nothing at all); the job's status is rank 0's.
fn refused_launch(e: anyhow::Error) -> ExitCode {
    if scaleout::world::speaks() {
        finish(Err(e))
    } else {
        ExitCode::SUCCESS
    }
}

fn finish(result: anyhow::Result<ExitCode>) -> ExitCode {
    let misconfigured = store::STORE_MISCONFIGURED.load(std::sync::atomic::Ordering::SeqCst);
    match result {
        // The result was shown and kept locally, but the store named was set up wrongly.
        Ok(code) if misconfigured && code == ExitCode::SUCCESS => ExitCode::from(2),
        Ok(code) => code,
        Err(e) => {
            // Under MPI every rank holds the same (merged) error: rank 0 says it once.
            if scaleout::world::speaks() {
                eprintln!("error: {}", crate::usage::one_line(&e));
            }
            let run_error = e.downcast_ref::<runner::RunError>();
            let interrupted = matches!(run_error, Some(runner::RunError::InterruptedLayout { .. }));
            let input = run_error.is_some_and(runner::RunError::is_input);
            let store_setup = e
                .downcast_ref::<store::StoreError>()
                .is_some_and(store::StoreError::is_setup);
            ExitCode::from(
                if e.is::<crate::usage::UsageError>() || input || store_setup {
                    2
                } else if interrupted {
                    130
                } else {
                    1
                },
            )
        }
    }
}
