//! The doctor's cheap checks around every run: before it, the limits on this process and a
//! short watch for other I/O on the target's devices (before volbench's own layout, so none
//! of it is ours); after it, the instance's own storage cap against the measured rates. What
//! they find becomes the report's warnings.

use host::Finding;
use report::{RunReport, WarningRecord};
use std::path::PathBuf;
use std::time::Duration;
use workload::{EngineKind, Workload};

/// How long a run watches its devices before it starts: long enough to see a second
/// benchmark or a backup (hundreds of I/Os), short enough not to be felt.
const WATCH: Duration = Duration::from_millis(250);

/// What the checks before the run found.
pub struct Before(Vec<Finding>);

/// The checks before the run. Nothing for the null engine, which touches no device.
pub fn before(w: &Workload) -> Before {
    let paths: Vec<PathBuf> = w
        .jobs
        .iter()
        .filter(|j| j.ioengine != EngineKind::Null)
        .flat_map(|j| runner::resolve_paths(j, 0))
        .collect();
    let refs: Vec<&std::path::Path> = paths.iter().map(PathBuf::as_path).collect();
    Before(host::cheap(&refs, WATCH))
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
        let found = self.0.into_iter().chain(cap);
        r.warnings.extend(found.map(|f| WarningRecord {
            code: f.code.to_string(),
            message: f.line(),
        }));
    }
}
