//! The fifty-move core: DTZ50 and WDL50 tables by retrograde analysis over the engine's index,
//! one 16-bit word per position and side to move, on any board.
//!
//! Owns: building a material's DTZ50 table and its WDL50 companion ([`Builder`] calls it for
//! [`crate::Metric::Fifty`]), from the DTZ50 tables its captures and promotions lead into.
//! Must never: read a DTM table (the rule's values follow from the rule's tables alone), or be
//! trusted: `retro verify` proves every table it writes from the natural model.
//!
//! # What is computed
//!
//! The values of `retro_rules::fifty::Zeroing`, the phase game whose values are DTZ50: a move
//! that is not zeroing (a piece's move that captures nothing) stays in the phase; a zeroing
//! move — a capture, a pawn move, a promotion — ends it with an outcome for the mover fixed by
//! the class of the position it reaches, for that position's side to move: into a loss, a win
//! in 1 ply; into a blessed loss, a win in `N + 1`; a draw; into a cursed win, a loss in
//! `N + 1`; into a win, a loss in 1 (`N`, the rule's plies, is 100). Checkmate is a loss in 0.
//! The class of a DTZ50 value is a win within `N` plies, a cursed win beyond, and likewise for
//! losses (`retro_rules::fifty::class_of`).
//!
//! # How
//!
//! * **Levels.** A pawn move is irreversible: it advances a pawn. A position's *level* is how
//!   far its pawns have come (each White pawn's rank, each Black pawn's ranks from the top,
//!   added up), and a pawn move that captures nothing stays in the table and raises the level.
//!   The levels are solved from the highest down, so that every zeroing move reads a value
//!   already final — in a smaller table after a capture or a promotion, at a higher level
//!   after a push. A table without pawns is one level.
//! * **Init**, a level at a time: each legal position's moves are generated. A zeroing move's
//!   outcome is read at once; the best of them (for the mover) is kept in the position's word
//!   as a *kind*, and the moves that stay are counted, each weighted by the size of its
//!   child's stabilizer (as in [`crate::reference`], so that a counter counts what the
//!   retrograde step subtracts). Checkmates are losses in 0, stalemates draws; a zeroing move
//!   into a loss is a win in 1; with no moves that stay, the best zeroing move decides.
//! * **Depth by depth**, `d = 0, 1, …`, the positions decided at `d` are un-moved by the moves
//!   that stay ([`Retractions::PIECES`]): the parents of a loss in `d` still pending become
//!   wins in `d + 1`; the parents of a win in `d` have their counters lowered, and one whose
//!   counter reaches zero — every move that stays reaches a win for the opponent — is lost in
//!   `d + 1`, or in `N + 1` if a zeroing move into a cursed win holds out that long. At
//!   `d = N + 1` the positions still pending with a zeroing move into a blessed loss become
//!   wins in `N + 1`. Unlike depth to mate, wins and losses come at every depth.
//! * At the end of a level, the positions still pending are draws.

use crate::pending::{kind_of, pending, take, Taken, COUNT_MASK, PENDING};
use crate::subtables::Subtables;
use crate::{BuildReport, Builder, CoreKind, GenError, Metric, Observer, Phase};
use rayon::prelude::*;
use retro_engine::{Geometry, Indexer, Material, Retractions, TablePosition, TABLE_MEN};
use retro_format::{Dtz, Header, TableKind, TableWriter, Wdl};
use retro_rules::{Piece, Side};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

const NO_POSITION: u16 = 0;
/// No zeroing move, or none better than a loss in 1: lost once every move that stays is.
const PLAIN: u16 = 0;
/// A zeroing move into a draw: never lost.
const ESCAPE: u16 = 1;
/// A zeroing move into a blessed loss: won in `N + 1` at the latest, never lost.
const LATE_WIN: u16 = 2;
/// The best zeroing move reaches a cursed win: lost in `N + 1` at the earliest.
const LATE_LOSS: u16 = 3;
/// The longest distance a work word holds (its code below [`PENDING`]).
const MAX_PLIES: u32 = (PENDING as u32 - 4) / 2;
/// A level no position has (an index that is not a legal position).
const NO_LEVEL: u8 = u8::MAX;

