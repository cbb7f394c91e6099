//! The network side of `serve`: hyper's HTTP/1.1 on a tokio runtime.
//!
//! Bounded in everything a client controls (issue 52): the request head (hyper's buffer), the
//! time to send it, the requests one connection may pipeline, a connection's whole life, the
//! connections held at once; a request that claims a body is refused without reading it, and
//! no claimed length is ever allocated. Each connection is a task, so a client that pipelines
//! and never reads stalls only itself; the pages are made on a bounded pool of blocking
//! threads (the store clients are synchronous), released before the answer is written.

use crate::conns::{Conns, Slot};
use crate::routes::{self, Answer, Request, Site};
use bytes::Bytes;
use http_body_util::Full;
use hyper::body::Incoming;
use hyper::header::{
    HeaderValue, ACCEPT, AUTHORIZATION, CONNECTION, CONTENT_LENGTH, COOKIE, HOST, TRANSFER_ENCODING,
};
use hyper_util::rt::{TokioIo, TokioTimer};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub struct Options {
    /// The store, as `--store` names it (a path or a PostgreSQL URL).
    pub store: std::path::PathBuf,
    pub listen: String,
    pub token: Option<String>,
    /// Threads making pages at once (the blocking pool's size).
    pub threads: u32,
    pub limits: Limits,
    /// Serve live metrics instead of the store (see [`routes::Metrics`]).
    pub metrics: Option<routes::Metrics>,
}

/// What one client can make the server hold.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Bytes of request head buffered (hyper's read buffer; its floor is 8 KiB).
    pub head_bytes: usize,
    /// Time to send a request's head once the connection is open or idle.
    pub head_time: Duration,
    /// Requests one connection is answered before it is closed.
    pub requests_per_connection: usize,
    /// A connection's whole life, idle or stalled writing to a client that does not read.
    pub connection_time: Duration,
    /// Connections held at once, from all clients.
    pub connections: usize,
    /// Connections held at once from one client address (an IPv6 /64). Past either bound the
    /// oldest idle connection in the way is closed ([`crate::conns`]).
    pub per_client: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            head_bytes: 16 << 10,
            head_time: Duration::from_secs(10),
            requests_per_connection: 100,
            connection_time: Duration::from_secs(60),
            connections: 1024,
            // A browser opens six; Prometheus one or two; a script a few dozen at most.
            per_client: 32,
        }
    }
}

/// Serves until `stop` is set. `ready` is told the bound address (port 0 picks one) first.
pub fn serve(
    o: Options,
    stop: Arc<AtomicBool>,
    ready: impl FnOnce(SocketAddr),
) -> anyhow::Result<()> {
    if let Some(t) = &o.token {
        routes::check_token(t).map_err(anyhow::Error::msg)?;
    }
    let listener = std::net::TcpListener::bind(&o.listen).map_err(|e| {
        anyhow::anyhow!(
            "cannot listen on {}: {e}: choose another --listen ADDR:PORT",
            o.listen
        )
    })?;
    let addr = listener.local_addr()?;
    if !crate::is_loopback(&addr) && o.token.is_none() {
        anyhow::bail!(
            "--listen {addr} is reachable from other hosts: give --token or --token-file"
        );
    }
    listener.set_nonblocking(true)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(o.threads.max(1) as usize)
        .enable_all()
        .build()?;
    let mut site = Site::new(o.store, o.token);
    site.bound = Some(addr);
    site.metrics = o.metrics;
    let limits = Limits {
        connections: o.limits.connections.min(fd_room()),
        ..o.limits
    };
    ready(addr);
    let site = Arc::new(site);
    let served = rt.block_on(accept(listener, site.clone(), Arc::new(limits), stop));
    // The kept PostgreSQL connections go only once the runtime has: the client runs a
    // runtime of its own and blocks on it as it closes, which tokio refuses inside another
    // (serve on PostgreSQL panicked on SIGTERM when the last task let the site go).
    drop(rt);
    drop(site);
    served
}

/// File descriptors this process can still give to connections (the soft limit raised to
/// the hard one first), less a margin for the store and the runtime.
fn fd_room() -> usize {
    let mut r = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit read and write the struct given, nothing else.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut r) != 0 {
            return 256;
        }
        if r.rlim_cur < r.rlim_max {
            let want = libc::rlimit {
                rlim_cur: r.rlim_max.min(1 << 16),
                rlim_max: r.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &want) == 0 {
                r = want;
            }
        }
    }
    (r.rlim_cur as usize).saturating_sub(64).max(16)
}

