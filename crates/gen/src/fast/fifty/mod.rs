//! The fast core's moves for the fifty-move rule's passes: DTZ50 and WDL50 over the slot
//! layout, with the attack tables, un-moves and move counts of the depth-to-mate passes.
//!
//! Owns: `build`, a table's work words by slot (`crate::fifty::solve_parts` decides them,
//! from the moves `SlotMoves` gives), and `write_words`, the words in the order of the
//! stored index.
//! Must never: decide a value (the rule's passes do), or be trusted: `retro verify` proves
//! every table written from it, and tests compare its files with the engine's moves' byte for
//! byte.
//!
//! A slot's first word comes from its zeroing moves: its captures and promotions read in the
//! smaller tables' WDL50 companions, loaded into their layouts, its pushes in the parts solved
//! before. Its quiet moves are counted only when a pass first reaches it from a win
//! (`RuleMoves::count_stays`), as often as the un-moves of their children will give the slot
//! back (`SlotMoves::visits`), each un-move then weighing 1; the first word asks only whether
//! there is one, and only in check or where every zeroing move loses. The first words go a
//! run of the last man at a time, the un-moves of each depth's decided slots too
//! (`Core::for_each_parent_run`). Where the passes go a run at a time, the losses come from
//! the ways out of the parents the wins reach (`ways_out`), and no move is counted.
//!
//! Pawns never move within the passes: a pawn's move is zeroing. A push that stays in the
//! table is read, like a capture, in the words of a part solved before. Where the pawns are
//! all of one side and the last man is no pawn, the layout is sliced by the pawns' squares
//! (`Layout::sliced`) and a part is a placement of the pawns with its mirror image, a few
//! contiguous stretches of slots that the passes do not leave; elsewhere a part is a *level*,
//! how far the pawns have come (each White pawn's rank, each Black pawn's ranks from the top,
//! added up), which every push raises, the levels solved from the highest down. Either way the
//! whole layout is held in memory.
//!
//! With pawns of both sides, a double step an en-passant capture can answer reaches a position
//! of its own, `E` (numbered by [`EpLayout`]), with every move of its placement `P` and the
//! captures besides. No move that stays reaches `E`, so it never takes part in the passes: its
//! value is the better, for the side to move, of `P`'s final value and its best capture's (the
//! captures' alone where `P` has no move), found when a double step first reads it, after
//! `P`'s level is solved, and for the rest once every level is.

mod ways_out;

use super::convert::{ep_stored_index, write_scattered_entries, Kept};
use super::index_walk::{group_fields, PairWalk, Stretch};
use super::init::{RunAt, RunExits};
use super::*;
use crate::fifty::{
    final_value, first_word, new_words, solve_parts, Exits, Part, RuleMoves, SideWords, Stays,
    NO_POSITION,
};
use retro_engine::Indexer;
use retro_format::{Dtz, FormatError, TableWriter, Wdl};
use std::sync::atomic::AtomicU16;

/// What [`build`] computed: the work words by side to move and slot.
pub struct FiftyBuilt {
    /// The layout of the slots.
    pub layout: Layout,
    /// By side to move and slot, the rule's work words (`crate::fifty::final_value`).
    pub words: [SideWords; 2],
    /// The en-passant positions' words, where both sides have pawns.
    pub ep: Option<EpWords>,
    /// Passes of the iteration.
    pub depths: u32,
    /// Seconds spent finding the first words.
    pub init_seconds: f64,
    /// Seconds spent in the passes.
    pub retrograde_seconds: f64,
}

/// The en-passant positions of a table with pawns of both sides: their numbering, and by
/// side to move and number their work words (`0` for a number that is no position).
pub struct EpWords {
    /// The numbering.
    pub layout: EpLayout,
    /// By side to move and number, the words (all found once the build is done).
    pub words: [Vec<AtomicU16>; 2],
}

/// The word of an en-passant position not found yet (a pending word, which no final value is).
const EP_UNREAD: u16 = u16::MAX;

impl EpWords {
    fn new(layout: EpLayout) -> EpWords {
        let words = [0, 1].map(|x| {
            let mut v = Vec::new();
            v.resize_with(layout.size(x) as usize, || AtomicU16::new(EP_UNREAD));
            v
        });
        EpWords { layout, words }
    }
}

