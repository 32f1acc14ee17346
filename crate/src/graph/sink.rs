//! What pass 2 hands to consumers above it as it reads every object again, without
//! knowing who listens: the strength-aware reading's owner rules collect view groups'
//! children here, the Android heaps feature each object's heap, the waste report strings,
//! arrays, boxed numbers, collections and allocation sites. An analysis that wants none of
//! it passes `()`.
//!
//! Calls are static (pass 2 is generic over the sink), so a sink's empty methods cost
//! nothing, and `(A, B)` is a sink that tells both.

use crate::error::Result;
use crate::index::Index;

/// A listener of pass 2. Object indices are the dense indices of `index.ids`.
pub trait Pass2Sink {
    /// Whether the walk decodes the allocation stack serial of every object record.
    const ALLOCATION_SERIALS: bool = false;

    /// Pass 2 starts (its own per-object arrays are allocated).
    fn start(&mut self, _index: &Index) -> Result<()> {
        Ok(())
    }

    /// The allocation stack serial of the object record that follows.
    #[inline(always)]
    fn allocation_serial(&mut self, _serial: u32) {}

    /// A HEAP DUMP INFO record (Android): the objects that follow are in heap `heap_id`,
    /// named by the string `name_id`.
    fn heap_info(&mut self, _index: &Index, _heap_id: u32, _name_id: u64) -> Result<()> {
        Ok(())
    }

    /// An object record starts: `obj` is its object, or None when its identifier is not
    /// an object of the index or was defined before (the record is then ignored).
    #[inline(always)]
    fn object(&mut self, _obj: Option<u32>) {}

    /// Whether [`Pass2Sink::instance`] wants the instances of class `class`.
    #[inline(always)]
    fn wants_instance(&self, _class: u32) -> bool {
        false
    }

    /// An instance of class `class` (when wanted): its field bytes, and the objects its
    /// reference fields name (in field order, unsorted, without nulls).
    fn instance(&mut self, _index: &Index, _obj: u32, _class: u32, _fields: &[u8], _targets: &[u32]) -> Result<()> {
        Ok(())
    }

    /// An object array of class `class` with `len` elements; its elements follow.
    fn object_array(&mut self, _obj: u32, _class: u32, _len: u32) -> Result<()> {
        Ok(())
    }

    /// More elements of the current object array (identifiers, `id_size` bytes each).
    fn object_array_elements(&mut self, _bytes: &[u8], _id_size: usize) {}

    /// A primitive array record (`obj` as in [`Pass2Sink::object`]); `has_data` false for
    /// ART's records without their data. Its body is not read (pass 1's sink could).
    fn primitive_array(&mut self, _obj: Option<u32>, _has_data: bool) -> Result<()> {
        Ok(())
    }

    /// The walk is over: called while pass 2's own temporaries are still held, before the
    /// final copies of its arrays, so that what the sink keeps is placed first.
    fn walk_done(&mut self, _index: &Index) -> Result<()> {
        Ok(())
    }
}

/// Listens to nothing.
impl Pass2Sink for () {}

/// Tells both, `A` first.
impl<A: Pass2Sink, B: Pass2Sink> Pass2Sink for (A, B) {
    const ALLOCATION_SERIALS: bool = A::ALLOCATION_SERIALS || B::ALLOCATION_SERIALS;

    fn start(&mut self, index: &Index) -> Result<()> {
        self.0.start(index)?;
        self.1.start(index)
    }

    #[inline(always)]
    fn allocation_serial(&mut self, serial: u32) {
        self.0.allocation_serial(serial);
        self.1.allocation_serial(serial);
    }

    fn heap_info(&mut self, index: &Index, heap_id: u32, name_id: u64) -> Result<()> {
        self.0.heap_info(index, heap_id, name_id)?;
        self.1.heap_info(index, heap_id, name_id)
    }

    #[inline(always)]
    fn object(&mut self, obj: Option<u32>) {
        self.0.object(obj);
        self.1.object(obj);
    }

    #[inline(always)]
    fn wants_instance(&self, class: u32) -> bool {
        self.0.wants_instance(class) || self.1.wants_instance(class)
    }

    #[inline(always)]
    fn instance(&mut self, index: &Index, obj: u32, class: u32, fields: &[u8], targets: &[u32]) -> Result<()> {
        if self.0.wants_instance(class) {
            self.0.instance(index, obj, class, fields, targets)?;
        }
        if self.1.wants_instance(class) {
            self.1.instance(index, obj, class, fields, targets)?;
        }
        Ok(())
    }

