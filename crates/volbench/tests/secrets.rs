//! Secrets (issue 63): a password under a percent-encoded key (`?pass%77ord=PW`, which libpq
//! and volbench decode to `password` and connect with) reaches no output, no stored byte, no
//! export, report, copy or page; a password or token given on the command line is warned about
//! once, and is gone from /proc/PID/cmdline while volbench runs.

mod common;

use common::*;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command as Std, Stdio};
use std::time::{Duration, Instant};

/// The role's password: distinctive, so any leak of it is found.
const PW: &str = "Vq8teamPw3x";

/// A token long enough for serve (16 characters or more), as distinctive.
const TOKEN: &str = "Tk9serveToken7qLm";

/// The warning a password on the command line gets.
const PW_WARNING: &str = "a password on the command line is visible to other users";

/// The warning serve's --token gets.
const TOKEN_WARNING: &str = "--token on the command line is visible to other users";

/// A throwaway server that takes passwords over TCP only, with role `team` owning `teamdb`;
/// `None` when there is no PostgreSQL here (a failure under CI, naming what is missing).
fn password_server(d: &Path) -> Option<(db::pg::Cluster, u16)> {
    if db::pg::bindir().is_err() {
        common::cannot_run(
            "needs PostgreSQL's server (initdb, postgres: apt-get install postgresql)",
        );
        return None;
    }
    let port = free_port();
    let serving = db::pg::Serving {
        listen: Some("127.0.0.1".into()),
        port: Some(port),
        hba: vec!["host all all 127.0.0.1/32 scram-sha-256".into()],
        tls: None,
    };
    let c = db::pg::Cluster::start_with(d, &serving).unwrap();
    let mut admin = postgres::Client::connect(&c.url(), postgres::NoTls).unwrap();
    // Two statements: CREATE DATABASE may not share a transaction.
    for q in [
        format!("CREATE ROLE team LOGIN PASSWORD '{PW}'"),
        "CREATE DATABASE teamdb OWNER team".to_string(),
    ] {
        admin.batch_execute(&q).unwrap();
    }
    Some((c, port))
}

/// Stdout and stderr of a finished command, which must have succeeded.
fn said(out: &std::process::Output, what: &str) -> String {
    let stdout = succeeded(out, what);
    stdout + &String::from_utf8_lossy(&out.stderr)
}

/// Every stored row as PostgreSQL's text of it, and every stored report decompressed.
fn stored_bytes(port: u16, label: &str) -> String {
    let mut client = postgres::Client::connect(
        &format!("host=127.0.0.1 port={port} user=team password={PW} dbname=teamdb"),
        postgres::NoTls,
    )
    .unwrap();
    let mut all = String::new();
    for r in client
        .query("SELECT t::text, t.report FROM volbench_entries t", &[])
        .unwrap()
    {
        all += &r.get::<_, String>(0);
        let b: Vec<u8> = r.get(1);
        flate2::read::ZlibDecoder::new(&b[..])
            .read_to_string(&mut all)
            .unwrap();
    }
    assert!(all.contains(label), "the result was not stored: {all}");
    all
}

/// What each reader of store `s` shows of the result labelled `label`: show, history, both
/// exports, the HTML report, and a copy into a SQLite file read back.
fn everything_read_back(s: &str, label: &str, dir: &Path) -> String {
    let mut all = String::new();
    for args in [
        vec!["show", label],
        vec!["history", "--output-format", "json"],
        vec!["export", label, "--format", "json"],
        vec!["export", label, "--format", "html"],
        vec!["report", label, "--output", "-"],
    ] {
        all += &said(
            &volbench()
                .args(&args)
                .args(["--store", s])
                .output()
                .unwrap(),
            args[0],
        );
    }
    let lite = dir.join(format!("copy-{label}.db"));
    let lite = lite.to_str().unwrap();
    let copy = ["store", "copy", "--from", s, "--to", lite];
    all += &said(&volbench().args(copy).output().unwrap(), "store copy");
    let back = ["export", label, "--format", "json", "--store", lite];
    all + &said(
        &volbench().args(back).output().unwrap(),
        "export from the copy",
    )
}

/// A running `volbench serve`: the stderr lines up to the one naming its address, and the
/// address; stopped (Ctrl-C, then killed after 5 s) when dropped.
struct Server {
    child: Child,
    lines: Vec<String>,
    addr: String,
}

impl Server {
    /// Starts `volbench ARGS` and reads its stderr up to the line that names its address.
    fn start(args: &[&str]) -> Server {
        let child = Std::new(env!("CARGO_BIN_EXE_volbench"))
            .args(args)
            .env("VOLBENCH_STORE", test_store())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut s = Server {
            child,
            lines: Vec::new(),
            addr: String::new(),
        };
        let mut err = BufReader::new(s.child.stderr.take().unwrap());
        while s.addr.is_empty() {
            let mut line = String::new();
            let n = err.read_line(&mut line).unwrap_or(0);
            assert!(n > 0, "serve ended before it said where: {:?}", s.lines);
            if let Some(url) = line.split_whitespace().find(|w| w.starts_with("http://")) {
                s.addr = url["http://".len()..].split('/').next().unwrap().into();
            }
            s.lines.push(line.trim_end().to_string());
        }
        // The rest of stderr is drained so the server never blocks on it.
        std::thread::spawn(move || std::io::copy(&mut err, &mut std::io::sink()));
        s
    }

