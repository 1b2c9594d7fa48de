//! Syzygy's index: where the readers of the format (Fathom, Stockfish, python-chess,
//! shakmaty-syzygy) look a position up. A file lists its men in an order of the writer's
//! choosing. Without pawns, the first two (the kings, where no third man is alone of its kind)
//! or three (three men each alone of its kind) form the *leading group*, placed by the board's
//! symmetries into the a1–d1–d4 triangle; with pawns, the leading group is one side's pawns,
//! the board mirrored so that the first of them in the format's pawn order stands on files
//! a–d, one subtable a file, and the other side's pawns are placed on ranks 2–7. Each run of
//! identical men after them is a group of squares chosen among those left. The groups'
//! indices are digits whose weights (the *factors*) follow the order the file's header
//! names.
//!
//! Owns: the men's order and groups of a material ([`Layout`]), the index of a placement
//! ([`Layout::index`]) and the tables it uses, made here from their definitions.
//! Must never: read a table or a file; value anything.

/// A square, `file + 8 × rank`, a1 = 0.
pub type Square = u8;

/// A man as Syzygy's headers name it: its kind (1 pawn … 6 king) and whether it is Black's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct SyzygyMan {
    /// 1 pawn, 2 knight, 3 bishop, 4 rook, 5 queen, 6 king.
    pub kind: u8,
    /// Black's man (in the file's colours: White is the side named first).
    pub black: bool,
}

impl SyzygyMan {
    /// Its header nibble: the kind, plus 8 for Black.
    pub fn nibble(self) -> u8 {
        self.kind | if self.black { 8 } else { 0 }
    }
}

fn file_of(sq: Square) -> u8 {
    sq & 7
}

fn rank_of(sq: Square) -> u8 {
    sq >> 3
}

fn flip_horizontal(sq: Square) -> Square {
    sq ^ 7
}

fn flip_vertical(sq: Square) -> Square {
    sq ^ 56
}

fn flip_diagonal(sq: Square) -> Square {
    (sq >> 3) | ((sq & 7) << 3)
}

fn on_diagonal(sq: Square) -> bool {
    file_of(sq) == rank_of(sq)
}

fn adjacent_or_same(a: Square, b: Square) -> bool {
    file_of(a).abs_diff(file_of(b)) <= 1 && rank_of(a).abs_diff(rank_of(b)) <= 1
}

/// `n` choose `k` (0 where `k > n`): looked up for the board's squares and groups of up to
/// seven men, worked out otherwise.
pub fn binomial(n: u64, k: u64) -> u64 {
    if n <= 64 && k < 8 {
        return BINOMIALS[n as usize][k as usize];
    }
    binomial_worked_out(n, k)
}

fn binomial_worked_out(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    (0..k).fold(1, |r, i| r * (n - i) / (i + 1))
}

/// `n` choose `k` for `n` ≤ 64 and `k` < 8.
static BINOMIALS: std::sync::LazyLock<[[u64; 8]; 65]> = std::sync::LazyLock::new(|| {
    let mut table = [[0u64; 8]; 65];
    for (n, row) in table.iter_mut().enumerate() {
        for (k, entry) in row.iter_mut().enumerate() {
            *entry = binomial_worked_out(n as u64, k as u64);
        }
    }
    table
});

/// The squares of the a1–d1–d4 triangle in the order of their number there: b1, c1, d1, c2,
/// d2, d3 (off the diagonal), then a1, b2, c3, d4.
const TRIANGLE_SQUARES: [Square; 10] = [1, 2, 3, 10, 11, 19, 0, 9, 18, 27];

/// The square of the a1–d1–d4 triangle that `sq` is carried to by the board's symmetries.
fn into_triangle(sq: Square) -> Square {
    let (mut f, mut r) = (file_of(sq), rank_of(sq));
    if f > 3 {
        f = 7 - f;
    }
    if r > 3 {
        r = 7 - r;
    }
    if r > f {
        std::mem::swap(&mut f, &mut r);
    }
    f + 8 * r
}

/// The number (0–9) of the triangle square `sq` is carried to.
fn triangle(sq: Square) -> u64 {
    let t = into_triangle(sq);
    TRIANGLE_SQUARES
        .iter()
        .position(|&s| s == t)
        .expect("the triangle holds every square's image") as u64
}

/// The number of a square in the b1–h1–h7 triangle below the diagonal (0–27, rank by rank),
/// a square above it taking its mirror image's, a square on it 28 + its rank.
fn lower(sq: Square) -> u64 {
    let (mut f, mut r) = (u64::from(file_of(sq)), u64::from(rank_of(sq)));
    if f == r {
        return 28 + r;
    }
    if r > f {
        std::mem::swap(&mut f, &mut r);
    }
    // Ranks before `r` hold 7, 6, … squares below the diagonal.
    (0..r).map(|k| 7 - k).sum::<u64>() + (f - r - 1)
}

