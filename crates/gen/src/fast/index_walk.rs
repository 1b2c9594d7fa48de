//! Walking the stored index: the entries of one king pair in the order of the index, a run
//! of one man's squares at a time where the layout holds them so, and the slots that hold them.
//!
//! Owns: the runs of a king pair's placements ([`for_each_run`], [`for_each_write_run`],
//! kept to some placements of one group by a [`GroupFilter`]), and [`PairWalk`], which hands
//! the stretches of a pair's entries to the writer and the store of parts.
//! Must never: read or write a code but where its callers ask ([`EntryRun::read`]).

use super::cells::Cells;
use super::layout::{Layout, MAX_MEN};
use retro_engine::index::GroupField;
use retro_engine::{Geometry, Indexer, Sq, TABLE_MEN};
use retro_rules::Side;

/// The groups of `indexer`'s men besides the kings, if there is one.
pub(super) fn group_fields(indexer: &Indexer) -> Option<Vec<GroupField>> {
    Some(indexer.group_fields()).filter(|g| !g.is_empty())
}

/// Calls `visit` with every run of one king pair's indices (`groups` from [`group_fields`]),
/// in order: the number of its first index within the pair, that index's squares, and its
/// length. When the last group is one man a run is the indices in which only its digit
/// changes: the first one's squares with that man on the following squares, whose slots
/// follow one another too (its field is the last). Otherwise each index is a run of its own.
/// The digits count up as the index does: a group's men stand on increasing squares, and its
/// next combination (colex order, in which the rank `Σ C(dᵢ, i + 1)` counts up by one) moves
/// the lowest man that can move up by one square and puts the men below it back on the
/// group's first squares.
pub(super) fn for_each_run(
    groups: &[GroupField],
    wk: Sq,
    bk: Sq,
    visit: impl FnMut(usize, &[Sq], usize),
) {
    for_each_run_kept(groups, wk, bk, None, visit)
}

/// Which placements a walk over the index keeps: those whose group `group` (not the last)
/// has its men on one of the placements `allowed` — each the group's digit (the rank of its
/// squares, see [`colex_rank`]) and its squares, in increasing order of digit. The others are
/// passed over whole, with every placement of the groups after them.
pub(super) struct GroupFilter {
    pub(super) group: usize,
    pub(super) allowed: Vec<(u64, Vec<Sq>)>,
}

/// The digit of a group whose men stand on `men` (increasing squares) in the field starting
/// at `first`: the rank `Σ C(dᵢ, i + 1)` of `dᵢ = men[i] − first` in colex order.
pub(super) fn colex_rank(men: &[Sq], first: Sq) -> u64 {
    let binomial = |n: u64, k: u64| (0..k).fold(1u64, |c, i| c * (n - i) / (i + 1));
    men.iter()
        .enumerate()
        .map(|(i, &sq)| {
            let d = u64::from(sq - first);
            if d > i as u64 {
                binomial(d, i as u64 + 1)
            } else {
                0
            }
        })
        .sum()
}

/// Moves a walk on to a placement `filter` keeps, where the groups after its group stand on
/// their first squares (or the group's placement is kept): the group's men set on the next
/// kept placement from the current one on, and the entries passed over added to `index`.
/// `false` when none is left.
pub(super) fn skip_to_kept(
    filter: Option<&GroupFilter>,
    groups: &[GroupField],
    starts: &[usize],
    squares: &mut [Sq],
    index: &mut usize,
) -> bool {
    let Some(filter) = filter else {
        return true;
    };
    let g = filter.group;
    let field = groups[g];
    let after: u64 = groups[g + 1..].iter().map(|field| field.radix).product();
    loop {
        let men = &mut squares[starts[g]..starts[g] + field.count];
        let rank = colex_rank(men, field.first);
        let next = filter.allowed.partition_point(|&(digit, _)| digit < rank);
        if let Some((digit, placed)) = filter.allowed.get(next) {
            *index += ((digit - rank) * after) as usize;
            men.copy_from_slice(placed);
            return true;
        }
        // None of this group's kept placements is left under the groups before it.
        *index += ((field.radix - rank) * after) as usize;
        for (k, sq) in men.iter_mut().enumerate() {
            *sq = field.first + k as Sq;
        }
        if !next_placement(&groups[..g], starts, squares) {
            return false;
        }
    }
}

