//! The human summary: fio's facts without fio's clutter, readable at a glance.

use super::{table, Exporter};
use figures::{fmt_bytes, fmt_count, fmt_ns};
use report::{DirReport, JobReport, RunReport, Status, SuiteReport};
use std::fmt::Write;
use workload::format_bytes;

pub struct Text;

/// A direction's row; a rate-capped one leads with its latency from each I/O's due time
/// (which holds any wait before issue), then the latency from issue beneath it.
fn dir_row(out: &mut String, label: &str, d: &DirReport) {
    let (first, second) = match &d.lat_due_ns {
        Some(due) => (due, Some(&d.lat_ns)),
        None => (&d.lat_ns, None),
    };
    let [mean, p50, p99, p999, max] = super::table::lat_cells(first);
    let _ = writeln!(
        out,
        "  {label:<6} {:>9} {:>13}  {mean:>9} {p50:>9} {p99:>9} {p999:>9} {max:>9}{}",
        fmt_count(d.iops),
        format!("{}/s", format_bytes(d.bw_bytes)),
        if second.is_some() {
            "  from due time"
        } else {
            ""
        },
    );
    if let Some(l) = second {
        let [mean, p50, p99, p999, max] = super::table::lat_cells(l);
        let _ = writeln!(
            out,
            "  {:<6} {:>9} {:>13}  {mean:>9} {p50:>9} {p99:>9} {p999:>9} {max:>9}  from issue",
            "", "", "",
        );
    }
}

/// Under MPI: how the ranks ran together, a row per host and per rank, and the slowest rank.
fn ranks_section(out: &mut String, so: &report::ScaleOut, ranks: &[report::RankReport]) {
    use crate::scaleout::{hosts_table, ranks_table, spread_line};
    let hosts = hosts_table(so);
    let _ = write!(out, "\n  {}\n{}", hosts.caption, table::grid(&hosts));
    let _ = write!(out, "{}", table::grid(&ranks_table(ranks)));
    if let Some(l) = spread_line(so, ranks.len()) {
        let _ = writeln!(out, "  {l}");
    }
}

fn group_rows(out: &mut String, g: &JobReport) {
    let _ = writeln!(
        out,
        "  {:<6} {:>9} {:>13}  {:>9} {:>9} {:>9} {:>9} {:>9}",
        "", "IOPS", "bandwidth", "lat mean", "p50", "p99", "p99.9", "max"
    );
    if let Some(d) = &g.read {
        dir_row(out, "read", d);
    }
    if let Some(d) = &g.write {
        dir_row(out, "write", d);
    }
    if let Some(d) = &g.trim {
        dir_row(out, "trim", d);
    }
    if let Some(s) = &g.sync {
        let l = &s.lat_ns;
        let p = |x| fmt_ns(l.percentile(x).unwrap_or(0) as f64);
        let secs = g.runtime_ns as f64 / 1e9;
        let _ = writeln!(
            out,
            "  {:<6} {:>9} {:>13}  {:>9} {:>9} {:>9} {:>9} {:>9}",
            "sync",
            fmt_count(if secs > 0.0 {
                s.total_ios as f64 / secs
            } else {
                0.0
            }),
            // A sync moves no bytes: the bandwidth column has nothing to say of it (the count
            // stood there once, and read as a bandwidth).
            "-",
            fmt_ns(l.mean_ns),
            p(50.0),
            p(99.0),
            p(99.9),
            fmt_ns(l.max_ns as f64),
        );
    }
}

/// A repeated run: each figure above is the runs' mean; here with its 95 % interval, its
/// coefficient of variation and its extremes, and whether --until-stable got there.
/// IOPS in the mean's scale, with enough decimals that the interval's half-width shows its
/// first significant digit: 12.3k ± 0.4k, not 12.3k ± 412; 3,043 ± 30 is "3.04k ± 0.03k",
/// not "3.0k ± 0.0k".
fn iops_scale(iops: &stats::Spread) -> impl Fn(f64) -> String {
    let (div, unit) = match iops.mean.abs() {
        m if m >= 1e6 => (1e6, "M"),
        m if m >= 1e3 => (1e3, "k"),
        _ => (1.0, ""),
    };
    let half = (iops.ci95[1] - iops.ci95[0]) / 2.0 / div;
    let places = if half.is_finite() && half > 0.0 {
        (-half.log10().floor()).clamp(1.0, 4.0) as usize
    } else {
        1
    };
    move |v: f64| format!("{:.places$}{unit}", v / div)
}

