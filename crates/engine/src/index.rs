//! A dense index for the positions of one material on one board, with the board's symmetries
//! removed.
//!
//! Owns: [`Indexer`].
//! Must never: give two positions of one orbit different indices, or one index to two orbits.
//!
//! # Layout
//!
//! `index = ep_code × placements + kings × inner + men`, where
//! * `kings` numbers the pairs (White king, Black king) that are the least of their orbit under
//!   the symmetry group — kings on the same or adjoining squares are left out, as no such
//!   position is legal (462 pairs on 8×8 with the 8 symmetries of a square board);
//! * `men` is a mixed-radix number with one digit per group of identical men (in the order of
//!   `Material::men`), each digit the combinatorial rank `Σ C(dᵢ, i+1)` of the group's squares
//!   `d₀ < d₁ < …` within its domain: every square for a piece, the squares off the end ranks
//!   for a pawn; so a lone rook has 64 values on 8×8 and two rooks C(64, 2) = 2016;
//! * `ep_code` is 0 without an en-passant target, else 1 + the number of the pawn (within its
//!   group) that has just double-stepped (materials without pawns of both sides have no such
//!   digit: no en-passant capture is possible in them).
//!
//! The symmetry group is the board's (8 symmetries of a square board, 4 of another) for
//! pawnless material, and the left–right mirror when pawns are present. A position is indexed
//! through its canonical image: among the symmetries taking the kings to their least pair, the
//! one giving the least list of squares (then en-passant target). Kings moving keeps the other
//! men's digits unless the symmetry changes, so most un-moves stay close in memory.
//!
//! # Cost
//!
//! Not every index is a position: men on occupied squares, and images that are not canonical
//! (when the kings stand on a symmetry axis), are gaps, which `position` reports as `None`. The
//! stored tables spend one byte per index; `density` says how many indices are positions, e.g.
//! 462 × 64 = 29,568 indices for KRvK on 8×8, of which 28,056 are positions (94.9%), and
//! 462 × 64³ = 121,110,528 for five men (about 86% positions).

use crate::geometry::Geometry;
use crate::material::Material;
use crate::position::{Man, Position};
use crate::sqset::{Sq, SqSet};
use retro_rules::{opponent, Piece, Side};

/// The most men a material may have to be indexed.
pub const MAX_INDEXED_MEN: usize = 8;

const NO_PAIR: u32 = u32::MAX;

#[derive(Debug, Clone, Copy)]
struct KingPair {
    /// The number of the canonical pair of this pair's orbit, or `NO_PAIR`.
    index: u32,
    /// The symmetries (bits, in the order of `Indexer::symmetries`) taking this pair to it.
    symmetries: u8,
}

#[derive(Debug, Clone)]
struct Group {
    side: Side,
    piece: Piece,
    /// The position of its first man in the material's list of men.
    start: usize,
    count: usize,
    /// The number of squares it ranges over.
    domain: usize,
    /// C(domain, count).
    radix: u64,
}

/// A group of identical men as the index numbers them: see [`Indexer::group_fields`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupField {
    /// How many men.
    pub count: usize,
    /// How many squares they range over.
    pub domain: usize,
    /// The first of those squares.
    pub first: Sq,
    /// The men's kind.
    pub piece: Piece,
    /// C(domain, count): the values of the group's digit.
    pub radix: u64,
}

/// The index of the positions of one material on one board.
#[derive(Debug, Clone)]
pub struct Indexer {
    material: Material,
    men: Vec<(Side, Piece)>,
    groups: Vec<Group>,
    symmetries: Vec<usize>,
    pairs: Vec<(Sq, Sq)>,
    pair_of: Vec<KingPair>,
    /// For every pair of squares, the symmetries (bits) fixing both.
    pair_fixers: Vec<u8>,
    squares: usize,
    files: u8,
    inner: u64,
    placements: u64,
    ep_codes: u64,
    binomial: Vec<[u64; MAX_INDEXED_MEN + 1]>,
}

