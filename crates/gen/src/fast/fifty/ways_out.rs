//! The fifty-move passes' sets over the slot layout: losses found from ways out, and the
//! parents of losses passed over where already decided.
//!
//! Owns: [`RunSets`], the [`SlotSets`] of the fast core's moves — by side, four sets of a bit
//! a slot (the legal slots not won yet; the parents the wins of a pass reached; hints of the
//! slots that may still lose and of those still pending) and a bit a run of those reached. A
//! pass's wins are taken out of their side's set and un-moved a run at a time
//! (`Core::for_each_parent_run`), each stretch of parents that may lose marked at once; then
//! each marked run is looked at once: its reached slots' moves that stay are its un-moves
//! turned round (a piece's move and un-move are the same step, and no pawn moves in the
//! passes), searched until every slot has one into a legal slot not won
//! ([`crate::fast::ways_out::WaysOut`], as the DTM passes do), the last man's all at once
//! where it is a piece alone of its kind. A reached slot left without a way out has every move
//! that stays into a win, the deepest decided at this pass, since it was reached from one: it
//! is lost now, where its count of moves would have reached zero.
//! Must never: decide a value (the passes in `crate::fifty` do, from the slots given them, and
//! read each word before they believe a hint), or leave a bit of an exact set wrong: the
//! not-won and reached sets change by locked instructions only.
//!
//! Counting moves takes a locked instruction on the 16-bit word of every parent of every win,
//! anywhere in the table; here the wins change bits of sets a sixteenth of that size, a
//! stretch of parents at a time, and only runs they reached are searched.

use super::super::bits::Board64;
use super::super::cells::{RunMarks, SlotHints};
use super::super::parents::ParentSink;
use super::super::store::for_each_bit;
use super::super::ways_out::WaysOut;
use super::{for_each_run, SlotMoves};
use crate::fifty::{may_lose, Part, SideWords, SlotSets, NO_POSITION};
use crate::pending::PENDING;
use rayon::prelude::*;
use retro_engine::Sq;
use std::sync::atomic::Ordering;

/// The runs a task of [`RunSets::lost`] takes at a time (a word of marks per 64).
const RUNS_A_TASK: u64 = 64 * 64;

/// The sets by side of a table's passes, made once and filled again for each part: a part
/// rewrites the words of its stretches, and leaves nothing reached or marked when it ends.
pub(super) struct Sets {
    /// The legal slots whose wins no pass has taken yet.
    not_won: [SlotHints; 2],
    /// The slots whose word may lose ([`may_lose`]), and some that no longer may.
    may_lose: [SlotHints; 2],
    /// The slots whose word may be pending, and some whose word no longer is.
    pending: [SlotHints; 2],
    /// The slots that may lose reached by the wins of a pass, not yet looked at.
    reached: [SlotHints; 2],
    /// The runs that hold a slot of `reached`.
    marks: [RunMarks; 2],
}

impl Sets {
    /// Empty sets of `slots` slots, runs of `squares`.
    fn new(slots: u64, squares: u64) -> Sets {
        let sets = || [SlotHints::new(slots), SlotHints::new(slots)];
        let runs = slots.div_ceil(squares);
        Sets {
            not_won: sets(),
            may_lose: sets(),
            pending: sets(),
            reached: sets(),
            marks: [RunMarks::new(runs), RunMarks::new(runs)],
        }
    }
}

/// The sets with which [`SlotMoves`] runs a part's passes ([`SlotSets`]).
pub(crate) struct RunSets<'m, 'a, const N: usize> {
    moves: &'m SlotMoves<'a, N>,
    sets: &'m Sets,
}

impl<'m, 'a, const N: usize> RunSets<'m, 'a, N> {
    /// The sets of `part` from the first words in `states`: every legal slot not won, the
    /// slots that may lose and those pending in the hints, nothing reached.
    pub(crate) fn new(
        moves: &'m SlotMoves<'a, N>,
        states: &[SideWords; 2],
        part: &Part,
    ) -> RunSets<'m, 'a, N> {
        let layout = moves.core.shared.layout;
        let slots = layout.size();
        let sets = moves
            .sets
            .get_or_init(|| Sets::new(slots, layout.square_count()));
        for span in &part.spans {
            let words = (span.start / 64) as usize..span.end.div_ceil(64) as usize;
            words.into_par_iter().for_each(|k| {
                let first = k as u64 * 64;
                let end = (first + 64).min(slots);
                for (x, side) in states.iter().enumerate() {
                    let (mut legal, mut may, mut open) = (0u64, 0u64, 0u64);
                    for (b, word) in side[first as usize..end as usize].iter().enumerate() {
                        let word = word.load(Ordering::Relaxed);
                        legal |= u64::from(word != NO_POSITION) << b;
                        may |= u64::from(may_lose(word)) << b;
                        open |= u64::from(word & PENDING != 0) << b;
                    }
                    sets.not_won[x].set_word(k, legal);
                    sets.may_lose[x].set_word(k, may);
                    sets.pending[x].set_word(k, open);
                }
            });
        }
        RunSets { moves, sets }
    }
}

impl<const N: usize> RunSets<'_, '_, N> {
    /// The squares of the men but the last in the slots of the run from `start`.
    #[inline(always)]
    fn outer(&self, start: u64) -> Board64 {
        let sq: [Sq; N] = self.moves.core.shared.layout.decode_array(start);
        sq[..N - 1].iter().fold(0, |occ, &s| occ | 1 << s)
    }

    /// The empty squares from which the last man (a piece alone of its kind) attacks a square
    /// of `to`, the other men on `outer`.
    #[inline(always)]
    fn last_man_attacks(&self, to: Board64, outer: Board64) -> Board64 {
        let shared = &self.moves.core.shared;
        shared.bits.attacks_from_set(shared.piece[N - 1], to, outer) & !outer
    }
}

