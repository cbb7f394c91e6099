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
    report::apply_percentile_lists(&mut out);
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
    let device = report::trust::records(
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
    let shown = if own.is_empty() {
        failed.iter().collect::<Vec<_>>()
    } else {
        own
    }
    .iter()
    .map(|p| {
        (
            p.rank,
            p.host.as_str(),
            p.error.as_deref().unwrap_or("no report"),
        )
    })
    .collect::<Vec<_>>();
    Err(said_once(&shown, parts.len()))
}

/// A rank's error: its rank, its host, the error's text.
pub type RankError<'a> = (u32, &'a str, &'a str);

/// Ranks' errors, each said once: ranks whose errors differ only in their own figures (the
/// offset of each rank's region) are one line, "all 4 ranks: ..." when that is every rank,
/// in rank 0's words.
pub fn said_once(errors: &[RankError], world: usize) -> String {
    // A figure is a run of digits and points with its unit letters (1g, 4.0, 256m): each
    // becomes one '#', so "--offset=0" and "--offset=256m" have one shape.
    let shape = |e: &str| -> String {
        let mut out = String::new();
        let mut in_figure = false;
        for c in e.chars() {
            if c.is_ascii_digit() || (in_figure && (c == '.' || c.is_ascii_alphabetic())) {
                if !in_figure {
                    out.push('#');
                }
                in_figure = true;
            } else {
                in_figure = false;
                out.push(c);
            }
        }
        out
    };
    let mut groups: Vec<(String, Vec<&RankError>)> = Vec::new();
    for e in errors {
        let k = shape(e.2);
        match groups.iter_mut().find(|(g, _)| *g == k) {
            Some((_, members)) => members.push(e),
            None => groups.push((k, vec![e])),
        }
    }
    groups
        .iter()
        .map(|(_, m)| {
            let (text, differ) = (m[0].2, m.iter().any(|e| e.2 != m[0].2));
            let figures = if differ {
                format!(
                    " (rank {}'s figures; the others' differ only in theirs)",
                    m[0].0
                )
            } else {
                String::new()
            };
            let mut hosts: Vec<&str> = m.iter().map(|e| e.1).collect();
            hosts.dedup();
            let who = match (m.len(), hosts.as_slice()) {
                (n, _) if n == world && n > 1 => format!("all {n} ranks"),
                (1, _) => format!("rank {} on {}", m[0].0, m[0].1),
                (_, [h]) => format!("ranks {} on {h}", ranks(m)),
                _ => format!("ranks {}", ranks(m)),
            };
            format!("{who}: {text}{figures}")
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn ranks(m: &[&RankError]) -> String {
    m.iter()
        .map(|e| e.0.to_string())
        .collect::<Vec<_>>()
        .join(", ")
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
    let errs: Vec<(u32, &str, &str)> = parts
        .iter()
        .filter_map(|p| {
            Some((
                p.rank,
                p.host.as_str(),
                p.report.as_ref()?.error.as_deref()?,
            ))
        })
        .collect();
    (!errs.is_empty()).then(|| said_once(&errs, parts.len()))
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
            if let Some(s) = &d.lat_due_ns {
                dir.lat_due = hist(s)?;
            }
            if let Some(s) = &d.issue_late_ns {
                dir.issue_late = hist(s)?;
            }
            dir.late = d.late.unwrap_or_default();
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
        for d in [&row.read, &row.write].into_iter().flatten() {
            h.ios += d.total_ios;
            h.bytes += d.io_bytes;
        }
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

#[cfg(test)]
mod tests {
    use super::said_once;

    #[test]
    fn an_error_common_to_every_rank_is_said_once() {
        let e = |o: &'static str| -> String {
            format!(
                "--size=1g at --offset={o} does not fit on /dev/zram0 (512.0 MiB): lower --size"
            )
        };
        let (a, b, c, d) = (e("0"), e("1g"), e("2g"), e("3g"));
        let errs = [
            (0, "h", a.as_str()),
            (1, "h", &b),
            (2, "h", &c),
            (3, "h", &d),
        ];
        let said = said_once(&errs, 4);
        assert!(
            said.starts_with("all 4 ranks: --size=1g at --offset=0 does"),
            "{said}"
        );
        assert_eq!(said.matches("does not fit").count(), 1, "{said}");
        assert!(said.contains("rank 0's figures"), "{said}");
        let same = [(0, "h", "no space"), (1, "h", "no space")];
        assert_eq!(said_once(&same, 2), "all 2 ranks: no space");
    }

    #[test]
    fn different_errors_keep_their_ranks_and_hosts() {
        let errs = [
            (0, "a", "no space"),
            (2, "a", "no space"),
            (1, "b", "denied"),
        ];
        assert_eq!(
            said_once(&errs, 4),
            "ranks 0, 2 on a: no space; rank 1 on b: denied"
        );
        assert_eq!(said_once(&[(3, "b", "denied")], 4), "rank 3 on b: denied");
    }
}
