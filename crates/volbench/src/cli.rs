//! The command line: fio's option names and units wherever fio has one.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// A directory, device or file to work on, made absolute where the user stands: the
/// commands hand these to other processes (initdb, a remote verify) and to the kernel's
/// view of devices, where a relative path means something else or nothing (`local`'s parent
/// is "", which no stat can find).
pub fn abs_path(s: &str) -> Result<PathBuf, String> {
    if s.is_empty() {
        return Err("an empty path: give a directory, device or file".into());
    }
    std::path::absolute(s).map_err(|e| format!("{s}: {e}"))
}

/// Where the user stands, for a command's default directory ("." made absolute, as
/// [`abs_path`] makes the ones given).
pub fn here() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

const EXAMPLES: &str = "\
Examples:
  volbench quick                      five standard tests on a temp file here (about a minute)
  volbench run                        4k random reads, QD32, 30 s on ./volbench.test (1 GiB)
  volbench run --rw=randwrite --bs=4k --iodepth=1 --fsync=1 --runtime=20s
  volbench run --filename=/dev/nvme1n1 --rw=randread --iodepth=128 --numjobs=4
  volbench run --rw=write --bs=1m --size=4g --output-format=json --output=seq.json
  volbench run job.fio --output-format=fio-json      a fio job file, fio-shaped JSON out
  volbench run --name=a --rw=randread --size=1g --name=b --rw=write --size=1g   fio's multi-job form
  volbench report last --output report.html      the newest result as one HTML page with charts
  mpirun -n 8 volbench run --directory=/mnt/nfs --rw=randread   8 ranks, one file each, one merged result";

#[derive(Parser, Debug)]
#[command(
    name = "volbench",
    version,
    about = "How fast is this volume really, for my workload? A fio-class storage benchmark with numbers you can trust.",
    after_help = EXAMPLES,
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub cmd: Cmd,
}

/// Watching a measuring command while it runs (docs/live.md); taken by the commands that do
/// I/O or serve the witness ([`Cmd::live`]), listed in their help only.
#[derive(Args, Debug, Clone, Default)]
pub struct LiveArgs {
    /// Serve live metrics (OpenMetrics, for Prometheus) at ADDR:PORT, e.g. 127.0.0.1:9464;
    /// an address other hosts can reach needs --metrics-token-file.
    #[arg(long, value_name = "ADDR:PORT")]
    pub metrics_listen: Option<String>,
    /// The token a scraper must send (Authorization: Bearer), first line of FILE.
    #[arg(long, value_name = "FILE")]
    pub metrics_token_file: Option<PathBuf>,
    /// One line per job (and host) redrawn each second: IOPS, MiB/s, p99, queue depth, errors.
    #[arg(long)]
    pub live: bool,
    /// fio's --status-interval: those lines every TIME (seconds without a unit), each for the
    /// interval since the last, on stderr.
    #[arg(long, value_name = "TIME", value_parser = status_interval)]
    pub status_interval: Option<std::time::Duration>,
    /// Each job's interval records as NDJSON, one line each as it is made, to FILE (- for
    /// stdout).
    #[arg(long, value_name = "FILE")]
    pub interval_log: Option<PathBuf>,
}

/// fio's status-interval: a time, seconds when the unit is left out; at least 100 ms.
fn status_interval(s: &str) -> Result<std::time::Duration, String> {
    let d = match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => std::time::Duration::from_secs_f64(v),
        Ok(_) => return Err(format!("{s}: give a positive time, e.g. 5 or 500ms")),
        Err(_) => humantime::parse_duration(s)
            .map_err(|e| format!("{s}: {e}: give seconds (5) or a time with a unit (500ms)"))?,
    };
    if d < std::time::Duration::from_millis(100) {
        return Err(format!("{s}: at least 100ms"));
    }
    Ok(d)
}

impl Cmd {
    /// The watching flags of a command that takes them (docs/live.md); none for the others.
    pub fn live(&self) -> LiveArgs {
        let a = match self {
            Cmd::Run(a) => &a.live,
            Cmd::Sweep(a) => &a.run.live,
            Cmd::Quick(a) => &a.live,
            Cmd::Curve(a) => &a.live,
            Cmd::Suite(a) => &a.live,
            Cmd::Fsync(a) => &a.live,
            Cmd::Replay(a) => &a.live,
            Cmd::Infer(a) => &a.live,
            Cmd::Db(a) => &a.live,
            Cmd::Durability(DurabilityCmd::Serve(a)) => &a.live,
            Cmd::Durability(DurabilityCmd::Create(a)) => &a.live,
            Cmd::Durability(DurabilityCmd::Cycle(a)) => &a.live,
            _ => return LiveArgs::default(),
        };
        a.clone()
    }
}

