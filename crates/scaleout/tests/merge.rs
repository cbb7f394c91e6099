//! The merge, without MPI: real runs (the null engine, so no device is needed) stand for ranks,
//! and the merged report is checked against sums and against histograms merged here from the
//! ranks' own JSON with the HDR library directly.

use base64::Engine as _;
use hdrhistogram::serialization::Deserializer;
use hdrhistogram::Histogram;
use report::{RunReport, Status};
use scaleout::merge::{merge, Part, Setup};
use stats::LatencySummary;
use workload::{EngineKind, JobSpec, Rw, Workload};

/// One rank's real report: `ios` null-engine I/Os of `bs`, reads and writes mixed.
fn rank_report(ios: u64, bs: u64, seed: u64) -> RunReport {
    let spec = JobSpec {
        name: "job".into(),
        rw: Rw::RandRw,
        bs,
        ioengine: EngineKind::Null,
        size: Some(ios * bs),
        time_based: false,
        runtime: None,
        pattern: workload::Pattern {
            randseed: seed,
            ..Default::default()
        },
        filename: vec![format!("/nonexistent/rank-{seed}").into()],
        ..Default::default()
    };
    let w = Workload {
        jobs: vec![spec],
        ..Default::default()
    };
    runner::run(&w, &Default::default(), &mut runner::Silent).expect("a null run")
}

fn part(rank: u32, host: &str, r: RunReport, start_ns: u64) -> Part {
    // Through JSON, as ranks send them.
    let r: RunReport = serde_json::from_str(&serde_json::to_string(&r).unwrap()).unwrap();
    Part {
        rank,
        host: host.into(),
        report: Some(r),
        error: None,
        start_ns,
        clock_offset_ns: 0,
    }
}

fn setup() -> Setup {
    Setup {
        library: "test".into(),
        layout: "file-per-process".into(),
    }
}

/// Percentiles of the ranks' histograms added with the HDR library, clamped to the extremes
/// as volbench reports them.
fn offline(sums: &[&LatencySummary]) -> Vec<(f64, u64)> {
    let mut total: Option<Histogram<u64>> = None;
    for s in sums {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(s.hdr.as_ref().expect("a histogram"))
            .unwrap();
        let h: Histogram<u64> = Deserializer::new().deserialize(&mut &bytes[..]).unwrap();
        match &mut total {
            Some(t) => {
                t.auto(true);
                t.add(&h).unwrap()
            }
            None => total = Some(h),
        }
    }
    let t = total.unwrap();
    let lo = sums.iter().map(|s| s.min_ns).min().unwrap();
    let hi = sums.iter().map(|s| s.max_ns).max().unwrap();
    sums[0]
        .percentiles
        .iter()
        .map(|p| (p.p, t.value_at_percentile(p.p).clamp(lo, hi)))
        .collect()
}

