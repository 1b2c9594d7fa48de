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
//! bitboards, forward loss checks) wherever it applies — any material, pawns and en passant
//! included, on boards of at most 64 squares, whose mates take at most 251 plies — and with
//! the reference core described below elsewhere, or everywhere with [`Core::Reference`]. Both
//! write the same file; tests compare them byte for byte.
//!
//! # How (the reference core)
//!
//! Positions are numbered by `retro_engine::Indexer`; one 16-bit word per index and side to
//! move holds either a final value or a pending state. The iteration runs depth by depth,
//! `d = 0, 1, 2, …`; win depths are odd and loss depths even, so each step handles one kind:
//!
//! * **init**: each legal position's moves are generated. Checkmates are losses in 0;
//!   stalemates draws. Captures and promotions (the *exits*) lead into other materials, whose
//!   tables are read — a promotion keeps the number of men, so materials are built by number of
//!   men and then of pawns; the names below say "capture" for any exit. A capture into a loss
//!   in `k` makes the position a win in at most `k + 1` (*capture-win*, finalised at depth
//!   `k + 1` unless a quicker win is found); a capture into a draw means the position can never
//!   be lost (*escape*); if every capture leads into a win for the opponent, the position is
//!   lost only once its other moves are, and no sooner than the longest of those captures
//!   allows (*capture-loss*). The quiet moves (pawn pushes and double steps among them, which
//!   un-move like any other) are counted into the position's counter.
//! * **even d** (losses in `d`): every predecessor still pending becomes a win in `d + 1`.
//! * **odd d** (wins in `d`): every predecessor's counter drops; one that reaches zero has all
//!   its moves losing, and becomes a loss in `d + 1` — or, if a capture-loss needs longer, in
//!   that many plies, when the iteration gets there.
//!
//! The iteration stops only when no position changed and no capture-win or capture-loss is
//! waiting for a later depth: Hurd's pitfall (KQRvK settles after 6 moves, but its captures
//! reach KRvK's 16) is handled by the waiting lists, not by watching for a quiet step.
//!
//! # Symmetry and counting
//!
//! Only canonical positions are stored, so a counter must count what the retrograde step will
//! subtract. A predecessor `q` of a canonical position `c` stands for its canonical position
//! `r`; if `r` has `|Stab r|` symmetries, `|Stab r|` moves of `r` map onto the one retracted move
//! `q → c`, and if `c` has `|Stab c|` symmetries, `|Stab c|` retracted moves map onto one move of
//! `r`. Weighting each move of `r` by `|Stab child|` and each retracted move by `|Stab q|` makes
//! both sides count `Σ |M(r, O)| · |Stab c| = |Q| · |Stab r|` for every child orbit `O`, so a
//! counter reaches zero exactly when all of `r`'s quiet moves are resolved.

pub mod fast;

use rayon::prelude::*;
use retro_engine::{Geometry, Indexer, Material, Retractions, TablePosition};
use retro_format::{FormatError, Header, Table, Value};
use retro_rules::{Board, Piece, Side};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

const NO_POSITION: u16 = 0;
const DRAW: u16 = 1;
const PENDING: u16 = 0x8000;
const KIND_SHIFT: u16 = 13;
const COUNT_MASK: u16 = 0x1FFF;
const PLAIN: u16 = 0;
const ESCAPE: u16 = 1;
const CAPTURE_LOSS: u16 = 2;
const CAPTURE_WIN: u16 = 3;
/// The deepest value a 16-bit work entry can hold.
const MAX_PLIES: u32 = 0x7FFF - 2;

fn decided(plies: u32) -> u16 {
    (2 + plies) as u16
}

fn pending(kind: u16, count: u16) -> u16 {
    PENDING | kind << KIND_SHIFT | count
}

fn kind_of(state: u16) -> u16 {
    (state >> KIND_SHIFT) & 3
}

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
    /// A table read back contradicts the position it was asked about.
    #[error("table {material} has no value for the legal position {fen}; rebuild it")]
    Inconsistent {
        /// The material of the table.
        material: String,
        /// The position.
        fen: String,
    },
}

/// The two phases of building a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Every index is decoded and its moves generated; `work` is the number of entries.
    Init,
    /// Depth by depth; `work` is the number of legal positions (each is handled at most once).
    Retrograde,
}

/// What the builder reports as it works.
pub trait Observer: Sync {
    /// A phase of `material`'s table begins, with `work` steps to report.
    fn phase(&self, _material: Material, _phase: Phase, _work: u64) {}
    /// `steps` more steps are done.
    fn progressed(&self, _steps: u64) {}
    /// The table is written (or was already there).
    fn finished(&self, _report: &BuildReport) {}
}

/// An observer that ignores everything.
pub struct Silent;
impl Observer for Silent {}

/// What building one table did.
#[derive(Debug, Clone)]
pub struct BuildReport {
    /// The material.
    pub material: Material,
    /// The file.
    pub path: PathBuf,
    /// Whether an existing valid file was kept instead of building.
    pub reused: bool,
    /// Whether the whole file was checked against its checksum: a kept file that no table
    /// built in the same run reads has its header and length checked only.
    pub body_checked: bool,
    /// Index entries per side to move.
    pub entries_per_side: u64,
    /// The longest depth to mate, in plies.
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
    pub core: Option<Core>,
    /// The packing of the raw file this run did ([`Builder::with_pack`]), if any; `path` is
    /// then the packed file.
    pub packed: Option<retro_format::PackReport>,
}