#[derive(Subcommand, Debug)]
pub enum Cmd {
    /// Run one workload (fio's options and units; every fio option volbench supports is accepted
    /// as --key=value, not only those listed here).
    #[command(after_help = EXAMPLES)]
    Run(Box<RunArgs>),
    /// The five standard tests on a temporary file: bandwidth, random IOPS, QD1 latency.
    #[command(after_help = "Example:\n  volbench quick /mnt/volume --runtime=10s --size=2g")]
    Quick(QuickArgs),
    /// Run one workload over lists of values: numjobs, iodepth, bs, rw, filename.
    #[command(after_help = SWEEP_EXAMPLES)]
    Sweep(Box<SweepArgs>),
    /// Latency under load: the maximum, then Poisson arrivals at shares of it (10 %, 20 %, ...,
    /// 110 %) with latency from each I/O's due time, and the load that meets a latency target.
    #[command(after_help = CURVE_EXAMPLES)]
    Curve(Box<CurveArgs>),
    /// Run a named suite of tests (quick, cloud-volume, scaling, crystal) or a suite file.
    #[command(
        after_help = "Examples:\n  volbench suite --list\n  volbench suite crystal /mnt/volume\n  volbench suite cloud-volume /dev/nvme1n1 --allow-destructive --label gp3-1000g\n  volbench suite --show scaling > my-scaling.fio   # copy, edit, then: volbench suite my-scaling.fio"
    )]
    Suite(SuiteArgs),
    /// List stored results, newest first, a page at a time (filter by label, target, suite,
    /// kind, date, host, machine).
    #[command(
        after_help = "Examples:\n  volbench history                      # the newest 50, and how many there are\n  volbench history --before 1234        # the page after the one ending at #1234\n  volbench history --label nightly --since 2026-11-01 --limit 10\n  volbench history --all --output-format csv > all.csv"
    )]
    History(HistoryArgs),
    /// Print one stored result.
    Show(ShowArgs),
    /// Export one stored result: json, fio-json, csv, md or html.
    Export(ExportArgs),
    /// Delete one stored result, or every result older than a date or matching filters.
    #[command(
        after_help = "Examples:\n  volbench delete 42\n  volbench delete --before 2026-01-01 --dry-run\n  volbench delete --before 2026-01-01 --label nightly   # then the file's space is given back"
    )]
    Delete(DeleteArgs),
    /// Move results between stores: copy a history (SQLite to PostgreSQL and back), or push
    /// the results a PostgreSQL store could not take when they were measured.
    #[command(subcommand, after_help = STORE_EXAMPLES)]
    Store(StoreCmd),
    /// Serve the results store as web pages: the history with its filters, each result's
    /// report, and a comparison of the results picked (read-only).
    #[command(after_help = SERVE_EXAMPLES)]
    Serve(WebArgs),
    /// Compare results side by side (store ids, labels or JSON files), with ratios to the first.
    #[command(
        after_help = "Examples:\n  volbench compare local-nvme ebs-gp3           # labels\n  volbench compare 3 7 12 --output-format=md     # ids, as a Markdown table\n  volbench compare before.json after.json"
    )]
    Compare(CompareArgs),
    /// One self-contained HTML page with charts (no network needed) for stored results or
    /// JSON files; several are compared side by side.
    #[command(
        after_help = "Examples:\n  volbench sweep --rw=randread,randwrite --numjobs=1,2,4..64 --runtime=10s\n  volbench report last --output sweep.html       # the newest result\n  volbench report local-nvme gp3-500g -o cmp.html  # labels, compared\n  volbench report result.json                      # a JSON file volbench wrote"
    )]
    Report(ReportArgs),
    /// One chart as an SVG file (for a post or a slide): a metric against a swept parameter, or
    /// a run's per-second series.
    #[command(
        after_help = "Examples:\n  volbench chart last --metric iops --x numjobs --output scaling.svg\n  volbench chart 12 --metric p99 --output p99.svg\n  volbench chart 7 --metric bw --x time --output run.svg"
    )]
    Chart(ChartArgs),
    /// What durability costs here: each way of making a write durable (fsync, fdatasync,
    /// O_DSYNC, O_DIRECT+fdatasync, RWF_DSYNC) against the same writes unsynced, the fsync
    /// penalty, the device's cache facts, and whether its flush looks honest.
    #[command(after_help = FSYNC_EXAMPLES)]
    Fsync(FsyncArgs),
    /// The power-loss checker: a witness on a machine that keeps power, a client writing
    /// acknowledged records on the machine under test, and verification after the cut.
    #[command(subcommand, after_help = DURABILITY_EXAMPLES)]
    Durability(DurabilityCmd),
    /// Would my database run well here? pgbench's TPC-B-like workload on SQLite (embedded) or
    /// a real, throwaway PostgreSQL in each directory, explained by the directory's flush time.
    #[command(after_help = DB_EXAMPLES)]
    Db(DbArgs),
    /// Cloud volumes: the providers' published models and prices, the cheapest volume for a
    /// target, and a stored result measured against what was advertised.
    #[command(subcommand, after_help = CLOUD_EXAMPLES)]
    Cloud(CloudCmd),
    /// What limits this volume: IOPS and bandwidth caps, crossover block size, latency floor,
    /// the queue depth needed, and a burst bucket; from a probe of TARGET, or from a stored
    /// result.
    #[command(after_help = INFER_EXAMPLES)]
    Infer(InferArgs),
    /// Run a command with its I/O on a device throttled like a cloud volume, burst bucket
    /// included (cgroup v2 io.max, else v1 blkio; needs root).
    #[command(after_help = EMULATE_EXAMPLES)]
    Emulate(EmulateArgs),
    /// Stop and remove what a killed volbench left: a throwaway PostgreSQL server and its
    /// directories, scratch files, an emulate cgroup. Every command does this for the
    /// leftovers volbench wrote down; clean also looks in the DIRs given, by name.
    #[command(
        after_help = "Examples:\n  volbench clean                 # what killed runs wrote down\n  volbench clean /mnt/nvme /data  # and volbench's files found there by name"
    )]
    Clean(CleanArgs),
    /// Check what on this host can change a result: I/O and CPU limits on this process, other
    /// I/O on the device, block-layer, file-system and CPU settings, and the cloud instance's
    /// own storage cap. Reads only; every run does the cheap part of it.
    #[command(after_help = DOCTOR_EXAMPLES)]
    Doctor(DoctorArgs),
    /// Record a device's block I/O (the kernel's tracepoints through tracefs), summarize a
    /// trace, or convert one (volbench's, blktrace's, fio's iolog).
    #[command(subcommand, after_help = TRACE_EXAMPLES)]
    Trace(TraceCmd),
    /// Replay a recorded trace on another file or device, with its timing and depth, and
    /// report how faithfully it went and the latency beside the recorded one.
    #[command(after_help = REPLAY_EXAMPLES)]
    Replay(Box<ReplayArgs>),
    /// Print the shell completion script for SHELL (bash, zsh, fish, elvish, powershell).
    #[command(
        after_help = "Examples:\n  volbench completions bash > /etc/bash_completion.d/volbench\n  volbench completions zsh > \"${fpath[1]}/_volbench\"\n  volbench completions fish > ~/.config/fish/completions/volbench.fish"
    )]
    Completions(CompletionsArgs),
    /// Write the man pages (volbench.1 and one per subcommand, volbench-run.1, ...) to DIR.
    #[command(after_help = "Examples:\n  volbench man /usr/local/share/man/man1")]
    Man(ManArgs),
}

const DOCTOR_EXAMPLES: &str = "\
Examples:
  volbench doctor                   the host, and the device holding the current directory
  volbench doctor /dev/nvme1n1      a device: its limits, settings, and any other I/O on it
  volbench doctor /mnt/data --output-format json";

#[derive(Args, Debug)]
pub struct DoctorArgs {
    /// The device, file or directory to be tested (default: the current directory).
    #[arg(value_parser = abs_path, value_name = "TARGET")]
    pub target: Option<PathBuf>,
    /// How long to watch the device's counters for other I/O.
    #[arg(long, value_name = "TIME", default_value = "1s", value_parser = humantime::parse_duration)]
    pub watch: std::time::Duration,
    /// The jobs the run will start, set against the CPUs this process may use.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub numjobs: u32,
    /// text or json.
    #[arg(long = "output-format", value_name = "FORMAT", default_value = "text")]
    pub output_format: String,
}

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Args, Debug)]
pub struct ManArgs {
    /// The directory to write the pages to (created if missing).
    #[arg(value_parser = abs_path, value_name = "DIR")]
    pub dir: PathBuf,
}

#[derive(Args, Debug)]
pub struct CleanArgs {
    /// Directories to look in for `.volbench-*-PID` files and directories of dead PIDs
    /// (what `db`, `fsync` and `infer` make in the directory under test).
    #[arg(value_parser = abs_path)]
    pub dirs: Vec<PathBuf>,
}

const CLOUD_EXAMPLES: &str = "\
Examples:
  volbench cloud list
  volbench cloud show oci --vpu 10 --size 100g
  volbench cloud show aws:gp3 --iops 6000 --throughput 250 --size 500g --output-format json
  volbench cloud cheapest --iops 10000 --mbps 300 --size 500g
  volbench cloud check last --model oci:vpu=10:size=100g
  volbench cloud check a b --model oci:vpu=0:size=50g --model oci:vpu=10:size=50g   one table, paired
Sizes follow the provider: g is GB for OCI and Linode, GiB for AWS, GCP, Azure and DigitalOcean.";

const INFER_EXAMPLES: &str = "\
Examples:
  volbench infer /dev/nvme1n1                      caps and crossover (about a minute of reads)
  volbench infer /dev/sdb --burst-time 45m         long enough to drain a gp2 bucket
  volbench infer /mnt/volume --refill-wait 120s    also the refill rate of the bucket
  volbench infer 12                                from stored result #12 (a sweep, suite or run)";

const EMULATE_EXAMPLES: &str = "\
Examples:
  volbench emulate --device /dev/sdb --model aws:gp2 --size 100g -- fio job.fio
  volbench emulate --device /dev/sdb --iops 5000 --bw 200m -- pgbench -T 60 bench
  volbench emulate --device /dev/sdb --burst-iops 3000 --baseline-iops 300 --bucket-ios 5.4m -- ./my-app
The command's stdout and exit status pass through; volbench's own messages go to stderr.";

#[derive(Subcommand, Debug)]
pub enum CloudCmd {
    /// The products in the catalog, with their source and the date it was read.
    List(CloudListArgs),
    /// One configured volume: caps, rates at 4k/16k/64k/1M, burst, price, $ per IOPS and MB/s.
    Show(CloudShowArgs),
    /// The cheapest configuration of each product that sustains a target.
    Cheapest(CloudCheapestArgs),
    /// A stored run, sweep or suite (or a JSON file) against a volume's model.
    Check(CloudCheckArgs),
}

#[derive(Args, Debug, Clone)]
pub struct CatalogArgs {
    /// A catalog file of your own whose products add to or replace the shipped ones
    /// [default: $VOLBENCH_CATALOG].
    #[arg(long, value_name = "FILE")]
    pub catalog: Option<PathBuf>,
    /// normal or json.
    #[arg(
        long = "output-format",
        default_value = "normal",
        value_name = "FORMAT"
    )]
    pub output_format: String,
}

#[derive(Args, Debug, Clone)]
pub struct CloudListArgs {
    /// Only this provider's products.
    #[arg(long)]
    pub provider: Option<String>,
    #[command(flatten)]
    pub cat: CatalogArgs,
}

