//! Tests of the layout: decoding, folds, images, identical men, rank fields, slices.

use super::*;
use retro_rules::Board;

/// A small deterministic generator of test placements.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1);
        (self.0 >> 32) % n
    }

    /// `men` men on random squares of `layout`'s board (not always apart), the white king
    /// within the region when `in_region`.
    fn placement(&mut self, layout: &Layout, men: usize, in_region: bool) -> [Sq; MAX_MEN] {
        let mut squares = [0 as Sq; MAX_MEN];
        for sq in squares.iter_mut().take(men) {
            *sq = self.below(layout.squares) as Sq;
        }
        if in_region {
            squares[0] = layout.region[self.below(layout.region.len() as u64) as usize];
        }
        squares
    }
}

#[test]
fn slots_decode_to_their_squares() {
    for (files, ranks, material) in [(8, 8, "KRBvKR"), (5, 5, "KQvKN"), (6, 4, "KRRvK")] {
        let geo = Geometry::new(Board::new(files, ranks).unwrap());
        let layout = Layout::new(&geo, material.parse().unwrap()).unwrap();
        match layout.men_count() {
            4 => round_trip::<4>(&layout),
            5 => round_trip::<5>(&layout),
            n => unreachable!("{n} men"),
        }
    }
}

fn round_trip<const N: usize>(layout: &Layout) {
    for slot in (0..layout.size()).step_by(997) {
        let squares: [Sq; N] = layout.decode_array(slot);
        assert_eq!(layout.slot(&squares), slot);
    }
}

#[test]
fn the_region_is_a_triangle_of_ten_on_8x8() {
    let geo = Geometry::new(Board::STANDARD);
    let layout = Layout::new(&geo, "KRvK".parse().unwrap()).unwrap();
    assert_eq!(layout.region, vec![0, 1, 2, 3, 9, 10, 11, 18, 19, 27]);
    assert_eq!(layout.size(), 10 * 64 * 64);
    // a1, b2, c3, d4 lie on the diagonal: one other symmetry fixes each.
    for sq in [0u8, 9, 18, 27] {
        assert_eq!(layout.fixers[usize::from(sq)].len(), 1);
    }
}

#[test]
fn holders_list_every_order_of_identical_men() {
    let geo = Geometry::new(Board::STANDARD);
    let layout = Layout::new(&geo, "KNNNvK".parse().unwrap()).unwrap();
    // White king on b1 (no fixer): 3! orders of the knights.
    let mut slots = Vec::new();
    layout.for_each_holder(&[1, 40, 20, 30, 50], |s| slots.push(s));
    slots.sort_unstable();
    slots.dedup();
    assert_eq!(slots.len(), 6);
    // White king on a1 (fixed by the diagonal mirror): 2 × 3! slots.
    let mut slots = Vec::new();
    layout.for_each_holder(&[0, 40, 20, 30, 50], |s| slots.push(s));
    slots.sort_unstable();
    slots.dedup();
    assert_eq!(slots.len(), 12);
}

#[test]
fn folds_and_images_track_a_square_with_its_man() {
    let geo = Geometry::new(Board::STANDARD);
    for material in ["KRBvKR", "KNNvK"] {
        let layout = Layout::new(&geo, material.parse().unwrap()).unwrap();
        let n = layout.men_count();
        let mut seed = 7u64;
        for _ in 0..20_000 {
            let mut squares = [0 as Sq; MAX_MEN];
            for sq in squares.iter_mut().take(n) {
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
                *sq = (seed >> 58) as Sq;
            }
            for i in 0..n {
                let mut folded = squares;
                let tracked = layout.fold_tracking(&mut folded[..n], squares[i]);
                let mut plain = squares;
                layout.fold(&mut plain[..n]);
                assert_eq!(folded, plain);
                // The man keeps its square's image; identical men may swap places.
                let same_kind: Vec<usize> =
                    (0..n).filter(|&j| layout.men[j] == layout.men[i]).collect();
                assert!(same_kind.iter().any(|&j| folded[j] == tracked));
                let mut images = Vec::new();
                layout.for_each_image(&folded[..n], |slot| images.push(slot));
                let mut tracked_images = Vec::new();
                layout.for_each_image_tracking(&folded[..n], tracked, |slot, sq| {
                    tracked_images.push((slot, sq))
                });
                assert_eq!(
                    images,
                    tracked_images.iter().map(|&(s, _)| s).collect::<Vec<_>>()
                );
                for &(slot, sq) in &tracked_images {
                    match n {
                        5 => check_tracked::<5>(&layout, slot, sq, &same_kind),
                        4 => check_tracked::<4>(&layout, slot, sq, &same_kind),
                        _ => unreachable!(),
                    }
                }
            }
        }
    }
}

