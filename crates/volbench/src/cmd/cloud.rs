//! `volbench cloud list|show|cheapest|check`: the catalog and models of crate `cloud`, printed.

use crate::cli::{
    CatalogArgs, CloudCheapestArgs, CloudCheckArgs, CloudCmd, CloudListArgs, CloudShowArgs,
    VolumeArgs,
};
use crate::usage::usage;
use ::cloud::catalog::Catalog;
use ::cloud::check;
use ::cloud::model::{self, Model};
use anyhow::Result;
use figures::fmt_count;
use std::fmt::Write as _;
use std::process::ExitCode;

pub fn main(c: CloudCmd) -> Result<ExitCode> {
    match c {
        CloudCmd::List(a) => list(a),
        CloudCmd::Show(a) => show(a),
        CloudCmd::Cheapest(a) => cheapest(a),
        CloudCmd::Check(a) => check_cmd(a),
    }
}

fn load(a: &CatalogArgs) -> Result<Catalog> {
    if !matches!(a.output_format.as_str(), "normal" | "json") {
        return Err(usage(format!(
            "--output-format {}: choose normal or json",
            a.output_format
        )));
    }
    Catalog::load(a.catalog.as_deref()).map_err(|e| usage(format!("{e:#}")))
}

fn print_json(v: &impl serde::Serialize) -> Result<ExitCode> {
    println!("{}", serde_json::to_string_pretty(v)?);
    Ok(ExitCode::SUCCESS)
}

fn list(a: CloudListArgs) -> Result<ExitCode> {
    let cat = load(&a.cat)?;
    let prods: Vec<_> = cat
        .products
        .iter()
        .filter(|p| {
            a.provider
                .as_ref()
                .is_none_or(|x| x.eq_ignore_ascii_case(&p.provider))
        })
        .collect();
    if a.cat.output_format == "json" {
        return print_json(&prods);
    }
    let w = prods.iter().map(|p| p.id.len()).max().unwrap_or(4);
    let mut out = String::new();
    for p in prods {
        let flag = if p.unconfirmed.is_empty() {
            ""
        } else {
            "  (some figures unconfirmed)"
        };
        let _ = writeln!(
            out,
            "{:<w$}  {}  [sizes {}, bandwidth {}]{flag}",
            p.id,
            p.name,
            p.size_unit.name(),
            p.bw_unit.name()
        );
        let _ = writeln!(out, "{:<w$}  source: {} (read {})", "", p.source, p.read_on);
    }
    let _ = writeln!(
        out,
        "\ncatalog updated {}; `volbench cloud show ID --size 100g` for one volume",
        cat.updated.unwrap_or_default()
    );
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}

fn show(a: CloudShowArgs) -> Result<ExitCode> {
    let cat = load(&a.cat)?;
    let m = crate::catalog::resolve(&cat, &a.product, &a.volume)?;
    if a.cat.output_format == "json" {
        let at: Vec<_> = render::cloud::SHOWN_BS.iter().map(|&b| m.at(b)).collect();
        return print_json(&serde_json::json!({ "model": m, "at": at }));
    }
    print!("{}", render::cloud::volume(&m));
    Ok(ExitCode::SUCCESS)
}

fn cheapest(a: CloudCheapestArgs) -> Result<ExitCode> {
    let cat = load(&a.cat)?;
    if a.iops < 0.0 || a.mbps < 0.0 || !a.iops.is_finite() || !a.mbps.is_finite() {
        return Err(usage("--iops and --mbps must be positive numbers"));
    }
    let gib = model::parse_volume_size(&a.size).map_err(|e| usage(format!("--size: {e:#}")))?;
    let (need, rests_on) = curve_need(&a)?;
    let t = ::cloud::cheapest::Target {
        iops: need,
        bw_bytes: a.mbps * 1e6,
        capacity_bytes: gib * (1u64 << 30) as f64,
    };
    for p in &a.provider {
        if !cat
            .products
            .iter()
            .any(|x| x.provider.eq_ignore_ascii_case(p))
        {
            return Err(usage(format!(
                "--provider {p}: not in the catalog (see volbench cloud list)"
            )));
        }
    }
    let (found, unpriced) = ::cloud::cheapest::cheapest(&cat, &t, &a.provider);
    if a.cat.output_format == "json" {
        return print_json(
            &serde_json::json!({ "candidates": found, "unpriced": unpriced, "needed_iops": need, "rests_on": rests_on }),
        );
    }
    let mbps = if a.mbps > 0.0 {
        format!(" and {} MB/s", a.mbps)
    } else {
        String::new()
    };
    let mut s = format!(
        "Cheapest volumes sustaining {} IOPS{mbps} with {} GiB (not counting bursts):\n\n",
        fmt_count(a.iops),
        gib
    );
    if let Some(r) = &rests_on {
        s.push_str(&format!("  {r}\n\n"));
    }
    s.push_str(&candidates_table(&found, &unpriced));
    print!("{s}");
    Ok(ExitCode::SUCCESS)
}

