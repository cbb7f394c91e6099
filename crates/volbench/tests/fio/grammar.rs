//! fio's grammar on values (units, comments, keywords, arithmetic, pairs and ranges, single-dash
//! command lines), checked against fio itself.

use crate::common;
use crate::common::*;
use crate::shared::*;
use serde_json::Value;
use std::path::Path;

/// fio 3.33's value forms that volbench refused, each against fio on the same job: a whole
/// number with a unit (`nrfiles=1k` makes 1,024 files), `offset_increment=50%` (the second
/// clone starts halfway through the existing file: its reads, under strace), `verify`
/// with sha3 (written and read back clean), and `softrandommap` (accepted; nothing to do).
#[test]
fn fio_value_forms_run_as_fio_runs_them() {
    let _disk = shared_disk();
    require_tool!("fio");
    require_tool!("strace");
    for tool in Tool::BOTH {
        let d = tmpdir();
        let dir = format!("--directory={}", d.path().display());
        let files = [
            "--name=many",
            &dir,
            "--nrfiles=1k",
            "--filesize=4k",
            "--rw=write",
        ];
        let (ok, _, err) = tool.outcome(&[&files[..], &["--softrandommap=1"]].concat());
        assert!(ok, "{tool}: {err}");
        let made = std::fs::read_dir(d.path()).unwrap().count();
        assert_eq!(made, 1024, "{tool}: files made");
        let file = d.path().join("half.dat");
        fill_random(&file, 4 << 20);
        let f = format!("--filename={}", file.display());
        let job = [
            "--name=half",
            &f,
            "--numjobs=2",
            "--offset_increment=50%",
            "--size=64k",
            "--bs=64k",
            "--rw=read",
            "--ioengine=psync",
        ];
        let (log, _) = tool.strace(d.path(), &["-y", "-e", "trace=pread64"], &job, false);
        // Each clone's lowest read (its region's start). Two clones' calls interleave, so a
        // call may be split into `<unfinished ...>` and `<... pread64 resumed>` lines: the
        // length and offset are read from the end of the line that ends the call (the data
        // before them may hold anything).
        let mut start = std::collections::HashMap::<&str, u64>::new();
        for l in log
            .lines()
            .filter(|l| l.contains("pread64") && l.contains(") = 65536"))
        {
            let pid = l.split_whitespace().next().unwrap();
            if let Some((65536, o)) = len_off(l) {
                let e = start.entry(pid).or_insert(o);
                *e = (*e).min(o);
            }
        }
        let mut firsts: Vec<u64> = start.into_values().collect();
        firsts.sort();
        assert_eq!(firsts, [0, 2 << 20], "{tool}: each clone's region start");
        let sha3 = [
            "--name=s3",
            &f,
            "--size=1m",
            "--bs=4k",
            "--rw=write",
            "--verify=sha3-256",
        ];
        // In the test's directory: fio writes its verify state where it runs.
        let out = tool.command_in(d.path()).args(sha3).output().unwrap();
        succeeded(&out, format_args!("{tool}"));
    }
}

#[test]
fn keyword_values_are_computed_as_fio_computes_them() {
    let _disk = shared_disk();
    require_tool!("fio");
    require_tool!("bc");
    let d = tmpdir();
    // fio replaces $pagesize, $ncpus and $mb_memory by this host's values and hands the
    // arithmetic to bc; the same host gives both tools the same numbers.
    let text = "[k]\nioengine=null\nrw=read\nbs=$pagesize\nsize=16*$pagesize*$ncpus\n";
    let (theirs, ours) = both(d.path(), text, "read");
    assert_eq!(ours, theirs);
    assert!(ours.0 >= 16, "{ours:?}");
    // $mb_memory divided down to something small enough to run.
    let text = "[m]\nioengine=null\nrw=read\nbs=4k\nsize=$mb_memory/64*4096\n";
    let (theirs, ours) = both(d.path(), text, "read");
    assert_eq!(ours, theirs);
}

