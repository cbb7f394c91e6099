//! A volume's model: the catalog's numbers for one product turned into caps, burst and price
//! for one configuration (size, VPU level, provisioned IOPS and throughput). The formulas live
//! here, one function per catalog `kind`; the numbers live in the data file.

use crate::catalog::{Burst, Kind, PriceStep, Product};
use anyhow::{bail, Result};

/// What the user chose. Sizes are in the product's own size unit, throughput in its bw unit.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Params {
    pub size: Option<f64>,
    pub vpu: Option<u32>,
    pub iops: Option<f64>,
    pub throughput: Option<f64>,
}

pub use report::volume::{AtBs, Model};

/// The caps before the burst and price are worked out.
struct Caps {
    iops: f64,
    write_iops: f64,
    mbps: f64,
    write_mbps: f64,
    burst: Option<(f64, f64)>,
    bucket: Bucket,
    config: String,
    price: Option<f64>,
    notes: Vec<String>,
}

#[derive(Default)]
struct Bucket {
    ios: Option<f64>,
    bytes: Option<f64>,
    refill_ios: Option<f64>,
    refill_bytes: Option<f64>,
}

/// Builds the model of `p` configured by `params`.
pub fn model(p: &Product, params: &Params) -> Result<Model> {
    let size = params.size.unwrap_or(p.size_min.max(default_size(p)));
    if !(p.size_min..=p.size_max).contains(&size) {
        bail!(
            "{}: size {size} {} is outside the product's {}-{} {}",
            p.id,
            p.size_unit.name(),
            p.size_min,
            p.size_max,
            p.size_unit.name()
        );
    }
    if params.vpu.is_some() && p.kind != Kind::Vpu {
        bail!("{}: --vpu applies to OCI only", p.id);
    }
    if (params.iops.is_some() || params.throughput.is_some()) && p.kind != Kind::Provisioned {
        bail!(
            "{}: performance is not provisioned on this product (drop --iops/--throughput)",
            p.id
        );
    }
    let caps = match p.kind {
        Kind::Vpu => vpu(p, size, params.vpu)?,
        Kind::Fixed => fixed(p, size),
        Kind::PerSize => per_size(p, size),
        Kind::Provisioned => provisioned(p, size, params)?,
        Kind::Tiers => tiers(p, size)?,
    };
    Ok(finish(p, size, caps))
}

/// A size to show when none was given: 100 of the product's units, within its range.
fn default_size(p: &Product) -> f64 {
    100f64.clamp(p.size_min, p.size_max)
}

fn finish(p: &Product, size: f64, c: Caps) -> Model {
    let mb = p.bw_unit.bytes();
    let bw = c.mbps * mb;
    let price = c.price;
    let mut notes = c.notes;
    notes.extend(p.notes.iter().cloned());
    let (burst_iops, burst_bw) = match c.burst {
        Some((i, m)) => (Some(i), Some(m * mb)),
        None => (None, None),
    };
    let duration = match (c.bucket.ios, burst_iops, c.bucket.bytes, burst_bw) {
        (Some(b), Some(bi), _, _) if bi > c.iops => Some(b / (bi - c.iops)),
        (_, _, Some(b), Some(bb)) if bb > bw => Some(b / (bb - bw)),
        _ => None,
    };
    Model {
        product: p.id.clone(),
        name: p.name.clone(),
        provider: p.provider.clone(),
        config: c.config,
        size,
        size_unit: p.size_unit.name().into(),
        size_bytes: size * p.size_unit.bytes(),
        bw_unit: p.bw_unit.name().into(),
        iops: c.iops,
        write_iops: c.write_iops,
        bw_bytes: bw,
        write_bw_bytes: c.write_mbps * mb,
        baseline_iops: c.iops,
        baseline_bw_bytes: bw,
        burst_iops,
        burst_bw_bytes: burst_bw,
        burst_bucket_ios: c.bucket.ios,
        burst_bucket_bytes: c.bucket.bytes,
        burst_duration_s: duration,
        refill_ios_per_s: c.bucket.refill_ios,
        refill_bytes_per_s: c.bucket.refill_bytes,
        crossover_bs: if c.iops > 0.0 { bw / c.iops } else { 0.0 },
        io_unit_bytes: p.io_unit_kib.map(|k| k * 1024.0),
        provisioned_iops: None,
        provisioned_throughput: None,
        price_month_usd: price,
        // A volume of no IOPS or no bandwidth (a user catalog's 0) has no price per unit of
        // it, rather than an infinite one.
        usd_per_iops: price.filter(|_| c.iops > 0.0).map(|v| v / c.iops),
        usd_per_mbps: price.filter(|_| bw > 0.0).map(|v| v / (bw / 1e6)),
        instance_caps: p.instance_caps.clone(),
        notes,
        unconfirmed: p.unconfirmed.clone(),
        source: p.source.clone(),
        read_on: p.read_on.clone(),
        confidence: p.confidence.clone(),
        from_user_catalog: p.user,
    }
}

fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

fn vpu(p: &Product, size: f64, vpu: Option<u32>) -> Result<Caps> {
    let v = vpu.or(p.default_vpu).unwrap_or(p.levels[0].vpu);
    let Some(l) = p.levels.iter().find(|l| l.vpu == v) else {
        let all: Vec<String> = p.levels.iter().map(|l| l.vpu.to_string()).collect();
        bail!(
            "{}: --vpu {v} is not sold; choose one of {}",
            p.id,
            all.join(", ")
        );
    };
    let iops = (l.iops_per_gb * size).min(l.max_iops);
    // KB/s per GB times GB, in MB/s: OCI's units are decimal (1,000 GB x 480 KB/s = 480 MB/s).
    let mbps = (l.kbps_per_gb * size / 1000.0).min(l.max_mbps);
    let price = p
        .price_gb_month
        .map(|g| size * (g + p.price_vpu_gb_month.unwrap_or(0.0) * v as f64));
    Ok(Caps {
        iops,
        write_iops: iops,
        mbps,
        write_mbps: mbps,
        burst: None,
        bucket: Bucket::default(),
        config: format!("{}:vpu={v}:size={}", p.id, fmt_num(size)),
        price,
        notes: Vec::new(),
    })
}

fn fixed(p: &Product, size: f64) -> Caps {
    let iops = p.iops.unwrap_or(0.0);
    let mbps = p.mbps.unwrap_or(0.0);
    let mut bucket = Bucket::default();
    let burst = p.burst.as_ref().and_then(|b| {
        let (bi, bm) = (b.iops.unwrap_or(iops), b.mbps.unwrap_or(mbps));
        let secs = b.seconds?;
        // A timed burst as a bucket: `seconds` at the burst rate drains it from full. A
        // burst rate at or below the baseline (a user catalog's) holds no credits, never a
        // negative count of them.
        bucket.ios = Some(secs * (bi - iops).max(0.0));
        bucket.bytes = Some(secs * (bm - mbps).max(0.0) * p.bw_unit.bytes());
        if let Some(r) = b.refill_seconds.filter(|r| *r > 0.0) {
            bucket.refill_ios = bucket.ios.map(|x| x / r);
            bucket.refill_bytes = bucket.bytes.map(|x| x / r);
        }
        Some((bi, bm))
    });
    Caps {
        iops,
        write_iops: iops,
        mbps,
        write_mbps: mbps,
        burst,
        bucket,
        config: format!("{}:size={}", p.id, fmt_num(size)),
        price: p.price_gb_month.map(|g| g * size),
        notes: Vec::new(),
    }
}

fn per_size(p: &Product, size: f64) -> Caps {
    let lin = |base: Option<f64>, per: Option<f64>, min: Option<f64>, max: Option<f64>| {
        (base.unwrap_or(0.0) + per.unwrap_or(0.0) * size)
            .max(min.unwrap_or(0.0))
            .min(max.unwrap_or(f64::INFINITY))
    };
    let iops = lin(p.iops_base, p.iops_per_size, p.iops_min, p.iops_max);
    let write_iops = match p.write_iops_per_size {
        Some(w) => lin(p.iops_base, Some(w), p.iops_min, p.write_iops_max),
        None => iops,
    };
    let mbps_for = |iops: f64| {
        let mut m = if p.mbps_base.is_some() || p.mbps_per_size.is_some() {
            lin(p.mbps_base, p.mbps_per_size, None, p.mbps_max)
        } else {
            p.mbps_max.unwrap_or(f64::INFINITY)
        };
        if let Some(k) = p.mbps_per_io_kib {
            m = m.min(iops * k * 1024.0 / p.bw_unit.bytes());
        }
        if let Some(step) = p.mbps_max_by_size.iter().find(|s| size <= s.upto) {
            m = m.min(step.mbps);
        }
        m
    };
    let mbps = mbps_for(iops);
    let write_mbps = mbps.min(p.write_mbps_max.unwrap_or(f64::INFINITY));
    let (burst, bucket) = match &p.burst {
        Some(b) => size_burst(p, b, size, iops, mbps, &mbps_for),
        None => (None, Bucket::default()),
    };
    Caps {
        iops,
        write_iops,
        mbps,
        write_mbps,
        burst,
        bucket,
        config: format!("{}:size={}", p.id, fmt_num(size)),
        price: p.price_gb_month.map(|g| g * size),
        notes: Vec::new(),
    }
}