/// The fifty-move tables of `material` on `geo`'s board under a rule of `rule` plies, with
/// `subs` the WDL50 tables of [`exit_targets`] in that order (loaded whole). Declines a board
/// or material outside the layout.
pub fn build(
    geo: &Geometry,
    material: Material,
    subs: &[Subtable],
    rule: u32,
    observer: &dyn Observer,
) -> Result<FiftyBuilt, Declined> {
    if subs.iter().any(|sub| !matches!(sub.kept, Kept::All)) {
        return Err(Declined::Unsupported);
    }
    let layout = layout(geo, material).ok_or(Declined::Unsupported)?;
    let bits = Bits::new(geo).ok_or(Declined::Unsupported)?;
    let slots = usize::try_from(layout.size()).map_err(|_| Declined::Unsupported)?;
    let parts = Parts::new(geo, material, &bits, &layout, None, subs, Tuning::default());
    let words = [new_words(slots), new_words(slots)];
    let ep = EpLayout::new(geo, &layout, &material.men()).map(EpWords::new);
    let ep_words = ep.as_ref();
    let report = match material.men().len() {
        2 => solve::<2>(&parts, &words, ep_words, rule, observer),
        3 => solve::<3>(&parts, &words, ep_words, rule, observer),
        4 => solve::<4>(&parts, &words, ep_words, rule, observer),
        5 => solve::<5>(&parts, &words, ep_words, rule, observer),
        6 => solve::<6>(&parts, &words, ep_words, rule, observer),
        7 => solve::<7>(&parts, &words, ep_words, rule, observer),
        8 => solve::<8>(&parts, &words, ep_words, rule, observer),
        _ => return Err(Declined::Unsupported),
    }?;
    Ok(FiftyBuilt {
        layout,
        words,
        ep,
        depths: report.depths,
        init_seconds: report.init_seconds,
        retrograde_seconds: report.retrograde_seconds,
    })
}

/// The slot layout [`build`] solves `material` in on `geo`'s board: sliced by the pawns'
/// squares where they make slices, else whole; `None` outside the fast core's layouts.
pub fn layout(geo: &Geometry, material: Material) -> Option<Layout> {
    Layout::sliced(geo, material).or_else(|| Layout::new(geo, material))
}

fn solve<const N: usize>(
    parts: &Parts<'_>,
    words: &[SideWords; 2],
    ep: Option<&EpWords>,
    rule: u32,
    observer: &dyn Observer,
) -> Result<crate::fifty::PartReport, Declined> {
    let core = Core::<N>::new(parts, WorkCodes::new(0, None), &Mode::moves_only(), 0, None)?;
    let name = parts.material.to_string();
    let squares = parts.layout.square_count() as Sq;
    let fixed_with = (0..squares)
        .map(|a| {
            (0..squares)
                .filter(|&b| parts.layout.share_fixer(a, b))
                .fold(0, |set, b| set | 1 << b)
        })
        .collect();
    let geo = parts.geo;
    let progress = [Side::White, Side::Black].map(|side| {
        let mut progress = [0u8; 64];
        for (sq, step) in progress.iter_mut().enumerate().take(squares.into()) {
            let rank = geo.rank(sq as Sq);
            *step = match side {
                Side::White => rank,
                Side::Black => geo.ranks() - 1 - rank,
            };
        }
        progress
    });
    let is_pawn = |i: usize| parts.piece[i] == Piece::Pawn;
    let moves = SlotMoves {
        core,
        rule,
        fixed_with,
        outer_pawns: (0..N - 1).filter(|&i| is_pawn(i)).collect(),
        progress,
        ranks: geo.ranks(),
        ep,
        by_runs: N >= 3 && !is_pawn(N - 1) && ep.is_none(),
        sets: std::sync::OnceLock::new(),
    };
    let report = solve_parts(&moves, words, rule, &name, observer)?;
    moves.settle_ep(words)?;
    Ok(report)
}

/// The moves of the slots of a layout, for the rule's passes.
struct SlotMoves<'a, const N: usize> {
    /// A core that only moves: its cells are never written.
    core: Core<'a, N>,
    rule: u32,
    /// By square, the squares that a symmetry other than the identity fixes together with it.
    fixed_with: Vec<Board64>,
    /// The pawns among the men but the last.
    outer_pawns: Vec<usize>,
    /// By side and square, how far a pawn of that side standing there has come: its rank, or
    /// its rank from the top for Black (0 and the last rank: the end ranks).
    progress: [[u8; 64]; 2],
    ranks: u8,
    ep: Option<&'a EpWords>,
    /// Whether the first words go a run at a time ([`SlotMoves::run_first_words`]): three men
    /// or more, the last no pawn, and no en-passant positions.
    by_runs: bool,
    /// The passes' sets, made for the first part that keeps them ([`ways_out::RunSets`]).
    sets: std::sync::OnceLock<ways_out::Sets>,
}

impl<const N: usize> SlotMoves<'_, N> {
    /// The squares the last man may stand on in a slot of `level` whose other pawns have come
    /// `outer` ranks: any (but a pawn's end ranks) where the last man is no pawn and `outer`
    /// is the level, none where it is not; for a pawn, those that bring the sum to `level`.
    fn last_squares(&self, level: u8, outer: u8) -> Board64 {
        let last = N - 1;
        let shared = &self.core.shared;
        let allowed = shared.allowed[last];
        if shared.piece[last] != Piece::Pawn {
            return if outer == level { allowed } else { 0 };
        }
        let Some(wanted) = level.checked_sub(outer) else {
            return 0;
        };
        let progress = &self.progress[shared.side_of[last]];
        (0..shared.layout.square_count() as usize)
            .filter(|&sq| progress[sq] == wanted)
            .fold(0, |set, sq| set | 1 << sq)
            & allowed
    }
}

