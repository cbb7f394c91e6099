//! Aligned buffer slots: one allocation, `depth` slots, each aligned for O_DIRECT. Buffers of
//! large-block I/O sit on transparent huge pages where the kernel gives them: a virtio disk
//! takes 254 segments per request, so a 1 MiB direct I/O from 256 scattered 4 KiB pages becomes
//! two requests, and from one huge page one (as fio's buffer, when it lands on one).

use std::alloc::{alloc_zeroed, dealloc, Layout};

/// A huge page's size on x86-64 and arm64 (with 4 KiB base pages).
const HUGE: usize = 2 << 20;

/// `count` buffers of `size` bytes in one aligned allocation.
pub struct SlotBuffers {
    ptr: *mut u8,
    /// Heap-allocated with this layout, or `None`: an anonymous mapping of `mapped` bytes.
    layout: Option<Layout>,
    mapped: usize,
    /// The mapping is backed by huge pages (checked in /proc/self/smaps after it was touched).
    huge: bool,
    stride: usize,
    size: usize,
    count: usize,
}

// SAFETY: the allocation is owned exclusively by this value; moving it across threads is fine.
unsafe impl Send for SlotBuffers {}

impl SlotBuffers {
    pub fn new(count: usize, size: usize, align: usize) -> SlotBuffers {
        let align = align.max(4096).next_power_of_two();
        let stride = size.div_ceil(align) * align;
        let total = stride * count.max(1);
        // Slots over 64 KiB: I/O large enough to be split by a device's segment limit when
        // its pages are scattered (the mapping is whole huge pages, at most 2 MiB more).
        // Up to one huge page a slot: from huge pages a direct I/O of 1 GiB becomes bios of
        // many MiB (tracefs block_bio_queue), where scattered pages make bios of about 1 MiB,
        // as fio's buffer does. A cgroup throttle (`emulate`) holds a bio whole until its
        // bytes are due and only then hands it on, so a bio-based device (zram) begins each
        // bio only after its wait (issue 65; `registrable` has the rest). Past 2 MiB, the
        // I/O is split into many requests on any device either way.
        if size > 64 << 10 && size <= HUGE && align <= HUGE {
            if let Some((ptr, mapped, huge)) = map_huge(total) {
                return SlotBuffers {
                    ptr,
                    layout: None,
                    mapped,
                    huge,
                    stride,
                    size,
                    count,
                };
            }
        }
        let layout = Layout::from_size_align(total, align)
            .expect("slot buffer layout: size and alignment are validated by the workload");
        // SAFETY: the layout has non-zero size (count.max(1) * stride, stride >= align > 0).
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        SlotBuffers {
            ptr,
            layout: Some(layout),
            mapped: 0,
            huge: false,
            stride,
            size,
            count,
        }
    }

    /// Whether the slots sit on huge pages (only large-block slots are put there).
    /// Whether an engine should register these slots with the kernel (io_uring's fixed
    /// buffers). Not past one huge page a slot: the kernel builds a registered buffer's bio
    /// from its whole page list, so a 1 GiB write went down as one bio of 1 GiB where a
    /// plain one makes bios of about 1 MiB, and a cgroup throttle holds a bio whole until its
    /// bytes are due (see `new`). At that size pinning pages per I/O costs nothing that
    /// shows, and fio registers none unless told (`fixedbufs`).
    pub fn registrable(&self) -> bool {
        self.size <= HUGE
    }

    /// Whether slots meant for huge pages got them (the report's `huge_page_buffers`): `None`
    /// for slots not meant to be on them (64 KiB or less, or over one huge page).
    pub fn huge_page_state(&self) -> Option<bool> {
        (self.size > 64 << 10 && self.size <= HUGE).then(|| self.on_huge_pages())
    }

    pub fn on_huge_pages(&self) -> bool {
        self.huge
    }

    pub fn slot(&mut self, i: u32) -> &mut [u8] {
        let i = i as usize;
        assert!(i < self.count, "slot {i} out of range");
        // SAFETY: i < count, so the range lies inside the allocation, and &mut self guarantees
        // no other reference to it exists.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(i * self.stride), self.size) }
    }

    /// Raw address of a slot, for handing to the kernel.
    pub fn slot_ptr(&self, i: u32) -> *mut u8 {
        assert!((i as usize) < self.count);
        // SAFETY: in bounds, as checked above.
        unsafe { self.ptr.add(i as usize * self.stride) }
    }

    pub fn slot_size(&self) -> usize {
        self.size
    }

    pub fn count(&self) -> usize {
        self.count
    }
}

