//! Each renderer's output for one fixed document (the stored run of `report`'s fixture): the
//! figures each format promises, parsed back where the format is data, and a job name a
//! stranger chose reaching the HTML page only escaped and CSV only quoted.

use crate::{render, Format};
use report::Document;

const RUN: &str = include_str!("../../report/tests/data/run.json");
const HOSTILE: &str = "<script>alert(\"x\")</script>,a";

fn run() -> Document {
    report::read::from_json(RUN).unwrap()
}

/// The fixture with its job named by a stranger.
fn hostile() -> Document {
    let mut d = run();
    if let Document::Run(r) = &mut d {
        r.workload.jobs[0].name = HOSTILE.into();
        r.jobs[0].name = HOSTILE.into();
    }
    d
}

fn as_text(d: &Document, f: Format) -> String {
    String::from_utf8(render(d, f).unwrap()).unwrap()
}

/// The fixture's IOPS (read, its one direction), as the report holds it.
fn iops(d: &Document) -> f64 {
    match d {
        Document::Run(r) => r.group.total_iops(),
        _ => unreachable!("the fixture is a run"),
    }
}

#[test]
fn the_summary_says_the_iops_in_readable_units() {
    let d = run();
    let text = as_text(&d, Format::Normal);
    let shown = figures::fmt_count(iops(&d));
    assert!(shown.ends_with('M'), "{shown}");
    assert!(text.contains(&shown), "{shown} not in:\n{text}");
    assert!(text.contains("volbench"), "{text}");
}

#[test]
fn volbench_json_reads_back_as_the_same_document() {
    let d = run();
    let json = as_text(&d, Format::Json);
    let back = report::read::from_json(&json).unwrap();
    assert_eq!(as_text(&back, Format::Json), json);
    assert_eq!(iops(&back), iops(&d));
}

#[test]
fn fio_json_has_fios_shape_and_the_same_figures() {
    let d = run();
    let v: serde_json::Value = serde_json::from_str(&as_text(&d, Format::FioJson)).unwrap();
    assert!(v["fio version"]
        .as_str()
        .is_some_and(|s| s.starts_with("fio-")));
    let job = &v["jobs"][0];
    assert_eq!(job["jobname"], "volbench");
    let got = job["read"]["iops"].as_f64().unwrap();
    assert!((got - iops(&d)).abs() / iops(&d) < 1e-9, "{got}");
    assert!(job["read"]["clat_ns"]["bins"].is_null());
    let plus: serde_json::Value = serde_json::from_str(&as_text(&d, Format::FioJsonPlus)).unwrap();
    let bins = &plus["jobs"][0]["read"]["clat_ns"]["bins"];
    assert!(bins.as_object().is_some_and(|b| !b.is_empty()), "{bins}");
}

#[test]
fn markdown_and_csv_are_tables_of_even_rows() {
    let d = run();
    let md = as_text(&d, Format::Markdown);
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with('|')).collect();
    assert!(rows.len() >= 3, "{md}");
    let cells = |l: &str| l.matches('|').count();
    assert!(rows.iter().all(|l| cells(l) == cells(rows[0])), "{md}");
    let csv = as_text(&d, Format::Csv);
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines.len() >= 2, "{csv}");
    let fields = |l: &str| l.split(',').count();
    assert!(lines.iter().all(|l| fields(l) == fields(lines[0])), "{csv}");
}

#[test]
fn a_job_name_a_stranger_chose_is_escaped_in_html_and_quoted_in_csv() {
    let d = hostile();
    let html = as_text(&d, Format::Html);
    assert!(
        html.contains("<html") || html.contains("<!DOCTYPE"),
        "not a page"
    );
    assert!(
        !html.contains("<script>alert"),
        "the name reached the page raw"
    );
    let csv = as_text(&d, Format::Csv);
    assert!(
        !csv.contains(HOSTILE),
        "the name's comma would split its field"
    );
    assert!(
        csv.contains("\"<script>alert(\"\"x\"\")</script>,a\""),
        "{csv}"
    );
}

#[test]
fn the_svg_chart_of_a_run_is_an_svg_and_a_wrong_axis_is_refused() {
    let d = run();
    let svg = crate::svg::chart(&d, crate::svg::Metric::Iops, None).unwrap();
    assert!(
        svg.trim_start().starts_with("<svg"),
        "{}",
        &svg[..80.min(svg.len())]
    );
    assert!(crate::svg::chart(&d, crate::svg::Metric::Iops, Some("bs")).is_err());
}
