//! Refusing to destroy data: is this block device in use or holding something?
//!
//! Writing to a device that is mounted, swapped on, claimed by another driver (LVM, md,
//! device-mapper) or that carries a partition table or filesystem signature destroys data, so the
//! runner refuses unless the user said `--allow-destructive`.

use crate::probe::{mounts, DevId};
use std::fs;
use std::io::Read;
use std::path::Path;

/// Why a device must not be written: a sentence naming what was found.
pub fn in_use(path: &Path, dev: DevId) -> Option<String> {
    if let Some(why) = live_use(dev) {
        return Some(why);
    }
    let partitions = partitions(&dev.sysfs()?);
    if !partitions.is_empty() {
        let names: Vec<&str> = partitions.iter().map(|(n, _)| n.as_str()).collect();
        return Some(format!(
            "{} holds a partition table with partitions {}",
            path.display(),
            names.join(", ")
        ));
    }
    signature(path).map(|sig| format!("{} holds {sig}", path.display()))
}

/// Why the running system uses the device (or one of its partitions): mounted, swap, or held
/// by another driver. Such a device is never written, whatever the consent: a write would
/// corrupt a live file system under its users, which no flag of a benchmark can make right.
pub fn live_use(dev: DevId) -> Option<String> {
    let dir = dev.sysfs()?;
    let name = dir.file_name()?.to_string_lossy().into_owned();
    // The device and its partitions, each with its own major:minor.
    let mut family = vec![(name, dev)];
    family.extend(partitions(&dir));
    mounted(&family)
        .or_else(|| swapped(&family))
        .or_else(|| held(&family))
}

/// The partitions of the device at sysfs directory `dir`: names and major:minor.
fn partitions(dir: &Path) -> Vec<(String, DevId)> {
    let id_of = |p: &Path| {
        let s = fs::read_to_string(p.join("dev")).ok()?;
        let (a, b) = s.trim().split_once(':')?;
        Some(DevId {
            major: a.parse().ok()?,
            minor: b.parse().ok()?,
        })
    };
    let Ok(rd) = fs::read_dir(dir) else {
        return Vec::new();
    };
    rd.flatten()
        .filter(|e| e.path().join("partition").exists())
        .filter_map(|e| {
            Some((
                e.file_name().to_string_lossy().into_owned(),
                id_of(&e.path())?,
            ))
        })
        .collect()
}

/// A member of the family that is mounted, said.
fn mounted(family: &[(String, DevId)]) -> Option<String> {
    mounts().into_iter().find_map(|m| {
        let (n, _) = family.iter().find(|(_, id)| *id == m.dev)?;
        Some(format!(
            "/dev/{n} is mounted at {} ({})",
            m.mount_point, m.fs_type
        ))
    })
}

/// A member of the family that is in use as swap, said.
fn swapped(family: &[(String, DevId)]) -> Option<String> {
    let swaps = fs::read_to_string("/proc/swaps").ok()?;
    swaps.lines().skip(1).find_map(|line| {
        let src = line.split_whitespace().next().unwrap_or("");
        let ours = family.iter().any(|(n, _)| src == format!("/dev/{n}"));
        ours.then(|| format!("{src} is in use as swap"))
    })
}

/// A member of the family another driver holds (LVM, RAID, device-mapper), said.
fn held(family: &[(String, DevId)]) -> Option<String> {
    family.iter().find_map(|(n, id)| {
        let rd = fs::read_dir(id.sysfs()?.join("holders")).ok()?;
        let holders: Vec<String> = rd
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        (!holders.is_empty()).then(|| {
            format!(
                "/dev/{n} is held by {} (LVM, RAID or device-mapper)",
                holders.join(", ")
            )
        })
    })
}

/// What libblkid recognises on the device (every filesystem, partition table, RAID member and
/// volume-manager signature it knows, minix, bfs and cramfs included), through util-linux's
/// low-level probe `blkid -p`, which reads the device itself rather than blkid's cache. Where
/// blkid is not installed, the short built-in list below stands in.
pub fn signature(path: &Path) -> Option<String> {
    match blkid_probe(path) {
        Some(found) => found,
        None => builtin_signature(path),
    }
}

/// `Some(Some(what))` when blkid found a signature, `Some(None)` when it found none, `None`
/// when blkid could not be asked.
fn blkid_probe(path: &Path) -> Option<Option<String>> {
    let out = std::process::Command::new("blkid")
        .args(["-p", "-o", "export"])
        .arg(path)
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    match out.status.code() {
        // blkid: 2 means "nothing recognised".
        Some(2) => Some(None),
        Some(0) => {
            let text = String::from_utf8_lossy(&out.stdout);
            let field = |k: &str| {
                text.lines()
                    .find_map(|l| l.strip_prefix(k).and_then(|v| v.strip_prefix('=')))
                    .map(str::to_string)
            };
            let what = match (field("TYPE"), field("PTTYPE"), field("USAGE")) {
                (Some(t), _, Some(u)) => {
                    let a = if u.starts_with(['a', 'e', 'i', 'o', 'u']) {
                        "an"
                    } else {
                        "a"
                    };
                    format!("{a} {u} signature: {t} (found by blkid -p)")
                }
                (Some(t), _, None) => format!("a signature: {t} (found by blkid -p)"),
                (None, Some(pt), _) => format!("a partition table: {pt} (found by blkid -p)"),
                _ => "a signature blkid recognises".to_string(),
            };
            Some(Some(what))
        }
        // Ambiguous probes (several signatures, exit 8) are data all the same.
        Some(8) => Some(Some(
            "several signatures (blkid -p reports them as ambiguous)".into(),
        )),
        _ => None,
    }
}

