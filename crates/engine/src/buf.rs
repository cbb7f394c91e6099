//! Aligned buffer slots: one allocation, `depth` slots, each aligned for O_DIRECT.

use std::alloc::{alloc_zeroed, dealloc, Layout};

/// `count` buffers of `size` bytes in one aligned allocation.
pub struct SlotBuffers {
    ptr: *mut u8,
    layout: Layout,
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
        let layout = Layout::from_size_align(stride * count.max(1), align)
            .expect("slot buffer layout: size and alignment are validated by the workload");
        // SAFETY: the layout has non-zero size (count.max(1) * stride, stride >= align > 0).
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        SlotBuffers {
            ptr,
            layout,
            stride,
            size,
            count,
        }
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
        // SAFETY: ptr was returned by alloc_zeroed with exactly this layout. Engines drain their
        // in-flight I/O before their buffers drop (their Drop runs first: fields drop after).
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
