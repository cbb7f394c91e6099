//! Bad input on the command line, told apart from failures: every part of the binary (the
//! subcommands, the output, the MPI rank layout) returns it, and main turns it into exit
//! code 2 with one line. Also how any error is said (one line) and how clap's own are.

use clap::error::{ContextKind, ContextValue, ErrorKind};
use std::process::ExitCode;

/// Bad input on the command line: exit code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for UsageError {}

pub fn usage(msg: impl Into<String>) -> anyhow::Error {
    anyhow::Error::new(UsageError(msg.into()))
}

/// A launch the MPI layer refused is a usage error; anything else stays as it is.
pub fn refused_if(r: anyhow::Result<()>) -> anyhow::Result<()> {
    r.map_err(|e| match e.downcast::<scaleout::world::Refused>() {
        Ok(refused) => usage(refused.0),
        Err(e) => e,
    })
}

/// An error chain as one line: the outermost message, then causes not already in it.
pub fn one_line(e: &anyhow::Error) -> String {
    let mut out = e.to_string();
    for cause in e.chain().skip(1) {
        let c = cause.to_string();
        if !out.contains(&c) {
            out.push_str(": ");
            out.push_str(&c);
        }
    }
    // Control characters from any source (a path, an OS message) never reach the terminal raw.
    out.chars()
        .map(|c| if c == '\n' { ' ' } else { c })
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

/// Prints clap's verdict as one `error:` line with a "did you mean" where clap has one.
pub fn usage_error(e: clap::Error) -> ExitCode {
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        _ => {}
    }
    let ctx = |k| match e.get(k) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        Some(ContextValue::Strings(v)) => v.first().cloned(),
        _ => None,
    };
    let msg = match e.kind() {
        ErrorKind::UnknownArgument => unknown_option(
            ctx(ContextKind::InvalidArg).unwrap_or_default(),
            ctx(ContextKind::SuggestedArg),
        ),
        ErrorKind::MissingRequiredArgument => {
            let missing = match e.get(ContextKind::InvalidArg) {
                Some(ContextValue::Strings(v)) => v.join(", "),
                _ => String::new(),
            };
            format!("missing {missing}: see this command's --help for what it takes")
        }
        ErrorKind::InvalidSubcommand => unknown_command(
            ctx(ContextKind::InvalidSubcommand).unwrap_or_default(),
            ctx(ContextKind::SuggestedSubcommand),
        ),
        _ => {
            // clap's own text, first line only, without its "error: " prefix.
            let s = e.to_string();
            s.lines()
                .next()
                .unwrap_or("")
                .trim_start_matches("error: ")
                .to_string()
        }
    };
    eprintln!("error: {msg}");
    ExitCode::from(2)
}

/// An unknown option, with clap's guess where it is close (`--slo` -> `--flow` is not), else
/// the commands that do have it.
fn unknown_option(arg: String, suggested: Option<String>) -> String {
    let room = if arg.trim_start_matches('-').len() <= 4 {
        1
    } else {
        2
    };
    let near = suggested.filter(|s| strsim::damerau_levenshtein(&arg, s) <= room);
    match (near, owners_of(&arg)) {
        (Some(s), _) => format!("unknown option '{arg}' (did you mean '{s}'?)"),
        (None, owners) if !owners.is_empty() => format!(
            "'{arg}' is an option of {}, not of this command: see its --help",
            owners.join(", ")
        ),
        _ => format!("unknown option '{arg}': see this command's --help"),
    }
}

/// An unknown command, with clap's guess or the nearest command's name.
fn unknown_command(arg: String, suggested: Option<String>) -> String {
    let nearest = || {
        use clap::CommandFactory;
        crate::cli::Cli::command()
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .map(|n| (strsim::damerau_levenshtein(&arg, &n), n))
            .filter(|(d, _)| *d <= 2)
            .min()
            .map(|(_, n)| n)
    };
    match suggested.or_else(nearest) {
        Some(s) => format!("unknown command '{arg}' (did you mean '{s}'?)"),
        None => format!("unknown command '{arg}': see 'volbench --help'"),
    }
}

/// The commands (`volbench curve`, `volbench cloud cheapest`) that have the option `arg`.
fn owners_of(arg: &str) -> Vec<String> {
    use clap::CommandFactory;
    let Some(long) = arg.split('=').next().and_then(|a| a.strip_prefix("--")) else {
        return Vec::new();
    };
    let has = |c: &clap::Command| c.get_arguments().any(|a| a.get_long() == Some(long));
    let mut out = Vec::new();
    for c in crate::cli::Cli::command().get_subcommands() {
        if has(c) {
            out.push(format!("volbench {}", c.get_name()));
        }
        for sub in c.get_subcommands().filter(|s| has(s)) {
            out.push(format!("volbench {} {}", c.get_name(), sub.get_name()));
        }
    }
    out
}