#[test]
fn a_move_among_identical_men_sorts_them_by_strides() {
    for (files, ranks, material) in [(8, 8, "KRRRvK"), (8, 8, "KQQvKN"), (5, 6, "KNNvKPP")] {
        let geo = Geometry::new(Board::new(files, ranks).unwrap());
        let layout = Layout::new(&geo, material.parse().unwrap()).unwrap();
        let n = layout.men_count();
        let mut random = Lcg(5);
        for _ in 0..20_000 {
            let mut squares = random.placement(&layout, n, true);
            layout.sort_groups(&mut squares[..n]);
            let i = 1 + random.below(n as u64 - 1) as usize;
            let to = random.below(layout.squares) as Sq;
            let group = layout.group_of(i);
            let slot = layout.slot(&squares[..n]);
            let (moved, k) = layout.moved_in_order(slot, &squares[..n], i, to, group);
            let mut after = squares;
            after[i] = to;
            layout.sort_groups(&mut after[..n]);
            assert_eq!(
                moved,
                layout.slot(&after[..n]),
                "{material} {squares:?} {i} {to}"
            );
            assert_eq!(after[k], to);
            assert!((group.0..group.1).contains(&k));
        }
    }
}

#[test]
fn the_last_man_takes_his_place_among_his_companions() {
    let cases = [
        (8, 8, "KQvKNN"),
        (8, 8, "KRRRvK"),
        (5, 5, "KBvKBB"),
        (8, 8, "KPvKNN"),
        (5, 6, "KNvKPP"),
    ];
    for (files, ranks, material) in cases {
        let geo = Geometry::new(Board::new(files, ranks).unwrap());
        let material: Material = material.parse().unwrap();
        let layout = Layout::sliced(&geo, material)
            .or_else(|| Layout::new(&geo, material))
            .unwrap();
        assert_eq!(layout.slices() > 0, material.to_string() == "KPvKNN");
        let n = layout.men_count();
        let last = n - 1;
        let (first, _) = layout.group_of(last);
        assert!(first < last, "{material}: the last man has a companion");
        let mut random = Lcg(11);
        for _ in 0..2_000 {
            // Whatever stands in the last man's field is not read.
            let squares = random.placement(&layout, n, true);
            let slots = layout.last_among_companions(&squares[..n]);
            let (above, base) = slots.above_all();
            for s in 0..layout.squares as Sq {
                if squares[first..last].contains(&s) {
                    continue;
                }
                let mut placed = squares;
                placed[last] = s;
                layout.sort_groups(&mut placed[..n]);
                let want = layout.slot(&placed[..n]);
                assert_eq!(slots.slot(s), want, "{material} {squares:?} {s}");
                let is_above = squares[first..last].iter().all(|&c| c < s);
                assert_eq!(above >> s & 1 == 1, is_above, "{material} {squares:?} {s}");
                if is_above {
                    assert_eq!(base + u64::from(s), want);
                }
            }
        }
    }
}

