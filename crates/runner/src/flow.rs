//! fio's `flow`: jobs sharing a `flow_id` run in proportion to their weights. Each job counts
//! the I/Os it issues, the group counts all of them; a job whose share of the group's I/Os is
//! above its share of the group's weight holds back until the others catch up: it reaps what
//! it has in flight, or with nothing in flight sleeps `flow_sleep` µs (0: checks again at
//! once, as fio does). A job that ends takes its weight out, so the rest never wait for it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use workload::JobSpec;

/// The jobs of one `flow_id`.
#[derive(Default)]
pub struct Group {
    ios: AtomicU64,
    weight: AtomicU64,
}

/// One job's place in its group.
pub struct Flow {
    group: Arc<Group>,
    weight: u64,
    mine: u64,
    /// I/Os taken from the group and not yet issued.
    credit: u64,
}

/// I/Os a job takes from its group at once.
const CHUNK: u64 = 32;

/// The groups of one phase, by `flow_id`, with each weighted job's weight added.
pub fn groups<'a>(specs: impl Iterator<Item = &'a JobSpec>) -> HashMap<u32, Arc<Group>> {
    let mut g: HashMap<u32, Arc<Group>> = HashMap::new();
    for s in specs.filter(|s| s.rates.flow > 0) {
        g.entry(s.rates.flow_id)
            .or_default()
            .weight
            .fetch_add(s.rates.flow as u64, Relaxed);
    }
    g
}

impl Flow {
    pub fn new(spec: &JobSpec, groups: &HashMap<u32, Arc<Group>>) -> Option<Flow> {
        let group = groups
            .get(&spec.rates.flow_id)
            .filter(|_| spec.rates.flow > 0)?;
        Some(Flow {
            group: group.clone(),
            weight: spec.rates.flow as u64,
            mine: 0,
            credit: 0,
        })
    }

    /// May this job issue one more I/O? The group's counter is shared by threads on other
    /// cores, so a job takes its I/Os from it [`CHUNK`] at a time: one add to a shared cache
    /// line per chunk, not per I/O, at the cost of a balance off by a chunk at most.
    pub fn admit(&mut self) -> bool {
        if self.credit > 0 {
            self.credit -= 1;
            return true;
        }
        let all = self.group.ios.load(Relaxed);
        let weight = self.group.weight.load(Relaxed).max(1);
        // mine/all > weight/total, without division.
        if all > 0 && self.mine as u128 * weight as u128 > self.weight as u128 * all as u128 {
            return false;
        }
        self.mine += CHUNK;
        self.credit = CHUNK - 1;
        self.group.ios.fetch_add(CHUNK, Relaxed);
        true
    }
}

impl Drop for Flow {
    fn drop(&mut self) {
        self.group.weight.fetch_sub(self.weight, Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(flow: u32, id: u32) -> JobSpec {
        JobSpec {
            rates: workload::Rates {
                flow,
                flow_id: id,
                ..Default::default()
            },
            ..JobSpec::default()
        }
    }

    #[test]
    fn weights_share_the_ios_and_an_ended_job_frees_the_rest() {
        let specs = [spec(3, 0), spec(1, 0), spec(5, 1), spec(0, 0)];
        let g = groups(specs.iter());
        assert!(
            Flow::new(&specs[3], &g).is_none(),
            "flow=0 is not flow controlled"
        );
        let (mut a, mut b) = (
            Flow::new(&specs[0], &g).unwrap(),
            Flow::new(&specs[1], &g).unwrap(),
        );
        let mut c = Flow::new(&specs[2], &g).unwrap();
        // Both try in turn, as two threads would: 3:1.
        for _ in 0..4000 {
            a.admit();
            b.admit();
        }
        let ratio = a.mine as f64 / b.mine as f64;
        assert!((2.9..3.1).contains(&ratio), "{} vs {}", a.mine, b.mine);
        // Another flow_id is not held back by this one.
        assert!((0..100).all(|_| c.admit()));
        // Once b ends, a runs alone.
        drop(b);
        assert!((0..100).all(|_| a.admit()));
    }
}
