//! The option reference of docs/fio-compatibility.md, generated from the option table so that
//! the docs cannot drift from what the parser does (a test compares the two).

use super::table::names::NAME;
use super::table::{all, Category, FioOption, Kind, Support};
use crate::spec::JobSpec;

/// Where the generated part starts and ends in the document.
pub const BEGIN: &str = "<!-- BEGIN generated from the fio option table: edit crates/workload/src/fio/table, then run `VOLBENCH_BLESS=1 cargo test -p workload --test option_table` -->";
pub const END: &str = "<!-- END generated from the fio option table -->";

/// The generated part, markers included.
pub fn markdown() -> String {
    let mut out = vec![BEGIN.to_string(), String::new()];
    for c in Category::ALL {
        let rows: Vec<&FioOption> = all()
            .filter(|o| o.category == c && o.support == Support::Yes)
            .collect();
        if rows.is_empty() {
            continue;
        }
        out.push(format!("### {}\n", c.title()));
        out.push(
            "| option | value | fio's default | `volbench run`'s default | what it does |".into(),
        );
        out.push("|---|---|---|---|---|".into());
        out.extend(rows.into_iter().map(row));
        out.push(String::new());
    }
    out.push(lists());
    out.push(END.to_string());
    out.join("\n")
}

fn row(o: &FioOption) -> String {
    let names = std::iter::once(o.name)
        .chain(o.aliases.iter().copied())
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let value = match o.kind {
        Kind::Flag => "flag".to_string(),
        Kind::Int { min, max } if max < 1 << 20 => format!("{min} to {max}"),
        Kind::Int { .. } => "number".into(),
        Kind::Size => "size".into(),
        Kind::Time => "time".into(),
        Kind::Choice(words) => words.join(" \\| "),
        Kind::Text => "text".into(),
    };
    let (fio, ours) = if o.name == NAME {
        ("the section's".to_string(), "`volbench`".to_string())
    } else {
        (
            default(o, &JobSpec::fio_default("job")),
            default(o, &JobSpec::default()),
        )
    };
    let what = if o.details.is_empty() {
        o.help.to_string()
    } else {
        format!("{}: {}", o.help, o.details)
    };
    format!(
        "| {names} | {value} | {fio} | {ours} | {} |",
        what.replace('|', "\\|")
    )
}

fn default(o: &FioOption, j: &JobSpec) -> String {
    match o.shown_in(j) {
        _ if o.show.is_none() => String::new(),
        Some(v) if v == "on" && o.kind == Kind::Flag => v,
        Some(v) => format!("`{v}`"),
        None if o.kind == Kind::Flag => "off".into(),
        None => "unset".into(),
    }
}

/// The options accepted with a note, skipped, or refused.
fn lists() -> String {
    let names = |s: fn(&Support) -> bool| -> Vec<String> {
        all()
            .filter(|o| s(&o.support))
            .map(|o| {
                let mut n = format!("`{}`", o.name);
                for a in o.aliases {
                    n.push_str(&format!("/`{a}`"));
                }
                n
            })
            .collect()
    };
    let noted: Vec<String> = all()
        .filter_map(|o| match o.support {
            Support::Note(n) => Some(format!("- `{}`: {n}", o.name)),
            _ => None,
        })
        .collect();
    let refused: Vec<String> = all()
        .filter(|o| o.support == Support::No)
        .map(|o| format!("- `{}`: {}", o.name, o.details))
        .collect();
    format!(
        "**Accepted with a note** (they change how fio measures or submits, not the I/O \
         volbench does; a warning says what they mean here):\n\n{}\n\n\
         **Parsed and skipped, with a warning** (they shape logs and reports volbench does not \
         produce, never the I/O, so a job file keeps them as written; `--ignore-unsupported` is \
         accepted and changes nothing): {}.\n\n\
         **Not supported** (an error names the option, the file and line, says why and what \
         to do instead; none of these can be skipped, because each changes the I/O):\n\n{}\n\n\
         The table holds {} options: every one of fio 3.33's (`fio --cmdhelp=all`) and \
         volbench's own, so a real fio option is never called unknown. A \
         name that is no option at all gets \"did you mean\".\n",
        noted.join("\n"),
        names(|s| *s == Support::Ignored).join(", "),
        refused.join("\n"),
        all().count()
    )
}

/// The document with its generated part replaced by `markdown()`; `None` when the markers are
/// missing.
pub fn refresh(doc: &str) -> Option<String> {
    let a = doc.find(BEGIN)?;
    let b = doc[a..].find(END)? + a + END.len();
    Some(format!("{}{}{}", &doc[..a], markdown(), &doc[b..]))
}
