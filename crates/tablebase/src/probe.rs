//! Probing: the value of a position, its moves rated best first, and the best line.
//!
//! Owns: [`Tablebase`], [`RatedMove`], [`ProbeError`].

use crate::source::{BlockCache, Source};
use retro_engine::notation::notated_moves;
use retro_engine::{Geometry, Indexer, Material, Position, TablePosition};
use retro_format::{exits, FormatError, TableKind, Value};
use retro_rules::{Board, Side};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Why a position cannot be probed.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// No table file for the material.
    #[error("no {}table for {material} on {board} in {}: build it with `retro gen {material} --board {board}{}`", kind_words(*.kind), dir.display(), kinds_flag(*.kind))]
    NoTable {
        /// The material (canonical).
        material: Material,
        /// The kind of table looked for.
        kind: TableKind,
        /// The board.
        board: Board,
        /// The directory searched.
        dir: PathBuf,
    },
    /// The table file is damaged or foreign.
    #[error(transparent)]
    Format(#[from] FormatError),
    /// The table's header does not describe this material and board.
    #[error("{}: the file holds {found}, not {expected}; build it again with `retro gen`", path.display())]
    WrongTable {
        /// The file.
        path: PathBuf,
        /// What it should hold.
        expected: String,
        /// What it holds.
        found: String,
    },
    /// The position has more men than tables are built for.
    #[error("no tables exist for {material}: {reason}")]
    Unsupported {
        /// The material.
        material: Material,
        /// Why.
        reason: String,
    },
    /// A FEN that is malformed, not a legal position, or not one the engine holds.
    #[error(transparent)]
    Fen(#[from] retro_engine::fen::FenError),
    /// A position on another board than the tablebase's.
    #[error("the position '{fen}' is on {found}; these tables are for {expected}")]
    WrongBoard {
        /// The text given.
        fen: String,
        /// The tablebase's board.
        expected: Board,
        /// The position's board.
        found: Board,
    },
    /// The table has no value for a legal position.
    #[error("the table of {material} has no value for the legal position {fen}; the file is inconsistent — rebuild and verify it")]
    Inconsistent {
        /// The material.
        material: Material,
        /// The position.
        fen: String,
    },
}

/// How [`ProbeError::NoTable`] names a kind: nothing for DTM, `DTZ50 ` for the others.
fn kind_words(kind: TableKind) -> String {
    match kind {
        TableKind::Dtm => String::new(),
        kind => format!("{kind} "),
    }
}

/// The `--kinds` flag that builds a kind's table, where the default would build more.
fn kinds_flag(kind: TableKind) -> &'static str {
    match kind {
        TableKind::Dtm => "",
        _ => " --kinds fifty",
    }
}

/// An opened table, its index, and its number in the block cache.
pub(crate) struct Loaded {
    pub(crate) source: Source,
    pub(crate) indexer: Indexer,
    id: u32,
}

/// The tables of one board in one directory, raw (`.rtb`) or packed (`.rtbz`), opened on
/// demand and kept open; blocks of packed tables decoded once are kept in a cache of a size the
/// caller sets ([`Tablebase::with_cache_bytes`]). `Send + Sync`: one tablebase serves every
/// thread.
pub struct Tablebase {
    geo: Geometry,
    dir: PathBuf,
    open: Mutex<HashMap<(Material, TableKind), Arc<Loaded>>>,
    cache: BlockCache,
}

/// The block cache of a [`Tablebase`] unless the caller sets another size: 64 MiB.
pub const DEFAULT_CACHE_BYTES: u64 = 64 << 20;

/// A legal move with the value of the position it leads to.
#[derive(Debug, Clone)]
pub struct RatedMove {
    /// SAN.
    pub san: String,
    /// UCI.
    pub uci: String,
    /// The position after the move.
    pub after: Position,
    /// Its value for the side to move after the move.
    pub value: Value,
    /// Whether the move checkmates.
    pub checkmate: bool,
    /// Whether the move stalemates.
    pub stalemate: bool,
}

