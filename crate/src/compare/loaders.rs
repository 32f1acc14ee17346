//! Class loader names that stay the same from one dump to the next.
//!
//! A report names a loader `ClassName @ 0x…`, and the address moves between dumps. The
//! comparison names it instead by what it is and what it defines, from the report's
//! histogram alone (so a saved report works as well as a dump):
//! - the bootstrap loader stays `<system class loader>`;
//! - a loader whose class has no other instance defining classes is its class name
//!   (`jdk.internal.loader.ClassLoaders$AppClassLoader`);
//! - several loaders of one class are told apart by the lowest class name each defines:
//!   `corpus.ClassGen$GenLoader defining dyn.kept.KeptGen000`. Loaders that define the
//!   same lowest name too (the same plugin loaded twice) get ` #2`, ` #3`… in the order
//!   of their class count (larger first), then of address — the only case where the name
//!   can depend on addresses.
//!
//! Limitation: a loader that defines a new lowest class name between the two dumps gets
//! another name, and its classes show as `gone` under the old name and `new` under the
//! new one. Only loaders sharing their class with another loader are named this way.
//!
//! Linear in the histogram's rows (plus sorting the loaders).

use std::collections::BTreeMap;

use crate::model::HistogramRow;

/// The bootstrap loader's name in reports.
pub const SYSTEM_LOADER: &str = "<system class loader>";

/// Report loader label → stable name, for every loader of `histogram`.
pub fn stable_names(histogram: &[HistogramRow]) -> BTreeMap<String, String> {
    // label → (lowest class name defined, classes defined)
    let mut defined: BTreeMap<&str, (&str, u64)> = BTreeMap::new();
    for row in histogram {
        let e = defined.entry(row.loader.as_str()).or_insert((row.class_name.as_str(), 0));
        e.0 = e.0.min(row.class_name.as_str());
        e.1 += 1;
    }
    // loader class name → its loaders' labels
    let mut by_class: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut out = BTreeMap::new();
    for &label in defined.keys() {
        match loader_class(label) {
            Some(class) => by_class.entry(class).or_default().push(label),
            None => {
                out.insert(label.to_string(), label.to_string());
            }
        }
    }
    for (class, mut labels) in by_class {
        if let [label] = labels[..] {
            out.insert(label.to_string(), class.to_string());
            continue;
        }
        labels.sort_by(|x, y| {
            let (dx, dy) = (defined[x], defined[y]);
            dx.0.cmp(dy.0).then(dy.1.cmp(&dx.1)).then(address_of(x).cmp(&address_of(y))).then(x.cmp(y))
        });
        let mut previous: Option<&str> = None;
        let mut ordinal = 1;
        for label in labels {
            let first = defined[label].0;
            ordinal = if previous == Some(first) { ordinal + 1 } else { 1 };
            previous = Some(first);
            let name = if ordinal == 1 {
                format!("{class} defining {first}")
            } else {
                format!("{class} defining {first} #{ordinal}")
            };
            out.insert(label.to_string(), name);
        }
    }
    out
}

/// The class name of a `ClassName @ 0x…` label; None for the system loader.
fn loader_class(label: &str) -> Option<&str> {
    label.rsplit_once(" @ 0x").map(|(class, _)| class)
}

fn address_of(label: &str) -> u64 {
    label.rsplit_once(" @ 0x").and_then(|(_, hex)| u64::from_str_radix(hex, 16).ok()).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(class_name: &str, loader: &str) -> HistogramRow {
        HistogramRow {
            class_name: class_name.into(),
            class_address: "0x1".into(),
            loader: loader.into(),
            instances: 0,
            shallow_bytes: 0,
            retained_bytes_min: 0,
            retained_bytes_with_class: None,
            heaps: Vec::new(),
        }
    }

    #[test]
    fn names_do_not_depend_on_addresses() {
        let names = |a: u64, b: u64, c: u64| {
            let h = vec![
                row("java.lang.String", SYSTEM_LOADER),
                row("app.Main", &format!("app.AppLoader @ 0x{a:x}")),
                row("p.B", &format!("p.Gen @ 0x{b:x}")),
                row("p.A", &format!("p.Gen @ 0x{b:x}")),
                row("q.A", &format!("p.Gen @ 0x{c:x}")),
            ];
            let m = stable_names(&h);
            h.iter().map(|r| m[&r.loader].clone()).collect::<Vec<_>>()
        };
        let expected = vec![
            SYSTEM_LOADER.to_string(),
            "app.AppLoader".into(),
            "p.Gen defining p.A".into(),
            "p.Gen defining p.A".into(),
            "p.Gen defining q.A".into(),
        ];
        assert_eq!(names(0x10, 0x20, 0x30), expected);
        assert_eq!(names(0x90, 0x80, 0x70), expected, "addresses moved, names stay");
    }

    #[test]
    fn the_same_plugin_loaded_twice_gets_ordinals() {
        let h = vec![row("p.A", "p.Gen @ 0x20"), row("p.A", "p.Gen @ 0x10"), row("p.B", "p.Gen @ 0x10")];
        let m = stable_names(&h);
        assert_eq!(m["p.Gen @ 0x10"], "p.Gen defining p.A", "more classes first");
        assert_eq!(m["p.Gen @ 0x20"], "p.Gen defining p.A #2");
    }
}
