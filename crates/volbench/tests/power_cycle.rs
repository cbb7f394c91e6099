//! `volbench durability cycle`, the power-cut loop, between two emulated hosts: the loop and
//! its witness run in one network namespace, the tested "machine" is another (its commands
//! run through a `--remote` script, with its own host name) writing to the FUSE lying disk.
//! The power cut kills every process of the tested namespace and unmounts the disk (its
//! cache is gone); the boot mounts it again. Honest disks pass, lying ones fail, and a cut
//! that fails, a host that does not come back and Ctrl-C in every step are reported as such
//! and leave nothing running.

mod common;
#[path = "common/lyingdisk.rs"]
mod lyingdisk;

use common::*;
use lyingdisk::{LyingDisk, Mode};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Std, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

fn bin() -> String {
    env!("CARGO_BIN_EXE_volbench").to_string()
}

fn ip(args: &[&str]) {
    let o = Std::new("ip").args(args).output().unwrap();
    succeeded(&o, format_args!("ip {args:?}"));
}

/// Two emulated hosts on a bridge, the lying disk, and the scripts that cut, boot and reach
/// the tested host.
struct Lab {
    bridge: String,
    /// The witness's namespace, then the tested one.
    ns: [String; 2],
    witness_ip: String,
    dir: tempfile::TempDir,
    store: PathBuf,
    power_stop: Arc<AtomicBool>,
    power: Option<std::thread::JoinHandle<()>>,
    _lock: DeviceLock,
}

static LABS: AtomicU32 = AtomicU32::new(0);

impl Lab {
    fn new(mode: Mode) -> Lab {
        let lock = device_lock();
        let n = LABS.fetch_add(1, Ordering::SeqCst);
        let tag = (std::process::id() * 7 + n) % 10_000;
        let net = format!("10.{}.{}", 150 + tag % 100, tag / 100 % 250);
        let bridge = format!("vbpb{tag}");
        let ns = [format!("vbpc{tag}-w"), format!("vbpc{tag}-t")];
        ip(&["link", "add", &bridge, "type", "bridge"]);
        ip(&["addr", "add", &format!("{net}.1/24"), "dev", &bridge]);
        ip(&["link", "set", &bridge, "up"]);
        for (i, name) in ns.iter().enumerate() {
            let veth = format!("vbpv{tag}-{i}");
            ip(&["netns", "add", name]);
            ip(&[
                "link", "add", &veth, "type", "veth", "peer", "name", "eth0", "netns", name,
            ]);
            ip(&["link", "set", &veth, "master", &bridge, "up"]);
            let addr = format!("{net}.{}/24", i + 2);
            ip(&["-n", name, "addr", "add", &addr, "dev", "eth0"]);
            ip(&["-n", name, "link", "set", "eth0", "up"]);
            ip(&["-n", name, "link", "set", "lo", "up"]);
        }
        let dir = tmpdir();
        let mut lab = Lab {
            bridge,
            ns,
            witness_ip: format!("{net}.2"),
            store: test_store(),
            dir,
            power_stop: Arc::new(AtomicBool::new(false)),
            power: None,
            _lock: lock,
        };
        std::fs::create_dir_all(lab.ctl()).unwrap();
        std::fs::create_dir_all(lab.mnt()).unwrap();
        lab.scripts();
        lab.power = Some(lab.power_thread(mode));
        lab
    }

    fn ctl(&self) -> PathBuf {
        self.dir.path().join("ctl")
    }
    fn mnt(&self) -> PathBuf {
        self.dir.path().join("mnt")
    }
    fn file(&self) -> String {
        self.mnt().join("dc.dat").display().to_string()
    }
    fn script(&self, name: &str) -> String {
        self.dir.path().join(name).display().to_string()
    }
    /// A flag the scripts read (`slow_cut`, `down`, `slow_verify`).
    fn flag(&self, name: &str, on: bool) {
        let p = self.ctl().join(name);
        if on {
            std::fs::write(p, "").unwrap();
        } else {
            let _ = std::fs::remove_file(p);
        }
    }

