//! The store as one service (`store::Recorder`): a result recorded and then replaced in one
//! entry, a PostgreSQL store that cannot be reached taking the local store with a pending
//! mark naming it (password masked), a SQLite store refused before anything is measured, and
//! one that fails later keeping the result in a file. Real SQLite files, a real refused TCP
//! connection; the hooks record what they were told.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use store::{Asked, Hooks, Location, Recorder, Store};

const RUN: &str = include_str!("../../report/tests/data/run.json");

/// What the hooks were told, in order.
static TOLD: Mutex<Vec<String>> = Mutex::new(Vec::new());
/// The tests share the environment (VOLBENCH_LOCAL_STORE) and TOLD: one at a time.
static ONE: Mutex<()> = Mutex::new(());

fn hooks() -> Hooks {
    Hooks {
        identify: |k, v| TOLD.lock().unwrap().push(format!("{k}={v}")),
        keep: |p: &Path, bytes: &[u8]| {
            TOLD.lock()
                .unwrap()
                .push(format!("kept {} ({} bytes)", p.display(), bytes.len()));
            Ok(())
        },
    }
}

fn asked(at: Option<Location>, label: &str) -> Asked {
    Asked {
        at,
        label: Some(label.into()),
        tags: vec!["t1".into()],
        quiet: true,
    }
}

fn told() -> Vec<String> {
    std::mem::take(&mut *TOLD.lock().unwrap())
}

fn doc() -> report::Document {
    report::read::from_json(RUN).unwrap()
}

#[test]
fn a_result_is_inserted_once_then_replaced_in_its_entry() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("results.db");
    told();
    let mut r = Recorder::new(asked(Some(Location::File(path.clone())), "lab"), hooks()).unwrap();
    r.record(&doc());
    r.record(&doc());
    let mut s = Store::open(&path).unwrap();
    let rows = s.all(&store::Filter::default()).unwrap();
    assert_eq!(rows.len(), 1, "a second record replaces, not adds");
    assert_eq!(rows[0].label.as_deref(), Some("lab"));
    assert_eq!(rows[0].tags, vec!["t1".to_string()]);
    assert!(s.get(rows[0].id).unwrap().is_some());
    assert_eq!(
        told(),
        vec!["label=lab".to_string(), format!("store_id={}", rows[0].id)]
    );
    assert!(!store::STORE_MISCONFIGURED.load(std::sync::atomic::Ordering::SeqCst));
}

#[test]
fn an_unreachable_postgresql_store_leaves_the_result_pending_locally() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let d = tempfile::tempdir().unwrap();
    let local: PathBuf = d.path().join("local.db");
    std::env::set_var("VOLBENCH_LOCAL_STORE", &local);
    // Port 1 on loopback refuses at once: a connection error, retried, then the fallback.
    let url = "postgresql://volbench:s3cret-pass@127.0.0.1:1/results?connect_timeout=2";
    let at = Location::of(Path::new(url)).unwrap();
    let mut r = Recorder::new(asked(Some(at), "pg"), hooks()).unwrap();
    r.record(&doc());
    std::env::remove_var("VOLBENCH_LOCAL_STORE");
    let mut s = Store::open(&local).unwrap();
    let pending = s.pending().unwrap();
    assert_eq!(pending.len(), 1, "{pending:?}");
    assert!(pending[0].1.contains("127.0.0.1:1"), "{pending:?}");
    assert!(
        !pending[0].1.contains("s3cret-pass"),
        "the password reached the store"
    );
    assert!(s.get(pending[0].0).unwrap().is_some());
}

#[test]
fn a_sqlite_store_that_cannot_be_written_is_refused_before_measuring() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let d = tempfile::tempdir().unwrap();
    // A directory where the file would be: SQLite cannot open it as a database.
    let at = Location::File(d.path().to_path_buf());
    assert!(Recorder::new(asked(Some(at), "x"), hooks()).is_err());
}

#[test]
fn a_store_that_fails_after_the_start_keeps_the_result_in_a_file() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("gone");
    std::fs::create_dir(&dir).unwrap();
    let path = dir.join("results.db");
    let mut r = Recorder::new(asked(Some(Location::File(path)), "late"), hooks()).unwrap();
    told();
    // The disk the store was on went away between the start and the result.
    std::fs::remove_dir_all(&dir).unwrap();
    r.record(&doc());
    let said = told();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].starts_with("kept ") && said[0].contains("volbench-unstored-"),
        "{said:?}"
    );
}

#[test]
fn no_store_records_nothing_and_says_nothing() {
    let _one = ONE.lock().unwrap_or_else(|e| e.into_inner());
    told();
    let mut r = Recorder::new(asked(None, "none"), hooks()).unwrap();
    r.record(&doc());
    r.announce();
    assert_eq!(told(), vec!["label=none".to_string()]);
}

#[test]
fn a_new_store_is_private_and_a_planted_link_is_not_opened() {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("results.db");
    let mut open = Store::open(&path).unwrap();
    open.insert(&doc(), Some("private"), &[]).unwrap();
    // While it is open its write-ahead log holds results too: as private. (The store's
    // exclusive lock keeps SQLite's index of the log in memory: there is no -shm.)
    for name in ["results.db", "results.db-wal"] {
        let mode = std::fs::metadata(d.path().join(name))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{name}: results readable by others");
    }
    drop(open);
    // A world-writable directory, and a link at the store's name pointing at a victim.
    let shared = tempfile::tempdir().unwrap();
    std::fs::set_permissions(shared.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
    let victim = d.path().join("victim");
    std::fs::write(&victim, b"keep").unwrap();
    let link = shared.path().join("results.db");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    let e = Store::open(&link).err().expect("a planted link is refused");
    assert!(e.to_string().contains("symbolic link"), "{e}");
    assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
    // The user's own link to a store not made yet: the store it makes is as private.
    let own = d.path().join("link.db");
    let made = d.path().join("made.db");
    std::os::unix::fs::symlink(&made, &own).unwrap();
    let mut through = Store::open(&own).unwrap();
    through.insert(&doc(), Some("linked"), &[]).unwrap();
    let mode = std::fs::metadata(&made).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "a store made through a link");
}
