//! Objects and class loaders as every output names them.

use super::Analysis;
use crate::model::format::basis_points;
use crate::model::{ObjectRef, StrengthName};
use crate::rules::strength::Strength;

/// Object `obj` as the output names it: address, class, sizes.
pub fn object_ref(a: &Analysis, obj: u32) -> ObjectRef {
    ObjectRef {
        address: format!("0x{:x}", a.address(obj)),
        class_name: a.class_name(a.class_of(obj)).to_string(),
        class_of_object: a.class_represented_by(obj).map(|c| a.class_name(c).to_string()),
        shallow_bytes: a.shallow(obj),
        retained_bytes: a.retained(obj),
        retained_bp: basis_points(a.retained(obj), a.used_heap),
    }
}

/// `<system class loader>` or `ClassName @ 0x…` for the loader of class `class`.
pub fn loader_label(a: &Analysis, class: u32) -> String {
    let Some(info) = a.heap.index.classes.classes.get(class as usize) else { return String::new() };
    loader_label_of(a, info.loader_id)
}

/// `<system class loader>` or `ClassName @ 0x…` for the loader at `loader_id` (0: the bootstrap loader).
pub fn loader_label_of(a: &Analysis, loader_id: u64) -> String {
    match a.object_at(loader_id) {
        Some(o) if loader_id != 0 => format!("{} @ 0x{:x}", a.class_name(a.class_of(o)), loader_id),
        _ => "<system class loader>".to_string(),
    }
}

/// A strength as the report names it.
pub fn strength_name(s: Strength) -> StrengthName {
    use Strength as S;
    match s {
        S::Strong => StrengthName::Strong,
        S::Cache => StrengthName::Cache,
        S::ThreadLocal => StrengthName::ThreadLocal,
        S::Local => StrengthName::Local,
        S::Soft => StrengthName::Soft,
        S::Weak => StrengthName::Weak,
        S::Finalizer => StrengthName::Finalizer,
        S::Phantom => StrengthName::Phantom,
        S::Unreachable => StrengthName::Unreachable,
    }
}
