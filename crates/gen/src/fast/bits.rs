//! Attack tables as 64-bit words, for boards of at most 64 squares.
//!
//! Owns: [`Bits`] — each square's king and knight steps, its eight rays and each side's pawn
//! captures, pushes and un-pushes as bitboards, built from `retro_engine::Geometry` (itself
//! checked against the natural model by `selfcheck`), slider attacks by the classical ray
//! method, and the attacks from a whole set of squares at once (a step at a time along each
//! direction, by the constant difference of neighbours' numbers).
//! Must never: be used on a board of more than 64 squares (the constructor refuses one).

use retro_engine::geometry::{DIRECTIONS, INCREASING};
use retro_engine::material::piece_index;
use retro_engine::{Geometry, Sq, SqSet};
use retro_rules::{Piece, Side};

/// The most squares a board may have for these tables.
pub const MAX_SQUARES: usize = 64;

/// A set of squares as a word: bit `s` is square `s`.
pub type Board64 = u64;

/// The pieces whose attacks [`Bits::attacks`] gives (every man but a pawn).
const PIECES: [Piece; 5] = [
    Piece::King,
    Piece::Queen,
    Piece::Rook,
    Piece::Bishop,
    Piece::Knight,
];

/// Attack tables of one board.
#[derive(Debug, Clone)]
pub struct Bits {
    king: Vec<Board64>,
    knight: Vec<Board64>,
    /// For every square, its ray in each of the eight directions of `DIRECTIONS`; always 64
    /// entries, those past the board's last square empty (see [`Bits::slide`]).
    rays: Vec<[Board64; 8]>,
    /// The squares each piece attacks from a square on an empty board, by `piece_index` (the
    /// pawn's entry stays empty), to rule out slider look-ups cheaply.
    empty_board: [Vec<Board64>; 6],
    /// By side (0 White) and square: the squares a pawn there attacks.
    pawn_attacks: [Vec<Board64>; 2],
    /// By side and square: the squares from which a pawn attacks it (`pawn_attacks` read
    /// backwards).
    pawn_attackers: [Vec<Board64>; 2],
    /// By side and square: the square one step ahead, if on the board.
    pawn_step: [Vec<Board64>; 2],
    /// By side and square: the square two steps ahead when the square is on the side's second
    /// rank (a double step), else nothing.
    pawn_double: [Vec<Board64>; 2],
    /// By side and square: the square one step behind, if a pawn may stand there.
    pawn_back: [Vec<Board64>; 2],
    /// By side and square: the side's second-rank square two steps behind, if there is one.
    pawn_double_back: [Vec<Board64>; 2],
    /// By side: its last rank, where pawns are exchanged.
    last_rank: [Board64; 2],
    /// By side: the squares from which a pawn's push — its step, or its double step on a board
    /// of four ranks — lands on that last rank.
    promoting: [Board64; 2],
    /// The squares a pawn may stand on (off both end ranks).
    pawn_squares: Board64,
    /// By square × square: the squares strictly between the two on the ray from one to the
    /// other (nothing when no ray joins them).
    between: Vec<Board64>,
    /// By direction: the squares with a neighbour that way, and how far that neighbour's
    /// number lies from theirs — the same for every square, the squares being numbered rank
    /// by rank ([`Bits::step`]); `None` were it not.
    steps: Option<[(Board64, i32); 8]>,
}

/// The squares numbered above `sq` (none above square 63).
#[inline(always)]
pub fn squares_above(sq: Sq) -> Board64 {
    u64::MAX.checked_shl(u32::from(sq) + 1).unwrap_or(0)
}

/// The square `one` if empty, and then also `two` if empty: a pawn's step and double step,
/// forwards or backwards, the second passing over the first.
#[inline(always)]
fn one_then_two(one: Board64, two: Board64, occ: Board64) -> Board64 {
    let one = one & !occ;
    if one == 0 {
        return 0;
    }
    one | (two & !occ)
}

fn word(set: SqSet) -> Board64 {
    set.iter().fold(0, |w, sq| w | 1 << sq)
}

