//! The loop's journal of its own progress: what each finished cycle found and how far the
//! current one got, rewritten (atomically, mode 0600: it holds the witness's token) after
//! every step, so a Ctrl-C, a crash or a tested machine that did not come back can be
//! continued with `--resume`.

use report::{Cycle, FsyncCost, TargetInfo};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The most bytes a state file may have (a thousand cycles take about 1 MiB).
const MAX_STATE: u64 = 16 << 20;

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct State {
    /// What the loop tests: a resume must name the same.
    pub key: Key,
    /// The token of the witness the loop starts (absent with `--witness`).
    #[serde(default)]
    pub token: Option<String>,
    pub started_at: String,
    pub started_unix: u64,
    #[serde(default)]
    pub fsync: Option<FsyncCost>,
    #[serde(default)]
    pub target: Option<TargetInfo>,
    /// Finished cycles, judged or not.
    pub done: Vec<Cycle>,
    /// The cycle under way, if its power was cut: a resume brings the machine back and
    /// verifies it. A cycle stopped before its cut is not kept: it runs again.
    #[serde(default)]
    pub pending: Option<Pending>,
}

/// The settings a resumed loop must share with the one it continues.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Key {
    pub file: String,
    pub remote: String,
    pub size: u64,
    pub block: u32,
    pub sync: String,
    pub threads: u32,
}

/// A cycle whose power was cut: what was known at the cut, and whether `--boot` ran.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Pending {
    pub cycle: Cycle,
    pub booted: bool,
    /// When the cut command returned (milliseconds since the epoch).
    pub cut_ms: u64,
}

impl State {
    pub fn load(path: &Path) -> anyhow::Result<State> {
        let f = std::fs::File::open(path).map_err(|e| {
            anyhow::anyhow!(
                "{}: {e}: nothing to resume (the loop finished, or never ran with this --journal)",
                path.display()
            )
        })?;
        let mut text = String::new();
        use std::io::Read;
        f.take(MAX_STATE + 1).read_to_string(&mut text)?;
        if text.len() as u64 > MAX_STATE {
            anyhow::bail!("{}: larger than 16 MiB: not a loop's state", path.display());
        }
        serde_json::from_str(&text).map_err(|e| {
            anyhow::anyhow!(
                "{}: not a loop's state ({e}): remove it to start over",
                path.display()
            )
        })
    }

    /// Writes the state beside its path and renames it over: a crash leaves the old or the
    /// new state, never half of one.
    pub fn save(&self, path: &Path) -> anyhow::Result<()> {
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let tmp = path.with_extension("tmp");
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&tmp)
            .map_err(|e| anyhow::anyhow!("{}: {e}", tmp.display()))?;
        f.write_all(&serde_json::to_vec_pretty(self)?)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Ok(())
    }
}
