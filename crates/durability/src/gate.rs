//! The witness's door: what a connection may do before it has said hello with the token.
//!
//! Anyone who can reach the port can open connections, so a connection that has not yet said
//! hello holds only a bounded place: [`MAX_WAITING`] of them in all and
//! [`MAX_WAITING_PER_PEER`] from one address. A new one past either bound pushes out the
//! oldest waiting one (of that address first), so connections that dribble bytes cannot keep
//! a real client out: a real client says hello within milliseconds of connecting. The hello
//! itself must be complete within [`HELLO_DEADLINE`] of connecting, however the bytes are
//! spaced; after it, each read may wait [`IDLE_TIMEOUT`].

use std::collections::VecDeque;
use std::io::{self, Read};
use std::net::{IpAddr, Shutdown, TcpStream};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Connections still before hello, from all addresses.
pub const MAX_WAITING: usize = 64;
/// Connections still before hello, from one address.
pub const MAX_WAITING_PER_PEER: usize = 16;
/// The whole hello, from connecting to its newline.
pub const HELLO_DEADLINE: Duration = Duration::from_secs(10);
/// A silent connection after hello is closed after this (a client syncing on a stalled disk
/// may be slow, but not this slow).
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(600);

struct Waiting {
    id: u64,
    peer: IpAddr,
    stream: TcpStream,
}

/// The connections that have not said hello yet, oldest first.
#[derive(Default)]
pub struct Gate {
    waiting: Mutex<(u64, VecDeque<Waiting>)>,
}

impl Gate {
    /// Lets `s` wait for its hello, pushing out the oldest waiting connection (of the same
    /// address first) when a bound is reached. Returns its place, for [`Gate::leave`].
    pub fn admit(&self, s: &TcpStream, peer: IpAddr) -> io::Result<u64> {
        let stream = s.try_clone()?;
        let mut g = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        let (next, q) = &mut *g;
        let from_peer = q.iter().filter(|w| w.peer == peer).count();
        let evict = if from_peer >= MAX_WAITING_PER_PEER {
            q.iter().position(|w| w.peer == peer)
        } else if q.len() >= MAX_WAITING {
            Some(0)
        } else {
            None
        };
        if let Some(old) = evict.and_then(|i| q.remove(i)) {
            // Its thread's read fails at once and the thread ends.
            let _ = old.stream.shutdown(Shutdown::Both);
        }
        *next += 1;
        q.push_back(Waiting {
            id: *next,
            peer,
            stream,
        });
        Ok(*next)
    }

    /// The connection said hello (or ended): it no longer holds a waiting place.
    pub fn leave(&self, id: u64) {
        let mut g = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        g.1.retain(|w| w.id != id);
    }
}

/// A socket whose reads end at a deadline for the whole hello (not per byte), then, once
/// `until` is cleared, wait at most `idle` each.
pub struct Timed {
    pub s: TcpStream,
    pub until: Option<Instant>,
}

impl Read for Timed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let wait = match self.until {
            Some(t) => t.saturating_duration_since(Instant::now()),
            None => IDLE_TIMEOUT,
        };
        if wait.is_zero() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "no complete hello in time",
            ));
        }
        self.s.set_read_timeout(Some(wait))?;
        self.s.read(buf)
    }
}
