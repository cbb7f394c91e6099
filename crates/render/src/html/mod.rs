//! The HTML exporter: one self-contained page (styles, Chart.js, data and glue inline; no
//! network reference of any kind) for a run, a suite, a sweep or a comparison.
//!
//! The page is built as a model ([`Page`]: sections with tables and chart specifications),
//! rendered by a minijinja template; the charts are drawn in the browser by Chart.js from the
//! specifications, which the page carries as JSON. Tables are rendered on the server side, so
//! the numbers read without JavaScript too.

mod curve;
mod pts;

use crate::table::{self, TableRow};
use crate::Exporter;
use figures::{fmt_count, fmt_ns};
use report::compare::Comparison;
use report::{DirReport, JobReport, RunReport, SuiteReport};
use serde::Serialize;
use stats::LatHist;
use workload::format_bytes;

const TEMPLATE: &str = include_str!("../../templates/page.html");
const CHART_JS: &str = include_str!("../../assets/chart.umd.js");
const GLUE_JS: &str = include_str!("../../assets/volbench.js");

/// Every script a report page carries, as it stands between its tags: a server showing the
/// pages allows these by hash and no other (the data block is JSON, not a script).
pub const SCRIPTS: [&str; 2] = [CHART_JS, GLUE_JS];

pub struct Html;

impl Exporter for Html {
    fn export_compare(&self, c: &Comparison) -> anyhow::Result<Vec<u8>> {
        comparison(c)
    }

    fn export(&self, r: &RunReport) -> anyhow::Result<Vec<u8>> {
        let mut p = Page::new(format!("volbench run: {}", run_title(r)), run_subtitle(r));
        p.status = status(r.status);
        run_sections(&mut p, r, "run", 2);
        p.render()
    }

    fn export_suite(&self, s: &SuiteReport) -> anyhow::Result<Vec<u8>> {
        let kind = match s.suite.as_str() {
            k @ ("sweep" | "curve") => k,
            _ => "suite",
        };
        let subtitle = match (&s.pts, s.runs.first()) {
            (Some(p), _) => format!("{} ({})", p.target, format_bytes(p.capacity as f64)),
            (None, Some(r)) if s.targets().len() > 1 => format!(
                "{} · {} · {}",
                report::targets_phrase(&s.targets(), true),
                r.report.environment.hostname,
                r.report.started_at
            ),
            (None, Some(r)) => run_subtitle(&r.report),
            (None, None) => String::new(),
        };
        let title = if kind != "suite" {
            format!("volbench {kind}")
        } else {
            format!("volbench suite {}", s.suite)
        };
        let mut p = Page::new(title, format!("{subtitle} · started {}", s.started_at));
        p.status = status(s.status);
        suite_sections(&mut p, s);
        p.render()
    }

    fn export_db(&self, d: &report::DbReport) -> anyhow::Result<Vec<u8>> {
        let mut p = Page::new(
            format!(
                "volbench db: {}",
                d.runs
                    .iter()
                    .map(|r| r.target.as_str())
                    .collect::<Vec<_>>()
                    .join(" vs ")
            ),
            format!("{} · started {}", crate::db::header(d), d.started_at),
        );
        p.status = status(d.status);
        db_sections(&mut p, d, "db");
        p.render()
    }

    fn export_durability(&self, d: &report::DurabilityReport) -> anyhow::Result<Vec<u8>> {
        let mut p = Page::new(
            format!("volbench durability cycle: {}", d.file),
            format!(
                "{} · started {}",
                crate::durability::header(d),
                d.started_at
            ),
        );
        p.status = status(d.status);
        durability_sections(&mut p, d, "durability");
        p.render()
    }

    fn export_infer(&self, r: &report::InferReport) -> anyhow::Result<Vec<u8>> {
        let mut p = Page::new(
            format!("volbench infer: {}", r.target),
            format!("{} points · started {}", r.points.len(), r.started_at),
        );
        p.status = status(r.status);
        infer_sections(&mut p, r, "infer");
        p.render()
    }

    fn export_fsync(&self, f: &report::FsyncReport) -> anyhow::Result<Vec<u8>> {
        let targets: Vec<&str> = f.verdicts.iter().map(|v| v.target.as_str()).collect();
        let mut p = Page::new(
            format!("volbench fsync: {}", targets.join(", ")),
            format!("{} cases · started {}", f.cases.len(), f.started_at),
        );
        p.status = status(f.status);
        fsync_sections(&mut p, f, "fsync");
        p.render()
    }
}

/// An infer report: the limits, the evidence, the closest products and the burst phase's
/// per-second rate.
/// The loop's verdict first, then the tested target with its flush cost, the cycles, and the
/// acknowledged and lost records of each cycle as bars.
fn durability_sections(p: &mut Page, d: &report::DurabilityReport, id: &str) {
    let mut top = Section::new(&format!("{id}-verdict"), "Verdict", 2);
    top.text = Some(format!("{}: {}", d.verdict.to_uppercase(), d.summary));
    top.warnings = d.warnings.iter().map(|w| w.message.clone()).collect();
    top.warnings.extend(d.error.clone());
    p.sections.push(top);
    // The facts as the page's key-value list: long sentences wrap there, not in a grid.
    let f = crate::durability::facts_table(d);
    let mut facts = Section::new(&format!("{id}-target"), &f.caption, 2);
    facts.env = f
        .rows
        .into_iter()
        .map(|r| (r[0].clone(), r[1].clone()))
        .collect();
    p.sections.push(facts);
    let t = crate::durability::cycles_table(d);
    let mut sec = Section::new(&format!("{id}-cycles"), &t.caption, 2);
    sec.tables.push(Table {
        caption: None,
        head: t.head,
        rows: t.rows,
    });
    if !d.cycles.is_empty() {
        durability_chart(p, &mut sec, d);
    }
    p.sections.push(sec);
}

