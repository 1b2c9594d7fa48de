//! # retro-verify — the independent checker
//!
//! Owns: checking that a table file holds exactly the values the natural model of chess gives
//! ([`Checker`]), and the certificates that record a check ([`certificate`]).
//! Must never: depend on the engine or the generator (`retro-engine`, `retro-gen`,
//! `retro-tablebase`). It reads tables through `retro-format`, finds positions' entries with
//! its own implementation of the index scheme ([`scheme`]), and takes every move, check and
//! mate from `retro-rules`, through the geometry tabulated from its predicates ([`moves`],
//! [`lines`]; pawns, promotions and en passant included), and from `successors` itself
//! wherever a position fails. A test fails if its dependencies ever include the engine.
//!
//! # What is checked
//!
//! A table stores `V(p)` for every position `p` of a category: *win in n* (the side to move
//! mates in `n` plies, `n` odd), *loss in n* (it is mated in `n` plies, `n` even), *draw*, or
//! *none*. For every legal position `p` of the category, with `M(p)` its moves in the natural
//! model (`retro_rules::laws::successors`) and `V` read from this table or, after a capture or
//! a promotion, from the table of the category it leads into (checked before):
//!
//! * **(P)** `V(p)` is not *none*, and the table has as many entries that are not *none* as the
//!   category has legal positions, so *none* marks exactly the illegal ones;
//! * **(C)** `V(p) = loss in 0` exactly when `p` is checkmate (`checkmated p`);
//! * **(W)** if `V(p) = win in n` (n ≥ 1): some move leads to a `q` with `V(q) = loss in n−1`,
//!   and no move leads to a loss in fewer plies;
//! * **(L)** if `V(p) = loss in n` (n ≥ 2): `p` has a move, every move leads to a win in at most
//!   `n−1` plies, and some move to a win in exactly `n−1`;
//! * **(D)** if `V(p) = draw`: no move leads to a loss, and `p` is stalemate or some move leads
//!   to a draw.
//!
//! # Why that proves the table
//!
//! Let `T(p)` be the true value: for White to move, *win in 2n+1* when `n` is least with
//! `p ∈ win1_by chess n`; for Black to move, *loss in 2n* when `n` is least with
//! `p ∈ win2_by chess n`; Black's wins likewise from the game with the colours exchanged;
//! otherwise *draw*. These are the usual characterisation of `win1_by`/`win2_by`: `win2_by 0`
//! is the checkmates of the side to move; a position is in `win1_by n` when some move reaches
//! `win2_by n`; in `win2_by (n+1)` when it is not stuck and every move reaches `win1_by n`.
//!
//! **Claim.** For every `k`: `V(p) = win in k ⟺ T(p) = win in k` and
//! `V(p) = loss in k ⟺ T(p) = loss in k`, for all legal `p` of every category checked.
//! By strong induction on `k`, assuming the claim for every smaller depth (in this table and,
//! already established, in the tables captures and promotions lead into):
//!
//! * `k = 0`: (C) and `win2_by 0 = {checkmated}`.
//! * `k = n` odd, `⇒`: by (W) a move reaches `q` with `V(q) = loss in n−1`, so `T(q) = loss in
//!   n−1` (induction): `p` is won within `n`. No move reaches a stored loss in fewer plies, so
//!   (induction) none reaches a true one: `p` is not won sooner. Hence `T(p) = win in n`.
//! * `k = n` odd, `⇐`: some move reaches `q` with `T(q) = loss in n−1`, so `V(q) = loss in n−1`.
//!   Then `V(p)` is not a draw (D forbids a move to a loss) nor a loss (L needs every move to
//!   reach a win). So `V(p) = win in m`; `m < n` would give `T(p) = win in m` (the `⇒` part at
//!   `m`), and `m > n` contradicts (W)'s "no loss in fewer plies" at `q`. So `m = n`.
//! * `k = n ≥ 2` even, `⇒`: by (L) `p` has moves, all reach stored wins of at most `n−1`, one of
//!   exactly `n−1`; by induction the same holds of `T`: `T(p) = loss in n`.
//! * `k = n ≥ 2` even, `⇐`: every move reaches `q` with `T(q) = win in ≤ n−1`, one with `n−1`;
//!   by induction the same of `V`. Then `V(p)` is no win (W needs a move to a loss) and no draw
//!   (D needs a stalemate or a move to a draw; `p` has moves, all to wins). So `V(p) = loss in
//!   m`, and (L) makes `m − 1` the largest child depth: `m = n`.
//!
//! Draws follow: if `V(p) = draw` then `T(p)` is no win or loss of any depth (the claim would
//! make `V(p)` that), so `T(p) = draw`; and if `T(p) = draw` then `V(p)` is neither a win nor a
//! loss, and by (P) it is not *none*: `V(p) = draw`. Hence `V = T` on every legal position, i.e.
//! the table is exactly `win1_by`/`win2_by` of the natural model (and of the colour-exchanged
//! game for Black's wins). The stability theorems follow: `p ∈ win2 chess ⟺ p ∈ win2_by chess N`
//! for `N` the largest stored loss depth over two, and so on.
//!
//! Positions are checked one per orbit of the board's symmetries (the canonical image of the
//! index scheme; with pawns the symmetries are the identity and the file mirror, and a
//! position's en-passant target is part of it, Article 9.2 as in the natural model). The
//! natural model is invariant under those symmetries: each maps files, ranks and the two
//! diagonal directions onto files, ranks and diagonals (the file mirror keeps ranks, so pawn
//! moves too), so `same_file`, `same_rank`, `same_diag1/2`, `square_between` and hence
//! `attacks`, `chess_legal` and the move relation commute with it; so do `win1_by` and
//! `win2_by`, and `T` is constant on each orbit — as `V` is, every image reading the same entry.
//!
//! # Lanes
//!
//! In a category without en-passant positions (pawns of one side at most) whose last listed
//! man is a piece (KRBvKR's black rook, KNNNvK's third knight, KRPvKR's black rook), the
//! positions that differ only in that man's square are checked together, a *lane* at a time
//! (`lanes`, a private module whose documentation gives the argument): a move of another man
//! is found once for the whole lane, as the set of squares of the last man that leave it a
//! move, and the up to 64 entries it leads to are read and summarised in one pass. The facts
//! checked at each position are the same. One thing differs: there, a move's legality — whether the
//! mover is left in check — is read from the entry it reaches, which is *none* exactly for an
//! illegal position by (P), itself checked for the whole category. A test compares the two
//! ways on whole categories, correct and with a wrong entry.
//!
//! # Restriction and simulation: from the category to chess
//!
//! A table covers one *category*: the positions with exactly these men (Hurd, section 3.2; the
//! "restriction" slide). Its moves are those of the full game, and a move either keeps the men
//! (a quiet move stays in the category) or captures one, leading into a smaller category, or
//! promotes a pawn (capturing or not), leading into a category with a piece for the pawn; those
//! tables are checked first (a promotion keeps the number of men and lowers the pawns'). So the
//! category together with those it leads into is closed under the moves of chess: no move
//! leaves it for a position the induction has not covered, the winning predicate is the same
//! (checkmate, on positions of the category), and legality is the natural model's. The sets
//! proved for the category are therefore exactly the full game's sets restricted to positions
//! with these men: `∀p. all_on_board p ∧ to_move p = … ∧ has_pieces p White [...] ∧
//! has_pieces p Black [...] ⇒ (p ∈ win2 chess ⟺ p ∈ win2_by chess N)`. The index
//! is the "simulation": it maps each position of the natural model to an entry, and the proof
//! above speaks of positions, not entries, so it holds however the entries are laid out — an
//! index that merged two positions of different values would fail the check.
//!
//! ```
//! use retro_rules::Board;
//! use retro_verify::{men::Men, Checker};
//! # let dir = tempfile::tempdir()?;
//! # retro_gen::Builder::new(Board::new(4, 4)?, dir.path())
//! #     .build(&[retro_engine::Material::parse("KRvK")?], &retro_gen::Silent)?;
//! // A directory holding KvK and KRvK on 4×4, built by `retro gen KRvK --board 4x4`.
//! let checker = Checker::new(Board::new(4, 4)?, dir.path());
//! let report = checker.check(&Men::parse("KRvK")?, &|_| {})?;
//! assert!(report.passed(), "{} faults", report.failure_count);
//! assert!(report.positions > 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod certificate;
mod children;
mod fifty;
mod lanes;
pub mod lines;
pub mod men;
pub mod moves;
pub mod oracle;
pub mod scheme;
pub mod theorem;
mod visit;

