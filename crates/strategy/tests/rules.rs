//! The KRK positions and moves of this crate agree with the natural model (`retro-rules`) on
//! every placement of the three men, both sides to move, on every board from 4×4 to 8×8:
//! legality, the set of positions each side's moves reach, check, checkmate and stalemate.

use retro_rules::laws::{checkmated, in_check, stalemated, successors};
use retro_rules::{Position, Setup, Side};
use retro_strategy::krk::{Krk, Sq};
use std::collections::BTreeSet;

fn natural(p: &Krk) -> Option<Position> {
    let setup = Setup::parse(&p.fen()).expect("our FEN parses");
    Position::from_setup(&setup).ok()
}

#[test]
fn krk_agrees_with_the_natural_model() {
    for n in 4..=8u8 {
        let squares: Vec<Sq> = (0..n)
            .flat_map(|y| (0..n).map(move |x| Sq::new(x, y)))
            .collect();
        let mut legal = 0u64;
        for &wk in &squares {
            for &bk in &squares {
                for &wr in &squares {
                    for white_to_move in [true, false] {
                        let p = Krk {
                            n,
                            wk,
                            wr: Some(wr),
                            bk,
                            white_to_move,
                        };
                        if wk == bk || wr == wk || wr == bk {
                            continue;
                        }
                        let model = natural(&p);
                        assert_eq!(p.is_legal(), model.is_some(), "legality of {}", p.fen());
                        let Some(model) = model else { continue };
                        legal += 1;
                        let ours: BTreeSet<String> = if white_to_move {
                            p.white_moves()
                        } else {
                            p.black_moves()
                        }
                        .iter()
                        .map(|(_, q)| q.fen())
                        .collect();
                        let theirs: BTreeSet<String> =
                            successors(&model).iter().map(|(_, q)| q.fen()).collect();
                        assert_eq!(ours, theirs, "moves from {}", p.fen());
                        if !white_to_move {
                            assert_eq!(
                                p.black_in_check(),
                                in_check(Side::Black, &model),
                                "check in {}",
                                p.fen()
                            );
                            assert_eq!(p.is_mate(), checkmated(&model), "mate in {}", p.fen());
                            assert_eq!(
                                p.is_stalemate(),
                                stalemated(&model),
                                "stalemate in {}",
                                p.fen()
                            );
                            assert_eq!(p.black_can_move(), !p.black_moves().is_empty());
                        }
                    }
                }
            }
        }
        assert!(legal > 0);
    }
}
