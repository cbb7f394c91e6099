//! Where results go: the chosen format to stdout or a file opened before the run, warnings to
//! stderr, and progress: a bar on a terminal, plain lines every few seconds elsewhere (a log, CI).

use crate::cli::OutputArgs;
use crate::usage::usage;
use anyhow::{Context, Result};
use figures::fmt_count;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use render::{render, Format};
use report::{Document, RunReport, Status};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use workload::format_bytes;

pub struct Output {
    pub format: Format,
    file: Option<Dest>,
    pub quiet: bool,
    /// A rank other than 0 under MPI: rank 0 writes the merged report, this one nothing.
    silent: bool,
    /// No progress, the summary still shown (fio's --eta=never).
    pub no_progress: bool,
}

/// Where `--output` goes: a regular file is replaced atomically (a temporary file in the same
/// directory, then rename), so a kill or Ctrl-C never leaves it empty or half written; a
/// character device (/dev/null, /dev/stdout, /dev/full) is written as it is.
enum Dest {
    File(PathBuf),
    Device(PathBuf),
}

impl Dest {
    /// Checks the path before a long run: its directory exists and takes a new file, and it
    /// is nothing that would block (a FIFO) or cannot hold a report (a directory).
    fn check(p: &Path) -> Result<Dest> {
        use std::os::unix::fs::FileTypeExt;
        if let Ok(m) = std::fs::metadata(p) {
            let t = m.file_type();
            if t.is_char_device() {
                return Ok(Dest::Device(p.to_path_buf()));
            }
            if !t.is_file() {
                let what = if t.is_dir() {
                    "a directory"
                } else if t.is_fifo() {
                    "a FIFO"
                } else {
                    "not a regular file"
                };
                return Err(usage(format!(
                    "--output {} is {what}: give a file path, or - for stdout",
                    p.display()
                )));
            }
        }
        // A link at the name or on the way, said before the run; where another user could
        // have put one there is no probe by path (it could be made through a link swapped
        // in): the report is written in the directory held, and the open will tell.
        outfile::Opener::log("--output")
            .check(p)
            .map_err(|r| usage(r.0))?;
        let dir = parent_dir(p);
        if dir.is_dir() && outfile::planted_by_others(dir).is_some() {
            return Ok(Dest::File(p.to_path_buf()));
        }
        tempfile::NamedTempFile::new_in(dir).map_err(|e| {
            usage(format!(
                "cannot write --output {}: {e}; check that {} exists and is writable",
                p.display(),
                dir.display()
            ))
        })?;
        Ok(Dest::File(p.to_path_buf()))
    }

    fn write(&self, bytes: &[u8]) -> Result<()> {
        match self {
            Dest::Device(p) => std::fs::OpenOptions::new()
                .write(true)
                .open(p)
                .and_then(|mut f| f.write_all(bytes).and_then(|_| f.flush()))
                .with_context(|| format!("writing {}", p.display())),
            Dest::File(p) => replace_file(p, bytes),
        }
    }
}

/// Replaces the file `p` with `bytes` atomically (a temporary file in the same directory,
/// synced, then renamed), so a kill never leaves it empty or half written.
pub fn replace_file(p: &Path, bytes: &[u8]) -> Result<()> {
    // Where another user could have put a name on the way, a rename by path could land
    // anywhere a link there points: written in place instead, in the directory held.
    if outfile::planted_by_others(parent_dir(p)).is_some() {
        return write_named("--output", p, bytes);
    }
    let mut t = tempfile::NamedTempFile::new_in(parent_dir(p))
        .with_context(|| format!("writing {}", p.display()))?;
    t.write_all(bytes)
        .and_then(|_| t.as_file().set_permissions(report_mode(p)))
        .and_then(|_| t.as_file().sync_data())
        .with_context(|| format!("writing {}", p.display()))?;
    t.persist(p)
        .map_err(|e| e.error)
        .with_context(|| format!("writing {}", p.display()))?;
    Ok(())
}

/// The mode the report gets: the replaced file's own, else what a plain create would give
/// (0666 less the umask), not the temporary file's private 0600.
fn report_mode(p: &Path) -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(m) = std::fs::metadata(p) {
        return m.permissions();
    }
    // SAFETY: umask only swaps the process's file-creation mask; it is put back at once.
    let mask = unsafe {
        let m = libc::umask(0o022);
        libc::umask(m);
        m
    };
    std::fs::Permissions::from_mode(0o666 & !(mask as u32))
}

