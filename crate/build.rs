//! Marks the build when the shared corpus is absent (and this is not CI), so that the
//! corpus tests are reported as *ignored* by the test harness (`ignored, needs the
//! shared corpus`) instead of passing without checking anything. In CI (`CI` set, not
//! "false" or "0") the flag is never set: a missing corpus then fails those tests.
use std::path::Path;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(heapscope_no_corpus)");
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=CI");
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let shared = Path::new(&manifest).join("../../shared");
    let expected = shared.join("corpus/expected");
    // Watch only folders that exist: a missing path would make every build rebuild the
    // crate. So with no ../shared at all, adding the corpus later needs a rebuild
    // (`touch crate/build.rs`) before its tests stop being ignored.
    if expected.is_dir() {
        println!("cargo::rerun-if-changed={}", expected.display());
    } else if shared.is_dir() {
        println!("cargo::rerun-if-changed={}", shared.display());
    }
    let ci = std::env::var("CI").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"));
    if !expected.is_dir() && !ci {
        println!("cargo::rustc-cfg=heapscope_no_corpus");
    }
}
