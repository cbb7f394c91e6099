//! The PostgreSQL backend: one database a team's hosts write at once.
//!
//! Tables are prefixed `volbench_` (the database may hold the team's other data). Every entry
//! is one transaction, its id from a sequence, so concurrent writers neither lose, duplicate
//! nor interleave entries. The schema is created on first use and migrated step by step under
//! an advisory lock, so twelve hosts starting at once on an empty database make it once.

use crate::entry::{listed_columns, Columns, Filter, Row};
use crate::location::masked;
use crate::pgconn;
use crate::{Result, StoreError, SCHEMA_VERSION};
use postgres::types::ToSql;
use postgres::{Client, GenericClient};

/// Version 1: the entries and their tags, as SQLite's first schema, with each entry's uid.
const V1: &str = "
CREATE TABLE volbench_schema (version INTEGER NOT NULL);
INSERT INTO volbench_schema VALUES (1);
CREATE TABLE volbench_entries (
    id BIGSERIAL PRIMARY KEY,
    uid TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    started_at TEXT NOT NULL,
    label TEXT,
    suite TEXT,
    target TEXT NOT NULL,
    hostname TEXT NOT NULL,
    status TEXT NOT NULL,
    iops DOUBLE PRECISION,
    bw_bytes DOUBLE PRECISION,
    points BIGINT NOT NULL,
    report BYTEA NOT NULL,
    what TEXT NOT NULL DEFAULT ''
);
CREATE TABLE volbench_tags (
    entry BIGINT NOT NULL REFERENCES volbench_entries(id) ON DELETE CASCADE,
    pos INTEGER NOT NULL,
    tag TEXT NOT NULL
);
CREATE INDEX volbench_entries_label ON volbench_entries(label);
CREATE INDEX volbench_tags_entry ON volbench_tags(entry);
";

/// Version 2: each entry's machine and kernel, for a team's history by host and instance type.
const V2: &str = "
ALTER TABLE volbench_entries ADD COLUMN machine TEXT NOT NULL DEFAULT '',
                             ADD COLUMN kernel TEXT NOT NULL DEFAULT '';
CREATE INDEX volbench_entries_host ON volbench_entries(hostname);
UPDATE volbench_schema SET version = 2;
";

/// Version 3 (issue 64): an index for each filter that can have one, each ending in the id,
/// so a page of a year's history, newest first, is one index walked backward. (The reports
/// already live apart from the short columns: PostgreSQL moves a value that big out of line.)
const V3: &str = "
DROP INDEX volbench_entries_label;
CREATE INDEX volbench_entries_label ON volbench_entries(label, id);
DROP INDEX volbench_entries_host;
CREATE INDEX volbench_entries_host ON volbench_entries(hostname, id);
CREATE INDEX volbench_entries_kind ON volbench_entries(kind, id);
CREATE INDEX volbench_entries_suite ON volbench_entries(suite, id);
CREATE INDEX volbench_entries_started ON volbench_entries(started_at);
UPDATE volbench_schema SET version = 3;
";

/// Step `i` takes the schema from version `i` to `i + 1`.
pub const MIGRATIONS: &[&str] = &[V1, V2, V3];

/// PostgreSQL's parameter marks and substring test, for the filter's SQL.
const DIALECT: crate::entry::Dialect = crate::entry::Dialect {
    mark: |n| format!("${n}"),
    position: "strpos",
};

/// Any number: the advisory lock every volbench takes while it creates or migrates the schema.
const SCHEMA_LOCK: i64 = 0x766f_6c62_656e_6368;

pub struct Pg {
    client: Client,
    shown: String,
    user: String,
}