/// A material the index cannot handle.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IndexError {
    /// Too many men.
    #[error("{material} has {men} men; the index handles at most {MAX_INDEXED_MEN}")]
    TooManyMen {
        /// The material.
        material: String,
        /// How many men it has.
        men: usize,
    },
    /// More positions than a 64-bit index can count.
    #[error("{material} on {board} has more than 2^64 indices")]
    TooLarge {
        /// The material.
        material: String,
        /// The board.
        board: String,
    },
}

impl Indexer {
    /// The index of `material` on `geo`'s board.
    pub fn new(geo: &Geometry, material: Material) -> Result<Indexer, IndexError> {
        let men = material.men();
        if men.len() > MAX_INDEXED_MEN {
            return Err(IndexError::TooManyMen {
                material: material.to_string(),
                men: men.len(),
            });
        }
        let squares = geo.square_count();
        let pawn_squares = usize::from(geo.files()) * usize::from(geo.ranks().saturating_sub(2));
        let binomial: Vec<[u64; MAX_INDEXED_MEN + 1]> = (0..=squares)
            .map(|n| std::array::from_fn(|k| binomial(n as u64, k as u64)))
            .collect();
        let mut groups: Vec<Group> = Vec::new();
        for (i, &(side, piece)) in men.iter().enumerate().skip(2) {
            match groups.last_mut() {
                Some(g) if g.side == side && g.piece == piece => g.count += 1,
                _ => groups.push(Group {
                    side,
                    piece,
                    start: i,
                    count: 1,
                    domain: if piece == Piece::Pawn {
                        pawn_squares
                    } else {
                        squares
                    },
                    radix: 0,
                }),
            }
        }
        for g in &mut groups {
            g.radix = binomial[g.domain][g.count];
        }
        let symmetries: Vec<usize> = if material.has_pawns() {
            vec![0, 1]
        } else {
            (0..geo.symmetries().len()).collect()
        };
        let (pairs, pair_of) = king_pairs(geo, &symmetries);
        let squares_count = geo.square_count();
        let mut pair_fixers = vec![0u8; squares_count * squares_count];
        for a in 0..squares_count {
            for b in 0..squares_count {
                for (bit, &s) in symmetries.iter().enumerate() {
                    let sym = &geo.symmetries()[s];
                    if sym.apply(a as Sq) == a as Sq && sym.apply(b as Sq) == b as Sq {
                        pair_fixers[a * squares_count + b] |= 1 << bit;
                    }
                }
            }
        }
        let too_large = || IndexError::TooLarge {
            material: material.to_string(),
            board: geo.board().to_string(),
        };
        let inner = groups
            .iter()
            .try_fold(1u64, |acc, g| acc.checked_mul(g.radix))
            .ok_or_else(too_large)?;
        let placements = inner
            .checked_mul(pairs.len() as u64)
            .ok_or_else(too_large)?;
        let pawns = |s: Side| material.count(s, Piece::Pawn) as u64;
        // An en-passant capture needs a pawn of each side: without, no position has a target.
        let ep_codes = if pawns(Side::White) > 0 && pawns(Side::Black) > 0 {
            1 + pawns(Side::White).max(pawns(Side::Black))
        } else {
            1
        };
        placements.checked_mul(ep_codes).ok_or_else(too_large)?;
        Ok(Indexer {
            material,
            men,
            groups,
            symmetries,
            pairs,
            pair_of,
            pair_fixers,
            squares,
            files: geo.files(),
            inner,
            placements,
            ep_codes,
            binomial,
        })
    }

    /// The material indexed.
    pub fn material(&self) -> Material {
        self.material
    }

    /// The number of indices, `0..size()`.
    pub fn size(&self) -> u64 {
        self.placements * self.ep_codes
    }

    /// The number of indices without an en-passant target (all of them, for pawnless material).
    pub fn placements(&self) -> u64 {
        self.placements
    }

