//! A small open-addressing hash map from identifiers to indices, for the per-record class
//! lookups of pass 2 (millions of lookups into a table of thousands of classes).

pub struct U64Map {
    keys: Vec<u64>,
    values: Vec<u32>,
    mask: usize,
    len: usize,
}

const EMPTY: u32 = u32::MAX;

impl Default for U64Map {
    fn default() -> Self {
        U64Map::with_capacity(16)
    }
}

impl U64Map {
    pub fn with_capacity(n: usize) -> U64Map {
        let cap = (n * 2).next_power_of_two().max(16);
        U64Map { keys: vec![0; cap], values: vec![EMPTY; cap], mask: cap - 1, len: 0 }
    }

    #[inline]
    fn slot(&self, key: u64) -> usize {
        // Fibonacci hashing: addresses share low zero bits, the multiply spreads them.
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as usize & self.mask
    }

    /// Inserts `key → value` unless `key` is present; returns the value now stored.
    pub fn insert_if_absent(&mut self, key: u64, value: u32) -> u32 {
        debug_assert!(value != EMPTY);
        if (self.len + 1) * 2 > self.keys.len() {
            self.grow();
        }
        let mut i = self.slot(key);
        loop {
            if self.values[i] == EMPTY {
                self.keys[i] = key;
                self.values[i] = value;
                self.len += 1;
                return value;
            }
            if self.keys[i] == key {
                return self.values[i];
            }
            i = (i + 1) & self.mask;
        }
    }

    #[inline]
    pub fn get(&self, key: u64) -> Option<u32> {
        let mut i = self.slot(key);
        loop {
            let v = self.values[i];
            if v == EMPTY {
                return None;
            }
            if self.keys[i] == key {
                return Some(v);
            }
            i = (i + 1) & self.mask;
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    fn grow(&mut self) {
        let old_keys = std::mem::take(&mut self.keys);
        let old_values = std::mem::take(&mut self.values);
        let cap = old_keys.len() * 2;
        self.keys = vec![0; cap];
        self.values = vec![EMPTY; cap];
        self.mask = cap - 1;
        self.len = 0;
        for (k, v) in old_keys.into_iter().zip(old_values) {
            if v != EMPTY {
                self.insert_if_absent(k, v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::U64Map;

    #[test]
    fn insert_get_grow() {
        let mut m = U64Map::with_capacity(2);
        for i in 0..10_000u64 {
            assert_eq!(m.insert_if_absent(i * 8, i as u32), i as u32);
        }
        assert_eq!(m.insert_if_absent(8, 99), 1);
        for i in 0..10_000u64 {
            assert_eq!(m.get(i * 8), Some(i as u32));
            assert_eq!(m.get(i * 8 + 1), None);
        }
        assert_eq!(m.len(), 10_000);
    }
}
