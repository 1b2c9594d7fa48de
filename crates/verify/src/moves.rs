//! The natural model's moves of a position of a category, taken from the tabulated geometry.
//!
//! Owns: [`Placement`] — a position of a category as square numbers and en-passant target, its
//! check test, its legality and its moves.
//! Must never: decide a move any other way than the natural model's definitions, read through
//! [`Lines`] (whose entries are the natural predicates themselves).
//!
//! # Equal to `retro_rules::laws::successors`
//!
//! For a position `p` with one king each, `successors p` is empty unless `chess_legal p`, which
//! for the positions of a category (pawns off the end ranks, an en-passant target only where
//! `en_passant_consistent`) is `¬in_check (opponent (to_move p)) p` and, with a target, some
//! en-passant capture onto it being a legal move; otherwise it holds, for every man of the side
//! to move on `a` and every square `b` of the board within its reach, the position with that
//! man moved to `b` (capturing the man there, if any) whenever `b` is a sortie (`attacks p a b ∧
//! empty p b`, pieces only) or a capture (`attacks p a b ∧ occupies p (opponent) b`) and the
//! result is `chess_legal`, that is, the mover is not in check in it. A pawn instead advances
//! (`pawn_advance`), double-advances (`pawn_double_advance`; the result records the passed
//! square as target exactly when an en-passant capture of it is then legal), captures
//! (`attacks` is `pawn_attacks` for a pawn, no square lying between) or captures en passant
//! (`en_passant_capture`: onto the target, taking the pawn on the target's file and its own
//! rank); on its last rank it becomes each of queen, rook, bishop and knight (`arrivals`).
//! [`Placement::for_each_move`] enumerates exactly that: for a piece, `b` runs over the squares
//! with `attacks p a b`, found by walking the tabulated runs of its kind from `a` ([`Lines::runs`]:
//! the squares within its reach, each run up to and including its first occupied square); for a
//! pawn, over its advances, double advances and attacked squares, with the squares the
//! definitions need empty tested against the men. A square
//! holding a man of the mover's side is neither a sortie nor a capture, and `in_check s p` —
//! some man of the other side attacks `s`'s king — is [`Placement::in_check`] on the position
//! after the move. [`Placement::for_each_en_passant_target`] lists the targets
//! `en_passant_consistent` allows: the square a pawn of the side not to move passed over on a
//! double advance (from a square, empty now, whose tabulated double advance reaches it), itself
//! empty. A test compares all of it with the natural model (moves with their promotions and
//! targets, legality with targets, the consistent targets) on every position of several
//! categories, with and without pawns, on small boards.
//!
//! For a move of a man other than the king, the men of the other side and the mover's king keep
//! their squares (or a man is captured), so which of those men reach the king on an empty board
//! is the same before and after the move; only they can attack it, and each does exactly when
//! nothing stands between (a pawn attacks an adjoining square, with nothing between). So the
//! check test after such a move looks at those men only, with the squares occupied after it
//! (an en-passant capture empties two).

use crate::lines::{contains, disjoint, first, insert, Lines, SquareSet};
use crate::scheme::MAX_MEN;
use retro_rules::laws::last_rank;
use retro_rules::{opponent, Man, Piece, Position, Side, Square};

/// A position of a category, as the square numbers of its listed men and its en-passant
/// target.
#[derive(Clone, Copy)]
pub struct Placement<'a> {
    lines: &'a Lines,
    men: &'a [Man],
    numbers: [u32; MAX_MEN],
    occupied: SquareSet,
    en_passant: Option<u16>,
}