/// Which retrograde core builds a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Core {
    /// The fast core ([`fast`]) wherever it applies (no pawns or pawns of one side, boards of
    /// at most 64 squares, depths of at most 251 plies), the reference core elsewhere.
    #[default]
    Fast,
    /// The reference core of this module, everywhere.
    Reference,
}

/// Builds tables for one board into one directory.
pub struct Builder {
    geo: Geometry,
    dir: PathBuf,
    core: Core,
    /// How the fast core spends its work byte; tests take many watch codes to leave few
    /// depths (so it builds again without), or rebase every few depths.
    tuning: fast::Tuning,
    /// Whether (and how) every table of a run ends up packed, its raw file removed.
    pack: Option<retro_format::PackOptions>,
}

impl Builder {
    /// A builder for `board`, writing into `dir`.
    pub fn new(board: Board, dir: impl Into<PathBuf>) -> Builder {
        Builder {
            geo: Geometry::new(board),
            dir: dir.into(),
            core: Core::Fast,
            tuning: fast::Tuning::default(),
            pack: None,
        }
    }

    /// The same builder leaving every table of a run packed (`MATERIAL.FxR.rtbz`): each table
    /// it builds, and each raw table it keeps, is packed right after and its raw file removed.
    /// The larger tables of the run read the packed ones.
    pub fn with_pack(mut self, options: Option<retro_format::PackOptions>) -> Builder {
        self.pack = options;
        self
    }

    /// The same builder with the retrograde core `core`.
    pub fn with_core(mut self, core: Core) -> Builder {
        self.core = core;
        self
    }

    /// The board.
    pub fn board(&self) -> Board {
        self.geo.board()
    }

    /// The file of `material`'s table (canonical material): the raw file if there is one,
    /// else the packed one if there is one, else the raw file's path.
    pub fn path_of(&self, material: Material) -> PathBuf {
        let board = self.geo.board();
        retro_format::table_path(
            &self.dir,
            &material.to_string(),
            board.files(),
            board.ranks(),
        )
    }

    /// The raw file of `material`'s table, which building writes.
    fn raw_path_of(&self, material: Material) -> PathBuf {
        self.file_of(material, retro_format::file_name)
    }

    /// The packed file of `material`'s table.
    fn packed_path_of(&self, material: Material) -> PathBuf {
        self.file_of(material, retro_format::packed_file_name)
    }

    /// The file `name` names for `material`'s table on this board, in the directory.
    fn file_of(&self, material: Material, name: fn(&str, u8, u8) -> String) -> PathBuf {
        let board = self.geo.board();
        self.dir
            .join(name(&material.to_string(), board.files(), board.ranks()))
    }