impl<const N: usize> SlotMoves<'_, N> {
    /// How many times the un-moves of the children of `p` (side `x` to move, `safety` what
    /// the other side's men mean for its king, `attacks` its men's) by the moves that stay
    /// give `p`'s slot back.
    ///
    /// Once a move, unless kings stand on squares one symmetry fixes. Where `p`'s kings do
    /// not, a king's move that makes them counts twice (`Core::count_moves`). Where they do,
    /// `p` may be its own image, so that two of the king's moves reach one position, or one
    /// un-move reaches `p` twice: the king's moves are counted as the passes will count them,
    /// each slot of each child with the king's un-move back in it, every such pair once, and
    /// how many of the parents each pair's un-move visits are `p`'s slot.
    fn visits(
        &self,
        p: &Placed<N>,
        x: usize,
        safety: &counting::KingSafety,
        attacks: &[Board64; N],
    ) -> u32 {
        let core = &self.core;
        let layout = core.shared.layout;
        let y = 1 - x;
        let men = &core.shared.side_men[x][..core.shared.side_len[x]];
        let mut moves = [0 as Board64; N];
        // A pawn's moves are zeroing: none stays.
        for &i in men.iter().filter(|&&i| core.shared.piece[i] != Piece::Pawn) {
            moves[i] = core.legal_of_targets(p, x, i, safety, attacks[i] & !p.occ);
        }
        let with_other_king = self.fixed_with[usize::from(p.sq[y])];
        let kings_shared = with_other_king & (1 << p.sq[x]) != 0;
        // A move of another man than the king needs no fold: each comes back once, from the
        // slot it reaches (where `p` is its own image, its image's move from the image).
        let others: u32 = men
            .iter()
            .filter(|&&i| i != x)
            .map(|&i| moves[i].count_ones())
            .sum();
        if !kings_shared {
            // A king's move onto a square fixed with the other king's reaches a child of two
            // slots, each un-moving to `p`, or one that is its own image, whose king un-moves
            // both to `p`'s square and to its image, each folding to `p`.
            return others + moves[x].count_ones() + (moves[x] & with_other_king).count_ones();
        }
        let from = p.sq[x];
        // (child slot, the king's square there, the square he came from there): at most
        // eight moves, each reaching at most two slots (two squares share at most one
        // symmetry other than the identity).
        let mut pairs = [(0u64, 0 as Sq, 0 as Sq); 16];
        let mut len = 0;
        for_each_bit(moves[x], |t| {
            let mut after = p.sq;
            after[x] = t;
            let map = layout.fold_map(after[0], after[1]);
            let (to, back) = (map[usize::from(t)], map[usize::from(from)]);
            layout.fold(&mut after);
            layout.for_each_image_map(&after, |slot, image| {
                pairs[len] = (slot, image[usize::from(to)], image[usize::from(back)]);
                len += 1;
            });
        });
        let pairs = &mut pairs[..len];
        pairs.sort_unstable();
        let mut visits = others;
        for (k, &(child, to, back)) in pairs.iter().enumerate() {
            if k > 0 && pairs[k - 1] == (child, to, back) {
                continue;
            }
            let sq: [Sq; N] = layout.decode_array(child);
            let fixed = layout.is_fixed(sq[0]);
            core.visit_unmove(child, &sq, x, to, back, fixed, &mut |parent, _| {
                visits += u32::from(parent == p.slot)
            });
        }
        visits
    }
}

