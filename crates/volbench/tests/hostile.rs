//! Hostile and odd input (issue 21): every file volbench reads as input is a regular file of
//! bounded size, checked before reading; a file that is not what it should be is named, never
//! echoed; a store path that is not a file costs the store only.

mod common;
use common::*;
use std::time::{Duration, Instant};

/// Runs volbench with `args` and a 20 s bound (an unbounded read of /dev/zero would take the
/// machine's memory first); returns (exit code, stderr).
fn bounded(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let t = Instant::now();
    let mut c = volbench();
    c.args(args).timeout(Duration::from_secs(20));
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    assert!(
        t.elapsed() < Duration::from_secs(20),
        "{args:?} did not end"
    );
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn an_include_of_a_device_or_of_a_non_job_file_is_refused_without_echoing_it() {
    let d = tmpdir();
    let secret = d.path().join("shadow");
    std::fs::write(&secret, "root:$y$j9T$secretHASH:19000:0:99999:7:::\n").unwrap();
    for (inc, want) in [
        ("/dev/zero", "not a regular file"),
        (secret.to_str().unwrap(), "is not a fio option"),
    ] {
        let job = d.path().join("j.fio");
        std::fs::write(&job, format!("[j]\nrw=read\ninclude {inc}\n")).unwrap();
        let (code, err) = bounded(&["run", job.to_str().unwrap(), "--parse-only"], &[]);
        assert_eq!(code, Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(want), "{err}");
        assert!(
            !err.contains("secretHASH") && !err.contains("root:"),
            "echoed: {err}"
        );
    }
}

#[test]
fn a_catalog_that_is_a_device_is_refused_in_one_line() {
    let (code, err) = bounded(&["cloud", "list", "--catalog", "/dev/zero"], &[]);
    assert_ne!(code, Some(0), "{err}");
    assert!(err.contains("not a regular file"), "{err}");
    let (code, err) = bounded(&["cloud", "list"], &[("VOLBENCH_CATALOG", "/dev/urandom")]);
    assert_ne!(code, Some(0), "{err}");
    assert!(err.contains("not a regular file"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// `--store /dev/null` made /dev/null-journal (mode 0666). A store path that is not a file
/// is refused; the run itself still reports, with one warning.
#[test]
fn a_store_that_is_not_a_file_costs_the_store_only() {
    require_root!();
    for dev in ["/dev/null", "/dev/full"] {
        let side = format!("{dev}-journal");
        let _ = std::fs::remove_file(&side);
        let out = volbench()
            .args(["run", "--ioengine=null", "--runtime=200ms", "--store", dev])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{err}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("IOPS"));
        assert_eq!(err.matches("not a regular file").count(), 1, "{err}");
        assert!(!std::path::Path::new(&side).exists(), "{side} was made");
        assert!(!std::path::Path::new(&format!("{dev}-wal")).exists());
    }
}
