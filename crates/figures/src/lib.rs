//! How volbench writes a figure for people: a latency with its unit, a count such as IOPS.
//! Every message, report and table formats through here, so one figure reads the same in a
//! warning, the text report and the HTML. Byte sizes use fio's size syntax, which lives with
//! its parser in `workload`.

/// A latency with a unit a person reads without counting digits: 850 ns, 12.3 µs, 4.56 ms,
/// 1.20 s.
pub fn fmt_ns(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.1} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

/// A count as reports print it: 7733, 21.7k, 2.01M; below one with its first digits (0.40,
/// 0.012), never a bare 0 for a rate that is not zero.
pub fn fmt_count(v: f64) -> String {
    // A difference can be negative: the same scale, with its sign.
    if v < 0.0 {
        return format!("-{}", fmt_count(-v));
    }
    if v > 0.0 && v < 0.1 {
        format!("{v:.3}")
    } else if v > 0.0 && v < 1.0 {
        format!("{v:.2}")
    } else if v < 1e4 {
        format!("{v:.0}")
    } else if v < 1e6 {
        format!("{:.1}k", v / 1e3)
    } else {
        format!("{:.2}M", v / 1e6)
    }
}

/// A whole number exactly, its digits in groups of three: 100,002 (a count a person may
/// act on, where 100.0k would hide the last rows).
pub fn fmt_thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A duration a person reads at a glance: 45 s, 3.5 min, 1.2 h.
pub fn fmt_secs(s: f64) -> String {
    if s >= 3600.0 {
        format!("{:.1} h", s / 3600.0)
    } else if s >= 120.0 {
        format!("{:.1} min", s / 60.0)
    } else {
        format!("{s:.0} s")
    }
}

/// A byte count with binary units, as a person reads it: `4.0 KiB`, `1.5 GiB`.
pub fn fmt_bytes(v: f64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut x = v;
    let mut i = 0;
    // 1023.96 MiB would print as "1024.0 MiB": move up a unit wherever rounding reaches 1024.
    while x >= 1023.95 && i + 1 < UNITS.len() {
        x /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{x:.0} {}", UNITS[i])
    } else {
        format!("{x:.1} {}", UNITS[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latencies_carry_their_unit() {
        let got: Vec<String> = [850.0, 12_340.0, 4_560_000.0, 1.2e9].map(fmt_ns).into();
        assert_eq!(got, ["850 ns", "12.3 µs", "4.56 ms", "1.20 s"]);
    }

    /// Regression (issue 20): IOPS below one printed as "0".
    #[test]
    fn a_small_rate_is_never_a_bare_zero() {
        let got: Vec<String> = [0.012, 0.4, 0.0, 7733.0, 21_700.0, 2_010_000.0]
            .map(fmt_count)
            .into();
        assert_eq!(got, ["0.012", "0.40", "0", "7733", "21.7k", "2.01M"]);
        // A negative one (a difference) keeps its scale: not "-152197".
        assert_eq!(fmt_count(-152_197.0), "-152.2k");
    }
}