#[derive(Args, Debug, Clone)]
pub struct VolumeArgs {
    /// Size in the provider's unit (100g, 1t).
    #[arg(long)]
    pub size: Option<String>,
    /// OCI's performance level, VPUs per GB (0, 10, 20, 30 ... 120).
    #[arg(long)]
    pub vpu: Option<u32>,
    /// Provisioned IOPS (gp3, io1, io2, Hyperdisk, Premium SSD v2, Ultra).
    #[arg(long)]
    pub iops: Option<f64>,
    /// Provisioned throughput in the provider's unit (MiB/s for AWS and GCP, MB/s for Azure).
    #[arg(long)]
    pub throughput: Option<f64>,
}

#[derive(Args, Debug, Clone)]
pub struct CloudShowArgs {
    /// PROVIDER[:PRODUCT], e.g. oci, aws:gp3, azure:premium-ssd (see cloud list).
    pub product: String,
    #[command(flatten)]
    pub volume: VolumeArgs,
    #[command(flatten)]
    pub cat: CatalogArgs,
}

#[derive(Args, Debug, Clone)]
pub struct CloudCheapestArgs {
    /// Sustained IOPS needed (not a burst).
    #[arg(long, default_value_t = 0.0)]
    pub iops: f64,
    /// Sustained throughput needed, MB/s (10^6 bytes per second).
    #[arg(long, default_value_t = 0.0)]
    pub mbps: f64,
    /// Capacity needed: 500g is 500 GiB (converted to each provider's unit).
    #[arg(long, default_value = "100g")]
    pub size: String,
    /// Only these providers (repeatable or comma-separated).
    #[arg(long, value_delimiter = ',')]
    pub provider: Vec<String>,
    /// A latency target the --iops must meet, judged on the curve of --from-curve:
    /// pPERCENTILE=LIMIT, e.g. p99=5ms (repeatable).
    #[arg(long = "slo", value_name = "pP=LIMIT", requires = "from_curve")]
    pub slo: Vec<String>,
    /// A stored `volbench curve` result (id, label, `last`) or its JSON file: the share of its
    /// maximum at which each --slo held sets the cap each volume needs.
    #[arg(long = "from-curve", value_name = "RESULT", requires = "slo")]
    pub from_curve: Option<String>,
    /// Price from a curve that was cut short (interrupted, failed, killed), its answers marked
    /// PARTIAL; without this such a curve is refused.
    #[arg(long = "partial-curve", requires = "from_curve")]
    pub partial_curve: bool,
    /// Results store: a SQLite file or a PostgreSQL URL (postgresql://USER@HOST/DB)
    /// [default: $VOLBENCH_STORE, else results.db in the user's data directory].
    #[arg(long, value_name = "PATH|URL")]
    pub store: Option<PathBuf>,
    #[command(flatten)]
    pub cat: CatalogArgs,
}

#[derive(Args, Debug, Clone)]
pub struct CloudCheckArgs {
    /// Stored results (ids, labels or `last`) or JSON files volbench wrote; several go into
    /// one table.
    #[arg(required = true)]
    pub results: Vec<String>,
    /// The volume: PRODUCT[:key=value...], e.g. oci:vpu=10:size=100g, aws:gp3:size=500:iops=6000.
    /// Repeatable: one volume checks every result; as many volumes as results pairs them in
    /// order (each result was measured on its own volume); one result checks every volume.
    #[arg(long, required = true)]
    pub model: Vec<String>,
    /// Results store: a SQLite file or a PostgreSQL URL (postgresql://USER@HOST/DB)
    /// [default: $VOLBENCH_STORE, else results.db in the user's data directory].
    #[arg(long, value_name = "PATH|URL")]
    pub store: Option<PathBuf>,
    #[command(flatten)]
    pub cat: CatalogArgs,
}

#[derive(Args, Debug, Clone)]
pub struct InferArgs {
    #[command(flatten)]
    pub live: LiveArgs,
    /// A block device or directory to probe (reads; a directory gets a probe file), or a
    /// stored result (id, label, `last`) or JSON file to analyse without I/O.
    pub target: String,
    /// Longest burst phase: 4k reads at --burst-depth with a per-second series, stopped early
    /// once a drop has been followed for 20 % of its length; 0 skips it.
    #[arg(long = "burst-time", default_value = "20s", value_name = "TIME")]
    pub burst_time: String,
    #[arg(long = "burst-depth", default_value_t = 32)]
    pub burst_depth: u32,
    /// Block size of the burst phase (1m looks for a throughput bucket).
    #[arg(long = "burst-bs", default_value = "4k")]
    pub burst_bs: String,
    /// After a burst, wait this long idle and burst again to measure the refill rate.
    #[arg(long = "refill-wait", default_value = "0", value_name = "TIME")]
    pub refill_wait: String,
    /// Length of each sweep point.
    #[arg(long = "point-time", default_value = "2s", value_name = "TIME")]
    pub point_time: String,
    /// Deepest queue the depth sweep tries.
    #[arg(long = "max-depth", default_value_t = 256)]
    pub max_depth: u32,
    /// Probe with random writes instead of reads (a device holding data (a file system, partition table or any other signature, or in use) needs --allow-destructive; a blank one does not).
    #[arg(long)]
    pub write: bool,
    #[arg(long = "allow-destructive")]
    pub allow_destructive: bool,
    /// Size of the probe file in a directory.
    #[arg(long, default_value = "1g")]
    pub size: String,
    /// I/O engine: io_uring, libaio or psync.
    #[arg(long, default_value = "io_uring")]
    pub ioengine: String,
    /// A catalog file of your own (for the closest products).
    #[arg(long, value_name = "FILE")]
    pub catalog: Option<PathBuf>,
    #[command(flatten)]
    pub out: OutputArgs,
    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Args, Debug, Clone)]
pub struct EmulateArgs {
    /// The device whose I/O is throttled (a path on a file system means its device).
    #[arg(value_parser = abs_path, long)]
    pub device: PathBuf,
    /// A static IOPS cap, on reads and on writes each (as a cgroup sets it: 300 lets 300
    /// reads and 300 writes a second).
    #[arg(long)]
    pub iops: Option<f64>,
    /// A static bandwidth cap, bytes per second with units (200m = 200 MiB/s).
    #[arg(long)]
    pub bw: Option<String>,
    /// A burst bucket: the rate while credits last...
    #[arg(long = "burst-iops")]
    pub burst_iops: Option<f64>,
    /// ...the rate after them...
    #[arg(long = "baseline-iops")]
    pub baseline_iops: Option<f64>,
    /// ...and the credits, in I/Os (5.4m = 5,400,000; the bucket starts full).
    #[arg(long = "bucket-ios")]
    pub bucket_ios: Option<String>,
    /// Credits earned per idle second [default: the baseline rate, as gp2].
    #[arg(long = "refill-ios")]
    pub refill_ios: Option<f64>,
    /// A catalog product to emulate, with --size (provisioned figures go in the name:
    /// aws:gp3:iops=6000:throughput=250).
    #[arg(long)]
    pub model: Option<String>,
    /// The model's size in the provider's unit (100g, 1t).
    #[arg(long)]
    pub size: Option<String>,
    /// The model's VPU level (OCI).
    #[arg(long)]
    pub vpu: Option<u32>,
    /// A catalog file of your own.
    #[arg(long, value_name = "FILE")]
    pub catalog: Option<PathBuf>,
    /// The command to run, after --.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

const DB_EXAMPLES: &str = "\
Examples:
  volbench db                                           SQLite in this directory, 10 clients, 10 s
  volbench db --engine postgres --clients 10 --transactions 1000 /var/lib/local /mnt/volume
  volbench db --postgres-url postgres://bench@db1/bench --time 60
  volbench db /mnt/a /mnt/b --output-format json --output db.json";

#[derive(Args, Debug, Clone)]
#[command(mut_arg("output_format", |a| a.help(
    "Output format: normal (human summary), json (the native schema, docs/json-schema.md), csv, \
     md or html (a self-contained page with charts); fio-json has no form for a database run"
)))]
pub struct DbArgs {
    #[command(flatten)]
    pub live: LiveArgs,
    /// Directories to run in, one after another (a side-by-side table for several)
    /// [default: the current directory].
    #[arg(value_parser = abs_path, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// sqlite (embedded, nothing to install) or postgres (a throwaway cluster in each DIR)
    /// [default: sqlite; postgres with --postgres-url].
    #[arg(long)]
    pub engine: Option<String>,
    /// Use this running PostgreSQL instead of a throwaway cluster (pgbench's tables are made if
    /// absent and left afterwards; nothing is dropped).
    #[arg(long = "postgres-url", value_name = "URL")]
    pub postgres_url: Option<String>,
    /// Scale factor: 100,000 accounts per unit, as pgbench -s.
    #[arg(long, short = 's', default_value_t = 1)]
    pub scale: u32,
    /// Concurrent clients, each with its own connection (pgbench -c).
    #[arg(long, short = 'c', default_value_t = 10)]
    pub clients: u32,
    /// Threads the PostgreSQL clients are spread over (pgbench -j). One, as pgbench's default,
    /// holds its figure on a host others keep busy; more only when one client thread is at
    /// 100 % of a core.
    #[arg(long, short = 'j', default_value_t = 1, value_name = "N")]
    pub jobs: u32,
    /// Run for this long (pgbench -T) [default: 10s unless --transactions].
    #[arg(
        long,
        short = 'T',
        value_name = "TIME",
        conflicts_with = "transactions"
    )]
    pub time: Option<String>,
    /// Transactions per client (pgbench -t).
    #[arg(long, short = 't', value_name = "N")]
    pub transactions: Option<u64>,
    /// SQLite's PRAGMA synchronous: FULL (each commit syncs, as PostgreSQL does), NORMAL, OFF.
    #[arg(
        long = "sqlite-synchronous",
        default_value = "FULL",
        value_name = "MODE"
    )]
    pub sqlite_synchronous: String,
    /// Skip the flush-latency probe (the explanation then has no commit ceiling).
    #[arg(long = "no-probe")]
    pub no_probe: bool,
    #[command(flatten)]
    pub out: OutputArgs,
    #[command(flatten)]
    pub store: StoreArgs,
}

