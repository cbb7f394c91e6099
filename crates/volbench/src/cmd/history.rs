//! `volbench history`, `show`, `export`, `delete`: the results store from the command line.

use crate::cli::{DeleteArgs, ExportArgs, FilterArgs, HistoryArgs, ShowArgs};
use crate::usage::usage;
use anyhow::Result;
use figures::{fmt_count, fmt_thousands};
use render::{compare::csv_field, Format};
use std::fmt::Write as _;
use std::process::ExitCode;
use store::{Filter, Row, KINDS};
use workload::format_bytes;

/// The widest a workload cell grows: a job file's several jobs would stretch every line of
/// the table past a terminal (`show ID` has the whole of it).
const WHAT_WIDTH: usize = 36;

/// A row's workload as the table shows it: a run's or sweep's several jobs cut to
/// [`WHAT_WIDTH`], their end marked; the other kinds' one-line verdicts ("3 power cuts, 2171
/// records lost (fail)") whole, since their end is what they say.
fn shown_what(r: &Row) -> String {
    match r.kind.as_str() {
        "run" | "sweep" | "curve" | "suite" => clip(&r.what, WHAT_WIDTH),
        _ => r.what.clone(),
    }
}

/// A row whose text is safe to print on a terminal: a control character anyone writing to
/// a team store put in a label or host (an escape that clears the screen or retitles it,
/// as the attacker trial of issue 64 did) is shown escaped, as `\u{1b}`.
fn printable(mut r: Row) -> Row {
    let fix = |s: &mut String| {
        if s.chars().any(char::is_control) {
            *s = s
                .chars()
                .map(|c| match c.is_control() {
                    true => c.escape_unicode().to_string(),
                    false => c.to_string(),
                })
                .collect();
        }
    };
    for s in [
        &mut r.uid,
        &mut r.kind,
        &mut r.started_at,
        &mut r.target,
        &mut r.hostname,
        &mut r.machine,
        &mut r.kernel,
        &mut r.status,
        &mut r.what,
    ] {
        fix(s);
    }
    r.label
        .iter_mut()
        .chain(r.suite.iter_mut())
        .chain(r.tags.iter_mut())
        .for_each(fix);
    r
}

/// `s` cut to `w` characters, its end marked.
fn clip(s: &str, w: usize) -> String {
    if s.chars().count() <= w {
        return s.to_string();
    }
    let mut t: String = s.chars().take(w - 1).collect();
    t.push('…');
    t
}

/// A team's history comes from several hosts: then each row names its host.
fn host_column(rows: &[Row]) -> Option<usize> {
    let first = rows.first().map(|r| r.hostname.as_str());
    rows.iter()
        .any(|r| Some(r.hostname.as_str()) != first)
        .then(|| {
            rows.iter()
                .map(|r| r.hostname.chars().count())
                .max()
                .unwrap_or(4)
                .max(4)
        })
}

fn table(rows: &[Row]) -> String {
    let w = rows
        .iter()
        .map(|r| shown_what(r).chars().count())
        .max()
        .unwrap_or(0)
        .max(8);
    let k = rows
        .iter()
        .map(|r| r.kind.chars().count())
        .max()
        .unwrap_or(0)
        .max(5);
    // Wide enough for the page's largest id (a year's history reaches six digits).
    let i = rows
        .iter()
        .map(|r| r.id.to_string().len())
        .max()
        .unwrap_or(0)
        .max(4);
    let hosts = host_column(rows);
    let host = |h: &str| hosts.map_or(String::new(), |hw| format!("{h:<hw$}  "));
    let mut out = format!(
        "{:>i$}  {:<20}  {}{:<k$}  {:<14}  {:<w$}  {:>9}  {:>12}  {}\n",
        "id",
        "started",
        host("host"),
        "kind",
        "label",
        "workload",
        "IOPS",
        "bandwidth",
        "target"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{:>i$}  {:<20}  {}{:<k$}  {:<14}  {:<w$}  {:>9}  {:>12}  {}{}{}",
            r.id,
            r.started_at,
            host(&r.hostname),
            r.kind,
            r.label.as_deref().unwrap_or("-"),
            shown_what(r),
            r.iops.map_or("-".into(), |v| if r.kind == "db" {
                format!("{} tps", fmt_count(v))
            } else {
                fmt_count(v)
            }),
            r.bw_bytes
                .map_or("-".into(), |b| format!("{}/s", format_bytes(b))),
            r.target,
            if r.status == "complete" {
                String::new()
            } else {
                format!("  [{}]", r.status)
            },
            if r.tags.is_empty() {
                String::new()
            } else {
                format!("  #{}", r.tags.join(" #"))
            },
        );
    }
    out
}

