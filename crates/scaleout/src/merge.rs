//! Every rank's report made into one, exactly.
//!
//! A rank's report carries its histograms in HDR form (`LatencySummary::hdr`), so adding them
//! gives the percentiles of all I/Os together; averaging ranks' percentiles would not. Counts,
//! bytes and CPU are added; runtimes follow fio's group rule (the longest); per-second series
//! are summed sample by sample, which lines them up because every rank's measured interval
//! began at the same barrier (the skew is reported).

use report::{
    Environment, GroupReport, HostReport, JobReport, RankReport, RankSpread, RunReport, ScaleOut,
    Status, TargetInfo, WarningRecord,
};
use serde::{Deserialize, Serialize};
use stats::{JobStats, LatHist, DEPTH_BUCKETS};

/// What one rank sends to rank 0 once its run is over.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Part {
    pub rank: u32,
    pub host: String,
    /// The rank's own report, or why it could not run.
    pub report: Option<RunReport>,
    pub error: Option<String>,
    /// Wall-clock start of the rank's measured interval, ns since the Unix epoch.
    pub start_ns: u64,
    /// This host's clock minus rank 0's, as estimated by ping-pong (rank 0 fills it in).
    #[serde(default)]
    pub clock_offset_ns: i64,
}

/// How the ranks used the storage (reported, not interpreted).
#[derive(Clone, Debug)]
pub struct Setup {
    pub library: String,
    pub layout: String,
}

/// Merges the ranks' parts (any order) into one report, or says which ranks failed and why.
pub fn merge(mut parts: Vec<Part>, setup: &Setup) -> Result<RunReport, String> {
    parts.sort_by_key(|p| p.rank);
    failures(&parts)?;
    let reports: Vec<&RunReport> = parts.iter().filter_map(|p| p.report.as_ref()).collect();
    let first = *reports.first().ok_or("no rank reported")?;
    let sync_only = first.workload.jobs.iter().all(|s| s.ioengine.is_sync());
    let mut out = first.clone();
    out.jobs = (0..first.jobs.len())
        .map(|i| merge_jobs(reports.iter().filter_map(|r| r.jobs.get(i)), sync_only))
        .collect::<Result<_, _>>()?;
    out.groups = (0..first.groups.len())
        .map(|i| {
            let g = &first.groups[i];
            let merged = merge_jobs(
                reports
                    .iter()
                    .filter_map(|r| r.groups.get(i).map(|g| &g.report)),
                sync_only,
            )?;
            Ok(GroupReport {
                group_reporting: g.group_reporting,
                spec_index: g.spec_index,
                report: merged,
            })
        })
        .collect::<Result<_, String>>()?;
    out.group = merge_jobs(reports.iter().map(|r| &r.group), sync_only)?;
    out.status = worst_status(reports.iter().map(|r| r.status));
    out.error = rank_errors(&parts);
    out.environment.targets = targets(&parts);
    out.warnings = warnings(&out, &reports);
    runner::apply_percentile_lists(&mut out);
    out.ranks = rank_rows(&parts);
    out.scaleout = Some(scaleout(&parts, &out.ranks, setup));
    Ok(out)
}

/// Checks against the device's counters are redone on the merged counts (a rank alone moved
/// only its share of what the device saw); the others (CPU-bound, buffered I/O, a short run)
/// hold for the rank that raised them and are kept, once per kind.
const DEVICE_CHECKS: [&str; 3] = ["device_saw_less", "rate_disagrees", "merged_io"];

fn warnings(merged: &RunReport, ranks: &[&RunReport]) -> Vec<WarningRecord> {
    let mut out: Vec<WarningRecord> = Vec::new();
    for w in ranks.iter().flat_map(|r| &r.warnings) {
        if !DEVICE_CHECKS.contains(&w.code.as_str()) && !out.iter().any(|o| o.code == w.code) {
            out.push(w.clone());
        }
    }
    let device = runner::judge(
        &merged.workload.jobs,
        &merged.jobs,
        &merged.groups,
        &merged.environment.targets,
    );
    out.extend(
        device
            .into_iter()
            .filter(|w| DEVICE_CHECKS.contains(&w.code.as_str())),
    );
    out
}

