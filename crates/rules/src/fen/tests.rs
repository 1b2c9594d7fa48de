//! FEN round trips, every error, and property tests that no input panics.

use super::*;
use proptest::prelude::*;

#[test]
fn round_trips_on_many_board_sizes() {
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
        "8/8/8/K2pP2r/8/8/8/7k w - d6 0 1",
        "k2/3/2K b - - 12 40",
        "K/k w - - 0 1",
        "k9/10/10/10/10/10/10/10/10/9K w - - 0 1",
        "16/16/16/16/16/16/16/16/16/16/16/16/16/16/16/k14K b - - 0 1",
        "r10k/12/12/12/12/12/12/12/12/12/12/K10R w - - 3 7",
    ] {
        let setup = Setup::parse(fen).unwrap();
        assert_eq!(setup.fen(), fen);
        assert_eq!(Setup::parse(&setup.fen()).unwrap(), setup);
    }
}

#[test]
fn board_size_comes_from_the_placement() {
    let s = Setup::parse("k9/10/10/10/10/10/10/10/10/9K w").unwrap();
    assert_eq!(s.board, Board::new(10, 10).unwrap());
    assert_eq!(s.men.len(), 2);
    assert_eq!(s.men[0], (Square::new(9, 0), (Side::White, Piece::King)));
    let s = Setup::parse("2k/3/3/3/K2 w").unwrap();
    assert_eq!(s.board, Board::new(3, 5).unwrap());
}

#[test]
fn optional_fields_default() {
    let s = Setup::parse("k7/8/8/8/8/8/8/7K b").unwrap();
    assert_eq!(s.en_passant, None);
    assert_eq!((s.halfmove_clock, s.fullmove_number), (0, 1));
    assert_eq!(s.fen(), "k7/8/8/8/8/8/8/7K b - - 0 1");
}

fn err(fen: &str) -> FenError {
    Setup::parse(fen).expect_err(fen)
}

#[test]
fn each_malformation_is_named_with_its_column() {
    assert_eq!(err("   "), FenError::Empty);
    assert_eq!(
        err("k7/8/8/8/8/8/8/7X w"),
        FenError::BadPiece { at: 16, found: 'X' }
    );
    assert_eq!(
        err("k7/8/8/8/8/8/8/07K w"),
        FenError::BadCount {
            at: 15,
            found: "07".into()
        }
    );
    assert_eq!(
        err("k7/8/8/0/8/8/8/7K w"),
        FenError::BadCount {
            at: 7,
            found: "0".into()
        }
    );
    assert_eq!(
        err("k7/8/8/17/8/8/8/7K w"),
        FenError::BadCount {
            at: 7,
            found: "17".into()
        }
    );
    assert_eq!(
        err("k7/8//8/8/8/8/7K w"),
        FenError::EmptyRank { at: 5, rank: 3 }
    );
    assert_eq!(
        err("k7/8/8/8/8/8/8/7K/ w"),
        FenError::EmptyRank { at: 18, rank: 9 }
    );
    assert_eq!(err("k16/8 w"), FenError::RankTooWide { at: 0, rank: 1 });
    assert_eq!(
        err("k7/8/8/8/8/8/9/7K w"),
        FenError::UnevenRanks {
            at: 13,
            rank: 7,
            width: 9,
            expected: 8
        }
    );
    assert_eq!(
        err(&format!("{} w", ["8"; 17].join("/"))),
        FenError::TooManyRanks { ranks: 17 }
    );
    assert_eq!(err("k7/8/8/8/8/8/8/7K"), FenError::MissingSide);
    assert_eq!(
        err("k7/8/8/8/8/8/8/7K x"),
        FenError::BadSide {
            at: 18,
            found: "x".into()
        }
    );
    assert_eq!(
        err("k7/8/8/8/8/8/8/7K w KQkq - 0 1"),
        FenError::Castling {
            at: 20,
            found: "KQkq".into()
        }
    );
    assert_eq!(
        err("k7/8/8/8/8/8/8/7K w - e9x"),
        FenError::BadEnPassant {
            at: 22,
            found: "e9x".into()
        }
    );
    assert!(matches!(
        err("k7/8/8/8/8/8/8/7K w - j3"),
        FenError::EnPassantOffBoard { at: 22, .. }
    ));
    assert_eq!(
        err("k7/8/8/8/8/8/8/7K w - - x 1"),
        FenError::BadClock {
            at: 24,
            field: "halfmove clock",
            found: "x".into()
        }
    );
    assert_eq!(
        err("k7/8/8/8/8/8/8/7K w - - 0 0"),
        FenError::BadClock {
            at: 26,
            field: "fullmove number",
            found: "0".into()
        }
    );
    assert_eq!(
        err("k7/8/8/8/8/8/8/7K w - - 0 1 extra"),
        FenError::TrailingText {
            at: 28,
            found: "extra".into()
        }
    );
    // Messages name the column, 1-based.
    assert!(err("k7/8/8/8/8/8/8/7X w").to_string().contains("column 17"));
    assert!(err("k7/8/8/8/8/8/8/7K w KQ")
        .to_string()
        .contains("castling"));
}

#[test]
fn illegal_positions_list_every_reason() {
    let e = "8/8/8/8/8/8/8/8 w".parse::<Position>().unwrap_err();
    assert_eq!(
        e,
        PositionFromFenError::Illegal(IllegalPosition {
            reasons: vec![
                Illegality::MissingKing(Side::White),
                Illegality::MissingKing(Side::Black)
            ]
        })
    );
    assert!(e.to_string().contains("White has no king"));
    let e = "not a fen".parse::<Position>().unwrap_err();
    assert!(matches!(e, PositionFromFenError::Fen(_)), "{e}");
}

fn arbitrary_setup() -> impl Strategy<Value = Setup> {
    (1usize..=16, 1usize..=16)
        .prop_flat_map(|(files, ranks)| {
            let cells = files * ranks;
            (
                Just((files, ranks)),
                prop::collection::vec(prop::option::weighted(0.2, (0usize..2, 0usize..6)), cells),
                any::<bool>(),
                prop::option::of((0..files, 0..ranks)),
                0u32..200,
                1u32..300,
            )
        })
        .prop_map(|((files, ranks), cells, white, ep, half, full)| {
            let board = Board::new(files, ranks).unwrap();
            let men = board
                .squares()
                .zip(cells)
                .filter_map(|(sq, cell)| cell.map(|(s, p)| (sq, (Side::ALL[s], Piece::ALL[p]))))
                .collect();
            Setup {
                board,
                men,
                to_move: if white { Side::White } else { Side::Black },
                en_passant: ep.map(|(f, r)| Square::new(f as u8, r as u8)),
                halfmove_clock: half,
                fullmove_number: full,
            }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn printing_then_parsing_is_the_identity(setup in arbitrary_setup()) {
        prop_assert_eq!(Setup::parse(&setup.fen()).unwrap(), setup);
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,80}") {
        let _ = Setup::parse(&text);
        let _ = text.parse::<Position>();
    }

    #[test]
    fn fen_like_text_never_panics(text in "[kqrbnpKQRBNP0-9/]{0,60}( [wbx-]{0,2}( [-KQkq]{0,4}( [a-q0-9-]{0,3}( [0-9x]{0,3}( [0-9]{0,3})?)?)?)?)?") {
        if let Ok(setup) = Setup::parse(&text) {
            // Whatever parses prints back to something that parses to the same setup.
            prop_assert_eq!(Setup::parse(&setup.fen()).unwrap(), setup.clone());
            let _ = Position::from_setup(&setup);
        }
    }
}
