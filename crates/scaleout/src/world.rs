//! Running as one of many processes: `mpirun -n N volbench run|sweep|suite ...`.
//!
//! Without a launcher nothing here does anything: [`run`] is the runner. Under a launcher the
//! MPI build joins the world ([`crate::team`]), gives each rank its own file or its own region
//! of a shared file, runs the workload in step with the other ranks, and returns the merged
//! report on every rank; only rank 0 prints and stores it. A build without MPI, or one started
//! by another MPI's launcher, refuses rather than run N unrelated copies.

// The layout code is used only by the MPI build (and its tests run in every build).
#![cfg_attr(not(feature = "mpi"), allow(dead_code))]

use anyhow::Result;

/// A launch this process refuses (a usage error: the command line or launcher is wrong).
#[derive(Debug)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

fn refused(msg: impl Into<String>) -> anyhow::Error {
    Refused(msg.into()).into()
}
use report::RunReport;
use std::path::PathBuf;
use workload::{JobSpec, Workload};

/// How ranks share the storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// One file per rank in the job's directory (IOR's file-per-process).
    FilePerProcess,
    /// One file or device, a region per rank (IOR's shared file).
    Shared,
    /// The caller already gave each rank its own file (a suite's private temporary file).
    AsGiven,
}

impl Layout {
    fn name(self) -> &'static str {
        match self {
            Layout::Shared => "shared-file",
            _ => "file-per-process",
        }
    }
}

#[cfg(feature = "mpi")]
mod team {
    use std::cell::RefCell;
    use std::rc::Rc;
    thread_local! {
        pub static TEAM: RefCell<Option<Rc<crate::team::Team>>> = const { RefCell::new(None) };
    }
    pub fn get() -> Option<Rc<crate::team::Team>> {
        TEAM.with(|t| t.borrow().clone())
    }
}

/// Joins the MPI world when a launcher started this process, or refuses one that cannot.
/// `cmd` is the subcommand: only run, sweep and suite run in step across ranks.
pub fn init(cmd: &str) -> Result<()> {
    let Some(launch) = crate::launcher::from_env() else {
        return Ok(());
    };
    if !launch.is_many() {
        return Ok(());
    }
    if !matches!(cmd, "run" | "sweep" | "suite") {
        return Err(refused(format!(
            "volbench {cmd} runs as one process, but it was started as one of several ({}): \
             under mpirun use volbench run, sweep or suite",
            launch.describe()
        )));
    }
    join(&launch)
}

#[cfg(not(feature = "mpi"))]
fn join(launch: &crate::Launch) -> Result<()> {
    Err(refused(crate::launcher::without_mpi_message(launch)))
}

#[cfg(feature = "mpi")]
fn join(launch: &crate::Launch) -> Result<()> {
    let t =
        crate::team::Team::init().ok_or_else(|| anyhow::anyhow!("MPI could not be initialised"))?;
    let wrong = match launch.size {
        Some(n) => n != t.size(),
        None => t.size() == 1,
    };
    if wrong {
        return Err(refused(crate::launcher::wrong_mpi_message(
            launch,
            t.library(),
        )));
    }
    team::TEAM.with(|slot| *slot.borrow_mut() = Some(std::rc::Rc::new(t)));
    Ok(())
}

/// Leaves the MPI world (MPI_Finalize), if this process joined one.
pub fn shutdown() {
    #[cfg(feature = "mpi")]
    team::TEAM.with(|t| t.borrow_mut().take());
}

/// This process's rank and the world's size: (0, 1) alone.
pub fn rank_size() -> (u32, u32) {
    #[cfg(feature = "mpi")]
    if let Some(t) = team::get() {
        return (t.rank(), t.size());
    }
    (0, 1)
}

/// True for the process that prints and stores: rank 0, or the only one.
pub fn is_root() -> bool {
    rank_size().0 == 0
}

/// True where messages are printed: rank 0 of a world, or the launcher's rank 0 when every
/// rank is alone (a refused launch), so each message appears once.
pub fn speaks() -> bool {
    is_root()
        && crate::launcher::from_env()
            .and_then(|l| l.rank)
            .is_none_or(|r| r == 0)
}

