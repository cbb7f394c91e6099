//! Emulated hosts for the tests that need several machines (MPI across hosts, a team's
//! results store): network namespaces on a bridge, each with its own hostname.

use super::{device_lock, tmpdir, DeviceLock};
use std::path::PathBuf;
use std::process::Command as Std;

/// Two emulated hosts: a bridge, a network namespace per host with a veth on the bridge, and
/// an rsh agent that runs mpirun's daemon in a host's namespace under its own hostname (UTS).
pub struct Hosts {
    bridge: String,
    pub names: Vec<String>,
    pub agent: PathBuf,
    pub addrs: Vec<String>,
    _lock: Option<DeviceLock>,
    _dir: tempfile::TempDir,
}

fn ip(args: &[&str]) {
    let o = Std::new("ip").args(args).output().unwrap();
    assert!(
        o.status.success(),
        "ip {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

impl Hosts {
    pub fn new(n: usize) -> Hosts {
        Self::make(n, Some(device_lock()))
    }

    /// For a test that holds the device lock already (its zram devices took it).
    pub fn under_lock(n: usize) -> Hosts {
        Self::make(n, None)
    }

    fn make(n: usize, lock: Option<DeviceLock>) -> Hosts {
        let tag = std::process::id() % 10_000;
        let bridge = format!("vbbr{tag}");
        let net = format!("10.{}.{}", 100 + tag % 100, tag / 100 % 250);
        let dir = tmpdir();
        let mut h = Hosts {
            bridge: bridge.clone(),
            names: Vec::new(),
            agent: dir.path().join("agent.sh"),
            addrs: Vec::new(),
            _lock: lock,
            _dir: dir,
        };
        ip(&["link", "add", &bridge, "type", "bridge"]);
        ip(&["addr", "add", &format!("{net}.1/24"), "dev", &bridge]);
        ip(&["link", "set", &bridge, "up"]);
        for i in 0..n {
            let ns = format!("vbns{tag}-{i}");
            let veth = format!("vbv{tag}-{i}");
            let addr = format!("{net}.{}", i + 2);
            ip(&["netns", "add", &ns]);
            h.names.push(ns.clone());
            ip(&[
                "link", "add", &veth, "type", "veth", "peer", "name", "eth0", "netns", &ns,
            ]);
            ip(&["link", "set", &veth, "master", &bridge, "up"]);
            ip(&[
                "-n",
                &ns,
                "addr",
                "add",
                &format!("{addr}/24"),
                "dev",
                "eth0",
            ]);
            ip(&["-n", &ns, "link", "set", "eth0", "up"]);
            ip(&["-n", &ns, "link", "set", "lo", "up"]);
            h.addrs.push(addr);
        }
        // mpirun calls `agent HOST COMMAND...` as it would ssh: COMMAND is shell text.
        let script = format!(
            "#!/bin/sh\nhost=$1; shift\ni=$((${{host##*.}} - 2))\n\
             exec ip netns exec vbns{tag}-$i unshare --uts sh -c \"hostname emuhost$i; $*\"\n"
        );
        std::fs::write(&h.agent, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&h.agent, std::fs::Permissions::from_mode(0o755)).unwrap();
        h
    }

    pub fn subnet(&self) -> String {
        let a = &self.addrs[0];
        format!("{}.0/24", &a[..a.rfind('.').unwrap()])
    }
}

impl Drop for Hosts {
    fn drop(&mut self) {
        for ns in &self.names {
            let _ = Std::new("ip").args(["netns", "del", ns]).status();
        }
        let _ = Std::new("ip").args(["link", "del", &self.bridge]).status();
    }
}

impl Hosts {
    /// The bridge's own address: where a server for every host listens.
    pub fn gateway(&self) -> String {
        let a = &self.addrs[0];
        format!("{}.1", &a[..a.rfind('.').unwrap()])
    }

    /// An rsh agent for mpirun that also gives host `i` its own device: `devs[i]` bound
    /// (in the host's own mount namespace) over the file `at`, so the same path is a
    /// different device on each host, as `/dev/nvme1n1` is on real machines.
    pub fn agent_with_devices(&self, devs: &[String], at: &std::path::Path) -> PathBuf {
        std::fs::write(at, b"").unwrap();
        let cases: String = devs
            .iter()
            .enumerate()
            .map(|(i, d)| format!("{i}) dev={d};; "))
            .collect();
        let ns = &self.names[0][..self.names[0].rfind('-').unwrap()];
        let script = format!(
            "#!/bin/sh\nhost=$1; shift\ni=$((${{host##*.}} - 2))\ncase $i in {cases}esac\n\
             exec ip netns exec {ns}-$i unshare --uts --mount sh -c \"hostname emuhost$i; mount --bind $dev {}; $*\"\n",
            at.display()
        );
        let agent = self.agent.with_file_name("agent-devices.sh");
        std::fs::write(&agent, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).unwrap();
        agent
    }

    /// `prog` run on host `i`: in its network namespace, under its hostname `emuhostI`.
    pub fn command(&self, i: usize, prog: &str) -> Std {
        let mut c = Std::new("ip");
        c.args([
            "netns",
            "exec",
            &self.names[i],
            "unshare",
            "--uts",
            "sh",
            "-c",
        ])
        .arg(format!("hostname emuhost{i}; exec \"$0\" \"$@\""))
        .arg(prog);
        c
    }
}
