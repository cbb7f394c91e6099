//! HTML reports and SVG charts: self-contained pages whose charts carry the report's numbers,
//! pages that open in a real browser (headless Chromium) with every chart drawn, and the
//! structure of the page as a snapshot.

mod common;
use common::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command as Std;

/// A small two-pattern numjobs sweep on the null engine: deterministic shape, quick to run.
const SWEEP: &[&str] = &[
    "sweep",
    "--ioengine=null",
    "--rw=randread,randwrite",
    "--numjobs=1,2,4",
    "--runtime=1s",
];

/// Runs volbench with a JSON report to `file`; returns the report.
fn json_report(dir: &Path, file: &str, args: &[&str]) -> (PathBuf, Value) {
    let out = dir.join(file);
    let r = volbench()
        .current_dir(dir)
        .args(args)
        .args(["--output-format=volbench-json", "-q", "--no-store"])
        .arg(format!("--output={}", out.display()))
        .output()
        .unwrap();
    succeeded(&r, "");
    let v = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    (out, v)
}

fn report_page(dir: &Path, inputs: &[&Path]) -> String {
    let page = dir.join("page.html");
    let r = volbench()
        .arg("report")
        .args(inputs)
        .arg(format!("--output={}", page.display()))
        .output()
        .unwrap();
    succeeded(&r, "");
    std::fs::read_to_string(page).unwrap()
}

/// The chart specifications the page carries.
fn charts(html: &str) -> Vec<Value> {
    let start = html
        .find("<script id=\"volbench-data\" type=\"application/json\">")
        .unwrap();
    let rest = &html[start..];
    let body = &rest[rest.find('>').unwrap() + 1..rest.find("</script>").unwrap()];
    let v: Value = serde_json::from_str(body).unwrap();
    v["charts"].as_array().unwrap().clone()
}

fn chart<'a>(charts: &'a [Value], title_start: &str) -> &'a Value {
    charts
        .iter()
        .find(|c| c["title"].as_str().unwrap().starts_with(title_start))
        .unwrap_or_else(|| panic!("no chart '{title_start}'"))
}

/// No network reference of any kind: nothing loaded from http(s) by src, href or url().
fn assert_self_contained(html: &str) {
    let lower = html.to_ascii_lowercase();
    for pat in [
        "src=\"http",
        "src='http",
        "href=\"http",
        "href='http",
        "url(http",
        "url(\"http",
        "url('http",
        "@import",
    ] {
        assert!(!lower.contains(pat), "network reference {pat}");
    }
    assert!(
        !lower.contains("sourcemappingurl"),
        "no source map to fetch"
    );
}

