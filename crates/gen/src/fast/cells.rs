//! The work table: one byte per slot, read and written a byte at a time, scanned eight at a
//! time.
//!
//! Owns: [`Cells`] — reading and writing one slot's byte from any thread, storing whole words
//! of eight slots, finding every slot of a range that holds a given byte eight slots per load,
//! and copying a range out a word at a time; the compares of a word's eight bytes at once that
//! such a scan and the init pass's hint words use ([`byte_equal`], [`byte_below`]);
//! [`SlotHints`], a bit per slot telling a pass which slots it may pass over unread; and
//! [`RunMarks`], a bit per run marking the runs a pass has to look at.
//! Must never: lose a write. A slot is written with a plain byte store, which leaves the other
//! bytes of its word alone; two threads writing one byte at once write the same value (the
//! passes of `super` are built so), except where they count: a count is taken down with an
//! atomic subtraction ([`Cells::count_down`]) and first stored with a compare-and-swap
//! ([`Cells::replace`]), so that neither is lost to another thread's. Whole words are read
//! ([`Cells::for_each_equal`]) or written ([`Cells::set_word`]) only where no other thread
//! writes a byte of them: a pass scans one side's table while writing the other's, and a
//! thread scanning a chunk of its own side is the only one writing that chunk.

use super::words::Words;
use std::sync::atomic::{AtomicU64, Ordering};

