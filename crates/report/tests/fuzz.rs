//! Fuzzing the JSON reader of compare, report and chart (issue 21): a real run report with
//! one to three of its values replaced by a value of another kind, or removed, or the text
//! cut short. Whatever comes in: no panic, a refusal is one line, and a refusal of one
//! replaced value names that value's field. `PROPTEST_CASES` sets the count
//! (docs/fuzzing.md).

use proptest::prelude::*;
use report::read::from_json;
use serde_json::{json, Value};

const RUN: &str = include_str!("data/run.json");

/// Paths to every value, as (key or index) lists.
fn paths(v: &Value, at: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => m.iter().for_each(|(k, v)| {
            at.push(k.clone());
            paths(v, at, out);
            at.pop();
        }),
        Value::Array(a) => a.iter().enumerate().for_each(|(i, v)| {
            at.push(i.to_string());
            paths(v, at, out);
            at.pop();
        }),
        _ => {}
    }
}

fn hostile() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        Just(None),
        Just(Some(json!("weird"))),
        Just(Some(json!(5))),
        Just(Some(json!(-1))),
        Just(Some(json!(1e300))),
        Just(Some(json!(null))),
        Just(Some(json!({}))),
        Just(Some(json!([]))),
        Just(Some(json!(true))),
        Just(Some(json!(u64::MAX))),
    ]
}

/// Applies a replacement (or a removal) at `path`; false when the path has no parent.
fn put(v: &mut Value, path: &[String], new: Option<Value>) -> bool {
    let Some((last, parent)) = path.split_last() else {
        return false;
    };
    let mut cur = v;
    for k in parent {
        cur = match cur {
            Value::Object(m) => m.get_mut(k).unwrap(),
            Value::Array(a) => &mut a[k.parse::<usize>().unwrap()],
            _ => unreachable!(),
        };
    }
    match (cur, new) {
        (Value::Object(m), Some(n)) => {
            m.insert(last.clone(), n);
        }
        (Value::Object(m), None) => {
            m.remove(last);
        }
        (Value::Array(a), Some(n)) => a[last.parse::<usize>().unwrap()] = n,
        (Value::Array(a), None) => {
            a.remove(last.parse::<usize>().unwrap());
        }
        _ => return false,
    }
    true
}

proptest! {
    #[test]
    fn a_mutated_report_reads_or_is_refused_in_one_line_naming_the_field(
        muts in proptest::collection::vec((any::<proptest::sample::Index>(), hostile()), 1..4),
    ) {
        let mut v: Value = serde_json::from_str(RUN).unwrap();
        let mut last_key = None;
        let n = muts.len();
        for (i, new) in muts {
            let mut all = Vec::new();
            paths(&v, &mut Vec::new(), &mut all);
            let path = i.get(&all).clone();
            if put(&mut v, &path, new.clone()) && new.is_some() {
                last_key = path.last().cloned();
            }
        }
        let text = serde_json::to_string(&v).unwrap();
        match from_json(&text) {
            Ok(d) => {
                let _ = (d.kind(), d.what(), d.status());
            }
            Err(e) => {
                prop_assert!(!e.contains('\n') && !e.is_empty(), "{e:?}");
                // One replaced value (not a removal, whose field may be optional): its
                // field is what the refusal names, unless the refusal is of the whole
                // document (a schema_version this build does not read).
                if let (1, Some(k)) = (n, last_key) {
                    let by_index = k.parse::<usize>().is_ok();
                    prop_assert!(
                        by_index || e.contains(&k) || e.contains("schema_version"),
                        "{k}: {e}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_report_cut_short_is_refused_as_not_json(at in 0usize..RUN.trim_end().len()) {
        let cut = RUN.get(..at).unwrap_or("");
        let e = from_json(cut).map(|_| ()).unwrap_err();
        prop_assert!(e.starts_with("not JSON") && !e.contains('\n'), "{e}");
    }
}