fn durability_chart(p: &mut Page, sec: &mut Section, d: &report::DurabilityReport) {
    let judged = |c: &report::Cycle, v: u64| c.judged().then_some(v as f64);
    p.add_chart(
        sec,
        Chart {
            id: String::new(),
            kind: "bar",
            title: "Records checked and lost per power cut".into(),
            x_title: "cycle".into(),
            y_title: "records".into(),
            y2_title: None,
            y_log: false,
            y_from_zero: true,
            labels: d.cycles.iter().map(|c| c.index.to_string()).collect(),
            datasets: vec![
                Dataset::new(
                    "checked",
                    d.cycles.iter().map(|c| judged(c, c.checked)).collect(),
                    "count",
                ),
                Dataset::new(
                    "LOST",
                    d.cycles.iter().map(|c| judged(c, c.lost)).collect(),
                    "count",
                ),
            ],
        },
    );
}

fn infer_sections(p: &mut Page, r: &report::InferReport, id: &str) {
    let mut sec = Section::new(&format!("{id}-limits"), "Limits", 2);
    let mut t = crate::infer::limits_table(r);
    sec.text = Some(std::mem::take(&mut t.caption));
    sec.findings = r.evidence.clone();
    sec.warnings = r.warnings.iter().map(|w| w.message.clone()).collect();
    for t in [t, crate::infer::closest_table(r)] {
        if !t.rows.is_empty() {
            sec.tables.push(Table {
                caption: (!t.caption.is_empty()).then_some(t.caption),
                head: t.head,
                rows: t.rows,
            });
        }
    }
    // A series of one or two seconds says nothing about a burst.
    if r.burst_series.len() >= 3 {
        let data = r.burst_series.iter().map(|v| Some(*v)).collect();
        p.add_chart(
            &mut sec,
            Chart {
                id: String::new(),
                kind: "line",
                title: "Burst phase: IOPS per second".into(),
                x_title: "second".into(),
                y_title: "IOPS".into(),
                y2_title: None,
                y_log: false,
                y_from_zero: true,
                labels: (1..=r.burst_series.len()).map(|i| i.to_string()).collect(),
                datasets: vec![Dataset::new("IOPS", data, "count")],
            },
        );
    }
    p.sections.push(sec);
}

/// A db report: the side-by-side table, the explanation per target, and the tps of each
/// second per target.
fn db_sections(p: &mut Page, d: &report::DbReport, id: &str) {
    let t = crate::db::table(d);
    let mut sec = Section::new(&format!("{id}-db"), &t.caption, 2);
    sec.text = Some(crate::db::header(d));
    sec.findings = d
        .runs
        .iter()
        .map(|r| format!("{}: {}", r.target, r.explanation.summary))
        .collect();
    sec.warnings = d.warnings.iter().map(|w| w.message.clone()).collect();
    sec.tables.push(Table {
        caption: None,
        head: t.head,
        rows: t.rows,
    });
    let n = d
        .runs
        .iter()
        .map(|r| r.tps_per_sec.len())
        .max()
        .unwrap_or(0);
    if n > 0 {
        let datasets = d
            .runs
            .iter()
            .map(|r| {
                Dataset::new(
                    &r.target,
                    r.tps_per_sec.iter().map(|v| Some(*v)).collect(),
                    "count",
                )
            })
            .collect();
        p.add_chart(
            &mut sec,
            Chart {
                id: String::new(),
                kind: "line",
                title: "Transactions per second".into(),
                x_title: "second".into(),
                y_title: "tps".into(),
                y2_title: None,
                y_log: false,
                y_from_zero: true,
                labels: (1..=n).map(|i| i.to_string()).collect(),
                datasets,
            },
        );
    }
    p.sections.push(sec);
}

/// An fsync report: the verdicts first, then the tables, and a chart of durable writes per
/// second by method at one thread (the QD1 cost a database's commit pays).
fn fsync_sections(p: &mut Page, f: &report::FsyncReport, id: &str) {
    let mut top = Section::new(&format!("{id}-verdict"), "Flush honesty", 2);
    top.text =
        Some("Evidence, not proof: `volbench durability` proves loss with a power cut.".into());
    for v in &f.verdicts {
        top.findings.push(format!("{}: {}", v.target, v.summary));
        top.findings
            .extend(v.evidence.iter().map(|e| format!("{}: {e}", v.target)));
    }
    top.warnings = f.warnings.iter().map(|w| w.message.clone()).collect();
    p.sections.push(top);
    for (i, t) in crate::fsync::tables(f).into_iter().enumerate() {
        let mut sec = Section::new(&format!("{id}-t{i}"), &t.caption, 2);
        if i == 1 {
            fsync_chart(p, &mut sec, f);
        }
        sec.tables.push(Table {
            caption: None,
            head: t.head,
            rows: t.rows,
        });
        p.sections.push(sec);
    }
}

fn fsync_chart(p: &mut Page, sec: &mut Section, f: &report::FsyncReport) {
    let one: Vec<&report::FsyncCase> = f
        .cases
        .iter()
        .filter(|c| c.threads == 1 && c.syncs > 0)
        .collect();
    let mut labels: Vec<String> = Vec::new();
    for c in &one {
        let l = format!("{} {}", c.method, workload::short_size(c.bs));
        if !labels.contains(&l) {
            labels.push(l);
        }
    }
    if labels.is_empty() {
        return;
    }
    let mut targets: Vec<&str> = one.iter().map(|c| c.target.as_str()).collect();
    targets.dedup();
    let datasets = targets
        .iter()
        .map(|t| {
            let data = labels
                .iter()
                .map(|l| {
                    one.iter()
                        .find(|c| {
                            c.target == *t
                                && format!("{} {}", c.method, workload::short_size(c.bs)) == *l
                        })
                        .map(|c| c.syncs_per_sec)
                })
                .collect();
            Dataset::new(t, data, "count")
        })
        .collect();
    p.add_chart(
        sec,
        Chart {
            id: String::new(),
            kind: "bar",
            title: "Durable writes per second, one thread".into(),
            x_title: "method and block size".into(),
            y_title: "syncs/s".into(),
            y2_title: None,
            y_log: true,
            y_from_zero: false,
            labels,
            datasets,
        },
    );
}

