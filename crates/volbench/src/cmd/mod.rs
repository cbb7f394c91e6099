//! Subcommands: each builds workloads, calls the runner, hands reports to exporters.

pub mod clean;
pub mod cloud;
pub mod compare;
pub mod curve;
pub mod cycle;
pub mod db;
pub mod doctor;
pub mod durability;
pub mod emulate;
pub mod fsync;
pub mod history;
pub mod hostcheck;
pub mod infer;
pub mod manual;
pub mod overrides;
pub mod pts;
pub mod quick;
pub mod record;
pub mod records;
pub mod repeat;
pub mod replay;
pub mod report;
pub mod run;
pub mod serve;
pub mod storecmd;
pub mod suite;
pub mod sweep;
pub mod trace;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

pub use crate::usage::{usage, UsageError};

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
        ErrorKind::UnknownArgument => {
            let arg = ctx(ContextKind::InvalidArg).unwrap_or_default();
            // clap's guess can be far (`--slo` -> `--flow`): kept only when it is close.
            let room = if arg.trim_start_matches('-').len() <= 4 {
                1
            } else {
                2
            };
            let near = ctx(ContextKind::SuggestedArg)
                .filter(|s| strsim::damerau_levenshtein(&arg, s) <= room);
            match (near, owners_of(&arg)) {
                (Some(s), _) => format!("unknown option '{arg}' (did you mean '{s}'?)"),
                (None, owners) if !owners.is_empty() => format!(
                    "'{arg}' is an option of {}, not of this command: see its --help",
                    owners.join(", ")
                ),
                _ => format!("unknown option '{arg}': see this command's --help"),
            }
        }
        ErrorKind::MissingRequiredArgument => {
            let missing = match e.get(ContextKind::InvalidArg) {
                Some(ContextValue::Strings(v)) => v.join(", "),
                _ => String::new(),
            };
            format!("missing {missing}: see this command's --help for what it takes")
        }
        ErrorKind::InvalidSubcommand => {
            let arg = ctx(ContextKind::InvalidSubcommand).unwrap_or_default();
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
            match ctx(ContextKind::SuggestedSubcommand).or_else(nearest) {
                Some(s) => format!("unknown command '{arg}' (did you mean '{s}'?)"),
                None => format!("unknown command '{arg}': see 'volbench --help'"),
            }
        }
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

/// Set once the command's outcome is printed: a signal after that (mpirun stopping the other
/// ranks while this one finalizes) has nothing left to stop, so it says nothing.
pub static FINISHED: AtomicBool = AtomicBool::new(false);

/// What the first Ctrl-C says is happening, for commands that write no results (the
/// witness); set before [`stop_flag`].
pub static STOP_MESSAGE: OnceLock<&'static str> = OnceLock::new();

/// How soon after a Ctrl-C another is taken as the same one delivered twice (emulate forwards
/// within its 50 ms tick); a person's second Ctrl-C comes later.
const ECHO: std::time::Duration = std::time::Duration::from_millis(400);

/// The stop flag shared with the runner; the first Ctrl-C sets it (results so far are kept and
/// reported), a second one exits at once.
pub fn stop_flag() -> Arc<AtomicBool> {
    static FLAG: OnceLock<Arc<AtomicBool>> = OnceLock::new();
    FLAG.get_or_init(|| {
        let flag = Arc::new(AtomicBool::new(false));
        let f = flag.clone();
        let speaks = scaleout::world::speaks();
        let first = Arc::new(OnceLock::<std::time::Instant>::new());
        let _ = ctrlc::set_handler(move || {
            if f.swap(true, Ordering::SeqCst) {
                // One Ctrl-C can arrive twice: from the terminal to the whole process group,
                // and forwarded by `volbench emulate`, whose command this is, a tick later.
                // A second within ECHO is that one Ctrl-C, not the user's second.
                if first.get().is_some_and(|t| t.elapsed() < ECHO) {
                    return;
                }
                // Leaving at once: servers volbench started still go first.
                ::db::pg::stop_all();
                std::process::exit(130);
            }
            let _ = first.set(std::time::Instant::now());
            // mpirun passes the signal to every rank: rank 0 says it for all.
            if speaks && !FINISHED.load(Ordering::SeqCst) {
                let what = STOP_MESSAGE.get().copied().unwrap_or(
                    "finishing in-flight I/O and writing partial results (Ctrl-C again to abort)",
                );
                eprintln!("\nstopping: {what}");
            }
        });
        flag
    })
    .clone()
}
