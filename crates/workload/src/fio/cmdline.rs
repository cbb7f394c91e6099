//! fio's command line: `--key=value`, `--key value` where the option takes a value, and bare
//! `--flag`s, read by the same option table as job files. Two forms: options mixed with the
//! program's own flags (`volbench run --bs=8k --output=x.json`), and fio's multi-job form where
//! each `--name` starts a job (`fio --name=a --rw=read --name=b ...`).

use super::table::{self, apply, find};
use super::OptError;
use crate::jobfile::{RawOption, Section};
use crate::spec::{JobSpec, SyncMode};

/// An option as given on a command line: its key (lower case, without `--`) and value.
pub type Given = (String, Option<String>);

/// Splits arguments into the program's own (kept, for its parser) and fio options. `own` says
/// whether a key is one of the program's flags; a word that is neither stays too, for the
/// program's parser to reject with its "did you mean".
pub fn split(args: Vec<String>, own: &dyn Fn(&str) -> bool) -> (Vec<String>, Vec<Given>) {
    let mut keep = Vec::new();
    let mut fio = Vec::new();
    let mut it = args.into_iter().peekable();
    while let Some(a) = it.next() {
        let Some(body) = a.strip_prefix("--").filter(|b| !b.is_empty()) else {
            keep.push(a);
            continue;
        };
        let (key, inline) = match body.split_once('=') {
            Some((k, v)) => (k.to_string(), Some(v.to_string())),
            None => (body.to_string(), None),
        };
        let Some(opt) = find(&key).filter(|_| !own(&key)) else {
            keep.push(a);
            continue;
        };
        let value = match inline {
            Some(v) => Some(v),
            None if opt.takes_value() && it.peek().is_some_and(|n| !n.starts_with("--")) => {
                it.next()
            }
            None => None,
        };
        fio.push((key.to_ascii_lowercase(), value));
    }
    (keep, fio)
}

/// What volbench does with one of fio's command-line-only options (not a job option).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CliOnly {
    /// volbench has the same flag (`--output`, `--output-format`, `--parse-only`, ...).
    Same,
    /// Changes nothing here (progress and terse-output settings): named in one note.
    Ignored,
    /// fio's client/server, triggers and self-tests: volbench has none.
    Refused,
}

/// fio 3.33's command-line-only options (its `l_opts`), whether each takes a value, and
/// what volbench does with it.
fn cli_only(name: &str) -> Option<(CliOnly, bool)> {
    use CliOnly::*;
    Some(match name {
        "output" | "output-format" => (Same, true),
        "parse-only" | "showcmd" | "readonly" | "version" | "help" => (Same, false),
        "eta" | "section" | "status-interval" => (Same, true),
        "eta-interval" | "eta-newline" | "latency-log" | "bandwidth-log" => (Ignored, true),
        "debug" | "alloc-size" | "max-jobs" | "aux-path" | "inflate-log" => (Ignored, true),
        "minimal" | "append-terse" | "warnings-fatal" | "terse-version" => (Ignored, false),
        "idle-prof"
        | "server"
        | "client"
        | "remote-config"
        | "trigger"
        | "trigger-file"
        | "trigger-timeout"
        | "trigger-remote"
        | "merge-blktrace-only"
        | "cmdhelp"
        | "enghelp" => (Refused, true),
        "server-internal" | "daemonize" | "cpuclock-test" | "crctest" | "memcpytest" => {
            (Refused, false)
        }
        _ => return None,
    })
}

/// A pasted fio command line, as volbench reads it: fio parses its arguments with
/// `getopt_long_only`, so `-filename=/dev/sdb -iodepth 1 -thread` is fio's own form; each
/// single-dash word naming a fio option (or one of fio's command-line options) becomes its
/// `--` form. fio's command-line-only options volbench has (`--output`, `--eta=never`,
/// `--readonly`, `--section`) stay; those that change nothing here are dropped and named in
/// the returned note; fio's client/server and self-tests are refused in one line.
pub fn fio_argv(args: Vec<String>) -> Result<(Vec<String>, Option<String>), String> {
    let args = expand_profile(args)?;
    let mut out = Vec::with_capacity(args.len());
    let mut ignored: Vec<String> = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        let long = match a.strip_prefix('-') {
            Some(b) if !b.starts_with('-') && b.len() > 1 && known(b) => format!("-{a}"),
            _ => a,
        };
        let Some(body) = long.strip_prefix("--") else {
            out.push(long);
            continue;
        };
        let key = body.split_once('=').map_or(body, |(k, _)| k).to_string();
        let Some((what, takes)) = cli_only(&key) else {
            out.push(long);
            continue;
        };
        let value = match (body.contains('='), takes) {
            (false, true) => it.next(),
            _ => None,
        };
        match what {
            CliOnly::Same => out.extend(std::iter::once(long).chain(value)),
            CliOnly::Ignored => ignored.push(format!("--{key}")),
            CliOnly::Refused => {
                return Err(format!(
                    "--{key} is fio's own (its client/server, triggers or self-tests): volbench \
                     runs the jobs itself; drop it"
                ))
            }
        }
    }
    let note = (!ignored.is_empty()).then(|| {
        format!(
            "fio's {} change nothing in volbench (it shows its own progress and reports), so \
             they are ignored",
            ignored.join(", ")
        )
    });
    Ok((out, note))
}

