//! # retro-gen — depth-to-mate tables by retrograde analysis
//!
//! Owns: building the table of a material on a board, each after the tables its captures and
//! promotions lead into, and writing it with `retro-format`.
//! Must never: be trusted on its own — every table it writes is checked by `retro-verify`
//! against the natural model.
//!
//! # What is computed
//!
//! For every legal position, with either side to move: *win in n plies* (the side to move
//! mates in `n` plies, `n` odd), *loss in n plies* (it is mated in `n` plies, `n` even), or
//! *draw* (neither side can force mate). These are Hurd's sets: a White-to-move position is a
//! win in `2n + 1` plies exactly when `n` is the least with `p ∈ win1_by chess n`, and a
//! Black-to-move position a loss in `2n` plies exactly when `n` is the least with
//! `p ∈ win2_by chess n`; Black's wins are the same sets of the game with the colours exchanged.
//!
//! # Two cores
//!
//! [`Builder`] builds with the fast core ([`fast`]: a field layout with one byte per position,
//! bitboards, losses found by counting moves or by ways out) wherever it applies — any
//! material, pawns and en passant included, on boards of at most 64 squares, whose mates take
//! at most 251 plies — and with the reference core ([`mod@reference`]: the engine's index, a
//! 16-bit word per position) elsewhere, or everywhere with [`CoreKind::Reference`]. Both write
//! the same file; tests compare them byte for byte. Both take the tables a material's exits
//! lead into from one list, [`exit_targets`]. The reference core also runs partitioned over
//! the ranks of a group ([`Builder::build_on`], [`ranks`]: MPI processes, or threads in tests),
//! each rank holding a contiguous part of the index; the file is the same again.
//!
//! ```
//! use retro_engine::Material;
//! use retro_gen::{Builder, Silent};
//! use retro_rules::Board;
//! // KRvK on a 4×4 board, with the table its rook's capture leads into (KvK).
//! let dir = tempfile::tempdir()?;
//! let reports = Builder::new(Board::new(4, 4)?, dir.path())
//!     .build(&[Material::parse("KRvK")?], &Silent)?;
//! let krvk = reports.last().expect("KRvK is built last");
//! assert_eq!(krvk.material.to_string(), "KRvK");
//! assert!(krvk.path.ends_with("KRvK.4x4.rtb"));
//! // Rd4 mates at once: the table says so.
//! let (_, geo, position) = retro_engine::fen::positions_of_fen("k3/4/1K2/3R w - - 0 1")?;
//! let indexer = retro_engine::Indexer::new(&geo, Material::parse("KRvK")?)?;
//! let table_position: retro_engine::TablePosition = position.resized()?;
//! let index = indexer.index(&geo, &table_position).expect("a legal position");
//! let table = retro_format::Table::open(&krvk.path)?;
//! assert_eq!(table.value(true, index)?, retro_format::Value::Win(1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod builder;
mod exit_codes;
mod exits;
pub mod fast;
pub mod fifty;
pub mod memory;
mod pending;
pub mod ranks;
pub mod reference;
mod subtables;

pub use builder::Builder;
pub use exit_codes::{exit_codes, pack_table, restore_packed};
pub use exits::exit_targets;
pub use memory::{building_core, disk_needed, memory_needed, DiskNeed, MemoryNeed};
pub use ranks::{OneRank, Ranks, ThreadRanks, Traffic};
pub use subtables::SHARED_TABLE_BYTES;

use retro_engine::Material;
use retro_format::FormatError;
use std::path::PathBuf;

/// What can go wrong building tables.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    /// Material the generator does not build.
    #[error("cannot build {material}: {reason}")]
    Unsupported {
        /// The material.
        material: String,
        /// Why.
        reason: String,
    },
    /// A table could not be read or written.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// A table would take more memory than the build may use; refused before any work.
    #[error(
        "building {material} needs about {} of memory, more than the {} this run may use \
         (`--mem`, or the memory the machine has available)",
        memory::gib(*.needed),
        memory::gib(*.limit)
    )]
    NotEnoughMemory {
        /// The material.
        material: String,
        /// Bytes its build needs ([`memory_needed`]).
        needed: u64,
        /// Bytes the build may use.
        limit: u64,
    },
    /// The tables to build and their scratch files would not fit the disk; refused before any
    /// work.
    #[error(
        "building {material} needs about {} of disk in {} (the tables the run writes and its \
         scratch files), more than the {} free there",
        memory::gib(*.needed),
        .dir.display(),
        memory::gib(*.available)
    )]
    NotEnoughDisk {
        /// The material whose build needs the most scratch (else the run's target).
        material: String,
        /// The tables directory.
        dir: PathBuf,
        /// Bytes the run writes at its peak ([`disk_needed`]).
        needed: u64,
        /// Bytes free in the directory.
        available: u64,
    },
    /// Another rank of a partitioned build failed (it reports its own error).
    #[error("building {material}: another rank failed")]
    OtherRank {
        /// The material.
        material: String,
    },
    /// A table read back contradicts the position it was asked about.
    #[error("table {material} has no value for the legal position {fen}; rebuild it")]
    Inconsistent {
        /// The material of the table.
        material: String,
        /// The position.
        fen: String,
    },
}

