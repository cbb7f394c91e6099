//! Every route of the store's site answered without a socket, on a real SQLite store holding
//! real results (the stored-run fixture of `report`): what each page shows, what each bad
//! request gets, what the token opens, and that a label a stranger chose reaches a page only
//! escaped.

use crate::routes::{answer, content_security_policy, Answer, Request, Site, MAX_COMPARE};
use std::path::PathBuf;

const RUN: &str = include_str!("../../report/tests/data/run.json");
const HOSTILE: &str = "<script>alert(1)</script>";
const TOKEN: &str = "a-token-of-20-chars!";

/// A store in a temporary directory with the fixture run stored twice: once labelled
/// `plain`, once with a hostile label. The directory goes with the guard.
fn store() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("results.db");
    let doc = report::read::from_json(RUN).unwrap();
    let mut s = store::Store::open(&path).unwrap();
    assert_eq!(s.insert(&doc, Some("plain"), &[]).unwrap(), 1);
    assert_eq!(s.insert(&doc, Some(HOSTILE), &[]).unwrap(), 2);
    (d, path)
}

fn get(url: &str) -> Request<'_> {
    Request {
        method: "GET",
        url,
        host: Some("127.0.0.1:8080"),
        ..Request::default()
    }
}

fn site(path: PathBuf, token: Option<&str>) -> Site {
    let mut s = Site::new(path, token.map(String::from));
    s.bound = Some("127.0.0.1:8080".parse().unwrap());
    s
}

fn text(a: &Answer) -> String {
    String::from_utf8_lossy(&a.body).into_owned()
}

#[test]
fn the_history_lists_the_stored_results_as_a_page_and_as_json() {
    let (_d, path) = store();
    let s = site(path, None);
    let page = answer(&s, &get("/"));
    assert_eq!(page.status, 200, "{}", text(&page));
    assert!(text(&page).contains("plain"));
    let json = answer(&s, &get("/history.json"));
    assert_eq!((json.status, json.content_type), (200, "application/json"));
    let rows: serde_json::Value = serde_json::from_slice(&json.body).unwrap();
    let ids: Vec<i64> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids.len(), 2, "{rows}");
    assert!(ids.contains(&1) && ids.contains(&2));
    // A filter narrows the rows; a date that is none is the user's to fix (400).
    let one = answer(&s, &get("/history.json?label=plain"));
    let rows: serde_json::Value = serde_json::from_slice(&one.body).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 1, "{rows}");
    assert_eq!(answer(&s, &get("/?since=yesterday-ish")).status, 400);
}

#[test]
fn a_result_and_a_comparison_are_pages_and_what_is_not_there_is_404() {
    let (_d, path) = store();
    let s = site(path, None);
    let one = answer(&s, &get("/result/1"));
    assert_eq!(one.status, 200, "{}", text(&one));
    assert!(text(&one).contains("result #1"));
    let both = answer(&s, &get("/compare?id=1&id=2"));
    assert_eq!(both.status, 200, "{}", text(&both));
    assert!(text(&both).contains("compare #1 #2"));
    for (url, want) in [
        ("/result/99", 404),
        ("/result/abc", 404),
        ("/result/0", 404),
        ("/nowhere", 404),
        ("/compare?id=1", 400),
        ("/compare?id=1&id=99", 404),
    ] {
        assert_eq!(answer(&s, &get(url)).status, want, "{url}");
    }
    let many: String = (0..=MAX_COMPARE).map(|_| "id=1&").collect();
    assert_eq!(answer(&s, &get(&format!("/compare?{many}"))).status, 400);
}

#[test]
fn a_label_a_stranger_chose_reaches_every_page_escaped() {
    let (_d, path) = store();
    let s = site(path, None);
    for url in ["/", "/result/2", "/compare?id=1&id=2"] {
        let a = answer(&s, &get(url));
        assert_eq!(a.status, 200, "{url}");
        let body = text(&a);
        assert!(!body.contains(HOSTILE), "{url} holds the label raw");
        // Every inline script the page runs is allowed by the one fixed policy, and the
        // policy holds no hash of text from a stored result.
        let csp = content_security_policy();
        for js in inline_scripts(&body) {
            assert!(
                csp.contains(&sha256(&js)),
                "{url}: a script of the page is not allowed"
            );
        }
        assert!(!csp.contains(&sha256("alert(1)")), "{csp}");
    }
    assert!(text(&answer(&s, &get("/"))).contains("&lt;script&gt;"));
}

/// The text of each inline script of a page (data blocks, `type=...`, are not scripts).
fn inline_scripts(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = body;
    while let Some(i) = rest.find("<script") {
        let open = i + rest[i..].find('>').unwrap() + 1;
        let close = open + rest[open..].find("</script>").unwrap();
        if !rest[i..open].contains("type=") {
            out.push(rest[open..close].to_string());
        }
        rest = &rest[close..];
    }
    out
}

