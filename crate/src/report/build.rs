//! Builds the [`Report`] from an [`Analysis`] and the sections its features computed.

use std::collections::BTreeMap;

use super::suspects::{self, SuspectKind as Kind};
use crate::analysis::{loader_label, object_ref, strength_name, Analysis};
use crate::heaps;
use crate::model::format::{basis_points, format_bp, thousands};
use crate::model::leaks::Leaks;
use crate::model::names::package_of;
use crate::model::threads::ThreadInfo;
use crate::model::waste::{AllocationSites, Waste};
use crate::model::*;
use crate::records::HprofVersion;
use crate::rules::roots::{mat_name, name as root_name, ALL_KINDS};

const MAX_WARNINGS: usize = 50;
const MAX_TOP_DOMINATORS: usize = 100;
const MAX_UNREACHABLE_CLASSES: usize = 100;
const MAX_CONSUMERS: usize = 100;
const CHAIN_HEAD: usize = 20;
const CHAIN_TAIL: usize = 20;
/// Top consumers are listed above 1% of the used heap.
pub const CONSUMER_THRESHOLD_PERCENT: u64 = 1;

/// What the caller knows about the input that the analysis does not.
#[derive(Debug, Clone, Default)]
pub struct SourceInfo {
    pub file_name: Option<String>,
    pub file_bytes: u64,
    pub gzip: bool,
}

/// What the features computed for the report, beside the analysis (see
/// [`crate::session`]).
#[derive(Clone, Copy)]
pub struct Sections<'a> {
    pub threads: &'a [ThreadInfo],
    pub waste: &'a Waste,
    pub allocation_sites: &'a AllocationSites,
    /// The Android heaps' counts (None: the dump names no heaps).
    pub heaps: Option<&'a heaps::Summary>,
    /// LeakCanary's reading of the dump (None: the leak finder did not run).
    pub leaks: Option<&'a Leaks>,
}

/// What a report is built with beyond the analysis and its features' sections.
#[derive(Clone, Copy, Default)]
pub struct BuildOptions {
    /// `--detail`'s caps.
    pub detail: Detail,
}

/// The report of `a` with its features' `sections` (without what [`super::annotate`] adds
/// from the dump), at the default detail.
pub fn build(a: &Analysis, sections: &Sections, source: &SourceInfo) -> Report {
    build_with(a, sections, source, &BuildOptions::default())
}

