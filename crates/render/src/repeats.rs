//! A repeated run's spread in the formats that have a table: every figure with its mean, 95 %
//! confidence interval, coefficient of variation and extremes (Markdown, CSV, HTML), and the
//! runs themselves (CSV rows, HTML dots).

use report::repeats::{RepeatStats, Repeats};
use stats::Spread;

/// Every figure with a spread: (name, unit: `iops`, `bytes_per_s` or `ns`, its spread).
pub fn figures(st: &RepeatStats) -> Vec<(String, &'static str, &Spread)> {
    let mut v = vec![
        ("IOPS".to_string(), "iops", &st.iops),
        ("bandwidth".to_string(), "bytes_per_s", &st.bw_bytes),
    ];
    for (dir, d) in [("read", &st.read), ("write", &st.write)] {
        if let Some(d) = d {
            v.push((format!("{dir} IOPS"), "iops", &d.iops));
            v.push((format!("{dir} lat mean"), "ns", &d.lat_mean_ns));
            v.push((format!("{dir} lat p50"), "ns", &d.lat_p50_ns));
            v.push((format!("{dir} lat p90"), "ns", &d.lat_p90_ns));
            v.push((format!("{dir} lat p99"), "ns", &d.lat_p99_ns));
            v.push((format!("{dir} lat p99.9"), "ns", &d.lat_p999_ns));
        }
    }
    v
}

/// A value in its unit, as the tables print it.
pub fn value(unit: &str, v: f64) -> String {
    match unit {
        "bytes_per_s" => format!("{}/s", figures::fmt_bytes(v)),
        "ns" => figures::fmt_ns(v),
        _ => figures::fmt_count(v),
    }
}

/// The Markdown table of a repeated run's spread.
pub fn markdown(rep: &Repeats) -> String {
    let mut out = format!(
        "\n**{} runs** (each figure above is their mean; 95 % confidence interval of the mean, \
         Student's t)\n\n| figure | mean | 95 % CI | cv | min | max |\n|---|---:|---:|---:|---:|---:|\n",
        rep.n
    );
    for (name, unit, s) in figures(&rep.stats) {
        out.push_str(&format!(
            "| {name} | {} | {} – {} | {:.1} % | {} | {} |\n",
            value(unit, s.mean),
            value(unit, s.ci95[0]),
            value(unit, s.ci95[1]),
            s.cv * 100.0,
            value(unit, s.min),
            value(unit, s.max)
        ));
    }
    if let Some(u) = &rep.until_stable {
        out.push_str(&format!(
            "\nuntil stable within {} %: {} ({} runs, half-width {:.1} %)\n",
            u.target_pct,
            if u.reached { "reached" } else { "not reached" },
            rep.n,
            u.half_width_pct
        ));
    }
    out
}
