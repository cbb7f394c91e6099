//! Latency percentiles per interval (per second, or `log_avg_msec`): a cliff (an SLC cache
//! running out, garbage collection, a throttle) shows in latency first. Each I/O's latency
//! goes into the open interval's histogram, which is merged into the run's when the interval
//! closes, so nothing is recorded twice; a closed interval keeps its percentiles and its
//! histogram (encoded) so the intervals of several jobs merge exactly. Over a long run closed
//! intervals are folded into records (`crate::fold`), as the series' samples are.

use crate::spill::Hdr;
use crate::LatHist;
use hdrhistogram::Histogram;

pub use crate::pct::Pct;

/// An interval's percentiles, from its histogram.
fn pct_of(h: &LatHist) -> Pct {
    Pct {
        p50_ns: h.percentile(50.0),
        p90_ns: h.percentile(90.0),
        p99_ns: h.percentile(99.0),
        p999_ns: h.percentile(99.9),
        max_ns: h.percentile(100.0),
    }
}

/// Records whose histograms stay in memory before the rest go to the spill file
/// (`crate::spill`): a minute at fio's 1 s interval, about 60 KB.
const IN_MEMORY: usize = 60;

/// A kept record: its index (the fold's record, which is interval k's own for the first
/// intervals: interval k covers [k, k+1) intervals after measuring began), its percentiles and
/// its histogram (HDR V2 deflate, base64; in the spill file while the run goes).
#[derive(Clone, Debug)]
pub struct Closed {
    pub idx: u64,
    pub pct: Pct,
    pub hdr: Hdr,
}

impl Closed {
    /// The record's histogram, read back.
    pub fn hist(&self) -> Option<LatHist> {
        LatHist::decode(&self.hdr.text()?)
    }
}

#[derive(Clone, Debug)]
pub struct Intervals {
    cur: Histogram<u64>,
    cur_n: u64,
    pub(crate) idx: u64,
    closed: Vec<Closed>,
    /// The interval's length, which the fold's tiers are counted in.
    interval_ms: u64,
    /// The record still taking closed intervals: its index and their histogram.
    open: Option<(u64, LatHist)>,
    /// Where each closed interval is also counted for a live scraper, if anyone watches.
    pub(crate) live: Option<std::sync::Arc<crate::live::LiveHist>>,
}

impl Intervals {
    pub(crate) fn new(cur: Histogram<u64>, interval_ms: u64) -> Intervals {
        Intervals {
            cur,
            cur_n: 0,
            idx: 0,
            closed: Vec::new(),
            interval_ms,
            open: None,
            live: None,
        }
    }

    #[inline]
    pub(crate) fn record(&mut self, ns: u64) {
        if self.cur.record(ns).is_err() {
            self.cur.saturating_record(ns);
        }
        self.cur_n += 1;
    }

    /// Closes the open interval into `whole` and opens interval `next`.
    #[cold]
    pub(crate) fn close(&mut self, whole: &mut Histogram<u64>, next: u64) {
        if self.cur_n > 0 {
            whole
                .add(&self.cur)
                .expect("auto-resizing histograms always accept another");
            let taken = std::mem::replace(&mut self.cur, LatHist::fresh_hist());
            let h = LatHist::from_hist(taken);
            if let (Some(live), Some(hist)) = (&self.live, h.hdr()) {
                live.add(self.idx, hist, pct_of(&h));
            }
            let rec = crate::fold::bucket(self.idx, self.interval_ms);
            match &mut self.open {
                Some((at, into)) if *at == rec => into.merge(&h),
                _ => {
                    self.seal();
                    self.open = Some((rec, h));
                }
            }
            self.cur_n = 0;
        }
        self.idx = next;
    }

    /// Keeps the open record (its percentiles and encoded histogram): no interval comes after.
    /// A run's first records stay in memory, so a short run touches no file of its own.
    pub(crate) fn seal(&mut self) {
        if let Some((idx, h)) = self.open.take() {
            let text = h.encode();
            self.closed.push(Closed {
                idx,
                pct: pct_of(&h),
                hdr: match self.closed.len() < IN_MEMORY {
                    true => Hdr::Mem(text),
                    false => Hdr::put(text),
                },
            });
        }
    }

    /// The sealed records.
    pub(crate) fn closed(&self) -> &[Closed] {
        &self.closed
    }

