//! Classes whose names change from one run of a program to the next, matched across two
//! dumps by their names without the part that changes.
//!
//! The JVM names a hidden class (a lambda's class, a `LambdaForm`, any class defined with
//! `Lookup.defineHiddenClass`) after its host with the class's address appended:
//! `Foo$$Lambda$14+0x00007f48e504a0c0` in HotSpot's heap dumps (JDK 17+; the class's own
//! name has `/0x…`, which a dump may also show as `.0x…`), `LambdaForm$MH/0x…`. A dynamic
//! proxy is named by a counter, `$Proxy12`, in a module `jdk.proxy2` also numbered in
//! order of use. The address differs in every run; the counters whenever the program
//! creates its proxies in another order. The *key* of a class name drops them:
//! `Foo$$Lambda$14`, `java.lang.invoke.LambdaForm$MH`, `jdk.proxy.$Proxy`; classes with
//! the same key on one side are one row (their numbers added).
//!
//! No valid Java identifier starts with a digit, so `+0x…`, `/0x…` and `.0x…` at the end
//! of a name can only be such an address.

use std::borrow::Cow;

/// `name` without a hidden class's address and a proxy's counters (arrays keep their
/// `[]`); other names unchanged.
pub fn class_key(name: &str) -> Cow<'_, str> {
    let base = name.trim_end_matches("[]");
    let dims = &name[base.len()..];
    let mut key = Cow::Borrowed(base);
    if let Some(cut) = address_suffix(base) {
        key = Cow::Borrowed(&base[..cut]);
    }
    if let Some(proxy) = proxy_key(&key) {
        key = Cow::Owned(proxy);
    }
    match key {
        Cow::Borrowed(k) if k.len() == base.len() => Cow::Borrowed(name),
        k => Cow::Owned(format!("{k}{dims}")),
    }
}

/// Where `+0x…`, `/0x…` or `.0x…` (hex digits to the end) starts, if `name` ends so.
fn address_suffix(name: &str) -> Option<usize> {
    let at = name.rfind("0x")?;
    let digits = &name[at + 2..];
    if at == 0 || digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    matches!(name.as_bytes()[at - 1], b'+' | b'/' | b'.').then_some(at - 1)
}

/// `jdk.proxy2.$Proxy12` → `jdk.proxy.$Proxy` (a simple name `$Proxy` + digits; a
/// package segment `proxy` + digits directly under `jdk`).
fn proxy_key(name: &str) -> Option<String> {
    let (package, simple) = name.rsplit_once('.').map_or(("", name), |(p, s)| (p, s));
    let counter = simple.strip_prefix("$Proxy")?;
    if counter.is_empty() || !counter.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let package = match package.strip_prefix("jdk.proxy") {
        Some(n) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => "jdk.proxy",
        _ => package,
    };
    Some(if package.is_empty() { "$Proxy".to_string() } else { format!("{package}.$Proxy") })
}

#[cfg(test)]
mod tests {
    use super::class_key;

    #[test]
    fn addresses_and_counters_are_left_out() {
        let cases = [
            (
                "com.sun.management.internal.HotSpotDiagnostic$$Lambda$14+0x00007f701d04a0c0",
                "com.sun.management.internal.HotSpotDiagnostic$$Lambda$14",
            ),
            ("java.util.stream.Collectors$$Lambda$22+0x800000035", "java.util.stream.Collectors$$Lambda$22"),
            ("Foo$$Lambda$14/0x0000000800c03000", "Foo$$Lambda$14"),
            ("Foo$$Lambda/0x0000000800c03000[]", "Foo$$Lambda[]"),
            ("java.lang.invoke.LambdaForm$MH.0x0000000800c0c000", "java.lang.invoke.LambdaForm$MH"),
            ("jdk.proxy2.$Proxy12", "jdk.proxy.$Proxy"),
            ("com.sun.proxy.$Proxy7[][]", "com.sun.proxy.$Proxy[][]"),
            ("$Proxy3", "$Proxy"),
        ];
        for (name, key) in cases {
            assert_eq!(class_key(name), key, "{name}");
        }
        for same in [
            "java.lang.String",
            "byte[]",
            "a.b0x12",
            "Foo$Proxy",
            "p.$ProxyX",
            "a.0x",
            "java.lang.invoke.LambdaForm$MH",
        ] {
            assert_eq!(class_key(same), same);
        }
    }
}
