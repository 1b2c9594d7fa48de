//! The working index of the fast core: one field per man, so that a move adds a multiple of a
//! stride.
//!
//! Owns: [`Layout`] — slot numbers, decoding, the white king's fold onto a fundamental region
//! of the board's symmetries, and the other slots that stand for the same position.
//! Must never: be written to a file; tables are stored in the index scheme of
//! `retro_engine::index`, and `super::convert` translates.
//!
//! # Slots
//!
//! `slot = region(wk) · S^(n−1) + Σ_{i ≥ 1} sq(manᵢ) · S^(n−1−i)`, men in the order of
//! `Material::men` (White's king, Black's king, White's men, Black's men), `S` the board's
//! squares and `region(wk)` the white king's number within the *region*: the squares that are
//! the least of their orbit under the board's symmetries (10 of 64 on 8×8: a1–d1–d4; with pawns,
//! whose moves only the left–right mirror keeps, 32: files a–d). A pawn's field is a square too
//! (slots with a pawn on an end rank are never used). A move of
//! man `i` from `a` to `b` adds `(b − a) · S^(n−1−i)`; only a white king move that leaves the
//! region turns the whole position by a symmetry. KRBvKR on 8×8 has 10 · 64⁴ = 167,772,160
//! slots per side to move (the stored index has 121,110,528 entries).
//!
//! With pawns of one side only and a last man that is no pawn, the pawns' fields come first
//! instead — `slot = Σ_pawns sq(pawnⱼ) · B · S^(p−1−j) + (the formula above for the other
//! men)`, `B` the other men's slots rounded up to whole chunks and runs — so that each
//! placement of the pawns is one block, a *slice* that the core solves on its own
//! ([`Layout::slice_groups`]); the slots beyond the used part of a block are never used.
//!
//! When the white king stands on a square a symmetry fixes (the long diagonal on square
//! boards, the middle file or rank of odd boards), the fold also brings the black king to the
//! least of its images under those symmetries ([`Layout::fold`]); the slots whose kings are not
//! so are never used ([`Layout::kings_folded`]); identical men are kept in increasing order of
//! square, and slots where they are not are never used either ([`Layout::groups_sorted`]). A
//! position still has two slots when both kings stand on squares a symmetry fixes: its image.
//! Both hold its value, and the retrograde step reaches both (see `super`).
//!
//! # What comes next
//!
//! Each man's field is a square number today. The Freezer's restricted men change only the
//! field of a man (a list of allowed squares, numbered within it); pawn slices already put the
//! pawns' fields outermost, each placement one block. Six-man pawnless tables on 8×8 keep the
//! layout: each king pair's slots are one block of `S^(n−2)` (16 MiB), and the blocks of pairs
//! that hold no position are never written ([`Layout::slots_written`]), so they take no memory.

use retro_engine::{Geometry, Material, Sq};
use retro_rules::{Piece, Side};

mod rank_field;
mod slices;
mod window;

pub use rank_field::RankField;
pub use window::SquareWindow;

/// The most men a slot can hold.
pub const MAX_MEN: usize = 8;

