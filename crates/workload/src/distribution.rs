//! fio's `random_distribution`: which blocks a random job favours. Parsed here, sampled by the
//! runner.

use serde::{Deserialize, Serialize};

/// How a random job draws its blocks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Distribution {
    /// Every block alike (each once per pass unless `norandommap`).
    #[default]
    Random,
    /// Block popularity falls as rank^-theta (`zipf:theta`, theta > 0 and not 1).
    Zipf(f64),
    /// The `h`, `1 - h` rule (`pareto:h`, 0 < h < 1): with 0.8, 80 % of the I/O on 20 % of
    /// the blocks, and so on within them.
    Pareto(f64),
    /// Normal around the region's middle, its standard deviation this percentage of the
    /// region (`normal:dev`).
    Normal(f64),
    /// (share of the I/O, share of the region), in percent, in order from the region's start
    /// (`zoned:60/10:30/20:10/70`).
    Zoned(Vec<(u8, u8)>),
    /// (share of the I/O, bytes), in order from the region's start (`zoned_abs:60/20g:40/1t`).
    ZonedAbs(Vec<(u8, u64)>),
}

impl Distribution {
    /// fio's syntax; `Err` says what is wrong.
    pub fn parse(s: &str) -> Result<Distribution, String> {
        Distribution::parse_fio(s, 1024).map(|(d, _)| d)
    }

    /// fio's syntax with its optional center (`zipf:1.2:0.25`: zipf, pareto and normal; a
    /// share of the region from 0 to 1) and `zoned_abs` sizes in units of `kb_base`.
    pub fn parse_fio(s: &str, kb_base: u32) -> Result<(Distribution, Option<f64>), String> {
        let s = s.trim();
        let (kind, arg) = s.split_once(':').unwrap_or((s, ""));
        if kind == "zoned_abs" {
            return zones_abs(arg, kb_base).map(|z| (Distribution::ZonedAbs(z), None));
        }
        let (arg, center) = match kind {
            "zipf" | "pareto" | "normal" | "gauss" => split_center(arg)?,
            _ => (arg, None),
        };
        Distribution::parse_kind(kind, arg).map(|d| (d, center))
    }

    fn parse_kind(kind: &str, arg: &str) -> Result<Distribution, String> {
        let num = |what: &str| -> Result<f64, String> {
            arg.trim()
                .parse::<f64>()
                .map_err(|_| format!("{kind} needs {what}, e.g. {kind}:{}", example(kind)))
        };
        match kind {
            "random" => Ok(Distribution::Random),
            "zipf" => match num("a theta")? {
                t if t > 0.0 && t != 1.0 && t.is_finite() => Ok(Distribution::Zipf(t)),
                _ => Err("zipf's theta must be above 0 and not 1".into()),
            },
            "pareto" => match num("an h")? {
                h if h > 0.0 && h < 1.0 => Ok(Distribution::Pareto(h)),
                _ => Err("pareto's h must be between 0 and 1".into()),
            },
            "normal" | "gauss" => match num("a deviation in percent")? {
                d if d > 0.0 && d <= 100.0 => Ok(Distribution::Normal(d)),
                _ => Err("normal's deviation must be above 0 and at most 100 (percent)".into()),
            },
            "zoned" => zones(arg).map(Distribution::Zoned),
            _ => Err(
                "use random, zipf:T, pareto:H, normal:DEV, zoned:IO/SIZE:... or zoned_abs:IO/BYTES:..."
                    .into(),
            ),
        }
    }

    /// fio's form, for `--showcmd`.
    pub fn fio_form(&self) -> String {
        match self {
            Distribution::Random => "random".into(),
            Distribution::Zipf(t) => format!("zipf:{t}"),
            Distribution::Pareto(h) => format!("pareto:{h}"),
            Distribution::Normal(d) => format!("normal:{d}"),
            Distribution::Zoned(z) => {
                let parts: Vec<String> = z.iter().map(|(io, sz)| format!("{io}/{sz}")).collect();
                format!("zoned:{}", parts.join(":"))
            }
            Distribution::ZonedAbs(z) => {
                let parts: Vec<String> = z.iter().map(|(io, sz)| format!("{io}/{sz}")).collect();
                format!("zoned_abs:{}", parts.join(":"))
            }
        }
    }
}

fn example(kind: &str) -> &'static str {
    match kind {
        "zipf" => "1.2",
        "pareto" => "0.8",
        _ => "10",
    }
}

/// A skewed kind's parameter and fio 3.26's optional center after it (`1.2:0.25`), a share
/// from 0 to 1; random_distribution and file_service_type read it alike.
pub fn split_center(arg: &str) -> Result<(&str, Option<f64>), String> {
    let Some((param, c)) = arg.split_once(':') else {
        return Ok((arg, None));
    };
    let c = c
        .trim()
        .parse::<f64>()
        .ok()
        .filter(|c| (0.0..=1.0).contains(c));
    let c = c.ok_or("the center after the second ':' is from 0 to 1, e.g. zipf:1.2:0.25")?;
    Ok((param, Some(c)))
}

