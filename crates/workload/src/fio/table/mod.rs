//! The fio option table, as fio's `fio_options[]`: one entry per option with its name, aliases,
//! value kind and range, support status, help and how it sets and prints a [`JobSpec`].
//!
//! Everything that knows an option by name reads it from here: the job-file parser and fio's
//! command line (through [`apply`]), `--showcmd` and fio-JSON's options echo (through
//! [`show`]), `volbench run --help`, the man page and completions (through [`all`]) and
//! docs/fio-compatibility.md (through `docs::markdown`). The entries live in one file per
//! category, so that adding an option touches one place.

mod data;
mod engine;
mod files;
mod known;
mod latency;
mod logs;
pub mod names;
mod pattern;
mod prio;
mod replay;
mod steady;
mod timing;

use super::arith::{resolve, Units};
use super::OptError;
use crate::spec::JobSpec;
use crate::units::{parse_bool, parse_duration, UnitError};
use std::time::Duration;

/// What an option's value is: drives the parsing helpers, `--help`'s value names and the
/// completions' choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Bare, or 0/1 (also true/false, on/off).
    Flag,
    /// A whole number from `min` to `max`.
    Int { min: u64, max: u64 },
    /// Bytes with fio's units (`4k`, `1m`), or a form of sizes (`4k-64k`, `4k/50:64k/50`).
    Size,
    /// A time (`30s`, `2m`, `500ms`; a number alone is seconds unless the option says).
    Time,
    /// One of these words.
    Choice(&'static [&'static str]),
    /// Free text: names, paths, lists, patterns.
    Text,
}

impl Kind {
    /// The value's name in `--help` (`--bs=SIZE`).
    pub fn value_name(self) -> &'static str {
        match self {
            Kind::Flag => "BOOL",
            Kind::Int { .. } => "N",
            Kind::Size => "SIZE",
            Kind::Time => "TIME",
            Kind::Choice(_) => "WORD",
            Kind::Text => "TEXT",
        }
    }
}

/// What volbench does with the option.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Support {
    /// Means what it means in fio.
    Yes,
    /// Accepted; it changes how fio measures or submits, not the I/O: the note says what it
    /// means here, as a warning.
    Note(&'static str),
    /// Skipped with a warning: it only shapes logs or reports volbench does not produce.
    Ignored,
    /// Refused: it changes the I/O in a way volbench does not do.
    No,
}

/// The option's family, for `--help` headings and the docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    Job,
    Pattern,
    Files,
    Timing,
    Engine,
    Data,
    Reporting,
    Other,
}

impl Category {
    pub const ALL: [Category; 8] = [
        Category::Job,
        Category::Pattern,
        Category::Files,
        Category::Timing,
        Category::Engine,
        Category::Data,
        Category::Reporting,
        Category::Other,
    ];
    pub fn title(self) -> &'static str {
        match self {
            Category::Job => "Job and units",
            Category::Pattern => "I/O pattern",
            Category::Files => "Files, sizes and layout",
            Category::Timing => "Time, rate and order",
            Category::Engine => "Engine, syncs and placement",
            Category::Data => "Data and verification",
            Category::Reporting => "Logs and reports",
            Category::Other => "Other fio options",
        }
    }
}

/// When an option applies within its section: first (it changes how later values read), in
/// the order written, or last (it is checked against others).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    First,
    Written,
    Last,
}

/// Sets a job from a value.
pub type Setter = fn(&mut JobSpec, &Val) -> Result<(), OptError>;
/// The option's value in a job, as fio writes it (`None`: not set, nothing to print).
pub type Shower = fn(&JobSpec) -> Option<String>;
/// A warning for a value volbench runs differently from fio (`ioengine=sync` runs as psync).
pub type Noter = fn(&str) -> Option<String>;

