//! Games played in phases: a move either stays in the phase, or ends it with an outcome fixed
//! for the mover — the distance to the end of the phase, as the fifty-move rule measures it.
//!
//! Owns: [`PhaseGame`], [`Step`], [`Outcome`], the sets [`PhaseSolved::won_by`] and
//! [`PhaseSolved::lost_by`] and their reference solver [`solve_phases`].
//! Must never: know anything about chess, or optimise: every set is computed as written below.
//!
//! # The game
//!
//! A phase game has legal positions `L`, and for each position the mover's *steps*: a step
//! either *stays*, reaching another position of the phase (the opponent to move), or *exits*,
//! ending the phase with an [`Outcome`] for the mover — a win or a loss in a given number of
//! plies, or a draw — fixed by the position it reaches in a later phase. `lost(p)` holds of
//! stuck positions that are lost for the mover (in chess: checkmate). Unlike Hurd's game
//! (section 2.1, the crate root) both players are alike: each position belongs to its mover,
//! and either may win.
//!
//! # The sets
//!
//! In plies, for `n ≥ 0`:
//!
//! * `lost_by 0 ≡ {p | L(p) ∧ lost(p)}`;
//! * `won_by n ≡ {p | L(p) ∧ ∃ step of p: exit with Win(k), k ≤ n; or stay to q ∈ lost_by (n−1)}`
//!   (no stay counts for `n = 0`);
//! * `lost_by n ≡ lost_by (n−1) ∪ {p | L(p) ∧ p has a step ∧ ∀ step of p: exit with Loss(k),
//!   k ≤ n; or stay to q ∈ won_by (n−1)}` for `n ≥ 1`.
//!
//! Both sequences grow with `n` (by induction: `lost_by` by its union, hence `won_by`), and no
//! position is in both (a position in `won_by n ∩ lost_by m` would need a step both winning
//! and losing: an exit has one outcome, and a stay would put its `q` in both sets at smaller
//! indices; `lost_by 0` has no steps). The *value* of `p` is `Win(n)` for the least `n` with
//! `p ∈ won_by n`, `Loss(n)` for the least `n` with `p ∈ lost_by n`, and `Draw` otherwise: the
//! winner reaches the end of the phase as soon as it can, the loser as late as it can.

use crate::GameError;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Debug;

/// How a phase ends for the player who ends it, in plies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// The mover wins, the phase ending `n` plies from now (this step being the first).
    Win(u32),
    /// The mover loses, the phase ending `n` plies from now.
    Loss(u32),
    /// Neither wins.
    Draw,
}

/// One of the mover's steps.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Step<P> {
    /// A move that stays in the phase, reaching this position (the opponent to move).
    Stay(P),
    /// A move that ends the phase, with this outcome for the mover.
    Exit(Outcome),
}

/// A game played in phases (see the module documentation).
pub trait PhaseGame {
    /// The type of positions.
    type Position: Clone + Ord + Debug;

    /// `L`: holds if the position is legal.
    fn legal(&self, p: &Self::Position) -> bool;

    /// The mover's steps from `p`.
    fn steps(&self, p: &Self::Position) -> Vec<Step<Self::Position>>;

    /// Holds if `p` is stuck and lost for its mover (in chess: checkmate).
    fn lost(&self, p: &Self::Position) -> bool;
}

/// A phase game evaluated over an enumerated universe closed under its stays: for each
/// position the least `n` with `p ∈ won_by n` and with `p ∈ lost_by n`.
#[derive(Debug, Clone)]
pub struct PhaseSolved<P> {
    positions: Vec<P>,
    least_won_by: Vec<Option<u32>>,
    least_lost_by: Vec<Option<u32>>,
}