impl Drop for SlotBuffers {
    fn drop(&mut self) {
        // SAFETY: ptr was returned by alloc_zeroed with exactly this layout, or is the mapping
        // map_huge made of `mapped` bytes. Engines drain their in-flight I/O before their
        // buffers drop (their Drop runs first: fields drop after).
        unsafe {
            match self.layout {
                Some(l) => dealloc(self.ptr, l),
                None => drop(libc::munmap(self.ptr.cast(), self.mapped)),
            }
        }
    }
}

/// An anonymous mapping of `len` bytes (rounded up to whole huge pages) on a huge-page
/// boundary, asked for huge pages (MADV_HUGEPAGE, which transparent_hugepage=madvise honours)
/// and touched so they are allocated now, outside the measured I/O: its address, its length,
/// and whether the kernel gave huge pages. None when it cannot be mapped.
fn map_huge(len: usize) -> Option<(*mut u8, usize, bool)> {
    let len = len.div_ceil(HUGE) * HUGE;
    // SAFETY: a new private anonymous mapping, trimmed to a huge-page boundary at both ends
    // with munmap over parts of it only; nothing else refers to it yet.
    unsafe {
        let raw = libc::mmap(
            std::ptr::null_mut(),
            len + HUGE,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if raw == libc::MAP_FAILED {
            return None;
        }
        let head = (HUGE - raw as usize % HUGE) % HUGE;
        let at = raw.cast::<u8>().add(head);
        if head > 0 {
            libc::munmap(raw, head);
        }
        libc::munmap(at.add(len).cast(), HUGE - head);
        libc::madvise(at.cast(), len, libc::MADV_HUGEPAGE);
        // One write per base page faults each huge page in whole (or 4 KiB pages where the
        // kernel has no huge page free).
        for off in (0..len).step_by(4096) {
            at.add(off).write_volatile(0);
        }
        Some((at, len, huge_backed(at as usize, len)))
    }
}

/// Whether the mapping at `start` is wholly on huge pages: its AnonHugePages in
/// /proc/self/smaps covers its length.
fn huge_backed(start: usize, len: usize) -> bool {
    let Ok(smaps) = std::fs::read_to_string("/proc/self/smaps") else {
        return false;
    };
    let head = format!("{start:x}-");
    let mut lines = smaps.lines().skip_while(|l| !l.starts_with(&head)).skip(1);
    let field = lines.find_map(|l| l.strip_prefix("AnonHugePages:"));
    let kb = field.and_then(|f| f.trim().trim_end_matches("kB").trim().parse::<usize>().ok());
    kb.is_some_and(|kb| kb * 1024 >= len)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Large-block slots are a mapping on a huge-page boundary, on huge pages where the
    /// kernel's transparent_hugepage setting gives them to an madvise (smaps says so), and
    /// hold what is written to them.
    /// A slot larger than a huge page is on small pages: its I/O then reaches the block
    /// layer as bios of about 1 MiB, as fio's does (see `SlotBuffers::new`).
    #[test]
    fn slots_over_a_huge_page_are_on_small_pages() {
        let b = SlotBuffers::new(2, 4 << 20, 4096);
        assert!(!b.on_huge_pages());
        assert!(!b.registrable());
        // Not meant for huge pages, so no run is warned that it lacks them.
        assert_eq!(b.huge_page_state(), None);
        assert!(SlotBuffers::new(2, 2 << 20, 4096).registrable());
        assert_eq!(b.slot_ptr(1) as usize - b.slot_ptr(0) as usize, 4 << 20);
    }

    #[test]
    fn large_slots_sit_on_huge_pages_where_the_kernel_gives_them() {
        let mut b = SlotBuffers::new(4, 1 << 20, 4096);
        assert_eq!(b.slot_ptr(0) as usize % HUGE, 0);
        let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled")
            .unwrap_or_default();
        if !thp.contains("[never]") && !thp.is_empty() {
            assert!(
                b.on_huge_pages(),
                "THP is {thp:?} but the slots are on small pages"
            );
        }
        for i in 0..4 {
            b.slot(i).fill(i as u8 + 7);
        }
        for i in 0..4 {
            assert!(b.slot(i).iter().all(|&x| x == i as u8 + 7));
        }
        assert!(!SlotBuffers::new(4, 4096, 4096).on_huge_pages());
    }

    #[test]
    fn slots_are_aligned_and_disjoint() {
        let mut b = SlotBuffers::new(4, 5000, 512);
        for i in 0..4 {
            assert_eq!(b.slot_ptr(i) as usize % 4096, 0);
            b.slot(i).fill(i as u8 + 1);
        }
        for i in 0..4 {
            assert!(b.slot(i).iter().all(|&x| x == i as u8 + 1));
            assert_eq!(b.slot(i).len(), 5000);
        }
    }
}
