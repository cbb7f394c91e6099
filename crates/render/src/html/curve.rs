//! A latency-under-load curve as an HTML section: the point table, the SLO answers, and the
//! chart of due-time latency percentiles against achieved IOPS (clat p99 beside them, each
//! SLO's limit as a horizontal rule and its answer marked on the last point within it).

use super::{Chart, Dataset, Page, Section, Table};
use report::curve::{CurvePoint, CurveReport};

pub(super) fn section(p: &mut Page, c: &CurveReport) {
    let mut sec = Section::new("curve", "Latency under load", 2);
    sec.text = Some(crate::curve::max_line(c));
    sec.tables.push(table(c));
    sec.findings = crate::curve::findings(c);
    sec.findings
        .extend(c.slo.iter().map(|a| format!("SLO {}", a.message)));
    if !c.points.is_empty() {
        p.add_chart(&mut sec, chart(c));
    }
    p.sections.push(sec);
}

fn table(c: &CurveReport) -> Table {
    // The text table's own cells, so the page and the terminal never disagree.
    let rows: Vec<Vec<String>> = c
        .points
        .iter()
        .map(|p| {
            let mut r = crate::curve::cells(p);
            // "10 %" on one line in a narrow column.
            r[0] = r[0].replace(' ', "\u{a0}");
            r
        })
        .collect();
    Table {
        caption: None,
        head: crate::curve::HEAD.iter().map(|s| s.to_string()).collect(),
        rows,
    }
}

/// Each point's achieved IOPS: the x of every line, so the spacing is the load's. A point
/// past the maximum achieves the maximum too: it is drawn at its offered load, or it would
/// sit on the 100 % point.
fn xs(c: &CurveReport) -> Vec<f64> {
    c.points
        .iter()
        .map(|p| match p.share_percent > 100 {
            true => p.offered_iops,
            false => p.achieved_iops,
        })
        .collect()
}

/// One star at (`x`, `y`): a mark where the text puts an answer.
fn star(label: &str, x: f64, y: f64) -> Dataset {
    let mut m = Dataset::new(label, vec![Some(y.max(1.0))], "ns");
    m.mark = true;
    m.xs = Some(vec![x]);
    m
}

fn line(label: &str, c: &CurveReport, f: &dyn Fn(&CurvePoint) -> u64) -> Dataset {
    let mut d = Dataset::new(
        label,
        c.points.iter().map(|p| Some(f(p).max(1) as f64)).collect(),
        "ns",
    );
    d.xs = Some(xs(c));
    d
}

/// Each SLO's limit as a horizontal rule across `c`'s points, and its answer as a star where
/// the text puts it: at the answer's IOPS (interpolated between two points, or on one) on
/// the limit.
fn slo_lines(c: &CurveReport, prefix: &str) -> Vec<Dataset> {
    let mut out = Vec::new();
    for a in &c.slo {
        let mut rule = Dataset::new(
            &format!("{prefix}SLO p{} limit", a.percentile),
            vec![Some(a.limit_ns as f64); c.points.len()],
            "ns",
        );
        rule.xs = Some(xs(c));
        out.push(rule);
        if let Some(v) = a.slo_iops {
            out.push(star(
                &format!("{prefix}SLO p{} met up to here", a.percentile),
                v,
                a.limit_ns as f64,
            ));
        }
    }
    out
}

fn chart_of(title: &str, datasets: Vec<Dataset>) -> Chart {
    Chart {
        id: String::new(),
        kind: "line",
        title: title.into(),
        x_title: "achieved IOPS (past 100 %: offered)".into(),
        y_title: "latency (log scale)".into(),
        y2_title: None,
        y_log: true,
        y_from_zero: false,
        labels: Vec::new(),
        datasets,
    }
}

fn chart(c: &CurveReport) -> Chart {
    let mut datasets = vec![
        line("due p50", c, &|p| p.lat_due.p50_ns),
        line("due p90", c, &|p| p.lat_due.p90_ns),
        line("due p99", c, &|p| p.lat_due.p99_ns),
        line("due p99.9", c, &|p| p.lat_due.p99_9_ns),
        line("clat p99 (fio's, wait left out)", c, &|p| p.clat.p99_ns),
    ];
    datasets.extend(slo_lines(c, ""));
    if let Some(k) = c.knee {
        datasets.push(star("knee", k.achieved_iops, k.lat_due_p99_ns as f64));
    }
    chart_of("Latency from the due time against achieved IOPS", datasets)
}

/// Several inputs' curves on one chart: each one's due-time p99 and p50 against its achieved
/// IOPS, with the first one's SLOs: the choice between volumes at a glance.
pub(super) fn compare_section(p: &mut Page, curves: &[(&str, &CurveReport)]) {
    let mut sec = Section::new("curve-compare", "Latency under load, side by side", 2);
    sec.findings = curves
        .iter()
        .flat_map(|(name, c)| {
            c.slo
                .iter()
                .map(move |a| format!("{name}: SLO {}", a.message))
        })
        .collect();
    let mut datasets = Vec::new();
    for (name, c) in curves {
        datasets.push(line(&format!("{name} due p99"), c, &|p| p.lat_due.p99_ns));
        datasets.push(line(&format!("{name} due p50"), c, &|p| p.lat_due.p50_ns));
    }
    if let Some((name, c)) = curves.first() {
        datasets.extend(slo_lines(c, &format!("{name} ")));
    }
    p.add_chart(
        &mut sec,
        chart_of("Latency from the due time against achieved IOPS", datasets),
    );
    // First on the page: the decision, before the long table of every figure.
    p.sections.insert(0, sec);
}
