//! fio's size and time units.
//!
//! fio's options read sizes as fio 3.33 does ([`parse_size_base`]): under its default
//! `kb_base=1024`, `4k`, `4KB` and `4Ki` are 4096 bytes, and `4KiB` is 4000 (fio's
//! "compatibility mode"). volbench's own options ([`parse_size`]) read every prefix as a power
//! of 1024. Bare numbers are bytes for sizes and seconds for times, as in fio.

use std::time::Duration;

/// A value that does not parse as the unit asked for.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("'{value}' is not a valid {what}: {hint}")]
pub struct UnitError {
    pub value: String,
    pub what: &'static str,
    pub hint: &'static str,
}

fn split_number(s: &str) -> Option<(f64, &str)> {
    let end = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    if end == 0 {
        return None;
    }
    let n: f64 = s[..end].parse().ok()?;
    Some((n, s[end..].trim()))
}

/// Parses a byte count such as `4k`, `1m`, `20g`, `1GiB` or `4096`: volbench's own options,
/// where every prefix, with or without `i` and `B`, is a power of 1024.
pub fn parse_size(s: &str) -> Result<u64, UnitError> {
    sized(s, |unit| {
        let u = unit
            .strip_suffix("ib")
            .or(unit.strip_suffix('b'))
            .unwrap_or(unit);
        Some(1024u64.pow(power(u)?))
    })
}

/// fio's sizes under its `kb_base`, as fio 3.33's parser reads them (`__get_mult_bytes`): the
/// suffix's first letter (k, m, g, t, p) is a power of `kb_base` (`4k`, `4KB`, `1Gi`), except
/// a suffix starting with `kib`, `mib`, `gib`, `tib` or `pib`, which takes the other base:
/// 1024 under `kb_base=1000`, and 1000 under fio's default 1024 (its "compatibility mode",
/// where `1MiB` is 1,000,000 bytes, checked against fio). `b` alone is bytes.
pub fn parse_size_base(s: &str, kb_base: u32) -> Result<u64, UnitError> {
    let other = if kb_base == 1000 { 1024 } else { 1000 };
    sized(s, |unit| {
        let iec = ["kib", "mib", "gib", "tib", "pib"]
            .iter()
            .any(|p| unit.starts_with(p));
        let first = unit.get(..1).unwrap_or("");
        let base = if iec { other } else { kb_base as u64 };
        match first {
            "" | "b" if unit.len() <= 1 => Some(1),
            _ => Some(base.pow(power(first)?)),
        }
    })
}

/// A unit letter's power: k 1, m 2, g 3, t 4, p 5; "" is bytes.
fn power(unit: &str) -> Option<u32> {
    Some(match unit {
        "" => 0,
        "k" => 1,
        "m" => 2,
        "g" => 3,
        "t" => 4,
        "p" => 5,
        _ => return None,
    })
}

/// A number with a unit suffix whose multiplier `mult` gives (lowercased), or hex.
fn sized(s: &str, mult: impl Fn(&str) -> Option<u64>) -> Result<u64, UnitError> {
    let err = || UnitError {
        value: s.to_string(),
        what: "size",
        hint: "use a number with an optional unit, e.g. 4k, 1m, 20g, 1GiB",
    };
    let t = s.trim();
    if let Some(hex) = t.strip_prefix("0x") {
        return u64::from_str_radix(hex, 16).map_err(|_| err());
    }
    let (n, unit) = split_number(t).ok_or_else(err)?;
    let mult = mult(&unit.to_ascii_lowercase()).ok_or_else(err)?;
    // Whole numbers are computed exactly (a float would round 2^64-1 up and saturate 2^64
    // silently); fractions such as 1.5g go through a float and must land on a whole byte.
    let digits = &t[..t.len()
        - t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.')
            .len()];
    if !digits.contains('.') {
        return digits
            .parse::<u64>()
            .ok()
            .and_then(|whole| whole.checked_mul(mult))
            .ok_or_else(|| UnitError {
                value: s.to_string(),
                what: "size",
                hint: "too large: sizes go up to 16 EiB - 1 byte",
            });
    }
    let v = n * mult as f64;
    if !v.is_finite() || v >= 18_446_744_073_709_551_616.0 || v.fract() != 0.0 {
        return Err(err());
    }
    Ok(v as u64)
}

/// Parses a duration such as `30`, `30s`, `2m`, `1h`, `500ms` or `100us`.
pub fn parse_duration(s: &str) -> Result<Duration, UnitError> {
    let err = || UnitError {
        value: s.to_string(),
        what: "time",
        hint: "use a number with an optional unit (us, ms, s, m, h, d), e.g. 30s or 2m",
    };
    let (n, unit) = split_number(s.trim()).ok_or_else(err)?;
    let nanos: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "s" | "sec" => 1_000_000_000,
        "us" | "usec" => 1_000,
        "ms" | "msec" => 1_000_000,
        "m" | "min" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        "d" => 86_400_000_000_000,
        _ => return Err(err()),
    };
    // A whole number is scaled exactly: through f64, 379130209844ms came back a millisecond
    // short, and the job printed another runtime than it was given.
    let digits = &s.trim()[..s.trim().len() - unit.len()];
    if let Ok(whole) = digits.trim().parse::<u64>() {
        let total = whole as u128 * nanos as u128;
        let secs = u64::try_from(total / 1_000_000_000).map_err(|_| err())?;
        return Ok(Duration::new(secs, (total % 1_000_000_000) as u32));
    }
    Duration::try_from_secs_f64(n * nanos as f64 / 1e9).map_err(|_| err())
}

