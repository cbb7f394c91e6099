//! Shared test helpers: running the binary, JSON reports, and real test devices (zram, loop)
//! that are created for one test and removed when it ends.
#![allow(dead_code)]

pub mod flood;
pub mod hosts;
pub mod tool;
pub mod tracefs;

// Only the fio comparison tests run both tools.
#[allow(unused_imports)]
pub use tool::Tool;

use assert_cmd::Command;
use serde_json::Value;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::Command as Std;

/// The results store tests write to: never the user's own.
pub fn test_store() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("test-store-{}.db", std::process::id()))
}

/// A temporary directory on the target's disk (not /tmp, which may be tmpfs).
pub fn tmpdir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

/// Runs a prepared command, requires success (showing stderr if not), returns stdout.
pub fn ok_stdout(c: &mut Command) -> String {
    succeeded(&c.output().unwrap(), "")
}

/// Requires a finished command's success (naming `what` and showing its stderr if not);
/// returns its stdout.
pub fn succeeded(out: &std::process::Output, what: impl std::fmt::Display) -> String {
    let what = what.to_string();
    let sep = if what.is_empty() { "" } else { ": " };
    assert!(
        out.status.success(),
        "{what}{sep}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs a prepared command, requires success (showing stderr if not), parses stdout as JSON.
pub fn ok_json(c: &mut Command) -> Value {
    serde_json::from_str(&ok_stdout(c)).expect("stdout is JSON")
}

pub fn volbench() -> Command {
    let mut c = Command::cargo_bin("volbench").unwrap();
    c.env_remove("RUST_BACKTRACE");
    c.env("VOLBENCH_STORE", test_store());
    c
}

/// Runs `volbench run ARGS --output-format=volbench-json -q` and returns (exit code, report,
/// stderr): the native report whether ARGS are options or a fio job file.
pub fn run_json(args: &[&str]) -> (i32, Value, String) {
    let out = volbench()
        .arg("run")
        .args(args)
        .args(["--output-format=volbench-json", "-q"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}); stderr: {stderr}; stdout: {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    (out.status.code().unwrap_or(-1), v, stderr)
}

pub fn u(v: &Value, ptr: &str) -> u64 {
    v.pointer(ptr)
        .and_then(Value::as_u64)
        .unwrap_or_else(|| panic!("no integer at {ptr}"))
}

pub fn f(v: &Value, ptr: &str) -> f64 {
    v.pointer(ptr)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("no number at {ptr}"))
}

pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// True under CI (`CI=true`, as CI services and `.ci/run` set it).
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// A test that cannot run here says so in one line. Under CI that is a failure, so a missing
/// install step can never look green; elsewhere it is a skip with the same line.
pub fn cannot_run(why: &str) {
    assert!(!under_ci(), "cannot run under CI: {why}");
    eprintln!("skipping: {why}");
}

/// Ends the calling test when it cannot run here: fails under CI, skips elsewhere.
#[macro_export]
macro_rules! cannot_run {
    ($($why:tt)*) => {{
        common::cannot_run(&format!($($why)*));
        return;
    }};
}

/// Ends the calling test when not root (a failure under CI).
#[macro_export]
macro_rules! require_root {
    () => {
        if !common::is_root() {
            $crate::cannot_run!("this test creates block devices and needs root");
        }
    };
}

/// Whether a program is on the PATH.
pub fn has_tool(name: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(name).is_file()))
}

/// Ends the calling test when a program it runs is missing (a failure under CI).
#[macro_export]
macro_rules! require_tool {
    ($name:expr) => {
        if !common::has_tool($name) {
            $crate::cannot_run!("{} is not installed (scripts/test.sh installs it)", $name);
        }
    };
}

/// Serialises tests that create devices, across threads and processes.
pub struct DeviceLock(File);

pub fn device_lock() -> DeviceLock {
    let f = File::create("/tmp/volbench-test-devices.lock").unwrap();
    // SAFETY: flock on a descriptor we own.
    unsafe { libc::flock(f.as_raw_fd(), libc::LOCK_EX) };
    DeviceLock(f)
}

