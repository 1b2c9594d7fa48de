//! The index scheme's shortcut forms against its definition, on whole categories.

use super::*;

/// The shortcut forms equal the definition on every placement of several categories, and
/// on every placement one man away from a canonical one.
#[test]
fn number_forms_equal_the_definition() {
    for (files, ranks, material) in [
        (4, 4, "KRvKN"),
        (5, 4, "KBBvK"),
        (5, 5, "KQvKR"),
        (3, 5, "KNNvKB"),
        (3, 4, "KRRRvK"),
        (4, 5, "KPvKR"),
    ] {
        let board = Board::new(files, ranks).unwrap();
        let scheme = Scheme::new(board, &Men::parse(material).unwrap());
        assert!(scheme.has_lanes(), "{material}");
        let squares: Vec<Square> = board.squares().collect();
        let n = scheme.men().len();
        // How often the shortcut applied: moves of other men, moves of kings.
        let mut shortcuts = [0u64; 2];
        // Placements of canonical pairs with a lane symmetry, and placements read through
        // a symmetry other than the identity.
        let mut lanes = 0u64;
        let mut mapped = 0u64;
        let mut man_lanes = 0u64;
        // Lanes whose king pair has several minimisers, read through one of them.
        let mut decided_by_men = 0u64;
        let mut several = 0u64;
        // Every placement on distinct squares, kings anywhere.
        let mut numbers = vec![0u32; n];
        let total = (squares.len() as u64).pow(n as u32);
        for code in 0..total {
            let mut c = code;
            for k in numbers.iter_mut() {
                *k = (c % squares.len() as u64) as u32;
                c /= squares.len() as u64;
            }
            let mut distinct = numbers.clone();
            distinct.sort_unstable();
            distinct.dedup();
            if distinct.len() < n {
                continue;
            }
            let placement: Vec<Square> = numbers.iter().map(|&k| scheme.square(k)).collect();
            assert_eq!(
                scheme.index_of_numbers(&numbers),
                scheme.index(&placement),
                "{material} {placement:?}"
            );
            if scheme.index(&placement).is_some() {
                // Any pair of kings apart, a group's men in any order: by the image under
                // the pair's one minimiser, or the one that gives the men before the last
                // group their least key.
                let prefix = &numbers[..n - 1];
                let single =
                    scheme.minimisers[numbers[0] as usize * scheme.count + numbers[1] as usize].len
                        == 1;
                let g = scheme.lane_symmetry(prefix);
                assert!(g.is_some() || !single);
                decided_by_men += u64::from(g.is_some() && !single);
                several += u64::from(!single);
                if let Some(g) = g {
                    let digit = scheme.lane_digits(prefix, g).get(numbers[n - 1]);
                    assert!((digit as u64) < scheme.lane_radix());
                    let index = scheme.lane_base(prefix, g) + digit as u64;
                    assert_eq!(Some(index), scheme.index(&placement), "{placement:?}");
                    mapped += u64::from(g != 0);
                }
                // Any man alone in its group, by `man_lane`.
                for man in 2..n {
                    let lone = (0..scheme.groups.len())
                        .any(|g| scheme.groups[g] == (man, 1) && !scheme.pawn_group[g]);
                    let Some((base, weight, image)) = scheme.man_lane(&numbers, man) else {
                        assert!(!single || !lone, "{material} {placement:?} {man}");
                        continue;
                    };
                    let index = base + weight * u64::from(image[numbers[man] as usize]);
                    assert_eq!(Some(index), scheme.index(&placement), "{placement:?}");
                    man_lanes += 1;
                }
            }
            if scheme.pair_table[numbers[0] as usize * scheme.count + numbers[1] as usize]
                != u64::MAX
            {
                // A canonical pair's one minimiser, if it has one, is the identity.
                let g = scheme.lane_symmetry(&numbers[..n - 1]);
                if scheme.identity_only(&numbers) {
                    assert_eq!(g, Some(0));
                }
                lanes += u64::from(g.is_some());
                let canonical = scheme.is_canonical(&placement);
                assert_eq!(scheme.is_canonical_numbers(&numbers), canonical);
                // As the checker visits them: canonical, identical men in increasing order.
                // (A pawn on an end rank has no index.)
                let own_order = scheme.key(&placement)[..n] == numbers[..];
                // A lane read through the identity holds canonical placements only, one
                // read through another symmetry none.
                match g {
                    Some(0) => assert!(canonical || !own_order, "{placement:?}"),
                    Some(_) => assert!(!canonical, "{placement:?}"),
                    None => {}
                }
                if let (true, true, Some(index)) = (canonical, own_order, scheme.index(&placement))
                {
                    assert_eq!(scheme.index_of_canonical(&numbers), Some(index));
                    // Every other square for every man, the kings' included.
                    for man in 0..n {
                        for to in 0..squares.len() as u32 {
                            if numbers.contains(&to) {
                                continue;
                            }
                            let mut after = numbers.clone();
                            after[man] = to;
                            let moved: Vec<Square> =
                                after.iter().map(|&k| scheme.square(k)).collect();
                            let shortcut = scheme.index_after_move(index, &numbers, &after, man);
                            if shortcut.is_some() {
                                assert_eq!(shortcut, scheme.index(&moved), "{moved:?}");
                                shortcuts[usize::from(man < 2)] += 1;
                            }
                        }
                    }
                }
            }
        }
        assert!(
            shortcuts.iter().all(|&k| k > 1000),
            "{material}: {shortcuts:?}"
        );
        assert!(lanes > 1000, "{material}: {lanes}");
        assert!(mapped > 1000, "{material}: {mapped}");
        let lone_piece =
            (0..scheme.groups.len()).any(|g| scheme.groups[g].1 == 1 && !scheme.pawn_group[g]);
        assert!(man_lanes > 1000 || !lone_piece, "{material}: {man_lanes}");
        // (Where the last group follows the kings, the kings alone come before it; with
        // four files and pawns, no pair has several minimisers.)
        assert!(
            decided_by_men > 100 || several == 0 || scheme.last_group().0 == 2,
            "{material}: {decided_by_men}"
        );
        for &pair in scheme.pairs() {
            let mut slow = Vec::new();
            scheme.for_each_placement(pair, |sq| {
                slow.push(sq.iter().map(|&s| scheme.number(s)).collect::<Vec<_>>())
            });
            let mut fast = Vec::new();
            scheme.for_each_placement_numbers(pair, |nums| fast.push(nums.to_vec()));
            assert_eq!(slow, fast);
            // Each lane prefix with the last man on each square it leaves free.
            let mut by_lanes = Vec::new();
            scheme.for_each_lane_prefix(pair, |prefix| {
                for x in scheme.lane_start(prefix)..scheme.count as u32 {
                    if !prefix.contains(&x) {
                        by_lanes.push([prefix, &[x]].concat());
                    }
                }
            });
            assert_eq!(by_lanes, fast);
        }
    }
}

