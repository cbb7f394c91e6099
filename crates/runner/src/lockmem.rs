//! fio's `lockmem`: memory a job pins (mmap + mlock) while it runs, so the page cache has that
//! much less, as on a host with less RAM. Unpinned when the job's thread ends.

use engine::EngineError;

/// Pinned memory, released on drop.
pub(crate) struct Pinned {
    addr: *mut libc::c_void,
    len: usize,
}

// The mapping is only held, never read or written through this pointer.
unsafe impl Send for Pinned {}

/// fio's limit: never more than the machine's memory less 128 MiB.
fn limit(want: u64) -> u64 {
    // SAFETY: sysconf reads system constants.
    let (pages, page) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    let phys = (pages.max(0) as u64).saturating_mul(page.max(0) as u64);
    if phys > 0 && want + (128 << 20) > phys {
        phys.saturating_sub(128 << 20)
    } else {
        want
    }
}

impl Pinned {
    /// Pins `bytes` (none when 0). A refusal is the job's error, naming the limit to raise.
    pub(crate) fn new(job: &str, bytes: u64) -> Result<Option<Pinned>, EngineError> {
        if bytes == 0 {
            return Ok(None);
        }
        let len = limit(bytes) as usize;
        let fail = |what: &str| {
            EngineError::Setup(format!(
                "job {job}: lockmem={bytes}: {what}: {}; raise the memlock limit (ulimit -l, or run as root) or lower lockmem",
                std::io::Error::last_os_error()
            ))
        };
        // SAFETY: a fresh private anonymous mapping, owned by the returned value alone.
        let addr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if addr == libc::MAP_FAILED {
            return Err(fail("cannot map the memory"));
        }
        let pinned = Pinned { addr, len };
        // SAFETY: the mapping just made, whole.
        if unsafe { libc::mlock(addr, len) } != 0 {
            return Err(fail("mlock failed"));
        }
        Ok(Some(pinned))
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        // SAFETY: the mapping this value owns; unmapping also unlocks it.
        unsafe {
            libc::munlock(self.addr, self.len);
            libc::munmap(self.addr, self.len);
        }
    }
}
