//! Talking to the tested machine and the witness: the command lines the loop runs there
//! (create, verify, fsync) through the `--remote` prefix, and the witness's status and stop
//! requests that tell the loop how far a run got and end its writing.

use super::shell;
use super::Plan;
use crate::client::Conn;
use crate::protocol::{Reply, Request};
use crate::verify::VerifyReport;
use report::FsyncCost;
use std::time::Duration;

/// Where the witness is and the token its clients present.
#[derive(Clone, Debug)]
pub struct Witness {
    pub addr: String,
    pub token: String,
}

impl Witness {
    /// Records the witness acknowledged in the run of `file`; `None` while it does not know
    /// the run yet.
    pub fn acks(&self, file: &str) -> anyhow::Result<Option<u64>> {
        let mut c = Conn::open(&self.addr, &self.token)?;
        c.send(&Request::Status {
            file: file.to_string(),
        })?;
        match c.recv()? {
            Reply::Status { acks, .. } => Ok(Some(acks)),
            Reply::Error { error } if error.starts_with("unknown file") => Ok(None),
            Reply::Error { error } => anyhow::bail!("witness: {error}"),
            other => anyhow::bail!("the witness answered {other:?} where a status was due"),
        }
    }

    /// Ends the run's writing: its create stops at its next record.
    pub fn stop(&self, file: &str) -> anyhow::Result<()> {
        let mut c = Conn::open(&self.addr, &self.token)?;
        c.send(&Request::Stop {
            file: file.to_string(),
        })?;
        c.expect_ok()
    }
}

/// `args` run on the tested machine: behind the `--remote` prefix, or here.
fn on_tested(p: &Plan, args: &[String]) -> String {
    let cmd = shell::join(args);
    if p.remote.is_empty() {
        cmd
    } else {
        format!("{} {cmd}", p.remote)
    }
}

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// `create` for one cycle: it forgets an earlier run's unverified records (the loop verified
/// every run it cut; one it stopped before the cut proves nothing), and stops by itself
/// after `runtime` should the loop lose it.
pub fn create_command(p: &Plan, w: &Witness, runtime: Duration) -> String {
    let mut a = vec![p.volbench.clone()];
    a.extend(strings(&["durability", "create", "--witness"]));
    a.extend([w.addr.clone(), "--token".into(), w.token.clone()]);
    a.extend([
        "--size".into(),
        p.size.to_string(),
        "--block".into(),
        p.block.to_string(),
        "--sync".into(),
        p.sync.clone(),
        "--threads".into(),
        p.threads.to_string(),
        "--runtime".into(),
        format!("{}s", runtime.as_secs().max(1)),
        "--discard-unverified".into(),
        p.file.clone(),
    ]);
    on_tested(p, &a)
}

pub fn verify_command(p: &Plan, w: &Witness) -> String {
    let mut a = vec![p.volbench.clone()];
    a.extend(strings(&["durability", "verify", "--witness"]));
    a.extend([w.addr.clone(), "--token".into(), w.token.clone()]);
    a.extend(strings(&["--output-format", "json"]));
    a.push(p.file.clone());
    on_tested(p, &a)
}

/// Runs verify on the tested machine: its report (exit 0 or 3), or why there is none.
pub fn verify(p: &Plan, w: &Witness, stop: &std::sync::atomic::AtomicBool) -> Verified {
    let mut r = match shell::spawn(&verify_command(p, w)) {
        Ok(r) => r,
        Err(e) => return Verified::Failed(format!("cannot start verify: {e}")),
    };
    match r.wait(p.step_timeout, Some(stop)) {
        shell::Ended::Exited(s) if matches!(s.code(), Some(0 | 3)) => {
            match serde_json::from_slice::<VerifyReport>(&r.stdout()) {
                Ok(v) => Verified::Report(Box::new(v)),
                Err(e) => Verified::Failed(format!("verify printed no report ({e})")),
            }
        }
        shell::Ended::Exited(s) => Verified::Failed(format!("verify {}", shell::failed(&mut r, s))),
        shell::Ended::TimedOut => {
            r.kill();
            Verified::Failed(format!(
                "verify did not finish in {} s",
                p.step_timeout.as_secs()
            ))
        }
        shell::Ended::Stopped => {
            r.kill();
            Verified::Stopped
        }
    }
}

pub enum Verified {
    Report(Box<VerifyReport>),
    Failed(String),
    Stopped,
}

/// The fsync method that measures what the cycles' `--sync` does.
fn fsync_method(sync: &str) -> &'static str {
    match sync {
        "fsync" => "fsync",
        "odsync" => "odsync",
        "direct" => "direct-fdatasync",
        _ => "fdatasync",
    }
}

/// `volbench fsync` in the file's directory on the tested machine: the cycles' own sync
/// method at their block size, one thread, and the O_DIRECT write and flush the honesty
/// verdict reads.
pub fn fsync_command(p: &Plan) -> String {
    let dir = std::path::Path::new(&p.file)
        .parent()
        .map_or("/".to_string(), |d| d.display().to_string());
    let mut methods = vec![fsync_method(&p.sync), "direct", "direct-fdatasync"];
    methods.dedup();
    let mut a = vec![p.volbench.clone(), "fsync".into(), dir];
    a.extend([
        "--methods".into(),
        methods.join(","),
        "--bs".into(),
        p.block.to_string(),
        "--threads".into(),
        "1".into(),
        "--runtime".into(),
        "2s".into(),
        "--size".into(),
        "64m".into(),
        "--no-penalty".into(),
        "--no-store".into(),
        "--output-format".into(),
        "json".into(),
    ]);
    on_tested(p, &a)
}

/// The flush cost from an fsync report: the cycles' method, one thread, with the target's
/// honesty verdict.
pub fn fsync_cost(p: &Plan, rep: &report::FsyncReport) -> Option<FsyncCost> {
    let method = fsync_method(&p.sync);
    let case = rep
        .cases
        .iter()
        .find(|c| c.method == method && c.threads == 1 && c.writes > 0)?;
    let v = rep.verdicts.first();
    Some(FsyncCost {
        method: method.to_string(),
        bs: case.bs,
        syncs_per_sec: case.syncs_per_sec,
        lat_p50_ns: case.lat_ns.percentile(50.0).unwrap_or(0),
        lat_p99_ns: case.lat_ns.percentile(99.0).unwrap_or(0),
        verdict: v.map_or("unknown".into(), |v| v.verdict.clone()),
        // The verdict's advice to run a power cut is what this loop does: not repeated.
        summary: v.map_or(String::new(), |v| {
            v.summary
                .split(". Run `volbench durability`")
                .next()
                .unwrap_or_default()
                .to_string()
        }),
    })
}
