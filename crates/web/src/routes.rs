//! What each address answers: a pure function of the request, so every route and every bad
//! request is tested without a socket.
//!
//! - `/` the history, newest first, a page at a time (`before` an id or a date, `after` an
//!   id; `limit`),
//!   filtered by the query (`label`, `target`, `suite`, `kind`, `host`, `machine`, `since`,
//!   `until`), with its total count, links to the pages beside it, and boxes to pick results
//!   to compare;
//! - `/result/ID` one result's report page;
//! - `/compare?id=A&id=B...` the comparison page of the results picked;
//! - `/history.json` the same page as `volbench history --output-format=json`, the pages
//!   beside it in a `Link` header and the filter's count in `X-Total-Count`.

use crate::pages;
use std::path::PathBuf;
use store::{Filter, Store};

/// The longest request line answered (a filter form's query is a few hundred bytes).
pub const MAX_URL: usize = 4096;
/// The most PostgreSQL connections a server keeps open between requests.
pub const KEPT: usize = 4;
/// The most results one comparison page holds.
pub const MAX_COMPARE: usize = 16;

pub struct Site {
    pub store: PathBuf,
    pub token: Option<String>,
    /// The address the server is bound to. On a loopback address (no token needed) only
    /// requests naming a loopback host or this address are answered: a web page elsewhere
    /// that rebinds its own name to 127.0.0.1 (DNS rebinding) gets 421, not the results.
    pub bound: Option<std::net::SocketAddr>,
    /// Held while a SQLite store is open: its connection takes an exclusive lock, and
    /// threads queueing here is far quicker than each retrying through SQLite's busy waits
    /// (40 requests at once took 25 s that way). Pages render after the store is closed.
    pub sqlite: std::sync::Mutex<()>,
    /// PostgreSQL connections kept between requests (at most [`KEPT`]): a connection is a
    /// server process forked and a login, most of a page's time on a quick query. One that
    /// failed a request is dropped, not kept.
    pub kept: std::sync::Mutex<Vec<Store>>,
    /// A live metrics endpoint (`--metrics-listen`) instead of the store's pages: it answers
    /// `/metrics` alone, made by this from the scraper's `Accept` (body, content type).
    pub metrics: Option<Metrics>,
}

/// What makes a scrape: the scraper's `Accept` header in, (text, content type) out.
pub type Metrics = Box<dyn Fn(Option<&str>) -> (String, &'static str) + Send + Sync>;

impl Site {
    pub fn new(store: PathBuf, token: Option<String>) -> Site {
        Site {
            store,
            token,
            bound: None,
            sqlite: std::sync::Mutex::new(()),
            kept: std::sync::Mutex::new(Vec::new()),
            metrics: None,
        }
    }

    /// Runs `f` on the store, read-only: a SQLite file opened for it alone (its connection
    /// locks the file), a PostgreSQL connection kept from an earlier request or a new one.
    fn with_store<T>(&self, f: impl Fn(&mut Store) -> anyhow::Result<T>) -> anyhow::Result<T> {
        let file = matches!(
            store::Location::of(&self.store),
            Ok(store::Location::File(_))
        );
        if file {
            let _one = self.sqlite.lock().unwrap_or_else(|p| p.into_inner());
            return f(&mut Store::open_read(&self.store)?);
        }
        let kept = self.kept.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let (store, r) = match kept {
            Some(mut s) => match f(&mut s) {
                // A kept connection the server closed meanwhile (a restart): once more, anew.
                Err(e) if is_lost(&e) => {
                    let mut fresh = Store::open_read(&self.store)?;
                    let r = f(&mut fresh);
                    (fresh, r)
                }
                r => (s, r),
            },
            None => {
                let mut fresh = Store::open_read(&self.store)?;
                let r = f(&mut fresh);
                (fresh, r)
            }
        };
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        if r.is_ok() && kept.len() < KEPT {
            kept.push(store);
        }
        r
    }
}

/// A store error that is a lost connection (worth one try on a new one).
fn is_lost(e: &anyhow::Error) -> bool {
    e.downcast_ref::<store::StoreError>()
        .is_some_and(store::StoreError::is_connection)
}

/// One request as the server hands it over: what the routes need, nothing read from the
/// body (the server never reads one; a request that claims one is refused).
#[derive(Clone, Debug, Default)]
pub struct Request<'a> {
    pub method: &'a str,
    /// The request target: path and query.
    pub url: &'a str,
    /// The Host header: `None` when there is none, more than one, or one not in ASCII.
    pub host: Option<&'a str>,
    pub cookie: Option<&'a str>,
    /// The body the request claims (Content-Length, or a chunked one): `None` for none.
    pub body: Option<u64>,
    pub accept: Option<&'a str>,
    /// `Authorization: Bearer TOKEN`, as a scraper sends a token (Prometheus's
    /// `authorization.credentials_file`).
    pub authorization: Option<&'a str>,
}

