//! # retro-rules — the natural model of chess
//!
//! The laws of chess written to be checked by reading, following Hurd's definitions (section 2.2
//! and appendix A of *Formal Verification of Chess Endgame Databases*) and the FIDE articles they
//! quote, on boards of `F × R` squares, with pawns and en passant added and castling left out.
//!
//! This crate, with `retro-game` and `retro-verify`, is the trusted kernel. It must stay small and
//! must never optimise: no bitboards, no lookup tables, no cleverness. The fast engine is proved
//! equal to it by exhaustive comparison (`retro selfcheck`), never the other way round.
//!
//! * [`board`] — the board and its geometry;
//! * [`position`] — sides, pieces, positions;
//! * [`laws`] — attacks, check, legality, moves, checkmate and stalemate;
//! * [`chess`] — chess as a `retro_game::Game`, and enumeration of positions;
//! * [`fifty`] — the fifty-move rule: zeroing moves, chess on (position, clock), the five
//!   classes and the distance to zeroing (DTZ50);
//! * [`fen`] — FEN for any board size.
//!
//! ```
//! use retro_rules::laws::{checkmated, successors};
//! use retro_rules::Position;
//! // KRvK on a 4×4 board: the rook mates on the fourth rank.
//! let p: Position = "k3/4/1K2/3R w - - 0 1".parse()?;
//! let mates: Vec<String> = successors(&p)
//!     .into_iter()
//!     .filter(|(_, after)| checkmated(after))
//!     .map(|(_, after)| after.fen())
//!     .collect();
//! assert_eq!(mates, ["k2R/4/1K2/4 b - - 0 1"]);
//! # Ok::<(), retro_rules::PositionFromFenError>(())
//! ```

pub mod board;
pub mod chess;
pub mod fen;
pub mod fifty;
pub mod laws;
pub mod position;

pub use board::{Board, Square};
pub use chess::Chess;
pub use fen::{FenError, IllegalPosition, PositionFromFenError, Setup};
pub use laws::{Illegality, Move};
pub use position::{opponent, Man, Piece, Position, Side};
