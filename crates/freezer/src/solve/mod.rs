//! The analysis: retrograde over the product of the men's allowed squares, both sides to move,
//! every exit valued when moves are generated.
//!
//! Owns: [`Analysis`] (building and reading the values) and the [`Verdict`] of a position;
//! the index is [`Space`] (`space`), the work layouts `work_layout` (the wide one's phase in
//! `wide`, the narrow one's in `narrow`), the moves and exits of a position `analysis`, its
//! parents `unmoves`, what a result rests on `assumptions`.
//! Must never: value an exit other than by the problem's rules, a table look-up, or the rules
//! of chess.
//!
//! # Values
//!
//! A position's [`Verdict`] is a win, a draw or a loss for the side to move; a win or loss has
//! a depth in plies when every leaf that decides it is a mate or a table look-up, and none ("by
//! rule") when a fixed-value rule decides it. A rule's value is treated as a win or loss of
//! unbounded depth: the winner prefers any mate to a win by rule, and the loser a loss by rule
//! to any mate. With that order the values are the usual minimax values, and they are found in
//! two phases:
//!
//! 1. **Depths** — depth by depth, as any depth-to-mate generator: a position is won in `d + 1`
//!    if a move reaches a loss in `d` (an exit into a looked-up loss counts at init); it is lost
//!    when every move reaches a win with a depth (each in-index move is counted down as its
//!    child is won, and the last one is checked forward for the longest), so an exit valued a
//!    draw or a win by rule for the opponent keeps it from being lost here.
//! 2. **Rules** — among the positions left, a plain win/draw/loss fixpoint: won by rule if a
//!    move reaches a loss by rule, lost by rule if every move reaches a win. What remains is a
//!    draw.
//!
//! Every move of both sides is valued — a restriction never removes a move, it values the
//! position the move reaches — so a result with a depth is a proof in real chess for the
//! winner (who may have quicker mates outside the index, hence "mate in at most"), and a
//! result by rule or a draw holds under the fixed-value rules that fired in its favour
//! ([`Analysis::assumptions`]).
//!
//! # En passant
//!
//! A double step inside the index that an en-passant capture can answer leads to a position of
//! its own (Article 9.2): the placement with the en-passant target. The index holds these as
//! *en-passant entries* after its positions ([`Space::entries`]), a block per double step whose
//! landing square a pawn of the other side may stand beside, numbered by the other men's
//! squares. Such an entry is an ordinary node of the game: its moves are its placement's and
//! the en-passant captures (exits, valued as captures of the pawn taken), [`Analysis::step`]
//! sends the double step to it, and its un-moves are that double step alone. Every parent of a
//! position is also listed with its en-passant entries, as they have the same moves; a double
//! step is not un-moved from a position when the en-passant entry stands for its result.
//! Entries whose position has no legal en-passant capture are illegal, like any other.

use crate::problem::{FreezerPosition, Outcome, Problem, RuleValue, MAX_MEN};
use rayon::prelude::*;
use retro_engine::geometry::{BISHOP_DIRECTIONS, ROOK_DIRECTIONS};
use retro_engine::material::Material;
use retro_engine::{Man, Move, Position, Sq};
use retro_format::Value;
use retro_gen::{Observer, Phase};
use retro_rules::{opponent, Piece, Side};
use retro_tablebase::Tablebase;
use std::sync::atomic::{AtomicU16, AtomicU64, AtomicU8, Ordering};
use std::sync::Mutex;

mod analysis;
mod assumptions;
mod narrow;
mod space;
mod unmoves;
mod wide;
mod work_layout;

pub use assumptions::{Assumption, RuleRef, SideCounts, Step};
pub use narrow::NARROW_MAX_PLIES;
pub use space::Space;
pub use work_layout::{WorkLayout, WIDE_LIMIT};

pub(crate) use work_layout::SavedCodes;
use work_layout::*;

const UNDECIDED: u16 = 0;
const ILLEGAL: u16 = u16::MAX;
const RULE_WIN: u16 = u16::MAX - 1;
const RULE_LOSS: u16 = u16::MAX - 2;
/// Drawn by the rules of chess: no move, not in check.
const STALEMATE: u16 = u16::MAX - 3;
/// The deepest value a code holds (`plies + 1`).
const MAX_PLIES: u32 = u16::MAX as u32 - 5;

