//! `volbench durability cycle`: the power-cut loop, run from the machine that keeps power.
//!
//! Each cycle starts `create` on the tested machine, lets it write for a random time while
//! the witness acknowledges records, cuts the power with the user's command, waits for the
//! machine to come back, and runs `verify` there. The cycles' results, a flush's cost on the
//! same target and one verdict make a [`report::DurabilityReport`]. The loop's progress is
//! kept in a state file after every step ([`state`]), so it can be continued (`--resume`).

pub mod shell;
mod state;
mod steps;
pub mod tested;

use crate::witness::{self, ServeOptions};
use report::{Cycle, CycleSettings, DurabilityReport, Status};
use state::{Key, State};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{mpsc, Arc};
use std::time::{Duration, SystemTime};
pub use tested::Witness;

/// Everything the loop needs, checked by the command line.
pub struct Plan {
    /// The file on the tested machine: an absolute path.
    pub file: String,
    pub cycles: u32,
    /// The cut comes a random time in this range after the first acknowledged record.
    pub wait: (Duration, Duration),
    pub cut: String,
    pub boot: Option<String>,
    pub up: String,
    /// The prefix that runs a command on the tested machine; empty: this machine.
    pub remote: String,
    /// volbench on the tested machine.
    pub volbench: String,
    pub witness: WitnessPlan,
    pub size: u64,
    pub block: u32,
    pub sync: String,
    pub threads: u32,
    pub stop_on_loss: bool,
    pub resume: bool,
    /// Measure the flush's cost on the target before the cycles.
    pub fsync: bool,
    /// How long the machine may take to come back after a cut.
    pub up_timeout: Duration,
    /// The limit of every other step: the first record, the cut, the boot, a verify.
    pub step_timeout: Duration,
    /// The loop's own progress (`state.rs`).
    pub state: PathBuf,
    pub command_line: Vec<String>,
}

/// The loop's witness: one it starts on `listen` with its journal, or a running one.
pub enum WitnessPlan {
    Own {
        listen: SocketAddr,
        journal: PathBuf,
    },
    Given(Witness),
}

/// How the loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// Every cycle ran (or --stop-on-loss ended it at a loss).
    Done,
    /// A cycle could not be judged: the loop cannot go on without the user.
    Failed,
    Interrupted,
}

/// Runs the loop; `say` gets one line per step. An error here is the loop's own (a state
/// file or witness that cannot be used); what goes wrong in a cycle is in the report.
pub fn run(
    p: &Plan,
    stop: Arc<AtomicBool>,
    say: &mut dyn FnMut(&str),
) -> anyhow::Result<DurabilityReport> {
    let mut st = start_state(p, say)?;
    let (own, w) = witness_for(p, &mut st)?;
    // A witness that cannot be reached or refuses the token is said before anything runs.
    w.acks(&p.file)
        .map_err(|e| anyhow::anyhow!("witness {}: {e:#}", w.addr))?;
    st.save(&p.state)?;
    if p.fsync && st.fsync.is_none() && !stop.load(Relaxed) {
        say("measuring what a flush costs on the target (volbench fsync there)");
        st.fsync = steps::fsync(p, &stop, say);
        st.save(&p.state)?;
    }
    let (end, unjudged) = cycles(p, &w, &mut st, &stop, say)?;
    if let Some(o) = own {
        o.shut();
    }
    let rep = report_of(p, &st, end, unjudged);
    if end == End::Done {
        // Finished: nothing is left to resume. (An error keeps it: fix the machine, resume.)
        let _ = std::fs::remove_file(&p.state);
    }
    Ok(rep)
}

fn key(p: &Plan) -> Key {
    Key {
        file: p.file.clone(),
        remote: p.remote.clone(),
        size: p.size,
        block: p.block,
        sync: p.sync.clone(),
        threads: p.threads,
    }
}

