//! # retro-symbolic — Hurd's symbolic construction with binary decision diagrams
//!
//! The second, independent road to the depth-to-mate databases (Hurd, *Formal Verification of
//! Chess Endgame Databases*, sections 3 and 4): whole sets of positions as BDDs (the `oxidd`
//! crate), built from the natural model's predicates on squares, and White's winning sets
//! computed by the fixpoint of `win1_by` / `win2_by`.
//!
//! * [`encoding`] — positions as Boolean variables, three variable orderings;
//! * [`category`] — Hurd's categories (`KR_K`);
//! * [`engine`] — the BDD manager and the BDDs of the rules;
//! * [`solve`] — the fixpoint, category by category, and the figures of Table 1.
//!
//! Owns: everything symbolic. Must never: enumerate positions to build a set (model counts and
//! cross-checks aside).

pub mod category;
pub mod encoding;
pub mod engine;
pub mod solve;

pub use category::Category;
pub use encoding::{Layout, Ordering};
pub use engine::{Engine, SymbolicError};
pub use solve::{Figures, Product, Solution, Solver};