/// Under MPI: a row per host and per rank, and each rank's IOPS as a bar (the slowest rank is
/// often the story).
fn ranks_tables(
    p: &mut Page,
    sec: &mut Section,
    so: &report::ScaleOut,
    ranks: &[report::RankReport],
) {
    for t in [
        crate::scaleout::hosts_table(so),
        crate::scaleout::ranks_table(ranks),
    ] {
        sec.tables.push(Table {
            caption: Some(t.caption),
            head: t.head,
            rows: t.rows,
        });
    }
    sec.findings
        .extend(crate::scaleout::spread_line(so, ranks.len()));
    let data = ranks.iter().map(|k| Some(k.total_iops())).collect();
    p.add_chart(
        sec,
        Chart {
            id: String::new(),
            kind: "bar",
            title: "IOPS per rank".into(),
            x_title: "rank".into(),
            y_title: "IOPS".into(),
            y2_title: None,
            y_log: false,
            y_from_zero: true,
            labels: ranks
                .iter()
                .map(|k| format!("{} ({})", k.rank, k.host))
                .collect(),
            datasets: vec![Dataset::new("IOPS", data, "count")],
        },
    );
}

/// The page `volbench report` writes: one document as its own page; several compared side by
/// side, then each in turn.
pub fn report(docs: &[(String, report::Document)]) -> anyhow::Result<Vec<u8>> {
    if let [(_, d)] = docs {
        return crate::render(d, crate::Format::Html);
    }
    let c = report::compare::compare(docs);
    let mut p = comparison_page(&c);
    let curves: Vec<(&str, &report::curve::CurveReport)> = docs
        .iter()
        .filter_map(|(n, d)| match d {
            report::Document::Suite(s) => s.curve.as_deref().map(|c| (n.as_str(), c)),
            _ => None,
        })
        .collect();
    if curves.len() >= 2 {
        curve::compare_section(&mut p, &curves);
    }
    for (i, (name, d)) in docs.iter().enumerate() {
        let mut head = Section::new(
            &format!("input-{}", i + 1),
            &format!("{name} ({})", d.kind()),
            2,
        );
        head.text = d.first_run().map(run_subtitle);
        p.sections.push(head);
        match d {
            report::Document::Run(r) => run_sections(&mut p, r, &format!("input-{}-run", i + 1), 3),
            report::Document::Suite(s) => {
                let mut sec = Section::new(&format!("input-{}-summary", i + 1), "Summary", 3);
                sec.tables.push(suite_table(&table::suite_rows(s)));
                sec.findings = s.findings.iter().map(|f| f.message.clone()).collect();
                if s.curve.is_none() {
                    sweep_charts(&mut p, &mut sec, s);
                }
                p.sections.push(sec);
                if let Some(c) = &s.curve {
                    curve::section(&mut p, c);
                }
            }
            report::Document::Fsync(f) => fsync_sections(&mut p, f, &format!("input-{}", i + 1)),
            report::Document::Db(d) => db_sections(&mut p, d, &format!("input-{}", i + 1)),
            report::Document::Infer(r) => infer_sections(&mut p, r, &format!("input-{}", i + 1)),
            report::Document::Durability(d) => {
                durability_sections(&mut p, d, &format!("input-{}", i + 1))
            }
            report::Document::Compare(c) => p.sections.extend(comparison_page(c).sections),
        }
    }
    p.render()
}

/// A comparison as a page: the table with ratios, and a grouped bar chart per metric.
pub fn comparison(c: &Comparison) -> anyhow::Result<Vec<u8>> {
    comparison_page(c).render()
}

/// One metric of a comparison: a bar per input for each item.
fn metric_chart(c: &Comparison, metric: &str, unit: &str, id: String) -> Chart {
    let rows: Vec<_> = c.rows.iter().filter(|r| r.metric == metric).collect();
    let bars = |(i, name): (usize, &String)| {
        let values = rows.iter().map(|r| r.values[i]).collect();
        Dataset::new(name, values, fmt_of(unit))
    };
    Chart {
        id,
        kind: "bar",
        title: format!("{metric} by input"),
        x_title: "item".into(),
        y_title: unit_title(unit).into(),
        y2_title: None,
        y_log: false,
        y_from_zero: true,
        labels: rows.iter().map(|r| r.item.clone()).collect(),
        datasets: c.inputs.iter().enumerate().map(bars).collect(),
    }
}

fn comparison_page(c: &Comparison) -> Page {
    let mut p = Page::new(
        format!("volbench compare: {}", c.inputs.join(" vs ")),
        format!("ratios to the first input, {}", c.inputs[0]),
    );
    let mut sec = Section::new("compare", "Side by side", 2);
    let mut head = vec!["item".to_string(), "metric".to_string()];
    head.extend(c.inputs.iter().cloned());
    let rows = c
        .rows
        .iter()
        .map(|r| {
            let mut row = vec![r.item.clone(), r.metric.clone()];
            row.extend(crate::compare::cells(r));
            row
        })
        .collect();
    sec.tables.push(Table {
        caption: None,
        head,
        rows,
    });
    sec.text = crate::compare::legend(c).map(|l| l.trim().to_string());
    let mut metrics: Vec<(&str, &str)> = Vec::new();
    for r in &c.rows {
        if !metrics.iter().any(|(m, _)| *m == r.metric) {
            metrics.push((&r.metric, &r.unit));
        }
    }
    for (metric, unit) in metrics {
        let chart = metric_chart(c, metric, unit, p.next_id());
        sec.charts.push(chart.id.clone());
        p.charts.push(chart);
    }
    sec.findings = c
        .differences
        .iter()
        .map(|d| format!("{} differs: {}", d.what, d.values.join(" | ")))
        .collect();
    p.sections.push(sec);
    p
}

