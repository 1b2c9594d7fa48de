//! The natural model's geometry, tabulated once per board: which squares each kind of man
//! reaches and which squares lie between two squares.
//!
//! Owns: [`Lines`], [`SquareSet`].
//! Must never: compute an entry any other way than by calling the natural model's predicate for
//! it (`in_reach`, which is `king_attacks`, `queen_attacks`, `rook_attacks`, `bishop_attacks` or
//! `knight_attacks` by the kind of man, and `square_between`, of `retro_rules`). A test reads
//! every entry back through the accessors the checker uses and compares it with the predicate,
//! for every pair (and triple) of squares of every board up to 16×16.
//!
//! # Why the checker may use these tables
//!
//! For a man of kind `k` on `a`, the natural model's `attacks p a b` is `board contains b ∧
//! k_attacks a b ∧ clear_line p a b`, and `clear_line p a b` is "no man stands on a square
//! `s` with `square_between a s b`". With `targets(k, a)` the squares `b` of the board with
//! `k_attacks a b` and `between(a, b)` the squares `s` with `square_between a s b`, that is
//! `b ∈ targets(k, a) ∧ between(a, b) ∩ occupied = ∅` — what [`Lines::attacks`] computes.

use retro_rules::laws::in_reach;
use retro_rules::{Board, Piece, Side, Square};

/// A set of squares of a board of at most 256 squares, by square number.
pub type SquareSet = [u64; 4];

/// Whether two sets have no square in common.
#[inline]
pub fn disjoint(a: &SquareSet, b: &SquareSet) -> bool {
    (a[0] & b[0]) | (a[1] & b[1]) | (a[2] & b[2]) | (a[3] & b[3]) == 0
}

/// Adds square `n` to `set`.
#[inline]
pub fn insert(set: &mut SquareSet, n: u16) {
    set[usize::from(n >> 6)] |= 1 << (n & 63);
}

/// Whether `set` holds square `n`.
#[inline]
pub fn contains(set: &SquareSet, n: u16) -> bool {
    set[usize::from(n >> 6)] >> (n & 63) & 1 == 1
}

/// The kinds of men that move as pieces (pawns advance and capture differently, and are not
/// tabulated), in the order of `kind_number`.
pub const KINDS: [Piece; 5] = [
    Piece::King,
    Piece::Queen,
    Piece::Rook,
    Piece::Bishop,
    Piece::Knight,
];

#[inline]
fn kind_number(piece: Piece) -> usize {
    match piece {
        Piece::King => 0,
        Piece::Queen => 1,
        Piece::Rook => 2,
        Piece::Bishop => 3,
        Piece::Knight => 4,
        Piece::Pawn => unreachable!("pawns are not tabulated"),
    }
}

/// The tables of one board. Squares are numbered `rank × files + file`.
pub struct Lines {
    board: Board,
    count: usize,
    /// By kind, then square: the squares it reaches, in increasing order.
    targets: [Vec<Vec<u16>>; 5],
    /// By kind, then square: the same as a set.
    target_sets: [Vec<SquareSet>; 5],
    /// By `a × count + b`: the squares strictly between `a` and `b`.
    between: Vec<SquareSet>,
}

impl Lines {
    /// Tabulates `board` (at most 256 squares).
    pub fn new(board: Board) -> Lines {
        let count = board.square_count();
        assert!(count <= 256, "boards of at most 256 squares");
        let squares: Vec<Square> = (0..count as u16).map(|n| square_of(board, n)).collect();
        let targets: [Vec<Vec<u16>>; 5] = std::array::from_fn(|k| {
            squares
                .iter()
                .map(|&a| {
                    (0..count as u16)
                        .filter(|&b| reaches_naturally(KINDS[k], a, squares[usize::from(b)]))
                        .collect()
                })
                .collect()
        });
        let target_sets = std::array::from_fn(|k| {
            targets[k]
                .iter()
                .map(|list: &Vec<u16>| {
                    let mut set = [0; 4];
                    for &b in list {
                        insert(&mut set, b);
                    }
                    set
                })
                .collect()
        });
        let mut between = vec![[0u64; 4]; count * count];
        for (a, &sa) in squares.iter().enumerate() {
            for (b, &sb) in squares.iter().enumerate() {
                let set = &mut between[a * count + b];
                for (s, &ss) in squares.iter().enumerate() {
                    if retro_rules::board::square_between(sa, ss, sb) {
                        insert(set, s as u16);
                    }
                }
            }
        }
        Lines {
            board,
            count,
            targets,
            target_sets,
            between,
        }
    }

    /// The board.
    pub fn board(&self) -> Board {
        self.board
    }

    /// The number of a square.
    pub fn number(&self, sq: Square) -> u16 {
        u16::from(sq.rank) * u16::from(self.board.files()) + u16::from(sq.file)
    }

    /// The square of a number.
    pub fn square(&self, n: u16) -> Square {
        square_of(self.board, n)
    }

    /// The squares of the board a man of kind `piece` on `a` reaches (pawns excluded).
    #[inline]
    pub fn targets(&self, piece: Piece, a: u16) -> &[u16] {
        &self.targets[kind_number(piece)][usize::from(a)]
    }

    /// Whether a man of kind `piece` on `a` reaches `b` on an empty board.
    #[inline]
    pub fn reaches(&self, piece: Piece, a: u16, b: u16) -> bool {
        contains(&self.target_sets[kind_number(piece)][usize::from(a)], b)
    }

    /// The squares strictly between `a` and `b`.
    #[inline]
    pub fn between(&self, a: u16, b: u16) -> &SquareSet {
        &self.between[usize::from(a) * self.count + usize::from(b)]
    }

    /// The natural model's `attacks p a b` for a man of kind `piece` on `a`, `occupied` the
    /// squares of `p`'s men (see the module documentation).
    #[inline]
    pub fn attacks(&self, piece: Piece, a: u16, b: u16, occupied: &SquareSet) -> bool {
        self.reaches(piece, a, b) && disjoint(self.between(a, b), occupied)
    }
}

/// The natural model's `in_reach` for a man of kind `piece` (a piece: the side does not matter).
fn reaches_naturally(piece: Piece, sq1: Square, sq2: Square) -> bool {
    in_reach((Side::White, piece), sq1, sq2)
}

fn square_of(board: Board, n: u16) -> Square {
    let files = u16::from(board.files());
    Square::new((n % files) as u8, (n / files) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_rules::board::square_between;

    /// Every entry, read through the accessors, equals the predicate it was computed from, on
    /// every board from 1×1 to 16×16.
    #[test]
    fn every_entry_equals_the_natural_predicate_on_every_board() {
        for files in 1..=16 {
            for ranks in 1..=16 {
                let board = Board::new(files, ranks).unwrap();
                let lines = Lines::new(board);
                let squares: Vec<Square> = board.squares().collect();
                for &a in &squares {
                    let na = lines.number(a);
                    assert_eq!(lines.square(na), a);
                    for &kind in &KINDS {
                        let listed = lines.targets(kind, na);
                        for &b in &squares {
                            let nb = lines.number(b);
                            let natural = reaches_naturally(kind, a, b);
                            assert_eq!(lines.reaches(kind, na, nb), natural, "{kind:?} {a} {b}");
                            assert_eq!(listed.contains(&nb), natural, "{kind:?} {a} {b}");
                        }
                    }
                    for &b in &squares {
                        let between = lines.between(na, lines.number(b));
                        for &s in &squares {
                            assert_eq!(
                                contains(between, lines.number(s)),
                                square_between(a, s, b),
                                "{a} {s} {b} on {board}"
                            );
                        }
                    }
                }
            }
        }
    }
}
