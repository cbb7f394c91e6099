//! The cloud volume models as text: `volbench cloud show` (a volume's figures and what it gives
//! per block size) and `volbench cloud check` (results measured against their volumes).

use figures::fmt_count;
use report::volume::{Model, Row};
use std::fmt::Write as _;

/// The block sizes a volume's table shows (and its JSON gives).
pub const SHOWN_BS: [u64; 4] = [4 << 10, 16 << 10, 64 << 10, 1 << 20];

/// A result checked against a volume: the result's name, the volume, the rows.
pub type Check<'a> = (&'a str, &'a Model, Vec<Row>);

fn mibs(b: f64) -> String {
    format!("{:.1} MiB/s ({:.1} MB/s)", b / 1048576.0, b / 1e6)
}

/// A volume's model as text: its figures, then what it gives at each shown block size.
pub fn volume(m: &Model) -> String {
    let mut s = figures_of(m);
    table(&mut s, m);
    s
}

/// The model's figures, one per line.
/// The IOPS cap: sustained, with its burst or its write cap where it has one.
fn iops_of(m: &Model) -> String {
    match m.burst_iops {
        Some(b) => format!(
            "{} sustained; {} burst while credits last",
            fmt_count(m.iops),
            fmt_count(b)
        ),
        None if m.write_iops != m.iops => format!(
            "{} read, {} write",
            fmt_count(m.iops),
            fmt_count(m.write_iops)
        ),
        None => format!("{} sustained", fmt_count(m.iops)),
    }
}

/// The burst bucket, for a volume that bursts: its size, how long it lasts, its refill.
fn bucket_of(m: &Model) -> Option<String> {
    let d = m.burst_duration_s?;
    let bucket = match (m.burst_bucket_ios, m.burst_bucket_bytes) {
        (Some(i), _) => format!("{} I/Os", fmt_count(i)),
        (_, Some(b)) => format!("{:.0} GiB of throughput credits", b / (1u64 << 30) as f64),
        _ => String::new(),
    };
    let refill = m.refill_ios_per_s.map_or(String::new(), |r| {
        format!("; earns {} I/Os per idle second", fmt_count(r))
    });
    Some(format!(
        "{bucket}, full at start: lasts {} at the burst rate{refill}",
        figures::fmt_secs(d)
    ))
}

fn figures_of(m: &Model) -> String {
    let mut s = format!("{}: {}\n", m.product, m.name);
    let mut line = |k: &str, v: String| {
        let _ = writeln!(s, "  {k:<11} {v}");
    };
    line(
        "config",
        format!("{}  ({} {})", m.config, m.size, m.size_unit),
    );
    line("IOPS", iops_of(m));
    let mut bw = format!("{} sustained", mibs(m.bw_bytes));
    if let Some(b) = m.burst_bw_bytes.filter(|b| *b > m.bw_bytes) {
        bw.push_str(&format!("; burst {}", mibs(b)));
    }
    line("bandwidth", bw);
    line(
        "crossover",
        format!(
            "{:.0} KiB: smaller blocks hit the IOPS cap, larger the bandwidth cap",
            m.crossover_bs / 1024.0
        ),
    );
    if let Some(b) = bucket_of(m) {
        line("bucket", b);
    }
    if let Some(u) = m.io_unit_bytes {
        line(
            "I/O unit",
            format!("{:.0} KiB: a larger I/O counts as several", u / 1024.0),
        );
    }
    line(
        "price",
        match m.price_month_usd {
            Some(p) => format!(
                "${p:.2}/month; ${:.4} per IOPS, ${:.3} per MB/s",
                m.usd_per_iops.unwrap_or(0.0),
                m.usd_per_mbps.unwrap_or(0.0)
            ),
            None => "not in the catalog".into(),
        },
    );
    s
}

/// What the volume gives at each shown block size, then its caps, notes and source.
fn table(s: &mut String, m: &Model) {
    s.push_str(&format!(
        "\n  {:>6}  {:>9}  {:>11}  {:<9}  {:>10}\n",
        "block", "IOPS", "MiB/s", "bound", "burst IOPS"
    ));
    for b in SHOWN_BS {
        let at = m.at(b);
        s.push_str(&format!(
            "  {:>6}  {:>9}  {:>11.1}  {:<9}  {:>10}\n",
            workload::short_size(b),
            fmt_count(at.iops),
            at.bw_bytes / 1048576.0,
            at.bound,
            at.burst_iops.map_or("-".into(), fmt_count)
        ));
    }
    for (title, items) in [
        ("per-instance caps", &m.instance_caps),
        ("notes", &m.notes),
        ("unconfirmed", &m.unconfirmed),
    ] {
        if !items.is_empty() {
            s.push_str(&format!("\n  {title}:\n"));
            for i in items {
                s.push_str(&format!("    - {i}\n"));
            }
        }
    }
    s.push_str(&format!(
        "\n  source: {} (read {}, {})\n",
        m.source, m.read_on, m.confidence
    ));
}

