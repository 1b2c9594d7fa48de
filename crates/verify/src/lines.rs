//! The natural model's geometry, tabulated once per board: which squares each kind of man
//! reaches and which squares lie between two squares.
//!
//! Owns: [`Lines`], [`SquareSet`].
//! Must never: compute an entry any other way than by calling the natural model's predicate for
//! it (`in_reach`, which is `king_attacks`, `queen_attacks`, `rook_attacks`, `bishop_attacks` or
//! `knight_attacks` by the kind of man, and `square_between`, of `retro_rules`; for pawns
//! `pawn_attacks`, and `pawn_advance` and `pawn_double_advance` on the position holding that
//! pawn alone). A test reads every entry back through the accessors the checker uses and
//! compares it with the predicate, for every pair (and triple) of squares of every board up to
//! 16×16.
//!
//! # Why the checker may use these tables
//!
//! For a man of kind `k` on `a`, the natural model's `attacks p a b` is `board contains b ∧
//! k_attacks a b ∧ clear_line p a b`, and `clear_line p a b` is "no man stands on a square
//! `s` with `square_between a s b`". With `targets(k, a)` the squares `b` of the board with
//! `k_attacks a b` and `between(a, b)` the squares `s` with `square_between a s b`, that is
//! `b ∈ targets(k, a) ∧ between(a, b) ∩ occupied = ∅` — what [`Lines::attacks`] computes.
//!
//! The checker walks a piece's targets as *runs* ([`Lines::runs`]): the targets of a kind of
//! man from `a`, each listed once, cut into runs such that the squares between `a` and an
//! entry are exactly the entries before it in its run — `between(a, b)` read off the natural
//! predicate again, by the test. Walking a run from its start and stopping after the first
//! occupied entry therefore visits exactly its entries `b` with `between(a, b) ∩ occupied = ∅`:
//! every entry before `b` was empty, and every entry after an occupied one has that one
//! between. So the squares visited are those that `attacks p a b` holds for, as above.
//!
//! A pawn of side `s` on `a` attacks `b` exactly when `pawn_attacks s a b` (no square lies
//! between: the squares are adjacent), [`Lines::pawn_attacks`]. `pawn_advance p a b` is "`p`
//! has a pawn of the side to move on `a`, `b` is on the board one rank ahead of it on its
//! file, and `b` is empty": on the position with that pawn alone every square but `a` is
//! empty, so the squares it holds for there ([`Lines::pawn_advances`]) are those `b` that the
//! rest of the definition allows, and on any position `p` with that pawn on `a` it holds
//! exactly for those of them that are empty in `p`. Likewise `pawn_double_advance p a b` holds
//! exactly for the squares of [`Lines::pawn_double_advances`] that are empty in `p` with the
//! square passed over empty too — the square of `a`'s file on the rank between, which is the
//! one square strictly between `a` and `b`, [`Lines::between`].

use retro_rules::laws::{in_reach, pawn_advance, pawn_attacks, pawn_double_advance};
use retro_rules::{Board, Piece, Position, Side, Square};

/// A set of squares of a board of at most 256 squares, by square number.
pub type SquareSet = [u64; 4];

/// Whether a set of the board's squares (as many words as it needs, [`Lines::between`]) and a
/// [`SquareSet`] have no square in common.
#[inline]
pub fn disjoint(a: &[u64], b: &SquareSet) -> bool {
    a.iter().zip(b).all(|(x, y)| x & y == 0)
}

/// Adds square `n` to `set`.
#[inline]
pub fn insert(set: &mut SquareSet, n: u16) {
    set[usize::from(n >> 6)] |= 1 << (n & 63);
}

/// Whether `set` holds square `n`.
#[inline]
pub fn contains(set: &[u64], n: u16) -> bool {
    set[usize::from(n >> 6)] >> (n & 63) & 1 == 1
}

/// The least square of a set that is not empty.
#[inline]
pub fn first(set: &[u64]) -> Option<u16> {
    let w = set.iter().position(|&w| w != 0)?;
    Some(w as u16 * 64 + set[w].trailing_zeros() as u16)
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
    /// By kind, then square: the same squares in runs ([`Lines::runs`]), each with the place
    /// in the list where its run ends.
    runs: [Vec<Vec<(u16, u16)>>; 5],
    /// By kind, then square: the same as a set.
    target_sets: [Vec<SquareSet>; 5],
    /// The words of a set of the board's squares: one per 64 squares.
    words: usize,
    /// At `(a × count + b) × words`: the squares strictly between `a` and `b`.
    between: Vec<u64>,
    /// By side (White first), then square: the squares a pawn there attacks.
    pawn_attacks: [Vec<SquareSet>; 2],
    /// By side, then square: the same, in increasing order.
    pawn_attack_lists: [Vec<Vec<u16>>; 2],
    /// By side, then square: where a pawn there advances one square on an empty board.
    pawn_advances: [Vec<Vec<u16>>; 2],
    /// By side, then square: where a pawn there advances two squares on an empty board.
    pawn_double_advances: [Vec<Vec<u16>>; 2],
    /// By side, then square: the squares from which a pawn advances two squares to it (the
    /// converse of `pawn_double_advances`).
    pawn_double_origins: [Vec<Vec<u16>>; 2],
}