    /// After a raw file is written: a packed file of the same table left in the directory is
    /// removed, so that the two never disagree.
    fn remove_stale_packed(&self, material: Material) -> Result<(), GenError> {
        let packed = self.packed_path_of(material);
        match std::fs::remove_file(&packed) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(FormatError::Io {
                path: packed,
                source: e,
            }
            .into()),
            _ => Ok(()),
        }
    }

    /// Packs the raw table of `material` (the packer checks its body against its hash) and
    /// removes the raw file once the packed one is written and decoded back.
    fn pack_raw(
        &self,
        material: Material,
        options: &retro_format::PackOptions,
    ) -> Result<retro_format::PackReport, GenError> {
        let raw = self.raw_path_of(material);
        let table = Table::open_body_unchecked(&raw)?;
        let radices = Indexer::new(&self.geo, material)
            .map_err(|e| GenError::Unsupported {
                material: material.to_string(),
                reason: e.to_string(),
            })?
            .digit_radices();
        let report = retro_format::pack(&table, &self.packed_path_of(material), &radices, options)?;
        drop(table);
        std::fs::remove_file(&raw).map_err(|source| FormatError::Io { path: raw, source })?;
        Ok(report)
    }

    /// The canonical materials `targets` need — themselves and everything their captures and
    /// promotions reach — each after every material it leads into.
    pub fn plan(&self, targets: &[Material]) -> Result<Vec<Material>, GenError> {
        let mut needed = BTreeSet::new();
        let mut todo: Vec<Material> = targets.iter().map(|m| m.canonical().0).collect();
        while let Some(m) = todo.pop() {
            if m.has_pawns() && self.geo.ranks() < 3 {
                return Err(GenError::Unsupported {
                    material: m.to_string(),
                    reason: format!(
                        "a board of {} ranks has no square a pawn may stand on",
                        self.geo.ranks()
                    ),
                });
            }
            if !needed.insert(m) {
                continue;
            }
            todo.extend(exits(m));
        }
        let mut plan: Vec<Material> = needed.into_iter().collect();
        // A capture leaves fewer men; a promotion as many men and fewer pawns.
        plan.sort_by_key(|m| (m.len(), pawn_count(m), m.to_string()));
        Ok(plan)
    }

    /// Builds every table `targets` need that is not already in the directory (a file that
    /// fails its checks is rebuilt), smallest first.
    pub fn build(
        &self,
        targets: &[Material],
        observer: &dyn Observer,
    ) -> Result<Vec<BuildReport>, GenError> {
        let plan = self.plan(targets)?;
        // Which files to keep, from the largest material down: a file is checked whole when
        // this run reads it — a target, or a table a table to be built leads into — and by its
        // header and length otherwise; a file that fails is built again, and the tables it
        // leads into are then read. Kept files checked whole are not checked again when read.
        let mut read: BTreeSet<Material> = targets.iter().map(|m| m.canonical().0).collect();
        let mut kept: BTreeMap<Material, (Header, Option<[u8; 32]>)> = BTreeMap::new();
        for &material in plan.iter().rev() {
            let path = self.path_of(material);
            let whole = read.contains(&material);
            let opened = match whole {
                true => Table::open(&path).map(|t| (t.header().clone(), t.body_hash())),
                false => retro_format::read_header(&path),
            };
            match opened {
                Ok((header, hash))
                    if header.material == material.to_string()
                        && header.index_scheme == retro_format::INDEX_SCHEME =>
                {
                    kept.insert(material, (header, whole.then_some(hash)));
                }
                _ => read.extend(exits(material)),
            }
        }
        let checked: BTreeMap<Material, [u8; 32]> = kept
            .iter()
            .filter_map(|(&m, &(_, hash))| hash.map(|h| (m, h)))
            .collect();
        let mut reports = Vec::new();
        for material in plan {
            let mut report = match kept.remove(&material) {
                Some((header, hash)) => BuildReport {
                    material,
                    path: self.path_of(material),
                    reused: true,
                    body_checked: hash.is_some(),
                    entries_per_side: header.entries_per_side,
                    max_plies: header.max_plies,
                    seconds: 0.0,
                    init_seconds: 0.0,
                    retrograde_seconds: 0.0,
                    depths: 0,
                    core: None,
                    packed: None,
                },
                None => self.build_checked(material, observer, &checked)?,
            };
            if let Some(options) = &self.pack {
                if !retro_format::is_packed_path(&report.path) {
                    let packed = self.pack_raw(material, options)?;
                    report.path = packed.path.clone();
                    report.packed = Some(packed);
                }
            }
            observer.finished(&report);
            reports.push(report);
        }
        Ok(reports)
    }

    /// Builds the table of `material`, whose smaller tables must exist.
    pub fn build_one(
        &self,
        material: Material,
        observer: &dyn Observer,
    ) -> Result<BuildReport, GenError> {
        self.build_checked(material, observer, &BTreeMap::new())
    }

    /// [`Builder::build_one`], where the files of the materials in `checked` were checked
    /// whole in this run, with the body checksums given.
    fn build_checked(
        &self,
        material: Material,
        observer: &dyn Observer,
        checked: &BTreeMap<Material, [u8; 32]>,
    ) -> Result<BuildReport, GenError> {
        if self.core == Core::Fast && material.is_canonical() {
            match self.build_fast(material, observer, checked) {
                Ok(report) => return Ok(report),
                Err(fast::Declined::Failed(e)) => return Err(e),
                Err(fast::Declined::Unsupported | fast::Declined::TooDeep) => {}
            }
        }
        self.build_reference(material, observer)
    }

    /// The header of the table `indexer` numbers, whose longest mate takes `max_plies`.
    fn header(&self, indexer: &Indexer, max_plies: u32) -> Header {
        Header {
            files: self.geo.files(),
            ranks: self.geo.ranks(),
            material: indexer.material().to_string(),
            index_scheme: retro_format::INDEX_SCHEME,
            symmetries: indexer.symmetry_count() as u8,
            entries_per_side: indexer.size(),
            value_width: retro_format::width_for(max_plies),
            max_plies,
        }
    }

    /// Builds the table of `material` with the fast core.
    fn build_fast(
        &self,
        material: Material,
        observer: &dyn Observer,
        checked: &BTreeMap<Material, [u8; 32]>,
    ) -> Result<BuildReport, fast::Declined> {
        let start = Instant::now();
        let geo = &self.geo;
        if geo.square_count() > fast::bits::MAX_SQUARES {
            return Err(fast::Declined::Unsupported);
        }
        let indexer = Indexer::new(geo, material).map_err(|_| fast::Declined::Unsupported)?;
        let mut subs = Vec::new();
        let sides = fast::exit_sides(material);
        let fields = fast::exit_fields(geo, material);
        for ((smaller, sides), field) in fast::exit_targets(material)
            .into_iter()
            .zip(sides)
            .zip(fields)
        {
            // A file checked whole earlier in the run is not read through again while the
            // checksum in its header is the one checked.
            let path = self.path_of(smaller);
            let table = match checked.get(&smaller) {
                Some(&hash) => {
                    let table = Table::open_body_unchecked(&path).map_err(GenError::from)?;
                    if table.body_hash() != hash {
                        table.check_body().map_err(GenError::from)?;
                    }
                    table
                }
                None => Table::open(&path).map_err(GenError::from)?,
            };
            if table.header().material != smaller.to_string() {
                return Err(GenError::Inconsistent {
                    material: smaller.to_string(),
                    fen: format!(
                        "the file {} names {}",
                        table.path().display(),
                        table.header().material
                    ),
                }
                .into());
            }
            if table.header().max_plies > fast::convert::SUBTABLE_MAX_PLIES {
                return Err(fast::Declined::TooDeep);
            }
            subs.push(fast::convert::load_subtable(
                geo, &table, smaller, sides, field,
            )?);
        }
        let built = fast::build(geo, material, &subs, self.tuning, Some(&self.dir), observer)?;
        let retrograde_seconds = built.retrograde_seconds;
        let init_seconds = start.elapsed().as_secs_f64() - retrograde_seconds;
        drop(subs);
        let max_plies = built.max_plies;
        let header = self.header(&indexer, max_plies);
        let path = self.raw_path_of(material);
        let writer = retro_format::TableWriter::create(&path, &header).map_err(GenError::from)?;
        fast::convert::write_body(
            geo,
            &indexer,
            &built,
            usize::from(header.value_width),
            &writer,
        )
        .map_err(GenError::from)?;
        let depths = built.depths;
        drop(built);
        writer.finish().map_err(GenError::from)?;
        self.remove_stale_packed(material)?;
        Ok(BuildReport {
            material,
            path,
            reused: false,
            body_checked: true,
            entries_per_side: indexer.size(),
            max_plies,
            seconds: start.elapsed().as_secs_f64(),
            init_seconds,
            retrograde_seconds,
            depths,
            core: Some(Core::Fast),
            packed: None,
        })
    }

    /// Builds the table of `material` with the reference core.
    fn build_reference(
        &self,
        material: Material,
        observer: &dyn Observer,
    ) -> Result<BuildReport, GenError> {
        let start = Instant::now();
        let geo = &self.geo;
        let unsupported = |reason: String| GenError::Unsupported {
            material: material.to_string(),
            reason,
        };
        if !material.is_canonical() {
            return Err(unsupported("only canonical material is built".into()));
        }
        let indexer = Indexer::new(geo, material).map_err(|e| unsupported(e.to_string()))?;
        let size = indexer.size();
        let entries = usize::try_from(size)
            .map_err(|_| unsupported("too many positions for this machine".into()))?;
        let subtables = Subtables::open(self, material)?;
        let work = Work {
            geo,
            indexer: &indexer,
            subtables: &subtables,
        };
        let failure: Mutex<Option<GenError>> = Mutex::new(None);
        let fail = |e: GenError| {
            failure
                .lock()
                .expect("no panics while locked")
                .get_or_insert(e);
        };
        let failed = || failure.lock().expect("no panics while locked").take();

        // Init.
        observer.phase(material, Phase::Init, 2 * size);
        let states: [Vec<AtomicU16>; 2] = [new_states(entries), new_states(entries)];
        let waiting = Mutex::new(Waiting::default());
        let legal = AtomicU64::new(0);
        // Positions not yet decided, by side to move: once a side has none, the frontier of the
        // other side has no predecessor left to update.
        let undecided = [AtomicU64::new(0), AtomicU64::new(0)];
        let mut frontier: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
        for (s, stm) in Side::ALL.into_iter().enumerate() {
            const CHUNK: u64 = 1 << 14;
            let chunks: Vec<u64> = (0..size.div_ceil(CHUNK)).collect();
            frontier[s] = chunks
                .par_iter()
                .flat_map_iter(|&chunk| {
                    let mut mates = Vec::new();
                    let mut local = Waiting::default();
                    let mut local_legal = 0;
                    let mut local_undecided = 0;
                    let end = ((chunk + 1) * CHUNK).min(size);
                    indexer.for_each_position(geo, chunk * CHUNK..end, stm, |i, p| {
                        let state = work.classify(i, p, stm, &mut local).unwrap_or_else(|e| {
                            fail(e);
                            NO_POSITION
                        });
                        if state == decided(0) {
                            mates.push(i);
                        }
                        local_legal += u64::from(state != NO_POSITION);
                        local_undecided += u64::from(state & PENDING != 0);
                        states[s][i as usize].store(state, Ordering::Relaxed);
                    });
                    waiting.lock().expect("no panics while locked").merge(local);
                    legal.fetch_add(local_legal, Ordering::Relaxed);
                    undecided[s].fetch_add(local_undecided, Ordering::Relaxed);
                    observer.progressed(end - chunk * CHUNK);
                    mates
                })
                .collect();
        }
        if let Some(e) = failed() {
            return Err(e);
        }
        let mut waiting = waiting.into_inner().expect("no panics while locked");
        let init_seconds = start.elapsed().as_secs_f64();

        // Depth by depth.
        observer.phase(material, Phase::Retrograde, legal.load(Ordering::Relaxed));
        let mut depth: u32 = 0;
        loop {
            // Capture-wins and capture-losses due at this depth join the frontier.
            if waiting.capture_wins.remove(&depth) {
                for (s, side_states) in states.iter().enumerate() {
                    let target = pending(CAPTURE_WIN, depth as u16);
                    let found: Vec<u64> = (0..entries)
                        .into_par_iter()
                        .filter(|&i| {
                            // Read first: a compare-exchange on every entry would write them all.
                            side_states[i].load(Ordering::Relaxed) == target
                                && side_states[i]
                                    .compare_exchange(
                                        target,
                                        decided(depth),
                                        Ordering::Relaxed,
                                        Ordering::Relaxed,
                                    )
                                    .is_ok()
                        })
                        .map(|i| i as u64)
                        .collect();
                    undecided[s].fetch_sub(found.len() as u64, Ordering::Relaxed);
                    frontier[s].extend(found);
                }
            }
            if let Some(due) = waiting.losses.remove(&depth) {
                for (s, i) in due {
                    states[s][i as usize].store(decided(depth), Ordering::Relaxed);
                    undecided[s].fetch_sub(1, Ordering::Relaxed);
                    frontier[s].push(i);
                }
            }
            if frontier.iter().all(Vec::is_empty) && waiting.is_empty() {
                break;
            }
            if depth >= MAX_PLIES {
                return Err(unsupported(format!("depths beyond {MAX_PLIES} plies")));
            }
            let mut next: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
            let later = Mutex::new(Vec::<(u32, usize, u64)>::new());
            for (s, stm) in Side::ALL.into_iter().enumerate() {
                if undecided[1 - s].load(Ordering::Relaxed) == 0 {
                    observer.progressed(frontier[s].len() as u64);
                    continue;
                }
                let parent_states = &states[1 - s];
                if undecided[1 - s].load(Ordering::Relaxed) < frontier[s].len() as u64 {
                    // Fewer undecided parents than frontier positions: go forward from them.
                    let parent_side = Side::ALL[1 - s];
                    let found: Vec<u64> = (0..size.div_ceil(4096))
                        .into_par_iter()
                        .flat_map_iter(|chunk| {
                            let mut found = Vec::new();
                            for j in chunk * 4096..((chunk + 1) * 4096).min(size) {
                                if parent_states[j as usize].load(Ordering::Relaxed) & PENDING == 0
                                {
                                    continue;
                                }
                                let children = &states[s];
                                if let Err(e) = work.forward(
                                    j,
                                    parent_side,
                                    parent_states,
                                    children,
                                    depth,
                                    &mut found,
                                    &later,
                                ) {
                                    fail(e);
                                }
                            }
                            found
                        })
                        .collect();
                    observer.progressed(frontier[s].len() as u64);
                    undecided[1 - s].fetch_sub(found.len() as u64, Ordering::Relaxed);
                    next[1 - s].extend(found);
                    continue;
                }
                let found: Vec<u64> = frontier[s]
                    .par_chunks(1024)
                    .flat_map_iter(|chunk| {
                        let mut found = Vec::new();
                        for &i in chunk {
                            let result = if depth % 2 == 0 {
                                work.mark_wins(i, stm, parent_states, depth + 1, &mut found)
                            } else {
                                work.count_down(i, stm, parent_states, depth, &mut found, &later)
                            };
                            if let Err(e) = result {
                                fail(e);
                            }
                        }
                        observer.progressed(chunk.len() as u64);
                        found
                    })
                    .collect();
                undecided[1 - s].fetch_sub(found.len() as u64, Ordering::Relaxed);
                next[1 - s].extend(found);
            }
            if let Some(e) = failed() {
                return Err(e);
            }
            for (due, s, i) in later.into_inner().expect("no panics while locked") {
                waiting.losses.entry(due).or_default().push((s, i));
            }
            frontier = next;
            depth += 1;
        }
        let retrograde_seconds = start.elapsed().as_secs_f64() - init_seconds;

        // Pending positions are draws. The body is encoded straight from the work entries, which
        // are then freed before the file is written.
        let code = |state: u16| if state & PENDING != 0 { DRAW } else { state };
        let max_plies = states
            .par_iter()
            .flat_map(|side| side.par_iter())
            .map(|state| u32::from(code(state.load(Ordering::Relaxed))).saturating_sub(2))
            .max()
            .unwrap_or(0);
        let header = self.header(&indexer, max_plies);
        let width = usize::from(header.value_width);
        let mut body = vec![0u8; 2 * entries * width];
        for (side, out) in states.iter().zip(body.chunks_mut(entries * width)) {
            out.par_chunks_mut(width << 12)
                .enumerate()
                .for_each(|(chunk, out)| {
                    let first = chunk << 12;
                    for (k, slot) in out.chunks_mut(width).enumerate() {
                        let value = code(side[first + k].load(Ordering::Relaxed));
                        slot.copy_from_slice(&value.to_le_bytes()[..width]);
                    }
                });
        }
        drop(states);
        let path = self.raw_path_of(material);
        retro_format::write_table(&path, &header, &body)?;
        self.remove_stale_packed(material)?;
        Ok(BuildReport {
            material,
            path,
            reused: false,
            body_checked: true,
            entries_per_side: size,
            max_plies,
            seconds: start.elapsed().as_secs_f64(),
            init_seconds,
            retrograde_seconds,
            depths: depth,
            core: Some(Core::Reference),
            packed: None,
        })
    }
}

