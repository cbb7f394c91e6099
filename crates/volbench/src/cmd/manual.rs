//! `volbench completions SHELL` and `volbench man DIR`: the shell completions and man pages,
//! generated from the clap definitions, fio's options (from the one option table) included,
//! so what a package ships cannot drift from what the binary accepts.

use crate::cli::{Cli, CompletionsArgs, ManArgs};
use anyhow::{Context, Result};
use clap::CommandFactory;
use std::path::Path;
use std::process::ExitCode;

pub fn completions(a: CompletionsArgs) -> Result<ExitCode> {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "volbench", &mut out);
    crate::output::stdout(&out)?;
    Ok(ExitCode::SUCCESS)
}

pub fn man(a: ManArgs) -> Result<ExitCode> {
    // Made only where no link another user could have put on the way leads elsewhere.
    let up = outfile::parent(&a.dir);
    if let Some(why) = outfile::planted_by_others(up).filter(|_| up.is_dir()) {
        outfile::held_dir(up, &a.dir, &why).map_err(|e| crate::usage::usage(e.to_string()))?;
    }
    std::fs::create_dir_all(&a.dir)
        .with_context(|| format!("cannot create {}", a.dir.display()))?;
    let mut cmd = Cli::command();
    cmd.build();
    let n = write_pages(&cmd, "volbench", &a.dir)?;
    eprintln!("{n} man pages written to {}", a.dir.display());
    Ok(ExitCode::SUCCESS)
}

/// Writes `name.1` for `cmd` and, below it, `name-SUB.1` for each subcommand (`help` aside);
/// returns how many pages were written.
fn write_pages(cmd: &clap::Command, name: &str, dir: &Path) -> Result<usize> {
    // The page's title and synopsis read as the command is typed: "volbench-durability-serve"
    // titles the page, while the synopsis shows "volbench durability serve".
    let page = cmd.clone().name(name.to_string());
    let mut text = Vec::new();
    clap_mangen::Man::new(page).render(&mut text)?;
    let path = dir.join(format!("{name}.1"));
    crate::output::write_named("a man page", &path, &text)?;
    let mut n = 1;
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        n += write_pages(sub, &format!("{name}-{}", sub.get_name()), dir)?;
    }
    Ok(n)
}
