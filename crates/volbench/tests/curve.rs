//! Latency under load (issue 46): `volbench curve` on a cgroup-throttled zram device, a queue
//! whose rate is known. The maximum is the throttle's rate, light load sees the device's own
//! service time, the SLO answer falls where a queue at that rate puts it, the point past the
//! maximum falls behind, and fio at the same Poisson rate achieves the same IOPS while its
//! clat stays flat where the due-time latency grows.

mod common;
use common::*;
use serde_json::Value;

const CAP: u64 = 2000;

/// Every test here measures latency, and one of them loads the CPU on purpose: one at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn alone() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// `volbench curve` on `dev` inside `cap`: the volbench-json document. Exit status 0, or 4
/// when an SLO could not be judged on this host (and the document says which, and why).
fn curve(cap: &Throttle, dev: &str, extra: &[&str]) -> Value {
    let vb = assert_cmd::cargo::cargo_bin("volbench");
    let mut args: Vec<String> = [
        "curve",
        dev,
        "--bs=4k",
        "--ioengine=libaio",
        "--direct=1",
        "--runtime=3s",
        "--points=5",
        "--max-depth=8",
        "--output-format=json",
        "-q",
    ]
    .map(String::from)
    .to_vec();
    args.extend(extra.iter().map(|s| s.to_string()));
    let out = cap.command(vb.to_str().unwrap(), &args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {err}"));
    let unjudged = v["curve"]["slo"]
        .as_array()
        .is_some_and(|s| s.iter().any(|a| a.get("host_late_ns").is_some()));
    let want = if unjudged { Some(4) } else { Some(0) };
    assert_eq!(out.status.code(), want, "{err}");
    v
}

/// The kernel's count of time some task waited for a CPU (`/proc/pressure/cpu`, "some"),
/// against the clock: how contended the host was over a stretch, whatever else ran.
struct CpuPressure {
    stalled_us: Option<u64>,
    at: std::time::Instant,
}

impl CpuPressure {
    fn read() -> Option<u64> {
        let text = std::fs::read_to_string("/proc/pressure/cpu").ok()?;
        let some = text.lines().find(|l| l.starts_with("some "))?;
        some.split_whitespace()
            .find_map(|w| w.strip_prefix("total="))?
            .parse()
            .ok()
    }

    fn now() -> CpuPressure {
        CpuPressure {
            stalled_us: Self::read(),
            at: std::time::Instant::now(),
        }
    }

    /// The share of the time since [`CpuPressure::now`] that some task waited for a CPU;
    /// `None` where the kernel keeps no such count.
    fn share_since(&self) -> Option<f64> {
        let stalled = Self::read()?.checked_sub(self.stalled_us?)?;
        Some(stalled as f64 / self.at.elapsed().as_micros().max(1) as f64)
    }
}

/// The host's own lateness, measured apart from volbench: a thread that sleeps to a due time
/// every 2.5 ms (the lightest point's spacing) and keeps how late each wake-up was. A host
/// whose hypervisor or disk stalls held every thread, with no task waiting for a CPU in
/// this guest's count, shows it here as it did to volbench's issuing thread.
struct Sleeper {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    handle: std::thread::JoinHandle<Vec<u64>>,
}

impl Sleeper {
    fn start() -> Sleeper {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let flag = stop.clone();
        let handle = std::thread::spawn(move || {
            // Waited as a rate-capped job waits (1 ns of timer slack, a sleep stopped 100 µs
            // short, the rest spun), so its own way of waiting adds nothing to what it sees.
            // SAFETY: prctl with integer arguments, on this thread only.
            unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong) };
            let step = std::time::Duration::from_micros(2500);
            let spin = std::time::Duration::from_micros(100);
            let mut due = std::time::Instant::now() + step;
            let mut late = Vec::new();
            while !flag.load(std::sync::atomic::Ordering::Relaxed) {
                std::thread::sleep(
                    due.saturating_duration_since(std::time::Instant::now())
                        .saturating_sub(spin),
                );
                while std::time::Instant::now() < due {
                    std::hint::spin_loop();
                }
                let now = std::time::Instant::now();
                late.push(now.saturating_duration_since(due).as_nanos() as u64);
                due = (due + step).max(now);
            }
            late
        });
        Sleeper { stop, handle }
    }

    /// The p99 of its wake-ups' lateness, in ns.
    fn p99(self) -> u64 {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let mut late = self.handle.join().unwrap();
        late.sort_unstable();
        late.get(late.len() * 99 / 100).copied().unwrap_or(0)
    }
}