impl<const N: usize> SlotMoves<'_, N> {
    /// Calls `visit` with the first words, both sides to move, of the slots of the run `at`
    /// whose last man stands on `squares` (`exits` a scratch list of the run's exits). As the
    /// fast DTM core's init pass does (`Core::classify_run`), the other men's attacks are found
    /// once for the run, and each of the run's captures, promotions and pushes is weighed on
    /// the squares where it holds, found with bitboards; a square where a zeroing move outside
    /// them may hold is looked at alone ([`SlotMoves::zeroing_moves`]).
    fn run_first_words<'s>(
        &'s self,
        states: &[SideWords; 2],
        at: &RunAt<N>,
        squares: Board64,
        exits: &mut RunExits<'s, N>,
        visit: &mut impl FnMut(usize, u64, Result<(u16, Option<u32>), GenError>),
    ) {
        let RunAt { run, by_side, .. } = *at;
        let sq = &at.sq;
        let core = &self.core;
        let occ = by_side[0] | by_side[1];
        let attacks = core.run_attacks(at);
        exits.exits.clear();
        exits.pushes.clear();
        exits.skip = [0; N];
        exits.skip_last = [0; N];
        core.run_exits(sq, by_side, occ, &attacks, exits);
        core.run_pushes(run, sq, occ, &mut exits.pushes);
        let empty = core.run_squares(sq, occ) & squares;
        let attacked = core.run_attacked(sq, occ, &attacks);
        // One slot's men and attacks, found where the run's sets do not do.
        let placed = |t: Sq| core.with_last_man(at, &attacks, t);
        for x in 0..2 {
            let legal = empty & !attacked[1 - x];
            let mut tally = [Exits::default(); 64];
            let mut unknown = None;
            for exit in exits.exits.iter().filter(|e| e.side == x) {
                let mut on = core.run_exit_holds(exit, sq, occ, &attacks) & legal;
                while on != 0 {
                    let t = on.trailing_zeros() as usize;
                    on &= on - 1;
                    let code = exit.code(t, &core.shared.mirror_rank);
                    self.add_exit(&mut tally[t], &mut unknown, code);
                }
            }
            for push in exits.pushes.iter().filter(|p| p.side == x) {
                let mut on = legal & !push.path;
                while on != 0 {
                    let t = on.trailing_zeros();
                    on &= on - 1;
                    let word =
                        states[1 - x][(push.base + u64::from(t)) as usize].load(Ordering::Relaxed);
                    if word != NO_POSITION {
                        tally[t as usize].add(final_value(word).class(self.rule), self.rule);
                    }
                }
            }
            if let Some(code) = unknown {
                let error = GenError::Inconsistent {
                    material: core.shared.material.to_string(),
                    fen: format!("run {run}: a capture reaches the unknown class code {code}"),
                };
                visit(x, run, Err(error));
                continue;
            }
            let elsewhere = core.run_elsewhere(x, sq, by_side, occ, &attacks, exits);
            for_each_bit(legal, |t| {
                let word = if elsewhere & (1 << t) != 0 {
                    let (p, all) = placed(t);
                    self.first_word(states, &p, x, &all)
                } else {
                    let any = || {
                        let (p, all) = placed(t);
                        self.any_stays(&p, x, &all)
                    };
                    let in_check = attacked[x] & (1 << t) != 0;
                    let material = &core.shared.material;
                    first_word(
                        Stays::Later { any },
                        tally[usize::from(t)],
                        in_check,
                        material,
                    )
                };
                visit(x, run + u64::from(t), word);
            });
        }
    }
}

/// The run whose men a pass's task counted the moves of last ([`RuleMoves::count_stays`]):
/// the next slot of the same run needs only its last man's attacks.
pub(crate) struct RunCache<const N: usize> {
    run: Option<u64>,
    at: RunAt<N>,
    /// The attacks of the men but the last, the last man off the board.
    attacks: [Board64; N],
}

impl<const N: usize> Default for RunCache<N> {
    fn default() -> Self {
        RunCache {
            run: None,
            at: RunAt {
                run: 0,
                sq: [0; N],
                by_side: [0; 2],
            },
            attacks: [0; N],
        }
    }
}

/// The last man's squares `span` of a run, as a set.
fn span_squares(span: std::ops::Range<u64>) -> Board64 {
    match span.end - span.start {
        64 => u64::MAX,
        len => ((1u64 << len) - 1) << span.start,
    }
}

impl<'a, const N: usize> RuleMoves for SlotMoves<'a, N> {
    fn parts(&self) -> Vec<Part> {
        let layout = self.core.shared.layout;
        if layout.slices() > 0 {
            // A placement of the pawns and its mirror image, after those its pushes reach.
            return layout
                .slice_groups()
                .iter()
                .map(|group| Part {
                    spans: group
                        .iter()
                        .map(|&number| {
                            let (first, end) = layout.slice_span(number);
                            first..end
                        })
                        .collect(),
                    level: None,
                })
                .collect();
        }
        let pawns = self.core.shared.piece[..N]
            .iter()
            .filter(|&&piece| piece == Piece::Pawn)
            .count() as u8;
        // Each pawn off its end ranks: from 1 to `ranks − 2` ranks come, the most first.
        let levels = (pawns..=pawns * (self.ranks.saturating_sub(2)).max(1)).rev();
        Part::levels(levels, layout.size())
    }

