//! The lemmas for every board size at once: each lemma's negation as a query of linear integer
//! arithmetic over the board side `n` and the men's coordinates (SMT-LIB 2, built from
//! [`crate::conditions`], the definitions the exhaustive checker evaluates), handed to SMT
//! solvers run as separate processes; "unsat" proves the lemma for every `n ≥ N₀`.
//!
//! Owns: [`Query`], [`query`], [`Boards`], [`Candidates`], [`Solver`], [`Answer`], [`solve`],
//! [`Model`], [`bound_plies`].
//! Must never: weaken a query the unsound way. A query asserts that a play exists whose moves
//! the strategy allows and which breaks the lemma. Where the strategy's relation says "no move
//! of an earlier kind exists" — a quantifier over the rook's `2n − 2` destinations, unbounded as
//! `n` is — the query asserts it only for finitely many candidate moves ([`Candidates`]), so
//! the plays it admits include every real one; "unsat" is then a proof, and "sat" a candidate
//! counterexample that the exhaustive checker confirms or refutes on its board.

use crate::conditions::{
    allowed, black_step, critical_square, legal_white_to_move, manhattan, room, some_move_of_kind,
    white_step_legal, Moves, Placement, Square, Step, Visit, KING_STEPS,
};
use crate::krk::{Krk, Sq};
use crate::lia::{all, any, Definitions, Formula, Num, Smt, Term, Truth};
use crate::strategy::{Kind, Strategy};
use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Instant;

/// The smallest board the proof covers: the strategy is defined from 4×4 on (RookSafeSmallBoards
/// exists for 4×4 and 5×5), and every query holds from there, so no board is left to
/// enumeration alone.
pub const SMALLEST_N: u8 = 4;

/// [`Moves`] on terms: a fresh unknown move where the solver may choose one (an existential
/// in positive position), and below a negation a finite list of candidate moves
/// (`Candidates::candidate_steps`). Asserting "no move of this kind" for fewer moves than
/// all asserts less, so every real play stays among the query's plays: the candidates decide
/// only whether a proof is found, never whether it is sound.
#[derive(Default)]
pub struct Candidates {
    fresh: usize,
    /// Try more candidates, where a lemma itself says that no move of a kind exists.
    thorough: bool,
    /// Kinds for which the relation's "no move of this kind" is not asserted at all (a lemma
    /// that holds without it is proved faster).
    unasserted: Vec<Kind>,
}

impl Candidates {
    fn int(&mut self, stem: &str) -> Term {
        self.fresh += 1;
        Term::var(&format!("{stem}_{}", self.fresh))
    }

    fn boolean(&mut self, stem: &str) -> Formula {
        self.fresh += 1;
        Formula::var(&format!("{stem}_{}", self.fresh))
    }

    /// A fresh White move from `p`: unknowns for who moves, the king's step, the rook's line and
    /// square; with the constraints that keep them in range.
    fn fresh_step(&mut self, p: &Placement<Term>) -> (Formula, Step<Term>) {
        let rook = self.boolean("rook");
        let along_rank = self.boolean("rank");
        let (dx, dy, t) = (self.int("dx"), self.int("dy"), self.int("t"));
        let unit = |d: &Term| Term::lit(-1).le(d) & d.le(&Term::lit(1));
        let range = unit(&dx) & unit(&dy);
        let rook_to = Square::new(along_rank.select(t, p.wr.x), along_rank.select(p.wr.y, t));
        let king_to = Square::new(p.wk.x + dx, p.wk.y + dy);
        let step = Step {
            rook,
            from: Square::new(rook.select(p.wr.x, p.wk.x), rook.select(p.wr.y, p.wk.y)),
            to: Square::new(
                rook.select(rook_to.x, king_to.x),
                rook.select(rook_to.y, king_to.y),
            ),
        };
        (range, step)
    }