/// One line per distinct warning of a suite's runs, naming the tests it concerns (all of
/// them: "every test") rather than repeating the same advice for each. A test is named by
/// what tells it from the others (a sweep over four devices repeats none of their paths
/// unless they differ), and a long list is cut: a warning stays one readable line.
fn suite_warnings(out: &mut String, s: &SuiteReport) {
    let names = short_names(s);
    // Warnings that differ only in their figures ("busy 97%" and "busy 93%") are one, with
    // each figure's range: a quick on a fast device said the CPU-bound advice once a test.
    let mut seen: Vec<(Vec<Vec<&str>>, Vec<&str>)> = Vec::new();
    for (run, name) in s.runs.iter().zip(&names) {
        for w in &run.report.warnings {
            let parts = figure_parts(&w.message);
            match seen.iter_mut().find(|(m, _)| same_words(&m[0], &parts)) {
                Some(x) => {
                    x.0.push(parts);
                    x.1.push(name)
                }
                None => seen.push((vec![parts], vec![name])),
            }
        }
    }
    if !seen.is_empty() {
        let _ = writeln!(out, "\nwarnings:");
        for (messages, tests) in seen {
            let m = with_ranges(&messages);
            let _ = writeln!(out, "  ! {m}{}", which_tests(&tests, s.runs.len()));
        }
    }
}

/// A message cut into words and figures, alternating: words at even places (maybe empty),
/// figures (digits, with a decimal point between digits) at odd ones. Digits after a letter
/// are a name's (zram0, p99, QD128), not a figure.
fn figure_parts(m: &str) -> Vec<&str> {
    let b = m.as_bytes();
    let digit = |i: usize| b.get(i).is_some_and(u8::is_ascii_digit);
    // Inside a name: after a letter or digit, or a point, dash, underscore or slash (v1.2,
    // job r-2, /dev/sda1, volbench-emulate-2262).
    let named =
        |i: usize| i > 0 && (b[i - 1].is_ascii_alphanumeric() || b"._-/".contains(&b[i - 1]));
    let mut parts = Vec::new();
    let (mut from, mut in_fig) = (0, false);
    for i in 0..b.len() {
        let fig = if in_fig {
            digit(i) || (b[i] == b'.' && digit(i + 1))
        } else {
            digit(i) && !named(i)
        };
        if fig != in_fig {
            parts.push(&m[from..i]);
            (from, in_fig) = (i, fig);
        }
    }
    parts.push(&m[from..]);
    parts
}

/// The same message but for its figures.
fn same_words(a: &[&str], b: &[&str]) -> bool {
    a.len() == b.len() && a.iter().zip(b).step_by(2).all(|(x, y)| x == y)
}

/// Messages of the same words as one: each figure that differs between them as its lowest
/// and highest ("93-97").
fn with_ranges(messages: &[Vec<&str>]) -> String {
    let mut s = String::new();
    for i in 0..messages[0].len() {
        let vals: Vec<&str> = messages.iter().map(|m| m[i]).collect();
        if i % 2 == 0 || vals.iter().all(|v| *v == vals[0]) {
            s.push_str(vals[0]);
            continue;
        }
        let num = |v: &&&str| v.parse::<f64>().unwrap_or(f64::NAN);
        let lo = vals
            .iter()
            .min_by(|a, b| num(a).total_cmp(&num(b)))
            .unwrap();
        let hi = vals
            .iter()
            .max_by(|a, b| num(a).total_cmp(&num(b)))
            .unwrap();
        let _ = write!(s, "{lo}-{hi}");
    }
    s
}

/// The tests listed at most this many by name; past it, "and N more".
const NAMED_TESTS: usize = 4;

fn which_tests(tests: &[&str], of: usize) -> String {
    if of == 1 {
        return String::new();
    }
    if tests.len() == of {
        return " (every test)".to_string();
    }
    let named = tests[..tests.len().min(NAMED_TESTS)].join(", ");
    match tests.len() - tests.len().min(NAMED_TESTS) {
        0 => format!(" ({named})"),
        more => format!(" ({} of {of} tests: {named} and {more} more)", tests.len()),
    }
}

