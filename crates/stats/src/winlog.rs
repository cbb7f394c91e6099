//! Per-window records for two of fio's logs that the per-second series cannot give: the
//! latency logs' window maximum (`log_max_value=1`) and the completion-latency histograms of
//! `write_hist_log` (every `log_hist_msec`). The job thread keeps them by each I/O's completion
//! time, only when a job asks for them: one branch per completion otherwise.
//!
//! The histogram bins are fio's own (`plat` bins: exact below 128 ns, then 64 bins per power of
//! two, 1856 in all), so fio's post-processing tools (`fio/tools/hist/fiologparser_hist.py`)
//! read volbench's files as they read fio's.

use serde::{Deserialize, Serialize};

/// log2 of the bins per power of two.
const PLAT_BITS: u32 = 6;
/// Bins per power of two.
const PLAT_VAL: u64 = 1 << PLAT_BITS;
/// fio's bin count (29 groups of 64): the number of columns after the first three.
pub const PLAT_NR: usize = 29 * PLAT_VAL as usize;

/// fio's bin for a latency of `ns`: the value itself below 128 ns, then the top 7 bits.
pub fn plat_index(ns: u64) -> usize {
    let msb = 63 - (ns | 1).leading_zeros();
    if msb <= PLAT_BITS {
        return ns as usize;
    }
    let drop = msb - PLAT_BITS;
    let base = ((drop + 1) << PLAT_BITS) as usize;
    let offset = ((ns >> drop) & (PLAT_VAL - 1)) as usize;
    (base + offset).min(PLAT_NR - 1)
}

/// The smallest latency in ns that falls in bin `idx` (the inverse of [`plat_index`]).
pub fn plat_value(idx: usize) -> u64 {
    let idx = idx as u64;
    if idx < 2 * PLAT_VAL {
        return idx;
    }
    let drop = idx / PLAT_VAL - 1;
    (PLAT_VAL + idx % PLAT_VAL) << drop
}

/// The latency fio names bin `idx` by in json+ `bins`: the middle of the bin, as fio's
/// `plat_idx_to_val` gives it (the exact value below 128 ns).
pub fn plat_mid(idx: usize) -> u64 {
    if (idx as u64) < 2 * PLAT_VAL {
        return idx as u64;
    }
    let half = (1u64 << (idx as u64 / PLAT_VAL - 1)) / 2;
    plat_value(idx) + half
}

/// One closed histogram window: its end and, per direction, the non-empty bins.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HistWindow {
    pub end_ms: u64,
    /// (bin, count) of reads, then of writes.
    pub bins: [Vec<(u16, u32)>; 2],
}

/// What a job keeps for these logs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WindowLog {
    /// Width of the maximum windows in ms (0: not kept).
    pub max_ms: u64,
    /// Per window: the largest total, completion and submission latency; reads then writes
    /// (`[lat r, lat w, clat r, clat w, slat r, slat w]`), 0 where the window had none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub max: Vec<[u64; 6]>,
    /// Width of the histogram windows in ms (0: not kept).
    pub hist_ms: u64,
    /// Histogram windows closed so far. As in fio, a window is closed by the first completion
    /// after it, so the job's last window is never written.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hist: Vec<HistWindow>,
    #[serde(skip)]
    cur: Option<Box<[[u32; PLAT_NR]; 2]>>,
    #[serde(skip)]
    cur_k: u64,
}

impl WindowLog {
    /// A log of window maxima every `max_ms` and histograms every `hist_ms` (0: that one not
    /// kept); `None` when neither is asked for.
    pub fn new(max_ms: u64, hist_ms: u64) -> Option<WindowLog> {
        (max_ms > 0 || hist_ms > 0).then(|| WindowLog {
            max_ms,
            hist_ms,
            cur: (hist_ms > 0).then(|| Box::new([[0; PLAT_NR]; 2])),
            ..WindowLog::default()
        })
    }

