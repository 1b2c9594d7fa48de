//! Perft: the number of move paths of a given length, by the engine and by the natural model.
//!
//! Owns: [`perft`], [`perft_natural`], [`divide`].

use crate::geometry::Geometry;
use crate::notation::uci;
use crate::position::Position;

/// The number of legal move sequences of `depth` plies from `pos` (the engine's moves).
pub fn perft(geo: &Geometry, pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0;
    pos.for_each_move(geo, |_, after| {
        total += if depth == 1 {
            1
        } else {
            perft(geo, &after, depth - 1)
        };
    });
    total
}

/// The perft count of each legal move of `pos`, by UCI name.
pub fn divide(geo: &Geometry, pos: &Position, depth: u32) -> Vec<(String, u64)> {
    pos.legal_moves(geo)
        .iter()
        .map(|(mv, after)| (uci(geo, mv), perft(geo, after, depth.saturating_sub(1))))
        .collect()
}

/// The same count by the natural model's `successors` (slow; for cross-checks).
pub fn perft_natural(pos: &retro_rules::Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    retro_rules::laws::successors(pos)
        .iter()
        .map(|(_, after)| perft_natural(after, depth - 1))
        .sum()
}
