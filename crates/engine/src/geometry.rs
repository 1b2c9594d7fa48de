//! Precomputed tables for one board size: neighbours, rays, lines, the squares between two
//! squares, pawn steps and the board's symmetries.
//!
//! Owns: [`Geometry`], [`Symmetry`].
//! Must never: look at a position; tables depend on the board alone.

use crate::sqset::{Sq, SqSet};
use retro_rules::{Board, Side, Square};

/// The eight directions, rook directions first: (file step, rank step).
pub const DIRECTIONS: [(i8, i8); 8] = [
    (0, 1),
    (0, -1),
    (1, 0),
    (-1, 0),
    (1, 1),
    (-1, 1),
    (1, -1),
    (-1, -1),
];

/// Whether each direction of [`DIRECTIONS`] runs towards higher square numbers (up a rank, or
/// along one to a higher file): a slider's nearest blocker that way is the ray's lowest
/// occupied square, the other way its highest.
pub const INCREASING: [bool; 8] = {
    let mut increasing = [false; 8];
    let mut d = 0;
    while d < 8 {
        let (df, dr) = DIRECTIONS[d];
        increasing[d] = dr > 0 || (dr == 0 && df > 0);
        d += 1;
    }
    increasing
};

/// The directions a rook slides in (indices into [`DIRECTIONS`]).
pub const ROOK_DIRECTIONS: std::ops::Range<usize> = 0..4;
/// The directions a bishop slides in.
pub const BISHOP_DIRECTIONS: std::ops::Range<usize> = 4..8;

/// How two squares are aligned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// Not on a common file, rank or diagonal (or the same square).
    None,
    /// On a common file or rank.
    Straight,
    /// On a common diagonal.
    Diagonal,
}

/// One of the board's symmetries, as a permutation of its squares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symmetry {
    /// A short name: `identity`, `mirror-files`, `mirror-ranks`, `rotate-180`, `transpose`,
    /// `anti-transpose`, `rotate-90`, `rotate-270`.
    pub name: &'static str,
    map: Vec<Sq>,
}

impl Symmetry {
    /// The image of `sq`.
    #[inline]
    pub fn apply(&self, sq: Sq) -> Sq {
        self.map[usize::from(sq)]
    }

    /// The image of every square, by square.
    pub fn map(&self) -> &[Sq] {
        &self.map
    }
}

/// The tables of one board.
#[derive(Debug, Clone)]
pub struct Geometry {
    board: Board,
    files: u8,
    count: usize,
    king: Vec<SqSet>,
    knight: Vec<SqSet>,
    king_list: Vec<Vec<Sq>>,
    knight_list: Vec<Vec<Sq>>,
    rays: Vec<[Vec<Sq>; 8]>,
    ray_sets: Vec<[SqSet; 8]>,
    between: Vec<SqSet>,
    line: Vec<Line>,
    pawn_attacks: [Vec<SqSet>; 2],
    pawn_attack_list: [Vec<Vec<Sq>>; 2],
    symmetries: Vec<Symmetry>,
}

fn side_index(side: Side) -> usize {
    match side {
        Side::White => 0,
        Side::Black => 1,
    }
}

