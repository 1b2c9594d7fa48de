//! Losses found from the ways out of the runs the wins reach.
//!
//! Owns: the odd passes' way of finding losses where the table keeps hints and no pawn moves
//! in it (a pawnless table, or the slices of one), in place of the counts: most counts go to
//! slots that are never lost (in KRBvKR, 40.8 M of the 45.1 M slots counted were draws). Each
//! side keeps a set of one bit per slot, *not won*: its legal slots, less the wins the odd
//! passes have met (`Core::not_won`). An odd pass takes the wins of depth `d` out of it and
//! marks the runs of the parents they reach that may lose (`Core::reached`, a bit per run, a
//! stretch of parents at a time: [`MarkReached`]), then looks at each marked run once
//! (`Core::lose_without_ways_out`): a slot of it that may lose and has no move into a slot
//! that is not won — no way out — is lost in `d + 1` plies, or after its exits; one with no
//! move at all is stalemate.
//! Must never: read a child's byte (the sets say all it needs).
//!
//! A run's moves are its un-moves turned round (a piece's move and un-move are the same
//! step), found for the whole run as the parents are (`Core::for_each_parent_run` with a
//! [`super::parents::ParentSink`] that reads the set rather than visits slots), the last man's
//! own moves at once against the set's word for the run (a sliding last man's for the whole
//! run: [`super::bits::Bits::attacks_from_set`]), and the search stops as soon as every slot
//! has a way out.

use super::*;

/// The squares `s` of a run's last man from which a move reaches a slot of `open` (a way out
/// of a loss: a legal position not won), found among `wanted` until every one has one.
pub(super) struct WaysOut<'h> {
    pub(super) open: &'h SlotHints,
    pub(super) wanted: u64,
    pub(super) found: u64,
}

impl ParentSink for WaysOut<'_> {
    #[inline(always)]
    fn run(&mut self, base: u64, live: u64, _: Sq) {
        self.found |= live & self.open.run(base);
    }

    #[inline(always)]
    fn slot(&mut self, slot: u64, s: Sq, _: Sq) {
        if self.found >> s & 1 == 0 && self.open.get(slot) {
            self.found |= 1 << s;
        }
    }

    #[inline(always)]
    fn done(&self) -> bool {
        self.wanted & !self.found == 0
    }

    #[inline(always)]
    fn pending(&self) -> u64 {
        self.wanted & !self.found
    }
}

/// Marks the run of every parent in `hints` (those that may lose), once per parent run
/// rather than once per parent: the parents of one stretch lie in one run.
pub(super) struct MarkReached<'h> {
    pub(super) hints: &'h SlotHints,
    pub(super) marks: &'h RunMarks,
    pub(super) squares: u64,
}

impl ParentSink for MarkReached<'_> {
    #[inline(always)]
    fn run(&mut self, base: u64, live: u64, _: Sq) {
        debug_assert_eq!(base % self.squares, 0, "a stretch of parents starts a run");
        if live & self.hints.run(base) != 0 {
            self.marks.mark(base / self.squares);
        }
    }

    #[inline(always)]
    fn slot(&mut self, slot: u64, _: Sq, _: Sq) {
        if self.hints.get(slot) {
            self.marks.mark(slot / self.squares);
        }
    }
}

