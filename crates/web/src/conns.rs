//! The connections `serve` and the metrics endpoint hold, bounded per client address and in
//! all (issue 63): one client holding a thousand idle connections must not keep the others
//! out, and Prometheus must keep scraping a run whatever else connects.
//!
//! A new connection past a bound closes the oldest idle one first (of its own address when
//! the address is at its bound, of anyone when the server is full): an idle connection costs
//! its holder nothing to reopen, so keeping it gives no one a claim over a new arrival. A
//! client whose connections are all answering may go past its own bound into the total's
//! room; only when the server is full and every connection is busy is a new one refused. IPv6 clients
//! are counted by their /64, which one host usually holds whole.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Notify;

/// Who a connection is counted against: its IPv4 address, or its IPv6 address's /64.
fn client(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6((u128::from(v6) & !((1u128 << 64) - 1)).into()),
        },
    }
}

struct Entry {
    client: IpAddr,
    /// Requests being answered on it now.
    busy: usize,
    /// Requests answered on it so far.
    served: usize,
    /// When it last became idle (or opened).
    idle_since: Instant,
    close: Arc<Notify>,
}

#[derive(Default)]
struct Table {
    next: u64,
    open: HashMap<u64, Entry>,
}

/// The bounds and the connections held.
pub struct Conns {
    per_client: usize,
    total: usize,
    table: Mutex<Table>,
}

/// A connection's place: told to close when another needs its room; gives it up when dropped.
pub struct Slot {
    id: u64,
    conns: Arc<Conns>,
    pub close: Arc<Notify>,
}

impl Conns {
    pub fn new(per_client: usize, total: usize) -> Arc<Conns> {
        Arc::new(Conns {
            per_client: per_client.max(1),
            total: total.max(1),
            table: Mutex::new(Table::default()),
        })
    }