const FSYNC_EXAMPLES: &str = "\
Examples:
  volbench fsync                               this directory: 7 methods x 4k,16k,64k x 1,4,16 threads, 2 s each
  volbench fsync /mnt/local /mnt/volume --penalty-only     the fsync-penalty line per device, side by side
  volbench fsync /mnt/db --methods fdatasync,odsync --bs 8k --threads 1 --runtime 10s
  volbench fsync /dev/nvme1n1 --allow-destructive --output-format json --output fsync.json";

const DURABILITY_EXAMPLES: &str = "\
Examples (see docs/durability.md for the whole procedure):
  witness$  volbench durability serve --listen 0.0.0.0:7810          prints the token
  tested$   volbench durability create --witness witness:7810 --token T /mnt/db/dc.dat --size 1g
            ... pull the power cord while it runs, boot again, then:
  tested$   volbench durability verify --witness witness:7810 --token T /mnt/db/dc.dat";

#[derive(Args, Debug, Clone)]
pub struct FsyncArgs {
    #[command(flatten)]
    pub live: LiveArgs,
    /// Directories (volbench writes its own file in each, removed after) or block devices;
    /// several give a side-by-side penalty table [default: the current directory].
    #[arg(value_parser = abs_path, value_name = "DIR|DEVICE")]
    pub targets: Vec<PathBuf>,
    /// Methods: none (buffered, no sync), direct (O_DIRECT, no sync), fsync, fdatasync, odsync
    /// (O_DSYNC), direct-fdatasync, rwf-dsync (pwritev2 RWF_DSYNC) [default: all].
    #[arg(long, value_name = "LIST")]
    pub methods: Option<String>,
    /// Block sizes.
    #[arg(long, value_name = "LIST", default_value = "4k,16k,64k")]
    pub bs: String,
    /// Thread counts (each thread one write at a time, QD1).
    #[arg(long, value_name = "LIST", default_value = "1,4,16")]
    pub threads: String,
    /// Measured time per case.
    #[arg(long, value_name = "TIME", default_value = "2s")]
    pub runtime: String,
    /// Size of the file (or device region) written.
    #[arg(long, value_name = "SIZE", default_value = "256m")]
    pub size: String,
    /// Only the fsync-penalty line (random 16k read+write 60/40 with and without fsync).
    #[arg(long = "penalty-only")]
    pub penalty_only: bool,
    /// Skip the fsync-penalty line.
    #[arg(long = "no-penalty", conflicts_with = "penalty_only")]
    pub no_penalty: bool,
    /// Allow writing to a block device that holds data (a file system, partition table or any
    /// other signature, or in use): its data is destroyed. A blank device needs no flag.
    #[arg(long = "allow-destructive")]
    pub allow_destructive: bool,
    #[command(flatten)]
    pub out: OutputArgs,
    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Subcommand, Debug)]
pub enum DurabilityCmd {
    /// The witness: run it on a machine that does NOT lose power; it prints its token.
    Serve(ServeArgs),
    /// Write acknowledged records to FILE on the machine under test until killed (the cut).
    Create(CreateArgs),
    /// After the cut and reboot: check every acknowledged record. Exit 0 only if none was
    /// lost; 3 when some were; 1 on errors (a wrong token, an unreachable witness).
    Verify(VerifyArgs),
    /// The whole loop, from the machine that keeps power: N times create on the tested
    /// machine, cut its power with your command, wait until it is back, verify; one verdict
    /// with the flush's cost beside it. Exit 0 nothing lost, 3 a loss, 1 an error.
    #[command(after_help = CYCLE_EXAMPLES)]
    Cycle(Box<CycleArgs>),
}

const CYCLE_EXAMPLES: &str = "\
Examples (docs/durability.md has recipes for IPMI, Redfish and cloud CLIs):
  volbench durability cycle /mnt/db/dc.dat --cycles 5 --wait 30s-90s \\
      --remote 'ssh root@tested' --listen 10.0.0.5:7810 \\
      --cut 'ipmitool -I lanplus -H tested-bmc -U admin -f pw chassis power reset' \\
      --up 'ssh -o ConnectTimeout=5 root@tested mountpoint -q /mnt/db'
  volbench durability cycle /mnt/db/dc.dat --cycles 5 --wait 30s-90s --remote 'ssh root@tested' \\
      --listen 10.0.0.5:7810 --cut 'pdu outlet 4 off' --boot 'pdu outlet 4 on' --up '...'
  volbench durability cycle /mnt/db/dc.dat ... --resume       continue a loop stopped by Ctrl-C";

#[derive(Args, Debug, Clone)]
pub struct CycleArgs {
    #[command(flatten)]
    pub live: LiveArgs,
    /// The file to write, as an absolute path on the tested machine (its real path: no
    /// symlinked directory).
    pub file: String,
    /// Power cuts to make.
    #[arg(long, default_value_t = 5)]
    pub cycles: u32,
    /// The cut comes a random time in this range after the first acknowledged record.
    #[arg(long, default_value = "30s-90s", value_name = "MIN-MAX")]
    pub wait: String,
    /// Shell command (run here) that cuts the tested machine's power at once: IPMI, Redfish,
    /// a smart PDU, a cloud's force-stop.
    #[arg(long, value_name = "CMD")]
    pub cut: String,
    /// Shell command (run here) that powers it on again, where that is a separate step.
    #[arg(long, value_name = "CMD")]
    pub boot: Option<String>,
    /// Shell command (run here) that succeeds once the tested machine can run commands again,
    /// with the file system mounted; polled every 2 s.
    #[arg(long, value_name = "CMD")]
    pub up: String,
    /// The prefix that runs a command on the tested machine (e.g. `ssh root@tested`)
    /// [default: none, this machine].
    #[arg(long, value_name = "PREFIX")]
    pub remote: Option<String>,
    /// volbench on the tested machine [default: `volbench` with --remote, else this binary].
    #[arg(long, value_name = "PATH")]
    pub volbench: Option<String>,
    /// Where the loop's own witness listens: an address the tested machine reaches.
    #[arg(long, default_value = "127.0.0.1:0", value_name = "ADDR")]
    pub listen: String,
    /// The loop's witness journal; its progress is kept beside it (PATH.cycle.json), for
    /// --resume [default: durability-cycle.db in the user's data directory].
    #[arg(value_parser = abs_path, long, value_name = "PATH")]
    pub journal: Option<PathBuf>,
    /// A running witness to use instead of starting one (its address as `serve` printed it).
    #[arg(long, value_name = "HOST:PORT", requires = "token")]
    pub witness: Option<String>,
    /// The running witness's token.
    #[arg(long, requires = "witness")]
    pub token: Option<String>,
    /// create's options, passed to it each cycle.
    #[command(flatten)]
    pub rec: RecordArgs,
    /// Stop at the first cycle that loses acknowledged records.
    #[arg(long = "stop-on-loss")]
    pub stop_on_loss: bool,
    /// Continue the loop an earlier run of this command left (Ctrl-C, an error).
    #[arg(long)]
    pub resume: bool,
    /// Skip the flush-cost measurement (volbench fsync on the target) before the cycles.
    #[arg(long = "no-fsync")]
    pub no_fsync: bool,
    /// How long the tested machine may take to come back after a cut.
    #[arg(long = "up-timeout", default_value = "15m", value_name = "TIME")]
    pub up_timeout: String,
    /// The limit of every other step (the first record, the cut, the boot, a verify).
    #[arg(long = "step-timeout", default_value = "5m", value_name = "TIME")]
    pub step_timeout: String,
    #[command(flatten)]
    pub out: OutputArgs,
    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Args, Debug, Clone)]
