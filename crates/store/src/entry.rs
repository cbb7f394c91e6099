//! What an entry is in either backend: the packed report, the columns listed beside it, the
//! rows `history` prints and the filters it takes.

use crate::{Result, StoreError};
use serde::Serialize;

/// What one entry holds: a run, or a suite or sweep.
pub use report::Document as Entry;

/// A stored report is zlib-compressed JSON: a sweep's reports hold each point's latency
/// histograms three times over (job, group, reporting group), which compress about tenfold.
/// Entries from older versions are plain JSON text and read as they are.
pub(crate) fn pack(e: &Entry) -> Vec<u8> {
    use std::io::Write;
    let mut v = serde_json::to_value(e).expect("reports serialize");
    // No secret reaches the store, whoever built the report.
    report::secrets::scrub_value(&mut v);
    let json = serde_json::to_vec(&v).expect("reports serialize");
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&json).expect("writing to memory");
    z.finish().expect("writing to memory")
}

/// The largest report an entry unpacks to: far above any real one (a 64-job, 100-point
/// sweep is a few tens of MB), and a bound on what a damaged or hostile store can make us
/// allocate.
const MAX_REPORT: u64 = report::read::MAX_DOCUMENT;

/// The columns a listing selects, in order (their names name a damaged one).
pub(crate) const LISTED: [&str; 15] = [
    "id",
    "uid",
    "kind",
    "started_at",
    "label",
    "suite",
    "target",
    "hostname",
    "machine",
    "kernel",
    "status",
    "iops",
    "bw_bytes",
    "points",
    "what",
];

/// The most characters of a text column a listing reads. A real label, host or target is a
/// few dozen; a writer of a team store could put megabytes in one (an attacker trial's 200
/// rows of 2 MB labels made one history page 400 MB), and every page would carry them.
pub const LISTED_TEXT_MAX: usize = 512;

