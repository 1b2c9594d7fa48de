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

pub mod geometry;
pub mod index;
pub mod material;
pub mod notation;
pub mod perft;
pub mod position;
pub mod selfcheck;
pub mod sqset;
pub mod unmove;

pub use geometry::Geometry;
pub use index::Indexer;
pub use material::Material;
pub use position::{Man, Move, Position, TablePosition, MAX_MEN, TABLE_MEN};
pub use sqset::{Sq, SqSet};
pub use unmove::Retractions;