/// Each run's name by the parameters that differ between the runs (its label when it has
/// none, as a named suite's tests).
fn short_names(s: &SuiteReport) -> Vec<String> {
    let varies = |k: &str| {
        let mut vals = s
            .runs
            .iter()
            .map(|r| r.params.iter().find(|(x, _)| x == k).map(|(_, v)| v));
        let first = vals.next().flatten();
        vals.any(|v| v != first)
    };
    s.runs
        .iter()
        .map(|r| {
            let own: Vec<String> = r
                .params
                .iter()
                .filter(|(k, _)| varies(k))
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            if own.is_empty() {
                r.label.clone()
            } else {
                own.join(" ")
            }
        })
        .collect()
}

fn repeat_lines(out: &mut String, rep: &report::repeats::Repeats) {
    use report::repeats::words;
    let _ = writeln!(
        out,
        "\n  {} runs: each figure above is their mean (95 % confidence interval of the mean, \
         Student's t):",
        rep.n
    );
    let bytes = |v: f64| format!("{}/s", fmt_bytes(v));
    let row = |out: &mut String, what: &str, sp: &stats::Spread, f: &dyn Fn(f64) -> String| {
        let _ = writeln!(
            out,
            "    {what:<16} {}   cv {:.1} %   min {}   max {}",
            words(sp, f),
            sp.cv * 100.0,
            f(sp.min),
            f(sp.max)
        );
    };
    let st = &rep.stats;
    row(out, "IOPS", &st.iops, &iops_scale(&st.iops));
    row(out, "bandwidth", &st.bw_bytes, &bytes);
    for (dir, d) in [("read", &st.read), ("write", &st.write)] {
        if let Some(d) = d {
            let ns = |v: f64| fmt_ns(v);
            row(out, &format!("{dir} lat mean"), &d.lat_mean_ns, &ns);
            row(out, &format!("{dir} lat p99"), &d.lat_p99_ns, &ns);
            row(out, &format!("{dir} lat p99.9"), &d.lat_p999_ns, &ns);
        }
    }
    if rep.left_out > 0 {
        let _ = writeln!(
            out,
            "    {} run{} cut short, left out of the figures above (listed in the JSON)",
            rep.left_out,
            if rep.left_out == 1 { "" } else { "s" }
        );
    }
    if let Some(u) = &rep.until_stable {
        let how = if u.reached {
            format!("reached after {} runs", rep.n)
        } else {
            format!("not reached in {} runs (at most {})", rep.n, u.max_runs)
        };
        let _ = writeln!(
            out,
            "    until stable within {} %: {how}; the interval's half-width is {:.1} % of the mean",
            u.target_pct, u.half_width_pct
        );
    }
}

/// A verifying job's read-back, which is not in the figures above, and where fio-JSON divides
/// by another time than the job's (fio's per-direction runtime).
fn verify_lines(out: &mut String, j: &JobReport) {
    let ms = |ns: u64| fmt_ns(ns as f64);
    if let Some(v) = &j.verify {
        let _ = writeln!(
            out,
            "  {}: {} blocks read back and checked after the writes in {} ({} IOPS, p99 {}); \
             not in the figures above, fio-JSON counts them as reads",
            j.name,
            fmt_count(v.total_ios as f64),
            ms(v.runtime_ns.unwrap_or(0)),
            fmt_count(v.iops),
            super::table::lat_cells(&v.lat_ns)[2],
        );
    }
    if let Some(wt) = j.write.as_ref().and_then(|w| w.runtime_ns) {
        let rt = j
            .read
            .as_ref()
            .map_or(0, |r| r.runtime_ns.unwrap_or(j.runtime_ns));
        let _ = writeln!(
            out,
            "  {}: rates above are over the whole run; fio-JSON, as fio, divides the writes \
             by {} (until the read-back) and the reads by {}",
            j.name,
            ms(wt),
            ms(rt),
        );
    }
}

