//! The formulas the proof for every n hands to the solvers are the strategy the exhaustive
//! checkers run: `conditions::allowed` — the relation as one formula, read on numbers — allows
//! exactly the moves `Strategy::relation` computes, and the KRK rules written for the formulas
//! agree with `Krk`'s (which `tests/rules.rs` compares with the natural model), on whole boards.

use retro_strategy::conditions::{
    allowed, black_can_move, is_mate, is_stalemate, legal_white_to_move as legal_formula,
    white_step_legal, Square, Step,
};
use retro_strategy::krk::{EveryMove, Krk, Sq};
use retro_strategy::prove::bound_plies;
use retro_strategy::retro::{legal_white_to_move, verify, Mode};
use retro_strategy::{Breakage, Kind, Strategy};

#[test]
fn the_relation_as_one_formula_is_the_relation() {
    let broken = Breakage {
        rook_home_any_line: true,
        ..Breakage::default()
    };
    for strategy in [Strategy::default(), Strategy { broken }] {
        for n in 4..=6u8 {
            let mut compared = 0u64;
            for p in legal_white_to_move(n) {
                let relation = strategy.relation(&p);
                let placement = p.placement();
                for (mv, _) in p.white_moves() {
                    for kind in Kind::ALL {
                        let by_formula = allowed(
                            &mut EveryMove,
                            &strategy.broken,
                            kind,
                            &placement,
                            &mv.step(),
                        );
                        let by_relation = relation.as_ref().is_some_and(|(k, choices)| {
                            *k == kind && choices.iter().any(|c| c.mv == mv)
                        });
                        assert_eq!(
                            by_formula,
                            by_relation,
                            "{} {} {kind} ({:?})",
                            p.fen(),
                            mv.name(),
                            strategy.broken
                        );
                        compared += 1;
                    }
                }
            }
            assert!(compared > 10_000, "{n}: {compared}");
        }
    }
}

#[test]
fn the_rules_in_the_formulas_are_krks_rules() {
    for n in 4..=6u8 {
        for p in legal_white_to_move(n) {
            let placement = p.placement();
            assert!(legal_formula(&placement), "{}", p.fen());
            // Every square the king or the rook might go to: legal by the formula exactly
            // when `Krk` lists the move.
            let moves = p.white_moves();
            for rook in [false, true] {
                let from = if rook { p.wr.expect("rook") } else { p.wk };
                for x in -1..=i64::from(n) {
                    for y in -1..=i64::from(n) {
                        let step = Step {
                            rook,
                            from: Square::new(i64::from(from.x), i64::from(from.y)),
                            to: Square::new(x, y),
                        };
                        let listed = moves.iter().any(|(m, _)| {
                            m.from == from
                                && i64::from(m.to.x) == x
                                && i64::from(m.to.y) == y
                                && (m.mover == retro_strategy::krk::Mover::Rook) == rook
                        });
                        assert_eq!(
                            white_step_legal(&placement, &step),
                            listed,
                            "{} to ({x},{y}) rook {rook}",
                            p.fen()
                        );
                    }
                }
            }
            for (_, after) in moves {
                let a = after.placement();
                assert_eq!(is_mate(&a), after.is_mate(), "{}", after.fen());
                assert_eq!(is_stalemate(&a), after.is_stalemate(), "{}", after.fen());
                assert_eq!(
                    black_can_move(&a),
                    after.black_can_move(),
                    "{}",
                    after.fen()
                );
            }
        }
        // Positions the formula calls illegal are the ones `Krk` does.
        let sq = |i: u8| Sq::new(i % n, i / n);
        for a in 0..n * n {
            for b in 0..n * n {
                for c in 0..n * n {
                    let p = Krk {
                        n,
                        wk: sq(a),
                        wr: Some(sq(b)),
                        bk: sq(c),
                        white_to_move: true,
                    };
                    assert_eq!(legal_formula(&p.placement()), p.is_legal(), "{}", p.fen());
                }
            }
        }
    }
}

#[test]
fn the_proofs_bound_covers_the_longest_games() {
    for n in 4..=9u8 {
        let outcome = verify(n, &Strategy::default(), Mode::Relation);
        assert_eq!(outcome.not_winning, 0);
        assert!(
            outcome.longest_plies <= bound_plies(u32::from(n)),
            "{n}: {} > {}",
            outcome.longest_plies,
            bound_plies(u32::from(n))
        );
    }
}
