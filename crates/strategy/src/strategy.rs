//! The Bratko-style KRK strategy for White (Janičić, Marić, Maliković, section 2.2.1, with the
//! n×n adjustments of 5.3.1): its move kinds in priority order, as a relation (every move the
//! strategy allows) and as a function (one move).
//!
//! Owns: [`Kind`], [`Strategy`], [`Choice`].
//!
//! The function picks, within the first applicable kind: the maximal Squeeze (least room
//! after the move); among RookHome moves the one whose rook ends closest to the black king
//! (Manhattan distance); otherwise the first move in the order of `Krk::white_moves` (king steps
//! N, NE, E, SE, S, SW, W, NW, then rook moves along its rank by increasing file, then along its
//! file by increasing rank). Ties in the first two go to the earlier move in that order. The
//! function is computed on the position's canonical image and mapped back, so positions of one
//! orbit get moves that are images of each other (up to a position's own symmetries, which do
//! not change what follows) — which lets verification look at one position per orbit;
//! `tests/figures.rs` compares with every placement on 4×4 to 8×8.
//!
//! Where the paper's wording admits several readings, the one chosen is the one that
//! reproduces all its 8×8 counts; each is documented at its condition. On 8×8 the relation's
//! longest game is the paper's 65 plies; the function, which always plays the maximal Squeeze,
//! needs at most 63.

use crate::conditions;
use crate::krk::{inverse, manhattan, transform, EveryMove, Krk, Move};
use crate::notions::room;
use std::fmt;

/// The kinds of strategy move, in priority order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A mating move.
    ImmediateMate,
    /// A move after which every reply allows a mate.
    ReadyToMate,
    /// A rook move reducing the room.
    Squeeze,
    /// A diagonal king move towards the critical square.
    ApproachDiag,
    /// A non-diagonal king move towards the critical square.
    ApproachNonDiag,
    /// A diagonal king move keeping its distance from the rook.
    KeepRoomDiag,
    /// A non-diagonal such move.
    KeepRoomNonDiag,
    /// A rook move next to the white king.
    RookHome,
    /// A rook move to a far edge.
    RookSafe,
    /// A rook move to the white king's edge (needed on 4×4 and 5×5 only).
    RookSafeSmallBoards,
}

impl Kind {
    /// Every kind, in priority order.
    pub const ALL: [Kind; 10] = [
        Kind::ImmediateMate,
        Kind::ReadyToMate,
        Kind::Squeeze,
        Kind::ApproachDiag,
        Kind::ApproachNonDiag,
        Kind::KeepRoomDiag,
        Kind::KeepRoomNonDiag,
        Kind::RookHome,
        Kind::RookSafe,
        Kind::RookSafeSmallBoards,
    ];

    /// The paper's name, e.g. `ApproachDiag`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::ImmediateMate => "ImmediateMate",
            Kind::ReadyToMate => "ReadyToMate",
            Kind::Squeeze => "Squeeze",
            Kind::ApproachDiag => "ApproachDiag",
            Kind::ApproachNonDiag => "ApproachNonDiag",
            Kind::KeepRoomDiag => "KeepRoomDiag",
            Kind::KeepRoomNonDiag => "KeepRoomNonDiag",
            Kind::RookHome => "RookHome",
            Kind::RookSafe => "RookSafe",
            Kind::RookSafeSmallBoards => "RookSafeSmallBoards",
        }
    }

    /// The basic moves of Lemma 5 and 6: Squeeze, Approach and KeepRoom.
    pub fn is_basic(self) -> bool {
        matches!(
            self,
            Kind::Squeeze
                | Kind::ApproachDiag
                | Kind::ApproachNonDiag
                | Kind::KeepRoomDiag
                | Kind::KeepRoomNonDiag
        )
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Conditions that can be dropped, to see the checkers catch a broken strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Breakage {
    /// Squeeze without "(i) the rook is not exposed".
    pub squeeze_may_expose_rook: bool,
    /// Approach without "(ii) the rook divides the kings or there is an L-pattern".
    pub approach_may_undivide: bool,
    /// RookHome moves into a line that cannot divide the kings allowed even when another
    /// RookHome move is.
    pub rook_home_any_line: bool,
    /// RookSafeSmallBoards with the paper's literal distance (to the white king).
    pub small_boards_literal: bool,
}

/// The strategy, possibly broken on purpose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Strategy {
    /// Conditions dropped (none for the real strategy).
    pub broken: Breakage,
}

