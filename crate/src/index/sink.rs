//! What pass 1 hands to a consumer above it as the records go by, without knowing who
//! listens: the waste report hashes primitive arrays' bodies here (so that pass 2 can skip
//! them), an analysis without it passes `()`, and pass 1 then skips the bodies in place.
//!
//! Calls are static (the walk is generic over the sink), so a sink's empty methods cost
//! nothing.

use crate::error::Result;

/// A listener of pass 1.
pub trait Pass1Sink {
    /// Whether the primitive arrays' bodies are wanted: when false they are skipped in
    /// place and [`Pass1Sink::primitive_array_data`] is never called.
    fn wants_primitive_data(&self) -> bool {
        false
    }

    /// A PRIMITIVE ARRAY DUMP of element type `ty` starts (its body, if wanted, follows
    /// in pieces).
    fn primitive_array(&mut self, _ty: u8) -> Result<()> {
        Ok(())
    }

    /// The next piece of the current primitive array's body.
    fn primitive_array_data(&mut self, _data: &[u8]) {}

    /// Pass 1 starts over (the file holds several snapshots and only one is wanted):
    /// forget what was seen.
    fn rewind(&mut self) {}

    /// The walk is over; called before pass 1 builds its index (and frees its
    /// temporaries), so that what the sink keeps is placed first.
    fn walk_done(&mut self) -> Result<()> {
        Ok(())
    }
}

/// Listens to nothing.
impl Pass1Sink for () {}

/// Tells both, `A` first.
impl<A: Pass1Sink, B: Pass1Sink> Pass1Sink for (A, B) {
    fn wants_primitive_data(&self) -> bool {
        self.0.wants_primitive_data() || self.1.wants_primitive_data()
    }

    #[inline]
    fn primitive_array(&mut self, ty: u8) -> Result<()> {
        self.0.primitive_array(ty)?;
        self.1.primitive_array(ty)
    }

    #[inline]
    fn primitive_array_data(&mut self, data: &[u8]) {
        self.0.primitive_array_data(data);
        self.1.primitive_array_data(data);
    }

    fn rewind(&mut self) {
        self.0.rewind();
        self.1.rewind();
    }

    fn walk_done(&mut self) -> Result<()> {
        self.0.walk_done()?;
        self.1.walk_done()
    }
}

/// Tells the sink borrowed.
impl<T: Pass1Sink> Pass1Sink for &mut T {
    fn wants_primitive_data(&self) -> bool {
        (**self).wants_primitive_data()
    }

    #[inline]
    fn primitive_array(&mut self, ty: u8) -> Result<()> {
        (**self).primitive_array(ty)
    }

    #[inline]
    fn primitive_array_data(&mut self, data: &[u8]) {
        (**self).primitive_array_data(data)
    }

    fn rewind(&mut self) {
        (**self).rewind()
    }

    fn walk_done(&mut self) -> Result<()> {
        (**self).walk_done()
    }
}
