//! Positions whose legality, moves and outcome are known, checked against the natural model.

use super::*;
use crate::chess::{positions_with, reachable_men};
use crate::fen::Setup;
use crate::position::Man;

fn pos(fen: &str) -> Position {
    fen.parse().unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn raw(fen: &str) -> Position {
    let setup = Setup::parse(fen).unwrap();
    Position::new(setup.board, setup.to_move, setup.men, setup.en_passant).unwrap()
}

fn uci_moves(p: &Position) -> Vec<String> {
    let mut moves: Vec<String> = successors(p).iter().map(|(m, _)| m.to_string()).collect();
    moves.sort();
    moves
}

#[test]
fn initial_position_has_twenty_moves() {
    let p = pos("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1");
    assert_eq!(successors(&p).len(), 20);
}

#[test]
fn rook_mate_and_queen_stalemate() {
    let mate = pos("k6R/8/1K6/8/8/8/8/8 b - - 0 1");
    assert!(in_check(Side::Black, &mate));
    assert!(checkmated(&mate) && chess_win(&mate) && !stalemated(&mate));
    let stalemate = pos("k7/8/1Q6/8/8/8/8/7K b - - 0 1");
    assert!(stalemated(&stalemate) && !checkmated(&stalemate) && !chess_win(&stalemate));
    // A blocked line gives no check: the rook's line to the king is interrupted.
    let blocked = pos("k5BR/8/1K6/8/8/8/8/8 b - - 0 1");
    assert!(!in_check(Side::Black, &blocked));
}

#[test]
fn side_not_to_move_in_check_is_illegal() {
    let p = raw("k6R/8/1K6/8/8/8/8/8 w - - 0 1");
    assert!(!chess_legal(&p));
    assert_eq!(
        illegalities(&p),
        vec![Illegality::OppositeCheck(Side::Black)]
    );
    // Adjacent kings: whichever side is not to move is in check.
    assert!(!chess_legal(&raw("8/8/8/3kK3/8/8/8/8 w - - 0 1")));
}

#[test]
fn kings_and_pawns_are_counted() {
    assert_eq!(
        illegalities(&raw("8/8/8/8/8/8/8/K7 w - - 0 1")),
        vec![Illegality::MissingKing(Side::Black)]
    );
    assert_eq!(
        illegalities(&raw("k6k/8/8/8/8/8/8/K7 w - - 0 1")),
        vec![Illegality::TooManyKings(Side::Black, 2)]
    );
    assert_eq!(
        illegalities(&raw("k6P/8/8/8/8/8/8/K6p w - - 0 1")),
        vec![
            Illegality::PawnOnEndRank(Square::new(7, 0)),
            Illegality::PawnOnEndRank(Square::new(7, 7))
        ]
    );
}

#[test]
fn en_passant_is_recorded_only_when_it_can_be_played() {
    // A double step next to an enemy pawn records the target; the capture removes the pawn.
    let p = pos("4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1");
    let after: Vec<Position> = successors(&p)
        .into_iter()
        .filter(|(m, _)| m.to_string() == "e2e4")
        .map(|(_, q)| q)
        .collect();
    assert_eq!(after.len(), 1);
    assert_eq!(after[0].en_passant(), Some(Square::parse("e3").unwrap()));
    assert!(uci_moves(&after[0]).contains(&"d4e3".to_string()));
    let captured = successors(&after[0])
        .into_iter()
        .find(|(m, _)| m.to_string() == "d4e3")
        .unwrap()
        .1;
    assert_eq!(captured.fen(), "4k3/8/8/8/8/4p3/8/4K3 w - - 0 1");

    // No enemy pawn beside it: no target.
    let lonely = pos("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1");
    let double = successors(&lonely)
        .into_iter()
        .find(|(m, _)| m.to_string() == "e2e4")
        .unwrap()
        .1;
    assert_eq!(double.en_passant(), None);
}

#[test]
fn en_passant_that_exposes_the_king_is_not_available() {
    // exd6 would leave both fifth-rank pawns gone and the king on a5 attacked by the rook.
    let text = "8/8/8/K2pP2r/8/8/8/7k w - d6 0 1";
    let p = pos(text);
    assert_eq!(p.en_passant(), None, "the unavailable target is dropped");
    assert!(!uci_moves(&p).contains(&"e5d6".to_string()));
    assert_eq!(
        illegalities(&raw(text)),
        vec![Illegality::EnPassantUnavailable(
            Square::parse("d6").unwrap()
        )]
    );
    // Without the rook the capture is legal.
    let free = pos("8/8/8/K2pP3/8/8/8/7k w - d6 0 1");
    assert!(uci_moves(&free).contains(&"e5d6".to_string()));
    // A target that does not follow a double step is an error.
    assert_eq!(
        illegalities(&raw("4k3/8/8/8/8/8/8/4K3 w - d6 0 1")),
        vec![Illegality::InvalidEnPassant(Square::parse("d6").unwrap())]
    );
}

#[test]
fn promotions_offer_four_pieces() {
    let p = pos("8/P7/8/8/8/8/8/k1K5 w - - 0 1");
    let moves = uci_moves(&p);
    for m in ["a7a8q", "a7a8r", "a7a8b", "a7a8n"] {
        assert!(moves.contains(&m.to_string()), "{m}");
    }
    // Capture-promotions too, and a promoted piece gives check at once.
    let q = pos("1r5k/P7/8/8/8/8/8/2K5 w - - 0 1");
    let after = successors(&q)
        .into_iter()
        .find(|(m, _)| m.to_string() == "a7b8q")
        .unwrap()
        .1;
    assert!(in_check(Side::Black, &after));
}

#[test]
fn small_boards_double_step_onto_the_last_rank_promotes() {
    // On a 4-rank board a pawn on its second rank reaches the last rank in one double step.
    let p = pos("3k/4/P3/K3 w - - 0 1");
    let moves = uci_moves(&p);
    assert!(moves.contains(&"a2a4q".to_string()), "{moves:?}");
    assert!(moves.contains(&"a2a3".to_string()));
}

#[test]
fn hurd_table1_legal_counts_for_three_men() {
    // Table 1 counts ordered placements; with distinct men, each placement is one position.
    let board = Board::STANDARD;
    let cases: [(&[Man], usize, usize); 3] = [
        (
            &[(Side::White, Piece::King), (Side::Black, Piece::King)],
            3612,
            3612,
        ),
        (
            &[
                (Side::White, Piece::King),
                (Side::White, Piece::Rook),
                (Side::Black, Piece::King),
            ],
            175168,
            223944,
        ),
        (
            &[
                (Side::White, Piece::King),
                (Side::White, Piece::Queen),
                (Side::Black, Piece::King),
            ],
            144508,
            223944,
        ),
    ];
    for (men, white_to_move, black_to_move) in cases {
        let all = positions_with(board, men);
        let legal = |s: Side| {
            all.iter()
                .filter(|p| to_move(p) == s && chess_legal(p))
                .count()
        };
        assert_eq!(legal(Side::White), white_to_move, "{men:?}");
        assert_eq!(legal(Side::Black), black_to_move, "{men:?}");
    }
}

#[test]
fn illegalities_are_empty_exactly_for_legal_positions() {
    let board = Board::new(4, 4).unwrap();
    let materials: [&[Man]; 3] = [
        &[
            (Side::White, Piece::King),
            (Side::White, Piece::Pawn),
            (Side::Black, Piece::King),
            (Side::Black, Piece::Pawn),
        ],
        &[
            (Side::White, Piece::King),
            (Side::White, Piece::Queen),
            (Side::Black, Piece::King),
            (Side::Black, Piece::Knight),
        ],
        &[
            (Side::White, Piece::King),
            (Side::Black, Piece::King),
            (Side::Black, Piece::King),
        ],
    ];
    for men in materials {
        for p in positions_with(board, men) {
            assert_eq!(illegalities(&p).is_empty(), chess_legal(&p), "{}", p.fen());
        }
    }
}

#[test]
fn a_lone_king_never_wins() {
    // Hurd's example theorem: all_on_board p ∧ has_pieces White [King] p ⇒ ¬chess_win p,
    // checked exhaustively for a black rook and queen on a 5×5 board.
    let board = Board::new(5, 5).unwrap();
    for extra in [Piece::Rook, Piece::Queen] {
        let men = [
            (Side::White, Piece::King),
            (Side::Black, Piece::King),
            (Side::Black, extra),
        ];
        assert!(positions_with(board, &men).iter().all(|p| !chess_win(p)));
    }
}

#[test]
fn successors_are_legal_and_alternate() {
    let board = Board::new(4, 4).unwrap();
    let men = [
        (Side::White, Piece::King),
        (Side::White, Piece::Pawn),
        (Side::Black, Piece::King),
        (Side::Black, Piece::Bishop),
    ];
    for p in positions_with(board, &men) {
        for (_, q) in successors(&p) {
            assert!(chess_legal(&q));
            assert_eq!(to_move(&q), opponent(to_move(&p)));
            assert!(chess_move(&p, &q));
        }
    }
}

#[test]
fn reachable_men_follow_captures_and_promotions() {
    let k = (Side::White, Piece::King);
    let kb = (Side::Black, Piece::King);
    let reach = reachable_men(&[
        k,
        (Side::White, Piece::Pawn),
        kb,
        (Side::Black, Piece::Rook),
    ]);
    // KPvKR reaches KvK, KPvK, KvKR, KQvKR, KQvK, KNvK … but never two white pieces.
    assert!(reach.contains(&vec![k, kb]));
    assert!(reach.contains(&vec![k, (Side::White, Piece::Queen), kb]));
    assert!(reach.contains(&vec![
        k,
        (Side::White, Piece::Knight),
        kb,
        (Side::Black, Piece::Rook)
    ]));
    assert!(reach.iter().all(|m| m.len() <= 4));
    // KPvKR, KvKR, KPvK, KXvKR and KXvK for X in Q R B N, KvK.
    assert_eq!(reach.len(), 1 + 1 + 1 + 4 + 4 + 1);
}
