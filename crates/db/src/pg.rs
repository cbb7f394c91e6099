//! PostgreSQL: a throwaway cluster in the directory under test (initdb, started on a private
//! socket directory, stopped and removed afterwards), or a server the user points at.
//!
//! When volbench runs as root the server runs as the unprivileged `postgres` user (initdb and
//! postgres refuse root), through `runuser`. The cluster listens on no TCP port at all
//! (`listen_addresses=''`), only on a socket in its own directory, so no port can clash and no
//! one else can connect. Every cluster started is registered, so a second Ctrl-C (which exits
//! at once) still stops and removes it through [`stop_all`].

use crate::tpcb;
use crate::Backend;
// URL redaction lives with the wire code (pgloop needs it without importing this file).
pub use crate::wire::redact;
use postgres::{Client, NoTls};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// A cluster alive in this process: the directory we created for it, pg_ctl, its data
/// directory, and the user it runs as.
type Live = (PathBuf, PathBuf, PathBuf, Option<String>);

static LIVE: Mutex<Vec<Live>> = Mutex::new(Vec::new());

/// Stops and removes every cluster this process started (for the Ctrl-C handler).
pub fn stop_all() {
    let live = std::mem::take(&mut *LIVE.lock().unwrap_or_else(|p| p.into_inner()));
    for (root, pg_ctl, data, user) in live {
        stop(&pg_ctl, &data, user.as_deref());
        let _ = std::fs::remove_dir_all(&root);
    }
    let _ = std::fs::remove_dir_all(format!("/tmp/.volbench-pg-{}", std::process::id()));
}

/// The server's binaries: `pg_config --bindir`, else the newest `<root>/*/bin` where root is
/// `$VOLBENCH_PG_ROOT` or Debian's `/usr/lib/postgresql`.
pub fn bindir() -> anyhow::Result<PathBuf> {
    let has = |d: &Path| d.join("initdb").is_file() && d.join("pg_ctl").is_file();
    if let Ok(o) = Command::new("pg_config").arg("--bindir").output() {
        let d = PathBuf::from(String::from_utf8_lossy(&o.stdout).trim());
        if o.status.success() && has(&d) {
            return Ok(d);
        }
    }
    let root = std::env::var_os("VOLBENCH_PG_ROOT").unwrap_or_else(|| "/usr/lib/postgresql".into());
    let mut dirs: Vec<(u32, PathBuf)> = std::fs::read_dir(root)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let v = e.file_name().to_string_lossy().parse::<u32>().ok()?;
                    Some((v, e.path().join("bin")))
                })
                .filter(|(_, d)| has(d))
                .collect()
        })
        .unwrap_or_default();
    dirs.sort();
    dirs.pop().map(|(_, d)| d).ok_or_else(|| {
        anyhow::anyhow!("PostgreSQL's server is not installed (no initdb found): install it (apt-get install postgresql, or dnf install postgresql-server), or pass --postgres-url to use a running server")
    })
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Runs a server binary, as `postgres` through runuser when we are root.
fn server_cmd(bin: &Path, user: Option<&str>) -> Command {
    match user {
        Some(u) => {
            let mut c = Command::new("runuser");
            c.args(["-u", u, "--"]).arg(bin);
            c
        }
        None => Command::new(bin),
    }
}

fn stop(pg_ctl: &Path, data: &Path, user: Option<&str>) {
    let _ = server_cmd(pg_ctl, user)
        .args(["stop", "-w", "-m", "immediate", "-D"])
        .arg(data)
        .output();
}

fn chown(path: &Path, user: &str) -> anyhow::Result<()> {
    let st = Command::new("chown")
        .arg("-R")
        .arg(user)
        .arg(path)
        .status()
        .map_err(|e| anyhow::anyhow!("cannot run chown (for {}): {e}", path.display()))?;
    anyhow::ensure!(st.success(), "chown {user} {} failed", path.display());
    Ok(())
}

