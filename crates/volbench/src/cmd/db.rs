//! `volbench db`: the TPC-B-like database benchmark (crate `db`) with its output and history.

use crate::cli::DbArgs;
use crate::output::Output;
use crate::usage::usage;
use anyhow::Result;
use db::{DbOptions, EngineKind, Size};
use report::Document;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

fn options(a: &DbArgs) -> Result<DbOptions> {
    // The URL says which engine: --engine is needed only to pick PostgreSQL without one.
    let default = if a.postgres_url.is_some() {
        "postgres"
    } else {
        "sqlite"
    };
    let engine = match a.engine.as_deref().unwrap_or(default) {
        "sqlite" => EngineKind::Sqlite,
        "postgres" | "postgresql" | "pg" => EngineKind::Postgres,
        e => return Err(usage(format!("--engine {e}: choose sqlite or postgres"))),
    };
    if a.postgres_url.is_some() && engine != EngineKind::Postgres {
        return Err(usage(
            "--postgres-url names a PostgreSQL server: drop --engine sqlite",
        ));
    }
    if a.postgres_url.is_some() && !a.dirs.is_empty() {
        return Err(usage(
            "--postgres-url runs on that server: give no DIR with it",
        ));
    }
    if a.clients == 0 || a.clients > 1000 {
        return Err(usage("--clients must be 1 to 1000"));
    }
    if a.scale == 0 || a.scale > 100_000 {
        return Err(usage("--scale must be 1 to 100000"));
    }
    if !matches!(
        a.sqlite_synchronous.to_uppercase().as_str(),
        "OFF" | "NORMAL" | "FULL" | "EXTRA"
    ) {
        return Err(usage(format!(
            "--sqlite-synchronous {}: choose OFF, NORMAL, FULL or EXTRA",
            a.sqlite_synchronous
        )));
    }
    let size = match (a.transactions, &a.time) {
        (Some(0), _) => return Err(usage("--transactions must be at least 1")),
        (Some(n), _) => Size::Transactions(n),
        (None, Some(t)) => {
            Size::Time(workload::parse_duration(t).map_err(|e| usage(format!("--time: {e}")))?)
        }
        (None, None) => Size::Time(Duration::from_secs(10)),
    };
    let targets = directories(a)?;
    Ok(DbOptions {
        targets,
        engine,
        postgres_url: a.postgres_url.clone(),
        scale: a.scale,
        clients: a.clients,
        // As many threads as there are clients at most, as pgbench allows.
        jobs: a.jobs.clamp(1, a.clients.max(1)),
        size,
        sqlite_synchronous: a.sqlite_synchronous.to_uppercase(),
        probe: !a.no_probe,
        command_line: report::secrets::command_line(),
    })
}

/// The directories to run in (the current one by default), each an existing directory.
fn directories(a: &DbArgs) -> Result<Vec<PathBuf>> {
    let targets = if a.dirs.is_empty() {
        vec![crate::cli::here()]
    } else {
        a.dirs.clone()
    };
    match targets.iter().find(|d| !d.is_dir()) {
        Some(d) => Err(usage(format!(
            "{}: not a directory: give existing directories (volbench makes its database inside)",
            d.display()
        ))),
        None => Ok(targets),
    }
}

pub fn main(a: DbArgs) -> Result<ExitCode> {
    let o = options(&a)?;
    let mut out = Output::open(&a.out, false)?;
    let mut recorder = crate::recording::recorder(&a.store, out.quiet)?;
    let show = !out.quiet && std::io::stderr().is_terminal();
    let mut spinner: Option<Live> = None;
    let stop = crate::stop::stop_flag();
    // Other I/O on the directories' devices makes the probe and the run disagree: looked for
    // before anything of ours runs there, as `run` does.
    let dirs: Vec<&std::path::Path> = match &o.postgres_url {
        Some(_) => Vec::new(),
        None => o.targets.iter().map(PathBuf::as_path).collect(),
    };
    let found = host::cheap(&dirs, experiment::hostcheck::WATCH);
    let rep = db::run(&o, stop.clone(), &mut |target, phase| {
        spinner = None;
        if show {
            spinner = Some(Live::start(target, phase));
        }
    });
    drop(spinner);
    // A Ctrl-C during set-up also reaches initdb, pg_ctl or the load (one process group):
    // their failure is the stop's doing, not an error to report as one.
    if rep.is_err() && stop.load(std::sync::atomic::Ordering::Relaxed) {
        eprintln!("stopped during set-up: nothing was measured");
        return Ok(ExitCode::from(130));
    }
    let mut rep = rep?;
    rep.warnings.extend(experiment::hostcheck::records(&found));
    let doc = Document::Db(Box::new(rep));
    recorder.record(&doc);
    let code = out.emit(&doc)?;
    recorder.announce();
    Ok(code)
}

/// A spinner on stderr for one phase of one target; during the run it shows the transactions
/// committed so far and their rate. Cleared when dropped.
struct Live {
    bar: indicatif::ProgressBar,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Live {
    fn start(target: &str, phase: &str) -> Live {
        use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
        let bar = indicatif::ProgressBar::new_spinner();
        let what = match phase {
            "load" => "creating and loading the tables",
            "probe" => "measuring the flush latency",
            _ => "running the clients",
        };
        bar.set_message(format!("{target}: {what}"));
        bar.enable_steady_tick(Duration::from_millis(120));
        let stop = std::sync::Arc::new(AtomicBool::new(false));
        let thread = (phase == "run").then(|| {
            let (bar, stop, target) = (bar.clone(), stop.clone(), target.to_string());
            std::thread::spawn(move || {
                let began = std::time::Instant::now();
                while !stop.load(Relaxed) {
                    std::thread::sleep(Duration::from_millis(250));
                    let n = db::LIVE_COMMITS.load(Relaxed);
                    let secs = began.elapsed().as_secs_f64().max(1e-3);
                    bar.set_message(format!(
                        "{target}: {n} transactions, {:.0} tps, {secs:.0} s",
                        n as f64 / secs
                    ));
                }
            })
        });
        Live { bar, stop, thread }
    }
}

impl Drop for Live {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        self.bar.finish_and_clear();
    }
}
