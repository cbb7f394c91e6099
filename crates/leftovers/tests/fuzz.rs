//! Fuzzing the records of what a killed volbench made (issue 63): a record is a file another
//! process wrote, read back as root. Generated records (valid JSON with items of every kind
//! naming files near and far from volbench's pattern, dead and live pids, links in place of
//! what was made; and raw bytes) are written into a registry as dead owners' and reclaimed.
//! Whatever they say: no panic, and nothing survives or goes but by the rule: a file is
//! removed only when its name is volbench's own for the record's pid and it is still what
//! was made (its identity, else the user's own); a link's target is never touched. `PROPTEST_CASES` sets the
//! count (docs/fuzzing.md).

use proptest::prelude::*;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// reclaim() reads a process-wide registry: one case at a time.
static ONE: Mutex<()> = Mutex::new(());
/// Pids above pid_max: no process has them.
const PIDS: [u32; 2] = [4_999_990, 4_999_991];

/// A name a record may list, and whether volbench's rule makes it the record owner's.
fn name() -> impl Strategy<Value = String> {
    prop_oneof![
        (0..2usize).prop_map(|i| format!(".volbench-db-{}.sqlite", PIDS[i])),
        (0..2usize).prop_map(|i| format!(".volbench-fsync-{}.dat", PIDS[i])),
        (0..2usize).prop_map(|i| format!("volbench-db-{}.sqlite", PIDS[i])),
        (0..2usize).prop_map(|i| format!(".volbench-pg-{}x", PIDS[i])),
        Just("precious".to_string()),
        Just("..".to_string()),
        "[a-z.\\-]{1,12}",
    ]
}

#[derive(Debug, Clone)]
struct Case {
    owner: usize,
    items: Vec<(&'static str, String, bool)>,
    made_wrong: bool,
}

fn case() -> impl Strategy<Value = Case> {
    let kind = prop_oneof![
        Just("path"),
        Just("postgres"),
        Just("journal"),
        Just("jobgroup"),
        Just("cgroup")
    ];
    let item = (kind, name(), any::<bool>());
    (0..2usize, prop::collection::vec(item, 0..6), any::<bool>()).prop_map(
        |(owner, items, made_wrong)| Case {
            owner,
            items,
            made_wrong,
        },
    )
}

/// The files of a case in `dir`: each name listed, made a file, or a link to a victim.
fn lay_out(dir: &Path, victim: &Path, c: &Case) -> Vec<PathBuf> {
    let mut made = Vec::new();
    for (_, n, link) in &c.items {
        let p = dir.join(n);
        if n == ".." || p.exists() || std::fs::symlink_metadata(&p).is_ok() {
            continue;
        }
        if *link {
            let _ = std::os::unix::fs::symlink(victim, &p);
        } else {
            let _ = std::fs::write(&p, b"x");
        }
        made.push(p);
    }
    made
}

fn record_json(dir: &Path, c: &Case) -> String {
    let items: Vec<String> = c
        .items
        .iter()
        .map(|(k, n, _)| {
            let p = dir.join(n);
            let id =
                std::fs::symlink_metadata(&p).map(|m| (m.dev(), m.ino() + c.made_wrong as u64));
            let made = match id {
                Ok((d, i)) => format!(r#","made":[{d},{i}]"#),
                Err(_) => String::new(),
            };
            format!(r#"{{"kind":"{k}","path":{}{made}}}"#, serde_json::json!(p))
        })
        .collect();
    format!(
        r#"{{"pid":{},"start":1,"boot":"x","items":[{}]}}"#,
        PIDS[c.owner],
        items.join(",")
    )
}

/// What the rule lets go: an entry named for the owner and still what was made (its
/// identity as recorded). A link that is what was made goes itself; its target never does.
fn may_go(p: &Path, c: &Case) -> bool {
    let n = p.file_name().unwrap().to_string_lossy();
    let listed_as_path = c.items.iter().any(|(k, m, _)| *k == "path" && *m == n);
    let ours = n.starts_with(&format!(".volbench-db-{}.", PIDS[c.owner]))
        || n.starts_with(&format!(".volbench-fsync-{}.", PIDS[c.owner]));
    listed_as_path && ours && !c.made_wrong
}

proptest! {
    #[test]
    fn a_record_removes_only_what_the_rule_allows(c in case()) {
        let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
        let d = tempfile::tempdir().unwrap();
        let (work, reg) = (d.path().join("work"), d.path().join("running"));
        std::fs::create_dir(&work).unwrap();
        let victim = d.path().join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        let files = lay_out(&work, &victim, &c);
        let expect: Vec<(PathBuf, bool)> = files.iter().map(|p| (p.clone(), may_go(p, &c))).collect();
        assert!(leftovers::init(&reg).is_none());
        std::fs::create_dir_all(&reg).unwrap();
        std::fs::write(reg.join(PIDS[c.owner].to_string()), record_json(&work, &c)).unwrap();
        let _ = leftovers::reclaim();
        prop_assert_eq!(std::fs::read(&victim).unwrap(), b"keep".to_vec());
        for (p, go) in expect {
            let there = std::fs::symlink_metadata(&p).is_ok();
            prop_assert_eq!(there, !go, "{} (case {:?})", p.display(), c);
        }
    }

    #[test]
    fn any_bytes_as_a_record_are_no_panic_and_remove_nothing(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
        let d = tempfile::tempdir().unwrap();
        let reg = d.path().join("running");
        assert!(leftovers::init(&reg).is_none());
        std::fs::create_dir_all(&reg).unwrap();
        std::fs::write(reg.join(PIDS[0].to_string()), &bytes).unwrap();
        let keep = d.path().join(format!(".volbench-db-{}.sqlite", PIDS[1]));
        std::fs::write(&keep, b"x").unwrap();
        let _ = leftovers::reclaim();
        prop_assert!(keep.exists());
    }
}