/// Each steady-state stop once (a group_reporting group's jobs share theirs): attained or
/// not, when, and the last window it judged.
fn steady_lines(out: &mut String, jobs: &[JobReport]) {
    let mut said: Vec<&report::SteadyReport> = Vec::new();
    for j in jobs {
        let Some(ss) = j.steadystate.as_ref().filter(|s| !said.contains(s)) else {
            continue;
        };
        said.push(ss);
        let c = &ss.criterion;
        let secs = |ns: u64| ns as f64 / 1e9;
        let verdict = match ss.attained_at_ns {
            Some(t) => format!("attained at {:.1} s, and the job stopped there", secs(t)),
            None => "not attained by the end of the run".to_string(),
        };
        let unit = if c.percent { "%" } else { "" };
        let what = if c.slope {
            "slope"
        } else {
            "largest deviation"
        };
        let iops: Vec<String> = ss.iops.iter().map(|&v| fmt_count(v as f64)).collect();
        let _ = writeln!(
            out,
            "  {}: steady state ({} over {:.0} s after {:.0} s): {verdict}; last window's \
             {what} {:.3}{unit} against {}{unit}; IOPS per interval [{}]",
            j.name,
            c.as_option(),
            secs(ss.duration_ns),
            secs(ss.ramp_ns),
            ss.judged.criterion,
            c.limit,
            iops.join(", "),
        );
    }
}

/// Each latency-target search: fio's line (target, window, percentile, depth), and whether it
/// settled before the run ended.
fn lat_target_lines(out: &mut String, jobs: &[JobReport]) {
    for j in jobs {
        let Some(t) = &j.lat_target else {
            continue;
        };
        let settled = match t.settled {
            true => "the figures above are at that depth".to_string(),
            false => "not settled: the run ended during the search, and the figures mix the \
                      depths tried; give it a longer runtime"
                .to_string(),
        };
        let _ = writeln!(
            out,
            "  {}: latency target {} for {:.2}% of I/Os over {} windows: depth {}; {settled}",
            j.name,
            fmt_ns(t.target_ns as f64),
            t.percentile,
            fmt_ns(t.window_ns as f64),
            t.depth,
        );
    }
}

impl Exporter for Text {
    fn export_compare(&self, c: &report::compare::Comparison) -> anyhow::Result<Vec<u8>> {
        Ok(crate::compare::text(c).into_bytes())
    }

    fn export(&self, r: &RunReport) -> anyhow::Result<Vec<u8>> {
        let mut out = String::new();
        header(&mut out, r);
        targets(&mut out, r);
        let g = &r.group;
        let _ = writeln!(out, "  measured {:.1} s\n", g.runtime_ns as f64 / 1e9);
        if r.groups.len() > 1 {
            suite_table(&mut out, &table::run_rows(r), &[]);
        } else {
            group_rows(&mut out, g);
        }
        if r.jobs.len() > 1 {
            per_job(&mut out, r);
        }
        if let Some(rep) = &r.repeats {
            repeat_lines(&mut out, rep);
        }
        r.jobs.iter().for_each(|j| verify_lines(&mut out, j));
        steady_lines(&mut out, &r.jobs);
        lat_target_lines(&mut out, &r.jobs);
        crate::replay::text(&mut out, &r.jobs);
        if let Some(so) = &r.scaleout {
            ranks_section(&mut out, so, &r.ranks);
        }
        let _ = writeln!(out);
        if r.groups.len() > 1 {
            per_second_groups(&mut out, r);
        } else {
            per_second(&mut out, &r.group);
        }
        cpu_and_depth(&mut out, &r.group);
        kernel_lines(&mut out, r);
        if let Some(e) = &r.error {
            let _ = writeln!(out, "\n  error: {e}");
        }
        if !r.warnings.is_empty() {
            let _ = writeln!(out, "\nwarnings:");
            for w in &r.warnings {
                let _ = writeln!(out, "  ! {w}");
            }
        }
        Ok(out.into_bytes())
    }