/// The history as a Markdown table.
fn markdown(rows: &[Row]) -> String {
    let mut s = String::from("| id | started | kind | label | workload | IOPS | bandwidth | target |\n|---:|---|---|---|---|---:|---:|---|\n");
    for r in rows {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            r.id,
            r.started_at,
            r.kind,
            r.label.as_deref().unwrap_or(""),
            r.what,
            r.iops.map_or(String::new(), fmt_count),
            r.bw_bytes
                .map_or(String::new(), |b| format!("{}/s", format_bytes(b))),
            r.target
        );
    }
    s
}

/// The history as CSV, every text field quoted where it must be.
fn csv(rows: &[Row]) -> String {
    let mut s = String::from(
        "id,started_at,kind,label,suite,status,iops,bw_bytes,points,target,tags,workload,host,machine\n",
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.id,
            r.started_at,
            r.kind,
            csv_field(r.label.as_deref().unwrap_or("")),
            csv_field(r.suite.as_deref().unwrap_or("")),
            r.status,
            r.iops.map_or(String::new(), |v| format!("{v:.3}")),
            r.bw_bytes.map_or(String::new(), |v| format!("{v:.1}")),
            r.points,
            csv_field(&r.target),
            csv_field(&r.tags.join(" ")),
            csv_field(&r.what),
            csv_field(&r.hostname),
            csv_field(&r.machine)
        );
    }
    s
}

/// The filter the flags name; `--before` is an id (a page boundary) or a date (as `--until`).
/// An empty value is refused: `--target ''` is a substring every target holds, and a
/// script's unset variable must not turn `delete --target "$T"` into "delete everything".
fn filter_of(a: FilterArgs) -> Result<Filter> {
    let given = [
        ("label", &a.label),
        ("target", &a.target),
        ("suite", &a.suite),
        ("kind", &a.kind),
        ("since", &a.since),
        ("until", &a.until),
        ("before", &a.before),
        ("host", &a.host),
        ("machine", &a.machine),
    ];
    if let Some((name, _)) = given
        .iter()
        .find(|(_, v)| v.as_deref().is_some_and(|v| v.trim().is_empty()))
    {
        return Err(usage(format!(
            "--{name} is empty: give a value, or leave the flag out"
        )));
    }
    if let Some(k) = a.kind.as_deref().filter(|k| !KINDS.contains(k)) {
        return Err(usage(format!(
            "--kind={}: use run, sweep, curve, suite, fsync, db, infer or durability",
            workload::shown(k)
        )));
    }
    // Read here, so a bad one is named as the flag given (the store would call it --until).
    let (before_id, before_date) = match a.before.as_deref().map(|b| (b, Filter::before_bound(b))) {
        None => (None, None),
        Some((_, Some(bound))) => bound,
        Some((b, None)) => {
            return Err(usage(format!(
                "--before {}: neither a result id nor a date (2026-11-01, or RFC 3339)",
                workload::shown(b)
            )))
        }
    };
    if before_date.is_some() && a.until.is_some() {
        return Err(usage(
            "--before DATE and --until both bound the date: give one of them",
        ));
    }
    // The store reads the dates (RFC 3339, any offset: one parser for history and serve) and
    // matches the text filters literally.
    Ok(Filter {
        label: a.label,
        target: a.target,
        suite: a.suite,
        kind: a.kind,
        since: a.since,
        until: a.until.or(before_date),
        host: a.host,
        machine: a.machine,
        before_id,
        after_id: None,
    })
}

