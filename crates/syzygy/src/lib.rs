//! Syzygy's files beside the proved tables: every position of a material, valued by a
//! directory of Syzygy WDL (`.rtbw`) and DTZ (`.rtbz`) files, compared with the DTZ50 and
//! WDL50 tables that `retro gen` built and `retro verify` proved; and Syzygy files written from
//! those tables ([`export`]).
//!
//! Owns: opening a directory of Syzygy files (through shakmaty-syzygy, the Rust reader of the
//! format, GPL-3.0-or-later as this crate), turning the engine's positions into shakmaty's, and
//! the comparison ([`check`]), either of every entry the files store, decoded in index order
//! ([`decode`]; a reader's probe at a time takes about 10 µs, too slow for the 10¹⁰ entries of
//! the five-man files), with the reader asked wherever an entry differs, or of every position
//! through the reader: the class (win, cursed win, draw, blessed loss, loss) exactly, and the
//! distance to zeroing either equal or one ply short there. The format's DTZ is "DTZ50''",
//! rounded: python-chess documents that any value it reads "can be off by one" (a win or a loss
//! whose zeroing move comes one ply later than the file says), and the files do that even where
//! their flags say plies are stored (shakmaty-syzygy's `MaybeRounded::Precise`), so values one
//! ply short are accepted and counted apart, those the reader called exact among them. A
//! checkmated position is a loss in 0 plies here and −1 in Syzygy's convention ("a zeroing move
//! before the loss"); both are accepted.
//! A file that carries the generator's checksum ([`checksum`]) is refused, named, when the
//! checksum is wrong, before any position is compared.
//! Must never: trust a Syzygy file for a value (the proved tables are the reference, the file
//! is what is checked; a right checksum says only that the file is as it was written); the
//! comparison writes nothing.
//!
//! ```
//! # let dir = tempfile::tempdir().unwrap();
//! // Our tables of KRvK, proved; no Syzygy file of it: the check names what is missing.
//! retro_gen::Builder::new(retro_rules::Board::STANDARD, dir.path())
//!     .with_metrics(&[retro_gen::Metric::Fifty])
//!     .build(&[retro_engine::Material::parse("KRvK").unwrap()], &retro_gen::Silent)
//!     .unwrap();
//! let files = retro_syzygy::SyzygyFiles::open(dir.path()).unwrap();
//! let material = retro_engine::Material::parse("KRvK").unwrap();
//! let proved = retro_syzygy::ProvedTables::open(dir.path(), material).unwrap();
//! let coverage = retro_syzygy::Coverage::StoredEntries { sample: 1009 };
//! let err = retro_syzygy::check(&files, &proved, coverage, &|_| {}).unwrap_err();
//! assert!(err.to_string().contains("KRvK"));
//! ```

pub mod checksum;
pub mod decode;
mod entries;
pub mod export;

use rayon::prelude::*;
use retro_engine::{Geometry, Indexer, Material, TablePosition, TABLE_MEN};
use retro_format::{kind_table_path, Dtz, FormatError, PackedTable, Table, TableKind, Wdl};
use retro_rules::{Board, Piece, Side};
use shakmaty::{CastlingMode, Chess, Color, File, FromSetup, Rank, Role, Setup, Square};
use shakmaty_syzygy::{MaybeRounded, SyzygyError as ReaderError, Tablebase};
use std::path::{Path, PathBuf};