fn sha256(text: &str) -> String {
    use base64::Engine;
    use sha2::Digest;
    let digest = sha2::Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

#[test]
fn the_token_opens_the_site_once_and_the_cookie_after_it() {
    let (_d, path) = store();
    let s = site(path, Some(TOKEN));
    assert_eq!(answer(&s, &get("/")).status, 401);
    assert_eq!(answer(&s, &get("/?token=not-the-token-at-all")).status, 401);
    // The right token sets the cookie and sends the browser on without it in the address.
    let url = format!("/result/1?token={TOKEN}&x=1");
    let enter = answer(&s, &get(&url));
    assert_eq!(enter.status, 303);
    let header = |k: &str| {
        let h = enter.headers.iter().find(|(n, _)| *n == k);
        h.map(|(_, v)| v.clone()).unwrap_or_default()
    };
    assert_eq!(header("Location"), "/result/1?x=1");
    assert!(header("Set-Cookie").contains(&format!("volbench_token={TOKEN}")));
    assert!(header("Set-Cookie").contains("HttpOnly"));
    let cookie = format!("volbench_token={TOKEN}");
    let with = Request {
        cookie: Some(&cookie),
        ..get("/result/1")
    };
    assert_eq!(answer(&s, &with).status, 200);
    // An address that would send the browser to another host goes home instead.
    let away = format!("//evil.example/?token={TOKEN}");
    let a = answer(&s, &get(&away));
    assert!(a.headers.iter().any(|(k, v)| *k == "Location" && v == "/"));
}

#[test]
fn what_a_read_only_server_refuses_before_any_route() {
    let (_d, path) = store();
    let s = site(path, None);
    let post = Request {
        method: "POST",
        ..get("/")
    };
    assert_eq!(answer(&s, &post).status, 405);
    let body = Request {
        body: Some(10),
        ..get("/")
    };
    let a = answer(&s, &body);
    assert!(a.status == 413 && a.close);
    let long = format!("/?label={}", "x".repeat(5000));
    assert_eq!(answer(&s, &get(&long)).status, 414);
    // DNS rebinding: a page elsewhere naming itself 127.0.0.1 still sends its own Host.
    let foreign = Request {
        host: Some("evil.example"),
        ..get("/")
    };
    assert_eq!(answer(&s, &foreign).status, 421);
    let local = Request {
        host: Some("localhost:8080"),
        ..get("/")
    };
    assert_eq!(answer(&s, &local).status, 200);
}

#[test]
fn a_store_that_cannot_be_read_is_503_not_a_crash() {
    let d = tempfile::tempdir().unwrap();
    let bad = d.path().join("results.db");
    std::fs::write(&bad, b"this is not a SQLite file, it is text").unwrap();
    let a = answer(&site(bad, None), &get("/"));
    assert_eq!(a.status, 503, "{}", text(&a));
}

/// The `rel` link of a `Link` header (RFC 8288), if it has one.
fn link(a: &Answer, rel: &str) -> Option<String> {
    let (_, v) = a.headers.iter().find(|(k, _)| *k == "Link")?;
    v.split(", ").find_map(|l| {
        let (url, r) = l.split_once("; ")?;
        (r == format!("rel=\"{rel}\"")).then(|| url.trim_matches(['<', '>']).to_string())
    })
}

/// A store of seven results, labelled `a` and `b` in turn.
fn seven() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("results.db");
    let doc = report::read::from_json(RUN).unwrap();
    let mut s = store::Store::open(&path).unwrap();
    for i in 0..7 {
        s.insert(&doc, Some(if i % 2 == 0 { "a" } else { "b" }), &[])
            .unwrap();
    }
    (d, path)
}