    /// The candidate moves from `p` that may meet the condition of `kind`. All of them for
    /// the king's kinds (its eight steps), RookHome (the four squares next to the white king's
    /// file and rank are the only ones its condition admits) and RookSafe (the rook's lines meet
    /// the edges in four squares). For the others, the squares that matter: ImmediateMate, the
    /// two rook moves onto the black king's file or rank (and, where a lemma itself says no
    /// mate exists, also the king's steps and the squares within two of the black king's lines
    /// or next to the white king's); Squeeze, the edges and the squares next to either king's
    /// line or the rook's own square; ReadyToMate, the king's steps and the rook's squares next
    /// to either king's line and on the edges.
    fn candidate_steps(&self, p: &Placement<Term>, kind: Kind) -> Vec<Step<Term>> {
        let king_steps = || {
            KING_STEPS.iter().map(|&(dx, dy)| Step {
                rook: Formula::lit(false),
                from: p.wk.clone(),
                to: p.wk.offset(dx, dy),
            })
        };
        let along_rank = |t: Term| Step {
            rook: Formula::lit(true),
            from: p.wr.clone(),
            to: Square::new(t, p.wr.y),
        };
        let along_file = |t: Term| Step {
            rook: Formula::lit(true),
            from: p.wr.clone(),
            to: Square::new(p.wr.x, t),
        };
        let near = |e: &Term, reach: i64| (-reach..=reach).map(|c| e.plus(c)).collect::<Vec<_>>();
        if !self.thorough && self.unasserted.contains(&kind) {
            return Vec::new();
        }
        match kind {
            Kind::ApproachDiag
            | Kind::ApproachNonDiag
            | Kind::KeepRoomDiag
            | Kind::KeepRoomNonDiag => king_steps().collect(),
            Kind::RookHome => vec![
                along_rank(p.wk.x.plus(-1)),
                along_rank(p.wk.x.plus(1)),
                along_file(p.wk.y.plus(-1)),
                along_file(p.wk.y.plus(1)),
            ],
            Kind::RookSafe | Kind::RookSafeSmallBoards => {
                let last = p.n.plus(-1);
                vec![
                    along_rank(Term::lit(0)),
                    along_rank(last),
                    along_file(Term::lit(0)),
                    along_file(last),
                ]
            }
            Kind::ImmediateMate if !self.thorough => {
                vec![along_rank(p.bk.x), along_file(p.bk.y)]
            }
            Kind::ImmediateMate => {
                let mut steps: Vec<Step<Term>> = king_steps().collect();
                let mut xs = near(&p.bk.x, 2);
                xs.extend([p.wk.x.plus(-1), p.wk.x.plus(1)]);
                let mut ys = near(&p.bk.y, 2);
                ys.extend([p.wk.y.plus(-1), p.wk.y.plus(1)]);
                steps.extend(xs.into_iter().map(along_rank));
                steps.extend(ys.into_iter().map(along_file));
                steps
            }
            Kind::ReadyToMate if !self.thorough => {
                let last = p.n.plus(-1);
                let mut steps: Vec<Step<Term>> = king_steps().collect();
                for (e, f) in [(&p.bk.x, &p.wk.x), (&p.bk.y, &p.wk.y)] {
                    let ts = [
                        e.plus(-1),
                        e.plus(1),
                        f.plus(-1),
                        *f,
                        f.plus(1),
                        Term::lit(0),
                        last,
                    ];
                    if e == &p.bk.x {
                        steps.extend(ts.into_iter().map(along_rank));
                    } else {
                        steps.extend(ts.into_iter().map(along_file));
                    }
                }
                steps
            }
            Kind::Squeeze | Kind::ReadyToMate => {
                let line = |own: &Term, wk: &Term, bk: &Term| {
                    let mut t = vec![Term::lit(0), p.n.plus(-1), own.plus(-1), own.plus(1)];
                    for e in [wk, bk] {
                        t.extend(near(e, 1));
                    }
                    t
                };
                let mut steps: Vec<Step<Term>> = line(&p.wr.x, &p.wk.x, &p.bk.x)
                    .into_iter()
                    .map(along_rank)
                    .collect();
                steps.extend(line(&p.wr.y, &p.wk.y, &p.bk.y).into_iter().map(along_file));
                if kind == Kind::ReadyToMate {
                    steps.extend(king_steps());
                }
                steps
            }
        }
    }
}

impl Moves<Term> for Candidates {
    fn some_white_move(
        &mut self,
        p: &Placement<Term>,
        positive: bool,
        kind: Kind,
        f: &mut Visit<'_, Self, Term>,
    ) -> Formula {
        if positive {
            let (range, step) = self.fresh_step(p);
            let after = step.apply(p);
            return range & white_step_legal(p, &step) & f(self, &step, &after);
        }
        let mut some = Formula::lit(false);
        let thorough = self.thorough;
        let steps = self.candidate_steps(p, kind);
        // The mates inside a ReadyToMate condition: the two rook checks suffice for a weaker
        // assertion, and keep the query small.
        self.thorough = false;
        for step in steps {
            let after = step.apply(p);
            some = some | (white_step_legal(p, &step) & f(self, &step, &after));
        }
        self.thorough = thorough;
        some
    }
}