/// Checks that `user` can reach `dir` (every parent executable for others), so initdb's error
/// is never the first sign of it.
fn reachable_by_others(dir: &Path) -> anyhow::Result<()> {
    // Each parent of the absolute path: a relative one's last parent is "", which no stat finds.
    let dir = &std::path::absolute(dir)?;
    let mut p = Some(dir.as_path());
    while let Some(d) = p {
        let mode = std::fs::metadata(d)
            .map_err(|e| anyhow::anyhow!("{}: {e}", d.display()))?
            .permissions()
            .mode();
        if mode & 0o001 == 0 {
            anyhow::bail!(
                "the postgres user cannot reach {}: {} is not traversable by others (chmod o+x {}), or choose a directory under /var/tmp or /mnt",
                dir.display(),
                d.display(),
                d.display()
            );
        }
        p = d.parent();
    }
    Ok(())
}

/// How a throwaway cluster serves beyond its private socket: TCP addresses
/// (`listen_addresses`), a port, pg_hba.conf lines put before initdb's, a TLS certificate and
/// key (PEM files, copied into the data directory).
#[derive(Clone, Debug, Default)]
pub struct Serving {
    pub listen: Option<String>,
    pub port: Option<u16>,
    pub hba: Vec<String>,
    pub tls: Option<(PathBuf, PathBuf)>,
}

/// A running throwaway cluster; stopped and removed when dropped.
pub struct Cluster {
    root: PathBuf,
    sock: PathBuf,
    data: PathBuf,
    pg_ctl: PathBuf,
    user: Option<String>,
    port: u16,
    /// The server's command-line options (pg_ctl -o), for a restart.
    opts: String,
    /// Written down before each is made, so a SIGKILL's leftovers are reclaimed by the next
    /// volbench (the server first); dropped after `drop` has undone them.
    _held: Vec<leftovers::Hold>,
}

impl Cluster {
    /// initdb in `dir`/.volbench-pg-PID, then start with fsync and synchronous_commit on.
    pub fn start(dir: &Path) -> anyhow::Result<Cluster> {
        Self::start_with(dir, &Serving::default())
    }

    /// As [`Cluster::start`], and serving as `s` says: on TCP addresses, with client
    /// authentication lines and TLS (the team store's tests reach it from other hosts).
    pub fn start_with(dir: &Path, s: &Serving) -> anyhow::Result<Cluster> {
        let bin = bindir()?;
        let user = is_root().then(|| "postgres".to_string());
        let root = dir.join(format!(".volbench-pg-{}", std::process::id()));
        let sock = PathBuf::from(format!("/tmp/.volbench-pg-{}", std::process::id()));
        use leftovers::Kind;
        let held = vec![
            leftovers::hold(Kind::Postgres, &root.join("data")),
            leftovers::hold(Kind::Path, &root),
            leftovers::hold(Kind::Path, &sock),
        ];
        std::fs::create_dir(&root).map_err(|e| {
            anyhow::anyhow!(
                "cannot create {}: {e}: choose a writable directory",
                root.display()
            )
        })?;
        let mut c = Cluster {
            data: root.join("data"),
            root,
            sock,
            pg_ctl: bin.join("pg_ctl"),
            user,
            port: s.port.unwrap_or(5432),
            opts: String::new(),
            _held: held,
        };
        // What was made is written down by identity before it is handed to the server's
        // user, so a killed run's leftovers are undone only where they still are these.
        c._held[0].made();
        c._held[1].made();
        // A stale socket directory of an earlier process with this pid is removed only when
        // it is this user's; one another user made at the name is theirs, and refused below.
        if outfile::trusted_dir(&c.sock).is_ok() {
            let _ = std::fs::remove_dir_all(&c.sock);
        }
        std::fs::create_dir(&c.sock)
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", c.sock.display()))?;
        c._held[2].made();
        if let Some(u) = &c.user {
            reachable_by_others(dir)?;
            chown(&c.root, u)?;
            chown(&c.sock, u)?;
        }
        LIVE.lock().unwrap_or_else(|p| p.into_inner()).push((
            c.root.clone(),
            c.pg_ctl.clone(),
            c.data.clone(),
            c.user.clone(),
        ));
        c.initdb(&bin)?;
        c.serving(s)?;
        c.start_server()?;
        Ok(c)
    }