/// Evaluates `won_by` and `lost_by` of `game` over `universe`, exactly as the module
/// documentation defines them, `n` by `n` until neither set changes and no exit is due later.
pub fn solve_phases<G: PhaseGame>(
    game: &G,
    universe: impl IntoIterator<Item = G::Position>,
) -> Result<PhaseSolved<G::Position>, GameError<G::Position>> {
    let positions: Vec<G::Position> = universe
        .into_iter()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let number: BTreeMap<&G::Position, usize> =
        positions.iter().enumerate().map(|(i, p)| (p, i)).collect();
    let legal: Vec<bool> = positions.iter().map(|p| game.legal(p)).collect();
    // Each position's steps, a stay by the number of the position it reaches.
    let mut steps: Vec<Vec<Step<usize>>> = Vec::with_capacity(positions.len());
    let mut latest_exit = 0;
    for (i, p) in positions.iter().enumerate() {
        let mut here = Vec::new();
        for step in game.steps(p) {
            if !legal[i] {
                return Err(GameError::NotTwoPlayer {
                    what: "a step",
                    position: p.clone(),
                });
            }
            here.push(match step {
                Step::Stay(q) => match number.get(&q) {
                    Some(&j) => Step::Stay(j),
                    None => {
                        return Err(GameError::NotClosed {
                            from: p.clone(),
                            to: q,
                        })
                    }
                },
                Step::Exit(outcome) => {
                    if let Outcome::Win(k) | Outcome::Loss(k) = outcome {
                        latest_exit = latest_exit.max(k);
                    }
                    Step::Exit(outcome)
                }
            });
        }
        steps.push(here);
    }
    // lost_by 0.
    let mut lost_by: Vec<bool> = (0..positions.len())
        .map(|i| legal[i] && game.lost(&positions[i]))
        .collect();
    let mut won_by = vec![false; positions.len()];
    let mut least_won_by = vec![None; positions.len()];
    let mut least_lost_by: Vec<Option<u32>> = lost_by.iter().map(|&l| l.then_some(0)).collect();
    let mut n: u32 = 0;
    loop {
        // won_by n, from lost_by (n−1).
        let next_won: Vec<bool> = (0..positions.len())
            .map(|i| {
                legal[i]
                    && steps[i].iter().any(|step| match *step {
                        Step::Exit(Outcome::Win(k)) => k <= n,
                        Step::Stay(j) => n >= 1 && previous_lost_at(&least_lost_by, j, n),
                        Step::Exit(_) => false,
                    })
            })
            .collect();
        // lost_by n, from won_by (n−1), for n ≥ 1.
        let next_lost: Vec<bool> = (0..positions.len())
            .map(|i| {
                lost_by[i]
                    || (n >= 1
                        && legal[i]
                        && !steps[i].is_empty()
                        && steps[i].iter().all(|step| match *step {
                            Step::Exit(Outcome::Loss(k)) => k <= n,
                            Step::Stay(j) => won_by[j],
                            Step::Exit(_) => false,
                        }))
            })
            .collect();
        let changed = next_won != won_by || next_lost != lost_by;
        for i in 0..positions.len() {
            if next_won[i] && least_won_by[i].is_none() {
                least_won_by[i] = Some(n);
            }
            if next_lost[i] && least_lost_by[i].is_none() {
                least_lost_by[i] = Some(n);
            }
        }
        won_by = next_won;
        lost_by = next_lost;
        if !changed && n > latest_exit {
            break;
        }
        n += 1;
    }
    Ok(PhaseSolved {
        positions,
        least_won_by,
        least_lost_by,
    })
}

/// Whether position `j` is in `lost_by (n−1)`, from the least indices found so far.
fn previous_lost_at(least_lost_by: &[Option<u32>], j: usize, n: u32) -> bool {
    least_lost_by[j].is_some_and(|m| m < n)
}

impl<P: Clone + Ord + Debug> PhaseSolved<P> {
    /// The enumerated universe, in order.
    pub fn positions(&self) -> &[P] {
        &self.positions
    }

    fn number(&self, p: &P) -> Option<usize> {
        self.positions.binary_search(p).ok()
    }

    /// `won_by n`.
    pub fn won_by(&self, n: u32) -> BTreeSet<P> {
        (0..self.positions.len())
            .filter(|&i| self.least_won_by[i].is_some_and(|m| m <= n))
            .map(|i| self.positions[i].clone())
            .collect()
    }

    /// `lost_by n`.
    pub fn lost_by(&self, n: u32) -> BTreeSet<P> {
        (0..self.positions.len())
            .filter(|&i| self.least_lost_by[i].is_some_and(|m| m <= n))
            .map(|i| self.positions[i].clone())
            .collect()
    }

    /// The value of `p` (`None` if it was not enumerated): `Win(n)` for the least `n` with
    /// `p ∈ won_by n`, `Loss(n)` for the least `n` with `p ∈ lost_by n`, else `Draw`.
    pub fn value(&self, p: &P) -> Option<Outcome> {
        let i = self.number(p)?;
        Some(match (self.least_won_by[i], self.least_lost_by[i]) {
            (Some(n), _) => Outcome::Win(n),
            (None, Some(n)) => Outcome::Loss(n),
            (None, None) => Outcome::Draw,
        })
    }
}

/// A phase game given by explicit tables, for small examples and tests.
#[derive(Debug, Clone)]
pub struct ExplicitPhaseGame<P: Ord> {
    legal: BTreeSet<P>,
    steps: BTreeMap<P, Vec<Step<P>>>,
    lost: BTreeSet<P>,
}

