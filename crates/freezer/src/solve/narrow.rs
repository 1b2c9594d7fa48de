//! The narrow work layout ([`WorkLayout::Narrow`]): one byte per entry and side to move and nothing
//! beside it, so that index spaces of 2³² entries and more fit in memory (two bytes per entry
//! with both sides to move: 8 GiB for 2³² entries).
//!
//! Owns: the narrow codes and the narrow phases. It finds the values the wide layout finds, by
//! the same two phases (the parent module's docs), with two changes.
//!
//! - **No lists of entries by depth.** Depth `d` is a scan over every code for the byte of
//!   depth `d`. The entries decided at depth `d` are exactly those holding that byte when the
//!   scan starts: an entry decided during the scan gets depth `d + 1` or more, and a better win
//!   found later replaces the byte before its own scan.
//! - **No move counters or exit flags.** A position becomes a loss when a *forward check* finds
//!   that every move reaches a win of the opponent: a win with a depth of at most `d` (so that
//!   the loss is found at the depth at which its last move is won, as the counters find it), or
//!   an exit valued a win with a depth. A check is made when a position a move reaches has just
//!   been won, and only when it can succeed: an undecided byte keeps the square that the first
//!   move found not yet won at its last check goes to, and the position is checked again only
//!   when a position reached by a move to that square is won. That move cannot be won before,
//!   so no loss is missed; a check that finds an exit valued a draw (or anything but a win of
//!   the opponent with a depth) marks the position as never lost by depth. The rule phase
//!   starts with a full check of every undecided position (won by rule if a move reaches a loss
//!   by rule, lost by rule if every move reaches a win, kept from a loss by a draw exit) and
//!   goes on retrograde with the same kind of check, the newly decided positions of each round
//!   marked with one of two generation bytes so that a scan visits each once.
//!
//! The rule phase's values are the least fixpoint of "a move reaches a loss" and "every move
//! reaches a win", which does not depend on the order positions are visited in, so the
//! parallel scans give exactly the wide layout's values; the tests compare the two layouts
//! entry by entry.
//!
//! # Codes
//!
//! | byte | meaning |
//! |---|---|
//! | 0 | undecided, not checked yet |
//! | 1–64 | undecided: at its last check, the first move not yet won went to square `byte − 1` |
//! | 65 | undecided, and an exit keeps it from a loss with a depth (in the rule phase: a draw exit keeps it from any loss) |
//! | 66–247 | a depth of `byte − 66` plies: odd a win, even a loss (at most [`NARROW_MAX_PLIES`]) |
//! | 248, 249 | a win by rule whose parents are still to visit (two generations) |
//! | 250, 251 | a loss by rule whose parents are still to visit |
//! | 252, 253 | a win by rule, a loss by rule |
//! | 254 | stalemate |
//! | 255 | not a legal position |
//!
//! On boards of more than 64 squares no square is kept (an undecided position is checked each
//! time a move's position is won).

use super::{
    Analysis, Codes, FreezeError, Observer, Phase, Verdict, DRAW_EXIT, ILLEGAL, OPPONENT_RULE_WIN,
    RULE_LOSS, RULE_WIN, RULE_WIN_EXIT, STALEMATE, UNDECIDED,
};
use rayon::prelude::*;
use retro_engine::Sq;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, Ordering};
use std::sync::Mutex;

const UNSEEN: u8 = 0;
const HINT0: u8 = 1;
const BLOCKED: u8 = 65;
const DEPTH0: u8 = 66;
/// The deepest value (plies) the narrow layout holds.
pub const NARROW_MAX_PLIES: u32 = 181;
const DEPTH_LAST: u8 = DEPTH0 + NARROW_MAX_PLIES as u8;
const RULE_WIN_NEW: [u8; 2] = [248, 249];
const RULE_LOSS_NEW: [u8; 2] = [250, 251];
const RULE_WIN_BYTE: u8 = 252;
const RULE_LOSS_BYTE: u8 = 253;
const STALEMATE_BYTE: u8 = 254;
const ILLEGAL_BYTE: u8 = 255;

/// Entries per piece of work of a parallel scan.
const CHUNK: usize = 1 << 16;