/// Runs `w` (in step with the other ranks under MPI) and returns its report: the merged one
/// under MPI, on every rank alike.
pub fn run(
    w: &Workload,
    opts: &runner::RunOptions,
    obs: &mut dyn runner::Observer,
    layout: Layout,
) -> Result<RunReport> {
    #[cfg(feature = "mpi")]
    if let Some(t) = team::get() {
        return run_ranked(&t, w, opts, obs, layout);
    }
    let _ = layout;
    Ok(runner::run(w, opts, obs)?)
}

#[cfg(feature = "mpi")]
fn run_ranked(
    t: &std::rc::Rc<crate::team::Team>,
    w: &Workload,
    opts: &runner::RunOptions,
    obs: &mut dyn runner::Observer,
    layout: Layout,
) -> Result<RunReport> {
    let opts = runner::RunOptions {
        stop: opts.stop.clone(),
        command_line: opts.command_line.clone(),
        unlink: opts.unlink,
        peers: Some(t.clone()),
    };
    let setup = crate::merge::Setup {
        library: t.library().to_string(),
        layout: layout.name().into(),
    };
    let unlink = opts.unlink;
    let mine = for_rank(w, t.rank(), t.size(), layout);
    // A shared file is laid out whole by rank 0 before anyone starts, so no rank reads a
    // region another is still writing.
    let mut shared_created = Vec::new();
    let laid = match (&mine, layout, t.rank()) {
        (Ok(_), Layout::Shared, 0) => lay_out_shared(w, t.size(), &opts, &mut shared_created),
        (Ok(_), _, _) => Ok(()),
        (Err(e), _, _) => Err(e.clone()),
    };
    let ready = t.all(laid.is_ok());
    let outcome = match (mine, laid) {
        (Err(e), _) | (_, Err(e)) => Err(e),
        (Ok(_), _) if !ready => Err(runner::RunError::PeerFailed.to_string()),
        (Ok(mine), Ok(())) => runner::run(&mine, &opts, obs).map_err(|e| e.to_string()),
    };
    let merged = t.finish(outcome, &setup);
    if let Ok(r) = &merged {
        if unlink || r.status == report::Status::Interrupted {
            shared_created.iter().for_each(|p| {
                let _ = std::fs::remove_file(p);
            });
        }
    }
    merged.map_err(|e| anyhow::anyhow!(e))
}

/// Lays out the whole shared file (every rank's region) once.
#[cfg(feature = "mpi")]
fn lay_out_shared(
    w: &Workload,
    size: u32,
    opts: &runner::RunOptions,
    created: &mut Vec<PathBuf>,
) -> Result<(), String> {
    for s in &w.jobs {
        let path = shared_path(s);
        if path.metadata().is_ok_and(|m| !m.is_file()) {
            continue; // a block device needs no layout
        }
        let mut whole = s.clone();
        whole.filename = vec![path];
        whole.size = Some(region(s, size) * (s.numjobs * size) as u64);
        whole.numjobs = 1;
        whole.rw = workload::Rw::Write;
        created.extend(runner::lay_out(&whole, &opts.stop).map_err(|e| e.to_string())?);
    }
    Ok(())
}

/// The one file all ranks share: the job's `--filename`, or `NAME.shared` in its directory.
fn shared_path(s: &JobSpec) -> PathBuf {
    match s.filename.first() {
        Some(f) => f.clone(),
        None => s
            .files
            .directory
            .clone()
            .unwrap_or_else(|| ".".into())
            .join(format!("{}.shared", s.name)),
    }
}

/// Bytes of one job clone's region in the shared file: `--size`; on a block device without
/// it, the device past `--offset` split evenly among every rank's clones (whole blocks), as a
/// device is the whole target when one process runs; else the default file size.
fn region(s: &JobSpec, ranks: u32) -> u64 {
    if let Some(size) = s.size {
        return size;
    }
    let clones = (ranks.max(1) * s.numjobs.max(1)) as u64;
    let meta = std::fs::metadata(shared_path(s)).ok();
    match meta.as_ref().and_then(runner::probe::device_bytes) {
        Some(cap) => (cap.saturating_sub(s.region.offset) / clones / s.bs.max(1) * s.bs).max(s.bs),
        None => runner::DEFAULT_FILE_SIZE,
    }
}

