//! Index scheme 1, written again from its description for the checker: where a position's value
//! sits in a table file.
//!
//! Owns: [`Scheme`], the board's [`symmetries`].
//! Must never: borrow the engine's index. If the two disagree, positions read the wrong entry
//! and the checker fails — which is the point of writing it twice.
//!
//! The description (`retro-format`, index scheme 1), restated for pawnless material:
//! * squares are numbered `rank × files + file`;
//! * the symmetries are the board's: the 8 of a square board (identity, mirror files, mirror
//!   ranks, rotation by 180°, the two diagonal reflections, the two quarter turns), or the first
//!   4 of another;
//! * men are listed White's king, Black's king, White's queens, rooks, bishops, knights, then
//!   Black's; a position's *key* is the list of their square numbers, identical men in
//!   increasing order; its canonical image is the image with the least key;
//! * king pairs: pairs of square numbers (White king, Black king), not equal nor adjoining,
//!   that are the least of their images, numbered in increasing order;
//! * `index = pair number × inner + digits`, one mixed-radix digit per group of identical men,
//!   each the combinatorial rank `Σ C(dᵢ, i+1)` of the group's squares `d₀ < d₁ < …`, with radix
//!   `C(squares, group size)`, the last group least significant.

use crate::men::Men;
use retro_rules::laws::king_attacks;
use retro_rules::{Board, Man, Square};
use std::collections::HashMap;

/// The most men a category may have.
pub const MAX_MEN: usize = 8;

type Key = [u32; MAX_MEN];

/// A symmetry of the board, as a map on squares.
pub type Symmetry = Box<dyn Fn(Square) -> Square + Send + Sync>;

/// The symmetries of `board`: eight for a square board, four otherwise.
pub fn symmetries(board: Board) -> Vec<Symmetry> {
    let (lf, lr) = (board.files() - 1, board.ranks() - 1);
    let mut all: Vec<Symmetry> = vec![
        Box::new(|s| s),
        Box::new(move |s: Square| Square::new(lf - s.file, s.rank)),
        Box::new(move |s: Square| Square::new(s.file, lr - s.rank)),
        Box::new(move |s: Square| Square::new(lf - s.file, lr - s.rank)),
    ];
    if board.is_square() {
        all.push(Box::new(|s: Square| Square::new(s.rank, s.file)));
        all.push(Box::new(move |s: Square| {
            Square::new(lr - s.rank, lf - s.file)
        }));
        all.push(Box::new(move |s: Square| Square::new(lr - s.rank, s.file)));
        all.push(Box::new(move |s: Square| Square::new(s.rank, lf - s.file)));
    }
    all
}

/// Where the positions of one category sit in its table.
pub struct Scheme {
    board: Board,
    men: Vec<Man>,
    /// (first man, number of men) of each group of identical men after the kings.
    groups: Vec<(usize, usize)>,
    symmetries: Vec<Symmetry>,
    pair_number: HashMap<(u32, u32), u64>,
    pairs: Vec<(u32, u32)>,
    inner: u64,
}