impl Geometry {
    /// Builds the tables of `board`.
    pub fn new(board: Board) -> Geometry {
        let files = board.files();
        let ranks = board.ranks();
        let count = board.square_count();
        let at = |file: i16, rank: i16| -> Option<Sq> {
            (file >= 0 && rank >= 0 && file < i16::from(files) && rank < i16::from(ranks))
                .then(|| (rank * i16::from(files) + file) as Sq)
        };
        let coords = |sq: usize| {
            (
                (sq % usize::from(files)) as i16,
                (sq / usize::from(files)) as i16,
            )
        };
        let mut geo = Geometry {
            board,
            files,
            count,
            king: Vec::with_capacity(count),
            knight: Vec::with_capacity(count),
            king_list: Vec::with_capacity(count),
            knight_list: Vec::with_capacity(count),
            rays: Vec::with_capacity(count),
            ray_sets: Vec::with_capacity(count),
            between: vec![SqSet::EMPTY; count * count],
            line: vec![Line::None; count * count],
            pawn_attacks: [Vec::with_capacity(count), Vec::with_capacity(count)],
            pawn_attack_list: [Vec::with_capacity(count), Vec::with_capacity(count)],
            symmetries: Vec::new(),
        };
        const KNIGHT: [(i16, i16); 8] = [
            (1, 2),
            (2, 1),
            (2, -1),
            (1, -2),
            (-1, -2),
            (-2, -1),
            (-2, 1),
            (-1, 2),
        ];
        for sq in 0..count {
            let (f, r) = coords(sq);
            let kings: Vec<Sq> = DIRECTIONS
                .iter()
                .filter_map(|&(df, dr)| at(f + i16::from(df), r + i16::from(dr)))
                .collect();
            let knights: Vec<Sq> = KNIGHT
                .iter()
                .filter_map(|&(df, dr)| at(f + df, r + dr))
                .collect();
            geo.king.push(kings.iter().copied().collect());
            geo.knight.push(knights.iter().copied().collect());
            geo.king_list.push(kings);
            geo.knight_list.push(knights);
            let rays: [Vec<Sq>; 8] = std::array::from_fn(|d| {
                let (df, dr) = DIRECTIONS[d];
                let mut ray = Vec::new();
                let (mut nf, mut nr) = (f + i16::from(df), r + i16::from(dr));
                while let Some(t) = at(nf, nr) {
                    ray.push(t);
                    nf += i16::from(df);
                    nr += i16::from(dr);
                }
                ray
            });
            for (d, ray) in rays.iter().enumerate() {
                let kind = if ROOK_DIRECTIONS.contains(&d) {
                    Line::Straight
                } else {
                    Line::Diagonal
                };
                let mut passed = SqSet::EMPTY;
                for &t in ray {
                    geo.between[sq * count + usize::from(t)] = passed;
                    geo.line[sq * count + usize::from(t)] = kind;
                    passed.insert(t);
                }
            }
            geo.ray_sets
                .push(std::array::from_fn(|d| rays[d].iter().copied().collect()));
            geo.rays.push(rays);
            for side in Side::ALL {
                let forward = if side == Side::White { 1 } else { -1 };
                let attacked: Vec<Sq> = [-1, 1]
                    .iter()
                    .filter_map(|&df| at(f + df, r + forward))
                    .collect();
                geo.pawn_attacks[side_index(side)].push(attacked.iter().copied().collect());
                geo.pawn_attack_list[side_index(side)].push(attacked);
            }
        }
        let last_file = i16::from(files) - 1;
        let last_rank = i16::from(ranks) - 1;
        type Transform = fn(i16, i16, i16, i16) -> (i16, i16);
        let mut transforms: Vec<(&'static str, Transform)> = vec![
            ("identity", |f, r, _, _| (f, r)),
            ("mirror-files", |f, r, lf, _| (lf - f, r)),
            ("mirror-ranks", |f, r, _, lr| (f, lr - r)),
            ("rotate-180", |f, r, lf, lr| (lf - f, lr - r)),
        ];
        if board.is_square() {
            transforms.extend([
                ("transpose", (|f, r, _, _| (r, f)) as Transform),
                ("anti-transpose", |f, r, lf, lr| (lr - r, lf - f)),
                ("rotate-90", |f, r, _, lr| (lr - r, f)),
                ("rotate-270", |f, r, lf, _| (r, lf - f)),
            ]);
        }
        for (name, transform) in transforms {
            let map = (0..count)
                .map(|sq| {
                    let (f, r) = coords(sq);
                    let (nf, nr) = transform(f, r, last_file, last_rank);
                    at(nf, nr).expect("a symmetry maps the board onto itself")
                })
                .collect();
            geo.symmetries.push(Symmetry { name, map });
        }
        geo
    }

    /// The board.
    pub fn board(&self) -> Board {
        self.board
    }

    /// The number of squares.
    #[inline]
    pub fn square_count(&self) -> usize {
        self.count
    }

