//! An oracle in memory: the choice at each of its positions, and which friend moves keep the
//! goal.
//!
//! Owns: [`Oracle`], [`Choice`], the goal's bound at a friend node and the moves that keep it —
//! what the finder, the exact search and the reminder writer share.
//! Must never: choose among the moves (the finder and the exact search do).

use crate::judge::{Knowledge, Worth};
use crate::OracleBuildError;
use retro_format::oracle::Goal;
use retro_rules::{Position, Side};
use rustc_hash::FxHashMap;

/// What an oracle does at a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// A leaf: its status is settled.
    Leaf,
    /// A friend node: the number of its move in the checker's order.
    Move(u8),
    /// A foe node: all its moves.
    All,
}

/// An oracle in memory: the choice at every position reachable from the root.
#[derive(Debug, Clone)]
pub struct Oracle {
    /// The root.
    pub root: Position,
    /// The side it plays for.
    pub friend: Side,
    /// What every leaf is.
    pub goal: Goal,
    /// The choice at each position.
    pub choices: FxHashMap<Position, Choice>,
}

impl Oracle {
    /// Its number of nodes (positions).
    pub fn len(&self) -> usize {
        self.choices.len()
    }

    /// Whether it is empty (never: it has its root).
    pub fn is_empty(&self) -> bool {
        self.choices.is_empty()
    }
}

/// The goal's bound at a friend node: a move must reach a worth below it (win) or any worth
/// that is not a loss (not-lose).
pub(crate) fn bound(goal: Goal, worth: Option<Worth>) -> Option<u32> {
    match (goal, worth) {
        (Goal::Win, Some(Worth::Win(n))) => Some(n),
        (Goal::NotLose, Some(Worth::Win(_) | Worth::Draw)) => Some(u32::MAX),
        _ => None,
    }
}

/// The moves (by number) that keep the goal from a friend node whose bound is `limit_plies`,
/// each with the plies of the win it reaches (0 for a draw).
pub(crate) fn moves_keeping_goal(
    judge: &dyn Knowledge,
    moves: &[(retro_rules::Move, Position)],
    limit_plies: u32,
) -> Result<Vec<(usize, u32)>, OracleBuildError> {
    let goal = judge.goal();
    let mut kept = Vec::new();
    for (i, (_, q)) in moves.iter().enumerate() {
        match judge.worth(q)? {
            Some(w @ Worth::Win(k)) if w.meets(goal) && k < limit_plies => kept.push((i, k)),
            Some(w) if w.meets(goal) && goal == Goal::NotLose => kept.push((i, 0)),
            _ => {}
        }
    }
    Ok(kept)
}