#[test]
fn the_fold_turns_every_man_by_the_maps_of_its_kings() {
    for (files, ranks, material) in [(8, 8, "KRBvKR"), (5, 5, "KNNvK"), (6, 5, "KRPvKR")] {
        let geo = Geometry::new(Board::new(files, ranks).unwrap());
        let layout = Layout::new(&geo, material.parse().unwrap()).unwrap();
        let n = layout.men_count();
        let mut random = Lcg(11);
        for _ in 0..20_000 {
            let squares = random.placement(&layout, n, false);
            let mut folded = squares;
            layout.fold(&mut folded[..n]);
            let map = layout.fold_map(squares[0], squares[1]);
            let mut mapped = squares;
            for sq in mapped.iter_mut().take(n) {
                *sq = map[usize::from(*sq)];
            }
            layout.sort_groups(&mut mapped[..n]);
            assert_eq!(mapped, folded, "{material} {:?}", &squares[..n]);
            // The one symmetry is the two the fold is defined by, one after the other:
            // the White king's into the region, then the one fixing it that brings the
            // Black king lowest.
            let mut stepped = squares;
            layout.apply(layout.fold[usize::from(stepped[0])], &mut stepped[..n]);
            let kings = usize::from(stepped[0]) * layout.squares as usize;
            layout.apply(
                layout.king_fold[kings + usize::from(stepped[1])],
                &mut stepped[..n],
            );
            layout.sort_groups(&mut stepped[..n]);
            assert_eq!(stepped, folded, "{material} {:?}", &squares[..n]);
            let (wk, bk) = (usize::from(squares[0]), usize::from(squares[1]));
            let least_white = layout.maps.iter().map(|m| m[wk]).min().unwrap();
            let least_black = layout.maps.iter().filter(|m| m[wk] == least_white);
            assert_eq!(folded[0], least_white);
            assert_eq!(Some(folded[1]), least_black.map(|m| m[bk]).min());
        }
    }
}

fn check_tracked<const N: usize>(layout: &Layout, slot: u64, sq: Sq, same_kind: &[usize]) {
    let image: [Sq; N] = layout.decode_array(slot);
    assert!(same_kind.iter().any(|&j| image[j] == sq));
}

#[test]
fn rank_fields_number_the_slots_of_their_rank() {
    for (files, ranks, material, man, rank) in [
        (8, 8, "KQPvKP", 2, 7),
        (5, 6, "KQQvKP", 3, 5),
        (4, 5, "KPvKQ", 3, 0),
    ] {
        let geo = Geometry::new(Board::new(files, ranks).unwrap());
        let layout = Layout::new(&geo, material.parse().unwrap()).unwrap();
        let field = RankField::new(&layout, files as u8, man, rank);
        let size = field.size(layout.size());
        assert_eq!(size * ranks as u64, layout.size());
        for number in (0..size).step_by(7) {
            let slot = field.slot(number);
            assert_eq!(layout.field(slot, man) / files as u8, rank);
            assert_eq!(field.number(slot), Some(number));
        }
        for slot in (0..layout.size()).step_by(11) {
            let on_rank = layout.field(slot, man) / files as u8 == rank;
            assert_eq!(field.number(slot).is_some(), on_rank);
        }
    }
}

#[test]
fn slices_are_released_once_after_their_last_reader_and_chains_keep_few() {
    for (files, ranks, material, most_live) in [
        (8u8, 8u8, "KRPvKR", 3),
        (4, 6, "KPPvKN", 0),
        (5, 5, "KPPvKR", 0),
    ] {
        let geo = Geometry::new(Board::new(files.into(), ranks.into()).unwrap());
        let layout = Layout::sliced(&geo, material.parse().unwrap()).unwrap();
        let groups = layout.slice_groups();
        let released = layout.slices_released(&groups);
        assert_eq!(released.len(), groups.len());
        let mut released_after = std::collections::HashMap::new();
        for (p, numbers) in released.iter().enumerate() {
            for &number in numbers {
                assert!(
                    released_after.insert(number, p).is_none(),
                    "{material}: slice {number} released twice"
                );
            }
        }
        let mut live = 0usize;
        let mut most = 0usize;
        for (p, group) in groups.iter().enumerate() {
            for &number in group {
                // Released after its own group, and after every group whose pushes read it.
                assert!(released_after[&number] >= p, "{material}: slice {number}");
                for target in layout.push_targets(number) {
                    assert!(released_after[&target] >= p, "{material}: slice {target}");
                }
            }
            live += group.len();
            most = most.max(live);
            live -= released[p].len();
        }
        assert_eq!(live, 0, "{material}: every slice released");
        assert_eq!(
            released_after.len(),
            groups.iter().map(Vec::len).sum::<usize>()
        );
        // One pawn: a file's chain holds the slices of three placements at most (the pawn on
        // its second rank, and the two it may push to), each with its mirror image.
        if most_live > 0 {
            assert_eq!(most, 2 * most_live, "{material}");
        }
    }
}

