//! The smallest oracle by SAT: every position an oracle from the root could hold is one
//! Boolean variable, the rules of an oracle are clauses over them, and a SAT solver is asked
//! for oracles of ever fewer nodes until it finds none — which proves the last one found the
//! smallest — or its time runs out.
//!
//! The solver is BatSat (a MiniSat in Rust) through `rustsat`, not a faster one in C++:
//! `rustsat`'s CaDiCaL needs libclang to build, which a fresh machine lacks, and the goal graphs
//! taken on here are small.
//!
//! Owns: [`smallest_oracle`], [`SmallestReport`].
//!
//! The *goal graph* holds the positions reachable from the root by the friend moves that keep
//! the goal (those [`crate::finder::grow`] chooses among) and every foe move. Its variable `v(p)`
//! says "`p` is in the oracle", and the clauses say what an oracle is:
//! - `v(root)`;
//! - a friend node has a move: `v(p) → v(q₁) ∨ … ∨ v(qₖ)` over its goal-keeping moves;
//! - a foe node has all its moves: `v(p) → v(q)` for each;
//! - a leaf needs nothing; a position that cannot be held (a leaf of the wrong worth, a friend
//!   node with no goal-keeping move) is never in it: `¬v(p)`.
//!
//! An oracle is a model with one true variable per node; from a model, the positions the root
//! reaches by one true move at each friend node and every move at each foe node form an oracle
//! of at most as many nodes as true variables. So the fewest true variables of any model is the
//! size of the smallest oracle in the goal graph. A totalizer (an incremental cardinality
//! encoding) bounds their number; each bound below the last oracle's size is one more solver
//! call on the same clauses. For goal *win* the goal-keeping moves shorten the win, so every
//! oracle of the graph is free of cycles; for *not lose* cycles are allowed, as the checker
//! allows them. The solver is trusted for nothing: the oracle it gives goes to the kernel's
//! checker like any other, and "proved minimal" is a claim about the goal graph that the
//! report states as the solver's.

use crate::graph::{bound, moves_keeping_goal, Choice, Oracle};
use crate::judge::Knowledge;
use crate::OracleBuildError;
use batsat::SolverInterface;
use retro_rules::position::to_move;
use retro_rules::Position;
use rustc_hash::FxHashMap;
use rustsat::encodings::card::{BoundUpper, BoundUpperIncremental, Totalizer};
use rustsat::instances::BasicVarManager;
use rustsat::solvers::{Solve, SolveIncremental, SolverResult};
use rustsat::types::{TernaryVal, Var};
use std::time::Instant;

/// BatSat's callbacks: the solver stops once the deadline has passed.
#[derive(Default)]
struct Deadline(Option<Instant>);

impl batsat::Callbacks for Deadline {
    fn stop(&self) -> bool {
        self.0.is_some_and(|deadline| Instant::now() >= deadline)
    }
}

/// What a position of the goal graph is.
enum Node {
    /// A settled status that meets the goal.
    Leaf,
    /// A friend node: its goal-keeping moves (number in the checker's order, index of the
    /// position reached).
    Friend(Vec<(u8, usize)>),
    /// A foe node: the positions its moves reach.
    Foe(Vec<usize>),
    /// A position no oracle may hold.
    Lost,
}

/// What the exact search did.
#[derive(Debug, Clone)]
pub struct SmallestReport {
    /// Positions in the goal graph.
    pub positions: usize,
    /// The size of each oracle the solver found, in order (each smaller than the one before).
    pub found: Vec<usize>,
    /// Whether the solver showed that no oracle of the graph is smaller than the last found.
    pub proved_minimal: bool,
    /// Whether it stopped at an oracle small enough (the `enough` asked for).
    pub enough_reached: bool,
    /// Seconds taken, the goal graph's exploration included.
    pub seconds: f64,
}

/// Why the exact search did not run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Skipped {
    /// The goal graph holds more positions than allowed.
    TooLarge {
        /// The limit.
        limit: usize,
    },
}

/// The goal graph: its positions (the root first) and what each is.
type GoalGraph = (Vec<Position>, Vec<Node>);

/// The goal graph from `root`, or `None` past `limit` positions.
fn goal_graph(
    judge: &dyn Knowledge,
    root: &Position,
    limit: usize,
) -> Result<Option<GoalGraph>, OracleBuildError> {
    let friend = judge.friend();
    let goal = judge.goal();
    let mut index: FxHashMap<Position, usize> = FxHashMap::default();
    let mut positions = vec![root.clone()];
    index.insert(root.clone(), 0);
    let mut nodes = Vec::new();
    let mut intern = |q: &Position, positions: &mut Vec<Position>| -> usize {
        *index.entry(q.clone()).or_insert_with(|| {
            positions.push(q.clone());
            positions.len() - 1
        })
    };
    while nodes.len() < positions.len() {
        if positions.len() > limit {
            return Ok(None);
        }
        let p = positions[nodes.len()].clone();
        let node = if let Some(w) = judge.leaf(&p)? {
            if w.meets(goal) {
                Node::Leaf
            } else {
                Node::Lost
            }
        } else {
            let moves = judge.moves(&p);
            if to_move(&p) != friend {
                Node::Foe(
                    moves
                        .iter()
                        .map(|(_, q)| intern(q, &mut positions))
                        .collect(),
                )
            } else if let Some(limit_plies) = bound(goal, judge.worth(&p)?) {
                let kept: Vec<(u8, usize)> = moves_keeping_goal(judge, &moves, limit_plies)?
                    .into_iter()
                    .filter_map(|(i, _)| u8::try_from(i).ok().filter(|&n| n < 0x80))
                    .map(|n| (n, intern(&moves[usize::from(n)].1, &mut positions)))
                    .collect();
                if kept.is_empty() {
                    Node::Lost
                } else {
                    Node::Friend(kept)
                }
            } else {
                Node::Lost
            }
        };
        nodes.push(node);
    }
    Ok(Some((positions, nodes)))
}