/// A strategy move and its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice {
    /// The kind.
    pub kind: Kind,
    /// The move.
    pub mv: Move,
    /// The position after it (Black to move).
    pub after: Krk,
}

impl Strategy {
    /// Whether `mv` (from `before` to `after`) satisfies the condition of `kind`, ignoring the
    /// priority of kinds: [`conditions::kind_condition`] on numbers, the very formulas the proof
    /// for every n hands to the solvers.
    pub fn satisfies(&self, kind: Kind, before: &Krk, mv: &Move, after: &Krk) -> bool {
        conditions::kind_condition(
            &mut EveryMove,
            &self.broken,
            kind,
            &before.placement(),
            &mv.step(),
            &after.placement(),
            true,
        )
    }

    /// The relation: the kind of the position (the first whose condition some move meets, with
    /// a diagonal Approach or KeepRoom preferred to a non-diagonal one) and every move of that
    /// kind — for RookHome, the moves into a line that can divide the kings if there are any.
    /// `None` if no kind applies.
    pub fn relation(&self, p: &Krk) -> Option<(Kind, Vec<Choice>)> {
        let moves = p.white_moves();
        if !p.white_to_move || p.wr.is_none() {
            return None;
        }
        // Each move as the conditions read it, once for all kinds.
        let before = p.placement();
        let read: Vec<_> = moves
            .iter()
            .map(|(mv, after)| (mv.step(), after.placement()))
            .collect();
        for kind in Kind::ALL {
            let mut chosen: Vec<Choice> = moves
                .iter()
                .zip(&read)
                .filter(|(_, (step, after))| {
                    conditions::kind_condition(
                        &mut EveryMove,
                        &self.broken,
                        kind,
                        &before,
                        step,
                        after,
                        true,
                    )
                })
                .map(|(&(mv, after), _)| Choice { kind, mv, after })
                .collect();
            if kind == Kind::RookHome {
                // Into a line that cannot divide the kings only when nothing else will do:
                // otherwise the rook can shuttle across the kings' file for ever, or chase the
                // black king along it (`tests/figures.rs` and `tests/lemmas.rs` show both).
                let keep: Vec<Choice> = chosen
                    .iter()
                    .copied()
                    .filter(|c| conditions::can_divide(&before, &c.mv.step()))
                    .collect();
                if !keep.is_empty() && !self.broken.rook_home_any_line {
                    chosen = keep;
                }
            }
            if !chosen.is_empty() {
                return Some((kind, chosen));
            }
        }
        None
    }

    /// The function on a position as it is (not canonicalised): the relation's kind and one move.
    fn function_as_is(&self, p: &Krk) -> Option<Choice> {
        let (kind, choices) = self.relation(p)?;
        let best = match kind {
            Kind::Squeeze => choices.iter().min_by_key(|c| room(&c.after)),
            Kind::RookHome => choices
                .iter()
                .min_by_key(|c| manhattan(c.mv.to, c.after.bk)),
            _ => choices.first(),
        };
        best.copied()
    }

    /// The function: one strategy move, computed on the canonical image and mapped back.
    pub fn function(&self, p: &Krk) -> Option<Choice> {
        let (canonical, g) = p.canonical();
        let choice = self.function_as_is(&canonical)?;
        let back = inverse(g);
        let t = |s| transform(p.n, back, s);
        Some(Choice {
            kind: choice.kind,
            mv: Move {
                mover: choice.mv.mover,
                from: t(choice.mv.from),
                to: t(choice.mv.to),
            },
            after: choice.after.transformed(back),
        })
    }

    /// The function on a canonical position (no mapping needed).
    pub fn function_on_canonical(&self, p: &Krk) -> Option<Choice> {
        self.function_as_is(p)
    }
}