/// What went wrong, naming the file or the position.
#[derive(Debug, thiserror::Error)]
pub enum SyzygyError {
    /// The directory of Syzygy files could not be read.
    #[error("reading the Syzygy files of {}: {reason}", dir.display())]
    Directory {
        /// The directory.
        dir: PathBuf,
        /// Why.
        reason: String,
    },
    /// A proved table is missing or unreadable.
    #[error("{0}")]
    Table(#[from] FormatError),
    /// The material is not one of the tables (board, men).
    #[error("{material}: {reason}")]
    Unsupported {
        /// The material.
        material: String,
        /// Why.
        reason: String,
    },
    /// A Syzygy file the check needs is not in the directory.
    #[error("{material}: no Syzygy file of {file} in {}", dir.display())]
    Missing {
        /// The material checked.
        material: String,
        /// The file missing (`KRvK.rtbw`).
        file: String,
        /// The directory.
        dir: PathBuf,
    },
    /// A Syzygy file could not be read: bad magic, truncated, damaged.
    #[error("{material}: the Syzygy file {file} is damaged or not a Syzygy file: {reason}")]
    Damaged {
        /// The material checked.
        material: String,
        /// The file that failed (`KRvK.rtbz`).
        file: String,
        /// The reader's words.
        reason: String,
    },
}

/// The material as Syzygy's files name and orient it, and whether that is `material` with its
/// colours exchanged: the file's White is the side with more men, then more queens, rooks,
/// bishops, knights and pawns (shakmaty-syzygy's and python-chess's normalization; Stockfish
/// and Fathom look files up by these names). `retro` names a material by the strength of its
/// sides instead, which differs where the side with fewer men is the stronger (KQvKBB is
/// Syzygy's KBBvKQ).
pub fn syzygy_material(material: Material) -> (Material, bool) {
    let men = material.men();
    let key = |side: Side| {
        let count = |piece: Piece| {
            men.iter()
                .filter(|&&(s, p)| s == side && p == piece)
                .count()
        };
        (
            men.iter().filter(|&&(s, _)| s == side).count(),
            [
                Piece::Queen,
                Piece::Rook,
                Piece::Bishop,
                Piece::Knight,
                Piece::Pawn,
            ]
            .map(count),
        )
    };
    if key(Side::Black) > key(Side::White) {
        (material.flipped(), true)
    } else {
        (material, false)
    }
}

/// A directory of Syzygy files, opened once./// A directory of Syzygy files, opened once.
pub struct SyzygyFiles {
    tables: Tablebase<Chess>,
    dir: PathBuf,
    files: usize,
    /// The stems of the `.rtbw` files, the shortest first.
    wdl_materials: Vec<String>,
}

impl SyzygyFiles {
    /// Opens every `.rtbw` and `.rtbz` file of `dir` (each is read when a probe first needs
    /// it); a file whose size or name the format does not allow is refused, named.
    pub fn open(dir: &Path) -> Result<SyzygyFiles, SyzygyError> {
        let unreadable = |e: std::io::Error| SyzygyError::Directory {
            dir: dir.to_path_buf(),
            reason: e.to_string(),
        };
        let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(unreadable)?
            .map(|e| e.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .map_err(unreadable)?;
        paths.retain(|p| p.extension().is_some_and(|e| e == "rtbw" || e == "rtbz"));
        paths.sort();
        let mut tables = Tablebase::new();
        for path in &paths {
            tables.add_file(path).map_err(|e| SyzygyError::Damaged {
                material: path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                file: path
                    .file_name()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                reason: reason_of(&e),
            })?;
        }
        let mut wdl_materials: Vec<String> = paths
            .iter()
            .filter(|p| p.extension().is_some_and(|e| e == "rtbw"))
            .filter_map(|p| Some(p.file_stem()?.to_str()?.to_string()))
            .collect();
        wdl_materials.sort_by_key(|n| (n.len(), n.clone()));
        Ok(SyzygyFiles {
            tables,
            dir: dir.to_path_buf(),
            files: paths.len(),
            wdl_materials,
        })
    }

    /// How many Syzygy files the directory holds.
    pub fn files(&self) -> usize {
        self.files
    }

    /// The materials the directory has a WDL file of, in Syzygy's names (`KRvK`, `KNNvKR`).
    pub fn materials(&self) -> Vec<String> {
        self.wdl_materials.clone()
    }

    /// The name of the file of `material` with `extension` in the directory: under Syzygy's
    /// name for the material ([`syzygy_material`]) or, as the readers also take it, with its
    /// sides the other way round (`KQvKBB.rtbw` for KBBvKQ).
    pub fn file_name(&self, material: Material, extension: &str) -> Option<String> {
        let (named, _) = syzygy_material(material);
        [named, named.flipped()]
            .iter()
            .map(|m| format!("{m}.{extension}"))
            .find(|file| self.dir.join(file).is_file())
    }

    /// Whether the directory has the DTZ file of `material`.
    pub fn has_dtz(&self, material: Material) -> bool {
        self.file_name(material, "rtbz").is_some()
    }

    /// Reads the material's WDL and DTZ files whole and tests the checksum each carries
    /// ([`checksum`]): how many carried one, or the file whose checksum is wrong, named.
    pub fn test_checksums(&self, material: Material) -> Result<u32, SyzygyError> {
        let mut found = 0;
        for extension in ["rtbw", "rtbz"] {
            let Some(file) = self.file_name(material, extension) else {
                continue;
            };
            let path = self.dir.join(&file);
            let damaged = |reason: String| SyzygyError::Damaged {
                material: material.to_string(),
                file: file.clone(),
                reason,
            };
            let bytes = std::fs::read(&path).map_err(|e| damaged(e.to_string()))?;
            let Some((body, stored)) = checksum::stored_checksum(&bytes) else {
                continue;
            };
            if checksum::checksum(body) != stored {
                return Err(damaged(
                    "its checksum (the last 16 bytes, CityHash as the Syzygy generator's \
                     tbcheck computes it) is not that of its contents"
                        .into(),
                ));
            }
            found += 1;
        }
        Ok(found)
    }

    /// The class at a clock of 0 of a legal position, from its material's WDL file and those
    /// its captures reach: the reader's `probe_wdl_after_zeroing`, which is Fathom's
    /// `tb_probe_wdl` (shakmaty-syzygy's `probe_wdl` goes through the DTZ file instead, to
    /// take the halfmove clock into account).
    pub fn wdl(&self, position: &ReaderPosition) -> Result<Wdl, SyzygyError> {
        self.tables
            .probe_wdl_after_zeroing(&position.0)
            .map(reader_class)
            .map_err(|e| self.reader_error(&position.1, e))
    }

    /// The error naming the file a reader's error is about, for a probe of `material`.
    fn reader_error(&self, material: &str, e: ReaderError) -> SyzygyError {
        match failing_file(&e) {
            Some((file, true)) => SyzygyError::Missing {
                material: material.to_string(),
                file,
                dir: self.dir.clone(),
            },
            Some((file, false)) => SyzygyError::Damaged {
                material: material.to_string(),
                file,
                reason: reason_of(&e),
            },
            None => SyzygyError::Damaged {
                material: material.to_string(),
                file: "?".into(),
                reason: reason_of(&e),
            },
        }
    }
}

/// A legal 8×8 position in the reader's form, with its material's name, made once so that
/// a timed probe does not include the conversion.
pub struct ReaderPosition(Chess, String);

impl ReaderPosition {
    /// The reader's form of `p` on `geo`'s board (8×8), or `None` where shakmaty does not
    /// take it (another board, or a position it calls impossible).
    pub fn of(geo: &Geometry, p: &TablePosition) -> Option<ReaderPosition> {
        if geo.board() != Board::STANDARD {
            return None;
        }
        let chess = shakmaty_of(geo, p)?;
        Some(ReaderPosition(
            chess,
            p.material().canonical().0.to_string(),
        ))
    }
}

/// A position where the file and the proved table disagree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The position.
    pub fen: String,
    /// The proved value: class and DTZ50 in plies.
    pub ours: String,
    /// The file's: its class and DTZ as the reader gives them.
    pub theirs: String,
}

/// The outcome of checking one material.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileCheck {
    /// The material, in `retro`'s name.
    pub material: String,
    /// Legal positions whose class was compared: by their stored entries, or through the
    /// reader.
    pub positions: u64,
    /// Of those, the ones asked of the reader (shakmaty-syzygy): every one under
    /// [`Coverage::EveryPosition`]; else the entries that differ from the proved value, the
    /// positions with an en passant right and the sample.
    pub through_reader: u64,
    /// Decisive positions whose DTZ was compared.
    pub dtz_compared: u64,
    /// Entries whose value no reader's answer depends on, not compared: a WDL entry below
    /// the class a capture reaches (the readers take the better of the entry and the
    /// captures'), the DTZ entry of a win whose zeroing move is now (the readers answer from
    /// that move).
    pub unread: u64,
    /// Of those, positions whose DTZ is the same here and in the file.
    pub dtz_equal: u64,
    /// Positions whose DTZ is one ply longer here than in the file (the rounding python-chess
    /// documents).
    pub dtz_one_ply_short: u64,
    /// Of those, the ones the reader gave as exact (`MaybeRounded::Precise`).
    pub short_though_exact: u64,
    /// Positions whose class or DTZ differ.
    pub differences: u64,
    /// Whether the classes alone were compared: the directory has no DTZ file of the
    /// material.
    pub wdl_only: bool,
    /// The material's files whose checksum ([`checksum`]) was there and right; a file whose
    /// checksum is wrong is refused before any position is compared.
    pub checksums: u32,
    /// The first of them, in the order of the table (White to move first).
    pub first: Option<Difference>,
}

