//! The shipped catalog against the figures the providers publish (and the seeds' tables):
//! tests over the data through the same model `volbench cloud show` prints.

use cloud::catalog::{Catalog, Kind};
use cloud::cheapest::{cheapest, meets, Target};
use cloud::model::{model, parse_spec, Model, Params};

fn cat() -> Catalog {
    Catalog::load(None).unwrap()
}

fn show(spec: &str) -> Model {
    let c = cat();
    let (name, params) = parse_spec(spec).unwrap();
    model(c.find(&name).unwrap(), &params).unwrap()
}

const MB: f64 = 1e6;
const MIB: f64 = 1048576.0;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1e-9)
}

/// OCI's per-VPU table: each level's per-GB rates reach its per-volume maxima at the sizes
/// the page gives, and the closed forms (VPU >= 10) hold for every row of the data.
#[test]
fn oci_vpu_table_rows_match_the_published_page() {
    for (vpu, size, iops, size_bw, mbps) in [
        (0, 1500, 3000.0, 2000, 480.0),
        (10, 417, 25000.0, 1000, 480.0),
        (20, 667, 50000.0, 1134, 680.0),
        (30, 834, 75000.0, 1223, 880.0),
        (120, 1334, 300000.0, 1489, 2680.0),
    ] {
        let m = show(&format!("oci:vpu={vpu}:size={size}"));
        assert_eq!(m.iops, iops, "VPU {vpu} at {size} GB");
        let m = show(&format!("oci:vpu={vpu}:size={size_bw}"));
        assert!(
            close(m.bw_bytes, mbps * MB, 0.001),
            "VPU {vpu}: {} MB/s",
            m.bw_bytes / MB
        );
    }
    let c = cat();
    for l in &c.find("oci").unwrap().levels {
        if l.vpu >= 10 {
            let v = l.vpu as f64;
            assert_eq!(l.iops_per_gb, 1.5 * v + 45.0, "VPU {}", l.vpu);
            assert_eq!(l.max_iops, 2500.0 * v);
            assert_eq!(l.kbps_per_gb, 12.0 * v + 360.0);
            assert_eq!(l.max_mbps, 20.0 * v + 280.0);
        }
    }
}

/// Seed 001: the console's 12 / 24 / 24 / 48 MB/s for VPU 0/10 x 50/100 GB, and the price
/// per GB-month (0.0255 + 0.0017 x VPU).
#[test]
fn seed_001_table_is_reproduced_from_the_catalog() {
    for (vpu, size, mbps) in [
        (0, 50, 12.0),
        (10, 50, 24.0),
        (0, 100, 24.0),
        (10, 100, 48.0),
    ] {
        let m = show(&format!("oci:vpu={vpu}:size={size}g"));
        // dd's 1 GiB blocks are bandwidth-bound.
        let at = m.at(1 << 30);
        assert!(
            close(at.bw_bytes, mbps * MB, 1e-9),
            "VPU {vpu} {size} GB: {}",
            at.bw_bytes / MB
        );
        assert_eq!(at.bound, "bandwidth");
    }
    let m = show("oci:vpu=10:size=100");
    assert!(close(m.price_month_usd.unwrap(), 100.0 * 0.0425, 1e-9));
}

/// Seed 004 (DigitalOcean's own guide): 5,000 IOPS or 200 MB/s, whichever comes first.
#[test]
fn seed_004_digitalocean_crossover_table_is_reproduced() {
    let m = show("digitalocean:size=100");
    assert_eq!(m.iops, 5000.0);
    for (kib, iops, mbps) in [
        (4u64, 5000.0, 20.0),
        (16, 5000.0, 80.0),
        (32, 5000.0, 160.0),
        (64, 3200.0, 200.0),
        (256, 800.0, 200.0),
    ] {
        let at = m.at(kib * 1024);
        assert!(close(at.iops, iops, 0.01), "{kib}k: {} IOPS", at.iops);
        assert!(
            close(at.bw_bytes / MIB, mbps, 0.05),
            "{kib}k: {} MiB/s",
            at.bw_bytes / MIB
        );
    }
    assert!(
        (32.0..64.0).contains(&(m.crossover_bs / 1024.0)),
        "{}",
        m.crossover_bs
    );
    assert_eq!(m.burst_iops, Some(7500.0));
    assert!(close(m.burst_duration_s.unwrap(), 60.0, 1e-9));
}

