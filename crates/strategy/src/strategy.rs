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

use crate::krk::{chebyshev, inverse, manhattan, transform, Krk, Move, Mover};
use crate::notions::{
    critical_square, edges, kings_on_same_edge, l_pattern, rook_divides, rook_exposed, room,
    towards_black_kings_edge,
};
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

/// "(iii) it is not stalemate."
fn not_stalemate(after: &Krk) -> bool {
    !after.is_stalemate()
}

/// ImmediateMate: "If there is a mating move, play it."
pub fn immediate_mate(after: &Krk) -> bool {
    after.black_in_check() && !after.black_can_move()
}

/// White to move can mate at once.
fn has_mate_in_one(p: &Krk) -> bool {
    let mut found = false;
    p.for_each_white_move(|_, after| found = found || immediate_mate(&after));
    found
}

/// ReadyToMate: "there is a move that leads to mate in the next move": Black has a move, and
/// after each of them White can mate at once. (A reply off every edge can never be mated in
/// KRK — the rook alone must cover a king's whole escape line — so such moves are rejected
/// without searching.)
pub fn ready_to_mate(after: &Krk) -> bool {
    let n = after.n;
    let mut replies = 0;
    let on_edges = after.for_each_black_move(|_, q| {
        replies += 1;
        edges(n, q.bk) != 0 && q.wr.is_some()
    });
    on_edges && replies > 0 && after.for_each_black_move(|_, q| has_mate_in_one(&q))
}

/// "(iii) if the room is less than or equal to 3, then the following holds: the white king is
/// not on an edge and if its Chebyshev distance from the rook is 1, then it does not make a move
/// towards the black king's edge."
///
/// Three readings are fixed here; each is the one that reproduces the paper's 8×8 counts
/// (ApproachDiag 12,160, ApproachNonDiag 4,020, KeepRoomDiag 3,160, KeepRoomNonDiag 184):
/// - "the white king is not on an edge" becomes "the two kings are not on a same edge", as
///   section 5.3.1 reformulates it for n×n boards (on 8×8 both give the same counts);
/// - "its Chebyshev distance from the rook is 1" is the king's distance *before* the move
///   (measured after the move, 64 ApproachDiag positions are lost);
/// - a black king in a corner is not "on an edge" here ([`towards_black_kings_edge`] is false).
fn small_room_condition(before: &Krk, mv: &Move, after: &Krk) -> bool {
    if room(after) > 3 {
        return true;
    }
    let wr = after.wr.expect("king moves keep the rook");
    let near_rook = chebyshev(mv.from, wr) == 1;
    let towards_edge_beside_rook = near_rook && towards_black_kings_edge(before, mv);
    !(kings_on_same_edge(after) || towards_edge_beside_rook)
}

/// Whether a RookHome move puts the rook on a line that can divide the kings: not a file when
/// the kings share a file (the rook moved along its rank), nor a rank when they share a rank.
fn can_divide(p: &Krk, mv: &Move) -> bool {
    let along_rank = mv.from.y == mv.to.y;
    let kings_share_file = p.wk.x == p.bk.x;
    let kings_share_rank = p.wk.y == p.bk.y;
    if along_rank {
        !kings_share_file
    } else {
        !kings_share_rank
    }
}

impl Strategy {
    /// Squeeze: "make a move (by the rook) that reduces the room and in the reached position it
    /// holds that: (i) the rook is not exposed, (ii) the rook divides the kings and (iii) it is
    /// not stalemate."
    pub fn squeeze(&self, before: &Krk, mv: &Move, after: &Krk) -> bool {
        mv.mover == Mover::Rook
            && room(after) < room(before)
            && (self.broken.squeeze_may_expose_rook || !rook_exposed(after))
            && rook_divides(after)
            && not_stalemate(after)
    }

    /// Approach: "move the king so the Manhattan distance between the king and the critical
    /// square is decreased; in the reached position … (i) the rook is not exposed, (ii) the rook
    /// divides the kings or there is a L-pattern, (iii) if the room is less than or equal to 3
    /// … and (iv) it is not stalemate."
    pub fn approach(&self, before: &Krk, mv: &Move, after: &Krk) -> bool {
        let Some(critical) = critical_square(before) else {
            return false;
        };
        mv.mover == Mover::King
            && manhattan(mv.to, critical) < manhattan(mv.from, critical)
            && !rook_exposed(after)
            && (self.broken.approach_may_undivide || rook_divides(after) || l_pattern(after))
            && small_room_condition(before, mv, after)
            && not_stalemate(after)
    }

    /// KeepRoom: "move the king if that does not increase the Chebyshev distance from the rook;
    /// in the reached position … (i) the rook is not exposed and divides the kings, and (ii) if
    /// the room is less than or equal to 3 … and (iii) it is not stalemate."
    pub fn keep_room(&self, before: &Krk, mv: &Move, after: &Krk) -> bool {
        let Some(wr) = before.wr else { return false };
        mv.mover == Mover::King
            && chebyshev(mv.to, wr) <= chebyshev(mv.from, wr)
            && !rook_exposed(after)
            && rook_divides(after)
            && small_room_condition(before, mv, after)
            && not_stalemate(after)
    }