/// The work word of a final value.
fn decided(value: Dtz) -> u16 {
    value.code() as u16
}

/// The value a work word leaves in the file: positions still pending are draws.
fn final_value(state: u16) -> Dtz {
    match state {
        NO_POSITION => Dtz::Illegal,
        s if s & PENDING != 0 => Dtz::Draw,
        s => Dtz::from_code(u32::from(s)),
    }
}

/// How far `p`'s pawns have advanced: every pawn move that stays in the table raises it.
fn level(geo: &Geometry, p: &TablePosition) -> u8 {
    let ranks = geo.ranks();
    p.men()
        .iter()
        .filter(|m| m.piece == Piece::Pawn)
        .map(|m| match m.side {
            Side::White => geo.rank(m.sq),
            Side::Black => ranks - 1 - geo.rank(m.sq),
        })
        .sum()
}

/// The best outcome, for the mover, among a position's zeroing moves.
#[derive(Default, Clone, Copy)]
struct Exits {
    win: Option<u32>,
    draw: bool,
    loss: Option<u32>,
}

impl Exits {
    fn add(&mut self, outcome: Dtz) {
        match outcome {
            Dtz::Win(n) => self.win = Some(self.win.map_or(n, |w| w.min(n))),
            Dtz::Draw => self.draw = true,
            Dtz::Loss(n) => self.loss = Some(self.loss.map_or(n, |l| l.max(n))),
            Dtz::Illegal => unreachable!("a move reaches a legal position"),
        }
    }
}

struct Work<'a> {
    geo: &'a Geometry,
    indexer: &'a Indexer,
    subtables: &'a Subtables,
    rule: u32,
    states: &'a [Vec<AtomicU16>; 2],
}

/// Positions decided, by the depth at which their parents are to be updated, and side.
type Frontiers = BTreeMap<u32, [Vec<u64>; 2]>;