#[test]
fn sliced_layouts_number_their_slices_apart_and_solve_pushes_first() {
    for (files, ranks, material) in [(8u8, 8u8, "KRPvKR"), (4, 6, "KPPvKN"), (5, 5, "KBPvKN")] {
        let geo = Geometry::new(Board::new(files.into(), ranks.into()).unwrap());
        let layout = Layout::sliced(&geo, material.parse().unwrap()).unwrap();
        assert!(layout.slices() > 0, "{material}");
        assert_eq!(layout.block % SLICE_ALIGN, 0);
        assert_eq!(layout.block % layout.squares, 0);
        let groups = layout.slice_groups();
        let mut group_of = std::collections::HashMap::new();
        for (g, group) in groups.iter().enumerate() {
            for &number in group {
                assert!(group_of.insert(number, g).is_none(), "slice {number} twice");
            }
        }
        // Every placement of the pawns off the end ranks, in order, is a slice.
        let legal = (0..layout.size() / layout.block)
            .filter(|&number| {
                let pawns = layout.slice_squares(number);
                pawns.is_sorted()
                    && pawns.windows(2).all(|w| w[0] != w[1])
                    && pawns
                        .iter()
                        .all(|&sq| sq / files > 0 && sq / files < ranks - 1)
            })
            .count();
        assert_eq!(group_of.len(), legal, "{material}");
        for (&number, &g) in &group_of {
            let pawns = layout.slice_squares(number);
            let mut children = Vec::new();
            for k in 0..pawns.len() {
                // A white pawn's push (two squares from the second rank), not onto the
                // last rank nor another pawn.
                let steps = if pawns[k] / files == 1 { 2 } else { 1 };
                for step in 1..=steps {
                    let to = pawns[k] + step * files;
                    if to / files >= ranks - 1 || pawns.contains(&to) {
                        continue;
                    }
                    let mut after = pawns.clone();
                    after[k] = to;
                    after.sort_unstable();
                    let child = after
                        .iter()
                        .fold(0, |n, &sq| n * layout.squares + u64::from(sq));
                    assert!(
                        group_of[&child] < g,
                        "{material}: a push leads to a later slice"
                    );
                    children.push(child);
                }
            }
            let mut targets = layout.push_targets(number);
            targets.sort_unstable();
            children.sort_unstable();
            assert_eq!(
                targets, children,
                "{material}: the pushes of slice {number}"
            );
            let (first, end) = layout.slice_span(number);
            for slot in (first..end).step_by(1009) {
                let squares: [Sq; 5] = layout.decode_array(slot);
                assert_eq!(layout.slot(&squares), slot);
                for (k, &i) in layout.lead.iter().enumerate() {
                    assert_eq!(squares[i], pawns[k]);
                }
            }
        }
    }
    // A rank field of a sliced layout whose slices are padded to whole chunks.
    let geo = Geometry::new(Board::new(4, 6).unwrap());
    let layout = Layout::sliced(&geo, "KQPvKN".parse().unwrap()).unwrap();
    assert!(layout.block > layout.block_used);
    let field = RankField::new(&layout, 4, 2, 5);
    let size = field.size(layout.size());
    assert_eq!(size * 6, layout.size() / layout.block * layout.block_used);
    for number in (0..size).step_by(7) {
        let slot = field.slot(number);
        assert!(slot % layout.block < layout.block_used);
        assert_eq!(layout.field(slot, 2) / 4, 5);
        assert_eq!(field.number(slot), Some(number));
    }
}

#[test]
fn division_is_exact() {
    for d in [2u64, 3, 25, 36, 49, 63, 64] {
        let div = Divisor::new(d);
        for x in (0..1u64 << 40)
            .step_by(9_999_991)
            .chain([0, 1, d - 1, d, (1 << 40) - 1])
        {
            assert_eq!(div.div_rem(x), (x / d, x % d));
        }
    }
}
