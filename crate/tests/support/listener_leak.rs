//! A listener leak built with the test builder (used by the findings and compare tests).

use super::hprof_builder::{ClassDef, Hprof, Value};
use heapscope::records::basic_type::{BYTE, INT, OBJECT};

/// A listener leak as a JVM dumps it: the application class loader (held by a JNI global)
/// keeps its classes in a `Vector` (`classes`, the class `EventBus` at `elementData[5]`);
/// `EventBus`'s static `INSTANCE` has a `CopyOnWriteArrayList` `listeners` of `n`
/// anonymous `Screen$1`, each holding its own `Screen` (with a byte[1,000]) by `this$0`.
pub fn listener_leak(n: u64) -> Vec<u8> {
    const OBJ: u64 = 0x100;
    const CLASS: u64 = 0x108;
    const LOADER_BASE: u64 = 0x110;
    const APP_LOADER: u64 = 0x118;
    const VECTOR: u64 = 0x120;
    const OBJECTS: u64 = 0x128;
    const BUS: u64 = 0x130;
    const COW: u64 = 0x138;
    const LISTENER: u64 = 0x140;
    const SCREEN: u64 = 0x148;
    const BYTES: u64 = 0x150;
    let (loader, vector, elements, bus, list, array) = (0x1000, 0x1100, 0x1200, 0x1300, 0x1400, 0x1500);
    let mut h = Hprof::new(8);
    let names = [
        (1, "java/lang/Object"),
        (2, "java/lang/Class"),
        (3, "java/lang/ClassLoader"),
        (4, "jdk/internal/loader/ClassLoaders$AppClassLoader"),
        (5, "java/util/Vector"),
        (6, "[Ljava/lang/Object;"),
        (7, "com/acme/ui/EventBus"),
        (8, "java/util/concurrent/CopyOnWriteArrayList"),
        (9, "com/acme/ui/Screen$1"),
        (10, "com/acme/ui/Screen"),
        (11, "[B"),
        (20, "classes"),
        (21, "elementData"),
        (22, "elementCount"),
        (23, "INSTANCE"),
        (24, "listeners"),
        (25, "array"),
        (26, "this$0"),
        (27, "pixels"),
    ];
    for (id, text) in names {
        h.string(id, text);
    }
    let classes = [OBJ, CLASS, LOADER_BASE, APP_LOADER, VECTOR, OBJECTS, BUS, COW, LISTENER, SCREEN, BYTES];
    for (k, &id) in classes.iter().enumerate() {
        h.load_class(k as u32 + 1, id, k as u64 + 1);
    }
    let mut seg = h.segment_builder();
    seg.class_dump(&ClassDef::new(OBJ, 0))
        .class_dump(&ClassDef::new(CLASS, OBJ))
        .class_dump(&ClassDef::new(LOADER_BASE, OBJ))
        .class_dump(&ClassDef::new(APP_LOADER, LOADER_BASE).field(20, OBJECT))
        .class_dump(&ClassDef::new(VECTOR, OBJ).field(21, OBJECT).field(22, INT))
        .class_dump(&ClassDef::new(OBJECTS, OBJ))
        .class_dump(&ClassDef::new(BYTES, OBJ))
        .class_dump(&ClassDef::new(COW, OBJ).field(25, OBJECT))
        .class_dump(&ClassDef::new(BUS, OBJ).loader(loader).static_field(23, Value::Obj(bus)).field(24, OBJECT))
        .class_dump(&ClassDef::new(LISTENER, OBJ).loader(loader).field(26, OBJECT))
        .class_dump(&ClassDef::new(SCREEN, OBJ).loader(loader).field(27, OBJECT));
    // The JDK's classes are system classes; the application's are reached through their loader.
    for id in [OBJ, CLASS, LOADER_BASE, APP_LOADER, VECTOR, OBJECTS, BYTES, COW] {
        seg.root_sticky_class(id);
    }
    seg.instance(loader, APP_LOADER, &[Value::Obj(vector)]).root_jni_global(loader, 0x9);
    seg.instance(vector, VECTOR, &[Value::Obj(elements), Value::Int(6)]);
    seg.object_array(elements, OBJECTS, &[SCREEN, LISTENER, 0, 0, 0, BUS]);
    seg.instance(bus, BUS, &[Value::Obj(list)]);
    seg.instance(list, COW, &[Value::Obj(array)]);
    let listeners: Vec<u64> = (0..n).map(|i| 0x10_0000 + i * 0x10).collect();
    seg.object_array(array, OBJECTS, &listeners);
    for (i, &l) in listeners.iter().enumerate() {
        let screen = 0x20_0000 + i as u64 * 0x10;
        let pixels = 0x100_0000 + i as u64 * 0x1000;
        seg.instance(l, LISTENER, &[Value::Obj(screen)]);
        seg.instance(screen, SCREEN, &[Value::Obj(pixels)]);
        seg.primitive_array(pixels, BYTE, 1_000);
    }
    h.segment(&seg).heap_dump_end();
    h.into_bytes()
}
