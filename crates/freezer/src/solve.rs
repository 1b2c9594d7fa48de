//! The analysis: retrograde over the product of the men's allowed squares, both sides to move,
//! every exit valued when moves are generated.
//!
//! Owns: [`Space`] (the index), [`Analysis`] (building and reading the values) and the
//! [`Verdict`] of a position. Must never: value an exit other than by the problem's rules, a
//! table look-up, or the rules of chess.
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
//! # Layouts
//!
//! The wide layout ([`Layout::Wide`]) keeps a `u16` code, a counter of the moves not yet won
//! and a byte of exit flags per entry and side, and lists the decided entries by depth: a lost
//! candidate is found when its counter reaches zero. The narrow layout ([`Layout::Narrow`],
//! the `narrow` module) keeps one byte per entry and side and nothing else, scans for each depth and
//! checks a candidate's moves forward; it is for spaces the wide layout cannot hold (beyond
//! about 400 million entries per side with [`Layout::Auto`]): 2 bytes per entry, both sides
//! to move together.
//!
//! # Un-moves
//!
//! In-index moves are moves of one man to another of its allowed squares without capture or
//! promotion, so the parents of a position are found by moving one man of the side that just
//! moved back to an empty allowed square (a king, knight or slider along its lines, a pawn one
//! step back, or two from its fourth rank through an empty square). A parent is a position of
//! the index whose init found it legal.
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
use retro_rules::{opponent, Piece, Side};
use retro_tablebase::Tablebase;
use std::sync::atomic::{AtomicU16, AtomicU64, AtomicU8, Ordering};
use std::sync::Mutex;

mod narrow;
pub use narrow::NARROW_MAX_PLIES;

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

/// Reports progress.
pub trait Observer: Sync {
    /// A phase begins, with this many steps.
    fn phase(&self, _name: &str, _steps: u64) {}
    /// This many steps are done.
    fn progressed(&self, _steps: u64) {}
}

/// Reports nothing.
pub struct Silent;
impl Observer for Silent {}

/// The index: `Σ slot(manᵢ) · strideᵢ`, each man numbered within its allowed squares, the
/// last man fastest; one array per side to move. After the index positions come the
/// *en-passant entries* (`EpBlock`): positions whose last move was a double step inside the
/// index that an en-passant capture can answer, each a position of its own (Article 9.2).
#[derive(Debug, Clone)]
pub struct Space {
    allowed: Vec<Vec<Sq>>,
    /// By man and board square: the square's number among the allowed ones, or `u32::MAX`.
    slot: Vec<Vec<u32>>,
    strides: Vec<u64>,
    size: u64,
    /// The en-passant blocks, in entry order.
    ep_blocks: Vec<EpBlock>,
    /// Entries per side to move: the index positions and every en-passant block.
    entries: u64,
}

/// The en-passant entries of one double step inside the index: pawn `pawn` from `origin` to
/// `landing` over `passed`, where a pawn of the other side may stand beside `landing`. One
/// entry per index position with the pawn on `landing` (the index with that pawn's field left
/// out), the side that did not move the pawn to move and `passed` the en-passant target; an
/// entry whose position is not legal with that target (no en-passant capture is legal, or a
/// square the step passed is taken) is never legal.
#[derive(Debug, Clone, Copy)]
struct EpBlock {
    pawn: usize,
    origin: Sq,
    passed: Sq,
    landing: Sq,
    /// The block's first entry (at least [`Space::size`]).
    first: u64,
    /// Its number of entries: the index size over the pawn's number of squares.
    len: u64,
}

const OUTSIDE: u32 = u32::MAX;

impl Space {
    /// The index of `problem`, after checking it needs nothing the Freezer does not do.
    pub fn new(problem: &Problem) -> Result<Space, FreezeError> {
        let geo = &problem.geo;
        let allowed: Vec<Vec<Sq>> = problem.men.iter().map(|m| m.allowed.clone()).collect();
        let mut strides = vec![0u64; allowed.len()];
        let mut size: u64 = 1;
        for i in (0..allowed.len()).rev() {
            strides[i] = size;
            size = size
                .checked_mul(allowed[i].len() as u64)
                .ok_or_else(|| FreezeError::TooLarge("more than 2^64 entries per side".into()))?;
        }
        let slot = allowed
            .iter()
            .map(|squares| {
                let mut s = vec![OUTSIDE; geo.square_count()];
                for (k, &sq) in squares.iter().enumerate() {
                    s[usize::from(sq)] = k as u32;
                }
                s
            })
            .collect();
        // En passant inside the index: a block for each double step a pawn may make between two
        // of its squares to beside a square an enemy pawn may use.
        let mut ep_blocks = Vec::new();
        let mut entries = size;
        for (i, p) in problem.men.iter().enumerate() {
            if p.piece != Piece::Pawn {
                continue;
            }
            for &origin in &p.allowed {
                if geo.rank(origin) != geo.second_rank(p.side) {
                    continue;
                }
                let (Some(passed), Some(landing)) =
                    (geo.ahead(p.side, origin, 1), geo.ahead(p.side, origin, 2))
                else {
                    continue;
                };
                if !allowed[i].contains(&landing) {
                    continue;
                }
                let answerable = problem
                    .men
                    .iter()
                    .filter(|q| q.piece == Piece::Pawn && q.side != p.side)
                    .any(|q| {
                        q.allowed.iter().any(|&s| {
                            geo.rank(s) == geo.rank(landing)
                                && geo.file(s).abs_diff(geo.file(landing)) == 1
                        })
                    });
                if !answerable {
                    continue;
                }
                let len = size / allowed[i].len() as u64;
                ep_blocks.push(EpBlock {
                    pawn: i,
                    origin,
                    passed,
                    landing,
                    first: entries,
                    len,
                });
                entries = entries.checked_add(len).ok_or_else(|| {
                    FreezeError::TooLarge("more than 2^64 entries per side".into())
                })?;
            }
        }
        // A start position with an en-passant target must be one of the en-passant entries.
        if let Some(target) = problem.start.en_passant() {
            let mover = opponent(problem.start.side_to_move());
            let landing = geo.ahead(mover, target, 1);
            let held = ep_blocks.iter().any(|b: &EpBlock| {
                Some(b.landing) == landing && problem.men[b.pawn].start == b.landing
            });
            if !held {
                return Err(FreezeError::Unsupported(format!(
                    "the start position's en-passant square {} follows a double step the index does not hold: the pawn must be allowed both the square it came from and the one it stands on, and an enemy pawn the square beside",
                    crate::problem::square_name(geo, target)
                )));
            }
        }
        if entries > u64::MAX / 4 || usize::try_from(entries).is_err() {
            let of_which = match entries - size {
                0 => String::new(),
                ep => format!(" ({ep} of them en-passant entries)"),
            };
            return Err(FreezeError::TooLarge(format!(
                "{entries} entries per side{of_which}"
            )));
        }
        Ok(Space {
            allowed,
            slot,
            strides,
            size,
            ep_blocks,
            entries,
        })
    }