/// The canonical materials one move can lead into from `material`: a capture removes a man
/// other than a king; a promotion exchanges a pawn for a queen, rook, bishop or knight, with or
/// without capturing a man of the other side.
pub fn exits(material: Material) -> Vec<Material> {
    let mut found: Vec<Material> = Vec::new();
    let mut add = |m: Material| {
        let m = m.canonical().0;
        if !found.contains(&m) {
            found.push(m);
        }
    };
    for side in Side::ALL {
        for piece in Piece::ALL {
            if let Some(smaller) = material.without(side, piece) {
                add(smaller);
            }
        }
        let Some(without_pawn) = material.without(side, Piece::Pawn) else {
            continue;
        };
        for promoted in Piece::PROMOTIONS {
            let exchanged = without_pawn.with(side, promoted);
            add(exchanged);
            for victim in Piece::ALL {
                if let Some(both) = exchanged.without(retro_rules::opponent(side), victim) {
                    add(both);
                }
            }
        }
    }
    found
}

/// How many pawns both sides have.
fn pawn_count(material: &Material) -> usize {
    material.count(Side::White, Piece::Pawn) + material.count(Side::Black, Piece::Pawn)
}

/// Whether a move changes the material: a capture or a promotion, whose result lies in
/// another table.
fn leaves_material(mv: &retro_engine::Move) -> bool {
    mv.captured.is_some() || mv.promotion.is_some()
}

