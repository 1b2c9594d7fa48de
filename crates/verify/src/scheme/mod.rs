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
//!
//! With pawns (listed after the other men of their side, Q R B N P):
//! * the symmetries are the identity and the file mirror only;
//! * a pawn's square counts among the squares off the end ranks, `dᵢ = number − files`, and its
//!   group's radix is `C(files × (ranks − 2), group size)`;
//! * the canonical image of a position with an en-passant target is the least (key, target)
//!   pair, and `index = ep code × pairs × inner + (the index above)`, where the code is 0
//!   without a target and otherwise `1 +` the place within its group of the pawn that has just
//!   double-stepped; the table has `1 +` (the most pawns of either side) codes when both sides
//!   have pawns, and the one code 0 otherwise (no en-passant capture is then possible).
//!
//! # Looking up many positions
//!
//! The checker looks up every move of every position, so the same definition is also evaluated
//! on square numbers ([`Scheme::index_of_numbers`]) with the symmetries tabulated (each table
//! made by applying the symmetry's function to every square) and one shortcut: the least key
//! only needs the symmetries that take the king pair to its least image. A key lists the
//! White king's and the Black king's squares first, and keys are compared lexicographically, so
//! a symmetry giving a larger king pair gives a larger key; the minimum over all symmetries is
//! therefore the minimum over those that minimise the king pair (the *minimisers*, kept for
//! every pair of squares). When a man other than a king moves, the king pair stays; if the
//! identity is its only minimiser, the least keys before and after are the placements' own
//! numbers, and the indices differ only in the moved man's group digit. When a king moves to
//! a pair whose only minimiser is the identity, the other men's digits stay and only the pair's
//! number changes ([`Scheme::index_after_move`]). The tests compare every form with the
//! definition on whole categories.

use crate::men::Men;
use retro_rules::laws::king_attacks;
use retro_rules::{Board, Man, Piece, Side, Square};

/// The most men a category may have.
pub const MAX_MEN: usize = 8;

type Key = [u32; MAX_MEN];

/// The symmetries (by number) that take one pair of squares to its least image.
#[derive(Clone, Copy, Default)]
struct Minimisers {
    list: [u8; 8],
    len: u8,
}

impl Minimisers {
    fn as_slice(&self) -> &[u8] {
        &self.list[..usize::from(self.len)]
    }
}

/// How the index of a lane's placements depends on the last man's square `x`
/// ([`Scheme::lane_digits`]): the index is a base plus the digit [`LaneDigits::get`] gives.
// Made once per move walked and kept on the stack: a box would cost an allocation each time.
#[allow(clippy::large_enum_variant)]
pub enum LaneDigits<'a> {
    /// The digit is `x` itself: the positions of the lane are consecutive entries.
    Own,
    /// The digit is the image of `x` under the lane's symmetry.
    Image(&'a [u32]),
    /// The digit is read from a table by `x` (a group of several identical men).
    Ranks([u32; 64]),
}

