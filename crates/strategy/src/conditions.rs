//! The strategy's one source: the KRK rules its conditions need (check, mate, stalemate, legal
//! moves), the auxiliary notions of section 2.2.1, every move kind's condition, and the
//! relation's priority of kinds — each written once over [`Num`], so that the exhaustive
//! checkers evaluate exactly the formulas the SMT proof sends to the solvers.
//!
//! Owns: [`Square`], [`Placement`], [`Step`], [`Moves`], [`kind_condition`], [`allowed`].
//! Must never: use anything but addition, subtraction, comparison and the Boolean connectives
//! (the proof for every n needs linear arithmetic), or quantify over moves except through
//! [`Moves`].

use crate::lia::{all, any, between, distance, max, Num, Truth};
use crate::strategy::{Breakage, Kind};

/// A square: file `x` and rank `y`, counted from 0.
#[derive(Debug, Clone, PartialEq)]
pub struct Square<I> {
    /// The file.
    pub x: I,
    /// The rank.
    pub y: I,
}

impl<I: Num> Square<I> {
    /// The square `(x, y)`.
    pub fn new(x: I, y: I) -> Square<I> {
        Square { x, y }
    }

    /// The same square.
    pub fn is(&self, other: &Square<I>) -> I::B {
        self.x.equals(&other.x) & self.y.equals(&other.y)
    }

    /// The square `(x + dx, y + dy)`.
    pub fn offset(&self, dx: i64, dy: i64) -> Square<I> {
        Square::new(self.x.plus(dx), self.y.plus(dy))
    }

    /// On the n×n board.
    pub fn on_board(&self, n: &I) -> I::B {
        let zero = I::lit(0);
        zero.le(&self.x) & self.x.lt(n) & zero.le(&self.y) & self.y.lt(n)
    }
}

/// Chebyshev distance: `max(|x₁ − x₂|, |y₁ − y₂|)`, the number of king moves between squares.
pub fn chebyshev<I: Num>(a: &Square<I>, b: &Square<I>) -> I {
    max(distance(&a.x, &b.x), distance(&a.y, &b.y))
}

/// Manhattan distance: `|x₁ − x₂| + |y₁ − y₂|`.
pub fn manhattan<I: Num>(a: &Square<I>, b: &Square<I>) -> I {
    distance(&a.x, &b.x) + distance(&a.y, &b.y)
}

/// The men of a KRK position with the rook on the board, on the n×n board (who is to move is
/// told separately).
#[derive(Debug, Clone, PartialEq)]
pub struct Placement<I> {
    /// The board's side.
    pub n: I,
    /// The white king.
    pub wk: Square<I>,
    /// The white rook.
    pub wr: Square<I>,
    /// The black king.
    pub bk: Square<I>,
}

/// A White move: whether the rook moves (else the king), from where, to where.
#[derive(Debug, Clone)]
pub struct Step<I: Num> {
    /// The rook moves (else the king).
    pub rook: I::B,
    /// The mover's square before.
    pub from: Square<I>,
    /// Its square after.
    pub to: Square<I>,
}

impl<I: Num> Step<I> {
    /// The position after the move (Black to move).
    pub fn apply(&self, p: &Placement<I>) -> Placement<I> {
        let pick = |a: &I, b: &I| self.rook.select(a.clone(), b.clone());
        Placement {
            n: p.n.clone(),
            wk: Square::new(pick(&p.wk.x, &self.to.x), pick(&p.wk.y, &self.to.y)),
            wr: Square::new(pick(&self.to.x, &p.wr.x), pick(&self.to.y, &p.wr.y)),
            bk: p.bk.clone(),
        }
    }

    /// A diagonal move.
    pub fn is_diagonal(&self) -> I::B {
        self.from.x.differs(&self.to.x) & self.from.y.differs(&self.to.y)
    }
}

