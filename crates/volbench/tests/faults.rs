//! Faults around a run (issue 21): a results store on a full file system costs the store
//! only, and what a SIGKILL leaves behind is reclaimed on the next start.

mod common;
use common::*;
use std::io::Write;
use std::path::Path;
use std::process::Command as Std;

/// Fills the file system holding `dir` until it refuses a byte, then frees `free` bytes, so
/// the next writer there gets at most that much.
fn leave_free(dir: &Path, free: u64) {
    let path = dir.join("fill");
    let _ = std::fs::remove_file(&path);
    let mut f = std::fs::File::create(&path).unwrap();
    let chunk = vec![0x5au8; 4096];
    while f.write_all(&chunk).is_ok() {}
    let _ = f.sync_all();
    let len = f.metadata().unwrap().len();
    f.set_len(len.saturating_sub(free)).unwrap();
}

/// The commands that store a result, each writing its report to `out` as well.
fn storing_commands(scratch: &Path, out: &Path) -> Vec<(&'static str, Vec<String>)> {
    let o = out.to_str().unwrap().to_string();
    let json = ["--output-format", "json", "--output"].map(String::from);
    let with = |mut v: Vec<String>| {
        v.extend(json.iter().cloned());
        v.push(o.clone());
        v
    };
    let s = |a: &[&str]| a.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        (
            "run",
            with(s(&["run", "--ioengine=null", "--runtime=200ms"])),
        ),
        // 24 points, the report rewritten after each: the WAL grows point by point.
        (
            "sweep",
            with(s(&[
                "sweep",
                "--ioengine=null",
                "--runtime=30ms",
                "--iodepth=1,2,4,8,16,32,64,128",
                "--bs=4k,8k,16k",
            ])),
        ),
        (
            "db",
            with(s(&[
                "db",
                scratch.to_str().unwrap(),
                "--transactions",
                "20",
                "--no-probe",
            ])),
        ),
    ]
}

/// One file system, nearly full at several levels, never a signal or a lost result: a store
/// found unwritable when the command starts is refused before anything is measured (exit 2,
/// one line, no output file); one that fills during the command costs the store only (exit 0,
/// the `--output` file written, one warning line, and the result kept in a JSON file in the
/// current directory). `history` still reads the store; the store passes SQLite's integrity
/// check once there is room again.
fn a_full_store_costs_the_store_only(fs: &Path) {
    let store = fs.join("results.db");
    let store_s = store.to_str().unwrap();
    let (scratch, outdir) = (tmpdir(), tmpdir());
    let out = outdir.path().join("r.json");
    // A store with one entry, made while there was room.
    ok_stdout(volbench().args([
        "run",
        "--ioengine=null",
        "--runtime=100ms",
        "--store",
        store_s,
    ]));
    for free in [0u64, 8 << 10, 40 << 10, 160 << 10] {
        for (name, args) in storing_commands(scratch.path(), &out) {
            leave_free(fs, free);
            let _ = std::fs::remove_file(&out);
            let here = tmpdir();
            let o = volbench()
                .current_dir(here.path())
                .args(&args)
                .args(["--store", store_s])
                .env_remove("VOLBENCH_STORE")
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            let what = format!("{name} with {free} bytes free: {:?}\n{err}", o.status);
            let warned: Vec<&str> = err.lines().filter(|l| l.contains("store")).collect();
            let kept = std::fs::read_dir(here.path()).unwrap().count();
            match o.status.code() {
                Some(2) => {
                    assert_eq!(warned.len(), 1, "{what}");
                    assert!(!out.exists() && kept == 0, "refused, yet measured: {what}");
                }
                Some(0) => {
                    let text = std::fs::read_to_string(&out).unwrap_or_default();
                    let v: serde_json::Value = serde_json::from_str(&text).expect(&what);
                    assert!(v.is_object(), "{what}");
                    assert!(warned.len() <= 1, "{what}");
                    assert_eq!(
                        kept,
                        warned.len(),
                        "a warned result is kept in a file: {what}"
                    );
                }
                _ => panic!("{what}"),
            }
            let h = volbench()
                .args(["history", "--store", store_s])
                .output()
                .unwrap();
            let listed = String::from_utf8_lossy(&h.stdout);
            assert_eq!(h.status.code(), Some(0), "history after {what}");
            assert!(
                listed.contains("randread") || listed.contains("read"),
                "{listed}"
            );
        }
    }
    std::fs::remove_file(fs.join("fill")).unwrap();
    let c = rusqlite::Connection::open(&store).unwrap();
    let ok: String = c
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
}