impl RatedMove {
    /// Sort key, best first for the side making the move: quickest win, then draws, then the
    /// longest resistance.
    fn key(&self) -> (u8, i64) {
        match self.value {
            Value::Loss(n) => (0, i64::from(n)),
            Value::Draw | Value::Illegal => (1, 0),
            Value::Win(n) => (2, -i64::from(n)),
        }
    }
}

impl Tablebase {
    /// The tables of `board` in `dir`, with a block cache of [`DEFAULT_CACHE_BYTES`].
    pub fn new(board: Board, dir: impl Into<PathBuf>) -> Tablebase {
        // Packed files leave illegal positions out; whole-table reads put them back.
        retro_format::install_restorer(retro_gen::restore_packed);
        Tablebase {
            geo: Geometry::new(board),
            dir: dir.into(),
            open: Mutex::new(HashMap::new()),
            cache: BlockCache::new(DEFAULT_CACHE_BYTES),
        }
    }

    /// The same tablebase with a block cache of at most `bytes` bytes of decoded blocks (0:
    /// none, every probe of a packed table decodes its block).
    pub fn with_cache_bytes(mut self, bytes: u64) -> Tablebase {
        self.cache = BlockCache::new(bytes);
        self
    }

    /// The block cache.
    pub fn cache(&self) -> &BlockCache {
        &self.cache
    }

    /// The board.
    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of `material`'s table (canonical material): the raw file if there is one,
    /// else the packed one if there is one, else the raw file's path.
    pub fn path_of(&self, material: Material) -> PathBuf {
        self.kind_path_of(TableKind::Dtm, material)
    }

    /// [`Tablebase::path_of`] for the table of `kind`.
    pub fn kind_path_of(&self, kind: TableKind, material: Material) -> PathBuf {
        let b = self.geo.board();
        retro_format::kind_table_path(&self.dir, kind, &material.to_string(), b.files(), b.ranks())
    }

    pub(crate) fn load(&self, material: Material) -> Result<Arc<Loaded>, ProbeError> {
        self.load_kind(TableKind::Dtm, material)
    }

    /// The table of `kind` of a canonical material, opened once and kept.
    pub(crate) fn load_kind(
        &self,
        kind: TableKind,
        material: Material,
    ) -> Result<Arc<Loaded>, ProbeError> {
        if let Some(t) = self
            .open
            .lock()
            .expect("no panics while locked")
            .get(&(material, kind))
        {
            return Ok(t.clone());
        }
        let unsupported = |reason: String| ProbeError::Unsupported { material, reason };
        let path = self.kind_path_of(kind, material);
        // The file first: a missing table (which a search may ask for at every probe) is
        // found without building an indexer.
        let source = match Source::open(&path, kind) {
            Ok(t) => t,
            Err(FormatError::Missing { .. }) if material.len() > 6 => {
                return Err(unsupported(
                    "`retro gen` builds tables of up to 6 men".into(),
                ))
            }
            Err(FormatError::Missing { .. }) => {
                return Err(ProbeError::NoTable {
                    material,
                    kind,
                    board: self.geo.board(),
                    dir: self.dir.clone(),
                })
            }
            Err(e) => return Err(e.into()),
        };
        let indexer = Indexer::new(&self.geo, material).map_err(|e| unsupported(e.to_string()))?;
        let h = source.header();
        let board = self.geo.board();
        let expected = format!(
            "{material} on {board}, index scheme {}, {} entries per side",
            retro_format::INDEX_SCHEME,
            indexer.size()
        );
        let found = format!(
            "{} on {}x{}, index scheme {}, {} entries per side",
            h.material, h.files, h.ranks, h.index_scheme, h.entries_per_side
        );
        if expected != found {
            return Err(ProbeError::WrongTable {
                path,
                expected,
                found,
            });
        }
        let mut open = self.open.lock().expect("no panics while locked");
        // Another thread may have opened it meanwhile: the first one opened is kept.
        let id = open.len() as u32;
        let loaded = open
            .entry((material, kind))
            .or_insert_with(|| {
                Arc::new(Loaded {
                    source,
                    indexer,
                    id,
                })
            })
            .clone();
        Ok(loaded)
    }

