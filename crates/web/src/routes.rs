//! What each address answers: a pure function of the request, so every route and every bad
//! request is tested without a socket.
//!
//! - `/` the history, filtered by the query (`label`, `target`, `suite`, `kind`, `host`,
//!   `machine`, `since`, `until`), with boxes to pick results to compare;
//! - `/result/ID` one result's report page;
//! - `/compare?id=A&id=B...` the comparison page of the results picked;
//! - `/history.json` the same rows as `volbench history --output-format=json`.

use crate::pages;
use std::path::PathBuf;
use store::{Filter, Store};

/// The longest request line answered (a filter form's query is a few hundred bytes).
pub const MAX_URL: usize = 4096;
/// The most results one comparison page holds.
pub const MAX_COMPARE: usize = 16;

pub struct Site {
    pub store: PathBuf,
    pub token: Option<String>,
    /// Held while a SQLite store is open: its connection takes an exclusive lock, and
    /// threads queueing here is far quicker than each retrying through SQLite's busy waits
    /// (40 requests at once took 25 s that way). Pages render after the store is closed.
    pub sqlite: std::sync::Mutex<()>,
}

impl Site {
    pub fn new(store: PathBuf, token: Option<String>) -> Site {
        Site {
            store,
            token,
            sqlite: std::sync::Mutex::new(()),
        }
    }

    /// Runs `f` on the store, opened for it alone.
    fn with_store<T>(&self, f: impl FnOnce(&mut Store) -> anyhow::Result<T>) -> anyhow::Result<T> {
        let _one = matches!(store::Location::of(&self.store), store::Location::File(_))
            .then(|| self.sqlite.lock().unwrap_or_else(|p| p.into_inner()));
        let mut store = Store::open(&self.store)?;
        f(&mut store)
    }
}

pub struct Answer {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    pub set_cookie: Option<String>,
}

const HTML: &str = "text/html; charset=utf-8";
const COOKIE: &str = "volbench_token";

fn page(status: u16, body: Vec<u8>) -> Answer {
    Answer {
        status,
        content_type: HTML,
        body,
        set_cookie: None,
    }
}

fn error(status: u16, message: &str) -> Answer {
    page(status, pages::error(status, message).into_bytes())
}

fn cookie_token(cookie: Option<&str>) -> Option<&str> {
    cookie?
        .split(';')
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v)
}

/// Answers one request; never panics outward (a page that fails to render is a 500 page).
pub fn answer(site: &Site, method: &str, url: &str, cookie: Option<&str>) -> Answer {
    if url.len() > MAX_URL {
        return error(414, &format!("the address is longer than {MAX_URL} bytes"));
    }
    if method != "GET" && method != "HEAD" {
        return error(405, "this server is read-only: only GET is answered");
    }
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    let params: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    let given = params
        .iter()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.as_str());
    let mut set_cookie = None;
    if let Some(t) = &site.token {
        let ok = given
            .or(cookie_token(cookie))
            .is_some_and(|g| durability::protocol::same_token(g, t));
        if !ok {
            return error(401, "this server needs its token: open the address `volbench serve` printed (it ends in ?token=...)");
        }
        if given.is_some() {
            set_cookie = Some(format!("{COOKIE}={t}; HttpOnly; SameSite=Strict; Path=/"));
        }
    }
    let routed = std::panic::catch_unwind(|| route(site, path, &params)).unwrap_or_else(|_| {
        error(
            500,
            "this page failed to render: please report it with the address",
        )
    });
    Answer {
        set_cookie,
        ..routed
    }
}

fn route(site: &Site, path: &str, params: &[(String, String)]) -> Answer {
    let result = match path {
        "/" | "/history" => history(site, params, false),
        "/history.json" => history(site, params, true),
        "/compare" => compare(site, params),
        p => match p.strip_prefix("/result/") {
            Some(id) => result(site, id),
            None => return error(404, &format!("no page at {}: the history is at /", clip(p))),
        },
    };
    result.unwrap_or_else(|e| match e.downcast::<NotFound>() {
        Ok(nf) => error(404, &nf.0),
        Err(e) => error(503, &format!("the results store cannot be read: {e}")),
    })
}

/// A result the store does not have, or an id that is none.
#[derive(Debug)]
struct NotFound(String);
impl std::fmt::Display for NotFound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for NotFound {}

/// A request's text as an error page repeats it: short, so a huge path is not echoed whole.
fn clip(s: &str) -> String {
    let t: String = s.chars().take(80).collect();
    if t.len() < s.len() {
        t + "..."
    } else {
        t
    }
}

fn param(params: &[(String, String)], k: &str) -> Option<String> {
    params
        .iter()
        .find(|(key, v)| key == k && !v.trim().is_empty())
        .map(|(_, v)| v.trim().to_string())
}

fn filter(params: &[(String, String)]) -> Filter {
    Filter {
        label: param(params, "label"),
        target: param(params, "target"),
        suite: param(params, "suite"),
        kind: param(params, "kind"),
        since: param(params, "since"),
        until: param(params, "until"),
        host: param(params, "host"),
        machine: param(params, "machine"),
    }
}

fn history(site: &Site, params: &[(String, String)], json: bool) -> anyhow::Result<Answer> {
    let f = filter(params);
    let (rows, shown) = site.with_store(|s| Ok((s.list(&f)?, s.describe())))?;
    if json {
        return Ok(Answer {
            content_type: "application/json",
            ..page(200, serde_json::to_vec_pretty(&rows)?)
        });
    }
    Ok(page(200, pages::history(&rows, &f, &shown)?.into_bytes()))
}

fn id_of(s: &str) -> anyhow::Result<i64> {
    s.parse::<i64>().ok().filter(|i| *i > 0).ok_or_else(|| {
        NotFound(format!(
            "'{}' is not a result id: ids are the numbers in the history",
            clip(s)
        ))
        .into()
    })
}

fn load(store: &mut Store, id: i64) -> anyhow::Result<(String, report::Document)> {
    let doc = store.get(id)?.ok_or_else(|| {
        NotFound(format!(
            "no result #{id} in this store: see the history at /"
        ))
    })?;
    Ok((format!("#{id}"), doc))
}

fn result(site: &Site, id: &str) -> anyhow::Result<Answer> {
    let id = id_of(id)?;
    let doc = site.with_store(|s| load(s, id))?;
    let html = render::html::report(&[doc])?;
    Ok(page(200, pages::with_nav(html, &format!("result #{id}"))))
}

fn compare(site: &Site, params: &[(String, String)]) -> anyhow::Result<Answer> {
    let ids: Vec<i64> = params
        .iter()
        .filter(|(k, _)| k == "id")
        .map(|(_, v)| id_of(v))
        .collect::<anyhow::Result<_>>()?;
    if ids.len() < 2 || ids.len() > MAX_COMPARE {
        return Ok(error(
            400,
            &format!(
                "pick 2 to {MAX_COMPARE} results to compare (this asked for {})",
                ids.len()
            ),
        ));
    }
    let docs = site.with_store(|s| {
        ids.iter()
            .map(|&i| load(s, i))
            .collect::<anyhow::Result<Vec<_>>>()
    })?;
    let html = render::html::report(&docs)?;
    let which: Vec<String> = ids.iter().map(|i| format!("#{i}")).collect();
    Ok(page(
        200,
        pages::with_nav(html, &format!("compare {}", which.join(" "))),
    ))
}
