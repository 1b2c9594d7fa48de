//! The work table: one byte per slot, packed eight to a 64-bit word.
//!
//! Owns: [`Cells`] — reading and writing one slot's byte from any thread, and finding every slot
//! of a range that holds a given byte eight slots per load.
//! Must never: lose a write: a byte is replaced by a compare-exchange on its word, so writes to
//! the other bytes of the word by other threads survive.

use std::sync::atomic::{AtomicU64, Ordering};

const LOW_BITS: u64 = 0x7F7F_7F7F_7F7F_7F7F;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// One byte per slot, shared between threads.
pub struct Cells {
    words: Vec<AtomicU64>,
    len: u64,
}

impl Cells {
    /// `len` slots, all 0.
    pub fn new(len: u64) -> Cells {
        let mut words = Vec::with_capacity(len.div_ceil(8) as usize);
        words.resize_with(len.div_ceil(8) as usize, || AtomicU64::new(0));
        Cells { words, len }
    }

    /// The number of slots.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there are no slots.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The byte of `slot`.
    #[inline(always)]
    pub fn get(&self, slot: u64) -> u8 {
        (self.words[(slot >> 3) as usize].load(Ordering::Relaxed) >> ((slot & 7) * 8)) as u8
    }

    /// Sets the byte of `slot`.
    #[inline(always)]
    pub fn set(&self, slot: u64, code: u8) {
        let word = &self.words[(slot >> 3) as usize];
        let shift = (slot & 7) * 8;
        let mut old = word.load(Ordering::Relaxed);
        loop {
            let new = (old & !(0xFF << shift)) | (u64::from(code) << shift);
            match word.compare_exchange_weak(old, new, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return,
                Err(now) => old = now,
            }
        }
    }

    /// Stores the eight bytes of the word holding slots `8k .. 8k + 8` at once (for a writer
    /// that owns the word).
    #[inline(always)]
    pub fn set_word(&self, k: usize, bytes: u64) {
        self.words[k].store(bytes, Ordering::Relaxed);
    }

    /// Calls `visit` with every slot of `first..end` (`first` a multiple of 8) whose byte is
    /// `code`, in increasing order.
    #[inline]
    pub fn for_each_equal(&self, first: u64, end: u64, code: u8, mut visit: impl FnMut(u64)) {
        debug_assert_eq!(first % 8, 0);
        let pattern = u64::from(code) * 0x0101_0101_0101_0101;
        for k in (first / 8)..end.div_ceil(8) {
            let x = self.words[k as usize].load(Ordering::Relaxed) ^ pattern;
            // The high bit of each byte of `x` that is zero; exact, with no carries between
            // bytes, as each byte's low seven bits plus 0x7F stay below 0x100.
            let mut zero = !(((x & LOW_BITS) + LOW_BITS) | x) & HIGH_BITS;
            while zero != 0 {
                let slot = k * 8 + u64::from(zero.trailing_zeros() / 8);
                zero &= zero - 1;
                if slot < end {
                    visit(slot);
                }
            }
        }
    }

    /// The bytes of `first..end`, in order.
    pub fn bytes(&self, first: u64, end: u64) -> impl Iterator<Item = u8> + '_ {
        (first..end).map(|slot| self.get(slot))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_reads_and_scans_agree() {
        let cells = Cells::new(1000);
        let mut expected = vec![0u8; 1000];
        let mut seed = 12345u64;
        for _ in 0..5000 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let slot = (seed >> 33) % 1000;
            let code = (seed >> 20) as u8 % 7 * 37;
            cells.set(slot, code);
            expected[slot as usize] = code;
        }
        for (slot, &code) in expected.iter().enumerate() {
            assert_eq!(cells.get(slot as u64), code);
        }
        for code in [0u8, 37, 74, 111, 148, 185, 222, 1, 255] {
            for (first, end) in [(0, 1000), (8, 9), (16, 999), (0, 0), (992, 1000)] {
                let mut found = Vec::new();
                cells.for_each_equal(first, end, code, |s| found.push(s));
                let wanted: Vec<u64> = (first..end)
                    .filter(|&s| expected[s as usize] == code)
                    .collect();
                assert_eq!(found, wanted, "code {code} in {first}..{end}");
            }
        }
    }

    #[test]
    fn concurrent_writes_to_one_word_all_survive() {
        let cells = Cells::new(8);
        std::thread::scope(|scope| {
            for slot in 0..8u64 {
                let cells = &cells;
                scope.spawn(move || {
                    for round in 0..1000u32 {
                        cells.set(slot, (slot as u8 + 1) * 10 + (round % 2) as u8);
                    }
                });
            }
        });
        for slot in 0..8u64 {
            assert_eq!(cells.get(slot), (slot as u8 + 1) * 10 + 1);
        }
    }
}