/// This rank's version of the workload: its own files, or its own regions of a shared one.
pub fn for_rank(w: &Workload, rank: u32, ranks: u32, layout: Layout) -> Result<Workload, String> {
    let phases = w.jobs.iter().skip(1).filter(|s| s.timing.stonewall).count();
    if phases > 0 {
        return Err(
            "under mpirun a workload runs as one phase: split stonewall phases into \
                    separate runs"
                .into(),
        );
    }
    let mut out = w.clone();
    for s in &mut out.jobs {
        // A given randseed makes each rank's data repeat from run to run, not across ranks:
        // every rank's written sectors stay its own.
        s.pattern.randseed ^= (rank as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        match layout {
            Layout::AsGiven => {}
            Layout::FilePerProcess => {
                if !s.filename.is_empty() {
                    return Err(format!(
                        "--filename {} would be one file for every rank: pass --shared-file \
                         to share it (a region per rank), or --directory for a file per rank",
                        s.filename[0].display()
                    ));
                }
                // fio's default naming (a job file's) gets the rank in it too.
                let fmt = match s.files.filename_format.as_deref() {
                    None | Some(workload::spec::FIO_FILENAME_FORMAT) => {
                        "$jobname.$clientuid.$jobnum.$filenum".to_string()
                    }
                    Some(f) => f.to_string(),
                };
                if !fmt.contains("$clientuid") {
                    return Err(format!(
                        "filename_format={fmt} names the same files on every rank: add \
                         $clientuid (the rank) to it, or pass --shared-file"
                    ));
                }
                s.files.filename_format = Some(fmt.replace("$clientuid", &rank.to_string()));
            }
            Layout::Shared => {
                if s.filename.len() > 1 || s.files.nrfiles > 1 {
                    return Err("--shared-file takes one file: give one --filename".into());
                }
                let r = region(s, ranks);
                s.filename = vec![shared_path(s)];
                s.files.directory = None;
                s.size = Some(r);
                s.region.offset += (rank * s.numjobs) as u64 * r;
                s.region.offset_increment = r;
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(f: impl FnOnce(&mut JobSpec)) -> Workload {
        let mut s = JobSpec {
            name: "j".into(),
            files: workload::Files {
                directory: Some("/mnt/shared".into()),
                ..Default::default()
            },
            size: Some(1 << 20),
            ..Default::default()
        };
        f(&mut s);
        Workload {
            jobs: vec![s],
            ..Default::default()
        }
    }

    #[test]
    fn each_rank_gets_its_own_files_or_regions() {
        let a = for_rank(&w(|_| {}), 3, 4, Layout::FilePerProcess).unwrap();
        assert_eq!(
            runner::resolve_paths(&a.jobs[0], 0),
            [PathBuf::from("/mnt/shared/j.3.0.0")]
        );
        let b = for_rank(&w(|s| s.numjobs = 2), 3, 4, Layout::Shared).unwrap();
        let s = &b.jobs[0];
        assert_eq!(s.filename, [PathBuf::from("/mnt/shared/j.shared")]);
        assert_eq!(
            (s.region.offset, s.region.offset_increment),
            (6 << 20, 1 << 20)
        );
        let e = for_rank(
            &w(|s| s.filename = vec!["/dev/x".into()]),
            0,
            4,
            Layout::FilePerProcess,
        )
        .unwrap_err();
        assert!(e.contains("--shared-file"), "{e}");
        let e = for_rank(
            &w(|s| s.files.filename_format = Some("$jobname.x".into())),
            0,
            4,
            Layout::FilePerProcess,
        )
        .unwrap_err();
        assert!(e.contains("$clientuid"), "{e}");
    }
}