    /// The radices of the index's digits, most significant first: the en-passant code (where
    /// the material has one), the king pair, then each group of identical men (`C(domain,
    /// count)`). Their product is [`Indexer::size`]; a packed table may order its entries by
    /// any ranking of them.
    pub fn digit_radices(&self) -> Vec<u64> {
        let mut radices = Vec::with_capacity(self.groups.len() + 2);
        if self.ep_codes > 1 {
            radices.push(self.ep_codes);
        }
        radices.push(self.pairs.len() as u64);
        radices.extend(self.groups.iter().map(|g| g.radix));
        radices
    }

    /// The number of canonical king pairs.
    pub fn king_pairs(&self) -> usize {
        self.pairs.len()
    }

    /// The number of symmetries removed.
    pub fn symmetry_count(&self) -> usize {
        self.symmetries.len()
    }

    /// The board symmetries the index removes, as indices into `Geometry::symmetries`.
    pub fn symmetries(&self) -> &[usize] {
        &self.symmetries
    }

    fn pawn_domain(&self, sq: Sq) -> usize {
        usize::from(sq) - usize::from(self.files)
    }

    fn pawn_square(&self, d: usize) -> Sq {
        (d + usize::from(self.files)) as Sq
    }

    /// The index of `p`, or `None` if `p` does not have this material or cannot be legal because
    /// its kings touch or a pawn stands on an end rank (or its en-passant target is inconsistent).
    pub fn index<const N: usize>(&self, geo: &Geometry, p: &Position<N>) -> Option<u64> {
        let men = p.men();
        if men.len() != self.men.len()
            || men
                .iter()
                .zip(&self.men)
                .any(|(m, k)| (m.side, m.piece) != *k)
        {
            return None;
        }
        let pair = self.pair_of[usize::from(men[0].sq) * self.squares + usize::from(men[1].sq)];
        if pair.index == NO_PAIR {
            return None;
        }
        let mut best: Option<([Sq; MAX_INDEXED_MEN], u16)> = None;
        if pair.symmetries == 1 && self.symmetries[0] == 0 {
            // Only the identity takes the kings to their least pair: the position is canonical.
            let mut squares = [0 as Sq; MAX_INDEXED_MEN];
            for (i, m) in men.iter().enumerate() {
                squares[i] = m.sq;
            }
            best = Some((squares, p.en_passant().map_or(0, |t| 1 + u16::from(t))));
        }
        let mut mask = if best.is_some() { 0 } else { pair.symmetries };
        while mask != 0 {
            let bit = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let symmetry = &geo.symmetries()[self.symmetries[bit]];
            let mut squares = [0 as Sq; MAX_INDEXED_MEN];
            for (i, m) in men.iter().enumerate() {
                squares[i] = symmetry.apply(m.sq);
            }
            for g in &self.groups {
                squares[g.start..g.start + g.count].sort_unstable();
            }
            let ep = p
                .en_passant()
                .map_or(0, |t| 1 + u16::from(symmetry.apply(t)));
            let candidate = (squares, ep);
            let n = men.len();
            if best.is_none_or(|b| (&candidate.0[2..n], candidate.1) < (&b.0[2..n], b.1)) {
                best = Some(candidate);
            }
        }
        let (squares, ep) = best?;
        let mut inner = 0u64;
        for g in &self.groups {
            let mut rank = 0u64;
            for (i, &sq) in squares[g.start..g.start + g.count].iter().enumerate() {
                let d = if g.piece == Piece::Pawn {
                    if !geo.pawn_may_stand(sq) {
                        return None;
                    }
                    self.pawn_domain(sq)
                } else {
                    usize::from(sq)
                };
                rank += self.binomial[d][i + 1];
            }
            inner = inner * g.radix + rank;
        }
        let ep_code = match ep {
            0 => 0,
            code => {
                let target = (code - 1) as Sq;
                let them = opponent(p.side_to_move());
                let pawn = geo.ahead(them, target, 1)?;
                let group = self
                    .groups
                    .iter()
                    .find(|g| g.side == them && g.piece == Piece::Pawn)?;
                let j = squares[group.start..group.start + group.count]
                    .iter()
                    .position(|&s| s == pawn)?;
                // Without pawns of both sides no target is legal, and there is no code for one.
                if !p.en_passant_consistent(geo, p.en_passant()?) || 1 + j as u64 >= self.ep_codes {
                    return None;
                }
                1 + j as u64
            }
        };
        Some(ep_code * self.placements + u64::from(pair.index) * self.inner + inner)
    }

