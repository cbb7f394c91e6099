//! Hostile and odd input (issue 21): every file volbench reads as input is a regular file of
//! bounded size, checked before reading; a file that is not what it should be is named, never
//! echoed; a store path that is not a file is refused before the run.

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
/// is refused in one line before anything is measured (exit 2: the result would be lost),
/// and nothing is made beside the device.
#[test]
fn a_store_that_is_not_a_file_is_refused_before_the_run() {
    require_root!();
    for dev in ["/dev/null", "/dev/full"] {
        let side = format!("{dev}-journal");
        let _ = std::fs::remove_file(&side);
        let out = volbench()
            .args(["run", "--ioengine=null", "--runtime=200ms", "--store", dev])
            .output()
            .unwrap();
        let err = fails_saying(&out, 2, "not a regular file");
        assert!(out.stdout.is_empty(), "it measured: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!std::path::Path::new(&side).exists(), "{side} was made");
        assert!(!std::path::Path::new(&format!("{dev}-wal")).exists());
    }
}

/// A volbench JSON with one bad field is blamed by that field, not called fio-json; an
/// unknown schema_version names the one this build reads.
#[test]
fn a_bad_field_in_a_json_result_is_named() {
    let d = tmpdir();
    let good = d.path().join("r.json");
    ok_stdout(
        volbench()
            .args([
                "run",
                "--ioengine=null",
                "--runtime=200ms",
                "--no-store",
                "-q",
            ])
            .args([
                "--output-format=volbench-json",
                "--output",
                good.to_str().unwrap(),
            ]),
    );
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&good).unwrap()).unwrap();
    for (field, bad, want) in [
        (
            "status",
            serde_json::json!("weird"),
            "field `status`: unknown variant `weird`",
        ),
        (
            "started_at",
            serde_json::json!(5),
            "field `started_at`: invalid type",
        ),
        ("group", serde_json::json!({}), "field `group`"),
        (
            "schema_version",
            serde_json::json!(7),
            "schema_version 7 is not one this build reads (1)",
        ),
    ] {
        let mut m = v.clone();
        m[field] = bad;
        let f = d.path().join(format!("{field}.json"));
        std::fs::write(&f, m.to_string()).unwrap();
        let out = volbench()
            .args(["compare"])
            .arg(&good)
            .arg(&f)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(want), "{field}: {err}");
        assert!(!err.contains("fio-json"), "{field}: {err}");
    }
}

/// A user catalog's numbers are sizes, rates, prices and times: a negative one, nan, inf or
/// one so large the formulas would overflow (found by tests/fuzz.rs of the cloud crate) is
/// refused when the catalog is loaded, naming the key.
#[test]
fn a_catalog_number_out_of_range_is_refused_naming_its_key() {
    let d = tmpdir();
    for (value, want) in [
        ("-5", "iops = -5"),
        ("nan", "iops = NaN"),
        ("inf", "iops = inf"),
        ("1e308", "iops = 1e308"),
    ] {
        let cat = d.path().join("c.toml");
        std::fs::write(
            &cat,
            format!(
                "[[product]]\nid = \"t:x\"\nname = \"x\"\nprovider = \"t\"\nkind = \"fixed\"\nsize_unit = \"GiB\"\n\
                 size_min = 1\nsize_max = 100\niops = {value}\nmbps = 16\nsource = \"https://example.com\"\n\
                 read_on = \"2026-11-23\"\nconfidence = \"published\"\n"
            ),
        )
        .unwrap();
        let (code, err) = bounded(&["cloud", "list", "--catalog", cat.to_str().unwrap()], &[]);
        assert_ne!(code, Some(0), "{value}: {err}");
        assert!(
            err.contains(want) && err.contains("from 0 to 10^15"),
            "{value}: {err}"
        );
    }
}