pub struct ServeArgs {
    #[command(flatten)]
    pub live: LiveArgs,
    /// Address to listen on; loopback unless you name another (e.g. 0.0.0.0:7810).
    #[arg(long, default_value = "127.0.0.1:7810", value_name = "ADDR")]
    pub listen: String,
    /// The token clients must present [default: kept in the journal, made on first start].
    #[arg(long)]
    pub token: Option<String>,
    /// The witness's journal (SQLite) [default: witness.db in the user's data directory].
    #[arg(value_parser = abs_path, long, value_name = "PATH")]
    pub journal: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
pub struct WitnessArgs {
    /// The witness's address, as `serve` printed it.
    #[arg(long, value_name = "HOST:PORT")]
    pub witness: String,
    /// The token `serve` printed.
    #[arg(long)]
    pub token: String,
}

/// How `create` writes its records (`create` and `cycle` take the same).
#[derive(Args, Debug, Clone)]
pub struct RecordArgs {
    /// Size of the file.
    #[arg(long, default_value = "1g", value_name = "SIZE")]
    pub size: String,
    /// Record (block) size.
    #[arg(long, default_value = "4k", value_name = "SIZE")]
    pub block: String,
    /// fsync, fdatasync, odsync (O_DSYNC) or direct (O_DIRECT + fdatasync).
    #[arg(long, default_value = "fdatasync")]
    pub sync: String,
    /// Writer threads, each with its own blocks and connection.
    #[arg(long, default_value_t = 4)]
    pub threads: u32,
}

#[derive(Args, Debug, Clone)]
pub struct CreateArgs {
    #[command(flatten)]
    pub live: LiveArgs,
    #[command(flatten)]
    pub w: WitnessArgs,
    /// The file to write (new, or one an earlier `create` made).
    #[arg(value_parser = abs_path)]
    pub file: PathBuf,
    #[command(flatten)]
    pub rec: RecordArgs,
    /// Stop by itself after this long [default: run until killed].
    #[arg(long, value_name = "TIME")]
    pub runtime: Option<String>,
    /// Start over although the witness holds records of this file that no verify has read
    /// (they are forgotten; without this, create is refused until verify has run).
    #[arg(long = "discard-unverified")]
    pub discard_unverified: bool,
}

#[derive(Args, Debug, Clone)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub w: WitnessArgs,
    /// The file `create` wrote.
    #[arg(value_parser = abs_path)]
    pub file: PathBuf,
    /// normal or json.
    #[arg(
        long = "output-format",
        default_value = "normal",
        value_name = "FORMAT"
    )]
    pub output_format: String,
}

#[derive(Args, Debug, Clone)]
pub struct ChartArgs {
    /// A stored id, label, `last`, or a JSON file written by volbench.
    #[arg(value_name = "RESULT")]
    pub result: String,
    /// iops, bw, p99 or lat (mean latency).
    #[arg(long, default_value = "iops")]
    pub metric: String,
    /// The parameter on the x axis (numjobs, iodepth, bs, rw, ...; time for a run; load_percent
    /// for a curve)
    /// [default: the innermost swept one].
    #[arg(long, value_name = "PARAM")]
    pub x: Option<String>,
    /// The SVG file to write ("-" is stdout) [default: chart.svg].
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Results store: a SQLite file or a PostgreSQL URL (postgresql://USER@HOST/DB)
    /// [default: $VOLBENCH_STORE, else results.db in the user's data directory].
    #[arg(long, value_name = "PATH|URL")]
    pub store: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
pub struct ReportArgs {
    /// Results: store ids, labels, `last` (the newest), or JSON files written by volbench.
    #[arg(required = true, num_args = 1.., value_name = "RESULT")]
    pub results: Vec<String>,
    /// The HTML file to write ("-" is stdout) [default: report.html].
    #[arg(long, short, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Results store: a SQLite file or a PostgreSQL URL (postgresql://USER@HOST/DB)
    /// [default: $VOLBENCH_STORE, else results.db in the user's data directory].
    #[arg(long, value_name = "PATH|URL")]
    pub store: Option<PathBuf>,
}

const SWEEP_EXAMPLES: &str = "\
Lists are comma-separated; a..b doubles from a to b; several lists make a cross product.
Examples:
  volbench sweep --rw=randread --numjobs=1,2,4..256 --runtime=10s
  volbench sweep --rw=randread,randwrite --bs=4k..1m --iodepth=32
  volbench sweep --filename=/dev/nvme1n1,/dev/nvme1n1:/dev/nvme2n1 --rw=randread --allow-destructive";

#[derive(Args, Debug, Clone, Default)]
pub struct StoreArgs {
    /// Results store: a SQLite file or a PostgreSQL URL (postgresql://USER@HOST/DB)
    /// [default: $VOLBENCH_STORE, else results.db in the user's data directory].
    #[arg(long, value_name = "PATH|URL")]
    pub store: Option<PathBuf>,
    /// Do not record this result.
    #[arg(long = "no-store")]
    pub no_store: bool,
    /// A label to find this result by (history --label, compare LABEL).
    #[arg(long)]
    pub label: Option<String>,
    /// A tag for this result (repeatable).
    #[arg(long = "tag", value_name = "TAG")]
    pub tags: Vec<String>,
}

#[derive(Args, Debug, Clone)]
pub struct SweepArgs {
    /// Every run option; --numjobs, --iodepth, --bs, --rw and --filename take lists. Each point
    /// runs --runtime (default 10s here) after --ramp_time.
    #[command(flatten)]
    pub run: RunArgs,
}

const CURVE_EXAMPLES: &str = "\
Each point runs --runtime (default 10s); the search for the maximum raises --iodepth 1, 2, 4, ...
until IOPS stops growing. Any fio option shapes the workload (default --rw=randread --bs=4k).
Examples:
  volbench curve /mnt/volume --slo p99=5ms
  volbench curve /dev/nvme1n1 --rw=randrw --rwmixread=70 --points 5 --runtime=20s --slo p99=2ms --slo p99.9=10ms
  volbench report last --output curve.html      # latency against IOPS, the SLO marked
  volbench compare gp3 io2                      # two volumes' curves, point by point
Exit status 4: the host was too busy to judge an SLO (volbench itself issued I/Os late at the
lightest point); the answer says so and gives no number.";

#[derive(Args, Debug, Clone)]
pub struct CurveArgs {
    #[command(flatten)]
    pub live: LiveArgs,
    /// Directory (a temporary file is made and removed there), file or block device
    /// [default: --filename or --directory if given, else .].
    #[arg(value_parser = abs_path, value_name = "TARGET")]
    pub target: Option<PathBuf>,
    /// Open-loop points up to the maximum: N of them at 100/N % steps.
    #[arg(long, default_value_t = 10, value_name = "N")]
    pub points: u32,
    /// Leave out the point at 110 % of the maximum (which shows the cliff).
    #[arg(long = "no-overload")]
    pub no_overload: bool,
    /// A latency target to answer, on latency from the due time: pPERCENTILE=LIMIT, e.g.
    /// p99=5ms (repeatable).
    #[arg(long = "slo", value_name = "pP=LIMIT")]
    pub slo: Vec<String>,
    /// The deepest queue (per job) the search for the maximum tries.
    #[arg(long = "max-depth", default_value_t = 256, value_name = "DEPTH")]
    pub max_depth: u32,
    /// Every other fio option given as `--key=value`: the workload.
    #[arg(skip)]
    pub fio: Vec<(String, Option<String>)>,
    #[command(flatten)]
    pub out: OutputArgs,
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(flatten)]
    pub fio_help: FioFlags,
}

#[derive(Args, Debug, Clone)]
pub struct SuiteArgs {
    #[command(flatten)]
    pub live: LiveArgs,
    /// Suite name (see --list) or a suite job file.
    #[arg(value_name = "SUITE")]
    pub suite: Option<String>,
    /// Directory (a temporary file is made and removed there), file or block device [default: .].
    #[arg(value_parser = abs_path, value_name = "TARGET")]
    pub target: Option<PathBuf>,
    /// List the shipped suites.
    #[arg(long)]
    pub list: bool,
    /// Print a suite's job file (copy it, edit it, run it as a suite file).
    #[arg(long, value_name = "SUITE")]
    pub show: Option<String>,
    /// Measured time of every test (shortens the suite's own runtimes).
    #[arg(long, value_name = "TIME")]
    pub runtime: Option<String>,
    /// Size of the test file or device region.
    #[arg(long, value_name = "SIZE")]
    pub size: Option<String>,
    /// I/O engine for every test.
    #[arg(long, value_name = "ENGINE")]
    pub ioengine: Option<String>,
    /// O_DIRECT for every test.
    #[arg(long, value_name = "BOOL")]
    pub direct: Option<String>,
    /// Allow writing to a block device that holds data (a file system, partition table or any
    /// other signature, or in use): its data is destroyed. A blank device needs no flag.
    #[arg(long = "allow-destructive")]
    pub allow_destructive: bool,
    /// pts-*: test only this much of the device (a small size for a test device), or the
    /// size of a file target.
    #[arg(long, value_name = "SIZE")]
    pub capacity: Option<String>,
    /// pts-*: the PTS profile, enterprise (2 threads x QD16 for IOPS) or client (1 x QD16).
    #[arg(long, value_name = "PROFILE", default_value = "enterprise",
          value_parser = ["enterprise", "client"])]
    pub profile: String,
    /// pts-*: stop after this many rounds if steady state is not reached [spec: 25].
    #[arg(long, value_name = "N", default_value_t = 25,
          value_parser = clap::value_parser!(u32).range(5..=25))]
    pub rounds: u32,
    #[command(flatten)]
    pub repeat: RepeatArgs,
    #[command(flatten)]
    pub out: OutputArgs,
    #[command(flatten)]
    pub store: StoreArgs,
}

