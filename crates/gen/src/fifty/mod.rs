//! The fifty-move rule's passes: DTZ50 and WDL50 tables by retrograde analysis, one 16-bit
//! word per position and side to move, over the entries of whichever core supplies the moves.
//!
//! Owns: what a position's first word is (`first_word`), the depth-by-depth passes that
//! decide the rest (`solve_part`), and the meaning of a work word (`final_value`). The
//! moves come from a `RuleMoves`: the engine's, over the stored index, on any board
//! (`plain`), or the fast core's, over its slot layout, on boards of at most 64 squares
//! (`crate::fast::fifty`). [`crate::Builder`] calls this for [`crate::Metric::Fifty`].
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
//! * **Parts.** A pawn move is irreversible. A core solves a table a *part* at a time — a
//!   level of pawn advancement, or a placement of the pawns with its mirror image — the parts
//!   ordered so that every zeroing move reads a value already final: in a smaller table after
//!   a capture or a promotion, in a part solved before after a push. A table without pawns is
//!   one part.
//! * **Init**, a part at a time: each legal position's zeroing moves are generated and their
//!   outcomes read at once; the best of them (for the mover) is kept in the position's word
//!   as a *kind*. The moves that stay are counted, each as often as the retrograde step will
//!   reach the position from the move's child (a weight, `RuleMoves`) — by the engine's moves
//!   now, by the fast core's when the first of them is refuted (`Stays::Later`), as most
//!   positions never are. Checkmates are losses in 0, stalemates draws; a zeroing move into a
//!   loss is a win in 1; with no moves that stay, the best zeroing move decides.
//! * **Depth by depth**, `d = 0, 1, …`, the positions decided at `d` are un-moved by the moves
//!   that stay: the parents of a loss in `d` still pending become wins in `d + 1`; the parents
//!   of a win in `d` have their counters lowered, and one whose counter reaches zero — every
//!   move that stays reaches a win for the opponent — is lost in `d + 1`, or in `N + 1` if a
//!   zeroing move into a cursed win holds out that long. A core that keeps sets of a bit a
//!   position (`SlotSets`) finds the same losses without counters, from the parents left
//!   with no move into a position not won. At `d = N + 1` the positions still
//!   pending with a zeroing move into a blessed loss become wins in `N + 1`. Unlike depth to
//!   mate, wins and losses come at every depth. A counter cannot reach zero at the depth at
//!   which its position is won: a move into a loss never lowers it.
//! * At the end of a part, the positions still pending are draws.

mod build;
mod plain;
#[cfg(test)]
mod tests;

use crate::fast::words::Words;
use crate::pending::{kind_of, pending, take, Taken, MAX_COUNT, PENDING, UNCOUNTED};
use crate::{GenError, Observer, Phase};
use rayon::prelude::*;
use retro_format::{Dtz, Wdl};
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// The word of an entry that is no position.
pub(crate) const NO_POSITION: u16 = 0;
/// No zeroing move, or none better than a loss in 1: lost once every move that stays is.
const PLAIN: u16 = 0;
/// A zeroing move into a draw: never lost.
const ESCAPE: u16 = 1;
/// A zeroing move into a blessed loss: won in `N + 1` at the latest, never lost.
const LATE_WIN: u16 = 2;
/// The best zeroing move reaches a cursed win: lost in `N + 1` at the earliest.
const LATE_LOSS: u16 = 3;
/// The longest distance a work word holds (its code below [`PENDING`]).
pub(crate) const MAX_PLIES: u32 = (PENDING as u32 - 4) / 2;

/// The work word of a final value.
pub(crate) fn decided(value: Dtz) -> u16 {
    value.code() as u16
}

/// The value a work word leaves in the file: positions still pending are draws.
pub(crate) fn final_value(state: u16) -> Dtz {
    match state {
        NO_POSITION => Dtz::Illegal,
        s if s & PENDING != 0 => Dtz::Draw,
        s => Dtz::from_code(u32::from(s)),
    }
}

/// The best outcome, for the mover, among a position's zeroing moves.
#[derive(Default, Clone, Copy)]
pub(crate) struct Exits {
    win: Option<u32>,
    draw: bool,
    loss: Option<u32>,
    /// Whether any was counted: a position with a zeroing move is neither mated nor stalemate.
    any: bool,
}