/// The shakmaty position of an engine position on 8×8.
fn shakmaty_of(geo: &Geometry, p: &TablePosition) -> Option<Chess> {
    let mut setup = Setup::empty();
    for man in p.men() {
        let square = Square::from_coords(
            File::new(u32::from(geo.file(man.sq))),
            Rank::new(u32::from(geo.rank(man.sq))),
        );
        let role = match man.piece {
            Piece::King => Role::King,
            Piece::Queen => Role::Queen,
            Piece::Rook => Role::Rook,
            Piece::Bishop => Role::Bishop,
            Piece::Knight => Role::Knight,
            Piece::Pawn => Role::Pawn,
        };
        let color = match man.side {
            Side::White => Color::White,
            Side::Black => Color::Black,
        };
        setup.board.set_piece_at(square, role.of(color));
    }
    setup.turn = match p.side_to_move() {
        Side::White => Color::White,
        Side::Black => Color::Black,
    };
    setup.ep_square = p.en_passant().map(|sq| {
        Square::from_coords(
            File::new(u32::from(geo.file(sq))),
            Rank::new(u32::from(geo.rank(sq))),
        )
    });
    Chess::from_setup(setup, CastlingMode::Standard)
        .or_else(shakmaty::PositionError::ignore_impossible_check)
        .ok()
}