/// The candidates as a table, cheapest first, with the notes under it.
fn candidates_table(found: &[::cloud::cheapest::Candidate], unpriced: &[String]) -> String {
    let mut s = String::new();
    let w = found
        .iter()
        .map(|c| c.model.config.len())
        .max()
        .unwrap_or(13)
        .max(13);
    s.push_str(&format!(
        "  {:<w$}  {:>10}  {:>9}  {:>11}  {:>8}  {:>8}\n",
        "configuration", "$/month", "IOPS", "MiB/s", "IOPS x", "bw x"
    ));
    for c in found {
        let m = &c.model;
        s.push_str(&format!(
            "{} {:<w$}  {:>10.2}  {:>9}  {:>11.1}  {:>8}  {:>8}\n",
            if c.provider_best { "*" } else { " " },
            m.config,
            m.price_month_usd.unwrap_or(0.0),
            fmt_count(m.iops),
            m.bw_bytes / 1048576.0,
            c.iops_headroom.map_or("-".into(), |h| format!("{h:.2}")),
            c.bw_headroom.map_or("-".into(), |h| format!("{h:.2}")),
        ));
    }
    if found.is_empty() {
        s.push_str("  (no product in the catalog sustains that)\n");
    }
    s.push_str("\n  * the cheapest of its provider; x = headroom over the target. Per-instance caps are not counted.\n");
    if !unpriced.is_empty() {
        s.push_str(&format!(
            "  Meet the target but have no price in the catalog: {}\n",
            unpriced.join(", ")
        ));
    }
    s
}

/// Why a curve is partial, if it is: stopped (Ctrl-C, an error, killed mid-run) before its
/// last point, said with the share it reached.
fn partial_curve(doc: &report::Document, c: &report::curve::CurveReport) -> Option<String> {
    let report::Document::Suite(s) = doc else {
        return None;
    };
    if s.status == report::Status::Complete {
        return None;
    }
    let last = c.points.last().map_or(0, |p| p.share_percent);
    Some(format!(
        "the curve is {}, its last point at {last} % of its maximum",
        s.status.name()
    ))
}

/// With --from-curve: the IOPS cap a volume needs so that --iops meets every --slo, from the
/// share of its maximum up to which the measured curve held each; and what that rests on.
fn curve_need(a: &CloudCheapestArgs) -> Result<(f64, Option<String>)> {
    let Some(id) = &a.from_curve else {
        return Ok((a.iops, None));
    };
    let mut store = None;
    let doc = crate::inputs::input(&mut store, &a.store, id)?;
    let (c, runs) = match &doc {
        report::Document::Suite(s) if s.curve.is_some() => (s.curve.as_deref().unwrap(), &s.runs),
        _ => {
            return Err(usage(format!(
                "--from-curve {id}: not a curve result; measure one with volbench curve TARGET --slo p99=5ms"
            )))
        }
    };
    // A curve cut short has no points above where it stopped: its SLO answer would read "held
    // to the last point" and price the volume as if it held to its maximum.
    let partial = partial_curve(&doc, c);
    if let Some(p) = &partial {
        if !a.partial_curve {
            return Err(usage(format!(
                "--from-curve {id}: {p}, so its answers stand on part of the load range; measure the whole curve, or give --partial-curve to price it as it is"
            )));
        }
    }
    let mut share = 1.0f64;
    let mut held = Vec::new();
    for text in &a.slo {
        let slo = report::curve::Slo::parse(text).map_err(usage)?;
        let (f, answer) = c.slo_share(&slo, runs);
        if answer.host_late_ns.is_some() {
            return Err(usage(format!(
                "--from-curve {id}: {}: the curve cannot price this SLO; measure it on a quieter host",
                answer.message
            )));
        }
        if let (Some(p), false) = (answer.cut_by_host_at(), a.partial_curve) {
            return Err(usage(format!(
                "--from-curve {id}: {}: the answer stops where the host was late ({p} % of the load), not where the volume broke the SLO; measure it on a quieter host, or give --partial-curve to price it as it is",
                answer.message
            )));
        }
        let Some(f) = f.filter(|f| *f > 0.0) else {
            return Err(usage(format!(
                "--from-curve {id}: {}: no volume shaped like that one meets it at any load",
                answer.message
            )));
        };
        share = share.min(f);
        held.push(format!(
            "{} held up to {:.0} % of its maximum",
            slo.name(),
            100.0 * f
        ));
    }
    // Whole IOPS, rounded up: a cap is provisioned in whole IOPS, and the products are asked
    // for this same figure (the text said 4966 and listed caps of 4967).
    let need = (a.iops / share).ceil();
    Ok((
        need,
        Some(format!(
            "from {}curve {id} ({} IOPS maximum): {}; so each volume needs a cap of {} IOPS for {} IOPS within it (conservative: at the same share of a higher cap a queue waits less)",
            partial.map_or(String::new(), |p| format!("PARTIAL ({p}) ")),
            fmt_count(c.max.iops),
            held.join(", "),
            fmt_count(need),
            fmt_count(a.iops)
        )),
    ))
}