fn solver_failure(e: impl std::fmt::Display, root: &Position) -> OracleBuildError {
    OracleBuildError::Unknown {
        fen: root.fen(),
        reason: format!("the SAT solver failed: {e}"),
    }
}

/// The oracle a model gives: from the root, the first true move at each friend node and every
/// move at each foe node.
fn oracle_of_model(
    start: &Oracle,
    positions: &[Position],
    nodes: &[Node],
    in_model: &dyn Fn(usize) -> bool,
) -> Oracle {
    let mut choices = FxHashMap::default();
    let mut stack = vec![0usize];
    let mut seen = vec![false; positions.len()];
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        let choice = match &nodes[i] {
            Node::Leaf => Choice::Leaf,
            Node::Foe(next) => {
                stack.extend(next.iter().copied());
                Choice::All
            }
            Node::Friend(moves) => {
                let &(number, q) = moves
                    .iter()
                    .find(|&&(_, q)| in_model(q))
                    .expect("a model gives each friend node of the oracle a move");
                stack.push(q);
                Choice::Move(number)
            }
            Node::Lost => unreachable!("a model never holds a position that cannot be held"),
        };
        choices.insert(positions[i].clone(), choice);
    }
    Oracle {
        root: start.root.clone(),
        friend: start.friend,
        goal: start.goal,
        choices,
    }
}

/// The smallest oracle of the goal graph from `start`'s root, searched by SAT until `deadline`:
/// any oracle first, then each time one smaller than the last, until the solver shows none is
/// smaller, one of at most `enough` nodes (0: no such stop) is found, or the time runs out.
/// Returns the smallest of those and `start` with what the search did, or why it did not run
/// (`start` is an oracle of the goal graph too, so a proof that none is smaller than the last
/// found covers it).
pub fn smallest_oracle(
    judge: &dyn Knowledge,
    start: &Oracle,
    position_limit: usize,
    enough: usize,
    deadline: Instant,
) -> Result<Result<(Oracle, SmallestReport), Skipped>, OracleBuildError> {
    let began = Instant::now();
    let root = &start.root;
    let Some((positions, nodes)) = goal_graph(judge, root, position_limit)? else {
        return Ok(Err(Skipped::TooLarge {
            limit: position_limit,
        }));
    };
    let var = |i: usize| Var::new(i as u32);
    let mut solver = rustsat_batsat::Solver::<Deadline>::default();
    *solver.batsat_mut().cb_mut() = Deadline(Some(deadline));
    // The variables are made in order, each preferring false: the solver's first model is then
    // small already, and each bound below it a short step.
    for _ in &positions {
        solver.batsat_mut().new_var(batsat::lbool::FALSE, true);
    }
    let fail = |e: &dyn std::fmt::Display| solver_failure(e, root);
    solver.add_unit(var(0).pos_lit()).map_err(|e| fail(&e))?;
    for (i, node) in nodes.iter().enumerate() {
        let v = var(i).pos_lit();
        match node {
            Node::Leaf => {}
            Node::Lost => solver.add_unit(!v).map_err(|e| fail(&e))?,
            Node::Foe(next) => {
                for &q in next {
                    solver
                        .add_binary(!v, var(q).pos_lit())
                        .map_err(|e| fail(&e))?;
                }
            }
            Node::Friend(moves) => {
                let clause = std::iter::once(!v)
                    .chain(moves.iter().map(|&(_, q)| var(q).pos_lit()))
                    .collect();
                solver.add_clause(clause).map_err(|e| fail(&e))?;
            }
        }
    }
    let mut vars = BasicVarManager::from_next_free(var(positions.len()));
    let mut count: Totalizer = (0..positions.len()).map(|i| var(i).pos_lit()).collect();
    let mut best = start.clone();
    let mut found = Vec::new();
    let mut proved_minimal = false;
    // No bound at first (any oracle); then each time one node fewer than the last found.
    let mut last: Option<usize> = None;
    while last.is_none_or(|n| n > enough.max(1)) {
        let assumptions = match last {
            None => Vec::new(),
            Some(n) => {
                count
                    .encode_ub_change(n - 1..n, &mut solver, &mut vars)
                    .map_err(|e| fail(&e))?;
                count.enforce_ub(n - 1).map_err(|e| fail(&e))?
            }
        };
        match solver.solve_assumps(&assumptions).map_err(|e| fail(&e))? {
            SolverResult::Sat => {
                let truth: Vec<bool> = (0..positions.len())
                    .map(|i| solver.var_val(var(i)).map(|t| t == TernaryVal::True))
                    .collect::<Result<_, _>>()
                    .map_err(|e| fail(&e))?;
                let oracle = oracle_of_model(start, &positions, &nodes, &|i| truth[i]);
                found.push(oracle.len());
                last = Some(oracle.len());
                if oracle.len() < best.len() {
                    best = oracle;
                }
            }
            SolverResult::Unsat => {
                // No oracle of the graph has fewer nodes than the last found (`start` is one of
                // them, so the last found is at most its size, and the smallest returned). With
                // none found, the graph would hold no oracle at all, which `start` belies: no
                // claim then.
                proved_minimal = last.is_some();
                break;
            }
            SolverResult::Interrupted => break,
        }
    }
    let enough_reached = !proved_minimal && enough > 0 && best.len() <= enough;
    Ok(Ok((
        best,
        SmallestReport {
            positions: positions.len(),
            found,
            proved_minimal,
            enough_reached,
            seconds: began.elapsed().as_secs_f64(),
        },
    )))
}