fn reader_class(wdl: shakmaty_syzygy::Wdl) -> Wdl {
    match wdl {
        shakmaty_syzygy::Wdl::Loss => Wdl::Loss,
        shakmaty_syzygy::Wdl::BlessedLoss => Wdl::BlessedLoss,
        shakmaty_syzygy::Wdl::Draw => Wdl::Draw,
        shakmaty_syzygy::Wdl::CursedWin => Wdl::CursedWin,
        shakmaty_syzygy::Wdl::Win => Wdl::Win,
    }
}

/// DTZ50 as a signed number of plies: positive for the side to move's wins, 0 for draws.
fn signed(dtz: Dtz) -> i64 {
    match dtz {
        Dtz::Win(n) => i64::from(n),
        Dtz::Loss(n) => -i64::from(n),
        Dtz::Draw | Dtz::Illegal => 0,
    }
}

/// How the file's DTZ stands to the proved one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Agreement {
    Equal,
    /// One ply short in the file; whether the reader called it exact.
    OnePlyShort {
        exact: bool,
    },
    Differs,
}

/// The file's DTZ against the proved one.
fn dtz_agreement(ours: Dtz, theirs: MaybeRounded<shakmaty_syzygy::Dtz>) -> Agreement {
    let mated = ours == Dtz::Loss(0);
    let ours = signed(ours);
    let (t, exact) = match theirs {
        MaybeRounded::Precise(t) => (i64::from(t.0), true),
        MaybeRounded::Rounded(t) => (i64::from(t.0), false),
    };
    if t == ours || (mated && t == -1) {
        Agreement::Equal
    } else if ours.signum() == t.signum() && ours != 0 && ours.abs() == t.abs() + 1 {
        Agreement::OnePlyShort { exact }
    } else {
        Agreement::Differs
    }
}

