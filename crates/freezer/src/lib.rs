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
//!
//! ```
//! use retro_freezer::{Analysis, Problem, Verdict};
//! use retro_gen::{Builder, Silent};
//! use retro_tablebase::Tablebase;
//! // KRvK on 4×4 with the black king kept to the a- and b-files (leaving them counts as a
//! // draw); the rook's capture is looked up in KvK.
//! let problem = Problem::parse(
//!     r#"
//! title = "KRvK, the black king on a-b"
//! fen = "k3/4/1K2/3R w - - 0 1"
//! [[man]]
//! on = "a4"
//! squares = ["a1-b4"]
//! elsewhere = "draw"
//! "#,
//! )?;
//! let dir = tempfile::tempdir()?;
//! Builder::new(problem.geo.board(), dir.path())
//!     .build(&retro_freezer::tables_needed(&problem)?, &Silent)?;
//! let tables = Tablebase::new(problem.geo.board(), dir.path());
//! let analysis = Analysis::solve(&problem, &tables, &Silent)?;
//! let start = analysis.index_of(&problem.start).expect("the start is in the index");
//! let verdict = analysis.verdict(retro_rules::Side::White, start).expect("legal");
//! assert!(matches!(verdict, Verdict::Win(Some(1))), "{verdict:?}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod export;
pub mod problem;
pub mod saved;
pub mod solve;

pub use export::{export_oracle, ExportError};
pub use problem::{FreezerPosition, Outcome, Problem, ProblemError, RuleValue};
pub use solve::{
    tables_needed, Analysis, Assumption, FreezeError, SideCounts, Space, Step, Verdict, WorkLayout,
    NARROW_MAX_PLIES, WIDE_LIMIT,
};
