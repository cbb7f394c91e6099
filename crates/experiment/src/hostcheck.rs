//! The doctor's cheap checks around every run: before it, the limits on this process and a
//! short watch for other I/O on the target's devices (before volbench's own layout, so none
//! of it is ours); after it, the instance's own storage cap against the measured rates. What
//! they find becomes the report's warnings.

use host::Finding;
use report::{RunReport, WarningRecord};
use std::path::PathBuf;
use std::time::Duration;
use workload::{format_bytes, JobSpec, Workload};

/// How long a run watches its devices before it starts: long enough to see a second
/// benchmark or a backup (hundreds of I/Os), short enough not to be felt.
pub const WATCH: Duration = Duration::from_millis(250);

/// A queue holding more than this many seconds of its target's capped rate makes a run wait
/// that long after its window for the I/Os in flight: said before the run starts.
const DRAIN_NOTE_SECS: f64 = 5.0;

/// What the checks before the run found.
pub struct Before(Vec<Finding>);

/// The checks before the run. Nothing for the null engine, which touches no device.
pub fn before(w: &Workload) -> Before {
    let real = || w.jobs.iter().filter(|j| j.ioengine.moves_data());
    let paths: Vec<PathBuf> = real().flat_map(|j| runner::resolve_paths(j, 0)).collect();
    for j in real() {
        if let Some(note) = drain_note(j) {
            eprintln!("note: {note}");
        }
    }
    let refs: Vec<&std::path::Path> = paths.iter().map(PathBuf::as_path).collect();
    Before(host::cheap(&refs, WATCH))
}

/// The job's slowest expected rate in bytes/s, from the cgroup limits on its devices and its
/// own `rate`/`rate_iops`, with what sets it; None where nothing caps it.
fn expected_rate(j: &JobSpec) -> Option<(f64, String)> {
    let devs: Vec<host::dev::Dev> = runner::resolve_paths(j, 0)
        .iter()
        .flat_map(|p| host::dev::of_target(p).unwrap_or_default())
        .collect();
    let bs = j.max_bs() as f64;
    let jobs = j.numjobs.max(1) as f64;
    let mut caps: Vec<(f64, String)> = Vec::new();
    for (d, dir) in [(0, "read"), (1, "write")] {
        if !(if d == 0 { j.rw.reads() } else { j.rw.writes() }) {
            continue;
        }
        for l in host::cgroup::io_limits(&devs)
            .into_iter()
            .filter(|l| l.what.starts_with(dir))
        {
            let (per_s, unit) = match l.what.ends_with("IOPS") {
                true => (l.value as f64 * bs, format!("{} IOPS", l.value)),
                false => (
                    l.value as f64,
                    format!("{}/s", format_bytes(l.value as f64)),
                ),
            };
            caps.push((per_s, format!("the {unit} {dir} cap on {}", l.device)));
        }
        let own = [j.rates.rate[d] as f64, j.rates.rate_iops[d] as f64 * bs];
        if let Some(&r) = own
            .iter()
            .filter(|&&r| r > 0.0)
            .min_by(|a, b| a.total_cmp(b))
        {
            caps.push((r * jobs, format!("the job's own {dir} rate")));
        }
    }
    caps.into_iter().min_by(|a, b| a.0.total_cmp(&b.0))
}

/// A deep queue of large blocks on a capped target: the run would wait long after its
/// window for the I/Os still in flight (fio waits as well), so say so, with the fix.
fn drain_note(j: &JobSpec) -> Option<String> {
    // Only a window that can close with I/O in flight leaves a queue to drain.
    if !j.time_based && j.runtime.is_none() {
        return None;
    }
    let (rate, what) = expected_rate(j)?;
    let depth = j.effective_iodepth() as u64 * j.numjobs.max(1) as u64;
    let queued = (depth * j.max_bs()) as f64;
    let secs = queued / rate.max(1.0);
    (secs > DRAIN_NOTE_SECS).then(|| {
        format!(
            "job {}: {} I/Os of {} in flight hold {}, {} of {what}: after its window the run \
             will wait about that long for them (not counted); lower --iodepth or --bs to end \
             sooner",
            j.name,
            depth,
            format_bytes(j.max_bs() as f64),
            format_bytes(queued),
            figures::fmt_secs(secs)
        )
    })
}

impl Before {
    /// Adds what was found, and the instance-cap check, to the report's warnings.
    pub fn into_report(self, r: &mut RunReport) {
        let measured = r
            .groups
            .iter()
            .map(|g| cloud::measured::rates(&g.report))
            .fold((0.0f64, 0.0f64), |a, (i, b, _)| (a.0.max(i), a.1.max(b)));
        let cap = r.environment.machine.as_ref().and_then(|m| {
            host::instance::run_warning(m, r.environment.cpus, measured.0, measured.1)
        });
        let found: Vec<Finding> = self.0.into_iter().chain(cap).collect();
        r.warnings.extend(records(&found));
    }
}

/// The findings as a report's warnings.
pub fn records(found: &[Finding]) -> impl Iterator<Item = WarningRecord> + '_ {
    found.iter().map(|f| WarningRecord {
        code: f.code.to_string(),
        message: f.line(),
    })
}