/// An exit reaches a draw (fixed, looked up, or by stalemate).
const DRAW_EXIT: u8 = 1;
/// An exit reaches a win by rule for the opponent.
const OPPONENT_RULE_WIN: u8 = 2;
/// An exit reaches a loss by rule for the opponent.
const RULE_WIN_EXIT: u8 = 4;

/// The value of a position for its side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// A win: in this many plies (odd), or by rule (`None`).
    Win(Option<u32>),
    /// A draw.
    Draw,
    /// A loss: in this many plies (even), or by rule (`None`).
    Loss(Option<u32>),
}

impl Verdict {
    /// The value for the side that made the move into a position of this value.
    pub fn before(self) -> Verdict {
        match self {
            Verdict::Win(d) => Verdict::Loss(d.map(|d| d + 1)),
            Verdict::Loss(d) => Verdict::Win(d.map(|d| d + 1)),
            Verdict::Draw => Verdict::Draw,
        }
    }

    /// Larger is better for the side to move.
    pub fn key(self) -> (u8, i64) {
        match self {
            Verdict::Win(Some(d)) => (4, -i64::from(d)),
            Verdict::Win(None) => (3, 0),
            Verdict::Draw => (2, 0),
            Verdict::Loss(None) => (1, 0),
            Verdict::Loss(Some(d)) => (0, i64::from(d)),
        }
    }

    /// "win in 71 plies (mate in 36)", "loss by rule", "draw".
    pub fn describe(self) -> String {
        match self {
            Verdict::Win(Some(d)) => format!("win in {d} plies (mate in {})", d.div_ceil(2)),
            Verdict::Loss(Some(0)) => "loss: checkmated".into(),
            Verdict::Loss(Some(d)) => format!("loss in {d} plies (mated in {})", d / 2),
            Verdict::Win(None) => "win by rule".into(),
            Verdict::Loss(None) => "loss by rule".into(),
            Verdict::Draw => "draw".into(),
        }
    }

    /// The depth, if it has one.
    pub fn plies(self) -> Option<u32> {
        match self {
            Verdict::Win(d) | Verdict::Loss(d) => d,
            Verdict::Draw => None,
        }
    }

    fn from_code(code: u16) -> Option<Verdict> {
        match code {
            ILLEGAL => None,
            UNDECIDED | STALEMATE => Some(Verdict::Draw),
            RULE_WIN => Some(Verdict::Win(None)),
            RULE_LOSS => Some(Verdict::Loss(None)),
            c => {
                let plies = u32::from(c) - 1;
                Some(if plies % 2 == 1 {
                    Verdict::Win(Some(plies))
                } else {
                    Verdict::Loss(Some(plies))
                })
            }
        }
    }

    fn from_table(v: Value) -> Option<Verdict> {
        match v {
            Value::Illegal => None,
            Value::Draw => Some(Verdict::Draw),
            Value::Win(n) => Some(Verdict::Win(Some(n))),
            Value::Loss(n) => Some(Verdict::Loss(Some(n))),
        }
    }

    fn fixed(o: Outcome, to_move: Side) -> Verdict {
        match (o, to_move) {
            (Outcome::Draw, _) => Verdict::Draw,
            (Outcome::WhiteWins, Side::White) | (Outcome::BlackWins, Side::Black) => {
                Verdict::Win(None)
            }
            _ => Verdict::Loss(None),
        }
    }
}

/// Why an analysis cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FreezeError {
    /// An exit no rule values and no table can.
    #[error("{0}")]
    Uncovered(String),
    /// The index space does not fit.
    #[error("the index space has too many entries: {0}")]
    TooLarge(String),
    /// The problem asks for what the Freezer does not do yet.
    #[error("{0}")]
    Unsupported(String),
    /// A table look-up failed.
    #[error("table look-up: {0}")]
    Probe(String),
    /// A value too deep for the work codes of the layout in use.
    #[error("a depth beyond {0} plies, the deepest the work layout holds")]
    TooDeep(u32),
    /// A saved analysis cannot be written or read.
    #[error("{}: {what}", path.display())]
    Saved {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong.
        what: String,
    },
}

/// A solved index.
pub struct Analysis<'a> {
    problem: &'a Problem,
    tables: &'a Tablebase,
    space: Space,
    /// The work layout it was solved in (never [`WorkLayout::Auto`]).
    layout: WorkLayout,
    codes: Codes,
    counts: [Vec<AtomicU8>; 2],
    flags: [Vec<u8>; 2],
    /// By rule (elsewhere per man, then captures, then promotions) and outcome.
    hits: Vec<[AtomicU64; 3]>,
    depths: u32,
}

