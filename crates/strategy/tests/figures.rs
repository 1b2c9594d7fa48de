//! The strategy's figures on 8×8 (sections 2.2.1 and 4.1.1 of the paper) and the Table 5
//! lengths on 4×4, 8×8 and 12×12, required exactly; and the paper's literal readings that fail.

use retro_strategy::retro::{verify, verify_every_placement, Mode, Outcome};
use retro_strategy::{Breakage, Kind, Strategy};

fn count(o: &Outcome, kind: Kind) -> u64 {
    o.kinds.get(&kind).copied().unwrap_or(0)
}

#[test]
fn eight_by_eight_figures_of_the_paper() {
    let function = verify(8, &Strategy::default(), Mode::Function);
    assert!(function.passed(), "{:?}", function.failures);
    assert_eq!(function.positions, 175_168);
    assert_eq!(function.undefined, 0);
    let expected = [
        (Kind::ImmediateMate, 1_512),
        (Kind::ReadyToMate, 4_676),
        (Kind::Squeeze, 116_504),
        // The paper prints "12160+4020 (ApproachNonDiag + ApproachDiag)"; as the diagonal move
        // is preferred, the larger number is the diagonal one.
        (Kind::ApproachDiag, 12_160),
        (Kind::ApproachNonDiag, 4_020),
        // Likewise "3160+184 (KeepRoomNonDiag + KeepRoomDiag)".
        (Kind::KeepRoomDiag, 3_160),
        (Kind::KeepRoomNonDiag, 184),
        (Kind::RookHome, 32_520),
        (Kind::RookSafe, 432),
        (Kind::RookSafeSmallBoards, 0),
    ];
    for (kind, n) in expected {
        assert_eq!(count(&function, kind), n, "{kind}");
    }
    // The deterministic function (maximal Squeeze, RookHome nearest the black king) mates
    // within 63 plies; the longest game the relation allows is the paper's 33 moves, 65 plies.
    assert_eq!(function.longest_plies, 63);
    let relation = verify(8, &Strategy::default(), Mode::Relation);
    assert!(relation.passed(), "{:?}", relation.failures);
    assert_eq!(relation.longest_plies, 65);
    assert_eq!(relation.kinds, function.kinds);
}

#[test]
fn table_5_lengths() {
    // Table 5 of the paper: n, legal positions, plies to win.
    for (n, positions, plies) in [(4, 1_312, 21), (12, 2_360_160, 109)] {
        let o = verify(n, &Strategy::default(), Mode::Relation);
        assert!(o.passed(), "{n}: {:?}", o.failures);
        assert_eq!(
            (o.positions, o.longest_plies),
            (positions, plies),
            "{n}×{n}"
        );
    }
}

#[test]
fn symmetry_reduction_loses_nothing() {
    for n in 4..=8 {
        for mode in [Mode::Function, Mode::Relation] {
            let reduced = verify(n, &Strategy::default(), mode);
            let every = verify_every_placement(n, &Strategy::default(), mode);
            assert!(reduced.passed() && every.passed(), "{n} {mode:?}");
            assert_eq!(reduced.positions, every.positions);
            assert_eq!(reduced.kinds, every.kinds);
            assert_eq!(reduced.lengths, every.lengths);
            assert_eq!(reduced.longest_plies, every.longest_plies);
        }
    }
}

#[test]
fn literal_small_boards_rule_leaves_positions_without_a_move() {
    let literal = Strategy {
        broken: Breakage {
            small_boards_literal: true,
            ..Breakage::default()
        },
    };
    for (n, fen) in [
        (4, "3K/4/1k2/R3 w - - 0 1"),
        (5, "5/3R1/2k2/5/K4 w - - 0 1"),
    ] {
        let o = verify(n, &literal, Mode::Function);
        assert_eq!(o.undefined, 4, "{n}");
        assert!(
            o.failures
                .iter()
                .any(|f| f.starts_with(fen) && f.contains("no strategy move")),
            "{:?}",
            o.failures
        );
        assert!(verify(n, &Strategy::default(), Mode::Function).passed());
    }
}

#[test]
fn rook_home_into_any_line_cycles() {
    let crossing = Strategy {
        broken: Breakage {
            rook_home_any_line: true,
            ..Breakage::default()
        },
    };
    let o = verify(8, &crossing, Mode::Function);
    // The counts are the same (no position changes kind) …
    assert_eq!(count(&o, Kind::RookHome), 32_520);
    // … but the rook can shuttle across the kings' file for ever: b7 b1, rook c3 ↔ a3.
    assert!(!o.passed());
    assert!(
        o.failures.iter().any(|f| f.contains("cycle")),
        "{:?}",
        o.failures
    );
}

#[test]
fn every_board_from_4_to_16_is_verified() {
    // Positions: Table 5 of the paper gives 1,312, 175,168, 2,360,160 and 14,241,920 for
    // n = 4, 8, 12, 16; in general they are the legal placements, counted independently here.
    for n in 4..=16u8 {
        let o = verify(n, &Strategy::default(), Mode::Function);
        assert!(o.passed(), "{n}×{n}: {:?}", o.failures);
        assert_eq!(o.positions, legal_placements(n), "{n}×{n}");
        assert_eq!(o.lengths.values().sum::<u64>(), o.positions);
        assert_eq!(o.kinds.values().sum::<u64>(), o.positions);
        if n >= 6 {
            assert_eq!(count(&o, Kind::RookSafeSmallBoards), 0, "{n}×{n}");
        }
    }
    assert_eq!(legal_placements(16), 14_241_920);
}

/// White king, rook and black king on distinct squares, kings not adjoining, Black not in
/// check, by direct count.
fn legal_placements(n: u8) -> u64 {
    let squares: Vec<(i32, i32)> = (0..i32::from(n))
        .flat_map(|y| (0..i32::from(n)).map(move |x| (x, y)))
        .collect();
    let mut count = 0;
    for &wk in &squares {
        for &bk in &squares {
            if (wk.0 - bk.0).abs().max((wk.1 - bk.1).abs()) <= 1 {
                continue;
            }
            for &wr in &squares {
                if wr == wk || wr == bk {
                    continue;
                }
                // The rook checks along a shared line unless the white king stands between.
                let between = |a: i32, b: i32, c: i32| (a < b && b < c) || (c < b && b < a);
                let check = (wr.0 == bk.0 && !(wk.0 == wr.0 && between(wr.1, wk.1, bk.1)))
                    || (wr.1 == bk.1 && !(wk.1 == wr.1 && between(wr.0, wk.0, bk.0)));
                if !check {
                    count += 1;
                }
            }
        }
    }
    count
}
