//! Every promotion choice is the one best move somewhere: positions where the side to move must
//! promote to a queen, a rook, a bishop or a knight, the textbook reasons among them (a rook
//! instead of a queen that would stalemate, a knight fork that alone saves the game).

use retro_engine::{Geometry, Position};
use retro_format::Value;
use retro_gen::{Builder, Silent};
use retro_rules::Board;
use retro_tablebase::{RatedMove, Tablebase};

fn rated(tb: &Tablebase, fen: &str) -> Vec<RatedMove> {
    let geo = Geometry::new(Board::STANDARD);
    let setup = retro_rules::fen::Setup::parse(fen).unwrap();
    let natural = retro_rules::Position::from_setup(&setup).unwrap();
    let p = Position::from_natural(&geo, &natural).unwrap();
    tb.rated_moves(&p).unwrap()
}

/// The first move is strictly better than the second for the side making it.
fn strictly_best(moves: &[RatedMove]) -> bool {
    let key = |v: Value| match v {
        Value::Loss(n) => (0, i64::from(n)),
        Value::Win(n) => (2, -i64::from(n)),
        _ => (1, 0),
    };
    moves.len() == 1 || key(moves[0].value) < key(moves[1].value)
}

#[test]
fn each_promotion_piece_is_the_one_best_move_somewhere() {
    let dir = tempfile::tempdir().unwrap();
    let materials: Vec<_> = ["KRvKP", "KQvKP", "KNPvK", "KPPvK"]
        .iter()
        .map(|m| m.parse().unwrap())
        .collect();
    Builder::new(Board::STANDARD, dir.path())
        .build(&materials, &Silent)
        .unwrap();
    let tb = Tablebase::new(Board::STANDARD, dir.path());

    // Queen: the quickest mate.
    let moves = rated(&tb, "8/P7/8/8/8/8/8/KNk5 w - - 0 1");
    assert_eq!(moves[0].san, "a8=Q", "{moves:?}");
    assert!(strictly_best(&moves));

    // Rook: a queen would stalemate the white king in the corner; the rook mates.
    let moves = rated(&tb, "8/8/8/8/8/2k5/Kp6/2Q5 b - - 0 1");
    assert_eq!(moves[0].san, "bxc1=R", "{moves:?}");
    assert!(strictly_best(&moves));
    assert!(matches!(moves[0].value, Value::Loss(_)));
    let queen = moves.iter().find(|m| m.san == "bxc1=Q").unwrap();
    assert!(queen.stalemate && queen.value == Value::Draw);

    // Bishop: mates two plies sooner than a queen with check.
    let moves = rated(&tb, "8/P1P5/k7/8/1K6/8/8/8 w - - 0 1");
    assert_eq!(moves[0].san, "a8=B", "{moves:?}");
    assert!(strictly_best(&moves));

    // Knight: the fork with check is the only move that does not lose.
    let moves = rated(&tb, "8/8/8/8/8/8/K1p4R/5k2 b - - 0 1");
    assert_eq!(moves[0].san, "c1=N+", "{moves:?}");
    assert_eq!(moves[0].value, Value::Draw);
    assert!(moves[1..].iter().all(|m| matches!(m.value, Value::Win(_))));
}