fn new_states(entries: usize) -> Vec<AtomicU16> {
    let mut v = Vec::with_capacity(entries);
    v.resize_with(entries, || AtomicU16::new(NO_POSITION));
    v
}

/// Positions waiting for a later depth: capture-wins (found by scanning, so only the depths
/// are kept) and capture-losses (kept by side and index).
#[derive(Default)]
struct Waiting {
    capture_wins: BTreeSet<u32>,
    losses: BTreeMap<u32, Vec<(usize, u64)>>,
}

impl Waiting {
    fn merge(&mut self, other: Waiting) {
        self.capture_wins.extend(other.capture_wins);
        for (depth, list) in other.losses {
            self.losses.entry(depth).or_default().extend(list);
        }
    }

    fn is_empty(&self) -> bool {
        self.capture_wins.is_empty() && self.losses.is_empty()
    }
}

/// The smaller tables captures lead into.
struct Subtables {
    /// At most six entries: a linear search beats hashing.
    tables: Vec<(Material, Table, Indexer)>,
}

impl Subtables {
    fn open(builder: &Builder, material: Material) -> Result<Subtables, GenError> {
        let mut tables: Vec<(Material, Table, Indexer)> = Vec::new();
        for target in exits(material) {
            let table = Table::open(&builder.path_of(target))?;
            let indexer =
                Indexer::new(&builder.geo, target).map_err(|e| GenError::Unsupported {
                    material: target.to_string(),
                    reason: e.to_string(),
                })?;
            tables.push((target, table, indexer));
        }
        Ok(Subtables { tables })
    }

