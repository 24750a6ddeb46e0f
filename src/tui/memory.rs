//! Gives the memory glibc keeps free back to the system at the TUI's quiet points.
//!
//! glibc returns freed memory only from the top of each thread's pool: after a large
//! read and its analyses, the pages freed below live data stay resident. `malloc_trim`
//! releases them.

/// Releases the free pages of every allocator pool (glibc); elsewhere does nothing.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
pub(crate) fn give_back_free_memory() {
    // SAFETY: `malloc_trim` takes no pointer and touches only the allocator's own free
    // lists, under the locks every allocation takes.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn give_back_free_memory() {}
