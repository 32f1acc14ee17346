//! The class histogram's retained size as MAT's report prints it (`>= N`, the seed's §5):
//! for class C, the objects of C *and C's class object* that no other of them dominates,
//! their retained sizes summed. MAT's API value (`retained_bytes_min`, what
//! `../shared/corpus/expected` holds) leaves the class object out; the report's page counts
//! it in, so a class whose statics hold its instances shows them once, under the class
//! object.
//!
//! Counted in the retained-size walk ([`crate::analysis::tally`]) with every class object
//! counted in the row of the class it stands for. `java.lang.Class`'s row,
//! whose instances are the class objects themselves, is MAT's API value plus, once more,
//! the retained size of `java.lang.Class`'s own class object when no other class object
//! dominates it: MAT hands its top-ancestor search the instances and then the class
//! object, which for this one class is already among them, and the search counts an
//! object given twice twice (proven on every corpus dump: MAT's page shows exactly that
//! much more).

use crate::analysis::Analysis;

/// Per class (index into the class table): MAT's report's quick retained size.
pub fn with_class_objects(a: &Analysis) -> Vec<u64> {
    let jlc = a.heap.index.java_lang_class;
    let mut sums: Vec<u64> = a.classes.iter().map(|s| s.retained_min_with_class).collect();
    if let Some(c) = jlc {
        let twice =
            a.class_object(c).filter(|&o| a.is_kept(o) && !below_a_class_object(a, o, c)).map(|o| a.retained(o));
        if let Some(s) = sums.get_mut(c as usize) {
            *s = a.classes[c as usize].retained_min + twice.unwrap_or(0);
        }
    }
    sums
}

/// Whether an object of class `class` dominates `obj` (above it in the dominator tree).
fn below_a_class_object(a: &Analysis, obj: u32, class: u32) -> bool {
    let mut x = obj;
    while let Some(Some(d)) = a.immediate_dominator(x) {
        if a.class_of(d) == class {
            return true;
        }
        x = d;
    }
    false
}