    /// RookHome: "move the rook to be horizontally or vertically adjacent to the white king; in
    /// the reached position the following has to hold: (i) the rook is adjacent to the black
    /// king only if it is guarded by the white king and (ii) it is not stalemate."
    ///
    /// The paper formalises "adjacent" as `KRK.divide_attempt` — "the white rook is in a file or
    /// rank next to the white king" — with four candidate squares (5.3.1): the rook moves along
    /// its rank into the file next to the white king, or along its file into the rank next to
    /// it, on the black king's side; when the kings share that file (rank), on either side.
    /// This reading gives the paper's 32,520 RookHome and 432 RookSafe positions on 8×8.
    /// When the kings share a file (rank), a move into the file (rank) next to the white king
    /// cannot divide them; such moves are allowed only when no other RookHome move is (see
    /// [`Strategy::relation`]). They are needed: without them 1,040 positions on 8×8 fall to
    /// RookSafe, against the paper's count.
    pub fn rook_home(&self, _before: &Krk, mv: &Move, after: &Krk) -> bool {
        let (wk, bk, to) = (after.wk, after.bk, mv.to);
        let next_to_king = |king: u8, black: u8, r: u8| match black.cmp(&king) {
            std::cmp::Ordering::Greater => r == king + 1,
            std::cmp::Ordering::Less => r + 1 == king,
            std::cmp::Ordering::Equal => r.abs_diff(king) == 1,
        };
        let divide_attempt = (mv.from.y == to.y && next_to_king(wk.x, bk.x, to.x))
            || (mv.from.x == to.x && next_to_king(wk.y, bk.y, to.y));
        let guarded_if_attacked = chebyshev(to, bk) > 1 || chebyshev(to, wk) == 1;
        mv.mover == Mover::Rook && divide_attempt && guarded_if_attacked && not_stalemate(after)
    }

    /// RookSafe: "move the rook to some edge (other than the edge it is possibly is on); in the
    /// reached position … (i) either both kings are next to the rook or the Chebyshev distance
    /// between the rook and the black king is greater than 2, and (ii) it is not stalemate."
    pub fn rook_safe(&self, _before: &Krk, mv: &Move, after: &Krk) -> bool {
        let n = after.n;
        mv.mover == Mover::Rook
            && edges(n, mv.to) & !edges(n, mv.from) != 0
            && ((chebyshev(mv.to, after.wk) == 1 && chebyshev(mv.to, after.bk) == 1)
                || chebyshev(mv.to, after.bk) > 2)
            && not_stalemate(after)
    }

    /// RookSafeSmallBoards (5.3.1): "move the rook to an edge where the white king is (if not
    /// already on that edge); in the reached position, the Chebyshev distance between the white
    /// rook and the white king has to be 2."
    ///
    /// Read literally (distance to the *white* king), no move applies in `3K/4/1k2/R3 w` on 4×4
    /// and `5/3R1/2k2/5/K4 w` on 5×5 (`tests/figures.rs` shows it). The distance that makes the
    /// strategy complete is the one RookSafe (i) forbids — to the *black* king — which is what
    /// the paper's footnote to RookSafe motivates; we use it.
    pub fn rook_safe_small_boards(&self, _before: &Krk, mv: &Move, after: &Krk) -> bool {
        let n = after.n;
        let distance = if self.broken.small_boards_literal {
            chebyshev(mv.to, after.wk)
        } else {
            chebyshev(mv.to, after.bk)
        };
        mv.mover == Mover::Rook
            && edges(n, after.wk) & edges(n, mv.to) & !edges(n, mv.from) != 0
            && distance == 2
    }

    /// Whether `mv` (from `before` to `after`) satisfies the condition of `kind`, ignoring the
    /// priority of kinds and Diag/NonDiag preference.
    pub fn satisfies(&self, kind: Kind, before: &Krk, mv: &Move, after: &Krk) -> bool {
        match kind {
            Kind::ImmediateMate => immediate_mate(after),
            Kind::ReadyToMate => ready_to_mate(after),
            Kind::Squeeze => self.squeeze(before, mv, after),
            Kind::ApproachDiag => mv.is_diagonal() && self.approach(before, mv, after),
            Kind::ApproachNonDiag => !mv.is_diagonal() && self.approach(before, mv, after),
            Kind::KeepRoomDiag => mv.is_diagonal() && self.keep_room(before, mv, after),
            Kind::KeepRoomNonDiag => !mv.is_diagonal() && self.keep_room(before, mv, after),
            Kind::RookHome => self.rook_home(before, mv, after),
            Kind::RookSafe => self.rook_safe(before, mv, after),
            Kind::RookSafeSmallBoards => self.rook_safe_small_boards(before, mv, after),
        }
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
        let near_edge = p.bk.x <= 1 || p.bk.y <= 1 || p.bk.x + 2 >= p.n || p.bk.y + 2 >= p.n;
        for kind in Kind::ALL {
            // A ReadyToMate move leaves the black king where it is; it must reach an edge next.
            if kind == Kind::ReadyToMate && !near_edge {
                continue;
            }
            let mut chosen: Vec<Choice> = moves
                .iter()
                .filter(|(mv, after)| self.satisfies(kind, p, mv, after))
                .map(|&(mv, after)| Choice { kind, mv, after })
                .collect();
            if kind == Kind::RookHome {
                // Into a line that cannot divide the kings only when nothing else will do:
                // otherwise the rook can shuttle across the kings' file for ever, or chase the
                // black king along it (`tests/figures.rs` and `tests/lemmas.rs` show both).
                let keep: Vec<Choice> = chosen
                    .iter()
                    .copied()
                    .filter(|c| can_divide(p, &c.mv))
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
