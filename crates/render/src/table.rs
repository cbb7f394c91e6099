//! The rows every tabular format shares: one per run of a suite or sweep, one per reporting
//! group (or the whole run) of a single run. Formats differ only in how they print them.

use report::{JobReport, RunReport, SuiteReport};

pub struct TableRow<'a> {
    pub label: String,
    pub params: Vec<(String, String)>,
    pub job: &'a JobReport,
    pub status: &'static str,
    /// A repeated test's IOPS over its runs.
    pub iops_spread: Option<&'a stats::Spread>,
}

fn status_word(r: &RunReport) -> &'static str {
    match r.status {
        report::Status::Complete => "",
        report::Status::Partial => "partial",
        report::Status::Interrupted => "interrupted",
        report::Status::Running => "running",
    }
}

pub fn run_rows(r: &RunReport) -> Vec<TableRow<'_>> {
    if r.groups.len() > 1 {
        r.groups
            .iter()
            .map(|g| TableRow {
                label: r
                    .workload
                    .jobs
                    .get(g.spec_index)
                    .map(|s| s.description.clone().unwrap_or_else(|| s.name.clone()))
                    .unwrap_or_else(|| g.report.name.clone()),
                params: Vec::new(),
                job: &g.report,
                status: status_word(r),
                iops_spread: None,
            })
            .collect()
    } else {
        vec![TableRow {
            label: r
                .workload
                .jobs
                .first()
                .map_or("all".into(), |j| j.name.clone()),
            params: Vec::new(),
            job: &r.group,
            status: status_word(r),
            iops_spread: r.repeats.as_ref().map(|x| &x.stats.iops),
        }]
    }
}

pub fn suite_rows(s: &SuiteReport) -> Vec<TableRow<'_>> {
    s.runs
        .iter()
        .map(|x| TableRow {
            label: x.label.clone(),
            params: x.params.clone(),
            job: &x.report.group,
            status: status_word(&x.report),
            iops_spread: x.report.repeats.as_ref().map(|x| &x.stats.iops),
        })
        .collect()
}

/// A row's latency: mean, p50, p99, p99.9 (ns), and whether it runs from the due time.
pub struct RowLat {
    pub mean: f64,
    pub p50: u64,
    pub p99: u64,
    pub p999: u64,
    /// A rate cap paced the job: the figures run from each I/O's due time, which holds the
    /// wait the latency from issue leaves out (issue 53: tables led with the issue's).
    pub due: bool,
}

impl RowLat {
    /// What a table adds to the row's label when the figures run from the due time.
    pub fn mark(&self) -> &'static str {
        if self.due {
            " (latency from due time)"
        } else {
            ""
        }
    }
}

/// The latency a summary row shows over both directions (weighted by count for the mean;
/// the direction with more I/Os for percentiles): from the due time where a rate cap paced
/// the job, else from issue.
pub fn latency(j: &JobReport) -> RowLat {
    let dirs: Vec<&report::DirReport> = [&j.read, &j.write].into_iter().flatten().collect();
    let due = !dirs.is_empty() && dirs.iter().all(|d| d.lat_due_ns.is_some());
    let lats: Vec<&stats::LatencySummary> = dirs
        .iter()
        .map(|d| match (&d.lat_due_ns, due) {
            (Some(l), true) => l,
            _ => &d.lat_ns,
        })
        .collect();
    let n: u64 = lats.iter().map(|l| l.n).sum();
    let mean = if n == 0 {
        0.0
    } else {
        lats.iter().map(|l| l.mean_ns * l.n as f64).sum::<f64>() / n as f64
    };
    let main = lats.iter().max_by_key(|l| l.n);
    let p = |q| main.and_then(|l| l.percentile(q)).unwrap_or(0);
    RowLat {
        mean,
        p50: p(50.0),
        p99: p(99.0),
        p999: p(99.9),
        due,
    }
}

pub fn cpu_percent(j: &JobReport) -> f64 {
    j.cpu.usr_percent + j.cpu.sys_percent
}

/// A latency summary as every table prints it: mean, p50, p99, p99.9, max.
pub fn lat_cells(l: &stats::LatencySummary) -> [String; 5] {
    let p = |x| figures::fmt_ns(l.percentile(x).unwrap_or(0) as f64);
    [
        figures::fmt_ns(l.mean_ns),
        p(50.0),
        p(99.0),
        p(99.9),
        figures::fmt_ns(l.max_ns as f64),
    ]
}