fn side(x: usize) -> Side {
    if x == 0 {
        Side::White
    } else {
        Side::Black
    }
}

fn x_of(s: Side) -> usize {
    usize::from(s == Side::Black)
}

fn outcome_index(o: Outcome) -> usize {
    match o {
        Outcome::WhiteWins => 0,
        Outcome::Draw => 1,
        Outcome::BlackWins => 2,
    }
}

/// The tables the problem's look-ups need: every material a capture or promotion can reach
/// that no fixed rule values. An error names an exit that needs a table of more than six men.
pub fn tables_needed(problem: &Problem) -> Result<Vec<Material>, FreezeError> {
    let geo = &problem.geo;
    let men: Vec<(Side, Piece)> = problem.men.iter().map(|m| (m.side, m.piece)).collect();
    let material = Material::from_men(&men);
    let mut needed = std::collections::BTreeSet::new();
    let mut need = |m: Material, what: &dyn Fn() -> String| -> Result<(), FreezeError> {
        if m.len() > 6 {
            return Err(FreezeError::Uncovered(format!(
                "{} is not covered: no rule values it, and the table it would need ({}) has {} men (tables go up to 6)",
                what(),
                m,
                m.len()
            )));
        }
        needed.insert(m.canonical().0.to_string());
        Ok(())
    };
    for (i, v) in problem.men.iter().enumerate() {
        if v.piece == Piece::King {
            continue;
        }
        for &sq in &v.allowed {
            let covered = matches!(
                problem.capture_rule((v.side, v.piece), sq),
                Some((_, r)) if matches!(r.value, RuleValue::Fixed(_))
            );
            if !covered {
                let after = material.without(v.side, v.piece).expect("the man is there");
                need(after, &|| {
                    format!(
                        "a capture of {} on {}",
                        problem.man_name(i),
                        crate::problem::square_name(geo, sq)
                    )
                })?;
            }
        }
    }
    for (i, p) in problem.men.iter().enumerate() {
        if p.piece != Piece::Pawn {
            continue;
        }
        for &sq in &p.allowed {
            let Some(ahead) = geo.ahead(p.side, sq, 1) else {
                continue;
            };
            if geo.pawn_may_stand(ahead) {
                continue;
            }
            let targets =
                std::iter::once(ahead).chain(geo.pawn_attack_targets(p.side, sq).iter().copied());
            for to in targets {
                if matches!(problem.promotion_rule(to), Some((_, r)) if matches!(r.value, RuleValue::Fixed(_)))
                {
                    continue;
                }
                let promoted = material
                    .without(p.side, Piece::Pawn)
                    .expect("the pawn is there");
                for piece in Piece::PROMOTIONS {
                    let after = promoted.with(p.side, piece);
                    let what = || {
                        format!(
                            "a promotion of {} on {}",
                            problem.man_name(i),
                            crate::problem::square_name(geo, to)
                        )
                    };
                    if to == ahead {
                        need(after, &what)?;
                    } else {
                        for v in problem
                            .men
                            .iter()
                            .filter(|v| v.side != p.side && v.piece != Piece::King)
                        {
                            need(after.without(v.side, v.piece).expect("there"), &what)?;
                        }
                    }
                }
            }
        }
    }
    needed
        .into_iter()
        .map(|m| Material::parse(&m).map_err(|e| FreezeError::Unsupported(e.to_string())))
        .collect()
}