/// The 462 placements of two kings not next to each other, the first in the triangle and,
/// where it is on the diagonal, the second not above it: by the first king's triangle number
/// and the second's square, its number, or `u16::MAX`. The placements with both kings on the
/// diagonal come last.
fn kings_table() -> [[u16; 64]; 10] {
    let mut table = [[u16::MAX; 64]; 10];
    let mut next = 0u16;
    for (t, &first) in TRIANGLE_SQUARES.iter().enumerate() {
        for second in 0..64u8 {
            let diagonal_first = t >= 6;
            if adjacent_or_same(first, second)
                || (diagonal_first && rank_of(second) >= file_of(second))
            {
                continue;
            }
            table[t][usize::from(second)] = next;
            next += 1;
        }
    }
    for (t, &first) in TRIANGLE_SQUARES.iter().enumerate().skip(6) {
        for second in 0..64u8 {
            if on_diagonal(second) && !adjacent_or_same(first, second) {
                table[t][usize::from(second)] = next;
                next += 1;
            }
        }
    }
    debug_assert_eq!(next, KING_PLACEMENTS as u16);
    table
}

/// Placements of the two kings as a leading group.
const KING_PLACEMENTS: u64 = 462;

/// Placements of three men each alone of its kind as a leading group.
const UNIQUE_TRIPLE_PLACEMENTS: u64 = 31_332;

/// How a pawnless material's men are listed, grouped and weighted in a Syzygy file.
#[derive(Debug, Clone)]
pub struct Layout {
    /// The men in the header's order, the leading group first, identical men next to each
    /// other.
    pub men: Vec<SyzygyMan>,
    /// The groups' sizes, the leading group first.
    pub groups: Vec<usize>,
    /// Each group's weight, then the table's size.
    pub factors: Vec<u64>,
    /// The header's order nibble: where the leading group's weight comes among the groups'
    /// (0: it varies fastest).
    pub order: u8,
    /// The header's second order nibble, for a table with pawns of both sides: where the
    /// other side's pawns' weight comes (`0xf` otherwise).
    pub pawn_order: u8,
    /// By triangle number and square: the kings' placement number (a leading group of two).
    kings: Option<Box<[[u16; 64]; 10]>>,
    /// In a table with pawns, the file (0–3) of the leading pawn this subtable holds, and
    /// whether the other side has pawns (the second group).
    pawns: Option<(u8, bool)>,
}

impl Layout {
    /// Every listing of a pawnless material's men (`men`: White's the side named first, one
    /// king a side) that the format allows, with the number of men in its leading group: each
    /// ordered choice of three men alone of their kind where there are three, else the two
    /// kings in either order; the other men after them, identical men together, their groups
    /// in every order (the later a group, the more its digit weighs).
    pub fn listings(men: &[SyzygyMan]) -> Vec<(Vec<SyzygyMan>, usize)> {
        assert!(men.iter().all(|m| m.kind != 1), "a pawnless layout");
        let alone = |m: &SyzygyMan| men.iter().filter(|n| *n == m).count() == 1;
        let mut unique: Vec<SyzygyMan> = men.iter().copied().filter(alone).collect();
        unique.sort_by_key(|m| (std::cmp::Reverse(m.kind == 6), m.black, m.kind));
        assert!(unique.iter().filter(|m| m.kind == 6).count() == 2);
        let lead = if unique.len() >= 3 { 3 } else { 2 };
        let pool: Vec<SyzygyMan> = if lead == 3 {
            unique.clone()
        } else {
            unique.iter().copied().filter(|m| m.kind == 6).collect()
        };
        let mut leads: Vec<Vec<SyzygyMan>> = Vec::new();
        for &a in &pool {
            for &b in pool.iter().filter(|&&b| b != a) {
                if lead == 2 {
                    leads.push(vec![a, b]);
                    continue;
                }
                for &c in pool.iter().filter(|&&c| c != a && c != b) {
                    leads.push(vec![a, b, c]);
                }
            }
        }
        leads
            .into_iter()
            .flat_map(|lead_men| {
                let mut rest: Vec<SyzygyMan> = men.to_vec();
                for m in &lead_men {
                    let at = rest
                        .iter()
                        .position(|n| n == m)
                        .expect("listed from the men");
                    rest.remove(at);
                }
                group_orders(&rest).into_iter().map(move |ordered| {
                    let mut listed = lead_men.clone();
                    listed.extend(ordered);
                    (listed, lead)
                })
            })
            .collect()
    }

