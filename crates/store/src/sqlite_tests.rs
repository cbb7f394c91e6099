//! The SQLite backend's promises for a long history (issue 64), on real store files: pages
//! newest first that together hold every row once, in either direction; counts; the query
//! plan of each filter; a delete by filter and the space it gives back; and the step from an
//! older schema, whose reports move to their own table and still read.

use super::*;
use crate::{Entry, Filter, Store};

const RUN: &str = include_str!("../../report/tests/data/run.json");

fn doc() -> Entry {
    report::read::from_json(RUN).unwrap()
}

/// A private directory (a store is refused where others can write) and a store in it
/// holding `n` copies of the fixture run, labelled `a` and `b` in turn.
fn store_of(n: usize) -> (tempfile::TempDir, Store) {
    let d = tempfile::tempdir().unwrap();
    let mut s = Store::open(&d.path().join("results.db")).unwrap();
    let doc = doc();
    for i in 0..n {
        let label = if i % 2 == 0 { "a" } else { "b" };
        s.insert(&doc, Some(label), &[format!("t{i}")]).unwrap();
    }
    (d, s)
}

fn ids(rows: &[crate::Row]) -> Vec<i64> {
    rows.iter().map(|r| r.id).collect()
}

/// Walking `before` the last id of each page visits every row once, newest first; walking
/// back `after` the first id of each page gives the same pages again, each newest first.
#[test]
fn pages_hold_every_row_once_newest_first_in_both_directions() {
    let (_d, mut s) = store_of(23);
    let mut pages = Vec::new();
    let mut f = Filter::default();
    loop {
        let page = s.list(&f, Some(5)).unwrap();
        let Some(last) = page.last() else { break };
        f.before_id = Some(last.id);
        pages.push(ids(&page));
    }
    let walked: Vec<i64> = pages.concat();
    assert_eq!(walked, (1..=23).rev().collect::<Vec<_>>());
    assert_eq!(pages.len(), 5, "{pages:?}");
    // Back up from the oldest page: the pages before it, in turn.
    let mut up = Filter {
        after_id: Some(pages[4][0]),
        ..Filter::default()
    };
    for want in pages[..4].iter().rev() {
        let page = s.list(&up, Some(5)).unwrap();
        assert_eq!(&ids(&page), want);
        up.after_id = Some(page[0].id);
    }
    assert!(s.list(&up, Some(5)).unwrap().is_empty());
    // Tags come with each row of a page, in its order.
    let top = s.list(&Filter::default(), Some(2)).unwrap();
    assert_eq!(top[0].tags, ["t22"]);
}

/// A filter's count is every row it picks, whatever the page; a page bound narrows it.
#[test]
fn counts_are_of_the_filter_and_its_bounds() {
    let (_d, mut s) = store_of(23);
    assert_eq!(s.count(&Filter::default()).unwrap(), 23);
    let a = Filter {
        label: Some("a".into()),
        ..Filter::default()
    };
    assert_eq!(s.count(&a).unwrap(), 12);
    let page = s.list(&a, Some(5)).unwrap();
    assert_eq!(ids(&page), [23, 21, 19, 17, 15]);
    let older = Filter {
        before_id: Some(15),
        ..a.clone()
    };
    assert_eq!(s.count(&older).unwrap(), 7);
    assert_eq!(s.count(&older.unpaged()).unwrap(), 12);
}

/// What SQLite plans for a page under each filter that has an index: the index, never a
/// scan of the whole table (a scan reads a row per result stored, and a year's page would
/// cost a year). A plan names its table's scan as "SCAN entries" with no index after it.
#[test]
fn each_indexed_filter_is_planned_through_an_index() {
    let (d, s) = store_of(3);
    drop(s);
    let lite = Sqlite::open(&d.path().join("results.db")).unwrap();
    let some = |v: &str| Some(v.to_string());
    let filters = [
        (
            "label",
            Filter {
                label: some("a"),
                ..Filter::default()
            },
        ),
        (
            "kind",
            Filter {
                kind: some("run"),
                ..Filter::default()
            },
        ),
        (
            "suite",
            Filter {
                suite: some("quick"),
                ..Filter::default()
            },
        ),
        (
            "host",
            Filter {
                host: some("h"),
                ..Filter::default()
            },
        ),
        (
            "before",
            Filter {
                before_id: Some(2),
                ..Filter::default()
            },
        ),
        (
            "after",
            Filter {
                after_id: Some(2),
                ..Filter::default()
            },
        ),
        ("none", Filter::default()),
    ];
    for (name, f) in filters {
        let (sql, args) = f.page_sql(&DIALECT, "entries", &LISTED.join(", "), Some(50));
        let mut st = lite
            .conn
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .unwrap();
        let plan: Vec<String> = st
            .query_map(rusqlite::params_from_iter(args.iter()), |r| r.get(3))
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        let text = plan.join("; ");
        let scans_all = plan.iter().any(|p| p == "SCAN entries");
        // No filter, or an id bound: the table's own order (the rowid) is the index.
        let by_id = matches!(name, "none" | "before" | "after");
        assert!(!scans_all || (by_id && name == "none"), "{name}: {text}");
        assert!(
            !text.contains("TEMP B-TREE"),
            "{name} sorts its rows: {text}"
        );
        if !by_id {
            assert!(text.contains("USING INDEX"), "{name}: {text}");
        }
    }
}

