//! Un-moves: the parent slots a decided slot is reached from.
//!
//! Owns: a slot's parents (`Core::for_each_parent`, with the square the un-moved man stands on
//! in each), a run's parents at once (`Core::for_each_parent_run`, sent to a [`ParentSink`]),
//! the child a move reaches (`Core::child_of`), and the hinted visits that pass over parents
//! with nothing left to do.
//! Must never: decide a value (the passes do, from what these visit).
//!
//! Without en-passant positions a pass takes the slots of its code a run at a time: an
//! un-move of another man than the last is found once for the run (with the last man on `s`,
//! it is one unless `s` is its destination or lies between its squares), and its parents in
//! all the run's slots lie in one parent run. The last man's own un-moves are taken a slot at
//! a time, and so are those whose parent puts the last man among its identical companions
//! rather than above them. A move of a man with identical companions sorts them again by
//! strides ([`Layout::moved_in_order`]), without a fold. Why the un-moves reach every parent,
//! and each once where a count needs it: the parent module's "Why every slot is right".

use super::*;

/// Where [`Core::for_each_parent_run`] sends the parents it finds, each as the parent of the
/// run's slot with the last man on some square `s`.
pub(super) trait ParentSink {
    /// The parents `base + s`, `s` in `live`; the un-moved man stands on `to` in each.
    fn run(&mut self, base: u64, live: u64, to: Sq);
    /// The parent `slot` of the run's slot with the last man on `s`.
    fn slot(&mut self, slot: u64, s: Sq, to: Sq);
    /// Whether no more parents are wanted.
    #[inline(always)]
    fn done(&self) -> bool {
        false
    }
    /// The squares `s` whose parents are still wanted.
    #[inline(always)]
    fn pending(&self) -> u64 {
        u64::MAX
    }
}

/// Every parent in `hints`, to `visit` with its slot and the square the un-moved man stands
/// on; those outside are passed over unread.
pub(super) struct HintedParents<'h, H, F> {
    pub(super) hints: &'h H,
    pub(super) visit: F,
}

impl<H: SlotSet, F: FnMut(u64, Sq)> ParentSink for HintedParents<'_, H, F> {
    #[inline(always)]
    fn run(&mut self, base: u64, live: u64, to: Sq) {
        for_each_bit(live & self.hints.may_hold_run(base), |s| {
            (self.visit)(base + u64::from(s), to)
        });
    }

    #[inline(always)]
    fn slot(&mut self, slot: u64, _: Sq, to: Sq) {
        if self.hints.may_hold(slot) {
            (self.visit)(slot, to)
        }
    }
}