    /// The canonical position with index `index` and `stm` to move, or `None` for a gap.
    pub fn position<const N: usize>(
        &self,
        geo: &Geometry,
        index: u64,
        stm: Side,
    ) -> Option<Position<N>> {
        if index >= self.size() {
            return None;
        }
        let ep_code = index / self.placements;
        let rest = index % self.placements;
        let (wk, bk) = self.pairs[(rest / self.inner) as usize];
        let mut inner = rest % self.inner;
        let mut men = [Man {
            side: Side::White,
            piece: Piece::King,
            sq: wk,
        }; MAX_INDEXED_MEN];
        men[1] = Man {
            side: Side::Black,
            piece: Piece::King,
            sq: bk,
        };
        let mut digits = [0u64; MAX_INDEXED_MEN];
        for (digit, g) in digits.iter_mut().zip(&self.groups).rev() {
            *digit = inner % g.radix;
            inner /= g.radix;
        }
        for (g, &digit) in self.groups.iter().zip(&digits) {
            let mut rank = digit;
            for i in (0..g.count).rev() {
                // The largest d < domain with C(d, i+1) ≤ rank (C(i, i+1) = 0 ≤ rank).
                let d = if i == 0 {
                    rank as usize
                } else {
                    let (mut low, mut high) = (i, g.domain);
                    while high - low > 1 {
                        let mid = (low + high) / 2;
                        if self.binomial[mid][i + 1] <= rank {
                            low = mid;
                        } else {
                            high = mid;
                        }
                    }
                    low
                };
                rank -= self.binomial[d][i + 1];
                let sq = if g.piece == Piece::Pawn {
                    self.pawn_square(d)
                } else {
                    d as Sq
                };
                men[g.start + i] = Man {
                    side: g.side,
                    piece: g.piece,
                    sq,
                };
            }
        }
        let men = &men[..self.men.len()];
        let ep = if ep_code == 0 {
            None
        } else {
            let them = opponent(stm);
            let group = self
                .groups
                .iter()
                .find(|g| g.side == them && g.piece == Piece::Pawn)?;
            let j = (ep_code - 1) as usize;
            if j >= group.count {
                return None;
            }
            let pawn = men[group.start + j].sq;
            Some(geo.ahead(them, pawn, -1)?)
        };
        let p: Position<N> = Position::new(geo, men.iter().copied(), stm, ep).ok()?;
        if let Some(t) = ep {
            if !p.en_passant_consistent(geo, t) {
                return None;
            }
        }
        // Canonical: the index of the position is this index. When only the identity fixes the
        // kings, the least king pair fixes the symmetry, so every such position is canonical.
        if ep.is_none() && self.pair_fixers[usize::from(wk) * self.squares + usize::from(bk)] == 1 {
            return Some(p);
        }
        (self.index(geo, &p) == Some(index)).then_some(p)
    }

