//! pgbench's tpcb-like workload: the four tables, their sizes per scale factor, and the
//! transaction (update an account, read its balance, update a teller and a branch, insert a
//! history row), with pgbench's random choices.

use rand::Rng;

pub const ACCOUNTS_PER_BRANCH: u64 = 100_000;
pub const TELLERS_PER_BRANCH: u64 = 10;

/// One transaction's parameters.
#[derive(Clone, Copy, Debug)]
pub struct Tx {
    pub aid: u64,
    pub bid: u64,
    pub tid: u64,
    pub delta: i64,
}

impl Tx {
    /// pgbench: aid in 1..=100000*scale, bid in 1..=scale, tid in 1..=10*scale, delta in
    /// -5000..=5000, all uniform.
    pub fn random(scale: u32, rng: &mut impl Rng) -> Tx {
        let s = scale as u64;
        Tx {
            aid: rng.gen_range(1..=ACCOUNTS_PER_BRANCH * s),
            bid: rng.gen_range(1..=s),
            tid: rng.gen_range(1..=TELLERS_PER_BRANCH * s),
            delta: rng.gen_range(-5000..=5000),
        }
    }

    /// The statements, values inlined as pgbench does in its default (simple) protocol.
    pub fn statements(&self) -> [String; 5] {
        let Tx {
            aid,
            bid,
            tid,
            delta,
        } = *self;
        [
            format!("UPDATE pgbench_accounts SET abalance = abalance + {delta} WHERE aid = {aid}"),
            format!("SELECT abalance FROM pgbench_accounts WHERE aid = {aid}"),
            format!("UPDATE pgbench_tellers SET tbalance = tbalance + {delta} WHERE tid = {tid}"),
            format!("UPDATE pgbench_branches SET bbalance = bbalance + {delta} WHERE bid = {bid}"),
            format!(
                "INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES ({tid}, {bid}, {aid}, {delta}, CURRENT_TIMESTAMP)"
            ),
        ]
    }
}

/// The tables as pgbench -i creates them (column types SQLite and PostgreSQL both take).
pub const SCHEMA: [&str; 4] = [
    "CREATE TABLE pgbench_history (tid int, bid int, aid int, delta int, mtime timestamp, filler char(22))",
    "CREATE TABLE pgbench_tellers (tid int not null, bid int, tbalance int, filler char(84))",
    "CREATE TABLE pgbench_accounts (aid int not null, bid int, abalance int, filler char(84))",
    "CREATE TABLE pgbench_branches (bid int not null, bbalance int, filler char(88))",
];

/// Primary keys, added after the load as pgbench does.
pub const KEYS: [&str; 3] = [
    "ALTER TABLE pgbench_branches ADD PRIMARY KEY (bid)",
    "ALTER TABLE pgbench_tellers ADD PRIMARY KEY (tid)",
    "ALTER TABLE pgbench_accounts ADD PRIMARY KEY (aid)",
];

/// The invariant query: branch, teller and account balance sums (equal after any number of
/// committed transactions from zero), and the history row count.
pub const CHECK: &str = "SELECT (SELECT sum(bbalance) FROM pgbench_branches), (SELECT sum(tbalance) FROM pgbench_tellers), (SELECT sum(abalance) FROM pgbench_accounts), (SELECT count(*) FROM pgbench_history), (SELECT sum(delta) FROM pgbench_history)";

/// One reading of [`CHECK`]: the balance sums, the history's row count and its deltas' sum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sums {
    pub branches: i64,
    pub tellers: i64,
    pub accounts: i64,
    pub rows: i64,
    pub deltas: i64,
}

/// Checks the TPC-B invariant as a change over one run, which holds on any database, also one
/// pgbench has run on (pgbench truncates pgbench_history, so balances and history no longer
/// sum alike): the three balance sums are equal (every transaction moves all three by its
/// delta), the history gained one row per committed transaction, and the balances moved by
/// exactly the deltas this run inserted.
pub fn check_run(before: Sums, after: Sums, committed: u64) -> anyhow::Result<()> {
    let (b, t, a) = (after.branches, after.tellers, after.accounts);
    if b != t || t != a {
        anyhow::bail!(
            "TPC-B invariant broken: branch, teller and account balances sum to {b}, {t} and {a}; they should be equal"
        );
    }
    let rows = after.rows - before.rows;
    if rows != committed as i64 {
        anyhow::bail!(
            "pgbench_history gained {rows} rows but {committed} transactions were reported committed"
        );
    }
    let (moved, inserted) = (a - before.accounts, after.deltas - before.deltas);
    if moved != inserted {
        anyhow::bail!(
            "TPC-B invariant broken: balances moved by {moved} during the run but the history rows it inserted add up to {inserted}"
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn random_choices_stay_in_pgbenchs_ranges() {
        let mut r = rand::rngs::SmallRng::seed_from_u64(7);
        for _ in 0..10_000 {
            let t = Tx::random(3, &mut r);
            assert!((1..=300_000).contains(&t.aid));
            assert!((1..=3).contains(&t.bid));
            assert!((1..=30).contains(&t.tid));
            assert!((-5000..=5000).contains(&t.delta));
        }
    }

    #[test]
    fn the_invariant_catches_a_lost_update() {
        let s = |b, t, a, rows, deltas| Sums {
            branches: b,
            tellers: t,
            accounts: a,
            rows,
            deltas,
        };
        // pgbench truncated the history before: balances 10, deltas 0 to start with.
        let before = s(10, 10, 10, 0, 0);
        assert!(check_run(before, s(13, 13, 13, 2, 3), 2).is_ok());
        assert!(
            check_run(before, s(13, 12, 13, 2, 3), 2).is_err(),
            "a lost update"
        );
        assert!(
            check_run(before, s(13, 13, 13, 1, 3), 2).is_err(),
            "a lost row"
        );
        assert!(
            check_run(before, s(13, 13, 13, 2, 4), 2).is_err(),
            "a wrong delta"
        );
    }
}