/// A curve's answers against the model, where the result is a curve; a curve cut short says
/// so first.
fn curve_check(doc: &report::Document, model: &Model) -> Option<check::CurveCheck> {
    let report::Document::Suite(s) = doc else {
        return None;
    };
    let whole = s.curve.as_deref()?;
    let mut c = check::curve(model, whole)?;
    if let Some(p) = partial_curve(doc, whole) {
        c.lines.insert(
            0,
            format!("PARTIAL: {p}; the lines below stand on the points it measured"),
        );
    }
    Some(c)
}

fn check_cmd(a: CloudCheckArgs) -> Result<ExitCode> {
    let cat = load(&a.cat)?;
    let no_volume = VolumeArgs {
        size: None,
        vpu: None,
        iops: None,
        throughput: None,
    };
    let models: Vec<Model> = a
        .model
        .iter()
        .map(|m| crate::catalog::resolve(&cat, m, &no_volume))
        .collect::<Result<_>>()?;
    let pairs = check_pairs(a.results.len(), models.len())?;
    let mut store = None;
    let mut checks = Vec::new();
    let mut curves = Vec::new();
    for (r, m) in pairs {
        let doc = crate::inputs::input(&mut store, &a.store, &a.results[r])?;
        if let Some(c) = curve_check(&doc, &models[m]) {
            curves.push((a.results[r].as_str(), models[m].config.as_str(), c));
        }
        let tests = ::cloud::measured::measured(&doc);
        if tests.is_empty() {
            return Err(usage(format!(
                "{}: cloud check takes a run, sweep or suite result",
                a.results[r]
            )));
        }
        let rows: Vec<check::Row> = tests
            .iter()
            .filter_map(|t| check::check(&models[m], t))
            .collect();
        checks.push((a.results[r].as_str(), &models[m], rows));
    }
    if a.cat.output_format == "json" {
        let mut v = check_json(&checks);
        if !curves.is_empty() {
            v["curves"] = curves
                .iter()
                .map(|(r, m, c)| serde_json::json!({ "result": r, "model": m, "curve": c }))
                .collect();
        }
        return print_json(&v);
    }
    let mut text = render::cloud::check(&checks);
    for (r, m, c) in &curves {
        text.push_str(&format!("\n{r}'s curve against {m}:\n"));
        for l in &c.lines {
            text.push_str(&format!("  {l}\n"));
        }
    }
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// Which result goes with which volume: one volume checks every result, one result every
/// volume, and as many of each pair them in order (seed 001: four volumes, a dd run on each).
fn check_pairs(results: usize, models: usize) -> Result<Vec<(usize, usize)>> {
    Ok(match (results, models) {
        (1, m) => (0..m).map(|j| (0, j)).collect(),
        (n, 1) => (0..n).map(|i| (i, 0)).collect(),
        (n, m) if n == m => (0..n).map(|i| (i, i)).collect(),
        (n, m) => {
            return Err(usage(format!(
                "{n} results and {m} --model volumes: give one volume, one result, or as many volumes as results (paired in order)"
            )))
        }
    })
}

use render::cloud::Check;

fn check_json(checks: &[Check]) -> serde_json::Value {
    match checks {
        [(_, m, rows)] => serde_json::json!({ "model": m, "rows": rows }),
        _ => serde_json::json!({
            "checks": checks
                .iter()
                .map(|(r, m, rows)| serde_json::json!({ "result": r, "model": m, "rows": rows }))
                .collect::<Vec<_>>()
        }),
    }
}