use children::*;
use lines::Lines;
use men::pawns;
use men::Men;
pub use men::{exits, pieces_of, stored};
use moves::{Placement, Step};
use rayon::prelude::*;
use retro_format::{Codes, Dtz, FormatError, Table, TableKind, Value, Wdl};
use retro_rules::laws::{in_check, successors};
use retro_rules::{Board, Piece, Position, Side, Square};
use scheme::Scheme;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;
use visit::*;

/// Why a table could not be checked (as opposed to failing the check).
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// A material name could not be read.
    #[error(transparent)]
    Material(#[from] men::BadMaterial),
    /// The table file is missing, damaged or foreign.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// The table's header does not describe the category it is named for.
    #[error(
        "{}: the header describes {found}, expected {expected}; build it again with `retro gen`",
        path.display()
    )]
    WrongHeader {
        /// The file.
        path: PathBuf,
        /// What it should describe.
        expected: String,
        /// What it describes.
        found: String,
    },
    /// The checker handles categories of at most 8 men.
    #[error("cannot check {0}: only material of at most 8 men")]
    Unsupported(String),
}

/// A stored entry of a table of any kind, as a failure names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entry {
    /// A DTM table's value.
    Dtm(Value),
    /// A DTZ50 table's entry.
    Dtz50(Dtz),
    /// A WDL50 table's entry.
    Wdl50(Wdl),
}