/// One fio option.
pub struct FioOption {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub kind: Kind,
    pub category: Category,
    pub support: Support,
    pub phase: Phase,
    /// One line: what it does (`--help`).
    pub help: &'static str,
    /// What volbench does beyond the line, checked against fio how (docs only).
    pub details: &'static str,
    /// A value for "needs a value, e.g. ..." and the round-trip test ("" for a flag).
    pub example: &'static str,
    pub set: Setter,
    /// `None` for options that only set what another option prints (`buffered` is `direct`).
    pub show: Option<Shower>,
    pub note: Option<Noter>,
    /// Listed in `volbench run -h` (all are in `--help`).
    pub common: bool,
    /// Its place among the options `volbench sweep` takes lists for, outermost first; 0: it
    /// takes one value there.
    pub sweep: u8,
}

impl FioOption {
    /// A supported option with nothing but what every entry needs; the rest by `..`.
    pub const fn new(
        name: &'static str,
        category: Category,
        kind: Kind,
        help: &'static str,
        example: &'static str,
        set: Setter,
    ) -> FioOption {
        FioOption {
            name,
            aliases: &[],
            kind,
            category,
            support: Support::Yes,
            phase: Phase::Written,
            help,
            details: "",
            example,
            set,
            show: None,
            note: None,
            common: false,
            sweep: 0,
        }
    }

    /// A fio option volbench knows but does not run as fio would (`support` says how).
    pub const fn known(name: &'static str, support: Support, help: &'static str) -> FioOption {
        FioOption {
            name,
            aliases: &[],
            kind: Kind::Text,
            category: Category::Other,
            support,
            phase: Phase::Written,
            help,
            details: "",
            example: "1",
            set: match support {
                Support::Note(_) => accept,
                _ => refuse,
            },
            show: None,
            note: None,
            common: false,
            sweep: 0,
        }
    }

    /// Whether a value must follow the name (`--bs 4k` takes the next word; `--time_based`,
    /// `--write_bw_log` with its prefix left out, or a refused option do not): what the setter
    /// says when given none, so the table cannot say otherwise.
    pub fn takes_value(&'static self) -> bool {
        let none = Val {
            opt: self,
            raw: None,
            kb: 1024,
        };
        matches!(
            (self.set)(&mut JobSpec::default(), &none),
            Err(OptError::MissingValue { .. })
        )
    }

    /// The option's value in `j` as help and docs show a default: a bare flag reads `on`;
    /// `None` when it is unset there (or prints through another option).
    pub fn shown_in(&self, j: &JobSpec) -> Option<String> {
        let v = self.show.and_then(|f| f(j))?;
        Some(if v.is_empty() { "on".into() } else { v })
    }

    /// Whether a job file may use it (supported, noted, or skipped with a warning).
    pub fn accepted(&self) -> bool {
        self.support != Support::No
    }
}

fn refuse(_: &mut JobSpec, v: &Val) -> Result<(), OptError> {
    let hint = if v.opt.support == Support::Ignored {
        ": it only affects logs or reporting, so a job file may keep it (skipped with a warning)"
            .to_string()
    } else {
        // Every refused option says why, and what to do instead.
        format!(
            ": {}; remove it (it changes the I/O, so it cannot be skipped)",
            v.opt.details
        )
    };
    Err(OptError::Unsupported {
        key: v.opt.name.into(),
        hint,
    })
}

/// Accepts the option and changes nothing (noted options, and those volbench always does).
pub(crate) fn accept(_: &mut JobSpec, v: &Val) -> Result<(), OptError> {
    if v.opt.kind == Kind::Flag {
        v.flag()?;
    }
    Ok(())
}

const GROUPS: &[&[FioOption]] = &[
    engine::JOB,
    pattern::OPTIONS,
    files::OPTIONS,
    timing::OPTIONS,
    steady::OPTIONS,
    latency::OPTIONS,
    replay::OPTIONS,
    engine::OPTIONS,
    prio::OPTIONS,
    data::OPTIONS,
    logs::OPTIONS,
    known::NOTED,
    known::IGNORED,
    known::REFUSED,
];