    /// Every square, in index order (`Sq` counts up to 255, so a board of 256 squares is not
    /// `0..square_count() as Sq`).
    pub fn squares(&self) -> impl Iterator<Item = Sq> {
        (0..self.count).map(|sq| sq as Sq)
    }

    /// The number of files.
    #[inline]
    pub fn files(&self) -> u8 {
        self.files
    }

    /// The number of ranks.
    #[inline]
    pub fn ranks(&self) -> u8 {
        self.board.ranks()
    }

    /// The square on `file`, `rank`.
    #[inline]
    pub fn sq(&self, file: u8, rank: u8) -> Sq {
        rank * self.files + file
    }

    /// The file of `sq`.
    #[inline]
    pub fn file(&self, sq: Sq) -> u8 {
        sq % self.files
    }

    /// The rank of `sq`.
    #[inline]
    pub fn rank(&self, sq: Sq) -> u8 {
        sq / self.files
    }

    /// The natural model's square for `sq`.
    pub fn square(&self, sq: Sq) -> Square {
        Square::new(self.file(sq), self.rank(sq))
    }

    /// The engine's square for a square of the natural model, if it is on the board.
    pub fn from_square(&self, square: Square) -> Option<Sq> {
        self.board
            .contains(square)
            .then(|| self.sq(square.file, square.rank))
    }

    /// The squares a king on `sq` attacks.
    #[inline]
    pub fn king_attacks(&self, sq: Sq) -> SqSet {
        self.king[usize::from(sq)]
    }

    /// The squares a knight on `sq` attacks.
    #[inline]
    pub fn knight_attacks(&self, sq: Sq) -> SqSet {
        self.knight[usize::from(sq)]
    }

    /// The squares adjoining `sq`, as a list.
    #[inline]
    pub fn king_targets(&self, sq: Sq) -> &[Sq] {
        &self.king_list[usize::from(sq)]
    }

    /// The squares a knight's move away from `sq`, as a list.
    #[inline]
    pub fn knight_targets(&self, sq: Sq) -> &[Sq] {
        &self.knight_list[usize::from(sq)]
    }

    /// The squares from `sq` outwards in direction `d` (an index into [`DIRECTIONS`]).
    #[inline]
    pub fn ray(&self, sq: Sq, d: usize) -> &[Sq] {
        &self.rays[usize::from(sq)][d]
    }

    /// The squares a slider on `sq` attacks in the directions `dirs` when `occ` is occupied: each
    /// ray up to and including its first occupied square. The nearest blocker is the ray's
    /// lowest occupied square if the ray runs towards higher square numbers (rank up, or file up
    /// along the rank), else its highest; beyond it the blocker's own ray continues.
    #[inline]
    pub fn slider_attacks(&self, sq: Sq, dirs: std::ops::Range<usize>, occ: SqSet) -> SqSet {
        let rays = &self.ray_sets[usize::from(sq)];
        let mut attacks = SqSet::EMPTY;
        for d in dirs {
            let ray = rays[d];
            let blockers = ray.and(occ);
            let nearest = if INCREASING[d] {
                blockers.first()
            } else {
                blockers.last()
            };
            attacks = attacks.or(match nearest {
                None => ray,
                Some(b) => ray.minus(self.ray_sets[usize::from(b)][d]),
            });
        }
        attacks
    }

    /// The squares strictly between `a` and `b` if they are aligned, else empty.
    #[inline]
    pub fn between(&self, a: Sq, b: Sq) -> SqSet {
        self.between[usize::from(a) * self.count + usize::from(b)]
    }

    /// How `a` and `b` are aligned.
    #[inline]
    pub fn line(&self, a: Sq, b: Sq) -> Line {
        self.line[usize::from(a) * self.count + usize::from(b)]
    }

    /// The squares a pawn of `side` on `sq` attacks.
    #[inline]
    pub fn pawn_attacks(&self, side: Side, sq: Sq) -> SqSet {
        self.pawn_attacks[side_index(side)][usize::from(sq)]
    }

    /// The squares a pawn of `side` on `sq` attacks, as a list.
    #[inline]
    pub fn pawn_attack_targets(&self, side: Side, sq: Sq) -> &[Sq] {
        &self.pawn_attack_list[side_index(side)][usize::from(sq)]
    }

