//! Hand-run measure of what this machine charges for fresh memory: maps `MIB` MiB as the
//! command line's allocator maps its large blocks (anonymous, 2 MiB-aligned, small
//! pages; with `--huge`, transparent huge pages asked for, as that allocator once did),
//! writes one byte per 4 KiB page, and prints the CPU seconds that took, user and system
//! apart.
//!
//! Why: the kernel zeroes each page the first time it is touched. On bare hardware that
//! is about a tenth of a second per GiB; in a virtual machine whose host backs the guest's
//! memory lazily and takes freed pages back (free page reporting), each first touch is
//! also a fault in the host, and the same touch costs several times more, by an amount
//! that changes from run to run. `scripts/bench.sh` runs this with the analysis' peak
//! right after the analysis, so that its system time can be read against the machine's.
//!
//! ```text
//! cargo build --release -p heapscope --example touch_memory
//! target/release/examples/touch_memory MIB [ROUNDS] [--huge]
//! ```

mod common;
use common::cpu_user_sys;

const HUGE_PAGE: usize = 2 << 20;
const PAGE: usize = 4 << 10;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let huge = args.iter().any(|a| a == "--huge");
    let mut args = args.iter().filter(|a| *a != "--huge");
    let mib: usize = args.next().and_then(|m| m.parse().ok()).expect("usage: touch_memory MIB [ROUNDS] [--huge]");
    let rounds: usize = args.next().map_or(1, |r| r.parse().expect("ROUNDS is a number"));
    let len = (mib << 20).div_ceil(HUGE_PAGE) * HUGE_PAGE;
    let pages = if huge { "huge pages" } else { "small pages" };
    for round in 1..=rounds {
        let (u0, s0) = cpu_user_sys();
        touch(len, huge);
        let (u1, s1) = cpu_user_sys();
        println!("round {round}: {mib} MiB touched in {pages}, {:.2} user s {:.2} sys s", u1 - u0, s1 - s0);
    }
}

#[cfg(unix)]
fn touch(len: usize, huge: bool) {
    // SAFETY: a fresh private anonymous mapping, written within its length, then unmapped.
    unsafe {
        let span = len + HUGE_PAGE;
        let raw = libc::mmap(
            std::ptr::null_mut(),
            span,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        );
        assert!(raw != libc::MAP_FAILED, "mmap of {span} bytes failed");
        let base = (raw as usize).next_multiple_of(HUGE_PAGE) as *mut u8;
        #[cfg(target_os = "linux")]
        if huge {
            libc::madvise(base as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
        }
        for at in (0..len).step_by(PAGE) {
            std::ptr::write_volatile(base.add(at), 1);
        }
        libc::munmap(raw, span);
    }
}

#[cfg(not(unix))]
fn touch(len: usize, _huge: bool) {
    let mut v = vec![0u8; len];
    for at in (0..len).step_by(PAGE) {
        unsafe { std::ptr::write_volatile(v.as_mut_ptr().add(at), 1) };
    }
    drop(v);
}
