//! KPvK against the textbook rules, which every endgame manual states: with the White king on
//! a *key square* of a pawn off the rook files, White wins whoever is to move, unless Black to
//! move takes an undefended pawn; and a Black king in the corner in front of a rook's pawn
//! draws. The rules are sufficient conditions, checked on every position they speak of, with
//! the exception every manual notes (a Black king stalemated in the corner).

use retro_engine::{Geometry, Man, Position, Sq};
use retro_format::Value;
use retro_gen::{Builder, Silent};
use retro_rules::{Board, Piece, Side};
use retro_tablebase::Tablebase;

/// The key squares of a White pawn on `pawn` (files b–g, ranks 2–6): for ranks 2–4 the three
/// squares two ranks ahead, for ranks 5 and 6 also the three squares one rank ahead.
fn key_squares(geo: &Geometry, pawn: Sq) -> Vec<Sq> {
    let (file, rank) = (geo.file(pawn), geo.rank(pawn));
    let ahead: &[u8] = if rank <= 3 { &[2] } else { &[1, 2] };
    let mut keys = Vec::new();
    for &d in ahead {
        for f in file - 1..=file + 1 {
            keys.push(geo.sq(f, rank + d));
        }
    }
    keys
}

fn adjacent(geo: &Geometry, a: Sq, b: Sq) -> bool {
    geo.king_attacks(a).contains(b)
}

#[test]
fn kpk_follows_the_key_square_and_rook_pawn_rules() {
    let dir = tempfile::tempdir().unwrap();
    let kpk = "KPvK".parse().unwrap();
    Builder::new(Board::STANDARD, dir.path())
        .build(&[kpk], &Silent)
        .unwrap();
    let tb = Tablebase::new(Board::STANDARD, dir.path());
    let geo = Geometry::new(Board::STANDARD);
    let (mut key_square_wins, mut corner_draws) = (0u64, 0u64);
    for wk in 0..64 as Sq {
        for bk in 0..64 as Sq {
            for pawn in 8..56 as Sq {
                if wk == bk || wk == pawn || bk == pawn {
                    continue;
                }
                for stm in Side::ALL {
                    let men = [
                        (wk, Side::White, Piece::King),
                        (bk, Side::Black, Piece::King),
                        (pawn, Side::White, Piece::Pawn),
                    ]
                    .map(|(sq, side, piece)| Man { side, piece, sq });
                    let p: Position = Position::new(&geo, men, stm, None).unwrap();
                    if !p.is_legal(&geo) {
                        continue;
                    }
                    let file = geo.file(pawn);
                    let rook_pawn = file == 0 || file == 7;
                    if !rook_pawn && geo.rank(pawn) <= 5 && key_squares(&geo, pawn).contains(&wk) {
                        let en_prise = stm == Side::Black
                            && adjacent(&geo, bk, pawn)
                            && !adjacent(&geo, wk, pawn);
                        if !p.has_legal_move(&geo) {
                            // The rule's one exception: Black stalemated (Ka8, Kc7, b6).
                            assert_eq!(tb.value(&p).unwrap(), Value::Draw);
                        } else if !en_prise {
                            let v = tb.value(&p).unwrap();
                            let won = match stm {
                                Side::White => matches!(v, Value::Win(_)),
                                Side::Black => matches!(v, Value::Loss(_)),
                            };
                            assert!(won, "{}: {v:?}", p.to_natural(&geo).fen());
                            key_square_wins += 1;
                        }
                    }
                    if rook_pawn && bk == geo.sq(file, 7) {
                        let v = tb.value(&p).unwrap();
                        assert_eq!(v, Value::Draw, "{}", p.to_natural(&geo).fen());
                        corner_draws += 1;
                    }
                }
            }
        }
    }
    assert!(key_square_wins > 10_000 && corner_draws > 1_000);
}