#[test]
fn run_page_is_self_contained_and_its_charts_hold_the_reports_numbers() {
    let d = tmpdir();
    let (json, v) = json_report(
        d.path(),
        "run.json",
        &["run", "--ioengine=null", "--runtime=3s", "--rw=randrw"],
    );
    let html = report_page(d.path(), &[&json]);
    assert_self_contained(&html);
    assert!(html.len() < 2 << 20, "light: {} bytes", html.len());
    let cs = charts(&html);
    let pct = chart(&cs, "Latency percentiles");
    for (k, dir) in ["read", "write"].iter().enumerate() {
        let want: Vec<u64> = v["group"][dir]["lat_ns"]["percentiles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["ns"].as_u64().unwrap().max(1))
            .collect();
        let got: Vec<u64> = pct["datasets"][k]["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap() as u64)
            .collect();
        assert_eq!(got, want, "{dir} percentiles");
    }
    let series = chart(&cs, "Per second");
    let iops: f64 = series["datasets"][0]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .sum();
    assert!(iops > 0.0);
    let hist = chart(&cs, "Latency histogram");
    let share: f64 = hist["datasets"][0]["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .sum();
    assert!(
        (share - 100.0).abs() < 0.01,
        "the buckets hold every I/O: {share}"
    );
    // The summary table is on the page itself, formatted as the text output formats it.
    let text = volbench().args(["show"]).arg(&json).output();
    drop(text);
    assert!(html.contains("<th>IOPS</th>") && html.contains("<td>read</td>"));
}

#[test]
fn sweep_page_draws_a_line_per_pattern_through_every_point() {
    let d = tmpdir();
    let (json, v) = json_report(d.path(), "sweep.json", SWEEP);
    let html = report_page(d.path(), &[&json]);
    assert_self_contained(&html);
    let cs = charts(&html);
    let c = chart(&cs, "IOPS against numjobs");
    assert_eq!(
        c["labels"],
        serde_json::json!(["1", "2", "4"]),
        "labelled at every point"
    );
    for (k, rw) in ["randread", "randwrite"].iter().enumerate() {
        let ds = &c["datasets"][k];
        assert_eq!(ds["label"], format!("rw={rw}"));
        let want: Vec<f64> = v["runs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["params"][0][1] == *rw)
            .map(|r| {
                r["report"]["group"]["read"]
                    .get("iops")
                    .or(r["report"]["group"]["write"].get("iops"))
                    .unwrap()
                    .as_f64()
                    .unwrap()
            })
            .collect();
        let got: Vec<f64> = ds["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert_eq!(got, want, "{rw}: the sweep's points are the chart's data");
    }
    for t in ["Bandwidth against numjobs", "p99 latency against numjobs"] {
        chart(&cs, t);
    }
}

#[test]
fn block_size_sweep_shows_iops_and_bandwidth_on_two_axes() {
    let d = tmpdir();
    let (json, _) = json_report(
        d.path(),
        "bs.json",
        &["sweep", "--ioengine=null", "--bs=4k..64k", "--runtime=1s"],
    );
    let cs = charts(&report_page(d.path(), &[&json]));
    let c = chart(&cs, "IOPS and bandwidth against block size");
    let axes: Vec<&str> = c["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["axis"].as_str().unwrap())
        .collect();
    assert_eq!(axes, ["y", "y2"]);
    assert_eq!(
        c["labels"],
        serde_json::json!(["4k", "8k", "16k", "32k", "64k"])
    );
}

#[test]
fn comparison_page_has_a_bar_chart_per_metric_with_every_input() {
    let d = tmpdir();
    let (a, _) = json_report(
        d.path(),
        "a.json",
        &["run", "--ioengine=null", "--runtime=1s"],
    );
    let (b, _) = json_report(
        d.path(),
        "b.json",
        &["run", "--ioengine=null", "--runtime=1s", "--iodepth=1"],
    );
    let html = report_page(d.path(), &[&a, &b]);
    assert_self_contained(&html);
    let cs = charts(&html);
    let bars: Vec<&Value> = cs
        .iter()
        .filter(|c| c["kind"] == "bar" && c["title"].as_str().unwrap().ends_with("by input"))
        .collect();
    assert!(!bars.is_empty());
    for c in bars {
        assert_eq!(c["datasets"].as_array().unwrap().len(), 2);
    }
    let out = volbench()
        .args(["compare"])
        .arg(&a)
        .arg(&b)
        .arg("--output-format=html")
        .output()
        .unwrap();
    succeeded(&out, "");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("<!DOCTYPE html>"));
}

/// The page's structure (headings, table heads, chart slots) for a deterministic run: numbers
/// and the inlined scripts are left out, so the snapshot holds what a person sees laid out.
#[test]
fn run_page_structure_snapshot() {
    let d = tmpdir();
    let (json, _) = json_report(
        d.path(),
        "s.json",
        &["run", "--ioengine=null", "--runtime=2s", "--rw=randread"],
    );
    let html = report_page(d.path(), &[&json]);
    let body = &html[html.find("<body>").unwrap()..html.find("<script id=").unwrap()];
    let structure: Vec<String> = body
        .lines()
        .map(str::trim)
        .filter(|l| {
            l.starts_with("<h")
                || l.starts_with("<thead")
                || l.starts_with("<div class=\"chart\"")
                || l.starts_with("<section")
                || l.starts_with("<dt>")
                || l.starts_with("<ul")
        })
        .map(|l| {
            let l = l.replace(&json.display().to_string(), "FILE");
            l.split("<dd>").next().unwrap().to_string()
        })
        .map(|l| {
            l.chars()
                .map(|c| if c.is_ascii_digit() { 'N' } else { c })
                .collect()
        })
        .filter(|l: &String| !l.starts_with("<p"))
        .collect();
    let masked: Vec<String> = structure
        .into_iter()
        .map(|l| {
            if l.starts_with("<p class=\"subtitle\"") {
                "SUBTITLE".into()
            } else {
                l
            }
        })
        .collect();
    insta::assert_snapshot!("run_page", masked.join("\n"));
}

/// The page as headless Chromium leaves it once its script ran, with the browser's log.
fn dump_dom(browser: &str, profile: &Path, page: &Path) -> std::process::Output {
    Std::new(browser)
        .args(BROWSER_FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--enable-logging=stderr")
        .arg("--v=0")
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap()
}

/// The y-axis labels of every chart as Chromium drew them, in page order.
fn drawn_y_ticks(dom: &str) -> Vec<Vec<String>> {
    dom.split("data-y-ticks=\"")
        .skip(1)
        .map(|t| {
            let raw = t.split('"').next().unwrap().replace("&quot;", "\"");
            serde_json::from_str(&raw).unwrap()
        })
        .collect()
}

/// Bandwidth labels all in one unit, at equal steps of 1, 2, 2.5 or 5 times a power of ten
/// of that unit (not 190.7 MiB/s, 381.5; not 204.8 GiB/s, 409.6 on a TiB axis).
fn round_steps_in_one_unit(title: &str, labels: &[String]) {
    let units: Vec<&str> = labels.iter().filter_map(|l| l.split(' ').nth(1)).collect();
    assert!(
        units.windows(2).all(|w| w[0] == w[1]),
        "{title}: units differ in {labels:?}"
    );
    let v: Vec<f64> = labels
        .iter()
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .collect();
    let step = v[1] - v[0];
    for w in v.windows(2) {
        assert!(
            ((w[1] - w[0]) / step - 1.0).abs() < 1e-6,
            "{title}: uneven steps {labels:?}"
        );
    }
    let m = step / 10f64.powf(step.log10().floor());
    assert!(
        [1.0, 2.0, 2.5, 5.0, 10.0]
            .iter()
            .any(|r| (m - r).abs() < 1e-6),
        "{title}: step {step} is not round in {labels:?}"
    );
}

/// Drawn in Chromium, a bandwidth axis steps in round figures of one binary unit (not
/// 190.7 MiB/s, 381.5 at decimal steps of bytes), and an IOPS axis under 1 IOPS labels its
/// ticks with their digits (0.20, 0.40, not "0 0 0 1").
#[test]
fn drawn_axes_step_in_round_binary_units_and_keep_digits_below_one() {
    let Some(browser) = chromium() else {
        cannot_run!("needs chromium (apt-get install chromium)");
    };
    let d = tmpdir();
    let (bs, _) = json_report(
        d.path(),
        "bs.json",
        &[
            "sweep",
            "--ioengine=null",
            "--bs=4k,64k,1m",
            "--runtime=300ms",
        ],
    );
    let slow_args = ["sweep", "--ioengine=null", "--rate_iops=1", "--numjobs=1,2"];
    let (slow, _) = json_report(
        d.path(),
        "slow.json",
        &[&slow_args[..], &["--runtime=2s"]].concat(),
    );
    for (name, input) in [("bs", &bs), ("slow", &slow)] {
        let page = d.path().join(format!("{name}.html"));
        std::fs::write(&page, report_page(d.path(), &[input.as_path()])).unwrap();
        let dom = dump_dom(browser, &d.path().join(format!("p-{name}")), &page);
        let dom = String::from_utf8_lossy(&dom.stdout);
        let ticks = drawn_y_ticks(&dom);
        let specs = charts(&std::fs::read_to_string(&page).unwrap());
        assert_eq!(ticks.len(), specs.len(), "{name}: {dom}");
        for (spec, labels) in specs.iter().zip(&ticks) {
            let title = spec["title"].as_str().unwrap();
            // A linear axis labels every tick; a log axis may leave some blank.
            if spec["y_log"] != true {
                assert!(!labels.iter().any(|l| l.is_empty()), "{title}: {labels:?}");
            }
            let shown: Vec<&String> = labels.iter().filter(|l| !l.is_empty()).collect();
            let mut unique = shown.clone();
            unique.dedup();
            assert_eq!(
                unique.len(),
                shown.len(),
                "{title}: repeated labels {labels:?}"
            );
            if title.starts_with("Bandwidth") {
                round_steps_in_one_unit(title, labels);
            }
        }
    }
}

/// Every page opens in headless Chromium with no script error: the page's script marks how
/// many charts it drew, and that must be every chart the page carries. A screenshot of each
/// is kept under target/tmp/html-screenshots for a person to look at.
#[test]
fn pages_open_in_chromium_and_draw_every_chart() {
    let Some(browser) = chromium() else {
        cannot_run!("needs chromium (apt-get install chromium)");
    };
    let d = tmpdir();
    let (run, _) = json_report(
        d.path(),
        "run.json",
        &["run", "--ioengine=null", "--runtime=2s", "--rw=randrw"],
    );
    let (sweep, _) = json_report(d.path(), "sweep.json", SWEEP);
    let fsync_dir = tmpdir();
    let (fsync, _) = json_report(
        d.path(),
        "fsync.json",
        &[
            "fsync",
            fsync_dir.path().to_str().unwrap(),
            "--methods",
            "none,fsync,fdatasync",
            "--bs",
            "4k,16k",
            "--threads",
            "1",
            "--runtime",
            "200ms",
            "--size",
            "4m",
            "--no-penalty",
        ],
    );
    let (infer, _) = json_report(d.path(), "infer.json", &["infer", sweep.to_str().unwrap()]);
    // A repeated run (its spread table, each run as dots, the latency over time) and curves
    // (latency against achieved IOPS on a linear axis, two of them side by side).
    let (repeat, _) = json_report(
        d.path(),
        "repeat.json",
        &[
            "run",
            "--ioengine=null",
            "--runtime=1s",
            "--rw=randread",
            "--repeat=3",
        ],
    );
    let curve_args = |bs: &'static str| {
        [
            "curve",
            ".",
            "--ioengine=null",
            "--size=16m",
            "--runtime=300ms",
            "--points=2",
            "--max-depth=2",
            "--slo=p99=1s",
            bs,
        ]
    };
    let (curve, _) = json_report(d.path(), "curve.json", &curve_args("--bs=4k"));
    let (curve2, _) = json_report(d.path(), "curve2.json", &curve_args("--bs=8k"));
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("html-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    for (name, inputs) in [
        ("run", vec![run.as_path()]),
        ("sweep", vec![sweep.as_path()]),
        ("compare", vec![run.as_path(), sweep.as_path()]),
        ("fsync", vec![fsync.as_path()]),
        ("infer", vec![infer.as_path()]),
        ("repeat", vec![repeat.as_path()]),
        ("curve", vec![curve.as_path()]),
        ("curves", vec![curve.as_path(), curve2.as_path()]),
    ] {
        let html = report_page(d.path(), &inputs);
        let page = d.path().join(format!("{name}.html"));
        std::fs::write(&page, &html).unwrap();
        let want = charts(&html).len();
        let profile = d.path().join(format!("profile-{name}"));
        let dom = dump_dom(browser, &profile, &page);
        let dom_text = String::from_utf8_lossy(&dom.stdout);
        let log = String::from_utf8_lossy(&dom.stderr);
        assert!(
            dom_text.contains(&format!("data-charts-drawn=\"{want}\"")),
            "{name}: not all {want} charts drawn; console: {}",
            log.lines()
                .filter(|l| l.contains("CONSOLE") || l.contains("Uncaught"))
                .collect::<Vec<_>>()
                .join("\n")
        );
        assert!(!log.contains("Uncaught"), "{name}: {log}");
        let shot = shots.join(format!("{name}.png"));
        let st = Std::new(browser)
            .args(BROWSER_FLAGS)
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg("--window-size=1200,2600")
            .arg(format!("--screenshot={}", shot.display()))
            .arg(format!("file://{}", page.display()))
            .output()
            .unwrap();
        assert!(st.status.success() && shot.exists(), "{name}: screenshot");
    }
}

#[test]
fn chart_command_writes_an_svg_of_the_swept_metric() {
    let d = tmpdir();
    let (json, _) = json_report(d.path(), "sweep.json", SWEEP);
    let svg = d.path().join("c.svg");
    let out = volbench()
        .arg("chart")
        .arg(&json)
        .args(["--metric=iops", "--x=numjobs"])
        .arg(format!("--output={}", svg.display()))
        .output()
        .unwrap();
    succeeded(&out, "");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"), "{}", &text[..40.min(text.len())]);
    // The SVG's text elements, as a reader sees them.
    let words: Vec<&str> = text
        .split("<text")
        .skip(1)
        .filter_map(|t| t.split_once('>').map(|(_, rest)| rest))
        .filter_map(|t| t.split("</text>").next())
        .map(str::trim)
        .collect();
    for want in [
        "IOPS against numjobs",
        "rw=randread",
        "rw=randwrite",
        "1",
        "2",
        "4",
        "numjobs",
    ] {
        assert!(words.contains(&want), "{want} missing in {words:?}");
    }
    assert_self_contained(&text);
    let out = volbench()
        .arg("chart")
        .arg(&json)
        .args(["--x=time"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("swept over rw, numjobs"));
}

/// A run the analysis flagged as a burst shows the two regimes on its per-second chart.
#[test]
fn burst_is_marked_on_the_per_second_chart() {
    let d = tmpdir();
    let (json, mut v) = json_report(
        d.path(),
        "b.json",
        &["run", "--ioengine=null", "--runtime=7s"],
    );
    // The null engine never bursts (volbench does not flag it): mark this report as a real
    // run's would be, to see how the page draws it.
    v["warnings"] = serde_json::json!([{"code": "burst_suspected", "message": "throughput fell"}]);
    std::fs::write(&json, serde_json::to_vec(&v).unwrap()).unwrap();
    let cs = charts(&report_page(d.path(), &[&json]));
    let c = chart(&cs, "Per second");
    let labels: Vec<&str> = c["datasets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["label"].as_str().unwrap())
        .collect();
    assert!(
        labels.contains(&"burst: mean IOPS, first third"),
        "{labels:?}"
    );
    assert!(
        labels.contains(&"after: mean IOPS, last third"),
        "{labels:?}"
    );
}

/// A suite whose tests form a series (the `scaling` suite's numjobs per pattern) is charted
/// against it; one of unrelated tests (`quick`) draws no false curve through them.
#[test]
fn suites_are_charted_against_a_parameter_only_where_they_form_a_series() {
    let d = tmpdir();
    let suite = d.path().join("series.fio");
    let mut text = String::from("[global]\nioengine=null\nruntime=1\ntime_based\nsize=64m\n");
    for rw in ["randread", "randwrite"] {
        for nj in [1, 2, 4] {
            text.push_str(&format!("[{rw}-{nj}]\nrw={rw}\nnumjobs={nj}\n"));
        }
    }
    std::fs::write(&suite, text).unwrap();
    let (json, _) = json_report(d.path(), "s.json", &["suite", suite.to_str().unwrap(), "."]);
    let cs = charts(&report_page(d.path(), &[&json]));
    let c = chart(&cs, "IOPS against numjobs");
    assert_eq!(c["labels"], serde_json::json!(["1", "2", "4"]));
    let (json, _) = json_report(
        d.path(),
        "q.json",
        &["quick", ".", "--runtime=1s", "--ioengine=null"],
    );
    let cs = charts(&report_page(d.path(), &[&json]));
    assert!(
        cs.iter()
            .all(|c| !c["title"].as_str().unwrap().contains("against")),
        "quick's tests are no series"
    );
}

/// A sweep whose points ran --repeat times carries each line's 95 % interval on its IOPS and
/// bandwidth charts (the chart's error bars), from the points' own spread.
#[test]
fn a_repeated_sweep_charts_each_points_interval() {
    let d = tmpdir();
    let (sweep, v) = json_report(
        d.path(),
        "rsweep.json",
        &[
            "sweep",
            "--ioengine=null",
            "--rw=randread",
            "--numjobs=1,2",
            "--runtime=300ms",
            "--repeat=3",
        ],
    );
    let html = report_page(d.path(), &[sweep.as_path()]);
    let all = charts(&html);
    let iops = chart(&all, "IOPS against");
    let sets = iops["datasets"].as_array().unwrap();
    let bound = |end: &str| {
        sets.iter()
            .find(|s| {
                s["label"]
                    .as_str()
                    .unwrap()
                    .ends_with(&format!("95 % CI {end}"))
            })
            .unwrap_or_else(|| panic!("no {end} bound in {sets:?}"))
    };
    for (i, run) in v["runs"].as_array().unwrap().iter().enumerate() {
        let ci = &run["report"]["repeats"]["stats"]["iops"]["ci95"];
        assert_eq!(bound("low")["data"][i], ci[0], "point {i}");
        assert_eq!(bound("high")["data"][i], ci[1], "point {i}");
    }
}