fn parent_dir(p: &Path) -> &Path {
    p.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Writes `bytes` to a file a user named (`what` is the option, for a refusal), by the rules
/// for user-named files: no device, no link another user could have planted.
pub fn write_named(what: &str, p: &Path, bytes: &[u8]) -> Result<()> {
    let mut f = outfile::Opener::log(what)
        .open(p)
        .map_err(|e| crate::usage::usage(e.to_string()))?;
    f.write_all(bytes)
        .with_context(|| format!("writing {}", p.display()))
}

/// Writes to stdout. A reader that went away (`volbench run | head -1`) is not a failure of
/// the run: what it did not read is dropped, and the run still ends with its own status.
pub fn stdout(bytes: &[u8]) -> Result<()> {
    let mut o = std::io::stdout().lock();
    match o.write_all(bytes).and_then(|_| o.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        r => Ok(r?),
    }
}

impl Output {
    /// Checks the format and opens the output file now, so a bad path fails before a long run.
    /// `fio_input`: the workload came from fio's job file or command line, so plain `json`
    /// means fio's shape.
    pub fn open(a: &OutputArgs, fio_input: bool) -> Result<Output> {
        let name = match a.output_format.as_str() {
            "json" if fio_input => "fio-json",
            "volbench-json" => "json",
            other => other,
        };
        let format = Format::parse(name).ok_or_else(|| {
            usage(format!(
                "--output-format={} is not a format: use normal, json, volbench-json, fio-json, json+, csv, md or html",
                a.output_format
            ))
        })?;
        let silent = !scaleout::world::is_root();
        let file = match &a.output {
            Some(p) if p.as_os_str() != "-" && !silent => Some(Dest::check(p)?),
            _ => None,
        };
        Ok(Output {
            format,
            file,
            quiet: a.quiet || silent,
            silent,
            no_progress: false,
        })
    }

    pub fn progress(&self) -> Bar {
        let live_view = crate::live::VIEW_ON.load(std::sync::atomic::Ordering::Relaxed);
        Bar::new(if self.quiet || self.no_progress || live_view {
            Show::Hidden
        } else if std::io::stderr().is_terminal() {
            Show::Bar(drawn_bar())
        } else {
            Show::Lines(Lines::new())
        })
    }

    /// Writes a whole document to the output file (replacing what it held: a sweep writes it
    /// again after every point) or to stdout.
    pub fn write(&mut self, bytes: &[u8]) -> Result<()> {
        if self.silent {
            return Ok(());
        }
        match &self.file {
            Some(d) => d.write(bytes),
            None if !self.quiet || self.format != Format::Normal => stdout(bytes),
            None => Ok(()),
        }
    }

    /// Saves the document so far to the output file, if there is one (never to stdout).
    pub fn checkpoint(&mut self, d: &Document) -> Result<()> {
        if self.file.is_some() {
            let bytes = render(d, self.format)?;
            self.write(&bytes)?;
        }
        Ok(())
    }

    /// True when the human summary (with its warnings) is not shown on stdout, so warnings
    /// need stderr. With --output the summary still goes to stdout unless --quiet, so each
    /// warning is printed once, there.
    fn summary_elsewhere(&self) -> bool {
        self.quiet || (self.file.is_none() && self.format != Format::Normal)
    }

    /// Writes a run's, suite's or sweep's final document, shows the summary at the terminal
    /// when the document went to a file, sends warnings and errors to stderr when the summary
    /// is not on stdout, and picks the exit code from the status.
    pub fn emit(&mut self, d: &Document) -> Result<ExitCode> {
        if self.silent {
            return Ok(exit_code(d.status()));
        }
        let bytes = render(d, self.format)?;
        self.write(&bytes)?;
        if self.file.is_some() && !self.quiet {
            // The file has the machine format; the person at the terminal still gets the summary.
            stdout(&render(d, Format::Normal)?)?;
        }
        if self.summary_elsewhere() {
            let runs: Vec<&RunReport> = match d {
                Document::Run(r) => vec![r],
                Document::Suite(s) => s.runs.iter().map(|x| &x.report).collect(),
                _ => Vec::new(),
            };
            let (mut warnings, mut errors): (Vec<&str>, Vec<&str>) = (Vec::new(), Vec::new());
            for r in &runs {
                warnings.extend(r.warnings.iter().map(|w| w.message.as_str()));
                errors.extend(r.error.as_deref());
            }
            if let Document::Fsync(f) = d {
                warnings.extend(f.warnings.iter().map(|w| w.message.as_str()));
                errors.extend(f.error.as_deref());
            }
            if let Document::Db(x) = d {
                warnings.extend(x.warnings.iter().map(|w| w.message.as_str()));
                errors.extend(x.error.as_deref());
            }
            if let Document::Infer(x) = d {
                warnings.extend(x.warnings.iter().map(|w| w.message.as_str()));
                errors.extend(x.error.as_deref());
            }
            if let Document::Durability(x) = d {
                warnings.extend(x.warnings.iter().map(|w| w.message.as_str()));
                errors.extend(x.error.as_deref());
            }
            let mut said: Vec<&str> = Vec::new();
            for w in warnings {
                if !said.contains(&w) {
                    said.push(w);
                    eprintln!("warning: {w}");
                }
            }
            for e in errors {
                eprintln!("error: {e}");
            }
        }
        Ok(exit_code(d.status()))
    }
}

fn exit_code(s: Status) -> ExitCode {
    match s {
        Status::Complete => ExitCode::SUCCESS,
        Status::Partial => ExitCode::from(1),
        Status::Interrupted => ExitCode::from(130),
        Status::Running => ExitCode::from(1),
    }
}

/// The progress bar: elapsed, remaining, live IOPS and bandwidth. Off a terminal, the same as
/// a line on stderr every few seconds once a step has lasted two, so a log shows that a long
/// layout or run is alive and short runs print nothing extra.
pub struct Bar {
    show: Show,
    prefix: String,
    /// The bar last showed a layout: the run's clock starts afresh at its first tick.
    laying_out: bool,
}

/// How progress is shown: not at all (--quiet), as a bar on a terminal, or as lines.
enum Show {
    Hidden,
    Bar(ProgressBar),
    Lines(Lines),
}

/// When the next progress line is due, off a terminal.
struct Lines {
    start: std::time::Instant,
    last: Option<std::time::Instant>,
}

impl Lines {
    const QUIET_START: std::time::Duration = std::time::Duration::from_secs(2);
    const EVERY: std::time::Duration = std::time::Duration::from_secs(5);

    fn new() -> Lines {
        Lines {
            start: std::time::Instant::now(),
            last: None,
        }
    }

    fn due(&mut self) -> bool {
        let now = std::time::Instant::now();
        let due = now - self.start >= Self::QUIET_START
            && self.last.is_none_or(|l| now - l >= Self::EVERY);
        if due {
            self.last = Some(now);
        }
        due
    }
}

/// A path cut to its last `max` characters ("...t/dir/file.test") so the bar stays on one line.
fn short_path(p: &Path, max: usize) -> String {
    let s = p.display().to_string();
    let n = s.chars().count();
    if n <= max {
        return s;
    }
    let tail: String = s.chars().skip(n - (max - 3)).collect();
    format!("...{tail}")
}

/// indicatif's bar on stderr, in volbench's style.
fn drawn_bar() -> ProgressBar {
    let b = ProgressBar::with_draw_target(Some(1000), ProgressDrawTarget::stderr());
    b.set_style(
        ProgressStyle::with_template(
            "{prefix}[{elapsed_precise}] {wide_bar:.cyan/blue} {percent:>3}% eta {eta} {msg}",
        )
        .expect("valid template")
        .progress_chars("=> "),
    );
    b
}

impl Bar {
    fn new(show: Show) -> Bar {
        Bar {
            show,
            prefix: String::new(),
            laying_out: false,
        }
    }

    pub fn set_prefix(&mut self, p: impl Into<String>) {
        self.prefix = p.into();
        match &mut self.show {
            Show::Hidden => {}
            Show::Lines(l) => *l = Lines::new(),
            Show::Bar(b) => {
                b.set_prefix(self.prefix.clone());
                b.reset();
            }
        }
    }
}

impl runner::Observer for Bar {
    fn layout(&mut self, path: &Path, done: u64, total: u64) {
        let fresh = !std::mem::replace(&mut self.laying_out, true);
        let of = || {
            format!(
                "{} of {}",
                format_bytes(done as f64),
                format_bytes(total as f64)
            )
        };
        match &mut self.show {
            Show::Hidden => {}
            Show::Lines(l) => {
                if fresh {
                    *l = Lines::new();
                }
                if l.due() {
                    eprintln!(
                        "{}laying out {}: {} ({}%)",
                        self.prefix,
                        path.display(),
                        of(),
                        done * 100 / total.max(1)
                    );
                }
            }
            Show::Bar(b) => {
                b.set_position(done * 1000 / total.max(1));
                b.set_message(format!("laying out {} ({})", short_path(path, 30), of()));
            }
        }
    }

    fn tick(&mut self, p: &runner::Progress) {
        let fresh = std::mem::take(&mut self.laying_out);
        match &mut self.show {
            Show::Hidden => {}
            Show::Lines(l) => {
                if fresh {
                    *l = Lines::new();
                }
                // Not in a run's first second: its rate is a few I/Os over a few ms (a
                // curve's point read "0 s of 3 s: 3485 IOPS" under a 3,000 cap).
                if p.elapsed >= std::time::Duration::from_secs(1) && l.due() {
                    eprintln!("{}{}: {}", self.prefix, clock_text(p), rate_text(p));
                }
            }
            Show::Bar(b) => {
                if fresh {
                    // The elapsed time and ETA are the run's, not the layout's.
                    b.reset_elapsed();
                    b.reset_eta();
                }
                let frac = match (p.planned, p.fraction) {
                    (_, Some(f)) => f,
                    (Some(t), None) => p.elapsed.as_secs_f64() / t.as_secs_f64().max(1e-9),
                    _ => 0.0,
                };
                b.set_position((frac.min(1.0) * 1000.0) as u64);
                b.set_message(rate_text(p));
                b.tick();
            }
        }
    }

    fn finish(&mut self) {
        if let Show::Bar(b) = &self.show {
            b.finish_and_clear();
        }
    }
}

/// The live rate, as the bar and the progress lines both show it.
fn rate_text(p: &runner::Progress) -> String {
    if let Some(d) = p.draining {
        format!(
            "waiting {} for the I/Os still in flight (not counted)",
            figures::fmt_secs(d.as_secs_f64())
        )
    } else if p.ramping {
        "ramping up".to_string()
    } else {
        format!("{} IOPS {}/s", fmt_count(p.iops), format_bytes(p.bw_bytes))
    }
}

/// Where a run is, for a progress line off a terminal: "12 s of 30 s", "3 s, 40% done,
/// about 5 s left" (a size-based run's remaining time at its pace so far, as the bar's eta).
fn clock_text(p: &runner::Progress) -> String {
    let at = p.elapsed.as_secs_f64();
    // The clock is the run's, ramp included, as on every other line ("5 s measured" sat
    // beside a summary of 3 s measured after a 2 s ramp).
    if let Some(d) = p.draining {
        return match p.planned {
            Some(t) => format!("{0:.0} s of {0:.0} s", t.as_secs_f64()),
            None => format!("{:.0} s", (at - d.as_secs_f64()).max(0.0)),
        };
    }
    match (p.planned, p.fraction) {
        // Past its plan (a slow start, the last I/Os): "4 s of 3 s" read as a broken clock.
        (Some(t), _) if at > t.as_secs_f64() + 0.5 => {
            format!(
                "{:.0} s of {:.0} s, finishing",
                t.as_secs_f64(),
                t.as_secs_f64()
            )
        }
        (Some(t), _) => format!("{at:.0} s of {:.0} s", t.as_secs_f64()),
        (None, Some(f)) if f > 0.0 && f < 1.0 => format!(
            "{at:.0} s, {:.0}% done, about {} left",
            f * 100.0,
            figures::fmt_secs(at * (1.0 - f) / f)
        ),
        (None, Some(f)) => format!("{at:.0} s, {:.0}% done", f * 100.0),
        _ => format!("{at:.0} s"),
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        runner::Observer::finish(self);
    }
}

#[cfg(test)]
mod tests {
    use super::{clock_text, rate_text};
    use std::time::Duration;

    /// While a run drains after a ramp, its clock is the run's (ramp included), as on every
    /// line before it, and the line does not call the ramp measured.
    #[test]
    fn a_drain_after_a_ramp_is_not_called_measured() {
        let p = runner::Progress {
            elapsed: Duration::from_secs(7),
            planned: Some(Duration::from_secs(5)),
            fraction: None,
            ios: 10,
            bytes: 40960,
            iops: 0.0,
            bw_bytes: 0.0,
            ramping: false,
            draining: Some(Duration::from_secs(2)),
        };
        let line = format!("{}: {}", clock_text(&p), rate_text(&p));
        assert_eq!(
            line,
            "5 s of 5 s: waiting 2 s for the I/Os still in flight (not counted)"
        );
    }
}