#[test]
fn a_store_on_a_full_tmpfs_costs_the_store_only() {
    require_root!();
    let d = tmpdir();
    let ok = Std::new("mount")
        // mode=0700: a store is refused in a directory others can write (a fresh tmpfs is
        // 1777), as anywhere another user could change the way to it (issue 63).
        .args(["-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs"])
        .arg(d.path())
        .status()
        .unwrap()
        .success();
    assert!(ok, "mount tmpfs");
    let r = std::panic::catch_unwind(|| a_full_store_costs_the_store_only(d.path()));
    let _ = Std::new("umount").arg(d.path()).status();
    r.unwrap();
}

#[test]
fn a_store_on_a_full_ext4_costs_the_store_only() {
    require_root!();
    let fs = Ext4::new("32M");
    a_full_store_costs_the_store_only(fs.dir.path());
}

/// A volbench started with its own registry (beside its own store), so no other test's
/// volbench reclaims what this one's kill left before the test looks.
struct Isolated {
    store_dir: tempfile::TempDir,
}

impl Isolated {
    fn new() -> Isolated {
        Isolated {
            store_dir: tmpdir(),
        }
    }
    fn cmd(&self, args: &[&str]) -> Std {
        let mut c = Std::new(env!("CARGO_BIN_EXE_volbench"));
        c.args(args)
            .env("VOLBENCH_STORE", self.store_dir.path().join("results.db"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped());
        c
    }
    /// Starts `args`, waits until `ready` holds (60 s at most), then SIGKILLs it; the pid.
    fn kill_when(&self, args: &[&str], mut ready: impl FnMut(u32) -> bool) -> u32 {
        let mut child = self.cmd(args).spawn().unwrap();
        let pid = child.id();
        let t = std::time::Instant::now();
        while !ready(pid) {
            assert!(
                t.elapsed().as_secs() < 60 && child.try_wait().unwrap().is_none(),
                "{args:?} ended or never got ready"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        pid
    }
    /// The next volbench to start: what it said on stderr.
    fn next_start(&self) -> String {
        let o = self
            .cmd(&["history", "--output-format=json"])
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stderr).into_owned()
    }
    fn records(&self) -> usize {
        std::fs::read_dir(self.store_dir.path().join("running")).map_or(0, |r| r.count())
    }
}

/// When to kill: a test of the pid's leftovers.
type Ready<'a> = Box<dyn Fn(u32) -> bool + 'a>;

/// A throwaway PostgreSQL killed with its volbench during initdb, just after the server
/// started, and while it is measured: the next volbench to start stops the server and
/// removes its data and socket directories, and says so.
#[test]
fn a_killed_db_run_leaves_a_server_the_next_start_stops_and_removes() {
    require_root!();
    if db::pg::bindir().is_err() {
        return cannot_run("needs PostgreSQL's server (apt-get install postgresql)");
    }
    let d = tmpdir();
    std::fs::set_permissions(
        d.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let dir = d.path().to_str().unwrap();
    let root = |pid: u32| d.path().join(format!(".volbench-pg-{pid}"));
    let moments: [(&str, Ready); 3] = [
        ("initdb", Box::new(|p| root(p).join("data").is_dir())),
        (
            "server up",
            Box::new(|p| root(p).join("data/postmaster.pid").is_file()),
        ),
        (
            "measuring",
            Box::new(|p| {
                root(p).join("data/postmaster.pid").is_file()
                    && !postgres_naming(&root(p)).is_empty()
                    && {
                        std::thread::sleep(std::time::Duration::from_secs(2));
                        true
                    }
            }),
        ),
    ];
    for (moment, ready) in moments {
        let vb = Isolated::new();
        let args = [
            "db",
            dir,
            "--engine",
            "postgres",
            "--time",
            "60s",
            "--no-probe",
        ];
        let pid = vb.kill_when(&args, ready);
        assert!(root(pid).exists(), "{moment}: nothing was left to reclaim");
        let said = vb.next_start();
        assert!(
            said.contains(&format!("removed what a killed volbench (pid {pid}) left"))
                && said.contains(&root(pid).display().to_string()),
            "{moment}: {said}"
        );
        assert_eq!(said.lines().count(), 1, "{said}");
        // Nothing in the directory, and no server or initdb naming it.
        assert!(
            leftovers(d.path()).is_empty(),
            "{moment}: {:?}",
            leftovers(d.path())
        );
        assert!(!Path::new(&format!("/tmp/.volbench-pg-{pid}")).exists());
        assert_eq!(vb.records(), 0, "{moment}: its record was kept");
        // Said once: the start after that has nothing to say.
        assert_eq!(vb.next_start(), "", "{moment}");
    }
}

/// SQLite's database files and an emulate cgroup (with the command still inside it) after
/// a SIGKILL: `volbench clean` removes them and says what it removed.
#[test]
fn a_killed_sqlite_run_and_emulate_leave_files_and_a_cgroup_clean_removes() {
    require_root!();
    let d = tmpdir();
    let dir = d.path().to_str().unwrap();
    let vb = Isolated::new();
    let db = |pid: u32| d.path().join(format!(".volbench-db-{pid}.sqlite"));
    let pid = vb.kill_when(&["db", dir, "--time", "60s", "--no-probe"], |p| {
        db(p).exists()
    });
    assert!(db(pid).exists());
    let z = Zram::new("64M");
    let cgroup_of = |p: u32| {
        std::fs::read_to_string(format!("/proc/{p}/cgroup"))
            .unwrap_or_default()
            .contains("volbench-emulate-")
    };
    let mut sleeper = None;
    // Its own registry: emulate's start would otherwise reclaim the database first.
    let vb2 = Isolated::new();
    let epid = vb2.kill_when(
        &[
            "emulate",
            "--device",
            z.p(),
            "--iops",
            "1000",
            "--",
            "sleep",
            "60",
        ],
        |p| {
            let kids =
                std::fs::read_to_string(format!("/proc/{p}/task/{p}/children")).unwrap_or_default();
            let kid = kids.split_whitespace().next().and_then(|k| k.parse().ok());
            sleeper = kid;
            kid.is_some_and(cgroup_of)
        },
    );
    // Either clean may take the cgroup: the first finds it by name too.
    let mut out = String::new();
    for v in [&vb2, &vb] {
        let o = v
            .cmd(&["clean"])
            .stdout(std::process::Stdio::piped())
            .output()
            .unwrap();
        succeeded(&o, "");
        out += &String::from_utf8_lossy(&o.stdout);
    }
    assert!(
        out.contains(&format!("(pid {pid})")) && out.contains(".sqlite"),
        "{out}"
    );
    assert!(
        out.contains(&format!("(pid {epid})")) && out.contains(&format!("volbench-emulate-{epid}")),
        "{out}"
    );
    assert!(leftovers(d.path()).is_empty(), "{:?}", leftovers(d.path()));
    let kid: u32 = sleeper.unwrap();
    assert!(
        !cgroup_of(kid),
        "the command is still in the removed cgroup"
    );
    unsafe { libc::kill(kid as i32, libc::SIGKILL) };
    let o = vb
        .cmd(&["clean"])
        .stdout(std::process::Stdio::piped())
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("nothing to clean"));
}

/// `volbench clean DIR` finds volbench's own files of dead pids by name (made before records
/// existed, or whose record was lost) and leaves everything else, a live volbench's included.
#[test]
fn clean_by_name_takes_only_volbenchs_files_of_dead_pids() {
    let d = tmpdir();
    let vb = Isolated::new();
    // A pid above the kernel's pid_max: no process has it.
    let dead = d.path().join(".volbench-fsync-4999999.dat");
    let keep = [
        d.path().join("volbench-fsync-4999999.dat"),
        d.path().join(".volbench-fsync-4999999x.dat"),
        d.path().join("results.db"),
    ];
    std::fs::write(&dead, b"x").unwrap();
    for k in &keep {
        std::fs::write(k, b"x").unwrap();
    }
    let mut live = vb
        .cmd(&["durability", "serve", "--listen", "127.0.0.1:0"])
        .spawn()
        .unwrap();
    let live_file = d.path().join(format!(".volbench-fsync-{}.dat", live.id()));
    std::fs::write(&live_file, b"x").unwrap();
    let o = vb
        .cmd(&["clean", d.path().to_str().unwrap()])
        .stdout(std::process::Stdio::piped())
        .output()
        .unwrap();
    let _ = live.kill();
    let _ = live.wait();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("(pid 4999999)"), "{out}");
    assert!(!dead.exists());
    assert!(live_file.exists(), "a running volbench's file was removed");
    for k in &keep {
        assert!(k.exists(), "{} was removed", k.display());
    }
}
