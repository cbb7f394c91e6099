//! The embedded engine: a SQLite database file in the directory, WAL mode, synchronous=FULL
//! by default (each commit syncs the WAL, as a PostgreSQL commit does).
//!
//! SQLite has one writer at a time. Its own answer to a second writer, `busy_timeout`, sleeps
//! with a growing back-off, so with several clients throughput collapses by chance rather than
//! by the device. volbench therefore queues writers itself: every client has its own
//! connection, and a transaction holds an in-process writer lock from `BEGIN IMMEDIATE` to
//! `COMMIT`. Clients then wait in order, the wait counts in their latency, and tps with N
//! clients is what one writer can commit, which is the honest figure for SQLite. (A busy
//! database from another process is still retried, with `busy_timeout` as a fallback.)

use crate::tpcb::{self, Tx};
use crate::{Backend, Session, TxError};
use rusqlite::{params, Connection, ErrorCode};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

pub struct Sqlite {
    path: PathBuf,
    synchronous: String,
    writer: Arc<Mutex<()>>,
    /// Written down for the next volbench to remove should this one be killed.
    _held: leftovers::Hold,
}

impl Drop for Sqlite {
    fn drop(&mut self) {
        // The file and its -wal, -shm and -journal, as a reclaim after a kill removes them.
        leftovers::remove_path(&self.path);
    }
}

fn open(path: &Path, synchronous: &str) -> rusqlite::Result<Connection> {
    let c = Connection::open(path)?;
    c.pragma_update(None, "journal_mode", "WAL")?;
    c.pragma_update(None, "synchronous", synchronous)?;
    c.busy_timeout(std::time::Duration::from_secs(60))?;
    Ok(c)
}

impl Sqlite {
    /// Creates the database in `dir` and loads `scale`; the file is removed when this drops.
    /// A set stop flag ends the load (checked every 64k rows): a scale-1000 load takes
    /// minutes, and a Ctrl-C must not wait for it and then report a run of nothing.
    pub fn create(
        dir: &Path,
        scale: u32,
        synchronous: &str,
        stop: &std::sync::atomic::AtomicBool,
    ) -> anyhow::Result<Sqlite> {
        let path = dir.join(format!(".volbench-db-{}.sqlite", std::process::id()));
        if path.exists() {
            anyhow::bail!(
                "{} exists: remove it (an earlier run was killed) and run again",
                path.display()
            );
        }
        let s = Sqlite {
            _held: leftovers::hold(leftovers::Kind::Path, &path),
            path,
            synchronous: synchronous.to_string(),
            writer: Arc::new(Mutex::new(())),
        };
        let mut c = open(&s.path, synchronous).map_err(|e| {
            anyhow::anyhow!(
                "cannot create a database in {}: {e}: choose a writable directory",
                dir.display()
            )
        })?;
        load(&mut c, scale, stop)?;
        Ok(s)
    }
}

fn load(
    c: &mut Connection,
    scale: u32,
    stop: &std::sync::atomic::AtomicBool,
) -> anyhow::Result<()> {
    let t = c.transaction()?;
    for ddl in tpcb::SCHEMA {
        t.execute(ddl, [])?;
    }
    let s = scale as u64;
    {
        let mut b = t.prepare("INSERT INTO pgbench_branches (bid, bbalance) VALUES (?1, 0)")?;
        for bid in 1..=s {
            b.execute([bid])?;
        }
        let mut te =
            t.prepare("INSERT INTO pgbench_tellers (tid, bid, tbalance) VALUES (?1, ?2, 0)")?;
        for tid in 1..=s * tpcb::TELLERS_PER_BRANCH {
            te.execute([tid, (tid - 1) / tpcb::TELLERS_PER_BRANCH + 1])?;
        }
        // pgbench's filler: blank-padded char(84); the same bytes keep row sizes alike.
        let filler = " ".repeat(84);
        let mut a = t.prepare(
            "INSERT INTO pgbench_accounts (aid, bid, abalance, filler) VALUES (?1, ?2, 0, ?3)",
        )?;
        for aid in 1..=s * tpcb::ACCOUNTS_PER_BRANCH {
            if aid % 65536 == 0 && stop.load(std::sync::atomic::Ordering::Relaxed) {
                anyhow::bail!("stopped during the table load");
            }
            a.execute(params![
                aid,
                (aid - 1) / tpcb::ACCOUNTS_PER_BRANCH + 1,
                filler
            ])?;
        }
    }
    // SQLite cannot add a primary key to a table: unique indexes do the same job.
    t.execute(
        "CREATE UNIQUE INDEX pgbench_branches_pkey ON pgbench_branches (bid)",
        [],
    )?;
    t.execute(
        "CREATE UNIQUE INDEX pgbench_tellers_pkey ON pgbench_tellers (tid)",
        [],
    )?;
    t.execute(
        "CREATE UNIQUE INDEX pgbench_accounts_pkey ON pgbench_accounts (aid)",
        [],
    )?;
    t.commit()?;
    c.execute_batch("ANALYZE")?;
    Ok(())
}

