//! Fuzzing the job-file parser and the fio option table (issue 21). Job files are generated
//! from the grammar's pieces (sections, every supported option with values both plausible and
//! hostile, flags, comments, `${VAR}`, includes, junk lines); options with random values.
//! Whatever comes in: no panic, every error is one line naming its place, and a job that was
//! accepted round-trips through the option table (its options, applied to fio's defaults,
//! give the same options back). `PROPTEST_CASES` sets the count (docs/fuzzing.md).

use proptest::prelude::*;
use std::path::Path;
use workload::fio;
use workload::jobfile::parse_str;

fn key() -> impl Strategy<Value = String> {
    let names: Vec<&'static str> = fio::table::all()
        .flat_map(|o| std::iter::once(o.name).chain(o.aliases.iter().copied()))
        .collect();
    prop_oneof![
        8 => proptest::sample::select(names).prop_map(String::from),
        1 => "[a-z_]{1,12}",
        1 => "\\PC{0,12}",
    ]
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        // Numbers with fio's units and ranges.
        3 => (0u64..1 << 40, proptest::sample::select(&["", "k", "K", "m", "MiB", "g", "%", "s", "ms", "us"][..]))
            .prop_map(|(n, u)| format!("{n}{u}")),
        2 => proptest::sample::select(&[
            "read", "write", "randrw", "randread:8", "rw", "trim", "libaio", "io_uring", "psync",
            "null", "1", "0", "4k-64k", "4k:8k", "4k/50:64k/50", "zipf:1.2", "pareto:0.9",
            "normal:20", "random", "sequential", "-1", "18446744073709551616", "1e9", "nan",
            "/dev/null", "", "0x10", "4k,8k", "1:2:3", "50/50", "sync", "none",
        ][..]).prop_map(String::from),
        1 => "\\PC{0,24}",
    ]
}

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (key(), value()).prop_map(|(k, v)| format!("{k}={v}")),
        1 => key(),
        1 => "[a-z0-9_]{1,8}".prop_map(|s| format!("[{s}]")),
        1 => Just("[global]".to_string()),
        1 => "\\PC{0,30}".prop_map(|s| format!("; {s}")),
        1 => key().prop_map(|k| format!("{k}=${{VB_FUZZ}}")),
        1 => Just("include missing.fio".to_string()),
        1 => "\\PC{0,40}",
    ]
}

fn job_file() -> impl Strategy<Value = String> {
    ("[a-z]{1,6}", proptest::collection::vec(line(), 0..24))
        .prop_map(|(first, lines)| format!("[{first}]\n{}\n", lines.join("\n")))
}

fn env(name: &str) -> Option<String> {
    (name == "VB_FUZZ").then(|| "4k".to_string())
}

proptest! {
    #[test]
    fn job_files_parse_or_fail_in_one_line_and_accepted_jobs_round_trip(text in job_file()) {
        let file = Path::new("/nonexistent/fuzz.fio");
        let sections = match parse_str(&text, file, &env, 0) {
            Ok(s) => s,
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(!msg.contains('\n'), "{msg:?}");
                prop_assert!(msg.starts_with("/nonexistent/fuzz.fio:"), "{msg:?}");
                return Ok(());
            }
        };
        match fio::workload(&sections, false) {
            Err(e) => {
                let msg = e.to_string();
                prop_assert!(!msg.contains('\n'), "{msg:?}");
            }
            Ok((w, _)) => {
                for j in &w.jobs {
                    let opts = fio::options(j);
                    let mut again = workload::JobSpec::fio_default(&j.name);
                    for (k, v) in &opts {
                        let v = (!v.is_empty()).then_some(v.as_str());
                        let r = fio::apply(&mut again, k, v);
                        prop_assert!(r.is_ok(), "{k}={v:?} of {opts:?}: {r:?}");
                    }
                    prop_assert_eq!(fio::options(&again), opts);
                }
            }
        }
    }

    #[test]
    fn any_value_of_any_option_applies_or_is_refused_in_one_line(k in key(), v in proptest::option::of(value())) {
        let mut j = workload::JobSpec::fio_default("fuzz");
        if let Err(e) = fio::apply(&mut j, &k, v.as_deref()) {
            let msg = e.to_string();
            prop_assert!(!msg.contains('\n') && !msg.is_empty(), "{msg:?}");
        }
    }
}
