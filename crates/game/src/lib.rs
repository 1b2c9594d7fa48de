//! # retro-game — the theory of two-player games, as Hurd defines it
//!
//! This crate owns the definitions of section 2.1 of Hurd, *Formal Verification of Chess
//! Endgame Databases*: a game `G = (L, M, M̄, W)`, the stuck positions `terminal1` and
//! `terminal2`, the winning sets `win1_by n`, `win2_by n`, `win1` and `win2`, and a reference
//! solver that evaluates them on any explicit finite game whose positions can be enumerated.
//!
//! It is part of the trusted kernel. It must never know anything about chess, and it must never
//! optimise: every set is computed exactly as the paper writes it, so that a reader can check the
//! code against the definitions line by line. Fast solvers elsewhere are tested against it.
//!
//! Player I is the player whose wins `W` describes (White, in chess); Player II is the other.
//!
//! Beside it, [`phases`]: games played in phases, whose moves either stay in the phase or end
//! it with an outcome fixed for the mover, and the sets `won_by n` and `lost_by n` that measure
//! the distance to the end of a phase (the fifty-move rule's distance to zeroing, in chess).
//!
//! ```
//! use retro_game::{solve, ExplicitGame};
//! // Player I moves from a to b, where Player II is stuck and has lost (`W`); from c Player I
//! // can only move to d, from where Player II escapes to e, a position no one wins.
//! let game = ExplicitGame::new()
//!     .legal('a').legal('b').legal('c').legal('d').legal('e')
//!     .move1('a', 'b')
//!     .win('b')
//!     .move1('c', 'd')
//!     .move2('d', 'e');
//! let solved = solve(&game, game.universe())?;
//! assert_eq!(solved.least_win1_by(&'a'), Some(0));
//! assert!(solved.win1().contains(&'a') && !solved.win1().contains(&'c'));
//! # Ok::<(), retro_game::GameError<char>>(())
//! ```

pub mod phases;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Debug;

/// A two-player game `G = (L, M, M̄, W)` (Hurd, section 2.1).
///
/// The paper models the move relations as predicates on pairs of positions; for an executable
/// model each relation is given by its image: `moves1(p)` is `{p' | M(p, p')}` and `moves2(p)` is
/// `{p' | M̄(p, p')}`.
pub trait Game {
    /// The type of positions (the paper's type variable `α`).
    type Position: Clone + Ord + Debug;

    /// `L`: holds if the position is legal.
    fn legal(&self, p: &Self::Position) -> bool;

    /// `M`: every `p'` such that Player I can move from `p` to `p'`.
    fn moves1(&self, p: &Self::Position) -> Vec<Self::Position>;

    /// `M̄`: every `p'` such that Player II can move from `p` to `p'`.
    fn moves2(&self, p: &Self::Position) -> Vec<Self::Position>;

    /// `W`: holds if the position is won for Player I (in chess: Black to move and checkmated).
    fn win(&self, p: &Self::Position) -> bool;
}

/// Why an explicit game cannot be solved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GameError<P: Debug> {
    /// `two_player G` fails: a move relation or `W` holds of an illegal position.
    #[error("the game is not well-formed (two_player fails): {what} holds of the illegal position {position:?}")]
    NotTwoPlayer {
        /// Which of `M`, `M̄` or `W` holds.
        what: &'static str,
        /// The illegal position.
        position: P,
    },
    /// A move leaves the enumerated universe, so the sets cannot be computed exactly.
    #[error("the universe is not closed under moves: {from:?} moves to {to:?}, which was not enumerated")]
    NotClosed {
        /// The position moved from.
        from: P,
        /// The position moved to.
        to: P,
    },
}

/// `two_player G`: the move relations and the winning predicate are false on every illegal
/// position of `universe`.
pub fn two_player<G: Game>(
    game: &G,
    universe: &[G::Position],
) -> Result<(), GameError<G::Position>> {
    for p in universe.iter().filter(|p| !game.legal(p)) {
        let what = if !game.moves1(p).is_empty() {
            "M"
        } else if !game.moves2(p).is_empty() {
            "M̄"
        } else if game.win(p) {
            "W"
        } else {
            continue;
        };
        return Err(GameError::NotTwoPlayer {
            what,
            position: p.clone(),
        });
    }
    Ok(())
}