impl Work<'_> {
    fn state(&self, s: usize, i: u64) -> &AtomicU16 {
        &self.states[s][i as usize]
    }

    /// The outcome, for the mover, of a zeroing move into a position of class `reached`.
    fn exit_outcome(&self, reached: Wdl) -> Dtz {
        match reached {
            Wdl::Loss => Dtz::Win(1),
            Wdl::BlessedLoss => Dtz::Win(self.rule + 1),
            Wdl::Draw => Dtz::Draw,
            Wdl::CursedWin => Dtz::Loss(self.rule + 1),
            Wdl::Win => Dtz::Loss(1),
            Wdl::Illegal => unreachable!("a move reaches a legal position"),
        }
    }

    /// The class of the position a zeroing move reaches: from a smaller table after a capture
    /// or a promotion, from this table's final word at a higher level after a push.
    fn reached_class(&self, child: &TablePosition, leaves: bool) -> Result<Wdl, GenError> {
        let code = if leaves {
            self.subtables.code(self.geo, child)?
        } else {
            let j = self.index_of(child)?;
            let s = usize::from(child.side_to_move() == Side::Black);
            let state = self.state(s, j).load(Ordering::Relaxed);
            if state & PENDING != 0 || state == NO_POSITION {
                return Err(self.inconsistent(child));
            }
            u32::from(state)
        };
        Ok(Dtz::from_code(code).class(self.rule))
    }

    fn index_of(&self, p: &TablePosition) -> Result<u64, GenError> {
        self.indexer
            .index(self.geo, p)
            .ok_or_else(|| self.inconsistent(p))
    }

    fn inconsistent(&self, p: &TablePosition) -> GenError {
        GenError::Inconsistent {
            material: self.indexer.material().to_string(),
            fen: p.to_natural(self.geo).fen(),
        }
    }

    /// The weight of a position in the counters (a move's child, a retraction's parent): its
    /// stabilizer's size, 1 when only the identity fixes its kings.
    fn weight(&self, child: &TablePosition) -> u32 {
        let kings = (child.king(Side::White), child.king(Side::Black));
        match kings {
            (Some(w), Some(b)) if self.indexer.kings_fixed_by_identity_only(w, b) => 1,
            _ => self.indexer.stabilizer_size(self.geo, child),
        }
    }

    /// The first word of `p` (`stm` to move), and the depth at which it is to be un-moved if
    /// it is decided now or later without a pass deciding it (a zeroing move's outcome).
    fn classify(&self, p: &TablePosition) -> Result<(u16, Option<u32>), GenError> {
        let geo = self.geo;
        let (mut weight, mut moves) = (0u32, 0u32);
        let mut exits = Exits::default();
        let mut error = None;
        p.for_each_legal_move(geo, None, |mv| {
            moves += 1;
            let leaves = mv.captured.is_some() || mv.promotion.is_some();
            if !leaves && mv.piece != Piece::Pawn {
                weight += self.weight(&p.play(geo, &mv));
                return;
            }
            match self.reached_class(&p.play(geo, &mv), leaves) {
                Ok(class) => exits.add(self.exit_outcome(class)),
                Err(e) => error = Some(e),
            }
        });
        if let Some(e) = error {
            return Err(e);
        }
        if moves == 0 {
            return Ok(match p.in_check(geo, p.side_to_move()) {
                true => (decided(Dtz::Loss(0)), Some(0)),
                false => (decided(Dtz::Draw), None),
            });
        }
        if weight > u32::from(COUNT_MASK) {
            return Err(GenError::Unsupported {
                material: self.indexer.material().to_string(),
                reason: "too many moves in one position".into(),
            });
        }
        let count = weight as u16;
        Ok(match exits {
            Exits { win: Some(1), .. } => (decided(Dtz::Win(1)), Some(1)),
            Exits { win: Some(_), .. } => (pending(LATE_WIN, count), None),
            Exits { draw: true, .. } if count == 0 => (decided(Dtz::Draw), None),
            Exits { draw: true, .. } => (pending(ESCAPE, count), None),
            Exits { loss: Some(n), .. } if count == 0 => (decided(Dtz::Loss(n)), Some(n)),
            Exits { loss: Some(n), .. } if n > 1 => (pending(LATE_LOSS, count), None),
            _ => (pending(PLAIN, count), None),
        })
    }

    /// The parents, by a move that stays, of index `i` with `stm` to move: their indices and,
    /// when `weighted`, weights (0 otherwise).
    fn parents_of(
        &self,
        i: u64,
        stm: Side,
        weighted: bool,
        mut visit: impl FnMut(u64, u16),
    ) -> Result<(), GenError> {
        let p = self
            .indexer
            .position::<TABLE_MEN>(self.geo, i, stm)
            .ok_or_else(|| GenError::Inconsistent {
                material: self.indexer.material().to_string(),
                fen: format!("index {i}"),
            })?;
        let mut error = None;
        p.for_each_predecessor(self.geo, Retractions::PIECES, |q| match self.index_of(&q) {
            Ok(j) => visit(j, if weighted { self.weight(&q) as u16 } else { 0 }),
            Err(e) => error = Some(e),
        });
        error.map_or(Ok(()), Err)
    }

    /// A parent of a loss in `depth` (side `s`), still pending, becomes a win in `depth + 1`.
    fn mark_win(&self, s: usize, j: u64, depth: u32, found: &mut Vec<u64>) {
        let state = self.state(s, j);
        let mut old = state.load(Ordering::Relaxed);
        while old & PENDING != 0 {
            match state.compare_exchange_weak(
                old,
                decided(Dtz::Win(depth + 1)),
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    found.push(j);
                    return;
                }
                Err(now) => old = now,
            }
        }
    }

    /// A parent of a win in `depth` (side `s`): its counter drops by `weight`; at zero it is
    /// lost, in `depth + 1` or, with a zeroing move into a cursed win, in `N + 1`. Returns the
    /// depth at which the loss is to be un-moved, if it is found now.
    fn subtract(&self, s: usize, j: u64, weight: u16, depth: u32) -> Result<Option<u32>, GenError> {
        let state = self.state(s, j);
        let kind = match take(state, weight, |kind| matches!(kind, ESCAPE | LATE_WIN)) {
            Taken::Untouched | Taken::Counted => return Ok(None),
            Taken::Underflow => {
                return Err(GenError::Inconsistent {
                    material: self.indexer.material().to_string(),
                    fen: format!("index {j}: a counter below zero"),
                })
            }
            Taken::Emptied { kind } => kind,
        };
        let plies = match kind {
            LATE_LOSS => (depth + 1).max(self.rule + 1),
            _ => depth + 1,
        };
        state.store(decided(Dtz::Loss(plies)), Ordering::Relaxed);
        Ok(Some(plies))
    }
}

