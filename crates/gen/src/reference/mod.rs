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
//! * **forward**: at a depth where fewer parents are undecided than positions were decided, the
//!   step runs from each undecided parent instead, reading the states of its children.
//!
//! The index may be cut into contiguous parts, one per rank of a group ([`Builder::build_on`],
//! [`crate::ranks`]): each rank holds its part of the work entries and of the frontiers
//! (`parts`), updates the parents it holds at once and sends the others' to their ranks a pass
//! at a time; going forward, it asks other ranks for the children they hold. One process is
//! the group of one rank.
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

mod parts;

use crate::pending::{kind_of, pending, take, Taken, MAX_COUNT, PENDING};
use crate::ranks::{agree, OneRank, Partition, Ranks, Traffic};
use crate::subtables::Subtables;
use crate::{BuildReport, Builder, CoreKind, GenError, Observer, Phase};
use parts::{Frontier, Held};
use rayon::prelude::*;
use retro_engine::{Geometry, Indexer, Material, Retractions, TablePosition};
use retro_format::Value;
use retro_rules::{Piece, Side};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

const NO_POSITION: u16 = 0;
const DRAW: u16 = 1;
const PLAIN: u16 = 0;
const ESCAPE: u16 = 1;
const CAPTURE_LOSS: u16 = 2;
const CAPTURE_WIN: u16 = 3;
/// The deepest value a 16-bit work entry can hold.
const MAX_PLIES: u32 = 0x7FFF - 2;

fn decided(plies: u32) -> u16 {
    (2 + plies) as u16
}

/// The code a work entry leaves in the file: positions still pending are draws.
fn final_code(state: u16) -> u16 {
    if state & PENDING != 0 {
        DRAW
    } else {
        state
    }
}

impl Builder {
    /// Builds the table of `material` with the reference core, in this process.
    pub(crate) fn build_reference(
        &self,
        material: Material,
        observer: &dyn Observer,
    ) -> Result<BuildReport, GenError> {
        self.build_reference_on(material, observer, &OneRank)
    }

