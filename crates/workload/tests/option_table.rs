//! The fio option table walked entry by entry: every supported option read from a job file
//! prints back through `--showcmd` and reads back to the same job; aliases mean their option;
//! names are unique; the docs are generated from the table and not stale.

use std::path::Path;
use workload::fio::{self, cmdline, table, Support};
use workload::jobfile::parse_str;
use workload::Workload;

/// What some options need beside them to make a valid job in which they show.
fn companions(name: &str) -> &'static str {
    match name {
        "rwmixread" | "rwmixwrite" => "rw=randrw\n",
        "verify_backlog" | "verify_backlog_batch" | "do_verify" | "verify_only" => {
            "rw=write\nverify=crc32c\n"
        }
        "rate_min" => "rate=2m\n",
        "rate_iops_min" => "rate_iops=200\n",
        "thinktime_spin" | "thinktime_blocks" | "thinktime_blocks_type" | "thinktime_iotime" => {
            "thinktime=1000\n"
        }
        "buffer_compress_chunk" => "buffer_compress_percentage=50\n",
        "runtime" => "time_based\n",
        "time_based" => "runtime=5s\n",
        "filesize" => "nrfiles=2\n",
        "steadystate" | "steadystate_ramp_time" | "steadystate_check_interval" => "ss_dur=5\n",
        "latency_window" | "latency_percentile" | "latency_run" => "latency_target=2ms\n",
        "zonemode" => "zonesize=1m\n",
        "zonesize" | "zonerange" | "zoneskip" => "zonemode=strided\nzonesize=2m\n",
        _ => "",
    }
}

fn job(text: &str) -> Workload {
    let s = parse_str(text, Path::new("t.fio"), &|_| None, 0).unwrap();
    fio::workload(&s, false)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
        .0
}

/// `--showcmd`'s command read back as fio's command line.
fn read_back(cmd: &str) -> Workload {
    // Words split at spaces outside single quotes, as a shell splits showcmd's quoting.
    let mut args: Vec<String> = Vec::new();
    for line in cmd.split(" \\\n  ").skip(1) {
        let (mut word, mut quoted) = (String::new(), false);
        for c in line.chars() {
            match c {
                '\'' => quoted = !quoted,
                ' ' if !quoted => args.push(std::mem::take(&mut word)),
                c => word.push(c),
            }
        }
        args.push(word);
    }
    let (sections, own) = cmdline::sections(&args, &|_| None).unwrap();
    assert!(own.is_empty());
    fio::workload(&sections, false).unwrap().0
}

#[test]
fn every_supported_option_round_trips_through_showcmd() {
    let mut checked = 0;
    for o in table::all().filter(|o| o.support == Support::Yes) {
        let line = if o.example.is_empty() {
            o.name.to_string()
        } else {
            format!("{}={}", o.name, o.example)
        };
        let text = format!("[j]\n{}{line}\n", companions(o.name));
        let w = job(&text);
        let cmd = fio::showcmd(&w);
        assert_eq!(read_back(&cmd).jobs, w.jobs, "{text} printed as {cmd}");
        // The option changed the job (or it is one fio defaults to), and what prints it says
        // so under its own name or the one it sets.
        let base = parse_str(
            &format!("[j]\n{}", companions(o.name)),
            Path::new("t"),
            &|_| None,
            0,
        )
        .ok()
        .and_then(|s| fio::workload(&s, false).ok());
        if o.show.is_some() && base.is_none_or(|b| b.0.jobs != w.jobs) {
            assert!(cmd.contains(&format!("--{}", o.name)), "{text}: {cmd}");
        }
        for alias in o.aliases {
            let a = job(&text.replace(&line, &line.replacen(o.name, alias, 1)));
            assert_eq!(a.jobs, w.jobs, "{alias} means {}", o.name);
        }
        checked += 1;
    }
    assert!(checked >= 90, "only {checked} supported options");
}