#[test]
fn parenthesised_values_follow_fios_grammar_and_bare_arithmetic_is_refused() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    // Debian's fio is built without its expression grammar (it refuses "(...)"), so fio runs
    // the plain value the expression comes to: 4 KiB blocks, 512 KiB + 32 KiB.
    let job = |bs: &str, size: &str| format!("[p]\nioengine=null\nrw=read\nbs={bs}\nsize={size}\n");
    let plain = job("4096", "557056");
    let (theirs, _) = both(d.path(), &plain, "read");
    let p = d.path().join("e.fio");
    std::fs::write(&p, job("(2*2k)", "(1m/2+4k*8)")).unwrap();
    let ours = vb_io(&vb_json(d.path(), &p, &[]), "read");
    assert_eq!(ours, theirs);
    assert_eq!(ours, (136, 557_056));
    // fio reads only the 3 of 3*1k: refused, with the way to have it computed.
    let (ok, err) = parse_text(d.path(), &job("4k", "3*1m"));
    assert!(!ok && err.contains("write (3*1m)"), "{err}");
    let (ok, err) = parse_text(d.path(), &job("4k", "(4/0)"));
    assert!(!ok && err.contains("division by zero"), "{err}");
}

#[test]
fn an_escaped_percent_size_is_a_percent_as_in_fio() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    let f = d.path().join("data");
    std::fs::write(&f, vec![7u8; 1 << 20]).unwrap();
    for size in ["50%%", "50%"] {
        let text = format!("[s]\nfilename=data\nrw=read\nbs=4k\nsize={size}\n");
        let (theirs, ours) = both(d.path(), &text, "read");
        assert_eq!(ours, theirs, "size={size}");
        assert_eq!(ours.1, 512 << 10, "size={size}");
    }
}

/// volbench's effective jobs for a job file (`--parse-only --output-format=json`).
fn jobs_of(job: &Path) -> Value {
    ok_json(
        volbench()
            .args(["run"])
            .arg(job)
            .args(["--parse-only", "--output-format=json"]),
    )
}

/// What fio does with `size=SIZE` under `kb_base`: the bytes its null engine moves in
/// 512-byte blocks (fio rounds the size down to the block).
fn fio_bytes(size: &str, kb_base: u32) -> u64 {
    let v = fio_json(std::process::Command::new("fio").args([
        "--name=t",
        "--filename=/tmp/volbench-grammar-null",
        &format!("--kb_base={kb_base}"),
        &format!("--size={size}"),
        "--rw=write",
        "--bs=512",
        "--ioengine=null",
    ]));
    u(&v, "/jobs/0/write/io_bytes")
}

#[test]
fn comments_end_values_and_units_read_as_fios() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    let job = d.path().join("g.fio");
    // fio's strip_blank_end: the first ; or # ends the line, blank or not.
    std::fs::write(
        &job,
        "[global]\nbs=4k; no. of bytes\nruntime=2; seconds\nfilename=/tmp/g#not-a-comment\n\
         [j] ; the job\nrw=read\nsize=8m# cut here\n",
    )
    .unwrap();
    let v = jobs_of(&job);
    assert_eq!(v[0]["bs"], 4096, "{v}");
    assert_eq!(v[0]["runtime"]["secs"], 2, "{v}");
    assert_eq!(v[0]["filename"][0], "/tmp/g", "{v}");
    assert_eq!(v[0]["size"], 8 << 20, "{v}");
    // Sizes as fio reads them, fio's own bytes the reference (its compatibility mode makes
    // 1MiB a million bytes under kb_base=1024).
    for (size, kb) in [
        ("1Gi", 1024),
        ("4MB", 1024),
        ("1MiB", 1024),
        ("3KiB", 1024),
        ("20MB", 1000),
        ("1MiB", 1000),
        ("7mi", 1000),
    ] {
        std::fs::write(
            &job,
            format!("[j]\nkb_base={kb}\nsize={size}\nbs=512\nrw=read\n"),
        )
        .unwrap();
        let ours = u(&jobs_of(&job), "/0/size");
        assert_eq!(
            ours / 512 * 512,
            fio_bytes(size, kb),
            "size={size} kb_base={kb}"
        );
    }
}