impl Exits {
    /// Counts a zeroing move into a position of class `reached` (for its side to move), under
    /// a rule of `rule` plies.
    pub(crate) fn add(&mut self, reached: Wdl, rule: u32) {
        self.any = true;
        match reached {
            Wdl::Loss => self.win = Some(1),
            Wdl::BlessedLoss => self.win = Some(self.win.map_or(rule + 1, |w| w.min(rule + 1))),
            Wdl::Draw => self.draw = true,
            Wdl::CursedWin => self.loss = Some(self.loss.map_or(rule + 1, |l| l.max(rule + 1))),
            Wdl::Win => self.loss = Some(self.loss.map_or(1, |l| l.max(1))),
            Wdl::Illegal => unreachable!("a move reaches a legal position"),
        }
    }

    /// Whether a zeroing move was counted.
    pub(crate) fn any(&self) -> bool {
        self.any
    }

    /// The value, for the mover, of the best zeroing move counted, as if there were no other
    /// move; `None` if none was.
    pub(crate) fn best(&self) -> Option<Dtz> {
        match *self {
            Exits { win: Some(w), .. } => Some(Dtz::Win(w)),
            Exits { draw: true, .. } => Some(Dtz::Draw),
            Exits { loss: Some(l), .. } => Some(Dtz::Loss(l)),
            _ => None,
        }
    }
}

/// A position's moves that stay, as its first word takes them.
pub(crate) enum Stays<F: FnOnce() -> bool> {
    /// Counted, each with its weight ([`RuleMoves`]).
    Counted(u32),
    /// Counted when a pass first takes one off ([`RuleMoves::count_stays`]). `any` says
    /// whether there is one, and is asked only where the first word depends on it: in check
    /// or with zeroing moves that all lose (a checkmate, or lost at once by those).
    Later {
        /// Whether a move stays.
        any: F,
    },
}

/// A position's first word from its moves: `stays` its moves that stay, `exits` its zeroing
/// moves, `in_check` whether its side to move is in check; and the depth at which it is to be
/// un-moved if it is decided now. `material` names the table in an error.
///
/// A position whose moves are counted later and that has no move at all without being in
/// check (stalemate) is left pending: no un-move reaches it, so it ends a draw.
pub(crate) fn first_word(
    stays: Stays<impl FnOnce() -> bool>,
    exits: Exits,
    in_check: bool,
    material: &dyn std::fmt::Display,
) -> Result<(u16, Option<u32>), GenError> {
    let count = match stays {
        Stays::Counted(count) => match u16::try_from(count) {
            Ok(count) if count <= MAX_COUNT => count,
            _ => {
                return Err(GenError::Unsupported {
                    material: material.to_string(),
                    reason: "too many moves in one position".into(),
                })
            }
        },
        Stays::Later { any } => {
            let may_lose = exits.win.is_none() && !exits.draw;
            match may_lose && (in_check || exits.loss.is_some()) && !any() {
                true => 0,
                false => UNCOUNTED,
            }
        }
    };
    if count == 0 && !exits.any {
        return Ok(match in_check {
            true => (decided(Dtz::Loss(0)), Some(0)),
            false => (decided(Dtz::Draw), None),
        });
    }
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

/// What a core supplies to the rule's passes over its entries (a stored index, or a slot
/// layout): each entry's first word, and the parents of an entry by the moves that stay.
///
/// The weights must match: a position's first word counts each move that stays as many times
/// as the parents of the move's child give the position back, each time with its weight.
pub(crate) trait RuleMoves: Sync {
    /// The parts of the table, in the order in which to solve them: every push leads from a
    /// part to one before it. One part, the whole, for a table without pawns.
    fn parts(&self) -> Vec<Part>;

    /// Calls `visit` with the side (0 White), the entry and the first word of every entry of
    /// `entries` (at `level`, if given), with either side to move, and the depth at which it is
    /// to be un-moved if it is decided now ([`first_word`]; [`NO_POSITION`] for an entry that is
    /// no position, which may also be left out). `states` holds the values of the parts solved
    /// before, a word still pending there being a draw ([`final_value`]).
    fn first_words(
        &self,
        states: &[SideWords; 2],
        entries: Range<u64>,
        level: Option<u8>,
        visit: impl FnMut(usize, u64, Result<(u16, Option<u32>), GenError>),
    );

    /// What a task of a pass keeps between two [`RuleMoves::count_stays`]: what entries near
    /// one another share.
    type CountCache: Default;

    /// The weighted count of the moves that stay of entry `i`, side `s` to move, a position
    /// whose first word left them [`Stays::Later`]; more than a word counts (`u32::MAX`) if it
    /// is no position.
    fn count_stays(&self, s: usize, i: u64, cache: &mut Self::CountCache) -> u32;

    /// Calls `visit` with every parent of entry `i` (side `s` to move) by a move that stays,
    /// on side `1 − s`, and its weight when `weighted` (any number otherwise); entries that
    /// are no position may be among them (their word is [`NO_POSITION`], which no step
    /// touches).
    fn for_each_parent(
        &self,
        s: usize,
        i: u64,
        weighted: bool,
        visit: impl FnMut(u64, u16),
    ) -> Result<(), GenError>;

    /// The sets with which `part`'s passes find losses from ways out ([`SlotSets`]), made
    /// from the first words in `states`; `None` where the passes count moves instead.
    type Sets<'m>: SlotSets
    where
        Self: 'm;

    /// See [`RuleMoves::Sets`].
    fn slot_sets<'m>(&'m self, states: &[SideWords; 2], part: &Part) -> Option<Self::Sets<'m>>;

    /// [`RuleMoves::for_each_parent`] of every entry of `entries` (in increasing order), the
    /// parents of all to one `visit`, in any order.
    fn for_each_parent_of_all(
        &self,
        s: usize,
        entries: &[u64],
        weighted: bool,
        mut visit: impl FnMut(u64, u16),
    ) -> Result<(), GenError> {
        for &i in entries {
            self.for_each_parent(s, i, weighted, &mut visit)?;
        }
        Ok(())
    }
}

