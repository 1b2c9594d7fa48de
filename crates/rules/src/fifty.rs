//! The fifty-move rule on the natural model: the halfmove clock, zeroing moves, chess played on
//! (position, clock), the five classes of a position under the rule, and its distance to the
//! next zeroing move, DTZ50.
//!
//! Owns: [`zeroing`], [`Clocked`], [`FiftyMoveChess`], [`Class`], [`Zeroing`] (the phase game
//! whose values are DTZ50), [`exit_outcome`], [`class_of`], and the reference evaluations
//! [`reference_classes`] and [`reference_zeroing`] for small universes.
//! Must never: optimise, or decide anything the games below do not: every class and distance
//! is read off `retro_game::solve` and `retro_game::phases::solve_phases`.
//!
//! # The rule (FIDE Laws of Chess)
//!
//! * **Article 9.3**: the game is drawn, upon a correct claim by the player having the move, if
//!   the last 50 moves by each player have been made without the movement of any pawn and
//!   without any capture (or if the move he declares will make it so). A capture or a pawn move
//!   — a push, a double step, a capture, en passant, a promotion — is a *zeroing* move
//!   ([`zeroing`]): it sets the *halfmove clock*, the plies since the last one (the fifth field
//!   of FEN), back to 0.
//! * **Article 9.6.2**: after 75 moves by each player so, the game is drawn without a claim;
//!   if the last move checkmated, the mate stands. Under a claim as soon as it is possible
//!   (below), 9.6.2 never comes into play.
//! * **Article 5.1.1**: a checkmate ends the game at once. So a mate given on the hundredth ply
//!   without a zeroing move wins: the game is over before any claim can be made.
//!
//! # The game on (position, clock)
//!
//! [`FiftyMoveChess`] with rule `N` (`N = 100` plies: fifty moves by each player) is Hurd's
//! game (`retro_game::Game`) on pairs `(p, h)` of a position and a clock `h ≤ N`: legal when
//! `p` is (`chess_legal`); a move of chess from `p` leads to `(p', 0)` if it is zeroing and to
//! `(p', h + 1)` otherwise, and is allowed only while `h < N`; Player I's win `W` is chess's,
//! Player II to move and checkmated, at any clock. At `h = N` no one may move: the player to
//! move claims the draw (Article 9.3), unless he is checkmated (Article 5.1.1) — Hurd's
//! `win2_by` counts a stuck position as won exactly when `W` holds of it.
//!
//! The convention of the Syzygy tables, which this module follows where the Laws leave a
//! choice (syzygy-tables.info, "Metrics"; Ronald de Man's generator, github.com/syzygy1/tb,
//! `DRAW_RULE`): *a draw is claimed as soon as the rule allows*, by whichever side it helps,
//! and a position's class is its value *at a clock of 0*, as if it had just been reached by a
//! zeroing move (python-chess's `probe_wdl`: "assuming the position has been reached directly
//! after a capture or pawn move").
//!
//! # The five classes
//!
//! For `p` with side `s` to move ([`Class`]):
//!
//! * **win**: `(p, 0) ∈ win1 (FiftyMoveChess s)` — `s` wins under the rule;
//! * **loss**: `(p, 0) ∈ win2 (FiftyMoveChess (opponent s))` — `s` loses under the rule;
//! * **cursed win**: `p ∈ win1 (Chess s)` but not a win — `s` mates without the rule, and the
//!   defender reaches a claim;
//! * **blessed loss**: `p ∈ win2 (Chess (opponent s))` but not a loss;
//! * **draw**: neither side mates, rule or no rule.
//!
//! The names are Syzygy's (python-chess's `probe_wdl`: 2, 1, 0, −1, −2).
//!
//! # DTZ50: the distance to zeroing
//!
//! A phase of a game runs from one zeroing move to the next. [`Zeroing`] is chess as a phase
//! game (`retro_game::phases`): a move that is not zeroing *stays* in the phase; a zeroing move
//! (or a mate) *exits* it, with an outcome fixed by the class of the position it reaches, for
//! that position's side to move, at a clock of 0 ([`exit_outcome`]): into a loss, the mover
//! wins in 1 ply; into a blessed loss, it wins in `N + 1`; into a draw, a draw; into a cursed
//! win, it loses in `N + 1`; into a win, it loses in 1. A checkmated position is lost in 0.
//! The *DTZ50* of `p` is its value in that game: `Win(n)`, the side to move forcing a zeroing
//! move (or mate) that keeps its win `n` plies from now, the zeroing move included; `Loss(n)`,
//! the side to move holding out that long; `Draw`. This is the value the Syzygy generator's
//! DTZ tables round (python-chess's `probe_dtz`: "a zeroing move can be forced in n plies, or
//! n − 100 plies if a later phase is responsible for the cursed win"), without the rounding.
//!
//! **Theorem** ([`class_of`]; proved in `docs/proof.md`, checked on every position of small
//! universes by this module's tests): a position is a win exactly when its DTZ50 is `Win(n)`
//! with `n ≤ N`, a cursed win when it is `Win(n)` with `n > N`, a loss when `Loss(n)` with
//! `n ≤ N`, a blessed loss when `Loss(n)` with `n > N`, and a draw when it is `Draw`; and for a
//! win or a loss, `n = N − h*` for the largest clock `h*` at which `(p, h*)` is still won (or
//! lost) — DTZ50 counts the plies the clock may still run.