/// Ranks that could not run at all: every one named with its host and its own error. A rank
/// that stopped only because another failed says so and is left out of the list.
fn failures(parts: &[Part]) -> Result<(), String> {
    let failed: Vec<&Part> = parts.iter().filter(|p| p.report.is_none()).collect();
    let peer_failed = runner::RunError::PeerFailed.to_string();
    if failed.is_empty() {
        return Ok(());
    }
    let own: Vec<&&Part> = failed
        .iter()
        .filter(|p| p.error.as_deref() != Some(peer_failed.as_str()))
        .collect();
    let shown: Vec<String> = if own.is_empty() {
        failed.iter().collect::<Vec<_>>()
    } else {
        own
    }
    .iter()
    .map(|p| {
        format!(
            "rank {} on {}: {}",
            p.rank,
            p.host,
            p.error.as_deref().unwrap_or("no report")
        )
    })
    .collect();
    Err(shown.join("; "))
}

fn worst_status(s: impl Iterator<Item = Status>) -> Status {
    let rank = |s: &Status| match s {
        Status::Complete => 0,
        Status::Partial => 1,
        Status::Running => 2,
        Status::Interrupted => 3,
    };
    s.max_by_key(rank).unwrap_or(Status::Complete)
}

fn rank_errors(parts: &[Part]) -> Option<String> {
    let errs: Vec<String> = parts
        .iter()
        .filter_map(|p| {
            let e = p.report.as_ref()?.error.as_ref()?;
            Some(format!("rank {} on {}: {e}", p.rank, p.host))
        })
        .collect();
    (!errs.is_empty()).then(|| errs.join("; "))
}

/// The same job (or group) from every rank, as one.
fn merge_jobs<'a>(
    jobs: impl Iterator<Item = &'a JobReport>,
    sync_only: bool,
) -> Result<JobReport, String> {
    let mut merged = JobStats::default();
    let mut first: Option<&JobReport> = None;
    let mut targets = Vec::new();
    let mut verified = None;
    for j in jobs {
        merged.merge(&to_stats(j)?);
        first.get_or_insert(j);
        targets.extend(j.targets.iter().cloned());
        if let Some(v) = j.verified_blocks {
            *verified.get_or_insert(0) += v;
        }
    }
    let first = first.ok_or("a rank's report has fewer jobs than rank 0's")?;
    let mut r = JobReport::from_stats(&first.name, targets, &merged, sync_only);
    r.groupid = first.groupid;
    r.spec_index = first.spec_index;
    r.verified_blocks = verified;
    r.error = first.error.clone();
    Ok(r)
}

/// A job's figures back as raw statistics, histograms included, ready to be merged.
pub fn to_stats(j: &JobReport) -> Result<JobStats, String> {
    let hist = |s: &stats::LatencySummary| {
        LatHist::from_summary(s)
            .ok_or_else(|| format!("job {}: a latency summary without its histogram", j.name))
    };
    let mut st = JobStats::default();
    for (i, d) in [&j.read, &j.write].into_iter().enumerate() {
        if let Some(d) = d {
            let dir = &mut st.dirs[i];
            dir.ios = d.total_ios;
            dir.bytes = d.io_bytes;
            if let Some(s) = &d.slat_ns {
                dir.slat = hist(s)?;
            }
            dir.clat = hist(&d.clat_ns)?;
            dir.lat = hist(&d.lat_ns)?;
        }
    }
    if let Some(s) = &j.sync {
        st.sync = hist(&s.lat_ns)?;
        if let Some(d) = &s.durable_lat_ns {
            st.durable = hist(d)?;
        }
    }
    st.runtime_ns = j.runtime_ns;
    st.usr_ns = j.cpu.usr_ns;
    st.sys_ns = j.cpu.sys_ns;
    st.ctx = j.cpu.ctx_switches;
    // Depth levels travel as shares of the submissions; weighting them by the I/O count gives
    // the merged shares (each rank's submissions equal its I/Os but for the last batch).
    let n = (st.dirs[0].ios + st.dirs[1].ios) as f64;
    for l in &j.iodepth.levels {
        if let Some(k) = DEPTH_BUCKETS.iter().position(|&d| d == l.depth) {
            st.depth[k] = (l.percent / 100.0 * n).round() as u64;
        }
    }
    st.max_depth = j.iodepth.max;
    st.series = j.series.clone();
    Ok(st)
}