    /// Calls `visit` with every index of `range` and its canonical position (`None` for a gap),
    /// in order — faster than [`Indexer::position`] index by index, as runs of indices that
    /// differ in the last man's square share the rest of the decoding.
    pub fn for_each_position<const N: usize>(
        &self,
        geo: &Geometry,
        range: std::ops::Range<u64>,
        stm: Side,
        mut visit: impl FnMut(u64, Option<Position<N>>),
    ) {
        let last = match self.groups.last() {
            Some(g) if g.count == 1 && g.piece != Piece::Pawn && self.men.len() <= N => g.clone(),
            _ => {
                for i in range {
                    visit(i, self.position(geo, i, stm));
                }
                return;
            }
        };
        let radix = last.radix;
        let mut i = range.start;
        while i < range.end {
            let run_end = (i - i % radix + radix).min(range.end);
            if i >= self.placements {
                for j in i..run_end {
                    visit(j, self.position(geo, j, stm));
                }
                i = run_end;
                continue;
            }
            // Decode the run's other men from its first index with the last man on square 0.
            let base = i - i % radix;
            let (wk, bk) = self.pairs[(base / self.inner) as usize];
            let mut men = [Man {
                side: Side::White,
                piece: Piece::King,
                sq: wk,
            }; MAX_INDEXED_MEN];
            men[1] = Man {
                side: Side::Black,
                piece: Piece::King,
                sq: bk,
            };
            let mut inner = (base % self.inner) / radix;
            let mut occ = SqSet::single(wk);
            occ.insert(bk);
            let mut overlap = false;
            let others = &self.groups[..self.groups.len() - 1];
            let mut digits = [0u64; MAX_INDEXED_MEN];
            for (digit, g) in digits.iter_mut().zip(others).rev() {
                *digit = inner % g.radix;
                inner /= g.radix;
            }
            for (g, &digit) in others.iter().zip(&digits) {
                let mut rank = digit;
                for k in (0..g.count).rev() {
                    let d = if k == 0 {
                        rank as usize
                    } else {
                        let (mut low, mut high) = (k, g.domain);
                        while high - low > 1 {
                            let mid = (low + high) / 2;
                            if self.binomial[mid][k + 1] <= rank {
                                low = mid;
                            } else {
                                high = mid;
                            }
                        }
                        low
                    };
                    rank -= self.binomial[d][k + 1];
                    let sq = if g.piece == Piece::Pawn {
                        self.pawn_square(d)
                    } else {
                        d as Sq
                    };
                    overlap |= occ.contains(sq);
                    occ.insert(sq);
                    men[g.start + k] = Man {
                        side: g.side,
                        piece: g.piece,
                        sq,
                    };
                }
            }
            let asymmetric =
                self.pair_fixers[usize::from(wk) * self.squares + usize::from(bk)] == 1;
            let n = self.men.len();
            for j in i..run_end {
                let sq = (j % radix) as Sq;
                if overlap || occ.contains(sq) {
                    visit(j, None);
                    continue;
                }
                men[last.start] = Man {
                    side: last.side,
                    piece: last.piece,
                    sq,
                };
                let mut all = occ;
                all.insert(sq);
                let p = Position::from_ordered(&men[..n], stm, None, all);
                if asymmetric || self.index(geo, &p) == Some(j) {
                    visit(j, Some(p));
                } else {
                    visit(j, None);
                }
            }
            i = run_end;
        }
    }

    /// The squares of the white and black king of canonical pair number `pair`
    /// (`0..king_pairs()`); the indices `pair × inner_size() ..` belong to it.
    pub fn king_pair(&self, pair: usize) -> (Sq, Sq) {
        self.pairs[pair]
    }

    /// The number of indices of one king pair: the product of the men's digits' radices.
    pub fn inner_size(&self) -> u64 {
        self.inner
    }

    /// The groups of identical men besides the kings, in the order of their digits (the last
    /// least significant), each with the squares it ranges over: those from `first` on, `domain`
    /// of them (a pawn's number the squares off the end ranks, which follow one another from
    /// the first square of the second rank). A group's digit is the rank `Σ C(dᵢ, i + 1)` of
    /// its men's squares less `first`, in increasing order `d₀ < d₁ < …`.
    pub fn group_fields(&self) -> Vec<GroupField> {
        self.groups
            .iter()
            .map(|g| GroupField {
                count: g.count,
                domain: g.domain,
                first: if g.piece == Piece::Pawn {
                    self.pawn_square(0)
                } else {
                    0
                },
                piece: g.piece,
                radix: g.radix,
            })
            .collect()
    }