    /// Builds the table of `material` with the reference core on `ranks`, each rank holding
    /// its part of the index ([`Partition`]); rank 0 writes the file, the same file a single
    /// process writes. Every rank of the group calls it.
    pub(crate) fn build_reference_on(
        &self,
        material: Material,
        observer: &dyn Observer,
        ranks: &dyn Ranks,
    ) -> Result<BuildReport, GenError> {
        let start = Instant::now();
        let geo = &self.geo;
        let unsupported = |reason: String| GenError::Unsupported {
            material: material.to_string(),
            reason,
        };
        let indexer = self.canonical_indexer(material)?;
        let size = indexer.size();
        let rank_count = ranks.count();
        let partition = Partition::new(size, rank_count);
        let part = partition.part(ranks.rank());
        let first = part.start;
        let entries = usize::try_from(part.end - part.start)
            .map_err(|_| unsupported("too many positions for this machine".into()))?;
        let mut traffic = Traffic {
            ranks: ranks.count(),
            entries_held: entries as u64,
            ..Traffic::default()
        };
        // A rank that fails goes on taking part in the collective steps until the next check,
        // where every rank stops.
        let subtables = Subtables::open(self, material, retro_format::TableKind::Dtm);
        let failure: Mutex<Option<GenError>> = Mutex::new(None);
        let fail = |e: GenError| {
            failure
                .lock()
                .expect("no panics while locked")
                .get_or_insert(e);
        };
        let failed = || failure.lock().expect("no panics while locked").take();
        let stop = |e: Option<GenError>| agree(ranks, e.map_or(Ok(()), Err), &[material]);
        let subtables = agree(ranks, subtables, &[material])?;
        let work = Work {
            geo,
            indexer: &indexer,
            subtables: &subtables,
        };

        // Init.
        observer.phase(
            &material.to_string(),
            Phase::Init,
            2 * (part.end - part.start),
        );
        let states: [Vec<AtomicU16>; 2] = [new_states(entries), new_states(entries)];
        let held = |s: usize| Held {
            first,
            states: &states[s],
        };
        let waiting = Mutex::new(Waiting::default());
        let legal = AtomicU64::new(0);
        // Positions not yet decided, by side to move: once a side has none, the frontier of the
        // other side has no predecessor left to update.
        let undecided = [AtomicU64::new(0), AtomicU64::new(0)];
        let new_frontier = || [Frontier::new(part.clone()), Frontier::new(part.clone())];
        let mut frontier = new_frontier();
        // The positions the pass under way decides; the two sets change places after each pass.
        let mut next = new_frontier();
        for (s, stm) in Side::ALL.into_iter().enumerate() {
            const CHUNK: u64 = 1 << 14;
            let chunks: Vec<u64> = (0..(part.end - part.start).div_ceil(CHUNK)).collect();
            chunks.par_iter().for_each(|&chunk| {
                let mut local = Waiting::default();
                let mut local_legal = 0;
                let mut local_undecided = 0;
                let begin = first + chunk * CHUNK;
                let end = (begin + CHUNK).min(part.end);
                indexer.for_each_position(geo, begin..end, stm, |i, p| {
                    let state = work.classify(i, p, stm, &mut local).unwrap_or_else(|e| {
                        fail(e);
                        NO_POSITION
                    });
                    if state == decided(0) {
                        frontier[s].insert(i);
                    }
                    local_legal += u64::from(state != NO_POSITION);
                    local_undecided += u64::from(state & PENDING != 0);
                    held(s).at(i).store(state, Ordering::Relaxed);
                });
                waiting.lock().expect("no panics while locked").merge(local);
                legal.fetch_add(local_legal, Ordering::Relaxed);
                undecided[s].fetch_add(local_undecided, Ordering::Relaxed);
                observer.progressed(end - begin);
            });
        }
        stop(failed())?;
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
                    let found = (0..entries)
                        .into_par_iter()
                        .filter(|&k| {
                            // Read first: a compare-exchange on every entry would write them all.
                            side_states[k].load(Ordering::Relaxed) == target
                                && side_states[k]
                                    .compare_exchange(
                                        target,
                                        decided(depth),
                                        Ordering::Relaxed,
                                        Ordering::Relaxed,
                                    )
                                    .is_ok()
                        })
                        .map(|k| frontier[s].insert(first + k as u64))
                        .count();
                    undecided[s].fetch_sub(found as u64, Ordering::Relaxed);
                }
            }
            if let Some(due) = waiting.losses.remove(&depth) {
                for (s, i) in due.into_iter().map(Waiting::unpack) {
                    held(s).at(i).store(decided(depth), Ordering::Relaxed);
                    undecided[s].fetch_sub(1, Ordering::Relaxed);
                    frontier[s].insert(i);
                }
            }
            let sizes = [frontier[0].len(), frontier[1].len()];
            let idle = sizes == [0, 0] && waiting.is_empty();
            if !ranks.any(!idle) {
                break;
            }
            if depth >= MAX_PLIES {
                return Err(unsupported(format!("depths beyond {MAX_PLIES} plies")));
            }
            let later = Mutex::new(Vec::<(u32, usize, u64)>::new());
            for (s, stm) in Side::ALL.into_iter().enumerate() {
                let parent_states = held(1 - s);
                let undecided_parents = ranks.sum(undecided[1 - s].load(Ordering::Relaxed));
                if undecided_parents == 0 {
                    observer.progressed(sizes[s]);
                    continue;
                }
                if undecided_parents < ranks.sum(sizes[s]) {
                    // Fewer undecided parents than frontier positions: go forward from them.
                    let found = work.forward(
                        Forward {
                            parent_side: Side::ALL[1 - s],
                            parents: parent_states,
                            children: held(s),
                            depth,
                        },
                        &partition,
                        ranks,
                        &next[1 - s],
                        &later,
                        &fail,
                        &mut traffic,
                    );
                    observer.progressed(sizes[s]);
                    undecided[1 - s].fetch_sub(found, Ordering::Relaxed);
                    continue;
                }
                // Backward: the parents this rank holds are updated at once, the others'
                // sent to their ranks as words `index << 4 | weight`.
                let parent_side = Side::ALL[1 - s];
                let outboxes = Mutex::new(vec![Vec::<u64>::new(); rank_count]);
                let local_updates = AtomicU64::new(0);
                let update = |j: u64, weight: u16, found: &mut Vec<u64>| {
                    if depth % 2 == 0 {
                        work.mark_win(j, parent_states, depth + 1, found);
                    } else if let Err(e) =
                        work.subtract(j, parent_side, parent_states, weight, depth, found, &later)
                    {
                        fail(e);
                    }
                };
                let mut found: usize = frontier[s]
                    .par_blocks(|chunk| {
                        let mut found = Vec::new();
                        let mut away = vec![Vec::<u64>::new(); rank_count];
                        let mut here = 0;
                        for &i in chunk {
                            let result = work.parents_of(i, stm, depth % 2 == 1, |j, weight| {
                                match parent_states.holds(j) {
                                    true => {
                                        here += 1;
                                        update(j, weight, &mut found);
                                    }
                                    false => {
                                        away[partition.owner(j)].push(j << 4 | u64::from(weight))
                                    }
                                }
                            });
                            if let Err(e) = result {
                                fail(e);
                            }
                        }
                        local_updates.fetch_add(here, Ordering::Relaxed);
                        if away.iter().any(|words| !words.is_empty()) {
                            let mut outboxes = outboxes.lock().expect("no panics while locked");
                            for (outbox, words) in outboxes.iter_mut().zip(away) {
                                outbox.extend(words);
                            }
                        }
                        observer.progressed(chunk.len() as u64);
                        next[1 - s].insert_all(&found)
                    })
                    .into_iter()
                    .sum();
                traffic.local_updates += local_updates.into_inner();
                if ranks.count() > 1 {
                    let outboxes = outboxes.into_inner().expect("no panics while locked");
                    let sent: u64 = outboxes.iter().map(|words| 8 * words.len() as u64).sum();
                    let exchange = Instant::now();
                    let received = ranks.exchange(outboxes).concat();
                    traffic.exchange_seconds += exchange.elapsed().as_secs_f64();
                    traffic.exchanges += 1;
                    traffic.bytes_sent += sent;
                    traffic.largest_exchange = traffic.largest_exchange.max(sent);
                    traffic.bytes_received += 8 * received.len() as u64;
                    found += received
                        .par_chunks(4096)
                        .map(|words| {
                            let mut found = Vec::new();
                            for &word in words {
                                update(word >> 4, (word & 15) as u16, &mut found);
                            }
                            next[1 - s].insert_all(&found)
                        })
                        .sum::<usize>();
                }
                undecided[1 - s].fetch_sub(found as u64, Ordering::Relaxed);
            }
            stop(failed())?;
            for (due, s, i) in later.into_inner().expect("no panics while locked") {
                waiting
                    .losses
                    .entry(due)
                    .or_default()
                    .push(Waiting::pack(s, i));
            }
            observer.depth_passed(depth, sizes[0] + sizes[1]);
            std::mem::swap(&mut frontier, &mut next);
            next.iter().for_each(Frontier::clear);
            depth += 1;
        }
        let retrograde_seconds = start.elapsed().as_secs_f64() - init_seconds;

        // Pending positions are draws.
        let local_max = states
            .par_iter()
            .flat_map(|side| side.par_iter())
            .map(|state| u32::from(final_code(state.load(Ordering::Relaxed))).saturating_sub(2))
            .max()
            .unwrap_or(0);
        let max_plies = ranks.max(u64::from(local_max)) as u32;
        let header = self.header(&indexer, max_plies);
        let path = self.raw_path_of(material);
        let error = self.write_parts(material, &header, &states, &partition, ranks);
        // No rank goes on to a larger table before the file is in place.
        stop(error)?;
        Ok(BuildReport {
            material,
            metric: crate::Metric::Dtm,
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
            traffic: (ranks.count() > 1).then_some(traffic),
        })
    }
}