impl Pg {
    pub fn open(url: &str) -> Result<Pg> {
        let shown = masked(url);
        let (client, user) = pgconn::connect(url, &shown)?;
        let mut pg = Pg {
            client,
            shown,
            user,
        };
        pg.migrate()?;
        Ok(pg)
    }

    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// How a failed query is told: owning its names, so it outlives borrows of the client.
    fn errs(&self) -> impl Fn(postgres::Error) -> StoreError + 'static {
        let (user, shown) = (self.user.clone(), self.shown.clone());
        move |e| pgconn::classify(&e, &user, &shown)
    }

    /// Creates or migrates the schema; a schema from a newer volbench is left alone.
    fn migrate(&mut self) -> Result<()> {
        if version(&mut self.client).map_err(self.errs())? == SCHEMA_VERSION {
            return Ok(());
        }
        let err = self.errs();
        // A session lock taken before the transaction begins: the transaction's first look at
        // the catalog then comes after the lock, and sees what the holder before us committed
        // (a transaction that waits for an advisory lock inside may keep an older view of the
        // catalog, and twelve hosts starting at once then each tried to create the tables).
        self.client
            .execute("SELECT pg_advisory_lock($1)", &[&SCHEMA_LOCK])
            .map_err(&err)?;
        let r = self.migrate_locked();
        let unlocked = self
            .client
            .execute("SELECT pg_advisory_unlock($1)", &[&SCHEMA_LOCK]);
        r?;
        unlocked.map_err(&err)?;
        Ok(())
    }

    fn migrate_locked(&mut self) -> Result<()> {
        let err = self.errs();
        let mut tx = self.client.transaction().map_err(&err)?;
        // Another host may have migrated while this one waited for the lock.
        let v = version(&mut tx).map_err(&err)?;
        if v > SCHEMA_VERSION {
            return Err(StoreError::Newer(self.shown.clone(), v));
        }
        for step in v..SCHEMA_VERSION {
            tx.batch_execute(MIGRATIONS[step as usize]).map_err(&err)?;
            if step == 1 {
                backfill_hosts(&mut tx).map_err(&err)?;
            }
        }
        tx.commit().map_err(&err)
    }

    pub fn insert(
        &mut self,
        c: &Columns,
        report: &[u8],
        label: Option<&str>,
        tags: &[String],
        uid: &str,
    ) -> Result<i64> {
        let err = self.errs();
        let mut tx = self.client.transaction().map_err(&err)?;
        let row = tx
            .query_one(
                "INSERT INTO volbench_entries (kind, started_at, label, suite, target, hostname, status, iops, bw_bytes, points, report, what, uid, machine, kernel)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id",
                &[&c.kind, &c.started_at, &label, &c.suite, &c.target, &c.hostname, &c.status, &c.iops, &c.bw_bytes, &c.points, &report, &c.what, &uid, &c.machine, &c.kernel],
            )
            .map_err(&err)?;
        let id: i64 = row.get(0);
        for (pos, t) in tags.iter().enumerate() {
            tx.execute(
                "INSERT INTO volbench_tags (entry, pos, tag) VALUES ($1, $2, $3)",
                &[&id, &(pos as i32), t],
            )
            .map_err(&err)?;
        }
        tx.commit().map_err(&err)?;
        Ok(id)
    }

    pub fn update(&mut self, id: i64, c: &Columns, report: &[u8]) -> Result<()> {
        let err = self.errs();
        self.client
            .execute(
                "UPDATE volbench_entries SET status = $2, target = $3, hostname = $4, iops = $5, bw_bytes = $6, points = $7, report = $8, what = $9, machine = $10, kernel = $11 WHERE id = $1",
                &[&id, &c.status, &c.target, &c.hostname, &c.iops, &c.bw_bytes, &c.points, &report, &c.what, &c.machine, &c.kernel],
            )
            .map_err(err)?;
        Ok(())
    }

    /// A page of the filter's rows, newest first (`limit` of them, or all).
    pub fn list(&mut self, f: &Filter, limit: Option<u64>) -> Result<Vec<Row>> {
        let (sql, args) = f.page_sql(&DIALECT, "volbench_entries", &listed_columns(), limit);
        let err = self.errs();
        let mut rows: Vec<Row> = self
            .client
            .query(&sql, &params(&args))
            .map_err(&err)?
            .iter()
            .map(row)
            .collect();
        rows.sort_by_key(|r| r.id);
        self.add_tags(&mut rows)?;
        rows.reverse();
        Ok(rows)
    }

    /// How many rows the filter picks.
    pub fn count(&mut self, f: &Filter) -> Result<u64> {
        let (cond, args) = f.sql(&DIALECT);
        let sql = format!("SELECT count(*) FROM volbench_entries WHERE 1=1{cond}");
        let err = self.errs();
        let n: i64 = self
            .client
            .query_one(&sql, &params(&args))
            .map_err(err)?
            .get(0);
        Ok(n as u64)
    }

    /// Deletes every entry the filter picks, tags with them, in one statement: the count
    /// deleted. PostgreSQL's autovacuum takes the space back for new rows.
    pub fn delete_where(&mut self, f: &Filter) -> Result<u64> {
        let (cond, args) = f.sql(&DIALECT);
        let sql = format!("DELETE FROM volbench_entries WHERE 1=1{cond}");
        let err = self.errs();
        self.client.execute(&sql, &params(&args)).map_err(err)
    }

    /// Each row's tags, in the order given; `rows` sorted by id.
    fn add_tags(&mut self, rows: &mut [Row]) -> Result<()> {
        let err = self.errs();
        let ids: Vec<i64> = rows.iter().map(|r| r.id).collect();
        for t in self
            .client
            .query(
                "SELECT entry, substr(tag, 1, 512) FROM volbench_tags WHERE entry = ANY($1) ORDER BY entry, pos",
                &[&ids],
            )
            .map_err(&err)?
        {
            let entry: i64 = t.get(0);
            if let Ok(i) = rows.binary_search_by_key(&entry, |r| r.id) {
                rows[i].tags.push(t.get(1));
            }
        }
        Ok(())
    }

    pub fn get(&mut self, id: i64) -> Result<Option<Vec<u8>>> {
        let err = self.errs();
        let r = self
            .client
            .query_opt("SELECT report FROM volbench_entries WHERE id = $1", &[&id])
            .map_err(err)?;
        Ok(r.map(|r| r.get(0)))
    }

    pub fn find_uid(&mut self, uid: &str) -> Result<Option<i64>> {
        let err = self.errs();
        let r = self
            .client
            .query_opt("SELECT id FROM volbench_entries WHERE uid = $1", &[&uid])
            .map_err(err)?;
        Ok(r.map(|r| r.get(0)))
    }

    pub fn find_label(&mut self, label: &str) -> Result<Vec<i64>> {
        let err = self.errs();
        let rows = self
            .client
            .query(
                "SELECT id FROM volbench_entries WHERE label = $1 ORDER BY id DESC",
                &[&label],
            )
            .map_err(err)?;
        Ok(rows.iter().map(|r| r.get(0)).collect())
    }

    pub fn delete(&mut self, id: i64) -> Result<bool> {
        let err = self.errs();
        let n = self
            .client
            .execute("DELETE FROM volbench_entries WHERE id = $1", &[&id])
            .map_err(err)?;
        Ok(n > 0)
    }
}