/// The listing's select list: the text columns cut to [`LISTED_TEXT_MAX`] characters in the
/// query itself, so a hostile row costs the same as any other (`substr` in both backends).
pub(crate) fn listed_columns() -> String {
    let number = ["id", "iops", "bw_bytes", "points"];
    LISTED
        .iter()
        .map(|c| match number.contains(c) {
            true => c.to_string(),
            false => format!("substr({c}, 1, {LISTED_TEXT_MAX}) AS {c}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A report as a backend hands it back.
pub(crate) enum Stored {
    /// Old SQLite entries: plain JSON text.
    Text(String),
    Packed(Vec<u8>),
    /// Anything else a damaged file holds (its SQLite type's name).
    Other(&'static str),
}

pub(crate) fn unpack(id: i64, stored: Stored) -> Result<Entry> {
    Ok(unpack_with(id, stored, None)?.0)
}

/// The longest string a page shows of a stored report: far above any real one (a job
/// file's text, a command line), and a bound on what escaping can make of a hostile one (an
/// attacker trial's 8 MiB host name, 18 KB packed, made a 100 MB page; sixteen of it 1.6 GB).
pub const PAGE_STRING_MAX: usize = 16 << 10;

/// The entry and its size inflated (bytes of JSON); with `clamp`, every string longer than
/// that many bytes is cut there and says how much was left out.
pub(crate) fn unpack_with(id: i64, stored: Stored, clamp: Option<usize>) -> Result<(Entry, usize)> {
    use std::io::Read;
    let json = match stored {
        Stored::Text(t) => t.into_bytes(),
        Stored::Packed(b) => {
            let mut out = Vec::new();
            // Counted as it inflates: a hostile entry is refused at its bound in values, not
            // after all of it was inflated and parsed.
            let mut counted = Counted {
                inner: flate2::read::ZlibDecoder::new(&b[..]).take(MAX_REPORT + 1),
                census: report::read::Census::default(),
            };
            counted
                .read_to_end(&mut out)
                .map_err(|e| StoreError::Unpack(id, e.to_string()))?;
            if out.len() as u64 > MAX_REPORT {
                return Err(StoreError::Unpack(
                    id,
                    format!("larger than {} MiB", MAX_REPORT >> 20),
                ));
            }
            out
        }
        Stored::Other(t) => return Err(StoreError::Unpack(id, format!("a {t} value"))),
    };
    // Through a value, so that a result stored before secrets were taken out of reports has
    // its password scrubbed wherever it is read (history, show, export, serve, copy).
    let mut v = report::read::bounded_value(&json).map_err(|e| StoreError::Unpack(id, e))?;
    report::secrets::scrub_value(&mut v);
    if let Some(max) = clamp {
        clamp_strings(&mut v, max);
    }
    let e = serde_json::from_value(v).map_err(|e| StoreError::Corrupt(id, e))?;
    Ok((e, json.len()))
}

/// Cuts every string in `v` longer than `max` bytes at a character boundary, saying so.
fn clamp_strings(v: &mut serde_json::Value, max: usize) {
    use serde_json::Value as V;
    match v {
        V::String(t) if t.len() > max => {
            let cut = (0..=max)
                .rev()
                .find(|&i| t.is_char_boundary(i))
                .unwrap_or(0);
            let left = t.len() - cut;
            t.truncate(cut);
            t.push_str(&format!("... ({left} bytes not shown)"));
        }
        V::Array(a) => a.iter_mut().for_each(|x| clamp_strings(x, max)),
        V::Object(o) => o.values_mut().for_each(|x| clamp_strings(x, max)),
        _ => {}
    }
}

/// A reader that counts the JSON values passing through it ([`report::read::Census`]).
struct Counted<R> {
    inner: R,
    census: report::read::Census,
}

impl<R: std::io::Read> std::io::Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.census
            .feed(&buf[..n])
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))?;
        Ok(n)
    }
}

/// A fresh entry id that is unique across hosts and stores: 128 random bits, in hex.
pub fn new_uid() -> String {
    format!("{:032x}", rand::random::<u128>())
}

/// One line of `volbench history`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    pub id: i64,
    /// The entry's identity across stores (a copy keeps it).
    pub uid: String,
    pub kind: String,
    pub started_at: String,
    pub label: Option<String>,
    pub suite: Option<String>,
    pub target: String,
    pub hostname: String,
    /// The instance type or machine model from DMI ("m5.large", "Standard PC (Q35 ...)").
    pub machine: String,
    pub kernel: String,
    pub status: String,
    /// Total IOPS and bandwidth of a run with one reporting group (empty for suites, sweeps and
    /// runs of several stonewalled groups, whose sum over different workloads means nothing).
    pub iops: Option<f64>,
    pub bw_bytes: Option<f64>,
    pub points: i64,
    /// What the entry is ("randread 4k QD32", "2 groups: ...", "sweep of numjobs").
    pub what: String,
    pub tags: Vec<String>,
}

/// The kinds of entry a store holds, as `Filter::kind` names them.
pub const KINDS: [&str; 8] = [
    "run",
    "sweep",
    "curve",
    "suite",
    "fsync",
    "db",
    "infer",
    "durability",
];

/// Which rows `list` returns; empty fields match everything.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    pub label: Option<String>,
    pub target: Option<String>,
    pub suite: Option<String>,
    pub kind: Option<String>,
    /// RFC 3339 prefix bounds, e.g. "2026-11-01".
    pub since: Option<String>,
    pub until: Option<String>,
    /// The host name, exactly.
    pub host: Option<String>,
    /// A substring of the machine (instance type or model).
    pub machine: Option<String>,
    /// Only entries stored before this one (ids below it): the next page of a history
    /// shown newest first.
    pub before_id: Option<i64>,
    /// Only entries stored after this one: the page before, toward the newest.
    pub after_id: Option<i64>,
}

/// How each backend writes what the filter needs: its parameter marks (`?N` in SQLite, `$N`
/// in PostgreSQL) and its substring test, which must not read `%` and `_` as wildcards (a
/// `--target _` matches a target with an underscore, not every target).
pub(crate) struct Dialect {
    pub mark: fn(usize) -> String,
    /// `instr` (SQLite) or `strpos` (PostgreSQL): the position of the needle, 0 if absent.
    pub position: &'static str,
}