/// gp2: 3 IOPS/GiB between 100 and 16,000; 3,000 burst from a 5.4 M bucket, lasting
/// credits / (3,000 - baseline); 256 KiB per I/O, 128 MiB/s up to 170 GiB.
#[test]
fn gp2_baseline_burst_and_bucket_match_aws() {
    let m = show("aws:gp2:size=100");
    assert_eq!(
        (m.iops, m.burst_iops, m.burst_bucket_ios),
        (300.0, Some(3000.0), Some(5.4e6))
    );
    assert!(close(m.burst_duration_s.unwrap(), 5.4e6 / 2700.0, 1e-9));
    assert!(
        close(m.bw_bytes, 75.0 * MIB, 1e-9),
        "100 GiB sustains 75 MiB/s"
    );
    assert_eq!(m.refill_ios_per_s, Some(300.0));
    assert_eq!(show("aws:gp2:size=20").iops, 100.0);
    assert_eq!(show("aws:gp2:size=6000").iops, 16000.0);
    let big = show("aws:gp2:size=1000");
    assert_eq!(
        (big.iops, big.burst_iops),
        (3000.0, None),
        "no burst at >= 1 TiB"
    );
    assert!(close(
        show("aws:gp2:size=33").burst_duration_s.unwrap(),
        5.4e6 / 2900.0,
        1e-9
    ));
    assert!(
        show("aws:gp2:size=33").burst_duration_s.unwrap() >= 1800.0,
        ">= 30 min"
    );
}

#[test]
fn gp3_io2_and_st1_formulas_and_prices() {
    let m = show("aws:gp3:size=500");
    assert_eq!((m.iops, m.bw_bytes), (3000.0, 125.0 * MIB));
    assert!(close(m.price_month_usd.unwrap(), 40.0, 1e-9));
    let m = show("aws:gp3:size=500:iops=6000:throughput=250");
    assert!(close(m.price_month_usd.unwrap(), 40.0 + 15.0 + 5.0, 1e-9));
    assert!(
        parse_spec("aws:gp3:size=10:iops=6000")
            .and_then(|(n, p)| model(cat().find(&n).unwrap(), &p))
            .is_err(),
        "500 IOPS/GiB: 10 GiB cannot have 6,000"
    );
    let m = show("aws:io2:size=100:iops=50000");
    assert!(close(
        m.price_month_usd.unwrap(),
        12.5 + 0.065 * 32000.0 + 0.046 * 18000.0,
        1e-9
    ));
    assert!(close(m.bw_bytes, 4000.0 * MIB, 1e-9));
    let m = show("aws:st1:size=2048");
    assert!(close(m.bw_bytes, 80.0 * MIB, 1e-9));
    assert!(close(m.burst_bw_bytes.unwrap(), 500.0 * MIB, 1e-9));
    assert_eq!(m.io_unit_bytes, Some(1048576.0));
    assert_eq!(m.at(4096).iops, 500.0, "every I/O up to 1 MiB costs a unit");
}

/// Azure Premium SSD: next tier up, the tier table, 30 minutes of credit burst.
#[test]
fn azure_tiers_match_the_published_table() {
    let m = show("azure:premium-ssd:size=100");
    assert_eq!(
        (m.iops, m.bw_bytes),
        (500.0, 100.0 * MB),
        "100 GiB performs as P10"
    );
    assert_eq!(m.burst_iops, Some(3500.0));
    assert!(close(m.burst_duration_s.unwrap(), 1800.0, 1e-9));
    let m = show("azure:premium-ssd:size=1024");
    assert_eq!(
        (m.iops, m.bw_bytes, m.burst_iops),
        (5000.0, 200.0 * MB, None)
    );
    for (size, iops, mbps) in [
        (64, 240.0, 50.0),
        (512, 2300.0, 150.0),
        (8192, 16000.0, 500.0),
        (32767, 20000.0, 900.0),
    ] {
        let m = show(&format!("azure:premium-ssd:size={size}"));
        assert_eq!((m.iops, m.bw_bytes), (iops, mbps * MB), "{size} GiB");
    }
}

