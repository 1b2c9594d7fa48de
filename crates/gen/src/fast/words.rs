//! Large zeroed arrays for the work tables, in memory the kernel is asked to back with huge
//! pages, seen as 64-bit words or as bytes.
//!
//! Owns: [`Words`] — allocation and the two views. The retrograde passes read and write the
//! work table all over (a king's un-move jumps by a quarter of a megabyte); with 4 KiB pages
//! nearly every such access also misses the address-translation cache, with 2 MiB pages fewer
//! do. The byte view lets threads write single slots with plain stores instead of a
//! compare-exchange on the word (a locked instruction, which also stops the processor from
//! overlapping the cache misses around it).
//! Must never: hand out memory that is not zeroed, or outlive its mapping. Callers must not
//! read a word whole while another thread writes one of its bytes (mixed-size accesses that
//! race): [`super::cells`] says how its passes keep to that.

use std::sync::atomic::{AtomicU64, AtomicU8};

/// A fixed-length, zero-initialised array of 64-bit words, shared between threads.
pub struct Words {
    /// The address of the first word (kept as a number so that the type stays `Send` and
    /// `Sync` like its storage); it never changes, as neither storage moves its memory.
    base: usize,
    len: usize,
    /// Owns the memory `base` points into.
    _storage: Storage,
}

/// Held only to keep the memory alive (and to free it on drop).
#[allow(dead_code)]
enum Storage {
    /// An anonymous mapping, advised for transparent huge pages where the system offers them.
    Mapped(memmap2::MmapMut),
    /// The heap, where no mapping could be made (or for an empty array).
    Heap(Vec<AtomicU64>),
}

impl Words {
    /// `len` words, all zero.
    pub fn zeroed(len: usize) -> Words {
        let bytes = len.checked_mul(8).expect("a work table fits in memory");
        if len > 0 {
            if let Ok(map) = memmap2::MmapOptions::new().len(bytes).map_anon() {
                // Advice only: without huge pages the array works the same, more slowly.
                #[cfg(target_os = "linux")]
                let _ = map.advise(memmap2::Advice::HugePage);
                return Words {
                    base: map.as_ptr() as usize,
                    len,
                    _storage: Storage::Mapped(map),
                };
            }
        }
        let mut words = Vec::with_capacity(len);
        words.resize_with(len, || AtomicU64::new(0));
        Words {
            base: words.as_ptr() as usize,
            len,
            _storage: Storage::Heap(words),
        }
    }

    /// The array as words.
    #[inline(always)]
    pub fn words(&self) -> &[AtomicU64] {
        #[allow(unsafe_code)]
        // SAFETY: `base` points to `len` zero-initialised, 8-aligned words (a page-aligned
        // mapping or a `Vec<AtomicU64>`) owned by `self._storage`, which lives as long as the
        // returned slice and is never reached except through these shared atomic views.
        unsafe {
            std::slice::from_raw_parts(self.base as *const AtomicU64, self.len)
        }
    }

    /// The array as bytes: byte `8k + b` is the `b`-th least significant byte of word `k` (on
    /// little-endian machines; the work tables only use one view or the other for a given
    /// purpose, so the order does not matter elsewhere).
    #[inline(always)]
    pub fn bytes(&self) -> &[AtomicU8] {
        #[allow(unsafe_code)]
        // SAFETY: as for `words`: the same `8 · len` bytes, and `AtomicU8` needs no alignment.
        unsafe {
            std::slice::from_raw_parts(self.base as *const AtomicU8, self.len * 8)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    #[test]
    fn words_start_zero_and_keep_what_is_written() {
        for len in [0usize, 1, 7, 1 << 20] {
            let words = Words::zeroed(len);
            assert_eq!(words.words().len(), len);
            assert_eq!(words.bytes().len(), 8 * len);
            assert!(words.words().iter().all(|w| w.load(Ordering::Relaxed) == 0));
            for (k, w) in words.words().iter().enumerate() {
                w.store(k as u64 * 3 + 1, Ordering::Relaxed);
            }
            for (k, w) in words.words().iter().enumerate() {
                assert_eq!(w.load(Ordering::Relaxed), k as u64 * 3 + 1);
            }
        }
    }

    #[test]
    fn bytes_are_the_words_bytes() {
        let words = Words::zeroed(3);
        words.words()[1].store(0x0807_0605_0403_0201, Ordering::Relaxed);
        let bytes: Vec<u8> = words
            .bytes()
            .iter()
            .map(|b| b.load(Ordering::Relaxed))
            .collect();
        let word = 0x0807_0605_0403_0201u64.to_ne_bytes();
        assert_eq!(&bytes[8..16], &word);
        words.bytes()[17].store(0xAB, Ordering::Relaxed);
        assert_eq!(
            words.words()[2].load(Ordering::Relaxed).to_ne_bytes()[1],
            0xAB
        );
    }
}