impl Filter {
    /// A `before` bound as `history --before` and serve's `?before=` take it: a result id,
    /// or a date (which bounds the date as `until` does). None: neither.
    pub fn before_bound(v: &str) -> Option<(Option<i64>, Option<String>)> {
        if let Ok(id) = v.parse::<i64>() {
            return Some((Some(id), None));
        }
        let as_until = Filter {
            until: Some(v.to_string()),
            ..Default::default()
        };
        as_until.checked().ok().map(|_| (None, Some(v.to_string())))
    }

    /// The filter with its dates read as RFC 3339 (any offset, a date alone meaning its
    /// midnight UTC) and written as the stored times are (`2026-11-28T17:39:14Z`), so that
    /// comparing the text compares the instants. A date that does not read is an error.
    pub fn checked(&self) -> Result<Filter> {
        let bound = |v: &Option<String>, name: &str| -> Result<Option<String>> {
            v.as_deref()
                .map(|d| {
                    crate::dates::utc(d)
                        .map_err(|m| StoreError::BadFilter(format!("{name} '{}': {m}", clip(d))))
                })
                .transpose()
        };
        Ok(Filter {
            since: bound(&self.since, "since")?,
            until: bound(&self.until, "until")?,
            ..self.clone()
        })
    }

    /// The filter as SQL conditions with numbered parameters, and their values in order.
    /// Every value is a parameter and every match literal.
    pub(crate) fn sql(&self, d: &Dialect) -> (String, Vec<String>) {
        let mut sql = String::new();
        let mut args: Vec<String> = Vec::new();
        let mut cond = |clause: &str, v: &Option<String>| {
            if let Some(v) = v {
                args.push(v.clone());
                let c = clause
                    .replace("POS", d.position)
                    .replace('?', &(d.mark)(args.len()));
                sql.push_str(&c);
            }
        };
        cond(" AND label = ?", &self.label);
        cond(" AND POS(target, ?) > 0", &self.target);
        cond(" AND suite = ?", &self.suite);
        cond(" AND kind = ?", &self.kind);
        cond(" AND started_at >= ?", &self.since);
        cond(" AND started_at < ?", &self.until);
        cond(" AND hostname = ?", &self.host);
        cond(" AND POS(machine, ?) > 0", &self.machine);
        let id = |v: Option<i64>| v.map(|i| i.to_string());
        // The values are text; PostgreSQL compares a bigint with a bigint only, and takes a
        // parameter cast straight to one as a bigint parameter, so the text is cast twice.
        cond(
            " AND id < CAST(CAST(? AS TEXT) AS BIGINT)",
            &id(self.before_id),
        );
        cond(
            " AND id > CAST(CAST(? AS TEXT) AS BIGINT)",
            &id(self.after_id),
        );
        (sql, args)
    }

    /// The same filter without its page bounds: what a page is counted out of.
    pub fn unpaged(&self) -> Filter {
        Filter {
            before_id: None,
            after_id: None,
            ..self.clone()
        }
    }

    /// Whether the filter picks out anything less than the whole history (what a delete
    /// by filter insists on: `delete` with no filter is not "delete everything").
    pub fn narrows(&self) -> bool {
        let Filter {
            label,
            target,
            suite,
            kind,
            since,
            until,
            host,
            machine,
            before_id,
            after_id,
        } = self;
        [label, target, suite, kind, since, until, host, machine]
            .iter()
            .any(|v| v.is_some())
            || before_id.is_some()
            || after_id.is_some()
    }

    /// The SQL that lists a page of the filter's rows, newest first, from `columns` of
    /// `table`: `limit` rows at most (all when `None`). A page after a given id takes the
    /// rows just above it, oldest of them first, so the caller reverses them.
    pub(crate) fn page_sql(
        &self,
        d: &Dialect,
        table: &str,
        columns: &str,
        limit: Option<u64>,
    ) -> (String, Vec<String>) {
        let (cond, args) = self.sql(d);
        let upward = self.after_id.is_some() && limit.is_some();
        let order = if upward { "ASC" } else { "DESC" };
        let limit = limit.map_or(String::new(), |n| format!(" LIMIT {n}"));
        (
            format!("SELECT {columns} FROM {table} WHERE 1=1{cond} ORDER BY id {order}{limit}"),
            args,
        )
    }
}