#[test]
fn counts_histograms_series_and_rows_are_exact() {
    let reports = [
        rank_report(20_000, 4096, 1),
        rank_report(50_000, 8192, 2),
        rank_report(5_000, 16384, 3),
    ];
    let parts: Vec<Part> = reports
        .iter()
        .enumerate()
        .map(|(i, r)| {
            part(
                i as u32,
                ["a", "a", "b"][i],
                r.clone(),
                1_000 + 300 * i as u64,
            )
        })
        .collect();
    let m = merge(parts.iter().rev().cloned().collect(), &setup()).unwrap();
    for (dir, get) in [
        (
            "read",
            (|r: &RunReport| r.group.read.clone()) as fn(&RunReport) -> _,
        ),
        ("write", |r: &RunReport| r.group.write.clone()),
    ] {
        let ranks: Vec<_> = reports.iter().map(|r| get(r).unwrap()).collect();
        let merged = get(&m).unwrap();
        let ios: u64 = ranks.iter().map(|d| d.total_ios).sum();
        let bytes: u64 = ranks.iter().map(|d| d.io_bytes).sum();
        assert_eq!(merged.total_ios, ios, "{dir} I/Os");
        assert_eq!(merged.io_bytes, bytes, "{dir} bytes");
        for (name, pick) in [
            (
                "clat",
                (|d: &report::DirReport| d.clat_ns.clone()) as fn(&_) -> _,
            ),
            ("lat", |d: &report::DirReport| d.lat_ns.clone()),
        ] {
            let sums: Vec<LatencySummary> = ranks.iter().map(pick).collect();
            let want = offline(&sums.iter().collect::<Vec<_>>());
            let got: Vec<(f64, u64)> = pick(&merged)
                .percentiles
                .iter()
                .map(|p| (p.p, p.ns))
                .collect();
            assert_eq!(got, want, "{dir} {name} percentiles");
            let s = pick(&merged);
            assert_eq!(s.n, ios);
            assert_eq!(s.min_ns, sums.iter().map(|s| s.min_ns).min().unwrap());
            assert_eq!(s.max_ns, sums.iter().map(|s| s.max_ns).max().unwrap());
            let mean = sums.iter().map(|s| s.mean_ns * s.n as f64).sum::<f64>() / ios as f64;
            assert!(
                (s.mean_ns - mean).abs() <= 1e-6 * mean.max(1.0),
                "{dir} {name} mean"
            );
        }
    }
    // The series: every sample's I/Os summed, so the merged series adds up to the totals.
    let sum = |r: &RunReport| -> u64 {
        r.group
            .series
            .samples
            .iter()
            .map(|s| s.ios[0] + s.ios[1])
            .sum()
    };
    assert_eq!(sum(&m), reports.iter().map(sum).sum::<u64>());
    assert_eq!(
        sum(&m),
        m.group.read.as_ref().unwrap().total_ios + m.group.write.as_ref().unwrap().total_ios
    );
    // Rows: one per rank in rank order with that rank's own figures; hosts in first-rank order.
    assert_eq!(
        m.ranks.iter().map(|r| r.rank).collect::<Vec<_>>(),
        [0, 1, 2]
    );
    for (row, r) in m.ranks.iter().zip(&reports) {
        assert_eq!(
            row.read.as_ref().unwrap().total_ios,
            r.group.read.as_ref().unwrap().total_ios
        );
        assert_eq!(row.runtime_ns, r.group.runtime_ns);
    }
    assert_eq!(m.ranks[2].start_offset_ns, 600);
    let so = m.scaleout.as_ref().unwrap();
    assert_eq!(so.size, 3);
    assert_eq!(so.start_skew_ns, 600);
    let hosts: Vec<(&str, Vec<u32>)> = so
        .hosts
        .iter()
        .map(|h| (h.host.as_str(), h.ranks.clone()))
        .collect();
    assert_eq!(hosts, [("a", vec![0, 1]), ("b", vec![2])]);
    let spread = so.spread.as_ref().unwrap();
    let iops: Vec<f64> = m.ranks.iter().map(|r| r.total_iops()).collect();
    let slowest = iops.iter().cloned().fold(f64::INFINITY, f64::min);
    assert_eq!(spread.slowest_iops, slowest);
    assert_eq!(iops[spread.slowest_rank as usize], slowest);
    // Two hosts: targets are named with their host.
    let hosts: Vec<_> = m
        .environment
        .targets
        .iter()
        .map(|t| t.host.as_deref())
        .collect();
    assert!(
        hosts.contains(&Some("a")) && hosts.contains(&Some("b")),
        "{hosts:?}"
    );
    assert_eq!(m.status, Status::Complete);
}

#[test]
fn clock_offsets_are_removed_from_the_skew() {
    let r = rank_report(2_000, 4096, 9);
    let mut a = part(0, "a", r.clone(), 5_000_000);
    let mut b = part(1, "b", r, 5_000_000 + 2_000_000 + 700);
    a.clock_offset_ns = 0;
    b.clock_offset_ns = 2_000_000;
    let m = merge(vec![a, b], &setup()).unwrap();
    let so = m.scaleout.unwrap();
    assert_eq!(so.start_skew_ns, 700);
    assert_eq!(so.max_clock_offset_ns, 2_000_000);
}

#[test]
fn failures_name_each_rank_and_host_and_status_is_the_worst() {
    let r = rank_report(1_000, 4096, 4);
    let mut bad = part(2, "b", r.clone(), 0);
    bad.report = None;
    bad.error = Some("directory /x does not exist".into());
    let mut follower = part(1, "a", r.clone(), 0);
    follower.report = None;
    follower.error = Some(runner::RunError::PeerFailed.to_string());
    let e = merge(vec![part(0, "a", r.clone(), 0), follower, bad], &setup()).unwrap_err();
    assert_eq!(e, "rank 2 on b: directory /x does not exist");

    let mut partial = r.clone();
    partial.status = Status::Partial;
    partial.error = Some("job job: Input/output error".into());
    let m = merge(vec![part(0, "a", r, 0), part(1, "b", partial, 0)], &setup()).unwrap();
    assert_eq!(m.status, Status::Partial);
    assert_eq!(
        m.error.as_deref(),
        Some("rank 1 on b: job job: Input/output error")
    );
}
