//! # retro-strategy — a KRK strategy proved correct on every board
//!
//! The Bratko-style strategy for White in king and rook against king, as Janičić, Marić and
//! Maliković define it (*Computer-Assisted Proving of Combinatorial Conjectures Over Finite
//! Domains*, sections 2.2.1 and 5.3.1), on n×n boards: the positions and moves of KRK
//! ([`krk`]), the auxiliary notions ([`notions`]), the strategy as a relation and as a function
//! ([`strategy`]), its retrograde verification ([`retro`]) and its lemmas ([`lemmas`]).
//!
//! Owns: everything about this one strategy. Must never: disagree with the natural model on
//! KRK positions (tested exhaustively on small boards).

pub mod krk;
pub mod lemmas;
pub mod notions;
pub mod retro;
pub mod strategy;

pub use krk::Krk;
pub use strategy::{Breakage, Kind, Strategy};
