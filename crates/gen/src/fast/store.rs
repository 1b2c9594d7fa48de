//! Storing values in the work table and finding the slots of a code again.
//!
//! Owns: the chunks of 4,096 slots and their sets of the codes written into them (so that a
//! pass skips the chunks without its code), the scans that find a code's slots (one at a
//! time, a chunk at a time, a run at a time), the counts of losses by depth, and the few
//! methods through which every value is stored (`Core::decide`, `Core::store_loss`,
//! `Core::settle`), keeping the hints and the en-passant positions in step.
//! Must never: decide what a slot's value is (the passes do).

use super::*;

pub(super) const CHUNK_BITS: u32 = 12;
pub(super) const CHUNK: u64 = 1 << CHUNK_BITS;
pub(super) const NO_MAN: usize = usize::MAX;

/// By side to move and depth in plies (below [`LOSS_DEPTHS`]), a count of slots: one set of
/// counters per worker thread, so that threads counting at once do not contend for them.
pub(super) struct LossCounts {
    pub(super) shards: Vec<[Vec<AtomicU64>; 2]>,
}

impl LossCounts {
    pub(super) fn new() -> LossCounts {
        let zeros = || (0..LOSS_DEPTHS).map(|_| AtomicU64::new(0)).collect();
        LossCounts {
            shards: (0..=rayon::current_num_threads())
                .map(|_| [zeros(), zeros()])
                .collect(),
        }
    }

    /// Adds `count` to side `x`'s count in `plies`.
    #[inline]
    pub(super) fn add(&self, x: usize, plies: u32, count: u64) {
        let shard = rayon::current_thread_index().map_or(0, |i| i + 1) % self.shards.len();
        self.shards[shard][x][plies as usize].fetch_add(count, Ordering::Relaxed);
    }

    /// Side `x`'s count in `plies`.
    pub(super) fn get(&self, x: usize, plies: u32) -> u64 {
        self.shards
            .iter()
            .map(|shard| shard[x][plies as usize].load(Ordering::Relaxed))
            .sum()
    }

    pub(super) fn clear(&self) {
        for count in self.shards.iter().flatten().flatten() {
            count.store(0, Ordering::Relaxed);
        }
    }
}

/// Calls `visit` with every slot of `cells` that holds `code`, in parallel over the chunks
/// whose code set (`presence`) has it; returns how many there were.
pub(super) fn for_each_of_code(
    cells: &Cells,
    presence: &[[AtomicU64; 4]],
    part: Option<&[usize]>,
    code: u8,
    visit: impl Fn(u64) + Sync,
) -> u64 {
    for_each_chunk_of_code(cells, presence, part, code, |first, end| {
        let mut count = 0;
        cells.for_each_equal(first, end, code, |slot| {
            count += 1;
            visit(slot);
        });
        count
    })
}

/// Calls `scan` with the slots `first..end` of every chunk of `cells` (of `part`, if given)
/// whose code set (`presence`) has `code`, in parallel; the sum of what it returns.
pub(super) fn for_each_chunk_of_code(
    cells: &Cells,
    presence: &[[AtomicU64; 4]],
    part: Option<&[usize]>,
    code: u8,
    scan: impl Fn(u64, u64) -> u64 + Sync,
) -> u64 {
    let (word, bit) = (usize::from(code >> 6), 1u64 << (code & 63));
    let has_code = |&c: &usize| presence[c][word].load(Ordering::Relaxed) & bit != 0;
    let tasks: Vec<usize> = match part {
        Some(part) => part.iter().copied().filter(has_code).collect(),
        None => (0..presence.len()).filter(has_code).collect(),
    };
    tasks
        .par_iter()
        .map(|&chunk| {
            let first = chunk as u64 * CHUNK;
            scan(first, (first + CHUNK).min(cells.len()))
        })
        .sum()
}

/// [`for_each_of_code`] a run at a time: calls `visit` with the first slot of each run of
/// `squares` slots (the last man's field) holding `code` somewhere and the set of its slots
/// that do, as offsets from that first slot, at most once per chunk and run.
pub(super) fn for_each_run_of_code(
    cells: &Cells,
    presence: &[[AtomicU64; 4]],
    part: Option<&[usize]>,
    code: u8,
    squares: u64,
    visit: impl Fn(u64, u64) + Sync,
) -> u64 {
    debug_assert!(squares <= 64);
    for_each_chunk_of_code(cells, presence, part, code, |first, end| {
        let mut count = 0;
        let (mut start, mut mask) = (0, 0u64);
        cells.for_each_equal(first, end, code, |slot| {
            count += 1;
            let run = if squares == 64 {
                slot & !63
            } else {
                slot - slot % squares
            };
            if run != start && mask != 0 {
                visit(start, mask);
                mask = 0;
            }
            start = run;
            mask |= 1 << (slot - run);
        });
        if mask != 0 {
            visit(start, mask);
        }
        count
    })
}