/// The filter's values as the driver takes them.
fn params(args: &[String]) -> Vec<&(dyn ToSql + Sync)> {
    args.iter().map(|a| a as &(dyn ToSql + Sync)).collect()
}

fn row(r: &postgres::Row) -> Row {
    Row {
        id: r.get(0),
        uid: r.get(1),
        kind: r.get(2),
        started_at: r.get(3),
        label: r.get(4),
        suite: r.get(5),
        target: r.get(6),
        hostname: r.get(7),
        machine: r.get(8),
        kernel: r.get(9),
        status: r.get(10),
        iops: r.get(11),
        bw_bytes: r.get(12),
        points: r.get(13),
        what: r.get(14),
        tags: Vec::new(),
    }
}

/// The schema's version: 0 where volbench has not been here yet.
fn version(c: &mut impl GenericClient) -> std::result::Result<i64, postgres::Error> {
    let exists: Option<String> = c
        .query_one("SELECT to_regclass('volbench_schema')::text", &[])?
        .get(0);
    if exists.is_none() {
        return Ok(0);
    }
    let v: i32 = c
        .query_one("SELECT max(version) FROM volbench_schema", &[])?
        .get(0);
    Ok(v as i64)
}

/// Version 2's host columns for entries an older volbench stored, from their reports.
fn backfill_hosts(tx: &mut postgres::Transaction) -> std::result::Result<(), postgres::Error> {
    let rows = tx.query("SELECT id, report FROM volbench_entries", &[])?;
    for r in rows {
        let id: i64 = r.get(0);
        if let Ok(e) = crate::entry::unpack(id, crate::entry::Stored::Packed(r.get(1))) {
            let c = Columns::of(&e);
            tx.execute(
                "UPDATE volbench_entries SET machine = $2, kernel = $3 WHERE id = $1",
                &[&id, &c.machine, &c.kernel],
            )?;
        }
    }
    Ok(())
}