impl LaneDigits<'_> {
    /// The digit of the placement with the last man on square `x`.
    #[inline]
    pub fn get(&self, x: u32) -> usize {
        match self {
            LaneDigits::Own => x as usize,
            LaneDigits::Image(map) => map[x as usize] as usize,
            LaneDigits::Ranks(digits) => digits[x as usize] as usize,
        }
    }
}

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
    count: usize,
    men: Vec<Man>,
    /// Every symmetry as a table of square numbers.
    maps: Vec<Vec<u32>>,
    /// By `wk × count + bk`: the pair's number, or `u64::MAX` for no canonical pair.
    pair_table: Vec<u64>,
    /// By `wk × count + bk`: the symmetries taking the pair to its least image.
    minimisers: Vec<Minimisers>,
    /// `C(n, k)` for `n ≤ count`, `k ≤ MAX_MEN`.
    binomials: Vec<[u64; MAX_MEN + 1]>,
    /// (first man, number of men) of each group of identical men after the kings.
    groups: Vec<(usize, usize)>,
    /// Whether each group is of pawns, whose digits count the squares off the end ranks only.
    pawn_group: Vec<bool>,
    /// Each group's radix: C(its domain, its size).
    radices: Vec<u64>,
    /// The en-passant codes: 1 + the most pawns either side has when both have pawns, else 1.
    ep_codes: u64,
    /// For each listed man: its group (none for the kings), and what one unit of each group's
    /// digit adds to the index (the product of the radices of the later groups).
    group_of: [Option<usize>; MAX_MEN],
    weights: Vec<u64>,
    symmetries: Vec<Symmetry>,
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
        let mut symmetries = symmetries(board);
        if men.has_pawns() {
            // Pawns move up the board: only the identity and the file mirror keep the rules.
            symmetries.truncate(2);
        }
        let pawn_group: Vec<bool> = groups
            .iter()
            .map(|&(start, _)| listed[start].1 == Piece::Pawn)
            .collect();
        let pawn_squares = u64::from(board.files()) * u64::from(board.ranks().saturating_sub(2));
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
        let n = squares.len() as u64;
        let domain = |g: usize| if pawn_group[g] { pawn_squares } else { n };
        let inner = groups
            .iter()
            .enumerate()
            .map(|(g, &(_, count))| binomial(domain(g), count as u64))
            .product();
        let radices = groups
            .iter()
            .enumerate()
            .map(|(g, &(_, count))| binomial(domain(g), count as u64))
            .collect();
        let pawns = |side: Side| listed.iter().filter(|&&m| m == (side, Piece::Pawn)).count();
        // An en-passant capture needs a pawn of each side; without, no position has a target.
        let ep_codes = if pawns(Side::White) > 0 && pawns(Side::Black) > 0 {
            1 + pawns(Side::White).max(pawns(Side::Black)) as u64
        } else {
            1
        };
        let count = squares.len();
        let maps: Vec<Vec<u32>> = symmetries
            .iter()
            .map(|g| squares.iter().map(|&sq| number(g(sq))).collect())
            .collect();
        let mut pair_table = vec![u64::MAX; count * count];
        for (i, &(wk, bk)) in pairs.iter().enumerate() {
            pair_table[wk as usize * count + bk as usize] = i as u64;
        }
        let mut minimisers = vec![Minimisers::default(); count * count];
        for wk in 0..count {
            for bk in 0..count {
                let image = |g: &Vec<u32>| (g[wk], g[bk]);
                let least = maps.iter().map(image).min().expect("the identity");
                let entry = &mut minimisers[wk * count + bk];
                for g in (0..maps.len()).filter(|&g| image(&maps[g]) == least) {
                    entry.list[usize::from(entry.len)] = g as u8;
                    entry.len += 1;
                }
            }
        }
        let binomials = (0..=n)
            .map(|m| std::array::from_fn(|k| binomial(m, k as u64)))
            .collect();
        let mut group_of = [None; MAX_MEN];
        let mut weights = vec![1u64; groups.len()];
        for (g, &(start, size)) in groups.iter().enumerate().rev() {
            group_of[start..start + size].fill(Some(g));
            if g > 0 {
                weights[g - 1] = weights[g] * binomial(domain(g), size as u64);
            }
        }
        Scheme {
            board,
            count,
            maps,
            pair_table,
            minimisers,
            binomials,
            men: listed,
            groups,
            pawn_group,
            radices,
            ep_codes,
            group_of,
            weights,
            symmetries,
            pairs,
            inner,
        }
    }

    /// The number of entries per side to move.
    pub fn size(&self) -> u64 {
        self.pairs.len() as u64 * self.inner * self.ep_codes
    }

    /// Whether the category has pawns (then only the identity and the file mirror are
    /// symmetries, and with pawns of both sides positions may have an en-passant target).
    pub fn has_pawns(&self) -> bool {
        self.pawn_group.contains(&true)
    }

    /// The number of a square within group `g`'s domain: its own number, or for a pawn its
    /// number among the squares off the end ranks (`None` on an end rank).
    #[inline]
    fn domain_number(&self, g: usize, n: u32) -> Option<u64> {
        if !self.pawn_group[g] {
            return Some(u64::from(n));
        }
        let files = u32::from(self.board.files());
        let rank = n / files;
        (rank > 0 && rank + 1 < u32::from(self.board.ranks())).then(|| u64::from(n - files))
    }

    /// The radix of group `g`'s digit: C(its domain, its size).
    #[inline]
    fn radix(&self, g: usize) -> u64 {
        self.radices[g]
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
        let pair = self.pair_table[key[0] as usize * self.count + key[1] as usize];
        if pair == u64::MAX {
            return None;
        }
        let mut digits = 0u64;
        for (g, &(start, count)) in self.groups.iter().enumerate() {
            let mut rank = 0;
            for (i, &n) in key[start..start + count].iter().enumerate() {
                rank += binomial(self.domain_number(g, n)?, i as u64 + 1);
            }
            digits = digits * self.radix(g) + rank;
        }
        Some(pair * self.inner + digits)
    }

    /// The index of a position with the men on `squares` (in the listed order), `to_move` to
    /// move and the en-passant target `ep`: its canonical image is the image with the least
    /// key and then the least target (`None` before any square); the target is recorded as
    /// `1 +` the place, within its group in the canonical image, of the pawn that has just
    /// double-stepped (the side not to move's pawn one rank beyond the target), and the index
    /// is `that code × (pairs × inner) + index of the key`. `None` if the kings stand on the
    /// same or adjoining squares, a pawn on an end rank, or no such pawn is there.
    pub fn index_with_en_passant(
        &self,
        squares: &[Square],
        ep: Option<Square>,
        to_move: Side,
    ) -> Option<u64> {
        let number = |t: Square| self.number(t);
        let (key, target) = self
            .symmetries
            .iter()
            .map(|g| (self.image_key(g, squares), ep.map(|t| number(g(t)))))
            .min()
            .expect("the identity");
        let base = self.index_of_key(&key[..squares.len()])?;
        let Some(target) = target else {
            return Some(base);
        };
        let them = retro_rules::opponent(to_move);
        let files = u32::from(self.board.files());
        let pawn = match them {
            Side::White => target + files,
            Side::Black => target.checked_sub(files)?,
        };
        let place = self.men.iter().position(|&m| m == (them, Piece::Pawn))?;
        let j = key[place..squares.len()]
            .iter()
            .zip(&self.men[place..])
            .take_while(|(_, &m)| m == (them, Piece::Pawn))
            .position(|(&n, _)| n == pawn)?;
        // Without pawns of both sides no target is legal, and the table has no code for one.
        let code = 1 + j as u64;
        (code < self.ep_codes).then(|| code * self.pairs.len() as u64 * self.inner + base)
    }

    /// Whether a placement that is its own canonical image (identical men in increasing order)
    /// with the en-passant target `ep` is the canonical image of its orbit: no symmetry that
    /// keeps the key gives a smaller target.
    pub fn is_canonical_target(&self, squares: &[Square], ep: Square) -> bool {
        let own = self.key(squares);
        self.symmetries
            .iter()
            .all(|g| self.image_key(g, squares) != own || self.number(g(ep)) >= self.number(ep))
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
        let range = self.squares_of(next);
        let start = if same_as_previous {
            self.number(squares[next - 1]) + 1
        } else {
            range.start
        };
        for n in start..range.end {
            let sq = self.square(n);
            if squares.contains(&sq) {
                continue;
            }
            squares.push(sq);
            self.place(squares, visit);
            squares.pop();
        }
    }

    /// The square numbers listed man `i` may stand on: every square, or for a pawn those off
    /// the end ranks.
    fn squares_of(&self, i: usize) -> std::ops::Range<u32> {
        let count = self.count as u32;
        match self.group_of[i] {
            Some(g) if self.pawn_group[g] => {
                let files = u32::from(self.board.files());
                files.min(count)..count.saturating_sub(files)
            }
            _ => 0..count,
        }
    }

    /// The listed men.
    pub fn men(&self) -> &[Man] {
        &self.men
    }

    /// The key of the image under symmetry `g` of a placement given by square numbers.
    #[inline]
    fn image_key_of_numbers(&self, g: usize, numbers: &[u32]) -> Key {
        let mut key = [u32::MAX; MAX_MEN];
        if g == 0 {
            key[..numbers.len()].copy_from_slice(numbers);
        } else {
            let map = &self.maps[g];
            for (k, &n) in key.iter_mut().zip(numbers) {
                *k = map[n as usize];
            }
        }
        for &(start, count) in &self.groups {
            if count > 1 {
                key[start..start + count].sort_unstable();
            }
        }
        key
    }

    /// [`Scheme::index`] of a placement given by square numbers (in the listed order), using
    /// only the king pair's minimisers (see the module documentation).
    #[inline]
    pub fn index_of_numbers(&self, numbers: &[u32]) -> Option<u64> {
        let pair = numbers[0] as usize * self.count + numbers[1] as usize;
        let key = match self.minimisers[pair].as_slice() {
            [g] => self.image_key_of_numbers(usize::from(*g), numbers),
            several => several
                .iter()
                .map(|&g| self.image_key_of_numbers(usize::from(g), numbers))
                .min()?,
        };
        self.index_of_least_key(&key)
    }

    /// [`Scheme::index_of_numbers`] of a placement that is its own canonical image with
    /// identical men in increasing order (as [`Scheme::for_each_placement_numbers`] lists
    /// them), whose key is therefore its own numbers.
    #[inline]
    pub fn index_of_canonical(&self, numbers: &[u32]) -> Option<u64> {
        let mut key = [u32::MAX; MAX_MEN];
        key[..numbers.len()].copy_from_slice(numbers);
        self.index_of_least_key(&key)
    }

    /// The index of a placement whose least key is `key`.
    #[inline]
    fn index_of_least_key(&self, key: &Key) -> Option<u64> {
        let pair = self.pair_table[key[0] as usize * self.count + key[1] as usize];
        if pair == u64::MAX {
            return None;
        }
        let mut digits = 0u64;
        for (g, &(start, count)) in self.groups.iter().enumerate() {
            let rank = if self.pawn_group[g] {
                let mut rank = 0;
                for (i, &n) in key[start..start + count].iter().enumerate() {
                    rank += self.binomials[self.domain_number(g, n)? as usize][i + 1];
                }
                rank
            } else {
                self.rank(&key[start..start + count])
            };
            digits = digits * self.radix(g) + rank;
        }
        Some(pair * self.inner + digits)
    }

    /// The combinatorial rank `Σ C(dᵢ, i+1)` of a group's squares `d₀ < d₁ < …`.
    #[inline]
    fn rank(&self, sorted: &[u32]) -> u64 {
        sorted
            .iter()
            .enumerate()
            .map(|(i, &d)| self.binomials[d as usize][i + 1])
            .sum()
    }

    /// The rank of the squares of group `g` in `numbers`, sorted first.
    #[inline(always)]
    fn group_rank(&self, g: usize, numbers: &[u32]) -> u64 {
        let (start, count) = self.groups[g];
        if count == 1 {
            return u64::from(numbers[start]);
        }
        let mut squares = [0u32; MAX_MEN];
        squares[..count].copy_from_slice(&numbers[start..start + count]);
        squares[..count].sort_unstable();
        self.rank(&squares[..count])
    }

    /// [`Scheme::index_of_numbers`] of `after`, which is the placement `before` (canonical,
    /// identical men in increasing order, at `index`, no en-passant target) with the man `man`
    /// on another square; `None` when this shortcut does not apply and the index must be found
    /// the general way.
    ///
    /// * A man other than a king moves (not a pawn): the kings stand where they stood, so the
    ///   same symmetries minimise the king pair (see the module documentation). When the
    ///   identity is the only one, the least key of each placement is its own numbers with each
    ///   group sorted; the two keys then differ only in the moved man's group, and so do the two
    ///   indices' digits: `index(after) = index + (rank of the group in after − rank in before)
    ///   × the group's weight`.
    /// * A king moves: the other men keep their squares. When the identity is the only
    ///   minimiser of the new king pair, the least key of `after` is its own numbers, groups
    ///   sorted, and its groups are those of `before`, whose least key was its own numbers too
    ///   (it is canonical): the digits are the same, and only the pair's number changes:
    ///   `index(after) = pair(after) × inner + index mod inner`.
    #[inline]
    pub fn index_after_move(
        &self,
        index: u64,
        before: &[u32],
        after: &[u32],
        man: usize,
    ) -> Option<u64> {
        let Some(g) = self.group_of[man] else {
            let pair = after[0] as usize * self.count + after[1] as usize;
            if self.minimisers[pair].as_slice() != [0] {
                return None;
            }
            let number = self.pair_table[pair];
            return (number != u64::MAX).then(|| number * self.inner + index % self.inner);
        };
        let pair = before[0] as usize * self.count + before[1] as usize;
        if self.minimisers[pair].len != 1 || self.pawn_group[g] {
            return None;
        }
        let old = self.group_rank(g, before);
        let new = self.group_rank(g, after);
        Some((index + new * self.weights[g]) - old * self.weights[g])
    }

    /// [`Scheme::is_canonical`] of a placement given by square numbers whose kings form a
    /// canonical pair (so the identity is among the minimisers).
    #[inline]
    pub fn is_canonical_numbers(&self, numbers: &[u32]) -> bool {
        let pair = numbers[0] as usize * self.count + numbers[1] as usize;
        let own = self.image_key_of_numbers(0, numbers);
        self.minimisers[pair]
            .as_slice()
            .iter()
            .all(|&g| self.image_key_of_numbers(usize::from(g), numbers) >= own)
    }

    /// Calls `visit` with the square numbers of every placement of
    /// [`Scheme::for_each_placement`], in the same order.
    pub fn for_each_placement_numbers(&self, pair: (u32, u32), mut visit: impl FnMut(&[u32])) {
        let mut numbers = [0u32; MAX_MEN];
        numbers[0] = pair.0;
        numbers[1] = pair.1;
        self.place_numbers(&mut numbers, 2, self.men.len(), &mut visit);
    }

    /// Whether the category's last listed man is a piece other than a king, on a board of at
    /// most 64 squares, and no position has an en-passant target (pawns of one side at most):
    /// the last group of identical men ends with it, its digit is the least significant
    /// (weight 1), and the positions that differ only in its square are read from one table of
    /// digits ([`Scheme::lane_digits`]).
    pub fn has_lanes(&self) -> bool {
        let last = self.men.len() - 1;
        let Some(g) = self.group_of[last] else {
            return false;
        };
        self.count <= 64 && !self.pawn_group[g] && self.ep_codes == 1
    }

    /// Calls `visit` with the square numbers of the men before the last of every placement of
    /// [`Scheme::for_each_placement_numbers`] (each once, in the same order): with the last man
    /// on each square from [`Scheme::lane_start`] on that they leave free, those are its
    /// placements ([`Scheme::has_lanes`]).
    pub fn for_each_lane_prefix(&self, pair: (u32, u32), mut visit: impl FnMut(&[u32])) {
        let mut numbers = [0u32; MAX_MEN];
        numbers[0] = pair.0;
        numbers[1] = pair.1;
        self.place_numbers(&mut numbers, 2, self.men.len() - 1, &mut visit);
    }

    /// The least square the last man takes after `prefix` in the order of
    /// [`Scheme::for_each_placement_numbers`]: one past the man before it when they are
    /// identical (men of a group on increasing squares), else 0.
    #[inline]
    pub fn lane_start(&self, prefix: &[u32]) -> u32 {
        let last = prefix.len();
        if last > 2 && self.men[last] == self.men[last - 1] {
            prefix[last - 1] + 1
        } else {
            0
        }
    }

    /// The last group of identical men (first man, number of men): the last man's group in a
    /// category with lanes.
    #[inline]
    pub fn last_group(&self) -> (usize, usize) {
        *self
            .groups
            .last()
            .expect("a category with lanes has a group")
    }

    /// The number of digits of the last group: what a lane's digits stay below.
    #[inline]
    pub fn lane_radix(&self) -> u64 {
        self.radices[self.groups.len() - 1]
    }

    /// For a category with lanes ([`Scheme::has_lanes`]) and `prefix`, the squares of the men
    /// before the last (distinct, kings neither equal nor adjoining, a group's men in any
    /// order): the symmetry `g` whose image gives every placement of the lane its least key,
    /// whatever the last man's square; `None` when that depends on the square.
    ///
    /// Only the king pair's minimisers can give the least key (see the module documentation).
    /// When one alone minimises the pair, it is `g`. Otherwise the keys under the minimisers
    /// are compared on the men before the last group (their entries come first in a key, and
    /// do not depend on the last man): when one minimiser alone gives the least of those, its
    /// key is less than the others' whatever the last group's entries, and it is `g`; when
    /// several tie there, the last man's square decides, and the answer is `None`. For a lane
    /// of canonical placements `g` is the identity; a lane whose `g` is another symmetry has
    /// none.
    #[inline]
    pub fn lane_symmetry(&self, prefix: &[u32]) -> Option<u8> {
        let pair = prefix[0] as usize * self.count + prefix[1] as usize;
        let several = match self.minimisers[pair].as_slice() {
            &[g] => return Some(g),
            several => several,
        };
        let (start, _) = self.last_group();
        let mut least: Option<(Key, u8)> = None;
        let mut tied = false;
        for &g in several {
            let key = self.image_key_of_numbers(usize::from(g), &prefix[..start]);
            match &least {
                Some((k, _)) if key == *k => tied = true,
                Some((k, _)) if key > *k => {}
                _ => {
                    least = Some((key, g));
                    tied = false;
                }
            }
        }
        least.filter(|_| !tied).map(|(_, g)| g)
    }

    /// With `g` the lane's symmetry ([`Scheme::lane_symmetry`]): the index `b` such that the
    /// placement with the last man on a free square `x` has index `b + d[x]`, `d` being
    /// [`Scheme::lane_digits`].
    ///
    /// The least key of such a placement is its image under `g`, groups sorted (see the module
    /// documentation). Its digits other than the last group's do not depend on `x`; the last
    /// group's digit is the least significant, of weight 1. So `b` is the index of that key
    /// with the last group's digit 0 (its squares replaced by `0, 1, …`, of rank 0).
    #[inline]
    pub fn lane_base(&self, prefix: &[u32], g: u8) -> u64 {
        // The image's key, groups sorted; the last group's entries are then replaced.
        let mut key = self.image_key_of_numbers(usize::from(g), prefix);
        let (start, size) = self.last_group();
        for (i, k) in key[start..start + size].iter_mut().enumerate() {
            *k = i as u32;
        }
        self.index_of_least_key(&key)
            .expect("the kings of a lane stand apart")
    }

    /// With `g` the lane's symmetry: the last group's digit `d[x]` of the placement with the
    /// last man on each free square `x` (see [`Scheme::lane_base`]). For a last man alone in
    /// its group that is the image of `x`; otherwise the rank of the group's image, the
    /// images of its other men (`S`, sorted) with `y = g(x)` inserted: with `p` of them below
    /// `y`, `Σ_{i<p} C(sᵢ, i+1) + C(y, p+1) + Σ_{i≥p} C(sᵢ, i+2)`.
    pub fn lane_digits(&self, prefix: &[u32], g: u8) -> LaneDigits<'_> {
        let map = &self.maps[usize::from(g)];
        let (start, size) = self.last_group();
        if size == 1 {
            return if g == 0 {
                LaneDigits::Own
            } else {
                LaneDigits::Image(map)
            };
        }
        let mut others = [0u32; MAX_MEN];
        let others = &mut others[..size - 1];
        for (s, &n) in others.iter_mut().zip(&prefix[start..]) {
            *s = map[n as usize];
        }
        others.sort_unstable();
        // The ranks of the other men below and above `y`, for each number `p` below it.
        let c = |n: u32, k: usize| self.binomials[n as usize][k] as u32;
        let mut below = [0u32; MAX_MEN];
        let mut above = [0u32; MAX_MEN];
        for p in 0..size {
            below[p] = (0..p).map(|i| c(others[i], i + 1)).sum();
            above[p] = (p..size - 1).map(|i| c(others[i], i + 2)).sum();
        }
        let mut by_image = [0u32; 64];
        let mut p = 0;
        for y in 0..self.count as u32 {
            while p < size - 1 && others[p] < y {
                p += 1;
            }
            // A square of the other men: no placement puts the last man there.
            by_image[y as usize] = if p < size - 1 && others[p] == y {
                0
            } else {
                below[p] + c(y, p + 1) + above[p]
            };
        }
        let mut digits = [0u32; 64];
        for (x, d) in digits.iter_mut().enumerate().take(self.count) {
            *d = by_image[map[x] as usize];
        }
        LaneDigits::Ranks(digits)
    }

    /// For the placements `numbers` with listed man `man` on any square `x` (the other men's
    /// squares fixed, the kings apart): `(b, w, g)` such that the placement with `man` on `x`
    /// has index `b + w × g[x]`. `None` when the king pair has several minimisers or is not
    /// apart, or `man` is a king, a pawn, or one of several identical men.
    ///
    /// With `g` the pair's one minimiser, the least key is the image under `g`, groups sorted
    /// (see the module documentation); `man`'s group is `man` alone, so its entry of the key
    /// is `g[x]` and the other entries do not depend on `x`. Of the index's digits only that
    /// group's, `g[x]` itself (its rank `C(g[x], 1)`), depends on `x`, with weight `w`: so
    /// `b` is the index of the key with that entry 0.
    pub fn man_lane(&self, numbers: &[u32], man: usize) -> Option<(u64, u64, &[u32])> {
        let group = self.group_of[man]?;
        if self.pawn_group[group] || self.groups[group].1 != 1 {
            return None;
        }
        let pair = numbers[0] as usize * self.count + numbers[1] as usize;
        let &[g] = self.minimisers[pair].as_slice() else {
            return None;
        };
        let mut key = self.image_key_of_numbers(usize::from(g), numbers);
        key[man] = 0;
        let base = self.index_of_least_key(&key)?;
        Some((base, self.weights[group], &self.maps[usize::from(g)]))
    }

    /// Whether the identity is the only symmetry that minimises the king pair of `numbers`
    /// (then every placement with that pair, groups sorted, is its own canonical image).
    #[cfg(test)]
    fn identity_only(&self, numbers: &[u32]) -> bool {
        self.minimisers[numbers[0] as usize * self.count + numbers[1] as usize].as_slice() == [0]
    }

    fn place_numbers(
        &self,
        numbers: &mut [u32; MAX_MEN],
        next: usize,
        end: usize,
        visit: &mut dyn FnMut(&[u32]),
    ) {
        if next == end {
            visit(&numbers[..next]);
            return;
        }
        let same_as_previous = next > 2 && self.men[next] == self.men[next - 1];
        let range = self.squares_of(next);
        let start = if same_as_previous {
            numbers[next - 1] + 1
        } else {
            range.start
        };
        for n in start..range.end {
            if numbers[..next].contains(&n) {
                continue;
            }
            numbers[next] = n;
            self.place_numbers(numbers, next + 1, end, visit);
        }
    }
}

#[cfg(test)]
mod tests;