    /// The value, for its side to move, of a position of a smaller material.
    fn probe(&self, geo: &Geometry, p: &TablePosition) -> Result<Value, GenError> {
        let (canonical, flipped) = p.material().canonical();
        let inconsistent = || GenError::Inconsistent {
            material: canonical.to_string(),
            fen: p.to_natural(geo).fen(),
        };
        let (_, table, indexer) = self
            .tables
            .iter()
            .find(|(m, _, _)| *m == canonical)
            .ok_or_else(inconsistent)?;
        let q = if flipped { p.colour_flipped(geo) } else { *p };
        let index = indexer.index(geo, &q).ok_or_else(inconsistent)?;
        match table.value(q.side_to_move() == Side::White, index)? {
            Value::Illegal => Err(inconsistent()),
            value => Ok(value),
        }
    }
}

struct Work<'a> {
    geo: &'a Geometry,
    indexer: &'a Indexer,
    subtables: &'a Subtables,
}

/// What a position's captures say.
#[derive(Default)]
struct Captures {
    /// The quickest win by a capture, in plies.
    win: Option<u32>,
    /// A capture into a draw.
    escape: bool,
    /// The longest loss by a capture (every capture losing), in plies.
    loss: Option<u32>,
}

impl Captures {
    fn add(&mut self, child: Value) {
        match child {
            Value::Loss(k) => self.win = Some(self.win.map_or(k + 1, |w| w.min(k + 1))),
            Value::Draw => self.escape = true,
            Value::Win(k) => self.loss = Some(self.loss.map_or(k + 1, |l| l.max(k + 1))),
            Value::Illegal => unreachable!("probe rejects illegal children"),
        }
    }
}