/// Parses fio's boolean spellings: `1`/`0`, `true`/`false`, `yes`/`no`, `on`/`off`.
pub fn parse_bool(s: &str) -> Result<bool, UnitError> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(UnitError {
            value: s.to_string(),
            what: "boolean",
            hint: "use 1 or 0",
        }),
    }
}

/// A byte count the way fio's options spell it: `512`, `4k`, `1m`, `2g`. Parses back with
/// [`parse_size`].
pub fn short_size(v: u64) -> String {
    if v != 0 && v.is_multiple_of(1 << 30) {
        format!("{}g", v >> 30)
    } else if v != 0 && v.is_multiple_of(1 << 20) {
        format!("{}m", v >> 20)
    } else if v != 0 && v.is_multiple_of(1024) {
        format!("{}k", v >> 10)
    } else {
        v.to_string()
    }
}

/// Formats a byte count with binary units, as a person reads it: `4.0 KiB`, `1.5 GiB`.
pub fn format_bytes(v: f64) -> String {
    figures::fmt_bytes(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_fio_kb_base_1024() {
        assert_eq!(parse_size("4k").unwrap(), 4096);
        assert_eq!(parse_size("4K").unwrap(), 4096);
        assert_eq!(parse_size("4KB").unwrap(), 4096);
        assert_eq!(parse_size("1m").unwrap(), 1 << 20);
        assert_eq!(parse_size("20g").unwrap(), 20 << 30);
        assert_eq!(parse_size("1GiB").unwrap(), 1 << 30);
        assert_eq!(parse_size("512").unwrap(), 512);
        assert_eq!(parse_size("1.5k").unwrap(), 1536);
        assert_eq!(parse_size("0x1000").unwrap(), 4096);
    }

    /// fio 3.33's own readings (fio run with each size and `bs=512`, its io_bytes read back):
    /// under kb_base=1024 `1mi` is 1048576 and `1MiB` 1000000 (999936 after the block
    /// rounding); under kb_base=1000 `1mi` is 1000000 and `1MiB` 1048576.
    #[test]
    fn fio_sizes_read_as_fio_reads_them() {
        for (s, k1024, k1000) in [
            ("1mi", 1 << 20, 1_000_000),
            ("1MiB", 1_000_000, 1 << 20),
            ("1m", 1 << 20, 1_000_000),
            ("1MB", 1 << 20, 1_000_000),
            ("1Gi", 1 << 30, 1_000_000_000),
            ("4KiB", 4000, 4096),
            ("20GB", 20 << 30, 20_000_000_000),
            ("4096b", 4096, 4096),
        ] {
            assert_eq!(parse_size_base(s, 1024).unwrap(), k1024, "{s} under 1024");
            assert_eq!(parse_size_base(s, 1000).unwrap(), k1000, "{s} under 1000");
        }
        assert!(parse_size_base("4x", 1024).is_err());
    }

    #[test]
    fn size_2_pow_64_is_an_error_not_a_saturated_value() {
        assert_eq!(parse_size("18446744073709551615").unwrap(), u64::MAX);
        let e = parse_size("18446744073709551616").unwrap_err();
        assert!(e.hint.contains("too large"), "{e:?}");
        assert!(parse_size("16384p").is_err());
    }

    #[test]
    fn bad_sizes_are_errors() {
        for s in [
            "",
            "k",
            "4x",
            "-1",
            "1.3",
            "99999999999p",
            "18446744073709551616",
            "16384p",
        ] {
            assert!(parse_size(s).is_err(), "{s} should not parse");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("30s").unwrap(), Duration::from_secs(30));
        assert_eq!(parse_duration("2m").unwrap(), Duration::from_secs(120));
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("1h").unwrap(), Duration::from_secs(3600));
        assert!(parse_duration("soon").is_err());
    }

    #[test]
    fn short_sizes_parse_back() {
        for v in [512u64, 4096, 65536, 1 << 20, 3 << 30, 1536] {
            assert_eq!(parse_size(&short_size(v)).unwrap(), v);
        }
        assert_eq!(short_size(4096), "4k");
        assert_eq!(short_size(1 << 20), "1m");
    }

    #[test]
    fn byte_formatting() {
        assert_eq!(format_bytes(512.0), "512 B");
        assert_eq!(format_bytes(4096.0), "4.0 KiB");
        assert_eq!(format_bytes(1.5 * (1u64 << 30) as f64), "1.5 GiB");
        // One block short of 1 GiB rounds to 1.0 GiB, never "1024.0 MiB".
        assert_eq!(format_bytes(((1u64 << 30) - 4096) as f64), "1.0 GiB");
    }
}