impl Bits {
    /// The tables of `geo`'s board, or `None` if it has more than 64 squares.
    pub fn new(geo: &Geometry) -> Option<Bits> {
        let count = geo.square_count();
        if count > MAX_SQUARES {
            return None;
        }
        let mut bits = Bits {
            king: Vec::with_capacity(count),
            knight: Vec::with_capacity(count),
            rays: vec![[0; 8]; MAX_SQUARES],
            empty_board: Default::default(),
            pawn_attacks: Default::default(),
            pawn_attackers: Default::default(),
            pawn_step: Default::default(),
            pawn_double: Default::default(),
            pawn_back: Default::default(),
            pawn_double_back: Default::default(),
            between: vec![0; count * count],
            last_rank: [0; 2],
            promoting: [0; 2],
            pawn_squares: 0,
            steps: None,
        };
        let bit = |sq: Option<Sq>| sq.map_or(0, |s| 1u64 << s);
        for (x, side) in [Side::White, Side::Black].into_iter().enumerate() {
            for sq in 0..count as Sq {
                let on_second = geo.rank(sq) == geo.second_rank(side);
                bits.pawn_attacks[x].push(word(geo.pawn_attacks(side, sq)));
                bits.pawn_step[x].push(bit(geo.ahead(side, sq, 1)));
                bits.pawn_double[x].push(if on_second {
                    bit(geo.ahead(side, sq, 2))
                } else {
                    0
                });
                bits.pawn_back[x].push(bit(geo
                    .ahead(side, sq, -1)
                    .filter(|&b| geo.pawn_may_stand(b))));
                bits.pawn_double_back[x].push(bit(geo
                    .ahead(side, sq, -2)
                    .filter(|&b| geo.rank(b) == geo.second_rank(side) && geo.pawn_may_stand(b))));
                if geo.rank(sq) == geo.last_rank(side) {
                    bits.last_rank[x] |= 1 << sq;
                }
                if geo.pawn_may_stand(sq) {
                    bits.pawn_squares |= 1 << sq;
                }
            }
        }
        for x in 0..2 {
            for sq in 0..count {
                if (bits.pawn_step[x][sq] | bits.pawn_double[x][sq]) & bits.last_rank[x] != 0 {
                    bits.promoting[x] |= 1 << sq;
                }
            }
            bits.pawn_attackers[x] = vec![0; count];
            for from in 0..count {
                let mut attacked = bits.pawn_attacks[x][from];
                while attacked != 0 {
                    let target = attacked.trailing_zeros() as usize;
                    attacked &= attacked - 1;
                    bits.pawn_attackers[x][target] |= 1 << from;
                }
            }
        }
        for sq in 0..count as Sq {
            bits.king.push(word(geo.king_attacks(sq)));
            bits.knight.push(word(geo.knight_attacks(sq)));
            bits.rays[usize::from(sq)] =
                std::array::from_fn(|d| geo.ray(sq, d).iter().fold(0, |w, &s| w | 1 << s));
            for d in 0..DIRECTIONS.len() {
                let mut passed: Board64 = 0;
                for &to in geo.ray(sq, d).iter() {
                    bits.between[usize::from(sq) * count + usize::from(to)] = passed;
                    passed |= 1 << to;
                }
            }
        }
        for piece in PIECES {
            bits.empty_board[piece_index(piece)] = (0..count as Sq)
                .map(|sq| bits.attacks(piece, sq, 0))
                .collect();
        }
        bits.steps = Self::steps_of(geo);
        Some(bits)
    }

    /// By direction, the squares of `geo` with a neighbour that way and the difference of
    /// their numbers, if it is one for every square.
    fn steps_of(geo: &Geometry) -> Option<[(Board64, i32); 8]> {
        let mut steps = [(0, None); 8];
        for sq in 0..geo.square_count() as Sq {
            for (d, (from, offset)) in steps.iter_mut().enumerate() {
                let Some(&next) = geo.ray(sq, d).first() else {
                    continue;
                };
                let this = i32::from(next) - i32::from(sq);
                if offset.is_some_and(|o| o != this) {
                    return None;
                }
                *offset = Some(this);
                *from |= 1 << sq;
            }
        }
        Some(steps.map(|(from, offset)| (from, offset.unwrap_or(0))))
    }

    /// The squares one step from those of `set` in the direction whose squares with a
    /// neighbour and difference of numbers are `(from, offset)` ([`Bits::steps_of`]).
    #[inline(always)]
    fn step(set: Board64, (from, offset): (Board64, i32)) -> Board64 {
        let set = set & from;
        if offset >= 0 {
            set << offset
        } else {
            set >> -offset
        }
    }