/// One in every byte: a byte times this fills all eight bytes of a word with it.
pub const BYTE_ONES: u64 = 0x0101_0101_0101_0101;
const BYTE_LOW_BITS: u64 = 0x7F7F_7F7F_7F7F_7F7F;
const BYTE_HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `w` that is not zero (each byte's low seven bits plus 0x7F
/// stay below 0x100, so no carry crosses a byte).
#[inline(always)]
pub fn byte_nonzero(w: u64) -> u64 {
    (((w & BYTE_LOW_BITS) + BYTE_LOW_BITS) | w) & BYTE_HIGH_BITS
}

/// The high bit of each byte of `w` equal to `c`.
#[inline(always)]
pub fn byte_equal(w: u64, c: u8) -> u64 {
    !byte_nonzero(w ^ (u64::from(c) * BYTE_ONES)) & BYTE_HIGH_BITS
}

/// The high bit of each byte of `w` below `bound`. Up to 0x80, a byte's low seven bits plus
/// `0x80 − bound` reach the high bit exactly when they are at least `bound`, and a byte with
/// its own high bit set is not below; above, a byte is not below when its high bit is set and
/// its low seven bits plus `0x100 − bound` reach the high bit. No carry crosses a byte.
#[inline(always)]
pub fn byte_below(w: u64, bound: u8) -> u64 {
    let low = w & BYTE_LOW_BITS;
    let not_below = match bound {
        0..=0x80 => (low + u64::from(0x80 - bound) * BYTE_ONES) | w,
        _ => (low + u64::from(bound.wrapping_neg()) * BYTE_ONES) & w,
    };
    !not_below & BYTE_HIGH_BITS
}

/// The high bits of the eight bytes of `high` (nothing else set) as one byte, byte `k`'s in
/// bit `k`: the multiplier's terms send bit `8k` to bit `56 + k`, and no two terms meet.
#[inline(always)]
pub fn pack_high_bits(high: u64) -> u8 {
    ((high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u8
}

/// One byte per slot, shared between threads.
pub struct Cells {
    words: Words,
    len: u64,
}

impl Cells {
    /// `len` slots, all 0.
    pub fn new(len: u64) -> Cells {
        Cells {
            words: Words::zeroed(len.div_ceil(8) as usize),
            len,
        }
    }

    /// `len` slots, all 0, kept in a scratch file made in `dir` ([`Words::zeroed_in_file`]),
    /// whose pages [`Cells::page_out`] hands back to the kernel; disk is reserved for the
    /// slots of the ranges `used` (the others are never written).
    pub fn in_file(
        len: u64,
        dir: &std::path::Path,
        used: &[std::ops::Range<u64>],
    ) -> std::io::Result<Cells> {
        let words: Vec<std::ops::Range<usize>> = used
            .iter()
            .map(|r| (r.start / 8) as usize..r.end.div_ceil(8) as usize)
            .collect();
        Ok(Cells {
            words: Words::zeroed_in_file(len.div_ceil(8) as usize, dir, &words)?,
            len,
        })
    }

    /// Whether the slots are kept in a scratch file ([`Cells::in_file`]).
    pub fn is_in_file(&self) -> bool {
        self.words.in_file()
    }

    /// Hands the pages of slots `first..end` (widened to whole pages) back to the kernel, where
    /// the slots are kept in a scratch file; their bytes stay in it, read back when next
    /// needed. Elsewhere it does nothing.
    pub fn page_out(&self, first: u64, end: u64) {
        self.words
            .page_out((first / 8) as usize, end.div_ceil(8) as usize);
    }

    /// Where the slots are kept in a scratch file, reserves its blocks for slots `first..end`
    /// ([`Words::reserve`]).
    pub fn reserve(&self, first: u64, end: u64) -> std::io::Result<()> {
        self.words
            .reserve((first / 8) as usize, end.div_ceil(8) as usize)
    }

    /// Where the slots are kept in a scratch file, gives the whole pages of slots `first..end`
    /// back to memory and disk ([`Words::release`]): for slots never read again.
    pub fn release(&self, first: u64, end: u64) {
        self.words
            .release(first.div_ceil(8) as usize, (end / 8) as usize);
    }

    /// Sets every slot to 0, the memory of slots not kept in a file given back; for a caller
    /// that no other thread reads or writes the slots beside (between passes).
    pub fn clear(&self) {
        self.words.clear();
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
        self.words.bytes()[slot as usize].load(Ordering::Relaxed)
    }

    /// Sets the byte of `slot`.
    #[inline(always)]
    pub fn set(&self, slot: u64, code: u8) {
        self.words.bytes()[slot as usize].store(code, Ordering::Relaxed);
    }

    /// Takes one from the byte of `slot` at once, whatever other threads do; returns the byte
    /// before.
    #[inline(always)]
    pub fn count_down(&self, slot: u64) -> u8 {
        self.words.bytes()[slot as usize].fetch_sub(1, Ordering::Relaxed)
    }

    /// Writes `new` into the byte of `slot` if it still holds `old`; else returns what it holds.
    #[inline(always)]
    pub fn replace(&self, slot: u64, old: u8, new: u8) -> Result<(), u8> {
        self.words.bytes()[slot as usize]
            .compare_exchange(old, new, Ordering::Relaxed, Ordering::Relaxed)
            .map(|_| ())
    }

    /// The eight bytes of slots `8k .. 8k + 8`, slot `8k + b` in bits `8b .. 8b + 8` (for a
    /// reader while no other thread writes the word).
    #[inline(always)]
    pub fn word(&self, k: usize) -> u64 {
        u64::from_le(self.words.words()[k].load(Ordering::Relaxed))
    }

    /// Stores the eight bytes of slots `8k .. 8k + 8` at once, slot `8k + b` in bits
    /// `8b .. 8b + 8` of `bytes` (for a writer that owns the word).
    #[inline(always)]
    pub fn set_word(&self, k: usize, bytes: u64) {
        self.words.words()[k].store(u64::from_le(bytes), Ordering::Relaxed);
    }

    /// Calls `visit` with every slot of `first..end` (`first` a multiple of 8) whose byte is
    /// `code`, in increasing order.
    #[inline]
    pub fn for_each_equal(&self, first: u64, end: u64, code: u8, mut visit: impl FnMut(u64)) {
        debug_assert_eq!(first % 8, 0);
        for k in (first / 8)..end.div_ceil(8) {
            let word = self.words.words()[k as usize]
                .load(Ordering::Relaxed)
                .to_le();
            let mut equal = byte_equal(word, code);
            while equal != 0 {
                let slot = k * 8 + u64::from(equal.trailing_zeros() / 8);
                equal &= equal - 1;
                if slot < end {
                    visit(slot);
                }
            }
        }
    }

    /// Copies the bytes of slots `first .. first + out.len()` into `out`, a word at a time
    /// (while no thread writes them).
    pub fn copy_to(&self, first: u64, out: &mut [u8]) {
        let words = self.words.words();
        // A word's bytes in memory order: slot `8k + b` is byte `b` of word `k`.
        let word_bytes = |k: u64| words[k as usize].load(Ordering::Relaxed).to_ne_bytes();
        // The slots before the first word boundary, then whole words, then the rest.
        let skip = (first % 8) as usize;
        let head = out.len().min(8 - skip);
        let (head_out, rest) = out.split_at_mut(head);
        if head > 0 {
            head_out.copy_from_slice(&word_bytes(first / 8)[skip..skip + head]);
        }
        let mut k = (first + head as u64) / 8;
        let mut whole = rest.chunks_exact_mut(8);
        for eight in &mut whole {
            eight.copy_from_slice(&word_bytes(k));
            k += 1;
        }
        let tail = whole.into_remainder();
        if !tail.is_empty() {
            let len = tail.len();
            tail.copy_from_slice(&word_bytes(k)[..len]);
        }
    }
}

/// A set of slots kept as a hint, one bit per slot: a slot whose bit is clear is not in the
/// set, so a pass looking for the set's slots passes over it without reading its byte — from
/// bits that stay in the processor's cache where the bytes do not (a five-man table's 168 MB
/// a side against 21 MB). A set bit promises nothing: the byte is read and decides. A set of
/// no bits ([`SlotHints::none`]) holds every slot.
///
/// As a hint, bits are only ever cleared, with a plain load and store of their word (no locked
/// instruction): two threads clearing bits of one word at once may lose one of the clears,
/// leaving a slot's bit set that need not be, which costs a read and nothing else. A set that
/// must be exact ([`SlotHints::insert_run`], [`SlotHints::take_run`],
/// [`SlotHints::remove_run_exactly`]: the fifty-move passes' sets of slots not won and of
/// parents reached) is changed by locked instructions only.
pub struct SlotHints {
    words: Words,
}

impl SlotHints {
    /// `len` slots, none in the set until their words are set ([`SlotHints::set_word`]).
    pub fn new(len: u64) -> SlotHints {
        SlotHints {
            words: Words::zeroed(len.div_ceil(64) as usize),
        }
    }

    /// No hints: every slot may be in the set.
    pub fn none() -> SlotHints {
        SlotHints::new(0)
    }

    /// Takes every slot out of the set, giving the memory of its words back (a set of no
    /// words stays one that holds every slot).
    pub fn clear(&mut self) {
        self.words.clear();
    }

    /// The bits of the slots `64k .. 64k + 64`, slot `64k + b` in bit `b` (0 beyond the set).
    #[inline(always)]
    pub fn word(&self, k: usize) -> u64 {
        self.words
            .words()
            .get(k)
            .map_or(0, |w| w.load(Ordering::Relaxed))
    }

    /// Sets the bits of the slots `64k .. 64k + 64` to `bits`, slot `64k + b` in bit `b` (for
    /// a writer that owns the word).
    #[inline(always)]
    pub fn set_word(&self, k: usize, bits: u64) {
        self.words.words()[k].store(bits, Ordering::Relaxed);
    }

    /// Whether `slot` may be in the set.
    #[inline(always)]
    pub fn get(&self, slot: u64) -> bool {
        match self.words.words().get((slot / 64) as usize) {
            Some(word) => word.load(Ordering::Relaxed) >> (slot % 64) & 1 != 0,
            None => true,
        }
    }

    /// Which of the 64 slots from `first` on may be in the set, slot `first + s` in bit `s`.
    #[inline(always)]
    pub fn run(&self, first: u64) -> u64 {
        let words = self.words.words();
        let (k, shift) = ((first / 64) as usize, first % 64);
        let Some(word) = words.get(k) else {
            return u64::MAX;
        };
        let low = word.load(Ordering::Relaxed) >> shift;
        match (shift, words.get(k + 1)) {
            (0, _) | (_, None) => low,
            (_, Some(next)) => low | next.load(Ordering::Relaxed) << (64 - shift),
        }
    }

    /// Takes the slots `first + s`, `s` in `set`, out of the set.
    #[inline(always)]
    pub fn remove_run(&self, first: u64, set: u64) {
        let words = self.words.words();
        let (k, shift) = ((first / 64) as usize, first % 64);
        let clear = |word: Option<&AtomicU64>, bits: u64| {
            if let Some(word) = word {
                let old = word.load(Ordering::Relaxed);
                if old & bits != 0 {
                    word.store(old & !bits, Ordering::Relaxed);
                }
            }
        };
        clear(words.get(k), set << shift);
        if shift > 0 {
            clear(words.get(k + 1), set >> (64 - shift));
        }
    }

    /// Takes `slot` out of the set.
    #[inline(always)]
    pub fn remove(&self, slot: u64) {
        self.remove_run(slot, 1);
    }

    /// Applies `change` (a locked instruction) to the word of slot `first` with the bits of
    /// `set` there, and to the next word with those beyond it; each returns its old bits.
    #[inline(always)]
    fn change_run(&self, first: u64, set: u64, change: impl Fn(&AtomicU64, u64) -> u64) -> u64 {
        let words = self.words.words();
        let (k, shift) = ((first / 64) as usize, first % 64);
        let mut old = change(&words[k], set << shift) >> shift;
        if shift > 0 && set >> (64 - shift) != 0 {
            old |= change(&words[k + 1], set >> (64 - shift)) << (64 - shift);
        }
        old
    }

    /// Puts the slots `first + s`, `s` in `set`, into the set, whatever other threads do.
    #[inline(always)]
    pub fn insert_run(&self, first: u64, set: u64) {
        if self.run(first) & set != set {
            self.change_run(first, set, |word, bits| {
                word.fetch_or(bits, Ordering::Relaxed)
            });
        }
    }

    /// Takes the slots `first + s`, `s` in `set`, out of the set, whatever other threads do.
    #[inline(always)]
    pub fn remove_run_exactly(&self, first: u64, set: u64) {
        if self.run(first) & set != 0 {
            self.change_run(first, set, |word, bits| {
                word.fetch_and(!bits, Ordering::Relaxed)
            });
        }
    }

    /// Takes the slots `first + s`, `s` in `set`, out of the set and returns those that were
    /// in it, `first + s` in bit `s`: a slot put in once is taken once, whatever other threads
    /// do.
    #[inline(always)]
    pub fn take_run(&self, first: u64, set: u64) -> u64 {
        match self.run(first) & set {
            0 => 0,
            _ => {
                self.change_run(first, set, |word, bits| {
                    word.fetch_and(!bits, Ordering::Relaxed)
                }) & set
            }
        }
    }
}

/// One bit per run of slots, set from any thread and taken a word at a time: the runs a pass
/// has something to do with.
pub struct RunMarks {
    words: Vec<AtomicU64>,
}

impl RunMarks {
    /// `runs` runs, none marked.
    pub fn new(runs: u64) -> RunMarks {
        RunMarks {
            words: (0..runs.div_ceil(64)).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// Marks run `run`, whatever other threads do.
    #[inline(always)]
    pub fn mark(&self, run: u64) {
        let word = &self.words[(run / 64) as usize];
        let bit = 1 << (run % 64);
        if word.load(Ordering::Relaxed) & bit == 0 {
            word.fetch_or(bit, Ordering::Relaxed);
        }
    }

    /// Calls `visit` with every marked run of `first..end`, in increasing order, each unmarked
    /// first (so that two threads taking overlapping ranges visit each run once).
    pub fn take(&self, first: u64, end: u64, mut visit: impl FnMut(u64)) {
        let mut run = first;
        while run < end {
            let k = run / 64;
            let high = end.min((k + 1) * 64);
            let width = high - run;
            let mask = if width == 64 {
                u64::MAX
            } else {
                ((1u64 << width) - 1) << (run % 64)
            };
            let word = &self.words[k as usize];
            if word.load(Ordering::Relaxed) & mask != 0 {
                let mut taken = word.fetch_and(!mask, Ordering::Relaxed) & mask;
                while taken != 0 {
                    visit(k * 64 + u64::from(taken.trailing_zeros()));
                    taken &= taken - 1;
                }
            }
            run = high;
        }
    }
}

/// The slots a pass may have something to do with: those outside are passed over unread.
pub trait SlotSet {
    /// Whether `slot` may be in the set.
    fn may_hold(&self, slot: u64) -> bool;
    /// Which of the 64 slots from `first` on may be in the set, slot `first + s` in bit `s`.
    fn may_hold_run(&self, first: u64) -> u64;
}

impl SlotSet for SlotHints {
    #[inline(always)]
    fn may_hold(&self, slot: u64) -> bool {
        self.get(slot)
    }

    #[inline(always)]
    fn may_hold_run(&self, first: u64) -> u64 {
        self.run(first)
    }
}

/// Every slot, for a pass without hints: nothing is tested.
pub struct EverySlot;

impl SlotSet for EverySlot {
    #[inline(always)]
    fn may_hold(&self, _: u64) -> bool {
        true
    }

    #[inline(always)]
    fn may_hold_run(&self, _: u64) -> u64 {
        u64::MAX
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
        for (first, end) in [
            (0, 1000),
            (3, 5),
            (5, 21),
            (8, 16),
            (7, 9),
            (999, 1000),
            (4, 4),
            (1, 8),
            (8, 17),
            (0, 7),
            (13, 1000),
        ] {
            let mut bytes = vec![0; (end - first) as usize];
            cells.copy_to(first, &mut bytes);
            assert_eq!(
                bytes,
                expected[first as usize..end as usize],
                "{first}..{end}"
            );
        }
    }

    #[test]
    fn slot_hints_keep_their_words_and_removals() {
        // Slot s is in the set when s % 5 >= 2.
        let hints = SlotHints::new(200);
        for k in 0..4 {
            let bits = (0..64).fold(0u64, |bits, b| bits | u64::from((64 * k + b) % 5 >= 2) << b);
            hints.set_word(k as usize, if k == 3 { bits & 0xFF } else { bits });
        }
        for slot in 0..200 {
            assert_eq!(hints.get(slot), slot % 5 >= 2, "slot {slot}");
        }
        for first in [0u64, 1, 63, 64, 100, 150, 199] {
            let run = hints.run(first);
            for s in 0..64 {
                let slot = first + s;
                assert_eq!(
                    run >> s & 1 != 0,
                    slot < 200 && slot % 5 >= 2,
                    "{first} + {s}"
                );
            }
        }
        for slot in (0..200).step_by(3) {
            hints.remove(slot);
        }
        for slot in 0..200 {
            assert_eq!(
                hints.get(slot),
                slot % 5 >= 2 && slot % 3 != 0,
                "slot {slot}"
            );
        }
        // Every seventh slot of the runs from 60 and from 190.
        let sevenths = (0..64).step_by(7).fold(0u64, |set, s| set | 1 << s);
        hints.remove_run(60, sevenths);
        hints.remove_run(190, sevenths);
        for slot in 0..200 {
            let seventh =
                |first: u64| (first..first + 64).contains(&slot) && (slot - first) % 7 == 0;
            let expected = slot % 5 >= 2 && slot % 3 != 0 && !seventh(60) && !seventh(190);
            assert_eq!(hints.get(slot), expected, "slot {slot}");
        }
        // Without hints every slot may be in the set.
        let none = SlotHints::none();
        none.remove(5);
        none.remove_run(3, u64::MAX);
        assert!(none.get(5));
        assert_eq!(none.run(7), u64::MAX);
    }

    #[test]
    fn run_marks_give_each_marked_run_once() {
        let marks = RunMarks::new(300);
        let marked: Vec<u64> = (0..300).filter(|r| r % 7 == 3 || r % 64 == 63).collect();
        for &run in &marked {
            marks.mark(run);
            marks.mark(run);
        }
        // Ranges that start and end inside words and across them.
        let mut taken = Vec::new();
        for (first, end) in [
            (0, 5),
            (5, 64),
            (64, 130),
            (130, 131),
            (131, 299),
            (299, 300),
        ] {
            marks.take(first, end, |run| {
                assert!((first..end).contains(&run), "{run} outside {first}..{end}");
                taken.push(run);
            });
        }
        assert_eq!(taken, marked);
        marks.take(0, 300, |run| panic!("run {run} taken twice"));
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

    #[test]
    fn counts_taken_down_at_once_by_two_threads_lose_nothing() {
        // Four counts of 200 in one word, each taken down 100 times by each of two threads
        // that also write the word's other bytes: every count ends at 0, and exactly one
        // subtraction per count saw it at 1.
        let cells = Cells::new(16);
        for slot in 0..4 {
            assert_eq!(cells.replace(slot, 0, 200), Ok(()));
            assert_eq!(cells.replace(slot, 0, 7), Err(200));
        }
        let last = std::sync::atomic::AtomicU32::new(0);
        std::thread::scope(|scope| {
            for thread in 0..2u64 {
                let (cells, last) = (&cells, &last);
                scope.spawn(move || {
                    for _ in 0..100 {
                        for slot in 0..4 {
                            if cells.count_down(slot) == 1 {
                                last.fetch_add(1, Ordering::Relaxed);
                            }
                            cells.set(4 + 2 * slot + thread, thread as u8 + 1);
                        }
                    }
                });
            }
        });
        for slot in 0..4 {
            assert_eq!(cells.get(slot), 0);
            assert_eq!(cells.get(4 + 2 * slot), 1);
            assert_eq!(cells.get(5 + 2 * slot), 2);
        }
        assert_eq!(last.load(Ordering::Relaxed), 4);
    }
}