/// history.json pages newest first: following its `next` links visits every row the filter
/// picks once, each link keeping the filter and the page size, the count in a header; the
/// `prev` link of the last page leads back to the page before it.
#[test]
fn history_json_pages_by_its_links_keeping_the_filter() {
    let (_d, path) = seven();
    let s = site(path, None);
    let mut url = "/history.json?label=a&limit=2".to_string();
    let mut seen = Vec::new();
    let mut pages = Vec::new();
    loop {
        let a = answer(&s, &get(&url));
        assert_eq!(a.status, 200, "{url}: {}", text(&a));
        let total = a.headers.iter().find(|(k, _)| *k == "X-Total-Count");
        assert_eq!(total.map(|(_, v)| v.as_str()), Some("4"));
        let rows: serde_json::Value = serde_json::from_slice(&a.body).unwrap();
        seen.extend(
            rows.as_array()
                .unwrap()
                .iter()
                .map(|r| r["id"].as_i64().unwrap()),
        );
        pages.push(url.clone());
        match link(&a, "next") {
            Some(next) => {
                assert!(
                    next.contains("label=a") && next.contains("limit=2"),
                    "{next}"
                );
                url = next;
            }
            None => break,
        }
    }
    assert_eq!(seen, [7, 5, 3, 1]);
    let last = answer(&s, &get(&url));
    let prev = link(&last, "prev").expect("the last page links back");
    let back: serde_json::Value = serde_json::from_slice(&answer(&s, &get(&prev)).body).unwrap();
    let back: Vec<i64> = back
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert_eq!(back, [7, 5]);
    assert!(link(&answer(&s, &get(&prev)), "prev").is_none());
    // before= takes a date as history --before does: it bounds the date as until= does.
    let count = |url: &str| {
        let a = answer(&s, &get(url));
        assert_eq!(a.status, 200, "{url}: {}", text(&a));
        let v: serde_json::Value = serde_json::from_slice(&a.body).unwrap();
        v.as_array().unwrap().len()
    };
    assert_eq!(count("/history.json?label=a&before=2999-01-01"), 4);
    assert_eq!(count("/history.json?label=a&before=2000-01-01"), 0);
    assert_eq!(
        answer(&s, &get("/?before=2999-01-01&until=2999-01-01")).status,
        400
    );
    for bad in [
        "/?before=x",
        "/?after=1e3",
        "/?limit=0",
        "/?limit=1001",
        "/history.json?limit=-1",
        "/?kind=bogus",
    ] {
        assert_eq!(answer(&s, &get(bad)).status, 400, "{bad}");
    }
    // history.json says its error as JSON, for the program that asked.
    let bad = answer(&s, &get("/history.json?limit=-1"));
    assert_eq!(bad.content_type, "application/json");
    let v: serde_json::Value = serde_json::from_slice(&bad.body).unwrap();
    assert!(v["error"].as_str().unwrap().contains("limit"), "{v}");
}

/// The page says how many results the filter picks in all, links to the next page (the
/// filter kept), and offers the kinds to filter by.
#[test]
fn the_history_page_counts_the_filter_and_links_the_next_page() {
    let (_d, path) = seven();
    let s = site(path, None);
    let page = text(&answer(&s, &get("/?label=b&limit=2")));
    assert!(page.contains("3 results match the filter"), "{page}");
    assert!(page.contains("#6 to #4 shown, newest first"), "{page}");
    assert!(
        page.contains("href=\"&#x2f;?label=b&amp;limit=2&amp;before=4\""),
        "{page}"
    );
    assert!(!page.contains("newer</a>"), "{page}");
    assert!(page.contains("<option>durability</option>"), "{page}");
    let all = text(&answer(&s, &get("/")));
    assert!(all.contains("7 results in"), "{all}");
    assert!(!all.contains("older &rarr;"), "{all}");
}

/// The fixture run with its host name made `bytes` bytes of `/` (each escaped on a page), and
/// labelled with 2 MB: stored as entry 3 beside the two of [`store`].
fn store_with_a_huge_host(bytes: usize) -> (tempfile::TempDir, PathBuf) {
    let (d, path) = store();
    let mut v: serde_json::Value = serde_json::from_str(RUN).unwrap();
    v["environment"]["hostname"] = serde_json::Value::String("/".repeat(bytes));
    let doc = report::read::from_json(&v.to_string()).unwrap();
    let label = "x".repeat(2 << 20);
    let mut s = store::Store::open(&path).unwrap();
    assert_eq!(s.insert(&doc, Some(&label), &[]).unwrap(), 3);
    (d, path)
}

/// A writer of a team store cannot make a page huge (the attacker trial of issue 64: an 8 MiB
/// host name, 18 KB packed, made a 100 MB result page and, sixteen times over, a 1.6 GB
/// comparison): strings are cut on pages, an id picked twice is one, the history reads at
/// most [`store::LISTED_TEXT_MAX`] of a label, and results too large for a page are refused.
#[test]
fn a_huge_stored_string_makes_no_huge_page() {
    let (_d, path) = store_with_a_huge_host(8 << 20);
    let s = site(path, None);
    let one = answer(&s, &get("/result/3"));
    assert_eq!(one.status, 200, "{}", text(&one));
    assert!(one.body.len() < 2 << 20, "a {} byte page", one.body.len());
    assert!(text(&one).contains("bytes not shown"));
    let twice = answer(&s, &get("/compare?id=3&id=3&id=3"));
    assert_eq!(twice.status, 400, "{}", text(&twice));
    let page = answer(&s, &get("/?limit=1000"));
    assert_eq!(page.status, 200);
    assert!(
        page.body.len() < 200 << 10,
        "a {} byte history",
        page.body.len()
    );
    let json = answer(&s, &get("/history.json"));
    assert!(
        json.body.len() < 100 << 10,
        "{} bytes of JSON",
        json.body.len()
    );
    let (_d, path) = store_with_a_huge_host(crate::routes::PAGE_JSON_MAX + 1);
    let s = site(path, None);
    let big = answer(&s, &get("/result/3"));
    assert_eq!(
        big.status,
        413,
        "{}",
        &text(&big)[..200.min(big.body.len())]
    );
    assert!(text(&big).contains("volbench report"), "{}", text(&big));
}
