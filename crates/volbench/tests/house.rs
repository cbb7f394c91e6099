//! ARCHITECTURE.md's promise about the crates' floors, checked against the crates' own
//! Cargo.toml files: the crates that render, serve and store documents do not depend on the
//! runner (a document can be rendered, served and stored where no I/O ever ran), nor does
//! `cloud`'s catalog and model.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Each workspace crate's normal dependencies among the workspace's crates.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut deps = BTreeMap::new();
    for e in std::fs::read_dir(&crates).unwrap() {
        let dir = e.unwrap().path();
        let Ok(text) = std::fs::read_to_string(dir.join("Cargo.toml")) else {
            continue;
        };
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        let mut section = String::new();
        let mut mine = BTreeSet::new();
        for line in text.lines().map(str::trim) {
            if line.starts_with('[') {
                section = line.to_string();
            } else if section == "[dependencies]" {
                if let Some((dep, _)) = line.split_once(['.', ' ', '=']) {
                    mine.insert(dep.to_string());
                }
            }
        }
        deps.insert(name, mine);
    }
    let names: BTreeSet<String> = deps.keys().cloned().collect();
    for d in deps.values_mut() {
        d.retain(|n| names.contains(n));
    }
    deps
}

/// Every workspace crate `name` reaches through its dependencies.
fn reaches(g: &BTreeMap<String, BTreeSet<String>>, name: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![name.to_string()];
    while let Some(n) = todo.pop() {
        for d in g.get(&n).into_iter().flatten() {
            if seen.insert(d.clone()) {
                todo.push(d.clone());
            }
        }
    }
    seen
}

#[test]
fn render_web_store_and_cloud_do_not_reach_the_runner() {
    let g = graph();
    assert!(
        reaches(&g, "experiment").contains("runner"),
        "the check reads no dependency at all: {g:?}"
    );
    for name in ["render", "web", "store", "cloud", "report"] {
        let r = reaches(&g, name);
        assert!(g.contains_key(name), "no crate {name}");
        assert!(
            !r.contains("runner"),
            "{name} reaches the runner through {r:?}"
        );
    }
}