use crate::chess::Chess;
use crate::laws::{checkmated, chess_legal, successors, Move};
use crate::position::{on_square, opponent, to_move, Piece, Position, Side};
use retro_game::phases::{solve_phases, Outcome, PhaseGame, Step};
use retro_game::{solve, Game, GameError};
use std::collections::BTreeMap;

/// The plies the rule allows between zeroing moves: fifty moves by each player (Article 9.3).
pub const RULE_PLIES: u32 = 100;

/// `zeroing p mv`: the move moves a pawn or captures (Article 9.3), and so sets the halfmove
/// clock back to 0. En passant and promotions are pawn moves.
pub fn zeroing(p: &Position, mv: &Move) -> bool {
    let pawn = on_square(p, mv.from).is_some_and(|(_, piece)| piece == Piece::Pawn);
    let capture = on_square(p, mv.to).is_some();
    pawn || capture
}

/// A position with its halfmove clock: the plies since the last zeroing move.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Clocked {
    /// The position.
    pub position: Position,
    /// The halfmove clock, in plies.
    pub clock: u32,
}

/// Chess under the fifty-move rule, `rule_plies` plies allowed between zeroing moves, as a
/// `retro_game::Game` on [`Clocked`] positions (see the module documentation), with
/// `player_one` as Player I.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FiftyMoveChess {
    /// The side whose wins the game's `win1_by`/`win2_by` describe.
    pub player_one: Side,
    /// The plies allowed between zeroing moves ([`RULE_PLIES`] in chess).
    pub rule_plies: u32,
}

impl FiftyMoveChess {
    /// The moves of the side to move from `c`: none once the clock has run out.
    fn moves(&self, c: &Clocked) -> Vec<Clocked> {
        if c.clock >= self.rule_plies {
            return Vec::new();
        }
        successors(&c.position)
            .into_iter()
            .map(|(mv, after)| Clocked {
                clock: if zeroing(&c.position, &mv) {
                    0
                } else {
                    c.clock + 1
                },
                position: after,
            })
            .collect()
    }
}

impl Game for FiftyMoveChess {
    type Position = Clocked;

    /// A legal position, the clock within the rule.
    fn legal(&self, c: &Clocked) -> bool {
        chess_legal(&c.position) && c.clock <= self.rule_plies
    }

    fn moves1(&self, c: &Clocked) -> Vec<Clocked> {
        match to_move(&c.position) == self.player_one {
            true => self.moves(c),
            false => Vec::new(),
        }
    }

    fn moves2(&self, c: &Clocked) -> Vec<Clocked> {
        match to_move(&c.position) == opponent(self.player_one) {
            true => self.moves(c),
            false => Vec::new(),
        }
    }

    /// Player II to move and checkmated, whatever the clock (Article 5.1.1).
    fn win(&self, c: &Clocked) -> bool {
        to_move(&c.position) == opponent(self.player_one) && checkmated(&c.position)
    }
}

/// The class of a position under the fifty-move rule, for its side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
    /// Lost under the rule.
    Loss,
    /// Lost without the rule, drawn by a claim under it.
    BlessedLoss,
    /// Drawn, rule or no rule.
    Draw,
    /// Won without the rule, drawn by a claim under it.
    CursedWin,
    /// Won under the rule.
    Win,
}

impl Class {
    /// The class for the other side: a win is the loser's loss, and so on.
    pub fn for_opponent(self) -> Class {
        match self {
            Class::Loss => Class::Win,
            Class::BlessedLoss => Class::CursedWin,
            Class::Draw => Class::Draw,
            Class::CursedWin => Class::BlessedLoss,
            Class::Win => Class::Loss,
        }
    }
}

/// The outcome, for the mover, of a zeroing move into a position of class `reached` (for that
/// position's side to move, at a clock of 0), the rule allowing `rule_plies`.
pub fn exit_outcome(reached: Class, rule_plies: u32) -> Outcome {
    match reached {
        Class::Loss => Outcome::Win(1),
        Class::BlessedLoss => Outcome::Win(rule_plies + 1),
        Class::Draw => Outcome::Draw,
        Class::CursedWin => Outcome::Loss(rule_plies + 1),
        Class::Win => Outcome::Loss(1),
    }
}

