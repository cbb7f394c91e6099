//! ARCHITECTURE.md's promise about the crates' floors, checked against the crates' own
//! Cargo.toml files: the crates that render, serve and store documents do not depend on the
//! runner (a document can be rendered, served and stored where no I/O ever ran), nor does
//! `cloud`'s catalog and model; and that no file of `cmd/` imports another.

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

/// The modules of the `cmd/` directory another file of it names (`super::NAME::`,
/// `use super::NAME`, `crate::cmd::NAME::`), outside its test module.
fn cmd_imports(text: &str, modules: &BTreeSet<String>) -> Vec<String> {
    let code = text.split("#[cfg(test)]").next().unwrap_or(text);
    let mut found = Vec::new();
    for m in modules {
        let named = [
            format!("super::{m}::"),
            format!("use super::{m};"),
            format!("crate::cmd::{m}::"),
        ];
        if named.iter().any(|n| code.contains(n.as_str())) {
            found.push(m.clone());
        }
    }
    found
}

/// ARCHITECTURE.md's promise that a `cmd/` file imports no other: what subcommands share
/// sits beside `cmd/`, so a fix lands where every subcommand passes.
#[test]
fn no_subcommand_file_imports_another() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/cmd");
    let files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    let modules: BTreeSet<String> = files
        .iter()
        .map(|p| p.file_stem().unwrap().to_string_lossy().to_string())
        .filter(|m| m != "mod")
        .collect();
    assert!(modules.len() > 10, "read no subcommand: {modules:?}");
    // The check can fail: a line of the form it looks for is found.
    assert_eq!(cmd_imports("use super::run::x;", &modules), ["run"]);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let found = cmd_imports(&text, &modules);
        assert!(found.is_empty(), "{} imports cmd/{found:?}", f.display());
    }
}

/// Every `.rs` file under `dir`, recursively.
fn sources(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(sources(&p));
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
    out
}

/// ARCHITECTURE.md's promise that every measured run of the CLI passes experiment::Driver
/// (so what happens around and between runs is written once): no file of the binary or of
/// `experiment` but the driver calls the runner or the MPI world's run itself.
#[test]
fn every_run_of_the_cli_passes_the_experiment_driver() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut callers = Vec::new();
    for dir in ["volbench/src", "experiment/src"] {
        for f in sources(&crates.join(dir)) {
            let text = std::fs::read_to_string(&f).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or(&text);
            if code.contains("world::run(") || code.contains("runner::run(") {
                callers.push(f.strip_prefix(&crates).unwrap().display().to_string());
            }
        }
    }
    assert_eq!(
        callers,
        ["experiment/src/driver.rs"],
        "runs outside the driver"
    );
}
