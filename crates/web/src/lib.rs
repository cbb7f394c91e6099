//! `volbench serve`: the results store as web pages for a team, read-only.
//!
//! [`server`] holds the network side (hyper on tokio: every connection a task, every limit a
//! number in [`server::Limits`]); [`routes`] decides every answer as a pure function of the
//! request, so each route and each refusal is tested without a socket; [`pages`] renders.
//! Pages are the same renderer's as `volbench report`, self-contained, so they work with no
//! network beyond this server.
//!
//! What it defends against, and what not, is in docs/store.md ("serve").

mod conns;
pub mod pages;
pub mod routes;
pub mod server;
#[cfg(test)]
mod site_tests;

pub use server::{serve, Limits, Options};

/// Whether an address is this host's own (no token needed).
pub fn is_loopback(a: &std::net::SocketAddr) -> bool {
    a.ip().is_loopback()
}