/// Accepts connections until `stop`, each a task; beyond the limit a new one is closed.
async fn accept(
    listener: std::net::TcpListener,
    site: Arc<Site>,
    limits: Arc<Limits>,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::from_std(listener)?;
    let conns = Conns::new(limits.per_client, limits.connections);
    while !stop.load(Ordering::SeqCst) {
        let accepted = tokio::time::timeout(Duration::from_millis(200), listener.accept()).await;
        let Ok(Ok((sock, peer))) = accepted else {
            continue;
        };
        // Refused (closed at once) only when every connection in its way is answering.
        let Some(slot) = conns.admit(peer.ip()) else {
            continue;
        };
        let (site, limits) = (site.clone(), limits.clone());
        tokio::spawn(async move { connection(sock, site, &limits, Arc::new(slot)).await });
    }
    Ok(())
}

/// One connection, within its limits, until it ends or its place is wanted by another.
async fn connection(
    sock: tokio::net::TcpStream,
    site: Arc<Site>,
    limits: &Limits,
    slot: Arc<Slot>,
) {
    let served = Arc::new(AtomicUsize::new(0));
    let most = limits.requests_per_connection;
    let held = slot.clone();
    let svc = hyper::service::service_fn(move |req| {
        let n = served.fetch_add(1, Ordering::SeqCst) + 1;
        let busy = held.busy();
        let answered = handle(site.clone(), req, n >= most);
        async move {
            let r = answered.await;
            drop(busy);
            r
        }
    });
    let conn = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(limits.head_time)
        .max_buf_size(limits.head_bytes.max(8192))
        .serve_connection(TokioIo::new(sock), svc);
    // A connection past its life, or idle when another needs its room, is dropped: its
    // socket closes, whatever it was doing.
    tokio::select! {
        _ = tokio::time::timeout(limits.connection_time, conn) => {}
        _ = slot.close.notified() => {}
    }
}

/// One request: the facts the routes need, the answer made on the blocking pool.
async fn handle(
    site: Arc<Site>,
    req: hyper::Request<Incoming>,
    last: bool,
) -> Result<hyper::Response<Full<Bytes>>, std::convert::Infallible> {
    let header = |k| {
        req.headers()
            .get(k)
            .and_then(|v: &HeaderValue| v.to_str().ok())
    };
    let body = match (
        header(CONTENT_LENGTH),
        req.headers().contains_key(TRANSFER_ENCODING),
    ) {
        (_, true) => Some(u64::MAX),
        (Some(n), _) => Some(n.trim().parse().unwrap_or(u64::MAX)),
        (None, _) => None,
    };
    let owned = (
        req.method().as_str().to_string(),
        req.uri()
            .path_and_query()
            .map_or("/", |p| p.as_str())
            .to_string(),
        only_host(req.headers()),
        header(COOKIE).map(String::from),
        header(ACCEPT).map(String::from),
        header(AUTHORIZATION).map(String::from),
    );
    let head = req.method() == hyper::Method::HEAD;
    let answer = tokio::task::spawn_blocking(move || {
        let (method, url, host, cookie, accept, authorization) = &owned;
        routes::answer(
            &site,
            &Request {
                method,
                url,
                host: host.as_deref(),
                cookie: cookie.as_deref(),
                body,
                accept: accept.as_deref(),
                authorization: authorization.as_deref(),
            },
        )
    })
    .await
    .unwrap_or_else(|_| routes::failed());
    Ok(response(answer, head, last))
}

/// The one Host header in visible ASCII, or `None` (missing, repeated, or not ASCII: a
/// header the first of which would be read differently by a proxy in front).
fn only_host(h: &hyper::HeaderMap) -> Option<String> {
    let mut all = h.get_all(HOST).iter();
    match (all.next(), all.next()) {
        (Some(v), None) => v
            .to_str()
            .ok()
            .filter(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_graphic()))
            .map(String::from),
        _ => None,
    }
}

/// The answer as hyper's response, with the headers every page carries.
fn response(a: Answer, head: bool, last: bool) -> hyper::Response<Full<Bytes>> {
    let csp = routes::content_security_policy();
    let mut b = hyper::Response::builder()
        .status(a.status)
        .header("Content-Type", a.content_type)
        .header("Cache-Control", "no-store")
        .header("X-Content-Type-Options", "nosniff")
        .header("X-Frame-Options", "DENY")
        .header("Referrer-Policy", "no-referrer")
        .header("Content-Security-Policy", csp);
    for (k, v) in &a.headers {
        b = b.header(*k, v.as_str());
    }
    if a.close || last {
        b = b.header(CONNECTION, "close");
    }
    let body = if head {
        Bytes::new()
    } else {
        Bytes::from(a.body)
    };
    b.body(Full::new(body)).unwrap_or_else(|_| {
        let mut r = hyper::Response::new(Full::new(Bytes::from_static(b"bad answer")));
        *r.status_mut() = hyper::StatusCode::INTERNAL_SERVER_ERROR;
        r
    })
}