/// A legal move: the man that moves (by its place in the list), where it goes, the man it
/// captures, if any, the piece a pawn becomes on its last rank, and the en-passant target of
/// the position it leads to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    /// The moving man's place in the list of men.
    pub man: usize,
    /// The square it reaches.
    pub to: u32,
    /// The place of the man it captures.
    pub captured: Option<usize>,
    /// The piece a pawn reaching its last rank is exchanged for.
    pub promotion: Option<Piece>,
    /// The en-passant target of the position after a double step that an en-passant capture
    /// can answer.
    pub target: Option<u32>,
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
            en_passant: None,
        }
    }

    /// The same men with the en-passant target `target`.
    pub fn with_en_passant(self, target: Option<u32>) -> Placement<'a> {
        Placement {
            en_passant: target.map(|t| t as u16),
            ..self
        }
    }

    /// The square numbers, in the listed order.
    pub fn numbers(&self) -> &[u32] {
        &self.numbers[..self.men.len()]
    }

    /// `attacks p a b` for man `j` standing on `a`, `occupied` the squares of `p`'s men.
    #[inline]
    fn man_attacks(&self, j: usize, a: u32, b: u32, occupied: &SquareSet) -> bool {
        match self.men[j] {
            (side, Piece::Pawn) => self.lines.pawn_attacks(side, a as u16, b as u16),
            (_, piece) => self.lines.attacks(piece, a as u16, b as u16, occupied),
        }
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
        self.men.iter().enumerate().any(|(j, &(side, _))| {
            side != s && Some(j) != captured && self.man_attacks(j, numbers[j], king, occupied)
        })
    }

    /// `in_check s p`.
    #[inline]
    pub fn in_check(&self, s: Side) -> bool {
        self.in_check_after(s, self.numbers(), &self.occupied, None)
    }

    /// `chess_legal p` for a position of the category with `to_move` to move and no
    /// en-passant target (a target also needs a legal en-passant capture: callers look for one
    /// among the moves).
    #[inline]
    pub fn is_legal(&self, to_move: Side) -> bool {
        !self.in_check(opponent(to_move))
    }

    /// Calls `visit` with every square `t` with `en_passant_consistent p t` for the position of
    /// these men with `to_move` to move: a pawn of the other side stands where a double advance
    /// from some square `a` (empty) took it, and the square `t` it passed over (strictly between)
    /// is empty.
    pub fn for_each_en_passant_target(&self, to_move: Side, mut visit: impl FnMut(u32)) {
        let mover = opponent(to_move);
        for (j, &man) in self.men.iter().enumerate() {
            if man != (mover, Piece::Pawn) {
                continue;
            }
            let b = self.numbers[j] as u16;
            for &a in self.lines.pawn_double_origins(mover, b) {
                let between = self.lines.between(a, b);
                if !contains(&self.occupied, a) && disjoint(between, &self.occupied) {
                    if let Some(t) = first(between) {
                        visit(u32::from(t));
                    }
                }
            }
        }
    }

    /// `chess_legal p` for a position of the category with `to_move` to move and its
    /// en-passant target, if any, consistent (`en_passant_consistent`): the other king is not
    /// in check and, with a target, some en-passant capture onto it is a legal move
    /// (`en_passant_valid`).
    pub fn is_legal_with_target(&self, to_move: Side) -> bool {
        if !self.is_legal(to_move) {
            return false;
        }
        let Some(target) = self.en_passant else {
            return true;
        };
        let mut answered = false;
        self.for_each_move(to_move, |step, _| {
            answered |= step.to == u32::from(target)
                && step
                    .captured
                    .is_some_and(|j| self.numbers[j] != u32::from(target));
        });
        answered
    }

    /// The man on square `n`, if any.
    #[inline]
    fn occupant(&self, n: u32) -> Option<usize> {
        if contains(&self.occupied, n as u16) {
            self.numbers().iter().position(|&m| m == n)
        } else {
            None
        }
    }

    /// Calls `visit` with every legal move of `to_move` and the square numbers after it (the
    /// captured man still listed, on the square of its captor, or for an en-passant capture
    /// where it stood).
    #[inline]
    pub fn for_each_move(&self, to_move: Side, visit: impl FnMut(Step, &[u32])) {
        self.for_each_move_of(to_move, |_| true, visit);
    }

    /// [`Placement::for_each_move`] for the moves of the men `moves_man` picks (by place in the
    /// list) only.
    #[inline]
    pub fn for_each_move_of(
        &self,
        to_move: Side,
        moves_man: impl Fn(usize) -> bool,
        mut visit: impl FnMut(Step, &[u32]),
    ) {
        let king = self.numbers[usize::from(to_move == Side::Black)];
        // The men of the other side that reach the mover's king on an empty board.
        let mut reaching = [0usize; MAX_MEN];
        let mut reaching_count = 0;
        for (j, &(side, piece)) in self.men.iter().enumerate() {
            let a = self.numbers[j] as u16;
            let reaches = match piece {
                Piece::Pawn => self.lines.pawn_attacks(side, a, king as u16),
                piece => self.lines.reaches(piece, a, king as u16),
            };
            if side != to_move && reaches {
                reaching[reaching_count] = j;
                reaching_count += 1;
            }
        }
        let reaching = &reaching[..reaching_count];
        for (i, &(side, piece)) in self.men.iter().enumerate() {
            if side != to_move || !moves_man(i) {
                continue;
            }
            let a = self.numbers[i];
            if piece == Piece::Pawn {
                self.for_each_pawn_move(i, reaching, &mut visit);
                continue;
            }
            // The squares `b` with `attacks p a b`: each run up to its first occupied square.
            let runs = self.lines.runs(piece, a as u16);
            let mut k = 0;
            while k < runs.len() {
                let (b, end) = runs[k];
                match self.occupant(u32::from(b)) {
                    None => {
                        self.try_move(i, u32::from(b), None, None, reaching, &mut visit);
                        k += 1;
                    }
                    Some(j) => {
                        if self.men[j].0 != to_move {
                            self.try_move(i, u32::from(b), Some(j), None, reaching, &mut visit);
                        }
                        k = usize::from(end);
                    }
                }
            }
        }
    }

    /// The moves of the pawn `i`: advances, double advances, captures and the en-passant
    /// capture, each onto the last rank as every promotion.
    #[inline]
    fn for_each_pawn_move(
        &self,
        i: usize,
        reaching: &[usize],
        visit: &mut impl FnMut(Step, &[u32]),
    ) {
        let (side, _) = self.men[i];
        let a = self.numbers[i] as u16;
        let empty = |b: u16| !contains(&self.occupied, b);
        for &b in self.lines.pawn_advances(side, a) {
            if empty(b) {
                self.try_move(i, u32::from(b), None, None, reaching, visit);
            }
        }
        for &b in self.lines.pawn_double_advances(side, a) {
            if empty(b) && disjoint(self.lines.between(a, b), &self.occupied) {
                self.try_move(i, u32::from(b), None, None, reaching, visit);
            }
        }
        for &b in self.lines.pawn_attack_targets(side, a) {
            if let Some(j) = self.occupant(u32::from(b)) {
                if self.men[j].0 != side {
                    self.try_move(i, u32::from(b), Some(j), None, reaching, visit);
                }
            } else if self.en_passant == Some(b) {
                // `en_passant_capture`: the other side's pawn on the target's file and this
                // pawn's rank is taken.
                let target = self.lines.square(b);
                let victim = self
                    .lines
                    .number(Square::new(target.file, self.lines.square(a).rank));
                if let Some(j) = self.occupant(u32::from(victim)) {
                    if self.men[j] == (opponent(side), Piece::Pawn) {
                        self.try_move(i, u32::from(b), Some(j), Some(victim), reaching, visit);
                    }
                }
            }
        }
    }

    /// Visits the move of man `i` to `b` (capturing `captured`, standing on `b` or, en
    /// passant, on `victim`) if it leaves the mover's king out of check: once, or once per
    /// promotion when a pawn reaches its last rank.
    #[inline]
    fn try_move(
        &self,
        i: usize,
        b: u32,
        captured: Option<usize>,
        victim: Option<u16>,
        reaching: &[usize],
        visit: &mut impl FnMut(Step, &[u32]),
    ) {
        let n = self.men.len();
        let (side, piece) = self.men[i];
        let a = self.numbers[i];
        let mut after = self.numbers;
        after[i] = b;
        let mut occupied = self.occupied;
        occupied[(a >> 6) as usize] &= !(1 << (a & 63));
        if let Some(v) = victim {
            occupied[usize::from(v >> 6)] &= !(1 << (v & 63));
        }
        insert(&mut occupied, b as u16);
        let in_check = if piece == Piece::King {
            self.in_check_after(side, &after[..n], &occupied, captured)
        } else {
            let king = self.numbers[usize::from(side == Side::Black)];
            reaching.iter().any(|&j| {
                Some(j) != captured
                    && disjoint(
                        self.lines.between(self.numbers[j] as u16, king as u16),
                        &occupied,
                    )
            })
        };
        if in_check {
            return;
        }
        let step = Step {
            man: i,
            to: b,
            captured,
            promotion: None,
            target: None,
        };
        if piece == Piece::Pawn
            && self.lines.square(b as u16).rank == last_rank(self.lines.board(), side)
        {
            for promoted in Piece::PROMOTIONS {
                visit(
                    Step {
                        promotion: Some(promoted),
                        ..step
                    },
                    &after[..n],
                );
            }
            return;
        }
        let double = piece == Piece::Pawn
            && self
                .lines
                .pawn_double_advances(side, a as u16)
                .contains(&(b as u16));
        let target = if double {
            self.answering_target(i, a, b, &after[..n], &occupied)
        } else {
            None
        };
        visit(Step { target, ..step }, &after[..n]);
    }

    /// After pawn `i`'s double advance from `a` to `b` (men on `after`, squares `occupied`):
    /// the square it passed over if some pawn of the other side can then legally capture it
    /// en passant (the successor records the target exactly then).
    fn answering_target(
        &self,
        i: usize,
        a: u32,
        b: u32,
        after: &[u32],
        occupied: &SquareSet,
    ) -> Option<u32> {
        let (side, _) = self.men[i];
        let them = opponent(side);
        let between = self.lines.between(a as u16, b as u16);
        let passed = u32::from(first(between)?);
        let answered = (0..self.men.len()).any(|j| {
            self.men[j] == (them, Piece::Pawn)
                && self
                    .lines
                    .pawn_attacks(them, after[j] as u16, passed as u16)
                && self.lines.square(after[j] as u16).rank == self.lines.square(b as u16).rank
                && {
                    let mut captured = [0u32; MAX_MEN];
                    captured[..after.len()].copy_from_slice(after);
                    captured[j] = passed;
                    let mut occ = *occupied;
                    for n in [after[j], b] {
                        occ[(n >> 6) as usize] &= !(1 << (n & 63));
                    }
                    insert(&mut occ, passed as u16);
                    !self.in_check_after(them, &captured[..after.len()], &occ, Some(i))
                }
        });
        answered.then_some(passed)
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
            self.en_passant.map(|t| self.lines.square(t)),
        )
        .expect("men on distinct squares")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::men::Men;
    use crate::scheme::Scheme;
    use rayon::prelude::*;
    use retro_rules::laws::{chess_legal, en_passant_consistent, successors};
    use retro_rules::Board;
    use std::collections::BTreeSet;

    /// On every placement of several categories, both sides to move: legality and the set of
    /// successor positions equal the natural model's (the categories in parallel).
    #[test]
    fn moves_equal_the_natural_successors() {
        [
            (4, 4, "KQvKR"),
            (4, 5, "KRBvK"),
            (5, 5, "KNvKB"),
            (3, 4, "KRRvK"),
            (5, 3, "KQvKN"),
            (4, 5, "KPvKP"),
            (4, 5, "KPPvKP"),
            (4, 6, "KRPvKP"),
            (3, 5, "KPvKN"),
            (4, 4, "KPvKB"),
        ]
        .into_par_iter()
        .for_each(|(files, ranks, material)| {
            let board = Board::new(files, ranks).unwrap();
            let lines = Lines::new(board);
            let men = Men::parse(material).unwrap();
            let scheme = Scheme::new(board, &men);
            let listed = men.listed();
            scheme.pairs().par_iter().for_each(|&pair| {
                scheme.for_each_placement_numbers(pair, |numbers| {
                    let plain = Placement::new(&lines, &listed, numbers);
                    for side in Side::ALL {
                        let natural_targets: BTreeSet<u32> = board
                            .squares()
                            .filter(|&t| en_passant_consistent(&plain.position(side), t))
                            .map(|t| u32::from(lines.number(t)))
                            .collect();
                        let mut my_targets = BTreeSet::new();
                        plain.for_each_en_passant_target(side, |t| {
                            assert!(my_targets.insert(t));
                        });
                        assert_eq!(my_targets, natural_targets);
                        let targets = natural_targets.into_iter().map(Some);
                        for target in std::iter::once(None).chain(targets) {
                            let placement = plain.with_en_passant(target);
                            let p = placement.position(side);
                            assert_eq!(
                                placement.is_legal_with_target(side),
                                chess_legal(&p),
                                "{}",
                                p.fen()
                            );
                            if !chess_legal(&p) {
                                continue;
                            }
                            let natural: BTreeSet<String> =
                                successors(&p).into_iter().map(|(_, q)| q.fen()).collect();
                            let mut mine = BTreeSet::new();
                            placement.for_each_move(side, |step, after| {
                                let kept = (0..listed.len())
                                    .filter(|&j| Some(j) != step.captured)
                                    .map(|j| {
                                        let (s, piece) = listed[j];
                                        let piece = match step.promotion {
                                            Some(promoted) if j == step.man => promoted,
                                            _ => piece,
                                        };
                                        (lines.square(after[j] as u16), (s, piece))
                                    });
                                let target = step.target.map(|t| lines.square(t as u16));
                                let q =
                                    Position::new(board, retro_rules::opponent(side), kept, target)
                                        .unwrap();
                                assert!(mine.insert(q.fen()), "one move per successor");
                            });
                            assert_eq!(mine, natural, "{}", p.fen());
                        }
                    }
                });
            });
        });
    }
}
