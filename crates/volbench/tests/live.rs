//! Live figures (docs/live.md): a real Prometheus scrapes `--metrics-listen` every second,
//! and what its PromQL answers must be what volbench itself measured over the same seconds,
//! which the interval log (`--interval-log`) says interval by interval as the run goes.

mod common;

use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The binary as a plain process (to read its output while it runs).
fn vb() -> Command {
    let mut c = Command::new(assert_cmd::cargo::cargo_bin("volbench"));
    c.env("VOLBENCH_STORE", common::test_store());
    c
}

/// Debian's Prometheus scraping `target` every second, its data in `dir`; killed on drop.
struct Prometheus {
    child: Child,
    port: u16,
}

impl Prometheus {
    fn start(dir: &Path, target: &str) -> Prometheus {
        let cfg = dir.join("prometheus.yml");
        std::fs::write(
            &cfg,
            format!(
                "global:\n  scrape_interval: 1s\n  scrape_timeout: 900ms\nscrape_configs:\n  - job_name: volbench\n    static_configs:\n      - targets: ['{target}']\n"
            ),
        )
        .unwrap();
        let port = common::free_port();
        let child = Command::new("prometheus")
            .arg(format!("--config.file={}", cfg.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("tsdb").display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let p = Prometheus { child, port };
        let t0 = Instant::now();
        while ureq::get(&p.url("/-/ready")).call().is_err() {
            assert!(
                t0.elapsed() < Duration::from_secs(30),
                "prometheus never became ready"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
        p
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// A query's whole answer, for a failure's message.
    fn raw(&self, q: &str, at: f64) -> String {
        ureq::get(&self.url("/api/v1/query"))
            .query("query", q)
            .query("time", &format!("{at:.3}"))
            .call()
            .unwrap()
            .into_string()
            .unwrap()
    }

    /// When the series `q` was first scraped (unix s), looking back a minute from `at`.
    fn first_sample(&self, q: &str, at: f64) -> f64 {
        let v: Value = serde_json::from_str(&self.raw(&format!("{q}[1m]"), at)).unwrap();
        v["data"]["result"][0]["values"][0][0]
            .as_f64()
            .expect("scraped at least once")
    }

    /// One instant query's scalar answer at unix time `at` (None: no series).
    fn query(&self, q: &str, at: f64) -> Option<f64> {
        let text = ureq::get(&self.url("/api/v1/query"))
            .query("query", q)
            .query("time", &format!("{at:.3}"))
            .call()
            .unwrap()
            .into_string()
            .unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        let r = &v["data"]["result"][0]["value"][1];
        r.as_str()
            .and_then(|s| s.parse().ok())
            .filter(|x: &f64| x.is_finite())
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One interval record of the log: its end (unix s), I/Os per second and p99 (ns).
struct Interval {
    end: f64,
    iops: f64,
    p99_ns: Option<f64>,
}

fn intervals(log: &Path) -> Vec<Interval> {
    let text = std::fs::read_to_string(log).unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("each line is a whole JSON object"))
        .filter(|r| r.get("sample").is_some())
        .map(|r| {
            let s = &r["sample"];
            Interval {
                end: r["unix_ms"].as_f64().unwrap() / 1e3,
                iops: s["ios"][0].as_f64().unwrap() / (s["dt_ms"].as_f64().unwrap() / 1e3),
                p99_ns: s["lat_pct"]["read"]["p99_ns"].as_f64(),
            }
        })
        .collect()
}

/// A 30 s rate-capped run scraped every second: over 10 s windows inside it, Prometheus's
/// `rate()` of the I/O counter is volbench's own per-second IOPS over those seconds within
/// 2 %, and `histogram_quantile(0.99, ...)` lies within one bucket (19 %) of the range of
/// volbench's interval p99s. The interval log is read, line by line, while the run goes.
#[test]
fn prometheus_agrees_with_the_runs_own_seconds() {
    require_tool!("prometheus");
    let dir = common::tmpdir();
    let port = common::free_port();
    let prom = Prometheus::start(dir.path(), &format!("127.0.0.1:{port}"));
    let log = dir.path().join("intervals.ndjson");
    let file = dir.path().join("data");
    let mut run = vb()
        .arg("run")
        .arg(format!("--filename={}", file.display()))
        .args([
            "--rw=randread",
            "--size=64m",
            "--rate_iops=2000",
            "--runtime=30s",
        ])
        .arg(format!("--metrics-listen=127.0.0.1:{port}"))
        .arg(format!("--interval-log={}", log.display()))
        .args(["-q", "--no-store", "--output-format=volbench-json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(run.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    assert_eq!(
        first.trim(),
        format!("metrics: http://127.0.0.1:{port}/metrics")
    );
    // Mid-run, the log already holds whole records, each line parsing on its own.
    std::thread::sleep(Duration::from_secs(12));
    let early = intervals(&log);
    assert!(early.len() >= 8, "{} records after 12 s", early.len());
    let out = run.wait_with_output().unwrap();
    common::succeeded(&out, "");
    // Prometheus's last scrape of the run's end.
    std::thread::sleep(Duration::from_secs(2));
    let ivs = intervals(&log);
    assert!(ivs.len() >= 29, "{} interval records", ivs.len());
    // Prometheus starts scraping a new target some seconds after it starts (its discovery
    // settles first): only windows after its first scrape are whole.
    let last = ivs.last().unwrap().end + 1.5;
    let first = prom.first_sample(r#"volbench_io_total{rw="read"}"#, last);
    let mut windows = 0;
    let ends = ivs
        .iter()
        .map(|i| i.end)
        .filter(|e| e - 10.5 > first && *e < last - 3.0);
    for end in ends {
        let inside: Vec<&Interval> = ivs
            .iter()
            .filter(|i| i.end > end - 9.0 && i.end <= end - 1.0)
            .collect();
        let ours = inside.iter().map(|i| i.iops).sum::<f64>() / inside.len() as f64;
        let rate = prom
            .query(r#"rate(volbench_io_total{rw="read"}[10s])"#, end)
            .unwrap();
        assert!(
            (rate - ours).abs() / ours <= 0.02,
            "at {end}: rate() {rate:.1} vs volbench's {ours:.1} IOPS; scraped: {}",
            prom.raw(r#"volbench_io_total{rw="read"}[12s]"#, end)
        );
        let q =
            r#"histogram_quantile(0.99, rate(volbench_io_latency_seconds_bucket{rw="read"}[10s]))"#;
        let p99 = prom.query(q, end).unwrap() * 1e9;
        let ps: Vec<f64> = inside.iter().filter_map(|i| i.p99_ns).collect();
        let (lo, hi) = ps
            .iter()
            .fold((f64::MAX, 0f64), |(a, b), &p| (a.min(p), b.max(p)));
        let width = 2f64.powf(0.25);
        assert!(
            p99 >= lo / width && p99 <= hi * width,
            "at {end}: histogram_quantile {p99:.0} ns outside volbench's interval p99s {lo:.0}-{hi:.0} ns"
        );
        windows += 1;
    }
    assert!(
        windows >= 8,
        "{windows} windows after the first scrape at {first}"
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let total = common::u(&report, "/group/read/total_ios") as f64;
    // The endpoint goes with the process: the last scrape misses at most the last second.
    let scraped = prom
        .query(r#"max_over_time(volbench_io_total{rw="read"}[1m])"#, last)
        .unwrap();
    assert!(
        scraped <= total && scraped >= total - 2.0 * 2000.0,
        "the last scrape {scraped} vs the report's {total} I/Os"
    );
}

/// The endpoint's text passes promtool's lint, in the middle of a run and after it, and
/// an address other hosts could reach is refused without a token.
#[test]
fn the_scrape_is_clean_and_a_public_address_needs_a_token() {
    require_tool!("promtool");
    let dir = common::tmpdir();
    let port = common::free_port();
    let file = dir.path().join("data");
    let mut run = vb()
        .arg("run")
        .arg(format!("--filename={}", file.display()))
        .args(["--rw=randrw", "--size=16m", "--runtime=3s", "--numjobs=2"])
        .arg(format!("--metrics-listen=127.0.0.1:{port}"))
        .args(["--label", "soak \"q\"\\"])
        .args(["-q", "--no-store", "--output-format=volbench-json"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(run.stderr.as_mut().unwrap())
        .read_line(&mut first)
        .unwrap();
    std::thread::sleep(Duration::from_millis(2500));
    let text = ureq::get(&format!("http://127.0.0.1:{port}/metrics"))
        .call()
        .unwrap()
        .into_string()
        .unwrap();
    promtool_clean(&text);
    // The run's identity, its label's quote and backslash escaped.
    for want in [
        r#"label="soak \"q\"\\""#,
        r#"workload="options""#,
        r#"command="run""#,
    ] {
        assert!(text.contains(want), "{want} in {text}");
    }
    assert!(
        text.contains(r#"volbench_io_latency_seconds_bucket{host="#),
        "{text}"
    );
    assert!(
        text.contains(r#"volbench_job_stage="measure"} 1"#),
        "{text}"
    );
    assert!(run.wait().unwrap().success());
    let out = common::volbench()
        .args(["run", "--runtime=1s", "--metrics-listen=0.0.0.0:0"])
        .arg(format!("--filename={}", file.display()))
        .output()
        .unwrap();
    common::fails_saying(&out, 2, "give --metrics-token-file");
}

/// Two MPI ranks, one endpoint: rank 0 serves both ranks' figures (sent to it once a second
/// over MPI), each under its own `host` label, and Prometheus's rate() of each is the rate
/// that rank was capped at.
#[test]
fn one_endpoint_serves_every_mpi_rank_with_its_host_label() {
    require_tool!("prometheus");
    let bin = std::env::var_os("VOLBENCH_MPI_BIN").map(std::path::PathBuf::from);
    let Some(bin) = bin.filter(|p| p.exists()) else {
        cannot_run!("needs VOLBENCH_MPI_BIN (a build with --features mpi): run scripts/test.sh");
    };
    let dir = common::tmpdir();
    let port = common::free_port();
    let prom = Prometheus::start(dir.path(), &format!("127.0.0.1:{port}"));
    let mut mpirun = Command::new("mpirun");
    mpirun
        .args(["--allow-run-as-root", "--oversubscribe", "-n", "2"])
        .args(["--mca", "btl", "self,vader,tcp"])
        .arg(bin)
        .arg("run")
        .arg(format!("--directory={}", dir.path().display()))
        .args([
            "--rw=randread",
            "--size=16m",
            "--rate_iops=1000",
            "--runtime=25s",
        ])
        .arg(format!("--metrics-listen=127.0.0.1:{port}"))
        .args(["-q", "--no-store", "--output-format=volbench-json"]);
    common::stdout_of(mpirun, "mpirun -n 2 volbench run");
    let at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64();
    let first = prom.first_sample(r#"volbench_io_total{rw="read"}"#, at);
    // A whole 10 s window after the first scrape, and before the run's end.
    let end = first + 11.0;
    assert!(
        end < at - 3.0,
        "the first scrape came too late in the run ({first} vs {at})"
    );
    let host = runner::probe::hostname();
    for rank in 0..2 {
        let q = format!(r#"rate(volbench_io_total{{rw="read",host="{host} rank {rank}"}}[10s])"#);
        let rate = prom
            .query(&q, end)
            .unwrap_or_else(|| panic!("no series for rank {rank}"));
        assert!((rate - 1000.0).abs() <= 20.0, "rank {rank}: rate() {rate}");
    }
}

/// `--status-interval=1` prints each second's own figures (not the run's so far), prefixed
/// with the time; `--live` on a pipe prints plain lines, never an escape code; both leave the
/// JSON report on stdout one document.
#[test]
fn status_lines_are_intervals_and_a_pipe_gets_no_escape_codes() {
    // In memory: a read that waits on the shared disk made one second read 403 at a cap
    // of 500 in a fresh clone's run beside stress-ng.
    let dir = tempfile::tempdir_in("/dev/shm").unwrap();
    let file = dir.path().join("data");
    let out = common::volbench()
        .arg("run")
        .arg(format!("--filename={}", file.display()))
        .args([
            "--rw=randread",
            "--size=16m",
            "--rate_iops=500",
            "--runtime=4s",
        ])
        .args([
            "--status-interval=1",
            "--live",
            "--no-store",
            "--output-format=json",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let report: Value = serde_json::from_slice(&out.stdout).expect("stdout is one JSON document");
    assert!(report["group"]["read"]["total_ios"].as_u64().unwrap() > 1000);
    assert!(!err.contains('\x1b'), "escape codes on a pipe: {err:?}");
    let status: Vec<&str> = err.lines().filter(|l| l.starts_with('[')).collect();
    assert!(status.len() >= 3, "{err}");
    // Each line is its own second's rate: the cap, not a cumulative count.
    for l in &status[1..3] {
        let iops: f64 = l
            .split("read ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!((iops - 500.0).abs() <= 50.0, "{l}");
    }
    let live = err
        .lines()
        .filter(|l| l.starts_with("volbench  read"))
        .count();
    assert!(live >= 3, "one live line a second: {err}");
}

/// A run past the fold (docs/live.md, "A long run's memory"): at a 100 ms interval the report
/// keeps the first 1,200 intervals as they came and one record a second after, and no I/O is
/// lost on the way: each folded record holds exactly its ten streamed intervals' I/Os (the
/// interval log has every one), its p99 lies between theirs (a merged histogram's must), the
/// samples add up to the run's total, and fio's iops log follows the records.
#[test]
fn a_long_run_folds_its_records_and_loses_no_io() {
    let dir = common::tmpdir();
    let d = dir.path();
    let log = d.join("intervals.ndjson");
    let mut run = common::volbench();
    run.arg(format!("--interval-log={}", log.display()))
        .arg("run")
        .arg("--name=soak")
        .arg(format!("--filename={}", d.join("data").display()))
        .args(["--rw=randread", "--size=16m", "--rate_iops=2000"])
        .args(["--runtime=150s", "--time_based", "--log_avg_msec=100"])
        .arg(format!("--write_iops_log={}", d.join("soak").display()))
        .args(["--no-store", "-q", "--output-format=volbench-json"]);
    let r = common::ok_json(&mut run);
    let samples = r["group"]["series"]["samples"].as_array().unwrap().clone();
    let n = samples.len();
    assert!((1228..=1232).contains(&n), "{n} records for 150 s");
    let dt = |s: &Value| s["dt_ms"].as_u64().unwrap();
    let t = |s: &Value| s["t_ms"].as_u64().unwrap();
    let ios = |s: &Value| s["ios"][0].as_u64().unwrap();
    // Each record its own interval, a sampler late by a stall of the host included (one
    // beside stress-ng was late by more than 50 ms): the fold is what is checked here.
    let spans = |s: &[Value], lo, hi| s.iter().all(|s| (lo..=hi).contains(&dt(s)));
    assert!(
        spans(&samples[..1200], 10, 600),
        "{:?}",
        samples[..1200].iter().map(dt).max()
    );
    assert!(spans(&samples[1200..n - 1], 500, 1500));
    let total: u64 = samples.iter().map(ios).sum();
    assert_eq!(total, common::u(&r, "/group/read/total_ios"));
    let natives: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter_map(|v| v.get("sample").cloned())
        .collect();
    assert!(
        natives.len() >= 1490,
        "{} streamed intervals",
        natives.len()
    );
    for s in &samples[1200..n - 1] {
        let inside: Vec<&Value> = natives
            .iter()
            .filter(|x| t(x) > t(s) - dt(s) && t(x) <= t(s))
            .collect();
        assert_eq!(inside.iter().map(|x| ios(x)).sum::<u64>(), ios(s), "{s}");
        let p99 = |x: &Value| x["lat_pct"]["read"]["p99_ns"].as_u64().unwrap();
        let (lo, hi) = (
            inside.iter().map(|x| p99(x)).min().unwrap(),
            inside.iter().map(|x| p99(x)).max().unwrap(),
        );
        assert!((lo..=hi).contains(&p99(s)), "{s}: theirs {lo}..{hi}");
    }
    let lines = std::fs::read_to_string(d.join("soak_iops.1.log")).unwrap();
    let times: Vec<u64> = lines
        .lines()
        .map(|l| l.split(',').next().unwrap().trim().parse().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] < w[1]), "{lines}");
    let late: Vec<u64> = times.iter().copied().filter(|&x| x > 121_000).collect();
    assert!(
        late.windows(2)
            .all(|w| (900..=1100).contains(&(w[1] - w[0]))),
        "{late:?}"
    );
    assert!(times.last().unwrap().abs_diff(150_000) <= 1000, "{lines}");
}

/// A global flag given before the subcommand reaches a pasted fio command line, whose
/// options stay fio's: the run lasts its --runtime and the interval log fills.
#[test]
fn a_flag_before_run_leaves_fios_command_line_whole() {
    let dir = common::tmpdir();
    let log = dir.path().join("i.ndjson");
    let out = common::volbench()
        .arg(format!("--interval-log={}", log.display()))
        .args(["--status-interval", "1", "run", "--name=x"])
        .arg(format!("--filename={}", dir.path().join("data").display()))
        .args([
            "--rw=randread",
            "--size=8m",
            "--rate_iops=200",
            "--runtime=3s",
        ])
        .args([
            "--time_based",
            "--no-store",
            "-q",
            "--output-format=volbench-json",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let secs = common::u(&r, "/group/runtime_ns") as f64 / 1e9;
    assert!((2.9..3.5).contains(&secs), "ran {secs} s for --runtime=3s");
    let records = std::fs::read_to_string(&log).unwrap().lines().count();
    assert!(records >= 3, "{records} interval records");
    assert!(
        err.lines().filter(|l| l.starts_with('[')).count() >= 2,
        "{err}"
    );
}

/// Unix time now, in seconds.
fn unix_now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// `volbench db` on the board: scraped every 50 ms, the transactions counter grows as the
/// run's own per-second counts say (over 3 s windows, within 2 %: the scrapes are
/// interpolated to the seconds' edges; 0.15 % at most over five windows here), the latency histogram counts the same commits, and
/// promtool passes the text.
#[test]
fn db_transactions_reach_the_endpoint_as_they_commit() {
    require_tool!("promtool");
    let dir = common::tmpdir();
    let port = common::free_port();
    let mut run = vb()
        .arg(format!("--metrics-listen=127.0.0.1:{port}"))
        .arg("db")
        .arg(dir.path())
        .args(["--time", "10", "--clients", "10", "--no-probe"])
        .args(["--no-store", "--output-format=json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = BufReader::new(run.stderr.take().unwrap());
    let mut first = String::new();
    err.read_line(&mut first).unwrap();
    assert!(first.contains("/metrics"), "{first}");
    std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
    let url = format!("http://127.0.0.1:{port}/metrics");
    let (mut points, mut linted) = (Vec::new(), false);
    while run.try_wait().unwrap().is_none() {
        let t0 = unix_now();
        let Ok(resp) = ureq::get(&url).call() else {
            continue;
        };
        let text = resp.into_string().unwrap();
        let at = (t0 + unix_now()) / 2.0;
        let tx = common::scraped(&text, "volbench_db_transactions_total", "");
        let lat = common::scraped(&text, "volbench_db_transaction_latency_seconds_count", "");
        if let (Some(tx), Some(lat)) = (tx, lat) {
            // The two are read a moment apart: at most a commit per client in between.
            assert!((tx - lat).abs() <= 10.0, "{tx} commits, {lat} latencies");
            if !linted && tx > 0.0 {
                promtool_clean(&text);
                linted = true;
            }
            points.push((at, tx));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = run.wait_with_output().unwrap();
    common::succeeded(&out, "");
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let start = common::u(&r, "/runs/0/started_unix_ms") as f64 / 1e3;
    let secs: Vec<f64> = r["runs"][0]["tps_per_sec"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let at = |t: f64| {
        let k = points.iter().position(|p| p.0 >= t)?;
        let (a, b) = (points[k.checked_sub(1)?], points[k]);
        Some(a.1 + (b.1 - a.1) * (t - a.0) / (b.0 - a.0))
    };
    let mut windows = 0;
    for k in 1..secs.len().saturating_sub(4) {
        let (from, to) = (start + k as f64, start + k as f64 + 3.0);
        let (Some(a), Some(b)) = (at(from), at(to)) else {
            continue;
        };
        let ours: f64 = secs[k..k + 3].iter().sum();
        assert!(
            ((b - a) - ours).abs() / ours <= 0.02,
            "seconds {k}-{}: the counter grew {} where the run counted {ours}",
            k + 3,
            b - a
        );
        windows += 1;
    }
    assert!(
        windows >= 4,
        "{windows} windows from {} scrapes",
        points.len()
    );
    assert!(linted, "no scrape held a transaction");
}

/// Asserts `promtool check metrics` finds nothing to say about a scrape's text.
fn promtool_clean(text: &str) {
    let mut lint = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut lint.stdin.take().unwrap(), text.as_bytes()).unwrap();
    let lint = lint.wait_with_output().unwrap();
    assert!(
        lint.status.success() && lint.stdout.is_empty() && lint.stderr.is_empty(),
        "promtool: {}{}",
        String::from_utf8_lossy(&lint.stdout),
        String::from_utf8_lossy(&lint.stderr)
    );
}

/// Scrapes `port` every 100 ms while `child` runs: each scrape's text.
fn scrapes_while(child: &mut Child, port: u16) -> Vec<String> {
    let url = format!("http://127.0.0.1:{port}/metrics");
    let mut out = Vec::new();
    while child.try_wait().unwrap().is_none() {
        std::thread::sleep(Duration::from_millis(100));
        if let Ok(r) = ureq::get(&url).call() {
            out.push(r.into_string().unwrap());
        }
    }
    out
}

/// `volbench_inflight` is the depth the job waits at: behind a 300 IOPS throttle a QD16 job
/// has all 16 in flight whenever it is measuring (the queue cannot be fuller, and the throttle
/// keeps it full).
#[test]
fn inflight_is_the_queue_a_throttle_keeps_full() {
    require_root!();
    let z = common::Zram::new("64M");
    let Some(t) = common::Throttle::new(z.p(), 300, 1 << 30) else {
        cannot_run!("no cgroup I/O throttle here (v2 io.max or v1 blkio)");
    };
    let port = common::free_port();
    let args: Vec<String> = [
        format!("--metrics-listen=127.0.0.1:{port}"),
        "run".into(),
        "--name=qd".into(),
        format!("--filename={}", z.p()),
        "--rw=randread".into(),
        "--ioengine=libaio".into(),
        "--direct=1".into(),
        "--iodepth=16".into(),
        "--runtime=4s".into(),
        "--time_based".into(),
        "--no-store".into(),
        "-q".into(),
    ]
    .into();
    let vb = assert_cmd::cargo::cargo_bin("volbench");
    let mut child = t
        .command(vb.to_str().unwrap(), &args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let texts = scrapes_while(&mut child, port);
    assert!(child.wait().unwrap().success());
    let measuring: Vec<f64> = texts
        .iter()
        .filter(|t| t.contains("volbench_job_stage=\"measure\"} 1"))
        .filter_map(|t| common::scraped(t, "volbench_inflight", "job=\"qd\""))
        .collect();
    assert!(
        measuring.len() >= 20,
        "{} scrapes while measuring",
        measuring.len()
    );
    assert!(measuring.iter().all(|&q| q == 16.0), "{measuring:?}");
}

/// `volbench_io_errors_total` counts the failed I/Os as they fail: a zram device that stores
/// 8 MiB fails every write after that, and with continue_on_error the scrapes count them
/// from zero up to what the report says, less at most a second of them.
#[test]
fn errors_are_counted_as_they_fail() {
    require_root!();
    let z = common::Zram::with_mem_limit("64M", "8M");
    let port = common::free_port();
    let mut child = vb()
        .arg(format!("--metrics-listen=127.0.0.1:{port}"))
        .args(["run", "--name=err"])
        .arg(format!("--filename={}", z.p()))
        .args(["--rw=write", "--bs=4k", "--direct=1", "--rate_iops=2000"])
        .args(["--continue_on_error=all", "--runtime=4s", "--time_based"])
        .args([
            "--allow-destructive",
            "--no-store",
            "-q",
            "--output-format=volbench-json",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut s).unwrap();
        s
    });
    let texts = scrapes_while(&mut child, port);
    assert!(child.wait().unwrap().success());
    let r: Value = serde_json::from_str(&reader.join().unwrap()).unwrap();
    let total = r["jobs"][0]["errors"]["total"]
        .as_f64()
        .unwrap_or_else(|| panic!("{r}"));
    let errs: Vec<f64> = texts
        .iter()
        .filter_map(|t| common::scraped(t, "volbench_io_errors_total", "job=\"err\""))
        .collect();
    assert!(errs.windows(2).all(|p| p[0] <= p[1]), "{errs:?}");
    assert!(
        errs.contains(&0.0) && errs.iter().any(|&e| e > 0.0),
        "{errs:?}"
    );
    let last = *errs.last().unwrap();
    assert!(
        last <= total && total - last <= 2000.0,
        "scraped {last}, reported {total}"
    );
}

/// A sweep stores each point as it ends: a scrape during its second point names the stored
/// result (`store_id`) beside the command, and the id is the one the store lists.
#[test]
fn the_info_metric_names_the_stored_result_once_stored() {
    let dir = common::tmpdir();
    let store = dir.path().join("results.db");
    let port = common::free_port();
    let mut run = vb()
        .env("VOLBENCH_STORE", &store)
        .args([
            "sweep",
            "--numjobs=1,2",
            "--runtime=2s",
            "--rw=randread",
            "--size=16m",
        ])
        .arg(format!("--filename={}", dir.path().join("data").display()))
        .arg(format!("--metrics-listen=127.0.0.1:{port}"))
        .args(["-q", "--output-format=json"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let texts = scrapes_while(&mut run, port);
    assert!(run.wait().unwrap().success());
    let ids: Vec<&str> = texts
        .iter()
        .filter_map(|t| t.split("store_id=\"").nth(1)?.split('"').next())
        .collect();
    assert!(!ids.is_empty(), "no scrape named the stored result");
    let listed = vb()
        .env("VOLBENCH_STORE", &store)
        .args(["history", "--output-format=json"])
        .output()
        .unwrap();
    common::succeeded(&listed, "");
    let h: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let id = h[0]["id"].to_string();
    assert!(ids.iter().all(|i| *i == id), "{ids:?} vs the store's {id}");
    assert!(texts.iter().any(|t| t.contains(r#"command="sweep""#)));
}

/// A run's metrics endpoint keeps answering Prometheus while one client holds 1,100 idle
/// connections to it, reopened as they close (issue 63: 18 of 19 scrapes were refused).
#[test]
fn a_flood_of_idle_connections_does_not_cost_the_run_its_scrapes() {
    let dir = common::tmpdir();
    let port = common::free_port();
    let mut run = vb()
        .arg("run")
        .arg(format!("--filename={}", dir.path().join("data").display()))
        .args(["--rw=randread", "--size=16m", "--runtime=60s"])
        .arg(format!("--metrics-listen=127.0.0.1:{port}"))
        .args(["-q", "--no-store"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let to: std::net::SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let up = Instant::now();
    while std::net::TcpStream::connect(to).is_err() {
        assert!(
            up.elapsed() < Duration::from_secs(30),
            "the endpoint never listened"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let flood = common::flood::Flood::start(to, 1100);
    for i in 0..10 {
        let (code, text) = common::flood::get_from_another(to, "/metrics", Duration::from_secs(5));
        assert_eq!(code, 200, "scrape {i} beside the flood: {text}");
        assert!(text.contains("volbench_io_total"), "scrape {i}: {text}");
    }
    assert!(
        flood.stop() > 0,
        "the endpoint held all 1,100 of one address's connections"
    );
    common::interrupt(&run);
    let _ = run.wait();
}