impl Builder {
    /// Builds the DTZ50 table of `material` and its WDL50 companion with the fifty-move core,
    /// from the DTZ50 tables its exits lead into.
    pub(crate) fn build_fifty(
        &self,
        material: Material,
        observer: &dyn Observer,
    ) -> Result<BuildReport, GenError> {
        let start = Instant::now();
        let geo = &self.geo;
        let rule = self.fifty_rule;
        let unsupported = |reason: String| GenError::Unsupported {
            material: material.to_string(),
            reason,
        };
        let indexer = self.canonical_indexer(material)?;
        let size = indexer.size();
        let entries = usize::try_from(size)
            .map_err(|_| unsupported("too many positions for this machine".into()))?;
        let subtables = Subtables::open(self, material, TableKind::Dtz50)?;
        let new_states = || {
            let mut v = Vec::with_capacity(entries);
            v.resize_with(entries, || AtomicU16::new(NO_POSITION));
            v
        };
        let states = [new_states(), new_states()];
        let work = Work {
            geo,
            indexer: &indexer,
            subtables: &subtables,
            rule,
            states: &states,
        };
        let name = material.to_string();
        let fail: Mutex<Option<GenError>> = Mutex::new(None);
        let record = |e: GenError| {
            fail.lock()
                .expect("no panics while locked")
                .get_or_insert(e);
        };
        let failed = || fail.lock().expect("no panics while locked").take();

        // Each position's level; a table without pawns is one level.
        const CHUNK: u64 = 1 << 14;
        let chunks: Vec<u64> = (0..size.div_ceil(CHUNK)).collect();
        let levels: [Vec<u8>; 2] = Side::ALL.map(|stm| {
            let mut levels = vec![NO_LEVEL; entries];
            levels
                .par_chunks_mut(CHUNK as usize)
                .enumerate()
                .for_each(|(chunk, out)| {
                    let begin = chunk as u64 * CHUNK;
                    let end = (begin + CHUNK).min(size);
                    indexer.for_each_position::<TABLE_MEN>(geo, begin..end, stm, |i, p| {
                        if let Some(p) = p.filter(|p| p.is_legal(geo)) {
                            out[(i - begin) as usize] = level(geo, &p);
                        }
                    });
                });
            levels
        });
        let mut present: Vec<u8> = levels
            .iter()
            .flat_map(|side| {
                side.par_iter()
                    .copied()
                    .filter(|&l| l != NO_LEVEL)
                    .collect::<std::collections::BTreeSet<u8>>()
            })
            .collect();
        present.sort_unstable();
        present.dedup();
        let legal: u64 = levels
            .iter()
            .map(|side| side.par_iter().filter(|&&l| l != NO_LEVEL).count() as u64)
            .sum();

        observer.phase(&name, Phase::Init, 2 * size);
        let mut init_seconds = start.elapsed().as_secs_f64();
        let mut retrograde_seconds = 0.0;
        let mut depths = 0;
        for &lvl in present.iter().rev() {
            let began = Instant::now();
            // Init of the level.
            let frontiers: Mutex<Frontiers> = Mutex::new(BTreeMap::new());
            let late_wins = AtomicU64::new(0);
            for (s, stm) in Side::ALL.into_iter().enumerate() {
                chunks.par_iter().for_each(|&chunk| {
                    let begin = chunk * CHUNK;
                    let end = (begin + CHUNK).min(size);
                    let mut due: Vec<(u32, u64)> = Vec::new();
                    let mut late = 0;
                    for i in begin..end {
                        if levels[s][i as usize] != lvl {
                            continue;
                        }
                        let Some(p) = indexer.position::<TABLE_MEN>(geo, i, stm) else {
                            record(work.inconsistent_index(i));
                            continue;
                        };
                        match work.classify(&p) {
                            Ok((state, at)) => {
                                late +=
                                    u64::from(state & PENDING != 0 && kind_of(state) == LATE_WIN);
                                work.state(s, i).store(state, Ordering::Relaxed);
                                if let Some(depth) = at {
                                    due.push((depth, i));
                                }
                            }
                            Err(e) => record(e),
                        }
                    }
                    late_wins.fetch_add(late, Ordering::Relaxed);
                    if !due.is_empty() {
                        let mut frontiers = frontiers.lock().expect("no panics while locked");
                        for (depth, i) in due {
                            frontiers.entry(depth).or_default()[s].push(i);
                        }
                    }
                    observer.progressed(end - begin);
                });
            }
            if let Some(e) = failed() {
                return Err(e);
            }
            let mut frontiers = frontiers.into_inner().expect("no panics while locked");
            let mut late_wins = late_wins.into_inner();
            init_seconds += began.elapsed().as_secs_f64();
            let began = Instant::now();
            observer.phase(&name, Phase::Retrograde, legal);

            // Depth by depth.
            let mut depth: u32 = 0;
            loop {
                if depth == rule + 1 && late_wins > 0 {
                    // A zeroing move into a blessed loss wins in N + 1, if nothing sooner did.
                    let target = decided(Dtz::Win(rule + 1));
                    for (s, side) in states.iter().enumerate() {
                        let found: Vec<u64> = (0..entries)
                            .into_par_iter()
                            .filter(|&i| {
                                let old = side[i].load(Ordering::Relaxed);
                                old & PENDING != 0
                                    && kind_of(old) == LATE_WIN
                                    && side[i]
                                        .compare_exchange(
                                            old,
                                            target,
                                            Ordering::Relaxed,
                                            Ordering::Relaxed,
                                        )
                                        .is_ok()
                            })
                            .map(|i| i as u64)
                            .collect();
                        frontiers.entry(depth).or_default()[s].extend(found);
                    }
                    late_wins = 0;
                }
                let Some(frontier) = frontiers.remove(&depth) else {
                    if frontiers.is_empty() && (late_wins == 0 || depth > rule + 1) {
                        break;
                    }
                    observer.depth_passed(depth, 0);
                    depth += 1;
                    continue;
                };
                if depth >= MAX_PLIES {
                    return Err(unsupported(format!("distances beyond {MAX_PLIES} plies")));
                }
                let found = frontier[0].len() + frontier[1].len();
                let next: Mutex<Frontiers> = Mutex::new(BTreeMap::new());
                for (s, stm) in Side::ALL.into_iter().enumerate() {
                    let parent = 1 - s;
                    frontier[s].par_chunks(4096).for_each(|chunk| {
                        let (mut wins, mut losses) = (Vec::new(), Vec::<(u32, u64)>::new());
                        for &i in chunk {
                            let value = final_value(work.state(s, i).load(Ordering::Relaxed));
                            let result = match value {
                                Dtz::Loss(_) => work.parents_of(i, stm, false, |j, _| {
                                    work.mark_win(parent, j, depth, &mut wins)
                                }),
                                _ => work.parents_of(i, stm, true, |j, weight| {
                                    match work.subtract(parent, j, weight, depth) {
                                        Ok(Some(at)) => losses.push((at, j)),
                                        Ok(None) => {}
                                        Err(e) => record(e),
                                    }
                                }),
                            };
                            if let Err(e) = result {
                                record(e);
                            }
                        }
                        let mut next = next.lock().expect("no panics while locked");
                        next.entry(depth + 1).or_default()[parent].extend(wins);
                        for (at, j) in losses {
                            next.entry(at).or_default()[parent].push(j);
                        }
                        observer.progressed(chunk.len() as u64);
                    });
                }
                if let Some(e) = failed() {
                    return Err(e);
                }
                for (at, lists) in next.into_inner().expect("no panics while locked") {
                    let entry = frontiers.entry(at).or_default();
                    for (s, list) in lists.into_iter().enumerate() {
                        entry[s].extend(list);
                    }
                }
                observer.depth_passed(depth, found as u64);
                depth += 1;
            }
            depths = depths.max(depth);
            // What is still pending at this level is drawn.
            for (s, side) in states.iter().enumerate() {
                side.par_iter()
                    .zip(levels[s].par_iter())
                    .for_each(|(state, &l)| {
                        if l == lvl && state.load(Ordering::Relaxed) & PENDING != 0 {
                            state.store(decided(Dtz::Draw), Ordering::Relaxed);
                        }
                    });
            }
            retrograde_seconds += began.elapsed().as_secs_f64();
        }
        drop(levels);

        // The files: DTZ50, then its classes.
        let max_plies = states
            .par_iter()
            .flat_map(|side| side.par_iter())
            .filter_map(|state| final_value(state.load(Ordering::Relaxed)).plies())
            .max()
            .unwrap_or(0);
        let max_code = states
            .par_iter()
            .flat_map(|side| side.par_iter())
            .map(|state| final_value(state.load(Ordering::Relaxed)).code())
            .max()
            .unwrap_or(0);
        let header = |kind: TableKind, width: u8, max_plies: u32| Header {
            files: geo.files(),
            ranks: geo.ranks(),
            material: name.clone(),
            index_scheme: retro_format::INDEX_SCHEME,
            symmetries: indexer.symmetry_count() as u8,
            entries_per_side: size,
            value_width: width,
            max_plies,
            kind,
            rule_plies: rule as u8,
        };
        let dtz_header = header(
            TableKind::Dtz50,
            retro_format::width_for_code(max_code),
            max_plies,
        );
        let wdl_header = header(TableKind::Wdl50, 1, 0);
        let path = self.file_of(TableKind::Dtz50, material, false);
        write_body(&path, &dtz_header, &states, |state| {
            final_value(state).code()
        })?;
        let wdl_path = self.file_of(TableKind::Wdl50, material, false);
        write_body(&wdl_path, &wdl_header, &states, |state| {
            final_value(state).class(rule).code()
        })?;
        for kind in [TableKind::Dtz50, TableKind::Wdl50] {
            self.remove_stale_packed_of(kind, material)?;
        }
        Ok(BuildReport {
            material,
            metric: Metric::Fifty,
            path,
            reused: false,
            body_checked: true,
            entries_per_side: size,
            max_plies,
            seconds: start.elapsed().as_secs_f64(),
            init_seconds,
            retrograde_seconds,
            depths,
            core: Some(CoreKind::Reference),
            packed: None,
            traffic: None,
        })
    }
}

