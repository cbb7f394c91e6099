//! DMI as each cloud's firmware writes it (recorded values under tests/data/dmi, each with its
//! SOURCE), identified; and the real /sys/class/dmi/id of this machine, read as `cat` reads it.

use report::machine::Dmi;
use std::path::Path;

fn machine(name: &str) -> report::machine::Machine {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/dmi")
        .join(name);
    assert!(dir.join("SOURCE").exists(), "{name} names its source");
    Dmi::read(&dir).machine()
}

#[test]
fn each_clouds_recorded_dmi_is_identified() {
    let cases = [
        ("aws-nitro-m5.large", Some("aws"), Some("m5.large")),
        ("aws-xen-t2", Some("aws"), None),
        ("gcp", Some("gcp"), None),
        ("azure", Some("azure"), None),
        ("hyperv-not-azure", None, None),
        ("oci", Some("oci"), None),
        ("digitalocean", Some("digitalocean"), None),
        ("linode", Some("linode"), None),
        ("kvm-not-a-cloud", None, None),
    ];
    for (name, provider, t) in cases {
        let m = machine(name);
        assert_eq!(m.provider.as_deref(), provider, "{name}");
        assert_eq!(m.instance_type.as_deref(), t, "{name}");
    }
}

#[test]
fn the_doctor_names_the_instance_and_its_cap() {
    let lines = |name: &str, cpus| -> Vec<String> {
        host::instance::of(&machine(name), cpus)
            .iter()
            .map(|f| f.line())
            .collect()
    };
    let m5 = lines("aws-nitro-m5.large", 2);
    assert_eq!(m5[0], "Amazon EC2, instance type m5.large");
    assert!(
        m5[1].starts_with("m5.large sends at most 18.8k IOPS and 594 MB/s (baseline 3600 IOPS and 81 MB/s; the max holds 30 min per 24 h)"),
        "{m5:?}"
    );
    let oci = lines("oci", 8);
    assert!(
        oci[1].contains("4 OCPUs") && oci[1].contains("80.0k IOPS and 480 MB/s"),
        "{oci:?}"
    );
    let gcp = lines("gcp", 2);
    assert!(
        gcp[1].contains("N2 VM with 2 vCPUs") && gcp[1].contains("unconfirmed"),
        "{gcp:?}"
    );
    let kvm = lines("kvm-not-a-cloud", 2);
    assert_eq!(kvm.len(), 1, "{kvm:?}");
    assert!(kvm[0].contains("not a cloud volbench knows"), "{kvm:?}");
}

#[test]
fn a_run_at_or_above_the_instance_limits_is_warned_and_below_is_not() {
    let m = machine("aws-nitro-m5.large");
    let w = |iops: f64, bytes: f64| host::instance::run_warning(&m, 2, iops, bytes);
    let at_cap = w(18_000.0, 70e6).unwrap();
    assert!(
        at_cap.consequence.contains("the instance's cap"),
        "{at_cap:?}"
    );
    let burst = w(5_000.0, 20e6).unwrap();
    assert!(burst.consequence.contains("burst"), "{burst:?}");
    assert_eq!(w(3_000.0, 60e6), None, "below the baseline");
    assert_eq!(
        host::instance::run_warning(&machine("kvm-not-a-cloud"), 2, 1e6, 1e9),
        None
    );
}

/// This machine's own DMI: each field as `cat` prints it, or empty where the file is missing
/// (a microVM has no DMI at all).
#[test]
fn this_machines_dmi_reads_as_cat_reads_it() {
    let dir = Path::new("/sys/class/dmi/id");
    let d = Dmi::read(dir);
    for (field, got) in [
        ("sys_vendor", &d.sys_vendor),
        ("product_name", &d.product_name),
        ("bios_vendor", &d.bios_vendor),
        ("bios_version", &d.bios_version),
        ("chassis_asset_tag", &d.chassis_asset_tag),
    ] {
        let out = std::process::Command::new("cat")
            .arg(dir.join(field))
            .output()
            .unwrap();
        let want = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert_eq!(got, &want, "{field}");
    }
    let m = report::machine::this_machine();
    assert_eq!(m.dmi, d);
}