    /// One counted I/O of direction `dir` completing `t_ns` into the measured interval.
    pub fn record(&mut self, t_ns: u64, dir: usize, lat: u64, clat: u64, slat: u64) {
        let ms = t_ns / 1_000_000;
        if let Some(k) = ms.checked_div(self.max_ms) {
            let k = k as usize;
            if self.max.len() <= k {
                self.max.resize(k + 1, [0; 6]);
            }
            let m = &mut self.max[k];
            m[dir] = m[dir].max(lat);
            m[2 + dir] = m[2 + dir].max(clat);
            m[4 + dir] = m[4 + dir].max(slat);
        }
        if let Some(k) = ms.checked_div(self.hist_ms) {
            if k != self.cur_k {
                self.close();
                self.cur_k = k;
            }
            if let Some(c) = &mut self.cur {
                c[dir][plat_index(clat)] += 1;
            }
        }
    }

    /// Moves the current histogram window, if it has any I/O, to `hist`.
    fn close(&mut self) {
        let Some(c) = &mut self.cur else { return };
        let mut w = HistWindow {
            end_ms: (self.cur_k + 1) * self.hist_ms,
            ..HistWindow::default()
        };
        for (d, bins) in c.iter_mut().enumerate() {
            for (i, n) in bins.iter_mut().enumerate() {
                if *n > 0 {
                    w.bins[d].push((i as u16, std::mem::take(n)));
                }
            }
        }
        if w.bins.iter().any(|b| !b.is_empty()) {
            self.hist.push(w);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bins_are_exact_below_128_then_64_per_power_of_two() {
        for v in 0..128 {
            assert_eq!(plat_index(v), v as usize);
        }
        assert_eq!(plat_index(128), 128);
        assert_eq!(plat_index(129), 128);
        assert_eq!(plat_index(130), 129);
        // fio's plat_idx_to_val names a bin by its middle: 128..=129 is "129", 256..=259 "258".
        assert_eq!(plat_mid(plat_index(129)), 129);
        assert_eq!(plat_mid(plat_index(257)), 258);
        assert_eq!(plat_mid(plat_index(1_000_000)), 1_003_520);
        assert_eq!(plat_index(255), 191);
        assert_eq!(plat_index(256), 192);
        // 25,344 ns: the top 7 bits are 99 (64 + 35), 8 bits dropped: group 9, bin 35.
        assert_eq!(plat_index(25_344), 9 * 64 + 35);
        assert_eq!(plat_index(u64::MAX), PLAT_NR - 1);
        // Each bin's lower edge falls in it, and the value below it in the bin before.
        for i in 1..PLAT_NR {
            let v = plat_value(i);
            assert_eq!(plat_index(v), i, "bin {i} starts at {v}");
            assert_eq!(plat_index(v - 1), i - 1, "bin {i}");
        }
    }

    #[test]
    fn windows_close_on_the_next_completion_and_keep_maxima() {
        let mut w = WindowLog::new(100, 100).unwrap();
        w.record(10_000_000, 0, 500, 400, 100);
        w.record(20_000_000, 0, 900, 700, 200);
        w.record(150_000_000, 1, 300, 250, 50);
        w.record(450_000_000, 0, 100, 90, 10);
        assert_eq!(w.max.len(), 5);
        assert_eq!(w.max[0], [900, 0, 700, 0, 200, 0]);
        assert_eq!(w.max[1], [0, 300, 0, 250, 0, 50]);
        assert_eq!(w.max[2], [0; 6]);
        // Windows 0 and 1 were closed by later completions; the last (4) stays open.
        assert_eq!(w.hist.len(), 2);
        assert_eq!(w.hist[0].end_ms, 100);
        assert_eq!(
            w.hist[0].bins[0],
            vec![(plat_index(400) as u16, 1), (plat_index(700) as u16, 1)]
        );
        assert_eq!(w.hist[1].bins, [vec![], vec![(plat_index(250) as u16, 1)]]);
        assert!(WindowLog::new(0, 0).is_none());
    }
}
