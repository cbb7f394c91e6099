//! What `durability create` and `durability cycle` share: the checked record options and the
//! private data directory their default journals live in.

use crate::cli::RecordArgs;
use crate::usage::usage;
use anyhow::Result;
use durability::client::SyncMethod;
use workload::parse_size;

/// volbench's own data directory, where the default journal lives: made 0700, as it holds
/// the witness's journal and the results store.
pub fn private_dir(journal: &std::path::Path) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if let Some(dir) = journal.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// The records' size, block and sync method, checked: what `create` and `cycle` share.
pub fn record_options(r: &RecordArgs) -> Result<(u64, u32, SyncMethod)> {
    let sync = SyncMethod::parse(&r.sync).ok_or_else(|| {
        usage(format!(
            "--sync {}: choose fsync, fdatasync, odsync or direct",
            r.sync
        ))
    })?;
    let size = parse_size(&r.size).map_err(|e| usage(format!("--size: {e}")))?;
    let block = parse_size(&r.block).map_err(|e| usage(format!("--block: {e}")))?;
    let block = u32::try_from(block).map_err(|_| usage("--block is too large"))?;
    Ok((size, block, sync))
}