pub fn history(a: HistoryArgs) -> Result<ExitCode> {
    let render: fn(&[Row]) -> String = match a.output_format.as_str() {
        "normal" => table,
        "json" => |rows| serde_json::to_string_pretty(rows).expect("rows serialize") + "\n",
        "md" | "markdown" => markdown,
        "csv" => csv,
        f => {
            return Err(usage(format!(
                "--output-format={f} is not a format here: use normal, json, md or csv"
            )))
        }
    };
    // A date given as --before stays a bound of the next page, which takes --before for its
    // id: the hint names it as --until (adding a second --before is refused).
    let date_before = (a.filter.before.as_deref())
        .filter(|b| b.parse::<i64>().is_err())
        .map(str::to_string);
    let f = filter_of(a.filter)?;
    let mut store = crate::inputs::open(&a.store)?;
    let limit = (!a.all).then_some(a.limit);
    let rows = store.list(&f, limit)?;
    for r in rows.iter().filter(|r| r.status.starts_with("damaged")) {
        eprintln!(
            "warning: entry #{} is {}: listed with what reads; volbench show {} says more, volbench delete {} removes it",
            r.id, r.status, r.id, r.id
        );
    }
    let shown = match a.output_format.as_str() {
        // JSON escapes control characters itself.
        "json" => render(&rows),
        _ => render(&rows.iter().cloned().map(printable).collect::<Vec<_>>()),
    };
    crate::output::stdout(shown.as_bytes())?;
    if rows.is_empty() && a.output_format == "normal" {
        // A header alone reads as a broken command (JSON's [] says it). On stderr, as the
        // page note.
        eprintln!(
            "{}",
            if f.narrows() {
                "no stored result matches these filters"
            } else {
                "no results stored yet"
            }
        );
    }
    if let (Some(n), Some(last)) = (limit, rows.last()) {
        // What the next page takes: a first page adds --before, a later one gives another.
        let next = match (&date_before, f.before_id) {
            (Some(d), _) => format!("give --until {d} --before {}", last.id),
            (None, Some(_)) => format!("give --before {}", last.id),
            (None, None) => format!("add --before {}", last.id),
        };
        page_note(&mut store, &f, n, rows.len(), last.id, &next)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Under a full page, on stderr (the listing itself stays a table, JSON or CSV): how many
/// the filters pick in all, and how to see the rest.
fn page_note(
    store: &mut store::Store,
    f: &Filter,
    limit: u64,
    shown: usize,
    last: i64,
    next: &str,
) -> Result<()> {
    if (shown as u64) < limit {
        return Ok(());
    }
    let total = store.count(&f.unpaged())?;
    // The newest page: what is older is what it does not show, with no second count (a
    // count reads every row the filter picks, the one cost that grows with the history).
    let older = match f.before_id {
        None => total.saturating_sub(shown as u64),
        Some(_) => store.count(&Filter {
            before_id: Some(last),
            ..f.clone()
        })?,
    };
    if older == 0 {
        return Ok(());
    }
    eprintln!(
        "{shown} of {} results shown, newest first; {} older: {next} for the next page, or --all",
        fmt_thousands(total),
        fmt_thousands(older)
    );
    Ok(())
}

pub fn show(a: ShowArgs) -> Result<ExitCode> {
    let format = stored_format(&a.format)?;
    let mut store = crate::inputs::open(&a.store)?;
    let (id, doc) = crate::inputs::load(&mut store, &a.id)?;
    // The heading is for a reader; a format for a program is the document alone.
    if format == Format::Normal {
        crate::output::stdout(format!("#{id} ({})\n", doc.kind()).as_bytes())?;
    }
    crate::output::stdout(&rendered(&doc, format)?)?;
    Ok(ExitCode::SUCCESS)
}

/// The format a stored result is shown or exported in (`volbench-json` is `json`).
fn stored_format(name: &str) -> Result<Format> {
    let f = if name == "volbench-json" {
        "json"
    } else {
        name
    };
    Format::parse(f).ok_or_else(|| {
        usage(format!(
            "--output-format={name} is not a format: use json, fio-json, csv, md, html or normal"
        ))
    })
}

/// A stored result in `format`; json is the stored document itself, with its kind, so
/// compare and import read it back.
fn rendered(doc: &report::Document, format: Format) -> Result<Vec<u8>> {
    if format == Format::Json {
        let mut v = serde_json::to_vec_pretty(doc)?;
        v.push(b'\n');
        return Ok(v);
    }
    render::render(doc, format)
}

pub fn export(a: ExportArgs) -> Result<ExitCode> {
    let format = stored_format(&a.format)?;
    let mut store = crate::inputs::open(&a.store)?;
    let (_, doc) = crate::inputs::load(&mut store, &a.id)?;
    let bytes = rendered(&doc, format)?;
    match &a.output {
        Some(p) => crate::output::write_named("--output", p, &bytes)?,
        None => crate::output::stdout(&bytes)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// "1 result", "100,002 results".
fn results(n: u64) -> String {
    format!(
        "{} result{}",
        fmt_thousands(n),
        if n == 1 { "" } else { "s" }
    )
}

/// The first and last stored entry a filter picks, as "#12 to #480 as stored". Ids only: a
/// history copied in is stored after what was there, so the first and last stored need not
/// be the oldest and newest measured, and their dates read as a range that was not (a trial
/// saw "#5 of 2025-12-03 to #99409 of 2026-05-31" where most ids between were kept).
fn span_of(store: &mut store::Store, f: &Filter) -> Result<String> {
    let newest = store.list(f, Some(1))?;
    // A page after id 0 is read upward: its first row is the oldest.
    let oldest = store.list(
        &Filter {
            after_id: Some(0),
            ..f.clone()
        },
        Some(1),
    )?;
    Ok(match (oldest.first(), newest.first()) {
        (Some(o), Some(n)) if o.id == n.id => format!("#{}", o.id),
        (Some(o), Some(n)) => format!("#{} to #{} as stored", o.id, n.id),
        _ => String::new(),
    })
}

pub fn delete(a: DeleteArgs) -> Result<ExitCode> {
    let f = filter_of(a.filter)?;
    let Some(what) = a.id else {
        if !f.narrows() {
            return Err(usage("delete needs a result id, or filters saying which results go (--before DATE, --label ...; try --dry-run first)"));
        }
        return delete_where(&mut crate::inputs::open(&a.store)?, f, a.dry_run);
    };
    // An id with filters would delete the one result whatever the filters say (a trial's
    // `delete 3 --label alpha` removed #3, labelled otherwise).
    if f.narrows() {
        return Err(usage(format!(
            "delete takes an id or filters, not both: give {what} alone, or the filters alone (try --dry-run first)"
        )));
    }
    if a.dry_run {
        return Err(usage(
            "--dry-run is for a delete by filter: volbench show ID says what one result is",
        ));
    }
    let mut store = crate::inputs::open(&a.store)?;
    let id = crate::inputs::resolve(&mut store, &what)?;
    if !store.delete(id)? {
        return Err(usage(format!(
            "no stored result #{id}: see volbench history"
        )));
    }
    crate::output::stdout(format!("deleted #{id}\n").as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

/// Deletes what the filter picks, or (a dry run) says what that would be: how many, the
/// oldest and newest of them, and the store's size before and after.
fn delete_where(store: &mut store::Store, f: Filter, dry_run: bool) -> Result<ExitCode> {
    let n = store.count(&f)?;
    if n == 0 {
        crate::output::stdout(b"no stored result matches: nothing to delete\n")?;
        return Ok(ExitCode::SUCCESS);
    }
    let span = span_of(store, &f)?;
    if dry_run {
        let text = format!(
            "would delete {} ({span}); nothing deleted (run again without --dry-run)\n",
            results(n)
        );
        crate::output::stdout(text.as_bytes())?;
        return Ok(ExitCode::SUCCESS);
    }
    let before = store.size();
    let gone = store.delete_where(&f)?;
    let freed = match (before, store.size()) {
        (Some(b), Some(a)) if b > a => format!(
            "; {} given back to the file system",
            format_bytes((b - a) as f64)
        ),
        _ => String::new(),
    };
    let text = format!("deleted {} ({span}){freed}\n", results(gone));
    crate::output::stdout(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: i64) -> Row {
        Row {
            id,
            uid: String::new(),
            kind: "run".into(),
            started_at: "2026-12-03T12:30:29Z".into(),
            label: Some("l".into()),
            suite: None,
            target: "/t".into(),
            hostname: "h".into(),
            machine: String::new(),
            kernel: String::new(),
            status: "complete".into(),
            iops: Some(1.0),
            bw_bytes: Some(1.0),
            points: 1,
            what: "randread 4k QD1".into(),
            tags: Vec::new(),
        }
    }

    /// Each row's columns start where the header's do, ids of six digits as of one.
    #[test]
    fn control_characters_are_shown_escaped_not_sent() {
        let mut r = row(7);
        r.label = Some("\u{1b}]0;pwned\u{7}\u{1b}[2J".into());
        r.tags = vec!["\u{1b}[31mt".into()];
        r.hostname = "h\rost".into();
        let out = table(&[printable(r)]);
        assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{out:?}");
        assert!(out.contains("\\u{1b}]0;pwned"), "{out}");
    }

    #[test]
    fn the_columns_line_up_under_the_header_at_any_id() {
        let text = table(&[row(123_456), row(7)]);
        let starts = |l: &str| l.find("2026").or_else(|| l.find("started")).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines.iter().all(|l| starts(l) == starts(lines[0])),
            "{text}"
        );
    }
}