    /// The layout of the men listed in `listed` (see [`Layout::listings`]), the first `lead`
    /// the leading group, its weight `order`-th among the groups'.
    ///
    /// # Panics
    /// If `order` is not below the number of groups.
    pub fn new(listed: Vec<SyzygyMan>, lead: usize, order: u8) -> Layout {
        let mut groups = vec![lead];
        let mut i = lead;
        while i < listed.len() {
            let run = listed[i..].iter().take_while(|m| **m == listed[i]).count();
            groups.push(run);
            i += run;
        }
        assert!(usize::from(order) < groups.len(), "order {order}");
        let lead_placements = if lead == 3 {
            UNIQUE_TRIPLE_PLACEMENTS
        } else {
            KING_PLACEMENTS
        };
        let factors = weights(&groups, (order, lead_placements), (0xf, 0));
        Layout {
            men: listed,
            groups,
            factors,
            order,
            pawn_order: 0xf,
            kings: (lead == 2).then(|| Box::new(kings_table())),
            pawns: None,
        }
    }

    /// The layout of the subtable of leading-pawn file `file` (0–3, a–d) of a material with
    /// pawns, its men listed in `listed`: the first `lead` are the leading side's pawns, then
    /// (`other_pawns` > 0) the other side's pawns, then the pieces, identical men together;
    /// the leading pawns' weight `order`-th among the groups', the other pawns' `pawn_order`-th
    /// (ignored without them).
    ///
    /// # Panics
    /// If the orders are not distinct and below the number of groups.
    pub fn with_pawns(
        listed: Vec<SyzygyMan>,
        lead: usize,
        other_pawns: usize,
        file: u8,
        order: u8,
        pawn_order: u8,
    ) -> Layout {
        let both = other_pawns > 0;
        let mut groups = vec![lead];
        if both {
            groups.push(other_pawns);
        }
        let mut i = groups.iter().sum::<usize>();
        while i < listed.len() {
            let run = listed[i..].iter().take_while(|m| **m == listed[i]).count();
            groups.push(run);
            i += run;
        }
        let pawn_order = if both { pawn_order } else { 0xf };
        assert!(usize::from(order) < groups.len() && order != pawn_order);
        assert!(!both || usize::from(pawn_order) < groups.len());
        let factors = weights(
            &groups,
            (order, PAWNS.size[lead][usize::from(file)]),
            (pawn_order, binomial(48 - lead as u64, other_pawns as u64)),
        );
        Layout {
            men: listed,
            groups,
            factors,
            order,
            pawn_order,
            kings: None,
            pawns: Some((file, both)),
        }
    }

    /// Entries of a side.
    pub fn size(&self) -> u64 {
        self.factors[self.groups.len()]
    }

    /// The index of a placement: `squares[i]` holds the man `men[i]`. The readers' own steps:
    /// the board turned so that the first man is in the a1–d1–d4 triangle and, where the
    /// leading group's first men stand on the diagonal, the first off it below; then the
    /// leading group's number, and each group's squares as a combination of those the men
    /// before it leave free.
    pub fn index(&self, squares: &[Square]) -> u64 {
        let mut sq: [Square; 8] = [0; 8];
        let n = squares.len();
        sq[..n].copy_from_slice(squares);
        let sq = &mut sq[..n];
        if let Some((_, both)) = self.pawns {
            return self.pawn_index(sq, both);
        }
        turn_into_triangle(sq, self.groups[0]);
        let lead = match &self.kings {
            Some(kings) => {
                let number = kings[triangle(sq[0]) as usize][usize::from(sq[1])];
                debug_assert!(number != u16::MAX, "kings apart, placed");
                u64::from(number)
            }
            None => unique_triple(sq[0], sq[1], sq[2]),
        };
        self.with_groups(sq, lead, false)
    }

    /// The index of a placement of a table with pawns (`squares` in the listing's order): the
    /// leading pawn the one furthest up the format's pawn order, the board mirrored so that it
    /// stands on files a–d, its subtable's number for the leading pawns, then the groups.
    fn pawn_index(&self, sq: &mut [Square], both: bool) -> u64 {
        let number = lead_pawns_number(sq, self.groups[0]);
        debug_assert_eq!(Some(file_of(sq[0])), self.pawns.map(|(f, _)| f));
        self.with_groups(sq, number, both)
    }

    /// The index from the leading group's number `lead` and the groups after it, each a
    /// combination of the squares the men before it leave (the other side's pawns, when
    /// `other_pawns`, of the 48 squares of ranks 2–7).
    fn with_groups(&self, sq: &mut [Square], lead: u64, other_pawns: bool) -> u64 {
        let mut index = lead * self.factors[0];
        let mut before = self.groups[0];
        for (g, &len) in self.groups.iter().enumerate().skip(1) {
            let (placed, group) = sq.split_at_mut(before);
            let group = &mut group[..len];
            group.sort_unstable();
            let rank_one = if other_pawns && g == 1 { 8 } else { 0 };
            let mut number = 0;
            for (i, &s) in group.iter().enumerate() {
                let below = placed.iter().filter(|&&p| p < s).count() as u64;
                number += binomial(u64::from(s) - below - rank_one, i as u64 + 1);
            }
            index += number * self.factors[g];
            before += len;
        }
        index
    }
}

