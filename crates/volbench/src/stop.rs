//! Ctrl-C: the flag every run watches, set on the first interrupt, and what a second one
//! says while the first is being honoured.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

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
