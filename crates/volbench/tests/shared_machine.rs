//! Root on a machine other users share (issue 63): what an ordinary user planted (a record
//! beside the store, a `.volbench-pg-PID` in /tmp, a link where a log goes, a block device
//! given as a log) makes volbench stop, remove and overwrite nothing. Each check has its
//! control: the same leftover made by the user itself is still reclaimed.

mod common;
use common::*;
use std::os::unix::fs::{lchown, symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Std};

/// The unprivileged user who plants things (nobody).
const OTHER: u32 = 65534;
/// A pid above pid_max: no process has it, so its owner counts as killed.
const DEAD: u32 = 4_999_999;

fn world_writable(dir: &Path) {
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o1777)).unwrap();
}

/// A process standing in for a PostgreSQL server: it runs in `data`, whose postmaster.pid
/// names it, which is all volbench checks before it signals a server.
fn fake_server(data: &Path) -> Child {
    std::fs::create_dir_all(data).unwrap();
    let c = Std::new("sleep")
        .arg("60")
        .current_dir(data)
        .spawn()
        .unwrap();
    std::fs::write(data.join("postmaster.pid"), format!("{}\n", c.id())).unwrap();
    c
}

fn still_runs(c: &mut Child) -> bool {
    c.try_wait().unwrap().is_none()
}

/// Gives `p` (and what is below it) to the other user.
fn give_away(p: &Path) {
    let st = Std::new("chown")
        .args(["-R", "-h", "65534:65534"])
        .arg(p)
        .status();
    assert!(st.unwrap().success());
}

/// A registry directory of `mode` holding one record of the dead pid: the record's path.
fn registry(dir: &Path, mode: u32, body: &str) -> PathBuf {
    std::fs::create_dir(dir).unwrap();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode)).unwrap();
    let rec = dir.join(DEAD.to_string());
    std::fs::write(&rec, body).unwrap();
    rec
}

