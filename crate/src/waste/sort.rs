//! Sorting the waste report's entries by their 64-bit hash keys: the keys are uniformly
//! spread, so one counting pass on the top 16 bits scatters them into 65,536 buckets of
//! a few hundred entries each (into a scratch copy), and each bucket, small enough to stay
//! in cache, is sorted on its own. Linear plus small sorts, about twice as fast as a
//! comparison sort over millions of entries. Without memory for the scratch copy it falls
//! back to an in-place sort.

/// Sorts `v` by `key` (ties in no particular order).
pub fn by_hash<T: Copy, K: Fn(&T) -> u64>(v: &mut [T], key: K) {
    const BITS: u32 = 16;
    if v.len() < 1 << 16 {
        v.sort_unstable_by_key(|x| key(x));
        return;
    }
    let mut scratch: Vec<T> = Vec::new();
    if scratch.try_reserve_exact(v.len()).is_err() {
        v.sort_unstable_by_key(|x| key(x));
        return;
    }
    let bucket = |x: &T| (key(x) >> (64 - BITS)) as usize;
    let mut start = vec![0usize; (1 << BITS) + 1];
    for x in v.iter() {
        start[bucket(x) + 1] += 1;
    }
    for b in 0..1 << BITS {
        start[b + 1] += start[b];
    }
    let mut at = start.clone();
    // Scatter into the scratch copy, then back in bucket order.
    scratch.extend_from_slice(v);
    for x in &scratch {
        let b = bucket(x);
        v[at[b]] = *x;
        at[b] += 1;
    }
    drop(scratch);
    for b in 0..1 << BITS {
        v[start[b]..start[b + 1]].sort_unstable_by_key(|x| key(x));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn sorts_like_a_comparison_sort() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut v: Vec<(u64, u32)> = (0..200_000u32)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Some equal keys, some small ones (one bucket).
                (if i % 5 == 0 { x % 1000 } else { x }, i)
            })
            .collect();
        let mut w = v.clone();
        super::by_hash(&mut v, |p| p.0);
        w.sort_unstable_by_key(|p| p.0);
        assert_eq!(v.iter().map(|p| p.0).collect::<Vec<_>>(), w.iter().map(|p| p.0).collect::<Vec<_>>());
        let mut a: Vec<(u64, u32)> = v.clone();
        a.sort();
        w.sort();
        assert_eq!(a, w);
    }
}