/// The proved table of `kind`, raw or decoded from its packed file.
/// A proved table of the fifty-move rule that Syzygy's files are checked against or written
/// from, with its board and index: `material`'s table of `kind` in `dir`, 8×8, of a rule of
/// 100 plies (Syzygy's); packed files readable (their left-out entries rebuilt).
pub(crate) struct UnderRule {
    pub(crate) geo: Geometry,
    pub(crate) indexer: Indexer,
    pub(crate) table: Table,
}

impl UnderRule {
    /// Opens `material`'s table of `kind` in `dir`, refusing one of another rule.
    pub(crate) fn open(
        dir: &Path,
        kind: TableKind,
        material: Material,
    ) -> Result<UnderRule, SyzygyError> {
        retro_format::install_restorer(retro_gen::restore_packed);
        let name = material.to_string();
        let unsupported = |reason: String| SyzygyError::Unsupported {
            material: name.clone(),
            reason,
        };
        let geo = Geometry::new(Board::STANDARD);
        let indexer = Indexer::new(&geo, material).map_err(|e| unsupported(e.to_string()))?;
        let table = open_proved(dir, kind, &name)?;
        let rule = u32::from(table.header().rule_plies);
        if rule != 100 {
            return Err(unsupported(format!(
                "its tables are of a rule of {rule} plies; Syzygy's files are of 100"
            )));
        }
        Ok(UnderRule {
            geo,
            indexer,
            table,
        })
    }
}

fn open_proved(dir: &Path, kind: TableKind, material: &str) -> Result<Table, SyzygyError> {
    let path = kind_table_path(dir, kind, material, 8, 8);
    let table = if path.extension().is_some_and(|e| e == "rtbz") {
        PackedTable::open(&path)?.to_table()?
    } else {
        Table::open(&path)?
    };
    table.header().expect_kind(kind, &path)?;
    Ok(table)
}

/// The reader's words for an error, without the backtrace its display appends.
fn reason_of(e: &dyn std::fmt::Display) -> String {
    let text = e.to_string();
    let cut = text.find("   0: ").unwrap_or(text.len());
    let first = text[..cut].lines().next().unwrap_or_default();
    first.trim_end_matches([' ', ':']).to_string()
}

/// The file a reader's error is about, and whether it is missing rather than damaged.
fn failing_file(e: &ReaderError) -> Option<(String, bool)> {
    let (metric, material, missing) = match e {
        ReaderError::MissingTable { metric, material } => (metric, material, true),
        ReaderError::ProbeFailed {
            metric, material, ..
        } => (metric, material, false),
        _ => return None,
    };
    let extension = match metric {
        shakmaty_syzygy::Metric::Wdl => "rtbw",
        shakmaty_syzygy::Metric::Dtz => "rtbz",
    };
    Some((format!("{material}.{extension}"), missing))
}

/// Under [`Coverage::StoredEntries`], one position in this many, both sides to move, is also
/// probed through the reader (a prime, so that the sample falls on every digit of the index).
pub const READER_SAMPLE: u64 = 1009;