    /// The squares `piece` attacks from any square of `from` when `occ` is occupied: the
    /// union of [`Bits::attacks`] over `from`. A slider's are found for the whole set at
    /// once, a step at a time along each direction, each step going on from the squares it
    /// reached that are empty — a ray up to and including its first man, as in
    /// `Bits::slide`. Slider attacks are symmetric (a slider on `s` attacks an empty `t`
    /// exactly when one on `t` attacks `s`), so this also gives the empty squares from which
    /// `piece` attacks some square of an empty `from`.
    #[inline]
    pub fn attacks_from_set(&self, piece: Piece, from: Board64, occ: Board64) -> Board64 {
        let dirs = match piece {
            Piece::Rook => 0..4,
            Piece::Bishop => 4..8,
            Piece::Queen => 0..8,
            _ => 0..0,
        };
        let (Some(steps), false) = (&self.steps, dirs.is_empty()) else {
            let mut reached = 0;
            let mut left = from;
            while left != 0 {
                let sq = left.trailing_zeros() as Sq;
                left &= left - 1;
                reached |= self.attacks(piece, sq, occ);
            }
            return reached;
        };
        let mut reached = 0;
        for d in dirs {
            let mut front = from;
            while front != 0 {
                let next = Self::step(front, steps[d]);
                reached |= next;
                front = next & !occ;
            }
        }
        reached
    }

    /// The squares a slider on `sq` attacks along the directions `dirs` when `occ` is
    /// occupied: each ray up to and including its nearest man. The nearest man on a ray that
    /// runs towards higher squares is its lowest; the squares beyond it are its own ray in that
    /// direction, taken off. Without branches: a ray with no man takes its "nearest" from a
    /// sentinel whose own ray that way is empty, so that the whole ray stays — square 63 on a
    /// ray towards higher squares (on a board of 64 squares the last square of the last rank,
    /// from which every such ray leaves the board; on a smaller one, an empty entry of `rays`),
    /// square 0 on one towards lower squares (the first square of the first rank). A sentinel
    /// that is also a man of the ray changes nothing, as its own ray is empty either way.
    #[inline(always)]
    fn slide(&self, sq: Sq, dirs: std::ops::Range<usize>, occ: Board64) -> Board64 {
        let rays = &self.rays[usize::from(sq)];
        let mut attacks = 0;
        for d in dirs {
            let ray = rays[d];
            let blockers = ray & occ;
            let nearest = if INCREASING[d] {
                (blockers | 1 << 63).trailing_zeros()
            } else {
                63 - (blockers | 1).leading_zeros()
            };
            attacks |= ray ^ self.rays[nearest as usize][d];
        }
        attacks
    }

    /// The squares `piece` on `sq` attacks when `occ` is occupied (pawns excluded).
    #[inline(always)]
    pub fn attacks(&self, piece: Piece, sq: Sq, occ: Board64) -> Board64 {
        match piece {
            Piece::King => self.king[usize::from(sq)],
            Piece::Knight => self.knight[usize::from(sq)],
            Piece::Rook => self.slide(sq, 0..4, occ),
            Piece::Bishop => self.slide(sq, 4..8, occ),
            Piece::Queen => self.slide(sq, 0..8, occ),
            Piece::Pawn => unreachable!("the fast core handles pawnless material"),
        }
    }

    /// The squares a pawn of side `x` (0 White) on `sq` attacks.
    #[inline(always)]
    pub fn pawn_attacks(&self, x: usize, sq: Sq) -> Board64 {
        self.pawn_attacks[x][usize::from(sq)]
    }

    /// The squares from which a pawn of side `x` attacks `target`.
    #[inline(always)]
    pub fn pawn_attackers(&self, x: usize, target: Sq) -> Board64 {
        self.pawn_attackers[x][usize::from(target)]
    }

    /// The squares a pawn of side `x` on `sq` moves to without capturing when `occ` is
    /// occupied: one step ahead if empty, and from the second rank two if both are empty.
    #[inline(always)]
    pub fn pawn_pushes(&self, x: usize, sq: Sq, occ: Board64) -> Board64 {
        one_then_two(
            self.pawn_step[x][usize::from(sq)],
            self.pawn_double[x][usize::from(sq)],
            occ,
        )
    }

    /// The square one step ahead of a pawn of side `x` on `sq` (the empty set on the last
    /// rank): a man there stops all its pushes.
    #[inline(always)]
    pub fn pawn_step(&self, x: usize, sq: Sq) -> Board64 {
        self.pawn_step[x][usize::from(sq)]
    }