impl<const N: usize> Core<'_, N> {
    /// The slot after man `i` of `slot` (squares `sq`) moves to `to`, with the man's number
    /// after (identical men are sorted again; a king's number never changes).
    #[inline(always)]
    pub(super) fn child_of(
        &self,
        slot: u64,
        sq: &[Sq; N],
        i: usize,
        to: Sq,
        white_king_fixed: bool,
    ) -> (u64, usize) {
        if self.needs_fold(i, white_king_fixed) {
            let mut after = *sq;
            after[i] = to;
            self.shared.layout.fold(&mut after[..]);
            (self.shared.layout.slot(&after[..]), i)
        } else {
            self.moved_unfolded(slot, sq, i, to)
        }
    }

    /// The slot after man `i` of `slot` (squares `sq`) moves to `to`, when the move needs no
    /// fold, with the man's number after (identical men are put in order again).
    #[inline(always)]
    pub(super) fn moved_unfolded(&self, slot: u64, sq: &[Sq], i: usize, to: Sq) -> (u64, usize) {
        let layout = self.shared.layout;
        if self.refold[i] {
            layout.moved_in_order(slot, sq, i, to, layout.group_of(i))
        } else {
            (layout.moved(slot, i, sq[i], to), i)
        }
    }

    /// Calls `visit` with every slot, side `1 − x` to move, that has a quiet move into `slot`
    /// (side `x` to move) — and with the slots of un-moves into illegal positions (the side
    /// not to move in check), whose cells are `0`: callers skip those.
    #[inline]
    pub(super) fn for_each_parent(&self, slot: u64, x: usize, mut visit: impl FnMut(u64, Sq)) {
        let Some(p) = self.place(slot) else {
            return;
        };
        let y = 1 - x;
        let white_king_fixed = self.shared.layout.is_fixed(p.sq[0]);
        for &i in &self.shared.side_men[y][..self.shared.side_len[y]] {
            self.for_each_unmove_of(slot, &p.sq, p.occ, i, white_king_fixed, &mut visit);
        }
    }

    /// Calls `visit` with the slots of every un-move of man `i` in `slot` (squares `sq`,
    /// occupancy `occ`), as [`Core::for_each_parent`] gives them.
    #[inline(always)]
    pub(super) fn for_each_unmove_of(
        &self,
        slot: u64,
        sq: &[Sq; N],
        occ: Board64,
        i: usize,
        white_king_fixed: bool,
        visit: &mut impl FnMut(u64, Sq),
    ) {
        let from = sq[i];
        let mut targets = self.unmove_targets(i, from, occ);
        while targets != 0 {
            let t = targets.trailing_zeros() as Sq;
            targets &= targets - 1;
            // A double step that an en-passant capture can answer leads to the position with
            // the right, not to this one: its parent is that position's.
            if self.ep_answers_double_step(slot, i, from, t) {
                continue;
            }
            self.visit_unmove(slot, sq, i, from, t, white_king_fixed, visit);
        }
    }

    /// Calls `visit` with the slots of the un-move of man `i` from `from` back to `t` in
    /// `slot` (squares `sq`), each with the square the man stands on after the move.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn visit_unmove(
        &self,
        slot: u64,
        sq: &[Sq; N],
        i: usize,
        from: Sq,
        t: Sq,
        white_king_fixed: bool,
        visit: &mut impl FnMut(u64, Sq),
    ) {
        if self.needs_fold(i, white_king_fixed) {
            let mut before = *sq;
            before[i] = t;
            let to = self.shared.layout.fold_tracking(&mut before[..], from);
            self.shared
                .layout
                .for_each_image_tracking(&before[..], to, visit);
        } else {
            visit(self.moved_unfolded(slot, sq, i, t).0, from);
        }
    }

    /// The parents of `node` (side `x` to move), as [`Core::for_each_parent`] gives them.
    #[inline(always)]
    pub(super) fn for_each_parent_of(
        &self,
        node: Node,
        x: usize,
        hints: &impl SlotSet,
        visit: impl FnMut(u64, Sq),
    ) {
        match node {
            Node::Slot(slot) => self.for_each_parent(slot, x, visit),
            Node::Ep(number) => self.for_each_ep_parent(number, x, visit),
            Node::Run { start, mask } => {
                self.for_each_parent_run(start, mask, x, true, &mut HintedParents { hints, visit })
            }
        }
    }

    /// [`Core::for_each_parent`] of every slot `start + s`, `s` in `mask`, of one run (without
    /// en-passant positions). The un-moves of the other men are found once for the run, from
    /// the other men's squares: with the last man on `s` such an un-move to `t` is one unless
    /// `s` is `t` or lies between the two squares. Its parents are then slots of one parent
    /// run, the last man's field moving by 1 per square: `s` itself when the un-move keeps the
    /// fold, else `s` turned by the symmetries the fold (which depends on the kings alone) and
    /// the image apply — one stretch of memory for the whole run. When the last man has
    /// identical companions (it stands above them all in every slot used), an un-move of a
    /// companion keeps it last where it still stands above them all, and a king's un-move
    /// that folds may put it anywhere among them: the parent's slot is then one of a few
    /// bases, found once for the run, plus the last man's turned square times a stride
    /// ([`Layout::last_among_companions`]). A companion's un-move that puts the last man
    /// below it, and the last man's own un-moves, are found a slot at a time.
    pub(super) fn for_each_parent_run(
        &self,
        start: u64,
        mask: u64,
        x: usize,
        last_man: bool,
        sink: &mut impl ParentSink,
    ) {
        let last = N - 1;
        let layout = self.shared.layout;
        let bits = self.shared.bits;
        let y = 1 - x;
        let mut sq: [Sq; N] = layout.decode_array(start);
        let outer = sq[..last].iter().fold(0 as Board64, |occ, &s| occ | 1 << s);
        let white_king_fixed = layout.is_fixed(sq[0]);
        let men = &self.shared.side_men[y][..self.shared.side_len[y]];
        // The first of the men identical to the last man (the last man itself when alone).
        let companions = layout.group_of(last).0;
        // A parent a slot at a time: the un-move of man `i` from `from` to `t`, the last man on
        // `s`.
        let one_slot = |i: usize, t: Sq, s: Sq, sink: &mut _| {
            let mut at = sq;
            at[last] = s;
            let slot = start + u64::from(s);
            let mut visit = |parent, to| ParentSink::slot(sink, parent, s, to);
            self.visit_unmove(slot, &at, i, at[i], t, white_king_fixed, &mut visit);
        };
        for &i in men {
            if i == last {
                continue;
            }
            let from = sq[i];
            let mut targets = self.unmove_targets(i, from, outer);
            while targets != 0 {
                if sink.done() {
                    return;
                }
                let t = targets.trailing_zeros() as Sq;
                targets &= targets - 1;
                let live = mask & sink.pending() & !(1 << t | bits.between(from, t));
                if live == 0 {
                    continue;
                }
                if i >= companions {
                    // A companion of the last man: the companions are put in order again
                    // (the last man, on square 0 meanwhile, out of it), and the last man keeps
                    // the last field wherever it still stands above them all.
                    let (base, _) = layout.moved_in_order(start, &sq, i, t, (companions, last));
                    let top = sq[companions..last]
                        .iter()
                        .enumerate()
                        .map(|(k, &c)| if companions + k == i { t } else { c })
                        .max()
                        .expect("the last man has a companion");
                    let above = bits::squares_above(top);
                    sink.run(base, live & above, from);
                    for_each_bit(live & !above, |s| one_slot(i, t, s, sink));
                    continue;
                }
                if !self.needs_fold(i, white_king_fixed) {
                    let (base, _) = self.moved_unfolded(start, &sq, i, t);
                    sink.run(base, live, from);
                    continue;
                }
                // The fold turns every man by the symmetries its kings choose (the last man
                // stands on square 0 meanwhile).
                let mut before = sq;
                before[i] = t;
                let map = layout.fold_map(before[0], before[1]);
                let turn = |s: Sq| map[usize::from(s)];
                // Where the fold turns nothing, the folded slot's parents with the last man
                // above any companions are one stretch, as where no fold is needed (its other
                // images, if any, are turned).
                let mut straight = layout.folds_nothing(before[0], before[1]);
                if companions < last {
                    // The fold may put the last man anywhere among his companions: each
                    // image's slots come from the other men's squares once, then a square at
                    // a time.
                    let turned = before.map(turn);
                    let moved = turn(from);
                    let mut visit_image = |image: &[Sq]| {
                        let slots =
                            layout.last_among_companions(&turned.map(|s| image[usize::from(s)]));
                        let to = image[usize::from(moved)];
                        let mut live = live;
                        if std::mem::take(&mut straight) {
                            let (above, base) = slots.above_all();
                            sink.run(base, live & above, to);
                            live &= !above;
                        }
                        for_each_bit(live, |s| {
                            sink.slot(slots.slot(image[usize::from(turn(s))]), s, to)
                        });
                    };
                    visit_image(layout.identity());
                    layout.for_each_king_fixer(turned[0], turned[1], &mut visit_image);
                    continue;
                }
                // The last man keeps the last field, moving by 1 per square, in the folded
                // slot and in each image.
                layout.fold(&mut before[..]);
                let (placeholder, moved) = (before[last], turn(from));
                layout.for_each_image_map(&before[..], |slot, image| {
                    let base = slot - u64::from(image[usize::from(placeholder)]);
                    let to = image[usize::from(moved)];
                    if std::mem::take(&mut straight) {
                        sink.run(base, live, to);
                        return;
                    }
                    for_each_bit(live, |s| {
                        sink.slot(base + u64::from(image[usize::from(turn(s))]), s, to)
                    });
                });
            }
        }
        // The last man's own un-moves, a slot at a time (unless the caller found them).
        if !last_man || self.side_of(last) != y {
            return;
        }
        for_each_bit(mask, |s| {
            if sink.done() {
                return;
            }
            sq[last] = s;
            let slot = start + u64::from(s);
            self.for_each_unmove_of(
                slot,
                &sq,
                outer | 1 << s,
                last,
                white_king_fixed,
                &mut |parent, to| sink.slot(parent, s, to),
            );
        });
    }

    /// [`Core::for_each_parent_of`] with the parents outside `hints` passed over, where the
    /// hints are kept; without them, every parent, with nothing tested.
    #[inline(always)]
    pub(super) fn for_each_parent_in(
        &self,
        node: Node,
        x: usize,
        hints: &SlotHints,
        visit: impl FnMut(u64, Sq),
    ) {
        if self.hinted {
            self.for_each_parent_of(node, x, hints, visit)
        } else {
            self.for_each_parent_of(node, x, &EverySlot, visit)
        }
    }
}