#[derive(Args, Debug, Clone)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Show the newest N results (a page); older ones with --before.
    #[arg(long, default_value_t = 50, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=i64::MAX as u64))]
    pub limit: u64,
    /// Show every result the filters pick, not a page.
    #[arg(long, conflicts_with = "limit")]
    pub all: bool,
    /// Output format: normal, json, md or csv.
    #[arg(long = "output-format", default_value = "normal")]
    pub output_format: String,
    /// Results store: a SQLite file or a PostgreSQL URL (postgresql://USER@HOST/DB)
    /// [default: $VOLBENCH_STORE, else results.db in the user's data directory].
    #[arg(long, value_name = "PATH|URL")]
    pub store: Option<PathBuf>,
}

/// The filters `history` lists by and `delete` deletes by.
#[derive(Args, Debug, Clone, Default)]
pub struct FilterArgs {
    /// Only results stored with this --label.
    #[arg(long)]
    pub label: Option<String>,
    /// Substring of the target path.
    #[arg(long)]
    pub target: Option<String>,
    /// Only results of this suite (quick, cloud-volume, scaling, crystal, or a suite file's name).
    #[arg(long)]
    pub suite: Option<String>,
    /// Only this kind of result: run, sweep, curve, suite, fsync, db, infer or durability.
    #[arg(long)]
    pub kind: Option<String>,
    /// Only results started on or after this date (2026-11-01 or RFC 3339).
    #[arg(long)]
    pub since: Option<String>,
    /// Only results started before this date.
    #[arg(long)]
    pub until: Option<String>,
    /// Only results older than this: an id (the next page of history), or a date as --until.
    #[arg(long, value_name = "ID|DATE")]
    pub before: Option<String>,
    /// Only results measured on this host (its hostname).
    #[arg(long)]
    pub host: Option<String>,
    /// Only results measured on this kind of machine: a part of its instance type or model
    /// (m5.large, "Compute Engine").
    #[arg(long)]
    pub machine: Option<String>,
}

#[derive(Args, Debug, Clone)]
pub struct ShowArgs {
    /// Result id (from history) or label.
    pub id: String,
    /// normal, json (the stored document, as export writes it), md, csv, html or fio-json.
    #[arg(
        long = "output-format",
        default_value = "normal",
        value_name = "FORMAT"
    )]
    pub format: String,
    /// Results store: a SQLite file or a PostgreSQL URL (postgresql://USER@HOST/DB)
    /// [default: $VOLBENCH_STORE, else results.db in the user's data directory].
    #[arg(long, value_name = "PATH|URL")]
    pub store: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
pub struct DeleteArgs {
    /// Result id (from history) or label; or none, and filters saying which results go.
    pub id: Option<String>,
    #[command(flatten)]
    pub filter: FilterArgs,
    /// Say what a delete by filter would remove, and remove nothing.
    #[arg(long = "dry-run", short = 'n')]
    pub dry_run: bool,
    /// Results store: a SQLite file or a PostgreSQL URL (postgresql://USER@HOST/DB)
    /// [default: $VOLBENCH_STORE, else results.db in the user's data directory].
    #[arg(long, value_name = "PATH|URL")]
    pub store: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
pub struct ExportArgs {
    /// Result id (from history) or label.
    pub id: String,
    /// json, volbench-json, fio-json, csv, md, html or normal (--format is accepted too).
    #[arg(
        long = "output-format",
        alias = "format",
        default_value = "json",
        value_name = "FORMAT"
    )]
    pub format: String,
    /// Write to FILE instead of stdout.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Results store: a SQLite file or a PostgreSQL URL (postgresql://USER@HOST/DB)
    /// [default: $VOLBENCH_STORE, else results.db in the user's data directory].
    #[arg(long, value_name = "PATH|URL")]
    pub store: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
