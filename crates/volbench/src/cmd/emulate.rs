//! `volbench emulate --device DEV [caps] -- COMMAND`: COMMAND runs with its I/O on DEV
//! throttled like a cloud volume (crate `cloud`'s emulate and bucket). COMMAND's stdout and
//! exit status pass through untouched; volbench speaks on stderr only.

use crate::cli::EmulateArgs;
use crate::usage::usage;
use ::cloud::bucket::BucketSpec;
use ::cloud::catalog::Catalog;
use ::cloud::emulate::{self, Caps, Cgroup};
use anyhow::Result;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;
use workload::parse_size;

/// The child's pid, for the second Ctrl-C to kill it (the cgroup is then removed as usual).
static CHILD: AtomicI32 = AtomicI32::new(0);

fn count(opt: &str, s: &str) -> Result<f64> {
    // 5.4m credits: the size suffixes as plain decimal multipliers.
    let t = s.trim().to_ascii_lowercase();
    let (n, m) = match t.chars().last() {
        Some('k') => (&t[..t.len() - 1], 1e3),
        Some('m') => (&t[..t.len() - 1], 1e6),
        Some('g') => (&t[..t.len() - 1], 1e9),
        _ => (t.as_str(), 1.0),
    };
    n.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite() && *v > 0.0)
        .map(|v| v * m)
        .ok_or_else(|| {
            usage(format!(
                "--{opt} {s}: give a positive number such as 5400000 or 5.4m"
            ))
        })
}

/// A number an option gives, which must be positive where given.
fn positive(opt: &str, v: Option<f64>) -> Result<Option<f64>> {
    match v {
        Some(x) if !(x.is_finite() && x > 0.0) => {
            Err(usage(format!("--{opt} must be a positive number")))
        }
        v => Ok(v),
    }
}

/// A catalog product's caps and burst buckets, under what the caps the options gave leave
/// open; its name for the summary.
fn model_caps(a: &EmulateArgs, name: &str, c: &mut Caps) -> Result<String> {
    let cat = Catalog::load(a.catalog.as_deref()).map_err(|e| usage(format!("{e:#}")))?;
    let v = crate::cli::VolumeArgs {
        size: a.size.clone(),
        vpu: a.vpu,
        iops: None,
        throughput: None,
    };
    let m = crate::catalog::resolve(&cat, name, &v)?;
    c.iops = c.iops.or(Some(m.iops));
    c.bw_bytes = c.bw_bytes.or(Some(m.bw_bytes));
    if let (Some(bi), Some(b)) = (m.burst_iops, m.burst_bucket_ios) {
        c.iops_bucket = Some(BucketSpec {
            burst: bi,
            baseline: m.iops,
            capacity: b,
            refill: m.refill_ios_per_s.unwrap_or(m.iops),
        });
    }
    if let (Some(bb), Some(b)) = (m.burst_bw_bytes, m.burst_bucket_bytes) {
        c.bytes_bucket = Some(BucketSpec {
            burst: bb,
            baseline: m.bw_bytes,
            capacity: b,
            refill: m.refill_bytes_per_s.unwrap_or(m.bw_bytes),
        });
    }
    Ok(format!("{} ({})", m.config, m.name))
}