/// The key and inline value of a `-key=value` or `--key=value` word.
fn split_word(a: &str) -> Option<(&str, Option<&str>)> {
    let body = a.strip_prefix("--").or_else(|| a.strip_prefix('-'))?;
    Some(match body.split_once('=') {
        Some((k, v)) => (k, Some(v)),
        None => (body, None),
    })
}

/// fio's built-in profiles, `--profile=tiobench` and `--profile=act`, as the jobs fio's
/// profiles write, with each profile's options after it (see [`tiobench`] and [`act`]). The
/// other arguments stay, as `[global]` options.
fn expand_profile(args: Vec<String>) -> Result<Vec<String>, String> {
    let Some(at) = args
        .iter()
        .position(|a| split_word(a).is_some_and(|(k, _)| k == "profile"))
    else {
        return Ok(args);
    };
    let mut it = args.into_iter();
    let mut out: Vec<String> = it.by_ref().take(at).collect();
    let word = it.next().unwrap_or_default();
    let name = match split_word(&word).and_then(|(_, v)| v) {
        Some(v) => v.to_string(),
        None => it.next().unwrap_or_default(),
    };
    let keys: &[&str] = match name.as_str() {
        "tiobench" => &["size", "block", "numruns", "dir", "threads"],
        "act" => &[
            "device-names",
            "load",
            "test-duration",
            "threads-per-queue",
            "read-req-num-512-blocks",
            "large-block-op-kbytes",
            "prep",
        ],
        n => {
            return Err(format!(
                "--profile={n}: fio's profiles are tiobench and act"
            ))
        }
    };
    let mut given: std::collections::HashMap<String, String> = Default::default();
    let mut rest = Vec::new();
    while let Some(a) = it.next() {
        match split_word(&a) {
            // act's `prep` is a bare flag; the others take a value.
            Some(("prep", v)) if name == "act" => {
                given.insert("prep".into(), v.unwrap_or("1").into());
            }
            Some((k, v)) if keys.contains(&k) => {
                let v = match v {
                    Some(v) => v.to_string(),
                    None => it.next().unwrap_or_default(),
                };
                given.insert(k.to_string(), v);
            }
            _ => rest.push(a),
        }
    }
    out.extend(rest);
    out.extend(match name.as_str() {
        "act" => act(&given)?,
        _ => tiobench(&given)?,
    });
    Ok(out)
}

/// The tiotest/tiobench benchmark as fio's profile writes it: four jobs (sequential and
/// random writes, then reads, stonewalled) over four files, with its options `size` (MiB;
/// fio's default is 4 KiB per MiB of memory), `block`, `numruns`, `dir` and `threads`, as
/// fio's HOWTO gives them (fio 3.33 ignores them: a bug of its profile).
fn tiobench(tb: &std::collections::HashMap<String, String>) -> Result<Vec<String>, String> {
    let num = |k: &str, d: u64| -> Result<u64, String> {
        tb.get(k).map_or(Ok(d), |v| {
            v.trim()
                .parse()
                .map_err(|_| format!("--{k}={v}: the tiobench profile takes a number"))
        })
    };
    // SAFETY: sysconf reads two system constants.
    let mem_mib = unsafe {
        libc::sysconf(libc::_SC_PHYS_PAGES) as u64 * libc::sysconf(libc::_SC_PAGESIZE) as u64
    } >> 20;
    let size = match num("size", 0)? {
        0 => 4 * 1024 * mem_mib,
        mib => mib << 20,
    };
    let dir = tb.get("dir").cloned().unwrap_or_else(|| "./".into());
    let mut v: Vec<String> = vec![
        "--buffered=0".into(),
        format!("--size={size}"),
        format!("--bs={}", num("block", 4096)?),
        format!("--loops={}", num("numruns", 1)?),
        format!("--directory={dir}"),
        format!("--numjobs={}", num("threads", 1)?),
    ];
    for o in [
        "--timeout=600",
        "--group_reporting",
        "--thread",
        "--overwrite=1",
        "--filename=.fio.tio.1:.fio.tio.2:.fio.tio.3:.fio.tio.4",
        "--ioengine=sync",
        "--name=seqwrite",
        "--rw=write",
        "--end_fsync=1",
        "--name=randwrite",
        "--stonewall",
        "--rw=randwrite",
        "--end_fsync=1",
        "--name=seqread",
        "--stonewall",
        "--rw=read",
        "--name=randread",
        "--stonewall",
        "--rw=randread",
    ] {
        v.push(o.into());
    }
    Ok(v)
}

