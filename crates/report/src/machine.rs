//! Where a run ran: the DMI (SMBIOS) strings a cloud's virtual firmware sets, and the cloud
//! and instance type they identify. Pure data, read by the runner and interpreted by
//! `cloud::instance` (the instance's own storage caps) and `volbench doctor`.
//!
//! The identifying values, and where they are documented:
//! - AWS Nitro: `sys_vendor` "Amazon EC2", `product_name` the instance type ("m5.large");
//!   Xen-based EC2: `bios_version` containing "amazon" (no instance type). Source: AWS,
//!   "Identify EC2 Linux instances" (docs.aws.amazon.com/AWSEC2/latest/UserGuide/identify_ec2_instances.html).
//! - Google Compute Engine: `product_name` "Google Compute Engine" (cloud-init's GCE source).
//! - Microsoft Azure: `chassis_asset_tag` "7783-7084-3265-9085-8269-3286-77" ("MSFT AZURE VM"
//!   in ASCII; cloud-init's Azure source); plain Hyper-V has the same vendor without that tag.
//! - Oracle Cloud: `chassis_asset_tag` "OracleCloud.com" (cloud-init's Oracle source).
//! - DigitalOcean: `sys_vendor` "DigitalOcean" (cloud-init's DigitalOcean source).
//! - Linode (Akamai): `sys_vendor` "Linode" or "Akamai" (cloud-init's Akamai source).

use serde::{Deserialize, Serialize};
use std::path::Path;

/// The DMI fields that identify a cloud machine (`/sys/class/dmi/id/*`; all readable without
/// root). Empty strings where the file is missing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dmi {
    pub sys_vendor: String,
    pub product_name: String,
    pub bios_vendor: String,
    pub bios_version: String,
    pub chassis_asset_tag: String,
}

/// The cloud a machine runs in, and its instance type where the firmware says it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Machine {
    /// `aws`, `gcp`, `azure`, `oci`, `digitalocean`, `linode`; None: not a cloud we know.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance_type: Option<String>,
    pub dmi: Dmi,
}

/// Azure's chassis asset tag, the same on every Azure VM.
const AZURE_TAG: &str = "7783-7084-3265-9085-8269-3286-77";

impl Dmi {
    /// Reads the fields from a `/sys/class/dmi/id`-shaped directory (a test passes recorded
    /// values). Each file is read up to 256 bytes: these are one-line strings.
    pub fn read(dir: &Path) -> Dmi {
        let field = |name: &str| {
            use std::io::Read;
            let mut s = String::new();
            if let Ok(f) = std::fs::File::open(dir.join(name)) {
                let _ = f.take(256).read_to_string(&mut s);
            }
            s.trim().to_string()
        };
        Dmi {
            sys_vendor: field("sys_vendor"),
            product_name: field("product_name"),
            bios_vendor: field("bios_vendor"),
            bios_version: field("bios_version"),
            chassis_asset_tag: field("chassis_asset_tag"),
        }
    }

    /// Whether any field was read (a machine without DMI, such as a microVM, has none).
    pub fn is_empty(&self) -> bool {
        *self == Dmi::default()
    }

    /// The cloud and instance type these values identify.
    pub fn machine(self) -> Machine {
        let (provider, instance_type) = self.identify();
        Machine {
            provider: provider.map(str::to_string),
            instance_type,
            dmi: self,
        }
    }

    fn identify(&self) -> (Option<&'static str>, Option<String>) {
        let vendor = self.sys_vendor.as_str();
        let product = self.product_name.as_str();
        if vendor == "Amazon EC2" {
            let t = (!product.is_empty() && product.contains('.')).then(|| product.to_string());
            return (Some("aws"), t);
        }
        if self.bios_version.to_ascii_lowercase().contains("amazon") {
            return (Some("aws"), None);
        }
        let provider = if product == "Google Compute Engine" {
            Some("gcp")
        } else if self.chassis_asset_tag == AZURE_TAG {
            Some("azure")
        } else if self.chassis_asset_tag == "OracleCloud.com" {
            Some("oci")
        } else if vendor == "DigitalOcean" {
            Some("digitalocean")
        } else if vendor == "Linode" || vendor == "Akamai" {
            Some("linode")
        } else {
            None
        };
        (provider, None)
    }
}

/// This machine's DMI, identified.
pub fn this_machine() -> Machine {
    Dmi::read(Path::new("/sys/class/dmi/id")).machine()
}