    /// Whether only the identity (of the index's symmetries) fixes both kings' squares.
    #[inline]
    pub fn kings_fixed_by_identity_only(&self, white_king: Sq, black_king: Sq) -> bool {
        self.pair_fixers[usize::from(white_king) * self.squares + usize::from(black_king)] == 1
    }

    /// The symmetries of the index's group, other than the identity, that fix both kings'
    /// squares, as indices into `Geometry::symmetries`: a placement of such a king pair is
    /// canonical when none of them turns it into a smaller list of squares (identical men
    /// sorted), as [`Indexer::index`] chooses.
    pub fn pair_symmetries(
        &self,
        white_king: Sq,
        black_king: Sq,
    ) -> impl Iterator<Item = usize> + '_ {
        let fixers =
            self.pair_fixers[usize::from(white_king) * self.squares + usize::from(black_king)];
        self.symmetries
            .iter()
            .enumerate()
            .filter(move |&(bit, &s)| fixers & (1 << bit) != 0 && s != 0)
            .map(|(_, &s)| s)
    }

    /// Whether every position with this index has a trivial stabilizer, judging by its kings
    /// alone (false when the king pair lies on a symmetry axis; then ask `stabilizer_size`).
    pub fn kings_are_asymmetric(&self, index: u64) -> bool {
        let (wk, bk) = self.pairs[((index % self.placements) / self.inner) as usize];
        self.pair_fixers[usize::from(wk) * self.squares + usize::from(bk)] == 1
    }

    /// `∏ kᵢ!` over the groups of identical men: how many placements with distinguishable men
    /// each position stands for.
    pub fn labelings(&self) -> u64 {
        self.groups
            .iter()
            .map(|g| (1..=g.count as u64).product::<u64>())
            .product()
    }

    /// The number of symmetries of the index's group that map `p` onto itself (as a position:
    /// identical men may change places). Positions of one orbit share it; most have 1.
    pub fn stabilizer_size<const N: usize>(&self, geo: &Geometry, p: &Position<N>) -> u32 {
        self.symmetric_count(geo, p, false)
    }

    /// The number of symmetries that leave every man of `p` on its own square (identical men
    /// included), which is what Burnside's count of placements with distinguishable men needs.
    pub fn pointwise_fixers<const N: usize>(&self, geo: &Geometry, p: &Position<N>) -> u32 {
        self.symmetric_count(geo, p, true)
    }

    fn symmetric_count<const N: usize>(
        &self,
        geo: &Geometry,
        p: &Position<N>,
        pointwise: bool,
    ) -> u32 {
        let men = p.men();
        let fixers =
            self.pair_fixers[usize::from(men[0].sq) * self.squares + usize::from(men[1].sq)];
        if fixers == 1 {
            return 1;
        }
        let mut count = 0;
        for (bit, &s) in self.symmetries.iter().enumerate() {
            if fixers & (1 << bit) == 0 {
                continue;
            }
            let symmetry = &geo.symmetries()[s];
            let fixed = if pointwise {
                men.iter().all(|m| symmetry.apply(m.sq) == m.sq)
                    && p.en_passant().is_none_or(|t| symmetry.apply(t) == t)
            } else {
                p.transformed(symmetry) == *p
            };
            count += u32::from(fixed);
        }
        count
    }

    /// The fraction of indices that are positions (counted exhaustively; for documentation and
    /// tests on small materials).
    pub fn density(&self, geo: &Geometry) -> f64 {
        let valid = (0..self.size())
            .filter(|&i| {
                self.position::<MAX_INDEXED_MEN>(geo, i, Side::White)
                    .is_some()
            })
            .count();
        valid as f64 / self.size() as f64
    }
}