impl Work<'_> {
    /// The initial state of index `i` with `stm` to move.
    fn classify(
        &self,
        i: u64,
        p: Option<TablePosition>,
        stm: Side,
        waiting: &mut Waiting,
    ) -> Result<u16, GenError> {
        let geo = self.geo;
        let Some(p) = p else {
            return Ok(NO_POSITION);
        };
        if !p.is_legal(geo) {
            return Ok(NO_POSITION);
        }
        let mut weight: u32 = 0;
        let mut captures = Captures::default();
        let mut error = None;
        let kings = (p.king(Side::White), p.king(Side::Black));
        let (Some(white_king), Some(black_king)) = kings else {
            return Ok(NO_POSITION);
        };
        let asymmetric = self
            .indexer
            .kings_fixed_by_identity_only(white_king, black_king);
        // A move's weight is its child's stabilizer size: 1 when only the identity fixes the
        // child's kings, which for a move of another man are these kings.
        let king_step_weight = |mv: &retro_engine::Move| {
            let trivial = match stm {
                Side::White => self.indexer.kings_fixed_by_identity_only(mv.to, black_king),
                Side::Black => self.indexer.kings_fixed_by_identity_only(white_king, mv.to),
            };
            if trivial {
                1
            } else {
                self.indexer.stabilizer_size(geo, &p.play(geo, mv))
            }
        };
        let mut capture =
            |mv: retro_engine::Move| match self.subtables.probe(geo, &p.play(geo, &mv)) {
                Ok(v) => captures.add(v),
                Err(e) => error = Some(e),
            };
        let counted = if asymmetric {
            let mut king_weight = 0;
            p.quiet_move_count(geo, &mut capture, |mv| king_weight += king_step_weight(&mv))
                .map(|others| others + king_weight)
        } else {
            None
        };
        match counted {
            Some(w) => weight = w,
            None => p.for_each_legal_move(geo, None, |mv| {
                if leaves_material(&mv) {
                    capture(mv);
                } else {
                    weight += if mv.piece == Piece::King {
                        king_step_weight(&mv)
                    } else if asymmetric {
                        1
                    } else {
                        self.indexer.stabilizer_size(geo, &p.play(geo, &mv))
                    };
                }
            }),
        }
        if let Some(e) = error {
            return Err(e);
        }
        // Every quiet move weighs at least 1.
        let any =
            weight > 0 || captures.win.is_some() || captures.escape || captures.loss.is_some();
        if !any {
            return Ok(if p.in_check(geo, stm) {
                decided(0)
            } else {
                DRAW
            });
        }
        if weight > u32::from(COUNT_MASK) {
            return Err(GenError::Unsupported {
                material: self.indexer.material().to_string(),
                reason: "too many moves in one position".into(),
            });
        }
        let side = usize::from(stm == Side::Black);
        Ok(if let Some(k) = captures.win {
            waiting.capture_wins.insert(k);
            pending(CAPTURE_WIN, k as u16)
        } else if captures.escape {
            pending(ESCAPE, 0)
        } else if let Some(k) = captures.loss {
            if weight == 0 {
                waiting.losses.entry(k).or_default().push((side, i));
            }
            pending(CAPTURE_LOSS, weight as u16)
        } else {
            pending(PLAIN, weight as u16)
        })
    }

    fn predecessors(
        &self,
        i: u64,
        stm: Side,
        visit: impl FnMut(TablePosition),
    ) -> Result<(), GenError> {
        let p = self
            .indexer
            .position::<{ retro_engine::TABLE_MEN }>(self.geo, i, stm)
            .ok_or_else(|| GenError::Inconsistent {
                material: self.indexer.material().to_string(),
                fen: format!("index {i}"),
            })?;
        p.for_each_predecessor(self.geo, Retractions::QUIET, visit);
        Ok(())
    }

    /// Even depths: the predecessors of a loss in `depth − 1` still pending become wins in `depth`.
    fn mark_wins(
        &self,
        i: u64,
        stm: Side,
        parents: &[AtomicU16],
        depth: u32,
        found: &mut Vec<u64>,
    ) -> Result<(), GenError> {
        self.predecessors(i, stm, |q| {
            let j = self
                .indexer
                .index(self.geo, &q)
                .expect("legal predecessors have an index");
            let state = &parents[j as usize];
            let mut old = state.load(Ordering::Relaxed);
            while old & PENDING != 0 {
                match state.compare_exchange_weak(
                    old,
                    decided(depth),
                    Ordering::Relaxed,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => {
                        found.push(j);
                        break;
                    }
                    Err(now) => old = now,
                }
            }
        })
    }

    /// Odd depths: the predecessors of a win in `depth` lose one (weighted) unresolved move;
    /// those left with none are lost in `depth + 1`, or later if a capture-loss says so.
    fn count_down(
        &self,
        i: u64,
        stm: Side,
        parents: &[AtomicU16],
        depth: u32,
        found: &mut Vec<u64>,
        later: &Mutex<Vec<(u32, usize, u64)>>,
    ) -> Result<(), GenError> {
        let parent_side = Side::ALL[usize::from(stm == Side::White)];
        let mut error = None;
        self.predecessors(i, stm, |q| {
            if error.is_some() {
                return;
            }
            let j = self
                .indexer
                .index(self.geo, &q)
                .expect("legal predecessors have an index");
            let weight = self.indexer.stabilizer_size(self.geo, &q) as u16;
            if let Err(e) = self.subtract(j, parent_side, parents, weight, depth, found, later) {
                error = Some(e);
            }
        })?;
        error.map_or(Ok(()), Err)
    }

    /// Takes `weight` resolved moves off the counter of parent `j`; when none are left the
    /// parent is lost in `depth + 1` (into `found`), or later if a capture-loss says so.
    #[allow(clippy::too_many_arguments)]
    fn subtract(
        &self,
        j: u64,
        parent_side: Side,
        parents: &[AtomicU16],
        weight: u16,
        depth: u32,
        found: &mut Vec<u64>,
        later: &Mutex<Vec<(u32, usize, u64)>>,
    ) -> Result<(), GenError> {
        let state = &parents[j as usize];
        let mut old = state.load(Ordering::Relaxed);
        loop {
            if old & PENDING == 0 || matches!(kind_of(old), ESCAPE | CAPTURE_WIN) {
                return Ok(());
            }
            if old & COUNT_MASK < weight {
                return Err(self.inconsistent(j, parent_side));
            }
            match state.compare_exchange_weak(
                old,
                old - weight,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => break,
                Err(now) => old = now,
            }
        }
        if old & COUNT_MASK != weight {
            return Ok(());
        }
        // Every quiet move of the parent loses.
        let due = if kind_of(old) == CAPTURE_LOSS {
            self.capture_loss_depth(j, parent_side)?.max(depth + 1)
        } else {
            depth + 1
        };
        if due == depth + 1 {
            state.store(decided(due), Ordering::Relaxed);
            found.push(j);
        } else {
            later.lock().expect("no panics while locked").push((
                due,
                usize::from(parent_side == Side::Black),
                j,
            ));
        }
        Ok(())
    }

    fn inconsistent(&self, j: u64, stm: Side) -> GenError {
        let fen = self
            .indexer
            .position::<{ retro_engine::TABLE_MEN }>(self.geo, j, stm)
            .map_or(format!("index {j}"), |p| p.to_natural(self.geo).fen());
        GenError::Inconsistent {
            material: self.indexer.material().to_string(),
            fen,
        }
    }

    /// The forward form of one step, for a still-undecided `parent` (with `parent_side` to
    /// move): its quiet moves into positions decided at exactly `depth` do what the backward
    /// step would have done from those positions — at even depths (losses) the parent becomes
    /// a win in `depth + 1`; at odd depths (wins) its counter drops by their weight.
    #[allow(clippy::too_many_arguments)]
    fn forward(
        &self,
        parent: u64,
        parent_side: Side,
        parents: &[AtomicU16],
        children: &[AtomicU16],
        depth: u32,
        found: &mut Vec<u64>,
        later: &Mutex<Vec<(u32, usize, u64)>>,
    ) -> Result<(), GenError> {
        let state = parents[parent as usize].load(Ordering::Relaxed);
        let counting = depth % 2 == 1;
        if state & PENDING == 0 || (counting && matches!(kind_of(state), ESCAPE | CAPTURE_WIN)) {
            return Ok(());
        }
        let geo = self.geo;
        let r = self
            .indexer
            .position::<{ retro_engine::TABLE_MEN }>(geo, parent, parent_side)
            .ok_or_else(|| self.inconsistent(parent, parent_side))?;
        let target = decided(depth);
        let mut weight: u32 = 0;
        let mut wins = false;
        r.for_each_legal_move(geo, None, |mv| {
            if leaves_material(&mv) || wins {
                return;
            }
            let child = r.play(geo, &mv);
            let k = self
                .indexer
                .index(geo, &child)
                .expect("legal children have an index");
            if children[k as usize].load(Ordering::Relaxed) == target {
                if counting {
                    weight += self.indexer.stabilizer_size(geo, &child);
                } else {
                    wins = true;
                }
            }
        });
        if wins {
            parents[parent as usize].store(decided(depth + 1), Ordering::Relaxed);
            found.push(parent);
        } else if weight > 0 {
            self.subtract(
                parent,
                parent_side,
                parents,
                weight as u16,
                depth,
                found,
                later,
            )?;
        }
        Ok(())
    }

    /// The longest loss through a capture, for a position whose captures all lose.
    fn capture_loss_depth(&self, j: u64, stm: Side) -> Result<u32, GenError> {
        let geo = self.geo;
        let p = self
            .indexer
            .position::<{ retro_engine::TABLE_MEN }>(geo, j, stm)
            .expect("a pending entry is a position");
        let mut captures = Captures::default();
        let mut error = None;
        p.for_each_move(geo, |mv, child| {
            if leaves_material(&mv) {
                match self.subtables.probe(geo, &child) {
                    Ok(v) => captures.add(v),
                    Err(e) => error = Some(e),
                }
            }
        });
        if let Some(e) = error {
            return Err(e);
        }
        captures
            .loss
            .filter(|_| captures.win.is_none() && !captures.escape)
            .ok_or_else(|| GenError::Inconsistent {
                material: self.indexer.material().to_string(),
                fen: p.to_natural(geo).fen(),
            })
    }
}

/// Reads the value of `p` from the table file in `dir` (for tests and tools that have no
/// tablebase at hand).
pub fn probe_file(dir: &Path, geo: &Geometry, p: &TablePosition) -> Result<Value, GenError> {
    let (canonical, flipped) = p.material().canonical();
    let board = geo.board();
    let path = retro_format::table_path(dir, &canonical.to_string(), board.files(), board.ranks());
    let table = Table::open(&path)?;
    let indexer = Indexer::new(geo, canonical).map_err(|e| GenError::Unsupported {
        material: canonical.to_string(),
        reason: e.to_string(),
    })?;
    let q = if flipped { p.colour_flipped(geo) } else { *p };
    let index = indexer
        .index(geo, &q)
        .ok_or_else(|| GenError::Inconsistent {
            material: canonical.to_string(),
            fen: p.to_natural(geo).fen(),
        })?;
    Ok(table.value(q.side_to_move() == Side::White, index)?)
}

#[cfg(test)]
mod tests;