/// One forward step: the side whose positions may be decided, its entries and the children's
/// this rank holds, and the depth.
struct Forward<'a> {
    parent_side: Side,
    parents: Held<'a>,
    children: Held<'a>,
    depth: u32,
}

fn new_states(entries: usize) -> Vec<AtomicU16> {
    let mut v = Vec::with_capacity(entries);
    v.resize_with(entries, || AtomicU16::new(NO_POSITION));
    v
}

/// Positions waiting for a later depth: capture-wins (found by scanning, so only the depths
/// are kept) and capture-losses (kept by side and index, in one word: there may be millions).
#[derive(Default)]
struct Waiting {
    capture_wins: BTreeSet<u32>,
    losses: BTreeMap<u32, Vec<u64>>,
}

impl Waiting {
    fn merge(&mut self, other: Waiting) {
        self.capture_wins.extend(other.capture_wins);
        for (depth, list) in other.losses {
            self.losses.entry(depth).or_default().extend(list);
        }
    }

    /// Side `s` (0 or 1) and index `i` as one word.
    fn pack(s: usize, i: u64) -> u64 {
        (s as u64) << 63 | i
    }

    /// [`Waiting::pack`]'s side and index.
    fn unpack(word: u64) -> (usize, u64) {
        ((word >> 63) as usize, word & !(1 << 63))
    }