/// The number of the leading pawns (the first `lead` of `sq`) in their file's subtable, the
/// placement turned as the readers turn it: the pawn furthest up the format's pawn order first,
/// the board mirrored so that it stands on files a–d, the others in the pawn order.
fn lead_pawns_number(sq: &mut [Square], lead: usize) -> u64 {
    let first = (0..lead)
        .max_by_key(|&i| PAWNS.map[usize::from(sq[i])])
        .expect("a leading pawn");
    sq.swap(0, first);
    if file_of(sq[0]) >= 4 {
        sq.iter_mut().for_each(|s| *s = flip_horizontal(*s));
    }
    sq[1..lead].sort_unstable_by_key(|&s| PAWNS.map[usize::from(s)]);
    let mut number = PAWNS.index[lead][usize::from(sq[0])];
    for (i, &s) in sq[1..lead].iter().enumerate() {
        number += binomial(PAWNS.map[usize::from(s)], i as u64 + 1);
    }
    number
}

/// Leading pawns placed at most (a six-man table's).
const MOST_LEADING_PAWNS: usize = 5;

/// By number of leading pawns (1 to [`MOST_LEADING_PAWNS`], made when first asked) and file of
/// the subtable, by number, the pawns' squares as the readers turn them.
static LEAD_PAWN_PLACEMENTS: [std::sync::OnceLock<[Vec<[Square; MOST_LEADING_PAWNS]>; 4]>;
    MOST_LEADING_PAWNS + 1] = [const { std::sync::OnceLock::new() }; MOST_LEADING_PAWNS + 1];

fn lead_pawn_placements(lead: usize) -> &'static [Vec<[Square; MOST_LEADING_PAWNS]>; 4] {
    LEAD_PAWN_PLACEMENTS[lead].get_or_init(|| {
        let mut out: [Vec<[Square; MOST_LEADING_PAWNS]>; 4] = std::array::from_fn(|file| {
            vec![[0; MOST_LEADING_PAWNS]; PAWNS.size[lead][file] as usize]
        });
        // Every set of `lead` squares of ranks 2–7, in increasing order.
        let mut chosen: Vec<Square> = (8..8 + lead as Square).collect();
        loop {
            let mut sq = [0 as Square; MOST_LEADING_PAWNS];
            sq[..lead].copy_from_slice(&chosen);
            let number = lead_pawns_number(&mut sq[..lead], lead);
            out[usize::from(file_of(sq[0]))][number as usize] = sq;
            // The next set: the last square that can move up does, those after it follow.
            let Some(k) = (0..lead)
                .rev()
                .find(|&k| chosen[k] < 56 - (lead - k) as Square)
            else {
                break;
            };
            chosen[k] += 1;
            for j in k + 1..lead {
                chosen[j] = chosen[j - 1] + 1;
            }
        }
        out
    })
}

impl Layout {
    /// The placement a layout's `index` stands for, the inverse of [`Layout::index`]: the men's
    /// squares in the listing's order, the board as the readers turn it (`None` past the
    /// size, or with more than five leading pawns).
    pub fn placement(&self, index: u64) -> Option<Vec<Square>> {
        let mut squares = [0; 8];
        let n = self.placement_into(index, &mut squares)?;
        Some(squares[..n].to_vec())
    }

