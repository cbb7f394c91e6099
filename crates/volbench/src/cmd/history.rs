//! `volbench history`, `show`, `export`, `delete`: the results store from the command line.

use crate::cli::{DeleteArgs, ExportArgs, HistoryArgs, ShowArgs};
use crate::usage::usage;
use anyhow::Result;
use figures::fmt_count;
use render::{compare::csv_field, Format};
use std::fmt::Write as _;
use std::process::ExitCode;
use store::{Filter, Row};
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
    let hosts = host_column(rows);
    let host = |h: &str| hosts.map_or(String::new(), |hw| format!("{h:<hw$}  "));
    let mut out = format!(
        "{:>4}  {:<20}  {}{:<k$}  {:<14}  {:<w$}  {:>9}  {:>12}  {}\n",
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
            "{:>4}  {:<20}  {}{:<k$}  {:<14}  {:<w$}  {:>9}  {:>12}  {}{}{}",
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
        "id,started_at,kind,label,suite,status,iops,bw_bytes,points,target,tags,workload\n",
    );
    for r in rows {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{}",
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
            csv_field(&r.what)
        );
    }
    s
}

/// The kinds of entry `--kind` filters by.
const KINDS: [&str; 8] = [
    "run",
    "sweep",
    "curve",
    "suite",
    "fsync",
    "db",
    "infer",
    "durability",
];

pub fn history(a: HistoryArgs) -> Result<ExitCode> {
    if let Some(k) = a.kind.as_deref().filter(|k| !KINDS.contains(k)) {
        return Err(usage(format!(
            "--kind={}: use run, sweep, curve, suite, fsync, db, infer or durability",
            workload::shown(k)
        )));
    }
    let mut store = crate::inputs::open(&a.store)?;
    // The store reads the dates (RFC 3339, any offset: one parser for history and serve) and
    // matches the text filters literally.
    let rows = store.list(&Filter {
        label: a.label,
        target: a.target,
        suite: a.suite,
        kind: a.kind,
        since: a.since,
        until: a.until,
        host: a.host,
        machine: a.machine,
    })?;
    for r in rows.iter().filter(|r| r.status.starts_with("damaged")) {
        eprintln!(
            "warning: entry #{} is {}: listed with what reads; volbench show {} says more, volbench delete {} removes it",
            r.id, r.status, r.id, r.id
        );
    }
    let text = match a.output_format.as_str() {
        "normal" => table(&rows),
        "json" => serde_json::to_string_pretty(&rows)? + "\n",
        "md" | "markdown" => markdown(&rows),
        "csv" => csv(&rows),
        f => {
            return Err(usage(format!(
                "--output-format={f} is not a format here: use normal, json, md or csv"
            )))
        }
    };
    crate::output::stdout(text.as_bytes())?;
    Ok(ExitCode::SUCCESS)
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

pub fn delete(a: DeleteArgs) -> Result<ExitCode> {
    let mut store = crate::inputs::open(&a.store)?;
    let id = crate::inputs::resolve(&mut store, &a.id)?;
    if !store.delete(id)? {
        return Err(usage(format!(
            "no stored result #{id}: see volbench history"
        )));
    }
    crate::output::stdout(format!("deleted #{id}\n").as_bytes())?;
    Ok(ExitCode::SUCCESS)
}