/// The state to continue (`--resume`, which must test the same file the same way), or a new
/// one (saying so when it replaces a loop that did not finish).
fn start_state(p: &Plan, say: &mut dyn FnMut(&str)) -> anyhow::Result<State> {
    if p.resume {
        let st = State::load(&p.state)?;
        if st.key != key(p) {
            anyhow::bail!(
                "--resume: the loop in {} tested {:?} with other settings: resume with the same FILE, --remote, --size, --block, --sync and --threads",
                p.state.display(),
                st.key.file
            );
        }
        return Ok(st);
    }
    if let Ok(old) = State::load(&p.state) {
        say(&format!(
            "an earlier loop of {} stopped after {} cycles; starting over (--resume continues it)",
            old.key.file,
            old.done.len()
        ));
    }
    let (started_at, started_unix) = report::started(SystemTime::now());
    Ok(State {
        key: key(p),
        token: None,
        started_at,
        started_unix,
        fsync: None,
        target: None,
        done: Vec::new(),
        pending: None,
    })
}

/// A witness the loop started, stopped when the loop ends.
struct OwnWitness {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<anyhow::Result<()>>,
}

impl OwnWitness {
    fn shut(self) {
        self.stop.store(true, Relaxed);
        let _ = self.thread.join();
    }
}