/// How much of a material a check compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coverage {
    /// Every entry the files store, decoded in index order ([`decode`]): the class of every
    /// legal position of each side the WDL file stores, the DTZ of every decisive one of the
    /// side the DTZ file stores; each entry that differs from the proved value (a don't-care
    /// the readers answer from captures instead) asked of the reader, as are the positions
    /// with an en passant right (the index has none) and one position in `sample`, both sides
    /// to move (`0`: none).
    StoredEntries {
        /// One legal position in this many, both sides to move, also probed through the
        /// reader (shakmaty-syzygy), its class and DTZ as a user reads them.
        sample: u64,
    },
    /// Every legal position, both sides to move, through the reader (shakmaty-syzygy): the
    /// side a DTZ file leaves out by its one-ply search. Thorough and slow (about 10⁵
    /// positions a second).
    EveryPosition,
}

/// A material's proved DTZ50 table, opened (read through and checked against its header)
/// once for a check of its Syzygy files: the classes are its values' classes under the rule.
pub struct ProvedTables {
    pub(crate) name: String,
    /// The tables' directory.
    pub(crate) dir: PathBuf,
    pub(crate) geo: Geometry,
    pub(crate) indexer: Indexer,
    pub(crate) dtz: Table,
    pub(crate) rule: u32,
}

impl ProvedTables {
    /// Opens the DTZ50 table of `material` in `tables` (8×8, a rule of 100 plies), raw or
    /// decoded from its packed file.
    pub fn open(tables: &Path, material: Material) -> Result<ProvedTables, SyzygyError> {
        let proved = UnderRule::open(tables, TableKind::Dtz50, material)?;
        let rule = u32::from(proved.table.header().rule_plies);
        Ok(ProvedTables {
            name: material.to_string(),
            dir: tables.to_path_buf(),
            geo: proved.geo,
            indexer: proved.indexer,
            dtz: proved.table,
            rule,
        })
    }

    /// The hash of the DTZ50 table's body, which its certificate names.
    pub fn body_hash(&self) -> [u8; 32] {
        self.dtz.body_hash()
    }

    /// The proved class of our side `s` (0: White to move) at `i`; `None` for an illegal
    /// position.
    pub(crate) fn class(&self, s: usize, i: u64) -> Result<Option<Wdl>, SyzygyError> {
        match self.dtz.dtz(s == 0, i)?.class(self.rule) {
            Wdl::Illegal => Ok(None),
            c => Ok(Some(c)),
        }
    }

    /// Compares the reader's class and DTZ of the legal position `p` (index `i` of our
    /// side `s`, class `class`) with the proved ones, into `out` (the caller counts the
    /// position).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn through_reader(
        &self,
        files: &SyzygyFiles,
        wdl_only: bool,
        s: usize,
        i: u64,
        class: Wdl,
        p: &TablePosition,
        out: &mut FileCheck,
    ) -> Result<(), SyzygyError> {
        let geo = &self.geo;
        let Some(chess) = shakmaty_of(geo, p) else {
            return Err(SyzygyError::Unsupported {
                material: self.name.clone(),
                reason: format!("index {i}: a value for a position shakmaty does not take"),
            });
        };
        let reader_error = |e: ReaderError| files.reader_error(&self.name, e);
        let theirs_class = reader_class(
            files
                .tables
                .probe_wdl_after_zeroing(&chess)
                .map_err(reader_error)?,
        );
        out.through_reader += 1;
        if wdl_only {
            if theirs_class != class {
                out.record(Difference {
                    fen: p.to_natural(geo).fen(),
                    ours: class.name().to_string(),
                    theirs: theirs_class.name().to_string(),
                });
            }
            return Ok(());
        };
        let ours = self.dtz.dtz(s == 0, i)?;
        let theirs_dtz = files.tables.probe_dtz(&chess).map_err(reader_error)?;
        let agreement = dtz_agreement(ours, theirs_dtz);
        out.count(agreement);
        if agreement != Agreement::Differs && theirs_class == class {
            return Ok(());
        }
        let (t, rounded) = match theirs_dtz {
            MaybeRounded::Precise(t) => (t.0, ""),
            MaybeRounded::Rounded(t) => (t.0, ", possibly rounded"),
        };
        out.record(Difference {
            fen: p.to_natural(geo).fen(),
            ours: format!("{}, DTZ50 {}", class.name(), signed(ours)),
            theirs: format!("{}, DTZ {t}{rounded}", theirs_class.name()),
        });
        Ok(())
    }
}