/// Sets of a bit a position and side with which a core runs the passes in place of counting
/// moves, finding each pass's losses from the *ways out* of the parents its wins reach: a
/// position that may still lose (its word pending, its zeroing moves no better than a loss) is
/// lost once every move that stays reaches a win decided so far, that is, once none reaches a
/// legal position not won — no way out is left. A pass of depth `d` takes its wins of one
/// side out of that side's set of positions not won and marks their parents
/// ([`SlotSets::won`]), then asks for the marked parents without a way out
/// ([`SlotSets::lost`]): each is lost in `d + 1` plies (or in `N + 1` after a zeroing move
/// into a cursed win), exactly when the count of its moves would have reached zero. The
/// parents of its losses it visits only where a set says they may still be pending
/// ([`SlotSets::for_each_pending_parent`]).
pub(crate) trait SlotSets: Sync {
    /// Calls `visit` with the parents (side `1 − s`) of the losses `slots` of side `s` (in
    /// increasing order) that may still be pending, as [`RuleMoves::for_each_parent_of_all`]
    /// does, passing over those decided before; a parent visited is taken to be decided.
    fn for_each_pending_parent(&self, s: usize, slots: &[u64], visit: impl FnMut(u64));

    /// The wins `slots` of side `s` (in increasing order) decided at the depth of the pass now
    /// running: no way out any more; their parents that may lose are marked.
    fn won(&self, s: usize, slots: &[u64]);

    /// The parents (side `1 − s`) marked since the last call that have no way out left, each
    /// once: among them every one that may still lose ([`may_lose`]), and perhaps some
    /// decided since, which the passes pass over.
    fn lost(&self, s: usize) -> Vec<u64>;
}

/// No [`SlotSets`]: where a core's passes count moves, as the engine's do.
pub(crate) enum NoSlotSets {}

impl SlotSets for NoSlotSets {
    fn for_each_pending_parent(&self, _: usize, _: &[u64], _: impl FnMut(u64)) {
        match *self {}
    }

    fn won(&self, _: usize, _: &[u64]) {
        match *self {}
    }

    fn lost(&self, _: usize) -> Vec<u64> {
        match *self {}
    }
}