    fn first_words(
        &self,
        states: &[SideWords; 2],
        entries: std::ops::Range<u64>,
        level: Option<u8>,
        mut visit: impl FnMut(usize, u64, Result<(u16, Option<u32>), GenError>),
    ) {
        let core = &self.core;
        let layout = core.shared.layout;
        let bits = core.shared.bits;
        let squares = layout.square_count();
        let last = N - 1;
        let mut scratch = RunExits {
            exits: Vec::new(),
            skip: [0; N],
            skip_last: [0; N],
            pushes: Vec::new(),
        };
        // A run at a time: the slots that differ in the last man's square alone.
        let mut next_run = entries.start - entries.start % squares;
        while next_run < entries.end {
            let run = next_run;
            next_run += squares;
            let (first, end) = (run.max(entries.start), next_run.min(entries.end));
            let run_at = core.run_at(run);
            let (mut sq, outer_by_side) = (run_at.sq, run_at.by_side);
            let outer_occ = outer_by_side[0] | outer_by_side[1];
            // Men on one square, kings side by side or not as the fold leaves them (the last
            // man no king): no slot of the run is a position.
            let kings_apart = |sq: &[Sq; N]| {
                layout.kings_folded(sq[0], sq[1])
                    && bits.attacks(Piece::King, sq[0], 0) & (1 << sq[1]) == 0
            };
            if (outer_occ.count_ones() as usize) < last || (last >= 2 && !kings_apart(&sq)) {
                continue;
            }
            // A pawn on an end rank: no slot of the run is a position.
            let allowed = |i: usize| core.shared.allowed[i] & (1 << sq[i]) != 0;
            if !self.outer_pawns.iter().all(|&i| allowed(i)) {
                continue;
            }
            let outer: u8 = self
                .outer_pawns
                .iter()
                .map(|&i| self.progress[core.side_of(i)][usize::from(sq[i])])
                .sum();
            let squares_here = match level {
                Some(level) => self.last_squares(level, outer),
                None => core.shared.allowed[last],
            } & !outer_occ;
            if squares_here == 0 {
                continue;
            }
            if self.by_runs {
                let span = (first - run)..(end - run);
                let squares = squares_here & span_squares(span);
                self.run_first_words(states, &run_at, squares, &mut scratch, &mut visit);
                continue;
            }
            for slot in first..end {
                let t = (slot - run) as Sq;
                if squares_here & (1 << t) == 0 {
                    continue;
                }
                sq[last] = t;
                // Identical men out of order: a slot the layout never uses.
                if (last < 2 && !kings_apart(&sq)) || !layout.groups_sorted(&sq) {
                    continue;
                }
                let mut by_side = outer_by_side;
                by_side[core.side_of(last)] |= 1 << t;
                let p = Placed {
                    slot,
                    sq,
                    occ: outer_occ | 1 << t,
                    by_side,
                };
                let mut attacks = [0 as Board64; N];
                for (i, a) in attacks.iter_mut().enumerate() {
                    *a = core.man_attacks(i, p.sq[i], p.occ);
                }
                for x in 0..2 {
                    visit(x, slot, self.first_word(states, &p, x, &attacks));
                }
            }
        }
    }

    type CountCache = RunCache<N>;

    type Sets<'m>
        = ways_out::RunSets<'m, 'a, N>
    where
        Self: 'm;

    fn slot_sets<'m>(
        &'m self,
        states: &[SideWords; 2],
        part: &Part,
    ) -> Option<ways_out::RunSets<'m, 'a, N>> {
        self.keeps_slot_sets()
            .then(|| ways_out::RunSets::new(self, states, part))
    }

    fn count_stays(&self, x: usize, slot: u64, cache: &mut RunCache<N>) -> u32 {
        let core = &self.core;
        let layout = core.shared.layout;
        let squares = layout.square_count();
        let (run, t) = (slot - slot % squares, (slot % squares) as Sq);
        if cache.run != Some(run) {
            let at = core.run_at(run);
            cache.attacks = core.run_attacks(&at);
            cache.at = at;
            cache.run = Some(run);
        }
        let outer = cache.at.by_side[0] | cache.at.by_side[1];
        if outer & (1 << t) != 0 || outer.count_ones() as usize != N - 1 {
            return u32::MAX;
        }
        let (p, attacks) = core.with_last_man(&cache.at, &cache.attacks, t);
        let safety = self.king_safety(&p, x, &attacks);
        self.visits(&p, x, &safety, &attacks)
    }

    fn for_each_parent(
        &self,
        x: usize,
        slot: u64,
        _: bool,
        mut visit: impl FnMut(u64, u16),
    ) -> Result<(), GenError> {
        self.core
            .for_each_parent(slot, x, |parent, _| visit(parent, 1));
        Ok(())
    }

    fn for_each_parent_of_all(
        &self,
        x: usize,
        slots: &[u64],
        _: bool,
        mut visit: impl FnMut(u64, u16),
    ) -> Result<(), GenError> {
        let core = &self.core;
        if N < 3 {
            for &slot in slots {
                self.for_each_parent(x, slot, false, &mut visit)?;
            }
            return Ok(());
        }
        // A run at a time: the un-moves of the men but the last are found once for the
        // slots of one run (`Core::for_each_parent_run`).
        let squares = core.shared.layout.square_count();
        let mut sink = EveryParent(|parent| visit(parent, 1));
        for_each_run(slots, squares, |start, mask| {
            core.for_each_parent_run(start, mask, x, true, &mut sink)
        });
        Ok(())
    }
}

/// Calls `visit` with the first slot and the set of the slots of each run (of `squares`
/// slots) that `slots` (in increasing order) hold, slot `start + s` in bit `s`.
fn for_each_run(slots: &[u64], squares: u64, mut visit: impl FnMut(u64, u64)) {
    for run in slots.chunk_by(|a, b| a / squares == b / squares) {
        let start = run[0] - run[0] % squares;
        let mask = run
            .iter()
            .fold(0u64, |mask, &slot| mask | 1 << (slot - start));
        visit(start, mask);
    }
}

