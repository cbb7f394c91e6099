//! `volbench serve`: the results store as web pages (the `web` crate does the serving).

use crate::cli::WebArgs;
use anyhow::{Context, Result};
use std::process::ExitCode;
use store::Store;

pub fn main(a: WebArgs) -> Result<ExitCode> {
    let store = a.store.clone().unwrap_or_else(Store::default_path);
    // Opened once first: a store that cannot be read is said now, not on the first page.
    let shown = Store::open(&store)?.describe();
    let token = match (&a.token, &a.token_file) {
        (Some(t), _) => Some(t.clone()),
        (None, Some(f)) => Some(read_token(f)?),
        (None, None) => None,
    };
    let addr: Option<std::net::SocketAddr> = a.listen.parse().ok();
    // Another host may reach this address: make a token if none was given, as the witness does.
    let token = match (token, addr) {
        (None, Some(ad)) if !web::is_loopback(&ad) => Some(durability::journal::new_token()),
        (t, _) => t,
    };
    let o = web::Options {
        store,
        listen: a.listen.clone(),
        token: token.clone(),
        threads: a.threads,
    };
    web::serve(o, super::stop_flag(), |addr| {
        let q = token
            .as_ref()
            .map_or(String::new(), |t| format!("?token={t}"));
        eprintln!("serving {shown} at http://{addr}/{q} (read-only; Ctrl-C stops)");
    })
    .map_err(|e| super::usage(e.to_string()))?;
    Ok(ExitCode::SUCCESS)
}

/// The first line of a token file (bounded: a token is a line).
fn read_token(f: &std::path::Path) -> Result<String> {
    use std::io::Read;
    let mut s = String::new();
    std::fs::File::open(f)
        .and_then(|h| h.take(4096).read_to_string(&mut s))
        .with_context(|| format!("--token-file {}", f.display()))?;
    let t = s.lines().next().unwrap_or("").trim().to_string();
    if t.len() < 16 {
        return Err(super::usage(format!(
            "--token-file {}: the token is shorter than 16 characters: put a long random line there (openssl rand -hex 16)",
            f.display()
        )));
    }
    Ok(t)
}