impl Lines {
    /// Tabulates `board` (at most 256 squares).
    pub fn new(board: Board) -> Lines {
        let count = board.square_count();
        assert!(count <= 256, "boards of at most 256 squares");
        let squares: Vec<Square> = (0..count as u16).map(|n| square_of(board, n)).collect();
        // By square `a`: the squares `b` for which `holds(a, b)`, in increasing order.
        let tabulate = |holds: &dyn Fn(Square, Square) -> bool| -> Vec<Vec<u16>> {
            squares
                .iter()
                .map(|&a| {
                    (0..count as u16)
                        .filter(|&b| holds(a, squares[usize::from(b)]))
                        .collect()
                })
                .collect()
        };
        let as_sets = |lists: &[Vec<u16>]| -> Vec<SquareSet> {
            lists
                .iter()
                .map(|list| {
                    let mut set = [0; 4];
                    for &b in list {
                        insert(&mut set, b);
                    }
                    set
                })
                .collect()
        };
        let targets: [Vec<Vec<u16>>; 5] =
            std::array::from_fn(|k| tabulate(&|a, b| reaches_naturally(KINDS[k], a, b)));
        let target_sets = std::array::from_fn(|k| as_sets(&targets[k]));
        let words = count.div_ceil(64);
        let mut between_sets = vec![[0u64; 4]; count * count];
        for (a, &sa) in squares.iter().enumerate() {
            for (b, &sb) in squares.iter().enumerate() {
                let set = &mut between_sets[a * count + b];
                for (s, &ss) in squares.iter().enumerate() {
                    if retro_rules::board::square_between(sa, ss, sb) {
                        insert(set, s as u16);
                    }
                }
            }
        }
        let between = between_sets
            .iter()
            .flat_map(|set| set[..words].iter().copied())
            .collect();
        let runs = std::array::from_fn(|k| {
            (0..count)
                .map(|a| in_runs(&targets[k][a], |b| between_sets[a * count + usize::from(b)]))
                .collect()
        });
        let sides = [Side::White, Side::Black];
        let pawn_attack_lists: [Vec<Vec<u16>>; 2] =
            sides.map(|s| tabulate(&|a, b| pawn_attacks(s, a, b)));
        let pawn_attacks = std::array::from_fn(|x| as_sets(&pawn_attack_lists[x]));
        // A pawn's advances on the position holding it alone.
        let advances = |pred: fn(&Position, Square, Square) -> bool| {
            sides.map(|s| {
                tabulate(&|a, b| {
                    let alone =
                        Position::new(board, s, [(a, (s, Piece::Pawn))], None).expect("one man");
                    pred(&alone, a, b)
                })
            })
        };
        let pawn_double_advances: [Vec<Vec<u16>>; 2] = advances(pawn_double_advance);
        let pawn_double_origins: [Vec<Vec<u16>>; 2] = std::array::from_fn(|x| {
            let mut origins: Vec<Vec<u16>> = vec![Vec::new(); count];
            for (a, reached) in pawn_double_advances[x].iter().enumerate() {
                for &b in reached {
                    origins[usize::from(b)].push(a as u16);
                }
            }
            origins
        });
        Lines {
            board,
            count,
            targets,
            runs,
            target_sets,
            words,
            between,
            pawn_attacks,
            pawn_attack_lists,
            pawn_advances: advances(pawn_advance),
            pawn_double_advances,
            pawn_double_origins,
        }
    }

    /// Whether a pawn of side `s` on `a` attacks `b` (`pawn_attacks s a b`).
    #[inline]
    pub fn pawn_attacks(&self, s: Side, a: u16, b: u16) -> bool {
        contains(&self.pawn_attacks[side_number(s)][usize::from(a)], b)
    }

    /// The squares a pawn of side `s` on `a` attacks, in increasing order.
    #[inline]
    pub fn pawn_attack_targets(&self, s: Side, a: u16) -> &[u16] {
        &self.pawn_attack_lists[side_number(s)][usize::from(a)]
    }

    /// The squares a pawn of side `s` on `a` advances to by one square when they are empty
    /// (`pawn_advance` on the position holding that pawn alone).
    #[inline]
    pub fn pawn_advances(&self, s: Side, a: u16) -> &[u16] {
        &self.pawn_advances[side_number(s)][usize::from(a)]
    }

    /// The squares from which a pawn of side `s` advances two squares to `b`.
    #[inline]
    pub fn pawn_double_origins(&self, s: Side, b: u16) -> &[u16] {
        &self.pawn_double_origins[side_number(s)][usize::from(b)]
    }

