//! The natural model's moves of a pawnless position, taken from the tabulated geometry.
//!
//! Owns: [`Placement`] — a position of a category as square numbers, its check test and its
//! moves.
//! Must never: decide a move any other way than the natural model's definitions, read through
//! [`Lines`] (whose entries are the natural predicates themselves).
//!
//! # Equal to `retro_rules::laws::successors`
//!
//! For a pawnless position `p` with one king each and no en-passant square, `successors p` is
//! empty unless `chess_legal p`, which is `¬in_check (opponent (to_move p)) p`; otherwise it
//! holds, for every man of the side to move on `a` and every square `b` of the board within its
//! reach, the position with that man moved to `b` (capturing the man there, if any) whenever `b`
//! is a sortie (`attacks p a b ∧ empty p b`) or a capture (`attacks p a b ∧ occupies p
//! (opponent) b`) and the result is `chess_legal`, that is, the mover is not in check in it.
//! [`Placement::for_each_move`] enumerates exactly that: `b` runs over the tabulated targets of
//! the man's kind (the squares of the board within its reach), `attacks p a b` is
//! [`Lines::attacks`] with the squares the men occupy, a square holding a man of the mover's
//! side is neither a sortie nor a capture, and `in_check s p` — some man of the other side
//! attacks `s`'s king — is [`Placement::in_check`] on the position after the move. A test
//! compares the two on every position of several categories on small boards.
//!
//! For a move of a man other than the king, the men of the other side and the mover's king keep
//! their squares (or a man is captured), so which of those men reach the king on an empty board
//! is the same before and after the move; only they can attack it, and each does exactly when
//! nothing stands between. So the check test after such a move looks at those men only.

use crate::lines::{insert, Lines, SquareSet};
use crate::scheme::MAX_MEN;
use retro_rules::{Man, Piece, Position, Side};

/// A position of a category, as the square numbers of its listed men.
#[derive(Clone, Copy)]
pub struct Placement<'a> {
    lines: &'a Lines,
    men: &'a [Man],
    numbers: [u32; MAX_MEN],
    occupied: SquareSet,
}

/// A legal move: the man that moves (by its place in the list), where it goes, and the man it
/// captures, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The moving man's place in the list of men.
    pub man: usize,
    /// The square it reaches.
    pub to: u32,
    /// The place of the man it captures.
    pub captured: Option<usize>,
}