#[derive(Serialize)]
struct Page {
    title: String,
    subtitle: String,
    status: Option<&'static str>,
    generator: String,
    sections: Vec<Section>,
    #[serde(skip)]
    charts: Vec<Chart>,
}

#[derive(Serialize)]
struct Section {
    id: String,
    title: String,
    level: u8,
    text: Option<String>,
    tables: Vec<Table>,
    /// Ids of the charts drawn in this section (their specifications are in `Page::charts`).
    charts: Vec<String>,
    findings: Vec<String>,
    warnings: Vec<String>,
    env: Vec<(String, String)>,
}

#[derive(Serialize)]
struct Table {
    caption: Option<String>,
    head: Vec<String>,
    rows: Vec<Vec<String>>,
}

/// One chart as the page's script draws it (see assets/volbench.js).
#[derive(Serialize)]
struct Chart {
    id: String,
    kind: &'static str,
    title: String,
    x_title: String,
    y_title: String,
    y2_title: Option<String>,
    y_log: bool,
    y_from_zero: bool,
    labels: Vec<String>,
    datasets: Vec<Dataset>,
}

#[derive(Serialize)]
struct Dataset {
    label: String,
    data: Vec<Option<f64>>,
    /// How values print: count, bytes_s, ns, pct.
    fmt: &'static str,
    axis: &'static str,
    /// A marker (knee, ceiling, crossover), drawn as a star without a line.
    mark: bool,
    /// Its own x values, on a linear x axis (curves of different volumes on one chart).
    #[serde(skip_serializing_if = "Option::is_none")]
    xs: Option<Vec<f64>>,
}

impl Dataset {
    fn new(label: &str, data: Vec<Option<f64>>, fmt: &'static str) -> Dataset {
        Dataset {
            label: label.to_string(),
            data,
            fmt,
            axis: "y",
            mark: false,
            xs: None,
        }
    }
}

impl Section {
    fn new(id: &str, title: &str, level: u8) -> Section {
        Section {
            id: id.to_string(),
            title: title.to_string(),
            level,
            text: None,
            tables: Vec::new(),
            charts: Vec::new(),
            findings: Vec::new(),
            warnings: Vec::new(),
            env: Vec::new(),
        }
    }
}

impl Page {
    fn new(title: String, subtitle: String) -> Page {
        Page {
            title,
            subtitle,
            status: None,
            generator: format!("volbench {}", env!("CARGO_PKG_VERSION")),
            sections: Vec::new(),
            charts: Vec::new(),
        }
    }

    fn next_id(&self) -> String {
        format!("chart-{}", self.charts.len() + 1)
    }

    fn add_chart(&mut self, sec: &mut Section, mut c: Chart) {
        c.id = self.next_id();
        sec.charts.push(c.id.clone());
        self.charts.push(c);
    }

    fn render(&self) -> anyhow::Result<Vec<u8>> {
        let mut env = minijinja::Environment::new();
        env.add_template("page.html", TEMPLATE)?;
        // `<` is escaped inside the JSON so no label can close the script element.
        let data = serde_json::json!({ "charts": self.charts })
            .to_string()
            .replace('<', "\\u003c");
        let html = env.get_template("page.html")?.render(minijinja::context! {
            page => self,
            data_json => minijinja::Value::from_safe_string(data),
            chart_js => minijinja::Value::from_safe_string(CHART_JS.to_string()),
            glue_js => minijinja::Value::from_safe_string(GLUE_JS.to_string()),
        })?;
        Ok(html.into_bytes())
    }
}

fn status(s: report::Status) -> Option<&'static str> {
    match s {
        report::Status::Complete => None,
        report::Status::Partial => Some("partial: stopped on an error"),
        report::Status::Interrupted => Some("interrupted: partial results"),
        report::Status::Running => Some("running or killed: partial results"),
    }
}

fn fmt_of(unit: &str) -> &'static str {
    match unit {
        "iops" => "count",
        "bytes_per_s" => "bytes_s",
        "ns" => "ns",
        _ => "plain",
    }
}

fn unit_title(unit: &str) -> &'static str {
    match unit {
        "iops" => "IOPS",
        "bytes_per_s" => "bandwidth (bytes/s)",
        "ns" => "latency",
        _ => "value",
    }
}

fn run_title(r: &RunReport) -> String {
    let jobs: Vec<String> = r.workload.jobs.iter().map(report::job_words).collect();
    jobs.join(" | ")
}

fn run_subtitle(r: &RunReport) -> String {
    let targets = &r.environment.targets;
    let mut s = report::targets_phrase(targets, true);
    if let [t] = targets.as_slice() {
        if let Some(d) = t.device.as_ref().filter(|d| !d.model.is_empty()) {
            s.push_str(&format!(" ({})", d.model));
        }
    }
    format!("{s} · {} · {}", r.environment.hostname, r.started_at)
}