/// Aerospike's ACT (its certification of flash for a database) as fio's act profile writes
/// it: per device of `device-names`, `threads-per-queue` reading threads at 2,000 reads/s
/// times `load` in all, of `read-req-num-512-blocks` sectors, and one writer of
/// `large-block-op-kbytes` (taken as bytes, as fio's profile does) at fio's matching rate,
/// for `test-duration` seconds; with `prep`, the device zeroed then salted with random 4 KiB
/// writes instead. fio also prints ACT's hourly verdict (the share of reads over 1, 8 and 64
/// ms); volbench's report gives the reads' latency percentiles instead.
fn act(o: &std::collections::HashMap<String, String>) -> Result<Vec<String>, String> {
    let num = |k: &str, d: u64| -> Result<u64, String> {
        o.get(k).map_or(Ok(d), |v| {
            v.trim()
                .parse()
                .map_err(|_| format!("--{k}={v}: the act profile takes a number"))
        })
    };
    let devs = o.get("device-names").filter(|d| !d.is_empty()).ok_or(
        "act: give the devices to test with --device-names=DEV[,DEV...], as fio's act profile asks",
    )?;
    let rates = ActRates {
        load: num("load", 1)?,
        threads: num("threads-per-queue", 8)?.max(1),
        blocks: num("read-req-num-512-blocks", 3)?.max(1),
        wsize: num("large-block-op-kbytes", 131072)?,
    };
    let secs = crate::units::parse_duration(o.get("test-duration").map_or("24h", String::as_str))
        .map_err(|e| format!("--test-duration: {e}"))?
        .as_secs();
    let mut v: Vec<String> = ["--direct=1", "--ioengine=sync", "--random_generator=lfsr"]
        .into_iter()
        .chain(["--group_reporting=1", "--thread"])
        .map(String::from)
        .collect();
    let prep = o.get("prep").is_some_and(|p| p != "0");
    if !prep {
        v.extend([format!("--runtime={secs}s"), "--time_based=1".into()]);
    }
    for dev in devs.split(',').filter(|d| !d.is_empty()) {
        v.extend(if prep { act_prep(dev) } else { rates.jobs(dev) });
    }
    Ok(v)
}

/// ACT's load on one device: `threads` readers of `blocks` sectors at 2,000 reads/s times
/// `load` in all, one writer of `wsize` bytes at fio's matching rate.
struct ActRates {
    load: u64,
    threads: u64,
    blocks: u64,
    wsize: u64,
}

impl ActRates {
    fn jobs(&self, dev: &str) -> Vec<String> {
        let rsize = (self.wsize / (self.blocks * 512)).max(1);
        vec![
            format!("--name=act-read-{dev}"),
            format!("--filename={dev}"),
            "--rw=randread".into(),
            format!("--numjobs={}", self.threads),
            format!("--rate_iops={}", self.load * 2000 / self.threads),
            format!("--bs={}", self.blocks * 512),
            format!("--name=act-write-{dev}"),
            format!("--filename={dev}"),
            "--rw=randwrite".into(),
            format!("--rate_iops={}", (self.load * 1000).div_ceil(rsize)),
            format!("--bs={}", self.wsize),
        ]
    }
}

/// ACT's prep of one device: zeroed in 1 MiB writes, then salted with random 4 KiB writes.
fn act_prep(dev: &str) -> Vec<String> {
    let f = format!("--filename={dev}");
    vec![
        format!("--name=act-prep-zeroes-{dev}"),
        f.clone(),
        "--bs=1048576".into(),
        "--zero_buffers".into(),
        "--rw=write".into(),
        format!("--name=act-prep-salt-{dev}"),
        "--stonewall".into(),
        f,
        "--bs=4096".into(),
        "--ioengine=libaio".into(),
        "--iodepth=64".into(),
        "--rw=randwrite".into(),
    ]
}