    /// The squares a pawn of side `s` on `a` advances to by two squares when they and the
    /// square between are empty (`pawn_double_advance` on the position holding that pawn
    /// alone).
    #[inline]
    pub fn pawn_double_advances(&self, s: Side, a: u16) -> &[u16] {
        &self.pawn_double_advances[side_number(s)][usize::from(a)]
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

    /// The squares a man of kind `piece` on `a` reaches (pawns excluded), each once, in runs:
    /// an entry `(b, end)` belongs to the run that ends before place `end` of the list, and the
    /// squares between `a` and `b` are exactly the squares of the entries before it in its run.
    #[inline]
    pub fn runs(&self, piece: Piece, a: u16) -> &[(u16, u16)] {
        &self.runs[kind_number(piece)][usize::from(a)]
    }

    /// Whether a man of kind `piece` on `a` reaches `b` on an empty board.
    #[inline]
    pub fn reaches(&self, piece: Piece, a: u16, b: u16) -> bool {
        contains(&self.target_sets[kind_number(piece)][usize::from(a)], b)
    }

    /// The squares strictly between `a` and `b`, in as many words as the board needs.
    #[inline]
    pub fn between(&self, a: u16, b: u16) -> &[u64] {
        let at = (usize::from(a) * self.count + usize::from(b)) * self.words;
        &self.between[at..at + self.words]
    }

    /// The natural model's `attacks p a b` for a man of kind `piece` on `a`, `occupied` the
    /// squares of `p`'s men (see the module documentation).
    #[inline]
    pub fn attacks(&self, piece: Piece, a: u16, b: u16, occupied: &SquareSet) -> bool {
        self.reaches(piece, a, b) && disjoint(self.between(a, b), occupied)
    }
}

/// The `targets` of a man on some square `a` in runs (see [`Lines::runs`]), `between(b)` the
/// squares between `a` and `b`: taken in order of how many squares lie between, each target
/// extends the run whose squares are exactly those between, or starts a run if none are.
///
/// # Panics
/// If some target's squares between are not the squares of a run (the test shows that on
/// every board the natural model's lines make runs).
fn in_runs(targets: &[u16], between: impl Fn(u16) -> SquareSet) -> Vec<(u16, u16)> {
    let mut by_distance = targets.to_vec();
    by_distance.sort_by_key(|&b| (between(b).iter().map(|w| w.count_ones()).sum::<u32>(), b));
    let mut runs: Vec<(SquareSet, Vec<u16>)> = Vec::new();
    for b in by_distance {
        let before = between(b);
        let mut with_b = before;
        insert(&mut with_b, b);
        match runs.iter_mut().find(|(squares, _)| *squares == before) {
            Some((squares, run)) => {
                *squares = with_b;
                run.push(b);
            }
            None => {
                assert_eq!(before, [0; 4], "square {b}'s squares between extend no run");
                runs.push((with_b, vec![b]));
            }
        }
    }
    let mut listed = Vec::with_capacity(targets.len());
    for (_, run) in runs {
        let end = (listed.len() + run.len()) as u16;
        listed.extend(run.into_iter().map(|b| (b, end)));
    }
    listed
}

fn side_number(s: Side) -> usize {
    usize::from(s == Side::Black)
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
                        let runs = lines.runs(kind, na);
                        let mut in_runs: Vec<u16> = runs.iter().map(|&(b, _)| b).collect();
                        in_runs.sort_unstable();
                        assert_eq!(in_runs, lines.targets(kind, na), "{kind:?} {a}");
                        let mut start = 0;
                        for (k, &(b, end)) in runs.iter().enumerate() {
                            if k == usize::from(runs[start].1) {
                                start = k;
                            }
                            assert_eq!(end, runs[start].1);
                            assert!(k < usize::from(end) && usize::from(end) <= runs.len());
                            let mut earlier = [0; 4];
                            for &(c, _) in &runs[start..k] {
                                insert(&mut earlier, c);
                            }
                            let words = lines.between(na, b).len();
                            assert_eq!(lines.between(na, b), &earlier[..words], "{kind:?} {a} {b}");
                        }
                        let listed = lines.targets(kind, na);
                        for &b in &squares {
                            let nb = lines.number(b);
                            let natural = reaches_naturally(kind, a, b);
                            assert_eq!(lines.reaches(kind, na, nb), natural, "{kind:?} {a} {b}");
                            assert_eq!(listed.contains(&nb), natural, "{kind:?} {a} {b}");
                        }
                    }
                    for s in [Side::White, Side::Black] {
                        let alone = Position::new(board, s, [(a, (s, Piece::Pawn))], None).unwrap();
                        for &b in &squares {
                            let nb = lines.number(b);
                            let attacks = pawn_attacks(s, a, b);
                            assert_eq!(lines.pawn_attacks(s, na, nb), attacks, "{s:?} {a} {b}");
                            assert_eq!(lines.pawn_attack_targets(s, na).contains(&nb), attacks);
                            assert_eq!(
                                lines.pawn_advances(s, na).contains(&nb),
                                pawn_advance(&alone, a, b),
                                "{s:?} {a} {b}"
                            );
                            assert_eq!(
                                lines.pawn_double_advances(s, na).contains(&nb),
                                pawn_double_advance(&alone, a, b),
                                "{s:?} {a} {b}"
                            );
                            assert_eq!(
                                lines.pawn_double_origins(s, nb).contains(&na),
                                pawn_double_advance(&alone, a, b),
                                "{s:?} {a} {b}"
                            );
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