    /// [`Layout::placement`] into `squares`, without allocating: how many men it placed.
    pub fn placement_into(&self, index: u64, squares: &mut [Square; 8]) -> Option<usize> {
        if index >= self.size() {
            return None;
        }
        let lead = self.groups[0];
        match self.pawns {
            None => {
                let leads = &LEAD_PLACEMENTS[usize::from(lead == 3)];
                let number = (index / self.factors[0]) % leads.len() as u64;
                squares[..lead].copy_from_slice(&leads[number as usize][..lead]);
            }
            Some((file, _)) => {
                if lead > MOST_LEADING_PAWNS {
                    return None;
                }
                let leads = &lead_pawn_placements(lead)[usize::from(file)];
                let number = (index / self.factors[0]) % leads.len() as u64;
                squares[..lead].copy_from_slice(&leads[number as usize][..lead]);
            }
        }
        let mut taken: u64 = squares[..lead].iter().fold(0, |m, &s| m | 1 << s);
        let mut placed = lead;
        let mut free = 64 - lead as u64;
        let other_pawns = self.pawns.is_some_and(|(_, both)| both);
        for (g, &len) in self.groups.iter().enumerate().skip(1) {
            // The other side's pawns stand on ranks 2–7: the squares of ranks 1 and 8 are not
            // theirs to take.
            let pawn_group = other_pawns && g == 1;
            let (unavailable, room) = if pawn_group {
                (!0x00ff_ffff_ffff_ff00u64, 48 - lead as u64)
            } else {
                (0, free)
            };
            let mut number = (index / self.factors[g]) % binomial(room, len as u64);
            // The group's ranks among the free squares, largest first: the combination whose
            // number (a sum of binomials, colexicographic) this is.
            let mut group = [0 as Square; 8];
            for i in (0..len).rev() {
                let k = i as u64 + 1;
                // The largest r with C(r, k) ≤ number, by halving [i, room).
                let (mut low, mut high) = (i as u64, room);
                while high - low > 1 {
                    let mid = (low + high) / 2;
                    if binomial(mid, k) <= number {
                        low = mid;
                    } else {
                        high = mid;
                    }
                }
                let r = low;
                number -= binomial(r, k);
                // The r-th square not taken by the groups before.
                group[i] = nth_set_square(!taken & !unavailable, r as u32);
            }
            squares[placed..placed + len].copy_from_slice(&group[..len]);
            for &sq in &group[..len] {
                taken |= 1 << sq;
            }
            placed += len;
            free -= len as u64;
        }
        Some(placed)
    }
}

/// The square of the `n`-th set bit of `squares` (from a1), `n` below their count.
fn nth_set_square(squares: u64, mut n: u32) -> Square {
    let mut base = 0u32;
    let mut rest = squares;
    // Whole bytes first, then bits.
    loop {
        let count = (rest & 0xff).count_ones();
        if n < count {
            break;
        }
        n -= count;
        rest >>= 8;
        base += 8;
    }
    for _ in 0..n {
        rest &= rest - 1;
    }
    (base + rest.trailing_zeros()) as Square
}

/// By leading group number, the group's squares as the readers turn them (an unused third
/// for two kings): `[0]` two kings, `[1]` three men each alone of its kind.
static LEAD_PLACEMENTS: std::sync::LazyLock<[Vec<[Square; 3]>; 2]> =
    std::sync::LazyLock::new(|| {
        let kings = kings_table();
        let mut two = vec![[0u8; 3]; KING_PLACEMENTS as usize];
        let mut three = vec![[0u8; 3]; UNIQUE_TRIPLE_PLACEMENTS as usize];
        for a in 0..64u8 {
            for b in (0..64u8).filter(|&b| b != a) {
                let mut sq = [a, b, 0];
                turn_into_triangle(&mut sq[..2], 2);
                let number = kings[triangle(sq[0]) as usize][usize::from(sq[1])];
                if number != u16::MAX {
                    two[usize::from(number)] = sq;
                }
                for c in (0..64u8).filter(|&c| c != a && c != b) {
                    let mut sq = [a, b, c];
                    turn_into_triangle(&mut sq, 3);
                    three[unique_triple(sq[0], sq[1], sq[2]) as usize] = sq;
                }
            }
        }
        [two, three]
    });

/// `men` listed with identical men together, the groups in every order (each order once):
/// White's before Black's and the stronger first in the first listing.
pub fn group_orders(men: &[SyzygyMan]) -> Vec<Vec<SyzygyMan>> {
    let mut sorted = men.to_vec();
    sorted.sort_by_key(|m| (m.black, std::cmp::Reverse(m.kind)));
    let mut groups: Vec<Vec<SyzygyMan>> = Vec::new();
    for m in sorted {
        match groups.last_mut() {
            Some(g) if g[0] == m => g.push(m),
            _ => groups.push(vec![m]),
        }
    }
    let mut out = Vec::new();
    let mut order: Vec<usize> = (0..groups.len()).collect();
    loop {
        out.push(order.iter().flat_map(|&g| groups[g].clone()).collect());
        // The next permutation in lexicographic order, until the last.
        let Some(i) = (1..order.len()).rev().find(|&i| order[i - 1] < order[i]) else {
            break;
        };
        let j = (i..order.len())
            .rev()
            .find(|&j| order[j] > order[i - 1])
            .expect("a larger element after");
        order.swap(i - 1, j);
        order[i..].reverse();
    }
    out
}

/// The file (0–3, a–d) of the subtable a placement of leading pawns on `squares` belongs to:
/// that of the pawn furthest up the format's pawn order, mirrored onto files a–d.
pub fn pawn_file(squares: &[Square]) -> u8 {
    let first = squares
        .iter()
        .copied()
        .max_by_key(|&s| PAWNS.map[usize::from(s)])
        .expect("a leading pawn");
    let f = file_of(first);
    if f >= 4 {
        7 - f
    } else {
        f
    }
}

