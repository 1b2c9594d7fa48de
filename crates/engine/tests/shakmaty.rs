//! A third opinion on 8×8: shakmaty (the library behind Lichess) against the engine and the
//! natural model — perft from positions with promotions and en passant, and legality, check,
//! checkmate, stalemate, the legal moves and their SAN on a million random positions of up to
//! six men.

use rayon::prelude::*;
use retro_engine::notation::notated_moves;
use retro_engine::perft::{perft, perft_natural};
use retro_engine::{Geometry, Position};
use retro_rules::{Board, Piece, Side, Square};
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position as _, PositionErrorKinds};

/// Shakmaty's position, accepting what Hurd's legality accepts: checks shakmaty deems
/// impossible to have arisen, and more material than a game can reach (each `ignore_…` removes
/// its kind from the error before deciding).
#[allow(clippy::result_large_err)]
fn shakmaty_position(fen: &str) -> Result<Chess, PositionErrorKinds> {
    let setup = Fen::from_ascii(fen.as_bytes()).expect("shakmaty reads our FEN");
    setup
        .into_position::<Chess>(CastlingMode::Standard)
        .or_else(|e| e.ignore_impossible_check())
        .or_else(|e| e.ignore_too_much_material())
        .map_err(|e| e.kinds())
}

/// Well-known perft positions with castling rights removed (no castling in the model), and
/// positions built around en passant and promotion.
const PERFT: &[(&str, u32)] = &[
    ("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1", 4),
    (
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w - - 0 1",
        3,
    ),
    // En passant under pins along the fifth rank.
    ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1", 5),
    (
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w - - 0 1",
        3,
    ),
    (
        "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w - - 1 8",
        3,
    ),
    // Promotions and under-promotions, with captures.
    ("n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1", 4),
    // An en-passant capture that would expose the king is not legal.
    ("8/8/8/K2pP2r/8/8/8/7k w - d6 0 1", 4),
    ("8/8/3k4/8/2pP4/8/8/3K2B1 b - d3 0 1", 4),
    ("4k3/8/8/2PpP3/8/8/8/4K3 w - d6 0 1", 4),
];

#[test]
fn perft_agrees_with_shakmaty() {
    let geo = Geometry::new(Board::STANDARD);
    PERFT.par_iter().for_each(|&(fen, depth)| {
        let natural: retro_rules::Position = fen.parse().unwrap();
        let fast: Position = Position::from_natural(&geo, &natural).unwrap();
        let reference = shakmaty::perft(&shakmaty_position(fen).unwrap(), depth);
        assert_eq!(perft(&geo, &fast, depth), reference, "{fen} depth {depth}");
    });
}

#[test]
fn natural_perft_agrees_with_shakmaty() {
    PERFT.par_iter().for_each(|&(fen, depth)| {
        let natural: retro_rules::Position = fen.parse().unwrap();
        let depth = depth.min(2);
        let reference = shakmaty::perft(&shakmaty_position(fen).unwrap(), depth);
        assert_eq!(
            perft_natural(&natural, depth),
            reference,
            "{fen} depth {depth}"
        );
    });
}

#[test]
fn known_perft_counts() {
    // Published counts: the initial position and position 3 of the usual suite.
    let geo = Geometry::new(Board::STANDARD);
    let count = |fen: &str, depth| {
        let p: Position = Position::from_natural(&geo, &fen.parse().unwrap()).unwrap();
        perft(&geo, &p, depth)
    };
    assert_eq!(count(PERFT[0].0, 4), 197_281);
    assert_eq!(count(PERFT[2].0, 5), 674_624);
}

struct XorShift(u64);

impl XorShift {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound
    }
}

/// A random setup of 2 to 6 men: both kings and up to four others, on distinct squares, either
/// side to move, sometimes with a consistent en-passant target.
fn random_setup(rng: &mut XorShift) -> retro_rules::Setup {
    let kinds = [
        Piece::Queen,
        Piece::Rook,
        Piece::Bishop,
        Piece::Knight,
        Piece::Pawn,
        Piece::Pawn,
    ];
    let mut men: Vec<(Side, Piece)> = vec![(Side::White, Piece::King), (Side::Black, Piece::King)];
    for _ in 0..rng.below(5) {
        let side = if rng.below(2) == 0 {
            Side::White
        } else {
            Side::Black
        };
        men.push((side, kinds[rng.below(kinds.len() as u64) as usize]));
    }
    let mut placed: Vec<(Square, (Side, Piece))> = Vec::new();
    for man in men {
        loop {
            let sq = Square::new(rng.below(8) as u8, rng.below(8) as u8);
            if placed.iter().all(|(s, _)| *s != sq) {
                placed.push((sq, man));
                break;
            }
        }
    }
    placed.sort();
    let to_move = if rng.below(2) == 0 {
        Side::White
    } else {
        Side::Black
    };
    // An en-passant target behind a pawn of the side not to move on its fourth rank.
    let mover = retro_rules::opponent(to_move);
    let fourth = if mover == Side::White { 3 } else { 4 };
    let candidates: Vec<Square> = placed
        .iter()
        .filter(|&&(sq, man)| man == (mover, Piece::Pawn) && sq.rank == fourth)
        .map(|&(sq, _)| Square::new(sq.file, if mover == Side::White { 2 } else { 5 }))
        .collect();
    let en_passant = (!candidates.is_empty() && rng.below(2) == 0)
        .then(|| candidates[rng.below(candidates.len() as u64) as usize]);
    retro_rules::Setup {
        board: Board::STANDARD,
        men: placed,
        to_move,
        en_passant,
        halfmove_clock: 0,
        fullmove_number: 1,
    }
}