impl Entry {
    /// The table kind the entry is of.
    pub fn kind(self) -> TableKind {
        match self {
            Entry::Dtm(_) => TableKind::Dtm,
            Entry::Dtz50(_) => TableKind::Dtz50,
            Entry::Wdl50(_) => TableKind::Wdl50,
        }
    }

    /// The entry's code in its table.
    pub fn code(self) -> u32 {
        match self {
            Entry::Dtm(v) => v.code(),
            Entry::Dtz50(v) => v.code(),
            Entry::Wdl50(v) => v.code(),
        }
    }

    /// The entry of `code` in a table of `kind` (`None` for a code no entry of it has).
    pub fn from_code(kind: TableKind, code: u32) -> Option<Entry> {
        Some(match kind {
            TableKind::Dtm => Entry::Dtm(Value::from_code(code)),
            TableKind::Dtz50 => Entry::Dtz50(Dtz::from_code(code)),
            TableKind::Wdl50 => Entry::Wdl50(Wdl::from_code(code)?),
        })
    }
}

impl From<Value> for Entry {
    fn from(v: Value) -> Entry {
        Entry::Dtm(v)
    }
}

impl std::fmt::Display for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Entry::Dtm(v) => write!(f, "{v:?}"),
            Entry::Dtz50(v) => write!(f, "DTZ50 {v:?}"),
            Entry::Wdl50(v) => write!(f, "WDL50 {v:?}"),
        }
    }
}

/// A position whose stored value breaks one of the checked facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The position, in FEN.
    pub fen: String,
    /// Its stored entry.
    pub stored: Entry,
    /// Which fact fails, and how.
    pub problem: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: stored {}: {}", self.fen, self.stored, self.problem)
    }
}

