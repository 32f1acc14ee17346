//! The pipeline: pass 1, pass 2, the strength walk, one reading's dominator tree and
//! retained sizes, with the features' [`Collect`] called where it wants to be; and the
//! memory estimate that refuses a dump too big before its per-object arrays exist.

use super::{tree, Analysis, Collect, Options, Phase, Progress, ProgressInfo, Reading};
use crate::bits::BitSet;
use crate::error::{Error, Result};
use crate::records::heap::WalkEnd;
use crate::records::Cursor;
use crate::source::ByteSource;
use crate::strength::owners::ViewChildren;
use crate::strength::packed::Strengths;
use crate::strength::walk::{HeapEdges, Reach};

/// Runs the whole analysis, telling `collect` what it wants to know along the way.
pub fn analyze<C: Collect>(
    source: Box<dyn ByteSource>,
    options: &Options,
    progress: &mut dyn Progress,
    collect: &mut C,
) -> Result<Analysis> {
    let input_total = source.input_len();
    let mut cursor = Cursor::new(source);

    let tick_phase = |phase: Phase, cursor_pos: u64, objects: u64, progress: &mut dyn Progress| {
        progress.update(&ProgressInfo { phase, bytes_done: cursor_pos, bytes_total: input_total, objects })
    };

    // Pass 1. The callback cannot borrow the cursor it is called from, so it reports
    // objects only and the cursor position is sampled between records by the pass.
    tick_phase(Phase::Pass1, 0, 0, progress)?;
    let index = {
        let progress_ref: &mut dyn Progress = progress;
        let mut tick = |bytes: u64, objects: u64| {
            progress_ref.update(&ProgressInfo {
                phase: Phase::Pass1,
                bytes_done: bytes,
                bytes_total: input_total,
                objects,
            })
        };
        // Every heap record unless a snapshot was asked for: most files hold one, and
        // this pass finds out. With several, pass 1 runs again on the last one alone.
        let mut index = crate::index::pass1(&mut cursor, &mut tick, options.snapshot, collect)?;
        if options.snapshot.is_none() && index.snapshots > 1 {
            cursor.rewind()?;
            collect.rewind();
            index = crate::index::pass1(&mut cursor, &mut tick, Some(index.snapshots), collect)?;
        }
        index.sizes = options.sizes;
        index
    };
    if let Some(n) = options.snapshot {
        if n == 0 || n > index.snapshots {
            return Err(Error::io(format!(
                "there is no heap-dump snapshot {n}: the file holds {} (numbered from 1)",
                index.snapshots
            )));
        }
    }
    let snapshots = index.snapshots;
    let snapshot = index.snapshot.unwrap_or(snapshots.min(1));
    let decoded_bytes = index.counts.bytes;
    let incomplete = match &index.end {
        WalkEnd::Complete { .. } => None,
        WalkEnd::Broken { error, .. } => Some(error.clone()),
    };
    let objects = index.ids.len() as u64;
    check_memory(options, objects)?;
    // A dump that ends early lost its GC roots and references past the cut: an object
    // unreachable in the part read may well be reachable in the whole. Nothing is
    // discarded then; each entry point of what no root reaches is a root of its own.
    let kept;
    let options = if incomplete.is_some() && !options.keep_unreachable {
        kept = Options { keep_unreachable: true, ..options.clone() };
        &kept
    } else {
        options
    };

    // Pass 2 allocates its per-object arrays before its first tick: count them in it.
    tick_phase(Phase::Pass2, 0, 0, progress)?;
    // The owner rules' collection (Android views), beside the features'.
    let mut views = ViewChildren::new(&index);
    let mut heap = {
        let progress_ref: &mut dyn Progress = progress;
        let mut tick = |bytes: u64, done: u64| {
            progress_ref.update(&ProgressInfo {
                phase: Phase::Pass2,
                bytes_done: bytes,
                bytes_total: input_total,
                objects: done,
            })
        };
        crate::graph::pass2(&mut cursor, index, &mut tick, &mut (&mut views, &mut *collect))?
    };
    let owners = views.map(ViewChildren::into_owners).unwrap_or_default();
    crate::strength::owners::mark_sources(&owners, &mut heap.has_special);
    let input_bytes = input_total.unwrap_or(decoded_bytes);
    let source = Some(collect.after_pass2(&heap, cursor.into_source())?);

    tick_phase(Phase::Strengths, input_bytes, objects, progress)?;
    if options.core_only && options.tree == Reading::Strength {
        return Err(no_strengths());
    }
    let (strengths, owned) = if options.core_only {
        (Strengths::compact(Vec::new())?, BitSet::default())
    } else {
        let Reach { strengths, owned } = crate::strength::walk::strengths(&HeapEdges::new(&heap, &owners))?;
        collect.strengths_known(&heap, &strengths, options.keep_unreachable)?;
        // Packed for the rest of the session (the bytes are the walk's alone).
        (Strengths::compact(strengths)?, owned)
    };
    collect.before_tree(&heap)?;
    let marks = collect.take_marks();

    tick_phase(Phase::Dominators, input_bytes, objects, progress)?;
    let t = tree::build(&heap, &strengths, &owners, &owned, &marks, options.tree, options, &mut |phase| {
        tick_phase(phase, input_bytes, objects, progress)
    })?;

    let mut warnings = heap.index.warnings.clone();
    warnings.extend(heap.warnings.iter().cloned());
    if heap.roots.missing > 0 {
        warnings.push(format!(
            "{} GC root records name objects that are not in the dump; they were ignored",
            heap.roots.missing
        ));
    }
    tick_phase(Phase::Report, input_bytes, objects, progress)?;
    Ok(Analysis {
        heap,
        options: options.clone(),
        idom: t.idom,
        dominator_stats: t.dominator_stats,
        tree: t.tree,
        retained: t.retained,
        roots: t.roots,
        classes: t.classes,
        unreachable: t.unreachable,
        kept_objects: t.kept_objects,
        used_heap: t.used_heap,
        input_bytes,
        decoded_bytes,
        warnings,
        incomplete,
        snapshots,
        snapshot,
        source,
        strengths,
        owners,
        owned,
        reading: t.reading,
        garbage: t.garbage,
        loader_groups: t.loader_groups,
        marks,
        other_tree: None,
    })
}

