//! An instance's own storage cap: the most IOPS and bandwidth a machine can send to all its
//! network volumes together, which binds before a volume's own caps on smaller instances.
//! The shipped data is `catalog/instances.toml` (rows per instance type, with sources); OCI's
//! Flex shapes follow a published formula instead (`oci_flex`).

use anyhow::{Context, Result};
use report::machine::Machine;
use serde::Deserialize;

/// The shipped catalog, compiled in.
pub const SHIPPED: &str = include_str!("../../../catalog/instances.toml");

/// The file: its header (`catalog_version`, `updated`) is for people; the rows are checked
/// field by field.
#[derive(Clone, Debug, Deserialize)]
struct File {
    instance: Vec<Row>,
}

/// One instance type's caps (bandwidth in MB/s, 10^6 bytes/s).
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Row {
    pub provider: String,
    #[serde(rename = "type")]
    pub instance_type: String,
    pub baseline_iops: f64,
    pub max_iops: f64,
    pub baseline_mbps: f64,
    pub max_mbps: f64,
    /// How long the max holds where it is above the baseline ("30 min per 24 h").
    pub burst: String,
    pub source: String,
    pub read_on: String,
    pub confidence: String,
}

/// The cap that applies to a machine, worded for a report.
#[derive(Clone, Debug, PartialEq)]
pub struct Cap {
    /// "m5.large", or "a Flex shape with 2 OCPUs".
    pub what: String,
    pub baseline_iops: f64,
    pub max_iops: f64,
    pub baseline_bytes: f64,
    pub max_bytes: f64,
    pub burst: Option<String>,
    pub source: String,
    /// Set where the figures are not confirmed from their source.
    pub unconfirmed: bool,
}

/// The shipped rows.
pub fn rows() -> Result<Vec<Row>> {
    let f: File = toml::from_str(SHIPPED).context("catalog/instances.toml")?;
    Ok(f.instance)
}

/// The cap of `m`, where the catalog knows its instance type (or its provider has a formula);
/// `cpus` is the number of vCPUs the machine has (OCI's formula counts them).
pub fn cap(m: &Machine, cpus: u32) -> Option<Cap> {
    match m.provider.as_deref()? {
        "oci" => Some(oci_flex(cpus)),
        "gcp" => Some(gcp_n2(cpus)),
        provider => {
            let t = m.instance_type.as_deref()?;
            let r = rows()
                .ok()?
                .into_iter()
                .find(|r| r.provider == provider && r.instance_type == t)?;
            Some(Cap {
                what: r.instance_type,
                baseline_iops: r.baseline_iops,
                max_iops: r.max_iops,
                baseline_bytes: r.baseline_mbps * 1e6,
                max_bytes: r.max_mbps * 1e6,
                burst: (r.max_iops > r.baseline_iops || r.max_mbps > r.baseline_mbps)
                    .then_some(r.burst),
                source: r.source,
                unconfirmed: r.confidence != "published",
            })
        }
    }
}

/// OCI's VM limit for Flex shapes: 1 Gbps of network per OCPU, and block volume performance of
/// 20,000 IOPS and 120 MB/s per Gbps, at most 600,000 IOPS and 4,800 MB/s. An x86 OCPU is two
/// vCPUs. Source: docs.oracle.com, Block Volume Performance, "VM shapes" (the caveats quoted
/// in reference/cloud-volumes.md). DMI does not name the shape, so the wording says "Flex".
fn oci_flex(cpus: u32) -> Cap {
    let ocpus = (cpus / 2).max(1) as f64;
    let iops = (20_000.0 * ocpus).min(600_000.0);
    let bytes = (120.0 * ocpus).min(4_800.0) * 1e6;
    Cap {
        what: format!("an OCI Flex VM with {ocpus} OCPUs ({cpus} vCPUs, x86)"),
        baseline_iops: iops,
        max_iops: iops,
        baseline_bytes: bytes,
        max_bytes: bytes,
        burst: None,
        source:
            "https://docs.oracle.com/en-us/iaas/Content/Block/Concepts/blockvolumeperformance.htm"
                .into(),
        unconfirmed: false,
    }
}

/// GCP's per-VM Persistent Disk caps for an N2 machine by its vCPUs (pd-ssd IOPS and the
/// throughput cap, as gcpdiag's N2 ladder in reference/cloud-volumes.md gives them; the docs'
/// per-instance caps page). DMI names neither the machine family nor the disk type, so the
/// wording says "N2" and "pd-ssd", and the figures are marked unconfirmed for this machine.
fn gcp_n2(cpus: u32) -> Cap {
    // (vCPUs from, pd-ssd IOPS, MiB/s)
    const LADDER: [(u32, f64, f64); 5] = [
        (1, 15_000.0, 240.0),
        (8, 15_000.0, 800.0),
        (16, 25_000.0, 1_200.0),
        (32, 60_000.0, 1_200.0),
        (64, 100_000.0, 1_200.0),
    ];
    let (_, iops, mib) = LADDER
        .iter()
        .rev()
        .find(|(from, _, _)| cpus >= *from)
        .copied()
        .unwrap_or(LADDER[0]);
    let bytes = mib * (1u64 << 20) as f64;
    Cap {
        what: format!("an N2 VM with {cpus} vCPUs (pd-ssd, zonal)"),
        baseline_iops: iops,
        max_iops: iops,
        baseline_bytes: bytes,
        max_bytes: bytes,
        burst: None,
        source: "https://cloud.google.com/compute/docs/disks/performance".into(),
        unconfirmed: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use report::machine::Dmi;

    #[test]
    fn the_shipped_rows_parse_and_hold_together() {
        let rows = rows().unwrap();
        assert!(rows.len() >= 30);
        for r in &rows {
            assert!(r.baseline_iops <= r.max_iops, "{}", r.instance_type);
            assert!(r.baseline_mbps <= r.max_mbps, "{}", r.instance_type);
            assert!(r.source.starts_with("https://"), "{}", r.instance_type);
        }
    }

    #[test]
    fn an_m5_large_is_capped_at_its_burst_and_baseline() {
        let m = Dmi {
            sys_vendor: "Amazon EC2".into(),
            product_name: "m5.large".into(),
            ..Default::default()
        }
        .machine();
        let c = cap(&m, 2).unwrap();
        assert_eq!((c.max_iops, c.max_bytes), (18_750.0, 593.75e6));
        assert_eq!((c.baseline_iops, c.baseline_bytes), (3_600.0, 81.25e6));
        assert!(c.burst.is_some());
        let unknown = Dmi {
            sys_vendor: "Amazon EC2".into(),
            product_name: "x9z.huge".into(),
            ..Default::default()
        };
        assert_eq!(cap(&unknown.machine(), 2), None);
    }

    #[test]
    fn gcp_n2_follows_its_vcpu_ladder() {
        assert_eq!(
            (gcp_n2(2).max_iops, gcp_n2(2).max_bytes),
            (15_000.0, 240.0 * 1048576.0)
        );
        assert_eq!(gcp_n2(16).max_iops, 25_000.0);
        assert_eq!(gcp_n2(96).max_iops, 100_000.0);
    }

    #[test]
    fn oci_flex_scales_with_ocpus_to_its_ceiling() {
        assert_eq!(oci_flex(2).max_iops, 20_000.0);
        assert_eq!(oci_flex(8).max_bytes, 480e6);
        assert_eq!(oci_flex(200).max_iops, 600_000.0);
    }
}