pub struct CompareArgs {
    /// Two or more results: store ids, labels, or JSON files written by volbench.
    #[arg(required = true, num_args = 2.., value_name = "RESULT")]
    pub results: Vec<String>,
    /// normal, json, md, csv or html.
    #[arg(long = "output-format", default_value = "normal")]
    pub output_format: String,
    /// Write the comparison to FILE instead of stdout (replaced atomically).
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Results store: a SQLite file or a PostgreSQL URL (postgresql://USER@HOST/DB)
    /// [default: $VOLBENCH_STORE, else results.db in the user's data directory].
    #[arg(long, value_name = "PATH|URL")]
    pub store: Option<PathBuf>,
}

/// Repeating a measurement to know how sure its figures are.
#[derive(Args, Debug, Clone, Default)]
pub struct RepeatArgs {
    /// Run the whole workload N times (files laid out once) and report the mean of every
    /// figure with its spread: `IOPS 12.3k ± 0.4k (95 % CI, 5 runs)`. With --until-stable,
    /// the most runs to make (default 10).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub repeat: Option<u32>,
    /// A pause between repeated runs (a volume's burst credit refills, a cache drains).
    #[arg(long = "repeat-delay", value_name = "TIME", value_parser = humantime::parse_duration)]
    pub repeat_delay: Option<std::time::Duration>,
    /// Repeat until the 95 % confidence interval of the IOPS is within PCT % of the mean
    /// (default 5): at least 3 runs, at most --repeat (10), as the Phoronix Test Suite's
    /// dynamic run count; the report says whether it got there.
    #[arg(long = "until-stable", value_name = "PCT", num_args = 0..=1, default_missing_value = "5")]
    pub until_stable: Option<f64>,
}

#[derive(Args, Debug, Clone, Default)]
pub struct OutputArgs {
    /// Output format: normal (human summary), json, volbench-json (native schema,
    /// docs/json-schema.md), fio-json (fio 3.x's shape), csv, md or html (a self-contained page
    /// with charts). json means fio-json when the input is
    /// a fio job file or fio's multi-job command line, volbench-json otherwise.
    #[arg(
        long = "output-format",
        default_value = "normal",
        value_name = "FORMAT"
    )]
    pub output_format: String,
    /// Write the report to FILE instead of stdout ("-" is stdout).
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// No progress bar and no summary on stdout (the --output file is still written).
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    #[command(flatten)]
    pub live: LiveArgs,
    /// Every other fio option given as `--key=value` (or a bare `--flag`): the same table the
    /// job-file parser reads, so an option accepted in a file is accepted here.
    #[arg(skip)]
    pub fio: Vec<(String, Option<String>)>,
    /// A fio job file to run instead of the options below (fio's defaults apply inside it).
    #[arg(value_name = "JOBFILE")]
    pub jobfile: Option<PathBuf>,
    /// Print the equivalent command line and exit.
    #[arg(long)]
    pub showcmd: bool,
    /// Check the job file or options and exit without doing any I/O.
    #[arg(long = "parse-only", alias = "parse_only")]
    pub parse_only: bool,
    /// Accepted for scripts: fio options that only affect logs or reports volbench does not
    /// produce are skipped with a warning anyway; options that change the I/O never are.
    #[arg(long = "ignore-unsupported")]
    pub ignore_unsupported: bool,
    /// Under mpirun: all ranks share one file (--filename, or NAME.shared in --directory), each
    /// in its own --size region, instead of one file per rank in --directory.
    #[arg(long = "shared-file")]
    pub shared_file: bool,
    /// fio's --eta: `never` shows no progress (the summary still prints); `always` and `auto`
    /// show it as usual.
    #[arg(long, value_name = "WHEN", value_parser = ["never", "always", "auto"])]
    pub eta: Option<String>,
    /// fio's --readonly: refuse to run a job that writes.
    #[arg(long)]
    pub readonly: bool,
    /// fio's --section: run only the job file's sections of this name (and [global]); may be
    /// given several times.
    #[arg(long, value_name = "NAME")]
    pub section: Vec<String>,
    #[command(flatten)]
    pub repeat: RepeatArgs,
    #[command(flatten)]
    pub out: OutputArgs,
    #[command(flatten)]
    pub store: StoreArgs,
    /// fio's options, for `--help`, the man page and the completions (parsing them is the
    /// option table's: `main` takes them out before clap sees the arguments).
    #[command(flatten)]
    pub fio_help: FioFlags,
}

impl RunArgs {
    /// A run of these fio options and nothing else of volbench's own (a command that builds
    /// its job and runs it as `run` would: replay, curve).
    pub fn of_fio(
        fio: Vec<(String, Option<String>)>,
        out: OutputArgs,
        store: StoreArgs,
    ) -> RunArgs {
        RunArgs {
            live: LiveArgs::default(),
            fio,
            jobfile: None,
            showcmd: false,
            parse_only: false,
            ignore_unsupported: false,
            shared_file: false,
            eta: None,
            readonly: false,
            section: Vec::new(),
            repeat: Default::default(),
            out,
            store,
            fio_help: FioFlags,
        }
    }
}

/// fio's options as clap arguments, generated from the option table (as ripgrep generates its
/// flags from one table): they document `volbench run` and `sweep`, while the values go through
/// the table itself. Options whose name clap already has (volbench's own flags) are left out.
#[derive(Debug, Clone, Default)]
pub struct FioFlags;

/// The id prefix of the generated arguments, which tells them from volbench's own.
pub const FIO_ID: &str = "fio.";

impl clap::FromArgMatches for FioFlags {
    fn from_arg_matches(_: &clap::ArgMatches) -> Result<Self, clap::Error> {
        Ok(FioFlags)
    }
    fn update_from_arg_matches(&mut self, _: &clap::ArgMatches) -> Result<(), clap::Error> {
        Ok(())
    }
}

impl Args for FioFlags {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        use workload::fio::{table, Support};
        let taken: Vec<String> = cmd.get_arguments().flat_map(long_names).collect();
        table::all()
            .filter(|o| o.support == Support::Yes)
            .filter(|o| {
                !std::iter::once(&o.name)
                    .chain(o.aliases)
                    .any(|n| taken.iter().any(|t| t == n))
            })
            .fold(cmd, |cmd, o| {
                let mut arg = clap::Arg::new(format!("{FIO_ID}{}", o.name))
                    .long(o.name)
                    .visible_aliases(o.aliases.iter().copied())
                    .value_name(o.kind.value_name())
                    .help(help_with_default(o))
                    .help_heading(o.category.title())
                    .hide_short_help(!o.common);
                if !o.takes_value() {
                    arg = arg.num_args(0..=1).default_missing_value("1");
                }
                if let table::Kind::Choice(words) = o.kind {
                    arg = arg.value_parser(words.to_vec());
                }
                cmd.arg(arg)
            })
    }
    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

/// An option's help line with `volbench run`'s default, where it has one to print.
fn help_with_default(o: &workload::fio::FioOption) -> String {
    match o.shown_in(&workload::JobSpec::default()) {
        Some(v) => format!("{} [default: {v}]", o.help),
        None => o.help.to_string(),
    }
}

/// An argument's long name and aliases.
fn long_names(a: &clap::Arg) -> Vec<String> {
    a.get_long()
        .into_iter()
        .chain(a.get_all_aliases().unwrap_or_default())
        .map(String::from)
        .collect()
}

/// The command line with any watching flag given before the subcommand (`volbench --live run
/// ...`, as clap allowed when they were global) moved after it: the fio layers read `args[1]` as the subcommand, and
/// would otherwise miss a pasted fio command line's options.
pub fn subcommand_first(args: Vec<String>) -> Vec<String> {
    let cmd = LiveArgs::augment_args(clap::Command::new("live"));
    let globals: Vec<(String, bool)> = cmd
        .get_arguments()
        .flat_map(|a| {
            let takes = a.get_action().takes_values();
            long_names(a).into_iter().map(move |n| (n, takes))
        })
        .collect();
    let mut moved = Vec::new();
    let mut i = 1;
    while let Some(a) = args.get(i) {
        let Some(name) = a.strip_prefix("--") else {
            break;
        };
        let (key, inline) = name
            .split_once('=')
            .map_or((name, false), |(k, _)| (k, true));
        let Some(&(_, takes)) = globals.iter().find(|(n, _)| n == key) else {
            break;
        };
        let n = if takes && !inline { 2 } else { 1 };
        moved.extend(args.iter().skip(i).take(n).cloned());
        i += n;
    }
    if moved.is_empty() || i >= args.len() {
        return args;
    }
    let mut out = vec![args[0].clone(), args[i].clone()];
    out.extend(moved);
    out.extend(args[i + 1..].iter().cloned());
    out
}

/// volbench's own flags of a subcommand (not the generated fio ones), the global ones among
/// them: each long name, alias and short letter, with whether it takes a value.
pub fn own_flags(sub: &str) -> Vec<(String, bool)> {
    use clap::CommandFactory;
    let mut cmd = Cli::command();
    cmd.build();
    let Some(c) = cmd.find_subcommand(sub) else {
        return Vec::new();
    };
    c.get_arguments()
        .filter(|a| !a.get_id().as_str().starts_with(FIO_ID))
        .flat_map(|a| {
            let takes = a.get_action().takes_values();
            let mut names = long_names(a);
            names.extend(a.get_short().map(String::from));
            names.into_iter().map(move |n| (n, takes))
        })
        .collect()
}