/// Calls `visit` with every bit of `set`, lowest first.
#[inline(always)]
pub(super) fn for_each_bit(mut set: u64, mut visit: impl FnMut(Sq)) {
    while set != 0 {
        visit(set.trailing_zeros() as Sq);
        set &= set - 1;
    }
}

pub(super) fn presence_sets(chunks: usize) -> Vec<[AtomicU64; 4]> {
    let mut v = Vec::with_capacity(chunks);
    v.resize_with(chunks, Default::default);
    v
}

impl<const N: usize> Core<'_, N> {
    /// Takes `slot` (side `x` to move), whose value is now final, out of the hints.
    #[inline(always)]
    pub(super) fn settle(&self, x: usize, slot: u64) {
        self.settle_run(x, slot, 1);
    }

    /// Takes the slots `start + s`, `s` in `mask` (side `x` to move), whose values are final,
    /// out of the hints (`not_won`, which keeps the losses, is left to the callers).
    #[inline(always)]
    pub(super) fn settle_run(&self, x: usize, start: u64, mask: u64) {
        if self.hinted {
            if !self.shared_win_hints {
                self.may_win[x].remove_run(start, mask);
            }
            self.may_lose[x].remove_run(start, mask);
        }
    }

    /// The slots an even pass may still win with side `x` to move: `may_win`, or where it is
    /// folded into `not_won` ([`Core::shared_win_hints`]), `not_won`, which holds them all.
    #[inline(always)]
    pub(super) fn win_hints(&self, x: usize) -> &SlotHints {
        match self.shared_win_hints {
            true => &self.not_won[x],
            false => &self.may_win[x],
        }
    }

    /// Stores the loss of `slot` (side `x` to move) in one ply more than `longest`, and
    /// returns its code; past the depths the codes hold, stores it undecided (`None`; the
    /// pass is then found too deep).
    pub(super) fn store_loss(&self, x: usize, slot: u64, longest: u32) -> Option<u8> {
        let code = self.code_for(longest + 1);
        if code == UNKNOWN {
            self.cells[x].set(slot, UNKNOWN);
            return None;
        }
        self.decide(x, slot, code);
        Some(code)
    }

    /// Stores `code`, a final value, in `slot` (side `x` to move): out of the hints (a win out
    /// of `not_won` too, where the even passes test it), noted in its chunk's code set, and
    /// followed by the slot's en-passant positions.
    #[inline(always)]
    pub(super) fn decide(&self, x: usize, slot: u64, code: u8) {
        self.cells[x].set(slot, code);
        self.settle(x, slot);
        if self.shared_win_hints && self.codes.plies(code).is_some_and(|k| k % 2 == 1) {
            self.not_won[x].remove_run(slot, 1);
        }
        self.note(x, slot, code);
        self.follow_ep(x, slot, code);
    }

    /// Counts `count` more slots (side `x` to move) of code `code`, if it is a loss.
    pub(super) fn count_losses(&self, x: usize, code: u8, count: u64) {
        match self.codes.plies(code) {
            Some(plies) if plies % 2 == 0 && (plies as usize) < LOSS_DEPTHS && count > 0 => {
                self.losses.add(x, plies, count);
            }
            _ => {}
        }
    }

    /// Records that the value `code` was written into `slot`'s chunk on side `x`.
    #[inline]
    pub(super) fn note(&self, x: usize, slot: u64, code: u8) {
        if self.mark_present(x, slot, code) {
            self.deepest.fetch_max(u32::from(code), Ordering::Relaxed);
        }
    }

    /// Records that `code` was written into `slot`'s chunk on side `x`; whether it is new there.
    #[inline]
    pub(super) fn mark_present(&self, x: usize, slot: u64, code: u8) -> bool {
        let word = &self.presence[x][(slot >> CHUNK_BITS) as usize][usize::from(code >> 6)];
        let bit = 1u64 << (code & 63);
        let new = word.load(Ordering::Relaxed) & bit == 0;
        if new {
            word.fetch_or(bit, Ordering::Relaxed);
        }
        new
    }
}