    /// Index positions per side to move (without the en-passant entries).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Entries per side to move: the index positions, then the en-passant entries.
    pub fn entries(&self) -> u64 {
        self.entries
    }

    /// The men's squares at entry `entry` (an index position or an en-passant entry), with its
    /// index position and its en-passant target.
    #[inline]
    pub fn decode(&self, entry: u64, out: &mut [Sq]) -> (u64, Option<Sq>) {
        match self.ep_block(entry) {
            None => {
                self.squares(entry, out);
                (entry, None)
            }
            Some(block) => {
                let index = self.ep_index(block, entry);
                self.squares(index, out);
                (index, Some(block.passed))
            }
        }
    }

    /// The block of en-passant entry `entry` (`None` for an index position).
    fn ep_block(&self, entry: u64) -> Option<&EpBlock> {
        if entry < self.size {
            return None;
        }
        let k = self.ep_blocks.partition_point(|b| b.first + b.len <= entry);
        self.ep_blocks.get(k)
    }

    /// The index position of en-passant entry `entry` of `block`: its number within the block
    /// is the index with the pawn's field left out.
    fn ep_index(&self, block: &EpBlock, entry: u64) -> u64 {
        let i = block.pawn;
        let stride = self.strides[i];
        let number = entry - block.first;
        let (high, low) = (number / stride, number % stride);
        let landing = u64::from(self.slot[i][usize::from(block.landing)]);
        (high * self.allowed[i].len() as u64 + landing) * stride + low
    }

    /// The en-passant entry of index position `index` after pawn `pawn`'s double step to
    /// `landing` (where it stands in `index`), if the index has such entries.
    pub fn ep_entry(&self, index: u64, pawn: usize, landing: Sq) -> Option<u64> {
        self.ep_block_of(pawn, landing)
            .map(|block| self.ep_entry_in(block, index))
    }

    /// The block of pawn `pawn`'s double step to `landing`, if the index has one.
    fn ep_block_of(&self, pawn: usize, landing: Sq) -> Option<&EpBlock> {
        self.ep_blocks
            .iter()
            .find(|b| b.pawn == pawn && b.landing == landing)
    }

    /// The entry of `block` for index position `index` (its pawn on the block's landing
    /// square): the index with that pawn's field left out, after the block's first entry.
    fn ep_entry_in(&self, block: &EpBlock, index: u64) -> u64 {
        let stride = self.strides[block.pawn];
        let n = self.allowed[block.pawn].len() as u64;
        let (high, low) = (index / (stride * n), index % stride);
        block.first + high * stride + low
    }

    /// The men's squares at index position `index` (below [`Space::size`]; an en-passant entry
    /// is read with [`Space::decode`]).
    pub fn squares(&self, mut index: u64, out: &mut [Sq]) {
        for i in (0..self.allowed.len()).rev() {
            let n = self.allowed[i].len() as u64;
            out[i] = self.allowed[i][(index % n) as usize];
            index /= n;
        }
    }

    /// The index of the men on `squares`, if each is on one of its squares.
    pub fn index(&self, squares: &[Sq]) -> Option<u64> {
        let mut index = 0;
        for (i, &sq) in squares.iter().enumerate() {
            let s = self.slot[i][usize::from(sq)];
            if s == OUTSIDE {
                return None;
            }
            index += u64::from(s) * self.strides[i];
        }
        Some(index)
    }

    /// Whether man `i` may stand on `sq`.
    pub fn allows(&self, i: usize, sq: Sq) -> bool {
        self.slot[i][usize::from(sq)] != OUTSIDE
    }

    fn moved(&self, index: u64, i: usize, from: Sq, to: Sq) -> Option<u64> {
        let (a, b) = (
            self.slot[i][usize::from(from)],
            self.slot[i][usize::from(to)],
        );
        if b == OUTSIDE {
            return None;
        }
        Some((index + u64::from(b) * self.strides[i]) - u64::from(a) * self.strides[i])
    }
}

/// Which rule valued an exit: `Elsewhere(man)`, `Capture(rule)`, `Promotion(rule)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleRef {
    /// A man left its squares.
    Elsewhere(usize),
    /// A capture rule.
    Capture(usize),
    /// A promotion rule.
    Promotion(usize),
}

/// How one move of an index position is valued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// To another index position.
    Stays(u64),
    /// Out of the index: the value for the side to move after it, and what valued it (`None`
    /// for a table look-up).
    Exits(Verdict, Option<(RuleRef, Outcome)>),
}

/// A fixed-value rule that fired, stated as an assumption.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assumption {
    /// The rule, in words, with its line.
    pub text: String,
    /// The value it gave.
    pub outcome: Outcome,
    /// How many exits of the index it valued.
    pub exits: u64,
}

/// Counts over one side to move.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SideCounts {
    /// Positions of the index that are legal.
    pub legal: u64,
    /// Wins with a depth.
    pub wins: u64,
    /// Wins by rule.
    pub rule_wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses by rule.
    pub rule_losses: u64,
    /// Losses with a depth.
    pub losses: u64,
    /// The longest win with a depth (plies) and its index.
    pub longest_win: Option<(u32, u64)>,
    /// The longest loss with a depth (plies) and its index.
    pub longest_loss: Option<(u32, u64)>,
}

/// How the work is laid out in memory while solving.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Layout {
    /// [`Layout::Wide`] while both sides' wide work fits in [`WIDE_LIMIT`] bytes, else
    /// [`Layout::Narrow`].
    #[default]
    Auto,
    /// Two bytes of value, a move counter and a byte of exit flags per entry and side, and
    /// every decided entry listed by depth (about 4 bytes per entry and side, and 8 more per
    /// decided one): the quickest.
    Wide,
    /// One byte per entry and side and nothing else (the `narrow` module's docs): for index
    /// spaces beyond 2³² entries, at depths of at most [`NARROW_MAX_PLIES`] plies.
    Narrow,
}

/// The most bytes [`Layout::Auto`] gives the wide layout (its codes, counters and flags, and
/// the depth lists at one decided entry in two): 6 GiB.
pub const WIDE_LIMIT: u64 = 6 << 30;

impl Layout {
    /// The layout used for `entries` entries per side to move.
    pub fn resolve(self, entries: u64) -> Layout {
        match self {
            Layout::Auto if entries.saturating_mul(2 * 8) <= WIDE_LIMIT => Layout::Wide,
            Layout::Auto => Layout::Narrow,
            chosen => chosen,
        }
    }

    /// Working bytes per entry and side to move, before any listed entry.
    pub fn bytes_per_entry(self) -> u64 {
        match self {
            Layout::Narrow => 1,
            _ => 4,
        }
    }

    /// `auto`, `wide` or `narrow`.
    pub fn name(self) -> &'static str {
        match self {
            Layout::Auto => "auto",
            Layout::Wide => "wide",
            Layout::Narrow => "narrow",
        }
    }
}

/// Both sides' work codes in one layout: the wide `u16` codes, or the narrow bytes
/// ([`narrow`]), which read back as wide codes.
enum Codes {
    Wide([Vec<AtomicU16>; 2]),
    Narrow([Vec<AtomicU8>; 2]),
}

