//! The SNIA Solid State Storage Performance Test Specification (PTS) tests volbench runs as
//! suites: what each test's rounds hold, the variable it tracks, the steady-state verdict over
//! its last five rounds, and the measurement window's table. Pure: the rounds come in, the
//! verdict and the table go out.

use serde::{Deserialize, Serialize};
use stats::steady::{pts, PtsVerdict};

/// Rounds the steady-state window spans, and the most a test runs (the spec's numbers).
pub const WINDOW_ROUNDS: usize = 5;
pub const MAX_ROUNDS: usize = 25;

/// One PTS test: its rounds' points (R/W mixes x block sizes, in the spec's order), the
/// pattern, and the point whose figure decides steady state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PtsPlan {
    pub test: String,
    /// Read percentages, outer loop.
    pub mixes: Vec<u32>,
    /// Block sizes in bytes, inner loop.
    pub sizes: Vec<u64>,
    pub sequential: bool,
    pub numjobs: u32,
    pub iodepth: u32,
    /// The tracked point (read %, block size) and its figure.
    pub tracked: (u32, u64),
    pub tracked_figure: Figure,
}

/// What a test tracks of its tracked point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Figure {
    Iops,
    BwBytes,
    LatMeanNs,
}

impl PtsPlan {
    /// The plan of `pts-iops`, `pts-throughput` or `pts-latency` for a profile
    /// (`enterprise` or `client`), or None for another name.
    pub fn named(test: &str, client: bool) -> Option<PtsPlan> {
        let k = 1024u64;
        let (mixes, sizes, sequential, jobs, depth, tracked, figure) = match test {
            "pts-iops" => (
                vec![100, 95, 65, 50, 35, 5, 0],
                vec![1024 * k, 128 * k, 64 * k, 32 * k, 16 * k, 8 * k, 4 * k, 512],
                false,
                if client { 1 } else { 2 },
                16,
                (0, 4 * k),
                Figure::Iops,
            ),
            "pts-throughput" => (
                vec![100, 0],
                vec![1024 * k, 128 * k],
                true,
                1,
                if client { 16 } else { 32 },
                (0, 1024 * k),
                Figure::BwBytes,
            ),
            "pts-latency" => (
                vec![100, 65, 0],
                vec![8 * k, 4 * k, 512],
                false,
                1,
                1,
                (0, 4 * k),
                Figure::LatMeanNs,
            ),
            _ => return None,
        };
        Some(PtsPlan {
            test: test.to_string(),
            mixes,
            sizes,
            sequential,
            numjobs: jobs,
            iodepth: depth,
            tracked,
            tracked_figure: figure,
        })
    }

    /// A round's points in the spec's order: each mix, and within it each block size.
    pub fn points(&self) -> Vec<(u32, u64)> {
        let sizes = &self.sizes;
        self.mixes
            .iter()
            .flat_map(|&m| sizes.iter().map(move |&b| (m, b)))
            .collect()
    }
}

/// One point of one round.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PtsPoint {
    pub read_pct: u32,
    pub bs: u64,
    pub iops: f64,
    pub bw_bytes: f64,
    pub lat_mean_ns: f64,
}

impl PtsPoint {
    /// The figure `f` of this point.
    pub fn figure(&self, f: Figure) -> f64 {
        match f {
            Figure::Iops => self.iops,
            Figure::BwBytes => self.bw_bytes,
            Figure::LatMeanNs => self.lat_mean_ns,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PtsRound {
    pub round: u32,
    pub points: Vec<PtsPoint>,
}

/// The verdict over the last window of rounds: the rounds it spans and the rule's figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PtsSteady {
    pub first_round: u32,
    pub last_round: u32,
    /// The tracked figure of each round of the window.
    pub tracked: Vec<f64>,
    /// The rule's figures and verdict (`reached`), flattened into this object: the verdict
    /// is the rule's alone, so JSON written here reads back.
    #[serde(flatten)]
    pub rule: PtsVerdict,
}

/// The measurement window's figure for one mix and block size: the mean of its points over
/// the window's rounds, in a point's shape.
pub type PtsCell = PtsPoint;

/// A PTS test as it ran.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PtsReport {
    pub plan: PtsPlan,
    pub profile: String,
    pub target: String,
    /// How the target was purged, or why it was not.
    pub purge: String,
    /// Bytes written by the workload-independent preconditioning (twice the capacity in
    /// 128 KiB sequential writes), and how long it took.
    pub precondition_bytes: u64,
    pub precondition_ns: u64,
    pub capacity: u64,
    pub point_runtime_ns: u64,
    /// Block sizes of the spec left out: below the device's logical block, which direct
    /// I/O cannot go under.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_sizes: Vec<u64>,
    pub rounds: Vec<PtsRound>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steady_state: Option<PtsSteady>,
    pub table: Vec<PtsCell>,
}

impl PtsSteady {
    /// The verdict as the reports word it.
    pub fn verdict(&self) -> &'static str {
        match self.rule.reached {
            true => "reached",
            false => "NOT reached",
        }
    }
}