/// [`for_each_run`] over the placements `filter` keeps (all without one); the indices passed
/// to `visit` are still those within the pair.
pub(super) fn for_each_run_kept(
    groups: &[GroupField],
    wk: Sq,
    bk: Sq,
    filter: Option<&GroupFilter>,
    mut visit: impl FnMut(usize, &[Sq], usize),
) {
    let (mut squares, starts, n) = first_placement(groups, wk, bk);
    let last = groups.last().expect("a man besides the kings");
    let (counted, len) = match last.count {
        1 => (groups.len() - 1, last.domain),
        _ => (groups.len(), 1),
    };
    let mut index = 0;
    loop {
        if !skip_to_kept(filter, groups, &starts, &mut squares, &mut index) {
            return;
        }
        visit(index, &squares[..n], len);
        index += len;
        if !next_placement(&groups[..counted], &starts, &mut squares) {
            return;
        }
    }
}

/// [`for_each_run`] for writing a table, with longer runs where the last group is a pair of
/// identical men: a run is then the indices in which only the lower one's digit changes (the
/// lower man on the group's first squares up to the higher one's), whose slots lie the
/// lower man's stride apart. `visit` gets, besides, the man whose square counts up along the
/// run. Only the placements `filter` keeps are visited.
pub(super) fn for_each_write_run(
    groups: &[GroupField],
    wk: Sq,
    bk: Sq,
    filter: Option<&GroupFilter>,
    mut visit: impl FnMut(usize, &[Sq], usize, usize),
) {
    let last = *groups.last().expect("a man besides the kings");
    if last.count != 2 {
        return for_each_run_kept(groups, wk, bk, filter, |run, squares, len| {
            visit(run, squares, len, squares.len() - 1)
        });
    }
    let (mut squares, starts, n) = first_placement(groups, wk, bk);
    let others = &groups[..groups.len() - 1];
    let mut index = 0;
    loop {
        if !skip_to_kept(filter, groups, &starts, &mut squares, &mut index) {
            return;
        }
        // The pair's rank `C(d₀, 1) + C(d₁, 2)` counts up by one along `d₀ = 0..d₁`.
        for high in 1..last.domain {
            squares[n - 2] = last.first;
            squares[n - 1] = last.first + high as Sq;
            visit(index, &squares[..n], high, n - 2);
            index += high;
        }
        if !next_placement(others, &starts, &mut squares) {
            return;
        }
    }
}

/// The squares of a king pair's first index (`wk`, `bk`, then each group's men on its first
/// squares), where each group's men begin in them, and how many men there are.
pub(super) fn first_placement(
    groups: &[GroupField],
    wk: Sq,
    bk: Sq,
) -> ([Sq; MAX_MEN], [usize; MAX_MEN], usize) {
    let mut squares = [0 as Sq; MAX_MEN];
    squares[0] = wk;
    squares[1] = bk;
    let mut at = 2;
    let mut starts = [0usize; MAX_MEN];
    for (g, field) in groups.iter().enumerate() {
        starts[g] = at;
        for k in 0..field.count {
            squares[at] = field.first + k as Sq;
            at += 1;
        }
    }
    (squares, starts, at)
}

/// Moves `squares` to the next combination of `groups` (the last of them least significant,
/// each starting at `starts`); `false` after the last.
pub(super) fn next_placement(groups: &[GroupField], starts: &[usize], squares: &mut [Sq]) -> bool {
    let mut g = groups.len();
    loop {
        if g == 0 {
            return false;
        }
        g -= 1;
        let field = groups[g];
        let men = &mut squares[starts[g]..starts[g] + field.count];
        if next_combination(men, field) {
            return true;
        }
        for (k, sq) in men.iter_mut().enumerate() {
            *sq = field.first + k as Sq;
        }
    }
}

/// Moves the squares of one group (increasing) to the next combination in colex order;
/// `false` after the last.
#[inline(always)]
pub(super) fn next_combination(men: &mut [Sq], field: GroupField) -> bool {
    let end = usize::from(field.first) + field.domain;
    for i in 0..men.len() {
        let limit = men.get(i + 1).map_or(end, |&up| usize::from(up));
        if usize::from(men[i]) + 1 < limit {
            men[i] += 1;
            for (k, sq) in men[..i].iter_mut().enumerate() {
                *sq = field.first + k as Sq;
            }
            return true;
        }
    }
    false
}