/// The boards a query speaks of.
#[derive(Debug, Clone, Copy)]
pub struct Boards {
    /// The smallest side.
    pub from_n: u8,
    /// The largest side, if any (to look for a small counterexample).
    pub up_to_n: Option<u8>,
    /// Starts with the black king in the board's lower left octant only (the other starts are
    /// their images under the board's symmetries); false: every start.
    pub octant: bool,
}

impl Default for Boards {
    fn default() -> Boards {
        Boards {
            from_n: SMALLEST_N,
            up_to_n: None,
            octant: true,
        }
    }
}

/// One lemma's query.
pub struct Query {
    /// The lemma's name, as in [`crate::lemmas::LEMMAS`].
    pub lemma: &'static str,
    smt: Smt,
    reported: Vec<String>,
}

impl Query {
    /// The SMT-LIB 2 text in the form `solver` reads fastest.
    pub fn text(&self, solver: Solver) -> String {
        let style = match solver {
            Solver::Z3 => Definitions::Equations,
            Solver::Cvc5 => Definitions::Macros,
        };
        self.smt.text(&self.reported, style)
    }
}

/// Builds the plays of a query: positions, White's moves with their kinds, Black's replies.
struct Plays {
    moves: Candidates,
    strategy: Strategy,
    n: Term,
    constraints: Vec<Formula>,
    reported: Vec<String>,
    positions: usize,
    kinds: usize,
    symmetric: bool,
}

impl Plays {
    fn new(strategy: &Strategy, boards: &Boards) -> Plays {
        let n = Term::var("n");
        let mut constraints = vec![Term::lit(i64::from(boards.from_n)).le(&n)];
        if let Some(top) = boards.up_to_n {
            constraints.push(n.le(&Term::lit(i64::from(top))));
        }
        Plays {
            moves: Candidates::default(),
            strategy: *strategy,
            n,
            constraints,
            reported: vec!["n".into()],
            positions: 0,
            kinds: 0,
            symmetric: boards.octant,
        }
    }

    fn square(&mut self, stem: &str) -> Square<Term> {
        let i = self.positions;
        let (x, y) = (format!("{stem}x{i}"), format!("{stem}y{i}"));
        self.reported.push(x.clone());
        self.reported.push(y.clone());
        Square::new(Term::var(&x), Term::var(&y))
    }

    /// A legal start with White to move, the black king in the board's lower left octant
    /// (`x ≤ y`, `2y ≤ n − 1`): every square has an image there under the eight symmetries of
    /// the square board, which preserve every notion, condition and lemma (see
    /// [`crate::lemmas`]); a test checks on whole boards that the relation commutes with them.
    fn start(&mut self) -> Placement<Term> {
        let p = Placement {
            n: self.n,
            wk: self.square("wk"),
            wr: self.square("wr"),
            bk: self.square("bk"),
        };
        self.positions += 1;
        self.constraints.push(legal_white_to_move(&p));
        if self.symmetric {
            let octant = p.bk.x.le(&p.bk.y) & (p.bk.y + p.bk.y).le(&p.n.plus(-1));
            self.constraints.push(octant);
        }
        p
    }

    /// A White move from `p` that the relation allows, of one of `kinds`; the position after.
    fn white(&mut self, p: &Placement<Term>, kinds: &[Kind]) -> (Step<Term>, Placement<Term>) {
        let (range, step) = self.moves.fresh_step(p);
        let b = self.strategy.broken;
        let mut some = Formula::lit(false);
        let name = format!("kind{}", self.kinds);
        self.kinds += 1;
        let kind_var = Term::var(&name);
        self.reported.push(name);
        for &k in kinds {
            let holds = allowed(&mut self.moves, &b, k, p, &step);
            some = some | (kind_var.equals(&Term::lit(k as i64)) & holds);
        }
        self.constraints
            .push(range & white_step_legal(p, &step) & some);
        let after = step.apply(p);
        (step, after)
    }

    /// A legal Black reply from `after` that keeps the rook on the board (`takes: false`) or
    /// takes it (`takes: true`); the position reached, White to move.
    fn black(&mut self, after: &Placement<Term>, takes: bool) -> Placement<Term> {
        let bk = self.square("bk");
        self.positions += 1;
        let choices = any::<Term>(KING_STEPS.iter().map(|&d| {
            let (legal, captures, to) = black_step(after, d);
            let captures = if takes { captures } else { !captures };
            legal & captures & to.is(&bk)
        }));
        self.constraints.push(choices);
        Placement {
            bk,
            ..after.clone()
        }
    }