    /// The square `steps` ranks ahead of `sq` for `side`, if on the board.
    #[inline]
    pub fn ahead(&self, side: Side, sq: Sq, steps: i16) -> Option<Sq> {
        let rank = i16::from(self.rank(sq)) + if side == Side::White { steps } else { -steps };
        (0..i16::from(self.ranks()))
            .contains(&rank)
            .then(|| self.sq(self.file(sq), rank as u8))
    }

    /// `side`'s second rank (pawns start there and may double-step from it).
    #[inline]
    pub fn second_rank(&self, side: Side) -> u8 {
        match side {
            Side::White => 1,
            Side::Black => self.ranks().saturating_sub(2),
        }
    }

    /// `side`'s last rank (pawns are exchanged there).
    #[inline]
    pub fn last_rank(&self, side: Side) -> u8 {
        match side {
            Side::White => self.ranks() - 1,
            Side::Black => 0,
        }
    }

    /// `side`'s first rank.
    #[inline]
    pub fn first_rank(&self, side: Side) -> u8 {
        self.last_rank(retro_rules::opponent(side))
    }

    /// Whether a pawn of either side may stand on `sq` (not on the first or last rank).
    #[inline]
    pub fn pawn_may_stand(&self, sq: Sq) -> bool {
        let rank = self.rank(sq);
        rank != 0 && rank != self.ranks() - 1
    }

    /// The board's symmetries: eight for a square board, four otherwise; the identity first,
    /// the left–right mirror second.
    pub fn symmetries(&self) -> &[Symmetry] {
        &self.symmetries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_on_the_standard_board() {
        let g = Geometry::new(Board::STANDARD);
        let a1 = g.sq(0, 0);
        let h8 = g.sq(7, 7);
        assert_eq!(g.king_attacks(a1).len(), 3);
        assert_eq!(g.knight_attacks(g.sq(3, 3)).len(), 8);
        assert_eq!(g.between(a1, h8).len(), 6);
        assert_eq!(g.line(a1, h8), Line::Diagonal);
        assert_eq!(g.line(a1, g.sq(0, 5)), Line::Straight);
        assert_eq!(g.line(a1, g.sq(1, 2)), Line::None);
        assert_eq!(g.ray(a1, 0).len(), 7);
        assert_eq!(g.symmetries().len(), 8);
        assert_eq!(
            g.pawn_attacks(Side::White, g.sq(0, 1))
                .iter()
                .collect::<Vec<_>>(),
            vec![g.sq(1, 2)]
        );
    }

    #[test]
    fn slider_attacks_stop_at_the_first_man() {
        for board in [
            Board::STANDARD,
            Board::new(16, 16).unwrap(),
            Board::new(5, 3).unwrap(),
        ] {
            let g = Geometry::new(board);
            let mut seed = 0x1234_5678_u64;
            for _ in 0..2000 {
                let mut occ = SqSet::EMPTY;
                for _ in 0..6 {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    occ.insert(((seed >> 33) % g.square_count() as u64) as Sq);
                }
                let sq = ((seed >> 13) % g.square_count() as u64) as Sq;
                let mut walked = SqSet::EMPTY;
                for d in 0..8 {
                    for &t in g.ray(sq, d) {
                        walked.insert(t);
                        if occ.contains(t) {
                            break;
                        }
                    }
                }
                assert_eq!(g.slider_attacks(sq, 0..8, occ), walked);
            }
        }
    }

    #[test]
    fn symmetries_are_permutations() {
        for board in [
            Board::new(8, 8).unwrap(),
            Board::new(5, 3).unwrap(),
            Board::new(1, 1).unwrap(),
        ] {
            let g = Geometry::new(board);
            assert_eq!(g.symmetries().len(), if board.is_square() { 8 } else { 4 });
            for s in g.symmetries() {
                let image: SqSet = (0..g.square_count() as u16)
                    .map(|sq| s.apply(sq as Sq))
                    .collect();
                assert_eq!(image.len(), g.square_count(), "{}", s.name);
            }
        }
    }
}
