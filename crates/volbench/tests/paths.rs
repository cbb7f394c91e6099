//! Every command that takes a path takes it relative to where the user stands (issue 42: seed
//! 000's `volbench db --engine postgres ... local vol` failed with "No such file or directory",
//! naming no path, while the tests used absolute paths only). Each command here runs from a
//! directory of its own with relative paths, and an error names the path it could not use.

mod common;
use common::*;
use std::path::Path;

/// `volbench ARGS` run in `dir`.
fn in_dir(dir: &Path) -> assert_cmd::Command {
    let mut c = volbench();
    c.current_dir(dir);
    c
}

#[test]
fn db_takes_relative_directories_and_the_current_one() {
    let d = open_dir();
    std::fs::create_dir(d.path().join("local")).unwrap();
    std::fs::create_dir(d.path().join("vol")).unwrap();
    let args = ["--clients", "2", "--transactions", "20", "--no-probe", "-q"];
    let v = ok_json(
        in_dir(d.path())
            .args(["db", "local", "vol", "--output-format", "json"])
            .args(args),
    );
    assert_eq!(v["runs"].as_array().unwrap().len(), 2, "{v}");
    // No directory: the one the user stands in.
    let v = ok_json(
        in_dir(&d.path().join("vol"))
            .args(["db", "--output-format", "json"])
            .args(args),
    );
    assert_eq!(v["runs"][0]["transactions"], 40, "{v}");
    // An error names the path.
    let out = in_dir(d.path())
        .args(["db", "nothere"])
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("nothere"), "{err}");
    // Seed 000's flow: PostgreSQL in relative directories, as root (initdb refuses root, and
    // runs as postgres, which must reach every parent).
    if !is_root() || !Path::new("/usr/lib/postgresql").is_dir() {
        cannot_run!("the PostgreSQL half needs root and PostgreSQL (scripts/test.sh installs it)");
    }
    let v = ok_json(
        in_dir(d.path())
            .args([
                "db",
                "--engine",
                "postgres",
                "local",
                "vol",
                "--output-format",
                "json",
            ])
            .args(args),
    );
    assert_eq!(v["runs"].as_array().unwrap().len(), 2, "{v}");
    let v = ok_json(
        in_dir(&d.path().join("local"))
            .args(["db", "--engine", "postgres", "--output-format", "json"])
            .args(args),
    );
    assert_eq!(v["runs"][0]["transactions"], 40, "{v}");
    for sub in ["local", "vol"] {
        let left = leftovers(&d.path().join(sub));
        assert!(left.is_empty(), "{sub}: {left:?}");
    }
}

#[test]
fn run_quick_fsync_doctor_and_clean_take_relative_paths() {
    let d = tmpdir();
    std::fs::create_dir(d.path().join("sub")).unwrap();
    let v = ok_json(in_dir(d.path()).args([
        "run",
        "--filename=sub/f.dat",
        "--size=8m",
        "--runtime=1s",
        "--output-format=volbench-json",
        "-q",
    ]));
    assert!(d.path().join("sub/f.dat").is_file(), "{v}");
    ok_json(in_dir(d.path()).args([
        "run",
        "--directory=sub",
        "--size=8m",
        "--runtime=1s",
        "--output-format=volbench-json",
        "-q",
    ]));
    ok_json(in_dir(d.path()).args([
        "quick",
        "sub",
        "--runtime=1s",
        "--size=16m",
        "--output-format=volbench-json",
    ]));
    let v = ok_json(in_dir(d.path()).args([
        "fsync",
        "sub",
        "--penalty-only",
        "--runtime",
        "200ms",
        "--size",
        "8m",
        "--output-format",
        "json",
    ]));
    assert_eq!(v["penalty"].as_array().unwrap().len(), 1, "{v}");
    let text = ok_stdout(in_dir(d.path()).args(["doctor", "sub"]));
    assert!(
        text.contains(&d.path().join("sub").display().to_string()),
        "{text}"
    );
    ok_stdout(in_dir(d.path()).args(["clean", "sub"]));
    // Nothing of volbench's own left in the relative directory (the runs' test files stay,
    // as fio's do).
    let left = leftovers(&d.path().join("sub"));
    assert!(
        !left.iter().any(|n| n.starts_with(".volbench-")),
        "{left:?}"
    );
    // A relative path that is not there: the error names it.
    for args in [
        &["fsync", "gone"][..],
        &["quick", "gone"],
        &["doctor", "gone/x"],
    ] {
        let out = in_dir(d.path()).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("gone"), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    }
}