/// Saved codes of both sides, in the layout they were solved in.
pub(crate) enum SavedCodes {
    Wide([Vec<u16>; 2]),
    Narrow([Vec<u8>; 2]),
}

/// A solved index.
pub struct Analysis<'a> {
    problem: &'a Problem,
    tables: &'a Tablebase,
    space: Space,
    /// The work layout it was solved in (never [`Layout::Auto`]).
    layout: Layout,
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
/// that no fixed rule values. An error names an exit that needs a table of more than five men.
pub fn tables_needed(problem: &Problem) -> Result<Vec<Material>, FreezeError> {
    let geo = &problem.geo;
    let men: Vec<(Side, Piece)> = problem.men.iter().map(|m| (m.side, m.piece)).collect();
    let material = Material::from_men(&men);
    let mut needed = std::collections::BTreeSet::new();
    let mut need = |m: Material, what: &dyn Fn() -> String| -> Result<(), FreezeError> {
        if m.len() > 5 {
            return Err(FreezeError::Uncovered(format!(
                "{} is not covered: no rule values it, and the table it would need ({}) has {} men (tables go up to 5)",
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
    /// in the layout [`Layout::Auto`] picks.
    pub fn solve(
        problem: &'a Problem,
        tables: &'a Tablebase,
        observer: &dyn Observer,
    ) -> Result<Analysis<'a>, FreezeError> {
        Analysis::solve_with(problem, tables, Layout::Auto, observer)
    }

    /// Solves `problem` in the given work layout; every layout gives the same values.
    pub fn solve_with(
        problem: &'a Problem,
        tables: &'a Tablebase,
        layout: Layout,
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
        layout: Layout,
    ) -> Result<Analysis<'a>, FreezeError> {
        let space = Space::new(problem)?;
        let size = usize::try_from(space.entries())
            .map_err(|_| FreezeError::TooLarge(format!("{} entries per side", space.entries())))?;
        let rules = problem.men.len() + problem.captures.len() + problem.promotions.len();
        let layout = layout.resolve(space.entries());
        let (codes, counts) = match layout {
            Layout::Narrow => (
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
                Layout::Wide,
                Codes::Wide(c.map(|c| c.into_iter().map(AtomicU16::new).collect())),
            ),
            SavedCodes::Narrow(c) => (
                Layout::Narrow,
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

    /// The position of the men on `squares`, side `x` to move, en-passant target `ep`, if
    /// legal (with a target: only if an en-passant capture onto it is legal).
    fn position(&self, squares: &[Sq], x: usize, ep: Option<Sq>) -> Option<FreezerPosition> {
        let men = self.problem.men.iter().zip(squares).map(|(m, &sq)| Man {
            side: m.side,
            piece: m.piece,
            sq,
        });
        let p = Position::new(&self.problem.geo, men, side(x), ep).ok()?;
        p.is_legal(&self.problem.geo).then_some(p)
    }

    fn note(&self, rule: RuleRef, outcome: Outcome) {
        let n = self.problem.men.len();
        let c = self.problem.captures.len();
        let k = match rule {
            RuleRef::Elsewhere(i) => i,
            RuleRef::Capture(j) => n + j,
            RuleRef::Promotion(j) => n + c + j,
        };
        self.hits[k][outcome_index(outcome)].fetch_add(1, Ordering::Relaxed);
    }

    /// Values the move `mv` of the position with men on `squares` at index position `index`
    /// (an en-passant entry's moves are those of its index position, and its en-passant
    /// captures): a double step an en-passant capture can answer stays in the en-passant entry.
    pub fn step(
        &self,
        pos: &FreezerPosition,
        squares: &[Sq],
        index: u64,
        mv: &Move,
    ) -> Result<Step, FreezeError> {
        let geo = &self.problem.geo;
        let after = opponent(pos.side_to_move());
        let fixed =
            |rule: RuleRef, o: Outcome| Ok(Step::Exits(Verdict::fixed(o, after), Some((rule, o))));
        let lookup = || {
            let child = pos.play(geo, mv);
            let v = self
                .tables
                .value(&child)
                .map_err(|e| FreezeError::Probe(e.to_string()))?;
            let v = Verdict::from_table(v).ok_or_else(|| {
                FreezeError::Probe(format!("{} is not legal", child.to_natural(geo).fen()))
            })?;
            Ok(Step::Exits(v, None))
        };
        if mv.promotion.is_some() {
            return match self.problem.promotion_rule(mv.to) {
                Some((k, rule)) => match rule.value {
                    RuleValue::Lookup => lookup(),
                    RuleValue::Fixed(o) => {
                        let o = match rule.attacked {
                            Some(a) if can_take_on(geo, &pos.play(geo, mv), mv.to) => a,
                            _ => o,
                        };
                        fixed(RuleRef::Promotion(k), o)
                    }
                },
                None => lookup(),
            };
        }
        if let Some(piece) = mv.captured {
            // The captured man's square: an en-passant capture takes the pawn beside.
            let taken = if mv.en_passant {
                geo.ahead(after, mv.to, 1)
                    .expect("an en-passant capture takes a pawn beside")
            } else {
                mv.to
            };
            return match self.problem.capture_rule((after, piece), taken) {
                Some((k, rule)) => match rule.value {
                    RuleValue::Lookup => lookup(),
                    RuleValue::Fixed(o) => {
                        let o = match rule.recapture {
                            None => o,
                            Some(re) => {
                                let child = pos.play(geo, mv);
                                let recaptures = takes_on(geo, &child, mv.to);
                                if recaptures.is_empty() {
                                    o
                                } else if rule.second_recapture.is_some()
                                    && recaptures.iter().any(|r| can_take_on(geo, r, mv.to))
                                {
                                    rule.second_recapture.expect("checked")
                                } else {
                                    re
                                }
                            }
                        };
                        fixed(RuleRef::Capture(k), o)
                    }
                },
                None => lookup(),
            };
        }
        let i = squares
            .iter()
            .position(|&s| s == mv.from)
            .expect("a move starts on a man's square");
        match self.space.moved(index, i, mv.from, mv.to) {
            Some(child)
                if mv.piece == Piece::Pawn
                    && geo.rank(mv.from).abs_diff(geo.rank(mv.to)) == 2
                    && pos.play(geo, mv).en_passant().is_some() =>
            {
                // An en-passant capture answers it: the block of this step exists, as the
                // capturing pawn stands on one of its squares.
                let entry = self
                    .space
                    .ep_entry(child, i, mv.to)
                    .expect("a double step inside the index that en passant answers has a block");
                Ok(Step::Stays(entry))
            }
            Some(child) => Ok(Step::Stays(child)),
            None => fixed(
                RuleRef::Elsewhere(i),
                self.problem.men[i]
                    .elsewhere
                    .expect("a man with fewer squares has a value elsewhere"),
            ),
        }
    }

    fn init(&mut self, observer: &dyn Observer) -> Result<(), FreezeError> {
        let size = self.space.entries();
        observer.phase("generating moves", 2 * size);
        let failure: Mutex<Option<FreezeError>> = Mutex::new(None);
        let mut flags = [vec![0u8; size as usize], vec![0u8; size as usize]];
        for (x, side_flags) in flags.iter_mut().enumerate() {
            side_flags
                .par_chunks_mut(4096)
                .enumerate()
                .for_each(|(chunk, out)| {
                    let first = chunk as u64 * 4096;
                    for (k, f) in out.iter_mut().enumerate() {
                        let index = first + k as u64;
                        match self.classify(x, index) {
                            Ok((code, count, flag)) => {
                                self.wide()[x][index as usize].store(code, Ordering::Relaxed);
                                self.counts[x][index as usize].store(count, Ordering::Relaxed);
                                *f = flag;
                            }
                            Err(e) => {
                                failure.lock().expect("no panics").get_or_insert(e);
                                return;
                            }
                        }
                    }
                    observer.progressed(out.len() as u64);
                });
        }
        if let Some(e) = failure.into_inner().expect("no panics") {
            return Err(e);
        }
        self.flags = flags;
        Ok(())
    }

    fn classify(&self, x: usize, index: u64) -> Result<(u16, u8, u8), FreezeError> {
        let geo = &self.problem.geo;
        let mut squares = [0 as Sq; MAX_MEN];
        let n = self.problem.men.len();
        let (index, ep) = self.space.decode(index, &mut squares[..n]);
        let Some(pos) = self.position(&squares[..n], x, ep) else {
            return Ok((ILLEGAL, 0, 0));
        };
        let mut count: u32 = 0;
        let mut flags = 0u8;
        let mut best_win: Option<u32> = None;
        // The opponent's longest win with a depth over the exits.
        let mut longest_exit_win: u32 = 0;
        let mut any = false;
        let mut failure = None;
        pos.for_each_legal_move(geo, None, |mv| {
            any = true;
            match self.step(&pos, &squares[..n], index, &mv) {
                Ok(Step::Stays(_)) => count += 1,
                Ok(Step::Exits(v, rule)) => {
                    if let Some((r, o)) = rule {
                        self.note(r, o);
                    }
                    match v {
                        Verdict::Loss(Some(k)) => {
                            best_win = Some(best_win.map_or(k + 1, |b| b.min(k + 1)))
                        }
                        Verdict::Loss(None) => flags |= RULE_WIN_EXIT,
                        Verdict::Draw => flags |= DRAW_EXIT,
                        Verdict::Win(None) => flags |= OPPONENT_RULE_WIN,
                        Verdict::Win(Some(k)) => longest_exit_win = longest_exit_win.max(k),
                    }
                }
                Err(e) => failure = Some(e),
            }
        });
        if let Some(e) = failure {
            return Err(e);
        }
        let count = u8::try_from(count).map_err(|_| {
            FreezeError::Unsupported("a position with more than 255 moves inside the index".into())
        })?;
        let code = if !any {
            if pos.in_check(geo, pos.side_to_move()) {
                1
            } else {
                STALEMATE
            }
        } else if let Some(w) = best_win {
            if w > MAX_PLIES {
                return Err(FreezeError::TooDeep(MAX_PLIES));
            }
            (w + 1) as u16
        } else if count == 0 && flags == 0 {
            // Every move leaves the index into a win with a depth for the opponent: lost now,
            // as no move inside the index will ever count down to it.
            let lost = longest_exit_win + 1;
            if lost > MAX_PLIES {
                return Err(FreezeError::TooDeep(MAX_PLIES));
            }
            (lost + 1) as u16
        } else {
            UNDECIDED
        };
        Ok((code, count, flags))
    }

    fn code(&self, entry: u64) -> u16 {
        self.code_at((entry & 1) as usize, (entry >> 1) as usize)
    }

    /// The wide code of entry `i` with side `x` to move, in either layout.
    fn code_at(&self, x: usize, i: usize) -> u16 {
        match &self.codes {
            Codes::Wide(c) => c[x][i].load(Ordering::Relaxed),
            Codes::Narrow(c) => narrow::widen(c[x][i].load(Ordering::Relaxed)),
        }
    }

    /// The wide layout's codes (only its own phases call this).
    fn wide(&self) -> &[Vec<AtomicU16>; 2] {
        match &self.codes {
            Codes::Wide(c) => c,
            Codes::Narrow(_) => unreachable!("a wide phase on a narrow analysis"),
        }
    }

    /// An entry's side-to-move slot, index position, en-passant target and the squares of its
    /// men.
    fn unpack(&self, entry: u64) -> (usize, u64, Option<Sq>, [Sq; MAX_MEN]) {
        let mut squares = [0 as Sq; MAX_MEN];
        let (index, ep) = self
            .space
            .decode(entry >> 1, &mut squares[..self.problem.men.len()]);
        ((entry & 1) as usize, index, ep, squares)
    }

    /// Calls `visit` with every parent entry of `entry` (index · 2 + side) and the square its
    /// move goes to (where the man stands in `entry`).
    ///
    /// An en-passant entry's only parent is the double step that made it. Every other parent
    /// also comes with its en-passant entries (the same moves and more): those of the pawns of
    /// the side to move in `entry` that stand where a double step of theirs lands — an entry
    /// that is no legal position is listed too, and its code says so. A double step that an
    /// en-passant capture answers leads to the en-passant entry, so an index position does not
    /// list it.
    fn for_each_parent(&self, entry: u64, mut visit: impl FnMut(u64, Sq)) {
        let (x, index, ep, squares) = self.unpack(entry);
        let mover = opponent(side(x));
        let y = x_of(mover) as u64;
        if ep.is_some() {
            let block = self
                .space
                .ep_block(entry >> 1)
                .expect("an en-passant entry has a block");
            if let Some(p) = self
                .space
                .moved(index, block.pawn, block.landing, block.origin)
            {
                visit(p << 1 | y, block.landing);
            }
            return;
        }
        // The double steps of the side to move whose en-passant entries its parents have (at
        // most one per pawn, the block of the square it stands on).
        let mut landed = [None; MAX_MEN];
        let mut count = 0;
        for b in &self.space.ep_blocks {
            if self.problem.men[b.pawn].side == side(x) && squares[b.pawn] == b.landing {
                landed[count] = Some(b);
                count += 1;
            }
        }
        if count == 0 {
            self.for_each_unmove(x, index, &squares, |p, at| visit(p << 1 | y, at));
            return;
        }
        self.for_each_unmove(x, index, &squares, |p, at| {
            visit(p << 1 | y, at);
            for b in landed[..count].iter().flatten() {
                visit(self.space.ep_entry_in(b, p) << 1 | y, at);
            }
        });
    }

    /// Calls `visit` with the index position of every un-move of index position `index` (men
    /// on `squares`, side `x` to move) and the square the man stands on in `index`, leaving out
    /// a double step that leads to an en-passant entry.
    #[inline]
    fn for_each_unmove(
        &self,
        x: usize,
        index: u64,
        squares: &[Sq; MAX_MEN],
        mut visit: impl FnMut(u64, Sq),
    ) {
        let geo = &self.problem.geo;
        let n = self.problem.men.len();
        let mover = opponent(side(x));
        let mut occupied = retro_engine::SqSet::EMPTY;
        for &s in &squares[..n] {
            occupied.insert(s);
        }
        for (i, m) in self.problem.men.iter().enumerate() {
            if m.side != mover || self.space.allowed[i].len() < 2 {
                continue;
            }
            let at = squares[i];
            let mut origin = |o: Sq| {
                if let Some(p) = self.space.moved(index, i, at, o) {
                    visit(p, at);
                }
            };
            match m.piece {
                Piece::King | Piece::Knight => {
                    let targets = if m.piece == Piece::King {
                        geo.king_targets(at)
                    } else {
                        geo.knight_targets(at)
                    };
                    for &o in targets {
                        if !occupied.contains(o) {
                            origin(o);
                        }
                    }
                }
                Piece::Queen | Piece::Rook | Piece::Bishop => {
                    let dirs = match m.piece {
                        Piece::Rook => ROOK_DIRECTIONS,
                        Piece::Bishop => BISHOP_DIRECTIONS,
                        _ => ROOK_DIRECTIONS.start..BISHOP_DIRECTIONS.end,
                    };
                    for d in dirs {
                        for &o in geo.ray(at, d) {
                            if occupied.contains(o) {
                                break;
                            }
                            origin(o);
                        }
                    }
                }
                Piece::Pawn => {
                    let Some(one) = geo.ahead(mover, at, -1) else {
                        continue;
                    };
                    if occupied.contains(one) || !geo.pawn_may_stand(one) {
                        continue;
                    }
                    origin(one);
                    if let Some(two) = geo.ahead(mover, at, -2) {
                        let answered = || {
                            self.space.ep_block_of(i, at).is_some()
                                && self.position(&squares[..n], x, Some(one)).is_some()
                        };
                        if geo.rank(two) == geo.second_rank(mover)
                            && !occupied.contains(two)
                            && !answered()
                        {
                            origin(two);
                        }
                    }
                }
            }
        }
    }

    /// Calls `visit(to, value, inside)` for each legal move of `entry`, in the order moves are
    /// generated: the square the move goes to, the value it reaches for the side to move after
    /// it (the code of the entry it reaches inside the index, an illegal one read as a draw; the
    /// exit's value outside), and whether it stays inside. Stops when `visit` returns `false`.
    /// `Ok(false)`: the entry is not a legal position.
    fn for_each_valued_move(
        &self,
        entry: u64,
        mut visit: impl FnMut(Sq, Verdict, bool) -> bool,
    ) -> Result<bool, FreezeError> {
        let geo = &self.problem.geo;
        let n = self.problem.men.len();
        let (x, index, ep, squares) = self.unpack(entry);
        let Some(pos) = self.position(&squares[..n], x, ep) else {
            return Ok(false);
        };
        let mut going = true;
        let mut failure = None;
        pos.for_each_legal_move(geo, None, |mv| {
            if !going {
                return;
            }
            going = match self.step(&pos, &squares[..n], index, &mv) {
                Ok(Step::Stays(child)) => {
                    let value = Verdict::from_code(self.code_at(1 - x, child as usize));
                    visit(mv.to, value.unwrap_or(Verdict::Draw), true)
                }
                Ok(Step::Exits(value, _)) => visit(mv.to, value, false),
                Err(e) => {
                    failure = Some(e);
                    false
                }
            };
        });
        match failure {
            Some(e) => Err(e),
            None => Ok(true),
        }
    }

    /// The longest win every move of a lost candidate reaches, checked forward.
    fn longest_win(&self, entry: u64) -> Result<u32, FreezeError> {
        let mut longest = Some(0);
        let legal = self.for_each_valued_move(entry, |_, value, _| match value {
            Verdict::Win(Some(d)) => {
                longest = longest.map(|l: u32| l.max(d));
                true
            }
            _ => {
                longest = None;
                false
            }
        })?;
        longest.filter(|_| legal).ok_or_else(|| {
            FreezeError::Unsupported(
                "internal: a lost candidate that is not legal or has a move that does not reach a win"
                    .into(),
            )
        })
    }

    fn depths(&mut self, observer: &dyn Observer) -> Result<(), FreezeError> {
        let size = self.space.entries();
        let mut buckets: Vec<Vec<u64>> = Vec::new();
        let seeds: Vec<(u16, u64)> = (0..2usize)
            .flat_map(|x| {
                let codes = &self.wide()[x];
                (0..size)
                    .into_par_iter()
                    .filter_map(move |i| {
                        let c = codes[i as usize].load(Ordering::Relaxed);
                        (c != UNDECIDED && c < STALEMATE).then_some((c, i << 1 | x as u64))
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        let decided: u64 = 2 * size;
        observer.phase("retrograde, by depth", decided);
        let place = |buckets: &mut Vec<Vec<u64>>, plies: u32, entry: u64| {
            let d = plies as usize;
            if buckets.len() <= d {
                buckets.resize_with(d + 1, Vec::new);
            }
            buckets[d].push(entry);
        };
        for (code, entry) in seeds {
            place(&mut buckets, u32::from(code) - 1, entry);
        }
        let failure: Mutex<Option<FreezeError>> = Mutex::new(None);
        let mut d = 0usize;
        while d < buckets.len() {
            let bucket = std::mem::take(&mut buckets[d]);
            let code = (d + 1) as u16;
            let found: Vec<(u32, u64)> = bucket
                .par_iter()
                .filter(|&&e| self.code(e) == code)
                .flat_map_iter(|&entry| {
                    let mut out = Vec::new();
                    self.for_each_parent(entry, |parent, _| {
                        let (y, p) = ((parent & 1) as usize, (parent >> 1) as usize);
                        if d % 2 == 0 {
                            // A loss in d: the parent wins in d + 1 unless it wins sooner.
                            let win = code + 1;
                            let cell = &self.wide()[y][p];
                            let mut cur = cell.load(Ordering::Relaxed);
                            loop {
                                let better = cur == UNDECIDED || (cur < STALEMATE && cur > win);
                                if !better {
                                    break;
                                }
                                match cell.compare_exchange_weak(
                                    cur,
                                    win,
                                    Ordering::Relaxed,
                                    Ordering::Relaxed,
                                ) {
                                    Ok(_) => {
                                        out.push((d as u32 + 1, parent));
                                        break;
                                    }
                                    Err(now) => cur = now,
                                }
                            }
                        } else if self.wide()[y][p].load(Ordering::Relaxed) == UNDECIDED {
                            // A win in d: one more move of the parent reaches a win.
                            let left = self.counts[y][p].fetch_sub(1, Ordering::Relaxed) - 1;
                            // Any flag keeps it from a loss with a depth: a draw or a win by
                            // rule of the opponent, or a loss by rule of the opponent (a win).
                            if left == 0 && self.flags[y][p] == 0 {
                                match self.longest_win(parent) {
                                    Ok(longest) if longest < MAX_PLIES => {
                                        self.wide()[y][p]
                                            .store((longest + 2) as u16, Ordering::Relaxed);
                                        out.push((longest + 1, parent));
                                    }
                                    Ok(_) => {
                                        failure
                                            .lock()
                                            .expect("no panics")
                                            .get_or_insert(FreezeError::TooDeep(MAX_PLIES));
                                    }
                                    Err(e) => {
                                        failure.lock().expect("no panics").get_or_insert(e);
                                    }
                                }
                            }
                        }
                    });
                    out
                })
                .collect();
            if let Some(e) = failure.lock().expect("no panics").take() {
                return Err(e);
            }
            observer.progressed(bucket.len() as u64);
            for (plies, entry) in found {
                place(&mut buckets, plies, entry);
            }
            d += 1;
        }
        self.depths = d as u32;
        Ok(())
    }

    fn rules(&mut self, observer: &dyn Observer) {
        let size = self.space.entries();
        let mut frontier: Vec<u64> = (0..2usize)
            .flat_map(|x| {
                let this = &*self;
                (0..size)
                    .into_par_iter()
                    .filter_map(move |i| {
                        let cell = &this.wide()[x][i as usize];
                        if cell.load(Ordering::Relaxed) != UNDECIDED {
                            return None;
                        }
                        let f = this.flags[x][i as usize];
                        if f & RULE_WIN_EXIT != 0 {
                            cell.store(RULE_WIN, Ordering::Relaxed);
                        } else if f & DRAW_EXIT == 0
                            && f & OPPONENT_RULE_WIN != 0
                            && this.counts[x][i as usize].load(Ordering::Relaxed) == 0
                        {
                            cell.store(RULE_LOSS, Ordering::Relaxed);
                        } else {
                            return None;
                        }
                        Some(i << 1 | x as u64)
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        observer.phase("retrograde, by rule", frontier.len() as u64);
        while !frontier.is_empty() {
            let next: Vec<u64> = frontier
                .par_iter()
                .flat_map_iter(|&entry| {
                    let lost = self.code(entry) == RULE_LOSS;
                    let mut out = Vec::new();
                    self.for_each_parent(entry, |parent, _| {
                        let (y, p) = ((parent & 1) as usize, (parent >> 1) as usize);
                        let cell = &self.wide()[y][p];
                        if cell.load(Ordering::Relaxed) != UNDECIDED {
                            return;
                        }
                        if lost {
                            if cell
                                .compare_exchange(
                                    UNDECIDED,
                                    RULE_WIN,
                                    Ordering::Relaxed,
                                    Ordering::Relaxed,
                                )
                                .is_ok()
                            {
                                out.push(parent);
                            }
                        } else {
                            let left = self.counts[y][p].fetch_sub(1, Ordering::Relaxed) - 1;
                            if left == 0
                                && self.flags[y][p] & DRAW_EXIT == 0
                                && cell
                                    .compare_exchange(
                                        UNDECIDED,
                                        RULE_LOSS,
                                        Ordering::Relaxed,
                                        Ordering::Relaxed,
                                    )
                                    .is_ok()
                            {
                                out.push(parent);
                            }
                        }
                    });
                    out
                })
                .collect();
            observer.progressed(frontier.len() as u64);
            frontier = next;
        }
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
    pub fn layout(&self) -> Layout {
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

    /// Counts and longest values for one side to move.
    pub fn counts(&self, to_move: Side) -> SideCounts {
        let x = x_of(to_move);
        (0..self.space.size())
            .into_par_iter()
            .fold(SideCounts::default, |mut c, i| {
                let code = self.code_at(x, i as usize);
                match Verdict::from_code(code) {
                    None => return c,
                    Some(Verdict::Win(Some(d))) => {
                        c.wins += 1;
                        if c.longest_win.is_none_or(|(l, _)| d > l) {
                            c.longest_win = Some((d, i));
                        }
                    }
                    Some(Verdict::Loss(Some(d))) => {
                        c.losses += 1;
                        if c.longest_loss.is_none_or(|(l, _)| d > l) {
                            c.longest_loss = Some((d, i));
                        }
                    }
                    Some(Verdict::Win(None)) => c.rule_wins += 1,
                    Some(Verdict::Loss(None)) => c.rule_losses += 1,
                    Some(Verdict::Draw) => c.draws += 1,
                }
                c.legal += 1;
                c
            })
            .reduce(SideCounts::default, |a, b| {
                let longer = |p: Option<(u32, u64)>, q: Option<(u32, u64)>| match (p, q) {
                    (Some(p), Some(q)) => Some(if q.0 > p.0 || (q.0 == p.0 && q.1 < p.1) {
                        q
                    } else {
                        p
                    }),
                    (p, q) => p.or(q),
                };
                SideCounts {
                    legal: a.legal + b.legal,
                    wins: a.wins + b.wins,
                    rule_wins: a.rule_wins + b.rule_wins,
                    draws: a.draws + b.draws,
                    rule_losses: a.rule_losses + b.rule_losses,
                    losses: a.losses + b.losses,
                    longest_win: longer(a.longest_win, b.longest_win),
                    longest_loss: longer(a.longest_loss, b.longest_loss),
                }
            })
    }

    /// The fixed-value rules that valued at least one exit, each with the value it gave.
    pub fn assumptions(&self) -> Vec<Assumption> {
        let p = self.problem;
        let geo = &p.geo;
        let n = p.men.len();
        let c = p.captures.len();
        let mut out = Vec::new();
        for (k, hits) in self.hits.iter().enumerate() {
            for o in [Outcome::WhiteWins, Outcome::Draw, Outcome::BlackWins] {
                let exits = hits[outcome_index(o)].load(Ordering::Relaxed);
                if exits == 0 {
                    continue;
                }
                let text = if k < n {
                    let m = &p.men[k];
                    let squares = if m.allowed.len() == 1 {
                        format!(
                            "never leaves {}",
                            crate::problem::square_name(geo, m.allowed[0])
                        )
                    } else {
                        format!("keeps to its {} squares", m.allowed.len())
                    };
                    format!(
                        "line {}: {} {squares} — {} if it does not",
                        m.line,
                        p.man_name(k),
                        o.word()
                    )
                } else if k < n + c {
                    let r = &p.captures[k - n];
                    let what = r.victim.map_or("a man".to_string(), |(s, pc)| {
                        format!(
                            "the {} {}",
                            if s == Side::White { "white" } else { "black" },
                            pc.name()
                        )
                    });
                    format!("line {}: taking {what} counts as {}", r.line, o.word())
                } else {
                    let r = &p.promotions[k - n - c];
                    format!("line {}: a promotion counts as {}", r.line, o.word())
                };
                out.push(Assumption {
                    text,
                    outcome: o,
                    exits,
                });
            }
        }
        out
    }
}

/// The positions after each legal capture onto `sq`.
fn takes_on(geo: &retro_engine::Geometry, pos: &FreezerPosition, sq: Sq) -> Vec<FreezerPosition> {
    let mut out = Vec::new();
    pos.for_each_legal_move(geo, None, |mv| {
        if mv.to == sq && mv.captured.is_some() {
            out.push(pos.play(geo, &mv));
        }
    });
    out
}

fn can_take_on(geo: &retro_engine::Geometry, pos: &FreezerPosition, sq: Sq) -> bool {
    let mut found = false;
    pos.for_each_legal_move(geo, None, |mv| {
        found |= mv.to == sq && mv.captured.is_some()
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// A capture rule's three values (the seed, 2.2): Qxd5 takes the black rook; with the e6
    /// pawn to recapture the rule's `recapture` value holds, and with the d1 rook to take back
    /// again its `second_recapture` value; with neither, its plain value.
    #[test]
    fn recaptures_and_second_recaptures_are_valued_by_the_rule() {
        let cases = [
            ("4k3/8/4p3/3r4/3Q4/8/8/3RK3 w - - 0 1", Outcome::BlackWins),
            ("4k3/8/4p3/3r4/3Q4/8/8/4K3 w - - 0 1", Outcome::Draw),
            ("4k3/8/8/3r4/3Q4/8/8/4K3 w - - 0 1", Outcome::WhiteWins),
        ];
        for (fen, expected) in cases {
            // Every man kept to its square (an index of one entry), any other capture a draw.
            let mut text = format!(
                "fen = \"{fen}\"\n[[capture]]\npiece = \"r\"\nvalue = \"win\"\nrecapture = \"draw\"\nsecond_recapture = \"loss\"\n[[capture]]\npiece = \"Q\"\nvalue = \"draw\"\n[[promotion]]\nvalue = \"draw\"\n"
            );
            let setup = retro_rules::fen::Setup::parse(fen).unwrap();
            for (square, _) in &setup.men {
                text.push_str(&format!(
                    "[[man]]\non = \"{square}\"\nsquares = [\"{square}\"]\nelsewhere = \"draw\"\n"
                ));
            }
            let problem = Problem::parse(&text).expect(&text);
            let tables = Tablebase::new(problem.geo.board(), std::env::temp_dir());
            let a = Analysis::unsolved(&problem, &tables, Layout::Wide).unwrap();
            let start = a.index_of(&problem.start).unwrap();
            let n = problem.men.len();
            let mut squares = [0 as Sq; MAX_MEN];
            a.space.squares(start, &mut squares[..n]);
            let mut valued = None;
            problem.start.for_each_legal_move(&problem.geo, None, |mv| {
                if mv.captured == Some(Piece::Rook) {
                    valued = Some(a.step(&problem.start, &squares[..n], start, &mv).unwrap());
                }
            });
            match valued {
                Some(Step::Exits(_, Some((RuleRef::Capture(0), o)))) => {
                    assert_eq!(o, expected, "{fen}")
                }
                other => panic!("{fen}: {other:?}"),
            }
        }
    }

    /// 4x6: a white pawn on b2-b5 and a black one on c3-c5, each able to double-step to beside
    /// the other's squares (en-passant entries both ways), free kings, captures looked up in
    /// KPvK, promotions counted as wins for White.
    const EN_PASSANT_PROBLEM: &str = "fen = \"3k/2p1/4/4/1P2/K3 w - - 0 1\"\n[[man]]\non = \"b2\"\nsquares = [\"b2-b5\"]\nelsewhere = \"win\"\n[[man]]\non = \"c5\"\nsquares = [\"c3-c5\"]\nelsewhere = \"loss\"\n[[promotion]]\nvalue = \"win\"\n";

    /// The values of every legal entry by their definition, solved naively from the moves
    /// [`Analysis::step`] values: depth by depth (a win in `k` has a move to a loss in `k − 1`;
    /// a loss in `k` has only moves to wins of at most `k − 1` plies, exits included), then
    /// the rule fixpoint (a move to a loss by rule wins, moves only to wins lose), the rest
    /// drawn. Indexed by `index · 2 + side`; `None` for an illegal entry.
    fn by_definition(a: &Analysis<'_>) -> Vec<Option<Verdict>> {
        enum Out {
            Child(usize),
            Exit(Verdict),
        }
        let problem = a.problem;
        let geo = &problem.geo;
        let n = problem.men.len();
        let size = a.space.entries() as usize;
        let mut moves: Vec<Option<Vec<Out>>> = Vec::with_capacity(2 * size);
        let mut values: Vec<Option<Verdict>> = vec![None; 2 * size];
        let mut deepest_exit = 0;
        for (e, value) in values.iter_mut().enumerate() {
            let (entry, x) = ((e >> 1) as u64, e & 1);
            let mut squares = [0 as Sq; MAX_MEN];
            let (index, ep) = a.space.decode(entry, &mut squares[..n]);
            let Some(pos) = a.position(&squares[..n], x, ep) else {
                moves.push(None);
                continue;
            };
            let mut out = Vec::new();
            pos.for_each_legal_move(geo, None, |mv| {
                match a.step(&pos, &squares[..n], index, &mv).unwrap() {
                    Step::Stays(child) => out.push(Out::Child((child as usize) << 1 | (1 - x))),
                    Step::Exits(v, _) => {
                        deepest_exit = deepest_exit.max(v.plies().unwrap_or(0));
                        out.push(Out::Exit(v));
                    }
                }
            });
            if out.is_empty() {
                *value = Some(if pos.in_check(geo, pos.side_to_move()) {
                    Verdict::Loss(Some(0))
                } else {
                    Verdict::Draw
                });
            }
            moves.push(Some(out));
        }
        let after = |values: &[Option<Verdict>], o: &Out| match o {
            Out::Child(c) => values[*c],
            Out::Exit(v) => Some(*v),
        };
        let mut k = 1;
        let mut last_change = 0;
        while k <= deepest_exit + 2 || k <= last_change + 2 {
            let mut decided = Vec::new();
            for (e, list) in moves.iter().enumerate() {
                let Some(list) = list else { continue };
                if values[e].is_some() {
                    continue;
                }
                let now = if k % 2 == 1 {
                    list.iter()
                        .any(|o| after(&values, o) == Some(Verdict::Loss(Some(k - 1))))
                        .then_some(Verdict::Win(Some(k)))
                } else {
                    list.iter()
                        .all(|o| matches!(after(&values, o), Some(Verdict::Win(Some(j))) if j < k))
                        .then_some(Verdict::Loss(Some(k)))
                };
                if let Some(v) = now {
                    decided.push((e, v));
                }
            }
            if !decided.is_empty() {
                last_change = k;
            }
            for (e, v) in decided {
                values[e] = Some(v);
            }
            k += 1;
        }
        loop {
            let mut decided = Vec::new();
            for (e, list) in moves.iter().enumerate() {
                let Some(list) = list else { continue };
                if values[e].is_some() {
                    continue;
                }
                if list
                    .iter()
                    .any(|o| after(&values, o) == Some(Verdict::Loss(None)))
                {
                    decided.push((e, Verdict::Win(None)));
                } else if list
                    .iter()
                    .all(|o| matches!(after(&values, o), Some(Verdict::Win(_))))
                {
                    decided.push((e, Verdict::Loss(None)));
                }
            }
            if decided.is_empty() {
                break;
            }
            for (e, v) in decided {
                values[e] = Some(v);
            }
        }
        moves
            .iter()
            .zip(values)
            .map(|(m, v)| m.as_ref().map(|_| v.unwrap_or(Verdict::Draw)))
            .collect()
    }

    /// Both layouts give every entry the value its definition gives it ([`by_definition`]), on
    /// problems with fixed rules of each kind, look-ups into tables with depths (positions
    /// whose every move is a capture into a lost table among them), pawns and promotions.
    #[test]
    fn both_layouts_give_the_values_by_definition() {
        let problems = [
            // 5x5: two rooks against a king, captures looked up in KRvK; a black king whose
            // only move takes a rook into a lost KRvK position is lost with a depth.
            "fen = \"k4/5/5/1R1R1/4K w - - 0 1\"\n",
            // The same with a rook kept to ranks 1-2 (a draw elsewhere) and one to files a-c
            // (a win elsewhere), and taking a rook on c3 counted as a loss for White.
            "fen = \"k4/5/5/1R1R1/4K w - - 0 1\"\n[[man]]\non = \"b2\"\nsquares = [\"a1-e2\"]\nelsewhere = \"draw\"\n[[man]]\non = \"d2\"\nsquares = [\"a1-c5\", \"d2\"]\nelsewhere = \"win\"\n[[capture]]\nsquares = [\"c3\"]\nvalue = \"loss\"\n",
            // 6x6: a pawn on b2-b5 (double steps), a rook kept to c1-f3, free kings.
            "fen = \"6/6/3k2/6/1P4/K1R3 w - - 0 1\"\n[[man]]\non = \"b2\"\nsquares = [\"b2-b5\"]\nelsewhere = \"win\"\n[[man]]\non = \"c1\"\nsquares = [\"c1-f3\"]\nelsewhere = \"draw\"\n[[promotion]]\nvalue = \"win\"\n[[capture]]\nvalue = \"draw\"\n",
            // 4x6: a knight against a black pawn, captures and promotion by rule.
            "fen = \"k3/1p2/4/4/N3/K3 b - - 0 1\"\n[[capture]]\nvalue = \"loss\"\n[[promotion]]\nvalue = \"loss\"\n",
            // 4x5: king and pawn against king, promotions looked up (a knight's draws too).
            "fen = \"4/2k1/4/1P2/K3 w - - 0 1\"\n",
            EN_PASSANT_PROBLEM,
        ];
        let dir = tempfile::tempdir().unwrap();
        for text in problems {
            let problem = Problem::parse(text).expect(text);
            let needed = tables_needed(&problem).unwrap();
            retro_gen::Builder::new(problem.geo.board(), dir.path())
                .build(&needed, &retro_gen::Silent)
                .unwrap();
            let tables = Tablebase::new(problem.geo.board(), dir.path());
            let truth =
                by_definition(&Analysis::unsolved(&problem, &tables, Layout::Wide).unwrap());
            let mut kinds = HashSet::new();
            for layout in [Layout::Wide, Layout::Narrow] {
                let a = Analysis::solve_with(&problem, &tables, layout, &Silent).unwrap();
                for (e, want) in truth.iter().enumerate() {
                    let got = a.verdict(side(e & 1), (e >> 1) as u64);
                    assert_eq!(got, *want, "{layout:?}, entry {e}: {text}");
                    if let Some(v) = got {
                        kinds.insert(v.key().0);
                    }
                }
            }
            eprintln!("{text}: value kinds {kinds:?}");
            assert!(kinds.len() >= 3, "{text}: values of too few kinds");
        }
    }

    /// The un-moves list exactly the entries with a move staying in the index to a given entry:
    /// checked on every legal entry of small problems with sliders, knights, pawns (single and
    /// double steps) and restricted men.
    #[test]
    fn unmoves_are_the_moves_reversed() {
        let problems = [
            // 6x6: a pawn on b2-b5 (double steps from b2), a rook kept to c1-f3, free kings.
            "fen = \"6/6/3k2/6/1P4/K1R3 w - - 0 1\"\n[[man]]\non = \"b2\"\nsquares = [\"b2-b5\"]\nelsewhere = \"win\"\n[[man]]\non = \"c1\"\nsquares = [\"c1-f3\"]\nelsewhere = \"draw\"\n[[promotion]]\nvalue = \"win\"\n[[capture]]\nvalue = \"draw\"\n",
            // 4x6: a knight against a black pawn, captures by rule.
            "fen = \"k3/1p2/4/4/N3/K3 b - - 0 1\"\n[[capture]]\nvalue = \"loss\"\n[[promotion]]\nvalue = \"loss\"\n",
            // 4x6: queen kept to the light squares against a king.
            "fen = \"k3/4/4/4/4/KQ2 w - - 0 1\"\n[[man]]\non = \"b1\"\nsquares = [\"light\"]\nelsewhere = \"loss\"\n[[capture]]\nvalue = \"draw\"\n",
            EN_PASSANT_PROBLEM,
        ];
        for text in problems {
            let problem = Problem::parse(text).expect(text);
            let tables = Tablebase::new(problem.geo.board(), std::env::temp_dir());
            let a = Analysis::unsolved(&problem, &tables, Layout::Wide).unwrap();
            let size = a.space.entries();
            let n = problem.men.len();
            let mut edges = HashSet::new();
            let mut legal = HashSet::new();
            for x in 0..2 {
                for entry in 0..size {
                    let mut squares = [0 as Sq; MAX_MEN];
                    let (index, ep) = a.space.decode(entry, &mut squares[..n]);
                    let Some(pos) = a.position(&squares[..n], x, ep) else {
                        continue;
                    };
                    legal.insert(entry << 1 | x as u64);
                    pos.for_each_legal_move(&problem.geo, None, |mv| {
                        if let Ok(Step::Stays(child)) = a.step(&pos, &squares[..n], index, &mv) {
                            edges.insert((entry << 1 | x as u64, child << 1 | (1 - x) as u64));
                        }
                    });
                }
            }
            assert!(edges.len() > 1000, "{text}: {} moves", edges.len());
            if text == EN_PASSANT_PROBLEM {
                // Double steps into en-passant entries, and moves out of them, both ways.
                let ep = |e: u64| e >> 1 >= a.space.size();
                for x in 0..2u64 {
                    let into = edges.iter().filter(|(p, c)| p & 1 == x && ep(*c)).count();
                    let out = edges.iter().filter(|(p, _)| p & 1 == x && ep(*p)).count();
                    assert!(into > 0 && out > 0, "side {x}: {into} into, {out} out of");
                }
            }
            let mut found = HashSet::new();
            for &child in &legal {
                a.for_each_parent(child, |parent, _| {
                    if legal.contains(&parent) {
                        assert!(found.insert((parent, child)), "a parent listed twice");
                    }
                });
            }
            assert_eq!(found, edges, "{text}");
        }
    }
}
