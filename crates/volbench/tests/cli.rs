//! The command line: help, usage errors as one line, bad input refused before any I/O.

mod common;
use common::*;
use predicates::prelude::*;

/// Every usage error is one `error:` line, exit code 2, no panic text.
fn assert_usage_error(args: &[&str], needle: &str) {
    let out = volbench().args(args).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(
        stderr.lines().count(),
        1,
        "{args:?}: not one line: {stderr}"
    );
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(
        stderr.contains(needle),
        "{args:?}: {stderr:?} lacks {needle:?}"
    );
    assert!(!stderr.contains("panicked"));
}

#[test]
fn help_shows_examples_and_fio_names() {
    volbench()
        .args(["run", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Examples:"))
        .stdout(predicate::str::contains("--iodepth"))
        .stdout(predicate::str::contains("--time_based"))
        .stdout(predicate::str::contains("--ramp_time"));
}

/// The watching flags (docs/live.md) are listed, and taken, only by commands that do I/O or
/// serve the witness: `history --help` listing `--live` offered what it could not do.
#[test]
fn watching_flags_are_in_the_help_of_the_commands_that_take_them_only() {
    let flags = [
        "--live",
        "--metrics-listen",
        "--status-interval",
        "--interval-log",
    ];
    let help = |cmd: &[&str]| {
        let out = volbench().args(cmd).arg("--help").output().unwrap();
        assert!(out.status.success(), "{cmd:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let takes: [&[&str]; 8] = [
        &["run"],
        &["sweep"],
        &["curve"],
        &["quick"],
        &["fsync"],
        &["db"],
        &["durability", "create"],
        &["durability", "serve"],
    ];
    for cmd in takes {
        let h = help(cmd);
        assert!(flags.iter().all(|f| h.contains(f)), "{cmd:?}: {h}");
    }
    let not: [&[&str]; 7] = [
        &["history"],
        &["compare"],
        &["show"],
        &["export"],
        &["report"],
        &["cloud", "check"],
        &["durability", "verify"],
    ];
    for cmd in not {
        let h = help(cmd);
        assert!(!flags.iter().any(|f| h.contains(f)), "{cmd:?}: {h}");
    }
    // Given before the subcommand, as they were once global: still theirs, or refused.
    assert_usage_error(&["--live", "history"], "--live");
}

#[test]
fn unknown_option_suggests_the_right_one() {
    assert_usage_error(&["run", "--iodepht=4"], "did you mean '--iodepth'");
    assert_usage_error(&["run", "--blocksiz=4k"], "unknown option '--blocksiz'");
    assert_usage_error(&["rnu"], "did you mean 'run'");
}

#[test]
fn bad_values_are_usage_errors() {
    assert_usage_error(&["run", "--iodepth=0"], "--iodepth=0 is out of range");
    assert_usage_error(&["run", "--iodepth=100000"], "out of range");
    assert_usage_error(&["run", "--numjobs=0"], "--numjobs=0 is out of range");
    assert_usage_error(&["run", "--bs=4x"], "--bs=4x: not a valid size");
    assert_usage_error(&["run", "--bs=1000"], "not a multiple of 512");
    assert_usage_error(
        &["run", "--rw=randomread"],
        "--rw=randomread: use read, write",
    );
    assert_usage_error(
        &["run", "--ioengine=spdk"],
        "'ioengine=spdk' is not supported by volbench",
    );
    assert_usage_error(&["run", "--runtime=soon"], "not a valid time");
    assert_usage_error(&["run", "--size=1k", "--bs=4k"], "smaller than --bs");
    assert_usage_error(&["run", "--output-format=xml"], "is not a format");
    assert_usage_error(&["run", "--fsync=1", "--fdatasync=1"], "exclude each other");
}

#[test]
fn missing_directory_is_named_with_the_fix() {
    let out = volbench()
        .args([
            "run",
            "--directory=/nonexistent/dir",
            "--size=1m",
            "--runtime=1s",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(stderr.trim(), "error: directory /nonexistent/dir does not exist: create it or choose another with --directory");
}

#[test]
fn impossible_size_is_refused_before_writing() {
    let d = tmpdir();
    let out = volbench()
        .args(["run", "--size=900t", "--runtime=1s"])
        .arg(format!("--directory={}", d.path().display()))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("not enough free space"), "{stderr}");
    assert!(stderr.contains("lower --size"), "{stderr}");
    assert_eq!(
        std::fs::read_dir(d.path()).unwrap().count(),
        0,
        "nothing may be left behind"
    );
}

/// ramfs has no direct I/O at all (tmpfs gained it in Linux 6.6), so it stands for every
/// filesystem that refuses O_DIRECT.
#[test]
fn direct_io_refused_by_the_filesystem_names_the_fix() {
    require_root!();
    let d = tmpdir();
    let st = std::process::Command::new("mount")
        .args(["-t", "ramfs", "ramfs"])
        .arg(d.path())
        .status()
        .unwrap();
    assert!(st.success(), "mount ramfs");
    struct Unmount<'a>(&'a std::path::Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            let _ = std::process::Command::new("umount").arg(self.0).status();
        }
    }
    let _u = Unmount(d.path());
    let out = volbench()
        .args(["run", "--size=1m", "--runtime=1s", "--direct=1"])
        .arg(format!("--directory={}", d.path().display()))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("O_DIRECT is not supported"), "{stderr}");
    assert!(stderr.contains("(ramfs)"), "{stderr}");
    assert!(stderr.contains("--direct=0"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1);
}

#[test]
fn buffered_run_on_tmpfs_warns_about_memory() {
    let d = tempfile::tempdir_in("/dev/shm").unwrap();
    let (code, v, stderr) = run_json(&[
        "--size=4m",
        "--runtime=1s",
        "--direct=0",
        "--ioengine=psync",
        &format!("--directory={}", d.path().display()),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let codes: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"buffered_io"), "{codes:?}");
    assert!(codes.contains(&"memory_filesystem"), "{codes:?}");
    assert!(
        stderr.contains("warning: buffered I/O"),
        "warnings go to stderr too: {stderr}"
    );
}

#[test]
fn output_file_is_opened_before_the_run() {
    let out = volbench()
        .args([
            "run",
            "--ioengine=null",
            "--runtime=1s",
            "--output=/nonexistent/x.json",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "a bad path is bad input");
    assert!(
        stderr.contains("cannot write --output /nonexistent/x.json")
            && stderr.contains("check that /nonexistent exists"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
}

#[test]
fn json_output_file_and_summary_on_stdout() {
    let d = tmpdir();
    let json = d.path().join("r.json");
    let out = volbench()
        .current_dir(d.path())
        .args([
            "run",
            "--ioengine=null",
            "--size=4m",
            "--bs=4k",
            "--output-format=json",
        ])
        .arg(format!("--output={}", json.display()))
        .output()
        .unwrap();
    succeeded(&out, "");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("IOPS"), "summary for the person: {stdout}");
    assert!(
        !stdout.contains("\u{1b}["),
        "no escape codes off a terminal"
    );
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("eta"),
        "no progress bar off a terminal"
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["status"], "complete");
    assert_eq!(u(&v, "/group/read/total_ios"), 1024);
}

/// A device given to quick is not a missing directory (a new user on an emulated volume was
/// told /dev/zram0 "does not exist"): the line says what quick takes and what a device needs.
#[test]
fn quick_on_a_device_says_it_takes_a_directory_and_what_a_device_needs() {
    let out = volbench().args(["quick", "/dev/null"]).output().unwrap();
    let err = common::fails_saying(&out, 2, "/dev/null is not a directory");
    assert!(err.contains("volbench suite quick /dev/null"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

#[test]
fn quick_runs_five_tests_and_removes_what_it_created() {
    let d = tmpdir();
    std::fs::write(d.path().join("keep.txt"), "mine").unwrap();
    let out = volbench()
        .args(["quick", "--ioengine=null", "--runtime=1s", "--size=8m"])
        .arg(d.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    succeeded(&out, "");
    for label in [
        "seq write 1M QD32",
        "rand read 4k QD128",
        "rand write 4k QD128",
        "read latency 4k QD1",
        "write latency 4k QD1",
    ] {
        assert!(stdout.contains(label), "{label} missing from {stdout}");
    }
    let left: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("keep.txt")]);
}

#[test]
fn quick_json_holds_five_reports() {
    let d = tmpdir();
    let out = volbench()
        .args([
            "quick",
            "--ioengine=null",
            "--runtime=1s",
            "--size=8m",
            "--output-format=json",
        ])
        .arg(d.path())
        .output()
        .unwrap();
    succeeded(&out, "");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["suite"], "quick");
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 5);
    assert_eq!(runs[1]["report"]["workload"]["jobs"][0]["iodepth"], 128);
    assert_eq!(runs[0]["report"]["workload"]["jobs"][0]["bs"], 1 << 20);
}