    /// `count` full moves from `p`: White's of one of `kinds`, Black's keeping the rook on the
    /// board; the position reached.
    fn full_moves(&mut self, p: &Placement<Term>, count: usize, kinds: &[Kind]) -> Placement<Term> {
        let mut p = p.clone();
        for _ in 0..count {
            let (_, after) = self.white(&p, kinds);
            p = self.black(&after, false);
        }
        p
    }

    /// A position's kind is one of `kinds`: some move of such a kind is allowed.
    fn kind_among(&mut self, p: &Placement<Term>, kinds: &[Kind]) {
        let _ = self.white(p, kinds);
    }

    /// No move of `kind` exists in `p` (asserted for the candidate moves).
    fn no_move_of(&mut self, p: &Placement<Term>, kind: Kind) {
        let b = self.strategy.broken;
        self.moves.thorough = true;
        let some = some_move_of_kind(&mut self.moves, &b, kind, p, false);
        self.moves.thorough = false;
        self.constraints.push(!some);
    }

    fn query(self, lemma: &'static str, boards: &Boards, words: &str) -> Query {
        let from_n = boards.from_n;
        let mut smt = Smt::new(vec![
            format!("KRK strategy, lemma {lemma}: {words}"),
            format!("negated, for every board side n >= {from_n}; unsat proves it"),
            "written by `retro strategy prove` from crates/strategy/src/conditions.rs".into(),
        ]);
        smt.assert(all::<Term>(self.constraints));
        Query {
            lemma,
            smt,
            reported: self.reported,
        }
    }
}

/// The kinds of move.
const ALL_KINDS: [Kind; 10] = Kind::ALL;
/// Squeeze, Approach and KeepRoom.
const BASIC: [Kind; 5] = [
    Kind::Squeeze,
    Kind::ApproachDiag,
    Kind::ApproachNonDiag,
    Kind::KeepRoomDiag,
    Kind::KeepRoomNonDiag,
];

/// (room, Manhattan distance from the white king to the critical square) of `q` is
/// lexicographically smaller than that of `p`.
fn measure_falls(p: &Placement<Term>, q: &Placement<Term>) -> Formula {
    let (rp, rq) = (room(p), room(q));
    let dp = manhattan(&p.wk, &critical_square(p));
    let dq = manhattan(&q.wk, &critical_square(q));
    rq.lt(&rp) | (rq.equals(&rp) & dq.lt(&dp))
}

/// The lemmas the theorem needs, by name: all of [`crate::lemmas::LEMMAS`] but two.
/// `rook_moves_early` (the paper's Lemma 4) follows from `rook_safe_first`,
/// `rook_home_after_home_or_safe` and `rook_home_not_thrice`, as the paper's section 5.2 shows
/// (its query, over seven plies, can still be run: [`PROVABLE`]); `refines` is about the
/// strategy function, whose choice among the relation's moves is a minimum over the rook's
/// squares and an image under the board's symmetries — checked by enumeration only.
pub const PROVED: [&str; 9] = [
    "defined",
    "rook_kept",
    "immediate_mate",
    "ready_to_mate",
    "rook_safe_first",
    "rook_home_after_home_or_safe",
    "rook_home_not_thrice",
    "progress",
    "finish",
];

/// Every lemma with a query: [`PROVED`] and `rook_moves_early`.
pub const PROVABLE: [&str; 10] = [
    "defined",
    "rook_kept",
    "immediate_mate",
    "ready_to_mate",
    "rook_safe_first",
    "rook_home_after_home_or_safe",
    "rook_home_not_thrice",
    "rook_moves_early",
    "progress",
    "finish",
];