    /// Another job's records merged into these, record by record (exactly: the histograms
    /// are added). Both lists are sorted by record, so one walk merges them.
    pub(crate) fn merge(&mut self, other: &[Closed]) {
        self.seal();
        let mine = std::mem::take(&mut self.closed);
        let mut out = Vec::with_capacity(mine.len().max(other.len()));
        let (mut a, mut b) = (mine.into_iter().peekable(), other.iter().peekable());
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if x.idx == y.idx => {
                    let (x, y) = (a.next().unwrap(), b.next().unwrap());
                    added(x, y)
                }
                (Some(x), Some(y)) if x.idx < y.idx => a.next().unwrap(),
                (_, Some(_)) => b.next().unwrap().clone(),
                (Some(_), None) => a.next().unwrap(),
                (None, None) => break,
            };
            out.push(next);
        }
        self.closed = out;
    }
}

/// Two jobs' same record, their histograms added (`x` as it was if either fails to decode).
fn added(mut x: Closed, y: &Closed) -> Closed {
    if let (Some(mut a), Some(b)) = (x.hist(), y.hist()) {
        a.merge(&b);
        x.pct = pct_of(&a);
        // The merged records are the report's, made as it is assembled: kept in memory.
        x.hdr = Hdr::Mem(a.encode());
    }
    x
}

/// The percentiles of interval `idx` over several jobs' intervals (their histograms merged).
pub fn merged(jobs: &[&[Closed]], idx: u64) -> Option<Pct> {
    let mut h = LatHist::new();
    let mut any = false;
    for c in jobs.iter().filter_map(|j| j.iter().find(|c| c.idx == idx)) {
        if let Some(x) = c.hist() {
            h.merge(&x);
            any = true;
        }
    }
    any.then(|| pct_of(&h))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Interval by interval: each holds its own values' percentiles, and the whole histogram
    /// is what recording every value once would give.
    #[test]
    fn intervals_hold_their_own_values_and_add_up_to_the_whole() {
        let mut a = LatHist::new();
        a.with_intervals(1000);
        let mut whole = LatHist::new();
        for i in 0..3000u64 {
            let idx = i / 1000;
            let ns = 1000 * (idx + 1) + i % 7;
            a.record_at(ns, idx);
            whole.record(ns);
        }
        a.close_intervals();
        let c = a.intervals();
        assert_eq!(c.len(), 3);
        assert_eq!(c[1].idx, 1);
        assert!((2000..=2006).contains(&c[1].pct.p50_ns), "{:?}", c[1].pct);
        assert_eq!(a.count(), 3000);
        assert_eq!(a.percentile(99.0), whole.percentile(99.0));
        assert_eq!(a.summary().percentiles, whole.summary().percentiles);
        let m = merged(&[c, c], 2).unwrap();
        assert_eq!(m.p99_ns, c[2].pct.p99_ns);
    }

    /// Closed intervals reach the live buckets with every value once, and their percentiles
    /// are the intervals' own.
    #[test]
    fn closed_intervals_feed_the_buckets_once() {
        let live = std::sync::Arc::new(crate::live::LiveHist::default());
        let mut h = LatHist::new();
        h.with_intervals(1000);
        h.feed(live.clone());
        for i in 0..3000u64 {
            h.record_at(10_000 * (1 + i / 1000), i / 1000);
        }
        h.close_intervals();
        let (counts, sum) = live.snapshot();
        assert_eq!(counts.iter().sum::<u64>(), 3000);
        assert_eq!(counts[crate::live::bucket_of(10_000)], 1000);
        assert_eq!(counts[crate::live::bucket_of(30_000)], 1000);
        let exact = 1000 * (10_000 + 20_000 + 30_000);
        assert!(
            (sum as f64 - exact as f64).abs() / exact as f64 <= 0.002,
            "{sum}"
        );
        assert_eq!(live.pct(1).unwrap().p50_ns, h.intervals()[1].pct.p50_ns);
        assert_eq!(live.latest().unwrap().0, 2);
    }

    /// Intervals past the fold's first 1,200 are kept ten to a record (at 100 ms), whose
    /// histogram holds every value of its ten; merging two jobs' records stays exact.
    #[test]
    fn later_intervals_fold_into_records_that_hold_every_value() {
        let mut a = LatHist::new();
        a.with_intervals(100);
        for k in 0..1300u64 {
            for v in 0..10 {
                a.record_at(1000 + k * 10 + v, k);
            }
        }
        a.close_intervals();
        let c = a.intervals();
        assert_eq!(c.len(), 1210);
        assert_eq!(c[1209].idx, 1209);
        let last = c[1209].hist().unwrap();
        assert_eq!(last.count(), 100);
        // Its least value is interval 1,290's first (HDR: three significant digits).
        assert!(last.percentile(0.0).abs_diff(1000 + 1290 * 10) <= 14);
        let mut two = LatHist::new();
        two.merge(&a);
        two.merge(&a);
        let m = two.intervals();
        assert_eq!(m.len(), 1210);
        assert_eq!(m[1209].hist().unwrap().count(), 200);
        assert_eq!(m[1209].pct, c[1209].pct);
    }
}