    /// The squares a pawn of side `x` standing on `sq` can have come from by a push when `occ`
    /// is occupied: one step behind if empty and off the first rank, and the second rank two
    /// steps behind if both squares are empty.
    #[inline(always)]
    pub fn pawn_unpushes(&self, x: usize, sq: Sq, occ: Board64) -> Board64 {
        one_then_two(
            self.pawn_back[x][usize::from(sq)],
            self.pawn_double_back[x][usize::from(sq)],
            occ,
        )
    }

    /// The squares strictly between `a` and `b` on the ray joining them (nothing when none
    /// does): a man there blocks a slider's move, or a pawn's double step, from one to the
    /// other.
    #[inline(always)]
    pub fn between(&self, a: Sq, b: Sq) -> Board64 {
        self.between[usize::from(a) * self.king.len() + usize::from(b)]
    }

    /// The square a pawn of side `x` on `sq` came from if its last move was a double step
    /// (the empty set off the rank a double step ends on).
    #[inline(always)]
    pub fn pawn_double_back(&self, x: usize, sq: Sq) -> Board64 {
        self.pawn_double_back[x][usize::from(sq)]
    }

    /// Side `x`'s last rank.
    #[inline(always)]
    pub fn last_rank(&self, x: usize) -> Board64 {
        self.last_rank[x]
    }

    /// The squares from which a pawn of side `x` may push onto its last rank (a double step
    /// does on a board of four ranks).
    #[inline(always)]
    pub fn promoting(&self, x: usize) -> Board64 {
        self.promoting[x]
    }

    /// The squares a pawn may stand on.
    #[inline(always)]
    pub fn pawn_squares(&self) -> Board64 {
        self.pawn_squares
    }