/// gp2's I/O-credit bucket (only volumes whose baseline is below the burst rate burst) and
/// st1/sc1's throughput-credit bucket; both earn credits at the baseline rate.
fn size_burst(
    p: &Product,
    b: &Burst,
    size: f64,
    iops: f64,
    mbps: f64,
    mbps_for: &dyn Fn(f64) -> f64,
) -> (Option<(f64, f64)>, Bucket) {
    let at_baseline = b.refill.as_deref() == Some("baseline");
    if let (Some(bi), Some(ios)) = (b.iops, b.bucket_ios) {
        if bi <= iops {
            return (None, Bucket::default());
        }
        let bucket = Bucket {
            ios: Some(ios),
            refill_ios: at_baseline.then_some(iops),
            ..Bucket::default()
        };
        return (Some((bi, mbps_for(bi))), bucket);
    }
    if let (Some(per), Some(bb)) = (b.mbps_per_size, b.bucket_bytes_per_size) {
        let burst_mbps = (per * size).min(b.mbps_max.unwrap_or(f64::INFINITY));
        if burst_mbps <= mbps {
            return (None, Bucket::default());
        }
        let bucket = Bucket {
            bytes: Some(bb * size),
            refill_bytes: at_baseline.then_some(mbps * p.bw_unit.bytes()),
            ..Bucket::default()
        };
        return (Some((iops, burst_mbps)), bucket);
    }
    (None, Bucket::default())
}

fn provisioned(p: &Product, size: f64, params: &Params) -> Result<Caps> {
    let included = p.iops_included.unwrap_or(0.0);
    let min = p.iops_min.unwrap_or(0.0);
    let top = max_iops(p, size);
    let iops = match params.iops.or((included > 0.0).then_some(included)) {
        Some(i) => i,
        None => bail!(
            "{}: give the provisioned IOPS with --iops ({}-{})",
            p.id,
            fmt_num(min),
            fmt_num(top)
        ),
    };
    if iops < min || iops > top {
        bail!(
            "{}: --iops {} is outside {}-{} for {} {} (at most {} per {} up to {})",
            p.id,
            fmt_num(iops),
            fmt_num(min),
            fmt_num(top),
            fmt_num(size),
            p.size_unit.name(),
            fmt_num(p.iops_per_size.unwrap_or(0.0)),
            p.size_unit.name(),
            fmt_num(p.iops_max.unwrap_or(0.0))
        );
    }
    let mbps = provisioned_mbps(p, iops, params.throughput)?;
    let price = p.price_gb_month.map(|g| {
        g * size + step_price(&p.price_iops_month, iops) + step_price(&p.price_mbps_month, mbps)
    });
    let mut config = format!("{}:size={}:iops={}", p.id, fmt_num(size), fmt_num(iops));
    if p.mbps_derived.is_empty() {
        config.push_str(&format!(":throughput={}", fmt_num(mbps)));
    }
    Ok(Caps {
        iops,
        write_iops: iops,
        mbps,
        write_mbps: mbps,
        burst: None,
        bucket: Bucket::default(),
        config,
        price,
        notes: Vec::new(),
    })
}

/// The largest IOPS this size may provision (never below what is included for free).
pub fn max_iops(p: &Product, size: f64) -> f64 {
    let by_size = p.iops_per_size.map_or(f64::INFINITY, |r| r * size);
    by_size
        .min(p.iops_max.unwrap_or(f64::INFINITY))
        .max(p.iops_included.unwrap_or(0.0))
}

fn provisioned_mbps(p: &Product, iops: f64, given: Option<f64>) -> Result<f64> {
    if !p.mbps_derived.is_empty() {
        if given.is_some() {
            bail!(
                "{}: throughput follows the provisioned IOPS (drop --throughput)",
                p.id
            );
        }
        let piece = p
            .mbps_derived
            .iter()
            .find(|d| iops <= d.upto_iops)
            .unwrap_or(&p.mbps_derived[p.mbps_derived.len() - 1]);
        return Ok((piece.per_iops * iops).min(piece.max));
    }
    let top = max_mbps(p, iops);
    let min = p.mbps_min.unwrap_or(0.0);
    let t = given
        .or(p.mbps_included.filter(|x| *x > 0.0))
        .unwrap_or(min)
        .max(0.0);
    if t < min || t > top {
        bail!(
            "{}: --throughput {} {} is outside {}-{} {} for {} IOPS",
            p.id,
            fmt_num(t),
            p.bw_unit.name(),
            fmt_num(min),
            fmt_num(top),
            p.bw_unit.name(),
            fmt_num(iops)
        );
    }
    Ok(t)
}