/// The result of checking one table.
#[derive(Debug, Clone)]
pub struct Report {
    /// The category, as stored.
    pub men: Men,
    /// The kind of table checked ([`Checker::check`]: DTM; [`Checker::check_fifty`]: DTZ50,
    /// its WDL50 companion checked with it).
    pub kind: TableKind,
    /// Legal positions checked (one per orbit), both sides to move.
    pub positions: u64,
    /// Failed facts.
    pub failure_count: u64,
    /// The first failures (at most [`Report::EXAMPLES`]).
    pub failures: Vec<Failure>,
    /// Seconds taken.
    pub seconds: f64,
    /// The body hash of the table checked.
    pub body_hash: [u8; 32],
    /// The body hash of the companion checked with it (a DTZ50 table's WDL50 table).
    pub companion_hash: Option<[u8; 32]>,
}

impl Report {
    /// How many failures are kept with their positions.
    pub const EXAMPLES: usize = 100;

    /// Whether every fact holds.
    pub fn passed(&self) -> bool {
        self.failure_count == 0
    }
}

/// A part of a table's check, for checking it over several processes: the king pairs whose
/// number `k` (in [`Scheme::pairs`]'s order) has `k % count == rank`. Dealt round the ranks,
/// the pairs of every region of the board are spread over all of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Share {
    /// This part, `0..count`.
    pub rank: usize,
    /// How many parts.
    pub count: usize,
}

impl Share {
    /// The whole table.
    pub const WHOLE: Share = Share { rank: 0, count: 1 };

    /// The king pairs of this share.
    fn pairs(self, scheme: &Scheme) -> Vec<(u32, u32)> {
        let count = self.count.max(1);
        scheme
            .pairs()
            .iter()
            .enumerate()
            .filter(|(k, _)| k % count == self.rank)
            .map(|(_, &pair)| pair)
            .collect()
    }
}

/// What checking a share of a table found ([`Checker::check_share`]).
#[derive(Debug, Clone, Default)]
pub struct ShareReport {
    /// Legal positions checked, White to move and Black to move.
    pub legal: [u64; 2],
    /// Failed facts.
    pub failure_count: u64,
    /// The first failures (at most [`Report::EXAMPLES`]).
    pub failures: Vec<Failure>,
}

struct Stored {
    table: Table,
    scheme: Scheme,
}

/// What a check counts as it goes: legal positions by side to move, and failures.
#[derive(Default)]
struct Tally {
    legal: [AtomicU64; 2],
    failures: Failures,
}

/// The failures of one check: how many, and the first [`Report::EXAMPLES`] of them.
#[derive(Default)]
struct Failures {
    count: AtomicU64,
    examples: Mutex<Vec<Failure>>,
}

impl Failures {
    fn record(&self, failure: Failure) {
        self.count.fetch_add(1, Ordering::Relaxed);
        let mut list = self.examples.lock().expect("no panics while locked");
        if list.len() < Report::EXAMPLES {
            list.push(failure);
        }
    }

    /// A fact fails at `p`, whose stored entry is `stored`.
    fn fail(&self, p: &Position, stored: impl Into<Entry>, problem: String) {
        self.record(Failure {
            fen: p.fen(),
            stored: stored.into(),
            problem,
        });
    }

    fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    fn examples(self) -> Vec<Failure> {
        self.examples.into_inner().expect("no panics while locked")
    }
}

/// Checks the tables of one board in one directory.
pub struct Checker {
    board: Board,
    dir: PathBuf,
    open: Mutex<HashMap<(Men, TableKind), Arc<Stored>>>,
    /// The board's tables, made on the first check and kept for the others.
    tables: OnceLock<BoardTables>,
    /// Whether categories with lanes are checked a lane at a time ([`lanes`]).
    lanes: bool,
}

/// What the checker tabulates once per board: the natural model's geometry, and each square's
/// number after the board is turned top to bottom (the colours exchanged).
struct BoardTables {
    lines: Lines,
    mirror: Vec<u32>,
}

impl BoardTables {
    fn new(board: Board) -> BoardTables {
        let lines = Lines::new(board);
        let mirror = (0..board.square_count() as u16)
            .map(|k| {
                let sq = lines.square(k);
                u32::from(lines.number(Square::new(sq.file, board.ranks() - 1 - sq.rank)))
            })
            .collect();
        BoardTables { lines, mirror }
    }
}

