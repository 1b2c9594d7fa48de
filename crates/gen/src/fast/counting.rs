//! Losses found by counting moves.
//!
//! Owns: the odd passes' counts, in place of the candidates and their forward checks where a
//! pass goes a run at a time. The first un-move from a win to reach an undecided parent counts
//! the parent's moves that stay in the table (`Core::count_moves`: legal moves, found with the
//! other side's attacks and the squares where a man shields its king, without reading a
//! child) and stores how many are left; each later un-move into it takes one off, with one
//! atomic subtraction, as two threads may reach one parent at once. The un-move that takes the
//! last one off finds the parent lost: every move that stays reaches a win, the deepest in `d`
//! plies (the passes come in order of depth); its exits, which the init pass found to be wins
//! for the other side or nothing (else the slot could not lose, `2`), are looked up once more,
//! and the slot is lost in one ply more than the longest of all
//! (`Core::lost_with_every_move_won`).
//! Must never: count a move twice but where the position reached has two slots (below).
//!
//! A slot with too many moves to count becomes a candidate ([`super::forward`]), and when the
//! watch codes are given up the counts become `1` (undecided): the candidates and their
//! checks take over from there. In KRBvKN, 218 M forward checks reading 1.41 G children become
//! one count per parent reached and one decrement per un-move.

use super::*;

/// What the other side's men mean for a king ([`Core::king_safety`]).
pub(super) struct KingSafety {
    /// The squares they attack through the king's square (his own attacked or not either way).
    pub(super) attacked: Board64,
    /// Where a move that captures nothing may stand to answer a check: everywhere without
    /// one; between a sliding checker and the king; nowhere against two checkers or another
    /// checker.
    pub(super) answers: Board64,
    /// The lines on which a man of the king's side may shield him from a slider.
    pub(super) shields: Board64,
}

