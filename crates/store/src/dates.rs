//! History's date bounds (`--since`, `--until`, serve's `?since=`): RFC 3339 with any offset,
//! turned into the form the stored times have (UTC, whole seconds, `Z`), so that comparing
//! the stored text compares instants. One parser for the command line and the server alike.

use std::time::{Duration, SystemTime};

/// `2026-11-01`, `2026-11-01T08:00:00+09:00`, `2026-11-01 08:00Z`, ... as UTC text.
pub fn utc(s: &str) -> Result<String, String> {
    let s = s.trim();
    let fix = "write a date (2026-11-01) or an RFC 3339 time (2026-11-01T08:00:00Z, or with an offset: +09:00)";
    let (local, offset) = split_offset(s).ok_or_else(|| format!("not a date or time: {fix}"))?;
    let local = if local.len() == 10 {
        format!("{local}T00:00:00")
    } else if local.len() == 16 {
        format!("{local}:00") // minutes without seconds
    } else {
        local.to_string()
    };
    let t = humantime::parse_rfc3339_weak(&local)
        .map_err(|e| format!("not a date or time ({e}): {fix}"))?;
    let t = shift(t, -offset).ok_or_else(|| format!("out of range: {fix}"))?;
    Ok(humantime::format_rfc3339_seconds(t).to_string())
}

/// The text before the offset, and the offset east of UTC in seconds (`Z` or none: 0).
fn split_offset(s: &str) -> Option<(&str, i64)> {
    if let Some(l) = s.strip_suffix(['Z', 'z']) {
        return Some((l, 0));
    }
    if s.len() > 10 {
        let tail_at = s.len().checked_sub(6)?;
        let tail = s.get(tail_at..)?;
        let sign = match tail.as_bytes()[0] {
            b'+' => 1,
            b'-' => -1,
            _ => return Some((s, 0)),
        };
        let (h, m) = tail[1..].split_once(':')?;
        let (h, m): (i64, i64) = (h.parse().ok()?, m.parse().ok()?);
        if h > 23 || m > 59 {
            return None;
        }
        return Some((&s[..tail_at], sign * (h * 3600 + m * 60)));
    }
    Some((s, 0))
}

fn shift(t: SystemTime, secs: i64) -> Option<SystemTime> {
    let d = Duration::from_secs(secs.unsigned_abs());
    if secs >= 0 {
        t.checked_add(d)
    } else {
        t.checked_sub(d)
    }
}

#[cfg(test)]
mod tests {
    use super::utc;

    #[test]
    fn dates_and_times_with_any_offset_become_utc() {
        assert_eq!(utc("2026-11-01").unwrap(), "2026-11-01T00:00:00Z");
        assert_eq!(
            utc("2026-11-01T08:00:00+09:00").unwrap(),
            "2026-10-31T23:00:00Z"
        );
        assert_eq!(
            utc("2026-11-01 08:00:00-05:30").unwrap(),
            "2026-11-01T13:30:00Z"
        );
        assert_eq!(utc("2026-11-01T08:00Z").unwrap(), "2026-11-01T08:00:00Z");
        assert_eq!(
            utc("2026-11-01T08:00:00.75Z").unwrap(),
            "2026-11-01T08:00:00Z"
        );
        for bad in [
            "garbage",
            "2026-13-01",
            "2026-11-01T25:00:00Z",
            "yesterday",
            "2026-11-01T08:00:00+99:00",
            "",
        ] {
            assert!(utc(bad).is_err(), "{bad}");
        }
    }
}