/// A page of rows as a backend read it, put newest first: a page read upward (after an id)
/// comes oldest first.
pub(crate) fn newest_first(mut rows: Vec<Row>, f: &Filter, limit: Option<u64>) -> Vec<Row> {
    if f.after_id.is_some() && limit.is_some() {
        rows.reverse();
    }
    rows
}

/// A value as an error message repeats it: short.
fn clip(s: &str) -> String {
    s.chars().take(40).collect()
}

/// The columns listed beside a report, taken from it.
#[derive(Clone, Debug, Default)]
pub struct Columns {
    pub kind: String,
    pub started_at: String,
    pub suite: Option<String>,
    pub target: String,
    pub hostname: String,
    pub machine: String,
    pub kernel: String,
    pub status: String,
    pub iops: Option<f64>,
    pub bw_bytes: Option<f64>,
    pub points: i64,
    pub what: String,
}

/// The machine as history shows it: the cloud's instance type where DMI names one, else the
/// vendor's product name ("Standard PC (Q35 + ICH9, 2009)").
fn machine_name(m: &report::machine::Machine) -> String {
    match (&m.provider, &m.instance_type) {
        (Some(p), Some(t)) => format!("{p} {t}"),
        _ => m.dmi.product_name.clone(),
    }
}

impl Columns {
    pub fn of(e: &Entry) -> Columns {
        let env = e.environment();
        let target = env
            .map(|env| {
                let t: Vec<&str> = env.targets.iter().map(|t| t.path.as_str()).collect();
                t.join(",")
            })
            .unwrap_or_default();
        let mut c = Columns {
            kind: e.kind().to_string(),
            started_at: e.started_at().to_string(),
            suite: e.suite_name().map(String::from),
            target,
            hostname: env.map(|env| env.hostname.clone()).unwrap_or_default(),
            machine: env
                .and_then(|env| env.machine.as_ref())
                .map(machine_name)
                .unwrap_or_default(),
            kernel: env.map(|env| env.kernel.clone()).unwrap_or_default(),
            status: e.status().name().to_string(),
            what: e.what(),
            ..Columns::default()
        };
        c.points = 1;
        c.figures(e);
        c
    }

    /// The rate columns and point count of each kind of document.
    fn figures(&mut self, e: &Entry) {
        match e {
            Entry::Run(r) if r.groups.len() <= 1 => {
                self.iops = Some(r.group.total_iops());
                self.bw_bytes = Some(r.group.total_bw_bytes());
            }
            Entry::Run(r) => self.points = r.groups.len() as i64,
            // Every point's targets, not the first point's: a sweep over four devices is
            // listed (and found by --target) under each of them.
            Entry::Suite(s) => {
                self.points = s.runs.len() as i64;
                let t: Vec<String> = s.targets().into_iter().map(|t| t.path).collect();
                if !t.is_empty() {
                    self.target = t.join(",");
                }
            }
            Entry::Fsync(f) => self.points = f.cases.len() as i64,
            Entry::Compare(c) => self.points = c.inputs.len() as i64,
            // A db result's targets are its runs' directories (or the server), and its rate
            // is transactions per second, kept in the rate column (history prints "tps").
            Entry::Db(d) => {
                let t: Vec<&str> = d.runs.iter().map(|r| r.target.as_str()).collect();
                self.target = t.join(",");
                self.iops = match d.runs.as_slice() {
                    [one] => Some(one.tps),
                    _ => None,
                };
                self.points = d.runs.len() as i64;
            }
            // The tested file (on another machine) and host, and one point per cycle.
            Entry::Durability(d) => {
                self.target = d.file.clone();
                self.hostname = d.tested_host.clone();
                self.points = d.cycles.len() as i64;
            }
            Entry::Infer(i) => {
                self.iops = i.limits.iops_cap;
                self.bw_bytes = i.limits.bw_cap_bytes;
                self.points = i.points.len() as i64;
            }
        }
    }
}
