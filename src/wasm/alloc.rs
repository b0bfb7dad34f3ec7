//! The wasm build's global allocator: std's own (dlmalloc), with its
//! linear memory grown in steps of at least [`STEP`].
//!
//! std's wasm allocator grows the memory by what each request needs,
//! rounded to 64 KiB, and every `memory.grow` costs V8 ~0.27 ms whatever
//! its size (Node 20: 4,096 grows of one page take 1.0–1.3 s). A lazy
//! index filling 256 MiB of `cacheBytes` grew the memory about once a
//! query for every 64 KiB it added, which made its first queries 40 %
//! slower than with 32 MiB. Steps of 2 MiB make a grow 32 times rarer and
//! leave at most one step unused (it counts in the memory's size, e.g. an
//! isolate's limit, but is not touched until used).

use core::alloc::{GlobalAlloc, Layout};
use core::arch::wasm32;
use core::cell::UnsafeCell;
use core::ptr;

use dlmalloc::{Allocator, Dlmalloc};

/// Bytes of a wasm page.
const PAGE: usize = 64 << 10;

/// The least the memory grows by.
const STEP: usize = 2 << 20;

/// The memory below dlmalloc: grown by at least [`STEP`], never returned.
struct Grow;

/// Grows the memory by `pages`; its first byte and length, or `None`.
fn grow(pages: usize) -> Option<(*mut u8, usize)> {
    let prev = wasm32::memory_grow(0, pages);
    if prev == usize::MAX {
        return None;
    }
    let (base, size) = (prev * PAGE, pages * PAGE);
    // The last page of the 4 GiB address space: a pointer one past the end
    // would wrap to 0, so its last bytes stay unused (as dlmalloc's own).
    let size = if base.wrapping_add(size) == 0 {
        size - 16
    } else {
        size
    };
    Some((base as *mut u8, size))
}

// SAFETY: `alloc` hands dlmalloc fresh pages it alone owns; the rest
// declines to release or move memory, as std's wasm allocator does.
unsafe impl Allocator for Grow {
    fn alloc(&self, size: usize) -> (*mut u8, usize, u32) {
        // A whole step, else (near the memory's maximum) what was asked.
        let found = grow(size.max(STEP).div_ceil(PAGE)).or_else(|| grow(size.div_ceil(PAGE)));
        found.map_or((ptr::null_mut(), 0, 0), |(base, size)| (base, size, 0))
    }
    fn remap(&self, _: *mut u8, _: usize, _: usize, _: bool) -> *mut u8 {
        ptr::null_mut()
    }
    fn free_part(&self, _: *mut u8, _: usize, _: usize) -> bool {
        false
    }
    fn free(&self, _: *mut u8, _: usize) -> bool {
        false
    }
    fn can_release_part(&self, _: u32) -> bool {
        false
    }
    fn allocates_zeros(&self) -> bool {
        true
    }
    fn page_size(&self) -> usize {
        PAGE
    }
}

struct WasmAlloc(UnsafeCell<Dlmalloc<Grow>>);

// SAFETY: wasm32-unknown-unknown runs this module on one thread (no
// atomics, no shared memory), and `GlobalAlloc` is never re-entered.
unsafe impl Sync for WasmAlloc {}

// SAFETY: each method forwards to dlmalloc with the layout it was given.
unsafe impl GlobalAlloc for WasmAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        unsafe { (*self.0.get()).malloc(layout.size(), layout.align()) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        unsafe { (*self.0.get()).calloc(layout.size(), layout.align()) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { (*self.0.get()).free(ptr, layout.size(), layout.align()) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        unsafe { (*self.0.get()).realloc(ptr, layout.size(), layout.align(), new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: WasmAlloc = WasmAlloc(UnsafeCell::new(Dlmalloc::new_with_allocator(Grow)));