struct SqliteSession {
    c: Connection,
    writer: Arc<Mutex<()>>,
}

fn tx_error(e: rusqlite::Error) -> TxError {
    let retryable = matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    );
    TxError {
        retryable,
        message: e.to_string(),
    }
}

impl Session for SqliteSession {
    fn transaction(&mut self, t: &Tx) -> Result<i64, TxError> {
        let _w = self.writer.lock().unwrap_or_else(|p| p.into_inner());
        let r = (|| {
            self.c.execute_batch("BEGIN IMMEDIATE")?;
            let q = (|| {
                self.c
                    .prepare_cached(
                        "UPDATE pgbench_accounts SET abalance = abalance + ?1 WHERE aid = ?2",
                    )?
                    .execute(params![t.delta, t.aid])?;
                let bal: i64 = self
                    .c
                    .prepare_cached("SELECT abalance FROM pgbench_accounts WHERE aid = ?1")?
                    .query_row([t.aid], |r| r.get(0))?;
                self.c
                    .prepare_cached(
                        "UPDATE pgbench_tellers SET tbalance = tbalance + ?1 WHERE tid = ?2",
                    )?
                    .execute(params![t.delta, t.tid])?;
                self.c
                    .prepare_cached(
                        "UPDATE pgbench_branches SET bbalance = bbalance + ?1 WHERE bid = ?2",
                    )?
                    .execute(params![t.delta, t.bid])?;
                self.c
                    .prepare_cached("INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (?1, ?2, ?3, ?4, CURRENT_TIMESTAMP)")?
                    .execute(params![t.tid, t.bid, t.aid, t.delta])?;
                Ok::<i64, rusqlite::Error>(bal)
            })();
            match q {
                Ok(bal) => {
                    self.c.execute_batch("COMMIT")?;
                    Ok(bal)
                }
                Err(e) => {
                    let _ = self.c.execute_batch("ROLLBACK");
                    Err(e)
                }
            }
        })();
        r.map_err(tx_error)
    }
}

impl Backend for Sqlite {
    fn name(&self) -> &'static str {
        "sqlite"
    }
    fn version(&self) -> String {
        format!("SQLite {}", rusqlite::version())
    }
    fn drive(
        &self,
        load: crate::measure::Load,
        stop: &std::sync::atomic::AtomicBool,
    ) -> anyhow::Result<crate::measure::Measured> {
        crate::measure::threads(load.clients, load.scale, load.size, stop, || {
            Ok(Box::new(SqliteSession {
                c: open(&self.path, &self.synchronous)?,
                writer: self.writer.clone(),
            }) as Box<dyn Session>)
        })
    }
    fn check(&self) -> anyhow::Result<tpcb::Sums> {
        let c = open(&self.path, &self.synchronous)?;
        let (b, t, a, n, d): (i64, i64, i64, i64, Option<i64>) =
            c.query_row(tpcb::CHECK, [], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
            })?;
        Ok(tpcb::Sums {
            branches: b,
            tellers: t,
            accounts: a,
            rows: n,
            deltas: d.unwrap_or(0),
        })
    }
}