    fn initdb(&self, bin: &Path) -> anyhow::Result<()> {
        let out = server_cmd(&bin.join("initdb"), self.user.as_deref())
            .args(["-A", "trust", "-N", "-E", "UTF8", "-D"])
            .arg(&self.data)
            .output()
            .map_err(|e| anyhow::anyhow!("cannot run initdb (in {}): {e}", self.root.display()))?;
        if !out.status.success() {
            anyhow::bail!(
                "initdb in {} failed: {}",
                self.root.display(),
                last_line(&out.stderr)
            );
        }
        Ok(())
    }

    /// The server's options, and what `s` adds to pg_hba.conf and the TLS files.
    fn serving(&mut self, s: &Serving) -> anyhow::Result<()> {
        let listen = s.listen.as_deref().unwrap_or("");
        self.opts = format!(
            "-p {} -k {} -c listen_addresses='{listen}' -c fsync=on -c synchronous_commit=on -c full_page_writes=on -c track_wal_io_timing=on",
            self.port,
            self.sock.display()
        );
        if !s.hba.is_empty() {
            // First match wins: the lines given come before initdb's trust lines.
            let hba = self.data.join("pg_hba.conf");
            let old = std::fs::read_to_string(&hba)?;
            std::fs::write(&hba, format!("{}\n{old}", s.hba.join("\n")))?;
        }
        if let Some((cert, key)) = &s.tls {
            for (from, name) in [(cert, "server.crt"), (key, "server.key")] {
                let to = self.data.join(name);
                std::fs::copy(from, &to)?;
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&to, std::fs::Permissions::from_mode(0o600))?;
                if let Some(u) = &self.user {
                    chown(&to, u)?;
                }
            }
            self.opts += " -c ssl=on";
        }
        Ok(())
    }

    /// Starts the server (again, after [`Cluster::stop_server`]).
    pub fn start_server(&self) -> anyhow::Result<()> {
        let out = server_cmd(&self.pg_ctl, self.user.as_deref())
            .args(["start", "-w", "-t", "60", "-D"])
            .arg(&self.data)
            .arg("-l")
            .arg(self.root.join("server.log"))
            .args(["-o", &self.opts])
            .output()
            .map_err(|e| anyhow::anyhow!("cannot run pg_ctl (in {}): {e}", self.root.display()))?;
        if !out.status.success() {
            let log = std::fs::read(self.root.join("server.log")).unwrap_or_default();
            anyhow::bail!(
                "PostgreSQL did not start in {}: {}",
                self.root.display(),
                last_line(&log)
            );
        }
        Ok(())
    }

    /// Stops the server, keeping its data (a test's server outage).
    pub fn stop_server(&self) {
        stop(&self.pg_ctl, &self.data, self.user.as_deref());
    }

    /// The socket directory, port and user to connect with (for pgbench and psql).
    pub fn parts(&self) -> (String, u16, String) {
        (
            self.sock.display().to_string(),
            self.port,
            self.user.clone().unwrap_or_else(current_user),
        )
    }

    pub fn url(&self) -> String {
        let user = self.user.clone().unwrap_or_else(current_user);
        format!(
            "host={} port={} user={user} dbname=postgres",
            self.sock.display(),
            self.port
        )
    }

    /// The postmaster's process id, from postmaster.pid (tests put the server in a cgroup).
    pub fn postmaster(&self) -> Option<i32> {
        std::fs::read_to_string(self.data.join("postmaster.pid"))
            .ok()?
            .lines()
            .next()?
            .trim()
            .parse()
            .ok()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        stop(&self.pg_ctl, &self.data, self.user.as_deref());
        let _ = std::fs::remove_dir_all(&self.root);
        let _ = std::fs::remove_dir_all(&self.sock);
        LIVE.lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|x| x.0 != self.root);
    }
}

/// The line of a tool's output that says what went wrong: the first "error:" or "FATAL:"
/// line (initdb ends with "removing data directory ...", which says nothing of why), else
/// the last line.
fn last_line(b: &[u8]) -> String {
    let text = String::from_utf8_lossy(b);
    let cause = text
        .lines()
        .find(|l| l.contains("error:") || l.contains("FATAL:") || l.contains("PANIC:"));
    cause
        .or_else(|| text.lines().rfind(|l| !l.trim().is_empty()))
        .unwrap_or("")
        .trim()
        .to_string()
}