/// The phases of long retrograde work, as progress reports name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Every position is decoded and its moves generated; `work` is the number of entries.
    Init,
    /// Depth by depth; `work` is the number of legal positions (each is handled at most once).
    Retrograde,
    /// The Freezer's values by rule, after the depths (`work`: the positions still open).
    Rules,
}

impl Phase {
    /// A short name for a progress bar.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Init => "moves",
            Phase::Retrograde => "retrograde",
            Phase::Rules => "by rule",
        }
    }
}

/// How long work reports its progress: the builders of this crate and the Freezer's analysis
/// both report through it, so that one set of progress bars serves both.
pub trait Observer: Sync {
    /// A phase of the work on `subject` (a material, a problem) begins, with `work` steps to
    /// report.
    fn phase(&self, _subject: &str, _phase: Phase, _work: u64) {}
    /// `steps` more steps are done.
    fn progressed(&self, _steps: u64) {}
    /// The retrograde pass of `depth` plies is done, having decided `found` positions (those
    /// whose value is `depth` plies).
    fn depth_passed(&self, _depth: u32, _found: u64) {}
    /// A table is written (or was already there); the builders only.
    fn finished(&self, _report: &BuildReport) {}
    /// Something the person running the work should know before it goes on: a risk, not an
    /// error (the disk a build may need beyond its figure, [`Builder`]'s check of the disk).
    fn notice(&self, _text: &str) {}
}

/// An observer that ignores everything.
pub struct Silent;
impl Observer for Silent {}

/// What a run builds for each material of its plan: the tables of a metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Metric {
    /// Depth to mate, the fifty-move rule left out: one DTM file a material.
    Dtm,
    /// Under the fifty-move rule: the distance to zeroing and the five classes, a DTZ50 and a
    /// WDL50 file a material ([`fifty`]), built from the DTZ50 tables of the smaller materials.
    Fifty,
}

impl Metric {
    /// The kinds of file the metric writes for a material; the first is the one a report
    /// names.
    pub fn kinds(self) -> &'static [retro_format::TableKind] {
        use retro_format::TableKind;
        match self {
            Metric::Dtm => &[TableKind::Dtm],
            Metric::Fifty => &[TableKind::Dtz50, TableKind::Wdl50],
        }
    }

    /// How the metric is named on the command line and in reports: `dtm`, `fifty`.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Dtm => "dtm",
            Metric::Fifty => "fifty",
        }
    }
}

/// What building one table did.
#[derive(Debug, Clone)]
pub struct BuildReport {
    /// The material.
    pub material: Material,
    /// What was built: a DTM table, or a DTZ50 table with its WDL50 companion.
    pub metric: Metric,
    /// The file (for [`Metric::Fifty`], the DTZ50 file; the WDL50 file lies beside it).
    pub path: PathBuf,
    /// Whether an existing valid file was kept instead of building.
    pub reused: bool,
    /// Whether the whole file was checked against its checksum: a kept file that no table
    /// built in the same run reads has its header and length checked only.
    pub body_checked: bool,
    /// Index entries per side to move.
    pub entries_per_side: u64,
    /// The longest depth to mate (or distance to zeroing), in plies.
    pub max_plies: u32,
    /// Seconds spent in all.
    pub seconds: f64,
    /// Of which setting up: loading the smaller tables and the first pass over every position
    /// (legality, captures and promotions looked up, mates).
    pub init_seconds: f64,
    /// Of which the retrograde iteration, depth by depth (the rest of `seconds` is writing
    /// the file).
    pub retrograde_seconds: f64,
    /// Retrograde steps taken (the number of depths visited).
    pub depths: u32,
    /// The core that built it (`None` when an existing file was kept).
    pub core: Option<CoreKind>,
    /// The packing of the raw file this run did ([`Builder::with_pack`]), if any; `path` is
    /// then the packed file.
    pub packed: Option<retro_format::PackReport>,
    /// What this rank exchanged with the others, for a build partitioned over ranks.
    pub traffic: Option<Traffic>,
}

/// Which retrograde core builds a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CoreKind {
    /// The fast core ([`fast`]) wherever it applies (no pawns or pawns of one side, boards of
    /// at most 64 squares, depths of at most 251 plies), the reference core elsewhere.
    #[default]
    Fast,
    /// The reference core of this module, everywhere.
    Reference,
}

#[cfg(test)]
mod partitioned_tests;
#[cfg(test)]
mod tests;
