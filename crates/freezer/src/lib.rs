//! # retro-freezer — the Endgame Freezer
//!
//! Bleicher's Endgame Freezer (seed `004`): a retrograde analysis over a small index space —
//! each man kept to the squares that matter — with rules that value every way out of it
//! (a man leaving its squares, a capture, a promotion) by a fixed result or a table look-up.
//!
//! Owns: the problem file ([`problem`]) and the analysis ([`solve`]): values with depths where
//! every deciding leaf is a mate or a look-up, wins and losses "by rule" where a fixed value
//! decides, the assumptions a result rests on, the best moves, and a proof's export as an
//! oracle ([`export`]), and solved indexes kept on disk ([`saved`]).
//! Must never: be trusted as a checker (it is on the fast side), or pretend to a depth a fixed
//! rule decides.

pub mod export;
pub mod problem;
pub mod saved;
pub mod solve;

pub use export::{export_oracle, ExportError};
pub use problem::{FreezerPosition, Outcome, Problem, ProblemError, RuleValue};
pub use solve::{
    tables_needed, Analysis, Assumption, FreezeError, Layout, Observer, SideCounts, Silent, Space,
    Step, Verdict, NARROW_MAX_PLIES, WIDE_LIMIT,
};
