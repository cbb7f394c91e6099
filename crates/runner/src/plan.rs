//! A run's plan: every job clone with its files laid out, its phase (a stonewall starts one)
//! and its reporting group (a stonewall or new_group starts one). Targets shared by several
//! jobs are laid out and reported once, but each job opens its own descriptor.

use crate::error::RunError;
use crate::{probe, target, Observer, RunOptions};
use report::{KernelCounters, TargetInfo};
use std::collections::HashMap;
use std::path::PathBuf;
use workload::{JobSpec, Workload};

/// One job clone as planned.
pub(crate) struct Planned {
    pub spec_idx: usize,
    pub clone: u32,
    pub name: String,
    /// Indices into the run's distinct targets, one per file.
    pub targets: Vec<usize>,
    pub phase: usize,
    pub group: u32,
    /// fio's cgroup: the blkio group the job's thread joins.
    pub cgroup: Option<crate::jobgroup::Member>,
}

pub(crate) struct Plan {
    pub jobs: Vec<Planned>,
    /// Each job's open files, in the order of `jobs`.
    pub files: Vec<Vec<target::Target>>,
    /// The distinct targets, as reported.
    pub targets: Vec<TargetInfo>,
    /// Files this run created (removed on failure, interrupt or unlink).
    pub created: Vec<PathBuf>,
    pub last_phase: usize,
    pub last_group: u32,
    /// Each distinct device node, with the index of a target on it: the kernel's counters are
    /// read per device.
    pub devs: Vec<(usize, probe::DevId)>,
    /// The run's own data seed: each run writes data of its own (no sector of one run
    /// repeats in the next), unless a job's randseed makes its data repeatable.
    pub data_seed: u64,
    /// Disks whose I/O scheduler a job switched (`ioscheduler`): switched back when the plan
    /// drops, after the run or its failure.
    pub schedulers: Vec<crate::sched::Switched>,
    /// The jobs' cgroups (fio's `cgroup`): those the run made are removed when the plan
    /// drops, after the run or its failure.
    pub groups: Vec<crate::jobgroup::Group>,
}

/// A seed no other run shares: the clock's nanoseconds and this process.
fn run_nonce() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    crate::data::mix(t ^ crate::data::mix(std::process::id() as u64))
}

impl Plan {
    /// Job `i`'s data seed: from its randseed where given (repeatable), else the run's; the
    /// job's place in the plan keeps two jobs' data apart either way.
    pub fn data_seed(&self, w: &Workload, i: usize) -> (u64, u64) {
        let spec = &w.jobs[self.jobs[i].spec_idx];
        let run = if spec.pattern.randseed_set {
            crate::data::mix(spec.pattern.randseed)
        } else {
            self.data_seed
        };
        (crate::data::mix(run ^ crate::data::mix(i as u64 + 1)), run)
    }

    /// Lays out every clone's files; on an error, what was created so far is removed.
    pub fn build(
        w: &Workload,
        opts: &RunOptions,
        obs: &mut dyn Observer,
    ) -> Result<Plan, RunError> {
        let mut plan = Plan {
            jobs: Vec::new(),
            files: Vec::new(),
            targets: Vec::new(),
            created: Vec::new(),
            last_phase: 0,
            last_group: 0,
            devs: Vec::new(),
            data_seed: run_nonce(),
            schedulers: Vec::new(),
            groups: Vec::new(),
        };
        let mut seen: HashMap<PathBuf, usize> = HashMap::new();
        for (si, spec) in w.jobs.iter().enumerate() {
            if let Some(name) = &spec.timing.wait_for {
                if !w.jobs[..si].iter().any(|j| j.name == *name) {
                    return Err(RunError::WaitFor {
                        job: spec.name.clone(),
                        waitee: name.clone(),
                    });
                }
            }
            if si > 0 && spec.timing.stonewall {
                plan.last_phase += 1;
            }
            if si > 0 && (spec.timing.stonewall || spec.timing.new_group) {
                plan.last_group += 1;
            }
            for clone in 0..spec.numjobs {
                if let Err(e) = plan.place(spec, si, clone, opts, obs, &mut seen) {
                    remove_created(&plan.created);
                    return Err(e);
                }
            }
        }
        plan.find_devices();
        Ok(plan)
    }

