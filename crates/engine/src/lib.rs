//! # retro-engine — the fast model of chess, for retrograde analysis
//!
//! Per-board tables ([`geometry`]), sets of squares ([`sqset`]), material signatures
//! ([`material`]), positions with fast legality and move generation ([`position`]), un-move
//! generation ([`unmove`]), a symmetry-reduced dense index ([`index`]), notation ([`notation`]),
//! move-path enumeration ([`perft`]) and the exhaustive comparison with the natural model
//! ([`selfcheck`]).
//!
//! Owns: speed. Must never: be trusted without `selfcheck`; everything here is checked against
//! `retro-rules`, exhaustively where the domain is finite enough.
//!
//! ```
//! use retro_engine::fen::positions_of_fen;
//! use retro_engine::{perft, Indexer, Material};
//! // A KRvK position on a 4×4 board, for the natural model and for the engine.
//! let (natural, geo, position) = positions_of_fen("k3/4/1K2/3R w - - 0 1")?;
//! assert_eq!(natural.board().to_string(), "4x4");
//! // Its place in the symmetry-reduced index of KRvK, and the moves from it.
//! let indexer = Indexer::new(&geo, Material::parse("KRvK")?)?;
//! let table_position: retro_engine::TablePosition = position.resized()?;
//! assert!(indexer.index(&geo, &table_position).is_some());
//! assert_eq!(perft::perft(&geo, &position, 1), perft::perft_natural(&natural, 1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod exit_moves;
pub mod fen;
pub mod geometry;
pub mod index;
pub mod material;
pub mod notation;
pub mod perft;
pub mod position;
pub mod restore;
pub mod selfcheck;
pub mod sqset;
pub mod unmove;

pub use geometry::Geometry;
pub use index::Indexer;
pub use material::{piece_rank, Material};
pub use position::{Man, Move, Position, TablePosition, MAX_MEN, TABLE_MEN};
pub use restore::restore_illegal;
pub use sqset::{Sq, SqSet};
pub use unmove::Retractions;