/// A swept value as a legend shows it: a block size stored in bytes by older results
/// (`bs=1048576`) reads as fio spells it (`bs=1m`).
pub fn param_text(k: &str, v: &str) -> String {
    match v.parse::<u64>() {
        Ok(n) if k == "bs" => workload::short_size(n),
        _ => v.to_string(),
    }
}

/// A sweep seen along one swept parameter: its values in order, and one line per
/// combination of the other swept values (e.g. per rw pattern; "all" when there are none),
/// holding each point's group report where that point was measured.
pub struct Along<'a> {
    pub xs: Vec<String>,
    pub lines: Vec<(String, Vec<Option<&'a JobReport>>)>,
    /// Each line's points as whole runs (a repeated point's spread is there), as `lines`.
    pub runs: Vec<Vec<Option<&'a report::RunReport>>>,
}

pub fn along<'a>(s: &'a SuiteReport, axis: &str) -> Along<'a> {
    let key = |r: &report::SuiteRun| {
        r.params
            .iter()
            .filter(|(k, _)| k != axis)
            .map(|(k, v)| format!("{k}={}", param_text(k, v)))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let (mut xs, mut keys): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    for r in &s.runs {
        let x = r.param(axis).unwrap_or("").to_string();
        if !xs.contains(&x) {
            xs.push(x);
        }
        if !keys.contains(&key(r)) {
            keys.push(key(r));
        }
    }
    let run_at = |k: &String, x: &String| {
        s.runs
            .iter()
            .find(|r| key(r) == *k && r.param(axis) == Some(x.as_str()))
            .map(|r| &r.report)
    };
    let runs: Vec<Vec<Option<&report::RunReport>>> = keys
        .iter()
        .map(|k| xs.iter().map(|x| run_at(k, x)).collect())
        .collect();
    let lines = keys
        .iter()
        .zip(&runs)
        .map(|(k, pts)| {
            let pts = pts.iter().map(|r| r.map(|r| &r.group)).collect();
            (
                if k.is_empty() {
                    "all".to_string()
                } else {
                    k.clone()
                },
                pts,
            )
        })
        .collect();
    Along { xs, lines, runs }
}

/// The swept parameters of a sweep, outermost first.
pub fn swept_keys(s: &SuiteReport) -> Vec<String> {
    s.runs
        .first()
        .map(|r| r.params.iter().map(|(k, _)| k.clone()).collect())
        .unwrap_or_default()
}

/// A table as strings: what the fsync and db reports print in text, Markdown and HTML.
pub(crate) struct StrTable {
    pub caption: String,
    pub head: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl StrTable {
    pub fn new(head: &[&str]) -> StrTable {
        StrTable {
            caption: String::new(),
            head: head.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
        }
    }
    pub fn row(&mut self, r: Vec<String>) {
        self.rows.push(r);
    }
}

/// A [`StrTable`] as a Markdown pipe table.
pub(crate) fn pipes(t: &StrTable) -> String {
    let mut out = format!(
        "| {} |\n|{}\n",
        t.head.join(" | "),
        "---|".repeat(t.head.len())
    );
    for r in &t.rows {
        out.push_str(&format!("| {} |\n", r.join(" | ")));
    }
    out
}

/// Columns padded to their widest cell; numbers right-aligned, words left-aligned.
pub(crate) fn grid(t: &StrTable) -> String {
    let n = t.head.len();
    let mut w = vec![0usize; n];
    for r in std::iter::once(&t.head).chain(&t.rows) {
        for (i, c) in r.iter().enumerate().take(n) {
            w[i] = w[i].max(c.chars().count());
        }
    }
    let numeric = |s: &str| s.starts_with(|c: char| c.is_ascii_digit()) || s == "-";
    let mut out = String::new();
    for r in std::iter::once(&t.head).chain(&t.rows) {
        let mut line = String::from(" ");
        for (i, c) in r.iter().enumerate() {
            let pad = w
                .get(i)
                .copied()
                .unwrap_or(0)
                .saturating_sub(c.chars().count());
            // A row that ends early (a case not measured) runs its last cell on freely.
            let last = i + 1 == r.len();
            if numeric(c) && i > 0 {
                line.push_str(&" ".repeat(pad));
                line.push_str(c);
            } else {
                line.push_str(c);
                if !last {
                    line.push_str(&" ".repeat(pad));
                }
            }
            line.push_str("  ");
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::param_text;

    #[test]
    fn block_sizes_in_legends_read_as_fio_spells_them() {
        assert_eq!(param_text("bs", "1048576"), "1m");
        assert_eq!(param_text("bs", "4k"), "4k");
        assert_eq!(param_text("bs", "1536"), "1536");
        assert_eq!(param_text("numjobs", "1024"), "1024");
    }
}