/// The summary table of one job or group: a row per direction, and fsync.
fn dir_table(j: &JobReport) -> Table {
    let head = [
        "",
        "IOPS",
        "bandwidth",
        "lat mean",
        "p50",
        "p99",
        "p99.9",
        "max",
    ];
    let row = |name: &str, rate: String, bw: String, l: &stats::LatencySummary| {
        let mut r = vec![name.to_string(), rate, bw];
        r.extend(table::lat_cells(l));
        r
    };
    // A rate-capped direction leads with its latency from the due time, then from issue.
    let mut rows: Vec<Vec<String>> = Vec::new();
    for (n, d) in dirs(j) {
        let (rate, bw) = (fmt_count(d.iops), format!("{}/s", format_bytes(d.bw_bytes)));
        match &d.lat_due_ns {
            Some(due) => {
                rows.push(row(&format!("{n} (from due time)"), rate, bw, due));
                rows.push(row(
                    &format!("{n} (from issue)"),
                    "".into(),
                    "".into(),
                    &d.lat_ns,
                ));
            }
            None => rows.push(row(n, rate, bw, &d.lat_ns)),
        }
    }
    if let Some(s) = &j.sync {
        let rate = s.total_ios as f64 / (j.runtime_ns as f64 / 1e9).max(1e-9);
        rows.push(row("fsync", fmt_count(rate), "-".into(), &s.lat_ns));
    }
    Table {
        caption: None,
        head: head.iter().map(|s| s.to_string()).collect(),
        rows,
    }
}

fn dirs(j: &JobReport) -> Vec<(&'static str, &DirReport)> {
    let mut v = Vec::new();
    if let Some(d) = &j.read {
        v.push(("read", d));
    }
    if let Some(d) = &j.write {
        v.push(("write", d));
    }
    v
}

/// Sections for one run: summary, per-second series, latency percentiles and histogram,
/// warnings and environment.
fn run_sections(p: &mut Page, r: &RunReport, id: &str, level: u8) {
    let mut sec = Section::new(id, "Summary", level);
    for row in table::run_rows(r) {
        let mut t = dir_table(row.job);
        t.caption = (r.groups.len() > 1).then(|| row.label.clone());
        sec.tables.push(t);
    }
    if let Some(e) = &r.error {
        sec.text = Some(format!("error: {e}"));
    }
    if let Some(so) = &r.scaleout {
        ranks_tables(p, &mut sec, so, &r.ranks);
    }
    let j = &r.group;
    series_chart(p, &mut sec, r);
    let d = dirs(j);
    if !d.is_empty() {
        let labels: Vec<String> = stats::FIO_PERCENTILES
            .iter()
            .map(|x| format!("p{x}"))
            .collect();
        let c = Chart {
            id: String::new(),
            kind: "line",
            title: "Latency percentiles (total latency)".into(),
            x_title: "percentile".into(),
            y_title: "latency (log scale)".into(),
            y2_title: None,
            y_log: true,
            y_from_zero: false,
            labels,
            datasets: d
                .iter()
                .map(|(n, d)| {
                    let v = stats::FIO_PERCENTILES
                        .iter()
                        .map(|&x| d.lat_ns.percentile(x).map(|v| v.max(1) as f64))
                        .collect();
                    Dataset::new(n, v, "ns")
                })
                .collect(),
        };
        p.add_chart(&mut sec, c);
        histogram_chart(p, &mut sec, &d);
    }
    if let Some(rep) = &r.repeats {
        repeat_parts(p, &mut sec, rep);
    }
    sec.warnings = r.warnings.iter().map(|w| w.message.clone()).collect();
    sec.env = environment(r);
    p.sections.push(sec);
}

/// A repeated run: the spread of every figure as a table, and each figure's runs as dots
/// beside their mean and the 95 % interval's bounds (the interval as error bars).
fn repeat_parts(p: &mut Page, sec: &mut Section, rep: &report::repeats::Repeats) {
    let figs = crate::repeats::figures(&rep.stats);
    let v = crate::repeats::value;
    sec.tables.push(Table {
        caption: Some(format!(
            "{} runs: each figure above is their mean (95 % confidence interval of the mean, Student's t)",
            rep.n
        )),
        head: ["figure", "mean", "95 % CI", "cv", "min", "max"].map(String::from).to_vec(),
        rows: figs
            .iter()
            .map(|(name, unit, s)| {
                vec![
                    name.clone(),
                    v(unit, s.mean),
                    format!("{} – {}", v(unit, s.ci95[0]), v(unit, s.ci95[1])),
                    format!("{:.1} %", s.cv * 100.0),
                    v(unit, s.min),
                    v(unit, s.max),
                ]
            })
            .collect(),
    });
    for fig in ["IOPS", "bandwidth"] {
        p.add_chart(sec, runs_chart(rep, fig));
    }
}

/// Figure `name` (IOPS or bandwidth) of each run, drawn with their mean and its 95 % interval.
fn runs_chart(rep: &report::repeats::Repeats, name: &str) -> Chart {
    let (unit, s, get): (_, _, fn(&JobReport) -> f64) = match name {
        "IOPS" => ("count", &rep.stats.iops, |g| g.total_iops()),
        _ => ("bytes_s", &rep.stats.bw_bytes, |g| g.total_bw_bytes()),
    };
    let runs: Vec<Option<f64>> = rep.runs.iter().map(|r| Some(get(&r.group))).collect();
    let flat = |x: f64| vec![Some(x); rep.n];
    let mut dots = Dataset::new("each run", runs, unit);
    dots.mark = true;
    Chart {
        id: String::new(),
        kind: "line",
        title: format!("{name} of each run, their mean and its 95 % interval"),
        x_title: "run".into(),
        y_title: unit_title(if unit == "count" {
            "iops"
        } else {
            "bytes_per_s"
        })
        .into(),
        y2_title: None,
        y_log: false,
        y_from_zero: false,
        labels: (1..=rep.n).map(|i| format!("run {i}")).collect(),
        datasets: vec![
            dots,
            Dataset::new("mean", flat(s.mean), unit),
            Dataset::new("95 % CI low", flat(s.ci95[0]), unit),
            Dataset::new("95 % CI high", flat(s.ci95[1]), unit),
        ],
    }
}