/// The canonical king pairs and, for every pair of squares, its canonical pair and the
/// symmetries that take it there.
fn king_pairs(geo: &Geometry, symmetries: &[usize]) -> (Vec<(Sq, Sq)>, Vec<KingPair>) {
    let n = geo.square_count();
    let mut least = vec![None; n * n];
    let mut canonical = Vec::new();
    for wk in 0..n {
        for bk in 0..n {
            let (wk, bk) = (wk as Sq, bk as Sq);
            if wk == bk || geo.king_attacks(wk).contains(bk) {
                continue;
            }
            let image = |s: usize| {
                let sym = &geo.symmetries()[s];
                (sym.apply(wk), sym.apply(bk))
            };
            let min = symmetries
                .iter()
                .map(|&s| image(s))
                .min()
                .expect("the identity");
            let mask = symmetries
                .iter()
                .enumerate()
                .filter(|&(_, &s)| image(s) == min)
                .fold(0u8, |m, (bit, _)| m | 1 << bit);
            least[usize::from(wk) * n + usize::from(bk)] = Some((min, mask));
            if min == (wk, bk) {
                canonical.push(min);
            }
        }
    }
    canonical.sort_unstable();
    let pair_of = least
        .into_iter()
        .map(|entry| match entry {
            None => KingPair {
                index: NO_PAIR,
                symmetries: 0,
            },
            Some((min, mask)) => KingPair {
                index: canonical
                    .binary_search(&min)
                    .expect("the least image is canonical") as u32,
                symmetries: mask,
            },
        })
        .collect();
    (canonical, pair_of)
}