impl<P: Ord> Default for ExplicitPhaseGame<P> {
    fn default() -> Self {
        ExplicitPhaseGame {
            legal: BTreeSet::new(),
            steps: BTreeMap::new(),
            lost: BTreeSet::new(),
        }
    }
}

impl<P: Clone + Ord + Debug> ExplicitPhaseGame<P> {
    /// An empty game.
    pub fn new() -> Self {
        Self::default()
    }

    /// Declares `p` legal.
    pub fn legal(mut self, p: P) -> Self {
        self.legal.insert(p);
        self
    }

    /// Adds a step of `from`'s mover.
    pub fn step(mut self, from: P, step: Step<P>) -> Self {
        self.steps.entry(from).or_default().push(step);
        self
    }

    /// Declares `p` stuck and lost.
    pub fn lost(mut self, p: P) -> Self {
        self.lost.insert(p);
        self
    }

    /// Every position the tables mention.
    pub fn universe(&self) -> BTreeSet<P> {
        let mut all = self.legal.clone();
        all.extend(self.lost.iter().cloned());
        for (from, steps) in &self.steps {
            all.insert(from.clone());
            for step in steps {
                if let Step::Stay(q) = step {
                    all.insert(q.clone());
                }
            }
        }
        all
    }
}

impl<P: Clone + Ord + Debug> PhaseGame for ExplicitPhaseGame<P> {
    type Position = P;

    fn legal(&self, p: &P) -> bool {
        self.legal.contains(p)
    }

    fn steps(&self, p: &P) -> Vec<Step<P>> {
        self.steps.get(p).cloned().unwrap_or_default()
    }

    fn lost(&self, p: &P) -> bool {
        self.lost.contains(p) && self.steps(p).is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hand-worked game: `m` is mated; `a` mates at once; `b` can only step to `a` (lost in
    /// 2, waiting for `a`'s mate); `c` exits with a win in 5 or stays to `b` (lost in 2), and
    /// wins in 3; `d` must exit with a loss in 7 or step to `c` (won in 3): lost in 7; `e` and
    /// `f` step to each other for ever, and `e` may exit with a loss: a draw, since `f` is; `s`
    /// is stuck but not lost (stalemate).
    #[test]
    fn a_hand_worked_game() {
        use Outcome::*;
        let g = ExplicitPhaseGame::new()
            .legal("m")
            .lost("m")
            .legal("a")
            .step("a", Step::Stay("m"))
            .legal("b")
            .step("b", Step::Stay("a"))
            .legal("c")
            .step("c", Step::Exit(Win(5)))
            .step("c", Step::Stay("b"))
            .legal("d")
            .step("d", Step::Exit(Loss(7)))
            .step("d", Step::Stay("c"))
            .legal("e")
            .legal("f")
            .step("e", Step::Stay("f"))
            .step("e", Step::Exit(Loss(1)))
            .step("f", Step::Stay("e"))
            .legal("s");
        let solved = solve_phases(&g, g.universe()).unwrap();
        let value = |p| solved.value(&p).unwrap();
        assert_eq!(value("m"), Loss(0));
        assert_eq!(value("a"), Win(1));
        assert_eq!(value("b"), Loss(2));
        assert_eq!(value("c"), Win(3));
        assert_eq!(value("d"), Loss(7));
        assert_eq!(value("e"), Draw);
        assert_eq!(value("f"), Draw);
        assert_eq!(value("s"), Draw);
        assert!(solved.won_by(3).contains("c") && !solved.won_by(2).contains("c"));
        assert!(solved.lost_by(7).contains("d") && !solved.lost_by(6).contains("d"));
    }

    /// An exit the winner prefers to a longer stay, and a loser's exit that lasts longer than
    /// its stays.
    #[test]
    fn exits_are_weighed_against_stays() {
        use Outcome::*;
        let g = ExplicitPhaseGame::new()
            .legal("m")
            .lost("m")
            .legal("a")
            .step("a", Step::Stay("m"))
            .legal("b")
            .step("b", Step::Stay("a"))
            .step("b", Step::Exit(Loss(101)))
            .legal("w")
            .step("w", Step::Stay("b"))
            .step("w", Step::Exit(Win(101)));
        let solved = solve_phases(&g, g.universe()).unwrap();
        assert_eq!(solved.value(&"b"), Some(Loss(101)));
        assert_eq!(solved.value(&"w"), Some(Win(101)));
    }

    #[test]
    fn a_stay_out_of_the_universe_is_an_error() {
        let g = ExplicitPhaseGame::new()
            .legal("a")
            .step("a", Step::Stay("b"));
        let universe = vec!["a"];
        assert!(matches!(
            solve_phases(&g, universe),
            Err(GameError::NotClosed { .. })
        ));
    }
}