pub struct Answer {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    /// Set-Cookie, Location: what the answer adds to the common headers.
    pub headers: Vec<(&'static str, String)>,
    /// The connection is closed after this answer (a request whose body was not read).
    pub close: bool,
}

const HTML: &str = "text/html; charset=utf-8";
const TEXT: &str = "text/plain; charset=utf-8";
const COOKIE: &str = "volbench_token";
/// The shortest token accepted, in every form it is given.
pub const MIN_TOKEN: usize = 16;

fn page(status: u16, body: Vec<u8>) -> Answer {
    Answer {
        status,
        content_type: HTML,
        body,
        headers: Vec::new(),
        close: false,
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

/// A token as every form of giving one must be: long enough that guessing is hopeless.
pub fn check_token(t: &str) -> Result<(), String> {
    if t.trim().len() < MIN_TOKEN {
        return Err(format!(
            "the token is shorter than {MIN_TOKEN} characters: give a long random one (openssl rand -hex 16), or none on loopback"
        ));
    }
    Ok(())
}

/// The token given against the server's, compared in time independent of where they differ.
fn token_matches(given: Option<&str>, want: &str) -> bool {
    use subtle::ConstantTimeEq;
    given.is_some_and(|g| g.len() >= MIN_TOKEN && bool::from(g.as_bytes().ct_eq(want.as_bytes())))
}

/// Whether `host` (a Host header) names this server as a loopback client would: a loopback
/// name or address, or the address it is bound to, with at most a port after it. Anything
/// else in the header (`[::1]evil.example`, a user part, a path) is not this server.
fn host_allowed(host: &str, bound: std::net::SocketAddr) -> bool {
    let (name, port) = match host.strip_prefix('[') {
        Some(rest) => match rest.split_once(']') {
            Some((v6, "")) => (v6, None),
            Some((v6, after)) => (v6, Some(after.strip_prefix(':').unwrap_or("x"))),
            None => return false,
        },
        None => match host.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (host, None),
        },
    };
    let digits = |p: &str| !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit());
    if port.is_some_and(|p| !digits(p)) {
        return false;
    }
    if let Ok(ip) = name.parse::<std::net::IpAddr>() {
        return ip.is_loopback() || ip == bound.ip();
    }
    let name = name.strip_suffix('.').unwrap_or(name).to_ascii_lowercase();
    let label =
        |l: &str| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    (name == "localhost" || name.ends_with(".localhost")) && name.split('.').all(label)
}

/// What is refused before any route is looked at: the size of the request, its method, a
/// foreign Host on a loopback server, a missing or wrong token.
fn refused(site: &Site, r: &Request) -> Option<Answer> {
    if r.body.is_some_and(|n| n > 0) {
        let mut a = error(413, "this server is read-only and reads no request body");
        a.close = true;
        return Some(a);
    }
    if r.url.len() > MAX_URL {
        return Some(error(
            414,
            &format!("the address is longer than {MAX_URL} bytes"),
        ));
    }
    if r.method != "GET" && r.method != "HEAD" {
        return Some(error(405, "this server is read-only: only GET is answered"));
    }
    match (site.bound, r.host) {
        // HTTP/1.1: exactly one Host, and (here) in ASCII; the server says which it got.
        (Some(_), None) => Some(error(
            400,
            "a request names its host in exactly one Host header, in ASCII",
        )),
        (Some(b), Some(h)) if site.token.is_none() && !host_allowed(h, b) => Some(error(
            421,
            &format!(
                "this server answers requests for localhost and {} only: open http://{b}/",
                b.ip()
            ),
        )),
        _ => None,
    }
}

/// Answers one request; never panics outward (a page that fails to render is a 500 page).
pub fn answer(site: &Site, r: &Request) -> Answer {
    if let Some(a) = refused(site, r) {
        return a;
    }
    let (path, query) = r.url.split_once('?').unwrap_or((r.url, ""));
    let params: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    if let Some(t) = &site.token {
        let given = params
            .iter()
            .find(|(k, _)| k == "token")
            .map(|(_, v)| v.as_str());
        if token_matches(given, t) {
            return enter(path, &params, t);
        }
        let bearer = r.authorization.and_then(|a| a.strip_prefix("Bearer "));
        if !token_matches(cookie_token(r.cookie), t) && !token_matches(bearer, t) {
            return error(401, "this server needs its token: open the address with ?token=... that `volbench serve` printed, or that its owner gave you");
        }
    }
    if let Some(m) = &site.metrics {
        return metrics(m, path, r.accept);
    }
    let site = std::panic::AssertUnwindSafe(site);
    std::panic::catch_unwind(|| route(&site, path, &params)).unwrap_or_else(|_| {
        error(
            500,
            "this page failed to render: please report it with the address",
        )
    })
}

/// A right `?token=`: the cookie is set and the browser sent on to the same address without
/// the token, so it stays out of the address bar, the history and any link copied from it.
fn enter(path: &str, params: &[(String, String)], token: &str) -> Answer {
    let rest: Vec<&(String, String)> = params.iter().filter(|(k, _)| k != "token").collect();
    let mut to = form_urlencoded::Serializer::new(String::new());
    for (k, v) in rest {
        to.append_pair(k, v);
    }
    let q = to.finish();
    // Only a path of this server: `//host` or `/\host` would send the browser elsewhere.
    let path = if path.starts_with('/') && !path.starts_with("//") && !path.contains('\\') {
        path
    } else {
        "/"
    };
    let location = if q.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{q}")
    };
    let mut a = error(303, "signed in: on to the page");
    // Lax, not Strict: a shared link (/?pick=3,7) opened from a chat or a mail is a top-level
    // GET from another site, and must reach a browser that already holds the cookie. The
    // server answers GET only, so Lax's cross-site GETs can change nothing.
    a.headers.push((
        "Set-Cookie",
        format!("{COOKIE}={token}; HttpOnly; SameSite=Lax; Path=/"),
    ));
    a.headers.push(("Location", location));
    a
}