impl<'a> Placement<'a> {
    /// The men `men` (White's king and Black's king first) on the squares `numbers`.
    pub fn new(lines: &'a Lines, men: &'a [Man], numbers: &[u32]) -> Placement<'a> {
        let mut occupied = [0; 4];
        let mut all = [0u32; MAX_MEN];
        for (k, &n) in numbers.iter().enumerate() {
            all[k] = n;
            insert(&mut occupied, n as u16);
        }
        Placement {
            lines,
            men,
            numbers: all,
            occupied,
        }
    }

    /// The square numbers, in the listed order.
    pub fn numbers(&self) -> &[u32] {
        &self.numbers[..self.men.len()]
    }

    /// `in_check s p`: a man of the other side (other than the captured one) attacks `s`'s
    /// king.
    #[inline]
    fn in_check_after(
        &self,
        s: Side,
        numbers: &[u32],
        occupied: &SquareSet,
        captured: Option<usize>,
    ) -> bool {
        let king = numbers[usize::from(s == Side::Black)];
        self.men.iter().enumerate().any(|(j, &(side, piece))| {
            side != s
                && Some(j) != captured
                && self
                    .lines
                    .attacks(piece, numbers[j] as u16, king as u16, occupied)
        })
    }

    /// `in_check s p`.
    #[inline]
    pub fn in_check(&self, s: Side) -> bool {
        self.in_check_after(s, self.numbers(), &self.occupied, None)
    }

    /// `chess_legal p` for a position of the category with `to_move` to move.
    #[inline]
    pub fn is_legal(&self, to_move: Side) -> bool {
        !self.in_check(retro_rules::opponent(to_move))
    }

    /// Calls `visit` with every legal move of `to_move` and the square numbers after it (the
    /// captured man still listed, on the square of its captor).
    #[inline]
    pub fn for_each_move(&self, to_move: Side, mut visit: impl FnMut(Step, &[u32])) {
        let n = self.men.len();
        let king = self.numbers[usize::from(to_move == Side::Black)];
        // The men of the other side that reach the mover's king on an empty board.
        let mut reaching = [0usize; MAX_MEN];
        let mut reaching_count = 0;
        for (j, &(side, piece)) in self.men.iter().enumerate() {
            if side != to_move
                && self
                    .lines
                    .reaches(piece, self.numbers[j] as u16, king as u16)
            {
                reaching[reaching_count] = j;
                reaching_count += 1;
            }
        }
        let reaching = &reaching[..reaching_count];
        for (i, &(side, piece)) in self.men.iter().enumerate() {
            if side != to_move {
                continue;
            }
            let a = self.numbers[i];
            for &b in self.lines.targets(piece, a as u16) {
                if !crate::lines::disjoint(self.lines.between(a as u16, b), &self.occupied) {
                    continue;
                }
                let occupant = if crate::lines::contains(&self.occupied, b) {
                    self.numbers[..n].iter().position(|&m| m == u32::from(b))
                } else {
                    None
                };
                let b = u32::from(b);
                if occupant.is_some_and(|j| self.men[j].0 == to_move) {
                    continue;
                }
                let mut after = self.numbers;
                after[i] = b;
                let mut occupied = self.occupied;
                occupied[(a >> 6) as usize] &= !(1 << (a & 63));
                insert(&mut occupied, b as u16);
                let in_check = if piece == Piece::King {
                    self.in_check_after(to_move, &after[..n], &occupied, occupant)
                } else {
                    reaching.iter().any(|&j| {
                        Some(j) != occupant
                            && crate::lines::disjoint(
                                self.lines.between(self.numbers[j] as u16, king as u16),
                                &occupied,
                            )
                    })
                };
                if in_check {
                    continue;
                }
                visit(
                    Step {
                        man: i,
                        to: b,
                        captured: occupant,
                    },
                    &after[..n],
                );
            }
        }
    }

    /// The natural model's position of these men, with `to_move` to move.
    pub fn position(&self, to_move: Side) -> Position {
        Position::new(
            self.lines.board(),
            to_move,
            self.numbers()
                .iter()
                .map(|&k| self.lines.square(k as u16))
                .zip(self.men.iter().copied()),
            None,
        )
        .expect("men on distinct squares")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::men::Men;
    use crate::scheme::Scheme;
    use retro_rules::laws::{chess_legal, successors};
    use retro_rules::Board;
    use std::collections::BTreeSet;

    /// On every placement of several categories, both sides to move: legality and the set of
    /// successor positions equal the natural model's.
    #[test]
    fn moves_equal_the_natural_successors() {
        for (files, ranks, material) in [
            (4, 4, "KQvKR"),
            (4, 5, "KRBvK"),
            (5, 5, "KNvKB"),
            (3, 4, "KRRvK"),
            (5, 3, "KQvKN"),
        ] {
            let board = Board::new(files, ranks).unwrap();
            let lines = Lines::new(board);
            let men = Men::parse(material).unwrap();
            let scheme = Scheme::new(board, &men);
            let listed = men.listed();
            for &pair in scheme.pairs() {
                scheme.for_each_placement_numbers(pair, |numbers| {
                    let placement = Placement::new(&lines, &listed, numbers);
                    for side in Side::ALL {
                        let p = placement.position(side);
                        assert_eq!(placement.is_legal(side), chess_legal(&p), "{}", p.fen());
                        if !chess_legal(&p) {
                            continue;
                        }
                        let natural: BTreeSet<String> =
                            successors(&p).into_iter().map(|(_, q)| q.fen()).collect();
                        let mut mine = BTreeSet::new();
                        placement.for_each_move(side, |step, after| {
                            let kept = (0..listed.len())
                                .filter(|&j| Some(j) != step.captured)
                                .map(|j| (lines.square(after[j] as u16), listed[j]));
                            let q = Position::new(board, retro_rules::opponent(side), kept, None)
                                .unwrap();
                            mine.insert(q.fen());
                        });
                        assert_eq!(mine, natural, "{}", p.fen());
                    }
                });
            }
        }
    }
}
