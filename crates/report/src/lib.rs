//! The results as data: every document volbench writes or reads ([`Document`]: a run, a suite
//! or sweep, an fsync cost, a database benchmark, a volume's limits, a comparison), with serde
//! and nothing else. What the figures mean lives here too: the warnings that judge whether a
//! run's numbers can be trusted ([`trust`]) and fio's percentile lists. Turning a document into
//! bytes is the `render` crate's work, which only the binary uses.

pub mod analysis;
pub mod compare;
pub mod curve;
pub mod db;
pub mod durability;
pub mod fsync;
pub mod infer;
pub mod machine;
mod percentiles;
pub mod pts;
pub mod read;
pub mod repeats;
pub mod replay;
pub mod schema;
pub mod secrets;
pub mod suite;
pub mod trust;
pub mod volume;

pub use db::{DbReport, DbRun, Explanation};
pub use durability::{Cycle, CycleSettings, DurabilityReport, FsyncCost};
pub use fsync::{FsyncCase, FsyncReport, Penalty, RwRates, Verdict};
pub use infer::{BurstFound, BwBurstFound, Closest, InferReport, Limits, Point};
pub use percentiles::apply_percentile_lists;
pub use pts::PtsReport;
pub use replay::{ReplayLatency, ReplayReport};
pub use schema::*;
pub use suite::{Finding, SuiteReport, SuiteRun};

/// A stored or exported result: one run, or a suite or sweep of runs.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Document {
    Run(Box<RunReport>),
    Suite(Box<SuiteReport>),
    Fsync(Box<FsyncReport>),
    Db(Box<DbReport>),
    Infer(Box<InferReport>),
    /// The power-cut loop: N cuts and what survived each.
    Durability(Box<DurabilityReport>),
    /// Results side by side: made by `compare`, never stored.
    Compare(Box<compare::Comparison>),
}

/// Every target of a run in one phrase: "/dev/zram0 + /dev/zram1", and past four "+ N more".
/// A striped or multi-file run is named by all its targets, never by its first alone.
pub fn targets_phrase(targets: &[TargetInfo], with_device: bool) -> String {
    let name = |t: &TargetInfo| match (&t.device, with_device) {
        (Some(d), true) if !t.path.ends_with(&d.name) => format!("{} on {}", t.path, d.name),
        _ => t.path.clone(),
    };
    let mut parts: Vec<String> = targets.iter().take(4).map(name).collect();
    if targets.len() > 4 {
        parts.push(format!("{} more", targets.len() - 4));
    }
    parts.join(" + ")
}

/// " sched=NAME" for a device's I/O scheduler; nothing for a device without one (zram and
/// other bio-based devices have no request queue to schedule), rather than an empty "sched=".
pub fn sched_field(scheduler: &str) -> String {
    if scheduler.is_empty() {
        String::new()
    } else {
        format!(" sched={scheduler}")
    }
}

impl Document {
    /// `run`, `sweep` or `suite`.
    pub fn kind(&self) -> &'static str {
        match self {
            Document::Run(_) => "run",
            Document::Suite(s) if s.suite == "sweep" => "sweep",
            Document::Suite(s) if s.suite == "curve" => "curve",
            Document::Suite(_) => "suite",
            Document::Fsync(_) => "fsync",
            Document::Db(_) => "db",
            Document::Infer(_) => "infer",
            Document::Durability(_) => "durability",
            Document::Compare(_) => "compare",
        }
    }
    pub fn started_at(&self) -> &str {
        match self {
            Document::Run(r) => &r.started_at,
            Document::Suite(s) => &s.started_at,
            Document::Fsync(f) => &f.started_at,
            Document::Db(d) => &d.started_at,
            Document::Infer(i) => &i.started_at,
            Document::Durability(d) => &d.started_at,
            Document::Compare(_) => "",
        }
    }
    pub fn first_run(&self) -> Option<&RunReport> {
        match self {
            Document::Run(r) => Some(r),
            Document::Suite(s) => s.runs.first().map(|r| &r.report),
            _ => None,
        }
    }
    /// The host and targets the entry measured.
    pub fn environment(&self) -> Option<&Environment> {
        match self {
            Document::Fsync(f) => Some(&f.environment),
            Document::Db(d) => Some(&d.environment),
            Document::Infer(i) => Some(&i.environment),
            _ => self.first_run().map(|r| &r.environment),
        }
    }
    pub fn suite_name(&self) -> Option<&str> {
        match self {
            Document::Suite(s) => Some(&s.suite),
            _ => None,
        }
    }
    pub fn status(&self) -> Status {
        match self {
            Document::Run(r) => r.status,
            Document::Suite(s) => s.status,
            Document::Fsync(f) => f.status,
            Document::Db(d) => d.status,
            Document::Infer(i) => i.status,
            Document::Durability(d) => d.status,
            Document::Compare(_) => Status::Complete,
        }
    }
    /// What the entry is, in a few words, for history: "randread 4k QD32", "2 groups: randread
    /// 4k QD32 | write 1m QD1", "sweep of numjobs (9 points)", "suite quick (5 tests)".
    pub fn what(&self) -> String {
        match self {
            Document::Run(r) => {
                let jobs: Vec<String> = r.workload.jobs.iter().map(job_words).collect();
                if r.groups.len() > 1 {
                    format!("{} groups: {}", r.groups.len(), jobs.join(" | "))
                } else {
                    jobs.join(" + ")
                }
            }
            Document::Suite(s) if s.suite == "sweep" => {
                let mut axes: Vec<&str> = Vec::new();
                for (k, _) in s.runs.iter().flat_map(|r| &r.params) {
                    if !axes.contains(&k.as_str()) {
                        axes.push(k);
                    }
                }
                format!("sweep of {} ({} points)", axes.join(" x "), s.runs.len())
            }
            Document::Suite(s) => format!("suite {} ({} tests)", s.suite, s.runs.len()),
            Document::Fsync(f) if f.cases.is_empty() => {
                format!("fsync penalty ({} targets)", f.penalty.len())
            }
            Document::Fsync(f) => format!("fsync cost ({} cases)", f.cases.len()),
            Document::Db(d) => format!("db {} scale {} x{} clients", d.engine, d.scale, d.clients),
            Document::Infer(i) => format!("limits of {} ({} points)", i.target, i.points.len()),
            Document::Durability(d) => {
                let (n, _, _, lost) = d.totals();
                let cuts = if n == 1 { "power cut" } else { "power cuts" };
                format!("{n} {cuts}, {lost} records lost ({})", d.verdict)
            }
            Document::Compare(c) => format!("comparison of {}", c.inputs.join(", ")),
        }
    }
}