/// The class a DTZ50 value stands for, the rule allowing `rule_plies` (the theorem of the module
/// documentation).
pub fn class_of(dtz: Outcome, rule_plies: u32) -> Class {
    match dtz {
        Outcome::Win(n) if n <= rule_plies => Class::Win,
        Outcome::Win(_) => Class::CursedWin,
        Outcome::Loss(n) if n <= rule_plies => Class::Loss,
        Outcome::Loss(_) => Class::BlessedLoss,
        Outcome::Draw => Class::Draw,
    }
}

/// Chess as a phase game whose values are DTZ50 (see the module documentation): a move that is
/// not zeroing stays, a zeroing move exits with [`exit_outcome`] of the class `classes` gives
/// the position it reaches.
pub struct Zeroing<'a> {
    /// The plies the rule allows between zeroing moves.
    pub rule_plies: u32,
    /// The class of a position a zeroing move reaches, for its side to move.
    pub classes: &'a dyn Fn(&Position) -> Class,
}

impl PhaseGame for Zeroing<'_> {
    type Position = Position;

    fn legal(&self, p: &Position) -> bool {
        chess_legal(p)
    }

    fn steps(&self, p: &Position) -> Vec<Step<Position>> {
        successors(p)
            .into_iter()
            .map(|(mv, after)| match zeroing(p, &mv) {
                true => Step::Exit(exit_outcome((self.classes)(&after), self.rule_plies)),
                false => Step::Stay(after),
            })
            .collect()
    }

    /// Checkmate.
    fn lost(&self, p: &Position) -> bool {
        checkmated(p)
    }
}

/// The class of every position of `universe` (closed under moves, as
/// `chess::universe` makes it), from the games [`FiftyMoveChess`] at clock 0 and [`Chess`],
/// solved by `retro_game::solve` over every clock up to `rule_plies`.
pub fn reference_classes(
    universe: &[Position],
    rule_plies: u32,
) -> Result<BTreeMap<Position, Class>, GameError<Clocked>> {
    let clocked: Vec<Clocked> = universe
        .iter()
        .flat_map(|p| {
            (0..=rule_plies).map(|clock| Clocked {
                position: p.clone(),
                clock,
            })
        })
        .collect();
    let mut under_rule = BTreeMap::new();
    for side in Side::ALL {
        let game = FiftyMoveChess {
            player_one: side,
            rule_plies,
        };
        under_rule.insert(side, solve(&game, clocked.iter().cloned())?);
    }
    let mut unbounded = BTreeMap::new();
    for side in Side::ALL {
        let game = Chess { player_one: side };
        let solved = solve(&game, universe.iter().cloned()).map_err(|e| match e {
            GameError::NotTwoPlayer { what, position } => GameError::NotTwoPlayer {
                what,
                position: Clocked { position, clock: 0 },
            },
            GameError::NotClosed { from, to } => GameError::NotClosed {
                from: Clocked {
                    position: from,
                    clock: 0,
                },
                to: Clocked {
                    position: to,
                    clock: 0,
                },
            },
        })?;
        unbounded.insert(side, solved);
    }
    let mut classes = BTreeMap::new();
    for p in universe.iter().filter(|p| chess_legal(p)) {
        let s = to_move(p);
        let at_zero = Clocked {
            position: p.clone(),
            clock: 0,
        };
        let class = if under_rule[&s].least_win1_by(&at_zero).is_some() {
            Class::Win
        } else if under_rule[&opponent(s)].least_win2_by(&at_zero).is_some() {
            Class::Loss
        } else if unbounded[&s].least_win1_by(p).is_some() {
            Class::CursedWin
        } else if unbounded[&opponent(s)].least_win2_by(p).is_some() {
            Class::BlessedLoss
        } else {
            Class::Draw
        };
        classes.insert(p.clone(), class);
    }
    Ok(classes)
}

/// The DTZ50 of every legal position of `universe`: the values of [`Zeroing`] solved by
/// `retro_game::phases::solve_phases`, each zeroing move weighed by the class `classes` gives
/// the position it reaches (as [`reference_classes`] finds them).
pub fn reference_zeroing(
    universe: &[Position],
    rule_plies: u32,
    classes: &BTreeMap<Position, Class>,
) -> Result<BTreeMap<Position, Outcome>, GameError<Position>> {
    let class = |p: &Position| *classes.get(p).expect("the universe is closed under moves");
    let game = Zeroing {
        rule_plies,
        classes: &class,
    };
    let solved = solve_phases(&game, universe.iter().cloned())?;
    Ok(universe
        .iter()
        .filter(|p| chess_legal(p))
        .map(|p| (p.clone(), solved.value(p).expect("enumerated")))
        .collect())
}

#[cfg(test)]
mod tests;