/// A game evaluated exhaustively over an enumerated, move-closed universe of positions.
///
/// It records, for each position, the least `n` with `p ∈ win1_by G n` and the least `n` with
/// `p ∈ win2_by G n`. Both sequences of sets grow with `n` (`win2_by G n ⊆ win2_by G (n+1)` by
/// definition, and therefore `win1_by G n ⊆ win1_by G (n+1)`), so these least indices describe
/// every set of both sequences.
#[derive(Debug, Clone)]
pub struct Solved<P> {
    positions: Vec<P>,
    terminal1: Vec<bool>,
    terminal2: Vec<bool>,
    least_win1_by: Vec<Option<u32>>,
    least_win2_by: Vec<Option<u32>>,
    stable_at: u32,
}

/// Evaluates `terminal1`, `terminal2`, `win1_by`, `win2_by`, `win1` and `win2` of `game` over
/// `universe`, exactly as section 2.1 defines them.
///
/// The universe must contain every position reachable by a move from one of its positions.
/// The iteration stops at the least `n` with `win2_by G (n+1) = win2_by G n`: from then on
/// `win1_by G (n+1) = win1_by G n` (it is computed from `win2_by G (n+1)`), hence
/// `win2_by G (n+2) = win2_by G (n+1)`, and by induction both sequences are constant.
pub fn solve<G: Game>(
    game: &G,
    universe: impl IntoIterator<Item = G::Position>,
) -> Result<Solved<G::Position>, GameError<G::Position>> {
    let positions: Vec<G::Position> = universe
        .into_iter()
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    two_player(game, &positions)?;
    let number: BTreeMap<&G::Position, usize> =
        positions.iter().enumerate().map(|(i, p)| (p, i)).collect();
    let lookup = |from: &G::Position, to: G::Position| match number.get(&to) {
        Some(&i) => Ok(i),
        None => Err(GameError::NotClosed {
            from: from.clone(),
            to,
        }),
    };
    let mut moves1 = Vec::with_capacity(positions.len());
    let mut moves2 = Vec::with_capacity(positions.len());
    for p in &positions {
        let m1 = game.moves1(p).into_iter().map(|q| lookup(p, q));
        moves1.push(m1.collect::<Result<Vec<_>, _>>()?);
        let m2 = game.moves2(p).into_iter().map(|q| lookup(p, q));
        moves2.push(m2.collect::<Result<Vec<_>, _>>()?);
    }
    let legal: Vec<bool> = positions.iter().map(|p| game.legal(p)).collect();

    // terminal1 G ≡ {p | L(p) ∧ ∀p'. ¬M(p, p')}; terminal2 G likewise with M̄.
    let terminal1: Vec<bool> = (0..positions.len())
        .map(|i| legal[i] && moves1[i].is_empty())
        .collect();
    let terminal2: Vec<bool> = (0..positions.len())
        .map(|i| legal[i] && moves2[i].is_empty())
        .collect();

    // win2_by G 0 ≡ {p | W(p)}.
    let mut win2_by: Vec<bool> = positions.iter().map(|p| game.win(p)).collect();
    let mut least_win1_by = vec![None; positions.len()];
    let mut least_win2_by: Vec<Option<u32>> = win2_by.iter().map(|&w| w.then_some(0)).collect();
    let mut n: u32 = 0;
    loop {
        // win1_by G n ≡ {p | ∃p'. M(p, p') ∧ p' ∈ win2_by G n}.
        let win1_by: Vec<bool> = moves1
            .iter()
            .map(|succ| succ.iter().any(|&q| win2_by[q]))
            .collect();
        for (i, &w) in win1_by.iter().enumerate() {
            if w && least_win1_by[i].is_none() {
                least_win1_by[i] = Some(n);
            }
        }
        // win2_by G (n+1) ≡ win2_by G n ∪
        //   ({p | L(p) ∧ ∀p'. M̄(p, p') ⇒ p' ∈ win1_by G n} − terminal2 G).
        let next: Vec<bool> = (0..positions.len())
            .map(|i| {
                win2_by[i] || (legal[i] && moves2[i].iter().all(|&q| win1_by[q]) && !terminal2[i])
            })
            .collect();
        if next == win2_by {
            break;
        }
        for (i, &w) in next.iter().enumerate() {
            if w && least_win2_by[i].is_none() {
                least_win2_by[i] = Some(n + 1);
            }
        }
        win2_by = next;
        n += 1;
    }
    Ok(Solved {
        positions,
        terminal1,
        terminal2,
        least_win1_by,
        least_win2_by,
        stable_at: n,
    })
}

impl<P: Clone + Ord + Debug> Solved<P> {
    /// The enumerated universe, in order.
    pub fn positions(&self) -> &[P] {
        &self.positions
    }

    fn position_number(&self, p: &P) -> Option<usize> {
        self.positions.binary_search(p).ok()
    }