#[derive(Default)]
struct Tally {
    legal: u64,
    illegal: u64,
    checks: u64,
    mates: u64,
    stalemates: u64,
}

#[test]
fn a_million_random_positions_agree_with_shakmaty() {
    const WANTED: u64 = 1_000_000;
    const CHUNKS: u64 = 64;
    let geo = Geometry::new(Board::STANDARD);
    let tally = (0..CHUNKS)
        .into_par_iter()
        .map(|chunk| {
            let mut rng =
                XorShift(0x2545_F491_4F6C_DD1D ^ (chunk + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let mut t = Tally::default();
            while t.legal < WANTED / CHUNKS {
                let setup = random_setup(&mut rng);
                let fen = setup.fen();
                let checked = retro_rules::Position::from_setup(&setup);
                let theirs = shakmaty_position(&fen);
                let Ok(natural) = checked else {
                    t.illegal += 1;
                    // Illegal for us: shakmaty must reject it too, for the same kind of reason.
                    assert!(theirs.is_err(), "{fen}: we reject it, shakmaty accepts it");
                    continue;
                };
                let theirs =
                    theirs.unwrap_or_else(|e| panic!("{fen}: legal for us, shakmaty says {e:?}"));
                t.legal += 1;
                let fast: Position = Position::from_natural(&geo, &natural).unwrap();
                assert!(fast.is_legal(&geo), "{fen}");
                // The en-passant target survives exactly when shakmaty sees a legal capture.
                let their_ep = theirs
                    .ep_square(EnPassantMode::Legal)
                    .map(|s| s.to_string());
                assert_eq!(
                    natural.en_passant().map(|s| s.to_string()),
                    their_ep,
                    "{fen}"
                );
                let check = retro_rules::laws::in_check(natural_side(&natural), &natural);
                assert_eq!(check, theirs.is_check(), "{fen}: check");
                assert_eq!(
                    fast.in_check(&geo, fast.side_to_move()),
                    check,
                    "{fen}: engine check"
                );
                let mate = retro_rules::laws::checkmated(&natural);
                let stalemate = retro_rules::laws::stalemated(&natural);
                assert_eq!(mate, theirs.is_checkmate(), "{fen}: checkmate");
                assert_eq!(stalemate, theirs.is_stalemate(), "{fen}: stalemate");
                assert_eq!(fast.is_checkmate(&geo), mate, "{fen}: engine checkmate");
                assert_eq!(
                    fast.is_stalemate(&geo),
                    stalemate,
                    "{fen}: engine stalemate"
                );
                t.checks += u64::from(check);
                t.mates += u64::from(mate);
                t.stalemates += u64::from(stalemate);
                // The legal moves, by name (UCI from all three, SAN from the engine and
                // shakmaty), with the position each leads to, en-passant target included.
                let first_four = |fen: &str| fen.split(' ').take(4).collect::<Vec<_>>().join(" ");
                let mut ours: Vec<(String, String, String)> = notated_moves(&geo, &fast)
                    .into_iter()
                    .map(|m| (m.uci, m.san, first_four(&m.after.to_natural(&geo).fen())))
                    .collect();
                let mut reference: Vec<(String, String, String)> = theirs
                    .legal_moves()
                    .into_iter()
                    .map(|m| {
                        let uci = UciMove::from_move(m, CastlingMode::Standard).to_string();
                        let san = SanPlus::from_move(theirs.clone(), m).to_string();
                        let child = theirs.clone().play(m).expect("a legal move");
                        let child_fen =
                            Fen::from_position(&child, EnPassantMode::Legal).to_string();
                        (uci, san, first_four(&child_fen))
                    })
                    .collect();
                let mut natural_uci: Vec<String> = retro_rules::laws::successors(&natural)
                    .iter()
                    .map(|(m, _)| m.to_string())
                    .collect();
                ours.sort();
                reference.sort();
                natural_uci.sort();
                assert_eq!(ours, reference, "{fen}: legal moves");
                let ours_uci: Vec<String> = ours.into_iter().map(|(u, _, _)| u).collect();
                assert_eq!(natural_uci, ours_uci, "{fen}: natural model's moves");
            }
            t
        })
        .reduce(Tally::default, |a, b| Tally {
            legal: a.legal + b.legal,
            illegal: a.illegal + b.illegal,
            checks: a.checks + b.checks,
            mates: a.mates + b.mates,
            stalemates: a.stalemates + b.stalemates,
        });
    assert!(tally.legal >= WANTED);
    // The sample must exercise what it claims to: checks, mates, stalemates and rejections.
    assert!(tally.illegal > 100_000, "{}", tally.illegal);
    assert!(tally.checks > 50_000, "{}", tally.checks);
    assert!(tally.mates > 1_000, "{}", tally.mates);
    assert!(tally.stalemates > 500, "{}", tally.stalemates);
    println!(
        "legal {} illegal {} checks {} mates {} stalemates {}",
        tally.legal, tally.illegal, tally.checks, tally.mates, tally.stalemates
    );
}

fn natural_side(p: &retro_rules::Position) -> Side {
    retro_rules::position::to_move(p)
}