/// The answer when making one failed outside the routes' own guard.
pub fn failed() -> Answer {
    error(
        500,
        "this page failed to render: please report it with the address",
    )
}

/// The policy for every page: nothing from the network, no frames, forms only to this server,
/// and of inline scripts only the project's own (the report's and the history page's), each
/// named by its SHA-256, computed once from the scripts built in. Never derived from a page:
/// a script that reached a body through a stored label is not among them (issue 63).
pub fn content_security_policy() -> &'static str {
    static POLICY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    POLICY.get_or_init(|| {
        use base64::Engine;
        use sha2::Digest;
        let hashes: String = render::html::SCRIPTS
            .iter()
            .chain([&crate::pages::HISTORY_JS])
            .map(|js| {
                let digest = sha2::Sha256::digest(js.as_bytes());
                let b64 = base64::engine::general_purpose::STANDARD.encode(digest);
                format!(" 'sha256-{b64}'")
            })
            .collect();
        format!(
            "default-src 'none'; script-src{hashes}; style-src 'unsafe-inline'; img-src data:; \
             form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        )
    })
}

/// The metrics endpoint's one page.
fn metrics(m: &Metrics, path: &str, accept: Option<&str>) -> Answer {
    let (status, (text, content_type)) = match path {
        "/metrics" => (200, m(accept)),
        _ => (
            404,
            ("this is a metrics endpoint: scrape /metrics\n".into(), TEXT),
        ),
    };
    Answer {
        status,
        content_type,
        body: text.into_bytes(),
        headers: Vec::new(),
        close: false,
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
    // A program reading /history.json gets its error as JSON too, not a page.
    let error = |status, m: &str| match path {
        "/history.json" => json_error(status, m),
        _ => error(status, m),
    };
    result.unwrap_or_else(|e| match e.downcast::<NotFound>() {
        Ok(nf) => error(404, &nf.0),
        Err(e) if e.downcast_ref::<TooLarge>().is_some() => error(413, &e.to_string()),
        Err(e) if matches!(e.downcast_ref(), Some(store::StoreError::BadFilter(_))) => {
            error(400, &e.to_string())
        }
        Err(e) => error(503, &format!("the results store cannot be read: {e}")),
    })
}

/// `{"error": "..."}` with its status.
fn json_error(status: u16, message: &str) -> Answer {
    let body =
        serde_json::to_vec(&serde_json::json!({ "error": message })).expect("a string serializes");
    Answer {
        content_type: "application/json",
        ..page(status, body)
    }
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

/// Results too large to draw as one page here.
#[derive(Debug)]
struct TooLarge(String);
impl std::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for TooLarge {}

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

fn filter(params: &[(String, String)]) -> anyhow::Result<Filter> {
    if let Some(k) = param(params, "kind").filter(|k| !pages::KINDS.contains(&k.as_str())) {
        return Err(store::StoreError::BadFilter(format!(
            "kind='{}' is no kind of result: use {}",
            clip(&k),
            pages::KINDS.join(", ")
        ))
        .into());
    }
    let (before_id, before_date) = before(params)?;
    Ok(Filter {
        label: param(params, "label"),
        target: param(params, "target"),
        suite: param(params, "suite"),
        kind: param(params, "kind"),
        since: param(params, "since"),
        until: param(params, "until").or(before_date),
        host: param(params, "host"),
        machine: param(params, "machine"),
        before_id,
        after_id: id_param(params, "after")?,
    })
}

/// `before`: an id (the page links') or, as `history --before` takes, a date, which bounds
/// the date as `until` does (a trial's `?before=2026-12-01` was refused as no id).
fn before(params: &[(String, String)]) -> anyhow::Result<(Option<i64>, Option<String>)> {
    let Some(v) = param(params, "before") else {
        return Ok((None, None));
    };
    let bad = |why: String| anyhow::Error::from(store::StoreError::BadFilter(why));
    let Some(bound) = Filter::before_bound(&v) else {
        return Err(bad(format!(
            "before='{}' is neither a result id nor a date (2026-11-01, or RFC 3339)",
            clip(&v)
        )));
    };
    if bound.1.is_some() && param(params, "until").is_some() {
        return Err(bad(
            "before=DATE and until both bound the date: give one of them".into(),
        ));
    }
    Ok(bound)
}

/// A page bound (`before`, `after`): an id, or the request's fault (400).
fn id_param(params: &[(String, String)], k: &str) -> anyhow::Result<Option<i64>> {
    param(params, k)
        .map(|v| {
            v.parse::<i64>().map_err(|_| {
                store::StoreError::BadFilter(format!(
                    "{k}='{}' is not a result id: paging takes the ids the page links give",
                    clip(&v)
                ))
                .into()
            })
        })
        .transpose()
}

pub use crate::pages::{MAX_PAGE, PAGE};

fn limit(params: &[(String, String)]) -> anyhow::Result<u64> {
    match param(params, "limit") {
        None => Ok(PAGE),
        Some(v) => match v.parse::<u64>() {
            Ok(n) if (1..=MAX_PAGE).contains(&n) => Ok(n),
            _ => Err(store::StoreError::BadFilter(format!(
                "limit='{}': give 1 to {MAX_PAGE} rows a page",
                clip(&v)
            ))
            .into()),
        },
    }
}

/// A page of the history and where it sits: the filter's total count, and whether there
/// are newer and older rows beyond it (each one index probe, not a count).
fn page_of(s: &mut Store, f: &Filter, n: u64) -> anyhow::Result<pages::Paged> {
    let rows = s.list(f, Some(n))?;
    let all = f.unpaged();
    let beyond =
        |s: &mut Store, b: Filter| -> anyhow::Result<bool> { Ok(!s.list(&b, Some(1))?.is_empty()) };
    let (newer, older) = match (rows.first(), rows.last()) {
        (Some(first), Some(last)) => (
            beyond(
                s,
                Filter {
                    after_id: Some(first.id),
                    ..all.clone()
                },
            )?
            .then_some(first.id),
            beyond(
                s,
                Filter {
                    before_id: Some(last.id),
                    ..all.clone()
                },
            )?
            .then_some(last.id),
        ),
        _ => (None, None),
    };
    Ok(pages::Paged {
        total: s.count(&all)?,
        newer,
        older,
        limit: n,
        rows,
    })
}

fn history(site: &Site, params: &[(String, String)], json: bool) -> anyhow::Result<Answer> {
    let f = filter(params)?;
    let n = limit(params)?;
    let (paged, shown) = site.with_store(|s| Ok((page_of(s, &f, n)?, s.describe())))?;
    if json {
        let mut a = Answer {
            content_type: "application/json",
            ..page(200, serde_json::to_vec_pretty(&paged.rows)?)
        };
        a.headers = paged.link_headers(&f, "/history.json");
        return Ok(a);
    }
    Ok(page(200, pages::history(&paged, &f, &shown)?.into_bytes()))
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

/// An entry as stored, taken while the store is held; [`open`] unpacks it after.
fn load(store: &mut Store, id: i64) -> anyhow::Result<(i64, store::Packed)> {
    let packed = store.fetch(id)?.ok_or_else(|| {
        NotFound(format!(
            "no result #{id} in this store: see the history at /"
        ))
    })?;
    Ok((id, packed))
}

/// The most JSON one page renders, all its results together: a real result is tens of KB
/// to a few MB, and a page's memory is a few times its JSON (strings escaped, charts drawn).
/// An attacker trial's sixteen ids of one large result made a 1.6 GB page.
pub const PAGE_JSON_MAX: usize = 32 << 20;

/// The entries unpacked for one page, their strings cut ([`store::PAGE_STRING_MAX`]), within
/// [`PAGE_JSON_MAX`] together.
fn open_all(packed: Vec<(i64, store::Packed)>) -> anyhow::Result<Vec<(String, report::Document)>> {
    let mut total = 0;
    let mut docs = Vec::new();
    for (id, p) in packed {
        let (doc, size) = p.open_for_page()?;
        total += size;
        if total > PAGE_JSON_MAX {
            return Err(TooLarge(format!(
                "too large for one page here (over {} MiB of results): draw it where it is stored, with volbench report ID --output page.html",
                PAGE_JSON_MAX >> 20
            ))
            .into());
        }
        docs.push((format!("#{id}"), doc));
    }
    Ok(docs)
}

fn result(site: &Site, id: &str) -> anyhow::Result<Answer> {
    let id = id_of(id)?;
    let docs = open_all(vec![site.with_store(|s| load(s, id))?])?;
    let html = render::html::report(&docs)?;
    Ok(page(200, pages::with_nav(html, &format!("result #{id}"))))
}

fn compare(site: &Site, params: &[(String, String)]) -> anyhow::Result<Answer> {
    let mut ids: Vec<i64> = Vec::new();
    for (_, v) in params.iter().filter(|(k, _)| k == "id") {
        // One result picked twice is one result: its page is not drawn twice.
        let id = id_of(v)?;
        if !ids.contains(&id) {
            ids.push(id);
        }
        if ids.len() > MAX_COMPARE {
            break;
        }
    }
    if ids.len() < 2 || ids.len() > MAX_COMPARE {
        return Ok(error(
            400,
            &format!(
                "pick 2 to {MAX_COMPARE} results to compare (this asked for {})",
                ids.len()
            ),
        ));
    }
    let packed = site.with_store(|s| {
        ids.iter()
            .map(|&i| load(s, i))
            .collect::<anyhow::Result<Vec<_>>>()
    })?;
    let docs = open_all(packed)?;
    let html = render::html::report(&docs)?;
    let which: Vec<String> = ids.iter().map(|i| format!("#{i}")).collect();
    Ok(page(
        200,
        pages::with_nav(html, &format!("compare {}", which.join(" "))),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A metrics site bound to loopback port 9464, with `token` if given.
    fn metrics_site(token: Option<&str>) -> Site {
        let mut site = Site::new(PathBuf::new(), token.map(String::from));
        site.bound = Some("127.0.0.1:9464".parse().unwrap());
        site.metrics = Some(Box::new(|_| ("volbench_io_total 1\n".into(), TEXT)));
        site
    }

    fn get<'a>(url: &'a str, host: &'a str, authorization: Option<&'a str>) -> Request<'a> {
        Request {
            method: "GET",
            url,
            host: Some(host),
            authorization,
            ..Request::default()
        }
    }

    /// A scraper's bearer token opens /metrics; a wrong or missing one, a foreign Host on a
    /// loopback bind, a body or another path does not; the store is never looked at.
    #[test]
    fn the_metrics_endpoint_answers_its_one_page_to_its_token_only() {
        let open = metrics_site(None);
        let a = answer(&open, &get("/metrics", "127.0.0.1:9464", None));
        assert_eq!(
            (a.status, a.body.as_slice()),
            (200, &b"volbench_io_total 1\n"[..])
        );
        assert_eq!(answer(&open, &get("/", "localhost:9464", None)).status, 404);
        assert_eq!(
            answer(&open, &get("/metrics", "evil.example:9464", None)).status,
            421
        );
        let mut body = get("/metrics", "127.0.0.1:9464", None);
        body.body = Some(1 << 40);
        assert_eq!(answer(&open, &body).status, 413);
        let t = "a-token-of-20-chars!";
        let locked = metrics_site(Some(t));
        let bearer = format!("Bearer {t}");
        assert_eq!(
            answer(&locked, &get("/metrics", "h", Some(&bearer))).status,
            200
        );
        for wrong in [
            None,
            Some("Bearer "),
            Some("Bearer a-token-of-20-chars"),
            Some(t),
        ] {
            let a = answer(&locked, &get("/metrics", "h", wrong));
            assert_eq!(a.status, 401, "{wrong:?}");
            assert!(!String::from_utf8_lossy(&a.body).contains(t));
        }
    }

    /// A loopback server answers a Host naming itself and nothing else: no Host, a second
    /// name glued to an address, a user part, a bad port (issue 63).
    #[test]
    fn host_is_one_loopback_name_or_the_bound_address_and_nothing_after_it() {
        let b: std::net::SocketAddr = "127.0.0.1:9464".parse().unwrap();
        for ok in [
            "localhost",
            "LOCALHOST.:9464",
            "a.localhost",
            "127.0.0.1:9464",
            "[::1]",
            "[::1]:80",
            "127.0.0.2",
        ] {
            assert!(host_allowed(ok, b), "{ok}");
        }
        for bad in [
            "[::1]evil.example",
            "[::1]:80evil",
            "evil.example",
            "localhost.evil.example",
            "evil@localhost",
            "localhost:",
            "localhost:99999999",
            "localhost/x",
            "[::1",
            "x..localhost",
        ] {
            assert!(!host_allowed(bad, b), "{bad}");
        }
        let site = metrics_site(None);
        let mut none = get("/metrics", "", None);
        none.host = None;
        assert_eq!(answer(&site, &none).status, 400);
    }
}
