//! `volbench durability cycle`: the power-cut loop (crate `durability`, module `cycle`):
//! checks the command line into a plan, runs it with a line per step on stderr, and reports,
//! stores and exits as verify does (0 nothing lost, 3 a loss, 1 an error, 130 Ctrl-C).

use crate::cli::CycleArgs;
use crate::output::Output;
use crate::usage::usage;
use anyhow::Result;
use durability::cycle::{self, Plan, Witness, WitnessPlan};
use report::Document;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;
use workload::parse_duration;

/// "30s-90s": the shortest and the longest wait before a cut.
fn wait_range(v: &str) -> Result<(Duration, Duration)> {
    let bad = || usage(format!("--wait {v}: give MIN-MAX, e.g. 30s-90s"));
    let (a, b) = v.split_once('-').ok_or_else(bad)?;
    let (a, b) = (
        parse_duration(a).map_err(|_| bad())?,
        parse_duration(b).map_err(|_| bad())?,
    );
    if a.is_zero() || a > b {
        return Err(usage(format!(
            "--wait {v}: MIN must be above 0 and not above MAX"
        )));
    }
    Ok((a, b))
}

/// The witness the loop uses, and where its journal and the loop's state live.
fn witness(a: &CycleArgs) -> Result<(WitnessPlan, PathBuf)> {
    let journal = match &a.journal {
        Some(j) => j.clone(),
        None => {
            let j = store::Store::local_path().with_file_name("durability-cycle.db");
            crate::durable::private_dir(&j)?;
            j
        }
    };
    let state = PathBuf::from(format!("{}.cycle.json", journal.display()));
    if let (Some(addr), Some(token)) = (&a.witness, &a.token) {
        let w = Witness {
            addr: addr.clone(),
            token: token.clone(),
        };
        return Ok((WitnessPlan::Given(w), state));
    }
    let listen: SocketAddr = a.listen.parse().map_err(|_| {
        usage(format!(
            "--listen {}: give an address and port the tested machine reaches, e.g. 10.0.0.5:7810",
            a.listen
        ))
    })?;
    if listen.ip().is_unspecified() {
        return Err(usage(format!(
            "--listen {}: create and verify are told this address, so name the one the tested machine reaches (e.g. 10.0.0.5:7810), not a wildcard",
            a.listen
        )));
    }
    if listen.ip().is_loopback() && a.remote.is_some() {
        eprintln!("warning: --listen {listen} is loopback: the tested machine reaches it only through a tunnel (ssh -R); name an address it reaches");
    }
    Ok((WitnessPlan::Own { listen, journal }, state))
}

fn plan(a: &CycleArgs) -> Result<Plan> {
    if !a.file.starts_with('/') {
        return Err(usage(format!(
            "{}: give the file as an absolute path on the tested machine",
            a.file
        )));
    }
    if !(1..=10_000).contains(&a.cycles) {
        return Err(usage("--cycles: from 1 to 10000"));
    }
    let (size, block, _) = crate::durable::record_options(&a.rec)?;
    let dur = |opt: &str, v: &str| parse_duration(v).map_err(|e| usage(format!("--{opt}: {e}")));
    let (witness, state) = witness(a)?;
    let volbench = match (&a.volbench, &a.remote) {
        (Some(v), _) => v.clone(),
        (None, Some(_)) => "volbench".into(),
        (None, None) => std::env::current_exe()?.display().to_string(),
    };
    Ok(Plan {
        file: a.file.clone(),
        cycles: a.cycles,
        wait: wait_range(&a.wait)?,
        cut: a.cut.clone(),
        boot: a.boot.clone(),
        up: a.up.clone(),
        remote: a.remote.clone().unwrap_or_default(),
        volbench,
        witness,
        size,
        block,
        sync: a.rec.sync.clone(),
        threads: a.rec.threads,
        stop_on_loss: a.stop_on_loss,
        resume: a.resume,
        fsync: !a.no_fsync,
        up_timeout: dur("up-timeout", &a.up_timeout)?,
        step_timeout: dur("step-timeout", &a.step_timeout)?,
        state,
        command_line: report::secrets::command_line(),
    })
}

pub fn main(a: CycleArgs) -> Result<ExitCode> {
    let p = plan(&a)?;
    let mut out = Output::open(&a.out, false)?;
    let mut recorder = crate::recording::recorder(&a.store, out.quiet)?;
    let _ = crate::stop::STOP_MESSAGE.set(
        "stopping the loop: create is stopped and a power cut under way finishes first; continue with --resume",
    );
    let quiet = out.quiet;
    let mut say = |line: &str| {
        if !quiet {
            eprintln!("{line}");
        }
    };
    let rep = cycle::run(&p, crate::stop::stop_flag(), &mut say)?;
    let code = cycle::exit_code(&rep);
    let doc = Document::Durability(Box::new(rep));
    recorder.record(&doc);
    out.emit(&doc)?;
    recorder.announce();
    Ok(ExitCode::from(code))
}