/// One table for every (result, volume) pair; with several, each row names its result and
/// volume.
pub fn check(checks: &[Check]) -> String {
    let several = checks.len() > 1;
    let mut s = match checks {
        [(r, m, _)] => format!("{r} measured against {} ({})\n\n", m.config, m.name),
        _ => format!(
            "{} results measured against their volumes\n\n",
            checks.len()
        ),
    };
    let (rw, vw) = (
        checks.iter().map(|c| c.0.len()).max().unwrap_or(6).max(6),
        checks
            .iter()
            .map(|c| c.1.config.len())
            .max()
            .unwrap_or(6)
            .max(6),
    );
    let lead = |r: &str, v: &str| {
        if several {
            format!("  {r:<rw$}  {v:<vw$}")
        } else {
            String::new()
        }
    };
    s.push_str(&format!(
        "{}  {:<28}  {:>6}  {:<9}  {:>12}  {:>12}  {:>6}  verdict\n",
        lead("result", "volume"),
        "test",
        "bs",
        "metric",
        "model",
        "measured",
        "ratio"
    ));
    // A reason shared by several rows (a bucket's burst note on every test) is said in full
    // once, at its first row; later rows name it by its head.
    let mut said = std::collections::HashSet::new();
    for (result, m, rows) in checks {
        for r in rows {
            s.push_str(&check_line(&lead(result, &m.config), r, &mut said));
        }
    }
    s
}

fn check_line<'r>(lead: &str, r: &'r Row, said: &mut std::collections::HashSet<&'r str>) -> String {
    let v = |x: f64| {
        if r.metric == "iops" {
            fmt_count(x)
        } else {
            format!("{:.1} MB/s", x / 1e6)
        }
    };
    let mut s = format!(
        "{lead}  {:<28}  {:>6}  {:<9}  {:>12}  {:>12}  {:>6.2}  {}\n",
        r.test,
        workload::short_size(r.bs),
        r.metric,
        v(r.model),
        v(r.measured),
        r.ratio,
        r.verdict
    );
    for why in &r.reasons {
        match why.split_once(": ") {
            Some((head, _)) if !said.insert(why.as_str()) => {
                s.push_str(&format!("      - {head} (as above)\n"))
            }
            _ => s.push_str(&format!("      - {why}\n")),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> Model {
        let mut v = serde_json::json!({
            "product": "gp2", "name": "gp2", "provider": "aws", "config": "aws:gp2:size=100",
            "size": 100.0, "size_unit": "GiB", "size_bytes": 1e11, "bw_unit": "MiB",
            "crossover_bs": 65536.0, "instance_caps": [], "notes": [], "unconfirmed": [],
            "source": "s", "read_on": "2026-11-01", "confidence": "c",
        });
        for k in [
            "iops",
            "write_iops",
            "bw_bytes",
            "write_bw_bytes",
            "baseline_iops",
        ] {
            v[k] = 300.0.into();
        }
        v["baseline_bw_bytes"] = 1e6.into();
        serde_json::from_value(v).unwrap()
    }

    fn row(test: &str, reasons: &[&str]) -> Row {
        Row {
            test: test.into(),
            bs: 4096,
            metric: "iops",
            model: 300.0,
            measured: 2950.0,
            ratio: 9.8,
            verdict: "above",
            reasons: reasons.iter().map(|r| r.to_string()).collect(),
        }
    }

    /// A reason on every row (the burst note) is said in full once; the rows after it name
    /// it by its head, and a reason of one row alone is said in full there.
    #[test]
    fn a_reason_shared_by_rows_is_said_once() {
        let (m, burst) = (model(), "burst credits: within the burst rate; run longer");
        let rows = vec![
            row("a", &[burst]),
            row("b", &[burst, "page cache: buffered"]),
        ];
        let text = check(&[("r", &m, rows)]);
        assert_eq!(text.matches(burst).count(), 1, "{text}");
        assert_eq!(
            text.matches("- burst credits (as above)").count(),
            1,
            "{text}"
        );
        assert!(text.contains("- page cache: buffered"), "{text}");
    }
}