/// The largest provisionable throughput at `iops`.
pub fn max_mbps(p: &Product, iops: f64) -> f64 {
    let by_iops = p.mbps_per_iops.map_or(f64::INFINITY, |r| r * iops);
    by_iops
        .min(p.mbps_max.unwrap_or(f64::INFINITY))
        .max(p.mbps_included.unwrap_or(0.0))
}

/// The monthly price of `figures` provisioned units over the steps' bands.
fn step_price(steps: &[PriceStep], units: f64) -> f64 {
    steps
        .iter()
        .map(|s| {
            let top = s.upto.unwrap_or(f64::INFINITY).min(units);
            (top - s.above).max(0.0) * s.usd
        })
        .sum()
}

fn tiers(p: &Product, size: f64) -> Result<Caps> {
    let Some(t) = p.tiers.iter().find(|t| t.size >= size) else {
        bail!("{}: no tier holds {size} {}", p.id, p.size_unit.name());
    };
    let mut bucket = Bucket::default();
    let burst = match (t.burst_iops, t.burst_mbps, t.burst_minutes) {
        (Some(bi), Some(bm), Some(min)) => {
            // "The bucket holds 30 minutes of burst at the max burst rate": a full bucket lasts
            // that long at the burst rate; it refills from the unused part of the baseline.
            let secs = min * 60.0;
            bucket.ios = Some(secs * (bi - t.iops));
            bucket.bytes = Some(secs * (bm - t.mbps) * p.bw_unit.bytes());
            bucket.refill_ios = Some(t.iops);
            bucket.refill_bytes = Some(t.mbps * p.bw_unit.bytes());
            Some((bi, bm))
        }
        _ => None,
    };
    Ok(Caps {
        iops: t.iops,
        write_iops: t.iops,
        mbps: t.mbps,
        write_mbps: t.mbps,
        burst,
        bucket,
        config: format!("{}:size={}", p.id, fmt_num(size)),
        price: t.price_month,
        notes: vec![format!("tier {} ({} GiB)", t.name, fmt_num(t.size))],
    })
}

/// Parses `PRODUCT[:key=value...]` (`oci:vpu=10:size=100g`, `aws:gp3:size=500:iops=6000`) into
/// the product name and its parameters; sizes are in the product's unit.
pub fn parse_spec(spec: &str) -> Result<(String, Params)> {
    let mut name = Vec::new();
    let mut params = Params::default();
    for part in spec.split(':') {
        let Some((k, v)) = part.split_once('=') else {
            name.push(part);
            continue;
        };
        let num = |v: &str| -> Result<f64> {
            v.trim()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x >= 0.0)
                .ok_or_else(|| anyhow::anyhow!("--model {spec}: '{k}={v}' is not a number"))
        };
        match k.trim() {
            "size" => params.size = Some(parse_volume_size(v)?),
            "vpu" => params.vpu = Some(num(v)? as u32),
            "iops" => params.iops = Some(num(v)?),
            "throughput" | "mbps" => params.throughput = Some(num(v)?),
            other => bail!("--model {spec}: unknown key '{other}' (size, vpu, iops, throughput)"),
        }
    }
    Ok((name.join(":"), params))
}

/// A volume size in the provider's own unit: `100`, `100g` and `1t` (x1024) follow the
/// provider (GB for OCI and Linode, GiB for the others), so `100g` is what its console calls 100.
pub fn parse_volume_size(s: &str) -> Result<f64> {
    let t = s.trim().to_ascii_lowercase();
    let (num, mult) = if let Some(n) = t.strip_suffix("tib").or(t.strip_suffix("tb")) {
        (n, 1024.0)
    } else if let Some(n) = t.strip_suffix('t') {
        (n, 1024.0)
    } else if let Some(n) = t
        .strip_suffix("gib")
        .or(t.strip_suffix("gb"))
        .or(t.strip_suffix('g'))
    {
        (n, 1.0)
    } else {
        (t.as_str(), 1.0)
    };
    match num.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v * mult),
        _ => bail!(
            "size '{s}' is not a volume size: write it like 100g or 1t (in the provider's unit)"
        ),
    }
}