impl<const N: usize> Core<'_, N> {
    /// When the watch codes count moves ([`Core::count_moves`]: wherever the passes go a run at
    /// a time, until the watch codes are given up), the code of a slot with too many moves to
    /// count; the counts lie below it.
    #[inline(always)]
    pub(super) fn uncounted(&self) -> Option<u8> {
        (self.search == LossSearch::Counting && self.codes.watch_keys > 0)
            .then(|| WATCHING + self.codes.watch_keys - 1)
    }

    /// [`Core::mark_candidates`] where the parents' side counts its moves, `uncounted` the code
    /// of a slot with too many ([`Core::uncounted`]).
    pub(super) fn count_down_parents(&self, node: Node, x: usize, depth: u32, uncounted: u8) {
        let y = 1 - x;
        self.for_each_parent_in(node, x, &self.may_lose[y], |parent, _| {
            let old = self.cells[y].get(parent);
            if old == uncounted {
                self.cells[y].set(parent, CANDIDATE);
                self.mark_present(y, parent, CANDIDATE);
            } else if old == UNKNOWN {
                // The first move found into a win: the others are counted now.
                let left = self.count_moves(parent, y) - 1;
                let new = match left {
                    0 => CANDIDATE,
                    _ if left < u32::from(self.codes.watch_keys) => WATCHING + (left - 1) as u8,
                    _ => uncounted,
                };
                match self.cells[y].replace(parent, UNKNOWN, new) {
                    Ok(()) if left == 0 => self.lost_with_every_move_won(parent, y, depth, false),
                    Ok(()) if new == uncounted => {
                        self.cells[y].set(parent, CANDIDATE);
                        self.mark_present(y, parent, CANDIDATE);
                    }
                    Ok(()) => {}
                    // Another thread counted it first.
                    Err(now) => self.count_down(parent, y, now, uncounted, depth),
                }
            } else {
                self.count_down(parent, y, old, uncounted, depth);
            }
        });
    }

    /// One more move of `slot` (side `x` to move, its code `old`) reaches a win: a counted slot
    /// counts it, and is lost when none is left.
    #[inline(always)]
    pub(super) fn count_down(&self, slot: u64, x: usize, old: u8, uncounted: u8, depth: u32) {
        if (WATCHING..uncounted).contains(&old) {
            let before = self.cells[x].count_down(slot);
            debug_assert!((WATCHING..uncounted).contains(&before));
            if before == WATCHING {
                self.lost_with_every_move_won(slot, x, depth, false);
            }
        }
    }

    /// The moves of `slot` (side `x` to move, a legal position) that stay in the table, as the
    /// un-moves of the odd passes reach it: a king's move into a position of two slots (both
    /// kings on squares one symmetry fixes) counts twice, once from each.
    #[inline(never)]
    pub(super) fn count_moves(&self, slot: u64, x: usize) -> u32 {
        let layout = self.shared.layout;
        let p = self
            .place(slot)
            .expect("an undecided slot holds a position");
        let y = 1 - x;
        let safety = self.king_safety(&p, x);
        let mut count = 0;
        for &i in &self.shared.side_men[x][..self.shared.side_len[x]] {
            let legal = self.legal_quiet_targets(&p, x, i, &safety);
            count += legal.count_ones();
            if i == x && layout.is_fixed(p.sq[y]) {
                for_each_bit(legal, |t| {
                    if layout.share_fixer(t, p.sq[y]) {
                        count += 1;
                    }
                });
            }
        }
        count
    }

    /// What the other side's men mean for side `x`'s king in `p` ([`KingSafety`]).
    #[inline(always)]
    pub(super) fn king_safety(&self, p: &Placed<N>, x: usize) -> KingSafety {
        // A man attacks the king's square with the king lifted off it exactly when he does
        // with the king on it: the king ends every line onto his square.
        let occ = p.occ ^ (1 << p.sq[x]);
        self.king_safety_from(p, x, |j| self.man_attacks(j, p.sq[j], occ))
    }

    /// [`Core::king_safety`], `lifted(j)` the attacks of the other side's man `j` with the
    /// king lifted off his square.
    #[inline(always)]
    pub(super) fn king_safety_from(
        &self,
        p: &Placed<N>,
        x: usize,
        lifted: impl Fn(usize) -> Board64,
    ) -> KingSafety {
        let bits = self.shared.bits;
        let king = p.sq[x];
        let mut safety = KingSafety {
            attacked: 0,
            answers: !0,
            shields: 0,
        };
        for &j in &self.shared.side_men[1 - x][..self.shared.side_len[1 - x]] {
            let attacks = lifted(j);
            safety.attacked |= attacks;
            let slider = is_slider(self.shared.piece[j]);
            if attacks & (1 << king) != 0 {
                safety.answers &= if slider {
                    bits.between(p.sq[j], king)
                } else {
                    0
                };
            }
            if slider {
                safety.shields |= bits.between(p.sq[j], king);
            }
        }
        safety
    }

    /// The squares man `i` of side `x` in `p` moves to legally without capturing or promoting
    /// (`safety` what the other side's men mean for the king): the king onto a square not
    /// attacked, another man onto a square that answers every check, and, pinned, along the
    /// line of his pinner only.
    #[inline(always)]
    pub(super) fn legal_quiet_targets(
        &self,
        p: &Placed<N>,
        x: usize,
        i: usize,
        safety: &KingSafety,
    ) -> Board64 {
        self.legal_of_targets(p, x, i, safety, self.quiet_targets(p, i))
    }

    /// [`Core::legal_quiet_targets`] among `targets`, the squares man `i` moves to without
    /// capturing or promoting, his own king left in check or not.
    #[inline(always)]
    pub(super) fn legal_of_targets(
        &self,
        p: &Placed<N>,
        x: usize,
        i: usize,
        safety: &KingSafety,
        targets: Board64,
    ) -> Board64 {
        let bits = self.shared.bits;
        if i == x {
            return targets & !safety.attacked;
        }
        let (from, king) = (p.sq[i], p.sq[x]);
        let mut legal = targets & safety.answers;
        if legal != 0 && safety.shields & (1 << from) != 0 {
            for &j in &self.shared.side_men[1 - x][..self.shared.side_len[1 - x]] {
                let line = bits.between(p.sq[j], king);
                if line & (1 << from) != 0
                    && is_slider(self.shared.piece[j])
                    && bits.attacks_square(self.shared.piece[j], p.sq[j], king, p.occ ^ (1 << from))
                {
                    legal &= line;
                }
            }
        }
        legal
    }

    /// A slot (side `x` to move) every move of which the pass of `depth` found to reach a win,
    /// the deepest in `depth` plies — its count of moves taken to zero, or no way out left
    /// ([`Core::lose_without_ways_out`]); with its exits, it is lost. Where its moves were not
    /// counted (`may_have_none`), it may have none at all: then, not in check (the init pass
    /// found the mates) and with no exit (it stored those lost by their exits), it is
    /// stalemate, a draw for good. A slot with an exit has a quiet move too (else the init
    /// pass decided it), so only one without is looked at for them.
    #[inline(never)]
    pub(super) fn lost_with_every_move_won(
        &self,
        slot: u64,
        x: usize,
        depth: u32,
        may_have_none: bool,
    ) {
        let p = self
            .place(slot)
            .expect("a slot that may lose holds a position");
        let mut attacks = [0 as Board64; N];
        for &i in &self.shared.side_men[x][..self.shared.side_len[x]] {
            attacks[i] = self.man_attacks(i, p.sq[i], p.occ);
        }
        let (longest, exits) = self.longest_with_exits(&p, &attacks, x, depth);
        if may_have_none && !exits && !self.has_quiet_move(&p, x) {
            self.settle(x, slot);
            self.log_for_mirror(slot);
            return;
        }
        let Some(longest) = longest else {
            // An exit that does not lose made the slot unable to lose in the init pass, so
            // this is not reached; were it, the forward check would decide the slot.
            self.cells[x].set(slot, CANDIDATE);
            self.mark_present(x, slot, CANDIDATE);
            self.log_for_mirror(slot);
            return;
        };
        if let Some(code) = self.store_loss(x, slot, longest) {
            self.count_losses(x, code, 1);
            if self.codes.plies(code) != Some(depth + 1) {
                self.log_for_mirror(slot);
            }
        }
    }
}
