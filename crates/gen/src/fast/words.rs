//! Large zeroed arrays for the work tables, in memory the kernel is asked to back with huge
//! pages, seen as 64-bit words or as bytes.
//!
//! Owns: [`Words`] — allocation and the views (words, bytes, 16-bit halves). The retrograde
//! passes read and write the work table all over (a king's un-move jumps by a quarter of a megabyte); with 4 KiB pages
//! nearly every such access also misses the address-translation cache, with 2 MiB pages fewer
//! do. The byte view lets threads write single slots with plain stores instead of a
//! compare-exchange on the word (a locked instruction, which also stops the processor from
//! overlapping the cache misses around it).
//!
//! A table solved a part at a time keeps its bytes in a scratch file instead
//! ([`Words::zeroed_in_file`]): an unnamed file in the tables directory, its blocks reserved
//! when it is made (so that a full disk is an error then, not a fault halfway), mapped shared,
//! and gone with the mapping whatever way the program ends. Pages of a part no pass reads any
//! longer are handed back to the kernel ([`Words::page_out`]), which keeps their bytes in the
//! file; a later read brings them back.
//! Must never: hand out memory that is not zeroed, or outlive its mapping; lose a byte when
//! its pages are handed back. Callers must not read a word whole while another thread writes
//! one of its bytes (mixed-size accesses that race): [`super::cells`] says how its passes keep
//! to that.

use std::path::Path;
use std::sync::atomic::{AtomicU16, AtomicU64, AtomicU8, Ordering};

