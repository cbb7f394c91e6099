//! The team store (issue 47): results in a throwaway PostgreSQL server, the same documents and
//! queries as the SQLite store, copies both ways, schema versions, libpq's ways of giving a
//! password and TLS, the misconfigurations that must fail in one line, a server that goes away
//! mid-sweep, and twelve hosts (network namespaces) storing at once.

mod common;

use common::*;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command as Std;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A throwaway cluster's directories are named by process id: one at a time per test binary.
static CLUSTER: Mutex<()> = Mutex::new(());

fn have_postgres() -> bool {
    if db::pg::bindir().is_ok() {
        return true;
    }
    common::cannot_run("needs PostgreSQL's server (apt-get install postgresql)");
    false
}

/// A throwaway server that also listens on TCP at `listen`:`port`, with `hba` lines first and
/// TLS from `tls` (certificate, key).
fn tcp_server(
    d: &Path,
    listen: &str,
    port: u16,
    hba: Vec<String>,
    tls: Option<(std::path::PathBuf, std::path::PathBuf)>,
) -> db::pg::Cluster {
    let serving = db::pg::Serving {
        listen: Some(listen.into()),
        port: Some(port),
        hba,
        tls,
    };
    db::pg::Cluster::start_with(d, &serving).unwrap()
}

/// SQL as the cluster's superuser, over its socket.
fn sql(c: &db::pg::Cluster, db: &str, q: &str) {
    let mut client = postgres::Client::connect(
        &format!("{} dbname={db}", c.url().replace(" dbname=postgres", "")),
        postgres::NoTls,
    )
    .unwrap();
    client.batch_execute(q).unwrap();
}

/// volbench on `store`, its local store (fallback, records of what it holds) the test's own.
fn vb(store: &str) -> assert_cmd::Command {
    let mut c = volbench();
    c.env("VOLBENCH_STORE", store)
        .env("VOLBENCH_LOCAL_STORE", test_store());
    c
}

fn null_run(store: &str, label: &str, extra: &[&str]) -> std::process::Output {
    vb(store)
        .args([
            "run",
            "--ioengine=null",
            "--runtime=200ms",
            "-q",
            "--label",
            label,
        ])
        .args(extra)
        .output()
        .unwrap()
}

fn history(store: &str, extra: &[&str]) -> Value {
    ok_json(
        vb(store)
            .args(["history", "--output-format", "json"])
            .args(extra),
    )
}