/// A delete by filter takes the rows it picks with their reports and tags, leaves the rest,
/// gives the file's space back, and refuses a filter of nothing.
#[test]
fn a_delete_by_filter_takes_what_it_picks_and_gives_the_space_back() {
    let (_d, mut s) = store_of(40);
    let before = s.size().unwrap();
    let b = Filter {
        label: Some("b".into()),
        ..Filter::default()
    };
    assert_eq!(s.delete_where(&b).unwrap(), 20);
    assert_eq!(s.count(&Filter::default()).unwrap(), 20);
    assert_eq!(s.count(&b).unwrap(), 0);
    let after = s.size().unwrap();
    assert!(after < before * 3 / 4, "{before} -> {after} bytes");
    let Store::Sqlite(lite) = &s else {
        unreachable!()
    };
    let orphans: i64 = lite
        .conn
        .query_row(
            "SELECT (SELECT count(*) FROM reports WHERE entry NOT IN (SELECT id FROM entries)) + (SELECT count(*) FROM tags WHERE entry NOT IN (SELECT id FROM entries))",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(orphans, 0);
    assert!(s.get(1).unwrap().is_some());
    assert!(s.get(2).unwrap().is_none());
    assert!(s.delete_where(&Filter::default()).is_err());
    assert_eq!(s.count(&Filter::default()).unwrap(), 20);
}

/// A store as version 2 left it (reports beside the columns, no auto-vacuum, as the first
/// versions made them): opened, it is version 3, its reports read, its rows page, and a
/// delete by filter still gives the space back (VACUUM, where pages cannot be handed back
/// one at a time).
#[test]
fn a_version_two_store_moves_its_reports_and_keeps_reading() {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("old.db");
    let packed = crate::entry::pack(&doc());
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(V1).unwrap();
        c.execute_batch(V2).unwrap();
        for i in 0..30 {
            c.execute(
                "INSERT INTO entries (kind, started_at, label, target, hostname, status, points, report, uid) VALUES ('run', ?1, 'old', 't', 'h', 'complete', 1, ?2, ?3)",
                rusqlite::params![format!("2026-01-{:02}T00:00:00Z", i % 28 + 1), packed, format!("u{i}")],
            )
            .unwrap();
        }
        c.pragma_update(None, "user_version", 2).unwrap();
    }
    let mut s = Store::open(&path).unwrap();
    let Store::Sqlite(lite) = &s else {
        unreachable!()
    };
    let v: i64 = lite
        .conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v, crate::SCHEMA_VERSION);
    assert_eq!(s.get(30).unwrap().unwrap().kind(), "run");
    assert_eq!(ids(&s.list(&Filter::default(), Some(2)).unwrap()), [30, 29]);
    let before = s.size().unwrap();
    let old = Filter {
        until: Some("2026-01-15".into()),
        ..Filter::default()
    };
    assert_eq!(s.delete_where(&old).unwrap(), 16);
    assert!(s.size().unwrap() < before * 3 / 4);
    assert_eq!(s.count(&Filter::default()).unwrap(), 14);
}

/// A store holding a trigger (or a view) volbench never made is refused before volbench
/// writes or migrates it: a trigger's statements would run inside volbench's own, as root
/// (issue 64's attacker: a store handed over with a delete trigger wiped every row of it
/// while the delete by filter said it took one).
#[test]
fn a_store_with_a_trigger_is_refused_and_left_as_it_was() {
    let (d, s) = store_of(3);
    drop(s);
    let path = d.path().join("results.db");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch("CREATE TABLE pwn (x TEXT); CREATE TRIGGER t_del AFTER DELETE ON entries BEGIN DELETE FROM entries; INSERT INTO pwn VALUES ('ran'); END;")
            .unwrap();
    }
    for open in [Store::open, Store::open_read] {
        let e = open(&path).err().expect("refused");
        assert!(e.is_setup(), "{e}");
        assert!(e.to_string().contains("trigger named 't_del'"), "{e}");
    }
    let c = rusqlite::Connection::open(&path).unwrap();
    let n: i64 = c
        .query_row("SELECT count(*) FROM entries", [], |r| r.get(0))
        .unwrap();
    let ran: i64 = c
        .query_row("SELECT count(*) FROM pwn", [], |r| r.get(0))
        .unwrap();
    assert_eq!((n, ran), (3, 0));
}

/// A copy lets others in between its batches: a SQLite store is locked while open, and a
/// copy that held both for its whole length kept a run, history and serve out for minutes.
/// Between each batch both stores open for another writer at once; the copy holds every
/// row once, in the source's order.
#[test]
fn a_copy_lets_others_open_both_stores_between_its_batches() {
    let (d, s) = store_of(450);
    drop(s);
    let from = crate::Location::File(d.path().join("results.db"));
    let to = crate::Location::File(d.path().join("copy.db"));
    let mut seen = Vec::new();
    let moved = crate::transfer::copy(&from, &to, &mut |done, all| {
        // A second writer gets each store now (its lock is not held).
        for at in [&from, &to] {
            let mut other = Store::open_at(at).unwrap();
            other.count(&Filter::default()).unwrap();
        }
        seen.push((done, all));
    })
    .unwrap();
    assert_eq!(moved.added, 450);
    assert_eq!(seen, [(200, 450), (400, 450), (450, 450)]);
    let rows = |at: &crate::Location| Store::open_at(at).unwrap().all(&Filter::default()).unwrap();
    let tags = |r: Vec<crate::Row>| r.into_iter().map(|r| r.tags).collect::<Vec<_>>();
    assert_eq!(tags(rows(&from)), tags(rows(&to)));
}
