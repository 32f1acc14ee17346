//! Finding an object's record in the file again, without storing an offset per object.
//!
//! Pass 1 cuts the heap dump segments into spans of about [`SPAN`] bytes (at record
//! boundaries) and remembers, per span, where it starts and the lowest and highest
//! object address in it. Dumps write objects in heap order within a segment, so an
//! address usually falls into one span or a few; reading those spans again finds the
//! record. The index costs 32 bytes per MiB of dump instead of 8 bytes per object.

/// Target size of one span.
pub const SPAN: u64 = 1 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Offset of the first sub-record of the span.
    pub start: u64,
    /// Offset of the last object record of the span.
    pub end: u64,
    /// End of the heap dump segment the span is in.
    pub segment_end: u64,
    pub min_id: u64,
    pub max_id: u64,
}

#[derive(Debug, Default)]
pub struct Locator {
    spans: Vec<Span>,
    open: Option<Span>,
    segment_end: u64,
}

impl Locator {
    /// A heap dump segment's sub-records run from `body` to `end`.
    pub fn segment(&mut self, body: u64, end: u64) {
        self.close();
        self.segment_end = end;
        self.open = Some(Span { start: body, end: body, segment_end: end, min_id: u64::MAX, max_id: 0 });
    }

    /// An object record with identifier `id` starts at `offset`: it joins the open span,
    /// or opens the next one once the open span covers [`SPAN`] bytes.
    #[inline]
    pub fn object(&mut self, id: u64, offset: u64) {
        let span = match &mut self.open {
            Some(s) if offset - s.start < SPAN => s,
            Some(_) => {
                self.close();
                self.open = Some(Span { start: offset, end: offset, segment_end: self.segment_end, min_id: u64::MAX, max_id: 0 });
                self.open.as_mut().expect("just opened")
            }
            None => {
                self.open = Some(Span { start: offset, end: offset, segment_end: self.segment_end, min_id: u64::MAX, max_id: 0 });
                self.open.as_mut().expect("just opened")
            }
        };
        span.min_id = span.min_id.min(id);
        span.max_id = span.max_id.max(id);
        span.end = offset;
    }

    fn close(&mut self) {
        if let Some(s) = self.open.take() {
            if s.min_id <= s.max_id {
                self.spans.push(s);
            }
        }
    }

    /// Closes the last span; `readable_end` caps segment ends of a truncated dump.
    pub fn finish(&mut self, readable_end: u64) {
        self.close();
        for s in &mut self.spans {
            s.segment_end = s.segment_end.min(readable_end);
        }
        self.spans.shrink_to_fit();
    }

    /// Spans that may hold the object at `id`, most likely first.
    pub fn candidates(&self, id: u64) -> impl Iterator<Item = &Span> {
        self.spans.iter().filter(move |s| s.min_id <= id && id <= s.max_id)
    }

    pub fn spans(&self) -> &[Span] {
        &self.spans
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_split_by_size_and_segment() {
        let mut l = Locator::default();
        l.segment(100, 5 * SPAN - 1);
        l.object(0x1000, 100);
        l.object(0x1010, 200);
        l.object(0x2000, 100 + SPAN + 5);
        l.segment(5 * SPAN, 7 * SPAN);
        l.object(0x500, 5 * SPAN + 9);
        l.finish(6 * SPAN);
        let s = l.spans();
        assert_eq!(s.len(), 3);
        assert_eq!((s[0].start, s[0].min_id, s[0].max_id), (100, 0x1000, 0x1010));
        assert_eq!((s[1].start, s[1].min_id), (100 + SPAN + 5, 0x2000));
        assert_eq!((s[2].end, s[2].segment_end), (5 * SPAN + 9, 6 * SPAN));
        assert_eq!(l.candidates(0x1008).count(), 1);
        assert_eq!(l.candidates(0x1800).count(), 0);
    }
}