/// [`build`] with `options`.
pub fn build_with(a: &Analysis, sections: &Sections, source: &SourceInfo, options: &BuildOptions) -> Report {
    let detail = &options.detail;
    let header = &a.heap.index.header;
    let layout = &a.heap.index.layout;
    let used = a.used_heap;
    let counts = &a.heap.index.counts;

    let mut warnings: Vec<String> = a.warnings.iter().take(MAX_WARNINGS).cloned().collect();
    if a.warnings.len() > MAX_WARNINGS {
        warnings.push(format!("… and {} more warnings", a.warnings.len() - MAX_WARNINGS));
    }

    // GC roots by kind, by heapscope's name (ART kinds keep theirs).
    let mut by_kind: BTreeMap<(&str, &str), u64> = BTreeMap::new();
    for &(_, kinds) in &a.roots {
        for k in ALL_KINDS {
            if kinds.contains(k) {
                *by_kind.entry((root_name(k), mat_name(k))).or_default() += 1;
            }
        }
    }
    let gc_roots_by_type = by_kind
        .into_iter()
        .map(|((name, mat), objects)| RootTypeCount { name: name.into(), mat_name: mat.into(), objects })
        .collect();

    let mut unreachable_classes: Vec<ClassCount> = a
        .unreachable
        .iter()
        .enumerate()
        .filter(|(_, s)| s.instances > 0)
        .map(|(c, s)| ClassCount {
            class_name: a.class_name(c as u32).to_string(),
            objects: s.instances,
            shallow_bytes: s.shallow,
        })
        .collect();
    unreachable_classes.sort_by(|x, y| {
        y.shallow_bytes.cmp(&x.shallow_bytes).then(y.objects.cmp(&x.objects)).then(x.class_name.cmp(&y.class_name))
    });
    unreachable_classes.truncate(MAX_UNREACHABLE_CLASSES);

    let kept_classes: Vec<u32> =
        (0..a.class_count() as u32).filter(|&c| a.class_object(c).is_some_and(|o| a.is_kept(o))).collect();
    let heaps = sections.heaps;
    let heap_counts = |list: &[(usize, heaps::Count)], names: &[(String, heaps::Count)]| -> Vec<HeapCount> {
        list.iter()
            .map(|&(k, c)| HeapCount { name: names[k].0.clone(), objects: c.objects, shallow_bytes: c.shallow })
            .collect()
    };
    // MAT's report's value.
    let with_class = Some(super::histogram::with_class_objects(a));
    let mut histogram: Vec<HistogramRow> = kept_classes
        .iter()
        .map(|&c| {
            let s = a.classes[c as usize];
            HistogramRow {
                class_name: a.class_name(c).to_string(),
                class_address: format!("0x{:x}", a.heap.index.classes.classes[c as usize].id),
                loader: loader_label(a, c),
                instances: s.instances,
                shallow_bytes: s.shallow,
                retained_bytes_min: s.retained_min,
                retained_bytes_with_class: with_class.as_ref().and_then(|w| w.get(c as usize).copied()),
                heaps: heaps
                    .as_ref()
                    .and_then(|h| Some(heap_counts(h.by_class.get(&c)?, &h.heaps)))
                    .unwrap_or_default(),
            }
        })
        .collect();
    histogram.sort_by(|x, y| {
        y.retained_bytes_min
            .cmp(&x.retained_bytes_min)
            .then(y.shallow_bytes.cmp(&x.shallow_bytes))
            .then(x.class_name.cmp(&y.class_name))
            .then(x.class_address.cmp(&y.class_address))
    });

    let top = a.top_level();
    let top_dominators = top.iter().take(MAX_TOP_DOMINATORS).map(|&v| object_ref(a, v)).collect();

    let overview = Overview {
        objects: a.kept_objects,
        used_heap_bytes: used,
        classes: kept_classes.len() as u64,
        class_loaders: super::parity::class_loader_count(a),
        gc_roots: a.roots.len() as u64,
        gc_roots_by_type,
        unreachable: Unreachable {
            discarded: !a.options.keep_unreachable && a.reading == Reading::Mat,
            objects: a.unreachable.iter().map(|s| s.instances).sum(),
            shallow_bytes: a.unreachable.iter().map(|s| s.shallow).sum(),
            classes: unreachable_classes,
        },
        top_level_dominators: top.len() as u64,
        obfuscated_classes: histogram.iter().filter(|r| crate::mapping::looks_obfuscated(&r.class_name)).count() as u64,
        heaps: heaps
            .as_ref()
            .map(|h| {
                h.heaps
                    .iter()
                    .map(|(name, c)| HeapCount { name: name.clone(), objects: c.objects, shallow_bytes: c.shallow })
                    .collect()
            })
            .unwrap_or_default(),
        records: RecordCounts {
            instances: counts.instances,
            object_arrays: counts.object_arrays,
            primitive_arrays: counts.primitive_arrays,
            classes: counts.class_dumps,
        },
    };

    let mut report = Report {
        schema_version: SCHEMA_VERSION,
        tool: format!("heapscope {}", env!("CARGO_PKG_VERSION")),
        source: Source {
            file_name: source.file_name.clone(),
            file_bytes: source.file_bytes,
            hprof_bytes: a.decoded_bytes,
            gzip: source.gzip,
        },
        dump: DumpInfo {
            format: header.version.as_str().into(),
            platform: if header.version == HprofVersion::V103 { "Android" } else { "HotSpot" }.into(),
            id_size: header.id_size,
            timestamp_ms: header.timestamp_ms,
            compressed_oops: layout.ref_size < layout.id_size,
            object_alignment: layout.object_alignment,
            snapshots: a.snapshots,
            snapshot: a.snapshot,
            layout: Some(super::layout::object_layout(a)),
        },
        complete: a.incomplete.is_none(),
        incomplete: a
            .incomplete
            .as_ref()
            .map(|e| Incomplete { offset: e.offset.unwrap_or(0), message: e.message.clone() }),
        warnings,
        overview,
        tree: a.reading,
        reachability: reachability(a),
        histogram,
        top_dominators,
        leak_suspects: leak_suspects(a, sections.threads, detail),
        top_consumers: top_consumers(a),
        threads: sections.threads.to_vec(),
        waste: sections.waste.clone(),
        allocation_sites: sections.allocation_sites.clone(),
        leaks: sections.leaks.cloned(),
        growth_points: Vec::new(),
        oom_triage: None,
        heap_composition: None,
        system_properties: None,
        top_components: Some(super::components::top_components(a, detail)),
    };
    report.oom_triage = Some(super::triage::triage(a, &report));
    report.heap_composition = Some(super::triage::composition(&report, detail));
    report
}

