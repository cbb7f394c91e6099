//! fio or volbench, run the same way: the comparison tests hand one job to either tool and
//! read back what both write (fio-JSON), or what both asked of the kernel (strace).

use super::{fio_json, ok_json, strace, test_store, volbench};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// The peer or volbench (`volbench run -q --no-store`: nothing reaches a results store).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    Fio,
    Volbench,
}

impl Tool {
    /// fio first, as the reference each volbench figure is compared with.
    pub const BOTH: [Tool; 2] = [Tool::Fio, Tool::Volbench];

    /// The program and the arguments before a job's: `fio`, or `volbench run -q --no-store`.
    pub fn argv(self) -> Vec<String> {
        match self {
            Tool::Fio => vec!["fio".into()],
            Tool::Volbench => {
                let vb = assert_cmd::cargo::cargo_bin("volbench");
                let run = ["run", "-q", "--no-store"].map(String::from);
                [vec![vb.display().to_string()], run.to_vec()].concat()
            }
        }
    }

    /// The option that makes the tool write fio-JSON.
    pub fn json_flag(self) -> &'static str {
        match self {
            Tool::Fio => "--output-format=json",
            Tool::Volbench => "--output-format=fio-json",
        }
    }

    /// The tool as a command run in `dir`, keeping to the tests' store.
    pub fn command_in(self, dir: &Path) -> Command {
        let mut c = self.command();
        c.current_dir(dir);
        c
    }

    /// The tool as a command, keeping to the tests' store.
    pub fn command(self) -> Command {
        let argv = self.argv();
        let mut c = Command::new(&argv[0]);
        c.args(&argv[1..]).env("VOLBENCH_STORE", test_store());
        c
    }

    /// The tool run on `args` (and volbench on `extra` after them): its output, whatever it is.
    pub fn run<S: AsRef<std::ffi::OsStr>>(self, args: &[S], extra: &[&str]) -> Output {
        let mut c = self.command();
        c.args(args);
        if self == Tool::Volbench {
            c.args(extra);
        }
        c.output().unwrap()
    }

    /// The tool run on `args`: whether it succeeded, its stdout, and stdout then stderr (fio
    /// prints a job's error on stdout, volbench on stderr: the message is in the last).
    pub fn outcome(self, args: &[&str]) -> (bool, String, String) {
        let out = self.run(args, &[]);
        let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        let (o, e) = (text(&out.stdout), text(&out.stderr));
        (out.status.success(), o.clone(), o + &e)
    }

    /// The tool's fio-JSON for `args`; the run must succeed.
    pub fn fio_json(self, args: &[&str]) -> Value {
        match self {
            Tool::Fio => fio_json(Command::new("fio").args(args)),
            Tool::Volbench => ok_json(
                volbench()
                    .arg("run")
                    .args(args)
                    .args(["--output-format=fio-json", "--no-store"]),
            ),
        }
    }

    /// Every job of the tool's fio-JSON for `args` (fio may print notes, such as cpuio's
    /// line, before the JSON); the run must succeed.
    pub fn jobs(self, args: &[&str]) -> Vec<Value> {
        let (ok, out, err) = self.outcome(&[args, &[self.json_flag()]].concat());
        assert!(ok, "{self}: {err}");
        let v: Value = serde_json::from_str(&out[out.find("{\n").expect("JSON")..]).unwrap();
        v["jobs"].as_array().unwrap().clone()
    }

    /// `job` run by the tool under strace in `dir` (`opts`: strace's filters), writing
    /// fio-JSON to stdout with `json`: strace's log and the tool's stdout.
    pub fn strace(self, dir: &Path, opts: &[&str], job: &[&str], json: bool) -> (String, String) {
        let argv = self.argv();
        let mut cmd: Vec<&str> = argv.iter().map(String::as_str).collect();
        if json {
            cmd.push(self.json_flag());
        }
        cmd.extend(job);
        strace(dir, opts, &cmd)
    }
}

impl std::fmt::Display for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(match self {
            Tool::Fio => "fio",
            Tool::Volbench => "volbench",
        })
    }
}
