//! Regressions from trying volbench as a new user would (issue 7): each test is named after
//! what it guards, and each one fails on the code before its fix.

mod common;
use common::*;
use serde_json::Value;
use std::path::Path;
use std::process::{Command as Std, Stdio};
use std::time::{Duration, Instant};

fn err_of(args: &[&str], dir: &Path) -> (i32, String) {
    let out = volbench().current_dir(dir).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn sparse_and_fallocated_files_are_refused_for_reads() {
    let d = tmpdir();
    let sparse = d.path().join("sparse");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(16 << 20)
        .unwrap();
    let fal = d.path().join("falloc");
    let ok = Std::new("fallocate")
        .args(["-l", "16m"])
        .arg(&fal)
        .status()
        .is_ok_and(|s| s.success());
    let mut files = vec![sparse];
    if ok {
        files.push(fal);
    }
    for f in files {
        let (code, err) = err_of(
            &[
                "run",
                &format!("--filename={}", f.display()),
                "--rw=randread",
                "--runtime=1s",
                "--no-store",
            ],
            d.path(),
        );
        assert_eq!(code, 2, "bad input exits 2: {err}");
        assert!(
            err.contains("holes or unwritten (fallocated) extents") && err.contains("--rw=write"),
            "{err}"
        );
        assert_eq!(std::fs::metadata(&f).unwrap().len(), 16 << 20, "untouched");
    }
}

#[test]
fn volbench_own_file_with_holes_is_laid_out_again() {
    let d = tmpdir();
    // A file volbench names itself (no --filename), left sparse by an earlier killed layout.
    let own = d.path().join("volbench.test");
    std::fs::File::create(&own)
        .unwrap()
        .set_len(8 << 20)
        .unwrap();
    let (code, v, err) = run_json(&[
        &format!("--directory={}", d.path().display()),
        "--size=8m",
        "--rw=randread",
        "--runtime=1s",
        "--no-store",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(u(&v, "/group/read/total_ios") > 0);
    let hole_free = Std::new("sh")
        .arg("-c")
        .arg(format!(
            "test $(stat -c %b {0}) -ge $(( $(stat -c %s {0}) / 512 ))",
            own.display()
        ))
        .status()
        .unwrap()
        .success();
    assert!(
        hole_free,
        "every block of volbench's own file now holds data"
    );
}

#[test]
fn read_run_never_grows_a_users_file() {
    let d = tmpdir();
    let f = d.path().join("mine");
    std::fs::write(&f, vec![7u8; 1 << 20]).unwrap();
    let (code, err) = err_of(
        &[
            "run",
            &format!("--filename={}", f.display()),
            "--size=4m",
            "--rw=read",
            "--no-store",
        ],
        d.path(),
    );
    assert_eq!(code, 2, "bad input exits 2: {err}");
    assert!(err.contains("does not grow a file it did not create") && err.contains("--size=1m"));
    assert_eq!(std::fs::read(&f).unwrap(), vec![7u8; 1 << 20], "unchanged");
}

#[test]
fn kernel_interfaces_are_no_targets() {
    let d = tmpdir();
    let (code, err) = err_of(
        &["run", "--filename=/proc/version", "--rw=read", "--no-store"],
        d.path(),
    );
    assert_eq!(code, 2, "bad input exits 2: {err}");
    assert!(err.contains("on proc, a kernel interface"), "{err}");
}

#[test]
fn null_engine_creates_no_files() {
    let d = tmpdir();
    let (code, v, err) = run_json(&[
        "--ioengine=null",
        "--numjobs=64",
        "--runtime=1s",
        &format!("--directory={}", d.path().display()),
        "--no-store",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(u(&v, "/group/read/total_ios") > 0);
    let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn block_size_of_1g_runs_and_buffers_are_bounded_by_memory() {
    let d = tmpdir();
    let (code, err) = err_of(
        &[
            "run",
            "--ioengine=null",
            "--bs=1g",
            "--iodepth=4096",
            "--no-store",
        ],
        d.path(),
    );
    assert_eq!(code, 2, "bad input exits 2: {err}");
    assert!(
        err.contains("(bs x iodepth x numjobs)") && err.contains("lower --bs"),
        "{err}"
    );
    // dd's bs=1G count=1, buffered and zero-filled as dd does: it runs, and the report says
    // what dd's figure hides.
    let (code, v, err) = run_json(&[
        &format!("--filename={}", d.path().join("dd").display()),
        "--rw=write",
        "--bs=1g",
        "--size=1g",
        "--ioengine=psync",
        "--direct=0",
        "--zero_buffers",
        "--no-store",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(u(&v, "/group/write/io_bytes"), 1 << 30);
    let codes: Vec<&str> = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["code"].as_str().unwrap())
        .collect();
    assert!(codes.contains(&"compressible_data"), "{codes:?}");
    let buffered = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["code"] == "buffered_io")
        .unwrap();
    assert!(
        buffered["message"]
            .as_str()
            .unwrap()
            .contains("--end_fsync=1"),
        "{buffered}"
    );
}

#[test]
fn short_run_warning_judges_each_phase() {
    let d = tmpdir();
    let f = d.path().join("p");
    std::fs::write(&f, vec![1u8; 4 << 20]).unwrap();
    let job = write(
        d.path(),
        "two.fio",
        &format!(
            "[global]\nfilename={}\nsize=4m\nruntime=1\ntime_based\n[a]\nrw=randread\n[b]\nstonewall\nrw=randread\n",
            f.display()
        ),
    );
    let (code, v, err) = run_json(&[&job, "--no-store"]);
    assert_eq!(code, 0, "{err}");
    let short = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["code"] == "short_run")
        .expect("two 1 s phases are short runs");
    let msg = short["message"].as_str().unwrap();
    assert!(
        msg.contains("measured only 1."),
        "not the phases added up: {msg}"
    );
}

#[test]
fn burst_warning_never_fires_on_the_null_engine() {
    let (code, v, err) = run_json(&[
        "--ioengine=null",
        "--numjobs=32",
        "--runtime=7s",
        "--no-store",
    ]);
    assert_eq!(code, 0, "{err}");
    let w = v["warnings"].to_string();
    assert!(!w.contains("burst_suspected"), "{w}");
}

#[test]
fn suite_warnings_name_the_tests_they_concern() {
    let d = tmpdir();
    let suite = write(
        d.path(),
        "two.fio",
        "; volbench-suite: two\n[global]\nioengine=psync\nsize=4m\nruntime=1\ntime_based\n[cached]\ndescription=cached read\nrw=randread\ndirect=0\n[direct]\ndescription=direct read\nrw=randread\ndirect=1\n",
    );
    let out = volbench()
        .current_dir(d.path())
        .args(["suite", &suite, ".", "--no-store"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    succeeded(&out, "");
    let buffered = text
        .lines()
        .find(|l| l.contains("buffered I/O"))
        .expect(&text);
    assert!(buffered.ends_with("(cached read)"), "{buffered}");
    let short = text
        .lines()
        .find(|l| l.contains("measured only"))
        .expect(&text);
    assert!(short.ends_with("(every test)"), "{short}");
}

#[test]
fn directory_prefixes_a_relative_filename_as_in_fio() {
    let d = tmpdir();
    let target = d.path().join("dx");
    std::fs::create_dir(&target).unwrap();
    let job = write(
        d.path(),
        "place.fio",
        &format!(
            "[global]\ndirectory={}\nfilename=a.dat\nsize=1m\nrw=write\n[j]\n",
            target.display()
        ),
    );
    let (code, err) = err_of(&["run", &job, "--no-store", "-q"], d.path());
    assert_eq!(code, 0, "{err}");
    assert!(target.join("a.dat").exists(), "volbench: DIR/a.dat");
    assert!(!d.path().join("a.dat").exists(), "nothing in the cwd");
    if Std::new("fio").arg("--version").output().is_err() {
        cannot_run!("needs fio (apt-get install fio) to place the file the same way");
    }
    {
        std::fs::remove_file(target.join("a.dat")).unwrap();
        let st = Std::new("fio")
            .current_dir(d.path())
            .arg(&job)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(st.success());
        assert!(
            target.join("a.dat").exists() && !d.path().join("a.dat").exists(),
            "fio places it the same way"
        );
    }
}

#[test]
fn killed_sweep_is_stored_and_written_as_running() {
    let d = tmpdir();
    let out = d.path().join("sweep.json");
    let store = d.path().join("s.db");
    let mut child = Std::new(assert_cmd::cargo::cargo_bin("volbench"))
        .current_dir(d.path())
        .env("VOLBENCH_STORE", &store)
        .args([
            "sweep",
            "--ioengine=null",
            "--numjobs=1,2,4,8",
            "--runtime=2s",
            "-q",
            "--output-format=volbench-json",
        ])
        .arg(format!("--output={}", out.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while !out.exists() && t.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap(); // SIGKILL: no handler runs
    child.wait().unwrap();
    let v: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(v["status"], "running", "the checkpoint is not complete");
    let rows = volbench()
        .env("VOLBENCH_STORE", &store)
        .args(["history", "--output-format=json"])
        .output()
        .unwrap();
    let rows: Value = serde_json::from_slice(&rows.stdout).unwrap();
    assert_eq!(rows[0]["status"], "running", "{rows}");
}

#[test]
fn store_path_with_a_missing_directory_is_an_error_not_created() {
    let d = tmpdir();
    let missing = d.path().join("no/such/dir/r.db");
    let (code, err) = err_of(
        &["history", &format!("--store={}", missing.display())],
        d.path(),
    );
    // Bad input, as every command's documented exit code for it (issue 52).
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("does not exist"), "{err}");
    assert!(!d.path().join("no").exists(), "no directory chain made");
}

#[test]
fn output_file_is_never_left_empty_by_a_kill() {
    let d = tmpdir();
    let out = d.path().join("r.json");
    let mut child = Std::new(assert_cmd::cargo::cargo_bin("volbench"))
        .current_dir(d.path())
        .env("VOLBENCH_STORE", test_store())
        .args(["run", "--ioengine=null", "--runtime=30s", "-q"])
        .arg(format!("--output={}", out.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!out.exists(), "no half-written or empty --output file");
    let left: Vec<_> = std::fs::read_dir(d.path()).unwrap().flatten().collect();
    assert!(left.is_empty(), "no temporary file left either: {left:?}");
}

#[test]
fn output_to_a_fifo_is_refused_and_to_dev_full_says_no_space() {
    let d = tmpdir();
    let fifo = d.path().join("fifo");
    assert!(Std::new("mkfifo").arg(&fifo).status().unwrap().success());
    let (code, err) = err_of(
        &[
            "run",
            "--ioengine=null",
            "--runtime=1s",
            &format!("--output={}", fifo.display()),
        ],
        d.path(),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is a FIFO"), "{err}");
    // A FIFO as the job file is refused too, rather than read forever.
    let (code, err) = err_of(&["run", fifo.to_str().unwrap()], d.path());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not a regular file"), "{err}");
    let (code, err) = err_of(
        &[
            "run",
            "--ioengine=null",
            "--runtime=1s",
            "--no-store",
            "--output=/dev/full",
        ],
        d.path(),
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("No space left on device"), "{err}");
}

#[test]
fn huge_and_hostile_option_names_are_cut_and_escaped_fast() {
    let d = tmpdir();
    let long = "x".repeat(1 << 20);
    let job = write(d.path(), "big.fio", &format!("[j]\n{long}=1\n"));
    let (code, err) = err_of(&["run", &job], d.path());
    assert_eq!(code, 2, "{err}");
    // No option name is that long, so no edit-distance search runs (it cost seconds of CPU).
    assert!(!err.contains("did you mean"), "{err}");
    assert!(
        err.len() < 500,
        "the name is shortened: {} bytes",
        err.len()
    );
    assert!(err.contains("1048576 characters"), "{err}");
    let job = write(d.path(), "ctl.fio", "[j]\nbs=\u{1b}[31m4k\n");
    let (code, err) = err_of(&["run", &job], d.path());
    assert_eq!(code, 2, "{err}");
    assert!(
        !err.contains('\u{1b}'),
        "no raw escape reaches the terminal: {err:?}"
    );
    assert!(err.contains("\\u{1b}"), "{err:?}");
}

#[test]
fn empty_job_file_is_named_in_the_error() {
    let d = tmpdir();
    let job = write(d.path(), "empty.fio", "; nothing here\n");
    let (code, err) = err_of(&["run", &job], d.path());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("empty.fio: no job section"), "{err}");
}

#[test]
fn history_rejects_impossible_dates_and_kinds() {
    let d = tmpdir();
    for (args, needle) in [
        (vec!["history", "--since", "2026-13-45"], "not a date"),
        (vec!["history", "--until", "yesterday"], "not a date"),
        (
            vec!["history", "--kind", "bogus"],
            "use run, sweep, curve, suite, fsync, db, infer or durability",
        ),
    ] {
        let (code, err) = err_of(&args, d.path());
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(needle), "{err}");
    }
}

#[test]
fn warning_is_printed_once_when_the_report_goes_to_a_file() {
    let d = tmpdir();
    let f = d.path().join("w");
    std::fs::write(&f, vec![3u8; 4 << 20]).unwrap();
    let out = volbench()
        .current_dir(d.path())
        .args([
            "run",
            &format!("--filename={}", f.display()),
            "--rw=randread",
            "--runtime=1s",
            "--direct=0",
            "--no-store",
            "--output=r.json",
            "--output-format=json",
        ])
        .output()
        .unwrap();
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        all.matches("the page cache may have served reads").count(),
        1,
        "{all}"
    );
}

#[test]
fn closed_stdout_is_not_a_failed_run_and_it_is_still_stored() {
    let d = tmpdir();
    let store = d.path().join("s.db");
    let bin = assert_cmd::cargo::cargo_bin("volbench");
    let out = Std::new("bash")
        .arg("-c")
        .arg(format!(
            "'{}' run --ioengine=null --runtime=1s | head -c 1 >/dev/null; echo ${{PIPESTATUS[0]}}",
            bin.display()
        ))
        .env("VOLBENCH_STORE", &store)
        .current_dir(d.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "0", "{stderr}");
    assert!(!stderr.contains("Broken pipe"), "{stderr}");
    let rows = volbench()
        .env("VOLBENCH_STORE", &store)
        .args(["history", "--output-format=json"])
        .output()
        .unwrap();
    let rows: Value = serde_json::from_slice(&rows.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 1, "stored: {rows}");
}

#[test]
fn export_takes_output_format_like_every_command() {
    let d = tmpdir();
    let store = d.path().join("s.db");
    let ok = volbench()
        .env("VOLBENCH_STORE", &store)
        .args(["run", "--ioengine=null", "--runtime=1s", "-q"])
        .output()
        .unwrap();
    succeeded(&ok, "");
    for flag in ["--output-format=csv", "--format=csv"] {
        let out = volbench()
            .env("VOLBENCH_STORE", &store)
            .args(["export", "1", flag])
            .output()
            .unwrap();
        succeeded(&out, format_args!("{flag}"));
        assert!(String::from_utf8_lossy(&out.stdout).contains(','));
    }
}

#[test]
fn command_line_accepts_every_job_file_option_and_alias() {
    let j = &parsed_jobs(&[
        "--blocksize=8k",
        "--readwrite=randwrite",
        "--norandommap",
        "--rwmixwrite=20",
        "--loops",
        "3",
    ])[0];
    assert_eq!(j["bs"], 8192);
    assert_eq!(j["rw"], "randwrite");
    assert_eq!(j["norandommap"], true);
    assert_eq!(j["rwmixread"], 80);
    assert_eq!(j["loops"], 3);
    // volbench's own defaults still hold for what was not given.
    assert_eq!(j["iodepth"], 32);
}

#[test]
fn showcmd_of_a_fio_job_runs_the_same_job_on_the_command_line() {
    let d = tmpdir();
    let job = write(
        d.path(),
        "psync.fio",
        "[global]\nioengine=psync\nrw=read\nsize=64m\n[job1]\nbs=8k\ninvalidate=0\nsync=dsync\n",
    );
    let want = parsed_jobs(&[&job]);
    let cmd = volbench()
        .args(["run", &job, "--showcmd"])
        .output()
        .unwrap();
    let cmd = String::from_utf8_lossy(&cmd.stdout).into_owned();
    assert!(
        cmd.contains("--size=64m") && cmd.contains("--bs=8k"),
        "sizes in units: {cmd}"
    );
    let args: Vec<&str> = cmd
        .split_whitespace()
        .filter(|w| *w != "\\")
        .skip(2)
        .collect();
    assert_eq!(parsed_jobs(&args), want, "{cmd}");
}

#[test]
fn history_shows_what_each_row_is_and_never_averages_groups() {
    let d = tmpdir();
    let store = d.path().join("s.db");
    let job = write(
        d.path(),
        "g.fio",
        "[global]\nioengine=null\nsize=4m\nruntime=1\ntime_based\n[r]\nrw=randread\n[w]\nstonewall\nrw=write\nbs=1m\n",
    );
    let ok = volbench()
        .env("VOLBENCH_STORE", &store)
        .current_dir(d.path())
        .args(["run", &job, "-q"])
        .output()
        .unwrap();
    succeeded(&ok, "");
    let rows = volbench()
        .env("VOLBENCH_STORE", &store)
        .args(["history", "--output-format=json"])
        .output()
        .unwrap();
    let rows: Value = serde_json::from_slice(&rows.stdout).unwrap();
    let r = &rows[0];
    assert!(
        r["iops"].is_null(),
        "no figure summed over unrelated groups: {r}"
    );
    assert_eq!(r["what"], "2 groups: randread 4k QD1 | write 1m QD1", "{r}");
}

#[test]
fn parse_only_counts_jobs_and_threads() {
    let d = tmpdir();
    let job = write(
        d.path(),
        "n.fio",
        "[global]\nioengine=null\n[j]\nnumjobs=4\n",
    );
    let out = volbench()
        .args(["run", &job, "--parse-only"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(": 1 job (4 threads with numjobs), no errors"),
        "{text}"
    );
}

/// A job file's own options win over the command line's, as in fio, and each one that does
/// is said once, with where the file sets it (issue 65: `--runtime=3s --size=128m` beside
/// fio-rand-RW.fio laid out 10 GiB and aimed for 900 s without a word).
#[test]
fn options_a_job_file_overrides_are_named() {
    let d = tmpdir();
    let job = write(
        d.path(),
        "big.fio",
        "[global]\nioengine=null\nruntime=900\n[j]\nsize=10g\nrw=randread\n",
    );
    let out = volbench()
        .args(["run", &job, "--runtime=3s", "--size=128m", "--bs=8k"])
        .args(["--parse-only", "--output-format=json"])
        .output()
        .unwrap();
    succeeded(&out, "parse-only");
    let err = String::from_utf8_lossy(&out.stderr);
    let note: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("note: the job file overrides"))
        .collect();
    assert_eq!(note.len(), 1, "{err}");
    for said in [
        "--runtime=3s by runtime=900",
        "big.fio:3",
        "--size=128m by size=10g",
        "big.fio:5",
    ] {
        assert!(note[0].contains(said), "{said}: {err}");
    }
    assert!(!note[0].contains("--bs"), "{err}");
    let jobs: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(jobs[0]["size"], serde_json::json!(10u64 << 30), "{jobs}");
    assert_eq!(jobs[0]["bs"], serde_json::json!(8192), "{}", jobs[0]["bs"]);
}

#[test]
fn help_about_help_and_every_option_has_a_help_text() {
    let out = volbench().args(["help", "--help"]).output().unwrap();
    succeeded(&out, "");
    assert!(String::from_utf8_lossy(&out.stdout).contains("Usage:"));
    for sub in [
        "run", "history", "show", "export", "compare", "sweep", "suite",
    ] {
        let out = volbench().args([sub, "--help"]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = text.lines().collect();
        for opt in ["--label", "--suite", "--store"] {
            let Some(i) = lines.iter().position(|l| l.trim_start().starts_with(opt)) else {
                continue;
            };
            // The help follows on the line, or (clap's long layout) on the next one.
            let inline = lines[i]
                .trim_start()
                .split_once("  ")
                .map_or("", |(_, h)| h);
            let help = if inline.trim().is_empty() {
                lines.get(i + 1).copied().unwrap_or("")
            } else {
                inline
            };
            assert!(
                !help.trim().is_empty(),
                "{sub} {opt} has no help text: {}",
                lines[i]
            );
        }
    }
}

#[test]
fn compare_keeps_settings_apart_from_the_environment() {
    let d = tmpdir();
    let store = d.path().join("s.db");
    for (label, direct) in [("a", "1"), ("b", "0")] {
        let ok = volbench()
            .env("VOLBENCH_STORE", &store)
            .current_dir(d.path())
            .args(["run", "--ioengine=null", "--runtime=1s", "-q"])
            .arg(format!("--direct={direct}"))
            .arg(format!("--label={label}"))
            .output()
            .unwrap();
        succeeded(&ok, "");
    }
    let out = volbench()
        .env("VOLBENCH_STORE", &store)
        .args(["compare", "a", "b"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let settings = text.find("differing settings:").expect(&text);
    assert!(text[settings..].contains("direct: 1 | 0"), "{text}");
    assert!(
        !text.contains("differing environment:") || !text[..settings].contains("direct"),
        "{text}"
    );
}

#[test]
fn stored_target_paths_are_canonical_and_absolute() {
    let d = tmpdir();
    std::fs::write(d.path().join("t"), vec![9u8; 1 << 20]).unwrap();
    let out = volbench()
        .current_dir(d.path())
        .args([
            "run",
            "--filename=./t",
            "--rw=read",
            "--ioengine=psync",
            "--direct=0",
            "--no-store",
            "-q",
            "--output-format=volbench-json",
        ])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let canon = std::fs::canonicalize(d.path().join("t")).unwrap();
    assert_eq!(
        v["environment"]["targets"][0]["path"],
        canon.display().to_string()
    );
}

#[test]
fn ctrl_c_during_layout_exits_130_and_removes_the_partial_file() {
    let d = tmpdir();
    // Half the free space, at most 4 GiB: a CI disk with 4 GiB free must still run it.
    let size_mib = (runner::free_bytes(d.path()).unwrap_or(0) >> 21).min(4096);
    if size_mib < 512 {
        cannot_run!("512 MiB free below {} for the layout", d.path().display());
    }
    let child = Std::new(assert_cmd::cargo::cargo_bin("volbench"))
        .current_dir(d.path())
        .env("VOLBENCH_STORE", test_store())
        .args([
            "run",
            &format!("--size={size_mib}m"),
            "--rw=read",
            "--no-store",
            "-q",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let file = d.path().join("volbench.test");
    let t = Instant::now();
    while std::fs::metadata(&file).map_or(0, |m| m.len()) < (64 << 20)
        && t.elapsed() < Duration::from_secs(30)
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    // Stopped while the SIGINT is sent, so the signal lands mid-layout however fast the disk
    // is: it is delivered on SIGCONT, before the layout can write more than a chunk or two.
    signal(&child, libc::SIGSTOP);
    common::interrupt(&child);
    signal(&child, libc::SIGCONT);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(!file.exists(), "the partial layout is removed");
}

/// Sends `sig` to a child this test started and has not reaped.
fn signal(child: &std::process::Child, sig: i32) {
    // SAFETY: kill(2) on the pid of our own unreaped child.
    unsafe { libc::kill(child.id() as i32, sig) };
}

/// A tmpfs of a given size, unmounted when dropped.
struct SmallFs(tempfile::TempDir);

impl Drop for SmallFs {
    fn drop(&mut self) {
        // Lazily: a process of another test that still has something open below it (forked
        // while this one ran) must not leave the mount behind.
        let _ = Std::new("umount").arg("-l").arg(self.0.path()).status();
    }
}

#[test]
fn quick_fits_a_small_filesystem_and_says_so() {
    require_root!();
    let fs = SmallFs(tmpdir());
    let ok = Std::new("mount")
        .args(["-t", "tmpfs", "-o", "size=300m", "tmpfs"])
        .arg(fs.0.path())
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "mount tmpfs");
    let out = volbench()
        .args(["quick", "--runtime=1s", "--direct=0", "--no-store", "-q"])
        .arg(fs.0.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("note: only 300.0 MiB is free") && err.contains("192.0 MiB test file"),
        "{err}"
    );
    let left: Vec<_> = std::fs::read_dir(fs.0.path()).unwrap().flatten().collect();
    assert!(left.is_empty(), "quick removes its directory: {left:?}");
}

/// Issue 42's first mistakes, each one line naming the cause and the fix, with exit code 2
/// for every kind of bad input.
#[test]
fn first_mistakes_get_one_line_with_the_cause_and_the_fix() {
    let d = tmpdir();
    // A value after a space, as clap users type it: the option and the form that works.
    let (code, err) = err_of(&["run", "--direct", "1", "--runtime=1s"], d.path());
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--direct=1") && err.contains("`--direct 1`"),
        "{err}"
    );
    // A missing job file: its name, no line 0, no "(os error 2)".
    let (code, err) = err_of(&["run", "nope.fio"], d.path());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("nope.fio: no such file"), "{err}");
    assert!(!err.contains(":0:") && !err.contains("os error"), "{err}");
    // An unreadable one (root reads anything: only as another user).
    // A device path that does not exist: not a description of /dev.
    let (code, err) = err_of(&["doctor", "/dev/nonexist"], d.path());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("/dev/nonexist: no such device"), "{err}");
    // Sizes in errors read as they are typed.
    let (code, err) = err_of(
        &["run", "--size=256m", "--bs=1g", "--ioengine=null"],
        d.path(),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--size=256m is smaller than --bs=1g"), "{err}");
    // A run's refusals of its input are input errors too, as a bad option is.
    let (code, err) = err_of(
        &["run", "--directory=/nonexistent/x", "--runtime=1s"],
        d.path(),
    );
    assert_eq!(code, 2, "{err}");
    for (args, one) in [
        (&["run", "--direct", "1"][..], "--direct=1"),
        (&["run", "--rw=randread", "--iodeph=4"], "iodepth"),
        // A missing required option is named (clap's text named none); another command's
        // option says whose it is, rather than a far guess (--slo was "did you mean --flow").
        (&["cloud", "check", "last"], "missing --model"),
        (
            &["emulate", "--iops", "3000", "--", "true"],
            "missing --device",
        ),
        (&["run", "--slo", "p99=5ms"], "an option of volbench curve"),
        (&["history", "--lable", "x"], "did you mean '--label'"),
    ] {
        let (code, err) = err_of(args, d.path());
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(one), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
}

/// Issue 42: `--ioengine=posixaio` without `--name` ran io_uring silently (the docs promise a
/// note), and seed 003's pasted line lost its `--iodepth=16` to psync's depth 1 unsaid and
/// showed its sync count in the bandwidth column.
#[test]
fn an_engine_run_as_another_and_a_capped_depth_are_said() {
    let d = tmpdir();
    let f = d.path().join("t.dat").display().to_string();
    let (code, _, err) = run_json(&[
        "--ioengine=posixaio",
        "--size=8m",
        "--runtime=1s",
        &format!("--filename={f}"),
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("posixaio runs as io_uring"), "{err}");
    let out = volbench()
        .current_dir(d.path())
        .args([
            "run",
            "--name=test1",
            "--blocksize=16k",
            "--rw=randrw",
            "--iodepth=16",
        ])
        .args(["--runtime=1", "--rwmixread=60", "--fsync=1", "--size=8m"])
        .arg(format!("--filename={f}"))
        .output()
        .unwrap();
    let (text, err) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("iodepth=16") && err.contains("queue depth is 1"),
        "{err}"
    );
    let sync = text
        .lines()
        .find(|l| l.trim_start().starts_with("sync"))
        .unwrap();
    assert!(
        !sync.contains("ops"),
        "a count in the bandwidth column: {sync}"
    );
}

/// Issue 42: one multi-job workload string stretched `history` to 115 columns.
#[test]
fn history_stays_within_a_terminals_width() {
    let d = tmpdir();
    let store = d.path().join("h.db");
    let job = |name: &str, rw: &str| {
        [
            format!("--name={name}"),
            format!("--rw={rw}"),
            "--ioengine=null".into(),
            "--size=1m".into(),
        ]
    };
    let mut args = vec!["run".to_string()];
    for (n, rw) in [
        ("first-long-name", "randread"),
        ("second", "write"),
        ("third", "randrw"),
    ] {
        args.extend(job(n, rw));
    }
    ok_stdout(
        volbench()
            .env("VOLBENCH_STORE", &store)
            .args(&args)
            .arg("-q"),
    );
    let text = ok_stdout(volbench().env("VOLBENCH_STORE", &store).arg("history"));
    // The columns before the target's path (which is as long as the path is).
    let head = text.lines().next().unwrap();
    assert!(
        head.chars().count() <= 120,
        "{} columns: {head}",
        head.chars().count()
    );
    assert!(
        text.contains('…'),
        "the workload is cut, its end marked: {text}"
    );
}

/// A mistyped device (`/dev/zram9`) is refused in one line for run and curve, and nothing is
/// made in /dev (a curve made a 1 GiB regular file there and measured memory).
#[test]
fn a_device_that_does_not_exist_is_refused_not_made() {
    let d = tmpdir();
    let dev = format!("/dev/volbench-no-such-{}", std::process::id());
    for args in [
        vec!["curve".to_string(), dev.clone(), "--runtime=1s".into()],
        vec![
            "run".into(),
            format!("--filename={dev}"),
            "--rw=write".into(),
            "--runtime=1s".into(),
        ],
    ] {
        let (code, err) = err_of(
            &args.iter().map(String::as_str).collect::<Vec<_>>(),
            d.path(),
        );
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains("/dev holds devices"), "{err}");
        assert!(!std::path::Path::new(&dev).exists(), "{dev} was made");
    }
}