/// The partition of the dump by strength, as report rows.
pub fn reachability(a: &Analysis) -> Vec<ReachabilityRow> {
    a.reachability()
        .iter()
        .map(|r| ReachabilityRow {
            strength: strength_name(r.strength),
            objects: r.objects,
            shallow_bytes: r.shallow_bytes,
        })
        .collect()
}

fn chain_refs(a: &Analysis, chain: &[u32]) -> (Vec<ObjectRef>, u64) {
    if chain.len() <= CHAIN_HEAD + CHAIN_TAIL {
        return (chain.iter().map(|&v| object_ref(a, v)).collect(), 0);
    }
    let mut out: Vec<ObjectRef> = chain[..CHAIN_HEAD].iter().map(|&v| object_ref(a, v)).collect();
    out.extend(chain[chain.len() - CHAIN_TAIL..].iter().map(|&v| object_ref(a, v)));
    (out, (chain.len() - CHAIN_HEAD - CHAIN_TAIL) as u64)
}

fn leak_suspects(a: &Analysis, threads: &[ThreadInfo], detail: &Detail) -> LeakSuspects {
    let used = a.used_heap;
    let suspects = suspects::find(a)
        .into_iter()
        .map(|s| {
            let (kind, object, class, instances) = match &s.kind {
                Kind::Single { object } => (SuspectKind::SingleObject, *object, a.class_of(*object), 1u64),
                Kind::Group { class, members } => {
                    (SuspectKind::GroupOfObjects, members[0], *class, members.len() as u64)
                }
            };
            let loader = loader_label(a, class);
            let class_name = a.class_name(class).to_string();
            let bp = basis_points(s.retained, used);
            let mut description = match (&s.kind, a.class_represented_by(object)) {
                (Kind::Single { .. }, Some(rep)) => format!(
                    "The class \"{}\", loaded by \"{}\", occupies {} ({}) bytes.",
                    a.class_name(rep),
                    loader_label(a, rep),
                    thousands(s.retained),
                    format_bp(bp)
                ),
                (Kind::Single { .. }, None) => format!(
                    "One instance of \"{class_name}\" loaded by \"{loader}\" occupies {} ({}) bytes.",
                    thousands(s.retained),
                    format_bp(bp)
                ),
                (Kind::Group { .. }, _) => format!(
                    "{instances} instances of \"{class_name}\", loaded by \"{loader}\", occupy {} ({}) bytes.",
                    thousands(s.retained),
                    format_bp(bp)
                ),
            };
            if let Some(ap) = s.accumulation_point {
                let r = a.retained(ap);
                let verb = if matches!(s.kind, Kind::Group { .. }) {
                    "These instances are referenced from"
                } else {
                    "The memory is accumulated in"
                };
                description.push_str(&format!(
                    " {verb} one instance of \"{}\", loaded by \"{}\", which occupies {} ({}) bytes.",
                    a.class_name(a.class_of(ap)),
                    loader_label(a, a.class_of(ap)),
                    thousands(r),
                    format_bp(basis_points(r, used))
                ));
            }
            let (chain, chain_omitted) = chain_refs(a, &s.chain);
            // Only a single suspect stands for its class; a group's representative does not.
            let (represented_class, represented_loader) = match &s.kind {
                Kind::Single { .. } => super::findings::represented(a, object),
                Kind::Group { .. } => (None, None),
            };
            // heapscope's reading (linked structures as one) for a single suspect.
            let structure = match &s.kind {
                Kind::Single { object } => Some(super::structure::structure(a, *object, detail.children)),
                Kind::Group { .. } => None,
            };
            let biggest_members = match &s.kind {
                Kind::Group { members, .. } => super::findings::biggest_members(a, threads, members, detail.children),
                Kind::Single { .. } => Vec::new(),
            };
            Suspect {
                kind,
                object: object_ref(a, object),
                class_name,
                loader,
                instances,
                retained_bytes: s.retained,
                retained_bp: bp,
                accumulation_point: s.accumulation_point.map(|v| object_ref(a, v)),
                chain,
                chain_omitted,
                description,
                reference_path: None,
                accumulation_point_elements: None,
                held_in: None,
                each_holds: None,
                accumulated: s
                    .accumulation_point
                    .map(|ap| super::findings::accumulated(a, ap, detail.children))
                    .unwrap_or_default(),
                biggest_members,
                represented_class,
                represented_loader,
                root_path: None,
                dominator_subtree: structure.as_ref().map(|(point, _)| super::why_alive::subtree(a, *point, detail)),
                structure: structure.map(|(_, s)| s),
                frame: None,
                headline: None,
            }
        })
        .collect();
    LeakSuspects { threshold_bytes: suspects::threshold(used), suspects }
}