    /// Opens (and checks) the table of a canonical material.
    pub fn table(&self, material: Material) -> Result<(), ProbeError> {
        self.load(material).map(|_| ())
    }

    /// The position of a FEN (checked legal, on this tablebase's board), for [`Tablebase::value`],
    /// [`Tablebase::rated_moves`], [`Tablebase::best_move`] and [`Tablebase::best_line`].
    pub fn position_from_fen(&self, fen: &str) -> Result<Position, ProbeError> {
        let natural = retro_engine::fen::natural_of_fen(fen)?;
        if natural.board() != self.geo.board() {
            return Err(ProbeError::WrongBoard {
                fen: fen.to_string(),
                expected: self.geo.board(),
                found: natural.board(),
            });
        }
        Ok(retro_engine::fen::engine_of_natural(
            &self.geo, fen, &natural,
        )?)
    }

    /// The value of a position given in FEN, for its side to move.
    pub fn probe_fen(&self, fen: &str) -> Result<Value, ProbeError> {
        self.value(&self.position_from_fen(fen)?)
    }

    /// The value of a legal position for its side to move.
    pub fn value<const N: usize>(&self, p: &Position<N>) -> Result<Value, ProbeError> {
        self.code(TableKind::Dtm, p).map(Value::from_code)
    }

    /// The entry code of a legal position, for its side to move, in its material's table of
    /// `kind`; an error if the table holds no value for it.
    pub(crate) fn code<const N: usize>(
        &self,
        kind: TableKind,
        p: &Position<N>,
    ) -> Result<u32, ProbeError> {
        let geo = &self.geo;
        let small: TablePosition = p.resized().map_err(|_| ProbeError::Unsupported {
            material: p.material(),
            reason: "too many men".into(),
        })?;
        let (canonical, flipped) = small.material().canonical();
        let loaded = self.load_kind(kind, canonical)?;
        let q = if flipped {
            small.colour_flipped(geo)
        } else {
            small
        };
        let inconsistent = || ProbeError::Inconsistent {
            material: canonical,
            fen: p.to_natural(geo).fen(),
        };
        let index = loaded.indexer.index(geo, &q).ok_or_else(inconsistent)?;
        let white = q.side_to_move() == Side::White;
        if loaded.source.left_out() == Some(white) {
            let rule_plies = u32::from(loaded.source.header().rule_plies);
            return self.searched(kind, &q, rule_plies);
        }
        let stored = loaded.source.code(white, index, &self.cache, loaded.id)?;
        let code = match loaded.source.exits_decide() && !kind.stored_is_final(stored) {
            true => {
                let rule_plies = u32::from(loaded.source.header().rule_plies);
                kind.with_exit(stored, self.decided_code(kind, &q, rule_plies)?)
            }
            false => stored,
        };
        match code {
            0 => Err(inconsistent()),
            code => Ok(code),
        }
    }

