//! Watching a run while it goes: `--metrics-listen` (an OpenMetrics endpoint), `--live` (one
//! line per job and host, redrawn each second), `--status-interval` (those lines every N
//! seconds, as intervals) and `--interval-log` (NDJSON interval records as they are made).
//!
//! All of them read the runner's live board (`runner::board`), which stays off, and costs
//! nothing, unless one of these flags turns it on. Every measuring command runs through the
//! runner, so every one of them is watched the same way.

use crate::cli::LiveArgs;
use anyhow::{bail, Context, Result};
use runner::board::{self, Board, Figures, JobFigures, Record};
use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The live view replaces the progress bar (two redrawn displays would fight over stderr).
pub static VIEW_ON: AtomicBool = AtomicBool::new(false);

/// What watches the run: stopped, and its last records written, when dropped.
pub struct Watch {
    stop: Arc<AtomicBool>,
    view: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.stop.store(true, Relaxed);
        if let Some(v) = self.view.take() {
            let _ = v.join();
        }
    }
}

/// Starts what the flags ask for (nothing without them).
pub fn start(a: &LiveArgs) -> Result<Option<Watch>> {
    let wanted = a.metrics_listen.is_some()
        || a.live
        || a.status_interval.is_some()
        || a.interval_log.is_some();
    if !wanted {
        return Ok(None);
    }
    let board = board::enable();
    board.set_info("command", &command_name());
    // Under MPI the other ranks send their figures to rank 0, which serves and shows them all.
    if !scaleout::world::is_root() {
        return Ok(None);
    }
    let stop = Arc::new(AtomicBool::new(false));
    if let Some(addr) = &a.metrics_listen {
        serve(addr, a.metrics_token_file.as_deref(), board, stop.clone())?;
    }
    let log = match &a.interval_log {
        Some(p) => Some(LogSink::open(p)?),
        None => None,
    };
    if log.is_some() {
        board.keep_records();
    }
    // A scraper alone needs no thread of ours besides the endpoint's.
    if !a.live && a.status_interval.is_none() && log.is_none() {
        return Ok(Some(Watch { stop, view: None }));
    }
    let view = View {
        live: a.live,
        status: a.status_interval,
        log,
        terminal: std::io::stderr().is_terminal(),
        drawn: 0,
    };
    VIEW_ON.store(a.live, Relaxed);
    let flag = stop.clone();
    let view = std::thread::Builder::new()
        .name("live-view".into())
        .spawn(move || view.run(board, &flag))
        .context("starting the live view")?;
    Ok(Some(Watch {
        stop,
        view: Some(view),
    }))
}

/// The subcommand (and its subcommand, or a suite's name), as the info metric names what
/// runs; global flags before it are skipped.
fn command_name() -> String {
    let args = crate::cli::subcommand_first(std::env::args().collect());
    let words: Vec<&str> = args
        .iter()
        .skip(1)
        .take(2)
        .map(String::as_str)
        .take_while(|a| !a.starts_with('-') && !a.contains('/'))
        .collect();
    words.join(" ")
}

/// One more label of the run's identity on the info metric (`workload`, `label`,
/// `store_id`), if the board is on.
pub fn identify(key: &str, value: &str) {
    if let Some(b) = board::get() {
        b.set_info(key, value);
    }
}

