//! GC roots as MAT counts them.
//!
//! - Roots are per object: an object named by several root records is one root, carrying
//!   every kind it was named with.
//! - Java-frame, JNI-local, native-stack and thread-block roots whose thread serial
//!   belongs to a THREAD OBJECT are not roots: they become references from that thread
//!   object to the local (MAT shows them under the thread). Only roots of unknown threads
//!   stay roots, and those under a THREAD OBJECT naming object 0: MAT takes a thread id of
//!   0 for no thread, and keeps each such local as a root of its own kind.
//! - A dump without any STICKY CLASS root gets every non-array class of the bootstrap
//!   loader (loader id 0) as a System Class root.
//! - Roots naming identifiers that are not objects of the dump are dropped (and counted).

use std::collections::HashMap;

use crate::error::Result;
use crate::index::Index;
use crate::records::heap::RootKind;
use crate::rules::roots::RootKinds;

pub struct GcRoots {
    /// Root objects, ascending by object index, with their kinds.
    pub objects: Vec<(u32, RootKinds)>,
    /// (thread object, local) references taken from thread-local root records.
    pub thread_locals: Vec<(u32, u32)>,
    /// Thread serial → thread object index.
    pub thread_by_serial: HashMap<u32, u32>,
    /// Root records naming no object of the dump.
    pub missing: u64,
    /// Whether the System Class roots were synthesized (no STICKY CLASS record).
    pub synthesized_system_classes: bool,
}

impl GcRoots {
    pub fn resolve(index: &Index) -> Result<GcRoots> {
        let ids = &index.ids;
        // Thread serials are known from their THREAD OBJECT record on, in file order (as
        // in MAT): a local named before its thread's record stays a root.
        let mut thread_by_serial: HashMap<u32, Option<u32>> = HashMap::new();
        let mut objects: Vec<(u32, RootKinds)> = Vec::with_capacity(index.roots.len());
        let mut thread_locals = Vec::new();
        let mut missing = 0;
        let mut sticky = false;
        for r in &index.roots {
            let obj = ids.index_of(r.id);
            if r.kind == RootKind::ThreadObject {
                if let Some(serial) = r.thread_serial {
                    if r.id == 0 {
                        thread_by_serial.remove(&serial);
                    } else {
                        thread_by_serial.insert(serial, obj);
                    }
                }
            }
            let thread_local = matches!(
                r.kind,
                RootKind::JavaFrame | RootKind::JniLocal | RootKind::NativeStack | RootKind::ThreadBlock
            );
            if thread_local {
                if let Some(&thread) = r.thread_serial.and_then(|s| thread_by_serial.get(&s)) {
                    // A known thread whose object is not in the dump takes its locals along.
                    if let (Some(thread), Some(obj)) = (thread, obj) {
                        thread_locals.push((thread, obj));
                    } else if obj.is_none() {
                        missing += 1;
                    }
                    continue;
                }
            }
            let Some(obj) = obj else {
                missing += 1;
                continue;
            };
            sticky |= r.kind == RootKind::StickyClass;
            objects.push((obj, RootKinds::default().with(r.kind)));
        }
        let thread_by_serial: HashMap<u32, u32> =
            thread_by_serial.into_iter().filter_map(|(s, t)| Some((s, t?))).collect();
        let synthesized_system_classes = !sticky;
        objects.sort_unstable_by_key(|&(o, _)| o);
        if !sticky {
            // Classes of the bootstrap loader that are not roots already.
            let mut extra = Vec::new();
            for c in &index.classes.classes {
                if c.loader_id == 0 && !c.is_array() {
                    if let Some(obj) = ids.index_of(c.id) {
                        if objects.binary_search_by_key(&obj, |&(o, _)| o).is_err() {
                            extra.push((obj, RootKinds::default().with(RootKind::StickyClass)));
                        }
                    }
                }
            }
            objects.extend(extra);
            objects.sort_unstable_by_key(|&(o, _)| o);
        }
        let mut merged: Vec<(u32, RootKinds)> = Vec::with_capacity(objects.len());
        for (o, k) in objects {
            match merged.last_mut() {
                Some((last, kinds)) if *last == o => kinds.0 |= k.0,
                _ => merged.push((o, k)),
            }
        }
        Ok(GcRoots { objects: merged, thread_locals, thread_by_serial, missing, synthesized_system_classes })
    }

    pub fn kinds_of(&self, obj: u32) -> RootKinds {
        match self.objects.binary_search_by_key(&obj, |&(o, _)| o) {
            Ok(i) => self.objects[i].1,
            Err(_) => RootKinds::default(),
        }
    }
}