/// The named witness, or one started here on the journal with the state's token (a new
/// token for a new loop, so an old journal's token is never needed).
fn witness_for(p: &Plan, st: &mut State) -> anyhow::Result<(Option<OwnWitness>, Witness)> {
    let (listen, journal) = match &p.witness {
        WitnessPlan::Given(w) => return Ok((None, w.clone())),
        WitnessPlan::Own { listen, journal } => (*listen, journal.clone()),
    };
    let token = st
        .token
        .get_or_insert_with(crate::journal::new_token)
        .clone();
    let o = ServeOptions {
        listen,
        token: Some(token.clone()),
        journal,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = mpsc::channel();
    let s = stop.clone();
    let thread = std::thread::spawn(move || {
        witness::serve(&o, s, |addr, _| {
            let _ = tx.send(addr);
        })
    });
    match rx.recv() {
        Ok(addr) => Ok((
            Some(OwnWitness { stop, thread }),
            Witness {
                addr: addr.to_string(),
                token,
            },
        )),
        Err(_) => Err(thread
            .join()
            .unwrap_or_else(|_| Err(anyhow::anyhow!("the witness failed to start")))
            .err()
            .unwrap_or_else(|| anyhow::anyhow!("the witness stopped at once"))),
    }
}

/// The cycles still to run, each saved as it ends; the cycle that could not be judged, if
/// one stopped the loop (a machine that did not come back stays the state's pending cycle,
/// so a resume brings it back and verifies it).
fn cycles(
    p: &Plan,
    w: &Witness,
    st: &mut State,
    stop: &AtomicBool,
    say: &mut dyn FnMut(&str),
) -> anyhow::Result<(End, Option<Cycle>)> {
    while (st.done.len() as u32) < p.cycles {
        if stop.load(Relaxed) {
            return Ok((End::Interrupted, None));
        }
        let step = if st.pending.is_some() {
            steps::after_cut(p, w, st, stop, say)?
        } else {
            steps::one(p, w, st, stop, say)?
        };
        let Some(c) = step else {
            st.save(&p.state)?;
            return Ok((End::Interrupted, None));
        };
        say(&steps::cycle_line(p, &c));
        if !c.judged() {
            st.save(&p.state)?;
            return Ok((End::Failed, Some(c)));
        }
        let lost = c.lost > 0;
        st.done.push(c);
        st.save(&p.state)?;
        if lost && p.stop_on_loss {
            break;
        }
    }
    Ok((End::Done, None))
}

fn report_of(p: &Plan, st: &State, end: End, unjudged: Option<Cycle>) -> DurabilityReport {
    let mut rep = DurabilityReport {
        schema_version: report::SCHEMA_VERSION,
        tool: report::Tool::volbench(),
        started_at: st.started_at.clone(),
        started_unix: st.started_unix,
        command_line: p.command_line.clone(),
        status: match end {
            End::Done => Status::Complete,
            End::Failed => Status::Partial,
            End::Interrupted => Status::Interrupted,
        },
        error: None,
        file: p.file.clone(),
        remote: p.remote.clone(),
        tested_host: st
            .target
            .as_ref()
            .and_then(|t| t.host.clone())
            .unwrap_or_default(),
        settings: CycleSettings {
            cycles: p.cycles,
            size: p.size,
            block: p.block,
            sync: p.sync.clone(),
            threads: p.threads,
            wait_min_s: p.wait.0.as_secs_f64(),
            wait_max_s: p.wait.1.as_secs_f64(),
            stop_on_loss: p.stop_on_loss,
        },
        target: st.target.clone(),
        fsync: st.fsync.clone(),
        cycles: st.done.iter().cloned().chain(unjudged).collect(),
        verdict: String::new(),
        summary: String::new(),
        warnings: Vec::new(),
    };
    if end == End::Failed {
        rep.error = rep.cycles.last().and_then(|c| c.error.clone());
    }
    (rep.verdict, rep.summary) = verdict(&rep, end);
    rep
}

/// The one verdict: any loss fails; a cycle that could not be judged is an error; fewer
/// cycles than asked (Ctrl-C) is incomplete; else a pass, never stronger than the evidence.
fn verdict(r: &DurabilityReport, end: End) -> (String, String) {
    let (n, lossy, checked, lost) = r.totals();
    let acked = figures::fmt_count(r.acknowledged() as f64);
    let cost = r.fsync.as_ref().map_or(String::new(), |f| {
        format!(
            "; {} costs {} here (p99 {}, {} syncs/s), flush verdict: {}",
            f.method,
            figures::fmt_ns(f.lat_p50_ns as f64),
            figures::fmt_ns(f.lat_p99_ns as f64),
            figures::fmt_count(f.syncs_per_sec),
            f.verdict
        )
    });
    let cuts = |n: usize| format!("{n} power cut{}", if n == 1 { "" } else { "s" });
    if lost > 0 {
        let s = format!(
            "{lost} acknowledged records were lost in {lossy} of {} ({checked} checked, {acked} acknowledged){cost}: this stack does not keep what it says is durable",
            cuts(n)
        );
        return ("fail".into(), s);
    }
    let short = |what: &str| {
        format!(
            "{what}; before it, 0 of {checked} records checked were lost in {}{cost}",
            cuts(n)
        )
    };
    if end == End::Failed {
        let why = r.cycles.last().map_or("a step failed".into(), |c| {
            format!("cycle {} is {}", c.index, c.verdict)
        });
        return ("error".into(), short(&why));
    }
    if n < r.settings.cycles as usize {
        let s = short(&format!(
            "stopped after {n} of {} cycles",
            r.settings.cycles
        ));
        return ("incomplete".into(), s);
    }
    let s = format!(
        "0 of {checked} acknowledged records that had to survive were lost over {} ({acked} acknowledged){cost}. Clean cuts are evidence, not proof: five or more per configuration",
        cuts(n)
    );
    ("pass".into(), s)
}

/// The exit status of a loop's report: 0 pass, 3 a loss, 130 stopped by Ctrl-C, 1 else.
pub fn exit_code(r: &DurabilityReport) -> u8 {
    match r.verdict.as_str() {
        "pass" => 0,
        "fail" => 3,
        "incomplete" if r.status == Status::Interrupted => 130,
        _ => 1,
    }
}

/// A cycle not yet judged, numbered and dated.
fn new_cycle(index: u32) -> Cycle {
    Cycle {
        index,
        started_at: report::started(SystemTime::now()).0,
        ..Default::default()
    }
}