/// Whether a work word is of a position that may still lose: pending, and no zeroing move
/// better than a loss ([`SlotSets`]).
pub(crate) fn may_lose(state: u16) -> bool {
    state & PENDING != 0 && matches!(kind_of(state), PLAIN | LATE_LOSS)
}

/// Positions decided, by the depth at which their parents are to be updated, and side.
type Frontiers = BTreeMap<u32, [Vec<u64>; 2]>;

/// A part of a table, solved on its own after every part its pushes reach: the entries of
/// one level of pawn advancement, or those of a placement of the pawns and its mirror image.
/// No move that stays leaves a part.
pub(crate) struct Part {
    /// The ranges its entries lie in.
    pub(crate) spans: Vec<Range<u64>>,
    /// Where the ranges hold entries of other parts too: the level of this one's.
    pub(crate) level: Option<u8>,
}

impl Part {
    /// The levels of pawn advancement `levels`, each a part over all `entries`.
    pub(crate) fn levels(levels: impl IntoIterator<Item = u8>, entries: u64) -> Vec<Part> {
        levels
            .into_iter()
            .map(|level| Part {
                spans: std::iter::once(0..entries).collect(),
                level: Some(level),
            })
            .collect()
    }
}

/// What one part's passes took.
pub(crate) struct PartReport {
    pub(crate) depths: u32,
    pub(crate) init_seconds: f64,
    pub(crate) retrograde_seconds: f64,
}

/// Solves every part of `moves` in turn ([`solve_part`]) into `states`, under a rule of
/// `rule` plies; reports to `observer` as the table `name`, its init phase counting each
/// part's pass over its ranges.
pub(crate) fn solve_parts(
    moves: &impl RuleMoves,
    states: &[SideWords; 2],
    rule: u32,
    name: &str,
    observer: &dyn Observer,
) -> Result<PartReport, GenError> {
    let parts = moves.parts();
    let spanned: u64 = parts
        .iter()
        .flat_map(|part| &part.spans)
        .map(|span| span.end - span.start)
        .sum();
    observer.phase(name, Phase::Init, 2 * spanned);
    let mut total = PartReport {
        depths: 0,
        init_seconds: 0.0,
        retrograde_seconds: 0.0,
    };
    for part in &parts {
        let report = solve_part(moves, states, rule, part, name, observer)?;
        total.depths = total.depths.max(report.depths);
        total.init_seconds += report.init_seconds;
        total.retrograde_seconds += report.retrograde_seconds;
    }
    Ok(total)
}