impl Work<'_> {
    fn inconsistent_index(&self, i: u64) -> GenError {
        GenError::Inconsistent {
            material: self.indexer.material().to_string(),
            fen: format!("index {i}"),
        }
    }
}

/// Writes the table `header` describes at `path`, each entry's code `code` of its work word,
/// White's entries first, a piece at a time.
fn write_body(
    path: &std::path::Path,
    header: &Header,
    states: &[Vec<AtomicU16>; 2],
    code: impl Fn(u16) -> u32 + Sync,
) -> Result<(), GenError> {
    const PIECE: usize = 1 << 20;
    let writer = TableWriter::create(path, header)?;
    let width = usize::from(header.value_width);
    let size = header.entries_per_side as usize;
    for (s, side) in states.iter().enumerate() {
        side.par_chunks(PIECE)
            .enumerate()
            .try_for_each(|(k, piece)| {
                let mut bytes = Vec::with_capacity(piece.len() * width);
                for state in piece {
                    let c = code(state.load(Ordering::Relaxed));
                    match width {
                        1 => bytes.push(c as u8),
                        _ => bytes.extend_from_slice(&(c as u16).to_le_bytes()),
                    }
                }
                writer.write_body_at(((s * size + k * PIECE) * width) as u64, &bytes)
            })?;
    }
    writer.finish()?;
    Ok(())
}

#[cfg(test)]
mod tests;