/// Every option, in the table's order (the order `--showcmd` prints them in).
pub fn all() -> impl Iterator<Item = &'static FioOption> {
    GROUPS.iter().flat_map(|g| g.iter())
}

/// The options `volbench sweep` takes lists for, outermost first.
pub fn sweep_axes() -> Vec<&'static FioOption> {
    let mut axes: Vec<_> = all().filter(|o| o.sweep > 0).collect();
    axes.sort_by_key(|o| o.sweep);
    axes
}

/// The option a name (or fio alias) means; `--` and case are ignored, as fio does.
pub fn find(key: &str) -> Option<&'static FioOption> {
    let key = key.trim_start_matches("--");
    all().find(|o| {
        o.name.eq_ignore_ascii_case(key) || o.aliases.iter().any(|a| a.eq_ignore_ascii_case(key))
    })
}

/// One option's value as an option's setter reads it, with the parsing helpers every setter
/// shares (each error names the option and the value).
pub struct Val<'a> {
    pub opt: &'static FioOption,
    pub raw: Option<&'a str>,
    /// The units of sizes: 1024 (fio's default) or 1000 (`kb_base=1000`).
    pub kb: u32,
}

impl<'a> Val<'a> {
    /// The value, which this option needs.
    pub fn need(&self) -> Result<&'a str, OptError> {
        self.raw
            .filter(|s| !s.is_empty())
            .ok_or(OptError::MissingValue {
                key: self.opt.name.into(),
                example: self.opt.example,
            })
    }

    /// A bare flag is on.
    pub fn flag(&self) -> Result<bool, OptError> {
        match self.raw {
            None => Ok(true),
            Some(s) => parse_bool(s).map_err(|e| self.unit(s, e)),
        }
    }

    /// A whole number in the option's range. fio reads a whole number as it reads a size, so
    /// `iodepth=1k` is 1024 (under kb_base=1000, 1000).
    pub fn int<T: TryFrom<u64>>(&self) -> Result<T, OptError> {
        let s = self.need()?;
        let n: u64 = match num(self.opt.name, s) {
            Ok(n) => n,
            Err(e) => crate::units::parse_size_base(s, self.kb).map_err(|_| e)?,
        };
        if let Kind::Int { min, max } = self.opt.kind {
            if n < min || n > max {
                return Err(self.bad(s, format!("use {min} to {max}")));
            }
        }
        T::try_from(n).map_err(|_| self.bad(s, "too large"))
    }

    /// One size with fio's units.
    pub fn size(&self) -> Result<u64, OptError> {
        self.size_of(self.need()?)
    }

    /// A part of the value as a size.
    pub fn size_of(&self, s: &str) -> Result<u64, OptError> {
        crate::units::parse_size_base(s, self.kb).map_err(|e| self.unit(s, e))
    }

    pub fn time(&self) -> Result<Duration, OptError> {
        let s = self.need()?;
        parse_duration(s).map_err(|e| self.unit(s, e))
    }

    /// The index of the value among the option's choices.
    pub fn choice(&self) -> Result<usize, OptError> {
        let s = self.need()?;
        let Kind::Choice(words) = self.opt.kind else {
            return Err(self.bad(s, "no choices"));
        };
        words.iter().position(|w| *w == s.trim()).ok_or_else(|| {
            let (last, rest) = words.split_last().unwrap_or((&"", &[]));
            self.bad(s, format!("use {} or {last}", rest.join(", ")))
        })
    }

    pub fn bad(&self, value: &str, why: impl Into<String>) -> OptError {
        bad(self.opt.name, value, why)
    }

    fn unit(&self, v: &str, e: UnitError) -> OptError {
        // fio reads only the leading number of `3*1k` (it computes values in parentheses or
        // holding $keywords): say how to have it computed instead of running on 3.
        if v.contains(['*', '/', '+', '^']) && !v.trim_start().starts_with('(') {
            return self.bad(
                v,
                format!("fio would read only its leading number; to compute it, write ({v})"),
            );
        }
        self.bad(v, format!("not a valid {} ({})", e.what, e.hint))
    }
}