#[test]
fn names_are_unique_and_options_applied_first_come_first() {
    let mut seen = std::collections::HashSet::new();
    for o in table::all() {
        for n in std::iter::once(o.name).chain(o.aliases.iter().copied()) {
            assert!(seen.insert(n), "{n} is in the table twice");
        }
    }
    // The name always prints first (it starts a job on fio's command line); then the table's
    // order.
    let phases: Vec<_> = table::all()
        .filter(|o| o.name != table::names::NAME)
        .map(|o| o.phase)
        .collect();
    let first_after = phases
        .iter()
        .skip_while(|p| **p == table::Phase::First)
        .any(|p| *p == table::Phase::First);
    assert!(
        !first_after,
        "an option applied first is printed after others"
    );
}

#[test]
fn every_refused_option_says_why_and_the_error_carries_it() {
    for o in table::all().filter(|o| o.support == Support::No) {
        assert!(
            o.details.len() > 40,
            "{} is refused without a reason",
            o.name
        );
        let text = format!("[j]\n{}=1\n", o.name);
        let f = parse_str(&text, Path::new("t.fio"), &|_| None, 0).unwrap();
        let e = fio::workload(&f, false).unwrap_err().to_string();
        assert!(e.contains(o.details), "{}: {e}", o.name);
    }
}

/// An option newer than the fio the tests run (thinkcycles came with fio 3.38) is named as
/// fio's and refused with what to use, never "not a fio option".
#[test]
fn a_newer_fio_option_is_refused_with_what_to_use() {
    let text = "[j]\nthinkcycles=100000\n";
    let f = parse_str(text, Path::new("t.fio"), &|_| None, 0).unwrap();
    let e = fio::workload(&f, false).unwrap_err().to_string();
    assert!(
        e.contains("thinkcycles") && e.contains("use thinktime"),
        "{e}"
    );
    assert!(!e.contains("not a fio option"), "{e}");
}

/// sprandom's cache size is `spr_cs` in fio's option table (fio 3.41): named as fio's and
/// refused as sprandom's; `spr_cache_size`, only the name of fio's field, is no option of
/// fio's, and fio refuses it as one it does not know: so does volbench.
#[test]
fn sprandoms_cache_size_goes_by_fios_name() {
    let refused = |text: &str| {
        let f = parse_str(text, Path::new("t.fio"), &|_| None, 0).unwrap();
        fio::workload(&f, false).unwrap_err().to_string()
    };
    let e = refused("[j]\nspr_cs=64m\n");
    assert!(e.contains("spr_cs") && e.contains("see sprandom"), "{e}");
    assert!(!e.contains("not a fio option"), "{e}");
    let e = refused("[j]\nspr_cache_size=64m\n");
    assert!(e.contains("not a fio option"), "{e}");
}

#[test]
fn every_accepted_option_has_help_and_a_valid_example() {
    for o in table::all() {
        match o.support {
            Support::Yes => assert!(!o.help.is_empty(), "{} has no help", o.name),
            Support::Note(n) => assert!(!n.is_empty()),
            _ => continue,
        }
        if let table::Kind::Choice(words) = o.kind {
            assert!(words.contains(&o.example), "{}: {}", o.name, o.example);
        }
    }
}

#[test]
fn refused_and_skipped_options_say_so() {
    for o in table::all().filter(|o| !matches!(o.support, Support::Yes | Support::Note(_))) {
        let mut j = workload::JobSpec::default();
        let e = fio::apply(&mut j, o.name, Some(o.example)).unwrap_err();
        assert!(e.to_string().contains("not supported"), "{}: {e}", o.name);
        assert_eq!(
            j,
            workload::JobSpec::default(),
            "{} changed the job",
            o.name
        );
    }
}

#[test]
fn docs_are_generated_from_the_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/fio-compatibility.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let fresh = fio::docs::refresh(&doc).expect("docs/fio-compatibility.md lost its markers");
    if std::env::var_os("VOLBENCH_BLESS").is_some() {
        std::fs::write(&path, &fresh).unwrap();
        return;
    }
    assert!(
        fresh == doc,
        "docs/fio-compatibility.md is stale: run VOLBENCH_BLESS=1 cargo test -p workload --test \
         option_table"
    );
}