/// The wide code of a narrow byte.
pub(super) fn widen(byte: u8) -> u16 {
    match byte {
        UNSEEN..=BLOCKED => UNDECIDED,
        DEPTH0..=DEPTH_LAST => u16::from(byte - DEPTH0) + 1,
        248 | 249 | RULE_WIN_BYTE => RULE_WIN,
        250 | 251 | RULE_LOSS_BYTE => RULE_LOSS,
        STALEMATE_BYTE => STALEMATE,
        ILLEGAL_BYTE => ILLEGAL,
    }
}

/// The byte of a depth.
fn depth_byte(plies: u32) -> Result<u8, FreezeError> {
    if plies > NARROW_MAX_PLIES {
        return Err(FreezeError::TooDeep(NARROW_MAX_PLIES));
    }
    Ok(DEPTH0 + plies as u8)
}

/// Writes `new` into `cell` while the byte there is one `replaceable` accepts (retrying when
/// another thread changes it first); whether it wrote.
fn raise(cell: &AtomicU8, new: u8, replaceable: impl Fn(u8) -> bool) -> bool {
    let mut now = cell.load(Ordering::Relaxed);
    while replaceable(now) {
        match cell.compare_exchange_weak(now, new, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return true,
            Err(actual) => now = actual,
        }
    }
    false
}

/// What a forward check found.
enum Forward {
    /// Every move reaches a win of the opponent; the longest of those with a depth (plies).
    Lost(u32),
    /// A move reaches a loss of the opponent (the rule phase).
    Won,
    /// The first move found not reaching a win goes to this square.
    Unwon(Sq),
    /// An exit keeps the position from a loss (of the kind the phase looks for) for good.
    Blocked,
}

/// The first error of a parallel phase.
struct Failure(Mutex<Option<FreezeError>>);

impl Failure {
    fn new() -> Failure {
        Failure(Mutex::new(None))
    }

    fn keep(&self, e: FreezeError) {
        self.0.lock().expect("no panics").get_or_insert(e);
    }

    fn failed(&self) -> bool {
        self.0.lock().expect("no panics").is_some()
    }