fn caps(a: &EmulateArgs) -> Result<(Caps, String)> {
    let mut c = Caps {
        iops: positive("iops", a.iops)?,
        bw_bytes: a
            .bw
            .as_deref()
            .map(|b| parse_size(b).map(|v| v as f64))
            .transpose()
            .map_err(|e| usage(format!("--bw: {e}")))?,
        ..Caps::default()
    };
    let mut what = Vec::new();
    if let Some(m) = &a.model {
        what.push(model_caps(a, m, &mut c)?);
    }
    match (a.burst_iops, a.baseline_iops, &a.bucket_ios) {
        (None, None, None) => {}
        (Some(b), Some(base), Some(n)) => {
            let (b, base) = (
                positive("burst-iops", Some(b))?.unwrap_or(0.0),
                positive("baseline-iops", Some(base))?.unwrap_or(0.0),
            );
            if b <= base {
                return Err(usage("--burst-iops must be above --baseline-iops"));
            }
            c.iops_bucket = Some(BucketSpec {
                burst: b,
                baseline: base,
                capacity: count("bucket-ios", n)?,
                refill: positive("refill-ios", a.refill_ios)?.unwrap_or(base),
            });
            c.iops = Some(base);
        }
        _ => {
            return Err(usage(
                "a burst bucket needs all three of --burst-iops, --baseline-iops and --bucket-ios",
            ))
        }
    }
    if c.iops.is_none() && c.bw_bytes.is_none() && c.iops_bucket.is_none() {
        return Err(usage(
            "nothing to emulate: give --iops, --bw, a burst bucket, or --model PRODUCT --size S",
        ));
    }
    if a.model.is_none() {
        what.push(describe(&c));
    }
    Ok((c, what.join(", ")))
}

fn describe(c: &Caps) -> String {
    let mut v = Vec::new();
    if let Some(b) = c.iops_bucket {
        v.push(format!(
            "{:.0} IOPS burst for {:.0} s from {:.0} credits, then {:.0} IOPS",
            b.burst,
            b.capacity / (b.burst - b.baseline),
            b.capacity,
            b.baseline
        ));
    } else if let Some(i) = c.iops {
        v.push(format!("{i:.0} IOPS"));
    }
    if let Some(b) = c.bw_bytes {
        v.push(format!("{:.1} MiB/s", b / 1048576.0));
    }
    v.join(", ")
}

pub fn main(a: EmulateArgs) -> Result<ExitCode> {
    let (caps, what) = caps(&a)?;
    let (dev, name) = emulate::device_of(&a.device).map_err(|e| usage(format!("{e:#}")))?;
    let cg = Cgroup::create(dev).map_err(|e| anyhow::anyhow!("{e:#}"))?;
    let stop = Arc::new(AtomicBool::new(false));
    let s = stop.clone();
    // Ctrl-C reaches the command too (same process group); volbench waits for it to end and
    // then removes its cgroup. A second Ctrl-C kills the command.
    let _ = ctrlc::set_handler(move || {
        if s.swap(true, Ordering::SeqCst) {
            let pid = CHILD.load(Ordering::SeqCst);
            if pid > 0 {
                // SAFETY: signalling our own child.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
    });
    eprintln!(
        "volbench emulate: {what} on {name} ({}:{}) via {}",
        dev.0,
        dev.1,
        cg.version()
    );
    let written = ::cloud::writeback::before(dev);
    let mut child = emulate::spawn(&cg, &caps, &a.command).map_err(|e| usage(format!("{e:#}")))?;
    CHILD.store(child.id() as i32, Ordering::SeqCst);
    let (status, sum) = emulate::control(&cg, &mut child, &caps, &stop)?;
    drop(cg);
    let burst = match (caps.iops_bucket, sum.burst_ended_s) {
        (Some(_), Some(t)) => format!("; the burst ended after {t:.1} s"),
        (Some(_), None) => format!(
            "; the burst never ran out ({:.0} credits left)",
            sum.iops_credits_left.unwrap_or(0.0)
        ),
        _ => String::new(),
    };
    let unthrottled = ::cloud::writeback::check(written, dev, &name, sum.bytes[1])
        .map(|w| format!("; warning: {w}"))
        .unwrap_or_default();
    eprintln!(
        "volbench emulate: {} reads, {} writes on {name} in {:.1} s{burst}{unthrottled}",
        sum.ios[0], sum.ios[1], sum.elapsed_s
    );
    Ok(exit_code(status))
}

/// The command's own status: its exit code, or 128 + the signal that ended it, as a shell.
fn exit_code(s: std::process::ExitStatus) -> ExitCode {
    use std::os::unix::process::ExitStatusExt;
    let code = s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(0));
    ExitCode::from(code.clamp(0, 255) as u8)
}