/// A zone's share in percent (`60`, `60%`), at most 100.
fn percent(v: &str) -> Option<u8> {
    v.trim()
        .trim_end_matches('%')
        .parse::<u8>()
        .ok()
        .filter(|p| *p <= 100)
}

/// `60/10:30/20:10/70`: the I/O shares and the region shares must each add up to 100. As in
/// fio, a last zone without a size (`20/`) takes the rest of the region.
fn zones(arg: &str) -> Result<Vec<(u8, u8)>, String> {
    let mut z = Vec::new();
    let parts: Vec<&str> = arg.split(':').collect();
    for (i, part) in parts.iter().enumerate() {
        if let Some(io) = part.strip_suffix('/').filter(|_| i + 1 == parts.len()) {
            let used: u32 = z.iter().map(|x: &(u8, u8)| x.1 as u32).sum();
            match (percent(io), 100u32.checked_sub(used)) {
                (Some(a), Some(rest)) => z.push((a, rest as u8)),
                _ => return Err(format!("zone '{part}' needs a percentage, e.g. 20/")),
            }
            continue;
        }
        let (io, size) = part
            .split_once('/')
            .ok_or_else(|| format!("zone '{part}' is not IO%/SIZE%, e.g. 60/10"))?;
        match (percent(io), percent(size)) {
            (Some(a), Some(b)) => z.push((a, b)),
            _ => return Err(format!("zone '{part}' needs two percentages, e.g. 60/10")),
        }
    }
    let io: u32 = z.iter().map(|x| x.0 as u32).sum();
    let size: u32 = z.iter().map(|x| x.1 as u32).sum();
    if io != 100 || size != 100 {
        return Err(format!(
            "the zones' I/O shares add up to {io} and their sizes to {size}: both must be 100"
        ));
    }
    Ok(z)
}

/// `60/20g:40/100g`: each zone's I/O share (adding up to 100) and its size in bytes, from the
/// region's start, as fio's zoned_abs.
fn zones_abs(arg: &str, kb_base: u32) -> Result<Vec<(u8, u64)>, String> {
    let mut z = Vec::new();
    for part in arg.split(':') {
        let (io, size) = part
            .split_once('/')
            .ok_or_else(|| format!("zone '{part}' is not IO%/SIZE, e.g. 60/20g"))?;
        let io = percent(io);
        let size = crate::units::parse_size_base(size.trim(), kb_base)
            .ok()
            .filter(|s| *s > 0);
        match (io, size) {
            (Some(a), Some(b)) => z.push((a, b)),
            _ => {
                return Err(format!(
                    "zone '{part}' needs a percentage and a size, e.g. 60/20g"
                ))
            }
        }
    }
    let io: u32 = z.iter().map(|x| x.0 as u32).sum();
    if io != 100 {
        return Err(format!(
            "the zones' I/O shares add up to {io}: they must be 100"
        ));
    }
    Ok(z)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_fios_forms_and_names_what_is_wrong() {
        assert_eq!(Distribution::parse("zipf:1.2"), Ok(Distribution::Zipf(1.2)));
        assert_eq!(
            Distribution::parse("pareto:0.9"),
            Ok(Distribution::Pareto(0.9))
        );
        assert_eq!(
            Distribution::parse("normal:5"),
            Ok(Distribution::Normal(5.0))
        );
        assert_eq!(
            Distribution::parse("zoned:60/10:30/20:10/70"),
            Ok(Distribution::Zoned(vec![(60, 10), (30, 20), (10, 70)]))
        );
        assert!(Distribution::parse("zipf:1").unwrap_err().contains("not 1"));
        assert!(Distribution::parse("zoned:60/10:30/20")
            .unwrap_err()
            .contains("90"));
        // fio's rand-zones.fio: the last zone takes the rest.
        assert_eq!(
            Distribution::parse("zoned:50/5:30/15:20/"),
            Ok(Distribution::Zoned(vec![(50, 5), (30, 15), (20, 80)]))
        );
        assert!(Distribution::parse("lognormal:2")
            .unwrap_err()
            .contains("zipf:T"));
        for d in [
            "zipf:1.2",
            "pareto:0.9",
            "normal:5",
            "zoned:60/10:40/90",
            "zoned_abs:60/1048576:40/4096",
            "random",
        ] {
            assert_eq!(Distribution::parse(d).unwrap().fio_form(), d);
        }
        // fio 3.26's center, and zoned_abs with fio's units.
        assert_eq!(
            Distribution::parse_fio("zipf:1.2:0.25", 1024),
            Ok((Distribution::Zipf(1.2), Some(0.25)))
        );
        assert!(Distribution::parse_fio("normal:5:2", 1024).is_err());
        assert_eq!(
            Distribution::parse_fio("zoned_abs:60/1m:40/4k", 1024),
            Ok((
                Distribution::ZonedAbs(vec![(60, 1 << 20), (40, 4096)]),
                None
            ))
        );
        assert!(Distribution::parse("zoned_abs:60/1m:30/4k")
            .unwrap_err()
            .contains("90"));
    }
}