    fn collect(&self, keep: impl Fn(usize) -> bool) -> BTreeSet<P> {
        (0..self.positions.len())
            .filter(|&i| keep(i))
            .map(|i| self.positions[i].clone())
            .collect()
    }

    /// `terminal1 G`: legal positions from which Player I has no move.
    pub fn terminal1(&self) -> BTreeSet<P> {
        self.collect(|i| self.terminal1[i])
    }

    /// `terminal2 G`: legal positions from which Player II has no move.
    pub fn terminal2(&self) -> BTreeSet<P> {
        self.collect(|i| self.terminal2[i])
    }

    /// `win1_by G n`: positions from which Player I can move into `win2_by G n`.
    pub fn win1_by(&self, n: u32) -> BTreeSet<P> {
        self.collect(|i| self.least_win1_by[i].is_some_and(|m| m <= n))
    }

    /// `win2_by G n`: positions won for Player I within `n` moves of Player I, Player II to move.
    pub fn win2_by(&self, n: u32) -> BTreeSet<P> {
        self.collect(|i| self.least_win2_by[i].is_some_and(|m| m <= n))
    }

    /// `win1 G ≡ {p | ∃n. p ∈ win1_by G n}`.
    pub fn win1(&self) -> BTreeSet<P> {
        self.collect(|i| self.least_win1_by[i].is_some())
    }

    /// `win2 G ≡ {p | ∃n. p ∈ win2_by G n}`.
    pub fn win2(&self) -> BTreeSet<P> {
        self.collect(|i| self.least_win2_by[i].is_some())
    }

    /// The least `n` with `p ∈ win1_by G n`, or `None` if `p ∉ win1 G` (or `p` was not enumerated).
    pub fn least_win1_by(&self, p: &P) -> Option<u32> {
        self.position_number(p).and_then(|i| self.least_win1_by[i])
    }

    /// The least `n` with `p ∈ win2_by G n`, or `None` if `p ∉ win2 G` (or `p` was not enumerated).
    pub fn least_win2_by(&self, p: &P) -> Option<u32> {
        self.position_number(p).and_then(|i| self.least_win2_by[i])
    }

    /// The least `n` with `win2_by G (n+1) = win2_by G n`; every set is constant from `n` on.
    pub fn stable_at(&self) -> u32 {
        self.stable_at
    }
}

/// A game given by explicit tables, for small examples and tests.
#[derive(Debug, Clone)]
pub struct ExplicitGame<P: Ord> {
    legal: BTreeSet<P>,
    moves1: BTreeMap<P, Vec<P>>,
    moves2: BTreeMap<P, Vec<P>>,
    win: BTreeSet<P>,
}

impl<P: Ord> Default for ExplicitGame<P> {
    fn default() -> Self {
        ExplicitGame {
            legal: BTreeSet::new(),
            moves1: BTreeMap::new(),
            moves2: BTreeMap::new(),
            win: BTreeSet::new(),
        }
    }
}

impl<P: Clone + Ord + Debug> ExplicitGame<P> {
    /// An empty game.
    pub fn new() -> Self {
        Self::default()
    }

    /// Declares `p` legal.
    pub fn legal(mut self, p: P) -> Self {
        self.legal.insert(p);
        self
    }

    /// Adds the Player I move `M(from, to)`.
    pub fn move1(mut self, from: P, to: P) -> Self {
        self.moves1.entry(from).or_default().push(to);
        self
    }

    /// Adds the Player II move `M̄(from, to)`.
    pub fn move2(mut self, from: P, to: P) -> Self {
        self.moves2.entry(from).or_default().push(to);
        self
    }

    /// Declares `W(p)`.
    pub fn win(mut self, p: P) -> Self {
        self.win.insert(p);
        self
    }

    /// Every position the tables mention.
    pub fn universe(&self) -> BTreeSet<P> {
        let mut all = self.legal.clone();
        all.extend(self.win.iter().cloned());
        for table in [&self.moves1, &self.moves2] {
            for (from, tos) in table {
                all.insert(from.clone());
                all.extend(tos.iter().cloned());
            }
        }
        all
    }
}

impl<P: Clone + Ord + Debug> Game for ExplicitGame<P> {
    type Position = P;

    fn legal(&self, p: &P) -> bool {
        self.legal.contains(p)
    }

    fn moves1(&self, p: &P) -> Vec<P> {
        self.moves1.get(p).cloned().unwrap_or_default()
    }

    fn moves2(&self, p: &P) -> Vec<P> {
        self.moves2.get(p).cloned().unwrap_or_default()
    }

    fn win(&self, p: &P) -> bool {
        self.win.contains(p)
    }
}

#[cfg(test)]
mod tests;
