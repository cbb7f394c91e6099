//! Where we are: the cloud and instance type from DMI, and the instance's own storage cap from
//! the catalog, which binds before a volume's caps on smaller instances.

use crate::{Finding, Level};
use cloud::instance::{cap, Cap};
use figures::fmt_count;
use report::machine::{this_machine, Machine};

fn provider_name(p: &str) -> &'static str {
    match p {
        "aws" => "Amazon EC2",
        "gcp" => "Google Compute Engine",
        "azure" => "Microsoft Azure",
        "oci" => "Oracle Cloud",
        "digitalocean" => "DigitalOcean",
        "linode" => "Linode (Akamai)",
        _ => "a cloud",
    }
}

/// "18,750 IOPS and 593.75 MB/s (baseline 3,600 and 81.25 MB/s; the max holds 30 min per 24 h)".
pub fn cap_text(c: &Cap) -> String {
    let mut s = format!(
        "{} IOPS and {} MB/s",
        fmt_count(c.max_iops),
        fmt_count(c.max_bytes / 1e6)
    );
    if let Some(b) = &c.burst {
        s += &format!(
            " (baseline {} IOPS and {} MB/s; the max holds {b})",
            fmt_count(c.baseline_iops),
            fmt_count(c.baseline_bytes / 1e6)
        );
    }
    if c.unconfirmed {
        s += " [catalog figures unconfirmed: check ";
        s += &c.source;
        s += "]";
    }
    s
}

/// The doctor's lines for this machine.
pub fn findings() -> Vec<Finding> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    of(&this_machine(), cpus)
}

/// The lines for `m` with `cpus` vCPUs (tests pass recorded DMI values).
pub fn of(m: &Machine, cpus: u32) -> Vec<Finding> {
    let Some(p) = m.provider.as_deref() else {
        let what = if m.dmi.is_empty() {
            "no DMI on this machine: not a cloud VM volbench can identify".to_string()
        } else {
            format!(
                "{} {}: not a cloud volbench knows",
                m.dmi.sys_vendor, m.dmi.product_name
            )
        };
        return vec![Finding::ok("cloud", "machine", what)];
    };
    let name = provider_name(p);
    let mut out = vec![Finding::ok(
        "cloud",
        "machine",
        match &m.instance_type {
            Some(t) => format!("{name}, instance type {t}"),
            None => format!("{name} (the firmware does not name the instance type)"),
        },
    )];
    out.push(match cap(m, cpus) {
        Some(c) => Finding {
            area: "cloud",
            code: "instance_cap",
            level: Level::Note,
            what: format!("{} sends at most {} to all its volumes together", c.what, cap_text(&c)),
            consequence: "a volume promising more is capped here by the instance".into(),
            fix: "compare the volume's caps with this; a larger instance type lifts it".into(),
        },
        None => Finding::ok(
            "cloud",
            "instance_cap",
            "the catalog holds no storage cap for this instance (docs/doctor.md lists what it knows)".into(),
        ),
    });
    out
}

/// The run's warning when a measured rate sits at (90 % or more of) the instance's cap, or
/// above its baseline where the cap bursts: the figure is the instance's, or will not hold.
pub fn run_warning(m: &Machine, cpus: u32, iops: f64, bytes: f64) -> Option<Finding> {
    let c = cap(m, cpus)?;
    let at_cap = iops >= 0.9 * c.max_iops || bytes >= 0.9 * c.max_bytes;
    let above_base = c.burst.is_some() && (iops > c.baseline_iops || bytes > c.baseline_bytes);
    let consequence = if at_cap {
        "the figure is the instance's cap, not the volume's: a larger instance type tests the volume"
    } else if above_base {
        "the figure is above the instance's baseline, so it holds only while the instance's burst lasts"
    } else {
        return None;
    };
    Some(Finding {
        area: "cloud",
        code: "instance_cap",
        level: Level::Warn,
        what: format!(
            "{} IOPS and {} MB/s measured on {}, which sends at most {}",
            fmt_count(iops),
            fmt_count(bytes / 1e6),
            c.what,
            cap_text(&c)
        ),
        consequence: consequence.into(),
        fix: String::new(),
    })
}