/// Every parent [`Core::for_each_parent_run`] finds, to one visit.
struct EveryParent<F>(F);

impl<F: FnMut(u64)> ParentSink for EveryParent<F> {
    #[inline(always)]
    fn run(&mut self, base: u64, live: u64, _: Sq) {
        for_each_bit(live, |s| (self.0)(base + u64::from(s)));
    }

    #[inline(always)]
    fn slot(&mut self, slot: u64, _: Sq, _: Sq) {
        (self.0)(slot)
    }
}

impl<const N: usize> SlotMoves<'_, N> {
    /// The first word of `p` with side `x` to move ([`RuleMoves::first_words`]), its men on
    /// distinct squares, its kings apart and as the fold leaves them.
    fn first_word(
        &self,
        states: &[SideWords; 2],
        p: &Placed<N>,
        x: usize,
        attacks: &[Board64; N],
    ) -> Result<(u16, Option<u32>), GenError> {
        let Some((exits, in_check)) = self.zeroing_moves(states, p, x, attacks)? else {
            return Ok((NO_POSITION, None));
        };
        let any = || self.any_stays(p, x, attacks);
        first_word(
            Stays::Later { any },
            exits,
            in_check,
            &self.core.shared.material,
        )
    }

    /// Whether a move of `p` (side `x` to move, `attacks` every man's) stays: a legal move of
    /// a man but a pawn that captures nothing.
    fn any_stays(&self, p: &Placed<N>, x: usize, attacks: &[Board64; N]) -> bool {
        let core = &self.core;
        let safety = self.king_safety(p, x, attacks);
        core.shared.side_men[x][..core.shared.side_len[x]]
            .iter()
            .filter(|&&i| core.shared.piece[i] != Piece::Pawn)
            .any(|&i| core.legal_of_targets(p, x, i, &safety, attacks[i] & !p.occ) != 0)
    }

    /// What the other side's men in `p` (`attacks` every man's) mean for side `x`'s king.
    fn king_safety(&self, p: &Placed<N>, x: usize, attacks: &[Board64; N]) -> counting::KingSafety {
        let core = &self.core;
        let king = 1 << p.sq[x];
        // Only a slider that attacks the king sees further with the king lifted.
        core.king_safety_from(p, x, |j| match attacks[j] & king {
            0 => attacks[j],
            _ => core.man_attacks(j, p.sq[j], p.occ ^ king),
        })
    }

    /// The zeroing moves of `p` (side `x` to move, `attacks` its men's attacks) as its first
    /// word reads them, and whether `x` is in check; `None` if `p` is no position (the side
    /// not to move in check).
    fn zeroing_moves(
        &self,
        states: &[SideWords; 2],
        p: &Placed<N>,
        x: usize,
        attacks: &[Board64; N],
    ) -> Result<Option<(Exits, bool)>, GenError> {
        let core = &self.core;
        let slot = p.slot;
        let y = 1 - x;
        let side_attacks = |side: usize| {
            core.shared.side_men[side][..core.shared.side_len[side]]
                .iter()
                .fold(0, |set, &i| set | attacks[i])
        };
        if side_attacks(x) & (1 << p.sq[y]) != 0 {
            return Ok(None);
        }
        let king = 1 << p.sq[x];
        let in_check = side_attacks(y) & king != 0;
        let mut exits = Exits::default();
        let mut unknown = None;
        core.for_each_leaving_move_but(p, attacks, x, &[0; N], |after, rule| {
            self.add_exit(&mut exits, &mut unknown, core.exit_code(after, rule, x));
        });
        // A push that stays reaches a level solved before; a slot there that is no position
        // is a push that leaves the mover's king in check. A double step reaches the position
        // with the en-passant right where that is one.
        let bits = core.shared.bits;
        let white_king_fixed = core.shared.layout.is_fixed(p.sq[0]);
        let mut failure = None;
        for &i in &core.shared.side_men[x][..core.shared.side_len[x]] {
            if core.shared.piece[i] != Piece::Pawn {
                continue;
            }
            let pushes = bits.pawn_pushes(x, p.sq[i], p.occ) & !bits.last_rank(x);
            for_each_bit(pushes, |t| {
                let (child, moved) = core.child_of(slot, &p.sq, i, t, white_king_fixed);
                let double = bits.pawn_double_back(x, t) & (1 << p.sq[i]) != 0;
                let with_right = match self.ep.filter(|_| double) {
                    Some(ep) => match ep.layout.number(child, moved) {
                        Some(number) => self.ep_word(states, y, number),
                        None => Ok(NO_POSITION),
                    },
                    None => Ok(NO_POSITION),
                };
                let word = match with_right {
                    Ok(NO_POSITION) => states[y][child as usize].load(Ordering::Relaxed),
                    Ok(word) => word,
                    Err(e) => {
                        failure.get_or_insert(e);
                        NO_POSITION
                    }
                };
                if word != NO_POSITION {
                    exits.add(final_value(word).class(self.rule), self.rule);
                }
            });
        }
        if let Some(e) = failure {
            return Err(e);
        }
        if let Some(code) = unknown {
            return Err(GenError::Inconsistent {
                material: core.shared.material.to_string(),
                fen: format!("slot {slot}: a capture reaches the unknown class code {code}"),
            });
        }
        Ok(Some((exits, in_check)))
    }

    /// Counts into `exits` a zeroing move whose smaller table's WDL50 code is `code` (none for
    /// a move that leaves the mover's king in check); an unknown code goes to `unknown`.
    fn add_exit(&self, exits: &mut Exits, unknown: &mut Option<u8>, code: u8) {
        match Wdl::from_code(u32::from(code)) {
            // The mover's king left in check: no move.
            Some(Wdl::Illegal) => {}
            Some(class) => exits.add(class, self.rule),
            None => *unknown = Some(code),
        }
    }

    /// The word of side `x`'s en-passant position `number`, found now if it was not before;
    /// its placement's level must be solved.
    fn ep_word(&self, states: &[SideWords; 2], x: usize, number: u64) -> Result<u16, GenError> {
        let ep = self.ep.expect("en-passant positions have words");
        let cell = &ep.words[x][number as usize];
        match cell.load(Ordering::Relaxed) {
            EP_UNREAD => {
                let word = self.ep_value(states, ep, x, number)?;
                cell.store(word, Ordering::Relaxed);
                Ok(word)
            }
            word => Ok(word),
        }
    }

    /// The word of side `x`'s en-passant position `number` from its placement's final value
    /// and its en-passant captures: [`NO_POSITION`] where its placement is none, the square
    /// passed over or the one the pawn came from is taken, or no capture is legal.
    fn ep_value(
        &self,
        states: &[SideWords; 2],
        ep: &EpWords,
        x: usize,
        number: u64,
    ) -> Result<u16, GenError> {
        let core = &self.core;
        let (slot, j) = ep.layout.decode(number, x);
        let placement = states[x][slot as usize].load(Ordering::Relaxed);
        let p = match core.place(slot) {
            Some(p) if placement != NO_POSITION => p,
            _ => return Ok(NO_POSITION),
        };
        let y = 1 - x;
        let bits = core.shared.bits;
        let origin = bits.pawn_double_back(y, p.sq[j]);
        if origin == 0 || p.occ & origin != 0 {
            return Ok(NO_POSITION);
        }
        let passed = ep.layout.passed(p.sq[j], origin.trailing_zeros() as Sq);
        if p.occ & (1 << passed) != 0 {
            return Ok(NO_POSITION);
        }
        let rule = core.shared.exits.captures[j].expect("pawns are captured");
        let mut captures = Exits::default();
        let mut unknown = None;
        for &i in &core.shared.side_men[x][..core.shared.side_len[x]] {
            if core.shared.piece[i] != Piece::Pawn
                || bits.pawn_attacks(x, p.sq[i]) & (1 << passed) == 0
            {
                continue;
            }
            let mut after = p.sq;
            after[i] = passed;
            self.add_exit(&mut captures, &mut unknown, core.exit_code(&after, rule, x));
        }
        if let Some(code) = unknown {
            return Err(GenError::Inconsistent {
                material: core.shared.material.to_string(),
                fen: format!(
                    "en-passant {number}: a capture reaches the unknown class code {code}"
                ),
            });
        }
        let Some(capture) = captures.best() else {
            return Ok(NO_POSITION);
        };
        let value = match final_value(placement) {
            // Mated: the captures alone.
            Dtz::Loss(0) => capture,
            // Drawn, which a stalemate is: the captures alone if the placement has no move.
            Dtz::Draw => {
                let attacks = std::array::from_fn(|i| core.man_attacks(i, p.sq[i], p.occ));
                match self.zeroing_moves(states, &p, x, &attacks)? {
                    Some((moves, _)) if !moves.any() && !self.any_stays(&p, x, &attacks) => capture,
                    _ => better(Dtz::Draw, capture),
                }
            }
            value => better(value, capture),
        };
        Ok(crate::fifty::decided(value))
    }

    /// Finds the words of the en-passant positions no double step read, once every level is
    /// solved.
    fn settle_ep(&self, states: &[SideWords; 2]) -> Result<(), GenError> {
        let Some(ep) = self.ep else {
            return Ok(());
        };
        for (x, words) in ep.words.iter().enumerate() {
            words
                .par_iter()
                .enumerate()
                .with_min_len(1 << 12)
                .try_for_each(|(number, word)| match word.load(Ordering::Relaxed) {
                    EP_UNREAD => self.ep_word(states, x, number as u64).map(|_| ()),
                    _ => Ok(()),
                })?;
        }
        Ok(())
    }
}

