//! `volbench durability serve|create|verify`: the power-loss checker (crate `durability`);
//! `cycle`, the loop of them, is in `cycle.rs` (`cmd::durability_cmd` sends each its own).

use crate::cli::{CreateArgs, ServeArgs, VerifyArgs};
use crate::usage::usage;
use anyhow::Result;
use durability::client::{self, Counters, CreateOptions};
use durability::verify::{self, VerifyOptions};
use durability::witness::{self, ServeOptions};
use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};
use workload::parse_duration;

pub fn serve(a: ServeArgs) -> Result<ExitCode> {
    let listen = a.listen.parse().map_err(|_| {
        usage(format!(
            "--listen {}: give an address and port, e.g. 127.0.0.1:7810",
            a.listen
        ))
    })?;
    let journal = a
        .journal
        .clone()
        .unwrap_or_else(|| store::Store::local_path().with_file_name("witness.db"));
    if a.journal.is_none() {
        crate::durable::private_dir(&journal)?;
    }
    let o = ServeOptions {
        listen,
        token: a.token,
        journal: journal.clone(),
    };
    let _ = crate::stop::STOP_MESSAGE
        .set("closing the witness (its journal has every record it acknowledged)");
    let stop = crate::stop::stop_flag();
    witness::serve(&o, stop.clone(), |addr, token| {
        // One line a script can read the address and token from, then how to use them.
        let shown = token.unwrap_or("(the one printed when this journal was made)");
        println!("witness listening on {addr} token {shown}");
        eprintln!(
            "journal {} (mode 0600; it keeps only a SHA-256 hash of the token); on the machine under test run:\n  volbench durability create --witness {addr} --token {} FILE --size 1g",
            journal.display(),
            token.unwrap_or("TOKEN")
        );
    })?;
    eprintln!("witness stopped; every record it acknowledged is in its journal");
    Ok(if stop.load(Relaxed) {
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    })
}

pub fn create(a: CreateArgs) -> Result<ExitCode> {
    let (size, block, sync) = crate::durable::record_options(&a.rec)?;
    let runtime = a
        .runtime
        .as_deref()
        .map(parse_duration)
        .transpose()
        .map_err(|e| usage(format!("--runtime: {e}")))?;
    let o = CreateOptions {
        witness: a.w.witness,
        token: a.w.token,
        file: a.file,
        size,
        block,
        sync,
        threads: a.rec.threads,
        runtime,
        discard: a.discard_unverified,
    };
    let stop = crate::stop::stop_flag();
    let counters = Arc::new(Counters::default());
    let progress = spawn_progress(counters.clone(), stop.clone());
    eprintln!(
        "writing acknowledged records to {}; cut the power at any time",
        o.file.display()
    );
    let r = client::create(&o, stop.clone(), counters);
    // Stopped by Ctrl-C (not by --runtime): exit 130 as every command does.
    let interrupted = stop.swap(true, Relaxed);
    let _ = progress.join();
    let s = r?;
    let rate = s.acked as f64 / s.elapsed.as_secs_f64().max(1e-9);
    println!(
        "{} records acknowledged in {:.1} s ({rate:.0}/s); the witness has them. After a power cut run: volbench durability verify --witness {} --token ... {}",
        s.acked,
        s.elapsed.as_secs_f64(),
        o.witness,
        o.file.display()
    );
    Ok(if interrupted {
        ExitCode::from(130)
    } else {
        ExitCode::SUCCESS
    })
}

/// Records acknowledged and their rate, redrawn on a terminal every second.
fn spawn_progress(
    c: Arc<Counters>,
    stop: Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        if !std::io::stderr().is_terminal() {
            return;
        }
        let began = Instant::now();
        let mut last = (0u64, Instant::now());
        while !stop.load(Relaxed) {
            std::thread::sleep(Duration::from_millis(200));
            if last.1.elapsed() < Duration::from_secs(1) {
                continue;
            }
            let n = c.acked.load(Relaxed);
            let rate = (n - last.0) as f64 / last.1.elapsed().as_secs_f64();
            eprint!(
                "\r{n} records acknowledged, {rate:.0}/s, {:.0} s   ",
                began.elapsed().as_secs_f64()
            );
            last = (n, Instant::now());
        }
        eprintln!();
    })
}

pub fn verify(a: VerifyArgs) -> Result<ExitCode> {
    if !matches!(a.output_format.as_str(), "normal" | "json") {
        return Err(usage(format!(
            "--output-format {}: choose normal or json",
            a.output_format
        )));
    }
    let o = VerifyOptions {
        witness: a.w.witness,
        token: a.w.token,
        file: a.file,
    };
    let r = verify::verify(&o)?;
    let text = if a.output_format == "json" {
        serde_json::to_string_pretty(&r)? + "\n"
    } else {
        r.text()
    };
    crate::output::stdout(text.as_bytes())?;
    Ok(if r.lost == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}
