//! Moving entries between stores: `store copy` (any store to any other) and `store push` (the
//! local results a PostgreSQL store could not take when they were measured). Entries are
//! matched by uid, so either can run twice and nothing is doubled.

use crate::{Location, Result, Row, Store};

/// What a copy or push did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Moved {
    /// Entries the destination did not have.
    pub added: usize,
    /// Entries it had, whose report was replaced (a push of a sweep it got only part of).
    pub replaced: usize,
    /// Entries it had already (a copy leaves them as they are).
    pub present: usize,
}

/// Copies one entry; `replace` overwrites the destination's entry of the same uid.
fn one(from: &mut Store, row: &Row, to: &mut Store, replace: bool, m: &mut Moved) -> Result<()> {
    let Some(doc) = from.get(row.id)? else {
        return Ok(()); // deleted meanwhile
    };
    match to.find_uid(&row.uid)? {
        Some(id) if replace => {
            to.update(id, &doc)?;
            m.replaced += 1;
        }
        Some(_) => m.present += 1,
        None => {
            to.insert_uid(&doc, row.label.as_deref(), &row.tags, &row.uid)?;
            m.added += 1;
        }
    }
    Ok(())
}

/// Entries a copy moves with each store open: a SQLite store is locked for as long as it is
/// open, so the stores are opened for a batch at a time and others (a run storing its
/// result, history, serve) get in between (a 100,000-result copy held both for minutes).
const BATCH: usize = 200;

/// Every entry of `from` that `to` does not have, in `from`'s order; and every entry `to` has
/// in another state (a sweep copied while it was `running`, complete since) brought up to date.
/// `progress` hears (entries done, entries in all) after each batch.
pub fn copy(
    from: &Location,
    to: &Location,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Moved> {
    let mut m = Moved::default();
    // The source is read first: a source that cannot be opened leaves no new, empty store
    // at `to` behind it.
    let rows = Store::open_at(from)?.all(&Default::default())?;
    let there: std::collections::HashMap<String, String> = Store::open_at(to)?
        .all(&Default::default())?
        .into_iter()
        .map(|r| (r.uid, r.status))
        .collect();
    for (i, batch) in rows.chunks(BATCH).enumerate() {
        {
            let (mut src, mut dst) = (Store::open_at(from)?, Store::open_at(to)?);
            for row in batch {
                let stale = there.get(&row.uid).is_some_and(|s| *s != row.status);
                one(&mut src, row, &mut dst, stale, &mut m)?;
            }
        } // Both closed: their locks go before anything else is done.
        progress(i * BATCH + batch.len(), rows.len());
    }
    Ok(m)
}

/// Sends the local store's pending entries to the store each waits for (or to `to`), and
/// clears their mark once sent. Stops at the first store that still cannot take them.
pub fn push(local: &mut Store, to: Option<&Location>) -> Result<Moved> {
    let mut m = Moved::default();
    let pending = local.pending()?;
    let rows = local.all(&Default::default())?;
    let mut open: Option<(String, Store)> = None;
    for (id, dest) in pending {
        let Some(row) = rows.iter().find(|r| r.id == id) else {
            continue;
        };
        let want = to.map_or(dest.clone(), Location::shown);
        if open.as_ref().is_none_or(|(d, _)| *d != want) {
            let loc = to.cloned().unwrap_or_else(|| Location::of_pending(&dest));
            open = Some((want, Store::open_at(&loc)?));
        }
        let (_, store) = open.as_mut().expect("opened above");
        one(local, row, store, true, &mut m)?;
        local.set_pending(id, None)?;
    }
    Ok(m)
}