impl FileCheck {
    /// Counts a difference, keeping the first.
    pub(crate) fn record(&mut self, d: Difference) {
        self.differences += 1;
        if self.first.is_none() {
            self.first = Some(d);
        }
    }

    /// Counts a DTZ compared.
    fn count(&mut self, agreement: Agreement) {
        self.dtz_compared += 1;
        match agreement {
            Agreement::Equal => self.dtz_equal += 1,
            Agreement::OnePlyShort { exact } => {
                self.dtz_one_ply_short += 1;
                self.short_though_exact += u64::from(exact);
            }
            Agreement::Differs => {}
        }
    }

    /// The counts of `checks` added up, the first difference of the first that has one.
    pub(crate) fn summed(checks: Vec<FileCheck>) -> FileCheck {
        let mut total = FileCheck::default();
        for c in checks {
            total.add(c);
        }
        total
    }

    /// Adds `other`'s counts; its first difference stands if none was found here.
    pub(crate) fn add(&mut self, other: FileCheck) {
        self.positions += other.positions;
        self.dtz_compared += other.dtz_compared;
        self.dtz_equal += other.dtz_equal;
        self.dtz_one_ply_short += other.dtz_one_ply_short;
        self.short_though_exact += other.short_though_exact;
        self.through_reader += other.through_reader;
        self.unread += other.unread;
        self.differences += other.differences;
        if self.first.is_none() {
            self.first = other.first;
        }
    }
}