/// Marks every parent that may lose as reached, a stretch of them at once, and its run.
struct MarkParents<'h> {
    may_lose: &'h SlotHints,
    reached: &'h SlotHints,
    marks: &'h RunMarks,
    squares: u64,
}

impl ParentSink for MarkParents<'_> {
    #[inline(always)]
    fn run(&mut self, base: u64, live: u64, _: Sq) {
        let hit = live & self.may_lose.run(base);
        if hit != 0 {
            self.reached.insert_run(base, hit);
            self.marks.mark(base / self.squares);
        }
    }

    #[inline(always)]
    fn slot(&mut self, slot: u64, _: Sq, _: Sq) {
        if self.may_lose.get(slot) {
            self.reached.insert_run(slot, 1);
            self.marks.mark(slot / self.squares);
        }
    }
}

/// Visits every parent that may be pending, then takes it out of the hints: the visit decides
/// it, or it was decided before.
struct PendingParents<'h, F> {
    pending: &'h SlotHints,
    may_lose: &'h SlotHints,
    visit: F,
}

impl<F: FnMut(u64)> ParentSink for PendingParents<'_, F> {
    #[inline(always)]
    fn run(&mut self, base: u64, live: u64, _: Sq) {
        let hit = live & self.pending.run(base);
        if hit != 0 {
            for_each_bit(hit, |s| (self.visit)(base + u64::from(s)));
            self.pending.remove_run(base, hit);
            self.may_lose.remove_run(base, hit);
        }
    }

    #[inline(always)]
    fn slot(&mut self, slot: u64, _: Sq, _: Sq) {
        if self.pending.get(slot) {
            (self.visit)(slot);
            self.pending.remove(slot);
            self.may_lose.remove(slot);
        }
    }
}

impl<const N: usize> SlotSets for RunSets<'_, '_, N> {
    fn for_each_pending_parent(&self, s: usize, slots: &[u64], visit: impl FnMut(u64)) {
        let core = &self.moves.core;
        let squares = core.shared.layout.square_count();
        let mut sink = PendingParents {
            pending: &self.sets.pending[1 - s],
            may_lose: &self.sets.may_lose[1 - s],
            visit,
        };
        for_each_run(slots, squares, |start, mask| {
            core.for_each_parent_run(start, mask, s, true, &mut sink)
        });
    }

    fn won(&self, s: usize, slots: &[u64]) {
        let core = &self.moves.core;
        let squares = core.shared.layout.square_count();
        let y = 1 - s;
        let mut sink = MarkParents {
            may_lose: &self.sets.may_lose[y],
            reached: &self.sets.reached[y],
            marks: &self.sets.marks[y],
            squares,
        };
        let lone_piece = core.last_is_lone_piece_of(y);
        for_each_run(slots, squares, |start, mask| {
            self.sets.not_won[s].remove_run_exactly(start, mask);
            if lone_piece {
                // The last man's un-moves stay in the run: its parents are the empty squares
                // from which it attacks one of `mask` (a piece's attacks are symmetric).
                let outer = self.outer(start);
                let from = self.last_man_attacks(mask, outer);
                sink.run(start, from, 0);
            }
            core.for_each_parent_run(start, mask, s, !lone_piece, &mut sink);
        });
    }

    fn lost(&self, s: usize) -> Vec<u64> {
        let core = &self.moves.core;
        let squares = core.shared.layout.square_count();
        let runs = core.shared.layout.size().div_ceil(squares);
        let run_slots = u64::MAX >> (64 - squares);
        let y = 1 - s;
        let lone_piece = core.last_is_lone_piece_of(y);
        (0..runs.div_ceil(RUNS_A_TASK))
            .into_par_iter()
            .flat_map_iter(|task| {
                let mut lost = Vec::new();
                let (first, end) = (task * RUNS_A_TASK, ((task + 1) * RUNS_A_TASK).min(runs));
                self.sets.marks[y].take(first, end, |run| {
                    let start = run * squares;
                    // A slot won since the hint was last cleared is searched for nothing, and
                    // the passes, reading its word, do not take it as lost.
                    let wanted = self.sets.reached[y].take_run(start, run_slots)
                        & self.sets.may_lose[y].run(start);
                    if wanted == 0 {
                        return;
                    }
                    let mut ways = WaysOut {
                        open: &self.sets.not_won[s],
                        wanted,
                        found: 0,
                    };
                    if lone_piece {
                        // The last man's own moves for the whole run at once: a slot has one
                        // into a slot not won where the man attacks one from its square.
                        let outer = self.outer(start);
                        let open = self.sets.not_won[s].run(start) & run_slots & !outer;
                        ways.found |= wanted & self.last_man_attacks(open, outer);
                    }
                    if !ways.done() {
                        core.for_each_parent_run(start, wanted, s, !lone_piece, &mut ways);
                    }
                    let none = wanted & !ways.found;
                    self.sets.may_lose[y].remove_run(start, none);
                    self.sets.pending[y].remove_run(start, none);
                    for_each_bit(none, |b| lost.push(start + u64::from(b)));
                });
                lost
            })
            .collect()
    }
}

impl<'a, const N: usize> SlotMoves<'a, N> {
    /// Whether the passes find their losses from ways out ([`RunSets`]): where they go a
    /// run at a time. A part that is a level of pawns spread over the layout works too: no
    /// move that stays leaves it, so the slots of other levels are never reached, and those
    /// not solved yet are no position in the sets.
    pub(super) fn keeps_slot_sets(&self) -> bool {
        self.by_runs
    }
}