    /// The code that decides a legal position's entry in a packed file whose exits decide
    /// ([`retro_format::exits`]): for DTM and WDL50 its best exit's ([`Tablebase::best_exit`]),
    /// for DTZ50 what its WDL50 class and zeroing moves decide
    /// ([`retro_format::exits::dtz50_decided`]), the rule allowing `rule_plies`.
    fn decided_code<const N: usize>(
        &self,
        kind: TableKind,
        p: &Position<N>,
        rule_plies: u32,
    ) -> Result<u32, ProbeError> {
        if kind != TableKind::Dtz50 {
            return self.best_exit(kind, p);
        }
        let class = self.code(TableKind::Wdl50, p)?;
        let mut zeroing = 0;
        if exits::dtz50_needs_zeroing(class) {
            let geo = &self.geo;
            let mut moves = Vec::new();
            p.for_each_zeroing_move(geo, |mv| moves.push(mv));
            for mv in moves {
                let child = self.code(TableKind::Wdl50, &p.play(geo, &mv))?;
                if TableKind::Wdl50.through_exit(child) == class {
                    zeroing = class;
                    break;
                }
            }
        }
        Ok(exits::dtz50_decided(class, zeroing, rule_plies))
    }

    /// The code in `kind`'s table of a legal position whose side to move its packed file
    /// leaves out, by a one-ply search ([`exits::SideSearch`]) guided by its WDL50 class
    /// (which DTM's search reads where that table is there: a cursed win is a DTM win, a
    /// blessed loss a DTM loss): a drawn position's entry is the draw; otherwise each move
    /// counts by the entry of the position it leads to, a ply further — in DTZ50 a zeroing
    /// move by the WDL50 class it reaches (those first: a win in one ply ends the search); in
    /// DTM at a win only the moves into a loss, found by their WDL50 class, as no other move
    /// can be the quickest win.
    fn searched<const N: usize>(
        &self,
        kind: TableKind,
        p: &Position<N>,
        rule_plies: u32,
    ) -> Result<u32, ProbeError> {
        use retro_format::Wdl;
        let class = match kind {
            TableKind::Dtz50 => Some(self.code(TableKind::Wdl50, p)?),
            _ => self.code(TableKind::Wdl50, p).ok(),
        };
        let class = class.and_then(Wdl::from_code);
        if class == Some(Wdl::Draw) {
            return Ok(match kind {
                TableKind::Dtz50 => retro_format::Dtz::Draw.code(),
                _ => Value::Draw.code(),
            });
        }
        let geo = &self.geo;
        let zeroing_counts = kind == TableKind::Dtz50;
        let only_losses = !zeroing_counts && matches!(class, Some(Wdl::Win | Wdl::CursedWin));
        let mut moves = Vec::new();
        p.for_each_legal_move(geo, None, |mv| moves.push(mv));
        if zeroing_counts {
            moves.sort_by_key(|mv| !mv.zeroes());
        }
        let mut search = exits::SideSearch::new(kind, rule_plies);
        for mv in moves {
            if search.settled() {
                break;
            }
            let child = p.play(geo, &mv);
            if zeroing_counts && mv.zeroes() {
                search.add_zeroing(self.code(TableKind::Wdl50, &child)?);
                continue;
            }
            if only_losses {
                let reached = Wdl::from_code(self.code(TableKind::Wdl50, &child)?);
                if !matches!(reached, Some(Wdl::Loss | Wdl::BlessedLoss)) {
                    continue;
                }
            }
            search.add_child(self.code(kind, &child)?);
        }
        search
            .code(p.in_check(geo, p.side_to_move()))
            .filter(|&code| !only_losses || matches!(Value::from_code(code), Value::Win(_)))
            .ok_or_else(|| ProbeError::Inconsistent {
                material: p.material().canonical().0,
                fen: p.to_natural(geo).fen(),
            })
    }

    /// The code, for the side to move of a legal position, of its best exit (a capture or a
    /// promotion) in the tables of `kind` it leads into; 0 if it has none. A packed file that
    /// stores any value no better where an exit decides is read through it
    /// ([`retro_format::exits`]).
    fn best_exit<const N: usize>(
        &self,
        kind: TableKind,
        p: &Position<N>,
    ) -> Result<u32, ProbeError> {
        let geo = &self.geo;
        let mut exits = Vec::new();
        p.for_each_exit(geo, |mv| exits.push(mv));
        let mut best = 0;
        for mv in exits {
            let code = kind.through_exit(self.code(kind, &p.play(geo, &mv))?);
            best = kind.better_code(best, code);
            if kind.nothing_better(best) {
                break;
            }
        }
        Ok(best)
    }

