//! Un-moves inside the index: the parents of an entry.
//!
//! Owns: `Analysis::for_each_parent` and `Analysis::for_each_unmove`.
//! Must never: list a parent outside the index or one its init found illegal.
//!
//! In-index moves are moves of one man to another of its allowed squares without capture or
//! promotion, so the parents of a position are found by moving one man of the side that just
//! moved back to an empty allowed square (a king, knight or slider along its lines, a pawn one
//! step back, or two from its fourth rank through an empty square). A parent is a position of
//! the index whose init found it legal.
//!
//! An en-passant entry's un-moves are its double step alone. Every parent of a position is also
//! listed with its en-passant entries, as they have the same moves; a double step is not
//! un-moved from a position when the en-passant entry stands for its result.

use super::*;

impl Analysis<'_> {
    /// Calls `visit` with every parent entry of `entry` (index · 2 + side) and the square its
    /// move goes to (where the man stands in `entry`).
    ///
    /// An en-passant entry's only parent is the double step that made it. Every other parent
    /// also comes with its en-passant entries (the same moves and more): those of the pawns of
    /// the side to move in `entry` that stand where a double step of theirs lands — an entry
    /// that is no legal position is listed too, and its code says so. A double step that an
    /// en-passant capture answers leads to the en-passant entry, so an index position does not
    /// list it.
    pub(super) fn for_each_parent(&self, entry: u64, mut visit: impl FnMut(u64, Sq)) {
        let (x, index, ep, squares) = self.unpack(entry);
        let mover = opponent(side(x));
        let y = x_of(mover) as u64;
        if ep.is_some() {
            let block = self
                .space
                .ep_block(entry >> 1)
                .expect("an en-passant entry has a block");
            if let Some(p) = self
                .space
                .moved(index, block.pawn, block.landing, block.origin)
            {
                visit(p << 1 | y, block.landing);
            }
            return;
        }
        // The double steps of the side to move whose en-passant entries its parents have (at
        // most one per pawn, the block of the square it stands on).
        let mut landed = [None; MAX_MEN];
        let mut count = 0;
        for b in &self.space.ep_blocks {
            if self.problem.men[b.pawn].side == side(x) && squares[b.pawn] == b.landing {
                landed[count] = Some(b);
                count += 1;
            }
        }
        if count == 0 {
            self.for_each_unmove(x, index, &squares, |p, at| visit(p << 1 | y, at));
            return;
        }
        self.for_each_unmove(x, index, &squares, |p, at| {
            visit(p << 1 | y, at);
            for b in landed[..count].iter().flatten() {
                visit(self.space.ep_entry_in(b, p) << 1 | y, at);
            }
        });
    }

    /// Calls `visit` with the index position of every un-move of index position `index` (men
    /// on `squares`, side `x` to move) and the square the man stands on in `index`, leaving out
    /// a double step that leads to an en-passant entry.
    #[inline]
    pub(super) fn for_each_unmove(
        &self,
        x: usize,
        index: u64,
        squares: &[Sq; MAX_MEN],
        mut visit: impl FnMut(u64, Sq),
    ) {
        let geo = &self.problem.geo;
        let n = self.problem.men.len();
        let mover = opponent(side(x));
        let mut occupied = retro_engine::SqSet::EMPTY;
        for &s in &squares[..n] {
            occupied.insert(s);
        }
        for (i, m) in self.problem.men.iter().enumerate() {
            if m.side != mover || self.space.allowed[i].len() < 2 {
                continue;
            }
            let at = squares[i];
            let mut origin = |o: Sq| {
                if let Some(p) = self.space.moved(index, i, at, o) {
                    visit(p, at);
                }
            };
            match m.piece {
                Piece::King | Piece::Knight => {
                    let targets = if m.piece == Piece::King {
                        geo.king_targets(at)
                    } else {
                        geo.knight_targets(at)
                    };
                    for &o in targets {
                        if !occupied.contains(o) {
                            origin(o);
                        }
                    }
                }
                Piece::Queen | Piece::Rook | Piece::Bishop => {
                    let dirs = match m.piece {
                        Piece::Rook => ROOK_DIRECTIONS,
                        Piece::Bishop => BISHOP_DIRECTIONS,
                        _ => ROOK_DIRECTIONS.start..BISHOP_DIRECTIONS.end,
                    };
                    for d in dirs {
                        for &o in geo.ray(at, d) {
                            if occupied.contains(o) {
                                break;
                            }
                            origin(o);
                        }
                    }
                }
                Piece::Pawn => {
                    let Some(one) = geo.ahead(mover, at, -1) else {
                        continue;
                    };
                    if occupied.contains(one) || !geo.pawn_may_stand(one) {
                        continue;
                    }
                    origin(one);
                    if let Some(two) = geo.ahead(mover, at, -2) {
                        let answered = || {
                            self.space.ep_block_of(i, at).is_some()
                                && self.position(&squares[..n], x, Some(one)).is_some()
                        };
                        if geo.rank(two) == geo.second_rank(mover)
                            && !occupied.contains(two)
                            && !answered()
                        {
                            origin(two);
                        }
                    }
                }
            }
        }
    }
}