/// Looks for the on-disk signatures of common partition tables, filesystems and volume managers
/// in the first 68 KiB of the device.
pub fn builtin_signature(path: &Path) -> Option<String> {
    let mut buf = vec![0u8; 68 * 1024];
    let mut f = fs::File::open(path).ok()?;
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(_) => break,
        }
    }
    let b = &buf[..n];
    let at = |off: usize, magic: &[u8]| {
        b.len() >= off + magic.len() && &b[off..off + magic.len()] == magic
    };
    let checks: &[(usize, &[u8], &str)] = &[
        (512, b"EFI PART", "a GPT partition table"),
        (4096, b"EFI PART", "a GPT partition table"),
        (1080, &[0x53, 0xEF], "an ext2/3/4 filesystem"),
        (0, b"XFSB", "an XFS filesystem"),
        (65600, b"_BHRfS_M", "a btrfs filesystem"),
        (1024, &[0x10, 0x20, 0xF5, 0xF2], "an F2FS filesystem"),
        (4086, b"SWAPSPACE2", "a swap signature"),
        (4086, b"SWAP-SPACE", "a swap signature"),
        (0, b"LUKS\xba\xbe", "a LUKS encrypted volume"),
        (512, b"LABELONE", "an LVM physical volume"),
        (3, b"NTFS    ", "an NTFS filesystem"),
        (82, b"FAT32   ", "a FAT32 filesystem"),
        (54, b"FAT1", "a FAT filesystem"),
        (0, b"hsqs", "a squashfs image"),
        (0, b"ZFS", "a ZFS label"),
    ];
    for (off, magic, what) in checks {
        if at(*off, magic) {
            return Some(what.to_string());
        }
    }
    // An MBR: the boot signature plus at least one non-empty partition entry.
    if at(510, &[0x55, 0xAA]) && (0..4).any(|i| b[446 + 16 * i + 4] != 0) {
        return Some("an MBR partition table".to_string());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn image(f: impl FnOnce(&mut [u8])) -> tempfile::NamedTempFile {
        let mut buf = vec![0u8; 70 * 1024];
        f(&mut buf);
        let mut t = tempfile::NamedTempFile::new().unwrap();
        t.write_all(&buf).unwrap();
        t
    }

    #[test]
    fn blank_device_has_no_signature() {
        assert_eq!(signature(image(|_| {}).path()), None);
        assert_eq!(builtin_signature(image(|_| {}).path()), None);
    }

    #[test]
    fn builtin_signatures_are_recognised() {
        let ext4 = image(|b| b[1080..1082].copy_from_slice(&[0x53, 0xEF]));
        assert_eq!(
            builtin_signature(ext4.path()).unwrap(),
            "an ext2/3/4 filesystem"
        );
        let gpt = image(|b| b[512..520].copy_from_slice(b"EFI PART"));
        assert_eq!(
            builtin_signature(gpt.path()).unwrap(),
            "a GPT partition table"
        );
        let mbr = image(|b| {
            b[510] = 0x55;
            b[511] = 0xAA;
            b[446 + 4] = 0x83;
        });
        assert_eq!(
            builtin_signature(mbr.path()).unwrap(),
            "an MBR partition table"
        );
        let xfs = image(|b| b[..4].copy_from_slice(b"XFSB"));
        assert!(builtin_signature(xfs.path()).unwrap().contains("XFS"));
    }

    /// Filesystems the built-in list never knew (minix, bfs, cramfs) are found through blkid,
    /// on images made by the real mkfs tools.
    #[test]
    fn blkid_finds_what_the_builtin_list_misses() {
        let Some(_) = blkid_probe(Path::new("/dev/null")) else {
            eprintln!("skipping: blkid is not installed");
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir(&src).unwrap();
        std::fs::write(src.join("f"), b"x").unwrap();
        for (fs, args) in [
            ("minix", vec!["mkfs.minix"]),
            ("bfs", vec!["mkfs.bfs"]),
            ("cramfs", vec!["mkfs.cramfs", src.to_str().unwrap()]),
        ] {
            let img = dir.path().join(fs);
            std::fs::write(&img, vec![0u8; 4 << 20]).unwrap();
            let ok = std::process::Command::new(args[0])
                .args(&args[1..])
                .arg(&img)
                .output()
                .is_ok_and(|o| o.status.success());
            if !ok {
                eprintln!("skipping {fs}: {} is not installed", args[0]);
                continue;
            }
            assert_eq!(
                builtin_signature(&img),
                None,
                "{fs}: the old list missed it"
            );
            let found = signature(&img).unwrap_or_default();
            assert!(found.contains(fs), "{fs}: {found}");
        }
    }
}