fn sh(cmd: &str, args: &[&str]) -> String {
    let out = Std::new(cmd).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{cmd} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// A zram RAM block device, reset when dropped.
pub struct Zram {
    pub path: PathBuf,
    _lock: std::rc::Rc<DeviceLock>,
}

/// A free zram device of `size`, as `zramctl --find` sets one up. The kernel can fail the
/// reset of the device zramctl picked ("No such device", seen once in a full run with
/// other suites' devices coming and going): another attempt picks again.
fn find_zram(size: &str) -> PathBuf {
    for _ in 0..20 {
        let out = Std::new("zramctl")
            .args(["--find", "--size", size])
            .output()
            .unwrap();
        if out.status.success() {
            return PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    PathBuf::from(sh("zramctl", &["--find", "--size", size]))
}

/// Where each test-made zram device is written down with its test's pid, so a device a killed
/// test left set up (SIGKILL, a machine restarted mid-run: its Drop never ran) is reset by the
/// next test that makes one.
const ZRAM_OWNERS: &str = "/tmp/volbench-test-zram";

/// Resets the devices of tests that are gone. Called under the device lock.
fn reset_orphaned_zram() {
    for e in std::fs::read_dir(ZRAM_OWNERS)
        .into_iter()
        .flatten()
        .flatten()
    {
        let pid = std::fs::read_to_string(e.path()).unwrap_or_default();
        if Path::new("/proc").join(pid.trim()).exists() && !pid.trim().is_empty() {
            continue;
        }
        let dev = Path::new("/dev").join(e.file_name());
        let reset = Std::new("zramctl").arg("--reset").arg(&dev).status();
        if reset.is_ok_and(|s| s.success()) || !dev.exists() {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// Makes a zram device of `size`, written down as this test process's.
fn own_zram(size: &str) -> PathBuf {
    reset_orphaned_zram();
    let path = find_zram(size);
    let _ = std::fs::create_dir_all(ZRAM_OWNERS);
    let name = path.file_name().unwrap_or_default();
    let _ = std::fs::write(
        Path::new(ZRAM_OWNERS).join(name),
        std::process::id().to_string(),
    );
    path
}

impl Zram {
    pub fn new(size: &str) -> Zram {
        let lock = std::rc::Rc::new(device_lock());
        let path = own_zram(size);
        Zram { path, _lock: lock }
    }
    /// `n` devices under one hold of the device lock (a second lock in the same test would
    /// wait for the first forever).
    pub fn several(n: usize, size: &str) -> Vec<Zram> {
        let lock = std::rc::Rc::new(device_lock());
        (0..n)
            .map(|_| Zram {
                path: own_zram(size),
                _lock: lock.clone(),
            })
            .collect()
    }
    /// Like `new`, but the device fails writes with EIO once `limit` bytes are stored.
    pub fn with_mem_limit(size: &str, limit: &str) -> Zram {
        let z = Zram::new(size);
        std::fs::write(z.sysfs().join("mem_limit"), limit).unwrap();
        z
    }
    pub fn name(&self) -> String {
        self.path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    }
    pub fn sysfs(&self) -> PathBuf {
        Path::new("/sys/block").join(self.name())
    }
    pub fn p(&self) -> &str {
        self.path.to_str().unwrap()
    }
}

impl Drop for Zram {
    fn drop(&mut self) {
        // udev may still be probing a freshly written device: retry briefly.
        for _ in 0..30 {
            let ok = Std::new("zramctl")
                .arg("--reset")
                .arg(&self.path)
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if ok {
                let _ = std::fs::remove_file(Path::new(ZRAM_OWNERS).join(self.name()));
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        eprintln!("warning: could not reset {}", self.path.display());
    }
}

/// An ext4 file system on a fresh zram device, mounted for the test, unmounted when dropped.
pub struct Ext4 {
    pub dir: tempfile::TempDir,
    pub zram: Zram,
}

impl Ext4 {
    pub fn new(size: &str) -> Ext4 {
        Ext4::mounted(size, "defaults")
    }

    /// With mount options (`data=writeback`: no file data written by the journal's thread,
    /// outside any cgroup's cap).
    pub fn mounted(size: &str, options: &str) -> Ext4 {
        Ext4::of("ext4", size, options)
    }

    /// Another file system type on the fresh zram device: `ext4`, `xfs` or `btrfs`.
    pub fn of(fs: &str, size: &str, options: &str) -> Ext4 {
        let zram = Zram::new(size);
        let ok = |c: &mut Std| assert!(c.status().unwrap().success(), "{c:?}");
        let force = if fs == "ext4" { "-F" } else { "-f" };
        ok(Std::new(format!("mkfs.{fs}")).args(["-q", force, zram.p()]));
        let dir = tmpdir();
        ok(Std::new("mount")
            .args(["-o", options, zram.p()])
            .arg(dir.path()));
        Ext4 { dir, zram }
    }
}

impl Drop for Ext4 {
    fn drop(&mut self) {
        // A process the test started may still hold a file for a moment (a fresh-clone run
        // once left a mount behind): retry briefly, as the device's reset does.
        for _ in 0..30 {
            let ok = Std::new("umount")
                .arg(self.dir.path())
                .stderr(std::process::Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            let mounts = std::fs::read_to_string("/proc/self/mounts").unwrap_or_default();
            let dir = self.dir.path().to_string_lossy();
            if ok || !mounts.lines().any(|l| l.split(' ').nth(1) == Some(&*dir)) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        eprintln!("warning: could not unmount {}", self.dir.path().display());
    }
}

/// What a run left in `dir` (sorted names), and any PostgreSQL process whose command line
/// names it ("process: ..."): after a clean end, nothing.
pub fn leftovers(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v.extend(
        postgres_naming(dir)
            .into_iter()
            .map(|l| format!("process: {l}")),
    );
    v
}

/// The command lines of PostgreSQL processes (server, initdb, runuser) that name `dir`.
pub fn postgres_naming(dir: &Path) -> Vec<String> {
    let ps = Std::new("ps").args(["-eo", "args"]).output().unwrap();
    String::from_utf8_lossy(&ps.stdout)
        .lines()
        .filter(|l| l.contains(&dir.display().to_string()) && l.contains("postgres"))
        .map(String::from)
        .collect()
}

/// A loop device over a temporary file, detached when dropped.
pub struct Loop {
    pub path: PathBuf,
    _backing: tempfile::NamedTempFile,
    _lock: DeviceLock,
}

impl Loop {
    pub fn new(bytes: u64, sector: u32) -> Loop {
        let lock = device_lock();
        let backing = tempfile::NamedTempFile::new_in("/var/tmp").unwrap();
        backing.as_file().set_len(bytes).unwrap();
        let path = PathBuf::from(sh(
            "losetup",
            &[
                "-f",
                "--show",
                "--direct-io=on",
                "-b",
                &sector.to_string(),
                backing.path().to_str().unwrap(),
            ],
        ));
        Loop {
            path,
            _backing: backing,
            _lock: lock,
        }
    }
    pub fn name(&self) -> String {
        self.path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned()
    }
    pub fn p(&self) -> &str {
        self.path.to_str().unwrap()
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        let _ = Std::new("umount")
            .arg(&self.path)
            .stderr(std::process::Stdio::null())
            .status();
        let _ = Std::new("losetup").arg("-d").arg(&self.path).status();
    }
}

/// `/sys/block/<name>/stat`: [reads submitted, read sectors, writes submitted, write sectors],
/// where submitted = completed requests + merges (the block layer merges adjacent I/Os).
pub fn block_stat(name: &str) -> [u64; 4] {
    let s = std::fs::read_to_string(format!("/sys/block/{name}/stat")).unwrap();
    let v: Vec<u64> = s.split_whitespace().map(|x| x.parse().unwrap()).collect();
    [v[0] + v[1], v[2], v[4] + v[5], v[6]]
}

/// Fills a device with random data, so reads measure real data.
pub fn fill_random(dev: &Path, bytes: usize) {
    use rand_fill::fill;
    let mut buf = vec![0u8; bytes];
    fill(&mut buf);
    std::fs::write(dev, &buf).unwrap();
    // Written back before the test goes on: dirty pages stay cached whatever a tool's
    // fadvise says (a fresh-clone run found a "cold" file still half cached), and a device
    // read straight after must see these bytes.
    let f = std::fs::OpenOptions::new().write(true).open(dev).unwrap();
    f.sync_all().unwrap();
}

mod rand_fill {
    /// A tiny xorshift is enough for test data that must not be zeros or compressible.
    pub fn fill(buf: &mut [u8]) {
        let mut x: u64 = 0x9e3779b97f4a7c15;
        for chunk in buf.chunks_mut(8) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let b = x.to_le_bytes();
            chunk.copy_from_slice(&b[..chunk.len()]);
        }
    }
}

pub const ENGINES: [&str; 3] = ["io_uring", "libaio", "psync"];

/// A cgroup v1 blkio throttle on one device, removed when dropped: a capped "cloud volume".
pub struct Throttle {
    cg: cloud::emulate::Cgroup,
}

impl Throttle {
    /// The product's own controller (`emulate`): cgroup v2 `io.max` where the kernel has it,
    /// else v1 blkio. None, with the reason on stderr, where neither can be used.
    pub fn new(dev: &str, iops: u64, bps: u64) -> Option<Throttle> {
        let dev = cloud::emulate::device_of(Path::new(dev)).ok()?.0;
        let cg = cloud::emulate::Cgroup::create(dev)
            .map_err(|e| eprintln!("no throttle: {e:#}"))
            .ok()?;
        cg.set(Some(iops), Some(iops), Some(bps), Some(bps)).ok()?;
        Some(Throttle::settled(cg))
    }

    /// Writing a limit opens the kernel's throttle slice, and I/O that starts inside it is
    /// credited with the time since (a curve's first step read 2,066 IOPS under 2,000): the
    /// throttle is handed over once the slice has passed, as `volbench emulate` does, so the
    /// first run of either tool starts as on a volume capped long before.
    fn settled(cg: cloud::emulate::Cgroup) -> Throttle {
        std::thread::sleep(std::time::Duration::from_millis(300));
        Throttle { cg }
    }

    /// A cap on writes only (reads run at the device's own speed).
    pub fn writes(dev: &str, iops: u64) -> Option<Throttle> {
        let dev = cloud::emulate::device_of(Path::new(dev)).ok()?.0;
        let cg = cloud::emulate::Cgroup::create(dev)
            .map_err(|e| eprintln!("no throttle: {e:#}"))
            .ok()?;
        cg.set(None, Some(iops), None, None).ok()?;
        Some(Throttle::settled(cg))
    }

    /// One cgroup capping each of `devs` at the same limits (a striped target's members).
    pub fn several(devs: &[&str], iops: u64, bps: u64) -> Option<Throttle> {
        let (first, rest) = devs.split_first()?;
        let t = Throttle::new(first, iops, bps)?;
        for d in rest {
            let dev = cloud::emulate::device_of(Path::new(d)).ok()?.0;
            t.cg.limit(dev, Some(iops), Some(iops), Some(bps), Some(bps))
                .ok()?;
        }
        Some(Throttle::settled(t.cg))
    }

    /// Moves a running process and its children into the cgroup (a server started before the
    /// cap: its later children, one per connection, are born inside).
    pub fn adopt(&self, pid: i32) {
        let mut pids = vec![pid];
        for e in std::fs::read_dir("/proc").unwrap().flatten() {
            let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
            // pid (comm) state ppid ...: comm may hold spaces, so read after its ')'.
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|p| p.parse::<i32>().ok());
            if ppid == Some(pid) {
                pids.extend(e.file_name().to_str().and_then(|p| p.parse::<i32>().ok()));
            }
        }
        for p in pids {
            std::fs::write(self.cg.procs(), p.to_string()).unwrap();
        }
    }

    /// Changes the cap while the cgroup runs (a volume whose throttle tightens mid-run).
    pub fn retune(&self, iops: u64, bps: u64) {
        self.cg
            .set(Some(iops), Some(iops), Some(bps), Some(bps))
            .unwrap();
    }

    /// A command that runs inside the cgroup (its exit status is the caller's to judge).
    pub fn command(&self, prog: &str, args: &[String]) -> Std {
        let script = format!(
            "echo $$ > {} && exec \"$0\" \"$@\"",
            self.cg.procs().display()
        );
        let mut c = Std::new("sh");
        c.env("VOLBENCH_STORE", test_store());
        c.arg("-c").arg(script).arg(prog).args(args);
        c
    }

    /// Runs a command inside the cgroup and returns its stdout.
    pub fn run(&self, prog: &str, args: &[String]) -> Vec<u8> {
        stdout_of(self.command(prog, args), &format!("{prog} {args:?}"))
    }
}

/// Runs `c` with the tests' results store, requires success (naming `what` and showing its
/// stderr if not), and returns its stdout.
pub fn stdout_of(mut c: Std, what: &str) -> Vec<u8> {
    let out = c.env("VOLBENCH_STORE", test_store()).output().unwrap();
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The effective jobs of `volbench run ARGS --parse-only --output-format=json`: every default
/// filled in, so two ways of writing a job can be compared.
pub fn parsed_jobs<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> Value {
    let out = volbench()
        .arg("run")
        .args(args)
        .args(["--parse-only", "--output-format=json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// pgbench against a test's PostgreSQL cluster with `args` (the database is `postgres`);
/// its stdout, after checking it succeeded.
pub fn pgbench_on(c: &db::pg::Cluster, args: &[&str]) -> String {
    let (host, port, user) = c.parts();
    let out = std::process::Command::new("pgbench")
        .args(["-h", &host, "-p", &port.to_string(), "-U", &user])
        .args(args)
        .arg("postgres")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pgbench {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The tps pgbench printed ("tps = 525.9 (without initial connection time)").
pub fn pgbench_tps(text: &str) -> f64 {
    let line = text
        .lines()
        .find(|l| l.starts_with("tps = "))
        .unwrap_or_else(|| panic!("{text}"));
    line.split_whitespace().nth(2).unwrap().parse().unwrap()
}

/// Checks that a command failed with `code` and said `want` on stderr; its stderr.
pub fn fails_saying(out: &std::process::Output, code: i32, want: &str) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "{err}");
    assert!(err.contains(want), "{want:?} not in: {err}");
    err
}

/// Ctrl-C for a child: SIGINT to it alone.
pub fn interrupt(child: &std::process::Child) {
    // SAFETY: kill(2) on the pid of a child this test started and has not reaped.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
}

/// Ctrl-C at a terminal: SIGINT to the child's whole process group (it leads its own).
pub fn interrupt_group(child: &std::process::Child) {
    // SAFETY: kill(2) on the process group a child this test started leads.
    unsafe { libc::kill(-(child.id() as i32), libc::SIGINT) };
}

/// Runs fio as `c` sets it up (arguments, directory) with JSON output, and returns that JSON
/// (fio prints notes such as "queue depth will be capped" before it on stdout).
pub fn fio_json(c: &mut std::process::Command) -> Value {
    let out = c
        .arg("--output-format=json")
        .output()
        .expect("fio is installed (scripts/test.sh installs it)");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "fio failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = text.find("\n{").map_or(&text[..], |i| &text[i + 1..]);
    serde_json::from_str(json).unwrap_or_else(|e| panic!("fio's JSON: {e}: {text}"))
}

/// Runs fio on a job file in `dir` (as the current directory) and returns its JSON.
pub fn fio_on(dir: &Path, file: &Path, extra: &[&str]) -> Value {
    fio_json(
        std::process::Command::new("fio")
            .current_dir(dir)
            .args(extra)
            .arg(file),
    )
}

/// Runs volbench on the same job file in `dir` and returns its native report.
pub fn vb_json(dir: &Path, file: &Path, extra: &[&str]) -> Value {
    ok_json(
        volbench()
            .current_dir(dir)
            .arg("run")
            .arg(file)
            .args(extra)
            .args(["--output-format=volbench-json", "-q", "--no-store"]),
    )
}

/// Runs volbench on the same job file in `dir` and returns its fio-shaped JSON, as fio's
/// (`fio_on`) for the same file.
pub fn vb_fio_json(dir: &Path, file: &Path) -> Value {
    ok_json(volbench().current_dir(dir).arg("run").arg(file).args([
        "--output-format=fio-json",
        "-q",
        "--no-store",
    ]))
}

/// How many times `prog args`, run in `dir` under `strace -f -c`, called each of `calls`
/// (its exit must be a success).
pub fn syscall_counts(dir: &Path, calls: &[&str], prog: &str, args: &[&str]) -> Vec<u64> {
    let out = std::process::Command::new("strace")
        .current_dir(dir)
        .env("VOLBENCH_STORE", test_store())
        .args(["-f", "-c", "-e", &format!("trace={}", calls.join(","))])
        .arg(prog)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let table = String::from_utf8_lossy(&out.stderr);
    calls
        .iter()
        .map(|name| {
            table
                .lines()
                .filter(|l| l.ends_with(&format!(" {name}")))
                .map(|l| l.split_whitespace().nth(3).unwrap().parse::<u64>().unwrap())
                .sum()
        })
        .collect()
}

/// Runs a command (program, then arguments) in `dir` under `strace -f` with `opts` (`-e
/// trace=...`, `-ttt`, `-c`): strace's log and the command's stdout. Fails the test if it
/// fails. A volbench run under it keeps to the tests' own results store.
pub fn strace(dir: &Path, opts: &[&str], cmd: &[&str]) -> (String, String) {
    let log = dir.join("strace.log");
    let out = Std::new("strace")
        .current_dir(dir)
        .env("VOLBENCH_STORE", test_store())
        .arg("-f")
        .args(opts)
        .arg("-o")
        .arg(&log)
        .args(cmd)
        .output()
        .expect("strace is installed (scripts/test.sh installs it)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&log).unwrap();
    (text, String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `volbench run JOB --parse-only`: whether it accepted the job, and its stderr.
pub fn parse_only(job: &Path) -> (bool, String) {
    let out = volbench()
        .arg("run")
        .arg(job)
        .arg("--parse-only")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.success(), err)
}

/// Headless Chromium (the HTML report and serve tests open pages in it), if installed.
pub fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| {
            Std::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
}

pub const BROWSER_FLAGS: [&str; 9] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--virtual-time-budget=5000",
];

/// A directory the postgres user can reach (tempdir makes 0700 ones).
pub fn open_dir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let d = tmpdir();
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    d
}

/// A TCP port on loopback that nothing listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A scrape's value of the sample `name` whose labels contain `with` (None: not there).
pub fn scraped(text: &str, name: &str, with: &str) -> Option<f64> {
    text.lines()
        .find(|l| l.starts_with(&format!("{name}{{")) && l.contains(with))
        .and_then(|l| l.rsplit(' ').next()?.parse().ok())
}

/// `volbench serve --listen 127.0.0.1:0 --store STORE` started, with the address its first
/// line printed and the rest of its stderr to read.
#[allow(dead_code)]
pub fn serve_on(
    store: &str,
) -> (
    std::process::Child,
    String,
    std::io::BufReader<std::process::ChildStderr>,
) {
    let mut serve = Std::new(assert_cmd::cargo::cargo_bin("volbench"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--no-token",
            "--store",
            store,
        ])
        .env("VOLBENCH_STORE", test_store())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = std::io::BufReader::new(serve.stderr.take().unwrap());
    let mut said = String::new();
    std::io::BufRead::read_line(&mut err, &mut said).unwrap();
    let addr = said
        .split("http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("serve said: {said}"))
        .to_string();
    (serve, addr, err)
}

/// One HTTP/1.0 request to `addr`: (status, head, body).
pub fn http(addr: &str, method: &str, path: &str, headers: &str) -> (u16, String, String) {
    raw_http(
        addr,
        &format!("{method} {path} HTTP/1.0\r\nHost: {addr}\r\n{headers}\r\n"),
    )
}

/// A request written as given, the answer read to the end of the connection.
pub fn raw_http(addr: &str, request: &str) -> (u16, String, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
        .unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (status, head.to_string(), body.to_string())
}