/// The query of one lemma: plays on every board side from `from_n` (to `up_to_n`, if given).
pub fn query(strategy: &Strategy, lemma: &str, boards: &Boards) -> Option<Query> {
    let mut q = Plays::new(strategy, boards);
    let (name, words): (&'static str, &str) = match lemma {
        "defined" => {
            let p = q.start();
            for k in ALL_KINDS {
                q.no_move_of(&p, k);
            }
            (
                "defined",
                "the strategy allows a move in every legal position",
            )
        }
        "rook_kept" => {
            let p = q.start();
            let (_, after) = q.white(&p, &ALL_KINDS);
            let _ = q.black(&after, true);
            (
                "rook_kept",
                "after a strategy move Black cannot take the rook",
            )
        }
        "immediate_mate" => {
            let p = q.start();
            let (_, after) = q.white(&p, &[Kind::ImmediateMate]);
            q.constraints.push(!crate::conditions::is_mate(&after));
            ("immediate_mate", "an ImmediateMate move mates")
        }
        "ready_to_mate" => {
            let p = q.start();
            let (_, after) = q.white(&p, &[Kind::ReadyToMate]);
            let next = q.black(&after, false);
            q.no_move_of(&next, Kind::ImmediateMate);
            (
                "ready_to_mate",
                "after a ReadyToMate move and any reply, ImmediateMate applies",
            )
        }
        "rook_safe_first" => {
            let p = q.start();
            let next = q.full_moves(&p, 1, &ALL_KINDS);
            q.kind_among(&next, &[Kind::RookSafe, Kind::RookSafeSmallBoards]);
            ("rook_safe_first", "RookSafe is played only as a first move")
        }
        "rook_home_after_home_or_safe" => {
            let p = q.start();
            let next = q.full_moves(&p, 1, &ALL_KINDS[..7]);
            q.kind_among(&next, &[Kind::RookHome]);
            (
                "rook_home_after_home_or_safe",
                "RookHome is played only right after RookHome or RookSafe",
            )
        }
        "rook_home_not_thrice" => {
            let start = q.start();
            let p = q.full_moves(&start, 2, &[Kind::RookHome]);
            q.kind_among(&p, &[Kind::RookHome]);
            (
                "rook_home_not_thrice",
                "no RookHome right after two RookHome moves",
            )
        }
        "rook_moves_early" => {
            let start = q.start();
            let p = q.full_moves(&start, 3, &ALL_KINDS);
            q.kind_among(
                &p,
                &[Kind::RookHome, Kind::RookSafe, Kind::RookSafeSmallBoards],
            );
            (
                "rook_moves_early",
                "RookHome and RookSafe only in the first three moves",
            )
        }
        "progress" => {
            // Holds whether or not a mate was on offer along the way: asserting less is sound.
            q.moves.unasserted = vec![Kind::ImmediateMate, Kind::ReadyToMate];
            let start = q.start();
            q.constraints.push(room(&start).gt(&Term::lit(3)));
            let p = q.full_moves(&start, 3, &BASIC);
            q.constraints.push(!measure_falls(&start, &p));
            (
                "progress",
                "from room > 3, three full basic moves make (room, distance) fall",
            )
        }
        "finish" => {
            let before = q.start();
            let reached = q.full_moves(&before, 1, &ALL_KINDS);
            q.constraints.push(room(&reached).le(&Term::lit(3)));
            let p = q.full_moves(&reached, crate::lemmas::FINISH_MOVES, &BASIC);
            q.no_move_of(&p, Kind::ImmediateMate);
            q.no_move_of(&p, Kind::ReadyToMate);
            (
                "finish",
                "from room <= 3 reached in play, after four full basic moves a mating kind applies",
            )
        }
        _ => return None,
    };
    Some(q.query(name, boards, words))
}

/// An SMT solver run as a process reading SMT-LIB 2 on its input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Solver {
    /// Z3 (`z3 -in -smt2`).
    Z3,
    /// cvc5 (`cvc5 --lang smt2`).
    Cvc5,
}

impl Solver {
    /// The program's name.
    pub fn program(self) -> &'static str {
        match self {
            Solver::Z3 => "z3",
            Solver::Cvc5 => "cvc5",
        }
    }

    fn args(self) -> &'static [&'static str] {
        match self {
            Solver::Z3 => &["-in", "-smt2"],
            Solver::Cvc5 => &["--lang", "smt2"],
        }
    }

    /// The solver's version line, or why it cannot be run.
    pub fn version(self) -> Result<String, ProveError> {
        let out = Command::new(self.program())
            .arg("--version")
            .output()
            .map_err(|e| ProveError::Missing(self.program(), e.to_string()))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text.lines().next().unwrap_or_default();
        Ok(line.trim_start_matches("This is ").to_string())
    }
}

