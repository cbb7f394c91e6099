//! volbench: how fast is this volume really, for my workload?
//!
//! Table of contents: parse the command line (`cli`), dispatch to a thin subcommand (`cmd`),
//! print one `error:` line on failure. Exit codes: 0 done, 1 run failed or partial,
//! 2 usage error, 130 interrupted.

mod cli;
mod cmd;
mod output;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(c) => c,
        Err(e) => return cmd::usage_error(e),
    };
    let result = match cli.cmd {
        cli::Cmd::Run(a) => cmd::run::main(*a),
        cli::Cmd::Quick(a) => cmd::quick::main(a),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}", cmd::one_line(&e));
            ExitCode::from(if e.is::<cmd::UsageError>() { 2 } else { 1 })
        }
    }
}
