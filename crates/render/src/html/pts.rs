//! A SNIA PTS test as an HTML page's sections: what was done before the rounds, the
//! convergence chart (the tracked figure per round, the steady-state window with its mean,
//! the ±10 % band that the 20 % range limit allows, and the best-fit line whose excursion
//! must stay within 10 %), every block size of the tracked mix per round, and the
//! measurement window's table (R/W mix by block size) with its chart.

use super::{Chart, Dataset, Page, Section, Table};
use crate::pts::{setup_lines, show, verdict_line};
use report::pts::{Figure, PtsReport};
use workload::short_size;

/// The sections of one PTS test.
pub(super) fn sections(p: &mut Page, r: &PtsReport) {
    let mut top = Section::new("pts", "Setup and verdict", 2);
    top.findings = setup_lines(r);
    top.findings.push(verdict_line(r));
    p.sections.push(top);
    let mut conv = Section::new("pts-convergence", "Convergence", 2);
    convergence_chart(p, &mut conv, r);
    sizes_chart(p, &mut conv, r);
    p.sections.push(conv);
    if r.table.is_empty() {
        return;
    }
    let mut win = Section::new("pts-window", "Measurement window", 2);
    win.text = r.steady_state.as_ref().map(|s| {
        format!(
            "The mean of rounds {} to {} at each point ({}).",
            s.first_round,
            s.last_round,
            figure_name(r.plan.tracked_figure)
        )
    });
    win.tables.push(window_table(r));
    window_chart(p, &mut win, r);
    p.sections.push(win);
}

fn fmt_of(f: Figure) -> &'static str {
    match f {
        Figure::Iops => "count",
        Figure::BwBytes => "bytes_s",
        Figure::LatMeanNs => "ns",
    }
}

fn figure_name(f: Figure) -> &'static str {
    match f {
        Figure::Iops => "IOPS",
        Figure::BwBytes => "bandwidth",
        Figure::LatMeanNs => "mean latency",
    }
}

/// The figure's name as an axis title, saying when the scale is logarithmic.
fn y_title(f: Figure, log: bool) -> String {
    match log {
        true => format!("{} (log scale)", figure_name(f)),
        false => figure_name(f).into(),
    }
}

/// The tracked figure per round; over the window, its mean, 110 % and 90 % of it (the band
/// a range within 20 % of the mean fits in) and the best-fit line.
fn convergence_chart(p: &mut Page, sec: &mut Section, r: &PtsReport) {
    let tracked = r.tracked();
    if tracked.is_empty() {
        return;
    }
    let f = r.plan.tracked_figure;
    let fmt = fmt_of(f);
    let labels: Vec<String> = (1..=tracked.len()).map(|k| k.to_string()).collect();
    let (m, b) = r.plan.tracked;
    let name = format!("{m}/{} {}", 100 - m, short_size(b));
    let mut datasets = vec![Dataset::new(
        &name,
        tracked.iter().map(|&v| Some(v)).collect(),
        fmt,
    )];
    if let Some(s) = &r.steady_state {
        let first = s.first_round as usize - 1;
        let over = |g: &dyn Fn(usize) -> f64| -> Vec<Option<f64>> {
            (0..tracked.len())
                .map(|k| (k >= first && k < s.last_round as usize).then(|| g(k - first)))
                .collect()
        };
        let mean = s.rule.mean;
        let lines: [(&str, Vec<Option<f64>>); 4] = [
            ("window mean", over(&|_| mean)),
            ("110% of the mean", over(&|_| mean * 1.1)),
            ("90% of the mean", over(&|_| mean * 0.9)),
            (
                "best-fit line",
                over(&|i| s.rule.intercept + s.rule.slope * i as f64),
            ),
        ];
        datasets.extend(lines.into_iter().map(|(l, d)| Dataset::new(l, d, fmt)));
    }
    p.add_chart(
        sec,
        Chart {
            id: String::new(),
            kind: "line",
            title: format!("Steady-state convergence: {name} {}", figure_name(f)),
            x_title: "round".into(),
            y_title: figure_name(f).into(),
            y2_title: None,
            y_log: false,
            y_from_zero: true,
            labels,
            datasets,
        },
    );
}

