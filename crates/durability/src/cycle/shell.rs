//! The loop's commands: shell text run with `sh -c` in a process group of its own, so the
//! terminal's Ctrl-C reaches only volbench (which decides what to stop: a power cut half
//! done is worse than one finished), and a timeout kills the command with everything it
//! started. Output is kept bounded: stdout up to [`MAX_STDOUT`], stderr's last lines.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The most stdout kept (a verify's or fsync's JSON is far smaller).
pub const MAX_STDOUT: usize = 16 << 20;
/// The tail of stderr kept, for the one line an error quotes.
const STDERR_TAIL: usize = 8 << 10;

/// An argument as the shell reads it back unchanged: bare when it holds only safe
/// characters, else in single quotes.
pub fn quote(s: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "@%+=:,./_-".contains(c);
    if !s.is_empty() && s.chars().all(safe) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// A command line as shell text: each argument quoted.
pub fn join(args: &[String]) -> String {
    args.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" ")
}

/// A command started from shell text.
pub struct Running {
    child: Child,
    out: Option<JoinHandle<Vec<u8>>>,
    /// The thread keeping stderr's tail, and the tail once it has ended.
    err: Option<JoinHandle<Vec<u8>>>,
    err_tail: Vec<u8>,
}

/// How waiting for a command ended.
pub enum Ended {
    Exited(ExitStatus),
    TimedOut,
    /// The stop flag was set (Ctrl-C); the command still runs.
    Stopped,
}

pub fn spawn(text: &str) -> std::io::Result<Running> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(text)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()?;
    let mut stdout = child.stdout.take().expect("piped");
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = stdout.by_ref().take(MAX_STDOUT as u64).read_to_end(&mut v);
        // Drain the rest so the command never blocks on a full pipe.
        let _ = std::io::copy(&mut stdout, &mut std::io::sink());
        v
    });
    let mut stderr = child.stderr.take().expect("piped");
    let err = std::thread::spawn(move || {
        let (mut tail, mut buf) = (Vec::new(), [0u8; 4096]);
        while let Ok(n) = stderr.read(&mut buf) {
            if n == 0 {
                break;
            }
            tail.extend_from_slice(&buf[..n]);
            tail.drain(..tail.len().saturating_sub(STDERR_TAIL));
        }
        tail
    });
    Ok(Running {
        child,
        out: Some(out),
        err: Some(err),
        err_tail: Vec::new(),
    })
}

impl Running {
    /// Waits until the command exits, `limit` passes, or `stop` is set.
    pub fn wait(&mut self, limit: Duration, stop: Option<&AtomicBool>) -> Ended {
        let until = Instant::now() + limit;
        loop {
            match self.child.try_wait() {
                Ok(Some(s)) => return Ended::Exited(s),
                Ok(None) => {}
                Err(_) => return Ended::TimedOut,
            }
            if stop.is_some_and(|s| s.load(Relaxed)) {
                return Ended::Stopped;
            }
            if Instant::now() >= until {
                return Ended::TimedOut;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Whether it still runs.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// SIGKILL to the command's whole process group, then reaps it.
    pub fn kill(&mut self) {
        let pgid = self.child.id() as i32;
        // SAFETY: kill(2) with a negative pid signals the group the child leads.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
        let _ = self.child.wait();
    }

    /// Everything it wrote to stdout (up to [`MAX_STDOUT`]), once it has exited.
    pub fn stdout(&mut self) -> Vec<u8> {
        self.out
            .take()
            .and_then(|h| h.join().ok())
            .unwrap_or_default()
    }

    /// The last line it wrote to stderr that is not empty, or "" (once it has exited).
    pub fn last_error_line(&mut self) -> String {
        if let Some(h) = self.err.take() {
            self.err_tail = h.join().unwrap_or_default();
        }
        String::from_utf8_lossy(&self.err_tail)
            .lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("")
            .to_string()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.running() {
            self.kill();
        }
    }
}

/// Runs `text` to its end within `limit`: Ok(stdout) on exit 0; else one line saying how it
/// failed (its exit status and last stderr line, or the timeout, after which it is killed).
/// Not stopped by Ctrl-C: the steps that must finish use this.
pub fn run(text: &str, limit: Duration) -> Result<Vec<u8>, String> {
    let mut r = spawn(text).map_err(|e| format!("cannot start `sh -c`: {e}"))?;
    match r.wait(limit, None) {
        Ended::Exited(s) if s.success() => Ok(r.stdout()),
        Ended::Exited(s) => Err(failed(&mut r, s)),
        Ended::TimedOut | Ended::Stopped => {
            r.kill();
            Err(format!("did not finish in {} s", limit.as_secs()))
        }
    }
}

/// "exited 2: <its last stderr line>".
pub fn failed(r: &mut Running, s: ExitStatus) -> String {
    let how = match s.code() {
        Some(c) => format!("exited {c}"),
        None => "was killed".to_string(),
    };
    match r.last_error_line() {
        l if l.is_empty() => how,
        l => format!("{how}: {l}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_arguments_come_back_unchanged_through_the_shell() {
        let args: Vec<String> = ["plain", "a b", "it's", "$HOME", "", "x;rm -rf /", "-n"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let text = format!("printf '%s\\n' {}", join(&args));
        let out = run(&text, Duration::from_secs(10)).unwrap();
        let got: Vec<&str> = std::str::from_utf8(&out).unwrap().lines().collect();
        assert_eq!(got, args);
    }

    #[test]
    fn a_failing_command_is_named_by_its_status_and_last_error_line() {
        let e = run(
            "echo first >&2; echo 'the cause' >&2; exit 7",
            Duration::from_secs(10),
        )
        .unwrap_err();
        assert_eq!(e, "exited 7: the cause");
    }

    #[test]
    fn a_command_past_its_time_is_killed_with_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let text = format!("sleep 60 & echo $! > {}; wait", pidfile.display());
        let e = run(&text, Duration::from_millis(500)).unwrap_err();
        assert!(e.contains("did not finish"), "{e}");
        let pid: i32 = std::fs::read_to_string(&pidfile)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // The grandchild went with the group (it may linger as a zombie for a moment).
        let gone = (0..100).any(|_| {
            let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let dead = state.is_empty() || state.split_whitespace().nth(2) == Some("Z");
            if !dead {
                std::thread::sleep(Duration::from_millis(20));
            }
            dead
        });
        assert!(gone, "sleep {pid} outlived its killed group");
    }
}
