//! What a launcher (mpirun, mpiexec, srun) tells its processes through the environment.
//!
//! Each MPI implementation's launcher sets its own variables; a binary linked against another
//! MPI ignores them and initialises as a world of one. Reading them directly lets volbench see
//! that it was meant to be one of N and refuse to run N unrelated copies.

/// A launch as the environment describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    /// Processes the launcher started, where it says.
    pub size: Option<u32>,
    /// This process's rank, where it says.
    pub rank: Option<u32>,
    /// The variable that told us (for the message).
    pub var: &'static str,
    /// Whose launcher sets that variable.
    pub launcher: &'static str,
}

impl Launch {
    /// True when the launcher started more than this one process.
    pub fn is_many(&self) -> bool {
        self.size.is_some_and(|n| n > 1) || self.rank.is_some_and(|r| r > 0)
    }

    /// How the launch reads in a message: `OMPI_COMM_WORLD_SIZE=4 (Open MPI's mpirun)`.
    pub fn describe(&self) -> String {
        let what = match (self.size, self.rank) {
            (Some(n), _) => format!("{}={n}", self.var),
            (None, Some(r)) => format!("{}={r}", self.var),
            _ => self.var.to_string(),
        };
        format!("{what} ({})", self.launcher)
    }
}

/// (size variable, rank variable, launcher) in the order they are tried.
const KNOWN: &[(&str, &str, &str)] = &[
    (
        "OMPI_COMM_WORLD_SIZE",
        "OMPI_COMM_WORLD_RANK",
        "Open MPI's mpirun",
    ),
    (
        "PMI_SIZE",
        "PMI_RANK",
        "an MPICH-style launcher (Hydra, Intel MPI, Slurm PMI)",
    ),
    ("PMIX_SIZE", "PMIX_RANK", "a PMIx launcher"),
    ("MPI_LOCALNRANKS", "MPI_LOCALRANKID", "MPICH's mpiexec"),
    ("SLURM_STEP_NUM_TASKS", "SLURM_PROCID", "Slurm's srun"),
];

/// Reads the launch from `get` (the process environment in use; a map in tests).
pub fn detect(get: impl Fn(&str) -> Option<String>) -> Option<Launch> {
    let num = |k: &str| get(k).and_then(|v| v.trim().parse::<u32>().ok());
    for &(size, rank, launcher) in KNOWN {
        let (n, r) = (num(size), num(rank));
        if n.is_some() || r.is_some() {
            // srun sets these for any step; only a step of several tasks is a launch.
            if size.starts_with("SLURM") && n.is_none_or(|n| n < 2) {
                continue;
            }
            return Some(Launch {
                size: n,
                rank: r,
                var: if n.is_some() { size } else { rank },
                launcher,
            });
        }
    }
    None
}

/// The launch described by this process's environment.
pub fn from_env() -> Option<Launch> {
    detect(|k| std::env::var(k).ok())
}

/// Why a binary without MPI must not run under a launcher of several processes.
pub fn without_mpi_message(l: &Launch) -> String {
    format!(
        "started as one of several processes ({}), but this volbench was built without MPI, \
         so each would run alone and all would measure the same storage at once: build with \
         `cargo build --release --features mpi` (needs libopenmpi-dev), or run one process",
        l.describe()
    )
}

/// Why a binary whose MPI sees a world of one must not run when the launcher started more.
pub fn wrong_mpi_message(l: &Launch, library: &str) -> String {
    format!(
        "the launcher started several processes ({}), but MPI here sees only this one: this \
         volbench is linked against {library}, and a launcher of another MPI leaves each rank \
         alone; start it with that library's mpirun, or rebuild against the launcher's MPI",
        l.describe(),
        library = library.lines().next().unwrap_or("another MPI").trim()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| m.get(k).cloned()
    }

    #[test]
    fn open_mpi_mpich_pmix_and_slurm_are_recognised() {
        let l = detect(env(&[
            ("OMPI_COMM_WORLD_SIZE", "4"),
            ("OMPI_COMM_WORLD_RANK", "2"),
        ]));
        assert_eq!(
            l.as_ref().map(|l| (l.size, l.rank)),
            Some((Some(4), Some(2)))
        );
        assert!(l.unwrap().is_many());
        let l = detect(env(&[("PMI_SIZE", "8"), ("PMI_RANK", "0")])).unwrap();
        assert_eq!((l.size, l.var), (Some(8), "PMI_SIZE"));
        // Open MPI 5 under PRRTE may give only the PMIx rank.
        let l = detect(env(&[("PMIX_RANK", "3")])).unwrap();
        assert!(l.is_many() && l.size.is_none());
        let l = detect(env(&[("PMIX_RANK", "0")])).unwrap();
        assert!(!l.is_many());
        assert!(detect(env(&[("SLURM_STEP_NUM_TASKS", "1"), ("SLURM_PROCID", "0")])).is_none());
        assert!(detect(env(&[("SLURM_STEP_NUM_TASKS", "2")]))
            .unwrap()
            .is_many());
        assert!(detect(env(&[("HOME", "/root")])).is_none());
    }

    #[test]
    fn messages_name_the_variable_and_the_fix() {
        let l = detect(env(&[("PMI_SIZE", "4")])).unwrap();
        let m = without_mpi_message(&l);
        assert!(
            m.contains("PMI_SIZE=4") && m.contains("--features mpi"),
            "{m}"
        );
        let m = wrong_mpi_message(&l, "Open MPI v4.1.4, package: Debian\n");
        assert!(
            m.contains("PMI_SIZE=4") && m.contains("Open MPI v4.1.4"),
            "{m}"
        );
        assert!(!m.contains('\n'));
    }
}