/// A word after a single dash that fio would read as a long option.
fn known(word: &str) -> bool {
    let key = word.split_once('=').map_or(word, |(k, _)| k);
    find(key).is_some() || cli_only(key).is_some()
}

/// Whether the arguments are fio's multi-job form: some `--name` starts a job.
pub fn starts_jobs(args: &[String]) -> bool {
    let flag = format!("--{}", table::names::NAME);
    args.iter()
        .any(|a| *a == flag || a.starts_with(&format!("{flag}=")))
}

/// The program's flags found among fio's multi-job arguments, with their values.
pub type Own = Vec<Given>;

/// fio's multi-job command line as job-file sections: options before the first `--name` are
/// `[global]`, each `--name` starts a job, and every option means what it means in a job file.
/// `own` names the program's flags (`Some(true)` when one takes a value), which are returned
/// apart. An error is one line naming the argument.
pub fn sections(
    args: &[String],
    own: &dyn Fn(&str) -> Option<bool>,
) -> Result<(Vec<Section>, Own), String> {
    let mut sections = vec![section("global", 0)];
    let mut mine = Vec::new();
    let mut it = args.iter().enumerate();
    while let Some((pos, arg)) = it.next() {
        let Some(body) = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')) else {
            return Err(format!(
                "'{arg}': fio's multi-job command line takes only --option=value arguments"
            ));
        };
        let (key, inline) = match body.split_once('=') {
            Some((k, v)) => (k, Some(v.to_string())),
            None => (body, None),
        };
        let mut value = |needed: bool| match inline.clone() {
            Some(v) => Ok(Some(v)),
            None if needed => it
                .next()
                .map(|(_, v)| Some(v.clone()))
                .ok_or_else(|| format!("--{key} needs a value")),
            None => Ok(None),
        };
        if let Some(takes) = own(key) {
            mine.push((key.to_string(), value(takes)?));
        } else if find(key).is_some_and(|o| o.name == table::names::NAME) {
            let name = value(true)?.unwrap_or_default();
            sections.push(section(&name, pos + 1));
        } else {
            // fio's getopt_long_only takes an option's value after a space too (`-iodepth 1`).
            let takes = find(key).is_some_and(|o| o.takes_value());
            let value = value(takes)?;
            if let Some(last) = sections.last_mut() {
                last.options.push(RawOption {
                    key: key.to_ascii_lowercase(),
                    value,
                    file: "command line argument".into(),
                    line: pos + 1,
                });
            }
        }
    }
    Ok((sections, mine))
}

fn section(name: &str, line: usize) -> Section {
    Section {
        name: name.into(),
        options: Vec::new(),
        file: "command line".into(),
        line,
    }
}

/// Options given on a command line as a `[global]` section: with a job file, fio's rule makes
/// them defaults for every job of the file, which the file's own options override.
pub fn as_global(given: &[Given]) -> Section {
    Section {
        options: given
            .iter()
            .map(|(key, value)| RawOption {
                key: key.clone(),
                value: value.clone(),
                file: "command line".into(),
                line: 0,
            })
            .collect(),
        ..section("global", 0)
    }
}

/// An option error in command-line spelling (`--bs=4x: ...`).
pub fn cli_text(e: OptError) -> String {
    match e {
        OptError::BadValue { key, value, why } => format!("--{key}={value}: {why}"),
        OptError::MissingValue { key, example } => {
            format!("--{key} needs a value, e.g. --{key}={example}")
        }
        other => other.to_string(),
    }
}

/// volbench's single-job command line (`volbench run --rw=randwrite ...`): volbench's defaults
/// (time-based 30 s, QD32, io_uring, O_DIRECT), then every option given, in order. fio's rule is
/// "time-based only if asked"; here a run is time-based unless only a size is given, since a
/// bare `--size` means "do this much I/O once", as a fio user expects. The error is one line.
/// The notes the options given on volbench's own command line earn (an engine run as
/// another, an option accepted with a caveat), as a job file's options earn them.
pub fn notes(given: &[Given]) -> Vec<String> {
    given
        .iter()
        .filter_map(|(k, v)| table::note(k, v.as_deref()))
        .collect()
}