    fn result(&self) -> Result<(), FreezeError> {
        match self.0.lock().expect("no panics").take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Analysis<'_> {
    fn narrow(&self) -> &[Vec<AtomicU8>; 2] {
        match &self.codes {
            Codes::Narrow(c) => c,
            Codes::Wide(_) => unreachable!("a narrow phase on a wide analysis"),
        }
    }

    /// Whether undecided bytes keep a square.
    fn hints(&self) -> bool {
        self.problem.geo.square_count() <= 64
    }

    /// Whether an undecided position holding `now` may have lost its last move not yet won
    /// when a position reached by a move to `to` is won: it was never checked, or its last
    /// check stopped at a move to `to`.
    fn waits_on(&self, now: u8, to: Sq) -> bool {
        now == UNSEEN || (self.hints() && now == HINT0 + to)
    }

    /// The byte of an undecided position whose first move not yet won goes to `to`.
    fn unwon_byte(&self, to: Sq) -> u8 {
        if self.hints() {
            HINT0 + to
        } else {
            UNSEEN
        }
    }

    /// Calls `visit` with every parent of `entry` and the square its move goes to, until one
    /// fails; `Ok(true)` when none does (a visited entry, for [`Analysis::scan`]).
    fn visit_parents(
        &self,
        entry: u64,
        mut visit: impl FnMut(u64, Sq) -> Result<(), FreezeError>,
    ) -> Result<bool, FreezeError> {
        let mut result = Ok(());
        self.for_each_parent(entry, |parent, to| {
            if result.is_ok() {
                result = visit(parent, to);
            }
        });
        result.map(|()| true)
    }

    /// Both phases in the narrow layout.
    pub(super) fn solve_narrow(&mut self, observer: &dyn Observer) -> Result<(), FreezeError> {
        let deepest = self.narrow_init(observer)?;
        self.depths = self.narrow_depths(deepest, observer)?;
        self.narrow_rules(observer)
    }

    /// Calls `visit(entry, cell)` for every entry of both sides, a chunk at a time in parallel,
    /// and reports each chunk's visits that return `true` as progress.
    fn scan(
        &self,
        failure: &Failure,
        observer: &dyn Observer,
        visit: impl Fn(u64, &AtomicU8) -> Result<bool, FreezeError> + Sync,
    ) -> Result<u64, FreezeError> {
        let total = AtomicU64::new(0);
        for (x, codes) in self.narrow().iter().enumerate() {
            codes
                .par_chunks(CHUNK)
                .enumerate()
                .for_each(|(chunk, cells)| {
                    if failure.failed() {
                        return;
                    }
                    let first = (chunk * CHUNK) as u64;
                    let mut counted = 0;
                    for (k, cell) in cells.iter().enumerate() {
                        let entry = (first + k as u64) << 1 | x as u64;
                        match visit(entry, cell) {
                            Ok(true) => counted += 1,
                            Ok(false) => {}
                            Err(e) => {
                                failure.keep(e);
                                return;
                            }
                        }
                    }
                    observer.progressed(counted);
                    total.fetch_add(counted, Ordering::Relaxed);
                });
        }
        failure.result()?;
        Ok(total.into_inner())
    }

    /// Mates, stalemates, illegal entries, exits into losses of the opponent; returns the
    /// deepest depth written.
    fn narrow_init(&self, observer: &dyn Observer) -> Result<u32, FreezeError> {
        observer.phase(self.subject(), Phase::Init, 2 * self.space.entries());
        let deepest = AtomicU32::new(0);
        let failure = Failure::new();
        self.scan(&failure, observer, |entry, cell| {
            let (x, index) = ((entry & 1) as usize, entry >> 1);
            let (code, _, flags) = self.classify(x, index)?;
            let byte = match code {
                ILLEGAL => ILLEGAL_BYTE,
                STALEMATE => STALEMATE_BYTE,
                UNDECIDED if flags & (DRAW_EXIT | OPPONENT_RULE_WIN | RULE_WIN_EXIT) != 0 => {
                    BLOCKED
                }
                UNDECIDED => UNSEEN,
                c => {
                    let plies = u32::from(c) - 1;
                    deepest.fetch_max(plies, Ordering::Relaxed);
                    depth_byte(plies)?
                }
            };
            cell.store(byte, Ordering::Relaxed);
            Ok(true)
        })?;
        Ok(deepest.into_inner())
    }

    /// The depth phase, a scan per depth; returns the number of scans.
    fn narrow_depths(&self, deepest: u32, observer: &dyn Observer) -> Result<u32, FreezeError> {
        observer.phase(self.subject(), Phase::Retrograde, 2 * self.space.entries());
        let deepest = AtomicU32::new(deepest);
        let failure = Failure::new();
        let mut d = 0;
        while d <= deepest.load(Ordering::Relaxed) {
            let byte = depth_byte(d)?;
            self.scan(&failure, observer, |entry, cell| {
                if cell.load(Ordering::Relaxed) != byte {
                    return Ok(false);
                }
                self.visit_parents(entry, |parent, to| {
                    self.depth_parent(parent, to, d, &deepest)
                })
            })?;
            d += 1;
        }
        Ok(d)
    }

    /// A parent of an entry decided at depth `d` (reached by a move to `to`).
    fn depth_parent(
        &self,
        parent: u64,
        to: Sq,
        d: u32,
        deepest: &AtomicU32,
    ) -> Result<(), FreezeError> {
        let cell = &self.narrow()[(parent & 1) as usize][(parent >> 1) as usize];
        if d % 2 == 0 {
            // A loss in d: the parent wins in d + 1 unless it wins sooner. (A parent of a loss
            // is never lost, so a depth byte beyond the new one is a slower win.)
            let win = depth_byte(d + 1)?;
            if raise(cell, win, |now| {
                now <= BLOCKED || (now > win && now <= DEPTH_LAST)
            }) {
                deepest.fetch_max(d + 1, Ordering::Relaxed);
            }
            return Ok(());
        }
        let now = cell.load(Ordering::Relaxed);
        // A win in d: the parent may have lost its last move not won.
        if !self.waits_on(now, to) {
            return Ok(());
        }
        let new = match self.forward_depth(parent, d)? {
            Forward::Lost(longest) => {
                deepest.fetch_max(longest + 1, Ordering::Relaxed);
                depth_byte(longest + 1)?
            }
            Forward::Unwon(sq) => self.unwon_byte(sq),
            Forward::Blocked | Forward::Won => BLOCKED,
        };
        // A failed exchange means another check of the same position got there first.
        let _ = cell.compare_exchange(now, new, Ordering::Relaxed, Ordering::Relaxed);
        Ok(())
    }

    /// Whether every move of `entry` reaches a win of the opponent with a depth of at most `d`
    /// inside the index, or any depth through an exit.
    fn forward_depth(&self, entry: u64, d: u32) -> Result<Forward, FreezeError> {
        let mut longest = 0;
        let mut found = None;
        let legal = self.for_each_valued_move(entry, |to, value, inside| {
            match value {
                Verdict::Win(Some(k)) if k <= d || !inside => longest = longest.max(k),
                _ if inside => found = Some(Forward::Unwon(to)),
                _ => found = Some(Forward::Blocked),
            }
            found.is_none()
        })?;
        Ok(match found {
            Some(f) => f,
            None if legal => Forward::Lost(longest),
            None => Forward::Blocked,
        })
    }

    /// The rule phase: a full check of every undecided entry, then rounds of retrograde visits.
    fn narrow_rules(&self, observer: &dyn Observer) -> Result<(), FreezeError> {
        observer.phase(self.subject(), Phase::Rules, 2 * self.space.entries());
        let failure = Failure::new();
        self.scan(&failure, observer, |entry, cell| {
            let now = cell.load(Ordering::Relaxed);
            if now > BLOCKED {
                return Ok(true);
            }
            let new = self.rule_byte(self.forward_rule(entry, true)?, 0);
            let _ = cell.compare_exchange(now, new, Ordering::Relaxed, Ordering::Relaxed);
            Ok(true)
        })?;
        let mut generation = 0;
        loop {
            let (fresh_win, fresh_loss) = (RULE_WIN_NEW[generation], RULE_LOSS_NEW[generation]);
            let next = 1 - generation;
            let visited = self.scan(&failure, &retro_gen::Silent, |entry, cell| {
                let now = cell.load(Ordering::Relaxed);
                let lost = match now {
                    b if b == fresh_win => false,
                    b if b == fresh_loss => true,
                    _ => return Ok(false),
                };
                cell.store(
                    if lost { RULE_LOSS_BYTE } else { RULE_WIN_BYTE },
                    Ordering::Relaxed,
                );
                self.visit_parents(entry, |parent, to| self.rule_parent(parent, to, lost, next))
            })?;
            if visited == 0 {
                return Ok(());
            }
            generation = next;
        }
    }

    /// A parent of an entry just decided by rule (`lost`: a loss), reached by a move to `to`.
    fn rule_parent(
        &self,
        parent: u64,
        to: Sq,
        lost: bool,
        generation: usize,
    ) -> Result<(), FreezeError> {
        let cell = &self.narrow()[(parent & 1) as usize][(parent >> 1) as usize];
        if lost {
            raise(cell, RULE_WIN_NEW[generation], |now| now <= BLOCKED);
            return Ok(());
        }
        let now = cell.load(Ordering::Relaxed);
        if !self.waits_on(now, to) {
            return Ok(());
        }
        let new = self.rule_byte(self.forward_rule(parent, false)?, generation);
        let _ = cell.compare_exchange(now, new, Ordering::Relaxed, Ordering::Relaxed);
        Ok(())
    }

    /// The byte a rule-phase check leads to, decided ones in `generation`.
    fn rule_byte(&self, found: Forward, generation: usize) -> u8 {
        match found {
            Forward::Won => RULE_WIN_NEW[generation],
            Forward::Lost(_) => RULE_LOSS_NEW[generation],
            Forward::Unwon(sq) => self.unwon_byte(sq),
            Forward::Blocked => BLOCKED,
        }
    }

    /// The rule phase's check of `entry`: a move to a loss of the opponent (any kind) wins; a
    /// draw exit rules a loss out; otherwise the first move to a position not won by the
    /// opponent, or a loss. `full` looks at every move (a win may follow an unwon move);
    /// otherwise the check stops at the first move that is not to a win of the opponent.
    fn forward_rule(&self, entry: u64, full: bool) -> Result<Forward, FreezeError> {
        let (mut won, mut drawn, mut unwon) = (false, false, None);
        let legal = self.for_each_valued_move(entry, |to, value, inside| match value {
            Verdict::Win(_) => true,
            Verdict::Loss(_) => {
                won = true;
                false
            }
            Verdict::Draw if inside => {
                unwon.get_or_insert(to);
                full
            }
            Verdict::Draw => {
                drawn = true;
                full
            }
        })?;
        Ok(if won {
            Forward::Won
        } else if drawn || !legal {
            Forward::Blocked
        } else if let Some(sq) = unwon {
            Forward::Unwon(sq)
        } else {
            Forward::Lost(0)
        })
    }
}