    /// Lays out one clone's files and plans it.
    fn place(
        &mut self,
        spec: &JobSpec,
        si: usize,
        clone: u32,
        opts: &RunOptions,
        obs: &mut dyn Observer,
        seen: &mut HashMap<PathBuf, usize>,
    ) -> Result<(), RunError> {
        let paths = target::resolve_paths(spec, clone);
        if let (Some(dir), true) = (&spec.files.opendir, paths.is_empty()) {
            return Err(RunError::EmptyOpendir(dir.clone()));
        }
        self.file_ops(spec, &paths)?;
        unlinks_only_its_own(spec, &paths)?;
        let mut files = Vec::new();
        let mut idxs = Vec::new();
        for path in &paths {
            let t = target::prepare(
                spec,
                clone,
                path,
                paths.len() as u32,
                &opts.stop,
                &mut self.created,
                &mut |p, d, t| obs.layout(p, d, t),
            )?;
            if let (Some(want), Some(dev)) = (&spec.engine.ioscheduler, t.dev) {
                crate::sched::switch(dev, want, &mut self.schedulers)?;
            }
            idxs.push(*seen.entry(path.clone()).or_insert_with(|| {
                self.targets.push(t.info.clone());
                self.targets.len() - 1
            }));
            files.push(t);
        }
        let cgroup = crate::jobgroup::prepare(spec, &mut self.groups)?;
        self.jobs.push(Planned {
            cgroup,
            spec_idx: si,
            clone,
            name: if spec.numjobs == 1 {
                spec.name.clone()
            } else {
                format!("{}.{clone}", spec.name)
            },
            targets: idxs,
            phase: self.last_phase,
            group: self.last_group,
        });
        self.files.push(files);
        Ok(())
    }

    /// fio's file and directory engines: `dirstat` and `dirdelete` find their directories
    /// made (as fio's setup makes them), and a job that removes files or directories removes
    /// only those this run made, unless `--allow-destructive`.
    fn file_ops(&mut self, spec: &JobSpec, paths: &[PathBuf]) -> Result<(), RunError> {
        let workload::EngineKind::FileOp(op) = spec.ioengine else {
            return Ok(());
        };
        let removes = matches!(op, workload::FileOp::Delete | workload::FileOp::DirDelete);
        let before: Vec<bool> = paths.iter().map(|p| p.exists()).collect();
        let made = crate::fileops::make_dirs(spec, paths).map_err(|source| RunError::Open {
            path: paths.first().cloned().unwrap_or_default(),
            source,
        })?;
        self.created.extend(made);
        if let Some((p, _)) = paths.iter().zip(before).find(|(_, b)| *b) {
            if removes && !spec.allow_destructive {
                let verb = if op == workload::FileOp::Delete {
                    "delete"
                } else {
                    "remove"
                };
                return Err(RunError::NotOurs {
                    verb,
                    path: p.clone(),
                });
            }
        }
        Ok(())
    }

    fn find_devices(&mut self) {
        for (p, files) in self.jobs.iter().zip(&self.files) {
            for (t, ti) in files.iter().zip(&p.targets) {
                if let Some(d) = t.dev {
                    if !self.devs.iter().any(|(_, x)| *x == d) {
                        self.devs.push((*ti, d));
                    }
                }
            }
        }
    }

    /// The kernel's counters of every device of the run, now.
    pub fn snapshot(&self) -> Vec<Option<KernelCounters>> {
        self.devs
            .iter()
            .map(|(_, d)| probe::kernel_counters(*d))
            .collect()
    }

    /// The jobs of one phase.
    pub fn members(&self, phase: usize) -> Vec<usize> {
        (0..self.jobs.len())
            .filter(|&i| self.jobs[i].phase == phase)
            .collect()
    }

    /// Removes the files this run created that must go: all after an interrupt or with
    /// `--unlink`, else those of jobs asking unlink=1 or unlink_each_loop=1 (whose last
    /// loop's files go too, so the next run can create them again).
    pub fn unlink(&self, w: &Workload, all: bool) {
        let paths: Vec<PathBuf> = self
            .jobs
            .iter()
            .filter(|p| {
                all || w.jobs[p.spec_idx].files.unlink || w.jobs[p.spec_idx].files.unlink_each_loop
            })
            .flat_map(|p| target::resolve_paths(&w.jobs[p.spec_idx], p.clone))
            .collect();
        let doomed: Vec<PathBuf> = self
            .created
            .iter()
            .filter(|c| paths.contains(c))
            .cloned()
            .collect();
        remove_created(&doomed);
    }

    /// Fails the run: the files it created go.
    pub fn fail(&self, e: RunError) -> RunError {
        remove_created(&self.created);
        e
    }
}

pub(crate) fn remove_created(created: &[PathBuf]) {
    for p in created {
        // A file, or an (empty) directory a file engine's job made.
        if std::fs::remove_file(p).is_err() {
            let _ = std::fs::remove_dir(p);
        }
    }
}

/// fio's unlink_each_loop deletes the job's files after each loop. volbench deletes only what
/// it creates: a file there before the run needs --allow-destructive, a device is refused.
fn unlinks_only_its_own(spec: &JobSpec, paths: &[PathBuf]) -> Result<(), RunError> {
    if !spec.files.unlink_each_loop {
        return Ok(());
    }
    for p in paths {
        let device = p
            .metadata()
            .is_ok_and(|m| std::os::unix::fs::FileTypeExt::is_block_device(&m.file_type()));
        if device || (p.exists() && !spec.allow_destructive) {
            return Err(RunError::NotOurs {
                verb: "unlink after each loop (unlink_each_loop)",
                path: p.clone(),
            });
        }
    }
    Ok(())
}