impl<const N: usize> Core<'_, N> {
    /// Whether the last man is a piece of side `y` alone of its kind: its moves and un-moves
    /// (the same steps) change its own field alone, staying in its run.
    #[inline(always)]
    pub(super) fn last_is_lone_piece_of(&self, y: usize) -> bool {
        let last = N - 1;
        self.side_of(last) == y
            && self.shared.layout.group_of(last).0 == last
            && self.shared.piece[last] != Piece::Pawn
    }

    /// Where the odd passes find losses by ways out: the wins of this pass (side `x` to
    /// move, `node`) are no way out any more, and the runs of their parents that may lose
    /// are marked for [`Core::lose_without_ways_out`].
    pub(super) fn reach_runs(&self, node: Node, x: usize) {
        let y = 1 - x;
        let Node::Run { start, mask } = node else {
            unreachable!("ways out are found where the passes go a run at a time");
        };
        // The task scanning a chunk is the only one clearing bits of its words.
        self.not_won[x].remove_run(start, mask);
        let squares = self.shared.layout.square_count();
        let mut sink = MarkReached {
            hints: &self.may_lose[y],
            marks: &self.reached[y],
            squares,
        };
        // The last man's own un-moves, where it is a piece alone of its kind of the parents'
        // side, stay in this run: it is marked if, from a square of `mask`, the man attacks
        // a square where a slot of the run may lose (a piece's un-move is a move).
        let last = N - 1;
        let lone_piece = self.last_is_lone_piece_of(y);
        if lone_piece {
            let run_slots = u64::MAX >> (64 - squares);
            let open = self.may_lose[y].run(start) & run_slots;
            if open != 0 {
                let sq: [Sq; N] = self.shared.layout.decode_array(start);
                let outer = sq[..last].iter().fold(0 as Board64, |occ, &s| occ | 1 << s);
                let bits = self.shared.bits;
                let reached = bits.attacks_from_set(self.shared.piece[last], mask, outer);
                if reached & open & !outer != 0 {
                    self.reached[y].mark(start / squares);
                }
            }
        }
        self.for_each_parent_run(start, mask, x, !lone_piece, &mut sink);
    }

    /// Where the odd passes find losses by ways out, after the pass of `depth` (odd) met the
    /// wins of side `x`: in every run of side `y` (the other) that an un-move from them
    /// reached, each slot that may lose and has no move into a legal position not won — a
    /// *way out* — is lost: every move reaches a win, the deepest in `depth` plies (a slot
    /// whose moves were all won before was lost by an earlier pass, when the last of them
    /// was won and reached it), and its exits lose too (else it could not lose). The moves
    /// are found as the un-moves of [`Core::for_each_parent_run`] turned round: a piece's
    /// move and un-move are the same step, and no pawn moves here. The part's chunks are
    /// taken in parallel, each with the runs that start in it, so that each run is looked at
    /// once and its slots written by one task.
    pub(super) fn lose_without_ways_out(
        &self,
        x: usize,
        depth: u32,
        part: &[usize],
        chunk_end: &[u64],
    ) {
        let y = 1 - x;
        let squares = self.shared.layout.square_count();
        let run_slots = u64::MAX >> (64 - squares);
        part.par_iter().for_each(|&chunk| {
            let (first, end) = (chunk as u64 * CHUNK, chunk_end[chunk]);
            self.reached[y].take(first.div_ceil(squares), end.div_ceil(squares), |run| {
                let start = run * squares;
                let wanted = self.may_lose[y].run(start) & run_slots;
                if wanted == 0 {
                    return;
                }
                let mut ways = WaysOut {
                    open: &self.not_won[x],
                    wanted,
                    found: 0,
                };
                // The last man's own moves first, all at once where it moves within the run
                // (a piece, alone of its kind: its move changes nothing but its own field).
                let last = N - 1;
                let lone_piece = self.last_is_lone_piece_of(y);
                if lone_piece {
                    let sq: [Sq; N] = self.shared.layout.decode_array(start);
                    let outer = sq[..last].iter().fold(0 as Board64, |occ, &s| occ | 1 << s);
                    let open = self.not_won[x].run(start) & run_slots & !outer;
                    let piece = self.shared.piece[last];
                    if open != 0 && is_slider(piece) {
                        // A slider's moves for all the run at once: the empty squares from
                        // which it attacks an open one are those it attacks from them.
                        let bits = self.shared.bits;
                        ways.found |= wanted & !outer & bits.attacks_from_set(piece, open, outer);
                    } else if open != 0 {
                        for_each_bit(wanted, |s| {
                            if self.man_attacks(last, s, outer) & open != 0 {
                                ways.found |= 1 << s;
                            }
                        });
                    }
                }
                if !ways.done() {
                    self.for_each_parent_run(start, wanted, x, !lone_piece, &mut ways);
                }
                for_each_bit(wanted & !ways.found, |s| {
                    let slot = start + u64::from(s);
                    // A hint may be stale (a clear lost to another thread's): the byte says.
                    if self.cells[y].get(slot) != UNKNOWN {
                        return;
                    }
                    // A slot of the run that no un-move reached may have no move at all.
                    self.lost_with_every_move_won(slot, y, depth, true);
                });
            });
        });
    }
}
