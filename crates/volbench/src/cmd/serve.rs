//! `volbench serve`: the results store as web pages (the `web` crate does the serving).

use crate::cli::WebArgs;
use anyhow::{Context, Result};
use std::process::ExitCode;
use store::Store;

pub fn main(a: WebArgs) -> Result<ExitCode> {
    let given = match (&a.token, &a.token_file) {
        (Some(t), _) => Some(t.trim().to_string()),
        (None, Some(f)) => Some(read_token(f)?),
        (None, None) => None,
    };
    // Every form of giving a token is held to the same length (an empty one from an unset
    // variable included): a short token is no lock.
    if let Some(t) = &given {
        web::routes::check_token(t).map_err(|m| crate::usage::usage(format!("--token: {m}")))?;
    }
    if let Some(p) = &a.store {
        crate::inputs::named_store_exists(p)?;
    }
    let store = a.store.clone().unwrap_or_else(Store::default_path);
    // Opened once first: a store that cannot be read is said now, not on the first page.
    let shown = Store::open_read(&store)?.describe();
    let addr: Option<std::net::SocketAddr> = a.listen.parse().ok();
    // Another host, or on loopback every local user, may reach this address: make a token if
    // none was given, as the witness does (an attacker trial read a loopback serve's every
    // result as another user).
    let loopback = addr.is_some_and(|ad| web::is_loopback(&ad));
    if a.no_token && !loopback {
        return Err(crate::usage::usage(format!(
            "--no-token is for a loopback address only: {} can be reached from other hosts; drop --no-token",
            a.listen
        )));
    }
    let made = (given.is_none() && !a.no_token).then(durability::journal::new_token);
    let token = given.clone().or(made.clone());
    let o = web::Options {
        store,
        listen: a.listen.clone(),
        token,
        threads: a.threads,
        limits: web::Limits::default(),
        metrics: None,
    };
    // A server has no I/O in flight or results to write (the store is only read): it takes
    // no new connection and closes within the accept loop's 200 ms.
    let _ = crate::stop::STOP_MESSAGE.set("closing the server; the store is untouched");
    web::serve(o, crate::stop::stop_flag(), |addr| {
        // The token is printed only when it was made here: one the user gave is theirs, and
        // a terminal's scrollback or a log is no place to copy it to.
        let how = match (&made, &given) {
            (Some(t), _) => format!("http://{addr}/?token={t}"),
            (None, Some(_)) => format!("http://{addr}/ (open it once with ?token=<your token>)"),
            (None, None) => format!("http://{addr}/"),
        };
        eprintln!("serving {shown} at {how} (read-only; Ctrl-C stops)");
    })
    .map_err(|e| crate::usage::usage(e.to_string()))?;
    Ok(ExitCode::SUCCESS)
}

/// The first line of a token file (bounded: a token is a line).
pub fn read_token(f: &std::path::Path) -> Result<String> {
    use std::io::Read;
    let mut s = String::new();
    std::fs::File::open(f)
        .and_then(|h| h.take(4096).read_to_string(&mut s))
        .with_context(|| format!("--token-file {}", f.display()))?;
    let t = s.lines().next().unwrap_or("").trim().to_string();
    web::routes::check_token(&t)
        .map_err(|m| crate::usage::usage(format!("--token-file {}: {m}", f.display())))?;
    Ok(t)
}
