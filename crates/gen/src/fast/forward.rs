//! Losses found by forward checks of candidates, with watching.
//!
//! Owns: the odd passes' way of finding losses where moves are not counted (tables with
//! en-passant positions, slots with too many moves to count, and every slot once the watch
//! codes are given up): every slot of a win in `d` un-moves to its undecided parents, which
//! become candidates (code `255`, so a parent with several new winning children is examined
//! once) — except a parent watching another square than the one the un-moved man stands on in
//! it; then each candidate's moves are checked forward, in slot order: if every move reaches a
//! win in at most `d` plies (the triggering one reaches `d`), the candidate is lost in one
//! more ply than the longest; otherwise it watches the destination of the first move found
//! that does not. A move into an illegal position (its own king left in check) reaches a slot
//! of code `0`, here or in the smaller table, and is no move: legality is read from the
//! tables rather than tested.
//! Must never: store a loss before every move of the slot is known to reach a win.
//!
//! Watching only skips checks that would fail: a slot watching `s` has a move to `s` whose
//! position was not won within the depth of its last check, and it cannot be lost before that
//! position is won, at a later depth; the pass of that depth un-moves from the position's
//! slots, and one of those un-moves reaches the watching slot with its man standing on `s`,
//! making it a candidate again. A decided child never changes, so a check that fails later
//! fails at or after the watched move, and wins the slot skipped checking reached are still
//! wins.

use super::*;

impl<const N: usize> Core<'_, N> {
    /// Odd depths, first half: the undecided parents of a win in `depth` (side `x` to move)
    /// become candidates for a loss — unless the last check of a parent's moves stopped at a
    /// move of another man than the one that moved here: that move still reaches no win (or no
    /// win yet found), and when it does, its own pass makes the parent a candidate. When the
    /// watch codes count, a parent counts this move off instead (its moves counted when the
    /// first is found), and is lost when none is left; one with too many moves to count
    /// becomes a candidate. Where the table keeps hints and no pawn moves in it, the runs of
    /// the parents are only marked here, and their ways out looked at after the pass
    /// ([`Core::reach_runs`], [`Core::lose_without_ways_out`]).
    pub(super) fn mark_candidates(&self, node: Node, x: usize, depth: u32) {
        let y = 1 - x;
        if self.search == LossSearch::WaysOut {
            return self.reach_runs(node, x);
        }
        if let Some(uncounted) = self.uncounted() {
            return self.count_down_parents(node, x, depth, uncounted);
        }
        self.for_each_parent_in(node, x, &self.may_lose[y], |parent, to| {
            let old = self.cells[y].get(parent);
            if old == UNKNOWN || old == self.codes.watching(to) {
                self.cells[y].set(parent, CANDIDATE);
                self.mark_present(y, parent, CANDIDATE);
            }
        });
    }

    /// Odd depths, second half: a candidate (side `x` to move) whose every move now reaches a
    /// win is lost (its code returned); any other is undecided again.
    pub(super) fn find_loss(&self, slot: u64, x: usize, depth: u32) -> Option<u8> {
        match self.longest_forced_win(slot, x, depth) {
            Ok(longest) => self.store_loss(x, slot, longest),
            Err(watch) => {
                self.cells[x].set(slot, watch);
                None
            }
        }
    }

    /// If every move of `slot` (side `x` to move) reaches a position won for the opponent in
    /// at most `depth` plies (or, by a capture, in any depth), the longest of those wins;
    /// otherwise the undecided code that watches the first move found that does not.
    pub(super) fn longest_forced_win(&self, slot: u64, x: usize, depth: u32) -> Result<u32, u8> {
        let p = self.place(slot).ok_or(UNKNOWN)?;
        let y = 1 - x;
        let white_king_fixed = self.shared.layout.is_fixed(p.sq[0]);
        let mut longest = 0;
        // Each man's attacks, kept for the exits below.
        let mut attacks = [0 as Board64; N];
        // The moves that stay in the table first, the men with the shortest strides first:
        // their children lie near this slot in memory, and most checks fail at their first
        // undecided child.
        for &i in self.shared.side_men[x][..self.shared.side_len[x]]
            .iter()
            .rev()
        {
            let from = p.sq[i];
            attacks[i] = self.man_attacks(i, from, p.occ);
            let mut targets = self.staying_targets(i, from, p.occ, attacks[i]);
            while targets != 0 {
                let t = targets.trailing_zeros() as Sq;
                targets &= targets - 1;
                let (child, moved) = self.child_of(slot, &p.sq, i, t, white_king_fixed);
                // A move into an illegal position (its own king in check) has a child of code
                // 0: it is no move, and is passed over.
                let code = self.child_code(child, y, moved, from, t);
                if code == NONE {
                    continue;
                }
                match self.codes.plies(code) {
                    Some(k) if k % 2 == 1 && k <= depth => longest = longest.max(k),
                    _ => return Err(self.uncounted().unwrap_or(self.codes.watching(t))),
                }
            }
        }
        // Then the exits, whose look-ups reach other tables. Each leads to a win for the
        // opponent or nowhere (an illegal position, code 0): an exit into a draw or a loss made
        // the slot unable to lose, or won, in the init pass, and such a slot is never a
        // candidate.
        self.longest_with_exits(&p, &attacks, x, longest)
            .0
            .ok_or(UNKNOWN)
    }

    /// The longer of `longest` and the longest win the opponent reaches by an exit of `p`
    /// (side `x` to move, `attacks` its men's attacks), `None` if an exit reaches a draw or a
    /// loss instead; and whether `p` has an exit at all (one that is a legal move).
    #[inline(always)]
    pub(super) fn longest_with_exits(
        &self,
        p: &Placed<N>,
        attacks: &[Board64; N],
        x: usize,
        mut longest: u32,
    ) -> (Option<u32>, bool) {
        let (mut undecided, mut any) = (false, false);
        self.for_each_exit(p, attacks, x, |value| match value {
            Value::Win(k) => {
                any = true;
                longest = longest.max(k);
            }
            Value::Illegal => {}
            _ => (any, undecided) = (true, true),
        });
        ((!undecided).then_some(longest), any)
    }

    /// The code of `child` (side `y` to move), reached by man `moved` of the other side going
    /// from `from` to `to`: that of the position with an en-passant right if the move is a
    /// double step an en-passant capture can answer.
    #[inline(always)]
    pub(super) fn child_code(&self, child: u64, y: usize, moved: usize, from: Sq, to: Sq) -> u8 {
        if let (Some(ep), Some(layout)) = (&self.ep, self.shared.ep_layout) {
            if self.shared.piece[moved] == Piece::Pawn
                && self.shared.bits.pawn_double_back(1 - y, to) & (1 << from) != 0
            {
                if let Some(number) = layout.number(child, moved) {
                    let code = ep.cells[y].get(number);
                    if code != NONE {
                        return code;
                    }
                }
            }
        }
        self.cells[y].get(child)
    }
}