    #[inline(always)]
    fn object_array(&mut self, obj: u32, class: u32, len: u32) -> Result<()> {
        self.0.object_array(obj, class, len)?;
        self.1.object_array(obj, class, len)
    }

    #[inline(always)]
    fn object_array_elements(&mut self, bytes: &[u8], id_size: usize) {
        self.0.object_array_elements(bytes, id_size);
        self.1.object_array_elements(bytes, id_size);
    }

    #[inline(always)]
    fn primitive_array(&mut self, obj: Option<u32>, has_data: bool) -> Result<()> {
        self.0.primitive_array(obj, has_data)?;
        self.1.primitive_array(obj, has_data)
    }

    fn walk_done(&mut self, index: &Index) -> Result<()> {
        self.0.walk_done(index)?;
        self.1.walk_done(index)
    }
}

/// Tells `T` when there is one.
impl<T: Pass2Sink> Pass2Sink for Option<T> {
    const ALLOCATION_SERIALS: bool = T::ALLOCATION_SERIALS;

    fn start(&mut self, index: &Index) -> Result<()> {
        self.as_mut().map_or(Ok(()), |t| t.start(index))
    }

    #[inline(always)]
    fn allocation_serial(&mut self, serial: u32) {
        if let Some(t) = self {
            t.allocation_serial(serial);
        }
    }

    fn heap_info(&mut self, index: &Index, heap_id: u32, name_id: u64) -> Result<()> {
        self.as_mut().map_or(Ok(()), |t| t.heap_info(index, heap_id, name_id))
    }

    #[inline(always)]
    fn object(&mut self, obj: Option<u32>) {
        if let Some(t) = self {
            t.object(obj);
        }
    }

    #[inline(always)]
    fn wants_instance(&self, class: u32) -> bool {
        self.as_ref().is_some_and(|t| t.wants_instance(class))
    }

    fn instance(&mut self, index: &Index, obj: u32, class: u32, fields: &[u8], targets: &[u32]) -> Result<()> {
        self.as_mut().map_or(Ok(()), |t| t.instance(index, obj, class, fields, targets))
    }

    #[inline(always)]
    fn object_array(&mut self, obj: u32, class: u32, len: u32) -> Result<()> {
        self.as_mut().map_or(Ok(()), |t| t.object_array(obj, class, len))
    }

    #[inline(always)]
    fn object_array_elements(&mut self, bytes: &[u8], id_size: usize) {
        if let Some(t) = self {
            t.object_array_elements(bytes, id_size);
        }
    }

    #[inline(always)]
    fn primitive_array(&mut self, obj: Option<u32>, has_data: bool) -> Result<()> {
        self.as_mut().map_or(Ok(()), |t| t.primitive_array(obj, has_data))
    }

    fn walk_done(&mut self, index: &Index) -> Result<()> {
        self.as_mut().map_or(Ok(()), |t| t.walk_done(index))
    }
}

/// Tells the sink borrowed.
impl<T: Pass2Sink> Pass2Sink for &mut T {
    const ALLOCATION_SERIALS: bool = T::ALLOCATION_SERIALS;

    fn start(&mut self, index: &Index) -> Result<()> {
        (**self).start(index)
    }

    #[inline(always)]
    fn allocation_serial(&mut self, serial: u32) {
        (**self).allocation_serial(serial)
    }

    fn heap_info(&mut self, index: &Index, heap_id: u32, name_id: u64) -> Result<()> {
        (**self).heap_info(index, heap_id, name_id)
    }

    #[inline(always)]
    fn object(&mut self, obj: Option<u32>) {
        (**self).object(obj)
    }

    #[inline(always)]
    fn wants_instance(&self, class: u32) -> bool {
        (**self).wants_instance(class)
    }

    #[inline(always)]
    fn instance(&mut self, index: &Index, obj: u32, class: u32, fields: &[u8], targets: &[u32]) -> Result<()> {
        (**self).instance(index, obj, class, fields, targets)
    }

    #[inline(always)]
    fn object_array(&mut self, obj: u32, class: u32, len: u32) -> Result<()> {
        (**self).object_array(obj, class, len)
    }

    #[inline(always)]
    fn object_array_elements(&mut self, bytes: &[u8], id_size: usize) {
        (**self).object_array_elements(bytes, id_size)
    }

    #[inline(always)]
    fn primitive_array(&mut self, obj: Option<u32>, has_data: bool) -> Result<()> {
        (**self).primitive_array(obj, has_data)
    }

    fn walk_done(&mut self, index: &Index) -> Result<()> {
        (**self).walk_done(index)
    }
}
