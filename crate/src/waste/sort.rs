//! Sorting the waste report's entries by their 64-bit hash keys, in place: the keys are
//! uniformly spread, so the top 8 bits split the entries into 256 buckets, swapped into
//! place (an American flag sort's step: each bucket's next free place is read and
//! written sequentially, 256 streams that stay in cache); each bucket is then scattered
//! on the next 12 bits (8 in a bucket under 8192 entries) into a scratch copy of its own
//! size (a few hundred KiB, reused), and the resulting runs, a few entries each on
//! average, are sorted in cache: by insertion up to 16 entries, by a comparison sort
//! beyond (equal keys, e.g. a value held by 10⁵ strings, make long runs). Linear plus
//! tiny sorts, several times faster than a comparison sort over millions of entries,
//! and no memory beyond one bucket's copy: the entries are the largest lists of the
//! waste report. Without memory for that copy a bucket is sorted in place instead.

/// Sorts `v` by `key` (ties in no particular order).
pub fn by_hash<T: Copy, K: Fn(&T) -> u64>(v: &mut [T], key: K) {
    const BUCKETS: usize = 256;
    if v.len() < 1 << 16 {
        v.sort_unstable_by_key(|x| key(x));
        return;
    }
    let top = |x: &T| (key(x) >> 56) as usize;
    let mut start = [0usize; BUCKETS + 1];
    for x in v.iter() {
        start[top(x) + 1] += 1;
    }
    for b in 0..BUCKETS {
        start[b + 1] += start[b];
    }
    // `next[b]`: the first place of bucket b not yet holding one of its own entries.
    let mut next = start;
    for b in 0..BUCKETS {
        while next[b] < start[b + 1] {
            let mut x = v[next[b]];
            let mut d = top(&x);
            // Carry the displaced entry to its bucket until one of bucket b comes back.
            while d != b {
                std::mem::swap(&mut x, &mut v[next[d]]);
                next[d] += 1;
                d = top(&x);
            }
            v[next[b]] = x;
            next[b] += 1;
        }
    }
    let mut scratch: Vec<T> = Vec::new();
    let mut at = vec![0usize; (1 << WIDE) + 1];
    for b in 0..BUCKETS {
        let part = &mut v[start[b]..start[b + 1]];
        scratch.clear();
        if part.len() < 1 << 10 || scratch.try_reserve_exact(part.len()).is_err() {
            part.sort_unstable_by_key(|x| key(x));
            continue;
        }
        sort_bucket(part, &mut scratch, &mut at, &key);
    }
}

/// Sorts one top-level bucket by its next bits, then each run. A function of its own,
/// called once per bucket, so that in the page V8 optimizes it after the first buckets:
/// the warm-up's dump is too small to reach this path, and wasm code called once runs
/// to its end in baseline code.
#[inline(never)]
fn sort_bucket<T: Copy, K: Fn(&T) -> u64>(part: &mut [T], scratch: &mut Vec<T>, at: &mut [usize], key: &K) {
    // The next 8 bits, or 12 in a large bucket: runs of a few entries on average.
    let bits = if part.len() >= 1 << 13 { WIDE } else { 8 };
    let digits = 1usize << bits;
    let second = |x: &T| ((key(x) >> (56 - bits)) as usize) & (digits - 1);
    let at = &mut at[..digits + 1];
    at.fill(0);
    for x in part.iter() {
        at[second(x) + 1] += 1;
    }
    for k in 0..digits {
        at[k + 1] += at[k];
    }
    scratch.extend_from_slice(part);
    // Scattered from the scratch copy; `at[k]` ends where run k ends, i.e. at the
    // start of run k + 1.
    for x in scratch.iter() {
        let k = second(x);
        part[at[k]] = *x;
        at[k] += 1;
    }
    let mut from = 0;
    for &end in &at[..digits] {
        let run = &mut part[from..end];
        from = end;
        if run.len() <= SMALL {
            insertion_sort(run, key);
        } else {
            run.sort_unstable_by_key(|x| key(x));
        }
    }
}

/// Bits of the second level in a large bucket.
const WIDE: u32 = 12;
/// Runs up to this length are sorted by insertion (no call, no recursion).
const SMALL: usize = 16;

#[inline]
fn insertion_sort<T: Copy, K: Fn(&T) -> u64>(run: &mut [T], key: &K) {
    for i in 1..run.len() {
        let x = run[i];
        let kx = key(&x);
        let mut j = i;
        while j > 0 && key(&run[j - 1]) > kx {
            run[j] = run[j - 1];
            j -= 1;
        }
        run[j] = x;
    }
}

#[cfg(test)]
mod tests {
    /// `n` entries (key from `key(i, random)`, position) and the same sorted by a
    /// comparison sort.
    type Entries = Vec<(u64, u32)>;

    fn random_entries(n: u32, seed: u64, key: impl Fn(u32, u64) -> u64) -> (Entries, Entries) {
        let mut x = seed;
        let v: Entries = (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (key(i, x), i)
            })
            .collect();
        let mut w = v.clone();
        w.sort_unstable_by_key(|p| p.0);
        (v, w)
    }

    #[test]
    fn sorts_like_a_comparison_sort() {
        // Some equal keys, some small ones (one bucket).
        let (mut v, mut w) =
            random_entries(200_000, 0x9e37_79b9_7f4a_7c15, |i, x| if i % 5 == 0 { x % 1000 } else { x });
        super::by_hash(&mut v, |p| p.0);
        assert_eq!(v.iter().map(|p| p.0).collect::<Vec<_>>(), w.iter().map(|p| p.0).collect::<Vec<_>>());
        let mut a: Vec<(u64, u32)> = v.clone();
        a.sort();
        w.sort();
        assert_eq!(a, w);
    }

    #[test]
    fn sorts_large_inputs_with_long_runs_of_equal_keys() {
        // 3 M entries: buckets of ~12,000 (the 12-bit second level), a third of the
        // entries on 20 keys (runs far longer than an insertion sort takes).
        let (mut v, mut w) = random_entries(3_000_000, 0x2545_f491_4f6c_dd1d, |i, x| {
            if i % 3 == 0 {
                (x % 20).wrapping_mul(0x9e37_79b9_7f4a_7c15)
            } else {
                x
            }
        });
        super::by_hash(&mut v, |p| p.0);
        assert!(v.windows(2).all(|p| p[0].0 <= p[1].0));
        v.sort();
        w.sort();
        assert_eq!(v, w);
    }

    #[test]
    fn sorts_descending_and_equal_keys() {
        for keys in [(0..300_000u64).rev().map(|i| i << 40).collect::<Vec<u64>>(), vec![7u64 << 56; 100_000]] {
            let mut v: Vec<(u64, u32)> = keys.iter().enumerate().map(|(i, &k)| (k, i as u32)).collect();
            let mut w = v.clone();
            super::by_hash(&mut v, |p| p.0);
            w.sort_unstable_by_key(|p| p.0);
            assert_eq!(v.iter().map(|p| p.0).collect::<Vec<_>>(), w.iter().map(|p| p.0).collect::<Vec<_>>());
            v.sort();
            w.sort();
            assert_eq!(v, w);
        }
    }
}