/// The metrics endpoint on its own thread, with serve's rules: loopback without a token,
/// any other address only with one; one line says where to scrape.
fn serve(
    addr: &str,
    token_file: Option<&std::path::Path>,
    board: &'static Board,
    stop: Arc<AtomicBool>,
) -> Result<()> {
    let token = match token_file {
        Some(p) => Some(crate::cmd::serve::read_token(p).map_err(|e| {
            anyhow::anyhow!(format!("{e:#}").replace("--token-file", "--metrics-token-file"))
        })?),
        None => None,
    };
    let render = move |accept: Option<&str>| {
        let flavor = runner::openmetrics::Flavor::from_accept(accept);
        let text = runner::openmetrics::render(&board.snapshot(), &board.info(), flavor);
        (text, flavor.content_type())
    };
    let o = web::Options {
        store: Default::default(),
        listen: addr.to_string(),
        token,
        threads: 2,
        limits: web::Limits::default(),
        metrics: Some(Box::new(render)),
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let tx2 = tx.clone();
    std::thread::Builder::new()
        .name("metrics".into())
        .spawn(move || {
            if let Err(e) = web::serve(o, stop, |a| drop(tx.send(Ok(a)))) {
                let _ = tx2.send(Err(e));
            }
        })
        .context("starting the metrics endpoint")?;
    match rx.recv() {
        Ok(Ok(a)) => {
            eprintln!("metrics: http://{a}/metrics");
            Ok(())
        }
        Ok(Err(e)) => bail!(
            "--metrics-listen: {}",
            e.to_string()
                .replace("--listen", "--metrics-listen")
                .replace("give --token or --token-file", "give --metrics-token-file")
        ),
        Err(_) => bail!("--metrics-listen {addr}: the endpoint did not start"),
    }
}

/// Where the interval records go: a file (appended) or stdout.
struct LogSink(Box<dyn Write + Send>);

impl LogSink {
    fn open(p: &std::path::Path) -> Result<LogSink> {
        if p.as_os_str() == "-" {
            return Ok(LogSink(Box::new(std::io::stdout())));
        }
        let f = outfile::Opener::append("--interval-log")
            .open(p)
            .map_err(|e| crate::usage::usage(e.to_string()))?;
        Ok(LogSink(Box::new(f)))
    }

    /// Each record is one line, written whole with one write: a reader tailing the file
    /// never sees half of one.
    fn write(&mut self, recs: &[Record], dropped: u64) {
        let mut buf = Vec::with_capacity(recs.len() * 400);
        for r in recs {
            if serde_json::to_writer(&mut buf, r).is_ok() {
                buf.push(b'\n');
            }
        }
        if dropped > 0 {
            buf.extend(format!("{{\"dropped_records\":{dropped}}}\n").as_bytes());
        }
        if !buf.is_empty() {
            let _ = self.0.write_all(&buf);
            let _ = self.0.flush();
        }
    }
}

struct View {
    live: bool,
    status: Option<Duration>,
    log: Option<LogSink>,
    terminal: bool,
    /// Lines the live view drew last (to redraw over them on a terminal).
    drawn: usize,
}

impl View {
    fn run(mut self, board: &'static Board, stop: &AtomicBool) {
        let t0 = Instant::now();
        let mut last_live = (Instant::now(), board.snapshot());
        let mut last_status = last_live.clone();
        loop {
            let stopping = stop.load(Relaxed);
            if let Some(log) = &mut self.log {
                let (recs, dropped) = board.take_records();
                log.write(&recs, dropped);
            }
            let now = Instant::now();
            if self.live && (now - last_live.0 >= Duration::from_secs(1) || stopping) {
                let snap = board.snapshot();
                let lines = lines(&last_live.1, &snap, now - last_live.0);
                if !lines.is_empty() {
                    self.draw(&lines);
                }
                last_live = (now, snap);
            }
            if let Some(every) = self.status {
                if now - last_status.0 >= every {
                    let snap = board.snapshot();
                    let at = figures::fmt_secs((now - t0).as_secs_f64());
                    for l in lines(&last_status.1, &snap, now - last_status.0) {
                        eprintln!("[{at}] {l}");
                    }
                    last_status = (now, snap);
                }
            }
            if stopping {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The live view: redrawn in place on a terminal, plain lines otherwise.
    fn draw(&mut self, lines: &[String]) {
        let mut err = std::io::stderr().lock();
        if self.terminal && self.drawn > 0 {
            // Up to the first line drawn last time, and clear from there down.
            let _ = write!(err, "\x1b[{}F\x1b[J", self.drawn);
        }
        for l in lines {
            let _ = writeln!(err, "{l}");
        }
        self.drawn = lines.len();
    }
}

/// Job lines a status prints at most: past that (numjobs=256 printed 256 lines a second, each
/// without a p99 for want of samples) the running jobs are one line per host, their figures summed.
const MOST_LINES: usize = 8;

/// One line per job and host: its rates and p99 between two snapshots, queue depth, errors
/// and stage.
fn lines(prev: &[JobFigures], now: &[JobFigures], dt: Duration) -> Vec<String> {
    let running: std::collections::HashSet<(&str, &str)> = now
        .iter()
        .filter(|j| j.figures.stage != board::Stage::Idle && j.unit == board::Unit::Io)
        .map(|j| (j.host.as_str(), j.job.as_str()))
        .collect();
    if running.len() > MOST_LINES {
        return job_lines(&fold(prev, &running), &fold(now, &running), dt);
    }
    job_lines(prev, now, dt)
}

/// The jobs named in `of`, one per host: "N jobs", their figures summed.
fn fold(jobs: &[JobFigures], of: &std::collections::HashSet<(&str, &str)>) -> Vec<JobFigures> {
    let mut hosts: Vec<JobFigures> = Vec::new();
    let mut counts: Vec<usize> = Vec::new();
    for j in jobs
        .iter()
        .filter(|j| of.contains(&(j.host.as_str(), j.job.as_str())))
    {
        let i = match hosts.iter().position(|h| h.host == j.host) {
            Some(i) => i,
            None => {
                hosts.push(JobFigures {
                    host: j.host.clone(),
                    job: String::new(),
                    unit: board::Unit::Io,
                    figures: Figures {
                        stage: j.figures.stage,
                        ..Figures::default()
                    },
                });
                counts.push(0);
                hosts.len() - 1
            }
        };
        add(&mut hosts[i].figures, &j.figures);
        counts[i] += 1;
    }
    for (h, n) in hosts.iter_mut().zip(counts) {
        h.job = format!("{n} jobs");
    }
    hosts
}

/// `f`'s counts added to `into`'s (the stage is `into`'s).
fn add(into: &mut Figures, f: &Figures) {
    for d in 0..2 {
        into.ios[d] += f.ios[d];
        into.bytes[d] += f.bytes[d];
        into.lat_sum_ns[d] += f.lat_sum_ns[d];
        let b = &mut into.buckets[d];
        if b.len() < f.buckets[d].len() {
            b.resize(f.buckets[d].len(), 0);
        }
        b.iter_mut().zip(&f.buckets[d]).for_each(|(a, c)| *a += c);
    }
    into.errors += f.errors;
    into.inflight += f.inflight;
}

fn job_lines(prev: &[JobFigures], now: &[JobFigures], dt: Duration) -> Vec<String> {
    let before: HashMap<(&str, &str), &Figures> = prev
        .iter()
        .map(|j| ((j.host.as_str(), j.job.as_str()), &j.figures))
        .collect();
    let hosts = now
        .iter()
        .map(|j| &j.host)
        .collect::<std::collections::HashSet<_>>();
    let secs = dt.as_secs_f64().max(1e-3);
    // A sweep or fsync's many runs leave their jobs on the board: show the running ones.
    now.iter()
        .filter(|j| j.figures.stage != board::Stage::Idle)
        .map(|j| {
            let empty = Figures::default();
            let b = before
                .get(&(j.host.as_str(), j.job.as_str()))
                .copied()
                .unwrap_or(&empty);
            let who = match hosts.len() {
                1 => j.job.clone(),
                _ => format!("{} {}", j.host, j.job),
            };
            match j.unit {
                // A job publishes nothing until its ramp ends (its ramp's counts are dropped
                // there, and the board's only grow), so zeros would read as a stalled device.
                _ if j.figures.stage == board::Stage::Ramp => {
                    format!("{who}  ramping up: counted from the ramp's end [ramp]")
                }
                _ if j.figures.stage == board::Stage::Start => format!("{who}  starting [start]"),
                board::Unit::Io => line(&who, b, &j.figures, secs),
                board::Unit::Tx => tx_line(&who, b, &j.figures, secs),
            }
        })
        .collect()
}

/// " p99 X": the p99 of direction `d` between two snapshots (their bucket counts'
/// difference); empty where no latency reached the board between them. Latencies arrive a
/// closed interval (a second) at a time, so a line over a case shorter than that has counts
/// and no latency yet: "p99 -" beside 7,927 IOPS read as a broken figure to a trial.
fn p99_between(b: &Figures, f: &Figures, d: usize) -> String {
    let delta: Vec<u64> = match (&f.buckets[d], &b.buckets[d]) {
        (n, o) if o.len() == n.len() => {
            n.iter().zip(o).map(|(x, y)| x.saturating_sub(*y)).collect()
        }
        (n, _) => n.clone(),
    };
    stats::live::quantile(&delta, 0.99)
        .map_or(String::new(), |ns| format!(" p99 {}", figures::fmt_ns(ns)))
}

fn line(who: &str, b: &Figures, f: &Figures, secs: f64) -> String {
    let mut parts = vec![who.to_string()];
    for (d, rw) in ["read", "write"].iter().enumerate() {
        let ios = f.ios[d].saturating_sub(b.ios[d]);
        if ios == 0 && f.ios[d] == 0 {
            continue;
        }
        let bytes = f.bytes[d].saturating_sub(b.bytes[d]);
        parts.push(format!(
            "{rw} {} IOPS {}/s{}",
            figures::fmt_count(ios as f64 / secs),
            figures::fmt_bytes(bytes as f64 / secs),
            p99_between(b, f, d)
        ));
    }
    parts.push(format!(
        "qd {} errors {} [{}]",
        f.inflight,
        f.errors,
        f.stage.name()
    ));
    parts.join("  ")
}

/// A database run's line: transactions per second, their p99, failures.
fn tx_line(who: &str, b: &Figures, f: &Figures, secs: f64) -> String {
    let tx = f.ios[0].saturating_sub(b.ios[0]);
    format!(
        "{who}  {} tps{}  errors {} [{}]",
        figures::fmt_count(tx as f64 / secs),
        p99_between(b, f, 0),
        f.errors,
        f.stage.name()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(name: &str, ios: u64) -> JobFigures {
        let mut buckets = vec![0; 64];
        buckets[20] = ios;
        JobFigures {
            host: "h".into(),
            job: name.into(),
            unit: board::Unit::Io,
            figures: Figures {
                ios: [ios, 0],
                bytes: [ios * 4096, 0],
                buckets: [buckets, Vec::new()],
                inflight: 1,
                stage: board::Stage::Measure,
                ..Figures::default()
            },
        }
    }

    /// 256 jobs are one line of their sum, with a p99 from all their samples; a few jobs are
    /// a line each.
    #[test]
    fn many_jobs_are_one_line_of_their_sum() {
        let now: Vec<JobFigures> = (0..256).map(|i| job(&format!("j.{i}"), 3)).collect();
        let lines = lines(&[], &now, Duration::from_secs(1));
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("256 jobs  read 768 IOPS"),
            "{}",
            lines[0]
        );
        assert!(
            !lines[0].contains("p99 -") && lines[0].contains("qd 256"),
            "{}",
            lines[0]
        );
        let few: Vec<JobFigures> = (0..3).map(|i| job(&format!("j.{i}"), 3)).collect();
        assert_eq!(super::lines(&[], &few, Duration::from_secs(1)).len(), 3);
    }

    /// A line before the job's first closed interval has counts and no latency: it shows
    /// the rates without a p99, not "p99 -"; with latencies it shows their p99.
    #[test]
    fn a_line_without_latencies_yet_leaves_the_p99_out() {
        let mut j = job("j", 3);
        j.figures.buckets = [Vec::new(), Vec::new()];
        let l = lines(&[], &[j], Duration::from_secs(1));
        assert!(
            l[0].starts_with("j  read 3 IOPS 12.0 KiB/s  qd 1"),
            "{}",
            l[0]
        );
        let with = lines(&[], &[job("j", 3)], Duration::from_secs(1));
        assert!(with[0].contains(" p99 "), "{}", with[0]);
    }

    /// A job in its ramp says so rather than showing the zeros it has not yet published.
    #[test]
    fn a_ramping_job_says_it_ramps_not_zero_iops() {
        let mut j = job("j", 0);
        j.figures.stage = board::Stage::Ramp;
        let lines = lines(&[], &[j], Duration::from_secs(1));
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].contains("ramping up"), "{}", lines[0]);
        assert!(
            !lines[0].contains("IOPS") && !lines[0].contains("qd"),
            "{}",
            lines[0]
        );
    }
}