/// Compares the Syzygy files in `files` of `proved`'s material with its proved DTZ50 table
/// (8×8), as far as `coverage` says: the classes, and the DTZ where `files` has the
/// material's DTZ file; `progress` is told the share of the work each finished stretch did,
/// in units of which a material has twice its proved table's indices.
pub fn check(
    files: &SyzygyFiles,
    proved: &ProvedTables,
    coverage: Coverage,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<FileCheck, SyzygyError> {
    let material = proved.indexer.material();
    let wdl_only = !files.has_dtz(material);
    let checksums = files.test_checksums(material)?;
    let mut total = FileCheck {
        material: proved.name.clone(),
        wdl_only,
        checksums,
        ..FileCheck::default()
    };
    let indexer = &proved.indexer;
    match coverage {
        Coverage::EveryPosition => {
            let size = indexer.size();
            total.add(reader_pass(files, proved, wdl_only, 0..size, 1, progress)?);
        }
        Coverage::StoredEntries { sample } => {
            total.add(entries::check_entries(files, proved, wdl_only, progress)?);
            // The positions with an en passant right: no index of the files holds them.
            let (placements, size) = (indexer.placements(), indexer.size());
            total.add(reader_pass(
                files,
                proved,
                wdl_only,
                placements..size,
                1,
                &|_| {},
            )?);
            if sample > 0 {
                total.add(reader_pass(
                    files,
                    proved,
                    wdl_only,
                    0..placements,
                    sample,
                    &|_| {},
                )?);
            }
        }
    }
    Ok(total)
}

/// Compares through the reader the legal positions of `indices` (one in `stride`), both
/// sides to move.
fn reader_pass(
    files: &SyzygyFiles,
    proved: &ProvedTables,
    wdl_only: bool,
    indices: std::ops::Range<u64>,
    stride: u64,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<FileCheck, SyzygyError> {
    const CHUNK: u64 = 1 << 14;
    let (geo, indexer) = (&proved.geo, &proved.indexer);
    let mut stretches: Vec<(usize, u64)> = Vec::new();
    let chunks = (indices.end - indices.start).div_ceil(CHUNK);
    for s in 0..2 {
        stretches.extend((0..chunks).map(|c| (s, c)));
    }
    let checks: Vec<FileCheck> = stretches
        .par_iter()
        .map(|&(s, chunk)| -> Result<FileCheck, SyzygyError> {
            let stm = [Side::White, Side::Black][s];
            let begin = indices.start + chunk * CHUNK;
            let end = (begin + CHUNK).min(indices.end);
            let mut out = FileCheck::default();
            let mut failure = None;
            let mut visit = |i: u64, p: Option<TablePosition>| {
                if failure.is_some() {
                    return;
                }
                let Some(p) = p else { return };
                let result = proved.class(s, i).and_then(|class| match class {
                    None => Ok(()),
                    Some(class) => {
                        out.positions += 1;
                        proved.through_reader(files, wdl_only, s, i, class, &p, &mut out)
                    }
                });
                if let Err(e) = result {
                    failure = Some(e);
                }
            };
            if stride == 1 {
                indexer.for_each_position::<TABLE_MEN>(geo, begin..end, stm, &mut visit);
            } else {
                // A sample: only its own indices are turned into positions.
                for i in (begin.next_multiple_of(stride)..end).step_by(stride as usize) {
                    visit(i, indexer.position(geo, i, stm));
                }
            }
            if let Some(e) = failure {
                return Err(e);
            }
            progress(end - begin);
            Ok(out)
        })
        .collect::<Result<_, _>>()?;
    Ok(FileCheck::summed(checks))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_named_and_oriented_as_syzygy_names_them() {
        let oriented = |name: &str| {
            let (m, flipped) = syzygy_material(Material::parse(name).unwrap());
            (m.to_string(), flipped)
        };
        // More men first, then more queens, rooks, bishops, knights, pawns.
        assert_eq!(oriented("KQvKBB"), ("KBBvKQ".to_string(), true));
        assert_eq!(oriented("KQvKRB"), ("KRBvKQ".to_string(), true));
        assert_eq!(oriented("KBBvKR"), ("KBBvKR".to_string(), false));
        assert_eq!(oriented("KQvKR"), ("KQvKR".to_string(), false));
        assert_eq!(oriented("KNvKP"), ("KNvKP".to_string(), false));
        assert_eq!(oriented("KPvKP"), ("KPvKP".to_string(), false));
    }

    #[test]
    fn values_must_be_equal_or_one_ply_short() {
        use shakmaty_syzygy::Dtz as T;
        let agree = |ours, theirs| dtz_agreement(ours, theirs);
        assert_eq!(
            agree(Dtz::Win(7), MaybeRounded::Precise(T(7))),
            Agreement::Equal
        );
        assert_eq!(
            agree(Dtz::Win(8), MaybeRounded::Precise(T(7))),
            Agreement::OnePlyShort { exact: true }
        );
        assert_eq!(
            agree(Dtz::Loss(5), MaybeRounded::Rounded(T(-4))),
            Agreement::OnePlyShort { exact: false }
        );
        assert_eq!(
            agree(Dtz::Win(7), MaybeRounded::Precise(T(8))),
            Agreement::Differs
        );
        assert_eq!(
            agree(Dtz::Win(9), MaybeRounded::Rounded(T(7))),
            Agreement::Differs
        );
        assert_eq!(
            agree(Dtz::Loss(5), MaybeRounded::Rounded(T(4))),
            Agreement::Differs
        );
        assert_eq!(
            agree(Dtz::Draw, MaybeRounded::Precise(T(0))),
            Agreement::Equal
        );
        // A checkmated position: 0 here, -1 there; a draw is never -1.
        assert_eq!(
            agree(Dtz::Loss(0), MaybeRounded::Precise(T(-1))),
            Agreement::Equal
        );
        assert_eq!(
            agree(Dtz::Draw, MaybeRounded::Precise(T(-1))),
            Agreement::Differs
        );
        assert_eq!(
            agree(Dtz::Draw, MaybeRounded::Precise(T(1))),
            Agreement::Differs
        );
    }
}