/// Gives bytes `first..end` of `file` back to the disk, a hole punched in it (they read 0
/// afterwards); where the file system cannot punch holes, they stay until the file goes.
/// `first` and `end` are page-aligned, or the bytes of the pages they cut are zeroed too.
pub(super) fn punch_hole(file: &std::fs::File, first: u64, end: u64) {
    let flags = rustix::fs::FallocateFlags::PUNCH_HOLE | rustix::fs::FallocateFlags::KEEP_SIZE;
    if first < end {
        let _ = rustix::fs::fallocate(file, flags, first, end - first);
    }
}

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
    /// A shared mapping of an unnamed scratch file (the file is kept open with it).
    File(memmap2::MmapMut, std::fs::File),
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

    /// `len` words, all zero, kept in an unnamed scratch file made in `dir`, the blocks of
    /// the words of `used` (ranges of words; the others are never written) reserved now: an
    /// error if `dir` cannot hold them.
    pub fn zeroed_in_file(
        len: usize,
        dir: &Path,
        used: &[std::ops::Range<usize>],
    ) -> std::io::Result<Words> {
        let bytes = len.checked_mul(8).expect("a work table fits in memory");
        if len == 0 {
            return Ok(Words::zeroed(0));
        }
        let file = tempfile::tempfile_in(dir)?;
        file.set_len(bytes as u64)?;
        #[allow(unsafe_code)]
        // SAFETY: the file is unnamed and private to this process (no other mapping or writer
        // can change it under the mapping), and its length is `bytes`.
        let map = unsafe { memmap2::MmapOptions::new().len(bytes).map_mut(&file)? };
        let words = Words {
            base: map.as_ptr() as usize,
            len,
            _storage: Storage::File(map, file),
        };
        for range in used {
            words.reserve(range.start, range.end)?;
        }
        Ok(words)
    }

    /// Where the words are kept in a scratch file: reserves its blocks for words
    /// `first..end`, so that a full disk is an error now rather than a fault when a page of
    /// them is first written back (a sparse file would meet it then, in whichever thread
    /// touched the page). Elsewhere it does nothing.
    pub fn reserve(&self, first: usize, end: usize) -> std::io::Result<()> {
        let Storage::File(_, file) = &self._storage else {
            return Ok(());
        };
        let (from, to) = (first.min(self.len) as u64 * 8, end.min(self.len) as u64 * 8);
        if from >= to {
            return Ok(());
        }
        match rustix::fs::fallocate(file, rustix::fs::FallocateFlags::KEEP_SIZE, from, to - from) {
            // A file system that cannot reserve blocks leaves the file sparse.
            Err(e) if e == rustix::io::Errno::OPNOTSUPP => Ok(()),
            other => other.map_err(Into::into),
        }
    }

    /// Where the words are kept in a scratch file: gives the whole pages of words
    /// `first..end` back, to memory and to the disk (a hole punched in the file); those words
    /// read 0 afterwards. For words no thread reads or writes again. Elsewhere it does nothing.
    pub fn release(&self, first: usize, end: usize) {
        const PAGE: usize = 4096;
        let Storage::File(map, file) = &self._storage else {
            return;
        };
        let from = (first * 8).div_ceil(PAGE) * PAGE;
        let to = (end.min(self.len) * 8) / PAGE * PAGE;
        if from >= to {
            return;
        }
        #[allow(unsafe_code)]
        // SAFETY: as in `page_out`: a shared file mapping keeps no bytes of its own, and the
        // caller reads none of these words again.
        let _ = unsafe {
            map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, from, to - from)
        };
        punch_hole(file, from as u64, to as u64);
    }

    /// Whether the words are kept in a scratch file ([`Words::zeroed_in_file`]).
    pub fn in_file(&self) -> bool {
        matches!(self._storage, Storage::File(..))
    }

    /// Hands the pages of words `first..end` (widened to whole pages) back to the kernel, where
    /// the words are kept in a scratch file: their contents stay in the file, and a later read
    /// brings them back. Elsewhere it does nothing.
    pub fn page_out(&self, first: usize, end: usize) {
        const PAGE: usize = 4096;
        let Storage::File(map, _) = &self._storage else {
            return;
        };
        let from = (first * 8) / PAGE * PAGE;
        let to = (end.min(self.len) * 8).div_ceil(PAGE) * PAGE;
        let to = to.min(map.len());
        if from >= to {
            return;
        }
        #[allow(unsafe_code)]
        // SAFETY: in a shared mapping of a file, dropping pages keeps their contents: the
        // kernel writes dirty pages back to the file, and a later access reads them from it,
        // so every view of these words goes on seeing the same values.
        let _ = unsafe {
            map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, from, to - from)
        };
    }

    /// Sets every word to zero, giving back the memory of an anonymous mapping (its pages are
    /// then zero until written again). For a caller that no other thread reads or writes the
    /// words beside (between passes).
    pub fn clear(&self) {
        if let Storage::Mapped(map) = &self._storage {
            #[allow(unsafe_code)]
            // SAFETY: every access to these words is atomic, through `words` and `bytes`; in a
            // private anonymous mapping, dropped pages read as zero afterwards, as if each
            // word had been stored zero, which is what this promises.
            let dropped =
                unsafe { map.unchecked_advise(memmap2::UncheckedAdvice::DontNeed) }.is_ok();
            if dropped {
                return;
            }
        }
        for word in self.words() {
            word.store(0, Ordering::Relaxed);
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

    /// The array as 16-bit halves of its words (`4 · len` of them), for a table of 16-bit work
    /// words that uses no other view (`crate::fifty`).
    #[inline(always)]
    pub fn halves(&self) -> &[AtomicU16] {
        #[allow(unsafe_code)]
        // SAFETY: as for `words`: the same `8 · len` bytes, 8-aligned, so 2-aligned.
        unsafe {
            std::slice::from_raw_parts(self.base as *const AtomicU16, self.len * 4)
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

    /// Words kept in a scratch file keep their values when their pages are handed back, and
    /// cleared words read zero, in every storage.
    #[test]
    fn paged_out_words_keep_their_values_and_cleared_ones_are_zero() {
        let dir = tempfile::tempdir().unwrap();
        let len = 3 << 12;
        let mut stores = [
            Words::zeroed_in_file(len, dir.path(), std::slice::from_ref(&(0..len))).unwrap(),
            Words::zeroed(len),
            Words::zeroed(5),
        ];
        assert!(stores[0].in_file() && !stores[1].in_file());
        // The scratch file has no name: the directory stays empty.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        for words in &mut stores {
            let len = words.words().len();
            for (k, w) in words.words().iter().enumerate() {
                w.store(k as u64 ^ 0x5A5A, Ordering::Relaxed);
            }
            words.page_out(0, len);
            words.page_out(len / 3, len / 2);
            for (k, w) in words.words().iter().enumerate() {
                assert_eq!(w.load(Ordering::Relaxed), k as u64 ^ 0x5A5A);
            }
            words.clear();
            assert!(words.words().iter().all(|w| w.load(Ordering::Relaxed) == 0));
        }
    }

    /// Words reserved in a scratch file take blocks of it; released, their whole pages read 0
    /// and go back to the disk (where the file system punches holes), the words beside keep
    /// their values.
    #[test]
    fn released_words_read_zero_and_leave_the_disk() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let len = 4 << 12;
        let words = Words::zeroed_in_file(len, dir.path(), &[]).unwrap();
        let Storage::File(_, file) = &words._storage else {
            panic!("kept in a file")
        };
        let blocks = || file.metadata().unwrap().blocks() * 512;
        words.reserve(0, len).unwrap();
        assert!(blocks() >= 8 * len as u64, "reserved: {} bytes", blocks());
        for (k, w) in words.words().iter().enumerate() {
            w.store(k as u64 | 1, Ordering::Relaxed);
        }
        // From the middle of a page to the middle of another: only the whole pages go.
        let (first, end) = (len / 4 + 3, 3 * len / 4 + 5);
        words.release(first, end);
        let page = 4096 / 8;
        let (gone_first, gone_end) = (first.div_ceil(page) * page, end / page * page);
        for (k, w) in words.words().iter().enumerate() {
            let expected = match (gone_first..gone_end).contains(&k) {
                true => 0,
                false => k as u64 | 1,
            };
            assert_eq!(w.load(Ordering::Relaxed), expected, "word {k}");
        }
        // Where the file system punches holes, the released pages leave the file.
        let probe = tempfile::tempfile_in(dir.path()).unwrap();
        probe.set_len(8192).unwrap();
        let flags = rustix::fs::FallocateFlags::PUNCH_HOLE | rustix::fs::FallocateFlags::KEEP_SIZE;
        if rustix::fs::fallocate(&probe, flags, 0, 4096) != Err(rustix::io::Errno::OPNOTSUPP) {
            let released = 8 * (gone_end - gone_first) as u64;
            assert!(
                blocks() <= 8 * len as u64 - released,
                "{} bytes on disk after releasing {released}",
                blocks()
            );
        }
    }

    /// A scratch file that cannot be made is an error for the caller to report, not a fault.
    #[test]
    fn a_scratch_file_nowhere_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing");
        assert!(
            Words::zeroed_in_file(1 << 10, &missing, std::slice::from_ref(&(0..1 << 10))).is_err()
        );
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