pub(crate) fn bad(key: &str, value: &str, why: impl Into<String>) -> OptError {
    OptError::BadValue {
        key: crate::shown(key),
        value: crate::shown(value),
        why: why.into(),
    }
}

/// The per-direction parts of a numeric option's value (reads, writes, trims), split as fio's
/// `handle_option` splits them: at the first `,`, or where there is none at the first `:`,
/// or else at the first `-` that is not a leading sign. So `bs=4k-16k` and `bs=4k:16k` are
/// fio's `bs=4k,16k` (reads 4k, writes 16k), not a range; `4k-8k,16k` is 4k and 16k (the part
/// before the comma keeps its leading number). A `,` at the very end ends the value but still
/// makes a second, empty part (`bs=8k,` leaves the writes at what they were).
pub(crate) fn fio_sides(value: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut rest = value;
    loop {
        let at = rest.find(',').or_else(|| rest.find(':')).or_else(|| {
            let skip = usize::from(rest.starts_with('-'));
            rest[skip..].find('-').map(|i| i + skip)
        });
        match at {
            Some(i) => {
                parts.push(&rest[..i]);
                rest = &rest[i + 1..];
            }
            None => {
                parts.push(rest);
                return parts;
            }
        }
    }
}

/// A value written as a percentage: the number before `%`, or before fio's escaped `%%`
/// (`size=100%%`, as fio's own examples write it).
pub(crate) fn percent(s: &str) -> Option<&str> {
    let s = s.trim();
    s.strip_suffix("%%").or_else(|| s.strip_suffix('%'))
}

/// A whole number as fio reads an integer option: plain, or with a size suffix in fio's
/// default `kb_base` (`rate_iops=1k` is 1024 to fio 3.33, which it measured at 1,023 IOPS).
pub(crate) fn num<T: std::str::FromStr>(key: &str, v: &str) -> Result<T, OptError> {
    let t = v.trim();
    t.parse()
        .ok()
        .or_else(|| {
            let n = crate::units::parse_size_base(t, 1024).ok()?;
            n.to_string().parse().ok()
        })
        .ok_or_else(|| bad(key, v, "not a whole number"))
}

/// Applies one option to a job, as fio documents it.
pub fn apply(j: &mut JobSpec, key: &str, v: Option<&str>) -> Result<(), OptError> {
    let Some(opt) = find(key) else {
        return Err(OptError::Unknown {
            key: crate::shown(key),
            suggestion: suggestion(key),
        });
    };
    let units = match opt.kind {
        Kind::Int { .. } | Kind::Size => Some(Units::Number),
        Kind::Time => Some(Units::Time),
        _ => None,
    };
    let v = v.map(|s| leading_number(opt.kind, s).map_or(s, |(n, _)| n));
    let v = v
        .map(|s| resolve(s, units).map_err(|why| bad(opt.name, s, why)))
        .transpose()?;
    let val = Val {
        opt,
        raw: v.as_deref(),
        kb: j.kb_base,
    };
    (opt.set)(j, &val)
}

fn suggestion(key: &str) -> String {
    // No option name is longer than 30 characters; a longer key is no typo of one, and the
    // edit-distance search would cost time proportional to its length.
    if key.len() > 40 {
        return String::new();
    }
    let best = all()
        .flat_map(|o| std::iter::once(&o.name).chain(o.aliases))
        .map(|k| (strsim::damerau_levenshtein(key, k), *k))
        .filter(|(d, _)| *d <= 2)
        .min();
    match best {
        Some((_, k)) => format!(" (did you mean '{k}'?)"),
        None => String::new(),
    }
}