    fn export_suite(&self, s: &SuiteReport) -> anyhow::Result<Vec<u8>> {
        let mut out = String::new();
        let _ = write!(out, "volbench {}", s.suite);
        let all = s.targets();
        if all.len() > 1 {
            let _ = write!(out, " on {}", report::targets_phrase(&all, true));
        } else if let Some(t) = all.first() {
            let _ = write!(out, " on {}", t.path);
            if let Some(fs) = &t.filesystem {
                let _ = write!(out, " ({}", fs.fs_type);
                if let Some(d) = &t.device {
                    let _ = write!(out, " on {}", d.name);
                }
                out.push(')');
            }
        }
        match s.status {
            Status::Complete => {}
            Status::Partial => out.push_str("  [PARTIAL]"),
            Status::Interrupted => out.push_str("  [INTERRUPTED: partial results]"),
            Status::Running => out.push_str("  [RUNNING or killed: partial results]"),
        }
        out.push_str("\n\n");
        match (&s.pts, &s.curve) {
            (Some(p), _) => out.push_str(&crate::pts::text(p)),
            // The search for the maximum as runs; the points as the curve's own table.
            (None, Some(c)) => {
                let rows = table::suite_rows(s);
                let n = c
                    .points
                    .first()
                    .map_or(rows.len(), |p| p.run.min(rows.len()));
                suite_table(&mut out, &rows[..n], &s.findings);
                out.push_str(&crate::curve::text(c));
            }
            (None, None) => suite_table(&mut out, &table::suite_rows(s), &s.findings),
        }
        suite_warnings(&mut out, s);
        Ok(out.into_bytes())
    }

    fn export_fsync(&self, f: &report::FsyncReport) -> anyhow::Result<Vec<u8>> {
        Ok(crate::fsync::text(f).into_bytes())
    }

    fn export_db(&self, d: &report::DbReport) -> anyhow::Result<Vec<u8>> {
        Ok(crate::db::text(d).into_bytes())
    }

    fn export_infer(&self, i: &report::InferReport) -> anyhow::Result<Vec<u8>> {
        Ok(crate::infer::text(i).into_bytes())
    }

    fn export_durability(&self, d: &report::DurabilityReport) -> anyhow::Result<Vec<u8>> {
        Ok(crate::durability::text(d).into_bytes())
    }
}

