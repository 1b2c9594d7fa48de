//! # retro-oracle — proof certificates of game values
//!
//! Owns: building oracles (Mhalla and Prost, seed `003`): the *builder* and *Oraclefinder*
//! ([`finder`], section 3.1 and 4), the smallest oracle by SAT ([`smallest`]), what the builder
//! knows of positions ([`judge`]), the *reminder* it writes ([`reminder`], section 3.2) and the
//! *player* compiled from a reminder ([`player`], section 3.3).
//! Must never: be trusted. Every oracle it writes is confirmed by the checker in the trusted
//! kernel (`retro_verify::oracle`), which defines what the bytes mean; this crate only obeys it.
//!
//! ```
//! use retro_oracle::{find_oracle, reminder, FindSettings, Goal, Judge};
//! use retro_verify::{oracle::check_oracle, Checker};
//! // Rh8 mates: the oracle is the root and one checkmate, and the kernel's checker agrees.
//! let root: retro_rules::Position = "k7/8/1K6/8/8/8/8/7R w - - 0 1".parse()?;
//! let judge = Judge::new(retro_rules::Side::White, Goal::Win, &root, None, 1);
//! let settings = FindSettings { improve_seconds: 0.0, exact_seconds: 0.0, ..FindSettings::default() };
//! let (oracle, _) = find_oracle(&judge, &root, &settings)?;
//! let file = reminder::to_file(&oracle, &judge.used_tables());
//! let dir = tempfile::tempdir()?;
//! let report = check_oracle(&file, &Checker::new(root.board(), dir.path()))?;
//! assert_eq!((report.nodes, report.checkmate_leaves), (2, 1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod finder;
pub mod graph;
pub mod judge;
pub mod player;
pub mod reminder;
pub mod smallest;

pub use finder::{find_oracle, FindReport, FindSettings, Heuristic, Seam};
pub use graph::{Choice, Oracle};
pub use judge::{Judge, Knowledge, Moves, Worth};
pub use player::Player;
pub use retro_format::oracle::Goal;
pub use smallest::{smallest_oracle, Skipped, SmallestReport};

/// Why an oracle could not be built.
#[derive(Debug, thiserror::Error)]
pub enum OracleBuildError {
    /// A table could not be read.
    #[error(transparent)]
    Probe(#[from] retro_tablebase::ProbeError),
    /// A certificate could not be read.
    #[error(transparent)]
    Verify(#[from] retro_verify::VerifyError),
    /// Nothing says what a position is worth.
    #[error("nothing settles {fen}: {reason}")]
    Unknown {
        /// The position.
        fen: String,
        /// Why.
        reason: String,
    },
    /// The root's value does not allow the goal.
    #[error("{side} cannot reach the goal `{goal}` from {fen}: {reason}")]
    GoalOutOfReach {
        /// The friend side.
        side: retro_rules::Side,
        /// The goal.
        goal: &'static str,
        /// The root.
        fen: String,
        /// Why.
        reason: String,
    },
    /// A friend position with more legal moves than a node byte can number.
    #[error("{fen} has {moves} legal moves; a node byte numbers at most 128")]
    TooManyMoves {
        /// The position.
        fen: String,
        /// Its number of moves.
        moves: usize,
    },
}
