//! Fallible allocation of the arrays sized by the object count.
//!
//! In wasm an allocation that fails aborts the instance (the tab survives, the analysis
//! is lost), so every array whose length grows with the dump — in the passes and at
//! query time alike — is reserved here first and a failure becomes an
//! [`Error::memory`](crate::error::Error::memory) naming the array. Also: a prefetch hint
//! ([`prefetch`]) for the walks over those arrays.

use crate::error::{Error, Result};

/// `vec![value; len]`, or a memory error naming `what`.
pub fn try_filled<T: Clone>(len: usize, value: T, what: &str) -> Result<Vec<T>> {
    let mut v = try_with_capacity(len, what)?;
    v.resize(len, value);
    Ok(v)
}

/// `Vec::with_capacity(cap)`, or a memory error naming `what`.
pub fn try_with_capacity<T>(cap: usize, what: &str) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(cap).map_err(|_| alloc_error(cap.saturating_mul(std::mem::size_of::<T>()), what))?;
    Ok(v)
}

/// Pushes onto a growable work list, growing it by doubling with a fallible reservation.
#[inline]
pub fn try_push<T>(v: &mut Vec<T>, x: T, what: &str) -> Result<()> {
    if v.len() == v.capacity() {
        grow(v, what)?;
    }
    v.push(x);
    Ok(())
}

#[cold]
fn grow<T>(v: &mut Vec<T>, what: &str) -> Result<()> {
    let extra = v.capacity().max(1024);
    v.try_reserve_exact(extra)
        .map_err(|_| alloc_error((v.len() + extra).saturating_mul(std::mem::size_of::<T>()), what))
}

/// The error for a failed allocation of `bytes` bytes for `what`.
pub fn alloc_error(bytes: usize, what: &str) -> Error {
    let mib = (bytes as u64).div_ceil(1 << 20);
    Error::memory(format!("out of memory: could not allocate {what} ({mib} MiB); the heap dump is too large for the memory available here"))
}

/// Asks the CPU to bring the cache line holding `*p` closer; a no-op where there is no
/// stable prefetch instruction (e.g. wasm32). `p` need not be valid: a prefetch never
/// faults.
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint; it never faults and reads nothing observable.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