/// IOPS per direction (left axis) and bandwidth (right axis) per second; when the run was
/// flagged as a burst, the means of its first and last thirds are drawn over it.
/// Each direction's IOPS and bandwidth per interval (bandwidth on the second axis).
fn rates(full: &[&stats::Sample]) -> Vec<Dataset> {
    let mut datasets = Vec::new();
    for (i, name) in [(0usize, "read"), (1, "write")] {
        if full.iter().all(|x| x.ios[i] == 0) {
            continue;
        }
        let rate = |v: u64, dt: u64| Some(v as f64 * 1000.0 / dt as f64);
        let iops = full.iter().map(|x| rate(x.ios[i], x.dt_ms)).collect();
        datasets.push(Dataset::new(&format!("{name} IOPS"), iops, "count"));
        let bytes = full.iter().map(|x| rate(x.bytes[i], x.dt_ms)).collect();
        let mut bw = Dataset::new(&format!("{name} bandwidth"), bytes, "bytes_s");
        bw.axis = "y2";
        datasets.push(bw);
    }
    datasets
}

/// A suspected burst's two means, each drawn over its third of the time, as `thirds` takes
/// them (a folded series' samples differ in length).
fn burst_lines(full: &[&stats::Sample], (first, last): (f64, f64)) -> [Dataset; 2] {
    let n = full.len();
    let (from, to) = (full[0].t_ms - full[0].dt_ms, full[n - 1].t_ms);
    let third = (to - from) / 3;
    let k0 = full.iter().filter(|x| x.t_ms <= from + third).count();
    let k1 = full
        .iter()
        .filter(|x| x.t_ms - x.dt_ms < to - third)
        .count();
    let line =
        |a: usize, b: usize, v: f64| (0..n).map(|i| (i >= a && i < b).then_some(v)).collect();
    [
        Dataset::new("burst: mean IOPS, first third", line(0, k0, first), "count"),
        Dataset::new("after: mean IOPS, last third", line(k1, n, last), "count"),
    ]
}

fn series_chart(p: &mut Page, sec: &mut Section, r: &RunReport) {
    let s = &r.group.series;
    // A closing remainder shorter than half an interval gives a noisy rate: left out, as the
    // text summary's spread leaves it out.
    let full: Vec<_> = s
        .samples
        .iter()
        .filter(|x| x.dt_ms * 2 >= s.interval_ms.max(1))
        .collect();
    if full.len() < 2 {
        return;
    }
    let labels: Vec<String> = full
        .iter()
        .map(|x| {
            let t = x.t_ms as f64 / 1000.0;
            if t.fract() < 0.05 {
                format!("{t:.0}")
            } else {
                format!("{t:.1}")
            }
        })
        .collect();
    let mut datasets = rates(&full);
    if r.warnings.iter().any(|w| w.code == "burst_suspected") {
        if let Some(thirds) = s.thirds() {
            datasets.extend(burst_lines(&full, thirds));
        }
    }
    // Folded: the last tier of one length is not the whole series.
    let folded = s.last_tier().len() < s.full().count();
    on_time(&mut datasets, &full, folded);
    let c = Chart {
        id: String::new(),
        kind: "line",
        title: "Per second: IOPS and bandwidth".into(),
        x_title: "time (s)".into(),
        y_title: "IOPS".into(),
        y2_title: Some("bandwidth".into()),
        y_log: false,
        y_from_zero: true,
        labels: labels.clone(),
        datasets,
    };
    p.add_chart(sec, c);
    latency_chart(p, sec, (&full, folded), labels);
}

/// A long run's folded samples (docs/live.md) differ in length: its charts then put each on a
/// linear time axis at its end, so the first hour's seconds do not take most of the width.
fn on_time(datasets: &mut [Dataset], full: &[&stats::Sample], folded: bool) {
    if !folded {
        return;
    }
    let xs: Vec<f64> = full.iter().map(|x| x.t_ms as f64 / 1e3).collect();
    for d in datasets {
        d.xs = Some(xs.clone());
    }
}

/// Latency over time: each interval's own p50, p99 and p99.9 per direction (log scale),
/// where a cliff shows first.
fn latency_chart(
    p: &mut Page,
    sec: &mut Section,
    (full, folded): (&[&stats::Sample], bool),
    labels: Vec<String>,
) {
    let mut datasets = Vec::new();
    for (d, name) in [(0usize, "read"), (1, "write")] {
        if full.iter().all(|x| x.lat_pct.dir(d).is_none()) {
            continue;
        }
        for (what, get) in [
            (
                "p50",
                (|q: &stats::interval::Pct| q.p50_ns) as fn(&stats::interval::Pct) -> u64,
            ),
            ("p99", |q| q.p99_ns),
            ("p99.9", |q| q.p999_ns),
        ] {
            let v = full
                .iter()
                .map(|x| x.lat_pct.dir(d).map(|q| get(q).max(1) as f64))
                .collect();
            datasets.push(Dataset::new(&format!("{name} {what}"), v, "ns"));
        }
    }
    if datasets.is_empty() {
        return;
    }
    on_time(&mut datasets, full, folded);
    let c = Chart {
        id: String::new(),
        kind: "line",
        title: "Latency over time: each interval's percentiles (total latency)".into(),
        x_title: "time (s)".into(),
        y_title: "latency (log scale)".into(),
        y2_title: None,
        y_log: true,
        y_from_zero: false,
        labels,
        datasets,
    };
    p.add_chart(sec, c);
}