/// Why a core-only analysis ([`Options::core_only`]) refuses the strength-aware tree.
pub(super) fn no_strengths() -> Error {
    Error::io("a core-only analysis has no reachability strengths: it cannot build the strength-aware tree".to_string())
}

/// Estimated peak of the phases after pass 1, per object, in bytes, as the allocator sees
/// it (`examples/memory_profile.rs`): 12.8 at pass 2 on the 1 GB benchmark dump, 15.5 on
/// the mid-size dump of `tests/memory_estimate.rs`, so 16 keeps within 10% of the latter.
/// A wasm instance needs more than the allocator holds (freed temporaries leave holes in a
/// memory that never shrinks, and the allocator grows it by a whole request when its free
/// top is short): the page estimates with its own figure,
/// `wasm::WASM_PEAK_BYTES_PER_OBJECT`, through [`Options::peak_bytes_per_object`]. The
/// dominator search can need more on a graph where few objects are private (up to ~16
/// bytes per object on top of the graph).
pub const PEAK_BYTES_PER_OBJECT: u64 = 16;

fn check_memory(options: &Options, objects: u64) -> Result<()> {
    if let Some(limit) = options.memory_limit {
        let per_object = options.peak_bytes_per_object.unwrap_or(PEAK_BYTES_PER_OBJECT);
        let need = options.memory_fixed_bytes.saturating_add(objects.saturating_mul(per_object));
        if need > limit {
            use crate::model::format::{binary_size, thousands};
            let fixed = match options.memory_fixed_bytes {
                0 => String::new(),
                f => format!("{} plus ", binary_size(f)),
            };
            return Err(Error::memory(format!(
                "this dump has {} objects: analyzing it needs about {} of memory ({fixed}{per_object} bytes per object), more than the {} available here",
                thousands(objects),
                binary_size(need),
                binary_size(limit)
            )));
        }
    }
    Ok(())
}