/// The format's numbering of the pawns' squares.
struct PawnTables {
    /// By square of ranks 2–7: 47 for a2, 46 for h2, 45 for a3, … down the a and h files, then
    /// the b and g files, and so on to e7's 0.
    map: [u64; 64],
    /// By number of leading pawns and the first one's square: the first number of its
    /// placements in its file's subtable.
    index: [[u64; 64]; 7],
    /// By number of leading pawns and file: the placements of a subtable.
    size: [[u64; 4]; 7],
}

static PAWNS: std::sync::LazyLock<PawnTables> = std::sync::LazyLock::new(|| {
    let mut map = [0u64; 64];
    let mut available = 48;
    for file in 0..4u8 {
        for rank in 1..7u8 {
            let sq = file + 8 * rank;
            available -= 1;
            map[usize::from(sq)] = available;
            available -= 1;
            map[usize::from(flip_horizontal(sq))] = available;
        }
    }
    let mut index = [[0u64; 64]; 7];
    let mut size = [[0u64; 4]; 7];
    for count in 1..7usize {
        for file in 0..4u8 {
            let mut next = 0;
            for rank in 1..7u8 {
                let sq = usize::from(file + 8 * rank);
                index[count][sq] = next;
                next += binomial(map[sq], count as u64 - 1);
            }
            size[count][usize::from(file)] = next;
        }
    }
    PawnTables { map, index, size }
});

/// The groups' weights, then the size, as the readers work them out from the header: the
/// leading group's comes `lead.0`-th among them and covers `lead.1` placements, the other
/// side's pawns' (`pawns.0`, `0xf` where there are none) `pawns.1`, and each other group's a
/// combination of the squares the men before it leave.
fn weights(groups: &[usize], lead: (u8, u64), pawns: (u8, u64)) -> Vec<u64> {
    let both = pawns.0 != 0xf;
    let mut factors = vec![0u64; groups.len() + 1];
    let before = if both { 2 } else { 1 };
    let mut free = 64 - groups[..before].iter().sum::<usize>() as u64;
    let mut weight = 1u64;
    let mut next = before;
    for k in 0..groups.len() as u8 {
        if k == lead.0 {
            factors[0] = weight;
            weight *= lead.1;
        } else if k == pawns.0 {
            factors[1] = weight;
            weight *= pawns.1;
        } else {
            factors[next] = weight;
            weight *= binomial(free, groups[next] as u64);
            free -= groups[next] as u64;
            next += 1;
        }
    }
    factors[groups.len()] = weight;
    factors
}

/// Turns a pawnless placement as the readers do: the first man into the a1–d1–d4 triangle
/// and, where the first men of the leading group (`lead` men) stand on the diagonal, the
/// first of them off it below the diagonal.
fn turn_into_triangle(sq: &mut [Square], lead: usize) {
    if file_of(sq[0]) >= 4 {
        sq.iter_mut().for_each(|s| *s = flip_horizontal(*s));
    }
    if rank_of(sq[0]) >= 4 {
        sq.iter_mut().for_each(|s| *s = flip_vertical(*s));
    }
    for i in 0..lead {
        if on_diagonal(sq[i]) {
            continue;
        }
        if rank_of(sq[i]) > file_of(sq[i]) {
            sq[i..].iter_mut().for_each(|s| *s = flip_diagonal(*s));
        }
        break;
    }
}

/// The number of three men each alone of its kind, the first in the triangle: off the
/// diagonal, its triangle number and the others' squares among those left; on it, the first
/// man off the diagonal below it, those before it on the diagonal by rank.
fn unique_triple(a: Square, b: Square, c: Square) -> u64 {
    let adjust1 = u64::from(b > a);
    let adjust2 = u64::from(c > a) + u64::from(c > b);
    let (b64, c64) = (u64::from(b), u64::from(c));
    let rank = |s: Square| u64::from(rank_of(s));
    if !on_diagonal(a) {
        triangle(a) * 63 * 62 + (b64 - adjust1) * 62 + (c64 - adjust2)
    } else if !on_diagonal(b) {
        6 * 63 * 62 + rank(a) * 28 * 62 + lower(b) * 62 + c64 - adjust2
    } else if !on_diagonal(c) {
        6 * 63 * 62 + 4 * 28 * 62 + rank(a) * 7 * 28 + (rank(b) - adjust1) * 28 + lower(c)
    } else {
        6 * 63 * 62
            + 4 * 28 * 62
            + 4 * 7 * 28
            + rank(a) * 7 * 6
            + (rank(b) - adjust1) * 6
            + (rank(c) - adjust2)
    }
}

/// The placement mirrored between the a and h files: with the placement itself, every index
/// the readers give a placement of a table with pawns.
pub fn mirror_image(squares: &[Square]) -> [Square; 8] {
    let mut image = [0; 8];
    for (to, &from) in image.iter_mut().zip(squares) {
        *to = flip_horizontal(from);
    }
    image
}