/// What a run said, on either stream.
fn said(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

fn record(items: &[(&str, &Path)]) -> String {
    let items: Vec<String> = items
        .iter()
        .map(|(k, p)| format!(r#"{{"kind":"{k}","path":"{}"}}"#, p.display()))
        .collect();
    format!(
        r#"{{"pid":{DEAD},"start":1,"boot":"x","items":[{}]}}"#,
        items.join(",")
    )
}

#[test]
fn a_record_planted_beside_a_shared_store_stops_and_removes_nothing() {
    require_root!();
    let shared = tmpdir();
    world_writable(shared.path());
    let victims = tmpdir();
    let data = victims
        .path()
        .join(format!(".volbench-pg-{DEAD}"))
        .join("data");
    let mut server = fake_server(&data);
    let file = victims.path().join(format!(".volbench-db-{DEAD}.sqlite"));
    std::fs::write(&file, b"someone's data").unwrap();
    // The other user makes running/ open to all and plants a record in it.
    let running = shared.path().join("running");
    let rec = registry(
        &running,
        0o777,
        &record(&[("postgres", &data), ("path", &file)]),
    );
    give_away(&running);
    let out = volbench()
        .env("VOLBENCH_STORE", shared.path().join("results.db"))
        .arg("history")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(still_runs(&mut server), "the server was stopped: {stderr}");
    assert!(file.exists() && rec.exists(), "{stderr}");
    assert!(stderr.contains("belongs to uid 65534"), "{stderr}");
    assert_eq!(stderr.matches("belongs to uid").count(), 1, "{stderr}");
    let _ = server.kill();
}

#[test]
fn a_record_of_the_users_own_is_still_reclaimed() {
    require_root!();
    let store = tmpdir();
    let victims = tmpdir();
    let file = victims.path().join(format!(".volbench-db-{DEAD}.sqlite"));
    std::fs::write(&file, b"a killed run's database").unwrap();
    let rec = registry(
        &store.path().join("running"),
        0o700,
        &record(&[("path", &file)]),
    );
    std::fs::set_permissions(&rec, std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = volbench()
        .env("VOLBENCH_STORE", store.path().join("results.db"))
        .arg("history")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!file.exists(), "{stderr}");
    assert!(
        stderr.contains(&format!("killed volbench (pid {DEAD})")),
        "{stderr}"
    );
}

#[test]
fn clean_takes_from_tmp_only_what_the_user_made() {
    require_root!();
    let planted = PathBuf::from(format!("/tmp/.volbench-pg-{DEAD}"));
    let own = PathBuf::from(format!("/tmp/.volbench-pg-{}", DEAD - 1));
    let _ = std::fs::remove_dir_all(&planted);
    let _ = std::fs::remove_dir_all(&own);
    // The other user's: a `data` link to a live server's directory.
    let elsewhere = tmpdir();
    let mut theirs = fake_server(&elsewhere.path().join("pgdata"));
    std::fs::create_dir(&planted).unwrap();
    symlink(elsewhere.path().join("pgdata"), planted.join("data")).unwrap();
    give_away(&planted);
    // The control: the user's own leftover, a real data directory with its server.
    let mut ours = fake_server(&own.join("data"));
    let dir = tmpdir();
    let out = volbench().arg("clean").arg(dir.path()).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let left = planted.exists();
    let _ = std::fs::remove_dir_all(&planted);
    assert!(
        still_runs(&mut theirs),
        "another user's server was stopped: {stdout}"
    );
    assert!(left, "another user's directory was removed: {stdout}");
    assert!(!own.exists(), "the user's own leftover stayed: {stdout}");
    assert!(
        !still_runs(&mut ours),
        "the user's own server was not stopped: {stdout}"
    );
    let _ = theirs.kill();
}

#[test]
fn a_log_naming_a_block_device_is_refused_and_its_file_system_survives() {
    require_root!();
    require_tool!("blkid");
    let z = Zram::new("64M");
    let mkfs = Std::new("mkfs.ext4").args(["-q", "-F", z.p()]).status();
    assert!(mkfs.unwrap().success());
    let dir = tmpdir();
    let file = dir.path().join("f");
    for log in ["--interval-log", "--write_iolog"] {
        let out = volbench()
            .args(["run", "--rw=write", "--bs=4k", "--size=1m", "--runtime=1s"])
            .arg(format!("--filename={}", file.display()))
            .arg(format!("{log}={}", z.p()))
            .arg("--allow-destructive")
            .output()
            .unwrap();
        // Refused before the run (--interval-log) or as the job's error (write_iolog, which
        // the job opens): either way said, and the run not a success.
        let said = said(&out);
        assert!(!out.status.success(), "{log}: {said}");
        assert!(said.contains("a block device"), "{log}: {said}");
        let mut blkid = Std::new("blkid");
        blkid.args(["-p", "-o", "value", "-s", "TYPE", z.p()]);
        assert_eq!(
            stdout_of(blkid, "blkid").trim_ascii(),
            b"ext4",
            "after {log}"
        );
    }
}

/// The links each writer would follow, planted by the other user in `shared` where volbench
/// runs: to an existing file (kept) and, for each name, a dangling one (to a file no one may
/// make). Every writer refuses in one line naming the file; nothing is written through a link.
fn planted_links_are_refused(shared: &Path) {
    let private = tmpdir();
    let victim = private.path().join("precious");
    std::fs::write(&victim, b"keep me").unwrap();
    let names = [
        "volbench.test",
        "io.log",
        "x_bw.1.log",
        "x_iops.1.log",
        "interval.log",
        "store.db",
    ];
    let runs: [&[&str]; 6] = [
        &[],
        &["--filename=f", "--write_iolog=io.log"],
        &["--filename=f", "--write_bw_log=x"],
        &["--filename=f", "--write_iops_log=x"],
        &["--filename=f", "--interval-log=interval.log"],
        &["--filename=f"],
    ];
    for dangling in [false, true] {
        for (n, extra) in names.iter().zip(runs) {
            let target = if dangling {
                private.path().join(format!("made-{n}"))
            } else {
                victim.clone()
            };
            let l = shared.join(n);
            let _ = std::fs::remove_file(&l);
            symlink(&target, &l).unwrap();
            // lchown: the link itself is the other user's; its target stays the test's.
            lchown(&l, Some(OTHER), Some(OTHER)).unwrap();
            let mut c = volbench();
            if *n == "store.db" {
                c.env("VOLBENCH_STORE", &l);
            }
            let out = c
                .current_dir(shared)
                .args(["run", "--rw=write", "--bs=4k", "--size=1m", "--runtime=1s"])
                .args(extra)
                .output()
                .unwrap();
            // Refused as bad input, a job's error, or (the fio logs and the store, written
            // after the run) a warning beside the kept results: said once, naming the file.
            let said = said(&out);
            let line = said.lines().filter(|l| l.contains("symbolic link")).count();
            assert_eq!(line, 1, "{extra:?} {n}: {said}");
            assert!(
                said.contains(&shared.join(n).display().to_string()) || said.contains(n),
                "{n}: {said}"
            );
            assert_eq!(std::fs::read(&victim).unwrap(), b"keep me", "{extra:?}");
            assert!(
                !private.path().join(format!("made-{n}")).exists(),
                "{n}: made through the link"
            );
        }
    }
}

#[test]
fn links_planted_in_a_world_writable_directory_leave_their_targets_unchanged() {
    require_root!();
    let shared = tmpdir();
    world_writable(shared.path());
    planted_links_are_refused(shared.path());
}

/// A directory closed to everyone but its owner is still its owner's: a link the other user
/// planted in their own 0755 directory (root running in a user's home) is not followed.
#[test]
fn links_in_another_users_own_directory_leave_their_targets_unchanged() {
    require_root!();
    let home = tmpdir();
    std::fs::set_permissions(home.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::chown(home.path(), Some(OTHER), Some(OTHER)).unwrap();
    planted_links_are_refused(home.path());
    // One level down: a directory of root's inside theirs can be swapped by them.
    let sub = home.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    planted_links_are_refused(&sub);
}

/// `export --output` and `man DIR` write where the user says, by the same rule: a link the
/// other user planted there is refused in one line and its target kept.
#[test]
fn export_and_man_pages_refuse_a_planted_link() {
    require_root!();
    let shared = tmpdir();
    world_writable(shared.path());
    let private = tmpdir();
    let victim = private.path().join("precious");
    std::fs::write(&victim, b"keep me").unwrap();
    for n in ["out.json", "volbench.1"] {
        let l = shared.path().join(n);
        symlink(&victim, &l).unwrap();
        lchown(&l, Some(OTHER), Some(OTHER)).unwrap();
    }
    let store = private.path().join("own.db");
    let ran = volbench()
        .env("VOLBENCH_STORE", &store)
        .current_dir(private.path())
        .args(["run", "--size=1m", "--runtime=1s", "-q"])
        .output()
        .unwrap();
    assert!(ran.status.success(), "{}", said(&ran));
    let export = volbench()
        .env("VOLBENCH_STORE", &store)
        .args(["export", "last", "--output"])
        .arg(shared.path().join("out.json"))
        .output()
        .unwrap();
    let man = volbench().arg("man").arg(shared.path()).output().unwrap();
    // A directory made through a link of theirs on the way: nothing made.
    let via = shared.path().join("via");
    symlink(private.path(), &via).unwrap();
    lchown(&via, Some(OTHER), Some(OTHER)).unwrap();
    let deep = volbench().arg("man").arg(via.join("man")).output().unwrap();
    assert!(!deep.status.success(), "{}", said(&deep));
    assert!(
        !private.path().join("man").exists(),
        "made through the link"
    );
    for out in [export, man] {
        let s = said(&out);
        assert!(!out.status.success(), "{s}");
        assert_eq!(
            s.lines().filter(|l| l.contains("symbolic link")).count(),
            1,
            "{s}"
        );
    }
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep me");
}

/// A link the other user planted as a directory on the way (`theirs/sub` pointing at a
/// directory of root's): the file name at the end is plain, and still nothing is written
/// through it, by any writer (the second attacker trial of issue 63).
#[test]
fn a_link_planted_on_the_way_to_a_file_leads_nowhere() {
    require_root!();
    let theirs = tmpdir();
    std::fs::set_permissions(theirs.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let private = tmpdir();
    let victim = private.path().join("precious");
    std::fs::write(&victim, b"keep me").unwrap();
    let sub = theirs.path().join("sub");
    symlink(private.path(), &sub).unwrap();
    give_away(theirs.path());
    let s = |n: &str| sub.join(n).display().to_string();
    let runs: [Vec<String>; 6] = [
        vec![format!("--filename={}", s("precious"))],
        vec!["--filename=f".into(), format!("--output={}", s("precious"))],
        vec![format!("--directory={}", sub.display())],
        vec![
            "--filename=f".into(),
            format!("--write_iolog={}", s("precious")),
        ],
        vec![
            "--filename=f".into(),
            format!("--interval-log={}", s("precious")),
        ],
        vec![
            "--filename=f".into(),
            format!("--write_iops_log={}", s("x")),
        ],
    ];
    for extra in runs {
        let out = volbench()
            .current_dir(theirs.path())
            .args(["run", "--rw=write", "--bs=4k", "--size=1m", "--runtime=1s"])
            .args(&extra)
            .output()
            .unwrap();
        let said = said(&out);
        assert!(said.contains("symbolic link"), "{extra:?}: {said}");
        // Said before the run (bad input), except the fio logs, written after it.
        if !extra.iter().any(|a| a.contains("_log=")) {
            assert_eq!(out.status.code(), Some(2), "{extra:?}: {said}");
        }
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep me", "{extra:?}");
        let made: Vec<_> = std::fs::read_dir(private.path()).unwrap().collect();
        assert_eq!(
            made.len(),
            1,
            "{extra:?}: made in the victim's directory: {made:?}"
        );
    }
    // The store, an existing SQLite file of root's reached through their link: SQLite opens
    // it by name, so a store is refused wherever another user could change the way to it.
    let db = private.path().join("store.db");
    let ran = volbench()
        .env("VOLBENCH_STORE", &db)
        .current_dir(private.path())
        .args(["run", "--size=1m", "--runtime=1s", "--filename=f", "-q"])
        .output()
        .unwrap();
    assert!(ran.status.success(), "{}", said(&ran));
    std::fs::remove_file(private.path().join("f")).unwrap();
    let before = std::fs::read(&db).unwrap();
    let out = volbench()
        .env("VOLBENCH_STORE", sub.join("store.db"))
        .current_dir(theirs.path())
        .args(["run", "--size=1m", "--runtime=1s", "--filename=f"])
        .output()
        .unwrap();
    let said = said(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(
        said.contains("uid 65534") && said.contains("results store"),
        "{said}"
    );
    assert_eq!(
        std::fs::read(&db).unwrap(),
        before,
        "the store was written through the link"
    );
}

/// The control: the user's own links in the user's own directory are followed, a dangling
/// one too (the test file it names is made; it failed with "File exists").
#[test]
fn the_users_own_links_are_followed_by_every_writer() {
    let own = tmpdir();
    std::fs::set_permissions(own.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let p = |n: &str| own.path().join(n);
    for (link, to) in [("t", "t.real"), ("io", "io.real"), ("iv", "iv.real")] {
        symlink(p(to), p(link)).unwrap();
    }
    let out = volbench()
        .current_dir(own.path())
        .args([
            "run",
            "--rw=write",
            "--bs=4k",
            "--size=1m",
            "--runtime=1s",
            "-q",
        ])
        .arg(format!("--filename={}", p("t").display()))
        .arg(format!("--write_iolog={}", p("io").display()))
        .arg(format!("--interval-log={}", p("iv").display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", said(&out));
    assert_eq!(std::fs::metadata(p("t.real")).unwrap().len(), 1 << 20);
    for f in ["io.real", "iv.real"] {
        assert!(std::fs::metadata(p(f)).unwrap().len() > 0, "{f}");
    }
}
