//! The even passes: wins found from the losses of a depth.
//!
//! Owns: pushing wins (`Core::mark_wins`: every slot of a loss in `d` un-moves to its parents,
//! which become wins in `d + 1` unless already won sooner) and pulling them
//! (`Core::pull_wins`).
//! Must never: store anything but a win in `d + 1`.
//!
//! An even pass may go the other way: when the parents' side has fewer slots neither decided
//! nor met by a pass than there are losses in `d`, each of those slots is checked forward for
//! a quiet move into a loss in `d` (here or an en-passant position) and becomes a win in
//! `d + 1` if it has one — the same slots the un-moves reach. The counts are exact without a
//! scan: every legal slot is counted once by the pass of its depth, and the losses of each
//! depth are counted as they are stored (by the init pass or a forward check; a loss never
//! changes). In tables one side wins almost everywhere, the losses of the middle depths far
//! outnumber the parents left, which makes most of their un-moves needless.

use super::*;

impl<const N: usize> Core<'_, N> {
    /// Even depths: the parents of a loss in `plies − 1` (side `x` to move) are wins in `plies`.
    pub(super) fn mark_wins(&self, node: Node, x: usize, plies: u32) {
        if plies > self.codes.max_plies() {
            self.too_deep.store(true, Ordering::Relaxed);
            return;
        }
        let y = 1 - x;
        let code = self.codes.decided(plies);
        self.for_each_parent_in(node, x, self.win_hints(y), |parent, _| {
            let old = self.cells[y].get(parent);
            // Undecided, or decided later (a win by capture stored ahead of its depth).
            if old != NONE && (self.codes.plies(old).is_none() || old > code) {
                self.decide(y, parent, code);
            }
        });
    }

    /// Even depths, from the other end: every slot (side `y` to move) neither decided nor
    /// won in at most `plies` (only a win by capture, stored ahead, can be) that has a quiet
    /// move into a loss in `plies − 1` (here or in an en-passant position) is won in `plies`.
    /// These are the parents [`Core::mark_wins`] reaches from those losses, found by the
    /// parents' moves rather than the losses' un-moves: cheaper when the parents not yet won
    /// are fewer than the losses. Chunks in `open` (side `y`) are scanned, each by one task,
    /// which alone writes it; one left with no such slot is closed.
    pub(super) fn pull_wins(
        &self,
        y: usize,
        plies: u32,
        open: &[AtomicBool],
        part: &[usize],
        chunk_end: &[u64],
    ) {
        let loss = self.codes.decided(plies - 1);
        let win = self.codes.decided(plies);
        let pending = |code: u8| {
            code != NONE
                && code != CANDIDATE
                && (code < win && self.codes.plies(code).is_none() || code > win)
        };
        part.par_iter().for_each(|&chunk| {
            if !open[chunk].load(Ordering::Relaxed) {
                return;
            }
            let first = chunk as u64 * CHUNK;
            let end = chunk_end[chunk];
            let mut left = false;
            for slot in first..end {
                let old = self.cells[y].get(slot);
                if !pending(old) {
                    continue;
                }
                if !self.has_move_into(slot, y, loss) {
                    left = true;
                    continue;
                }
                if plies > self.codes.max_plies() {
                    self.too_deep.store(true, Ordering::Relaxed);
                    return;
                }
                self.decide(y, slot, win);
            }
            if !left {
                open[chunk].store(false, Ordering::Relaxed);
            }
        });
    }

    /// Whether `slot` (side `y` to move) has a quiet move into a slot or en-passant position
    /// of code `code`.
    pub(super) fn has_move_into(&self, slot: u64, y: usize, code: u8) -> bool {
        let Some(p) = self.place(slot) else {
            return false;
        };
        let x = 1 - y;
        let white_king_fixed = self.shared.layout.is_fixed(p.sq[0]);
        for &i in self.shared.side_men[y][..self.shared.side_len[y]]
            .iter()
            .rev()
        {
            let from = p.sq[i];
            let mut targets = self.quiet_targets(&p, i);
            while targets != 0 {
                let t = targets.trailing_zeros() as Sq;
                targets &= targets - 1;
                let (child, moved) = self.child_of(slot, &p.sq, i, t, white_king_fixed);
                if self.child_code(child, x, moved, from, t) == code {
                    return true;
                }
            }
        }
        false
    }
}
