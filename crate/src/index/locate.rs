//! Finding an object's record in the file again, without storing an offset per object.
//!
//! Pass 1 cuts the heap dump segments into spans of about [`SPAN`] bytes (at record
//! boundaries) and remembers, per span, where it starts and the lowest and highest
//! object address in it. Dumps write objects in heap order within a segment, so an
//! address usually falls into one span or a few; reading those spans again finds the
//! record. The index costs 40 bytes per span, 160 per MiB of dump, instead of 8 bytes per
//! object.

/// Target size of one span. Finding one object reads its span (the page reads it from
/// the file again, in one slice): a quarter of a MiB keeps the few dozen lookups of a
/// report and each question of the inspector to a quarter of a MiB each.
pub const SPAN: u64 = 1 << 18;

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
                self.open = Some(Span {
                    start: offset,
                    end: offset,
                    segment_end: self.segment_end,
                    min_id: u64::MAX,
                    max_id: 0,
                });
                self.open.as_mut().expect("just opened")
            }
            None => {
                self.open = Some(Span {
                    start: offset,
                    end: offset,
                    segment_end: self.segment_end,
                    min_id: u64::MAX,
                    max_id: 0,
                });
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

    /// Spans that may hold the object at `id`, most likely first: the narrowest address
    /// range first (ties in file order). A span holding a few objects far from the rest
    /// (a dump's first span, with the classes, often covers most of the heap's addresses)
    /// is a candidate for nearly every address, and walking it first would read a whole
    /// span more for almost every lookup.
    pub fn candidates(&self, id: u64) -> impl Iterator<Item = &Span> {
        let mut found: Vec<&Span> = self.spans.iter().filter(|s| s.min_id <= id && id <= s.max_id).collect();
        found.sort_by_key(|s| s.max_id - s.min_id);
        found.into_iter()
    }

    /// Every object's most likely span ([`Self::candidates`]), in file order.
    pub fn likeliest_spans(&self, ids: impl IntoIterator<Item = u64>) -> Vec<Span> {
        by_offset(ids.into_iter().filter_map(|id| self.candidates(id).next().copied()).collect())
    }

    /// The other candidates of `ids`, in file order, leaving out the spans of `walked`
    /// (in file order).
    pub fn other_spans(&self, ids: impl IntoIterator<Item = u64>, walked: &[Span]) -> Vec<Span> {
        let key = |s: &Span| (s.start, s.end);
        by_offset(
            ids.into_iter()
                .flat_map(|id| self.candidates(id).skip(1).copied())
                .filter(|s| walked.binary_search_by_key(&key(s), key).is_err())
                .collect(),
        )
    }

    /// The spans to walk to find every object of `ids`: the likeliest ones, then the
    /// others. A walk that stops once it has found every object mostly reads the first.
    pub fn spans_for(&self, ids: impl IntoIterator<Item = u64> + Clone) -> Vec<Span> {
        let mut spans = self.likeliest_spans(ids.clone());
        let others = self.other_spans(ids, &spans);
        spans.extend(others);
        spans
    }

    pub fn spans(&self) -> &[Span] {
        &self.spans
    }
}

/// `spans` sorted by offset, each once.
fn by_offset(mut spans: Vec<Span>) -> Vec<Span> {
    spans.sort_unstable_by_key(|s| (s.start, s.end));
    spans.dedup();
    spans
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

    #[test]
    fn narrowest_candidate_first() {
        let mut l = Locator::default();
        l.segment(0, 10 * SPAN);
        // A first span reaching from 0x100 to 0x9000, then two narrow ones inside it.
        l.object(0x100, 0);
        l.object(0x9000, 10);
        l.object(0x2000, SPAN + 1);
        l.object(0x2100, SPAN + 2);
        l.object(0x3000, 2 * SPAN + 1);
        l.object(0x3100, 2 * SPAN + 2);
        l.finish(10 * SPAN);
        let starts = |id| l.candidates(id).map(|s| s.start).collect::<Vec<_>>();
        assert_eq!(starts(0x3080), [2 * SPAN + 1, 0]);
        assert_eq!(starts(0x2080), [SPAN + 1, 0]);
        assert_eq!(starts(0x5000), [0]);
        let order = l.spans_for([0x3080, 0x2080, 0x5000]).iter().map(|s| s.start).collect::<Vec<_>>();
        assert_eq!(order, [0, SPAN + 1, 2 * SPAN + 1]);
        let order = l.spans_for([0x3080, 0x2080]).iter().map(|s| s.start).collect::<Vec<_>>();
        assert_eq!(order, [SPAN + 1, 2 * SPAN + 1, 0]);
    }
}