/// How the I/Os' total latencies spread: the share of I/Os in each of about 30 log-spaced
/// buckets between the fastest and the slowest, from the full HDR histogram in the report.
/// The share of a histogram's I/Os in each of `n` buckets up to `edge(i)` (the first from
/// zero, the last to the slowest).
fn shares(h: &LatHist, n: usize, edge: &dyn Fn(usize) -> u64) -> Vec<Option<f64>> {
    let total = h.count().max(1) as f64;
    let below = |i: usize| match i {
        1 => 0,
        _ => h.count_at_or_below(edge(i - 1)),
    };
    let upto = |i: usize| match i == n {
        true => h.count(),
        false => h.count_at_or_below(edge(i)),
    };
    let share = |i| Some(100.0 * upto(i).saturating_sub(below(i)) as f64 / total);
    (1..=n).map(share).collect()
}

fn histogram_chart(p: &mut Page, sec: &mut Section, d: &[(&'static str, &DirReport)]) {
    let hists: Vec<(&str, LatHist)> = d
        .iter()
        .filter_map(|(n, d)| Some((*n, LatHist::decode(d.lat_ns.hdr.as_deref()?)?)))
        .collect();
    let lo = d
        .iter()
        .map(|(_, d)| d.lat_ns.min_ns)
        .min()
        .unwrap_or(0)
        .max(1);
    let hi = d
        .iter()
        .map(|(_, d)| d.lat_ns.max_ns)
        .max()
        .unwrap_or(0)
        .max(lo + 1);
    if hists.is_empty() {
        return;
    }
    let n = 30;
    let edge = |i: usize| (lo as f64 * (hi as f64 / lo as f64).powf(i as f64 / n as f64)) as u64;
    let labels = (1..=n)
        .map(|i| format!("≤ {}", fmt_ns(edge(i) as f64)))
        .collect();
    let datasets = hists
        .iter()
        .map(|(name, h)| Dataset::new(name, shares(h, n, &edge), "pct"))
        .collect();
    let c = Chart {
        id: String::new(),
        kind: "bar",
        title: "Latency histogram (share of I/Os per bucket)".into(),
        x_title: "total latency (log-spaced buckets)".into(),
        y_title: "share of I/Os".into(),
        y2_title: None,
        y_log: false,
        y_from_zero: true,
        labels,
        datasets,
    };
    p.add_chart(sec, c);
}

fn environment(r: &RunReport) -> Vec<(String, String)> {
    let e = &r.environment;
    let mut v = vec![
        ("host".into(), e.hostname.clone()),
        ("kernel".into(), e.kernel.clone()),
        ("cpu".into(), format!("{} ({} cpus)", e.cpu_model, e.cpus)),
        ("memory".into(), format_bytes(e.memory_bytes as f64)),
        ("command".into(), r.command_line.join(" ")),
    ];
    for t in &e.targets {
        let mut s = format!(
            "{} ({}, {})",
            t.path,
            t.kind,
            format_bytes(t.size_bytes as f64)
        );
        if let Some(f) = &t.filesystem {
            s.push_str(&format!(
                ", {} at {} ({})",
                f.fs_type, f.mount_point, f.mount_options
            ));
        }
        if let Some(d) = &t.device {
            s.push_str(&format!(
                ", device {} {} lbs={}{} cache={}",
                d.name,
                d.model,
                d.logical_block_size,
                report::sched_field(&d.scheduler),
                d.write_cache
            ));
        }
        v.push(("target".into(), s));
    }
    v.push(("data written".into(), report::run_data_words(r)));
    v
}

/// The summary table of a suite or sweep: one row per test.
fn suite_table(rows: &[TableRow]) -> Table {
    let head = [
        "test",
        "IOPS",
        "bandwidth",
        "lat mean",
        "p50",
        "p99",
        "p99.9",
        "status",
    ];
    let rows = rows
        .iter()
        .map(|r| {
            let (iops, bw) = (r.job.total_iops(), r.job.total_bw_bytes());
            let l = r
                .job
                .read
                .as_ref()
                .or(r.job.write.as_ref())
                .map(|d| &d.lat_ns);
            let p = |x| l.map_or("-".into(), |l| fmt_ns(l.percentile(x).unwrap_or(0) as f64));
            vec![
                r.label.clone(),
                fmt_count(iops),
                format!("{}/s", format_bytes(bw)),
                l.map_or("-".into(), |l| fmt_ns(l.mean_ns)),
                p(50.0),
                p(99.0),
                p(99.9),
                r.status.to_string(),
            ]
        })
        .collect();
    Table {
        caption: None,
        head: head.iter().map(|s| s.to_string()).collect(),
        rows,
    }
}

fn suite_sections(p: &mut Page, s: &SuiteReport) {
    if let Some(r) = &s.pts {
        pts::sections(p, r);
        return;
    }
    let mut top = Section::new("summary", "Summary", 2);
    top.tables.push(suite_table(&table::suite_rows(s)));
    top.findings = s.findings.iter().map(|f| f.message.clone()).collect();
    if s.curve.is_none() {
        sweep_charts(p, &mut top, s);
    }
    let mut seen: Vec<String> = Vec::new();
    for w in s.runs.iter().flat_map(|r| &r.report.warnings) {
        if !seen.contains(&w.message) {
            seen.push(w.message.clone());
        }
    }
    top.warnings = seen;
    if let Some(r) = s.runs.first() {
        top.env = environment(&r.report);
    }
    p.sections.push(top);
    if let Some(c) = &s.curve {
        curve::section(p, c);
    }
    for (i, run) in s.runs.iter().enumerate() {
        let mut head = Section::new(&format!("test-{}", i + 1), &run.label, 2);
        head.text = Some(run_title(&run.report));
        p.sections.push(head);
        let before = p.sections.len();
        run_sections(p, &run.report, &format!("test-{}-detail", i + 1), 3);
        // A test's own warnings and environment are in the summary already.
        if let Some(sec) = p.sections.get_mut(before) {
            sec.env.clear();
        }
    }
}

/// For points measured with --repeat, each line's 95 % interval as two thin lines (low and
/// high) beside it: the chart's error bars. None where no point was repeated.
fn interval_bounds(a: &table::Along, iops: bool, fmt: &'static str) -> Vec<Dataset> {
    let mut out = Vec::new();
    for ((name, _), runs) in a.lines.iter().zip(&a.runs) {
        let ci = |r: &&report::RunReport| {
            let st = &r.repeats.as_ref()?.stats;
            Some(if iops { st.iops.ci95 } else { st.bw_bytes.ci95 })
        };
        let cis: Vec<Option<[f64; 2]>> = runs.iter().map(|r| r.as_ref().and_then(ci)).collect();
        if cis.iter().all(Option::is_none) {
            continue;
        }
        for (k, end) in [(0, "low"), (1, "high")] {
            let vals = cis.iter().map(|c| c.map(|c| c[k])).collect();
            out.push(Dataset::new(&format!("{name} 95 % CI {end}"), vals, fmt));
        }
    }
    out
}

/// The axis to chart against: the innermost parameter along which some line has enough
/// points to be a curve (two in a sweep; three in a suite, whose tests carry their parameters
/// too, so that `quick`'s five unrelated tests draw no "curve" while `scaling`'s numjobs
/// series does).
fn swept_axis(s: &SuiteReport) -> Option<String> {
    let need = if s.suite == "sweep" { 2 } else { 3 };
    table::swept_keys(s).into_iter().rev().find(|k| {
        table::along(s, k)
            .lines
            .iter()
            .any(|(_, pts)| pts.iter().flatten().count() >= need)
    })
}

type Metric<'a> = &'a dyn Fn(&JobReport) -> Option<f64>;

/// One line per combination of the other swept values (e.g. per rw pattern), against the
/// swept axis, labelled at every point; the knee, ceilings and crossover as marked points.
fn sweep_charts(p: &mut Page, sec: &mut Section, s: &SuiteReport) {
    let Some(axis) = swept_axis(s) else { return };
    let a = table::along(s, &axis);
    let line = |name: &str, pts: &[Option<&JobReport>], f: Metric, fmt| {
        Dataset::new(name, pts.iter().map(|j| j.and_then(f)).collect(), fmt)
    };
    let p99 = |j: &JobReport| {
        let l = &j.read.as_ref().or(j.write.as_ref())?.lat_ns;
        l.percentile(99.0).map(|v| v.max(1) as f64)
    };
    let iops = |j: &JobReport| Some(j.total_iops());
    let bw = |j: &JobReport| Some(j.total_bw_bytes());
    let metrics: [(&str, &str, &'static str, Metric, bool); 3] = [
        ("IOPS", "IOPS", "count", &iops, false),
        ("Bandwidth", "bandwidth", "bytes_s", &bw, false),
        ("p99 latency", "p99 latency (log scale)", "ns", &p99, true),
    ];
    for (title, y, fmt, f, log) in metrics {
        let mut datasets: Vec<Dataset> = a
            .lines
            .iter()
            .map(|(n, pts)| line(n, pts, f, fmt))
            .collect();
        if title == "IOPS" {
            datasets.extend(marks(s, &axis, &a.xs));
        }
        if title != "p99 latency" {
            datasets.extend(interval_bounds(&a, title == "IOPS", fmt));
        }
        let c = Chart {
            id: String::new(),
            kind: "line",
            title: format!("{title} against {axis}"),
            x_title: axis_title(&axis),
            y_title: y.into(),
            y2_title: None,
            y_log: log,
            y_from_zero: !log,
            labels: a.xs.clone(),
            datasets,
        };
        p.add_chart(sec, c);
    }
    if axis == "bs" {
        p.add_chart(sec, crossing_chart(&a));
    }
}

/// The picture of a capped volume: IOPS falling and bandwidth rising with block size,
/// crossing where the bandwidth cap takes over from the IOPS cap.
fn crossing_chart(a: &table::Along) -> Chart {
    let line = |name: &str, pts: &[Option<&JobReport>], f: Metric, fmt| {
        Dataset::new(name, pts.iter().map(|j| j.and_then(f)).collect(), fmt)
    };
    let iops = |j: &JobReport| Some(j.total_iops());
    let bw = |j: &JobReport| Some(j.total_bw_bytes());
    let mut datasets = Vec::new();
    for (n, pts) in &a.lines {
        datasets.push(line(&format!("{n} IOPS"), pts, &iops, "count"));
        let mut b = line(&format!("{n} bandwidth"), pts, &bw, "bytes_s");
        b.axis = "y2";
        datasets.push(b);
    }
    Chart {
        id: String::new(),
        kind: "line",
        title: "IOPS and bandwidth against block size".into(),
        x_title: axis_title("bs"),
        y_title: "IOPS".into(),
        y2_title: Some("bandwidth".into()),
        y_log: false,
        y_from_zero: true,
        labels: a.xs.clone(),
        datasets,
    }
}

fn axis_title(axis: &str) -> String {
    match axis {
        "numjobs" => "jobs (numjobs)".into(),
        "iodepth" => "queue depth (iodepth)".into(),
        "bs" => "block size (bs)".into(),
        other => other.to_string(),
    }
}

/// The analysis's findings that name a point, as marker datasets at that point's IOPS.
fn marks(s: &SuiteReport, axis: &str, xs: &[String]) -> Vec<Dataset> {
    s.findings
        .iter()
        .filter_map(|f| {
            let label = f.point.as_deref()?;
            let run = s.runs.iter().find(|r| r.label == label)?;
            let x = run.param(axis)?;
            let v = run.report.group.total_iops();
            let data = xs.iter().map(|c| (c == x).then_some(v)).collect();
            let name = format!("{}: {label}", f.kind.replace('_', " "));
            let mut d = Dataset::new(&name, data, "count");
            d.mark = true;
            Some(d)
        })
        .collect()
}