/// A job as fio options, for fio-json's "job options".
pub fn fio_options(spec: &workload::JobSpec) -> serde_json::Map<String, serde_json::Value> {
    let mut m: serde_json::Map<String, serde_json::Value> = workload::fio::options(spec)
        .into_iter()
        .map(|(k, v)| (k, serde_json::Value::String(v)))
        .collect();
    // fio echoes what a job was given, and its readers (fio-plot's file matching) look for
    // these four in every file: they are given even where they equal fio's defaults.
    use workload::fio::table::names::{BS, IODEPTH, NUMJOBS, RW};
    for (k, v) in [
        (RW, spec.rw_name().to_string()),
        (BS, workload::short_size(spec.bs)),
        (IODEPTH, spec.iodepth.to_string()),
        (NUMJOBS, spec.numjobs.to_string()),
    ] {
        m.entry(k).or_insert(serde_json::Value::String(v));
    }
    m
}

/// What a job's writes carry, in words: "random, fresh every write", "60% compressible in
/// 512-byte chunks", "zeros", with a share of duplicates where fio's dedupe asks for one.
pub fn data_words(j: &workload::JobSpec) -> String {
    use workload::BufferMode;
    let mut s = match &j.buffers.buffer {
        BufferMode::Random if j.buffers.refill_buffers || j.buffers.scramble_buffers => {
            "random, fresh every write".to_string()
        }
        BufferMode::Random => "random, each buffer filled once and written again".into(),
        BufferMode::Zero => "zeros".into(),
        BufferMode::Pattern(p) => format!("the pattern of {} bytes", p.len()),
        BufferMode::Compressible {
            percent,
            chunk,
            filler,
        } => format!(
            "{percent}% compressible in {} chunks ({} fill)",
            workload::format_bytes(*chunk as f64),
            if filler.is_empty() { "zero" } else { "pattern" }
        ),
    };
    let d = &j.buffers.dedupe;
    if d.on() {
        s += &format!(", {}% duplicate buffers", d.percent);
        if d.working_set {
            s += &format!(
                " (of a working set of {}% of the size",
                d.working_set_percent
            );
            s += if d.global {
                ", shared by the jobs)"
            } else {
                ")"
            };
        }
    }
    s
}

/// What a run's writes carried, each distinct description once ("no writes" for a run
/// without any).
pub fn run_data_words(r: &RunReport) -> String {
    let mut v: Vec<String> = Vec::new();
    for j in r.workload.jobs.iter().filter(|j| j.rw.writes()) {
        let w = data_words(j);
        if !v.contains(&w) {
            v.push(w);
        }
    }
    if v.is_empty() {
        "no writes".into()
    } else {
        v.join("; ")
    }
}

/// A job in the words the text report uses: "randread 4k QD32", with "x4" for numjobs.
pub fn job_words(j: &workload::JobSpec) -> String {
    let mut s = format!(
        "{} {} QD{}",
        j.rw_name(),
        workload::short_size(j.bs),
        j.effective_iodepth()
    );
    if j.numjobs > 1 {
        s.push_str(&format!(" x{}", j.numjobs));
    }
    s
}
