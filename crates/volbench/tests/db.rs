//! `volbench db`: the TPC-B invariant and row counts after real runs, a side-by-side table, the
//! throwaway PostgreSQL cluster leaving nothing behind (after success, errors and Ctrl-C),
//! agreement with pgbench on the same cluster, and tps following a device's flush time.

mod common;

use common::*;
use serde_json::Value;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command as Std, Stdio};
use std::time::Duration;

fn have_postgres() -> bool {
    if db::pg::bindir().is_ok() && Std::new("pgbench").arg("--version").output().is_ok() {
        return true;
    }
    common::cannot_run("needs PostgreSQL's server and pgbench (apt-get install postgresql)");
    false
}

fn db_json(args: &[&str]) -> Value {
    ok_json(
        volbench()
            .arg("db")
            .args(args)
            .args(["--no-store", "-q", "--output-format", "json"]),
    )
}

#[test]
fn sqlite_runs_report_every_transaction_once_and_remove_their_database() {
    let d = tmpdir();
    let v = db_json(&[
        d.path().to_str().unwrap(),
        "--transactions",
        "60",
        "--clients",
        "3",
        "--no-probe",
    ]);
    assert_eq!(u(&v, "/transactions"), 180, "{v}");
    assert_eq!(u(&v, "/failed"), 0);
    assert!(f(&v, "/tps") > 0.0);
    assert_eq!(u(&v, "/latency_ns/n"), 180);
    let r = &v["runs"][0];
    assert!(v["latency_ns"]["percentiles"].is_array());
    assert_eq!(r["engine"], "sqlite");
    assert!(r["engine_version"]
        .as_str()
        .unwrap()
        .starts_with("SQLite 3"));
    // One WAL sync per commit at synchronous=FULL.
    assert_eq!(u(r, "/explanation/wal_flushes"), 180);
    assert!(leftovers(d.path()).is_empty(), "{:?}", leftovers(d.path()));
}

#[test]
fn sqlite_latency_covers_the_clients_time_by_littles_law() {
    // Three clients, each always inside a transaction (waiting for the one writer included),
    // so committed x mean latency = 3 x the run's time. A timed run keeps every client busy
    // to the end; a counted one does not (SQLite's writer is not fair, so one client can
    // finish its share early and the others run on alone: 0.78 was seen in CI). Over 2 s the
    // only time outside a transaction is thread start and the last transaction's overrun,
    // a few ms each, so 0.85 is far outside what scheduling noise reaches.
    let d = tmpdir();
    let v = db_json(&[
        d.path().to_str().unwrap(),
        "--time",
        "2s",
        "--clients",
        "3",
        "--no-probe",
    ]);
    let r = &v["runs"][0];
    let busy = f(&v, "/transactions") * f(&v, "/latency_ns/mean_ns") / f(r, "/elapsed_ns") / 3.0;
    assert!((0.85..=1.02).contains(&busy), "{busy}: {v}");
    assert!(leftovers(d.path()).is_empty(), "{:?}", leftovers(d.path()));
}

#[test]
fn several_directories_give_one_row_each_with_ratios_to_the_first() {
    let (a, b) = (tmpdir(), tmpdir());
    let text = ok_stdout(volbench().args([
        "db",
        a.path().to_str().unwrap(),
        b.path().to_str().unwrap(),
        "--time",
        "1s",
        "--clients",
        "2",
        "--no-store",
    ]));
    assert!(
        text.contains("vs first") && text.contains("1.00x"),
        "{text}"
    );
    assert!(text.contains(a.path().to_str().unwrap()) && text.contains(b.path().to_str().unwrap()));
    assert!(
        text.contains("Why:") && text.contains("QD1 8 KiB write+fdatasync"),
        "{text}"
    );
}

