//! Fuzzing the catalog loader (issue 21): the shipped catalog with one to four of its values
//! replaced (a negative, a NaN, a huge number, a string, an empty list) or removed. Whatever
//! comes in: no panic, a refusal is one line, and a catalog that loads gives every product a
//! model whose figures are finite and not negative at any size in its range (a user's file
//! never shows "IOPS -5" or "NaN"). `PROPTEST_CASES` sets the count (docs/fuzzing.md).

use cloud::catalog::{Catalog, SHIPPED};
use cloud::model::{model, Params};
use proptest::prelude::*;
use toml::Value;

/// Paths to every leaf of a TOML value: keys and array indexes.
fn leaves(v: &Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match v {
        Value::Table(t) => t.iter().for_each(|(k, v)| {
            at.push(k.clone());
            leaves(v, at, out);
            at.pop();
        }),
        Value::Array(a) => a.iter().enumerate().for_each(|(i, v)| {
            at.push(format!("#{i}"));
            leaves(v, at, out);
            at.pop();
        }),
        _ => out.push(at.clone()),
    }
}

fn slot<'a>(v: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    let Some((first, rest)) = path.split_first() else {
        return Some(v);
    };
    let next = match (v, first.strip_prefix('#')) {
        (Value::Array(a), Some(i)) => a.get_mut(i.parse::<usize>().ok()?)?,
        (Value::Table(t), None) => t.get_mut(first)?,
        _ => return None,
    };
    slot(next, rest)
}

fn hostile() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        Just(None),
        Just(Some(Value::Float(f64::NAN))),
        Just(Some(Value::Float(f64::INFINITY))),
        Just(Some(Value::Float(1e308))),
        Just(Some(Value::Float(-0.5))),
        Just(Some(Value::Integer(-5))),
        Just(Some(Value::Integer(0))),
        Just(Some(Value::Integer(i64::MAX))),
        Just(Some(Value::String("x".into()))),
        Just(Some(Value::Array(vec![]))),
        Just(Some(Value::Boolean(true))),
        (0.0f64..1e7).prop_map(|x| Some(Value::Float(x))),
    ]
}

fn mutated() -> impl Strategy<Value = String> {
    proptest::collection::vec((any::<proptest::sample::Index>(), hostile()), 1..5).prop_map(
        |muts| {
            let mut v: Value = toml::from_str(SHIPPED).unwrap();
            for (i, new) in muts {
                let mut all = Vec::new();
                leaves(&v, &mut Vec::new(), &mut all);
                let path = i.get(&all).clone();
                match new {
                    Some(n) => *slot(&mut v, &path).unwrap() = n,
                    None => {
                        let (last, parent) = path.split_last().unwrap();
                        match slot(&mut v, parent) {
                            Some(Value::Table(t)) => {
                                t.remove(last);
                            }
                            Some(Value::Array(a)) => {
                                a.remove(last[1..].parse::<usize>().unwrap());
                            }
                            _ => {}
                        }
                    }
                }
            }
            toml::to_string(&v).unwrap()
        },
    )
}

fn sound(x: f64) -> bool {
    x.is_finite() && x >= 0.0
}

proptest! {
    #[test]
    fn a_mutated_catalog_loads_with_sound_figures_or_is_refused_in_one_line(
        text in mutated(), at in 0.0f64..=1.0, bs_log in 9u32..21,
    ) {
        let cat = match Catalog::from_text(&text, "fuzz.toml") {
            Ok(c) => c,
            Err(e) => {
                let msg = format!("{e:#}");
                prop_assert!(!msg.contains('\n') && msg.starts_with("fuzz.toml"), "{msg:?}");
                return Ok(());
            }
        };
        for p in &cat.products {
            let size = p.size_min + (p.size_max - p.size_min) * at;
            let params = Params { size: Some(size.round().clamp(p.size_min, p.size_max)), ..Default::default() };
            let Ok(m) = model(p, &params) else { continue };
            let figures = [m.iops, m.write_iops, m.bw_bytes, m.write_bw_bytes, m.baseline_iops, m.baseline_bw_bytes, m.size_bytes];
            prop_assert!(figures.iter().all(|x| sound(*x)), "{}: {figures:?}", p.id);
            let optional = [m.price_month_usd, m.burst_iops, m.burst_bw_bytes, m.burst_bucket_ios, m.usd_per_iops, m.usd_per_mbps, m.burst_duration_s];
            prop_assert!(optional.iter().flatten().all(|x| sound(*x)), "{}: {optional:?}", p.id);
            let r = m.at(1 << bs_log);
            prop_assert!(sound(r.iops) && sound(r.bw_bytes), "{}: {r:?}", p.id);
        }
    }
}