/// The eight king steps, in the order the strategy function tries them: N, NE, E, SE, S, SW,
/// W, NW.
pub const KING_STEPS: [(i64, i64); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

/// The rook on `wr` attacks `target` along its file or rank, the white king the only possible
/// blocker (the black king, if it is the one moving, has left its square).
pub fn rook_attacks<I: Num>(wr: &Square<I>, wk: &Square<I>, target: &Square<I>) -> I::B {
    let same_file = wr.x.equals(&target.x);
    let same_rank = wr.y.equals(&target.y);
    let blocked = (same_file.clone() & wk.x.equals(&wr.x) & between(&wr.y, &wk.y, &target.y))
        | (!same_file.clone() & wk.y.equals(&wr.y) & between(&wr.x, &wk.x, &target.x));
    !wr.is(target) & (same_file | same_rank) & !blocked
}

/// The black king is attacked (by the rook; the white king never stands next to it).
pub fn black_in_check<I: Num>(p: &Placement<I>) -> I::B {
    rook_attacks(&p.wr, &p.wk, &p.bk)
}

/// Black's king step `(dx, dy)` from `p`: (legal, takes the rook, the square it reaches).
pub fn black_step<I: Num>(p: &Placement<I>, (dx, dy): (i64, i64)) -> (I::B, I::B, Square<I>) {
    let to = p.bk.offset(dx, dy);
    let captures = to.is(&p.wr);
    let legal = to.on_board(&p.n)
        & chebyshev(&to, &p.wk).gt(&I::lit(1))
        & (captures.clone() | !rook_attacks(&p.wr, &p.wk, &to));
    (legal, captures, to)
}

/// Black has a legal move.
pub fn black_can_move<I: Num>(p: &Placement<I>) -> I::B {
    any::<I>(KING_STEPS.iter().map(|&d| black_step(p, d).0))
}

/// Black to move is checkmated.
pub fn is_mate<I: Num>(p: &Placement<I>) -> I::B {
    black_in_check(p) & !black_can_move(p)
}

/// Black to move is stalemated.
pub fn is_stalemate<I: Num>(p: &Placement<I>) -> I::B {
    !black_in_check(p) & !black_can_move(p)
}

/// A legal position with White to move: the men on distinct squares of the board, the kings
/// not adjoining, the black king not in check.
pub fn legal_white_to_move<I: Num>(p: &Placement<I>) -> I::B {
    p.wk.on_board(&p.n)
        & p.wr.on_board(&p.n)
        & p.bk.on_board(&p.n)
        & !p.wr.is(&p.wk)
        & !p.wr.is(&p.bk)
        & chebyshev(&p.wk, &p.bk).gt(&I::lit(1))
        & !black_in_check(p)
}

/// `step` is a legal White move from `p` (White to move): a king step to a free square of the
/// board not next to the black king, or a rook move along its line that no king blocks.
pub fn white_step_legal<I: Num>(p: &Placement<I>, step: &Step<I>) -> I::B {
    let king = {
        let d = chebyshev(&step.from, &step.to);
        step.from.is(&p.wk)
            & d.equals(&I::lit(1))
            & step.to.on_board(&p.n)
            & !step.to.is(&p.wr)
            & chebyshev(&step.to, &p.bk).gt(&I::lit(1))
    };
    let rook = {
        let passes = (step.to.x.equals(&p.wr.x)
            & p.bk.x.equals(&p.wr.x)
            & between(&p.wr.y, &p.bk.y, &step.to.y))
            | (step.to.y.equals(&p.wr.y)
                & p.bk.y.equals(&p.wr.y)
                & between(&p.wr.x, &p.bk.x, &step.to.x));
        step.from.is(&p.wr)
            & step.to.on_board(&p.n)
            & !step.to.is(&p.wk)
            & !step.to.is(&p.bk)
            & rook_attacks(&p.wr, &p.wk, &step.to)
            & !passes
    };
    step.rook.select_truth(rook, king)
}

/// Selecting between two truth values.
trait SelectTruth<I>: Truth<I> {
    fn select_truth(&self, a: Self, b: Self) -> Self {
        (self.clone() & a) | (!self.clone() & b)
    }
}
impl<I, T: Truth<I>> SelectTruth<I> for T {}

/// *Room* (2.2.1): the half-perimeter of the black king's rectangle, `2n − 1` when the rook and
/// the black king are in line; otherwise `x + y` with `x = wr_x` if `wr_x > bk_x` and
/// `x = n − 1 − wr_x` if `wr_x < bk_x`, and likewise `y`.
pub fn room<I: Num>(p: &Placement<I>) -> I {
    let side = |r: &I, b: &I| b.lt(r).select(r.clone(), p.n.plus(-1) - r.clone());
    let in_line = p.wr.x.equals(&p.bk.x) | p.wr.y.equals(&p.bk.y);
    in_line.select(
        p.n.clone() + p.n.clone() - I::lit(1),
        side(&p.wr.x, &p.bk.x) + side(&p.wr.y, &p.bk.y),
    )
}

/// *Critical square* (2.2.1): the square next to the rook towards the black king.
pub fn critical_square<I: Num>(p: &Placement<I>) -> Square<I> {
    let towards = |r: &I, b: &I| {
        r.equals(b)
            .select(r.clone(), b.lt(r).select(r.plus(-1), r.plus(1)))
    };
    Square::new(towards(&p.wr.x, &p.bk.x), towards(&p.wr.y, &p.bk.y))
}

/// *Rook exposed* (2.2.1): the white king is farther from the rook than the black king by at
/// least 2 with White to move, by at least 1 with Black to move.
pub fn rook_exposed<I: Num>(p: &Placement<I>, white_to_move: bool) -> I::B {
    let white = chebyshev(&p.wr, &p.wk);
    let black = chebyshev(&p.wr, &p.bk);
    (white - black).ge(&I::lit(if white_to_move { 2 } else { 1 }))
}

/// *Rook divides* (2.2.1): its file strictly between the kings' files, or its rank between
/// their ranks.
pub fn rook_divides<I: Num>(p: &Placement<I>) -> I::B {
    between(&p.wk.x, &p.wr.x, &p.bk.x) | between(&p.wk.y, &p.wr.y, &p.bk.y)
}

/// *L-pattern* (2.2.1): the kings on one rank (file) two apart, the rook on the white king's
/// file (rank) next to it.
pub fn l_pattern<I: Num>(p: &Placement<I>) -> I::B {
    let (wk, bk, wr) = (&p.wk, &p.bk, &p.wr);
    let (one, two) = (I::lit(1), I::lit(2));
    (wk.y.equals(&bk.y)
        & distance(&wk.x, &bk.x).equals(&two)
        & wr.x.equals(&wk.x)
        & distance(&wr.y, &wk.y).equals(&one))
        | (wk.x.equals(&bk.x)
            & distance(&wk.y, &bk.y).equals(&two)
            & wr.y.equals(&wk.y)
            & distance(&wr.x, &wk.x).equals(&one))
}

/// The edges a square is on: left (file 0), right (file n − 1), bottom (rank 0), top
/// (rank n − 1).
pub fn edges<I: Num>(n: &I, s: &Square<I>) -> [I::B; 4] {
    let zero = I::lit(0);
    let last = n.plus(-1);
    [
        s.x.equals(&zero),
        s.x.equals(&last),
        s.y.equals(&zero),
        s.y.equals(&last),
    ]
}

/// *Kings on a same edge* (5.3.1): their files or ranks both 0 or n − 1.
pub fn kings_on_same_edge<I: Num>(p: &Placement<I>) -> I::B {
    let (w, b) = (edges(&p.n, &p.wk), edges(&p.n, &p.bk));
    any::<I>(w.into_iter().zip(b).map(|(a, b)| a & b))
}

/// *Towards black king's edge move*: the black king on exactly one edge (a corner is not "on
/// an edge" here: the paper's 8×8 counts need this reading) and the white king moving towards
/// it.
pub fn towards_black_kings_edge<I: Num>(before: &Placement<I>, step: &Step<I>) -> I::B {
    let [left, right, bottom, top] = edges(&before.n, &before.bk);
    let one = |b: &I::B| b.select(I::lit(1), I::lit(0));
    let count = one(&left) + one(&right) + one(&bottom) + one(&top);
    count.equals(&I::lit(1))
        & ((left & step.to.x.lt(&step.from.x))
            | (right & step.from.x.lt(&step.to.x))
            | (bottom & step.to.y.lt(&step.from.y))
            | (top & step.from.y.lt(&step.to.y)))
}

/// What [`Moves::some_white_move`] asks of a move: given the reading, the move and the
/// position after it, whether it qualifies.
pub type Visit<'a, M, I> = dyn FnMut(&mut M, &Step<I>, &Placement<I>) -> <I as Num>::B + 'a;

/// Quantifying over White's moves, the one thing the two readings do differently: numbers try
/// every legal move; terms use a fresh unknown move where the quantifier is an existential
/// the solver may choose (`positive`), and finitely many candidate moves where it sits under a
/// negation — so the formula asserted is implied by the exact one, and a proof of its
/// unsatisfiability is a proof for the exact one.
pub trait Moves<I: Num> {
    /// Whether some legal White move from `p` (White to move) satisfies `f(step, after)`, where
    /// `f` implies the condition of `kind` (so a reading may try only the moves that can meet
    /// it).
    fn some_white_move(
        &mut self,
        p: &Placement<I>,
        positive: bool,
        kind: Kind,
        f: &mut Visit<'_, Self, I>,
    ) -> I::B;
}

/// ImmediateMate: "If there is a mating move, play it."
pub fn immediate_mate<I: Num>(after: &Placement<I>) -> I::B {
    is_mate(after)
}

/// Whether White to move in `p` mates at once.
pub fn has_mate_in_one<I: Num, M: Moves<I>>(
    moves: &mut M,
    p: &Placement<I>,
    positive: bool,
) -> I::B {
    moves.some_white_move(p, positive, Kind::ImmediateMate, &mut |_, _, after| {
        immediate_mate(after)
    })
}

/// ReadyToMate: "there is a move that leads to mate in the next move": Black has a move, every
/// reply stays on an edge without taking the rook (a reply off every edge can never be mated in
/// KRK — the rook alone must cover a king's whole escape line — so such moves are rejected
/// without searching), and after each White can mate at once.
pub fn ready_to_mate<I: Num, M: Moves<I>>(
    moves: &mut M,
    after: &Placement<I>,
    positive: bool,
) -> I::B {
    let replies: Vec<(I::B, I::B, Square<I>)> =
        KING_STEPS.iter().map(|&d| black_step(after, d)).collect();
    let on_edges = all::<I>(replies.iter().map(|(legal, captures, to)| {
        legal
            .clone()
            .implies(any::<I>(edges(&after.n, to)) & !captures.clone())
    }));
    let some_reply = any::<I>(replies.iter().map(|r| r.0.clone()));
    (on_edges & some_reply).and_then(|| {
        all::<I>(replies.into_iter().map(|(legal, _, to)| {
            (!legal).or_else(|| {
                let q = Placement {
                    bk: to,
                    ..after.clone()
                };
                has_mate_in_one(moves, &q, positive)
            })
        }))
    })
}

/// The black king within one square of an edge: a ReadyToMate move leaves it where it is, and
/// it must reach an edge next.
pub fn near_edge<I: Num>(p: &Placement<I>) -> I::B {
    let one = I::lit(1);
    let n = &p.n;
    p.bk.x.le(&one) | p.bk.y.le(&one) | n.plus(-2).le(&p.bk.x) | n.plus(-2).le(&p.bk.y)
}

/// "(iii) if the room is less than or equal to 3, then … the white king is not on an edge and
/// if its Chebyshev distance from the rook is 1, then it does not make a move towards the black
/// king's edge." The readings fixed are each the one that reproduces the paper's 8×8 counts
/// (ApproachDiag 12,160, ApproachNonDiag 4,020, KeepRoomDiag 3,160, KeepRoomNonDiag 184): "the
/// white king is not on an edge" is "the two kings are not on a same edge", as 5.3.1
/// reformulates it for n×n boards (on 8×8 both give the same counts); the distance to the rook
/// is the king's *before* the move (measured after it, 64 ApproachDiag positions are lost); a
/// black king in a corner is not "on an edge".
fn small_room_condition<I: Num>(
    before: &Placement<I>,
    step: &Step<I>,
    after: &Placement<I>,
) -> I::B {
    let near_rook = chebyshev(&step.from, &after.wr).equals(&I::lit(1));
    room(after).gt(&I::lit(3))
        | !(kings_on_same_edge(after) | (near_rook & towards_black_kings_edge(before, step)))
}

/// Squeeze: "make a move (by the rook) that reduces the room and in the reached position …
/// (i) the rook is not exposed, (ii) the rook divides the kings and (iii) it is not stalemate."
pub fn squeeze<I: Num>(
    b: &Breakage,
    before: &Placement<I>,
    step: &Step<I>,
    after: &Placement<I>,
) -> I::B {
    let exposure = <I::B as Truth<I>>::lit(b.squeeze_may_expose_rook) | !rook_exposed(after, false);
    step.rook.clone()
        & room(after).lt(&room(before))
        & exposure
        & rook_divides(after)
        & !is_stalemate(after)
}

/// Approach: "move the king so the Manhattan distance between the king and the critical square
/// is decreased; in the reached position … (i) the rook is not exposed, (ii) the rook divides
/// the kings or there is a L-pattern, (iii) if the room is less than or equal to 3 … and (iv)
/// it is not stalemate."
pub fn approach<I: Num>(
    b: &Breakage,
    before: &Placement<I>,
    step: &Step<I>,
    after: &Placement<I>,
) -> I::B {
    let critical = critical_square(before);
    let divides =
        <I::B as Truth<I>>::lit(b.approach_may_undivide) | rook_divides(after) | l_pattern(after);
    !step.rook.clone()
        & manhattan(&step.to, &critical).lt(&manhattan(&step.from, &critical))
        & !rook_exposed(after, false)
        & divides
        & small_room_condition(before, step, after)
        & !is_stalemate(after)
}

/// KeepRoom: "move the king if that does not increase the Chebyshev distance from the rook; in
/// the reached position … (i) the rook is not exposed and divides the kings, and (ii) if the
/// room is less than or equal to 3 … and (iii) it is not stalemate."
pub fn keep_room<I: Num>(before: &Placement<I>, step: &Step<I>, after: &Placement<I>) -> I::B {
    !step.rook.clone()
        & chebyshev(&step.to, &before.wr).le(&chebyshev(&step.from, &before.wr))
        & !rook_exposed(after, false)
        & rook_divides(after)
        & small_room_condition(before, step, after)
        & !is_stalemate(after)
}

/// RookHome: "move the rook to be horizontally or vertically adjacent to the white king; in the
/// reached position … (i) the rook is adjacent to the black king only if it is guarded by the
/// white king and (ii) it is not stalemate." "Adjacent" is the paper's `KRK.divide_attempt`
/// (5.3.1): the rook moves along its rank into the file next to the white king, or along its
/// file into the rank next to it, on the black king's side — either side when the kings share
/// that file (rank). This reading gives the paper's 32,520 RookHome and 432 RookSafe positions
/// on 8×8. A move onto a line that cannot divide the kings ([`can_divide`]) is allowed only
/// when no other RookHome move is ([`allowed`]); without such moves 1,040 positions on 8×8
/// fall to RookSafe, against the paper's count, and without the preference the rook can
/// shuttle across the kings' file for ever.
pub fn rook_home<I: Num>(step: &Step<I>, after: &Placement<I>) -> I::B {
    let (wk, bk, to) = (&after.wk, &after.bk, &step.to);
    let next_to_king = |king: &I, black: &I, r: &I| {
        let above = king.lt(black) & r.equals(&king.plus(1));
        let below = black.lt(king) & r.plus(1).equals(king);
        let level = king.equals(black) & distance(r, king).equals(&I::lit(1));
        above | below | level
    };
    let divide_attempt = (step.from.y.equals(&to.y) & next_to_king(&wk.x, &bk.x, &to.x))
        | (step.from.x.equals(&to.x) & next_to_king(&wk.y, &bk.y, &to.y));
    let guarded_if_attacked =
        chebyshev(to, bk).gt(&I::lit(1)) | chebyshev(to, wk).equals(&I::lit(1));
    step.rook.clone() & divide_attempt & guarded_if_attacked & !is_stalemate(after)
}

/// A RookHome move onto a line that can divide the kings: not a file when the kings share a
/// file (the rook moved along its rank), nor a rank when they share a rank.
pub fn can_divide<I: Num>(before: &Placement<I>, step: &Step<I>) -> I::B {
    let along_rank = step.from.y.equals(&step.to.y);
    let share_file = before.wk.x.equals(&before.bk.x);
    let share_rank = before.wk.y.equals(&before.bk.y);
    (along_rank.clone() & !share_file) | (!along_rank & !share_rank)
}

/// RookSafe: "move the rook to some edge (other than the edge it is possibly is on); in the
/// reached position … (i) either both kings are next to the rook or the Chebyshev distance
/// between the rook and the black king is greater than 2, and (ii) it is not stalemate."
pub fn rook_safe<I: Num>(step: &Step<I>, after: &Placement<I>) -> I::B {
    let n = &after.n;
    let new_edge = any::<I>(
        edges(n, &step.to)
            .into_iter()
            .zip(edges(n, &step.from))
            .map(|(to, from)| to & !from),
    );
    let one = I::lit(1);
    let near_both =
        chebyshev(&step.to, &after.wk).equals(&one) & chebyshev(&step.to, &after.bk).equals(&one);
    step.rook.clone()
        & new_edge
        & (near_both | chebyshev(&step.to, &after.bk).gt(&I::lit(2)))
        & !is_stalemate(after)
}

/// RookSafeSmallBoards (5.3.1): "move the rook to an edge where the white king is (if not
/// already on that edge); in the reached position, the Chebyshev distance between the white
/// rook and the white king has to be 2" — measured to the *black* king, which makes the
/// strategy complete on 4×4 and 5×5 (the literal reading is [`Breakage::small_boards_literal`]).
pub fn rook_safe_small_boards<I: Num>(b: &Breakage, step: &Step<I>, after: &Placement<I>) -> I::B {
    let n = &after.n;
    let king = if b.small_boards_literal {
        &after.wk
    } else {
        &after.bk
    };
    let edge = any::<I>(
        edges(n, &after.wk)
            .into_iter()
            .zip(edges(n, &step.to))
            .zip(edges(n, &step.from))
            .map(|((k, to), from)| k & to & !from),
    );
    step.rook.clone() & edge & chebyshev(&step.to, king).equals(&I::lit(2))
}

/// Whether `step` (from `before` to `after`) meets the condition of `kind`, with the diagonal
/// or not of Approach and KeepRoom and ReadyToMate's black king near an edge, ignoring the
/// priority of kinds.
pub fn kind_condition<I: Num, M: Moves<I>>(
    moves: &mut M,
    b: &Breakage,
    kind: Kind,
    before: &Placement<I>,
    step: &Step<I>,
    after: &Placement<I>,
    positive: bool,
) -> I::B {
    match kind {
        Kind::ImmediateMate => immediate_mate(after),
        Kind::ReadyToMate => near_edge(before).and_then(|| ready_to_mate(moves, after, positive)),
        Kind::Squeeze => squeeze(b, before, step, after),
        Kind::ApproachDiag => step.is_diagonal() & approach(b, before, step, after),
        Kind::ApproachNonDiag => !step.is_diagonal() & approach(b, before, step, after),
        Kind::KeepRoomDiag => step.is_diagonal() & keep_room(before, step, after),
        Kind::KeepRoomNonDiag => !step.is_diagonal() & keep_room(before, step, after),
        Kind::RookHome => rook_home(step, after),
        Kind::RookSafe => rook_safe(step, after),
        Kind::RookSafeSmallBoards => rook_safe_small_boards(b, step, after),
    }
}

/// Some legal move of `kind` from `p` (White to move).
pub fn some_move_of_kind<I: Num, M: Moves<I>>(
    moves: &mut M,
    b: &Breakage,
    kind: Kind,
    p: &Placement<I>,
    positive: bool,
) -> I::B {
    moves.some_white_move(p, positive, kind, &mut |m, step, after| {
        kind_condition(m, b, kind, p, step, after, positive)
    })
}

/// The relation (3.3, `KRK.st_wht_move`): `step` is a move of `kind`, the first kind some move
/// meets; a RookHome move onto a line that cannot divide the kings only when no RookHome move
/// can. `step` must be legal (see [`white_step_legal`]). This is what [`crate::Strategy`]'s
/// relation computes by trying kinds in order; a test compares the two on whole boards.
pub fn allowed<I: Num, M: Moves<I>>(
    moves: &mut M,
    b: &Breakage,
    kind: Kind,
    p: &Placement<I>,
    step: &Step<I>,
) -> I::B {
    let after = step.apply(p);
    let mut holds = kind_condition(moves, b, kind, p, step, &after, true);
    for earlier in Kind::ALL.into_iter().take_while(|&k| k != kind) {
        holds = holds.and_then(|| !some_move_of_kind(moves, b, earlier, p, false));
    }
    if kind == Kind::RookHome && !b.rook_home_any_line {
        holds = holds.and_then(|| {
            can_divide(p, step).or_else(|| {
                !moves.some_white_move(p, false, Kind::RookHome, &mut |_, s, a| {
                    rook_home(s, a) & can_divide(p, s)
                })
            })
        });
    }
    holds
}
