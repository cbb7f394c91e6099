//! A cloud volume's model and its checks as documents: what `cloud show` and `cloud check`
//! print and store. The catalog and the formulas that make a model are `cloud`'s; these are
//! the figures they give, which the renderers read.

use serde::{Deserialize, Serialize};

/// The model of one configured volume. Rates are sustained rates unless named burst.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Model {
    /// The product came from the user's catalog file (see `cloud::catalog::Product::user`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub from_user_catalog: bool,
    pub product: String,
    pub name: String,
    pub provider: String,
    /// The configuration in the `cloud check --model` form, e.g. `oci:vpu=10:size=100`.
    pub config: String,
    pub size: f64,
    pub size_unit: String,
    pub size_bytes: f64,
    pub bw_unit: String,
    /// Read IOPS sustained indefinitely (after any burst): the baseline.
    pub iops: f64,
    pub write_iops: f64,
    /// Bytes per second sustained.
    pub bw_bytes: f64,
    pub write_bw_bytes: f64,
    pub baseline_iops: f64,
    pub baseline_bw_bytes: f64,
    pub burst_iops: Option<f64>,
    pub burst_bw_bytes: Option<f64>,
    /// Credits in I/Os drawn by I/O above the baseline rate (null where no bucket).
    pub burst_bucket_ios: Option<f64>,
    pub burst_bucket_bytes: Option<f64>,
    /// How long a full bucket lasts at the burst rate.
    pub burst_duration_s: Option<f64>,
    /// Credits an idle volume earns per second.
    pub refill_ios_per_s: Option<f64>,
    pub refill_bytes_per_s: Option<f64>,
    /// The block size where the bandwidth cap starts to bind before the IOPS cap.
    pub crossover_bs: f64,
    /// I/O accounting unit: larger I/Os count as several.
    pub io_unit_bytes: Option<f64>,
    pub provisioned_iops: Option<f64>,
    pub provisioned_throughput: Option<f64>,
    pub price_month_usd: Option<f64>,
    pub usd_per_iops: Option<f64>,
    /// Per MB/s (10^6 bytes/s) of sustained throughput.
    pub usd_per_mbps: Option<f64>,
    pub instance_caps: Vec<String>,
    pub notes: Vec<String>,
    pub unconfirmed: Vec<String>,
    pub source: String,
    pub read_on: String,
    pub confidence: String,
}

/// Expected rates at one block size.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct AtBs {
    pub bs: u64,
    pub iops: f64,
    pub bw_bytes: f64,
    pub burst_iops: Option<f64>,
    pub burst_bw_bytes: Option<f64>,
    /// "iops" or "bandwidth": which cap binds at this block size.
    pub bound: &'static str,
}

impl Model {
    /// Whether the model's bandwidth unit is in doubt: a user's catalog, or a product whose
    /// provider does not define its unit (listed as unconfirmed in the catalog).
    pub fn units_uncertain(&self) -> bool {
        self.from_user_catalog || self.unconfirmed.iter().any(|u| u.starts_with("bw_unit"))
    }

    /// The model's rates at block size `bs` (bytes), counting the provider's I/O units.
    pub fn at(&self, bs: u64) -> AtBs {
        let units = self.units(bs);
        let b = bs as f64;
        let iops = (self.iops / units).min(self.bw_bytes / b);
        let burst = self
            .burst_iops
            .map(|bi| (bi / units).min(self.burst_bw_bytes.unwrap_or(self.bw_bytes) / b));
        AtBs {
            bs,
            iops,
            bw_bytes: iops * b,
            burst_iops: burst,
            burst_bw_bytes: burst.map(|i| i * b),
            bound: if self.iops / units <= self.bw_bytes / b {
                "iops"
            } else {
                "bandwidth"
            },
        }
    }

    /// How many accounting units one I/O of `bs` bytes costs.
    pub fn units(&self, bs: u64) -> f64 {
        match self.io_unit_bytes {
            Some(u) if u > 0.0 => (bs as f64 / u).ceil().max(1.0),
            _ => 1.0,
        }
    }
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Row {
    pub test: String,
    pub bs: u64,
    /// "iops" or "bandwidth": the cap that binds at this block size, and so the one compared.
    pub metric: &'static str,
    pub model: f64,
    pub measured: f64,
    pub ratio: f64,
    /// "above", "as advertised" or "below".
    pub verdict: &'static str,
    pub reasons: Vec<String>,
}

/// A stored curve against the model's IOPS cap at its block size: where its maximum, its
/// knee and each SLO answer sit as shares of what the provider advertises.
#[derive(Clone, Debug, Serialize)]
pub struct CurveCheck {
    pub model_iops: f64,
    pub max_ratio: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub knee_ratio: Option<f64>,
    pub lines: Vec<String>,
}