/// One row per test: label, IOPS, bandwidth, latency, CPU; findings marked and listed below.
fn suite_table(out: &mut String, rows: &[table::TableRow], findings: &[report::Finding]) {
    let w = rows
        .iter()
        .map(|r| r.label.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(
        out,
        "  {:<w$} {:>9} {:>13}  {:>9} {:>9} {:>9} {:>9} {:>6}",
        "test", "IOPS", "bandwidth", "lat mean", "p50", "p99", "p99.9", "CPU"
    );
    for r in rows {
        let l = table::latency(r.job);
        let (mean, p50, p99, p999) = (l.mean, l.p50, l.p99, l.p999);
        let marks: Vec<&str> = findings
            .iter()
            .filter(|f| f.point.as_deref() == Some(r.label.as_str()))
            .map(|f| f.kind.as_str())
            .collect();
        let spread = r.iops_spread.map_or(String::new(), |s| {
            let half = (s.ci95[1] - s.ci95[0]) / 2.0;
            format!("  IOPS ± {} (95 % CI, {} runs)", fmt_count(half), s.n)
        });
        let _ = writeln!(
            out,
            "  {:<w$} {:>9} {:>13}  {:>9} {:>9} {:>9} {:>9} {:>5.0}%{spread}{}{}{}",
            r.label,
            fmt_count(r.job.total_iops()),
            format!("{}/s", format_bytes(r.job.total_bw_bytes())),
            fmt_ns(mean),
            fmt_ns(p50 as f64),
            fmt_ns(p99 as f64),
            fmt_ns(p999 as f64),
            table::cpu_percent(r.job),
            if r.status.is_empty() {
                String::new()
            } else {
                format!("  ({})", r.status)
            },
            if marks.is_empty() {
                String::new()
            } else {
                format!("  <- {}", marks.join(", "))
            },
            l.mark(),
        );
    }
    if !findings.is_empty() {
        let _ = writeln!(out, "\nfindings:");
        for f in findings {
            let _ = writeln!(out, "  * {}", f.message);
        }
    }
}

/// The jobs' lines: name, pattern, block size, depth, engine, and the run's status.
fn header(out: &mut String, r: &RunReport) {
    let status = match r.status {
        Status::Complete => String::new(),
        Status::Partial => "  [PARTIAL: stopped on an error]".into(),
        Status::Interrupted => "  [INTERRUPTED: partial results]".into(),
        Status::Running => "  [RUNNING or killed: partial results]".into(),
    };
    for (i, job) in r.workload.jobs.iter().enumerate() {
        // A replay's pattern is its trace's: rw and bs only say what the trace holds.
        let mix = if let Some(t) = &job.replay.read_iolog {
            format!(" replay={}", t.display())
        } else if job.rw.reads() && job.rw.writes() {
            format!(" rwmixread={}", job.rwmixread)
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "{}{} {}{} bs={} iodepth={} numjobs={} {} {}{}",
            if i == 0 { "" } else { "  + " },
            job.name,
            job.rw_name(),
            mix,
            workload::short_size(job.bs),
            job.effective_iodepth(),
            job.numjobs,
            job.ioengine.as_str(),
            if job.direct { "direct" } else { "buffered" },
            if i == 0 { status.as_str() } else { "" },
        );
    }
}

/// One line per target: what it is, how it was laid out, its file system and device.
fn targets(out: &mut String, r: &RunReport) {
    for t in &r.environment.targets {
        let mut line = format!(
            "  target {}{} ({}, {}{})",
            t.host.as_ref().map(|h| format!("{h}:")).unwrap_or_default(),
            t.path,
            t.kind.replace('_', " "),
            format_bytes(t.size_bytes as f64),
            t.layout
                .as_ref()
                .map(|l| format!(", {l}"))
                .unwrap_or_default()
        );
        if let Some(fs) = &t.filesystem {
            let _ = write!(line, " on {} at {}", fs.fs_type, fs.mount_point);
        }
        if let Some(d) = &t.device {
            let model = if d.model.is_empty() {
                String::new()
            } else {
                format!(" {}", d.model)
            };
            let _ = write!(
                line,
                "; device {}{model} lbs={}{} cache={}",
                d.name,
                d.logical_block_size,
                report::sched_field(&d.scheduler),
                d.write_cache
            );
        }
        let _ = writeln!(out, "{line}");
        if let Some(c) = &t.checked_reads {
            let _ = writeln!(
                out,
                "  checked before the run: blkid -p read it {} times ({}) to see that it holds no data; those reads are not in the run's counts (--allow-destructive skips the check)",
                fmt_count(c.ios as f64),
                format_bytes(c.bytes as f64)
            );
        }
    }
    if r.workload.jobs.iter().any(|j| j.rw.writes()) {
        let _ = writeln!(out, "  data {}", report::run_data_words(r));
    }
}

/// One line per job, when there are several.
fn per_job(out: &mut String, r: &RunReport) {
    let _ = writeln!(out, "\n  per job:");
    for j in &r.jobs {
        let _ = writeln!(
            out,
            "    {:<16} {:>9} IOPS {:>13}  mean {}{}",
            j.name,
            fmt_count(j.total_iops()),
            format!("{}/s", format_bytes(j.total_bw_bytes())),
            fmt_ns(
                j.read
                    .as_ref()
                    .or(j.write.as_ref())
                    .map_or(0.0, |d| d.lat_ns.mean_ns)
            ),
            j.error
                .as_ref()
                .map(|e| format!("  error: {e}"))
                .unwrap_or_default()
        );
    }
}

/// How steady each direction's per-second IOPS was.
fn per_second(out: &mut String, g: &report::JobReport) {
    for (label, d) in [("read", &g.read), ("write", &g.write)] {
        if let Some(line) = d.as_ref().and_then(|d| spread(&d.iops_per_sec)) {
            let _ = writeln!(out, "  {label} per second: {line}");
        }
    }
}

/// Tests run one after another: each one's per-second spread over its own seconds (the
/// seconds of a write test say nothing of a read test's steadiness).
fn per_second_groups(out: &mut String, r: &RunReport) {
    let w = r
        .groups
        .iter()
        .map(|g| g.report.name.len())
        .max()
        .unwrap_or(4);
    let _ = writeln!(out, "  per second, each test over its own seconds:");
    for g in &r.groups {
        for (label, d) in [("read", &g.report.read), ("write", &g.report.write)] {
            if let Some(line) = d.as_ref().and_then(|d| spread(&d.iops_per_sec)) {
                let _ = writeln!(out, "    {:<w$}  {label:<5} {line}", g.report.name);
            }
        }
    }
}

/// "min 990  max 1010  stdev 0.6% of mean (30 samples)", or None below two samples.
fn spread(s: &stats::SeriesSummary) -> Option<String> {
    (s.samples > 1).then(|| {
        format!(
            "min {}  max {}  stdev {:.1}% of mean ({} samples)",
            fmt_count(s.min),
            fmt_count(s.max),
            if s.mean > 0.0 {
                100.0 * s.stdev / s.mean
            } else {
                0.0
            },
            s.samples
        )
    })
}

/// CPU, context switches and the queue depth the run mostly had.
fn cpu_and_depth(out: &mut String, g: &report::JobReport) {
    let top = g
        .iodepth
        .levels
        .iter()
        .max_by(|a, b| a.percent.total_cmp(&b.percent));
    // rusage advances in scheduler ticks: below ~100 ms its percentages are noise.
    let cpu = if g.runtime_ns < 100_000_000 {
        "cpu: run too short to measure".to_string()
    } else {
        format!(
            "cpu usr {:.1}%  sys {:.1}%",
            g.cpu.usr_percent, g.cpu.sys_percent
        )
    };
    let _ = writeln!(
        out,
        "  {cpu}  ctx {}   depth max {}{}",
        g.cpu.ctx_switches,
        g.iodepth.max,
        // No submissions (create_only, a job that did nothing): no depth to name.
        top.filter(|l| l.percent > 0.0)
            .map(|l| {
                let range = match l.depth {
                    1 => "1".to_string(),
                    64 => "64+".to_string(),
                    d => format!("{d}-{}", 2 * d - 1),
                };
                format!(
                    " (mostly {range} in flight: {:.0}% of submissions)",
                    l.percent
                )
            })
            .unwrap_or_default()
    );
}

/// What the kernel's counters saw on each device.
fn kernel_lines(out: &mut String, r: &RunReport) {
    for t in &r.environment.targets {
        if let (Some(k), Some(d)) = (&t.kernel_counters, &t.device) {
            let _ = writeln!(
                out,
                "  kernel {}{}: {} reads ({}), {} writes ({}), {} flushes",
                t.host.as_ref().map(|h| format!("{h} ")).unwrap_or_default(),
                d.name,
                k.read_ios + k.read_merges,
                format_bytes(k.read_bytes as f64),
                k.write_ios + k.write_merges,
                format_bytes(k.write_bytes as f64),
                k.flush_ios
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_read_at_a_glance() {
        assert_eq!(fmt_ns(812.0), "812 ns");
        assert_eq!(fmt_ns(85_300.0), "85.3 µs");
        assert_eq!(fmt_ns(2_410_000.0), "2.41 ms");
        assert_eq!(fmt_count(850.0), "850");
        assert_eq!(fmt_count(12_345.0), "12.3k");
        assert_eq!(fmt_count(1_234_567.0), "1.23M");
    }

    /// Warnings alike but for their figures are said once, each figure as its range; words
    /// that differ keep them apart.
    #[test]
    fn warnings_alike_but_for_figures_are_one_line() {
        let busy = |p: &str| format!("a job thread was busy {p}% of the time: add --numjobs");
        let (a, b, c) = (busy("97"), busy("91"), busy("93.5"));
        let all: Vec<Vec<&str>> = [&a, &b, &c].iter().map(|m| figure_parts(m)).collect();
        assert!(same_words(&all[0], &all[1]) && same_words(&all[0], &all[2]));
        assert_eq!(with_ranges(&all), busy("91-97"));
        assert_eq!(with_ranges(&all[..1]), a);
        let other = figure_parts("a job thread was idle 97% of the time: add --numjobs");
        assert!(!same_words(&all[0], &other));
        assert_eq!(figure_parts("v1.2. x 10"), ["v1.2. x ", "10"]);
        assert_eq!(
            figure_parts("job r-2 of /dev/sda1: 7"),
            ["job r-2 of /dev/sda1: ", "7"]
        );
        assert_eq!(
            figure_parts("on zram0 at p99: 4.5 ms"),
            ["on zram0 at p99: ", "4.5", " ms"]
        );
    }

    #[test]
    fn a_warning_names_few_tests_and_counts_the_rest() {
        assert_eq!(which_tests(&["a"], 1), "");
        assert_eq!(which_tests(&["a", "b"], 2), " (every test)");
        assert_eq!(which_tests(&["a", "b"], 3), " (a, b)");
        let eight: Vec<&str> = vec!["n=1", "n=2", "n=3", "n=4", "n=5", "n=6", "n=7"];
        assert_eq!(
            which_tests(&eight, 8),
            " (7 of 8 tests: n=1, n=2, n=3, n=4 and 3 more)"
        );
    }
}
