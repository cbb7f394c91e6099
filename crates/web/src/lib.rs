//! `volbench serve`: the results store as web pages for a team, read-only.
//!
//! A few threads share one listening socket; each request opens the store, answers and closes
//! it (a SQLite store's connection holds an exclusive lock that would keep `volbench run` from
//! storing for as long as it stayed open). Pages are the same renderer's as `volbench report`,
//! self-contained, so they work with no network beyond this server.
//!
//! Safety: loopback unless told otherwise; any other address needs a token, given once as
//! `?token=` and kept in a cookie. Requests are bounded (GET and HEAD only, URL at most
//! [`routes::MAX_URL`] bytes, at most [`routes::MAX_COMPARE`] results compared).

pub mod pages;
pub mod routes;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub struct Options {
    /// The store, as `--store` names it (a path or a PostgreSQL URL).
    pub store: std::path::PathBuf,
    pub listen: String,
    pub token: Option<String>,
    pub threads: u32,
}

/// Whether an address is this host's own (no token needed).
pub fn is_loopback(a: &SocketAddr) -> bool {
    a.ip().is_loopback()
}

/// Serves until `stop` is set. `ready` is told the bound address (port 0 picks one) first.
pub fn serve(
    o: Options,
    stop: Arc<AtomicBool>,
    ready: impl FnOnce(SocketAddr),
) -> anyhow::Result<()> {
    let server = tiny_http::Server::http(&o.listen).map_err(|e| {
        anyhow::anyhow!(
            "cannot listen on {}: {e}: choose another --listen ADDR:PORT",
            o.listen
        )
    })?;
    let addr = server
        .server_addr()
        .to_ip()
        .ok_or_else(|| anyhow::anyhow!("--listen {}: not an IP address and port", o.listen))?;
    if !is_loopback(&addr) && o.token.is_none() {
        anyhow::bail!(
            "--listen {addr} is reachable from other hosts: give --token or --token-file"
        );
    }
    ready(addr);
    let server = Arc::new(server);
    let site = Arc::new(routes::Site::new(o.store, o.token));
    let workers: Vec<_> = (0..o.threads.max(1))
        .map(|_| {
            let (server, site, stop) = (server.clone(), site.clone(), stop.clone());
            std::thread::spawn(move || worker(&server, &site, &stop))
        })
        .collect();
    for w in workers {
        let _ = w.join();
    }
    Ok(())
}

/// One thread's loop: a request at a time, checking `stop` between them.
fn worker(server: &tiny_http::Server, site: &routes::Site, stop: &AtomicBool) {
    while !stop.load(Ordering::SeqCst) {
        let req = match server.recv_timeout(Duration::from_millis(200)) {
            Ok(Some(r)) => r,
            Ok(None) => continue,
            Err(_) => return,
        };
        let cookie = req
            .headers()
            .iter()
            .find(|h| h.field.equiv("Cookie"))
            .map(|h| h.value.as_str().to_string());
        let method = req.method().as_str().to_string();
        let answer = routes::answer(site, &method, req.url(), cookie.as_deref());
        let mut resp = tiny_http::Response::from_data(answer.body).with_status_code(answer.status);
        let mut header = |k: &str, v: &str| {
            if let Ok(h) = tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()) {
                resp.add_header(h);
            }
        };
        header("Content-Type", answer.content_type);
        header("Cache-Control", "no-store");
        header("X-Content-Type-Options", "nosniff");
        if let Some(c) = &answer.set_cookie {
            header("Set-Cookie", c);
        }
        let _ = req.respond(resp);
    }
}