/// With pawns: every position and its mirror image share an index below the size, and the
/// canonical positions the checker visits (en-passant targets included) have distinct
/// indices, so the index is one entry per orbit.
#[test]
fn pawn_indices_are_one_per_orbit() {
    use retro_rules::laws::en_passant_consistent;
    use retro_rules::Position;
    for (files, ranks, material) in [(4, 5, "KPvKP"), (3, 6, "KPPvKP"), (4, 4, "KRvKP")] {
        let board = Board::new(files, ranks).unwrap();
        let scheme = Scheme::new(board, &Men::parse(material).unwrap());
        assert!(scheme.has_pawns());
        let men = scheme.men().to_vec();
        let mirror = |s: Square| Square::new(board.files() - 1 - s.file, s.rank);
        let mut seen = std::collections::HashSet::new();
        for &pair in scheme.pairs() {
            scheme.for_each_placement_numbers(pair, |numbers| {
                let squares: Vec<Square> = numbers.iter().map(|&n| scheme.square(n)).collect();
                let mirrored: Vec<Square> = squares.iter().map(|&s| mirror(s)).collect();
                let canonical = scheme.is_canonical_numbers(numbers);
                for side in [Side::White, Side::Black] {
                    let p = Position::new(
                        board,
                        side,
                        squares.iter().copied().zip(men.iter().copied()),
                        None,
                    )
                    .unwrap();
                    let targets = board.squares().filter(|&t| en_passant_consistent(&p, t));
                    for ep in std::iter::once(None).chain(targets.map(Some)) {
                        let index = scheme.index_with_en_passant(&squares, ep, side);
                        let image = scheme.index_with_en_passant(&mirrored, ep.map(mirror), side);
                        assert_eq!(index, image, "{material} {squares:?} {ep:?}");
                        let Some(index) = index else { continue };
                        assert!(index < scheme.size());
                        let visited =
                            canonical && ep.is_none_or(|t| scheme.is_canonical_target(&squares, t));
                        if visited {
                            assert!(
                                seen.insert((side, index)),
                                "{material}: two orbits at {index}"
                            );
                        }
                    }
                }
            });
        }
        assert!(seen.len() > 1000, "{material}: {}", seen.len());
    }
}
