//! # retro-strategy — a KRK strategy proved correct on every board
//!
//! The Bratko-style strategy for White in king and rook against king, as Janičić, Marić and
//! Maliković define it (*Computer-Assisted Proving of Combinatorial Conjectures Over Finite
//! Domains*, sections 2.2.1 and 5.3.1), on n×n boards: the positions and moves of KRK
//! ([`krk`]), the auxiliary notions ([`notions`]), the strategy as a relation and as a function
//! ([`strategy`]), its retrograde verification ([`retro`]), its lemmas ([`lemmas`]) and their
//! proof for every board size ([`prove`]). The notions and conditions are written once
//! ([`conditions`], over [`lia`]): the exhaustive checks evaluate them, the proof hands the same
//! formulas to SMT solvers.
//!
//! Owns: everything about this one strategy. Must never: disagree with the natural model on
//! KRK positions (tested exhaustively on small boards).
//!
//! ```
//! use retro_strategy::retro::{verify, Mode};
//! use retro_strategy::{Krk, Strategy};
//! // The strategy's move in one position of a 4×4 board…
//! let p = Krk::from_fen("k3/4/1K2/3R w - - 0 1")?;
//! let choice = Strategy::default().function(&p).expect("a move");
//! println!("{:?}", choice.kind);
//! // …and the proof on the whole board: every position wins, in at most 21 plies (Table 5).
//! let outcome = verify(4, &Strategy::default(), Mode::Relation);
//! assert_eq!(outcome.not_winning, 0);
//! assert_eq!(outcome.longest_plies, 21);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod conditions;
pub mod krk;
pub mod lemmas;
pub mod lia;
pub mod notions;
pub mod prove;
pub mod retro;
pub mod strategy;

pub use krk::Krk;
pub use strategy::{Breakage, Kind, Strategy};