/// Job files pasted from write-ups carry notes after the value (`numjobs=8  // threads`):
/// fio reads a number's leading digits and the unit letters touching them and ignores the rest
/// (`size=2 g` is 2 bytes). Both tools run the same file to the same jobs and bytes; volbench
/// names the ignored text once per line.
#[test]
fn text_after_a_number_and_a_blank_is_ignored_as_fio_ignores_it() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    let job = d.path().join("noted.fio");
    std::fs::write(
        &job,
        format!(
            "[global]\nioengine=null\nfilename={}\nsize=2m    // => total bytes of this job\n\
             bs=64k  // block\n[seq-write]\nnumjobs=2  // num of threads\nrw=write\n\
             direct=0 // buffered\nruntime=20 s\n",
            d.path().join("noted.dat").display()
        ),
    )
    .unwrap();
    let jobs = |v: &Value, key: &str| -> Vec<(u64, u64)> {
        let list = v["jobs"].as_array().unwrap();
        list.iter()
            .map(|j| (u(j, &format!("/write/{key}")), u(j, "/write/total_ios")))
            .collect()
    };
    let fio = fio_json(std::process::Command::new("fio").arg(&job));
    assert_eq!(jobs(&fio, "io_bytes"), [(2 << 20, 32); 2], "fio: {fio}");
    let out = volbench()
        .args(["run"])
        .arg(&job)
        .args(["--output-format=fio-json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    succeeded(&out, "");
    let ours: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(jobs(&ours, "io_bytes"), jobs(&fio, "io_bytes"), "{err}");
    for (line, said) in [
        (
            4,
            "size=2m: the text after it ('// => total bytes of this job') is ignored",
        ),
        (5, "bs=64k: the text after it ('// block') is ignored"),
        (
            7,
            "numjobs=2: the text after it ('// num of threads') is ignored",
        ),
        (10, "runtime=20: the text after it ('s') is ignored"),
    ] {
        let at = format!("noted.fio:{line}: {said}");
        assert_eq!(err.matches(&at).count(), 1, "{at}\n{err}");
    }
    // A number that only looks like one stays refused, as fio refuses it.
    std::fs::write(
        &job,
        "[j]\nioengine=null\nsize=1m\nnumjobs=two  // threads\n",
    )
    .unwrap();
    let out = volbench()
        .args(["run"])
        .arg(&job)
        .arg("--parse-only")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// fio splits a per-direction value at `,`, or else at `:` or `-`: `bs=4k-16k` (pasted as a
/// range from many posts) is reads of 4k and writes of 16k in fio, and so in volbench, which
/// says how to write a range. Each form's read and write sizes are fio's own on the same job.
#[test]
fn bs_with_a_dash_or_colon_sets_reads_and_writes_as_fio_does() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    let job = d.path().join("bs.fio");
    let sizes = |v: &Value| -> (u64, u64) {
        let mean = |dir: &str| {
            let r = &v["jobs"][0][dir];
            u(r, "/io_bytes") / u(r, "/total_ios").max(1)
        };
        (mean("read"), mean("write"))
    };
    for (bs, want) in [
        ("4k-16k", (4096, 16384)),
        ("4k:16k", (4096, 16384)),
        (",8k", (4096, 8192)),
        ("8k,", (8192, 4096)),
        ("4k-8k,16k", (4096, 16384)),
        ("4k,8k-16k", (4096, 8192)),
    ] {
        std::fs::write(
            &job,
            format!(
                "[j]\nioengine=null\nfilename={}\nsize=4m\nrw=randrw\nbs={bs}\n",
                d.path().join("bs.dat").display()
            ),
        )
        .unwrap();
        let fio = fio_json(std::process::Command::new("fio").arg(&job));
        assert_eq!(sizes(&fio), want, "fio, bs={bs}");
        let out = volbench()
            .args(["run"])
            .arg(&job)
            .args(["--output-format=fio-json"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        succeeded(&out, format_args!("bs={bs}"));
        let ours: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(sizes(&ours), want, "volbench, bs={bs}");
        if bs.contains(['-', ':']) {
            assert!(err.contains(&format!("write bsrange={bs}")), "{err}");
        }
    }
    // rate splits the same way: 1m for reads, 512k for writes.
    let args = |tool: Tool| {
        [
            "--name=r".to_string(),
            format!("--filename={}", d.path().join("rate.dat").display()),
            "--ioengine=null".into(),
            "--size=64m".into(),
            "--rw=randrw".into(),
            "--bs=4k".into(),
            "--rate=1m-512k".into(),
            "--runtime=2".into(),
            "--time_based".into(),
            tool.json_flag().to_string(),
        ]
    };
    let fio = fio_json(std::process::Command::new("fio").args(args(Tool::Fio)));
    let out = volbench()
        .arg("run")
        .args(args(Tool::Volbench))
        .output()
        .unwrap();
    succeeded(&out, "");
    let ours: Value = serde_json::from_slice(&out.stdout).unwrap();
    for v in [&fio, &ours] {
        let bw = |dir: &str| u(v, &format!("/jobs/0/{dir}/bw_bytes")) as f64;
        assert!((bw("read") / 1048576.0 - 1.0).abs() < 0.05, "{v}");
        assert!((bw("write") / 524288.0 - 1.0).abs() < 0.05, "{v}");
    }
}

/// `bs=1` reads a file byte by byte through the page cache (a FUSE object store's time to
/// first byte, in fio's terms): as many reads as bytes, in both tools; O_DIRECT still needs
/// whole sectors.
#[test]
fn blocks_below_512_bytes_run_buffered() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    let f = d.path().join("small.dat");
    std::fs::write(&f, vec![7u8; 4096]).unwrap();
    for bs in ["1", "32"] {
        let args = [
            "--name=tiny".to_string(),
            format!("--filename={}", f.display()),
            "--rw=read".into(),
            format!("--bs={bs}"),
            "--size=4k".into(),
            "--ioengine=psync".into(),
        ];
        let fio = fio_json(std::process::Command::new("fio").args(&args));
        let (code, ours, err) = run_json(&args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(code, 0, "{err}");
        let want = 4096 / bs.parse::<u64>().unwrap();
        assert_eq!(u(&fio, "/jobs/0/read/total_ios"), want);
        assert_eq!(u(&ours, "/jobs/0/read/total_ios"), want, "bs={bs}");
    }
    let out = volbench()
        .args([
            "run",
            "--bs=32",
            "--direct=1",
            "--ioengine=null",
            "--size=1m",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--bs=32") && err.contains("--direct=0"),
        "{err}"
    );
}

/// The most copied fio line of all, as blogs print it: single dashes, and `-iodepth 4` with
/// its value after a space. fio runs it; volbench reads it as the `--` form.
#[test]
fn a_pasted_single_dash_fio_line_runs() {
    let _disk = shared_disk();
    require_tool!("fio");
    let d = tmpdir();
    let f = d.path().join("sdb.dat");
    let line = |file: &Path| {
        [
            format!("-filename={}", file.display()),
            "-direct=1".into(),
            "-iodepth".into(),
            "4".into(),
            "-thread".into(),
            "-rw=randread".into(),
            "-ioengine=libaio".into(),
            "-bs=16k".into(),
            "-size=16m".into(),
            "-numjobs=2".into(),
            "-runtime=1".into(),
            "-group_reporting".into(),
            "-name=mytest".into(),
        ]
    };
    let fio = fio_json(std::process::Command::new("fio").args(line(&f)));
    // fio took the value after the space (options before -name are its global ones).
    assert_eq!(fio["global options"]["iodepth"], "4", "{fio}");
    let (code, v, err) = run_json(&line(&f).iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 0, "{err}");
    let j = &v["workload"]["jobs"][0];
    assert_eq!(
        (j["iodepth"].as_u64(), j["bs"].as_u64()),
        (Some(4), Some(16384)),
        "{j}"
    );
    assert_eq!(j["numjobs"], 2);
    assert!(u(&v, "/group/read/total_ios") > 0);
}

/// fio's command-line-only options: those volbench has are honoured (`--eta=never` shows no
/// progress, `--readonly` refuses a writing job, `--section` runs that section), those that
/// change nothing are named in one note, fio's client and triggers are refused.
#[test]
fn fios_command_line_options_are_honoured_noted_or_refused() {
    let _disk = shared_disk();
    let d = tmpdir();
    let job = d.path().join("two.fio");
    std::fs::write(
        &job,
        "[global]\nioengine=null\nsize=1m\n[a]\nrw=read\n[b]\nrw=write\n",
    )
    .unwrap();
    let j = job.to_str().unwrap();
    let out = volbench()
        .args([
            "run",
            j,
            "--section=a",
            "--eta=never",
            "--status-interval=1",
        ])
        .args(["-eta-newline", "1", "--output-format=volbench-json"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    succeeded(&out, "");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = v["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| j["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a"], "--section=a");
    let notes: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("note: fio's"))
        .collect();
    assert_eq!(notes.len(), 1, "{err}");
    // --status-interval is honoured (docs/live.md): its lines are on stderr, not in the note.
    assert!(!notes[0].contains("--status-interval") && notes[0].contains("--eta-newline"));
    assert!(
        !err.contains(" s of ") && !err.contains("% done"),
        "progress shown: {err}"
    );
    let out = volbench().args(["run", j, "--readonly"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--readonly: job b writes"), "{err}");
    let out = volbench()
        .args(["run", j, "--client=host1"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--client is fio's own"), "{err}");
}