    /// The power: the disk lives in this thread; `ctl/cut` unmounts it (the cache is
    /// lost), `ctl/boot` mounts it again, each answered by a `.done` file.
    fn power_thread(&self, mode: Mode) -> std::thread::JoinHandle<()> {
        let (ctl, mnt, stop) = (self.ctl(), self.mnt(), self.power_stop.clone());
        let (tx, rx) = mpsc::channel();
        let h = std::thread::spawn(move || {
            let mut disk = LyingDisk::new(&mnt, mode);
            let _ = tx.send(());
            let mut mounted = true;
            while !stop.load(Ordering::SeqCst) {
                for req in ["cut", "boot"] {
                    if std::fs::remove_file(ctl.join(req)).is_ok() {
                        match (req, mounted) {
                            ("cut", true) => disk.cut(),
                            ("boot", false) => disk.mount(),
                            _ => {}
                        }
                        mounted = req == "boot";
                        std::fs::write(ctl.join(format!("{req}.done")), "").unwrap();
                    }
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        rx.recv_timeout(Duration::from_secs(10))
            .expect("the lying disk mounts");
        h
    }

    fn scripts(&self) {
        let (ctl, mnt, t) = (
            self.ctl().display().to_string(),
            self.mnt().display().to_string(),
            &self.ns[1],
        );
        let request = |req: &str| {
            format!(
                "rm -f {ctl}/{req}.done; touch {ctl}/{req}\n\
                 for i in $(seq 400); do [ -e {ctl}/{req}.done ] && exit 0; sleep 0.05; done\n\
                 echo 'the {req} was not answered' >&2; exit 1\n"
            )
        };
        let files = [
            // How the loop reaches the tested host: its namespace, its own host name.
            (
                "tested.sh",
                format!(
                    "case \" $* \" in *' verify '*) [ -e {ctl}/slow_verify ] && sleep 60;; esac\n\
                     exec nsenter --net=/var/run/netns/{t} unshare --uts sh -c 'hostname tested; exec \"$@\"' sh \"$@\"\n"
                ),
            ),
            // The cut: every process of the host dies, then the disk loses its cache.
            (
                "cut.sh",
                format!(
                    "[ -e {ctl}/slow_cut ] && sleep 2\n\
                     ip netns pids {t} | xargs -r kill -9\n{}",
                    request("cut")
                ),
            ),
            ("boot.sh", request("boot")),
            (
                "up.sh",
                format!("[ -e {ctl}/down ] && exit 1\nexec nsenter --net=/var/run/netns/{t} mountpoint -q {mnt}\n"),
            ),
            (
                "cut-fails.sh",
                "echo 'BMC refused the login' >&2\nexit 1\n".to_string(),
            ),
        ];
        for (name, body) in files {
            let p = self.dir.path().join(name);
            std::fs::write(&p, format!("#!/bin/sh\n{body}")).unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }

    /// The loop, run in the witness's namespace, with `extra` options: one given here
    /// replaces the lab's own (`--cut`, `--up`, the timeouts).
    fn cycle(&self, cycles: u32, extra: &[&str]) -> Std {
        let mut args = self.cycle_args(cycles);
        let mut rest = Vec::new();
        let mut it = extra.iter();
        while let Some(a) = it.next() {
            match args.iter().position(|x| x == a) {
                Some(i) if i + 1 < args.len() && !args[i + 1].starts_with("--") => {
                    args[i + 1] = it.next().expect("a value").to_string();
                }
                _ => rest.push(a.to_string()),
            }
        }
        // nsenter, not `ip netns exec`: that gives each command a mount namespace of its own
        // whose copy of the FUSE mount would outlive the cut's unmount.
        let mut c = Std::new("nsenter");
        c.arg(format!("--net=/var/run/netns/{}", self.ns[0]));
        c.args([&bin(), "durability", "cycle"]);
        c.args(args).args(rest);
        c.env("VOLBENCH_STORE", &self.store);
        c.env_remove("RUST_BACKTRACE");
        c
    }

    fn cycle_args(&self, cycles: u32) -> Vec<String> {
        let mut a = vec![self.file()];
        let mut add = |k: &str, v: String| a.extend([k.to_string(), v]);
        add("--cycles", cycles.to_string());
        add("--wait", "1s-2s".into());
        add("--remote", self.script("tested.sh"));
        add("--volbench", bin());
        add("--listen", format!("{}:0", self.witness_ip));
        add("--journal", self.script("journal.db"));
        add("--cut", self.script("cut.sh"));
        add("--boot", self.script("boot.sh"));
        add("--up", self.script("up.sh"));
        add("--size", "16m".into());
        add("--threads", "4".into());
        add("--output-format", "json".into());
        add("--step-timeout", "20s".into());
        add("--up-timeout", "20s".into());
        a
    }

    /// Processes left in the tested namespace (none once the loop has ended).
    fn tested_pids(&self) -> String {
        let o = Std::new("ip")
            .args(["netns", "pids", &self.ns[1]])
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    }

    fn state_file(&self) -> PathBuf {
        PathBuf::from(format!("{}.cycle.json", self.script("journal.db")))
    }

    /// Nothing runs on the tested host, and no create of this file runs anywhere.
    fn assert_nothing_left(&self, when: &str) {
        assert_eq!(
            self.tested_pids(),
            "",
            "{when}: processes left on the tested host"
        );
        let o = Std::new("pgrep")
            .args(["-f", &format!("[d]urability create .*{}", self.file())])
            .output()
            .unwrap();
        assert!(
            o.stdout.is_empty(),
            "{when}: a create still runs: {}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        if let Some(t) = self.ns.get(1) {
            let _ = Std::new("sh")
                .arg("-c")
                .arg(format!("ip netns pids {t} | xargs -r kill -9"))
                .status();
        }
        self.power_stop.store(true, Ordering::SeqCst);
        if let Some(h) = self.power.take() {
            let _ = h.join();
        }
        for ns in &self.ns {
            let _ = Std::new("ip").args(["netns", "del", ns]).status();
        }
        let _ = Std::new("ip").args(["link", "del", &self.bridge]).status();
    }
}

/// Runs the loop to its end: exit code, report, stderr.
fn finish(mut c: Std) -> (i32, Value, String) {
    let out = c.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("no JSON report ({e}): {err}"));
    (out.status.code().unwrap_or(-1), v, err)
}

fn cycles(v: &Value) -> &Vec<Value> {
    v["cycles"].as_array().expect("cycles")
}

fn s<'a>(v: &'a Value, ptr: &str) -> &'a str {
    v.pointer(ptr).and_then(Value::as_str).unwrap_or("")
}

fn require_lab() -> bool {
    if !is_root() {
        common::cannot_run("the power-cut loop's tests make network namespaces and need root");
        return false;
    }
    if !Path::new("/dev/fuse").exists() {
        common::cannot_run("/dev/fuse is missing: the lying disk is a FUSE file system");
        return false;
    }
    // The lab's hosts, their commands and its checks (util-linux, iproute2, procps).
    for tool in ["ip", "nsenter", "unshare", "mountpoint", "pgrep"] {
        if !has_tool(tool) {
            common::cannot_run(&format!(
                "{tool} is not installed (scripts/test.sh installs it)"
            ));
            return false;
        }
    }
    true
}

#[test]
fn five_cuts_of_an_honest_disk_pass_and_a_lying_disk_fails_every_cut() {
    if !require_lab() {
        return;
    }
    let lab = Lab::new(Mode::Honest {
        flush: Duration::from_millis(1),
    });
    let (code, v, err) = finish(lab.cycle(5, &[]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(s(&v, "/verdict"), "pass", "{v}");
    assert_eq!(s(&v, "/status"), "complete");
    assert_eq!(cycles(&v).len(), 5);
    for c in cycles(&v) {
        assert_eq!(s(c, "/verdict"), "pass", "{c}");
        assert_eq!(u(c, "/lost"), 0);
        assert!(u(c, "/checked") > 50, "too few records to judge: {c}");
        assert!(u(c, "/acknowledged") >= u(c, "/checked"), "{c}");
        assert!(
            f(c, "/wrote_s") >= 1.0 && f(c, "/back_after_s") > 0.0,
            "{c}"
        );
    }
    // The tested host's own facts, from its verify: its host name and the FUSE disk.
    assert_eq!(s(&v, "/tested_host"), "tested");
    assert_eq!(s(&v, "/target/filesystem/fs_type"), "fuse", "{v}");
    assert_eq!(s(&v, "/target/filesystem/source"), "lyingdisk", "{v}");
    assert_eq!(s(&v, "/fsync/method"), "fdatasync", "{v}");
    assert!(f(&v, "/fsync/syncs_per_sec") > 0.0);
    lab.assert_nothing_left("after the honest loop");
    assert!(!lab.state_file().exists(), "a finished loop keeps no state");
    let honest = saved_id(&err);
    drop(lab);

    let lying = Lab::new(Mode::Lying {
        lag: Duration::from_millis(400),
    });
    let (code, v, err) = finish(lying.cycle(3, &[]));
    assert_eq!(code, 3, "{err}");
    assert_eq!(s(&v, "/verdict"), "fail");
    assert_eq!(cycles(&v).len(), 3);
    for c in cycles(&v) {
        assert_eq!(
            s(c, "/verdict"),
            "loss",
            "every cut of the lying disk loses: {c}"
        );
        assert!(
            u(c, "/lost") > 0 && u(c, "/lost") <= u(c, "/checked"),
            "{c}"
        );
        assert!(!c["lost_seconds_before_cut"].as_array().unwrap().is_empty());
    }
    // The lying disk's flush is too fast, and the verdict says so beside the loss.
    assert_eq!(s(&v, "/fsync/verdict"), "implausible", "{v}");
    assert!(s(&v, "/summary").contains("implausible"), "{v}");
    lying.assert_nothing_left("after the lying loop");
    let id = saved_id(&err);
    shown_like_every_result(&lying, honest, id);

    // --stop-on-loss: the first lossy cut ends the loop, with the same verdict.
    let (code, v, err) = finish(lying.cycle(3, &["--stop-on-loss", "--no-fsync"]));
    assert_eq!(code, 3, "{err}");
    assert_eq!(cycles(&v).len(), 1, "{v}");
    assert_eq!(s(&v, "/verdict"), "fail");
    assert!(v.get("fsync").is_none());
}

/// Regression (issue 42): a disk that loses everything not truly flushed, the file's first
/// block (its header) included, ended the loop after its first cut: cycle 2's create refused
/// the file the loop itself had made ("exists and is not a volbench durability file"). Every
/// cut is now tested, each losing every acknowledged record, the header counted among them.
#[test]
fn a_disk_that_loses_the_files_header_too_is_cut_every_cycle() {
    if !require_lab() {
        return;
    }
    // The cache never drains by itself: nothing written survives a cut.
    let lab = Lab::new(Mode::Lying {
        lag: Duration::from_secs(3600),
    });
    let (code, v, err) = finish(lab.cycle(3, &["--no-fsync"]));
    assert_eq!(code, 3, "{err}");
    assert_eq!(cycles(&v).len(), 3, "{v}");
    for c in cycles(&v) {
        assert_eq!(s(c, "/verdict"), "loss", "{c}");
        assert_eq!(c["header_lost"], true, "{c}");
        // Every acknowledged record checked is lost, and the header with them.
        assert_eq!(u(c, "/intact"), 0, "{c}");
        assert!(
            u(c, "/lost") >= 2 && u(c, "/lost") == u(c, "/checked"),
            "{c}"
        );
    }
    lab.assert_nothing_left("after the loop on the disk that keeps nothing");
}

/// "saved as #N" from the loop's stderr.
fn saved_id(err: &str) -> u64 {
    let at = err.find("saved as #").expect("the loop is stored") + 10;
    err[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// Both loops are in history, compare side by side, and have an HTML page.
fn shown_like_every_result(lab: &Lab, honest: u64, lying: u64) {
    let run = |args: &[&str]| {
        let o = Std::new(bin())
            .args(args)
            .env("VOLBENCH_STORE", &lab.store)
            .output()
            .unwrap();
        succeeded(&o, format_args!("{args:?}"));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let listed = run(&["history", "--kind", "durability"]);
    assert!(
        listed.contains("5 power cuts, 0 records lost (pass)"),
        "{listed}"
    );
    let fail = listed.lines().find(|l| l.contains("(fail)")).unwrap_or("");
    assert!(fail.contains("3 power cuts, "), "{listed}");
    let page = run(&["report", &lying.to_string(), "-o", "-"]);
    assert!(
        page.contains("Power cuts") && page.contains("FAIL"),
        "html page"
    );
    let text = run(&["show", &lying.to_string()]);
    assert!(
        text.contains("FAIL: ") && text.contains("stale/corrupt"),
        "{text}"
    );
    // The JSON the loop printed reads back as a result too (compare takes a file).
    let file = lab.dir.path().join("lying.json");
    let json = run(&["export", &lying.to_string(), "--output-format", "json"]);
    std::fs::write(&file, json).unwrap();
    let cmp = run(&["compare", &honest.to_string(), file.to_str().unwrap()]);
    let lost = cmp
        .lines()
        .find(|l| l.contains("records lost"))
        .unwrap_or("");
    assert!(lost.split_whitespace().any(|w| w == "0"), "{cmp}");
}

#[test]
fn a_failed_cut_a_cut_that_does_not_cut_and_a_host_that_stays_down_are_errors() {
    if !require_lab() {
        return;
    }
    let lab = Lab::new(Mode::Honest {
        flush: Duration::from_millis(1),
    });
    let fails = lab.script("cut-fails.sh");
    let (code, v, err) = finish(lab.cycle(2, &["--no-fsync", "--cut", &fails]));
    assert_eq!(code, 1, "{err}");
    assert_eq!(s(&v, "/verdict"), "error");
    let c = &cycles(&v)[0];
    assert_eq!(s(c, "/verdict"), "cut_failed");
    assert_eq!(
        s(c, "/error"),
        "the cut command exited 1: BMC refused the login"
    );
    lab.assert_nothing_left("after a failed cut");

    // A cut command that succeeds without cutting: records keep coming.
    let (code, v, err) =
        finish(lab.cycle(2, &["--no-fsync", "--cut", "true", "--step-timeout", "6s"]));
    assert_eq!(code, 1, "{err}");
    let c = &cycles(&v)[0];
    assert_eq!(s(c, "/verdict"), "cut_failed", "{c}");
    assert!(s(c, "/error").contains("still acknowledged"), "{c}");
    assert!(s(c, "/error").ends_with("the power was not cut"), "{c}");
    assert_eq!(
        s(c, "/error").matches("not cut").count(),
        1,
        "said once: {c}"
    );
    // The failed loop before it left its state; a loop without --resume says it starts over.
    assert!(
        err.contains("stopped after 0 cycles; starting over"),
        "{err}"
    );
    lab.assert_nothing_left("after a cut that did not cut");

    // The host never answers --up: not back, kept for --resume.
    lab.flag("down", true);
    let (code, v, err) = finish(lab.cycle(1, &["--no-fsync", "--up-timeout", "3s"]));
    assert_eq!(code, 1, "{err}");
    let c = &cycles(&v)[0];
    assert_eq!(s(c, "/verdict"), "not_back", "{c}");
    assert!(
        s(c, "/error").contains("did not come back within 3 s"),
        "{c}"
    );
    assert!(lab.state_file().exists());
    // It is back: the resume verifies the cycle that was cut, and the loop passes.
    lab.flag("down", false);
    let (code, v, err) = finish(lab.cycle(1, &["--no-fsync", "--resume"]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(cycles(&v).len(), 1);
    assert_eq!(s(&v, "/cycles/0/verdict"), "pass", "{v}");
    assert!(
        !err.contains("starting create"),
        "the resume verified, not re-ran: {err}"
    );
    lab.assert_nothing_left("after the resume");
}

/// Starts the loop with its stderr read line by line.
fn start(mut c: Std) -> (Child, mpsc::Receiver<String>) {
    let mut child = c
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for l in BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    (child, rx)
}

fn wait_line(rx: &mpsc::Receiver<String>, want: &str) {
    let until = Instant::now() + Duration::from_secs(60);
    while let Ok(l) = rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
        if l.contains(want) {
            return;
        }
    }
    panic!("the loop never said {want:?}");
}

/// Ctrl-C once `want` was said: the loop's exit status and report.
fn interrupted_at(lab: &Lab, want: &str) -> Value {
    let (child, rx) = start(lab.cycle(1, &["--no-fsync", "--resume"]));
    wait_line(&rx, want);
    std::thread::sleep(Duration::from_millis(300));
    interrupt(&child);
    let out = child.wait_with_output().unwrap();
    let rest: Vec<String> = rx.try_iter().collect();
    assert_eq!(out.status.code(), Some(130), "{rest:?}");
    let v: Value = serde_json::from_slice(&out.stdout).expect("a report after Ctrl-C");
    assert_eq!(s(&v, "/status"), "interrupted", "{v}");
    assert_eq!(s(&v, "/verdict"), "incomplete");
    lab.assert_nothing_left(&format!("after Ctrl-C at {want:?}"));
    assert!(lab.state_file().exists(), "the state stays for --resume");
    v
}

#[test]
fn ctrl_c_in_every_step_leaves_nothing_running_and_resume_finishes_the_loop() {
    if !require_lab() {
        return;
    }
    let lab = Lab::new(Mode::Honest {
        flush: Duration::from_millis(1),
    });
    // Before the cut: create is stopped and the cycle will run again.
    let (child, rx) = start(lab.cycle(1, &["--no-fsync"]));
    wait_line(&rx, "the cut comes in");
    interrupt(&child);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    lab.assert_nothing_left("after Ctrl-C before the cut");
    // During the cut: the cut finishes (a half-done cut is the worst state), then the loop
    // stops with the cycle pending.
    lab.flag("slow_cut", true);
    interrupted_at(&lab, "cutting the power");
    assert!(!lab.ctl().join("cut").exists() && lab.ctl().join("cut.done").exists());
    lab.flag("slow_cut", false);
    // While waiting for the machine, and during verify.
    lab.flag("down", true);
    interrupted_at(&lab, "waiting for the machine");
    lab.flag("down", false);
    lab.flag("slow_verify", true);
    interrupted_at(&lab, "verifying");
    lab.flag("slow_verify", false);
    let (code, v, err) = finish(lab.cycle(1, &["--no-fsync", "--resume"]));
    assert_eq!(code, 0, "{err}");
    assert_eq!(cycles(&v).len(), 1);
    assert_eq!(s(&v, "/cycles/0/verdict"), "pass", "{v}");
    assert!(u(&v, "/cycles/0/checked") > 50, "{v}");
    lab.assert_nothing_left("at the end");
}

/// `--witness ADDR --token T`: the loop uses a witness already running (here in the loop's
/// namespace) instead of starting its own, and a wrong token is one clear error.
#[test]
fn a_running_witness_named_by_address_and_token_is_used() {
    if !require_lab() {
        return;
    }
    let lab = Lab::new(Mode::Honest {
        flush: Duration::from_millis(1),
    });
    let mut serve = Std::new("nsenter")
        .arg(format!("--net=/var/run/netns/{}", lab.ns[0]))
        .args([&bin(), "durability", "serve", "--listen"])
        .arg(format!("{}:0", lab.witness_ip))
        .arg("--journal")
        .arg(lab.dir.path().join("running.db"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(serve.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let w: Vec<&str> = line.split_whitespace().collect();
    let (addr, token) = (w[3].to_string(), w[5].to_string());
    let (code, v, err) =
        finish(lab.cycle(1, &["--no-fsync", "--witness", &addr, "--token", &token]));
    let bad = lab
        .cycle(1, &["--no-fsync", "--witness", &addr, "--token", "wrong"])
        .output()
        .unwrap();
    let _ = serve.kill();
    let _ = serve.wait();
    assert_eq!(code, 0, "{err}");
    assert_eq!(s(&v, "/cycles/0/verdict"), "pass", "{v}");
    assert!(u(&v, "/cycles/0/checked") > 50, "{v}");
    // Refused before anything runs on the tested machine, in one line.
    let err_bad = fails_saying(&bad, 1, "wrong token");
    assert_eq!(err_bad.trim().lines().count(), 1, "{err_bad}");
    assert!(bad.stdout.is_empty());
    lab.assert_nothing_left("after the loops with a running witness");
}
