//! `cloud cheapest`: for each product, the cheapest configuration whose SUSTAINED rates (not a
//! burst) meet a target, found from the same model `cloud show` prints.

use crate::catalog::{Catalog, Kind, Product};
use crate::model::{self, max_iops, max_mbps, Model, Params};
use serde::Serialize;

/// What the volume must do. `bw_bytes` is bytes per second; `capacity_bytes` the space needed.
#[derive(Clone, Copy, Debug, Default)]
pub struct Target {
    pub iops: f64,
    pub bw_bytes: f64,
    pub capacity_bytes: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct Candidate {
    pub model: Model,
    /// Sustained IOPS and bandwidth over the target (1.0 = exactly enough).
    pub iops_headroom: Option<f64>,
    pub bw_headroom: Option<f64>,
    /// The cheapest of its provider.
    pub provider_best: bool,
}

/// The cheapest configuration of every product that can meet `t`, cheapest first. Products
/// without a price in the catalog are left out (their ids are returned second).
pub fn cheapest(cat: &Catalog, t: &Target, providers: &[String]) -> (Vec<Candidate>, Vec<String>) {
    let mut out = Vec::new();
    let mut unpriced = Vec::new();
    for p in &cat.products {
        if !providers.is_empty()
            && !providers
                .iter()
                .any(|x| x.eq_ignore_ascii_case(&p.provider))
        {
            continue;
        }
        let best = configs(p, t)
            .into_iter()
            .filter_map(|params| model::model(p, &params).ok())
            .filter(|m| meets(m, t))
            .min_by(|a, b| price(a).total_cmp(&price(b)));
        match best {
            Some(m) if m.price_month_usd.is_some() => out.push(candidate(m, t)),
            Some(_) => unpriced.push(p.id.clone()),
            None => {}
        }
    }
    out.sort_by(|a, b| price(&a.model).total_cmp(&price(&b.model)));
    let mut seen = Vec::new();
    for c in &mut out {
        if !seen.contains(&c.model.provider) {
            seen.push(c.model.provider.clone());
            c.provider_best = true;
        }
    }
    (out, unpriced)
}

fn price(m: &Model) -> f64 {
    m.price_month_usd.unwrap_or(f64::INFINITY)
}

fn candidate(m: Model, t: &Target) -> Candidate {
    Candidate {
        iops_headroom: (t.iops > 0.0).then(|| m.iops / t.iops),
        bw_headroom: (t.bw_bytes > 0.0).then(|| m.bw_bytes / t.bw_bytes),
        provider_best: false,
        model: m,
    }
}

/// Sustained read and write rates both meet the target; the size holds the capacity.
pub fn meets(m: &Model, t: &Target) -> bool {
    let eps = 1e-9;
    m.iops.min(m.write_iops) + eps >= t.iops
        && m.bw_bytes.min(m.write_bw_bytes) + eps >= t.bw_bytes
        && m.size_bytes + 1.0 >= t.capacity_bytes
}

/// The smallest size (in the product's unit, whole units) holding the capacity.
fn min_size(p: &Product, t: &Target) -> f64 {
    (t.capacity_bytes / p.size_unit.bytes())
        .ceil()
        .max(p.size_min)
}

/// Candidate configurations: each is the least that could meet the target for one choice.
fn configs(p: &Product, t: &Target) -> Vec<Params> {
    let s0 = min_size(p, t);
    if s0 > p.size_max {
        return Vec::new();
    }
    let size = |s: f64| Params {
        size: Some(s.ceil().clamp(p.size_min, p.size_max)),
        ..Params::default()
    };
    match p.kind {
        Kind::Fixed => vec![size(s0)],
        Kind::Tiers => p
            .tiers
            .iter()
            .filter(|x| x.size >= s0)
            .map(|x| size(x.size))
            .collect(),
        Kind::PerSize => vec![size(bisect_size(p, s0, t))],
        Kind::Vpu => vpu_configs(p, t, s0),
        Kind::Provisioned => provisioned_config(p, t, s0).into_iter().collect(),
    }
}

fn vpu_configs(p: &Product, t: &Target, s0: f64) -> Vec<Params> {
    let mb = p.bw_unit.bytes();
    p.levels
        .iter()
        .map(|l| {
            let for_iops = t.iops / l.iops_per_gb;
            let for_bw = t.bw_bytes / mb * 1000.0 / l.kbps_per_gb;
            Params {
                size: Some(s0.max(for_iops).max(for_bw).ceil().min(p.size_max)),
                vpu: Some(l.vpu),
                ..Params::default()
            }
        })
        .collect()
}

/// Rates grow with size: the smallest whole size from `s0` up that meets the target.
fn bisect_size(p: &Product, s0: f64, t: &Target) -> f64 {
    let ok = |s: f64| {
        let params = Params {
            size: Some(s),
            ..Params::default()
        };
        model::model(p, &params).is_ok_and(|m| meets(&m, t))
    };
    if ok(s0) || !ok(p.size_max) {
        return s0;
    }
    let (mut lo, mut hi) = (s0, p.size_max);
    while hi - lo > 1.0 {
        let mid = ((lo + hi) / 2.0).floor();
        if ok(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// Provision exactly the target (at least what is included), raising IOPS where throughput
/// follows IOPS, and the size where IOPS are limited per size unit.
fn provisioned_config(p: &Product, t: &Target, s0: f64) -> Option<Params> {
    let mb = p.bw_unit.bytes();
    let want_mbps = t.bw_bytes / mb;
    let mut iops = t
        .iops
        .max(p.iops_min.unwrap_or(0.0))
        .max(p.iops_included.unwrap_or(0.0))
        .ceil();
    if let Some(r) = p.mbps_per_iops.filter(|_| p.mbps_derived.is_empty()) {
        iops = iops.max((want_mbps / r).ceil());
    }
    if !p.mbps_derived.is_empty() {
        // Throughput follows IOPS piecewise: the least IOPS (from the target up) whose
        // derived throughput reaches the target.
        let derived = |i: f64| {
            let d = p
                .mbps_derived
                .iter()
                .find(|d| i <= d.upto_iops)
                .unwrap_or(&p.mbps_derived[p.mbps_derived.len() - 1]);
            (d.per_iops * i).min(d.max)
        };
        iops = std::iter::once(iops)
            .chain(
                p.mbps_derived
                    .iter()
                    .map(|d| (want_mbps / d.per_iops).ceil()),
            )
            .filter(|&c| c >= iops && derived(c) >= want_mbps)
            .fold(f64::INFINITY, f64::min);
        if !iops.is_finite() {
            return None;
        }
    }
    let per = p.iops_per_size.unwrap_or(f64::INFINITY);
    let size = s0.max((iops / per).ceil()).min(p.size_max);
    if iops > max_iops(p, size) {
        return None;
    }
    let throughput = p.mbps_derived.is_empty().then(|| {
        want_mbps
            .max(p.mbps_min.unwrap_or(0.0))
            .max(p.mbps_included.unwrap_or(0.0))
            .ceil()
            .min(max_mbps(p, iops))
    });
    Some(Params {
        size: Some(size),
        vpu: None,
        iops: Some(iops),
        throughput,
    })
}
