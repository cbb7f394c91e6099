//! The results store: what is stored reads back equal, survives a killed writer, and history,
//! show, export, delete and compare print what they should.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;

/// volbench with its store in `dir`.
fn vb(dir: &Path) -> assert_cmd::Command {
    let mut c = volbench();
    c.current_dir(dir)
        .env("VOLBENCH_STORE", dir.join("results.db"));
    c
}

fn stdout(c: &mut assert_cmd::Command) -> String {
    let out = c.output().unwrap();
    succeeded(&out, "");
    String::from_utf8(out.stdout).unwrap()
}

/// Layout without the numbers: every token holding a digit becomes N (a ratio "(1.23x)"
/// becomes "(Nx)"), units become U, machine-specific lines go, so a snapshot holds the structure
/// (columns, labels, order) while the values are checked against the JSON.
fn mask(s: &str) -> String {
    const UNITS: [&str; 10] = [
        "ns", "µs", "ms", "s", "B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s", "k",
    ];
    s.lines()
        .filter(|l| !l.contains(" · kernel "))
        .map(|l| {
            if l.contains(',') && !l.contains(' ') {
                // CSV: mask field by field.
                return l
                    .split(',')
                    .map(|f| {
                        if f.chars().any(|c| c.is_ascii_digit()) && !f.contains('_') {
                            "N"
                        } else {
                            f
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(",");
            }
            l.split_whitespace()
                .map(|t| {
                    if t.starts_with('(') && t.ends_with("x)") {
                        "(Nx)".to_string()
                    } else if t.chars().any(|c| c.is_ascii_digit()) {
                        "N".to_string()
                    } else if UNITS.contains(&t) {
                        "U".to_string()
                    } else {
                        t.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn two_runs(dir: &Path) {
    for (label, depth) in [("first", "1"), ("second", "8")] {
        stdout(vb(dir).args([
            "run",
            "--ioengine=null",
            "--size=4m",
            "--rw=randread",
            &format!("--iodepth={depth}"),
            &format!("--label={label}"),
            "--tag=test",
            "-q",
        ]));
    }
}

#[test]
fn stored_report_reads_back_equal() {
    let d = tmpdir();
    let out = d.path().join("r.json");
    let err = vb(d.path())
        .args([
            "run",
            "--ioengine=null",
            "--size=4m",
            "--label=round",
            "--output-format=volbench-json",
        ])
        .arg(format!("--output={}", out.display()))
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&err.stderr).contains("saved as #1"),
        "{}",
        String::from_utf8_lossy(&err.stderr)
    );
    let written: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let exported: Value = serde_json::from_str(&stdout(vb(d.path()).args([
        "export",
        "round",
        "--format=json",
    ])))
    .unwrap();
    assert_eq!(exported["kind"], "run");
    let mut inner = exported.clone();
    inner.as_object_mut().unwrap().remove("kind");
    assert_eq!(inner, written, "the stored report is the report");
}

#[test]
fn history_show_export_delete() {
    let d = tmpdir();
    two_runs(d.path());
    let hist = stdout(vb(d.path()).arg("history"));
    // Stored targets are canonical absolute paths: the test's own directory, whatever form
    // the run was given (./volbench.test).
    let dir = std::fs::canonicalize(d.path()).unwrap();
    assert!(
        hist.contains(&format!("{}/volbench.test", dir.display())),
        "{hist}"
    );
    let hist = hist.replace(&dir.display().to_string(), "DIR");
    insta::assert_snapshot!("history", mask(&hist));
    let rows: Value = serde_json::from_str(&stdout(vb(d.path()).args([
        "history",
        "--output-format=json",
        "--label=second",
    ])))
    .unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 1);
    assert_eq!(rows[0]["tags"], serde_json::json!(["test"]));
    let show = stdout(vb(d.path()).args(["show", "2"]));
    assert!(
        show.starts_with("#2 (run)") && show.contains("IOPS"),
        "{show}"
    );
    // show takes export's formats; json is the stored document, the same bytes export gives.
    let shown = stdout(vb(d.path()).args(["show", "2", "--output-format=json"]));
    let doc: Value = serde_json::from_str(&shown).unwrap();
    assert_eq!(doc["jobs"][0]["read"]["total_ios"], 1024, "{shown}");
    assert_eq!(shown, stdout(vb(d.path()).args(["export", "2"])));
    let csv = stdout(vb(d.path()).args(["export", "2", "--format=csv"]));
    insta::assert_snapshot!("export_csv", mask(&csv));
    let md = stdout(vb(d.path()).args(["export", "2", "--format=md"]));
    insta::assert_snapshot!("export_md", mask(&md));
    let fio: Value = serde_json::from_str(&stdout(vb(d.path()).args([
        "export",
        "2",
        "--format=fio-json",
    ])))
    .unwrap();
    assert_eq!(fio["jobs"][0]["read"]["total_ios"], 1024);
    assert!(stdout(vb(d.path()).args(["delete", "1"])).contains("deleted #1"));
    let ids: Vec<u64> = serde_json::from_str::<Value>(&stdout(
        vb(d.path()).args(["history", "--output-format=json"]),
    ))
    .unwrap()
    .as_array()
    .unwrap()
    .iter()
    .map(|r| r["id"].as_u64().unwrap())
    .collect();
    assert_eq!(ids, vec![2]);
    let out = vb(d.path()).args(["show", "1"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// History is a page, newest first, saying how many there are and how to see the next; a
/// delete by filter says first what it would take (a dry run takes nothing), then takes it;
/// a delete that names neither an id nor a filter is refused in one line.
#[test]
fn history_pages_newest_first_and_a_delete_by_filter_can_be_tried_first() {
    let d = tmpdir();
    for i in 1..=5 {
        stdout(vb(d.path()).args([
            "run",
            "--ioengine=null",
            "--size=1m",
            "-q",
            &format!("--label=l{}", i % 2),
        ]));
    }
    let ids = |args: &[&str]| -> (Vec<u64>, String) {
        let out = vb(d.path())
            .args(["history", "--output-format=json"])
            .args(args)
            .output()
            .unwrap();
        let rows: Value = serde_json::from_str(&succeeded(&out, "history")).unwrap();
        let ids = rows
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_u64().unwrap())
            .collect();
        (ids, String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (first, said) = ids(&["--limit=2"]);
    assert_eq!(first, [5, 4]);
    assert!(
        said.contains("2 of 5 results shown, newest first; 3 older: add --before 4"),
        "{said}"
    );
    assert_eq!(ids(&["--limit=2", "--before=4"]).0, [3, 2]);
    // A date as --before: the hint keeps it as --until, and can be followed as it says (a
    // second --before is refused, and the id alone would drop the date).
    let (dated, said) = ids(&["--limit=2", "--before=2099-01-01"]);
    assert_eq!(dated, [5, 4]);
    let hint = "give --until 2099-01-01 --before 4 for the next page";
    assert!(said.contains(hint), "{said}");
    assert_eq!(
        ids(&["--limit=2", "--until=2099-01-01", "--before=4"]).0,
        [3, 2]
    );
    let (last, said) = ids(&["--limit=2", "--before=2"]);
    assert_eq!((last, said.as_str()), (vec![1], ""));
    assert_eq!(ids(&["--all"]).0, [5, 4, 3, 2, 1]);
    let (odd, said) = ids(&["--label=l1", "--limit=1"]);
    assert_eq!(odd, [5]);
    assert!(said.contains("1 of 3 results shown"), "{said}");
    let tried = stdout(vb(d.path()).args(["delete", "--label=l1", "--before=5", "--dry-run"]));
    assert!(
        tried.starts_with("would delete 2 results (#1 to #"),
        "{tried}"
    );
    assert_eq!(ids(&["--all"]).0.len(), 5);
    let done = stdout(vb(d.path()).args(["delete", "--label=l1", "--before=5"]));
    assert!(done.starts_with("deleted 2 results (#1 to #"), "{done}");
    assert_eq!(ids(&["--all"]).0, [5, 4, 2]);
    let out = vb(d.path()).arg("delete").output().unwrap();
    let err = fails_saying(&out, 2, "a result id, or filters");
    assert_eq!(err.lines().count(), 1, "{err}");
    // An empty value (a script's unset variable) is no filter: `--target ''` would be a
    // substring of every target (the attacker trial's finding).
    for empty in ["--target=", "--machine= ", "--label="] {
        let out = vb(d.path()).args(["delete", empty]).output().unwrap();
        fails_saying(&out, 2, "is empty: give a value");
    }
    // An id with filters is refused, not the id deleted whatever the filters say (the
    // attacker trial's `delete 3 --label alpha` removed #3, labelled otherwise).
    let out = vb(d.path())
        .args(["delete", "2", "--label=l1"])
        .output()
        .unwrap();
    fails_saying(&out, 2, "an id or filters, not both");
    // A page larger than the store's row type is refused as input, not a store error.
    let out = vb(d.path())
        .args(["history", "--limit=9223372036854775808"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert_eq!(ids(&["--all"]).0.len(), 3);
}

#[test]
fn compare_shows_values_ratios_and_differences() {
    let d = tmpdir();
    two_runs(d.path());
    let text = stdout(vb(d.path()).args(["compare", "first", "second"]));
    insta::assert_snapshot!("compare", mask(&text));
    let c: Value = serde_json::from_str(&stdout(vb(d.path()).args([
        "compare",
        "first",
        "second",
        "--output-format=json",
    ])))
    .unwrap();
    let a: Value = serde_json::from_str(&stdout(vb(d.path()).args([
        "export",
        "first",
        "--format=json",
    ])))
    .unwrap();
    let b: Value = serde_json::from_str(&stdout(vb(d.path()).args([
        "export",
        "second",
        "--format=json",
    ])))
    .unwrap();
    let row = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == "IOPS")
        .unwrap()
        .clone();
    let ia = a["group"]["read"]["iops"].as_f64().unwrap();
    let ib = b["group"]["read"]["iops"].as_f64().unwrap();
    assert_eq!(row["values"][0].as_f64().unwrap(), ia);
    assert_eq!(row["values"][1].as_f64().unwrap(), ib);
    // One run a side: the ratio is marked unknown ("?"), never significant.
    let printed = format!("({:.2}x?)", ib / ia);
    assert!(text.contains(&printed), "ratio {printed} in:\n{text}");
    let csv = stdout(vb(d.path()).args(["compare", "first", "second", "--output-format=csv"]));
    assert!(
        csv.starts_with("item,metric,unit,first,second,second/first,second significance\n"),
        "{csv}"
    );
    let md = stdout(vb(d.path()).args(["compare", "first", "second", "--output-format=md"]));
    assert!(md.starts_with("| item | metric | first | second |"), "{md}");
}

#[test]
fn compare_reads_json_files_and_names_environment_differences() {
    let d = tmpdir();
    let (a, b) = (d.path().join("a.json"), d.path().join("b.json"));
    for (path, engine) in [(&a, "null"), (&b, "psync")] {
        stdout(
            vb(d.path())
                .args([
                    "run",
                    &format!("--ioengine={engine}"),
                    "--size=1m",
                    "--direct=0",
                    "--no-store",
                    "--output-format=volbench-json",
                    "-q",
                ])
                .arg(format!("--output={}", path.display())),
        );
    }
    let text = stdout(vb(d.path()).args(["compare", a.to_str().unwrap(), b.to_str().unwrap()]));
    assert!(
        text.contains("differing environment:") && text.contains("engine: null | psync"),
        "{text}"
    );
    let hist = stdout(vb(d.path()).args(["history", "--output-format=json"]));
    assert_eq!(hist.trim(), "[]", "--no-store stored nothing");
}

/// A writer killed with SIGKILL mid-sweep leaves a sound store holding the points it finished.
#[test]
fn store_survives_a_killed_writer() {
    let d = tmpdir();
    let db = d.path().join("results.db");
    let bin = assert_cmd::cargo::cargo_bin("volbench");
    let mut child = std::process::Command::new(&bin)
        .current_dir(d.path())
        .env("VOLBENCH_STORE", &db)
        .args([
            "sweep",
            "--ioengine=null",
            "--numjobs=1,2,3,4,5,6",
            "--size=4m",
            "--runtime=1s",
            "-q",
            "--label=killed",
        ])
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(3500));
    child.kill().unwrap();
    child.wait().unwrap();
    let rows: Value = serde_json::from_str(&stdout(
        vb(d.path()).args(["history", "--output-format=json"]),
    ))
    .unwrap();
    let points = rows[0]["points"].as_u64().unwrap();
    assert!(
        (2..6).contains(&points),
        "points finished before the kill: {points}"
    );
    let show = stdout(vb(d.path()).args(["show", "killed"]));
    assert!(
        show.contains("numjobs=1") && show.contains("numjobs=2"),
        "{show}"
    );
    // SQLite's own check, through Python's sqlite3 when present.
    match std::process::Command::new("python3")
        .args(["-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('pragma integrity_check').fetchone()[0])"])
        .arg(&db)
        .output()
    {
        Ok(out) => {
            succeeded(&out, "");
            assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "ok");
        }
        Err(_) => common::cannot_run("needs python3 for SQLite's own integrity_check"),
    }
}

/// Regression (issue 20): the store grew to 35 MB for 36 results. A sweep's report holds
/// each point's latency histograms for every job and group; stored compressed, the whole
/// store file is a fraction of the sweep's JSON, and it still reads back equal.
#[test]
fn store_keeps_a_sweep_in_a_fraction_of_its_json() {
    let d = tmpdir();
    stdout(vb(d.path()).args([
        "sweep",
        "--ioengine=null",
        "--rw=randread,randwrite",
        "--numjobs=1,4,8",
        "--runtime=300ms",
        "--label=big",
        "-q",
    ]));
    let json = stdout(vb(d.path()).args(["export", "big", "--format=json"]));
    let back: Value = serde_json::from_str(&json).unwrap();
    let compact = serde_json::to_string(&back).unwrap().len();
    let file = std::fs::metadata(d.path().join("results.db"))
        .unwrap()
        .len();
    // Uncompressed, the file held the JSON and the pages freed as the sweep rewrote it after
    // each point (1.5-2x the JSON); the histograms are already deflated, so about half of
    // the JSON's size is what is left to win.
    assert!(
        (file as f64) < compact as f64 * 0.6,
        "store file {file} bytes for a {compact} byte report"
    );
    assert_eq!(back["runs"].as_array().unwrap().len(), 6);
}

/// Entries written by older versions hold plain JSON text: they still read, and a damaged
/// compressed entry is one clear error naming the entry, not a crash.
#[test]
fn old_plain_entries_read_and_a_damaged_one_is_named() {
    let d = tmpdir();
    two_runs(d.path());
    let first = stdout(vb(d.path()).args(["export", "first", "--format=json"]));
    let db = rusqlite::Connection::open(d.path().join("results.db")).unwrap();
    db.execute(
        "UPDATE reports SET report = ?1 WHERE entry = (SELECT id FROM entries WHERE label = 'first')",
        [first.trim()],
    )
    .unwrap();
    db.execute(
        "UPDATE reports SET report = x'789c0badbeef' WHERE entry = (SELECT id FROM entries WHERE label = 'second')",
        [],
    )
    .unwrap();
    drop(db);
    let again = stdout(vb(d.path()).args(["export", "first", "--format=json"]));
    assert_eq!(
        serde_json::from_str::<Value>(&again).unwrap(),
        serde_json::from_str::<Value>(&first).unwrap()
    );
    let out = vb(d.path())
        .args(["export", "second", "--format=json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("entry 2") && err.contains("cannot be unpacked"),
        "{err}"
    );
}

/// A read command given a `--store` file that does not exist says so in one line and makes
/// nothing there: a mistyped path read as an empty history, and left an empty store behind.
#[test]
fn a_mistyped_store_is_refused_and_nothing_is_made() {
    let d = tmpdir();
    let missing = d.path().join("nosuch.db");
    let at = missing.to_str().unwrap();
    for args in [
        &["history", "--store", at][..],
        &["show", "1", "--store", at],
        &["compare", "1", "2", "--store", at],
        &["delete", "--label", "x", "--store", at],
        &["serve", "--listen", "127.0.0.1:0", "--store", at],
    ] {
        let out = volbench().args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.lines().count() == 1 && err.contains("no such results store"),
            "{args:?}: {err}"
        );
        assert!(!missing.exists(), "{args:?} made {at}");
    }
}

/// An empty listing says why on stderr (the header alone read as a broken command), and a
/// --before that is neither an id nor a date is named as --before (it was called --until).
#[test]
fn an_empty_page_and_a_bad_before_say_what_they_are() {
    let d = tmpdir();
    let said = |args: &[&str]| {
        let out = vb(d.path()).arg("history").args(args).output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert_eq!(said(&[]), (Some(0), "no results stored yet\n".to_string()));
    let (code, err) = said(&["--label=none"]);
    assert_eq!(code, Some(0));
    assert_eq!(err, "no stored result matches these filters\n");
    // JSON's [] says it: nothing more on stderr.
    assert_eq!(
        said(&["--label=none", "--output-format=json"]),
        (Some(0), String::new())
    );
    let (code, err) = said(&["--before=abc"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.starts_with("error: --before abc: neither a result id nor a date"),
        "{err}"
    );
}