impl Checker {
    /// A checker for `board`'s tables in `dir`.
    pub fn new(board: Board, dir: impl Into<PathBuf>) -> Checker {
        Checker {
            board,
            dir: dir.into(),
            open: Mutex::new(HashMap::new()),
            tables: OnceLock::new(),
            lanes: true,
        }
    }

    /// The same checker, checking every category a position at a time when `lanes` is false
    /// (for comparing the two ways).
    pub fn with_lanes(self, lanes: bool) -> Checker {
        Checker { lanes, ..self }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of a category (as stored): the raw file if there is one, else the packed one
    /// if there is one (read whole, decoded by `retro-format`, the same body), else the raw
    /// file's path.
    pub fn path_of(&self, men: &Men) -> PathBuf {
        self.kind_path_of(men, TableKind::Dtm)
    }

    /// [`Checker::path_of`] for the table of `kind`.
    pub fn kind_path_of(&self, men: &Men, kind: TableKind) -> PathBuf {
        retro_format::kind_table_path(
            &self.dir,
            kind,
            &men.to_string(),
            self.board.files(),
            self.board.ranks(),
        )
    }

    /// The categories to check for the named materials, as stored (stronger side White), with
    /// everything their captures and promotions reach, each after those it leads into.
    pub fn plan(&self, names: &[&str]) -> Result<Vec<Men>, VerifyError> {
        let mut needed: Vec<Men> = Vec::new();
        let mut todo: Vec<Men> = names
            .iter()
            .map(|n| Men::parse(n).map(stored))
            .collect::<Result<_, _>>()?;
        while let Some(m) = todo.pop() {
            if m.count() > scheme::MAX_MEN {
                return Err(VerifyError::Unsupported(m.to_string()));
            }
            if needed.contains(&m) {
                continue;
            }
            todo.extend(exits(&m));
            needed.push(m);
        }
        // A capture leaves fewer men, a promotion as many men and fewer pawns.
        needed.sort_by_key(|m| (m.count(), pawns(m), m.to_string()));
        Ok(needed)
    }

    fn load(&self, men: &Men) -> Result<Arc<Stored>, VerifyError> {
        self.load_kind(men, TableKind::Dtm)
    }

    /// The table of `kind` of a category (as stored), opened once and kept; its header must
    /// describe the category on this board (and, for the kinds under the fifty-move rule, name
    /// a rule).
    fn load_kind(&self, men: &Men, kind: TableKind) -> Result<Arc<Stored>, VerifyError> {
        let key = (men.clone(), kind);
        if let Some(s) = self.open.lock().expect("no panics while locked").get(&key) {
            return Ok(s.clone());
        }
        let path = self.kind_path_of(men, kind);
        let table = Table::open(&path)?;
        table.expect_kind(kind)?;
        let scheme = Scheme::new(self.board, men);
        let h = table.header();
        let expected = format!(
            "{men} on {}, index scheme {}, {} entries per side",
            self.board,
            retro_format::INDEX_SCHEME,
            scheme.size()
        );
        let found = format!(
            "{} on {}x{}, index scheme {}, {} entries per side",
            h.material, h.files, h.ranks, h.index_scheme, h.entries_per_side
        );
        if expected != found {
            return Err(VerifyError::WrongHeader {
                path,
                expected,
                found,
            });
        }
        let stored = Arc::new(Stored { table, scheme });
        self.open
            .lock()
            .expect("no panics while locked")
            .insert(key, stored.clone());
        Ok(stored)
    }

    /// The stored value of any legal position whose category's table is in the directory.
    pub fn value(&self, p: &Position) -> Result<Value, VerifyError> {
        let men = stored(Men::of_position(p));
        let lookup = Lookup::new(self.board, vec![(men.clone(), self.load(&men)?)]);
        lookup.value(p, self)
    }

    /// Checks the table of `men` (as stored), whose smaller tables must already be checked,
    /// calling `progress` with the number of positions examined as it goes.
    pub fn check(&self, men: &Men, progress: &(dyn Fn(u64) + Sync)) -> Result<Report, VerifyError> {
        let start = Instant::now();
        let share = self.check_share(men, Share::WHOLE, progress)?;
        self.combine(men, vec![share], start)
    }

    /// Checks `share` of the table of `men` (as stored): (C), (W), (L) and (D) at the legal
    /// positions whose kings stand on the share's king pairs. (P), which counts the whole
    /// table, waits for every share ([`Checker::combine`]).
    pub fn check_share(
        &self,
        men: &Men,
        share: Share,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<ShareReport, VerifyError> {
        let stored = self.load(men)?;
        let mut loaded = vec![(men.clone(), stored.clone())];
        for exit in exits(men) {
            let table = self.load(&exit)?;
            loaded.push((exit, table));
        }
        let lookup = Lookup::new(self.board, loaded);
        let tally = Tally::default();
        self.check_category(men, &stored, &lookup, share, &tally, progress)?;
        Ok(ShareReport {
            legal: tally.legal.map(|n| n.into_inner()),
            failure_count: tally.failures.count(),
            failures: tally.failures.examples(),
        })
    }

    /// The report on the table of `men` from the reports on all its shares, checked since
    /// `start`: their failures, and (P) — exactly the legal positions have entries.
    pub fn combine(
        &self,
        men: &Men,
        shares: Vec<ShareReport>,
        start: Instant,
    ) -> Result<Report, VerifyError> {
        let stored = self.load(men)?;
        let failures = Failures::default();
        let mut legal = [0u64; 2];
        let mut failure_count = 0;
        for share in shares {
            for (total, here) in legal.iter_mut().zip(share.legal) {
                *total += here;
            }
            failure_count += share.failure_count;
            for failure in share.failures {
                failures.record(failure);
            }
        }
        // The shares counted every failure, the examples recorded here among them.
        failures.count.store(failure_count, Ordering::Relaxed);
        entries_are_the_legal_positions(men, &stored, legal, &failures);
        Ok(Report {
            men: men.clone(),
            kind: TableKind::Dtm,
            positions: legal[0] + legal[1],
            failure_count: failures.count(),
            failures: failures.examples(),
            seconds: start.elapsed().as_secs_f64(),
            body_hash: stored.table.body_hash(),
            companion_hash: None,
        })
    }

    /// Checks every canonical position of a category, each en-passant target included, with
    /// the tabulated moves ([`moves`]) and the index shortcuts ([`scheme`]), counting the legal
    /// ones into `legal`; a position whose summary fails is checked again from the natural
    /// model's own moves.
    ///
    /// The positions visited are the canonical placements (the least key of their orbit), both
    /// sides to move, without a target and with every target `t` consistent with a double step
    /// (`en_passant_consistent`) that is the least of its orbit: the file mirror maps a
    /// placement equal to its own image with target `t` to the same placement with the mirrored
    /// target, so of those two only the smaller is canonical. Each legal one is checked by
    /// (P), (C), (W), (L) and (D) at that position.
    fn check_category(
        &self,
        men: &Men,
        stored: &Stored,
        lookup: &Lookup,
        share: Share,
        tally: &Tally,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<(), VerifyError> {
        let (legal, failures) = (&tally.legal, &tally.failures);
        let scheme = &stored.scheme;
        let pairs = share.pairs(scheme);
        let listed = scheme.men().to_vec();
        let BoardTables { lines, mirror } =
            self.tables.get_or_init(|| BoardTables::new(self.board));
        let exits = self.exit_targets(men, &listed, TableKind::Dtm)?;
        let children = Children::new(scheme, &stored.table, &exits, mirror);
        if scheme.has_lanes() && stored.table.header().value_width == 1 && self.lanes {
            // A lane at a time (see [`lanes`]).
            return pairs.par_iter().try_for_each(|&pair| {
                let mut legal_here = [0u64; 2];
                let examined = lanes::check_pair(
                    scheme,
                    lines,
                    &listed,
                    &children,
                    &stored.table,
                    pair,
                    &mut legal_here,
                    &mut |placement, side, code| {
                        let stored_value = Value::from_code(code);
                        self.recheck(lookup, placement, side, stored_value, failures)
                    },
                )?;
                for (total, here) in legal.iter().zip(legal_here) {
                    total.fetch_add(here, Ordering::Relaxed);
                }
                progress(examined);
                Ok(())
            });
        }
        for_each_canonical(scheme, &pairs, legal, progress, |numbers, legal_here| {
            for_each_legal(
                scheme,
                lines,
                &listed,
                &stored.table,
                numbers,
                legal_here,
                |at| {
                    let stored_value = stored.table.value(at.side == Side::White, at.entry)?;
                    let summary =
                        children.summarise(&at.placement, at.index, at.side, at.in_check)?;
                    if summary.holds_for(stored_value) {
                        return Ok(());
                    }
                    self.recheck(lookup, &at.placement, at.side, stored_value, failures)
                },
            )
        })
    }

    /// A position whose summary fails some fact: the natural model's own moves say which, and
    /// how.
    fn recheck(
        &self,
        lookup: &Lookup,
        placement: &Placement,
        side: Side,
        stored_value: Value,
        failures: &Failures,
    ) -> Result<(), VerifyError> {
        let p = placement.position(side);
        let before = failures.count();
        self.check_position(lookup, &p, stored_value, failures)?;
        if failures.count() == before {
            failures.fail(
                &p,
                stored_value,
                "the tabulated moves and the natural model's moves disagree about this position"
                    .into(),
            );
        }
        Ok(())
    }

    /// Where each exit of the category leads: the capture of every listed man but the kings,
    /// and the promotion of every pawn to each piece, capturing each man of the other side or
    /// not.
    fn exit_targets(
        &self,
        men: &Men,
        listed: &[retro_rules::Man],
        kind: TableKind,
    ) -> Result<Exits, VerifyError> {
        let mut captures = Vec::new();
        for (i, &(_, piece)) in listed.iter().enumerate() {
            captures.push(if piece == Piece::King {
                None
            } else {
                Some(self.exit_target(men, listed, Some(i), None, kind)?)
            });
        }
        let mut promotions = Vec::new();
        for (i, &(side, piece)) in listed.iter().enumerate() {
            if piece != Piece::Pawn {
                promotions.push(None);
                continue;
            }
            let mut by_capture = Vec::new();
            for (j, &(other, captured)) in listed.iter().enumerate() {
                let removed = match (other == side, captured) {
                    (true, _) => continue,
                    (false, Piece::King) => None,
                    (false, _) => Some(j),
                };
                let mut by_piece = Vec::new();
                for promoted in Piece::PROMOTIONS {
                    by_piece.push(self.exit_target(
                        men,
                        listed,
                        removed,
                        Some((i, promoted)),
                        kind,
                    )?);
                }
                by_capture.push((removed, by_piece));
            }
            promotions.push(Some(by_capture));
        }
        Ok(Exits {
            captures,
            promotions,
        })
    }

    /// Where the exit removing listed man `removed` and exchanging pawn `promoted.0` for
    /// `promoted.1` leads: the stored category, whether its colours are exchanged, and each
    /// remaining man's place in its list.
    fn exit_target(
        &self,
        men: &Men,
        listed: &[retro_rules::Man],
        removed: Option<usize>,
        promoted: Option<(usize, Piece)>,
        kind: TableKind,
    ) -> Result<CaptureTarget, VerifyError> {
        let mut after = men.clone();
        if let Some(j) = removed {
            let (side, piece) = listed[j];
            after = after.without(side, piece).expect("the listed man is there");
        }
        if let Some((i, piece)) = promoted {
            let (side, _) = listed[i];
            after = after
                .without(side, Piece::Pawn)
                .expect("the listed pawn is there")
                .with(side, piece);
        }
        let flipped = !after.is_stored_as_is();
        let stored_men = stored(after);
        let target_listed = stored_men.listed();
        let mut taken = vec![false; target_listed.len()];
        let mut order = vec![usize::MAX; listed.len()];
        for (j, &(s, p)) in listed.iter().enumerate() {
            if Some(j) == removed {
                continue;
            }
            let p = match promoted {
                Some((i, piece)) if i == j => piece,
                _ => p,
            };
            let s = if flipped { retro_rules::opponent(s) } else { s };
            let k = (0..target_listed.len())
                .find(|&k| !taken[k] && target_listed[k] == (s, p))
                .expect("the category after the exit has the man");
            taken[k] = true;
            order[j] = k;
        }
        Ok(CaptureTarget {
            stored: self.load_kind(&stored_men, kind)?,
            flipped,
            order,
        })
    }

    /// Checks (P), (C), (W), (L) and (D) at one legal position.
    fn check_position(
        &self,
        lookup: &Lookup,
        p: &Position,
        v: Value,
        failures: &Failures,
    ) -> Result<(), VerifyError> {
        let fail = |p: &Position, v: Value, problem: String| failures.fail(p, v, problem);
        if v == Value::Illegal {
            fail(p, v, "a legal position has no value (P)".into());
            return Ok(());
        }
        let moves = successors(p);
        let mut children = Vec::with_capacity(moves.len());
        for (mv, q) in &moves {
            let value = lookup.value(q, self)?;
            if value == Value::Illegal {
                fail(
                    p,
                    v,
                    format!("the move {mv} leads to a legal position with no value (P)"),
                );
                return Ok(());
            }
            children.push((mv, value));
        }
        let stm = retro_rules::position::to_move(p);
        let checkmate = moves.is_empty() && in_check(stm, p);
        let stalemate = moves.is_empty() && !in_check(stm, p);
        let loss_depths = children.iter().filter_map(|(_, c)| match c {
            Value::Loss(k) => Some(*k),
            _ => None,
        });
        let quickest_loss = loss_depths.clone().min();
        if checkmate != (v == Value::Loss(0)) {
            fail(
                p,
                v,
                format!("checkmate is {checkmate} but the value is {v:?} (C)"),
            );
            return Ok(());
        }
        match v {
            Value::Loss(0) | Value::Illegal => {}
            Value::Win(n) => {
                if quickest_loss != Some(n - 1) {
                    let what = match quickest_loss {
                        None => "no move leads to a loss".to_string(),
                        Some(k) => format!("the quickest move to a loss reaches a loss in {k}"),
                    };
                    fail(
                        p,
                        v,
                        format!(
                            "a win in {n} needs a move to a loss in {}, but {what} (W)",
                            n - 1
                        ),
                    );
                }
            }
            Value::Loss(n) => {
                let deepest_win = children.iter().map(|(_, c)| match c {
                    Value::Win(k) => Some(*k),
                    _ => None,
                });
                let all_wins: Option<Vec<u32>> = deepest_win.collect();
                match all_wins {
                    _ if children.is_empty() => fail(
                        p,
                        v,
                        format!("a loss in {n} needs a move, but there is none (L)"),
                    ),
                    None => {
                        let (mv, c) = children
                            .iter()
                            .find(|(_, c)| !matches!(c, Value::Win(_)))
                            .expect("some move is not to a win");
                        fail(p, v, format!("a loss in {n} needs every move to reach a win, but {mv} reaches {c:?} (L)"));
                    }
                    Some(depths) => {
                        let max = depths.iter().copied().max().unwrap_or(0);
                        if max != n - 1 {
                            fail(p, v, format!("a loss in {n} needs the longest move to reach a win in {}, but it reaches one in {max} (L)", n - 1));
                        }
                    }
                }
            }
            Value::Draw => {
                if let Some(k) = quickest_loss {
                    fail(p, v, format!("a draw cannot have a move to a loss, but one reaches a loss in {k} (D)"));
                } else if !stalemate && !children.iter().any(|(_, c)| *c == Value::Draw) {
                    fail(p, v, "a draw needs stalemate or a move to a draw, but every move reaches a win (D)".into());
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