/// Solves the entries of `part` with the moves of `moves`, under a rule of `rule` plies,
/// into `states`: their first words, then the passes of each depth. What is still pending at
/// the end is drawn, and stays so in `states` (a pending word is a draw, [`final_value`]).
/// Reports to `observer` as the table `name`.
fn solve_part<M: RuleMoves>(
    moves: &M,
    states: &[SideWords; 2],
    rule: u32,
    part: &Part,
    name: &str,
    observer: &dyn Observer,
) -> Result<PartReport, GenError> {
    const CHUNK: u64 = 1 << 14;
    let fail: Mutex<Option<GenError>> = Mutex::new(None);
    let record = |e: GenError| {
        fail.lock()
            .expect("no panics while locked")
            .get_or_insert(e);
    };
    let failed = || fail.lock().expect("no panics while locked").take();
    let unsupported = |reason: String| GenError::Unsupported {
        material: name.to_string(),
        reason,
    };
    let began = Instant::now();
    let chunks: Vec<Range<u64>> = part
        .spans
        .iter()
        .flat_map(|span| {
            (span.start..span.end)
                .step_by(CHUNK as usize)
                .map(|begin| begin..(begin + CHUNK).min(span.end))
        })
        .collect();
    let frontiers: Mutex<Frontiers> = Mutex::new(BTreeMap::new());
    // The positions with a zeroing move into a blessed loss, by side: won in `N + 1` unless
    // sooner.
    let late_wins: Mutex<[Vec<u64>; 2]> = Mutex::new([Vec::new(), Vec::new()]);
    let legal = AtomicU64::new(0);
    chunks.par_iter().for_each(|chunk| {
        let (begin, end) = (chunk.start, chunk.end);
        let mut due: Vec<(u32, usize, u64)> = Vec::new();
        let mut late: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
        let mut positions = 0;
        moves.first_words(states, begin..end, part.level, |s, i, word| match word {
            Ok((NO_POSITION, _)) => {}
            Ok((state, at)) => {
                positions += 1;
                if state & PENDING != 0 && kind_of(state) == LATE_WIN {
                    late[s].push(i);
                }
                states[s][i as usize].store(state, Ordering::Relaxed);
                if let Some(depth) = at {
                    due.push((depth, s, i));
                }
            }
            Err(e) => record(e),
        });
        legal.fetch_add(positions, Ordering::Relaxed);
        if late.iter().any(|side| !side.is_empty()) {
            let mut all = late_wins.lock().expect("no panics while locked");
            for (all, late) in all.iter_mut().zip(late) {
                all.extend(late);
            }
        }
        if !due.is_empty() {
            let mut frontiers = frontiers.lock().expect("no panics while locked");
            for (depth, s, i) in due {
                frontiers.entry(depth).or_default()[s].push(i);
            }
        }
        observer.progressed(2 * (end - begin));
    });
    if let Some(e) = failed() {
        return Err(e);
    }
    let mut frontiers = frontiers.into_inner().expect("no panics while locked");
    let mut late_wins = late_wins.into_inner().expect("no panics while locked");
    let ways_out = moves.slot_sets(states, part);
    let init_seconds = began.elapsed().as_secs_f64();
    let began = Instant::now();
    observer.phase(name, Phase::Retrograde, legal.into_inner());

    let mut depth: u32 = 0;
    loop {
        let late = late_wins.iter().any(|side| !side.is_empty());
        if depth == rule + 1 && late {
            // A zeroing move into a blessed loss wins in N + 1, if nothing sooner did.
            let target = decided(Dtz::Win(rule + 1));
            for (s, side) in states.iter().enumerate() {
                let found: Vec<u64> = std::mem::take(&mut late_wins[s])
                    .into_par_iter()
                    .filter(|&i| {
                        let word = &side[i as usize];
                        let old = word.load(Ordering::Relaxed);
                        old & PENDING != 0
                            && kind_of(old) == LATE_WIN
                            && word
                                .compare_exchange(old, target, Ordering::Relaxed, Ordering::Relaxed)
                                .is_ok()
                    })
                    .collect();
                frontiers.entry(depth).or_default()[s].extend(found);
            }
        }
        let late = late_wins.iter().any(|side| !side.is_empty());
        let Some(frontier) = frontiers.remove(&depth) else {
            if frontiers.is_empty() && (!late || depth > rule + 1) {
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
        for (s, mut list) in frontier.into_iter().enumerate() {
            let parents = &states[1 - s];
            // In order, so that a source may take neighbouring entries together.
            list.par_sort_unstable();
            list.par_chunks(4096).for_each(|chunk| {
                let (mut wins, mut losses) = (Vec::new(), Vec::<(u32, u64)>::new());
                let mut cache = M::CountCache::default();
                let (lost, won): (Vec<u64>, Vec<u64>) = chunk.iter().partition(|&&i| {
                    let value = final_value(states[s][i as usize].load(Ordering::Relaxed));
                    matches!(value, Dtz::Loss(_))
                });
                let mut win = |j: u64| {
                    if mark_win(&parents[j as usize], depth) {
                        wins.push(j);
                    }
                };
                let marked = match &ways_out {
                    Some(sets) => {
                        sets.for_each_pending_parent(s, &lost, win);
                        Ok(())
                    }
                    None => moves.for_each_parent_of_all(s, &lost, false, |j, _| win(j)),
                };
                let counted = match &ways_out {
                    Some(finder) => {
                        finder.won(s, &won);
                        Ok(())
                    }
                    None => moves.for_each_parent_of_all(s, &won, true, |j, weight| {
                        let count = || moves.count_stays(1 - s, j, &mut cache);
                        match subtract(&parents[j as usize], weight, depth, rule, count) {
                            Ok(Some(at)) => losses.push((at, j)),
                            Ok(None) => {}
                            Err(()) => record(GenError::Inconsistent {
                                material: name.to_string(),
                                fen: format!("entry {j}: its moves miscounted"),
                            }),
                        }
                    }),
                };
                for result in [marked, counted] {
                    if let Err(e) = result {
                        record(e);
                    }
                }
                let mut next = next.lock().expect("no panics while locked");
                next.entry(depth + 1).or_default()[1 - s].extend(wins);
                for (at, j) in losses {
                    next.entry(at).or_default()[1 - s].push(j);
                }
                observer.progressed(chunk.len() as u64);
            });
            if let Some(finder) = &ways_out {
                let lost: Vec<(u32, u64)> = finder
                    .lost(s)
                    .into_par_iter()
                    .filter_map(|j| lose(&parents[j as usize], depth, rule).map(|at| (at, j)))
                    .collect();
                let mut next = next.lock().expect("no panics while locked");
                for (at, j) in lost {
                    next.entry(at).or_default()[1 - s].push(j);
                }
            }
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
    // What is still pending in this part is drawn: its word stays pending, which
    // `final_value` reads as a draw, and no later part touches it (the moves that stay keep
    // every pawn where it stands).
    Ok(PartReport {
        depths: depth,
        init_seconds,
        retrograde_seconds: began.elapsed().as_secs_f64(),
    })
}

/// A parent of a loss in `depth`, still pending, becomes a win in `depth + 1`: whether it did.
fn mark_win(state: &AtomicU16, depth: u32) -> bool {
    let mut old = state.load(Ordering::Relaxed);
    while old & PENDING != 0 {
        match state.compare_exchange_weak(
            old,
            decided(Dtz::Win(depth + 1)),
            Ordering::Relaxed,
            Ordering::Relaxed,
        ) {
            Ok(_) => return true,
            Err(now) => old = now,
        }
    }
    false
}

/// A position with no way out left after the wins of `depth` ([`SlotSets`]), if it may
/// still lose, is lost: in `depth + 1` or, with a zeroing move into a cursed win, in
/// `rule + 1`. Returns the depth at which the loss is to be un-moved.
fn lose(state: &AtomicU16, depth: u32, rule: u32) -> Option<u32> {
    let old = state.load(Ordering::Relaxed);
    if !may_lose(old) {
        return None;
    }
    let plies = match kind_of(old) {
        LATE_LOSS => (depth + 1).max(rule + 1),
        _ => depth + 1,
    };
    let new = decided(Dtz::Loss(plies));
    state
        .compare_exchange(old, new, Ordering::Relaxed, Ordering::Relaxed)
        .ok()
        .map(|_| plies)
}

/// A parent of a win in `depth`: its counter drops by `weight` (its moves counted by `count`
/// first where they are not yet); at zero it is lost, in `depth + 1` or, with a zeroing move
/// into a cursed win, in `rule + 1`. Returns the depth at which the loss is to be un-moved, if
/// it is found now; an error if the counter would drop below zero.
fn subtract(
    state: &AtomicU16,
    weight: u16,
    depth: u32,
    rule: u32,
    count: impl FnOnce() -> u32,
) -> Result<Option<u32>, ()> {
    let kind = match take(
        state,
        weight,
        |kind| matches!(kind, ESCAPE | LATE_WIN),
        count,
    ) {
        Taken::Untouched | Taken::Counted => return Ok(None),
        Taken::Underflow => return Err(()),
        Taken::Emptied { kind } => kind,
    };
    let plies = match kind {
        LATE_LOSS => (depth + 1).max(rule + 1),
        _ => depth + 1,
    };
    state.store(decided(Dtz::Loss(plies)), Ordering::Relaxed);
    Ok(Some(plies))
}

/// A side's work words, zero (no position yet) at first: zeroed memory that the kernel is
/// asked to back with huge pages (`crate::fast::words`), as the passes reach all over it.
pub struct SideWords {
    words: Words,
    entries: usize,
}

impl std::ops::Deref for SideWords {
    type Target = [AtomicU16];

    #[inline(always)]
    fn deref(&self) -> &[AtomicU16] {
        &self.words.halves()[..self.entries]
    }
}

/// A side's work words, `entries` of them, every one [`NO_POSITION`].
pub(crate) fn new_words(entries: usize) -> SideWords {
    SideWords {
        words: Words::zeroed(entries.div_ceil(4)),
        entries,
    }
}