/// The slots of a slice are a multiple of this (the fast core's chunk), so that a chunk never
/// holds slots of two slices.
pub const SLICE_ALIGN: u64 = 1 << 12;

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Whether a material's layout is split into slices by its pawns' squares (the pawns' fields
/// outermost): when all its pawns are of one side and the last man is not one of them (the
/// last man's field stays innermost, as the core's runs need). Pawn pushes, which cannot be
/// undone, lead from a slice to another, so the core solves one slice (with its mirror image)
/// at a time, its pushes looked up in the slices solved before, like exits.
fn sliced(men: &[(Side, Piece)]) -> bool {
    let pawns = |side: Side| men.contains(&(side, Piece::Pawn));
    let last_is_pawn = men.last().is_some_and(|m| m.1 == Piece::Pawn);
    (pawns(Side::White) != pawns(Side::Black)) && !last_is_pawn
}

const OUTSIDE: u32 = u32::MAX;

/// Exact division by a fixed small divisor with a multiplication, or a shift for a power of
/// two (for dividends below 2⁵⁶).
#[derive(Debug, Clone, Copy)]
struct Divisor {
    d: u64,
    magic: u64,
    /// `log2 d` when `d` is a power of two.
    shift: Option<u32>,
}

impl Divisor {
    fn new(d: u64) -> Divisor {
        assert!((2..=256).contains(&d), "a board of 2 to 256 squares");
        Divisor {
            d,
            magic: u64::MAX / d + 1,
            shift: d.is_power_of_two().then(|| d.trailing_zeros()),
        }
    }

    /// `(x / d, x % d)`; exact for `x < 2^64 / d`, as the error of `magic` is below `x / 2^64`.
    #[inline(always)]
    fn div_rem(self, x: u64) -> (u64, u64) {
        if let Some(shift) = self.shift {
            return (x >> shift, x & (self.d - 1));
        }
        let q = ((u128::from(x) * u128::from(self.magic)) >> 64) as u64;
        (q, x - q * self.d)
    }
}

/// The slot numbering of one material on one board.
#[derive(Debug, Clone)]
pub struct Layout {
    men: Vec<(Side, Piece)>,
    squares: u64,
    divisor: Divisor,
    region: Vec<Sq>,
    region_of: Vec<u32>,
    /// For every square, a symmetry taking it into the region (0, the identity, inside it).
    fold: Vec<u8>,
    /// For every square, the symmetries other than the identity that fix it.
    fixers: Vec<Vec<u8>>,
    /// Every symmetry as a table of squares.
    maps: Vec<Vec<Sq>>,
    /// By folded White king × Black king: a symmetry fixing the White king's square that takes
    /// the Black king to the least of its images under such symmetries (0 when it is there).
    king_fold: Vec<u8>,
    /// By White king × Black king, unfolded: the one symmetry [`Layout::fold`] turns a
    /// placement by (`fold` of the White king, then `king_fold`, composed).
    fold_by_kings: Vec<u8>,
    strides: [u64; MAX_MEN],
    size: u64,
    /// The men whose fields come first (outermost), in order: the pawns, when they make
    /// slices ([`Layout::slices`]); none otherwise.
    lead: Vec<usize>,
    /// The other men, outermost first (the white king first, the last man last).
    rest: Vec<usize>,
    /// The slots of one slice (the stride of the innermost lead field): the placements of the
    /// other men, rounded up to whole chunks of [`SLICE_ALIGN`] slots and whole runs of the
    /// last man's field.
    block: u64,
    /// The slots of a slice that are placements of the other men (the rest are never used).
    block_used: u64,
    files: u8,
    ranks: u8,
    /// Runs of two or more identical men: (first, count). A man without a companion is in
    /// none, so that the orders of the men ([`Layout::for_each_holder`]) pass over him.
    groups: Vec<(usize, usize)>,
    /// By man, the range `first..end` of the men identical to it ([`Layout::group_of`]).
    group_of: [(usize, usize); MAX_MEN],
}

impl Layout {
    /// The layout of `material` (at most [`MAX_MEN`] men) on `geo`'s board, with all of the
    /// board's symmetries for pawnless material and the identity and the left–right mirror
    /// (the symmetries that keep ranks, and so pawn moves) with pawns; `None` if the slots would
    /// not fit in 2⁵⁶.
    pub fn new(geo: &Geometry, material: Material) -> Option<Layout> {
        Layout::with_slices(geo, material, false)
    }

    /// The layout of `material` split into slices by its pawns' squares, if they make slices
    /// (pawns of one side only, the last man not a pawn); `None` otherwise.
    pub fn sliced(geo: &Geometry, material: Material) -> Option<Layout> {
        if !sliced(&material.men()) {
            return None;
        }
        Layout::with_slices(geo, material, true)
    }

    fn with_slices(geo: &Geometry, material: Material, slices: bool) -> Option<Layout> {
        let men = material.men();
        // The fast core's squares are bits of a word: it declines larger boards, and a board
        // of one square, which holds no position.
        if men.len() > MAX_MEN
            || !(2..=crate::fast::bits::MAX_SQUARES).contains(&geo.square_count())
        {
            return None;
        }
        let squares = geo.square_count() as u64;
        let kept = if material.has_pawns() { 2 } else { usize::MAX };
        let maps: Vec<Vec<Sq>> = geo
            .symmetries()
            .iter()
            .take(kept)
            .map(|s| (0..squares as Sq).map(|sq| s.apply(sq)).collect())
            .collect();
        let least = |sq: Sq| {
            maps.iter()
                .map(|m| m[usize::from(sq)])
                .min()
                .expect("identity")
        };
        let region: Vec<Sq> = (0..squares as Sq).filter(|&sq| least(sq) == sq).collect();
        let mut region_of = vec![OUTSIDE; squares as usize];
        for (k, &sq) in region.iter().enumerate() {
            region_of[usize::from(sq)] = k as u32;
        }
        let fold: Vec<u8> = (0..squares as Sq)
            .map(|sq| {
                let target = least(sq);
                maps.iter()
                    .position(|m| m[usize::from(sq)] == target)
                    .expect("some symmetry reaches the least image") as u8
            })
            .collect();
        let fixers = (0..squares as Sq)
            .map(|sq| {
                (1..maps.len())
                    .filter(|&s| maps[s][usize::from(sq)] == sq)
                    .map(|s| s as u8)
                    .collect()
            })
            .collect();
        let mut king_fold = vec![0u8; (squares * squares) as usize];
        for wk in 0..squares as usize {
            for bk in 0..squares as usize {
                let fixing: Vec<u8> = (1..maps.len())
                    .filter(|&s| maps[s][wk] == wk as Sq)
                    .map(|s| s as u8)
                    .collect();
                let least = fixing
                    .iter()
                    .map(|&s| maps[usize::from(s)][bk])
                    .fold(bk as Sq, Sq::min);
                if least != bk as Sq {
                    king_fold[wk * squares as usize + bk] = *fixing
                        .iter()
                        .find(|&&s| maps[usize::from(s)][bk] == least)
                        .expect("the least image comes from a symmetry");
                }
            }
        }
        // By symmetries `a` and `b`: `b` after `a`, as one of them.
        let then: Vec<Vec<u8>> = maps
            .iter()
            .map(|a| {
                maps.iter()
                    .map(|b| {
                        let composed: Vec<Sq> = a.iter().map(|&sq| b[usize::from(sq)]).collect();
                        maps.iter()
                            .position(|map| *map == composed)
                            .expect("the symmetries are a group") as u8
                    })
                    .collect()
            })
            .collect();
        let fold_by_kings = (0..squares as usize * squares as usize)
            .map(|kings| {
                let (wk, bk) = (kings / squares as usize, kings % squares as usize);
                let first = fold[wk];
                let map = &maps[usize::from(first)];
                let (wk, bk) = (usize::from(map[wk]), usize::from(map[bk]));
                then[usize::from(first)][usize::from(king_fold[wk * squares as usize + bk])]
            })
            .collect();
        let n = men.len();
        let lead: Vec<usize> = if slices {
            (2..n).filter(|&i| men[i].1 == Piece::Pawn).collect()
        } else {
            Vec::new()
        };
        let rest: Vec<usize> = (0..n).filter(|i| !lead.contains(i)).collect();
        let mut strides = [0u64; MAX_MEN];
        let mut stride = 1u64;
        for &i in rest.iter().rev() {
            strides[i] = stride;
            let radix = if i == 0 { region.len() as u64 } else { squares };
            stride = stride.checked_mul(radix)?;
        }
        let block_used = stride;
        if !lead.is_empty() {
            // Whole chunks, and whole runs of the last man's field.
            let align = SLICE_ALIGN / gcd(SLICE_ALIGN, squares) * squares;
            stride = stride.checked_next_multiple_of(align)?;
        }
        let block = stride;
        for &i in lead.iter().rev() {
            strides[i] = stride;
            stride = stride.checked_mul(squares)?;
        }
        let size = stride;
        if size >= 1 << 56 {
            return None;
        }
        let mut groups: Vec<(usize, usize)> = Vec::new();
        for i in 2..n {
            match groups.last_mut() {
                Some((first, count)) if men[*first] == men[i] => *count += 1,
                _ => groups.push((i, 1)),
            }
        }
        groups.retain(|&(_, count)| count > 1);
        let mut group_of: [(usize, usize); MAX_MEN] = std::array::from_fn(|i| (i, i + 1));
        for &(first, count) in &groups {
            group_of[first..first + count].fill((first, first + count));
        }
        Some(Layout {
            men,
            squares,
            divisor: Divisor::new(squares),
            region,
            region_of,
            fold,
            fixers,
            maps,
            king_fold,
            fold_by_kings,
            strides,
            size,
            lead,
            rest,
            block,
            block_used,
            files: geo.files(),
            ranks: geo.ranks(),
            groups,
            group_of,
        })
    }

    /// The number of men.
    pub fn men_count(&self) -> usize {
        self.men.len()
    }

    /// Slots per side to move.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The slot after man `i` of `slot` moves from square `from` to `to`, when the move needs
    /// no fold: the slot moves by the man's stride per square number.
    #[inline(always)]
    pub fn moved(&self, slot: u64, i: usize, from: Sq, to: Sq) -> u64 {
        // In arithmetic modulo 2⁶⁴, with no branch on the direction: the result is a slot, so
        // the wrapped difference comes back into range.
        let step = u64::from(to).wrapping_sub(u64::from(from));
        slot.wrapping_add(step.wrapping_mul(self.strides[i]))
    }

    /// The stride of man `i`: what a move of it by one square number adds to a slot.
    #[inline(always)]
    pub fn stride(&self, i: usize) -> u64 {
        self.strides[i]
    }

    /// The square of man `i` (not the white king) in `slot`.
    #[inline(always)]
    pub fn field(&self, slot: u64, i: usize) -> Sq {
        debug_assert!(i > 0, "the white king's field is a region number");
        // In a sliced layout the other men's fields lie within the slice's block.
        let slot = match self.lead.is_empty() || self.lead.contains(&i) {
            true => slot,
            false => slot % self.block,
        };
        self.divisor.div_rem(slot / self.strides[i]).1 as Sq
    }

    /// The slot of `squares`, whose white king must stand in the region.
    #[inline(always)]
    pub fn slot(&self, squares: &[Sq]) -> u64 {
        let region = self.region_of[usize::from(squares[0])];
        debug_assert!(region != OUTSIDE, "the white king is folded first");
        if !self.lead.is_empty() {
            return squares[1..].iter().zip(&self.strides[1..]).fold(
                u64::from(region) * self.strides[0],
                |slot, (&sq, &stride)| slot + u64::from(sq) * stride,
            );
        }
        let mut slot = u64::from(region);
        for &sq in &squares[1..] {
            slot = slot * self.squares + u64::from(sq);
        }
        slot
    }

    /// The number of squares of the board.
    pub fn square_count(&self) -> u64 {
        self.squares
    }

    /// Whether a symmetry other than the identity fixes both `a` and `b`.
    pub fn share_fixer(&self, a: Sq, b: Sq) -> bool {
        self.fixers[usize::from(a)]
            .iter()
            .any(|f| self.fixers[usize::from(b)].contains(f))
    }

    /// Whether a symmetry other than the identity fixes `sq`.
    pub fn is_fixed(&self, sq: Sq) -> bool {
        !self.fixers[usize::from(sq)].is_empty()
    }

    /// Whether `sq` lies in the region (a white king there needs no fold).
    pub fn in_region(&self, sq: Sq) -> bool {
        self.region_of[usize::from(sq)] != OUTSIDE
    }

    /// The squares of `slot`, for a layout of `N` men.
    #[inline(always)]
    pub fn decode_array<const N: usize>(&self, mut slot: u64) -> [Sq; N] {
        debug_assert_eq!(N, self.men.len());
        let mut squares = [0 as Sq; N];
        if !self.lead.is_empty() {
            self.decode_sliced(slot, &mut squares);
            return squares;
        }
        for i in (1..N).rev() {
            let (q, r) = self.divisor.div_rem(slot);
            squares[i] = r as Sq;
            slot = q;
        }
        squares[0] = self.region[slot as usize];
        squares
    }

    /// The squares of `slot` into `squares` (one per man).
    pub fn decode_into(&self, mut slot: u64, squares: &mut [Sq]) {
        debug_assert_eq!(squares.len(), self.men.len());
        if !self.lead.is_empty() {
            self.decode_sliced(slot, squares);
            return;
        }
        for i in (1..squares.len()).rev() {
            let (q, r) = self.divisor.div_rem(slot);
            squares[i] = r as Sq;
            slot = q;
        }
        squares[0] = self.region[slot as usize];
    }

    /// The squares of `slot` of a sliced layout: the other men's fields within the slice's
    /// block, then the pawns' above it.
    #[inline(always)]
    fn decode_sliced(&self, slot: u64, squares: &mut [Sq]) {
        let (mut high, mut low) = if self.block.is_power_of_two() {
            (slot >> self.block.trailing_zeros(), slot & (self.block - 1))
        } else {
            (slot / self.block, slot % self.block)
        };
        for &i in self.rest[1..].iter().rev() {
            let (q, r) = self.divisor.div_rem(low);
            squares[i] = r as Sq;
            low = q;
        }
        debug_assert!(
            low < self.region.len() as u64,
            "a slot of the block's used part"
        );
        squares[0] = self.region[low as usize];
        for &i in self.lead.iter().rev() {
            let (q, r) = self.divisor.div_rem(high);
            squares[i] = r as Sq;
            high = q;
        }
    }

    /// Turns `squares` by a symmetry that brings the white king into the region, then, if
    /// symmetries fix the white king's square, by the one of them (if any) that brings the
    /// black king to the least of its images, and sorts identical men.
    #[inline]
    pub fn fold(&self, squares: &mut [Sq]) {
        self.fold_tracking(squares, 0);
    }

    /// [`Layout::fold`], also returning where the symmetries it applies take square `tracked`.
    #[inline(always)]
    pub fn fold_tracking(&self, squares: &mut [Sq], mut tracked: Sq) -> Sq {
        let s = match squares.len() {
            1 => self.fold[usize::from(squares[0])],
            _ => self.fold_symmetry(squares[0], squares[1]),
        };
        if s != 0 {
            self.apply(s, squares);
            tracked = self.maps[usize::from(s)][usize::from(tracked)];
        }
        self.sort_groups(squares);
        tracked
    }

    /// The symmetry [`Layout::fold`] turns a placement by when its kings stand on
    /// `white_king` and `black_king` (0: the identity).
    #[inline(always)]
    fn fold_symmetry(&self, white_king: Sq, black_king: Sq) -> u8 {
        self.fold_by_kings
            [usize::from(white_king) * self.squares as usize + usize::from(black_king)]
    }

    /// The symmetry, as a table of squares, that [`Layout::fold`] turns a placement by when
    /// its kings stand on `white_king` and `black_king`: the choice depends on the kings
    /// alone, so every man of such a placement is turned by it whatever the other men's
    /// squares (identical men are sorted after).
    #[inline(always)]
    pub fn fold_map(&self, white_king: Sq, black_king: Sq) -> &[Sq] {
        &self.maps[usize::from(self.fold_symmetry(white_king, black_king))]
    }

    /// Whether [`Layout::fold`] leaves the squares of a placement with the kings on
    /// `white_king` and `black_king` where they are (it may still sort identical men).
    #[inline(always)]
    pub fn folds_nothing(&self, white_king: Sq, black_king: Sq) -> bool {
        self.fold_symmetry(white_king, black_king) == 0
    }

    /// Puts identical men in increasing order of square.
    #[inline(always)]
    pub fn sort_groups(&self, squares: &mut [Sq]) {
        for &(first, count) in &self.groups {
            match count {
                2 if squares[first] > squares[first + 1] => squares.swap(first, first + 1),
                2 => {}
                _ => squares[first..first + count].sort_unstable(),
            }
        }
    }

    /// Whether identical men stand in increasing order of square, as [`Layout::fold`] leaves
    /// them. Slots whose men do not are never used.
    #[inline(always)]
    pub fn groups_sorted(&self, squares: &[Sq]) -> bool {
        self.groups
            .iter()
            .all(|&(first, count)| squares[first..first + count].is_sorted())
    }

    /// Whether man `i` has an identical companion (its moves then reorder the men, and the slot
    /// is computed again rather than moved by a stride).
    pub fn is_grouped(&self, i: usize) -> bool {
        let (first, end) = self.group_of(i);
        end - first > 1
    }

    /// The men identical to man `i` (`i` among them), as the range `first..end` of their
    /// numbers; `i..i + 1` for a king or a man without companions.
    #[inline(always)]
    pub fn group_of(&self, i: usize) -> (usize, usize) {
        self.group_of[i]
    }

    /// The slot after man `i` of `slot` (squares `squares`, the men `first..end` in increasing
    /// order of square and `i` among them) moves to `to`, when the move needs no fold: those
    /// men are put in order again — the man slides past the ones it overtakes, each of which
    /// takes the next field down or up — and every one whose square changed moves the slot by
    /// its stride. Also returns the man's number after.
    #[inline(always)]
    pub fn moved_in_order(
        &self,
        slot: u64,
        squares: &[Sq],
        i: usize,
        to: Sq,
        (first, end): (usize, usize),
    ) -> (u64, usize) {
        debug_assert!(i > 0 && (first..end).contains(&i));
        debug_assert!(squares[first..end].is_sorted());
        let mut slot = slot;
        let mut k = i;
        // Each overtaken man takes the field the moving man leaves (its stride times its
        // square, added there and taken from its own field).
        while k + 1 < end && squares[k + 1] < to {
            let sq = u64::from(squares[k + 1]);
            slot = slot + sq * self.strides[k] - sq * self.strides[k + 1];
            k += 1;
        }
        while k > first && squares[k - 1] > to {
            let sq = u64::from(squares[k - 1]);
            slot = slot + sq * self.strides[k] - sq * self.strides[k - 1];
            k -= 1;
        }
        // The man itself: gone from field `i`, on `to` in field `k`.
        slot = slot + u64::from(to) * self.strides[k] - u64::from(squares[i]) * self.strides[i];
        (slot, k)
    }

    #[inline(always)]
    fn apply(&self, s: u8, squares: &mut [Sq]) {
        let map = &self.maps[usize::from(s)];
        for sq in squares.iter_mut() {
            *sq = map[usize::from(*sq)];
        }
    }

    /// How many slots a side a build writes to: every slot, except that when the king pairs'
    /// blocks are whole huge pages (2 MiB and more: six men on 8×8), the blocks of the pairs
    /// that hold no position — kings on one square or side by side, or not folded
    /// ([`Layout::kings_folded`]) — are never written (the init pass leaves words of no
    /// position unwritten), so they take no memory.
    pub fn slots_written(&self) -> u64 {
        const HUGE_PAGE: u64 = 1 << 21;
        let n = self.men.len();
        if n < 3 || !self.lead.is_empty() || self.strides[1] % HUGE_PAGE != 0 {
            return self.size;
        }
        let files = u64::from(self.files);
        let apart = |a: Sq, b: Sq| {
            let (a, b) = (u64::from(a), u64::from(b));
            (a % files).abs_diff(b % files) > 1 || (a / files).abs_diff(b / files) > 1
        };
        let pairs = self
            .region
            .iter()
            .flat_map(|&wk| (0..self.squares as Sq).map(move |bk| (wk, bk)))
            .filter(|&(wk, bk)| apart(wk, bk) && self.kings_folded(wk, bk))
            .count() as u64;
        pairs * self.strides[1]
    }

    /// Whether the kings of folded squares are as [`Layout::fold`] leaves them: always, unless
    /// the White king stands on a square a symmetry fixes and that symmetry would bring the
    /// Black king lower. Slots whose kings are not are never used.
    #[inline(always)]
    pub fn kings_folded(&self, white_king: Sq, black_king: Sq) -> bool {
        self.king_fold[usize::from(white_king) * self.squares as usize + usize::from(black_king)]
            == 0
    }

    /// Calls `visit` with the slot of every image of the folded `squares` under the symmetries
    /// fixing its white king's square (itself first): together with the orders of identical
    /// men, these are all the slots that hold this position.
    #[inline]
    pub fn for_each_image(&self, squares: &[Sq], mut visit: impl FnMut(u64)) {
        self.for_each_image_tracking(squares, 0, |slot, _| visit(slot));
    }

    /// [`Layout::for_each_image`], also giving where each image's symmetry takes square
    /// `tracked`.
    #[inline]
    pub fn for_each_image_tracking(
        &self,
        squares: &[Sq],
        tracked: Sq,
        mut visit: impl FnMut(u64, Sq),
    ) {
        self.for_each_image_map(squares, |slot, map| visit(slot, map[usize::from(tracked)]));
    }

    /// [`Layout::for_each_image`], giving with each image's slot the symmetry that makes it,
    /// as a table of squares (the identity first).
    #[inline]
    pub fn for_each_image_map(&self, squares: &[Sq], mut visit: impl FnMut(u64, &[Sq])) {
        visit(self.slot(squares), &self.maps[0]);
        if squares.len() < 2 {
            return;
        }
        self.for_each_king_fixer(squares[0], squares[1], |map| {
            let mut image = [0 as Sq; MAX_MEN];
            for (i, &sq) in squares.iter().enumerate() {
                image[i] = map[usize::from(sq)];
            }
            self.sort_groups(&mut image[..squares.len()]);
            visit(self.slot(&image[..squares.len()]), map);
        });
    }

    /// Calls `visit` with every symmetry other than the identity, as a table of squares, that
    /// fixes both `white_king` and `black_king`: those that take a folded placement with its
    /// kings there to the other slots holding it, whatever its other men.
    #[inline(always)]
    pub fn for_each_king_fixer(
        &self,
        white_king: Sq,
        black_king: Sq,
        mut visit: impl FnMut(&[Sq]),
    ) {
        for &s in &self.fixers[usize::from(white_king)] {
            let map = &self.maps[usize::from(s)];
            if map[usize::from(black_king)] == black_king {
                visit(map);
            }
        }
    }

    /// The identity, as a table of squares.
    #[inline(always)]
    pub fn identity(&self) -> &[Sq] {
        &self.maps[0]
    }

    /// The slots of a folded placement of every man but the last, as the last man's square
    /// varies, when the last man has identical companions (men `first..last`): he takes his
    /// place among them in increasing order of square, so each slot is one of a few bases
    /// plus his square times the stride of the field he takes ([`LastAmongCompanions`]).
    /// `squares[last]` is not read; the companions need not be in order, nor the men of
    /// another group of identical men.
    pub fn last_among_companions(&self, squares: &[Sq]) -> LastAmongCompanions {
        let last = squares.len() - 1;
        let first = self.group_of[last].0;
        debug_assert!(first < last, "the last man has a companion");
        let mut fields = [0 as Sq; MAX_MEN];
        fields[..first].copy_from_slice(&squares[..first]);
        // Another group of identical men, turned by a symmetry, is put in order again.
        self.sort_groups(&mut fields[..squares.len()]);
        // The other men's part of the slot: the group's fields are 0 in it.
        let others = self.slot(&fields[..squares.len()]);
        let count = last - first;
        let mut companions = [Sq::MAX; MAX_MEN - 1];
        companions[..count].copy_from_slice(&squares[first..last]);
        companions[..count].sort_unstable();
        let mut bases = [0u64; MAX_MEN];
        let mut strides = [0u64; MAX_MEN];
        for (below, (base, stride)) in bases.iter_mut().zip(&mut strides).enumerate() {
            if below > count {
                break;
            }
            // `below` companions keep their fields, the others move one field up.
            *base = companions[..count]
                .iter()
                .enumerate()
                .map(|(k, &c)| {
                    let field = if k < below { first + k } else { first + k + 1 };
                    u64::from(c) * self.strides[field]
                })
                .sum::<u64>()
                + others;
            *stride = self.strides[first + below];
        }
        LastAmongCompanions {
            companions,
            count,
            bases,
            strides,
        }
    }

    /// Calls `visit` with every slot that holds the position of the folded `squares`: its
    /// images under the symmetries fixing the white king, each with identical men in every
    /// order.
    pub fn for_each_holder(&self, squares: &[Sq], mut visit: impl FnMut(u64)) {
        let n = squares.len();
        let mut image = [0 as Sq; MAX_MEN];
        image[..n].copy_from_slice(squares);
        self.orders(&mut image[..n], 0, &mut visit);
        for &s in &self.fixers[usize::from(squares[0])] {
            let map = &self.maps[usize::from(s)];
            for (i, &sq) in squares.iter().enumerate() {
                image[i] = map[usize::from(sq)];
            }
            self.orders(&mut image[..n], 0, &mut visit);
        }
    }

    /// Every order of the identical men of groups `g..`, by swapping in place.
    fn orders(&self, squares: &mut [Sq], g: usize, visit: &mut impl FnMut(u64)) {
        let Some(&(first, count)) = self.groups.get(g) else {
            visit(self.slot(squares));
            return;
        };
        permute(squares, first, first + count, &mut |sq: &mut [Sq]| {
            self.orders(sq, g + 1, visit)
        });
    }
}

/// The slots of one placement of all men but the last as the last man's square varies, when
/// the last man has identical companions ([`Layout::last_among_companions`]).
#[derive(Debug, Clone, Copy)]
pub struct LastAmongCompanions {
    /// The companions' squares in increasing order (`Sq::MAX` beyond `count`).
    companions: [Sq; MAX_MEN - 1],
    count: usize,
    /// By how many companions stand below the last man: the slot without him, and the stride
    /// of the field he takes.
    bases: [u64; MAX_MEN],
    strides: [u64; MAX_MEN],
}

impl LastAmongCompanions {
    /// The slot with the last man on `s` (a square no companion stands on).
    #[inline(always)]
    pub fn slot(&self, s: Sq) -> u64 {
        let below = match self.count {
            1 => usize::from(self.companions[0] < s),
            count => self.companions[..count].iter().filter(|&&c| c < s).count(),
        };
        self.bases[below] + u64::from(s) * self.strides[below]
    }

    /// The squares above every companion, and the base of the slots with the last man on
    /// one of them: such a slot is the base plus his square.
    #[inline(always)]
    pub fn above_all(&self) -> (u64, u64) {
        let top = self.companions[self.count - 1];
        (super::bits::squares_above(top), self.bases[self.count])
    }
}

/// Calls `visit` with `squares[from..to]` in every order, leaving the order as it was.
fn permute(squares: &mut [Sq], from: usize, to: usize, visit: &mut dyn FnMut(&mut [Sq])) {
    if to - from <= 1 {
        visit(squares);
        return;
    }
    for k in from..to {
        squares.swap(from, k);
        permute(squares, from + 1, to, visit);
        squares.swap(from, k);
    }
}

#[cfg(test)]
mod tests;
