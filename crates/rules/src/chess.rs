//! Chess as a two-player game, `chess ≡ (chess_legal, chess_move1, chess_move2, chess_win)`, and
//! the enumeration of every position with given men, for the reference solver.
//!
//! Owns: [`Chess`], [`positions_with`], [`universe`].
//! Must never: evaluate anything itself; it only assembles the laws into a `retro_game::Game`.

use crate::board::{Board, Square};
use crate::laws::{checkmated, chess_legal, en_passant_consistent, successors};
use crate::position::{opponent, to_move, Man, Piece, Position, Side};
use retro_game::Game;
use std::collections::BTreeSet;

/// The game of chess with `player_one` as Player I.
///
/// `Chess { player_one: White }` is Hurd's `chess`: `M = chess_move1` (White's moves),
/// `M̄ = chess_move2` (Black's moves) and `W = chess_win` (Black to move and checkmated).
/// `Chess { player_one: Black }` is the same game with the colours exchanged, whose winning sets
/// are Black's wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chess {
    /// The side whose wins the game's `win1_by`/`win2_by` describe.
    pub player_one: Side,
}

impl Chess {
    /// Hurd's `chess`: White is Player I.
    pub const WHITE: Chess = Chess {
        player_one: Side::White,
    };
    /// Chess with the colours exchanged: Black is Player I.
    pub const BLACK: Chess = Chess {
        player_one: Side::Black,
    };
}

impl Game for Chess {
    type Position = Position;

    fn legal(&self, p: &Position) -> bool {
        chess_legal(p)
    }

    /// `chess_move1 p p' ≡ chess_move p p' ∧ to_move p = White` (for Player I).
    fn moves1(&self, p: &Position) -> Vec<Position> {
        if to_move(p) != self.player_one {
            return Vec::new();
        }
        successors(p).into_iter().map(|(_, q)| q).collect()
    }

    /// `chess_move2 p p' ≡ chess_move p p' ∧ to_move p = Black` (for Player II).
    fn moves2(&self, p: &Position) -> Vec<Position> {
        if to_move(p) != opponent(self.player_one) {
            return Vec::new();
        }
        successors(p).into_iter().map(|(_, q)| q).collect()
    }

    /// `chess_win p ≡ to_move p = Black ∧ checkmated p` (for Player I = White).
    fn win(&self, p: &Position) -> bool {
        to_move(p) == opponent(self.player_one) && checkmated(p)
    }
}

/// Every position on `board` with exactly the men `men` on distinct squares, either side to move,
/// and every consistent en-passant target — legal or not. Identical men are interchangeable, so
/// each placement appears once.
pub fn positions_with(board: Board, men: &[Man]) -> Vec<Position> {
    let mut sorted = men.to_vec();
    sorted.sort();
    let squares: Vec<Square> = board.squares().collect();
    let mut placements = Vec::new();
    place(&sorted, &squares, 0, &mut Vec::new(), &mut placements);
    let mut result = Vec::new();
    for placed in placements {
        for side in Side::ALL {
            let p = Position::new(board, side, placed.iter().copied(), None)
                .expect("squares are distinct");
            let targets: Vec<Square> = board
                .squares()
                .filter(|&t| en_passant_consistent(&p, t))
                .collect();
            for t in targets {
                result.push(p.with_en_passant(Some(t)));
            }
            result.push(p);
        }
    }
    result
}

/// Places `men[next..]` on free squares, identical men in increasing square order.
fn place(
    men: &[Man],
    squares: &[Square],
    next: usize,
    placed: &mut Vec<(Square, Man)>,
    out: &mut Vec<Vec<(Square, Man)>>,
) {
    if next == men.len() {
        out.push(placed.clone());
        return;
    }
    let start = match placed.last() {
        Some(&(sq, man)) if man == men[next] => {
            squares
                .iter()
                .position(|&s| s == sq)
                .expect("placed on the board")
                + 1
        }
        _ => 0,
    };
    for &sq in &squares[start..] {
        if placed.iter().any(|&(s, _)| s == sq) {
            continue;
        }
        placed.push((sq, men[next]));
        place(men, squares, next + 1, placed, out);
        placed.pop();
    }
}

/// The men reachable from `men` by captures and promotions, as sorted lists, `men` included.
pub fn reachable_men(men: &[Man]) -> BTreeSet<Vec<Man>> {
    let mut start = men.to_vec();
    start.sort();
    let mut seen = BTreeSet::from([start.clone()]);
    let mut todo = vec![start];
    while let Some(current) = todo.pop() {
        let mut next: Vec<Vec<Man>> = Vec::new();
        for (i, &(side, piece)) in current.iter().enumerate() {
            if piece == Piece::King {
                continue;
            }
            // A capture removes the man.
            let mut captured = current.clone();
            captured.remove(i);
            next.push(captured.clone());
            if piece == Piece::Pawn {
                for promoted in Piece::PROMOTIONS {
                    // A promotion exchanges the pawn, with or without a capture.
                    let mut exchanged = current.clone();
                    exchanged[i] = (side, promoted);
                    next.push(exchanged.clone());
                    for (j, &(other_side, other_piece)) in current.iter().enumerate() {
                        if other_side != side && other_piece != Piece::King {
                            let mut both = exchanged.clone();
                            both.remove(j);
                            next.push(both);
                        }
                    }
                }
            }
        }
        for mut men in next {
            men.sort();
            if seen.insert(men.clone()) {
                todo.push(men);
            }
        }
    }
    seen
}

/// Every position with the men `men` or any men reachable from them: a universe closed under
/// moves, on which `retro_game::solve` evaluates the game exactly.
pub fn universe(board: Board, men: &[Man]) -> Vec<Position> {
    reachable_men(men)
        .into_iter()
        .flat_map(|men| positions_with(board, &men))
        .collect()
}