    fn is_empty(&self) -> bool {
        self.capture_wins.is_empty() && self.losses.is_empty()
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
        let mut capture = |mv: retro_engine::Move| match self.subtables.code(geo, &p.play(geo, &mv))
        {
            Ok(code) => captures.add(Value::from_code(code)),
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
                if mv.leaves_material() {
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
        if weight > u32::from(MAX_COUNT) {
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
                waiting
                    .losses
                    .entry(k)
                    .or_default()
                    .push(Waiting::pack(side, i));
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

    /// The parents (predecessors by a quiet move) of index `i` with `stm` to move, each with
    /// its weight in the parent's counter when `weighted` (its stabilizer size; 0 otherwise).
    fn parents_of(
        &self,
        i: u64,
        stm: Side,
        weighted: bool,
        mut visit: impl FnMut(u64, u16),
    ) -> Result<(), GenError> {
        self.predecessors(i, stm, |q| {
            let j = self
                .indexer
                .index(self.geo, &q)
                .expect("legal predecessors have an index");
            let weight = match weighted {
                true => self.indexer.stabilizer_size(self.geo, &q) as u16,
                false => 0,
            };
            visit(j, weight);
        })
    }

    /// Even depths: a parent of a loss in `depth − 1` still pending becomes a win in `depth`.
    fn mark_win(&self, j: u64, parents: Held<'_>, depth: u32, found: &mut Vec<u64>) {
        let state = parents.at(j);
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
    }

    /// Takes `weight` resolved moves off the counter of parent `j`; when none are left the
    /// parent is lost in `depth + 1` (into `found`), or later if a capture-loss says so.
    #[allow(clippy::too_many_arguments)]
    fn subtract(
        &self,
        j: u64,
        parent_side: Side,
        parents: Held<'_>,
        weight: u16,
        depth: u32,
        found: &mut Vec<u64>,
        later: &Mutex<Vec<(u32, usize, u64)>>,
    ) -> Result<(), GenError> {
        let state = parents.at(j);
        // Every pending word here carries its count from the init pass: one found uncounted
        // would be inconsistent, which a count of more than a word holds reports.
        let immune = |kind| matches!(kind, ESCAPE | CAPTURE_WIN);
        let kind = match take(state, weight, immune, || u32::MAX) {
            Taken::Untouched | Taken::Counted => return Ok(()),
            Taken::Underflow => return Err(self.inconsistent(j, parent_side)),
            Taken::Emptied { kind } => kind,
        };
        // Every quiet move of the parent loses.
        let due = if kind == CAPTURE_LOSS {
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

    /// The forward form of one step: each still-undecided parent this rank holds looks at its
    /// quiet moves, and those into positions decided at exactly `depth` do what the backward
    /// step would have done from them — at even depths (losses) the parent becomes a win in
    /// `depth + 1`; at odd depths (wins) its counter drops by their weight. A child held by
    /// another rank is asked for, a word to its rank, and answered with a bit. The parents
    /// decided go into `next`; how many.
    #[allow(clippy::too_many_arguments)]
    fn forward(
        &self,
        step: Forward<'_>,
        partition: &Partition,
        ranks: &dyn Ranks,
        next: &Frontier,
        later: &Mutex<Vec<(u32, usize, u64)>>,
        fail: &(dyn Fn(GenError) + Sync),
        traffic: &mut Traffic,
    ) -> u64 {
        let Forward {
            parent_side,
            parents,
            children,
            depth,
        } = step;
        let geo = self.geo;
        let counting = depth % 2 == 1;
        let target = decided(depth);
        let count = ranks.count();
        let apply = |j: u64, weight: u16, found: &mut Vec<u64>| {
            if !counting {
                self.mark_win(j, parents, depth + 1, found);
            } else if let Err(e) =
                self.subtract(j, parent_side, parents, weight, depth, found, later)
            {
                fail(e);
            }
        };
        // Per rank asked: the children's indices, and the parent and weight each answer is for,
        // in the same order.
        type Asked = (Vec<Vec<u64>>, Vec<Vec<(u64, u16)>>);
        let asked: Mutex<Asked> = Mutex::new((vec![Vec::new(); count], vec![Vec::new(); count]));
        let held = parents.states.len() as u64;
        let local_hits = AtomicU64::new(0);
        let mut found: usize = (0..held.div_ceil(4096))
            .into_par_iter()
            .map(|chunk| {
                let mut found = Vec::new();
                let (mut children_asked, mut for_parents) =
                    (vec![Vec::new(); count], vec![Vec::new(); count]);
                let begin = parents.first + chunk * 4096;
                let mut hits = 0;
                for j in begin..(begin + 4096).min(parents.first + held) {
                    let state = parents.at(j).load(Ordering::Relaxed);
                    if state & PENDING == 0
                        || (counting && matches!(kind_of(state), ESCAPE | CAPTURE_WIN))
                    {
                        continue;
                    }
                    let Some(r) =
                        self.indexer
                            .position::<{ retro_engine::TABLE_MEN }>(geo, j, parent_side)
                    else {
                        fail(self.inconsistent(j, parent_side));
                        continue;
                    };
                    let (mut weight, mut wins) = (0u32, false);
                    r.for_each_legal_move(geo, None, |mv| {
                        if mv.leaves_material() || wins {
                            return;
                        }
                        let child = r.play(geo, &mv);
                        let k = self
                            .indexer
                            .index(geo, &child)
                            .expect("legal children have an index");
                        let child_weight = match counting {
                            true => self.indexer.stabilizer_size(geo, &child) as u16,
                            false => 0,
                        };
                        if !children.holds(k) {
                            let rank = partition.owner(k);
                            children_asked[rank].push(k);
                            for_parents[rank].push((j, child_weight));
                        } else if children.at(k).load(Ordering::Relaxed) == target {
                            weight += u32::from(child_weight);
                            wins = !counting;
                        }
                    });
                    if wins || weight > 0 {
                        hits += 1;
                        apply(j, weight as u16, &mut found);
                    }
                }
                if children_asked.iter().any(|k| !k.is_empty()) {
                    let mut asked = asked.lock().expect("no panics while locked");
                    for (rank, (k, p)) in children_asked.into_iter().zip(for_parents).enumerate() {
                        asked.0[rank].extend(k);
                        asked.1[rank].extend(p);
                    }
                }
                local_hits.fetch_add(hits, Ordering::Relaxed);
                next.insert_all(&found)
            })
            .sum();
        traffic.local_updates += local_hits.into_inner();
        if count == 1 {
            return found as u64;
        }
        // The questions out, a word a child; the answers back, a bit a child.
        let (questions, for_parents) = asked.into_inner().expect("no panics while locked");
        let sent: u64 = questions.iter().map(|k| 8 * k.len() as u64).sum();
        let exchange = Instant::now();
        let received = ranks.exchange(questions);
        traffic.exchange_seconds += exchange.elapsed().as_secs_f64();
        let answers: Vec<Vec<u64>> = received
            .par_iter()
            .map(|asked| {
                let mut bits = vec![0u64; asked.len().div_ceil(64)];
                for (n, &k) in asked.iter().enumerate() {
                    if children.at(k).load(Ordering::Relaxed) == target {
                        bits[n / 64] |= 1 << (n % 64);
                    }
                }
                bits
            })
            .collect();
        let answered: u64 = answers.iter().map(|b| 8 * b.len() as u64).sum();
        let exchange = Instant::now();
        let answers = ranks.exchange(answers);
        traffic.exchange_seconds += exchange.elapsed().as_secs_f64();
        traffic.exchanges += 2;
        traffic.bytes_sent += sent + answered;
        traffic.largest_exchange = traffic.largest_exchange.max(sent);
        traffic.bytes_received += received
            .iter()
            .chain(&answers)
            .map(|w| 8 * w.len() as u64)
            .sum::<u64>();
        for (for_parents, bits) in for_parents.iter().zip(&answers) {
            found += for_parents
                .par_chunks(4096)
                .enumerate()
                .map(|(chunk, for_parents)| {
                    let mut found = Vec::new();
                    for (n, &(j, weight)) in for_parents.iter().enumerate() {
                        let q = chunk * 4096 + n;
                        if bits[q / 64] >> (q % 64) & 1 == 1 {
                            apply(j, weight, &mut found);
                        }
                    }
                    next.insert_all(&found)
                })
                .sum::<usize>();
        }
        found as u64
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
            if mv.leaves_material() {
                match self.subtables.code(geo, &child) {
                    Ok(code) => captures.add(Value::from_code(code)),
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
