//! The player (seed `003`, section 3.3): from a reminder, the table of every friend position of
//! the oracle to the move it plays.
//!
//! Owns: [`Player`].

use retro_format::oracle::OracleFile;
use retro_rules::laws::Move;
use retro_rules::{Position, Side};
use retro_verify::oracle::{replay, NodeKind, OracleFault};
use rustc_hash::FxHashMap;

/// Every friend position of an oracle and its move.
#[derive(Debug, Clone)]
pub struct Player {
    friend: Side,
    moves: FxHashMap<Position, Move>,
}

impl Player {
    /// Compiles the player of an oracle file (its structure is checked on the way; its leaves
    /// are not — that is `retro oracle check`).
    pub fn compile(file: &OracleFile) -> Result<Player, OracleFault> {
        let graph = replay(file)?;
        let moves = graph
            .nodes
            .into_iter()
            .filter_map(|node| match node.kind {
                NodeKind::Friend { mv, .. } => Some((node.position, mv)),
                _ => None,
            })
            .collect();
        Ok(Player {
            friend: graph.friend,
            moves,
        })
    }

    /// The side it plays for.
    pub fn friend(&self) -> Side {
        self.friend
    }

    /// Its number of friend positions.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// The oracle's move in `p`, if `p` is one of its friend positions.
    pub fn play(&self, p: &Position) -> Option<Move> {
        self.moves.get(p).copied()
    }
}