/// Every block size of the tracked mix, round by round: the spec's convergence plot of all
/// the sizes, which shows whether the others settled with the tracked one.
fn sizes_chart(p: &mut Page, sec: &mut Section, r: &PtsReport) {
    let (mix, _) = r.plan.tracked;
    let f = r.plan.tracked_figure;
    if r.rounds.is_empty() || r.plan.sizes.len() < 2 {
        return;
    }
    // IOPS and latency span decades from 512 bytes to 1 MiB; bandwidth does not.
    let log = f != Figure::BwBytes;
    let datasets = r
        .plan
        .sizes
        .iter()
        .filter(|b| !r.skipped_sizes.contains(b))
        .map(|&b| {
            let data = r
                .rounds
                .iter()
                .map(|round| {
                    let pt = round
                        .points
                        .iter()
                        .find(|x| x.read_pct == mix && x.bs == b)?;
                    Some(pt.figure(f))
                })
                .collect();
            Dataset::new(&short_size(b), data, fmt_of(f))
        })
        .collect();
    p.add_chart(
        sec,
        Chart {
            id: String::new(),
            kind: "line",
            title: format!("Every block size at {mix}/{} per round", 100 - mix),
            x_title: "round".into(),
            y_title: y_title(f, log),
            y2_title: None,
            y_log: log,
            y_from_zero: !log,
            labels: (1..=r.rounds.len()).map(|k| k.to_string()).collect(),
            datasets,
        },
    );
}

/// The window's mean of each point: a row per R/W mix, a column per block size.
fn window_table(r: &PtsReport) -> Table {
    let f = r.plan.tracked_figure;
    let sizes = shown_sizes(r);
    let mut head = vec!["R/W".to_string()];
    head.extend(sizes.iter().map(|&b| short_size(b)));
    let rows = r
        .plan
        .mixes
        .iter()
        .map(|&m| {
            let mut row = vec![format!("{m}/{}", 100 - m)];
            row.extend(sizes.iter().map(|&b| {
                r.table
                    .iter()
                    .find(|c| c.read_pct == m && c.bs == b)
                    .map_or("-".into(), |c| show(f, c.figure(f)))
            }));
            row
        })
        .collect();
    Table {
        caption: Some(format!("{} by R/W mix and block size", figure_name(f))),
        head,
        rows,
    }
}

fn shown_sizes(r: &PtsReport) -> Vec<u64> {
    let sizes = r.plan.sizes.iter();
    sizes
        .filter(|b| !r.skipped_sizes.contains(b))
        .copied()
        .collect()
}

/// The table as a chart: a line per R/W mix against block size (bars where there are only
/// two sizes); IOPS and latency span decades across block sizes, so on a log scale.
fn window_chart(p: &mut Page, sec: &mut Section, r: &PtsReport) {
    let f = r.plan.tracked_figure;
    let sizes = shown_sizes(r);
    let datasets = r
        .plan
        .mixes
        .iter()
        .map(|&m| {
            let data = sizes
                .iter()
                .map(|&b| {
                    let c = r.table.iter().find(|c| c.read_pct == m && c.bs == b)?;
                    Some(c.figure(f))
                })
                .collect();
            Dataset::new(&format!("{m}/{}", 100 - m), data, fmt_of(f))
        })
        .collect();
    let few = sizes.len() <= 2;
    let log = !few && f != Figure::BwBytes;
    p.add_chart(
        sec,
        Chart {
            id: String::new(),
            kind: if few { "bar" } else { "line" },
            title: format!("Measurement window: {} by block size", figure_name(f)),
            x_title: "block size".into(),
            y_title: y_title(f, log),
            y2_title: None,
            y_log: log,
            y_from_zero: !log,
            labels: sizes.iter().map(|&b| short_size(b)).collect(),
            datasets,
        },
    );
}
