//! `volbench store copy` and `volbench store push`: moving results between stores.

use crate::cli::{StoreCopyArgs, StorePushArgs};
use anyhow::Result;
use std::process::ExitCode;
use store::{Location, Store};

fn said(m: &store::transfer::Moved, to: &str) -> String {
    let mut s = format!("{} added to {to}", m.added);
    if m.replaced > 0 {
        s += &format!(", {} replaced by the complete result", m.replaced);
    }
    if m.present > 0 {
        s += &format!(", {} already there", m.present);
    }
    s
}

/// The same store, however named: one file behind two paths (`./a.db`, a link to it) is
/// one store, which a copy would lock against itself.
fn same_store(a: &Location, b: &Location) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (a, b) {
        (Location::File(x), Location::File(y)) => {
            match (std::fs::metadata(x), std::fs::metadata(y)) {
                (Ok(m), Ok(n)) => (m.dev(), m.ino()) == (n.dev(), n.ino()),
                _ => x == y,
            }
        }
        _ => a == b,
    }
}

pub fn copy(a: StoreCopyArgs) -> Result<ExitCode> {
    let (from, to) = (Location::of(&a.from)?, Location::of(&a.to)?);
    if same_store(&from, &to) {
        return Err(crate::usage::usage(
            "--from and --to are the same store: name two stores",
        ));
    }
    // The source must exist: opening a missing SQLite path would make an empty store.
    if let Location::File(p) = &from {
        if !p.is_file() {
            return Err(crate::usage::usage(format!(
                "--from {}: no such store file: give the path of a results.db",
                p.display()
            )));
        }
    }
    // Progress on stderr once the copy has taken a second, a line at most every 5 s.
    let began = std::time::Instant::now();
    let mut last: Option<std::time::Instant> = None;
    let mut progress = |done: usize, all: usize| {
        let now = std::time::Instant::now();
        if now - began >= std::time::Duration::from_secs(1)
            && last.is_none_or(|l| now - l >= std::time::Duration::from_secs(5))
            && done < all
        {
            eprintln!("copied {done} of {all} results");
            last = Some(now);
        }
    };
    let m = store::transfer::copy(&from, &to, &mut progress)?;
    println!("{}", said(&m, &to.shown()));
    Ok(ExitCode::SUCCESS)
}

pub fn push(a: StorePushArgs) -> Result<ExitCode> {
    let local = a.local.unwrap_or_else(Store::local_path);
    if !local.is_file() {
        println!("nothing to push: {} does not exist", local.display());
        return Ok(ExitCode::SUCCESS);
    }
    let to = a.to.as_deref().map(Location::of).transpose()?;
    let mut src = Store::open_at(&Location::File(local.clone()))?;
    if src.pending()?.is_empty() {
        println!(
            "nothing to push: no result in {} is pending",
            local.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    let m = store::transfer::push(&mut src, to.as_ref())?;
    let dest = to.map_or("their store".to_string(), |t| t.shown());
    println!("{}", said(&m, &dest));
    Ok(ExitCode::SUCCESS)
}