/// Whether the entries of a king pair whose White king stands on `wk` are read a run at a
/// time ([`Stretch::Run`]): with the White king in the layout's region, every index of the
/// pair is read from the slot of its squares.
pub(super) fn by_runs(layout: &Layout, groups: Option<&[GroupField]>, wk: Sq) -> bool {
    groups.is_some() && layout.in_region(wk)
}

/// The entries of the stored index's king pairs, one pair at a time, and the slots of the
/// work table that hold them.
pub(super) struct PairWalk<'a> {
    geo: &'a Geometry,
    indexer: &'a Indexer,
    layout: &'a Layout,
    groups: Option<&'a [GroupField]>,
}

/// A stretch of one king pair's entries ([`PairWalk::for_each_stretch`]).
pub(super) enum Stretch<'a> {
    /// Entries read a run at a time.
    Run(EntryRun<'a>),
    /// Entry `at` of the pair, the position held in `slot` (entries of no position are passed
    /// over: they stay `0`).
    One { at: usize, slot: u64 },
}

/// Entries `at .. at + len` of a king pair: the placement `squares` with man `moving` on its
/// following squares, held in the slots `base + k · stride`. An entry whose placement is not
/// the least of its images under `turns` (symmetries fixing both kings) is no position.
pub(super) struct EntryRun<'a> {
    pub(super) at: usize,
    squares: &'a [Sq],
    pub(super) len: usize,
    moving: usize,
    pub(super) base: u64,
    pub(super) stride: u64,
    turns: &'a [&'a [Sq]],
}

impl EntryRun<'_> {
    /// Copies the run's work codes into `out` (`len` bytes).
    pub(super) fn read(&self, cells: &Cells, out: &mut [u8]) {
        match self.stride {
            1 => cells.copy_to(self.base, out),
            stride => {
                for (k, cell) in out.iter_mut().enumerate() {
                    *cell = cells.get(self.base + k as u64 * stride);
                }
            }
        }
    }

    /// Sets to 0 the entries of `out` (`width` bytes each) that are no position because a
    /// symmetry fixing both kings makes their squares smaller ([`least_image`]).
    pub(super) fn clear_images(&self, layout: &Layout, out: &mut [u8], width: usize) {
        if self.turns.is_empty() {
            return;
        }
        for (k, entry) in out.chunks_exact_mut(width).enumerate() {
            if !self.is_position(layout, k) {
                entry.fill(0);
            }
        }
    }

    /// Whether the run's `k`-th entry may be a position: no symmetry fixing both kings makes
    /// its squares smaller ([`least_image`]). Its slot may still hold men on one square.
    pub(super) fn is_position(&self, layout: &Layout, k: usize) -> bool {
        self.turns.is_empty() || least_image(layout, self.squares, self.moving, k, self.turns)
    }
}

impl<'a> PairWalk<'a> {
    /// A walk over the index `indexer` numbers, `groups` its groups ([`group_fields`]), and the
    /// slots of `layout`.
    pub(super) fn new(
        geo: &'a Geometry,
        indexer: &'a Indexer,
        layout: &'a Layout,
        groups: Option<&'a [GroupField]>,
    ) -> PairWalk<'a> {
        PairWalk {
            geo,
            indexer,
            layout,
            groups,
        }
    }

    /// Calls `visit` with the stretches of king pair `pair`'s entries, side to move `side`,
    /// in the order of the index: read a run at a time, only the placements `filter` keeps
    /// (the squares of the index are then those of the layout); one at a time, all.
    pub(super) fn for_each_stretch(
        &self,
        side: Side,
        pair: usize,
        filter: Option<&GroupFilter>,
        mut visit: impl FnMut(Stretch<'_>),
    ) {
        let (layout, indexer) = (self.layout, self.indexer);
        let n = layout.men_count();
        let inner = indexer.inner_size();
        let first = pair as u64 * inner;
        let (wk, bk) = indexer.king_pair(pair);
        if let (true, Some(groups)) = (by_runs(layout, self.groups, wk), self.groups) {
            // When a symmetry other than the identity fixes both kings, an index whose squares
            // that symmetry makes smaller is no position (the index keeps the least image).
            let turns: Vec<&[Sq]> = indexer
                .pair_symmetries(wk, bk)
                .map(|s| self.geo.symmetries()[s].map())
                .collect();
            // The slot of an index's squares holds it, and overlaps are slots of code 0.
            for_each_write_run(groups, wk, bk, filter, |at, squares, len, moving| {
                visit(Stretch::Run(EntryRun {
                    at,
                    squares,
                    len,
                    moving,
                    base: layout.slot(squares),
                    stride: layout.stride(moving),
                    turns: &turns,
                }))
            });
            return;
        }
        indexer.for_each_position::<TABLE_MEN>(self.geo, first..first + inner, side, |i, p| {
            let Some(p) = p else { return };
            let mut squares = [0 as Sq; MAX_MEN];
            for (k, m) in p.men().iter().enumerate() {
                squares[k] = m.sq;
            }
            layout.fold(&mut squares[..n]);
            visit(Stretch::One {
                at: (i - first) as usize,
                slot: layout.slot(&squares[..n]),
            });
        });
    }
}

