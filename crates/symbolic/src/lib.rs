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
//!
//! ```
//! use retro_rules::Board;
//! use retro_symbolic::{Category, Engine, Ordering, Product, Solver, VariableLayout};
//! // White's winning sets of KR_K on a 4×4 board, as BDDs.
//! let layout = VariableLayout::new(4, 4, 3, Ordering::Sequential);
//! let mut solver = Solver::new(Engine::new(layout, 1 << 20, 1)?, Product::Fused);
//! let category = Category::parse("KR_K")?;
//! solver.solve(&category)?;
//! let figures = solver.figures(&category).expect("solved");
//! assert!(figures.wtm_win > 0 && figures.wtm_win <= figures.wtm_legal);
//! # let _ = Board::STANDARD;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod category;
pub mod encoding;
pub mod engine;
pub mod solve;

pub use category::Category;
pub use encoding::{Ordering, VariableLayout};
pub use engine::{Engine, SymbolicError};
pub use solve::{Figures, Product, Solution, Solver};