/// Each rank's targets, once each: ranks on one host that share a device see the same kernel
/// counters, so the device's counters stay with its first rank on that host only.
fn targets(parts: &[Part]) -> Vec<TargetInfo> {
    let mut out: Vec<TargetInfo> = Vec::new();
    let mut counted: Vec<(String, String)> = Vec::new();
    for p in parts {
        let Some(r) = &p.report else { continue };
        for t in &r.environment.targets {
            let mut t = t.clone();
            if parts.iter().any(|q| q.host != parts[0].host) {
                t.host = Some(p.host.clone());
            }
            if out.iter().any(|o| o.path == t.path && o.host == t.host) {
                continue;
            }
            let dev = t
                .device
                .as_ref()
                .map(|d| d.name.clone())
                .unwrap_or_default();
            let key = (p.host.clone(), dev);
            if counted.contains(&key) {
                t.kernel_counters = None;
            } else if t.kernel_counters.is_some() {
                counted.push(key);
            }
            out.push(t);
        }
    }
    out
}

/// Start of each rank's measured interval on rank 0's clock.
fn starts(parts: &[Part]) -> Vec<i128> {
    parts
        .iter()
        .map(|p| p.start_ns as i128 - p.clock_offset_ns as i128)
        .collect()
}

fn rank_rows(parts: &[Part]) -> Vec<RankReport> {
    let s = starts(parts);
    let earliest = s.iter().copied().min().unwrap_or(0);
    parts
        .iter()
        .zip(&s)
        .filter_map(|(p, &start)| {
            let r = p.report.as_ref()?;
            Some(RankReport {
                rank: p.rank,
                host: p.host.clone(),
                status: r.status,
                error: r.error.clone(),
                targets: r.group.targets.clone(),
                runtime_ns: r.group.runtime_ns,
                start_offset_ns: (start - earliest) as u64,
                read: r.group.read.clone(),
                write: r.group.write.clone(),
                sync: r.group.sync.clone(),
            })
        })
        .collect()
}

fn scaleout(parts: &[Part], rows: &[RankReport], setup: &Setup) -> ScaleOut {
    let s = starts(parts);
    let ends: Vec<i128> = parts
        .iter()
        .zip(&s)
        .filter_map(|(p, &st)| Some(st + p.report.as_ref()?.group.runtime_ns as i128))
        .collect();
    let spread = |v: &[i128]| {
        let (lo, hi) = (v.iter().min(), v.iter().max());
        lo.zip(hi).map_or(0, |(lo, hi)| (hi - lo) as u64)
    };
    let latest_start = s.iter().copied().max().unwrap_or(0);
    let earliest_end = ends.iter().copied().min().unwrap_or(0);
    ScaleOut {
        size: parts.len() as u32,
        library: setup.library.clone(),
        layout: setup.layout.clone(),
        start_skew_ns: spread(&s),
        end_skew_ns: spread(&ends),
        common_ns: (earliest_end - latest_start).max(0) as u64,
        max_clock_offset_ns: parts
            .iter()
            .map(|p| p.clock_offset_ns.unsigned_abs())
            .max()
            .unwrap_or(0),
        hosts: hosts(parts, rows),
        spread: rank_spread(rows),
    }
}

/// One row per host, in order of its first rank, with that host's environment.
fn hosts(parts: &[Part], rows: &[RankReport]) -> Vec<HostReport> {
    let mut out: Vec<HostReport> = Vec::new();
    for (p, row) in parts.iter().filter(|p| p.report.is_some()).zip(rows) {
        let env = p.report.as_ref().map(|r| r.environment.clone());
        let h = match out.iter_mut().position(|h| h.host == p.host) {
            Some(i) => &mut out[i],
            None => {
                out.push(HostReport {
                    host: p.host.clone(),
                    environment: env.unwrap_or_else(Environment::default),
                    ..Default::default()
                });
                out.last_mut().unwrap()
            }
        };
        h.ranks.push(p.rank);
        h.iops += row.total_iops();
        h.bw_bytes += row.total_bw_bytes();
    }
    out
}

fn rank_spread(rows: &[RankReport]) -> Option<RankSpread> {
    let iops: Vec<(u32, f64)> = rows.iter().map(|r| (r.rank, r.total_iops())).collect();
    let slow = iops.iter().min_by(|a, b| a.1.total_cmp(&b.1))?;
    let fast = iops.iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let n = iops.len() as f64;
    let mean = iops.iter().map(|x| x.1).sum::<f64>() / n;
    let var = iops.iter().map(|x| (x.1 - mean).powi(2)).sum::<f64>() / n;
    Some(RankSpread {
        slowest_rank: slow.0,
        slowest_iops: slow.1,
        fastest_rank: fast.0,
        fastest_iops: fast.1,
        mean_iops: mean,
        cv_percent: if mean > 0.0 {
            100.0 * var.sqrt() / mean
        } else {
            0.0
        },
    })
}