/// The SLO answers of a curve, checked honest: each within what every looser target allows,
/// none above the first point it broke or left out, and one the host could not judge has no
/// number, only the lateness that stopped it (above the bar at the lightest point). Whether
/// any number is left to check on.
fn honest_answers(v: &Value) -> bool {
    let slos = v["curve"]["slo"].as_array().unwrap();
    let points = v["curve"]["points"].as_array().unwrap();
    let iops_at = |share: u64| f(point(v, share), "/achieved_iops");
    // A point's due-time percentile over the answer's limit (the points carry p50 and p99).
    let over = |a: &Value, share: u64| {
        let field = match a["percentile"].as_f64() {
            Some(50.0) => "/lat_due/p50_ns",
            Some(99.0) => "/lat_due/p99_ns",
            _ => panic!("no such percentile on a point: {a}"),
        };
        u(point(v, share), field) > a["limit_ns"].as_u64().unwrap()
    };
    for a in slos {
        let got = a["slo_iops"].as_f64();
        // Lateness leaves out only a point over the limit: one within it met the limit with
        // the lateness counted (a loose target met everywhere on a busy host is answered).
        let left = a["left_out_percent"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        for share in left.iter().filter_map(Value::as_u64) {
            assert!(
                over(a, share),
                "left out at {share} % within the limit: {a}"
            );
        }
        if let Some(late) = a["host_late_ns"].as_u64() {
            let lightest = u(&points[0], "/share_percent");
            assert!(over(a, lightest), "cannot judge within the limit: {a}");
            assert!(got.is_none() && late >= 250_000, "{a}");
            assert!(
                a["message"].as_str().unwrap().contains("cannot judge here"),
                "{a}"
            );
            continue;
        }
        let first_out = a["left_out_percent"]
            .as_array()
            .and_then(|l| l.first()?.as_u64());
        for stop in [a["broke_at_percent"].as_u64(), first_out]
            .into_iter()
            .flatten()
        {
            assert!(got.unwrap_or(0.0) <= iops_at(stop) * 1.000_001, "{a}");
        }
        for b in slos {
            let looser = b["percentile"].as_f64() <= a["percentile"].as_f64()
                && b["limit_ns"].as_u64() >= a["limit_ns"].as_u64();
            if looser {
                let allowed = b["slo_iops"].as_f64().unwrap_or(0.0);
                assert!(
                    got.unwrap_or(0.0) <= allowed * 1.000_001,
                    "{a}\nlooser: {b}"
                );
            }
        }
    }
    assert!(!points.is_empty());
    slos.iter().any(|a| a.get("host_late_ns").is_none())
}

/// fio at `rate` Poisson arrivals on `dev` inside `cap`, as the curve's points run: its
/// read IOPS.
fn fio_point(cap: &Throttle, dev: &str, rate: u64, depth: u64) -> f64 {
    let args: Vec<String> = [
        "--name=point",
        &format!("--filename={dev}"),
        "--rw=randread",
        "--bs=4k",
        "--ioengine=libaio",
        "--direct=1",
        "--runtime=3s",
        "--time_based",
        &format!("--iodepth={depth}"),
        &format!("--rate_iops={rate}"),
        "--rate_process=poisson",
        "--output-format=json",
    ]
    .map(String::from)
    .to_vec();
    let v: Value = serde_json::from_slice(&cap.run("fio", &args)).unwrap();
    let r = &v["jobs"][0]["read"];
    f(r, "/iops")
}

/// The p99 of the time in system of an M/D/1 queue (Poisson arrivals at `lam`, a server of
/// fixed service time 1/`mu`), by Lindley's recursion over 200,000 seeded arrivals.
fn md1_p99(lam: f64, mu: f64) -> f64 {
    use rand::{Rng, SeedableRng};
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let (s, mut w) = (1.0 / mu, 0.0f64);
    let mut t: Vec<f64> = (0..200_000)
        .map(|_| {
            let a = -(1.0 - rng.gen::<f64>()).ln() / lam;
            w = (w + s - a).max(0.0);
            w + s
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[t.len() * 99 / 100]
}

/// The highest arrival rate at which an M/D/1 queue of rate `mu` keeps its p99 within
/// `limit` seconds (bisection: p99 grows with the load).
fn md1_slo(mu: f64, limit: f64) -> f64 {
    let (mut lo, mut hi) = (0.01 * mu, 0.9999 * mu);
    for _ in 0..30 {
        let mid = (lo + hi) / 2.0;
        if md1_p99(mid, mu) <= limit {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

fn point(v: &Value, share: u64) -> &Value {
    v["curve"]["points"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["share_percent"] == share)
        .unwrap_or_else(|| panic!("no {share} % point in {}", v["curve"]))
}

/// A 2,000-IOPS throttle: the maximum is its rate; light load passes at the device's own
/// speed; the p99 SLO answer falls where an M/D/1 queue at that rate puts it; 110 % falls
/// behind; each point's I/O is the kernel's count; fio at the same Poisson rates achieves
/// the same IOPS.
#[test]
fn a_throttled_device_curves_where_its_queue_says() {
    let _one = alone();
    require_root!();
    require_tool!("fio");
    let z = Zram::new("64M");
    fill_random(&z.path, 64 << 20);
    let Some(cap) = Throttle::new(z.p(), CAP, 1 << 30) else {
        cannot_run!("no cgroup I/O throttle here (v2 io.max or v1 blkio)");
    };
    let v = curve(&cap, z.p(), &["--slo=p99=20ms", "--slo=p50=500us"]);
    let c = &v["curve"];
    let max = f(c, "/max/iops");
    assert!(
        (max - CAP as f64).abs() < 0.1 * CAP as f64,
        "the maximum: {max}"
    );
    let shares: Vec<u64> = c["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| u(p, "/share_percent"))
        .collect();
    assert_eq!(shares, [20, 40, 60, 80, 100, 110]);
    // Light load: nothing queues, half the I/Os pass in well under one service time (1/rate).
    let light = point(&v, 20);
    assert!(
        u(light, "/lat_due/p50_ns") < 1_000_000_000 / CAP / 2,
        "{light}"
    );
    assert_eq!(light["fell_behind"], false, "{light}");
    let over = point(&v, 110);
    assert_eq!(over["fell_behind"], true, "{over}");
    // Past the rate the queue grows for the whole run: its median wait is tens of ms, twenty
    // times the light point's bound above.
    assert!(u(over, "/lat_due/p50_ns") > 10_000_000, "{over}");
    // The SLO p99 <= 20 ms against the queue's own answer at the measured rate, where the
    // host let volbench judge it (a host too busy says so, with no number: checked honest).
    let judged = honest_answers(&v);
    let slo = &c["slo"][0];
    if !judged || slo.get("host_late_ns").is_some() || slo.get("left_out_percent").is_some() {
        eprintln!("the host was too busy to judge p99 <= 20 ms here: {slo}");
        return;
    }
    let model = md1_slo(max, 0.020);
    let got = f(slo, "/slo_iops");
    assert!(
        (got - model).abs() < 0.1 * max,
        "SLO answer {got} IOPS, M/D/1 at {max}: {model}\n{slo}"
    );
    cloud_answers(&v, max, got);
    chart_marks_sit_on_the_answers(&v);
    // Each run's I/O is the kernel's count: its own, and those still in flight when the
    // window closed (at most its depth).
    for r in v["runs"].as_array().unwrap() {
        let r = &r["report"];
        let ios = u(r, "/group/read/total_ios");
        let depth = u(r, "/workload/jobs/0/iodepth");
        let kernel = u(r, "/environment/targets/0/kernel_counters/read_ios");
        assert!(
            kernel >= ios && kernel <= ios + depth,
            "{kernel} vs {ios} at QD{depth}"
        );
    }
    // fio, same Poisson rate and depth: the same IOPS below the cap. (Their
    // latencies are not compared here: below the cap v1's slices pass most bursts, so both
    // tools see tens of microseconds and their gap is within a loaded host's noise; the
    // backlog clat leaves out is shown in steady_state.rs, where the gap is 10^5-fold.)
    let depth = u(c, "/point_iodepth");
    for share in [40, 80] {
        let p = point(&v, share);
        let iops = fio_point(&cap, z.p(), f(p, "/offered_iops").round() as u64, depth);
        let ours = f(p, "/achieved_iops");
        assert!(
            (iops - ours).abs() < 0.05 * ours,
            "{share} %: fio {iops}, volbench {ours}"
        );
    }
}

/// The x of the star labelled `label` in a report page's chart data.
fn star_x(html: &str, label: &str) -> f64 {
    let at = html
        .find(&format!("\"label\":\"{label}\""))
        .unwrap_or_else(|| panic!("no {label} in the page"));
    let xs = &html[at..][html[at..].find("\"xs\":[").unwrap() + 6..];
    xs[..xs.find(']').unwrap()].parse().unwrap()
}

/// The page's chart puts the SLO's star at the answer the text gives and the knee's at the
/// knee, draws the point past the maximum at its offered load (not on the 100 % point), and
/// `volbench chart --x load_percent` draws the curve against its load.
fn chart_marks_sit_on_the_answers(v: &Value) {
    let d = tmpdir();
    let json = d.path().join("curve.json");
    std::fs::write(&json, v.to_string()).unwrap();
    let page = d.path().join("curve.html");
    ok_stdout(volbench().arg("report").arg(&json).arg("-o").arg(&page));
    let html = std::fs::read_to_string(&page).unwrap();
    let c = &v["curve"];
    let answer = f(&c["slo"][0], "/slo_iops");
    let x = star_x(&html, "SLO p99 met up to here");
    assert!((x - answer).abs() < 0.5, "star at {x}, answer {answer}");
    if !c["knee"].is_null() {
        let k = f(&c["knee"], "/achieved_iops");
        assert!((star_x(&html, "knee") - k).abs() < 0.5, "knee at {k}");
    }
    let over = f(point(v, 110), "/offered_iops");
    let at = format!("{}]", Value::from(over));
    assert!(html.contains(&at), "110 % at {over}");
    let svg = ok_stdout(
        volbench()
            .args(["chart", "--x", "load_percent", "--metric", "p99", "-o", "-"])
            .arg(&json),
    );
    assert!(svg.contains("110 %") && svg.contains("due p99"), "{svg}");
}

/// The curve against a model of the same cap, and the purchase it answers: `cloud check`
/// sets only the maximum against the cap (the points are below it on purpose) and places the
/// SLO answer as a share of it; `cloud cheapest` asks each volume for the cap at which the
/// needed IOPS sit at that share.
fn cloud_answers(v: &Value, max: f64, slo_iops: f64) {
    let d = tmpdir();
    let file = d.path().join("curve.json");
    std::fs::write(&file, v.to_string()).unwrap();
    let file = file.to_str().unwrap();
    let check = ok_json(volbench().args([
        "cloud",
        "check",
        file,
        "--model",
        &format!("aws:io1:size=100:iops={CAP}"),
        "--output-format=json",
    ]));
    assert_eq!(check["rows"].as_array().unwrap().len(), 1, "{check}");
    assert!(
        check["rows"][0]["test"]
            .as_str()
            .unwrap()
            .starts_with("max QD"),
        "{check}"
    );
    assert_eq!(check["rows"][0]["verdict"], "as advertised", "{check}");
    let c = &check["curves"][0]["curve"];
    assert!((f(c, "/max_ratio") - max / CAP as f64).abs() < 1e-9, "{c}");
    let cheap = ok_json(volbench().args([
        "cloud",
        "cheapest",
        "--iops=1000",
        "--slo=p99=20ms",
        "--from-curve",
        file,
        "--provider=aws",
        "--output-format=json",
    ]));
    let need = f(&cheap, "/needed_iops");
    let share = (slo_iops / max).min(1.0);
    // In whole IOPS, rounded up (a cap is provisioned in whole IOPS).
    assert_eq!(need, (1000.0 / share).ceil(), "{need} for share {share}");
    for cand in cheap["candidates"].as_array().unwrap() {
        assert!(f(cand, "/model/iops") + 1e-6 >= need, "{cand}");
    }
    assert!(
        cheap["rests_on"]
            .as_str()
            .unwrap()
            .contains("p99 ≤ 20.00 ms held up to"),
        "{cheap}"
    );
}

/// A quick curve on the null engine (no device: the machinery only) in `dir`, with `extra`
/// options; requires success and returns stdout.
fn null_curve(dir: &std::path::Path, extra: &[&str]) -> String {
    let out = volbench()
        .current_dir(dir)
        .args([
            "curve",
            ".",
            "--ioengine=null",
            "--size=16m",
            "--runtime=300ms",
            "--points=2",
            "--max-depth=2",
        ])
        .args(extra)
        .output()
        .unwrap();
    succeeded(&out, "");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The text names the maximum, each point and the answer; bad SLOs and a rate of the user's
/// own are refused in one line before any I/O.
#[test]
fn curve_text_and_refusals() {
    let _one = alone();
    let d = tmpdir();
    let text = null_curve(d.path(), &["--slo=p99=1s"]);
    assert!(
        text.contains("maximum ") && text.contains("closed-loop at QD"),
        "{text}"
    );
    for load in ["50 %", "100 %", "110 %"] {
        assert!(text.contains(&format!("\n  {load}")), "{load} in {text}");
    }
    assert!(
        text.contains("SLO p99 ≤ 1.00 s: met at every point"),
        "{text}"
    );
    assert_eq!(
        std::fs::read_dir(d.path()).unwrap().count(),
        0,
        "the temp file is gone"
    );
    for (args, says) in [
        (&["--slo=99=5ms"][..], "--slo 99=5ms"),
        (&["--slo=p99=fast"][..], "--slo p99=fast"),
        // A bare number was read as seconds: "met at every point" for a 5 ms target.
        (&["--slo=p99=5"][..], "write 5ms or 5us"),
        (&["--rate_iops=100"][..], "leave out --rate and --rate_iops"),
        (&["--points=0"][..], "--points must be 1 to 100"),
    ] {
        let out = volbench()
            .current_dir(d.path())
            .args(["curve", ".", "--ioengine=null"])
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

/// A stored curve is a curve: listed, filtered and titled as one (it was kind "suite",
/// "volbench suite curve", and `history --kind curve` was refused).
#[test]
fn a_curve_is_stored_and_listed_as_a_curve() {
    let _one = alone();
    let d = tmpdir();
    let store = d.path().join("s.db");
    let vb = || {
        let mut c = volbench();
        c.env("VOLBENCH_STORE", &store).current_dir(d.path());
        c
    };
    let out = vb()
        .args([
            "curve",
            ".",
            "--ioengine=null",
            "--size=16m",
            "--runtime=300ms",
        ])
        .args(["--points=2", "--max-depth=2", "-q"])
        .output()
        .unwrap();
    succeeded(&out, "");
    let rows = vb()
        .args(["history", "--kind=curve", "--output-format=json"])
        .output()
        .unwrap();
    succeeded(&rows, "");
    let rows: Value = serde_json::from_slice(&rows.stdout).unwrap();
    assert_eq!(rows.as_array().map(Vec::len), Some(1), "{rows}");
    assert_eq!(rows[0]["kind"], "curve", "{rows}");
    let page = vb()
        .args(["export", "last", "--output-format=html"])
        .output()
        .unwrap();
    let html = String::from_utf8_lossy(&page.stdout);
    assert!(
        html.contains("<title>volbench curve"),
        "{}",
        &html[..html.len().min(400)]
    );
}

/// Two curves (the null engine: no device, the machinery only) stored as JSON: the report
/// page puts both on one latency-against-IOPS chart first, compare leads with their answers
/// and due-time latency, and CSV takes them.
#[test]
fn two_curves_on_one_chart() {
    let _one = alone();
    let d = tmpdir();
    let mut files = Vec::new();
    for (name, rate) in [("a", "1"), ("b", "2")] {
        let bs = format!("--bs={rate}k");
        let json = null_curve(
            d.path(),
            &["--slo=p99=1s", "--output-format=json", "-q", &bs],
        );
        let f = d.path().join(format!("{name}.json"));
        std::fs::write(&f, json).unwrap();
        files.push(f.to_str().unwrap().to_string());
    }
    let page = d.path().join("cmp.html");
    let out = volbench()
        .args([
            "report",
            &files[0],
            &files[1],
            "--output",
            page.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    succeeded(&out, "");
    let html = std::fs::read_to_string(&page).unwrap();
    let first = html.find("<section id=").unwrap();
    assert!(
        html[first..].starts_with("<section id=\"curve-compare\""),
        "the curves come first"
    );
    // Lines with their own x (achieved IOPS): the side-by-side chart's two p99s, two p50s, the
    // SLO's rule and mark; then each input's own chart of five lines, rule and mark, and its
    // knee's star where it has one.
    let knees = files
        .iter()
        .filter(|f| {
            let v: Value = serde_json::from_str(&std::fs::read_to_string(f).unwrap()).unwrap();
            !v["curve"]["knee"].is_null()
        })
        .count();
    assert_eq!(html.matches("\"xs\":[").count(), 6 + 2 * 7 + knees);
    // compare leads with what the curves answer (the maximum, the knee, each SLO), then each
    // point's latency from the due time before the latency from issue.
    let cmp = ok_stdout(volbench().args(["compare", &files[0], &files[1]]));
    let at = |s: &str| cmp.find(s).unwrap_or_else(|| panic!("no {s} in {cmp}"));
    assert!(at("maximum IOPS") < at("read due p99"), "{cmp}");
    assert!(at("SLO p99") < at("read due p99"), "{cmp}");
    let line = |s: &str| {
        let l = cmp
            .lines()
            .position(|l| l.contains("load_percent=50") && l.contains(s));
        l.unwrap_or_else(|| panic!("no 50 % {s} in {cmp}"))
    };
    assert!(line("read due p99") < line("read lat p99"), "{cmp}");
    let csv = null_curve(d.path(), &["--output-format=csv", "-q", "--no-store"]);
    assert!(
        csv.starts_with("load_percent,offered_iops,achieved_iops"),
        "{csv}"
    );
    assert_eq!(
        csv.lines().filter(|l| l.starts_with("110,")).count(),
        1,
        "{csv}"
    );
}

/// A curve interrupted after its first points prices nothing unless told: `cloud cheapest
/// --from-curve` refuses it in one line naming where it stopped; with --partial-curve it
/// prices it, marked PARTIAL; `cloud check` marks its lines PARTIAL.
#[test]
fn a_partial_curve_is_refused_or_marked_wherever_its_answers_are_used() {
    let _one = alone();
    let d = tmpdir();
    let out = d.path().join("c.json");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_volbench"))
        .current_dir(d.path())
        .args([
            "curve",
            ".",
            "--ioengine=null",
            "--size=16m",
            "--runtime=1s",
        ])
        .args([
            "--max-depth=2",
            "--points=20",
            "--slo=p99=1s",
            "-q",
            "--no-store",
        ])
        .args(["--output-format=json", "--output"])
        .arg(&out)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Two 1 s search steps, then 1 s points: at 7 s about five of twenty are done, and even
    // a machine three times slower has measured one.
    std::thread::sleep(std::time::Duration::from_secs(7));
    interrupt(&child);
    let mut child = child;
    assert_eq!(child.wait().unwrap().code(), Some(130));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["status"], "interrupted", "{}", v["status"]);
    let n = v["curve"]["points"].as_array().map_or(0, |p| p.len());
    assert!((1..20).contains(&n), "{n} points");
    let f = out.to_str().unwrap();
    let cheapest = |extra: &[&str]| {
        volbench()
            .args([
                "cloud",
                "cheapest",
                "--iops=1000",
                "--slo=p99=1s",
                "--from-curve",
                f,
            ])
            .args(extra)
            .output()
            .unwrap()
    };
    let o = cheapest(&[]);
    let err = fails_saying(&o, 2, "the curve is interrupted, its last point at");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("--partial-curve"), "{err}");
    let o = cheapest(&["--partial-curve"]);
    succeeded(&o, "");
    assert!(String::from_utf8_lossy(&o.stdout).contains("from PARTIAL"));
    let check = ok_stdout(volbench().args(["cloud", "check", "--model", "aws:gp3", f]));
    assert!(
        check.contains("PARTIAL: the curve is interrupted"),
        "{check}"
    );
}

/// Four busy loops beside the test (twice the cores), ended when it is dropped.
struct Hog(Vec<std::process::Child>);

impl Hog {
    fn start() -> Hog {
        let spin = || {
            std::process::Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .spawn()
                .unwrap()
        };
        Hog((0..4).map(|_| spin()).collect())
    }
}

impl Drop for Hog {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Each point's share, its due-time p99, and whether the SLO answer left it out.
fn p99s(v: &Value) -> Vec<(u64, u64, bool)> {
    let left: Vec<u64> = v["curve"]["slo"][0]["left_out_percent"]
        .as_array()
        .map_or(Vec::new(), |a| a.iter().filter_map(Value::as_u64).collect());
    v["curve"]["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let s = u(p, "/share_percent");
            (s, u(p, "/lat_due/p99_ns"), left.contains(&s))
        })
        .collect()
}

/// A busy host cannot decide a purchase (issue 53): the same curve beside four busy loops
/// answers the SLO within 10 % of its answer alone, or leaves out (and names) the points
/// volbench itself issued late; and no point it kept is on the other side of the limit from
/// the same point alone, where that one was clearly on its side (half or twice the limit).
/// Under such a load volbench's own lateness put a 40 % point's p99 at 1.8 ms where it was
/// tens of microseconds, and the answer fell with it.
#[test]
fn a_busy_host_cannot_move_the_slo_answer() {
    let _one = alone();
    require_root!();
    let z = Zram::new("64M");
    fill_random(&z.path, 64 << 20);
    let Some(cap) = Throttle::new(z.p(), CAP, 1 << 30) else {
        cannot_run!("no cgroup I/O throttle here (v2 io.max or v1 blkio)");
    };
    const LIMIT: u64 = 2_000_000;
    let slo = format!("--slo=p99={}ms", LIMIT / 1_000_000);
    // A looser second target: no answer of the tighter may exceed it (honest_answers).
    let pressure = CpuPressure::now();
    let sleeper = Sleeper::start();
    let calm = curve(&cap, z.p(), &[&slo, "--slo=p99=20ms"]);
    let contended = pressure.share_since();
    let host_late = sleeper.p99();
    eprintln!("alone: CPU pressure {contended:?}, a sleeper's p99 {host_late} ns late");
    honest_answers(&calm);
    let busy = {
        let _hog = Hog::start();
        curve(&cap, z.p(), &[&slo, "--slo=p99=20ms"])
    };
    let answer = |v: &Value| v["curve"]["slo"][0]["slo_iops"].as_f64().unwrap_or(0.0);
    let (a, b) = (answer(&calm), answer(&busy));
    // No false alarm: alone, an idle host's own lateness stays under the bar (docs/curve.md:
    // 20-90 us on this VM against 250 us), so nothing is marked or left out, unless the
    // kernel saw tasks waiting for a CPU for a twentieth of the run, or a sleeping thread of
    // the test's own woke late past the bar at its p99 (a stalled hypervisor: a CI run saw
    // 4 ms at p99 with 0.8 % CPU pressure). Then the host was not idle, and the marks are
    // its truth; the comparison below needs a clean run alone.
    let calm_said = &calm["curve"]["slo"][0];
    let clean = calm["curve"]["points"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["host_late"] == false)
        && calm_said.get("left_out_percent").is_none();
    let stalled = contended.is_some_and(|c| c >= 0.05) || host_late >= 250_000;
    assert!(
        clean || stalled,
        "alone (CPU pressure {contended:?} of the run, a sleeper's p99 {host_late} ns late), \
         a point was called late: {}",
        calm["curve"]
    );
    if !clean {
        honest_answers(&busy);
        eprintln!(
            "the host was busy before the loops began (CPU pressure {contended:?}, a sleeper's \
             p99 {host_late} ns late): only honesty checked"
        );
        return;
    }
    let said = &busy["curve"]["slo"][0];
    let marks = |v: &Value| -> Vec<(u64, bool, u64)> {
        v["curve"]["points"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    u(p, "/share_percent"),
                    p["host_late"] == true,
                    u(p, "/issue_late/p99_ns"),
                )
            })
            .collect()
    };
    eprintln!(
        "alone {a:.0} IOPS {:?}\nbusy {b:.0} IOPS {:?}\n{}",
        marks(&calm),
        marks(&busy),
        said["message"]
    );
    // Beside the busy loops the answer is honest by construction: a number no higher than
    // the first point it broke or left out and than a looser target's, or "cannot judge".
    honest_answers(&busy);
    let left_out = said["left_out_percent"]
        .as_array()
        .is_some_and(|l| !l.is_empty());
    assert!(
        (b - a).abs() <= 0.1 * a || left_out || said.get("host_late_ns").is_some(),
        "alone {a} IOPS, beside a busy host {b} IOPS, nothing left out: {said}"
    );
    // The points an answer rests on (those below the first left out) are on the same side
    // of the limit as alone, where alone they were clearly on a side.
    let first_out = said["left_out_percent"]
        .as_array()
        .and_then(|l| l.first()?.as_u64())
        .unwrap_or(u64::MAX);
    for ((share, quiet, _), (_, loud, out)) in p99s(&calm).into_iter().zip(p99s(&busy)) {
        if share >= first_out {
            break;
        }
        let clear = quiet <= LIMIT / 2 || quiet >= 2 * LIMIT;
        let flipped = (quiet <= LIMIT) != (loud <= LIMIT);
        assert!(
            out || !clear || !flipped,
            "{share} %: p99 {quiet} ns alone, {loud} ns beside a busy host, and kept: {}",
            busy["curve"]
        );
    }
}
