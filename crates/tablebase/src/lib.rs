//! # retro-tablebase — using built tables
//!
//! Owns: probing a position's value ([`Tablebase`]), rating its moves and following the best
//! line ([`probe`]), statistics in two counting conventions ([`stats`]), and Hurd's Table 1
//! ([`table1`]).
//! Must never: build tables (that is `retro-gen`) or be the judge of their correctness (that is
//! `retro-verify`).

pub mod probe;
pub mod report;
pub mod stats;
pub mod table1;

pub use probe::{ProbeError, RatedMove, Tablebase};
pub use retro_format::Value;