#[test]
fn bad_input_gets_one_line_naming_the_fix() {
    let d = tmpdir();
    let file = d.path().join("f");
    std::fs::write(&file, b"x").unwrap();
    for (args, env, needle) in [
        (
            vec!["db", "/nonexistent/dir", "--no-store"],
            None,
            "not a directory",
        ),
        (
            vec!["db", file.to_str().unwrap(), "--no-store"],
            None,
            "not a directory",
        ),
        (
            vec!["db", "--engine", "oracle", "--no-store"],
            None,
            "choose sqlite or postgres",
        ),
        (
            vec![
                "db",
                "--engine",
                "sqlite",
                "--postgres-url",
                "postgres://x/y",
                "--no-store",
            ],
            None,
            "drop --engine sqlite",
        ),
        (
            vec![
                "db",
                d.path().to_str().unwrap(),
                "--engine",
                "postgres",
                "--no-store",
            ],
            Some("/nonexistent"),
            "apt-get install postgresql",
        ),
    ] {
        let mut c = volbench();
        c.args(&args);
        if let Some(root) = env {
            c.env("VOLBENCH_PG_ROOT", root)
                .env("PATH", "/usr/local/sbin:/usr/sbin:/sbin");
        }
        let out = c.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn a_throwaway_cluster_leaves_nothing_after_success_failure_and_ctrl_c() {
    if !have_postgres() {
        return;
    }
    require_root!();
    let d = open_dir();
    let p = d.path().to_str().unwrap();
    let v = db_json(&[
        p,
        "--engine",
        "postgres",
        "--transactions",
        "30",
        "--clients",
        "4",
        "--no-probe",
    ]);
    assert_eq!(u(&v, "/transactions"), 120);
    assert!(v["runs"][0]["engine_version"]
        .as_str()
        .unwrap()
        .starts_with("PostgreSQL"));
    assert!(leftovers(d.path()).is_empty(), "{:?}", leftovers(d.path()));

    // initdb on a full disk: one line, nothing left.
    let full = open_dir();
    let st = Std::new("mount")
        .args(["-t", "tmpfs", "-o", "size=2m,mode=0755", "tmpfs"])
        .arg(full.path())
        .status()
        .unwrap();
    assert!(st.success());
    let out = volbench()
        .args([
            "db",
            full.path().to_str().unwrap(),
            "--engine",
            "postgres",
            "--no-store",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let left = leftovers(full.path());
    let _ = Std::new("umount").arg(full.path()).status();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    // initdb's own cause, not its last line ("removing data directory ...").
    assert!(
        err.contains("initdb") && err.contains("No space left on device"),
        "{err}"
    );
    assert!(left.is_empty(), "{left:?}");

    // Ctrl-C during initdb: the terminal's SIGINT reaches the whole process group, initdb
    // too, and its failure is the stop's doing: exit 130, said as a stop, nothing left.
    let mut c = Std::new(env!("CARGO_BIN_EXE_volbench"))
        .args(["db", p, "--engine", "postgres", "--no-store", "--no-probe"])
        .env("VOLBENCH_STORE", test_store())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while !initdb_runs_in(d.path()) {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "initdb never started"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    common::interrupt_group(&c);
    let mut err = String::new();
    std::io::Read::read_to_string(&mut c.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(c.wait().unwrap().code(), Some(130), "{err}");
    assert!(err.contains("stopped during set-up"), "{err}");
    assert!(!err.contains("error:"), "{err}");
    assert!(leftovers(d.path()).is_empty(), "{:?}", leftovers(d.path()));

    // Ctrl-C during the load (scale 20 takes seconds) and during the run.
    for (scale, wait) in [("20", 1500u64), ("1", 4000)] {
        let mut c = Std::new(env!("CARGO_BIN_EXE_volbench"))
            .args([
                "db",
                p,
                "--engine",
                "postgres",
                "--scale",
                scale,
                "--time",
                "60s",
                "--no-store",
                "--no-probe",
            ])
            .env("VOLBENCH_STORE", test_store())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(wait));
        common::interrupt(&c);
        let st = c.wait().unwrap();
        assert_ne!(
            st.code(),
            Some(0),
            "scale {scale}: an interrupted run is not a success"
        );
        assert!(
            leftovers(d.path()).is_empty(),
            "scale {scale}: {:?}",
            leftovers(d.path())
        );
    }
}

/// Regression (issue 41): "488 tps; ... one stream of commits tops out near 249 tps", a ceiling
/// from a probe before the run that the run itself outpaced. PostgreSQL times its own WAL
/// flushes during the run (pg_stat_wal): the ceiling rests on those, and no figure beside it
/// contradicts it.
#[test]
fn a_postgres_runs_ceiling_rests_on_its_own_flushes() {
    if !have_postgres() {
        return;
    }
    require_root!();
    let d = open_dir();
    let v = db_json(&[
        d.path().to_str().unwrap(),
        "--engine",
        "postgres",
        "--time",
        "3s",
        "--clients",
        "4",
    ]);
    let e = &v["runs"][0]["explanation"];
    let flush = f(e, "/flush_run_mean_ns");
    let ceiling = f(e, "/commit_ceiling_tps");
    assert!((ceiling - 1e9 / flush).abs() / ceiling < 0.01, "{e}");
    // Commits per flush (group commit) times one flush stream's rate bounds the run.
    let per_flush = f(&v, "/transactions") / f(e, "/wal_flushes").max(1.0);
    assert!(
        f(&v, "/tps") <= ceiling * per_flush.max(1.0) * 1.05,
        "the run beat its own ceiling: {e}"
    );
    let summary = e["summary"].as_str().unwrap();
    assert!(summary.contains("during the run"), "{summary}");
}

/// True while an initdb whose command line names `dir` runs.
fn initdb_runs_in(dir: &Path) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|e| {
        let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd);
        cmd.contains("initdb") && cmd.contains(&*dir.to_string_lossy())
    })
}

/// Runs pgbench on the cluster; returns its tps and transactions processed.
fn pgbench(c: &db::pg::Cluster, clients: u32, secs: u32) -> (f64, u64) {
    let text = pgbench_on(
        c,
        &["-n", "-c", &clients.to_string(), "-T", &secs.to_string()],
    );
    let n = text
        .lines()
        .find(|l| l.starts_with("number of transactions actually processed:"))
        .and_then(|l| l.split(':').nth(1))
        .and_then(|v| v.split('/').next())
        .map(|v| v.trim().parse().unwrap())
        .unwrap();
    (pgbench_tps(&text), n)
}

fn psql(c: &db::pg::Cluster, q: &str) -> String {
    let (host, port, user) = c.parts();
    let out = Std::new("psql")
        .args([
            "-h",
            &host,
            "-p",
            &port.to_string(),
            "-U",
            &user,
            "-tAc",
            q,
            "postgres",
        ])
        .output()
        .unwrap();
    succeeded(&out, "");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn volbench_pg(c: &db::pg::Cluster, clients: u32, secs: u32) -> Value {
    db_json(&[
        "--engine",
        "postgres",
        "--postgres-url",
        &c.url(),
        "--clients",
        &clients.to_string(),
        "--time",
        &format!("{secs}s"),
        "--no-probe",
    ])
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// On two cores both tools' clients share the CPU with ten server processes, and at scale 1
/// every transaction waits on the one branch row: one pgbench run to the next varies by up to
/// 40 % here, so medians of six, run in ABBA order, are compared with a margin that noise does not cross. A
/// wrong count or a broken client (2x off) still fails. Measured ratios are in PERFORMANCE.md.
/// On the disk each commit waits for the shared cloud volume's flush, which swings more: one
/// fresh-clone run with other work on the host saw pgbench from 842 to 2,266 tps across its
/// six runs and medians 1.5x apart; 0.45 still fails a client 2x off either way.
const TMPFS_TOLERANCE: f64 = 0.25;
const DISK_TOLERANCE: f64 = 0.45;

/// pgbench and volbench, alternating on one cluster: medians within 10 %, and the tables
/// consistent afterwards (history rows = transactions both tools committed).
fn agree_on(dir: &Path, tolerance: f64) {
    let c = db::pg::Cluster::start(dir).unwrap();
    let first = volbench_pg(&c, 1, 1);
    let mut committed = u(&first, "/transactions");
    assert!(committed > 0);
    // One client thread, as pgbench's default -j 1 that it is compared with.
    assert_eq!(first["jobs"], 1, "{first}");
    let (mut p, mut v) = (Vec::new(), Vec::new());
    // ABBA order: each run bloats the tables a little, which would penalise whichever tool
    // always ran second.
    for i in 0..6 {
        for tool in if i % 2 == 0 {
            ["pgbench", "volbench"]
        } else {
            ["volbench", "pgbench"]
        } {
            if tool == "pgbench" {
                let (tps, n) = pgbench(&c, 10, 3);
                p.push(tps);
                committed += n;
            } else {
                let r = volbench_pg(&c, 10, 3);
                v.push(f(&r, "/tps"));
                committed += u(&r, "/transactions");
            }
        }
    }
    let (pm, vm) = (median(p.clone()), median(v.clone()));
    eprintln!(
        "{}: pgbench median {pm:.0} tps, volbench {vm:.0} ({:.3}x)",
        dir.display(),
        vm / pm
    );
    assert!(
        (vm / pm - 1.0).abs() <= tolerance,
        "{}: pgbench {p:?} volbench {v:?}",
        dir.display()
    );
    // Every transaction either tool reported is in the history, and the balances agree.
    assert_eq!(
        psql(&c, "SELECT count(*) FROM pgbench_history"),
        committed.to_string()
    );
    let sums = psql(&c, "SELECT (SELECT sum(bbalance) FROM pgbench_branches) = (SELECT sum(tbalance) FROM pgbench_tellers) AND (SELECT sum(tbalance) FROM pgbench_tellers) = (SELECT sum(abalance) FROM pgbench_accounts)");
    assert_eq!(sums, "t");
}

#[test]
fn volbench_and_pgbench_agree_on_the_same_cluster_on_tmpfs_and_on_disk() {
    if !have_postgres() {
        return;
    }
    require_root!();
    let ram = open_dir();
    let st = Std::new("mount")
        .args(["-t", "tmpfs", "-o", "size=512m,mode=0755", "tmpfs"])
        .arg(ram.path())
        .status()
        .unwrap();
    assert!(st.success());
    let r = std::panic::catch_unwind(|| agree_on(ram.path(), TMPFS_TOLERANCE));
    let _ = Std::new("umount").arg("-l").arg(ram.path()).status();
    r.unwrap();
    agree_on(open_dir().path(), DISK_TOLERANCE);
}

/// `volbench db` on a server that asks for a password: the measured clients log in by MD5 and
/// by SCRAM-SHA-256 (they speak the protocol themselves, see crates/db/src/wire.rs) and every
/// transaction they report is in the history; a password from PGPASSWORD does as well; a wrong
/// or missing password and a statement the server refuses end the run with the server's own
/// words.
#[test]
fn password_logins_by_md5_and_scram_run_and_refusals_are_said_in_the_servers_words() {
    if !have_postgres() {
        return;
    }
    require_root!();
    let dir = open_dir();
    let c = db::pg::Cluster::start(dir.path()).unwrap();
    volbench_pg(&c, 1, 1);
    psql(
        &c,
        "SET password_encryption='md5'; CREATE ROLE vb_md5 LOGIN PASSWORD 'pw-md5'; \
         SET password_encryption='scram-sha-256'; CREATE ROLE vb_scram LOGIN PASSWORD 'pw-scram'; \
         CREATE ROLE vb_ro LOGIN PASSWORD 'pw-ro'; \
         GRANT ALL ON ALL TABLES IN SCHEMA public TO vb_md5, vb_scram; \
         GRANT SELECT ON ALL TABLES IN SCHEMA public TO vb_ro",
    );
    let hba = psql(&c, "SHOW hba_file");
    let rules = std::fs::read_to_string(&hba).unwrap();
    let ours =
        "local all vb_md5 md5\nlocal all vb_scram scram-sha-256\nlocal all vb_ro scram-sha-256\n";
    std::fs::write(&hba, format!("{ours}{rules}")).unwrap();
    assert_eq!(psql(&c, "SELECT pg_reload_conf()"), "t");
    let (host, port, _) = c.parts();
    let url =
        |user: &str, pw: &str| format!("host={host} port={port} user={user} dbname=postgres {pw}");
    for (user, pw) in [
        ("vb_md5", "password=pw-md5"),
        ("vb_scram", "password=pw-scram"),
    ] {
        let before: u64 = psql(&c, "SELECT count(*) FROM pgbench_history")
            .parse()
            .unwrap();
        let r = db_json(&[
            "--postgres-url",
            &url(user, pw),
            "-c",
            "3",
            "-t",
            "20",
            "--no-probe",
        ]);
        assert_eq!(u(&r, "/transactions"), 60, "{user}: {r}");
        let after: u64 = psql(&c, "SELECT count(*) FROM pgbench_history")
            .parse()
            .unwrap();
        assert_eq!(after - before, 60, "{user}: history rows");
    }
    let db = |u: &str, pw: &str| {
        volbench()
            .args(["db", "--postgres-url", &url(u, pw), "-c", "2", "-t", "5"])
            .args(["--no-probe", "--no-store", "-q"])
            .output()
            .unwrap()
    };
    common::fails_saying(
        &db("vb_scram", "password=wrong"),
        1,
        "password authentication failed for user \"vb_scram\"",
    );
    common::fails_saying(&db("vb_scram", ""), 1, "put password=... in the URL");
    // Off the command line (issue 63): PGPASSWORD, for the setup and the measured clients.
    let out = volbench()
        .env("PGPASSWORD", "pw-scram")
        .args([
            "db",
            "--postgres-url",
            &url("vb_scram", ""),
            "-c",
            "2",
            "-t",
            "5",
        ])
        .args(["--no-probe", "--no-store", "-q"])
        .output()
        .unwrap();
    common::succeeded(&out, "db with PGPASSWORD");
    common::fails_saying(
        &db("vb_ro", "password=pw-ro"),
        1,
        "ERROR: permission denied for table pgbench_accounts",
    );
}

/// Regression: a Ctrl-C during a long SQLite table load waited for the whole load (38 s at
/// scale 300), then printed a run of 0 tps judged "CPU-bound". The load stops; nothing is
/// reported as measured; the database is removed.
#[test]
fn ctrl_c_during_a_sqlite_load_stops_it_and_reports_no_run() {
    let d = tmpdir();
    let mut child = Std::new(env!("CARGO_BIN_EXE_volbench"))
        .args([
            "db",
            d.path().to_str().unwrap(),
            "--scale",
            "300",
            "--time",
            "2s",
        ])
        .args(["--no-probe", "--no-store"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let db = d.path().join(format!(".volbench-db-{}.sqlite", child.id()));
    while !db.exists() {
        assert!(child.try_wait().unwrap().is_none(), "ended before loading");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(500));
    common::interrupt(&child);
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{err}");
    assert!(err.contains("stopped during set-up"), "{err}");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(leftovers(d.path()).is_empty(), "{:?}", leftovers(d.path()));
}

/// Issue 65: SQLite on a volume capped at 300 write IOPS was judged "lock-bound ... not for
/// the device" while the device did its cap. The verdict reads the device's own counters and
/// the cgroup cap: at the cap it is IOPS-bound, the writes it counts never above the cap (a
/// physical limit of the throttle), and the same directory without the cap is not.
#[test]
fn sqlite_at_a_300_iops_cap_is_iops_bound_not_lock_bound() {
    if !is_root() {
        return cannot_run("needs root (a zram device and a cgroup throttle)");
    }
    let fs = Ext4::new("256M");
    let dir = fs.dir.path().to_str().unwrap().to_string();
    let args: Vec<String> = [
        "db",
        &dir,
        "--time",
        "3",
        "--clients",
        "4",
        "--no-store",
        "-q",
        "--output-format",
        "json",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let Some(t) = Throttle::writes(fs.zram.p(), 300) else {
        return cannot_run("needs a cgroup blkio throttle");
    };
    let capped: Value =
        serde_json::from_slice(&t.run(env!("CARGO_BIN_EXE_volbench"), &args)).unwrap();
    let e = &capped["runs"][0]["explanation"];
    assert_eq!(e["bound"], "iops", "{e}");
    assert_eq!(e["device_write_iops_cap"], 300, "{e}");
    // The cgroup's own writes, which the cap binds: at it, never far over it (the device's
    // count also holds the journal thread's writes, outside the cgroup).
    let said = e["summary"].as_str().unwrap();
    let rate: f64 = said
        .split("went at ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|r| r.parse().ok())
        .unwrap_or_else(|| panic!("no rate in: {said}"));
    assert!(
        (255.0..=330.0).contains(&rate),
        "{rate} writes/s at a 300 cap: {said}"
    );
    assert!(
        said.contains("IOPS-bound") && !said.contains("lock-bound"),
        "{said}"
    );
    drop(t);
    let free = db_json(&[&dir, "--time", "2", "--clients", "4"]);
    let e = &free["runs"][0]["explanation"];
    assert_ne!(e["bound"], "iops", "{e}");
    assert!(e.get("device_write_iops_cap").is_none(), "{e}");
}

/// Issue 65: SQLite beside a neighbour holding both CPUs at normal priority is CPU-bound, and
/// the verdict names the neighbour's share (the kernel's /proc/stat over the run, less the
/// run's own CPU), never lock-bound for the time it waited for a CPU. The neighbour here is
/// two threads of this test process, spinning for as long as the run lasts.
#[test]
fn sqlite_beside_a_busy_neighbour_is_cpu_bound_and_says_whose_cpu() {
    if !is_root() {
        return cannot_run("needs root (a zram device)");
    }
    let fs = Ext4::new("256M");
    let dir = fs.dir.path().to_str().unwrap().to_string();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let hogs: Vec<_> = (0..cpus)
        .map(|_| {
            let stop = stop.clone();
            std::thread::spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    std::hint::black_box(std::time::Instant::now());
                }
            })
        })
        .collect();
    let r = db_json(&[&dir, "--time", "3", "--clients", "4", "--no-probe"]);
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    hogs.into_iter().for_each(|h| h.join().unwrap());
    let e = &r["runs"][0]["explanation"];
    assert_eq!(e["bound"], "cpu", "{e}");
    let others = e["host_cpu_others"].as_f64().unwrap();
    // The hogs want every CPU; the scheduler gives them at least a third of them.
    assert!(others >= 0.3, "{e}");
    let said = e["summary"].as_str().unwrap();
    assert!(
        said.contains("other processes took") && !said.contains("lock-bound"),
        "{said}"
    );
}