impl PtsReport {
    /// The tracked figure of each round so far.
    pub fn tracked(&self) -> Vec<f64> {
        let (m, b) = self.plan.tracked;
        self.rounds
            .iter()
            .filter_map(|r| r.points.iter().find(|p| p.read_pct == m && p.bs == b))
            .map(|p| p.figure(self.plan.tracked_figure))
            .collect()
    }

    /// Judges the last window of rounds and fills the table from it; true once steady.
    pub fn judge(&mut self) -> bool {
        let t = self.tracked();
        if t.len() < WINDOW_ROUNDS {
            return false;
        }
        let w = &t[t.len() - WINDOW_ROUNDS..];
        let rule = pts(w);
        let last = self.rounds.len() as u32;
        self.steady_state = Some(PtsSteady {
            first_round: last + 1 - WINDOW_ROUNDS as u32,
            last_round: last,
            tracked: w.to_vec(),
            rule,
        });
        self.table = window_table(&self.rounds[self.rounds.len() - WINDOW_ROUNDS..]);
        rule.reached
    }
}

/// Each point's mean over the window's rounds, in the rounds' order.
fn window_table(rounds: &[PtsRound]) -> Vec<PtsCell> {
    let Some(first) = rounds.first() else {
        return Vec::new();
    };
    let n = rounds.len() as f64;
    first
        .points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let mean = |f: fn(&PtsPoint) -> f64| {
                rounds
                    .iter()
                    .filter_map(|r| r.points.get(i))
                    .map(f)
                    .sum::<f64>()
                    / n
            };
            PtsCell {
                read_pct: p.read_pct,
                bs: p.bs,
                iops: mean(|p| p.iops),
                bw_bytes: mean(|p| p.bw_bytes),
                lat_mean_ns: mean(|p| p.lat_mean_ns),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_iops_round_is_the_specs_order() {
        let p = PtsPlan::named("pts-iops", false).unwrap();
        let pts = p.points();
        assert_eq!(pts.len(), 56);
        assert_eq!(pts[0], (100, 1 << 20));
        assert_eq!(pts[7], (100, 512));
        assert_eq!(pts[8], (95, 1 << 20));
        assert_eq!(pts[55], (0, 512));
        assert!(PtsPlan::named("pts-other", false).is_none());
    }

    fn round(r: u32, tracked: f64) -> PtsRound {
        let point = |read_pct, bs, iops| PtsPoint {
            read_pct,
            bs,
            iops,
            bw_bytes: iops * bs as f64,
            lat_mean_ns: 1e9 / iops,
        };
        PtsRound {
            round: r,
            points: vec![point(100, 4096, 2.0 * tracked), point(0, 4096, tracked)],
        }
    }

    #[test]
    fn steady_over_five_rounds_and_the_table_is_their_mean() {
        let plan = PtsPlan::named("pts-iops", false).unwrap();
        let mut r = PtsReport {
            plan,
            profile: "enterprise".into(),
            target: "t".into(),
            purge: String::new(),
            precondition_bytes: 0,
            precondition_ns: 0,
            capacity: 0,
            point_runtime_ns: 0,
            skipped_sizes: Vec::new(),
            rounds: Vec::new(),
            steady_state: None,
            table: Vec::new(),
        };
        // A fresh drive: falling, then flat.
        for (i, v) in [
            9000.0, 6000.0, 4000.0, 3100.0, 3000.0, 2950.0, 3050.0, 3000.0,
        ]
        .into_iter()
        .enumerate()
        {
            r.rounds.push(round(i as u32 + 1, v));
            let steady = r.judge();
            assert_eq!(steady, i == 7, "round {}: {:?}", i + 1, r.steady_state);
        }
        let ss = r.steady_state.as_ref().unwrap();
        assert_eq!((ss.first_round, ss.last_round), (4, 8));
        assert_eq!(r.table.len(), 2);
        let want = (3100.0 + 3000.0 + 2950.0 + 3050.0 + 3000.0) / 5.0;
        assert!((r.table[1].iops - want).abs() < 1e-9, "{:?}", r.table);
    }
}