#[derive(Args, Debug, Clone)]
pub struct QuickArgs {
    #[command(flatten)]
    pub live: LiveArgs,
    /// Directory to test in (a temporary file is created and removed there).
    #[arg(value_parser = abs_path, default_value = ".")]
    pub dir: PathBuf,
    /// Measured time of each of the five tests.
    #[arg(long, default_value = "10s", value_name = "TIME")]
    pub runtime: String,
    /// Size of the temporary test file [default: 1g, or what fits in the free space].
    #[arg(long, value_name = "SIZE")]
    pub size: Option<String>,
    /// I/O engine for all five tests.
    #[arg(long, default_value = "io_uring", value_name = "ENGINE")]
    pub ioengine: String,
    /// O_DIRECT (turn off only where the filesystem refuses it, e.g. tmpfs).
    #[arg(long, default_value = "1", value_name = "BOOL", num_args = 0..=1, default_missing_value = "1")]
    pub direct: String,
    #[command(flatten)]
    pub repeat: RepeatArgs,
    #[command(flatten)]
    pub out: OutputArgs,
    #[command(flatten)]
    pub store: StoreArgs,
}

const TRACE_EXAMPLES: &str = "Examples:\n  volbench trace record /dev/nvme0n1 --duration 60s --output app.trace\n  volbench trace summary app.trace\n  volbench trace summary sda.blktrace.0          # blktrace's per-CPU files, merged\n  volbench trace convert app.trace --to fio --output app.iolog   # for fio --read_iolog";

const REPLAY_EXAMPLES: &str = "Examples:\n  volbench replay app.trace --filename /mnt/new/replay.dat\n  volbench replay app.trace --filename /dev/nvme1n1 --allow-destructive --speed 2\n  volbench replay app.trace --filename /dev/vdb --speed max --loops 3 --label gp3\n  volbench replay sda.blktrace.0 --map 8,0=/dev/vdb --map 8,16=/dev/vdc";

const STORE_EXAMPLES: &str = "Examples:\n  volbench store copy --from ~/.local/share/volbench/results.db --to postgresql://team@db.example/volbench\n  volbench store copy --from postgresql://team@db.example/volbench --to team-backup.db\n  volbench store push                 # send what waited locally for the team store\n  volbench store push --to postgresql://team@db2.example/volbench";

#[derive(Subcommand, Debug)]
pub enum StoreCmd {
    /// Copy every result of one store into another; results already there are left alone,
    /// so a second copy adds nothing.
    Copy(StoreCopyArgs),
    /// Send the local store's pending results (kept when their PostgreSQL store could not be
    /// reached) to that store, or to --to.
    Push(StorePushArgs),
}

#[derive(Args, Debug)]
pub struct StoreCopyArgs {
    /// The store to read: a SQLite file or a PostgreSQL URL.
    #[arg(long, value_name = "PATH|URL")]
    pub from: PathBuf,
    /// The store to write (created if it does not exist).
    #[arg(long, value_name = "PATH|URL")]
    pub to: PathBuf,
}

#[derive(Args, Debug)]
pub struct StorePushArgs {
    /// Send to this store instead of the one each result waits for.
    #[arg(long, value_name = "URL")]
    pub to: Option<PathBuf>,
    /// The local store holding the pending results [default: $VOLBENCH_LOCAL_STORE, else
    /// results.db in the user's data directory].
    #[arg(long, value_name = "PATH")]
    pub local: Option<PathBuf>,
}

const SERVE_EXAMPLES: &str = "Examples:\n  volbench serve                                   # http://127.0.0.1:8080/?token=... on this host's store\n  volbench serve --no-token                        # loopback, open to every user of this machine\n  volbench serve --store postgresql://team@db.example/volbench --listen 127.0.0.1:9000\n  volbench serve --store postgresql://team@db.example/volbench --listen 0.0.0.0:8080 --token-file /etc/volbench/token";

#[derive(Args, Debug)]
pub struct WebArgs {
    /// Results store: a SQLite file or a PostgreSQL URL [default: $VOLBENCH_STORE, else
    /// results.db in the user's data directory].
    #[arg(long, value_name = "PATH|URL")]
    pub store: Option<PathBuf>,
    /// Address to listen on (loopback by default). Every request needs a token (--token,
    /// --token-file, or one made and printed at the start), given once as ?token=... and then
    /// kept in a cookie: on loopback too, where every local user could otherwise read it.
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// Serve without a token, on loopback only: every user of this machine can then read
    /// every result.
    #[arg(long, conflicts_with_all = ["token", "token_file"])]
    pub no_token: bool,
    /// The access token (prefer --token-file: a command line is visible to other users).
    #[arg(long, value_name = "TOKEN", conflicts_with = "token_file")]
    pub token: Option<String>,
    /// A file whose first line is the access token.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// Worker threads answering requests.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
}

#[derive(Subcommand, Debug)]
pub enum TraceCmd {
    /// Record the block I/O issued to DEVICE until --duration or Ctrl-C, then summarize it.
    Record(TraceRecordArgs),
    /// What a trace holds: I/Os, mix, sizes, rate over time, the device's latency, depth.
    Summary(TraceFileArgs),
    /// Write a trace in another format (streamed: any size).
    Convert(TraceConvertArgs),
}

#[derive(Args, Debug)]
pub struct TraceRecordArgs {
    /// The block device whose I/O to record (a whole device: `df FILE` names it).
    #[arg(value_parser = abs_path, value_name = "DEVICE")]
    pub device: PathBuf,
    /// How long to record (Ctrl-C stops earlier and keeps the trace).
    #[arg(long, value_name = "TIME", default_value = "60s", value_parser = humantime::parse_duration)]
    pub duration: std::time::Duration,
    /// The trace file to write (refused if it exists) [default: DEVICE's name.trace].
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// text or json (the summary).
    #[arg(long = "output-format", value_name = "FORMAT", default_value = "text")]
    pub output_format: String,
}

#[derive(Args, Debug)]
pub struct TraceFileArgs {
    /// volbench's trace, blktrace's files (NAME or NAME.blktrace.N), or fio's iolog v2/v3.
    #[arg(value_name = "TRACE")]
    pub trace: PathBuf,
    /// text or json.
    #[arg(long = "output-format", value_name = "FORMAT", default_value = "text")]
    pub output_format: String,
}

#[derive(Args, Debug)]
pub struct TraceConvertArgs {
    #[arg(value_name = "TRACE")]
    pub trace: PathBuf,
    /// volbench, fio (iolog v3) or blktrace (per-CPU files OUTPUT.blktrace.N).
    #[arg(long, value_name = "FORMAT")]
    pub to: String,
    /// The file to write (refused if it exists).
    #[arg(long, value_name = "FILE")]
    pub output: PathBuf,
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub live: LiveArgs,
    /// The trace: volbench's, blktrace's (NAME or NAME.blktrace.N) or fio's iolog v2/v3.
    #[arg(value_name = "TRACE")]
    pub trace: PathBuf,
    /// The file or device to replay on (several joined with ':', with --map).
    #[arg(long, value_name = "TARGET")]
    pub filename: Option<String>,
    /// 1 keeps the trace's timing, 2 is twice as fast, 0.5 half; max issues as fast as the
    /// queue allows, in the trace's order.
    #[arg(long, value_name = "SPEED", default_value = "1")]
    pub speed: String,
    /// Replay the trace's file or device SRC on DST (repeatable).
    #[arg(long, value_name = "SRC=DST")]
    pub map: Vec<String>,
    /// Wrap offsets past a smaller target's end into it (with a warning) instead of refusing.
    #[arg(long)]
    pub wrap: bool,
    /// Replay the trace this many times, each after the last.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub loops: u32,
    /// The most I/Os in flight [default: the trace's deepest, where it holds completions, else 32].
    #[arg(long, value_name = "N")]
    pub iodepth: Option<u32>,
    /// io_uring, libaio or psync (psync issues one at a time).
    #[arg(long, value_name = "ENGINE", default_value = "io_uring")]
    pub ioengine: String,
    /// 1: O_DIRECT, as the block layer saw the traced I/O; 0: through the page cache.
    #[arg(long, value_name = "0|1", default_value = "1")]
    pub direct: String,
    /// Leave these out: a list of read, write, trim, sync.
    #[arg(long, value_name = "LIST")]
    pub skip: Option<String>,
    /// Write a device that holds data (a file system, a partition table).
    #[arg(long = "allow-destructive")]
    pub allow_destructive: bool,
    /// Also write fio's iolog v3 of what was issued, with the times.
    #[arg(long = "write-iolog", value_name = "FILE")]
    pub write_iolog: Option<PathBuf>,
    #[command(flatten)]
    pub out: OutputArgs,
    #[command(flatten)]
    pub store: StoreArgs,
}