fn consumers(map: BTreeMap<String, (u64, u64)>, threshold: u64, used: u64) -> Vec<Consumer> {
    let mut v: Vec<Consumer> = map
        .into_iter()
        .filter(|(_, (_, r))| *r > threshold)
        .map(|(name, (objects, retained_bytes))| Consumer {
            name,
            objects,
            retained_bytes,
            retained_bp: basis_points(retained_bytes, used),
        })
        .collect();
    v.sort_by(|x, y| y.retained_bytes.cmp(&x.retained_bytes).then(x.name.cmp(&y.name)));
    v.truncate(MAX_CONSUMERS);
    v
}

fn top_consumers(a: &Analysis) -> TopConsumers {
    let used = a.used_heap;
    let threshold = CONSUMER_THRESHOLD_PERCENT * used / 100;
    let top = a.top_level();
    let objects =
        top.iter().take_while(|&&v| a.retained(v) > threshold).take(MAX_CONSUMERS).map(|&v| object_ref(a, v)).collect();
    let mut classes: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let mut loaders: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let mut packages: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for g in &a.loader_groups.groups {
        let e = loaders.entry(super::components::group_label(a, g)).or_default();
        e.0 += g.top_level;
        e.1 += g.retained;
    }
    for &v in top {
        let r = a.retained(v);
        let c = a.class_of(v);
        let e = classes.entry(a.class_name(c).to_string()).or_default();
        e.0 += 1;
        e.1 += r;
        let owner = a.class_represented_by(v).unwrap_or(c);
        let pkg = package_of(a.class_name(owner));
        let mut end = 0;
        loop {
            let next = pkg[end..].find('.').map(|i| end + i).unwrap_or(pkg.len());
            let prefix = if pkg.is_empty() { "<default package>" } else { &pkg[..next] };
            let e = packages.entry(prefix.to_string()).or_default();
            e.0 += 1;
            e.1 += r;
            if next >= pkg.len() {
                break;
            }
            end = next + 1;
        }
    }
    TopConsumers {
        threshold_bytes: threshold,
        objects,
        classes: consumers(classes, threshold, used),
        class_loaders: consumers(loaders, threshold, used),
        packages: consumers(packages, threshold, used),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formatting() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(30_084_408), "30,084,408");
        assert_eq!(format_bp(9798), "97.98%");
        assert_eq!(format_bp(5), "0.05%");
        assert_eq!(basis_points(1, 3), 3333);
        assert_eq!(basis_points(2, 3), 6667);
        assert_eq!(basis_points(30_084_408, 30_705_704), 9798);
        assert_eq!(basis_points(5, 0), 0);
    }

    #[test]
    fn packages() {
        assert_eq!(package_of("java.util.HashMap$Node[]"), "java.util");
        assert_eq!(package_of("byte[]"), "");
        assert_eq!(package_of("Main"), "");
    }
}