/// What went wrong running a solver.
#[derive(Debug, thiserror::Error)]
pub enum ProveError {
    /// The program could not be started.
    #[error("cannot run {0} ({1}); install it (Debian: apt-get install z3 cvc5)")]
    Missing(&'static str, String),
    /// The program answered something else than sat or unsat.
    #[error("{0} answered neither sat nor unsat: {1}")]
    Unexpected(&'static str, String),
}

/// A solver's answer.
#[derive(Debug, Clone)]
pub enum Answer {
    /// unsat: the lemma holds on every board of the query.
    Proved,
    /// sat: the unknowns' values in a play that breaks the lemma as the query states it.
    Counterexample(Model),
}

/// Values of a satisfying assignment.
#[derive(Debug, Clone, Default)]
pub struct Model {
    /// Integer unknowns by name.
    pub values: HashMap<String, i64>,
}

impl Model {
    /// The board side.
    pub fn n(&self) -> Option<i64> {
        self.values.get("n").copied()
    }

    /// The start of the play, White to move.
    pub fn start(&self) -> Option<Krk> {
        let n = u8::try_from(self.n()?).ok()?;
        let sq = |m: &str| -> Option<Sq> {
            let x = u8::try_from(*self.values.get(&format!("{m}x0"))?).ok()?;
            let y = u8::try_from(*self.values.get(&format!("{m}y0"))?).ok()?;
            Some(Sq::new(x, y))
        };
        Some(Krk {
            n,
            wk: sq("wk")?,
            wr: Some(sq("wr")?),
            bk: sq("bk")?,
            white_to_move: true,
        })
    }
}

/// Reads `((n 5) (wkx0 (- 1)) …)`.
fn parse_model(text: &str) -> Model {
    let mut model = Model::default();
    let tokens: Vec<String> = text
        .replace('(', " ( ")
        .replace(')', " ) ")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let mut i = 0;
    while i + 2 < tokens.len() {
        if tokens[i] == "(" && tokens[i + 1] != "(" && tokens[i + 1] != "-" {
            let name = tokens[i + 1].clone();
            let value =
                if tokens[i + 2] == "(" && tokens.get(i + 3).map(String::as_str) == Some("-") {
                    tokens
                        .get(i + 4)
                        .and_then(|v| v.parse::<i64>().ok())
                        .map(|v| -v)
                } else {
                    tokens[i + 2].parse::<i64>().ok()
                };
            if let Some(v) = value {
                model.values.insert(name, v);
            }
        }
        i += 1;
    }
    model
}

/// Runs `solver` on `text`; the answer and the seconds it took.
pub fn solve(solver: Solver, text: &str) -> Result<(Answer, f64), ProveError> {
    let start = Instant::now();
    let mut child = Command::new(solver.program())
        .args(solver.args())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| ProveError::Missing(solver.program(), e.to_string()))?;
    // The query is written from a thread of its own, so that a solver answering (or
    // complaining) before it has read everything cannot block both sides.
    let mut input = child.stdin.take().expect("piped");
    let owned = text.to_string();
    let writer = std::thread::spawn(move || input.write_all(owned.as_bytes()));
    let out = child
        .wait_with_output()
        .map_err(|e| ProveError::Unexpected(solver.program(), e.to_string()))?;
    let written = writer.join().expect("the writer does not panic");
    let seconds = start.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let mut lines = stdout.lines();
    match lines.next().map(str::trim) {
        Some("unsat") if written.is_ok() => Ok((Answer::Proved, seconds)),
        Some("sat") if written.is_ok() => {
            let rest: Vec<&str> = lines.collect();
            Ok((
                Answer::Counterexample(parse_model(&rest.join(" "))),
                seconds,
            ))
        }
        other => Err(ProveError::Unexpected(
            solver.program(),
            format!(
                "{} {}",
                other.unwrap_or("nothing"),
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        )),
    }
}

/// The bound the lemmas give on a strategy game from a legal position with White to move, in
/// plies: at most 3 rook moves first (Lemma 4); then, while the room exceeds 3, the pair (room,
/// distance) — room 4 to 2n − 1, distance 0 to 2n − 2 — falls every three full moves (Lemma 5),
/// so fewer than 3·(2n − 4)(2n − 1) moves; then 4 basic moves (Lemma 6), a ReadyToMate and an
/// ImmediateMate move (Lemmas 3 and 2). White moves W; the game ends with White's mate: 2W − 1
/// plies.
pub fn bound_plies(n: u32) -> u32 {
    let pairs = (2 * n - 4) * (2 * n - 1);
    let white_moves = 3 + 3 * pairs + crate::lemmas::FINISH_MOVES as u32 + 2;
    2 * white_moves - 1
}
