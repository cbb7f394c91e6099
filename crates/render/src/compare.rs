//! A comparison as text, Markdown and CSV: one row per figure, each input's value with its
//! ratio to the first.

use figures::{fmt_count, fmt_ns};
use report::compare::{Comparison, Difference, Row};
use std::fmt::Write;
use workload::format_bytes;

fn show(unit: &str, v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(v) => match unit {
            "iops" | "count" => fmt_count(v),
            "bytes_per_s" => format!("{}/s", format_bytes(v)),
            _ => fmt_ns(v),
        },
    }
}

/// Each input's value as the text output prints it, with its ratio to the first and the
/// verdict's mark (`*` significant, `~` within noise, `?` unknown: see the legend).
pub fn cells(row: &Row) -> Vec<String> {
    row.values
        .iter()
        .zip(row.ratios())
        .enumerate()
        .map(|(i, (v, q))| match (i, q) {
            (0, _) | (_, None) => show(&row.unit, *v),
            (_, Some(q)) => {
                let mark = row
                    .significance
                    .get(i)
                    .and_then(|s| s.as_ref())
                    .map_or("", |s| s.verdict.mark());
                format!("{} ({q:.2}x{mark})", show(&row.unit, *v))
            }
        })
        .collect()
}

/// What the marks say, and on how many runs, under a table that has any.
pub fn legend(c: &Comparison) -> Option<String> {
    let all: Vec<&report::compare::Significance> = c
        .rows
        .iter()
        .flat_map(|r| r.significance.iter().flatten())
        .collect();
    let first = all.first()?;
    let runs: Vec<String> = std::iter::once(first.runs[0])
        .chain(
            (1..c.inputs.len())
                .filter_map(|i| c.rows.iter().find_map(|r| r.significance.get(i)?.as_ref()))
                .map(|s| s.runs[1]),
        )
        .map(|n| n.to_string())
        .collect();
    // The remedy once, under the table; each row's own hint (within or beyond the per-second
    // spread) is in the JSON.
    let again = if all.iter().any(|s| s.verdict == stats::Verdict::Unknown) {
        "; --repeat 5 on both gives the answer"
    } else {
        ""
    };
    let out = format!(
        "\n* significant: the 95 % interval of the difference excludes zero (Welch's t-test on the \
         runs); ~ within the runs' noise; ? unknown: fewer than 3 runs on a side (runs: {}){again}\n",
        runs.join(" | ")
    );
    Some(out)
}

/// The aligned text table, then what differs between the inputs.
pub fn text(c: &Comparison) -> String {
    let mut out = table_text(c);
    if let Some(l) = legend(c) {
        out.push_str(&l);
    }
    // The machine and the workload's settings apart: a different O_DIRECT is no environment.
    for (title, settings) in [("environment", false), ("settings", true)] {
        let ds: Vec<&Difference> = c
            .differences
            .iter()
            .filter(|d| d.setting == settings)
            .collect();
        if !ds.is_empty() {
            let _ = writeln!(out, "\ndiffering {title}:");
            for d in ds {
                let _ = writeln!(out, "  {}: {}", d.what, d.values.join(" | "));
            }
        }
    }
    out
}

fn table_text(c: &Comparison) -> String {
    let cells: Vec<Vec<String>> = c.rows.iter().map(cells).collect();
    let mut widths = vec![
        c.rows
            .iter()
            .map(|r| r.item.len())
            .max()
            .unwrap_or(4)
            .max(4),
        16,
    ];
    for (i, name) in c.inputs.iter().enumerate() {
        let w = cells
            .iter()
            .map(|r| r[i].chars().count())
            .max()
            .unwrap_or(0);
        widths.push(w.max(name.chars().count()));
    }
    let line = |cols: &[String]| -> String {
        let cols = cols.iter().zip(&widths).enumerate().map(|(i, (c, w))| {
            if i < 2 {
                format!("{c:<w$}")
            } else {
                format!("{c:>w$}")
            }
        });
        cols.collect::<Vec<_>>().join("  ").trim_end().to_string()
    };
    let mut header = vec!["item".to_string(), "metric".to_string()];
    header.extend(c.inputs.iter().cloned());
    let mut out = line(&header) + "\n";
    for (r, cells) in c.rows.iter().zip(cells) {
        let mut cols = vec![r.item.clone(), r.metric.clone()];
        cols.extend(cells);
        let _ = writeln!(out, "{}", line(&cols));
    }
    out
}

/// The table in Markdown, then what differs.
pub fn markdown(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "| item | metric | {} |", c.inputs.join(" | "));
    let _ = writeln!(out, "|---|---|{}", "---:|".repeat(c.inputs.len()));
    for r in &c.rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} |",
            r.item,
            r.metric,
            cells(r).join(" | ")
        );
    }
    if let Some(l) = legend(c) {
        out.push_str(&l);
    }
    if !c.differences.is_empty() {
        let _ = writeln!(out, "\n| differs | {} |", c.inputs.join(" | "));
        let _ = writeln!(out, "|---|{}", "---|".repeat(c.inputs.len()));
        for d in &c.differences {
            let _ = writeln!(out, "| {} | {} |", d.what, d.values.join(" | "));
        }
    }
    out
}

/// One row per item and metric; each input's raw value, then its ratio to the first.
pub fn csv(c: &Comparison) -> String {
    let mut out = String::from("item,metric,unit");
    for n in &c.inputs {
        let _ = write!(out, ",{}", csv_field(n));
    }
    for n in c.inputs.iter().skip(1) {
        let _ = write!(out, ",{}", csv_field(&format!("{n}/{}", c.inputs[0])));
    }
    for n in c.inputs.iter().skip(1) {
        let _ = write!(out, ",{}", csv_field(&format!("{n} significance")));
    }
    out.push('\n');
    for r in &c.rows {
        let _ = write!(
            out,
            "{},{},{}",
            csv_field(&r.item),
            csv_field(&r.metric),
            r.unit
        );
        for v in &r.values {
            let _ = write!(out, ",{}", v.map_or(String::new(), |v| format!("{v:.3}")));
        }
        for q in r.ratios().iter().skip(1) {
            let _ = write!(out, ",{}", q.map_or(String::new(), |q| format!("{q:.4}")));
        }
        for i in 1..c.inputs.len() {
            let s = r.significance.get(i).and_then(|s| s.as_ref());
            let _ = write!(out, ",{}", s.map_or("", |s| s.verdict.word()));
        }
        out.push('\n');
    }
    out
}

/// Quotes a CSV field when it holds a separator, quote or newline.
pub fn csv_field(s: &str) -> String {
    // A text a spreadsheet would run as a formula (`=HYPERLINK(...)`, `+cmd`, `@SUM`, `-x+y`)
    // is kept as text with a leading quote, as OWASP's CSV-injection advice has it; a negative
    // number stays a number.
    let formula = s.starts_with(['=', '+', '@', '\t', '\r'])
        || (s.starts_with('-') && s.parse::<f64>().is_err() && s.len() > 1);
    if formula {
        return csv_field(&format!("'{s}"));
    }
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::csv_field;

    /// A label a stranger chose cannot run as a spreadsheet formula; numbers and plain text
    /// are as they were.
    #[test]
    fn a_formula_is_kept_as_text() {
        assert_eq!(csv_field("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(csv_field("+cmd"), "'+cmd");
        assert_eq!(csv_field("-2+3"), "'-2+3");
        assert_eq!(csv_field("-2.5"), "-2.5");
        assert_eq!(csv_field("-"), "-");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
    }
}
