//! A cloud product's model from the catalog and the command line (`cloud show`, `cloud
//! check`, `emulate` name a product the same way).

use crate::cli::VolumeArgs;
use crate::usage::usage;
use anyhow::Result;
use cloud::catalog::Catalog;
use cloud::model::{self, Model, Params};

/// The product and its parameters from a name (which may carry `:size=...`) and the flags.
pub fn resolve(cat: &Catalog, name: &str, v: &VolumeArgs) -> Result<Model> {
    let (name, mut p) = model::parse_spec(name).map_err(|e| usage(format!("{e:#}")))?;
    let prod = cat.find(&name).map_err(|e| usage(format!("{e:#}")))?;
    let flags = Params {
        size: v
            .size
            .as_deref()
            .map(model::parse_volume_size)
            .transpose()
            .map_err(|e| usage(format!("--size: {e:#}")))?,
        vpu: v.vpu,
        iops: v.iops,
        throughput: v.throughput,
    };
    p.size = flags.size.or(p.size);
    p.vpu = flags.vpu.or(p.vpu);
    p.iops = flags.iops.or(p.iops);
    p.throughput = flags.throughput.or(p.throughput);
    model::model(prod, &p).map_err(|e| usage(format!("{e:#}")))
}