impl<'a> Analysis<'a> {
    /// Solves `problem`, looking exits up in `tables` (which must hold [`tables_needed`]),
    /// in the layout [`WorkLayout::Auto`] picks.
    pub fn solve(
        problem: &'a Problem,
        tables: &'a Tablebase,
        observer: &dyn Observer,
    ) -> Result<Analysis<'a>, FreezeError> {
        Analysis::solve_with(problem, tables, WorkLayout::Auto, observer)
    }

    /// Solves `problem` in the given work layout; every layout gives the same values.
    pub fn solve_with(
        problem: &'a Problem,
        tables: &'a Tablebase,
        layout: WorkLayout,
        observer: &dyn Observer,
    ) -> Result<Analysis<'a>, FreezeError> {
        let mut analysis = Analysis::unsolved(problem, tables, layout)?;
        match analysis.codes {
            Codes::Wide(_) => {
                analysis.init(observer)?;
                analysis.depths(observer)?;
                analysis.rules(observer);
                // The work counters and flags are not needed once every value is known.
                analysis.counts = [Vec::new(), Vec::new()];
                analysis.flags = [Vec::new(), Vec::new()];
            }
            Codes::Narrow(_) => analysis.solve_narrow(observer)?,
        }
        Ok(analysis)
    }

    /// An analysis of `problem` with every entry undecided and the work counters at zero.
    fn unsolved(
        problem: &'a Problem,
        tables: &'a Tablebase,
        layout: WorkLayout,
    ) -> Result<Analysis<'a>, FreezeError> {
        let space = Space::new(problem)?;
        let size = usize::try_from(space.entries())
            .map_err(|_| FreezeError::TooLarge(format!("{} entries per side", space.entries())))?;
        let rules = problem.men.len() + problem.captures.len() + problem.promotions.len();
        let layout = layout.resolve(space.entries());
        let (codes, counts) = match layout {
            WorkLayout::Narrow => (
                Codes::Narrow([0, 1].map(|_| (0..size).map(|_| AtomicU8::new(0)).collect())),
                [Vec::new(), Vec::new()],
            ),
            _ => (
                Codes::Wide([0, 1].map(|_| (0..size).map(|_| AtomicU16::new(UNDECIDED)).collect())),
                [0, 1].map(|_| (0..size).map(|_| AtomicU8::new(0)).collect()),
            ),
        };
        Ok(Analysis {
            problem,
            tables,
            space,
            layout,
            codes,
            counts,
            flags: [Vec::new(), Vec::new()],
            hits: (0..rules).map(|_| Default::default()).collect(),
            depths: 0,
        })
    }

    /// An analysis of `problem` from saved values: each side's codes, the rule hits and the
    /// number of depth passes (see [`crate::saved`]).
    pub(crate) fn from_parts(
        problem: &'a Problem,
        tables: &'a Tablebase,
        codes: SavedCodes,
        hits: Vec<[u64; 3]>,
        depths: u32,
    ) -> Result<Analysis<'a>, FreezeError> {
        let (layout, codes) = match codes {
            SavedCodes::Wide(c) => (
                WorkLayout::Wide,
                Codes::Wide(c.map(|c| c.into_iter().map(AtomicU16::new).collect())),
            ),
            SavedCodes::Narrow(c) => (
                WorkLayout::Narrow,
                Codes::Narrow(c.map(|c| c.into_iter().map(AtomicU8::new).collect())),
            ),
        };
        Ok(Analysis {
            problem,
            tables,
            space: Space::new(problem)?,
            layout,
            codes,
            counts: [Vec::new(), Vec::new()],
            flags: [Vec::new(), Vec::new()],
            hits: hits.into_iter().map(|h| h.map(AtomicU64::new)).collect(),
            depths,
        })
    }

    /// The rule hits and the number of depth passes, as saved.
    pub(crate) fn saved_counts(&self) -> (Vec<[u64; 3]>, u32) {
        let hits = self
            .hits
            .iter()
            .map(|h| [0, 1, 2].map(|k| h[k].load(Ordering::Relaxed)))
            .collect();
        (hits, self.depths)
    }

    /// Bytes per saved code: 2 (a wide code, little-endian) or 1 (a narrow byte).
    pub(crate) fn saved_width(&self) -> u32 {
        match self.codes {
            Codes::Wide(_) => 2,
            Codes::Narrow(_) => 1,
        }
    }

    /// Side `x`'s codes as saved, handed to `out` a piece at a time.
    pub(crate) fn write_codes(
        &self,
        x: usize,
        mut out: impl FnMut(&[u8]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut buffer = Vec::with_capacity(1 << 20);
        match &self.codes {
            Codes::Wide(c) => {
                for piece in c[x].chunks(1 << 19) {
                    buffer.clear();
                    for code in piece {
                        buffer.extend_from_slice(&code.load(Ordering::Relaxed).to_le_bytes());
                    }
                    out(&buffer)?;
                }
            }
            Codes::Narrow(c) => {
                for piece in c[x].chunks(1 << 20) {
                    buffer.clear();
                    buffer.extend(piece.iter().map(|b| b.load(Ordering::Relaxed)));
                    out(&buffer)?;
                }
            }
        }
        Ok(())
    }

    /// What progress reports call this analysis: the problem's title.
    fn subject(&self) -> &str {
        self.problem.title.as_deref().unwrap_or("the problem")
    }

    /// The problem.
    pub fn problem(&self) -> &Problem {
        self.problem
    }

    /// The index.
    pub fn space(&self) -> &Space {
        &self.space
    }

    /// The work layout it was solved in (a saved analysis reads back wide).
    pub fn layout(&self) -> WorkLayout {
        self.layout
    }

    /// The number of depth passes made.
    pub fn depth_passes(&self) -> u32 {
        self.depths
    }

    /// The value of entry `index` (an index position or an en-passant entry) with `to_move` to
    /// move (`None`: not legal).
    pub fn verdict(&self, to_move: Side, index: u64) -> Option<Verdict> {
        Verdict::from_code(self.code_at(x_of(to_move), index as usize))
    }

    /// The entry of `pos` (its men matched to the problem's, identical men in any order): its
    /// index position, or with an en-passant target the en-passant entry of that position;
    /// `None` if it has other men, one stands off its squares, or the index has no en-passant
    /// entries for its target.
    pub fn index_of(&self, pos: &FreezerPosition) -> Option<u64> {
        let men = pos.men();
        if men.len() != self.problem.men.len() {
            return None;
        }
        let mut used = vec![false; men.len()];
        let mut squares = vec![0 as Sq; men.len()];
        fn assign(
            a: &Analysis<'_>,
            i: usize,
            men: &[Man],
            used: &mut [bool],
            squares: &mut [Sq],
        ) -> bool {
            if i == squares.len() {
                return true;
            }
            let spec = &a.problem.men[i];
            for k in 0..men.len() {
                let m = men[k];
                if !used[k]
                    && m.side == spec.side
                    && m.piece == spec.piece
                    && a.space.allows(i, m.sq)
                {
                    used[k] = true;
                    squares[i] = m.sq;
                    if assign(a, i + 1, men, used, squares) {
                        return true;
                    }
                    used[k] = false;
                }
            }
            false
        }
        if !assign(self, 0, men, &mut used, &mut squares) {
            return None;
        }
        let index = self.space.index(&squares)?;
        match pos.en_passant() {
            None => Some(index),
            Some(target) => {
                let mover = opponent(pos.side_to_move());
                let landing = self.problem.geo.ahead(mover, target, 1)?;
                let pawn = squares.iter().position(|&s| s == landing)?;
                self.space.ep_entry(index, pawn, landing)
            }
        }
    }

    /// The position at entry `index` with `to_move` to move, if legal.
    pub fn position_at(&self, to_move: Side, index: u64) -> Option<FreezerPosition> {
        let n = self.problem.men.len();
        let mut squares = [0 as Sq; MAX_MEN];
        let (_, ep) = self.space.decode(index, &mut squares[..n]);
        self.position(&squares[..n], x_of(to_move), ep)
    }

    /// Every legal move of entry `index`, with how it is valued and the value it has for the
    /// side making it, best first (ties in the order moves are generated).
    pub fn rated_moves(
        &self,
        to_move: Side,
        index: u64,
    ) -> Result<Vec<(Move, Step, Verdict)>, FreezeError> {
        let geo = &self.problem.geo;
        let n = self.problem.men.len();
        let mut squares = [0 as Sq; MAX_MEN];
        let (base, ep) = self.space.decode(index, &mut squares[..n]);
        let Some(pos) = self.position(&squares[..n], x_of(to_move), ep) else {
            return Ok(Vec::new());
        };
        let mut moves = Vec::new();
        let mut failure = None;
        pos.for_each_legal_move(geo, None, |mv| {
            match self.step(&pos, &squares[..n], base, &mv) {
                Ok(step) => {
                    let after = match step {
                        Step::Stays(child) => self
                            .verdict(opponent(to_move), child)
                            .unwrap_or(Verdict::Draw),
                        Step::Exits(v, _) => v,
                    };
                    moves.push((mv, step, after.before()));
                }
                Err(e) => failure = Some(e),
            }
        });
        if let Some(e) = failure {
            return Err(e);
        }
        moves.sort_by_key(|(_, _, v)| std::cmp::Reverse(v.key()));
        Ok(moves)
    }
}

#[cfg(test)]
mod tests;