fn current_user() -> String {
    std::env::var("USER").unwrap_or_else(|_| "postgres".into())
}

/// CPU time (user + system, ns) of `pid` and all its descendants' live processes.
fn tree_cpu_ns(pid: i32) -> u64 {
    // SAFETY: sysconf reads a system constant; it has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let tick = 1e9 / (hz as f64).max(1.0);
    let mut total = 0f64;
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return 0;
    };
    for e in rd.flatten() {
        let Ok(p) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else {
            continue;
        };
        // Fields after the parenthesised command: state ppid ... utime(14) stime(15).
        let Some(rest) = stat.rsplit_once(')').map(|x| x.1) else {
            continue;
        };
        let f: Vec<&str> = rest.split_whitespace().collect();
        let ppid: i32 = f.get(1).and_then(|v| v.parse().ok()).unwrap_or(0);
        if p == pid || ppid == pid {
            let ut: f64 = f.get(11).and_then(|v| v.parse().ok()).unwrap_or(0.0);
            let st: f64 = f.get(12).and_then(|v| v.parse().ok()).unwrap_or(0.0);
            total += (ut + st) * tick;
        }
    }
    total as u64
}

/// The PostgreSQL back end: a URL (a throwaway cluster's, or the user's).
pub struct Postgres {
    url: String,
    postmaster: Option<i32>,
    /// Kept so the cluster lives as long as the back end.
    _cluster: Option<Cluster>,
}

fn connect(url: &str) -> anyhow::Result<Client> {
    let config = crate::wire::config(url)
        .map_err(|m| anyhow::anyhow!("cannot read the PostgreSQL URL ({}): {m}", redact(url)))?;
    postgres::Config::from(config).connect(NoTls).map_err(|e| {
        // The error's own text is only "db error" or "invalid configuration": the cause
        // (the server's FATAL line, "password missing") is its source, which the CLI's
        // one-line printer follows.
        let no_password = std::error::Error::source(&e)
            .is_some_and(|c| c.to_string().contains("password missing"));
        let hint = if no_password {
            " (the server asks for a password: set PGPASSWORD, or put password=... in the URL)"
        } else {
            ""
        };
        anyhow::Error::new(e).context(format!(
            "cannot connect to PostgreSQL ({}){hint}",
            redact(url)
        ))
    })
}

impl Postgres {
    /// A throwaway cluster in `dir`, loaded at `scale`.
    pub fn throwaway(dir: &Path, scale: u32) -> anyhow::Result<Postgres> {
        let c = Cluster::start(dir)?;
        let p = Postgres {
            url: c.url(),
            postmaster: c.postmaster(),
            _cluster: Some(c),
        };
        let mut cl = connect(&p.url)?;
        init(&mut cl, scale)?;
        Ok(p)
    }

    /// The user's server: creates pgbench's tables if absent (never drops anything). Returns
    /// the back end and the scale of the data it found or made.
    pub fn existing(url: &str, scale: u32) -> anyhow::Result<(Postgres, u32)> {
        let mut cl = connect(url)?;
        let have: Option<String> = cl
            .query_one("SELECT to_regclass('pgbench_branches')::text", &[])?
            .get(0);
        let scale = match have {
            Some(_) => {
                let n: i64 = cl
                    .query_one("SELECT count(*) FROM pgbench_branches", &[])?
                    .get(0);
                anyhow::ensure!(
                    n > 0,
                    "pgbench_branches in {} is empty: run pgbench -i, or drop the pgbench tables",
                    redact(url)
                );
                n as u32
            }
            None => {
                init(&mut cl, scale)?;
                scale
            }
        };
        Ok((
            Postgres {
                url: url.to_string(),
                postmaster: None,
                _cluster: None,
            },
            scale,
        ))
    }
}