fn binomial(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    let mut result: u64 = 1;
    for i in 0..k {
        result = result * (n - i) / (i + 1);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digits_number_every_index() {
        let geo = Geometry::new(retro_rules::Board::STANDARD);
        for (name, radices) in [
            ("KRvK", vec![462, 64]),
            ("KRBvKB", vec![462, 64, 64, 64]),
            ("KNNvK", vec![462, 2016]),
            ("KPPvKP", vec![3, 1806, 1128, 48]),
        ] {
            let indexer = Indexer::new(&geo, name.parse().unwrap()).unwrap();
            assert_eq!(indexer.digit_radices(), radices, "{name}");
            assert_eq!(radices.iter().product::<u64>(), indexer.size(), "{name}");
        }
    }
    use retro_rules::Board;

    #[test]
    fn sizes_on_the_standard_board() {
        let geo = Geometry::new(Board::STANDARD);
        let ix = |m: &str| Indexer::new(&geo, m.parse().unwrap()).unwrap();
        assert_eq!(ix("KvK").king_pairs(), 462);
        assert_eq!(ix("KvK").size(), 462);
        assert_eq!(ix("KRvK").size(), 462 * 64);
        assert_eq!(ix("KRRvK").size(), 462 * 2016);
        assert_eq!(ix("KRBvKR").size(), 462 * 64 * 64 * 64);
        // With pawns only the mirror is removed, and pawns live on 48 squares.
        let kp = ix("KPvK");
        assert_eq!(kp.symmetry_count(), 2);
        // No en-passant codes without pawns of both sides; with them, one per pawn of the side
        // with more, beside the code for no target.
        assert_eq!(kp.size(), kp.king_pairs() as u64 * 48);
        let kpkp = ix("KPvKP");
        assert_eq!(kpkp.size(), kpkp.king_pairs() as u64 * 48 * 48 * 2);
        let kppkp = ix("KPPvKP");
        assert_eq!(kppkp.size(), kppkp.king_pairs() as u64 * 1128 * 48 * 3);
    }

    #[test]
    fn only_kings_on_the_long_diagonal_are_fixed_by_more_than_the_identity() {
        // On 8×8 without pawns: the 21 canonical pairs with both kings on a1–h8, each fixed by
        // the reflection in that diagonal alone; with pawns, no pair (no middle file).
        let geo = Geometry::new(Board::STANDARD);
        for (material, expected) in [("KRvK", 21), ("KPvK", 0)] {
            let ix = Indexer::new(&geo, material.parse().unwrap()).unwrap();
            let mut fixed = 0;
            for pair in 0..ix.king_pairs() {
                let (wk, bk) = ix.king_pair(pair);
                let names: Vec<&str> = ix
                    .pair_symmetries(wk, bk)
                    .map(|s| geo.symmetries()[s].name)
                    .collect();
                let on_diagonal = |sq: Sq| geo.file(sq) == geo.rank(sq);
                if on_diagonal(wk) && on_diagonal(bk) && expected > 0 {
                    assert_eq!(names, ["transpose"], "{material}: kings {wk} {bk}");
                    fixed += 1;
                } else {
                    assert!(names.is_empty(), "{material}: kings {wk} {bk}: {names:?}");
                }
            }
            assert_eq!(fixed, expected, "{material}");
        }
    }

    #[test]
    fn krk_density_is_as_documented() {
        // 462 king pairs × 62 free squares, less the mirror images for the 21 pairs with both
        // kings on the long diagonal (the rook's 56 off-diagonal squares pair up): 28,644 − 588.
        let geo = Geometry::new(Board::STANDARD);
        let ix = Indexer::new(&geo, "KRvK".parse().unwrap()).unwrap();
        let valid = (0..ix.size())
            .filter(|&i| ix.position::<8>(&geo, i, Side::White).is_some())
            .count();
        assert_eq!(valid, 28056);
    }

    /// Hurd's Table 1 counts placements without symmetry reduction: each canonical position
    /// stands for |G| / |stabilizer| of them.
    #[test]
    fn orbit_sizes_reproduce_hurds_legal_counts() {
        let geo = Geometry::new(Board::STANDARD);
        for (material, white, black) in [
            ("KvK", 3612u64, 3612u64),
            ("KRvK", 175168, 223944),
            ("KQvK", 144508, 223944),
            ("KBvK", 193284, 223944),
        ] {
            let ix = Indexer::new(&geo, material.parse().unwrap()).unwrap();
            for (stm, expected) in [(Side::White, white), (Side::Black, black)] {
                let raw: u64 = (0..ix.size())
                    .filter_map(|i| ix.position::<8>(&geo, i, stm))
                    .filter(|p| p.is_legal(&geo))
                    .map(|p| 8 / u64::from(ix.stabilizer_size(&geo, &p)))
                    .sum();
                assert_eq!(raw, expected, "{material} {stm}");
            }
        }
    }

    #[test]
    fn colour_flip_is_an_involution_that_keeps_legality() {
        let geo = Geometry::new(Board::new(6, 5).unwrap());
        let ix = Indexer::new(&geo, "KQvKN".parse().unwrap()).unwrap();
        let flipped_ix = Indexer::new(&geo, "KNvKQ".parse().unwrap()).unwrap();
        for i in (0..ix.size()).step_by(7) {
            if let Some(p) = ix.position::<8>(&geo, i, Side::Black) {
                let q = p.colour_flipped(&geo);
                assert_eq!(q.colour_flipped(&geo), p);
                assert_eq!(q.is_legal(&geo), p.is_legal(&geo));
                assert_eq!(q.side_to_move(), Side::White);
                assert!(flipped_ix.index(&geo, &q).is_some());
            }
        }
    }

    #[test]
    fn sequential_decoding_equals_decoding_each_index() {
        let geo = Geometry::new(Board::new(5, 5).unwrap());
        for material in ["KRvK", "KRRvKN", "KQvKB", "KvK", "KPvKN"] {
            let ix = Indexer::new(&geo, material.parse().unwrap()).unwrap();
            for stm in [Side::White, Side::Black] {
                let mut seen = 0;
                ix.for_each_position::<8>(&geo, 7..ix.size(), stm, |i, p| {
                    assert_eq!(p, ix.position::<8>(&geo, i, stm), "{material} {i}");
                    seen += 1;
                });
                assert_eq!(seen, ix.size() - 7);
            }
        }
    }

    #[test]
    fn binomials() {
        assert_eq!(binomial(64, 2), 2016);
        assert_eq!(binomial(256, 8), 409_663_695_276_000);
        assert_eq!(binomial(3, 5), 0);
    }
}