/// `fsync` on a device holding data is refused once (not once per case), in plain words
/// ("an other signature", not "a other"); `--help` of fsync and infer states the same rule
/// the refusal applies.
#[test]
fn a_data_bearing_device_is_refused_once_in_words_help_agrees_with() {
    require_root!();
    let z = Zram::new("64M");
    let ok = std::process::Command::new("mkswap").arg(z.p()).output();
    if !ok.is_ok_and(|o| o.status.success()) {
        cannot_run("needs mkswap (util-linux)");
        return;
    }
    let out = volbench()
        .args(["fsync", z.p(), "--runtime", "200ms", "--threads", "1"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.matches("refusing to write").count(), 1, "{err}");
    assert!(err.contains("swap"), "{err}");
    assert!(!err.contains(" a other"), "{err}");
    for cmd in [&["fsync", "--help"][..], &["infer", "--help"][..]] {
        let help = ok_stdout(volbench().args(cmd));
        let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            help.contains("any other signature, or in use"),
            "{cmd:?} help states another rule"
        );
    }
}

/// Each kind of JSON volbench writes is read as its own kind (a db report holds a list of
/// runs too, and must not be taken for a sweep).
#[test]
fn every_kind_of_json_result_reads_back() {
    let d = tmpdir();
    let dir = d.path().to_str().unwrap();
    let out = |name: &str| d.path().join(name).to_str().unwrap().to_string();
    let json = "--output-format=volbench-json";
    for (name, args) in [
        (
            "run.json",
            vec!["run", "--ioengine=null", "--runtime=200ms", json],
        ),
        (
            "sweep.json",
            vec![
                "sweep",
                "--ioengine=null",
                "--numjobs=1,2",
                "--runtime=200ms",
                json,
            ],
        ),
        (
            "db.json",
            vec![
                "db",
                "--time",
                "1s",
                "--clients",
                "2",
                "--no-probe",
                "--output-format",
                "json",
                dir,
            ],
        ),
    ] {
        ok_stdout(
            volbench()
                .args(&args)
                .args(["-q", "--no-store", "--output", &out(name)]),
        );
        ok_stdout(volbench().args(["report", &out(name), "--output", &out("page.html")]));
    }
}

/// Regression (issue 21: a CLI fuzz's scratch directory reached 27 GB): a job far into a
/// file wrote random data from byte 0 up to its offset. Only the job's region is written or
/// reserved, so disk usage follows --size, not --offset; the region itself is data (read
/// back: no holes where the job reads).
#[test]
fn an_offset_far_into_a_file_writes_only_the_jobs_region() {
    let d = tmpdir();
    let f = d.path().join("f");
    let fs = f.to_str().unwrap();
    for (extra, jobs) in [
        (vec!["--offset=2g", "--rw=randread"], 1u64),
        (
            vec!["--offset_increment=1g", "--numjobs=3", "--rw=write"],
            3,
        ),
    ] {
        let _ = std::fs::remove_file(&f);
        let (code, err) = bounded(
            &[
                &[
                    "run",
                    "--filename",
                    fs,
                    "--size=4m",
                    "--runtime=300ms",
                    "--no-store",
                    "-q",
                ][..],
                &extra[..],
            ]
            .concat(),
            &[],
        );
        assert_eq!(code, Some(0), "{extra:?}: {err}");
        use std::os::unix::fs::MetadataExt;
        let used = std::fs::metadata(&f).unwrap().blocks() * 512;
        assert!(
            used <= jobs * (4 << 20) + (1 << 20),
            "{extra:?}: {used} bytes on disk"
        );
    }
    // The randread job's region was data: a read job over it again finds no hole to refuse.
    let _ = std::fs::remove_file(&f);
    for _ in 0..2 {
        let (code, err) = bounded(
            &[
                "run",
                "--filename",
                fs,
                "--size=4m",
                "--offset=2g",
                "--rw=read",
                "--runtime=200ms",
                "--no-store",
                "-q",
            ],
            &[],
        );
        assert_eq!(code, Some(0), "{err}");
    }
}