/// Whether a placement of a run (`squares`, man `moving` moved on `k` squares, identical men
/// in increasing order) is the least of its images under `turns` (symmetries as tables of
/// squares, each image's identical men put in order by `layout`): the image
/// [`Indexer::index`] numbers, comparing the men's squares after the kings in order.
pub(super) fn least_image(
    layout: &Layout,
    squares: &[Sq],
    moving: usize,
    k: usize,
    turns: &[&[Sq]],
) -> bool {
    let n = squares.len();
    let mut placed = [0 as Sq; MAX_MEN];
    placed[..n].copy_from_slice(squares);
    placed[moving] += k as Sq;
    turns.iter().all(|turn| {
        let mut image = [0 as Sq; MAX_MEN];
        for (to, &from) in image.iter_mut().zip(&placed[..n]) {
            *to = turn[usize::from(from)];
        }
        layout.sort_groups(&mut image[..n]);
        image[2..n] >= placed[2..n]
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_engine::Material;
    use retro_rules::Board;
    use std::cell::Cell;

    /// Every index of a king pair comes once, in order, with the squares of the position the
    /// index gives (where it gives one).
    #[test]
    fn runs_list_a_pairs_indices_with_their_squares() {
        for (files, ranks, material) in [
            (8, 8, "KQQvK"),
            (8, 8, "KRvKN"),
            (5, 5, "KRRRvK"),
            (5, 6, "KNNvKPP"),
            (6, 6, "KPPPvK"),
            (6, 5, "KBBvKNN"),
        ] {
            let geo = Geometry::new(Board::new(files, ranks).unwrap());
            let material: Material = material.parse().unwrap();
            let indexer = Indexer::new(&geo, material).unwrap();
            let groups = group_fields(&indexer).unwrap();
            let men = material.men();
            let inner = indexer.inner_size();
            for pair in (0..indexer.king_pairs()).step_by(7) {
                let (wk, bk) = indexer.king_pair(pair);
                let (next, positions) = (Cell::new(0), Cell::new(0));
                let check = |run: usize, squares: &[Sq], len: usize, moving: usize| {
                    assert_eq!(run, next.get(), "{material}: runs follow one another");
                    next.set(run + len);
                    for k in 0..len {
                        let mut expected: Vec<(Side, retro_rules::Piece, Sq)> = men
                            .iter()
                            .zip(squares)
                            .map(|(&(side, piece), &sq)| (side, piece, sq))
                            .collect();
                        expected[moving].2 += k as Sq;
                        let index = pair as u64 * inner + (run + k) as u64;
                        let Some(p) = indexer.position::<TABLE_MEN>(&geo, index, Side::White)
                        else {
                            continue;
                        };
                        positions.set(positions.get() + 1);
                        let mut got: Vec<_> =
                            p.men().iter().map(|m| (m.side, m.piece, m.sq)).collect();
                        got.sort_unstable();
                        expected.sort_unstable();
                        assert_eq!(got, expected, "{material} index {index}");
                    }
                };
                for_each_run(&groups, wk, bk, |run, squares, len| {
                    check(run, squares, len, squares.len() - 1)
                });
                assert_eq!(
                    next.get() as u64,
                    inner,
                    "{material}: every index of the pair"
                );
                assert!(positions.get() > 0);
                // The writer's runs: the same indices, a pair of identical men last in runs
                // of the lower one.
                let counted = positions.replace(0);
                next.set(0);
                for_each_write_run(&groups, wk, bk, None, &check);
                assert_eq!(
                    next.get() as u64,
                    inner,
                    "{material}: every index of the pair"
                );
                assert_eq!(positions.get(), counted);
            }
        }
    }
}