/// The placement turned about the a1–h8 diagonal. A placement and this image reach every
/// index the readers give its eight images: turning the board so that the first man is in
/// the a1–d1–d4 triangle leaves only the diagonal to choose, and the readers choose it from
/// the leading group alone (a placement whose leading group stands on the diagonal has two
/// indices, its image's and its own).
pub fn diagonal_image(squares: &[Square]) -> [Square; 8] {
    let mut image = [0; 8];
    for (to, &from) in image.iter_mut().zip(squares) {
        *to = flip_diagonal(from);
    }
    image
}

/// The eight images of a placement under the board's symmetries (pawnless), for the tests.
#[cfg(test)]
fn images(squares: &[Square]) -> impl Iterator<Item = Vec<Square>> + '_ {
    (0..8u8).map(move |s| {
        squares
            .iter()
            .map(|&q| {
                let mut q = q;
                if s & 1 != 0 {
                    q = flip_horizontal(q);
                }
                if s & 2 != 0 {
                    q = flip_vertical(q);
                }
                if s & 4 != 0 {
                    q = flip_diagonal(q);
                }
                q
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kings_table_numbers_each_placement_once() {
        let table = kings_table();
        let mut seen = vec![false; KING_PLACEMENTS as usize];
        for row in table.iter() {
            for &n in row.iter().filter(|&&n| n != u16::MAX) {
                assert!(!seen[usize::from(n)], "{n} twice");
                seen[usize::from(n)] = true;
            }
        }
        assert!(seen.iter().all(|&s| s));
        // The format's own examples: b1 with d1 is 0, a1 with c1 is 339, c3 with a1 is 452.
        assert_eq!(table[0][3], 0);
        assert_eq!(table[6][2], 339);
        assert_eq!(table[8][0], 452);
        assert_eq!(table[9][63], 461);
    }

    #[test]
    fn the_triangles_number_their_squares() {
        assert_eq!(triangle(0), 6); // a1
        assert_eq!(triangle(63), 6); // h8
        assert_eq!(triangle(8), 0); // a2 is b1's image
        assert_eq!(triangle(27), 9); // d4
        assert_eq!(lower(1), 0); // b1
        assert_eq!(lower(8), 0); // a2
        assert_eq!(lower(10), 7); // c2
        assert_eq!(lower(55), 27); // h7
        assert_eq!(lower(63), 35); // h8
    }

    #[test]
    fn every_placement_of_three_men_alone_has_a_number_below_the_size() {
        let mut seen = vec![false; UNIQUE_TRIPLE_PLACEMENTS as usize];
        for a in 0..64u8 {
            for b in (0..64u8).filter(|&b| b != a) {
                for c in (0..64u8).filter(|&c| c != a && c != b) {
                    let mut sq = [a, b, c];
                    turn_into_triangle(&mut sq, 3);
                    let n = unique_triple(sq[0], sq[1], sq[2]);
                    assert!(n < UNIQUE_TRIPLE_PLACEMENTS, "{a} {b} {c}: {n}");
                    seen[n as usize] = true;
                }
            }
        }
        assert!(seen.iter().all(|&s| s), "every number is a placement's");
    }

    #[test]
    fn a_placement_is_the_inverse_of_the_index() {
        let man = |kind, black| SyzygyMan { kind, black };
        // KQvKR, KRRvK and KRRvKB: three men alone lead, the kings lead, groups after them.
        let materials: [&[SyzygyMan]; 3] = [
            &[man(6, false), man(5, false), man(6, true), man(4, true)],
            &[man(6, false), man(4, false), man(4, false), man(6, true)],
            &[
                man(6, false),
                man(4, false),
                man(4, false),
                man(6, true),
                man(3, true),
            ],
        ];
        let mut rng = 0x9e37_79b9u64;
        for men in materials {
            for (listed, lead) in Layout::listings(men) {
                let groups = Layout::new(listed.clone(), lead, 0).groups.len() as u8;
                for order in 0..groups {
                    let layout = Layout::new(listed.clone(), lead, order);
                    for _ in 0..500 {
                        rng = rng.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                        let index = (rng >> 11) % layout.size();
                        let squares = layout.placement(index).expect("a pawnless layout");
                        assert_eq!(squares.len(), men.len());
                        let mut distinct = squares.clone();
                        distinct.sort_unstable();
                        distinct.dedup();
                        assert_eq!(distinct.len(), men.len(), "{squares:?}");
                        assert_eq!(layout.index(&squares), index, "{squares:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_placement_is_the_inverse_of_the_index_with_pawns() {
        let man = |kind, black| SyzygyMan { kind, black };
        let (pawn, black_pawn) = (man(1, false), man(1, true));
        let (king, black_king) = (man(6, false), man(6, true));
        // KPvK, KPPvK (two leading pawns), KPvKP and KPPvKP (the other side's pawns a group).
        let listings: [(Vec<SyzygyMan>, usize, usize); 4] = [
            (vec![pawn, king, black_king], 1, 0),
            (vec![pawn, pawn, king, black_king], 2, 0),
            (vec![pawn, black_pawn, king, black_king], 1, 1),
            (vec![black_pawn, pawn, pawn, king, black_king], 1, 2),
        ];
        let mut rng = 0x51_7cc1_b727_220au64;
        for (listed, lead, other) in listings {
            let groups = listed.len() - lead - other + 1 + usize::from(other > 0);
            for file in 0..4 {
                for order in 0..groups as u8 {
                    let pawn_order = if other > 0 {
                        (order + 1) % groups as u8
                    } else {
                        0xf
                    };
                    let layout =
                        Layout::with_pawns(listed.clone(), lead, other, file, order, pawn_order);
                    for _ in 0..300 {
                        rng = rng.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                        let index = (rng >> 11) % layout.size();
                        let squares = layout.placement(index).expect("a placement");
                        let mut distinct = squares.clone();
                        distinct.sort_unstable();
                        distinct.dedup();
                        assert_eq!(distinct.len(), listed.len(), "{squares:?}");
                        assert_eq!(pawn_file(&squares[..lead]), file, "{squares:?}");
                        assert_eq!(layout.index(&squares), index, "{squares:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_placement_and_its_diagonal_image_reach_the_indices_of_all_eight() {
        let man = |kind, black| SyzygyMan { kind, black };
        // KQvKR (three men alone lead) and KRRvK (the kings lead).
        let materials = [
            [man(6, false), man(5, false), man(6, true), man(4, true)],
            [man(6, false), man(4, false), man(4, false), man(6, true)],
        ];
        let mut rng = 0x1234_5678u64;
        for (listed, lead) in materials.iter().flat_map(|men| Layout::listings(men)) {
            let layout = Layout::new(listed, lead, 0);
            let kings: Vec<usize> = (0..4).filter(|&i| layout.men[i].kind == 6).collect();
            for _ in 0..2000 {
                let mut squares = Vec::new();
                while squares.len() < 4 {
                    rng = rng.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    // Diagonal squares often, so that leading groups stand on it.
                    let sq = if rng >> 60 < 6 {
                        9 * ((rng >> 33) % 8) as u8
                    } else {
                        ((rng >> 33) % 64) as u8
                    };
                    if !squares.contains(&sq) {
                        squares.push(sq);
                    }
                }
                if adjacent_or_same(squares[kings[0]], squares[kings[1]]) {
                    continue;
                }
                let reached = [
                    layout.index(&squares),
                    layout.index(&diagonal_image(&squares)[..4]),
                ];
                for image in images(&squares) {
                    assert!(reached.contains(&layout.index(&image)), "{squares:?}");
                }
            }
        }
    }

    #[test]
    fn a_layout_lists_the_kings_first_and_weighs_its_groups() {
        let k = SyzygyMan {
            kind: 6,
            black: false,
        };
        let kb = SyzygyMan {
            kind: 6,
            black: true,
        };
        let r = SyzygyMan {
            kind: 4,
            black: false,
        };
        // KRRvK: the kings lead, the rooks are a group of two.
        let listings = Layout::listings(&[k, r, r, kb]);
        assert_eq!(listings.len(), 2);
        // KRvKR: three of the four men lead, the fourth after them; KRRvKRR: the rooks of
        // each side are a group, in either order after the kings.
        let rb = SyzygyMan {
            kind: 4,
            black: true,
        };
        assert_eq!(Layout::listings(&[k, r, kb, rb]).len(), 24);
        let two_groups = Layout::listings(&[k, r, r, kb, rb, rb]);
        assert_eq!(two_groups.len(), 2 * 2);
        assert!(two_groups.iter().any(|(l, _)| l[2..] == [r, r, rb, rb]));
        assert!(two_groups.iter().any(|(l, _)| l[2..] == [rb, rb, r, r]));
        let (listed, lead) = listings[0].clone();
        let layout = Layout::new(listed, lead, 0);
        assert_eq!(layout.men, vec![k, kb, r, r]);
        assert_eq!(layout.groups, vec![2, 2]);
        assert_eq!(layout.factors, vec![1, 462, 462 * binomial(62, 2)]);
        // KRvK: three men alone lead.
        let listings = Layout::listings(&[k, r, kb]);
        assert_eq!(listings.len(), 6);
        let (listed, lead) = listings[0].clone();
        let layout = Layout::new(listed, lead, 0);
        assert_eq!(layout.groups, vec![3]);
        assert_eq!(layout.size(), 31_332);
    }
}
