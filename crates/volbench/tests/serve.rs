//! `volbench serve` (issue 47): the history as a page that lists what was stored, a selection
//! of results that opens their comparison (in headless Chromium, charts drawn), error pages
//! for malformed requests with the server still answering, 200 requests at once, and the
//! token a non-loopback address needs.

mod common;

use common::*;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command as Std, Stdio};
use std::time::{Duration, Instant};

/// A running `volbench serve`, stopped when dropped.
struct Server {
    child: Child,
    addr: String,
    /// The address it printed, token included where it made one.
    url: String,
}

impl Server {
    fn start(store: &Path, listen: &str) -> Server {
        let mut child = Std::new(env!("CARGO_BIN_EXE_volbench"))
            .args(["serve", "--listen", listen, "--store"])
            .arg(store)
            .env("VOLBENCH_STORE", test_store())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // "serving STORE at http://ADDR/... (read-only; ...)"
        let mut err = child.stderr.take().unwrap();
        let mut line = Vec::new();
        let mut b = [0u8; 1];
        while err.read(&mut b).unwrap_or(0) == 1 && b[0] != b'\n' {
            line.push(b[0]);
        }
        let line = String::from_utf8_lossy(&line).into_owned();
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("serve said: {line}"))
            .to_string();
        let addr = url["http://".len()..]
            .split('/')
            .next()
            .unwrap()
            .to_string();
        Server { child, addr, url }
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

fn browse(browser: &str, profile: &Path, url: &str, shot: Option<&Path>) -> (String, String) {
    let mut c = Std::new(browser);
    c.args(BROWSER_FLAGS)
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--enable-logging=stderr")
        .arg("--v=0");
    match shot {
        Some(p) => c
            .arg("--window-size=1300,1600")
            .arg(format!("--screenshot={}", p.display())),
        None => c.arg("--dump-dom"),
    };
    let o = c.arg(url).output().unwrap();
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// How many charts a report page carries (its data block lists them).
fn charts(html: &str) -> usize {
    let start = html
        .find("<script id=\"volbench-data\" type=\"application/json\">")
        .expect("a report page");
    let rest = &html[start..];
    let body = &rest[rest.find('>').unwrap() + 1..rest.find("</script>").unwrap()];
    let v: serde_json::Value = serde_json::from_str(body).unwrap();
    v["charts"].as_array().unwrap().len()
}

/// Three stored results: two runs and a sweep.
fn store_with_results(d: &Path) -> PathBuf {
    let store = d.join("results.db");
    for (label, rw) in [("read", "randread"), ("write", "randwrite")] {
        ok_stdout(volbench().env("VOLBENCH_STORE", &store).args([
            "run",
            "--ioengine=null",
            "--runtime=1s",
            &format!("--rw={rw}"),
            "--label",
            label,
            "-q",
        ]));
    }
    ok_stdout(volbench().env("VOLBENCH_STORE", &store).args([
        "sweep",
        "--ioengine=null",
        "--runtime=300ms",
        "--numjobs=1,2",
        "-q",
    ]));
    store
}

/// The history page lists what was stored; ticking two results (the page's `pick` address,
/// which ticks its boxes as a click would) gives the comparison address, and that page opens
/// with every chart drawn. Screenshots are kept in target/tmp/serve-screenshots.
#[test]
fn the_history_page_lists_results_and_two_picked_open_their_comparison() {
    let Some(browser) = chromium() else {
        cannot_run!("needs chromium (apt-get install chromium)");
    };
    let d = tmpdir();
    let store = store_with_results(d.path());
    let s = Server::start(&store, "127.0.0.1:0");
    let (code, _, body) = http(&s.addr, "GET", "/", "");
    assert_eq!(code, 200);
    for want in [
        "href=\"/result/1\"",
        "href=\"/result/2\"",
        "href=\"/result/3\"",
        "randwrite 4k",
    ] {
        assert!(body.contains(want), "{want} missing: {body}");
    }
    let profile = d.path().join("profile");
    let (dom, log) = browse(
        browser,
        &profile,
        &format!("http://{}/?pick=1,2", s.addr),
        None,
    );
    assert!(!log.contains("Uncaught"), "{log}");
    assert!(
        dom.contains("data-compare=\"/compare?id=1&amp;id=2\""),
        "{dom}"
    );
    assert!(dom.contains("(2 picked)"), "{dom}");
    let cmp = format!("http://{}/compare?id=1&id=2", s.addr);
    let (dom, log) = browse(browser, &profile, &cmp, None);
    assert!(!log.contains("Uncaught"), "{log}");
    let (_, _, html) = http(&s.addr, "GET", "/compare?id=1&id=2", "");
    let charts = charts(&html);
    assert!(charts > 0, "no chart on the comparison page");
    assert!(
        dom.contains(&format!("data-charts-drawn=\"{charts}\"")),
        "not all {charts} drawn: {log}"
    );
    assert!(dom.contains("read") && dom.contains("write") && dom.contains("history"));
    let shots = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("serve-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    for (name, url) in [
        ("history", format!("http://{}/", s.addr)),
        ("compare", cmp),
        ("result", format!("http://{}/result/3", s.addr)),
    ] {
        let shot = shots.join(format!("{name}.png"));
        let _ = std::fs::remove_file(&shot);
        browse(browser, &profile, &url, Some(&shot));
        assert!(
            std::fs::metadata(&shot).is_ok_and(|m| m.len() > 10_000),
            "{name}: no screenshot"
        );
    }
}

/// Malformed requests get an error page with its status, never a crash: the server answers
/// the history after each; a run stores into the same SQLite file while it serves.
#[test]
fn malformed_requests_get_error_pages_and_the_server_keeps_answering() {
    let d = tmpdir();
    let store = store_with_results(d.path());
    let s = Server::start(&store, "127.0.0.1:0");
    let long = format!("/?label={}", "x".repeat(5000));
    for (method, path, want) in [
        ("GET", "/result/abc", 404),
        ("GET", "/result/-1", 404),
        ("GET", "/result/99999999999999999999999", 404),
        ("GET", "/result/42", 404),
        ("GET", "/../../etc/passwd", 404),
        ("GET", "/compare?id=1", 400),
        ("GET", "/compare?id=1&id=zz", 404),
        ("GET", long.as_str(), 414),
        ("POST", "/", 405),
        ("DELETE", "/result/1", 405),
    ] {
        let (code, _, body) = http(&s.addr, method, path, "");
        assert_eq!(
            code,
            want,
            "{method} {}: {body}",
            &path[..path.len().min(60)]
        );
        assert!(body.contains("<h1>"), "{body}");
        assert!(!body.contains(
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        ));
        assert_eq!(
            http(&s.addr, "GET", "/", "").0,
            200,
            "after {method} {}",
            &path[..path.len().min(60)]
        );
    }
    // A filter that matches nothing is an empty table, not an error.
    let (code, _, body) = http(&s.addr, "GET", "/?host=nowhere&kind=run", "");
    assert_eq!(code, 200);
    assert!(body.contains("0 results"), "{body}");
    let (code, _, json) = http(&s.addr, "GET", "/history.json?label=read", "");
    assert_eq!(code, 200);
    let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 1);
    // HEAD is answered as GET is, without the page.
    let (code, _, body) = http(&s.addr, "HEAD", "/", "");
    assert_eq!((code, body.as_str()), (200, ""));
    // serve holds no SQLite connection between requests: a run stores beside it, and the
    // history shows it at once.
    let out = volbench()
        .env("VOLBENCH_STORE", &store)
        .args([
            "run",
            "--ioengine=null",
            "--runtime=200ms",
            "--label",
            "beside",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !err.contains("store"), "{err}");
    let (_, _, body) = http(&s.addr, "GET", "/", "");
    assert!(
        body.contains("4 results") && body.contains("beside"),
        "{body}"
    );
}

/// 200 requests at once are all answered.
#[test]
fn two_hundred_concurrent_requests_are_answered() {
    let d = tmpdir();
    let store = store_with_results(d.path());
    let s = Server::start(&store, "127.0.0.1:0");
    let threads: Vec<_> = (0..200)
        .map(|i| {
            let addr = s.addr.clone();
            std::thread::spawn(move || {
                let path = match i % 3 {
                    0 => "/".to_string(),
                    1 => format!("/result/{}", 1 + i % 3),
                    _ => "/history.json".to_string(),
                };
                http(&addr, "GET", &path, "").0
            })
        })
        .collect();
    let codes: Vec<u16> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert!(codes.iter().all(|&c| c == 200), "{codes:?}");
}

/// On an address other hosts reach, serve makes a token and prints it in the address; a
/// request without it gets 401, one with it gets the page and a cookie, which then suffices.
#[test]
fn a_non_loopback_address_needs_the_token() {
    let d = tmpdir();
    let store = store_with_results(d.path());
    let s = Server::start(&store, "0.0.0.0:0");
    let token = s
        .url
        .split("?token=")
        .nth(1)
        .expect("a token in the address")
        .to_string();
    assert!(token.len() >= 32, "{}", s.url);
    let port = s.addr.rsplit(':').next().unwrap();
    let addr = format!("127.0.0.1:{port}");
    let (code, _, body) = http(&addr, "GET", "/", "");
    assert_eq!(code, 401, "{body}");
    assert!(!body.contains(&token));
    assert_eq!(http(&addr, "GET", "/?token=wrong", "").0, 401);
    let (code, head, _) = http(&addr, "GET", &format!("/?token={token}"), "");
    assert_eq!(code, 200);
    let cookie = head
        .lines()
        .find_map(|l| l.strip_prefix("Set-Cookie: "))
        .expect("a cookie")
        .split(';')
        .next()
        .unwrap()
        .to_string();
    assert!(head.contains("HttpOnly"));
    let (code, _, _) = http(&addr, "GET", "/result/1", &format!("Cookie: {cookie}\r\n"));
    assert_eq!(code, 200);
}