    /// Its command line as every user of the machine reads it.
    fn cmdline(&self) -> String {
        let raw = std::fs::read(format!("/proc/{}/cmdline", self.child.id())).unwrap();
        String::from_utf8_lossy(&raw).replace('\0', " ")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        interrupt(&self.child);
        let t = Instant::now();
        while self.child.try_wait().ok().flatten().is_none() && t.elapsed() < Duration::from_secs(5)
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The attack: `?pass%77ord=PW` connects (the key decodes to `password`), and PW then
/// reached "saved as", the --output file, the stored bytes, export, report, copy and serve's
/// pages. Each is read here, for the key spelled with a percent-encoded letter and spelled
/// all in percent-encoding (upper-case hex).
#[test]
fn a_percent_encoded_password_key_reaches_no_output_and_no_stored_byte() {
    let d = open_dir();
    let Some((c, port)) = password_server(d.path()) else {
        return;
    };
    for (i, key) in ["pass%77ord", "%70%61%73%73%77%6F%72%64"]
        .iter()
        .enumerate()
    {
        let label = format!("enc{i}");
        let store = format!("postgresql://team@127.0.0.1:{port}/teamdb?{key}={PW}");
        let report = d.path().join("out.json");
        let out = volbench()
            .args([
                "run",
                "--ioengine=null",
                "--runtime=200ms",
                "--label",
                &label,
            ])
            .args(["--store", &store, "--output"])
            .arg(&report)
            .output()
            .unwrap();
        let printed = said(&out, "run");
        assert!(printed.contains("saved as"), "{printed}");
        assert!(!printed.contains(PW), "{key}: printed: {printed}");
        assert_eq!(printed.matches(PW_WARNING).count(), 1, "{printed}");
        let written = std::fs::read_to_string(&report).unwrap();
        assert!(!written.contains(PW), "{key}: --output: {written}");
        assert!(!stored_bytes(port, &label).contains(PW), "{key}: stored");
        let read = everything_read_back(&store, &label, d.path());
        assert!(!read.contains(PW), "{key}: read back: {read}");
        assert!(
            read.contains("127.0.0.1"),
            "the store is still named: {read}"
        );
    }
    let store = format!("postgresql://team@127.0.0.1:{port}/teamdb?pass%77ord={PW}");
    let server = Server::start(&[
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--no-token",
        "--store",
        &store,
    ]);
    let shown = server.cmdline();
    assert!(!shown.contains(PW), "/proc/PID/cmdline: {shown}");
    assert!(
        shown.contains("pass%77ord=xxxx"),
        "the argument kept its shape: {shown}"
    );
    assert_eq!(
        server
            .lines
            .iter()
            .filter(|l| l.contains(PW_WARNING))
            .count(),
        1,
        "{:?}",
        server.lines
    );
    for path in ["/", "/result/1", "/history.json"] {
        let (code, _, body) = http(&server.addr, "GET", path, "");
        assert_eq!(code, 200, "{path}: {body}");
        assert!(!body.contains(PW), "{path}: {body}");
    }
    drop(server);
    drop(c);
}

/// `serve --token T` warns once, naming --token-file, and while it runs /proc/PID/cmdline
/// shows the token's place overwritten; the server still takes the token it was given.
#[test]
fn a_token_on_the_command_line_is_warned_about_once_and_leaves_the_cmdline() {
    let d = tmpdir();
    let store = d.path().join("results.db");
    let out = volbench()
        .args(["run", "--ioengine=null", "--runtime=100ms", "-q", "--store"])
        .arg(&store)
        .output()
        .unwrap();
    succeeded(&out, "a result to serve");
    let store = store.to_str().unwrap();
    let args = [
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--token",
        TOKEN,
        "--store",
        store,
    ];
    let server = Server::start(&args);
    let shown = server.cmdline();
    assert!(!shown.contains(TOKEN), "/proc/PID/cmdline: {shown}");
    assert!(
        shown.contains(&format!("--token {}", "x".repeat(TOKEN.len()))),
        "{shown}"
    );
    let warned: Vec<_> = server
        .lines
        .iter()
        .filter(|l| l.contains(TOKEN_WARNING))
        .collect();
    assert_eq!(warned.len(), 1, "{:?}", server.lines);
    assert!(warned[0].contains("--token-file"), "{}", warned[0]);
    assert!(
        server.lines.iter().all(|l| !l.contains(TOKEN)),
        "{:?}",
        server.lines
    );
    assert_eq!(
        http(&server.addr, "GET", "/", "").0,
        401,
        "no token, no page"
    );
    let (code, _, _) = http(&server.addr, "GET", &format!("/?token={TOKEN}"), "");
    assert!(
        code == 200 || code == 303,
        "the given token still opens it: {code}"
    );
    drop(server);
}

/// A password in a URL's user information is warned about once, naming PGPASSWORD and
/// ~/.pgpass, by any command (here one that then fails: no server listens there), and the
/// warning itself does not repeat it.
#[test]
fn a_password_in_a_url_is_warned_about_once_whatever_the_command() {
    let port = free_port();
    let url = format!("postgresql://team:{PW}@127.0.0.1:{port}/vb");
    let out = volbench()
        .args(["history", "--store", &url])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.matches(PW_WARNING).count(), 1, "{err}");
    assert!(
        err.contains("PGPASSWORD") && err.contains(".pgpass"),
        "{err}"
    );
    assert!(!err.contains(PW), "{err}");
}