#[test]
fn linode_and_gcp_figures() {
    let m = show("linode:size=100");
    assert_eq!(
        (m.iops, m.bw_bytes, m.burst_iops),
        (8000.0, 350.0 * MB, Some(12000.0))
    );
    assert_eq!(m.burst_bw_bytes, Some(525.0 * MB));
    let m = show("gcp:pd-ssd:size=100");
    assert_eq!(m.iops, 6000.0 + 3000.0);
    let m = show("gcp:pd-standard:size=1000");
    assert_eq!((m.iops, m.write_iops), (750.0, 1500.0));
}

/// Every figure the reference marks unconfirmed is marked so in the data.
#[test]
fn unconfirmed_figures_are_marked() {
    let c = cat();
    for id in [
        "oci",
        "digitalocean",
        "gcp:pd-balanced",
        "azure:premium-ssd",
        "azure:premium-ssd-v2",
        "aws:gp3",
    ] {
        assert!(!c.find(id).unwrap().unconfirmed.is_empty(), "{id}");
    }
    for p in &c.products {
        assert!(p.source.starts_with("https://"), "{}", p.id);
        assert!(p.read_on.len() == 10, "{}: read_on {}", p.id, p.read_on);
    }
}

/// A user's file adds products and replaces shipped ones by id.
#[test]
fn a_user_catalog_adds_and_overrides() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("mine.toml");
    std::fs::write(
        &f,
        r#"
[[product]]
id = "linode"
provider = "linode"
name = "Linode, renegotiated"
kind = "fixed"
size_unit = "GB"
bw_unit = "MB/s"
size_min = 10
size_max = 100
iops = 9000
mbps = 400
source = "https://example.com/contract"
read_on = "2026-11-01"
confidence = "published"

[[product]]
id = "acme:fast"
provider = "acme"
name = "Acme fast"
kind = "fixed"
size_unit = "GiB"
bw_unit = "MiB/s"
size_min = 1
size_max = 100
iops = 1000
mbps = 10
source = "https://example.com"
read_on = "2026-11-01"
confidence = "unconfirmed"
"#,
    )
    .unwrap();
    let c = Catalog::load(Some(&f)).unwrap();
    assert_eq!(c.find("linode").unwrap().iops, Some(9000.0));
    assert_eq!(c.find("acme").unwrap().kind, Kind::Fixed);
    std::fs::write(&f, "[[product]]\nid = \"x\"\nkind = \"fixed\"\n").unwrap();
    let e = Catalog::load(Some(&f)).unwrap_err().to_string();
    assert!(e.contains("missing field"), "{e}");
}

/// The cheapest configuration meets the target, and no configuration from a brute-force
/// search of whole sizes (and every VPU level) is cheaper while meeting it.
#[test]
fn cheapest_is_the_minimum_of_a_brute_force_search() {
    let c = cat();
    let t = Target {
        iops: 10000.0,
        bw_bytes: 300.0 * MB,
        capacity_bytes: 500.0 * (1u64 << 30) as f64,
    };
    let (found, _) = cheapest(&c, &t, &[]);
    assert!(!found.is_empty());
    for cand in &found {
        assert!(meets(&cand.model, &t), "{}", cand.model.config);
        let p = c.find(&cand.model.product).unwrap();
        if !matches!(
            p.kind,
            Kind::Vpu | Kind::PerSize | Kind::Fixed | Kind::Tiers
        ) {
            continue;
        }
        let levels: Vec<Option<u32>> = if p.kind == Kind::Vpu {
            p.levels.iter().map(|l| Some(l.vpu)).collect()
        } else {
            vec![None]
        };
        for vpu in levels {
            let mut s = p.size_min;
            while s <= p.size_max.min(8000.0) {
                if let Ok(m) = model(
                    p,
                    &Params {
                        size: Some(s),
                        vpu,
                        ..Default::default()
                    },
                ) {
                    if meets(&m, &t) {
                        assert!(
                            m.price_month_usd.unwrap_or(f64::INFINITY) + 1e-9
                                >= cand.model.price_month_usd.unwrap(),
                            "{} is cheaper than {}",
                            m.config,
                            cand.model.config
                        );
                    }
                }
                s += 1.0;
            }
        }
    }
    let oci = found.iter().find(|x| x.model.product == "oci").unwrap();
    assert_eq!(oci.model.config, "oci:vpu=10:size=625");
    let gp3 = found.iter().find(|x| x.model.product == "aws:gp3").unwrap();
    assert_eq!(
        gp3.model.config,
        "aws:gp3:size=500:iops=10000:throughput=287"
    );
}