/// A numeric value followed by a blank and more text: the number with its unit letters, and
/// the text. fio reads such a value's leading number and unit and ignores the rest (parse.c's
/// `str_to_decimal`: `numjobs=8  // eight jobs` is 8, `size=2g  // per job` 2 GiB, and
/// `size=2 g` 2 bytes, since the unit must touch the number), as job files pasted from
/// write-ups with `//` notes rely on.
fn leading_number(kind: Kind, v: &str) -> Option<(&str, &str)> {
    if !matches!(
        kind,
        Kind::Flag | Kind::Int { .. } | Kind::Size | Kind::Time
    ) {
        return None;
    }
    let (head, rest) = v.trim().split_once(char::is_whitespace)?;
    let digits = head.trim_start_matches(['+', '-']);
    let unit = digits.trim_start_matches(|c: char| c.is_ascii_digit());
    let number = unit.len() < digits.len();
    (number && unit.chars().all(|c| c.is_ascii_alphabetic() || c == '%'))
        .then_some((head, rest.trim()))
}

/// What volbench does with an accepted option that fio treats differently, if anything.
pub fn note(key: &str, value: Option<&str>) -> Option<String> {
    let opt = find(key)?;
    let split = value.and_then(|v| leading_number(opt.kind, v));
    let value = split.map(|(n, _)| n).or(value);
    let ignored = split.map(|(n, rest)| {
        format!(
            "{}={n}: the text after it ('{}') is ignored, as fio ignores what follows a number \
             and a blank",
            opt.name,
            crate::shown(rest)
        )
    });
    let own = match opt.support {
        Support::Note(n) => Some(format!("{} accepted: {n}", opt.name)),
        _ => opt.note.and_then(|f| f(value?.trim())),
    };
    match (ignored, own) {
        (Some(a), Some(b)) => Some(format!("{a}; {b}")),
        (a, b) => a.or(b),
    }
}

/// The options that turn `d` (a set of defaults) into `j`, the name first (it starts a job on
/// fio's command line).
pub fn options_against(j: &JobSpec, d: &JobSpec) -> Vec<(String, String)> {
    let mut o = vec![(names::NAME.to_string(), j.name.clone())];
    for opt in all().filter(|o| o.name != names::NAME) {
        let Some(show) = opt.show else { continue };
        let v = show(j);
        if v.is_some() && v != show(d) {
            o.push((opt.name.to_string(), v.unwrap_or_default()));
        }
    }
    o
}

/// A size as a job prints it: under kb_base=1000 a printed `4k` would read back as 4000, so
/// sizes go out in bytes there.
pub(crate) fn show_size(j: &JobSpec, v: u64) -> String {
    if j.kb_base == 1000 {
        v.to_string()
    } else {
        crate::units::short_size(v)
    }
}

/// A duration as fio writes it: whole seconds as `30s`, else milliseconds.
pub(crate) fn show_time(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{}s", d.as_secs())
    } else {
        format!("{}ms", d.as_millis())
    }
}

/// A flag printed bare when on and `0` when off.
pub(crate) fn show_flag(on: bool) -> Option<String> {
    Some(if on { String::new() } else { "0".into() })
}

/// A flag printed as 1 or 0.
pub(crate) fn show_bit(on: bool) -> Option<String> {
    Some(u8::from(on).to_string())
}

#[cfg(test)]
mod int_tests {
    use super::*;

    /// fio 3.33 reads an integer option's size suffix in its default kb_base: `rate_iops=1k`
    /// ran at 1,023 IOPS under fio on this machine.
    #[test]
    fn integer_options_take_fios_suffixes() {
        let mut j = JobSpec::default();
        apply(&mut j, "rate_iops", Some("1k")).unwrap();
        assert_eq!(j.rates.rate_iops, [1024, 1024]);
        assert!(apply(&mut j, "rate_iops", Some("1.5")).is_err());
        assert!(apply(&mut j, "rate_iops", Some("lots"))
            .unwrap_err()
            .to_string()
            .contains("not a whole number"));
    }
}