/// The SQLite store and the PostgreSQL store hold the same entries after a copy: the same
/// rows (ids, uids, host columns), the same exported documents, the same comparison; a second
/// copy adds nothing; and a copy back into a new SQLite file is the same again.
#[test]
fn postgres_keeps_what_sqlite_keeps_and_copies_are_idempotent() {
    if !have_postgres() {
        return;
    }
    let _one = CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    let d = open_dir();
    let c = db::pg::Cluster::start(d.path()).unwrap();
    let pg = c.url();
    let lite = d.path().join("mine.db").display().to_string();
    for (label, rw) in [("x", "randread"), ("y", "randwrite")] {
        let out = null_run(&lite, label, &[&format!("--rw={rw}"), "--tag", "team"]);
        succeeded(&out, "");
    }
    ok_stdout(vb(&lite).args([
        "sweep",
        "--ioengine=null",
        "--runtime=200ms",
        "--numjobs=1,2",
        "-q",
    ]));
    let copy = |from: &str, to: &str| {
        ok_stdout(volbench().args(["store", "copy", "--from", from, "--to", to]))
    };
    assert!(
        copy(&lite, &pg).starts_with("3 added"),
        "{}",
        copy(&lite, &pg)
    );
    let again = copy(&lite, &pg);
    assert!(
        again.starts_with("0 added") && again.contains("3 already there"),
        "{again}"
    );
    let (a, b) = (history(&lite, &[]), history(&pg, &[]));
    assert_eq!(a, b, "the two stores list different rows");
    assert_eq!(a.as_array().unwrap().len(), 3);
    // Newest first: the first run stored, tagged, is the last row.
    assert_eq!(a[2]["tags"][0], "team");
    assert!(!a[2]["kernel"].as_str().unwrap().is_empty(), "{a}");
    for id in ["1", "2", "3"] {
        let e = |s: &str| ok_stdout(vb(s).args(["export", id, "--output-format", "json"]));
        assert_eq!(e(&lite), e(&pg), "entry {id} differs");
    }
    let cmp = |s: &str| ok_stdout(vb(s).args(["compare", "x", "y"]));
    assert_eq!(cmp(&lite), cmp(&pg));
    // Stored straight into PostgreSQL: found by host, shown, deleted.
    let out = null_run(&pg, "z", &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let host = a[0]["hostname"].as_str().unwrap().to_string();
    assert_eq!(
        history(&pg, &["--host", &host]).as_array().unwrap().len(),
        4
    );
    assert_eq!(
        history(&pg, &["--host", "no-such-host"])
            .as_array()
            .unwrap()
            .len(),
        0
    );
    assert!(ok_stdout(vb(&pg).args(["show", "z"])).contains("#4"));
    ok_stdout(vb(&pg).args(["delete", "4"]));
    assert_eq!(history(&pg, &[]).as_array().unwrap().len(), 3);
    let back = d.path().join("back.db").display().to_string();
    assert!(copy(&pg, &back).starts_with("3 added"));
    assert_eq!(history(&back, &[]), a);
    // A result from a cloud machine (its DMI names the instance type) is found by it.
    let mut doc: Value = serde_json::from_str(&ok_stdout(vb(&lite).args([
        "export",
        "1",
        "--output-format",
        "json",
    ])))
    .unwrap();
    doc["environment"]["machine"] = serde_json::json!({
        "provider": "aws", "instance_type": "m5.large",
        "dmi": {"sys_vendor": "Amazon EC2", "product_name": "m5.large", "bios_vendor": "",
                "bios_version": "", "chassis_asset_tag": ""}
    });
    let entry: store::Entry = serde_json::from_value(doc).unwrap();
    for at in [&lite, &pg] {
        // Closed before volbench opens it: a SQLite connection holds the file's lock.
        store::Store::open(Path::new(at))
            .unwrap()
            .insert(&entry, Some("ec2"), &[])
            .unwrap();
        let found = history(at, &["--machine", "m5.large"]);
        assert_eq!(found.as_array().unwrap().len(), 1, "{at}: {found}");
        assert_eq!(found[0]["machine"], "aws m5.large");
        assert_eq!(
            history(at, &["--machine", "c7g"]).as_array().unwrap().len(),
            0
        );
        pages_and_deletes_by_filter(at);
    }
}

/// The ids of a history listing.
fn ids_of(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect()
}

/// The same paging and delete by filter in either backend: pages of two, walked by
/// `--before`, hold every row once, newest first; a dry run takes nothing; the delete takes
/// what the filter picked and nothing else.
fn pages_and_deletes_by_filter(at: &str) {
    let all = ids_of(&history(at, &["--all"]));
    assert!(all.windows(2).all(|w| w[0] > w[1]), "{at}: {all:?}");
    let mut walked = Vec::new();
    let mut before: Option<String> = None;
    loop {
        let mut args = vec!["--limit=2".to_string()];
        args.extend(before.iter().map(|b| format!("--before={b}")));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let page = ids_of(&history(at, &args));
        let Some(last) = page.last() else { break };
        before = Some(last.to_string());
        walked.extend(page);
    }
    assert_eq!(walked, all, "{at}");
    let tried = ok_stdout(vb(at).args(["delete", "--label", "ec2", "--dry-run"]));
    assert!(
        tried.starts_with("would delete 1 result ("),
        "{at}: {tried}"
    );
    assert_eq!(ids_of(&history(at, &["--all"])), all);
    let done = ok_stdout(vb(at).args(["delete", "--label", "ec2"]));
    assert!(done.starts_with("deleted 1 result ("), "{at}: {done}");
    assert_eq!(ids_of(&history(at, &["--all"])), all[1..], "{at}");
}

/// A database a first volbench left at schema version 1 is migrated (its entries keep their
/// ids and get their host columns from their reports); one from a newer volbench is refused
/// in one line, exit 2, in both backends.
#[test]
fn schemas_migrate_forward_and_a_newer_one_is_refused() {
    if !have_postgres() {
        return;
    }
    let _one = CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    let d = open_dir();
    let c = db::pg::Cluster::start(d.path()).unwrap();
    sql(&c, "postgres", "CREATE DATABASE old");
    sql(&c, "old", store::PG_MIGRATIONS[0]);
    // A version-1 entry, as that volbench stored it: the document, zlib-compressed.
    let lite = d.path().join("src.db").display().to_string();
    assert!(null_run(&lite, "v1", &[]).status.success());
    let doc = ok_stdout(vb(&lite).args(["export", "1", "--output-format", "json"]));
    let packed = {
        use std::io::Write;
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(doc.as_bytes()).unwrap();
        z.finish().unwrap()
    };
    let url = c.url().replace("dbname=postgres", "dbname=old");
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    client
        .execute(
            "INSERT INTO volbench_entries (uid, kind, started_at, label, target, hostname, status, points, report, what) VALUES ('u1', 'run', '2026-01-01T00:00:00Z', 'v1', 't', 'h', 'complete', 1, $1, 'w')",
            &[&packed],
        )
        .unwrap();
    let rows = history(&url, &[]);
    assert_eq!(rows[0]["id"], 1);
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
    assert_eq!(rows[0]["kernel"], kernel.trim(), "{rows}");
    let v: i32 = client
        .query_one("SELECT version FROM volbench_schema", &[])
        .unwrap()
        .get(0);
    assert_eq!(v as i64, store::SCHEMA_VERSION);
    // From a newer volbench: refused, nothing written.
    client
        .execute("UPDATE volbench_schema SET version = 99", &[])
        .unwrap();
    let out = vb(&url).args(["history"]).output().unwrap();
    let err = fails_saying(&out, 2, "made by a newer volbench");
    assert_eq!(err.lines().count(), 1, "{err}");
    let lite_conn = rusqlite::Connection::open(&lite).unwrap();
    lite_conn.pragma_update(None, "user_version", 99).unwrap();
    drop(lite_conn);
    let out = vb(&lite).args(["history"]).output().unwrap();
    fails_saying(&out, 2, "schema version 99");
}

/// A server that only takes passwords over TCP, with a role that may log in but not create
/// tables, and a database owned by another.
fn password_server(d: &Path) -> (db::pg::Cluster, u16) {
    let port = free_port();
    let hba = vec!["host all all 127.0.0.1/32 scram-sha-256".into()];
    let c = tcp_server(d, "127.0.0.1", port, hba, None);
    sql(
        &c,
        "postgres",
        "CREATE ROLE team LOGIN PASSWORD 'teampw'; CREATE ROLE guest LOGIN PASSWORD 'guestpw'",
    );
    sql(&c, "postgres", "CREATE DATABASE teamdb OWNER team");
    sql(&c, "teamdb", "REVOKE CREATE ON SCHEMA public FROM PUBLIC");
    (c, port)
}

/// Unreachable, a wrong password, no rights to create the schema: one line naming the cause
/// and the fix, exit 2, for `history` and for a run, whose result is still printed and kept
/// in the local store, pending, until `store push` sends it. A password from PGPASSWORD or a
/// private ~/.pgpass is taken; a ~/.pgpass others can read is not, as libpq does.
#[test]
fn a_misconfigured_team_store_fails_in_one_line_and_the_run_is_kept() {
    if !have_postgres() {
        return;
    }
    let _one = CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    let d = open_dir();
    let (_c, port) = password_server(d.path());
    let at = |who: &str| format!("postgresql://{who}@127.0.0.1:{port}/teamdb");
    let closed = format!("postgresql://team:teampw@127.0.0.1:{}/teamdb", free_port());
    for (url, want) in [
        (closed.as_str(), "cannot connect"),
        (
            &at("team:wrong"),
            "password authentication failed for user team",
        ),
        (
            &at("guest:guestpw"),
            "GRANT CREATE ON SCHEMA public TO guest",
        ),
    ] {
        let out = vb(url).args(["history"]).output().unwrap();
        let err = fails_saying(&out, 2, want);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            !err.contains("teampw") && !err.contains(":wrong@"),
            "a password shown: {err}"
        );
    }
    // A run on a wrong password: shown, exit 2, kept locally and pushed later.
    let local = d.path().join("local.db");
    let out = vb(&at("team:wrong"))
        .env("VOLBENCH_LOCAL_STORE", &local)
        .args([
            "run",
            "--ioengine=null",
            "--runtime=200ms",
            "--label",
            "kept",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("IOPS"));
    assert_eq!(
        err.matches("password authentication failed").count(),
        1,
        "{err}"
    );
    assert!(err.contains("volbench store push"), "{err}");
    let push = |to: &str| {
        ok_stdout(
            volbench()
                .args(["store", "push", "--local"])
                .arg(&local)
                .args(["--to", to]),
        )
    };
    assert!(push(&at("team:teampw")).starts_with("1 added"));
    assert!(push(&at("team:teampw")).starts_with("nothing to push"));
    assert_eq!(
        history(&at("team:teampw"), &["--label", "kept"])
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // The password from the environment, then from a private password file.
    let rows = ok_json(vb(&at("team")).env("PGPASSWORD", "teampw").args([
        "history",
        "--output-format",
        "json",
    ]));
    assert_eq!(rows.as_array().unwrap().len(), 1);
    let home = tmpdir();
    let pass = home.path().join(".pgpass");
    std::fs::write(&pass, format!("127.0.0.1:{port}:teamdb:team:teampw\n")).unwrap();
    std::fs::set_permissions(&pass, std::fs::Permissions::from_mode(0o600)).unwrap();
    let with_home = || {
        vb(&at("team"))
            .env("HOME", home.path())
            .env_remove("PGPASSWORD")
            .args(["history"])
            .output()
            .unwrap()
    };
    let out = with_home();
    succeeded(&out, "");
    std::fs::set_permissions(&pass, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = with_home();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("chmod 0600"), "{err}");
}

/// TLS where the server asks for it: a server that takes only TLS connections is reached with
/// no sslmode (libpq's default, prefer), `sslmode=require` and with `verify-full` against its
/// certificate; `disable` is turned away,
/// and `verify-full` under a name the certificate does not hold fails.
#[test]
fn tls_is_used_as_sslmode_asks() {
    if !have_postgres() {
        return;
    }
    require_tool!("openssl");
    let _one = CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    let d = open_dir();
    let (crt, key) = (d.path().join("server.crt"), d.path().join("server.key"));
    let st = Std::new("openssl")
        .args([
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-keyout",
        ])
        .arg(&key)
        .arg("-out")
        .arg(&crt)
        .output()
        .unwrap();
    succeeded(&st, "");
    let port = free_port();
    let hba = vec![
        "hostnossl all all 127.0.0.1/32 reject".into(),
        "hostssl all all 127.0.0.1/32 trust".into(),
    ];
    let _c = tcp_server(d.path(), "127.0.0.1", port, hba, Some((crt.clone(), key)));
    let user = if is_root() { "postgres" } else { "root" };
    let url = |host: &str, mode: &str| {
        format!(
            "postgresql://{user}@{host}:{port}/postgres?sslmode={mode}&sslrootcert={}",
            crt.display()
        )
    };
    // No sslmode: libpq's default, prefer, takes the TLS this server insists on.
    let default = format!("postgresql://{user}@127.0.0.1:{port}/postgres");
    for good in [
        default,
        url("127.0.0.1", "require"),
        url("localhost", "verify-full"),
        url("127.0.0.1", "verify-ca"),
    ] {
        let out = vb(&good).args(["history"]).output().unwrap();
        succeeded(&out, format_args!("{good}"));
    }
    let out = vb(&url("127.0.0.1", "disable"))
        .args(["history"])
        .output()
        .unwrap();
    let err = fails_saying(&out, 2, "pg_hba.conf");
    assert_eq!(err.lines().count(), 1, "{err}");
    let out = vb(&url("127.0.0.1", "verify-full"))
        .args(["history"])
        .output()
        .unwrap();
    let err = fails_saying(&out, 2, "certificate");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// The server goes away while a sweep is being stored point by point: the sweep still ends,
/// says in one line where its result went, and exits 0 (the store was fine when it started);
/// once the server is back, `store push` replaces the partial entry with the whole sweep.
#[test]
fn a_store_lost_mid_sweep_keeps_the_sweep_locally_until_pushed() {
    if !have_postgres() {
        return;
    }
    let _one = CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    let d = open_dir();
    let c = db::pg::Cluster::start(d.path()).unwrap();
    let pg = c.url();
    let local = d.path().join("local.db");
    let child = Std::new(env!("CARGO_BIN_EXE_volbench"))
        .env("VOLBENCH_STORE", &pg)
        .env("VOLBENCH_LOCAL_STORE", &local)
        .args([
            "sweep",
            "--ioengine=null",
            "--runtime=1s",
            "--numjobs=1,2,3,4",
            "-q",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The first point is stored after about a second: then the server goes.
    let t0 = Instant::now();
    let mut client = postgres::Client::connect(&pg, postgres::NoTls).unwrap();
    loop {
        let n: i64 = client
            .query_opt("SELECT count(*) FROM volbench_entries", &[])
            .ok()
            .flatten()
            .map_or(0, |r| r.get(0));
        if n == 1 {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "the sweep stored nothing"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(client);
    c.stop_server();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(err.matches("volbench store push").count(), 1, "{err}");
    let lite = local.display().to_string();
    let kept = history(&lite, &[]);
    assert_eq!(kept[0]["points"], 4, "{kept}");
    assert_eq!(kept[0]["status"], "complete");
    c.start_server().unwrap();
    let said = ok_stdout(volbench().args(["store", "push", "--local"]).arg(&local));
    assert!(said.contains("1 replaced"), "{said}");
    let team = history(&pg, &[]);
    assert_eq!(team.as_array().unwrap().len(), 1, "{team}");
    assert_eq!(team[0]["points"], 4);
    assert_eq!(team[0]["uid"], kept[0]["uid"]);
}

/// Twelve hosts (network namespaces on a bridge, each its own hostname) run and store at once
/// into one server listening on the bridge, on an empty database (so all twelve race to make
/// the schema): twelve entries, one per host, each the very document its run wrote out.
#[test]
fn twelve_hosts_store_at_once_and_nothing_is_lost_doubled_or_mixed() {
    require_root!();
    require_tool!("ip");
    if !have_postgres() {
        return;
    }
    let _one = CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    const N: usize = 12;
    let hosts = common::hosts::Hosts::new(N);
    let d = open_dir();
    let port = free_port();
    let hba = vec![format!("host all all {} scram-sha-256", hosts.subnet())];
    let c = tcp_server(d.path(), &hosts.gateway(), port, hba, None);
    sql(&c, "postgres", "CREATE ROLE team LOGIN PASSWORD 'teampw'");
    sql(&c, "postgres", "CREATE DATABASE results OWNER team");
    let url = format!(
        "postgresql://team:teampw@{}:{port}/results",
        hosts.gateway()
    );
    let runs: Vec<_> = (0..N)
        .map(|i| {
            let out = d.path().join(format!("out{i}.json"));
            let child = hosts
                .command(i, env!("CARGO_BIN_EXE_volbench"))
                .args([
                    "run",
                    "--ioengine=psync",
                    "--rw=randrw",
                    "--size=4m",
                    "--runtime=1s",
                ])
                .arg(format!(
                    "--filename={}",
                    d.path().join(format!("h{i}.dat")).display()
                ))
                .args(["--label", &format!("w{i}"), "--store", &url, "-q"])
                .args(["--output-format=volbench-json", "--output"])
                .arg(&out)
                .env(
                    "VOLBENCH_LOCAL_STORE",
                    d.path().join(format!("local{i}.db")),
                )
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            (child, out)
        })
        .collect();
    let mut written = Vec::new();
    for (child, out) in runs {
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success() && !err.contains("store"), "{err}");
        written.push(serde_json::from_slice::<Value>(&std::fs::read(out).unwrap()).unwrap());
    }
    let rows = history(&url, &[]);
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), N, "{rows:?}");
    let mut hostnames: Vec<&str> = rows
        .iter()
        .map(|r| r["hostname"].as_str().unwrap())
        .collect();
    hostnames.sort_unstable();
    let mut want: Vec<String> = (0..N).map(|i| format!("emuhost{i}")).collect();
    want.sort_unstable();
    assert_eq!(hostnames, want);
    for r in rows {
        let label = r["label"].as_str().unwrap();
        let i: usize = label[1..].parse().unwrap();
        assert_eq!(r["hostname"], format!("emuhost{i}"), "{r}");
        let id = r["id"].to_string();
        let mut doc: Value = serde_json::from_str(&ok_stdout(vb(&url).args([
            "export",
            &id,
            "--output-format",
            "json",
        ])))
        .unwrap();
        doc.as_object_mut().unwrap().remove("kind");
        assert!(doc == written[i], "entry {id} is not what host {i} wrote");
        assert_eq!(
            history(&url, &["--host", &format!("emuhost{i}")])
                .as_array()
                .unwrap()
                .len(),
            1
        );
    }
}

/// Every string a result can be read back as, from store `s`'s entry `id`: show, both exports,
/// and the raw stored bytes, decompressed.
fn everything_shown(s: &str, id: &str) -> String {
    let mut all = String::new();
    for args in [
        vec!["show", id],
        vec!["export", id, "--format", "json"],
        vec!["export", id, "--format", "html"],
    ] {
        all += &ok_stdout(vb(s).args(&args));
    }
    all
}

/// A password given in any form libpq takes (URL user information, `?password=`, a quoted
/// key=value pair with blanks around `=`) connects, and reaches neither the stored documents
/// (read raw from the database), nor what show, export and serve print, nor "saved as"; an
/// unencoded '@' in a password is refused in one line that shows none of it (issue 52).
#[test]
fn a_password_in_any_form_connects_and_is_never_stored_or_shown() {
    if !have_postgres() {
        return;
    }
    let _one = CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    let d = open_dir();
    let (c, port) = password_server(d.path());
    let forms = [
        format!("postgresql://team:teampw@127.0.0.1:{port}/teamdb"),
        format!("postgresql://team@127.0.0.1:{port}/teamdb?password=teampw"),
        format!("host = 127.0.0.1 port={port} user=team password = 'teampw' dbname=teamdb"),
    ];
    for (i, s) in forms.iter().enumerate() {
        let label = format!("form{i}");
        let out = vb(s)
            .args([
                "run",
                "--ioengine=null",
                "--runtime=200ms",
                "--label",
                &label,
            ])
            .args(["--store", s])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{s}: {err}");
        assert!(err.contains("saved as") && !err.contains("teampw"), "{err}");
        let shown = everything_shown(s, &format!("form{i}"));
        assert!(!shown.contains("teampw"), "form {i}: a password shown");
        assert!(shown.contains("127.0.0.1"), "the store is still named");
    }
    let mut client = postgres::Client::connect(
        &format!("host=127.0.0.1 port={port} user=team password=teampw dbname=teamdb"),
        postgres::NoTls,
    )
    .unwrap();
    for r in client
        .query("SELECT report FROM volbench_entries", &[])
        .unwrap()
    {
        use std::io::Read;
        let b: Vec<u8> = r.get(0);
        let mut json = String::new();
        flate2::read::ZlibDecoder::new(&b[..])
            .read_to_string(&mut json)
            .unwrap();
        assert!(!json.contains("teampw"), "stored: {json}");
    }
    // serve's pages name the store in every title: without its password.
    let mut child = Std::new(env!("CARGO_BIN_EXE_volbench"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--no-token",
            "--store",
            &forms[0],
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The password on its command line is warned about first (issue 63), then the address.
    let mut line = String::new();
    use std::io::BufRead;
    let mut err = std::io::BufReader::new(child.stderr.take().unwrap());
    while !line.contains("http://") {
        line.clear();
        assert!(err.read_line(&mut line).unwrap() > 0, "serve ended");
        assert!(!line.contains("teampw"), "{line}");
    }
    let addr = line
        .split("http://")
        .nth(1)
        .unwrap()
        .split('/')
        .next()
        .unwrap();
    for path in ["/", "/result/1", "/history.json"] {
        let (code, _, body) = http(addr, "GET", path, "");
        assert_eq!(code, 200, "{path}");
        assert!(!body.contains("teampw"), "{path}");
    }
    interrupt(&child);
    let _ = child.wait();
    let out = vb(&format!(
        "postgresql://team:tea@mpw@127.0.0.1:{port}/teamdb"
    ))
    .args(["history"])
    .output()
    .unwrap();
    let err = fails_saying(&out, 2, "%40");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(!err.contains("mpw"), "{err}");
    drop(c);
}

/// A result kept locally because its store was down, the password only in `$VOLBENCH_STORE`:
/// plain `store push` (no --to) finds the password there, since the pending mark holds the
/// store without it.
#[test]
fn store_push_takes_the_password_from_volbench_store() {
    if !have_postgres() {
        return;
    }
    let _one = CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    let d = open_dir();
    let port = free_port();
    let url = format!("postgresql://team:teampw@127.0.0.1:{port}/teamdb?connect_timeout=3");
    let local = d.path().join("local.db");
    let out = vb(&url)
        .env("VOLBENCH_LOCAL_STORE", &local)
        .args(["run", "--ioengine=null", "--runtime=200ms", "-q"])
        .output()
        .unwrap();
    let err = fails_saying(&out, 2, "volbench store push");
    assert!(!err.contains("teampw"), "{err}");
    let hba = vec!["host all all 127.0.0.1/32 scram-sha-256".into()];
    let c = tcp_server(d.path(), "127.0.0.1", port, hba, None);
    sql(&c, "postgres", "CREATE ROLE team LOGIN PASSWORD 'teampw'");
    sql(&c, "postgres", "CREATE DATABASE teamdb OWNER team");
    let said = ok_stdout(
        volbench()
            .env("VOLBENCH_STORE", &url)
            .args(["store", "push", "--local"])
            .arg(&local),
    );
    assert!(said.starts_with("1 added"), "{said}");
    assert_eq!(history(&url, &[]).as_array().unwrap().len(), 1);
}

/// The password file is matched as libpq matches it over a Unix socket: by the socket
/// directory's path when it is not the default one ("localhost" is for the default only).
#[test]
fn the_password_file_matches_a_socket_by_its_directory() {
    if !have_postgres() {
        return;
    }
    let _one = CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    let d = open_dir();
    let hba = vec!["local all team scram-sha-256".into()];
    let c = tcp_server(d.path(), "127.0.0.1", free_port(), hba, None);
    sql(&c, "postgres", "CREATE ROLE team LOGIN PASSWORD 'teampw'");
    sql(&c, "postgres", "CREATE DATABASE teamdb OWNER team");
    let (sock, port, _) = c.parts();
    let home = tmpdir();
    let pass = home.path().join(".pgpass");
    let history_with = |line: String| {
        std::fs::write(&pass, line).unwrap();
        std::fs::set_permissions(&pass, std::fs::Permissions::from_mode(0o600)).unwrap();
        vb(&format!("host={sock} port={port} user=team dbname=teamdb"))
            .env("HOME", home.path())
            .env_remove("PGPASSWORD")
            .env_remove("PGPASSFILE")
            .args(["history"])
            .output()
            .unwrap()
    };
    let out = history_with(format!("localhost:{port}:teamdb:team:teampw\n"));
    fails_saying(&out, 2, "password");
    let out = history_with(format!("{sock}:{port}:teamdb:team:teampw\n"));
    succeeded(&out, "");
}

/// serve on PostgreSQL stopped by SIGTERM or Ctrl-C after answering closes its kept
/// connections and exits on its own: the client's own runtime blocked on closing inside
/// serve's, which tokio refuses, and a trial saw the server panic there.
#[test]
fn serve_on_postgres_stops_cleanly_after_answering() {
    if !have_postgres() {
        return;
    }
    let _one = CLUSTER.lock().unwrap_or_else(|p| p.into_inner());
    let d = open_dir();
    let c = db::pg::Cluster::start(d.path()).unwrap();
    let pg = c.url();
    succeeded(&null_run(&pg, "served", &[]), "");
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let (mut serve, addr, mut err) = serve_on(&pg);
        let (code, _, page) = http(&addr, "GET", "/", "");
        assert!(code == 200 && page.contains("served"), "{code}: {page}");
        // SAFETY: kill(2) on the pid of a child this test started and has not reaped.
        unsafe { libc::kill(serve.id() as i32, signal) };
        let status = serve.wait().unwrap();
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut err, &mut rest).unwrap();
        assert!(
            status.code().is_some_and(|c| c != 101) && !rest.contains("panicked"),
            "signal {signal}: {status:?}: {rest}"
        );
    }
}