pub fn single_job(given: &[Given]) -> Result<JobSpec, String> {
    let mut j = JobSpec::default();
    let mut sync: Option<SyncMode> = None;
    for (k, v) in given {
        apply(&mut j, k, v.as_deref()).map_err(cli_text)?;
        // Two sync options (fsync and fdatasync) would each want every N writes synced their
        // way: volbench issues one kind per job.
        if j.sync.sync_every > 0 {
            if sync.is_some_and(|m| m != j.sync.sync_mode) {
                return Err("--fsync and --fdatasync exclude each other: pick one".into());
            }
            sync = Some(j.sync.sync_mode);
        }
    }
    let given_as = |name: &str| given.iter().any(|(k, _)| super::canonical(k) == name);
    let runtime = given_as(table::names::RUNTIME);
    if !given_as(table::names::TIME_BASED) {
        j.time_based = runtime || j.size.is_none();
    }
    if !j.time_based && !runtime {
        j.runtime = None;
    }
    j.settle_sizes();
    j.validate().map_err(|e| e.to_string())?;
    Ok(j)
}

/// The note for command-line options a job file overrides (fio's rule: the command line's
/// options are defaults for every job, which the file's own override), naming each once with
/// where the file sets it; `None` when the file overrides none. `volbench run job.fio
/// --runtime=3s --size=128m` laid out 10 GiB and aimed for 900 s without a word.
pub fn overridden(given: &[Given], sections: &[Section]) -> Option<String> {
    let mut said: Vec<String> = Vec::new();
    for (key, value) in given {
        let name = super::canonical(key);
        let Some(o) = sections
            .iter()
            .flat_map(|s| &s.options)
            .find(|o| super::canonical(&o.key) == name)
        else {
            continue;
        };
        let shown = |k: &str, v: &Option<String>| match v {
            Some(v) => format!("{k}={v}"),
            None => k.to_string(),
        };
        if o.value != *value && !said.iter().any(|s| s.starts_with(&format!("--{key}"))) {
            said.push(format!(
                "--{} by {} ({})",
                shown(key, value),
                shown(&o.key, &o.value),
                o.at()
            ));
        }
    }
    (!said.is_empty()).then(|| {
        format!(
            "the job file overrides {}: as in fio, the command line gives every job its defaults and the file's own options win; change them in the file",
            said.join(", ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn split_takes_fio_options_and_leaves_the_rest() {
        let own = |k: &str| k == "output";
        let (keep, fio) = split(
            words("--bs 8k --output x.json --norandommap --blocksiz=4k job.fio --direct=0"),
            &own,
        );
        assert_eq!(keep, words("--output x.json --blocksiz=4k job.fio"));
        // An option whose value may be left out (a log's prefix, a noted option) never takes
        // the job file after it as its value.
        for opt in [
            "--write_bw_log",
            "--refill_buffers",
            "--sync",
            "--description",
        ] {
            let (keep, fio) = split(words(&format!("{opt} job.fio")), &own);
            assert_eq!((keep, fio.len()), (words("job.fio"), 1), "{opt}");
        }
        assert_eq!(
            fio,
            vec![
                ("bs".into(), Some("8k".into())),
                ("norandommap".into(), None),
                ("direct".into(), Some("0".into()))
            ]
        );
    }

    #[test]
    fn each_name_starts_a_job_and_own_flags_come_back_apart() {
        let own = |k: &str| (k == "output").then_some(true);
        let (s, mine) = sections(
            &words("--direct=1 --name=a --rw=read --output o.json --name b --bs=8k"),
            &own,
        )
        .unwrap();
        let names: Vec<&str> = s.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["global", "a", "b"]);
        assert_eq!(s[0].options[0].key, "direct");
        assert_eq!((s[1].options.len(), s[2].options.len()), (1, 1));
        assert_eq!(mine, vec![("output".into(), Some("o.json".into()))]);
        assert!(sections(&words("--name=a stray"), &own)
            .unwrap_err()
            .contains("'stray'"));
        assert!(starts_jobs(&words("run --name=a")) && !starts_jobs(&words("run --bs=4k")));
    }

    fn given(s: &str) -> Vec<Given> {
        split(words(s), &|_| false).1
    }

    #[test]
    fn the_single_job_form_is_time_based_unless_only_a_size_is_given() {
        let j = single_job(&given("--size=1m")).unwrap();
        assert!(!j.time_based && j.runtime.is_none());
        let j = single_job(&given("--size=1m --runtime=5s")).unwrap();
        assert!(j.time_based);
        let j = single_job(&given("--size=1m --time_based")).unwrap();
        assert!(j.time_based && j.runtime.is_some());
        assert!(single_job(&given("")).unwrap().time_based);
        let e = single_job(&given("--fsync=1 --fdatasync=2")).unwrap_err();
        assert!(e.contains("exclude each other"), "{e}");
        assert!(single_job(&given("--fsync=1 --fsync=2")).is_ok());
        let e = single_job(&given("--bs=4x")).unwrap_err();
        assert!(e.starts_with("--bs=4x: not a valid size"), "{e}");
    }
}