/// The better of two values for the side to move: the shorter win, then a draw, then the
/// longer loss.
fn better(a: Dtz, b: Dtz) -> Dtz {
    let rank = |v: Dtz| match v {
        Dtz::Win(n) => (3, -i64::from(n)),
        Dtz::Draw => (2, 0),
        Dtz::Loss(n) => (1, i64::from(n)),
        Dtz::Illegal => (0, 0),
    };
    match rank(a) >= rank(b) {
        true => a,
        false => b,
    }
}

/// One file [`write_words`] writes: its writer, the bytes of an entry, and the code of each
/// work word in it.
pub struct WordsOut<'w> {
    /// The file being written.
    pub writer: &'w TableWriter,
    /// Bytes an entry (1 or 2).
    pub width: usize,
    /// An entry's code from its work word.
    pub code: &'w (dyn Fn(u16) -> u32 + Sync),
}

/// Writes the codes of `words` into `out`, `width` bytes each, from `codes` (the code of every
/// word, by word).
#[inline(always)]
fn put_codes(out: &mut [u8], width: usize, codes: &[u16], words: &[u16]) {
    match width {
        1 => {
            for (entry, &word) in out.iter_mut().zip(words) {
                *entry = codes[usize::from(word)] as u8;
            }
        }
        _ => {
            for (entry, &word) in out.chunks_exact_mut(2).zip(words) {
                entry.copy_from_slice(&codes[usize::from(word)].to_le_bytes());
            }
        }
    }
}

