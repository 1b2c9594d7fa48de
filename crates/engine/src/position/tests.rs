//! Tests of the engine's positions: legality, checks and moves on small cases.

use super::*;
use retro_rules::Board;

fn pos(geo: &Geometry, fen: &str) -> Position {
    let natural: retro_rules::Position = fen.parse().unwrap();
    Position::from_natural(geo, &natural).unwrap()
}

#[test]
fn start_position_moves() {
    let geo = Geometry::new(Board::STANDARD);
    let p = pos(
        &geo,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
    );
    assert!(p.is_legal(&geo));
    assert_eq!(p.legal_moves(&geo).len(), 20);
}

#[test]
fn mate_and_stalemate() {
    let geo = Geometry::new(Board::STANDARD);
    assert!(pos(&geo, "k6R/8/1K6/8/8/8/8/8 b - - 0 1").is_checkmate(&geo));
    assert!(pos(&geo, "k7/8/1Q6/8/8/8/8/7K b - - 0 1").is_stalemate(&geo));
}

#[test]
fn double_step_records_target_only_when_capturable() {
    let geo = Geometry::new(Board::STANDARD);
    let p = pos(&geo, "4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1");
    let e4 = geo.sq(4, 3);
    let (_, after) = p
        .legal_moves(&geo)
        .into_iter()
        .find(|(m, _)| m.to == e4)
        .unwrap();
    assert_eq!(after.en_passant(), Some(geo.sq(4, 2)));
    let q = pos(&geo, "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    let (_, after) = q
        .legal_moves(&geo)
        .into_iter()
        .find(|(m, _)| m.to == e4)
        .unwrap();
    assert_eq!(after.en_passant(), None);
}

#[test]
fn men_are_kept_in_kind_order() {
    let geo = Geometry::new(Board::STANDARD);
    let p = pos(&geo, "r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1");
    let kinds: Vec<(Side, Piece)> = p.men().iter().map(|m| (m.side, m.piece)).collect();
    assert_eq!(kinds[0], (Side::White, Piece::King));
    assert_eq!(kinds[1], (Side::Black, Piece::King));
    assert_eq!(p.material(), "KRRvKRR".parse().unwrap());
    assert!(p.men()[2].sq < p.men()[3].sq);
}