    fn table(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A place for a connection from `ip`, closing the oldest idle one in its way; `None`
    /// when everything in its way is busy.
    pub fn admit(self: &Arc<Self>, ip: IpAddr) -> Option<Slot> {
        let who = client(ip);
        let mut t = self.table();
        let mine = t.open.values().filter(|e| e.client == who).count();
        // At its own bound a client gives up its oldest idle connection, unless that one is
        // fresh (a burst of 200 pages asked at once from one address is all still arriving:
        // none is idle yet). Then, and when all of its connections are answering, it may use
        // the total's room, where a full server closes the oldest idle of anyone, fresh or not.
        let own = (mine >= self.per_client)
            .then(|| oldest_idle(&t, Some(who)).filter(|v| !t.open[v].fresh()))
            .flatten();
        let victim = match own {
            Some(v) => Some(v),
            None if t.open.len() >= self.total => Some(oldest_idle(&t, None)?),
            None => None,
        };
        if let Some(e) = victim.and_then(|v| t.open.remove(&v)) {
            e.close.notify_one();
        }
        t.next += 1;
        let (id, close) = (t.next, Arc::new(Notify::new()));
        t.open.insert(
            id,
            Entry {
                client: who,
                busy: 0,
                served: 0,
                idle_since: Instant::now(),
                close: close.clone(),
            },
        );
        Some(Slot {
            id,
            conns: self.clone(),
            close,
        })
    }

    /// Connections held now, and those of `ip`'s client.
    #[cfg(test)]
    pub fn held(&self, ip: IpAddr) -> (usize, usize) {
        let t = self.table();
        let who = client(ip);
        let mine = t.open.values().filter(|e| e.client == who).count();
        (t.open.len(), mine)
    }
}

/// How long a new connection that has not yet been answered is spared by its own client's
/// bound: its request may be on its way.
const FRESH: Duration = Duration::from_secs(1);

impl Entry {
    fn fresh(&self) -> bool {
        // Never answered, so it has been idle since it opened.
        self.served == 0 && self.busy == 0 && self.idle_since.elapsed() < FRESH
    }
}

/// The connection idle longest (of `of` only, when given).
fn oldest_idle(t: &Table, of: Option<IpAddr>) -> Option<u64> {
    t.open
        .iter()
        .filter(|(_, e)| e.busy == 0 && of.is_none_or(|c| e.client == c))
        .min_by_key(|(_, e)| e.idle_since)
        .map(|(id, _)| *id)
}

impl Slot {
    /// A request is being answered on this connection: it is not idle until [`Busy`] drops.
    pub fn busy(&self) -> Busy {
        if let Some(e) = self.conns.table().open.get_mut(&self.id) {
            e.busy += 1;
        }
        Busy {
            id: self.id,
            conns: self.conns.clone(),
        }
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.conns.table().open.remove(&self.id);
    }
}

/// A request in progress on a connection.
pub struct Busy {
    id: u64,
    conns: Arc<Conns>,
}

impl Drop for Busy {
    fn drop(&mut self) {
        if let Some(e) = self.conns.table().open.get_mut(&self.id) {
            e.busy = e.busy.saturating_sub(1);
            e.served += 1;
            e.idle_since = Instant::now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    /// A connection answered once and then left idle, as a flood's are after their first.
    fn served(c: &Arc<Conns>, ip_: &str) -> Slot {
        let s = c.admit(ip(ip_)).unwrap();
        drop(s.busy());
        s
    }

    #[test]
    fn a_client_at_its_bound_gives_up_its_oldest_idle_connection_and_others_keep_theirs() {
        let c = Conns::new(2, 10);
        let other = served(&c, "10.0.0.9");
        let first = served(&c, "10.0.0.1");
        let second = served(&c, "10.0.0.1");
        let _third = c.admit(ip("10.0.0.1")).unwrap();
        assert_eq!(c.held(ip("10.0.0.1")), (3, 2));
        // The first was told to close; the second and the other address's were not.
        assert!(futures_now(&first.close));
        assert!(!futures_now(&second.close));
        assert!(!futures_now(&other.close));
    }

    /// A burst from one address, none answered yet, goes past the client's bound into the
    /// total's room rather than closing its own requests on their way.
    #[test]
    fn a_burst_still_arriving_is_not_cut_by_its_own_bound() {
        let c = Conns::new(2, 10);
        let burst: Vec<Slot> = (0..5).map(|_| c.admit(ip("10.0.0.1")).unwrap()).collect();
        assert!(burst.iter().all(|s| !futures_now(&s.close)));
        assert_eq!(c.held(ip("10.0.0.1")), (5, 5));
    }

    #[test]
    fn busy_connections_are_not_closed_and_a_full_server_of_them_refuses() {
        let c = Conns::new(1, 2);
        let a = c.admit(ip("10.0.0.1")).unwrap();
        let working = a.busy();
        // Past its own bound, into the total's room: none of its connections was idle.
        let b = c.admit(ip("10.0.0.1")).unwrap();
        let also = b.busy();
        assert!(!futures_now(&a.close));
        assert!(c.admit(ip("10.0.0.1")).is_none());
        assert!(c.admit(ip("10.0.0.2")).is_none());
        drop((working, also));
        assert!(c.admit(ip("10.0.0.1")).is_some());
        assert!(futures_now(&a.close));
    }

    #[test]
    fn a_full_server_closes_the_oldest_idle_of_anyone_and_v6_counts_by_its_64() {
        let c = Conns::new(100, 2);
        let a = c.admit(ip("2001:db8::1")).unwrap();
        let _b = c.admit(ip("2001:db8::2")).unwrap();
        assert_eq!(c.held(ip("2001:db8::ffff")), (2, 2));
        let _c = c.admit(ip("10.0.0.3")).unwrap();
        assert!(futures_now(&a.close));
        assert_eq!(c.held(ip("10.0.0.3")), (2, 1));
    }

    /// Whether the notify holds a permit now (it was told to close).
    fn futures_now(n: &Notify) -> bool {
        let f = n.notified();
        tokio::pin!(f);
        let waker = std::task::Waker::noop();
        let mut cx = std::task::Context::from_waker(waker);
        std::future::Future::poll(f.as_mut(), &mut cx).is_ready()
    }
}