/// Writes the stored bodies (both sides to move, in the order of `indexer`) of the words
/// `built` holds into every file of `files` in one walk over the layout, one king pair at a
/// time, then the en-passant positions'.
pub fn write_words(
    geo: &Geometry,
    indexer: &Indexer,
    built: &FiftyBuilt,
    files: &[WordsOut<'_>],
) -> Result<(), FormatError> {
    let layout = &built.layout;
    let groups = group_fields(indexer);
    let inner = indexer.inner_size() as usize;
    let entries = indexer.size();
    let tasks: Vec<(usize, usize)> = (0..2)
        .flat_map(|x| (0..indexer.king_pairs()).map(move |pair| (x, pair)))
        .collect();
    // Every word's code in each file, looked up rather than worked out an entry at a time.
    let codes: Vec<Vec<u16>> = files
        .iter()
        .map(|file| {
            (0..=u16::MAX)
                .map(|word| (file.code)(word) as u16)
                .collect()
        })
        .collect();
    tasks.par_iter().copied().try_for_each_init(
        || {
            let outs: Vec<Vec<u8>> = files.iter().map(|f| vec![0u8; inner * f.width]).collect();
            (outs, Vec::new())
        },
        |(outs, scratch), (x, pair)| {
            let words = &built.words[x];
            let read = |slot: u64| words[slot as usize].load(Ordering::Relaxed);
            for out in outs.iter_mut() {
                out.fill(0);
            }
            let walk = PairWalk::new(geo, indexer, layout, groups.as_deref());
            walk.for_each_stretch(Side::ALL[x], pair, None, |stretch| match stretch {
                Stretch::Run(run) => {
                    scratch.clear();
                    scratch.extend((0..run.len).map(|k| read(run.base + k as u64 * run.stride)));
                    for ((file, out), codes) in files.iter().zip(outs.iter_mut()).zip(&codes) {
                        let stretch = &mut out[run.at * file.width..][..run.len * file.width];
                        put_codes(stretch, file.width, codes, scratch);
                        run.clear_images(layout, stretch, file.width);
                    }
                }
                Stretch::One { at, slot } => {
                    let word = [read(slot)];
                    for ((file, out), codes) in files.iter().zip(outs.iter_mut()).zip(&codes) {
                        let entry = &mut out[at * file.width..][..file.width];
                        put_codes(entry, file.width, codes, &word);
                    }
                }
            });
            let first = pair as u64 * inner as u64;
            files.iter().zip(outs.iter()).try_for_each(|(file, out)| {
                let at = (x as u64 * entries + first) * file.width as u64;
                file.writer.write_body_at(at, out)
            })
        },
    )?;
    let Some(ep) = &built.ep else {
        return Ok(());
    };
    for (x, words) in ep.words.iter().enumerate() {
        let found: Vec<(u64, u16)> = words
            .par_iter()
            .enumerate()
            .with_min_len(1 << 12)
            .filter_map(|(number, word)| match word.load(Ordering::Relaxed) {
                NO_POSITION => None,
                word => {
                    let number = number as u64;
                    let index = ep_stored_index(geo, indexer, layout, &ep.layout, number, x);
                    Some((index, word))
                }
            })
            .collect();
        for file in files {
            let coded = found
                .iter()
                .map(|&(index, word)| (index, (file.code)(word) as u16))
                .collect();
            write_scattered_entries(indexer, coded, x, file.width, file.writer)?;
        }
    }
    Ok(())
}