    /// Whether `piece` on `sq` attacks `target` when `occ` is occupied.
    #[inline(always)]
    pub fn attacks_square(&self, piece: Piece, sq: Sq, target: Sq, occ: Board64) -> bool {
        let bit = 1u64 << target;
        if self.empty_board[piece_index(piece)][usize::from(sq)] & bit == 0 {
            return false;
        }
        // A slider that would attack `target` on an empty board does unless a man stands
        // between them.
        matches!(piece, Piece::King | Piece::Knight) || self.between(sq, target) & occ == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_rules::Board;

    #[test]
    fn squares_above_a_square_are_the_higher_numbers() {
        for sq in 0..64 as Sq {
            let want = (0..64u32)
                .filter(|&t| t > u32::from(sq))
                .fold(0, |set, t| set | 1u64 << t);
            assert_eq!(squares_above(sq), want, "{sq}");
        }
    }

    /// The next word of a xorshift sequence from `seed`: random sets and occupancies, the same
    /// on every run.
    fn xorshift(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    /// The attacks from a set of squares equal the union of each square's, for every piece,
    /// random sets and occupancies, on several boards; and every board here has its steps.
    #[test]
    fn attacks_from_a_set_equal_the_union_of_each_squares() {
        for (files, ranks) in [(8, 8), (5, 5), (7, 4), (3, 8), (8, 1), (16, 4), (4, 16)] {
            let geo = Geometry::new(Board::new(files, ranks).unwrap());
            let bits = Bits::new(&geo).unwrap();
            assert!(
                bits.steps.is_some(),
                "{files}x{ranks} numbers its squares rank by rank"
            );
            let count = geo.square_count();
            let board = u64::MAX >> (64 - count);
            let mut seed = 0x2545_F491_4F6C_DD1Du64;
            let mut next = || xorshift(&mut seed);
            for _ in 0..500 {
                let occ = next() & next() & board;
                let from = next() & next() & next() & board;
                for piece in PIECES {
                    let mut union = 0;
                    for sq in 0..count as Sq {
                        if from >> sq & 1 == 1 {
                            union |= bits.attacks(piece, sq, occ);
                        }
                    }
                    assert_eq!(
                        bits.attacks_from_set(piece, from, occ),
                        union,
                        "{piece:?} from {from:#x}, {occ:#x} occupied, {files}x{ranks}"
                    );
                }
            }
        }
    }

    /// Every piece's attacks from every square, with random occupancies, equal the engine's
    /// (which `selfcheck` proves equal to the natural model).
    #[test]
    fn attacks_equal_the_engines_on_several_boards() {
        for (files, ranks) in [(8, 8), (5, 5), (7, 4), (3, 8), (8, 1), (16, 4), (4, 16)] {
            let geo = Geometry::new(Board::new(files, ranks).unwrap());
            let bits = Bits::new(&geo).unwrap();
            let mut seed = 0x9E37_79B9_7F4A_7C15u64;
            let count = geo.square_count();
            for _ in 0..200 {
                let occ_word = xorshift(&mut seed) & (u64::MAX >> (64 - count));
                let occ = (0..count as Sq).filter(|&s| occ_word >> s & 1 == 1).fold(
                    SqSet::EMPTY,
                    |mut set, s| {
                        set.insert(s);
                        set
                    },
                );
                for sq in 0..count as Sq {
                    let engine = [
                        (Piece::King, geo.king_attacks(sq)),
                        (Piece::Knight, geo.knight_attacks(sq)),
                        (Piece::Rook, geo.slider_attacks(sq, 0..4, occ)),
                        (Piece::Bishop, geo.slider_attacks(sq, 4..8, occ)),
                        (Piece::Queen, geo.slider_attacks(sq, 0..8, occ)),
                    ];
                    for (piece, expected) in engine {
                        let got = bits.attacks(piece, sq, occ_word);
                        assert_eq!(got, word(expected), "{piece:?} on {sq}, {files}x{ranks}");
                        for target in 0..count as Sq {
                            assert_eq!(
                                bits.attacks_square(piece, sq, target, occ_word),
                                got >> target & 1 == 1
                            );
                        }
                    }
                }
            }
        }
    }

    /// A queen on `a` attacks `b` past a man on `s` exactly when `b` is on one of its lines
    /// and `s` is not between them.
    #[test]
    fn between_is_what_blocks_a_queen() {
        for (files, ranks) in [(8, 8), (5, 5), (7, 4), (3, 8)] {
            let geo = Geometry::new(Board::new(files, ranks).unwrap());
            let bits = Bits::new(&geo).unwrap();
            let count = geo.square_count() as Sq;
            for a in 0..count {
                let lines = bits.attacks(Piece::Queen, a, 0);
                for b in 0..count {
                    let between = bits.between(a, b);
                    assert_eq!(between, bits.between(b, a));
                    if lines >> b & 1 == 0 {
                        assert_eq!(between, 0, "{a} {b} on {files}x{ranks}");
                        continue;
                    }
                    for s in (0..count).filter(|&s| s != a && s != b) {
                        let reaches = bits.attacks(Piece::Queen, a, 1 << s) >> b & 1 == 1;
                        assert_eq!(reaches, between >> s & 1 == 0, "{a} {b} {s}");
                    }
                }
            }
        }
    }

    /// A pawn's attackers of a square are the squares whose pawn attacks it, by the engine's
    /// pawn attacks; its promoting squares are those from which a step, or a double step from
    /// its second rank, lands on its last rank.
    #[test]
    fn pawn_attackers_and_promoting_squares_follow_the_engine() {
        for (files, ranks) in [(8, 8), (5, 5), (7, 4), (3, 8)] {
            let geo = Geometry::new(Board::new(files, ranks).unwrap());
            let bits = Bits::new(&geo).unwrap();
            let count = geo.square_count() as Sq;
            for (x, side) in [Side::White, Side::Black].into_iter().enumerate() {
                for target in 0..count {
                    let expected = (0..count)
                        .filter(|&from| geo.pawn_attacks(side, from).contains(target))
                        .fold(0, |set: Board64, from| set | 1 << from);
                    assert_eq!(
                        bits.pawn_attackers(x, target),
                        expected,
                        "{target} {files}x{ranks}"
                    );
                }
                let lands_last = |sq: Sq, steps: i16| {
                    geo.ahead(side, sq, steps)
                        .is_some_and(|to| geo.rank(to) == geo.last_rank(side))
                };
                let expected = (0..count)
                    .filter(|&sq| {
                        lands_last(sq, 1)
                            || (geo.rank(sq) == geo.second_rank(side) && lands_last(sq, 2))
                    })
                    .fold(0, |set: Board64, sq| set | 1 << sq);
                assert_eq!(bits.promoting(x), expected, "{side:?} {files}x{ranks}");
                assert_ne!(expected, 0);
            }
        }
    }

    #[test]
    fn larger_boards_are_refused() {
        assert!(Bits::new(&Geometry::new(Board::new(9, 8).unwrap())).is_none());
        assert!(Bits::new(&Geometry::new(Board::new(8, 8).unwrap())).is_some());
    }
}