/// pgbench -i: tables, rows (COPY), primary keys, VACUUM ANALYZE.
fn init(cl: &mut Client, scale: u32) -> anyhow::Result<()> {
    use std::io::Write;
    for ddl in tpcb::SCHEMA {
        cl.batch_execute(ddl)?;
    }
    let s = scale as u64;
    let mut tx = cl.transaction()?;
    tx.batch_execute(&format!(
        "INSERT INTO pgbench_branches (bid, bbalance) SELECT b, 0 FROM generate_series(1, {s}) b;
         INSERT INTO pgbench_tellers (tid, bid, tbalance) SELECT t, (t - 1) / {tpb} + 1, 0 FROM generate_series(1, {nt}) t;",
        tpb = tpcb::TELLERS_PER_BRANCH,
        nt = s * tpcb::TELLERS_PER_BRANCH
    ))?;
    let mut w = tx.copy_in("COPY pgbench_accounts (aid, bid, abalance, filler) FROM STDIN")?;
    let mut line = String::new();
    for aid in 1..=s * tpcb::ACCOUNTS_PER_BRANCH {
        line.clear();
        line.push_str(&format!(
            "{aid}\t{}\t0\t\n",
            (aid - 1) / tpcb::ACCOUNTS_PER_BRANCH + 1
        ));
        w.write_all(line.as_bytes())?;
    }
    w.finish()?;
    tx.commit()?;
    for k in tpcb::KEYS {
        cl.batch_execute(k)?;
    }
    cl.batch_execute(
        "VACUUM ANALYZE pgbench_branches, pgbench_tellers, pgbench_accounts, pgbench_history",
    )?;
    Ok(())
}

impl Backend for Postgres {
    fn name(&self) -> &'static str {
        "postgres"
    }
    fn version(&self) -> String {
        connect(&self.url)
            .and_then(|mut c| Ok(c.query_one("SHOW server_version", &[])?.get::<_, String>(0)))
            .map_or_else(|_| "PostgreSQL".into(), |v| format!("PostgreSQL {v}"))
    }
    fn server_cpu_ns(&self) -> Option<u64> {
        self.postmaster.map(tree_cpu_ns)
    }
    fn drive(
        &self,
        load: crate::measure::Load,
        stop: &std::sync::atomic::AtomicBool,
    ) -> anyhow::Result<crate::measure::Measured> {
        crate::pgloop::run(&self.url, load, stop)
    }
    fn wal_flushes(&self) -> Option<(u64, Option<u64>)> {
        let mut c = connect(&self.url).ok()?;
        // PostgreSQL 14-17: pg_stat_wal counts WAL syncs (time with track_wal_io_timing).
        if let Ok(r) = c.query_one(
            "SELECT wal_sync::bigint, wal_sync_time::float8 FROM pg_stat_wal",
            &[],
        ) {
            let n: i64 = r.get(0);
            let ms: f64 = r.get(1);
            return Some((n as u64, (ms > 0.0).then_some((ms * 1e6) as u64)));
        }
        // PostgreSQL 18 moved them to pg_stat_io.
        let r = c
            .query_one("SELECT coalesce(sum(fsyncs),0)::bigint, coalesce(sum(fsync_time),0)::float8 FROM pg_stat_io WHERE object = 'wal'", &[])
            .ok()?;
        let n: i64 = r.get(0);
        let ms: f64 = r.get(1);
        Some((n as u64, (ms > 0.0).then_some((ms * 1e6) as u64)))
    }
    fn check(&self) -> anyhow::Result<tpcb::Sums> {
        let mut c = connect(&self.url)?;
        let r = c.query_one(
            "SELECT (SELECT sum(bbalance) FROM pgbench_branches)::bigint, (SELECT sum(tbalance) FROM pgbench_tellers)::bigint, (SELECT sum(abalance) FROM pgbench_accounts)::bigint, (SELECT count(*) FROM pgbench_history)::bigint, (SELECT coalesce(sum(delta),0) FROM pgbench_history)::bigint",
            &[],
        )?;
        Ok(tpcb::Sums {
            branches: r.get(0),
            tellers: r.get(1),
            accounts: r.get(2),
            rows: r.get(3),
            deltas: r.get(4),
        })
    }
}
