//! Class names as people read them: the package and the simple name of a dotted Java
//! class name (`java.util.HashMap$Node[]`: package `java.util`, simple name
//! `HashMap$Node[]`), and whether a class is a collection.

/// Package of a class name: up to the last dot; arrays count as their element class;
/// primitive arrays and classes without a package have "" (the default package).
pub fn package_of(class_name: &str) -> &str {
    let base = class_name.trim_end_matches("[]");
    match base.rfind('.') {
        Some(i) => &base[..i],
        None => "",
    }
}

/// The simple name of a class: after its package (`corpus.S02StaticMapLeak$Inner` →
/// `S02StaticMapLeak$Inner`, `java.util.HashMap$Node[]` → `HashMap$Node[]`).
pub fn simple_name(name: &str) -> &str {
    let base = name.find('[').map_or(name, |i| &name[..i]);
    match base.rfind('.') {
        Some(i) => &name[i + 1..],
        None => name,
    }
}

/// Words in a class's innermost simple name that make it a collection.
const COLLECTION_WORDS: [&str; 9] =
    ["Map", "List", "Set", "Queue", "Deque", "Vector", "Stack", "Hashtable", "Collection"];

/// Whether instances of class `name` are collections, by the innermost simple name
/// (`HashMap`, `CopyOnWriteArrayList`, `Collections$UnmodifiableMap`; not an array, not
/// `HashMap$Node`, not `ThreadLocal$ThreadLocalMap$Entry`).
pub fn is_collection_class(name: &str) -> bool {
    if name.ends_with("[]") {
        return false;
    }
    let inner = simple_name(name).rsplit('$').next().unwrap_or(name);
    COLLECTION_WORDS.iter().any(|w| inner.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_and_simple_names() {
        assert_eq!(package_of("java.util.HashMap$Node[]"), "java.util");
        assert_eq!(package_of("byte[]"), "");
        assert_eq!(simple_name("corpus.S02StaticMapLeak$Inner"), "S02StaticMapLeak$Inner");
        assert_eq!(simple_name("java.util.HashMap$Node[]"), "HashMap$Node[]");
        assert_eq!(simple_name("byte[]"), "byte[]");
        assert_eq!(simple_name("Plain"), "Plain");
    }

    #[test]
    fn collections_by_their_innermost_name() {
        for c in
            ["java.util.HashMap", "java.util.concurrent.CopyOnWriteArrayList", "java.util.Collections$UnmodifiableMap"]
        {
            assert!(is_collection_class(c), "{c}");
        }
        for c in
            ["java.util.HashMap$Node", "java.lang.ThreadLocal$ThreadLocalMap$Entry", "java.util.HashMap[]", "int[]"]
        {
            assert!(!is_collection_class(c), "{c}");
        }
    }
}