    /// Every legal move of `p` with the value it leads to, best first for the side to move
    /// (ties in SAN order).
    pub fn rated_moves(&self, p: &Position) -> Result<Vec<RatedMove>, ProbeError> {
        let geo = &self.geo;
        let mut moves = Vec::new();
        for m in notated_moves(geo, p) {
            let value = self.value(&m.after)?;
            let has_moves = m.after.has_legal_move(geo);
            let check = m.after.in_check(geo, m.after.side_to_move());
            moves.push(RatedMove {
                san: m.san,
                uci: m.uci,
                after: m.after,
                value,
                checkmate: check && !has_moves,
                stalemate: !check && !has_moves,
            });
        }
        moves.sort_by(|a, b| a.key().cmp(&b.key()).then_with(|| a.san.cmp(&b.san)));
        Ok(moves)
    }

    /// The best move of `p` with the value it leads to (quickest win, else a draw, else the
    /// longest resistance; ties in SAN order), or `None` if `p` has no legal move.
    pub fn best_move(&self, p: &Position) -> Result<Option<RatedMove>, ProbeError> {
        Ok(self.rated_moves(p)?.into_iter().next())
    }

    /// The best line from `p`: the winner mates as fast as possible, the loser resists as long
    /// as possible, until mate. Empty for a draw (there is no forced mate to follow) or a
    /// position already mated.
    pub fn best_line(&self, p: &Position) -> Result<Vec<RatedMove>, ProbeError> {
        let mut line = Vec::new();
        let mut current = *p;
        if !matches!(self.value(&current)?, Value::Win(_) | Value::Loss(_)) {
            return Ok(line);
        }
        while let Some(best) = self.rated_moves(&current)?.into_iter().next() {
            current = best.after;
            let done = best.checkmate;
            line.push(best);
            if done {
                break;
            }
        }
        Ok(line)
    }
}

/// The value in words for `stm`: "White to move: mate in 16", "Black to move: loses, mated in
/// 15", "White to move: draw", "Black is checkmated".
pub fn describe(stm: Side, value: Value) -> String {
    match value {
        Value::Win(n) => format!("{stm} to move: mate in {} ({n} plies)", n.div_ceil(2)),
        Value::Loss(0) => format!("{stm} to move: is checkmated"),
        Value::Loss(n) => format!("{stm} to move: loses, mated in {} ({n} plies)", n / 2),
        Value::Draw => format!("{stm} to move: draw"),
        Value::Illegal => format!("{stm} to move: not a legal position"),
    }
}

/// Lichess's category of a value for the side to move: `win`, `draw` or `loss`.
pub fn category(value: Value) -> &'static str {
    match value {
        Value::Win(_) => "win",
        Value::Loss(_) => "loss",
        _ => "draw",
    }
}

/// Lichess's signed depth to mate in plies: positive when the side to move wins, negative when
/// it loses (0 when checkmated), none for a draw.
pub fn signed_dtm(value: Value) -> Option<i64> {
    match value {
        Value::Win(n) => Some(i64::from(n)),
        Value::Loss(n) => Some(-i64::from(n)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_and_signs() {
        assert_eq!(
            describe(Side::White, Value::Win(31)),
            "White to move: mate in 16 (31 plies)"
        );
        assert_eq!(
            describe(Side::Black, Value::Loss(30)),
            "Black to move: loses, mated in 15 (30 plies)"
        );
        assert_eq!(describe(Side::Black, Value::Draw), "Black to move: draw");
        assert_eq!(signed_dtm(Value::Loss(30)), Some(-30));
        assert_eq!(signed_dtm(Value::Draw), None);
        assert_eq!(category(Value::Win(1)), "win");
    }
}
