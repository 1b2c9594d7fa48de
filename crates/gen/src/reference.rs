//! The reference core: depth to mate by retrograde analysis over the engine's index, one
//! 16-bit word per position and side to move, on any board.
//!
//! Owns: building a table the plain way ([`Builder`] calls it where the fast core declines, or
//! everywhere with [`CoreKind::Reference`]); its files are the fast core's byte for byte.
//! Must never: be fast at the cost of plainness: it is the fast core's yardstick.
//!
//! # How
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

use crate::{exit_targets, BuildReport, Builder, CoreKind, GenError, Observer, Phase};
use rayon::prelude::*;
use retro_engine::{Geometry, Indexer, Material, Retractions, TablePosition};
use retro_format::{Table, Value};
use retro_rules::{Piece, Side};
use std::collections::{BTreeMap, BTreeSet};
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

impl Builder {
    /// Builds the table of `material` with the reference core.
    pub(crate) fn build_reference(
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
        observer.phase(&material.to_string(), Phase::Init, 2 * size);
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
        observer.phase(
            &material.to_string(),
            Phase::Retrograde,
            legal.load(Ordering::Relaxed),
        );
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
            observer.depth_passed(depth, (frontier[0].len() + frontier[1].len()) as u64);
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
            core: Some(CoreKind::Reference),
            packed: None,
        })
    }
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
        for target in exit_targets(material) {
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