fn binomial(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

impl Scheme {
    /// The scheme of `men` (pawnless) on `board`.
    pub fn new(board: Board, men: &Men) -> Scheme {
        let listed = men.listed();
        let mut groups: Vec<(usize, usize)> = Vec::new();
        for i in 2..listed.len() {
            match groups.last_mut() {
                Some((start, count)) if listed[*start] == listed[i] => *count += 1,
                _ => groups.push((i, 1)),
            }
        }
        let symmetries = symmetries(board);
        let squares: Vec<Square> = board.squares().collect();
        let number = |s: Square| u32::from(s.rank) * u32::from(board.files()) + u32::from(s.file);
        let mut pairs = Vec::new();
        for &wk in &squares {
            for &bk in &squares {
                if wk == bk || king_attacks(wk, bk) {
                    continue;
                }
                let least = symmetries
                    .iter()
                    .map(|g| (number(g(wk)), number(g(bk))))
                    .min()
                    .expect("the identity");
                if least == (number(wk), number(bk)) {
                    pairs.push(least);
                }
            }
        }
        pairs.sort_unstable();
        let pair_number = pairs
            .iter()
            .enumerate()
            .map(|(i, &p)| (p, i as u64))
            .collect();
        let n = squares.len() as u64;
        let inner = groups
            .iter()
            .map(|&(_, count)| binomial(n, count as u64))
            .product();
        Scheme {
            board,
            men: listed,
            groups,
            symmetries,
            pair_number,
            pairs,
            inner,
        }
    }

    /// The number of entries per side to move.
    pub fn size(&self) -> u64 {
        self.pairs.len() as u64 * self.inner
    }

    /// The canonical king pairs, as square numbers.
    pub fn pairs(&self) -> &[(u32, u32)] {
        &self.pairs
    }

    fn number(&self, s: Square) -> u32 {
        u32::from(s.rank) * u32::from(self.board.files()) + u32::from(s.file)
    }

    /// The square of number `n`.
    pub fn square(&self, n: u32) -> Square {
        let files = u32::from(self.board.files());
        Square::new((n % files) as u8, (n / files) as u8)
    }

    /// The key of a placement: square numbers in the listed order, identical men increasing.
    fn key(&self, squares: &[Square]) -> Key {
        let mut key = [u32::MAX; MAX_MEN];
        for (k, &s) in key.iter_mut().zip(squares) {
            *k = self.number(s);
        }
        for &(start, count) in &self.groups {
            key[start..start + count].sort_unstable();
        }
        key
    }

    /// The key of the image of a placement under symmetry `g`.
    fn image_key(&self, g: &Symmetry, squares: &[Square]) -> Key {
        let mut image = [Square::new(0, 0); MAX_MEN];
        for (i, &s) in image.iter_mut().zip(squares) {
            *i = g(s);
        }
        self.key(&image[..squares.len()])
    }

    /// The squares of `men` (as listed by `Men::listed`) in a position with exactly these men,
    /// or `None` if the position has other men.
    pub fn placement(&self, position_men: &[(Square, Man)]) -> Option<[Square; MAX_MEN]> {
        if position_men.len() != self.men.len() || self.men.len() > MAX_MEN {
            return None;
        }
        let mut squares = [Square::new(0, 0); MAX_MEN];
        let mut used = [false; MAX_MEN];
        for (slot, man) in squares.iter_mut().zip(&self.men) {
            let at = (0..position_men.len()).find(|&i| !used[i] && position_men[i].1 == *man)?;
            used[at] = true;
            *slot = position_men[at].0;
        }
        Some(squares)
    }

    /// The index of the placement `squares` (in the listed order), or `None` if its kings stand
    /// on the same or adjoining squares.
    pub fn index(&self, squares: &[Square]) -> Option<u64> {
        let key = self
            .symmetries
            .iter()
            .map(|g| self.image_key(g, squares))
            .min()
            .expect("the identity");
        self.index_of_key(&key[..squares.len()])
    }

    /// Whether the placement is its own canonical image.
    pub fn is_canonical(&self, squares: &[Square]) -> bool {
        let own = self.key(squares);
        self.symmetries
            .iter()
            .all(|g| self.image_key(g, squares) >= own)
    }

    fn index_of_key(&self, key: &[u32]) -> Option<u64> {
        let pair = *self.pair_number.get(&(key[0], key[1]))?;
        let n = self.board.square_count() as u64;
        let mut digits = 0u64;
        for &(start, count) in &self.groups {
            let rank: u64 = key[start..start + count]
                .iter()
                .enumerate()
                .map(|(i, &d)| binomial(u64::from(d), i as u64 + 1))
                .sum();
            digits = digits * binomial(n, count as u64) + rank;
        }
        Some(pair * self.inner + digits)
    }

    /// Calls `visit` with every placement whose kings form a canonical pair, men of a group on
    /// increasing squares, all on distinct squares (in the listed order).
    pub fn for_each_placement(&self, pair: (u32, u32), mut visit: impl FnMut(&[Square])) {
        let mut squares = vec![self.square(pair.0), self.square(pair.1)];
        self.place(&mut squares, &mut visit);
    }

    fn place(&self, squares: &mut Vec<Square>, visit: &mut dyn FnMut(&[Square])) {
        let next = squares.len();
        if next == self.men.len() {
            visit(squares);
            return;
        }
        let same_as_previous = next > 2 && self.men[next] == self.men[next - 1];
        let start = if same_as_previous {
            self.number(squares[next - 1]) + 1
        } else {
            0
        };
        for n in start..self.board.square_count() as u32 {
            let sq = self.square(n);
            if squares.contains(&sq) {
                continue;
            }
            squares.push(sq);
            self.place(squares, visit);
            squares.pop();
        }
    }

    /// The listed men.
    pub fn men(&self) -> &[Man] {
        &self.men
    }
}
