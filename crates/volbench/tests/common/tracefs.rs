//! One kernel trace event counted over a test: tracefs mounted at a temporary directory (a
//! second mount of the same tracefs), an instance of the test's own with the event on,
//! everything undone on drop.

use std::path::PathBuf;

pub struct EventCount {
    mnt: tempfile::TempDir,
    inst: PathBuf,
    event: String,
}

impl EventCount {
    /// Starts counting `event` (`io_uring/io_uring_queue_async_work`) system-wide.
    pub fn start(event: &str) -> EventCount {
        let mnt = tempfile::tempdir().unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tracefs", "nodev"])
            .arg(mnt.path())
            .status()
            .unwrap()
            .success();
        assert!(ok, "mount -t tracefs failed (tests run as root)");
        let inst = mnt
            .path()
            .join(format!("instances/vbtest-{}", std::process::id()));
        std::fs::create_dir(&inst).unwrap();
        let c = EventCount {
            mnt,
            inst,
            event: event.to_string(),
        };
        std::fs::write(c.inst.join("buffer_size_kb"), "8192").unwrap();
        std::fs::write(c.inst.join(format!("events/{event}/enable")), "1").unwrap();
        std::fs::write(c.inst.join("tracing_on"), "1").unwrap();
        c
    }

    /// The events' lines so far, and empties the buffer.
    pub fn take_lines(&self) -> Vec<String> {
        let text = std::fs::read_to_string(self.inst.join("trace")).unwrap();
        std::fs::write(self.inst.join("trace"), "").unwrap();
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .map(String::from)
            .collect()
    }
}

impl Drop for EventCount {
    fn drop(&mut self) {
        let _ = std::fs::write(self.inst.join("tracing_on"), "0");
        let _ = std::fs::write(self.inst.join(format!("events/{}/enable", self.event)), "0");
        for _ in 0..50 {
            if std::fs::remove_dir(&self.inst).is_ok() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let _ = std::process::Command::new("umount")
            .arg(self.mnt.path())
            .status();
    }
}
