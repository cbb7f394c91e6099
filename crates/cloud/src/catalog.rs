//! The catalog of cloud volume products: the shipped data file (`catalog/volumes.toml`) plus a
//! user's own file of the same shape, whose products add to or replace the shipped ones.
//!
//! Only numbers live in the data; `model.rs` turns them into a volume's caps, one function per
//! `kind`.

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The shipped catalog, compiled in so the binary needs no data file beside it.
pub const SHIPPED: &str = include_str!("../../../catalog/volumes.toml");

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogFile {
    #[serde(default)]
    pub catalog_version: u32,
    #[serde(default)]
    pub updated: Option<String>,
    #[serde(default)]
    pub product: Vec<Product>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// OCI: VPU-per-GB levels, each an IOPS and KB/s rate per GB with per-volume maxima.
    Vpu,
    /// Size-independent caps (DigitalOcean, Linode), optionally a timed burst.
    Fixed,
    /// Caps that grow with size (gp2, st1/sc1, GCP Persistent Disk), optionally a credit bucket.
    PerSize,
    /// Provisioned IOPS and throughput within size-dependent bounds (gp3, io1/io2, Hyperdisk,
    /// Premium SSD v2, Ultra).
    Provisioned,
    /// Fixed tiers chosen by size, the next tier up (Azure Premium SSD).
    Tiers,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub enum SizeUnit {
    GiB,
    GB,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
pub enum BwUnit {
    #[serde(rename = "MiB/s")]
    MiBs,
    #[serde(rename = "MB/s")]
    MBs,
}

impl SizeUnit {
    pub fn bytes(self) -> f64 {
        match self {
            SizeUnit::GiB => (1u64 << 30) as f64,
            SizeUnit::GB => 1e9,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            SizeUnit::GiB => "GiB",
            SizeUnit::GB => "GB",
        }
    }
}

impl BwUnit {
    pub fn bytes(self) -> f64 {
        match self {
            BwUnit::MiBs => (1u64 << 20) as f64,
            BwUnit::MBs => 1e6,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            BwUnit::MiBs => "MiB/s",
            BwUnit::MBs => "MB/s",
        }
    }
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Level {
    pub vpu: u32,
    pub iops_per_gb: f64,
    pub max_iops: f64,
    pub kbps_per_gb: f64,
    pub max_mbps: f64,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Tier {
    pub name: String,
    pub size: f64,
    pub iops: f64,
    pub mbps: f64,
    #[serde(default)]
    pub burst_iops: Option<f64>,
    #[serde(default)]
    pub burst_mbps: Option<f64>,
    #[serde(default)]
    pub burst_minutes: Option<f64>,
    #[serde(default)]
    pub price_month: Option<f64>,
}

/// A burst: a bucket of credits drawn by I/O above the baseline rate and refilled below it.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Burst {
    pub iops: Option<f64>,
    pub mbps: Option<f64>,
    /// Throughput burst that grows with size (st1/sc1).
    pub mbps_per_size: Option<f64>,
    pub mbps_max: Option<f64>,
    /// A timed burst: how long a full bucket lasts at the burst rate.
    pub seconds: Option<f64>,
    /// How long an idle volume takes to refill an empty bucket (timed bursts).
    pub refill_seconds: Option<f64>,
    /// A credit bucket counted in I/Os (gp2).
    pub bucket_ios: Option<f64>,
    /// A credit bucket counted in bytes per size unit (st1/sc1).
    pub bucket_bytes_per_size: Option<f64>,
    /// "baseline": credits are earned at the baseline rate (gp2, st1, sc1).
    pub refill: Option<String>,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SizeStep {
    pub upto: f64,
    pub mbps: f64,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DerivedBw {
    pub upto_iops: f64,
    pub per_iops: f64,
    pub max: f64,
}

/// A price per provisioned unit (IOPS or MB/s) for the units between `above` and `upto`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PriceStep {
    pub above: f64,
    #[serde(default)]
    pub upto: Option<f64>,
    pub usd: f64,
}

#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Product {
    /// Read from the user's catalog file, not the shipped one: its figures' units are the
    /// user's word, not checked against the provider's page.
    #[serde(skip)]
    pub user: bool,
    pub id: String,
    pub provider: String,
    pub name: String,
    pub kind: Kind,
    pub size_unit: SizeUnit,
    pub bw_unit: BwUnit,
    pub size_min: f64,
    pub size_max: f64,
    pub source: String,
    pub read_on: String,
    pub confidence: String,
    #[serde(default)]
    pub price_source: Option<String>,
    #[serde(default)]
    pub unconfirmed: Vec<String>,
    #[serde(default)]
    pub instance_caps: Vec<String>,
    #[serde(default)]
    pub notes: Vec<String>,
    /// I/O accounting unit: larger I/Os count as several (EBS and Azure SSD: 256 KiB).
    #[serde(default)]
    pub io_unit_kib: Option<f64>,
    /// Smaller I/Os still cost a whole unit (EBS HDD).
    #[serde(default)]
    pub io_unit_min: bool,
    // vpu
    #[serde(default)]
    pub default_vpu: Option<u32>,
    #[serde(default)]
    pub levels: Vec<Level>,
    #[serde(default)]
    pub price_vpu_gb_month: Option<f64>,
    // fixed
    #[serde(default)]
    pub iops: Option<f64>,
    #[serde(default)]
    pub mbps: Option<f64>,
    #[serde(default)]
    pub burst: Option<Burst>,
    // per_size and provisioned
    #[serde(default)]
    pub iops_base: Option<f64>,
    #[serde(default)]
    pub iops_per_size: Option<f64>,
    #[serde(default)]
    pub iops_min: Option<f64>,
    #[serde(default)]
    pub iops_max: Option<f64>,
    #[serde(default)]
    pub iops_included: Option<f64>,
    #[serde(default)]
    pub write_iops_per_size: Option<f64>,
    #[serde(default)]
    pub write_iops_max: Option<f64>,
    #[serde(default)]
    pub mbps_base: Option<f64>,
    #[serde(default)]
    pub mbps_per_size: Option<f64>,
    #[serde(default)]
    pub mbps_per_io_kib: Option<f64>,
    #[serde(default)]
    pub mbps_max: Option<f64>,
    #[serde(default)]
    pub write_mbps_max: Option<f64>,
    #[serde(default)]
    pub mbps_max_by_size: Vec<SizeStep>,
    #[serde(default)]
    pub mbps_min: Option<f64>,
    #[serde(default)]
    pub mbps_included: Option<f64>,
    #[serde(default)]
    pub mbps_per_iops: Option<f64>,
    #[serde(default)]
    pub mbps_derived: Vec<DerivedBw>,
    // tiers
    #[serde(default)]
    pub tiers: Vec<Tier>,
    // price
    #[serde(default)]
    pub price_gb_month: Option<f64>,
    #[serde(default)]
    pub price_iops_month: Vec<PriceStep>,
    #[serde(default)]
    pub price_mbps_month: Vec<PriceStep>,
}

#[derive(Clone, Debug)]
pub struct Catalog {
    pub products: Vec<Product>,
    pub updated: Option<String>,
}

impl Catalog {
    /// The shipped catalog, with a user file's products added or replacing shipped ones.
    /// `user` defaults to `$VOLBENCH_CATALOG`.
    pub fn load(user: Option<&Path>) -> Result<Catalog> {
        let mut cat = parse(SHIPPED, "the shipped catalog")?;
        let env = std::env::var_os("VOLBENCH_CATALOG").filter(|v| !v.is_empty());
        let user = user.map(Path::to_path_buf).or(env.map(Into::into));
        if let Some(p) = user {
            let text = workload::input::read_bounded(&p, workload::input::MAX_TEXT)
                .map_err(|e| anyhow::anyhow!("catalog file {} {e}", p.display()))?;
            let extra = parse(&text, &p.display().to_string())?;
            for mut prod in extra.products {
                prod.user = true;
                match cat.products.iter_mut().find(|x| x.id == prod.id) {
                    Some(old) => *old = prod,
                    None => cat.products.push(prod),
                }
            }
        }
        Ok(cat)
    }

    /// Finds `PROVIDER[:PRODUCT]`; a provider alone means its first product.
    pub fn find(&self, name: &str) -> Result<&Product> {
        let n = name.trim().to_ascii_lowercase();
        if let Some(p) = self.products.iter().find(|p| p.id == n) {
            return Ok(p);
        }
        if let Some(p) = self.products.iter().find(|p| p.provider == n) {
            return Ok(p);
        }
        let ids: Vec<&str> = self.products.iter().map(|p| p.id.as_str()).collect();
        bail!(
            "unknown volume product '{name}': choose one of {} (see `volbench cloud list`)",
            ids.join(", ")
        )
    }

    /// A catalog from its TOML text alone (no shipped products added); `what` names it in
    /// errors.
    pub fn from_text(text: &str, what: &str) -> Result<Catalog> {
        parse(text, what)
    }

    pub fn providers(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self.products.iter().map(|p| p.provider.as_str()).collect();
        v.dedup();
        v
    }
}

fn parse(text: &str, what: &str) -> Result<Catalog> {
    let raw: toml::Value =
        toml::from_str(text).map_err(|e| anyhow::anyhow!("{what}: {}", e.message()))?;
    numbers_in_range(&raw, "").map_err(|e| anyhow::anyhow!("{what}: {e}"))?;
    // The text is parsed once: the typed catalog comes from the value just checked.
    let f: CatalogFile = raw
        .try_into()
        .map_err(|e: toml::de::Error| anyhow::anyhow!("{what}: {}", e.message()))?;
    for p in &f.product {
        validate(p).with_context(|| format!("{what}: product '{}'", p.id))?;
    }
    Ok(Catalog {
        products: f.product,
        updated: f.updated,
    })
}

/// The largest number a catalog may hold: far above any size, rate, price or time a
/// provider publishes (bucket bytes are about 10^12), and low enough that the formulas'
/// products of two numbers stay finite (1e308 made a burst last "inf" seconds).
const MAX_NUMBER: f64 = 1e15;

/// Every number in a catalog is a size, a rate, a price or a time: finite, not negative and
/// at most [`MAX_NUMBER`] (`iops = -5` would print as "IOPS -5 sustained", `nan` as "NaNM").
fn numbers_in_range(v: &toml::Value, at: &str) -> std::result::Result<(), String> {
    let bad = |x: f64| !x.is_finite() || !(0.0..=MAX_NUMBER).contains(&x);
    let say = |x: &dyn std::fmt::Display| Err(format!("{at} = {x}: give a number from 0 to 10^15"));
    match v {
        // A huge float in exponent form: its 309 digits say nothing more.
        toml::Value::Float(x) if bad(*x) && x.abs() > MAX_NUMBER => say(&format!("{x:e}")),
        toml::Value::Float(x) if bad(*x) => say(x),
        toml::Value::Integer(i) if bad(*i as f64) => say(i),
        toml::Value::Table(t) => t.iter().try_for_each(|(k, v)| {
            let p = if at.is_empty() {
                k.clone()
            } else {
                format!("{at}.{k}")
            };
            numbers_in_range(v, &p)
        }),
        toml::Value::Array(a) => a
            .iter()
            .enumerate()
            .try_for_each(|(i, v)| numbers_in_range(v, &format!("{at}[{i}]"))),
        _ => Ok(()),
    }
}

/// Checks that a product has the numbers its kind's formula needs, so a user's file fails
/// when loaded rather than with a wrong figure later.
fn validate(p: &Product) -> Result<()> {
    let need = |name: &str, v: bool| -> Result<()> {
        if v {
            Ok(())
        } else {
            bail!("kind '{:?}' needs {name}", p.kind)
        }
    };
    if !(p.size_min > 0.0 && p.size_max >= p.size_min) {
        bail!("size_min and size_max must satisfy 0 < size_min <= size_max");
    }
    match p.kind {
        Kind::Vpu => need("levels", !p.levels.is_empty())?,
        Kind::Fixed => need("iops and mbps", p.iops.is_some() && p.mbps.is_some())?,
        // Without a bandwidth rule the volume would model as unlimited ("inf MB/s").
        Kind::PerSize => need(
            "iops_max and a bandwidth rule (mbps_base, mbps_per_size, mbps_max or mbps_per_io_kib)",
            p.iops_max.is_some()
                && (p.mbps_base.is_some()
                    || p.mbps_per_size.is_some()
                    || p.mbps_max.is_some()
                    || p.mbps_per_io_kib.is_some()),
        )?,
        Kind::Provisioned => need(
            "iops_max, iops_min and a throughput rule",
            p.iops_max.is_some()
                && p.iops_min.is_some()
                && (p.mbps_max.is_some() || !p.mbps_derived.is_empty()),
        )?,
        Kind::Tiers => need("tiers", !p.tiers.is_empty())?,
    }
    Ok(())
}
