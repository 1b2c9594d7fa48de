//! # retro-tablebase — the probing library
//!
//! Owns: probing a position's value ([`Tablebase`]; a directory's tables on every board,
//! [`Directory`]), rating its moves and following the best
//! line ([`probe`]), the same under the fifty-move rule from DTZ50 tables ([`fifty`]), the opened files and the cache of decoded blocks ([`source`]), statistics
//! in two counting conventions ([`stats`]), and Hurd's Table 1 ([`table1`]).
//! Must never: build tables (that is `retro-gen`, which it does not depend on) or be the judge
//! of their correctness (that is `retro-verify`).
//!
//! A program opens a directory of tables once — raw (`.rtb`) or packed (`.rtbz`) files, as
//! `retro gen` and `retro pack` write them — and probes it from any number of threads: the
//! [`Tablebase`] is `Send + Sync`, maps the files it opens, and keeps decoded blocks of packed
//! files in a cache bounded in bytes. Values are depths to mate in plies
//! ([`Value::Win`]`(n)`: the side to move mates in `n` plies, `n` odd; [`Value::Loss`]`(n)`:
//! it is mated in `n` plies; [`Value::Draw`]).
//!
//! ```
//! use retro_rules::Board;
//! use retro_tablebase::{probe::describe, Tablebase, Value};
//! # use retro_engine::Material;
//! # let dir = tempfile::tempdir()?;
//! # retro_gen::Builder::new(Board::STANDARD, dir.path())
//! #     .with_pack(Some(Default::default()))
//! #     .build(&[Material::parse("KRvK")?], &retro_gen::Silent)?;
//! // A directory holding KRvK.8x8.rtbz (and KvK), built by `retro gen KRvK --pack`.
//! let tables = Tablebase::new(Board::STANDARD, dir.path()).with_cache_bytes(16 << 20);
//! let position = tables.position_from_fen("8/8/8/8/8/2k5/1R6/K7 w - - 0 1")?;
//! let value = tables.value(&position)?;
//! assert_eq!(value, Value::Win(31));
//! assert_eq!(describe(position.side_to_move(), value), "White to move: mate in 16 (31 plies)");
//! // The best move, and the value it leads to for the side then to move.
//! let best = tables.best_move(&position)?.expect("a legal move");
//! assert_eq!(best.value, Value::Loss(30));
//! println!("{} ({})", best.san, best.uci);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Every error is a [`ProbeError`] naming what is wrong: a malformed FEN or illegal position,
//! a material without a table, a damaged file (with the block of a packed file that fails its
//! checksum).

pub mod directory;
pub mod fifty;
pub mod probe;
pub mod report;
pub mod source;
pub mod stats;
pub mod table1;

pub use directory::Directory;
pub use probe::{ProbeError, RatedMove, Tablebase};
pub use retro_format::Value;
