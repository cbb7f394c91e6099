//! Secrets given on the command line (issue 63): a password in a connection string
//! (`--store postgresql://team:PW@db/vb`, `?pass%77ord=PW`, `password=PW`) or a `--token T` is
//! visible to every user of the machine in /proc/PID/cmdline and `ps` for as long as the
//! process runs. Once volbench holds its own copy of the arguments, [`hide_secrets`] says so
//! in one warning line per kind, naming the way that keeps the secret off the command line,
//! and overwrites the secret bytes in the process's argv with `x` where the platform lets it.
//!
//! Which bytes are secret is report::secrets' rule (the same that scrubs stored results), so
//! what the argv shows and what a result keeps agree. The overwrite keeps every argument's
//! length: the kernel shows the argv region as it was laid out at exec.

/// Warns about, then hides, the secrets of this process's command line. Call it once, early
/// in `main` (before other threads start: they might read argv while it is written), after
/// the arguments have been copied out of argv.
pub fn hide_secrets() {
    let args: Vec<String> = std::env::args_os()
        .map(|a| a.into_string().unwrap_or_default())
        .collect();
    let found = report::secrets::in_command_line(&args);
    for line in warnings(&args, &found) {
        eprintln!("warning: {line}");
    }
    for f in &found {
        imp::overwrite(f.arg, &args[f.arg], &f.spans);
    }
}

/// One line per kind of secret found: a connection string's password, a token where the
/// command has a way to give it otherwise (the others are hidden without a word: there is
/// nothing else to tell the user to do).
fn warnings(args: &[String], found: &[report::secrets::Found]) -> Vec<String> {
    let visible = format!(
        "is visible to other users in /proc/{}/cmdline {}",
        std::process::id(),
        if imp::CAN_HIDE {
            "until volbench overwrites it at start, and stays in your shell's history"
        } else {
            "while volbench runs, and stays in your shell's history"
        }
    );
    let words = crate::cli::subcommand_first(args.to_vec());
    let mut out = Vec::new();
    if found.iter().any(|f| !f.token) {
        // `db` reads PGPASSWORD as libpq does, but no password file.
        let instead = match words.get(1).map(String::as_str) {
            Some("db") => "PGPASSWORD",
            _ => "PGPASSWORD or ~/.pgpass (mode 0600)",
        };
        out.push(format!(
            "a password on the command line {visible}: give it in {instead} instead"
        ));
    }
    if let (Some(instead), true) = (token_instead(&words), found.iter().any(|f| f.token)) {
        out.push(format!("--token on the command line {visible}: {instead}"));
    }
    out
}

/// How the command (its words, subcommand first) takes a token off the command line, if it
/// has a way.
fn token_instead(words: &[String]) -> Option<&'static str> {
    match (
        words.get(1).map(String::as_str),
        words.get(2).map(String::as_str),
    ) {
        (Some("serve"), _) => Some("put it in a file only you can read and give --token-file FILE"),
        (Some("durability"), Some("serve")) => {
            Some("leave --token out: the witness keeps the token it makes in its journal")
        }
        _ => None,
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod imp {
    use std::ffi::{c_char, c_int, CStr};
    use std::ops::Range;
    use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

    pub const CAN_HIDE: bool = true;

    static ARGC: AtomicUsize = AtomicUsize::new(0);
    static ARGV: AtomicPtr<*mut c_char> = AtomicPtr::new(std::ptr::null_mut());

    /// glibc calls each function of `.init_array` with (argc, argv, envp) before `main`, as
    /// for std's own copy: the one way to the argv array itself (std gives copies only).
    #[used]
    #[link_section = ".init_array"]
    static SAVE_ARGV: extern "C" fn(c_int, *mut *mut c_char, *mut *mut c_char) = save_argv;

    extern "C" fn save_argv(argc: c_int, argv: *mut *mut c_char, _envp: *mut *mut c_char) {
        ARGC.store(usize::try_from(argc).unwrap_or(0), Ordering::Relaxed);
        ARGV.store(argv, Ordering::Relaxed);
    }

    /// Overwrites the `spans` of argument `i` with `x`, if it still reads `want` (so nothing
    /// is written where the argv is not what std read). Returns whether it did.
    pub fn overwrite(i: usize, want: &str, spans: &[Range<usize>]) -> bool {
        let argv = ARGV.load(Ordering::Relaxed);
        if argv.is_null() || i >= ARGC.load(Ordering::Relaxed) {
            return false;
        }
        // SAFETY: glibc passed argv as an array of argc pointers (checked above: i < argc),
        // each to a NUL-terminated string the kernel laid out on the initial stack; they
        // stay valid and writable for the life of the process. The writes stay inside the
        // string (each span ends at most at its length, checked against `want`, which has the
        // same bytes), and the caller runs before other threads could read argv.
        unsafe {
            let p = *argv.add(i);
            if p.is_null() || CStr::from_ptr(p).to_bytes() != want.as_bytes() {
                return false;
            }
            for r in spans.iter().filter(|r| r.end <= want.len()) {
                for j in r.clone() {
                    *p.add(j) = b'x' as c_char;
                }
            }
        }
        true
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
mod imp {
    /// Elsewhere the argv is not reached (musl does not pass it to `.init_array`; other
    /// systems keep it apart): the warning says the secret stays visible.
    pub const CAN_HIDE: bool = false;

    pub fn overwrite(_i: usize, _want: &str, _spans: &[std::ops::Range<usize>]) -> bool {
        false
    }
}
