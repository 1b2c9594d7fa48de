//! Probing under the fifty-move rule: a position's DTZ50 and its class at any halfmove clock,
//! its moves rated as the rule ranks them, and the line that follows DTZ50 until the rule
//! would let the defender claim.
//!
//! Owns: [`Fifty`], [`FiftyMove`], [`Tablebase::fifty`], [`Tablebase::fifty_moves`],
//! [`Tablebase::fifty_line`].
//! Must never: read a value of another kind: DTM is [`crate::probe`]'s.
//!
//! A DTZ50 table (`MATERIAL.FxR.dtz50.rtb`, built by `retro gen --kinds fifty`) holds, for
//! every position, the exact distance in plies to the zeroing move (or mate) the winner forces
//! and the loser holds out for, as `retro_rules::fifty` defines it; its class at a clock of 0
//! is a win within the rule's plies (100), a cursed win beyond, and so on. At a halfmove clock
//! `h` a win in `n` plies is still a win when `n + h` is within the rule, and a cursed win —
//! drawn by the defender's claim — otherwise, as Lichess's tablebase reads Syzygy's DTZ
//! (`AmbiguousWdl::from_dtz_and_halfmoves` in shakmaty-syzygy).

use crate::probe::{ProbeError, Tablebase};
use retro_engine::notation::notated_moves;
use retro_engine::{Material, Position};
use retro_format::{Dtz, TableKind, Wdl};
use retro_rules::Piece;
use std::cmp::Reverse;

/// A position's value under the fifty-move rule, for its side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fifty {
    /// The distance to zeroing, exact, in plies.
    pub dtz: Dtz,
    /// The plies the rule allows between zeroing moves (100).
    pub rule: u32,
}

impl Fifty {
    /// The class at a clock of 0 (as the WDL50 table stores it).
    pub fn class(self) -> Wdl {
        self.dtz.class(self.rule)
    }

    /// The class at halfmove clock `clock`: a win or a loss whose zeroing move comes within
    /// the plies the rule has left, a cursed win or a blessed loss otherwise; a checkmated
    /// position is lost unless the clock ran out before the mate.
    pub fn class_at(self, clock: u32) -> Wdl {
        match self.dtz {
            Dtz::Loss(0) if clock <= self.rule => Wdl::Loss,
            Dtz::Loss(0) => Wdl::BlessedLoss,
            Dtz::Win(n) if n.saturating_add(clock) <= self.rule => Wdl::Win,
            Dtz::Win(_) => Wdl::CursedWin,
            Dtz::Loss(n) if n.saturating_add(clock) <= self.rule => Wdl::Loss,
            Dtz::Loss(_) => Wdl::BlessedLoss,
            Dtz::Draw => Wdl::Draw,
            Dtz::Illegal => Wdl::Illegal,
        }
    }

    /// DTZ signed as Syzygy's and Lichess's: positive when the side to move wins, negative
    /// when it loses, 0 for a draw (and for a checkmated position, whose distance is 0).
    pub fn signed(self) -> i64 {
        match self.dtz {
            Dtz::Win(n) => i64::from(n),
            Dtz::Loss(n) => -i64::from(n),
            _ => 0,
        }
    }
}

/// A legal move with what the fifty-move rule makes of it.
#[derive(Debug, Clone)]
pub struct FiftyMove {
    /// SAN.
    pub san: String,
    /// UCI.
    pub uci: String,
    /// The position after the move.
    pub after: Position,
    /// Its value for the side to move after the move.
    pub value: Fifty,
    /// The halfmove clock after the move: 0 after a zeroing move.
    pub clock: u32,
    /// Whether the move zeroes the clock (a capture or a pawn move).
    pub zeroing: bool,
    /// The piece it captures, and the piece it promotes to.
    pub capture: Option<Piece>,
    /// The piece a pawn becomes.
    pub promotion: Option<Piece>,
    /// Whether the move checkmates.
    pub checkmate: bool,
    /// Whether the move stalemates.
    pub stalemate: bool,
}

impl FiftyMove {
    /// The class of the position after the move at its clock, for the side then to move.
    pub fn class(&self) -> Wdl {
        self.value.class_at(self.clock)
    }

    /// The order lila-tablebase gives a position's moves, best first for the mover: by the
    /// class left to the opponent (its loss first), mates first, then stalemates, then
    /// (winning) zeroing moves before others and the smallest DTZ, (losing, drawing) the
    /// largest; captures and promotions of larger pieces first.
    fn key(&self) -> impl Ord {
        let positive = matches!(self.class(), Wdl::Win | Wdl::CursedWin);
        (
            class_rank(self.class()),
            Reverse(self.checkmate),
            Reverse(self.stalemate),
            (self.zeroing ^ !positive, Reverse(self.value.signed())),
            Reverse(self.capture.map(piece_rank)),
            Reverse(self.promotion.map(piece_rank)),
        )
    }
}

/// Classes from the worst for the side to move to the best (lila-tablebase's order of the
/// class a move leaves to the opponent).
pub fn class_rank(class: Wdl) -> u8 {
    match class {
        Wdl::Loss => 0,
        Wdl::Illegal => 1,
        Wdl::BlessedLoss => 2,
        Wdl::Draw => 3,
        Wdl::CursedWin => 4,
        Wdl::Win => 5,
    }
}

pub use retro_engine::piece_rank;

impl Tablebase {
    /// The value under the fifty-move rule of a legal position, for its side to move, from
    /// its material's DTZ50 table.
    pub fn fifty<const N: usize>(&self, p: &Position<N>) -> Result<Fifty, ProbeError> {
        let dtz = Dtz::from_code(self.code(TableKind::Dtz50, p)?);
        let (canonical, _) = p.material().canonical();
        Ok(Fifty {
            dtz,
            rule: self.fifty_rule(canonical)?,
        })
    }

    /// The class at a clock of 0 of a legal position, from its material's WDL50 table (one
    /// byte an entry: a probe that needs no distance).
    pub fn wdl50<const N: usize>(&self, p: &Position<N>) -> Result<Wdl, ProbeError> {
        let code = self.code(TableKind::Wdl50, p)?;
        Wdl::from_code(code).ok_or_else(|| ProbeError::Inconsistent {
            material: p.material().canonical().0,
            fen: p.to_natural(self.geometry()).fen(),
        })
    }

    /// The plies the fifty-move rule allows in `material`'s DTZ50 table (its header's).
    fn fifty_rule(&self, material: Material) -> Result<u32, ProbeError> {
        let loaded = self.load_kind(TableKind::Dtz50, material)?;
        Ok(u32::from(loaded.source.header().rule_plies))
    }

    /// Every legal move of `p`, whose halfmove clock is `clock`, with what it leads to under
    /// the fifty-move rule, best first for the side to move (as lila-tablebase orders them;
    /// ties in SAN order).
    pub fn fifty_moves(&self, p: &Position, clock: u32) -> Result<Vec<FiftyMove>, ProbeError> {
        let geo = self.geometry();
        let mut moves = Vec::new();
        for m in notated_moves(geo, p) {
            let zeroing = m.mv.piece == Piece::Pawn || m.mv.captured.is_some();
            let has_moves = m.after.has_legal_move(geo);
            let check = m.after.in_check(geo, m.after.side_to_move());
            moves.push(FiftyMove {
                san: m.san,
                uci: m.uci,
                after: m.after,
                value: self.fifty(&m.after)?,
                clock: if zeroing { 0 } else { clock + 1 },
                zeroing,
                capture: m.mv.captured,
                promotion: m.mv.promotion,
                checkmate: check && !has_moves,
                stalemate: !check && !has_moves,
            });
        }
        moves.sort_by(|a, b| a.key().cmp(&b.key()).then_with(|| a.san.cmp(&b.san)));
        Ok(moves)
    }

    /// The line that follows DTZ50 from `p` at halfmove clock `clock`: the best move by
    /// [`Tablebase::fifty_moves`] each ply, until mate, a draw, or the clock reaching the rule's
    /// plies (when the defender claims, as lila-tablebase's mainline stops). Empty for a drawn
    /// position.
    pub fn fifty_line(&self, p: &Position, clock: u32) -> Result<Vec<FiftyMove>, ProbeError> {
        let mut line = Vec::new();
        let value = self.fifty(p)?;
        if value.dtz == Dtz::Draw {
            return Ok(line);
        }
        let (mut current, mut clock) = (*p, clock);
        while clock < value.rule {
            let Some(best) = self.fifty_moves(&current, clock)?.into_iter().next() else {
                break;
            };
            current = best.after;
            clock = best.clock;
            let done = best.checkmate || best.value.dtz == Dtz::Draw;
            line.push(best);
            if done {
                break;
            }
        }
        Ok(line)
    }
}

/// The halfmove clock of a FEN's fifth field (0 where it has none, or one that is not a
/// number: the position is then taken as reached by a zeroing move, as python-chess's
/// `probe_wdl` takes every position).
pub fn fen_clock(fen: &str) -> u32 {
    fen.split_whitespace()
        .nth(4)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

/// The class in words, for the side to move: "wins", "wins, but the fifty-move rule draws it
/// (cursed)", and so on.
pub fn class_words(class: Wdl) -> &'static str {
    match class {
        Wdl::Win => "wins",
        Wdl::CursedWin => "cursed win: a draw under the fifty-move rule",
        Wdl::Draw => "draw",
        Wdl::BlessedLoss => "blessed loss: a draw under the fifty-move rule",
        Wdl::Loss => "loses",
        Wdl::Illegal => "not a legal position",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_at_a_clock() {
        let win = |n| Fifty {
            dtz: Dtz::Win(n),
            rule: 100,
        };
        assert_eq!(win(60).class_at(40), Wdl::Win);
        assert_eq!(win(60).class_at(41), Wdl::CursedWin);
        assert_eq!(win(108).class(), Wdl::CursedWin);
        let loss = Fifty {
            dtz: Dtz::Loss(30),
            rule: 100,
        };
        assert_eq!(loss.class_at(70), Wdl::Loss);
        assert_eq!(loss.class_at(71), Wdl::BlessedLoss);
        let mated = Fifty {
            dtz: Dtz::Loss(0),
            rule: 100,
        };
        assert_eq!(mated.class_at(100), Wdl::Loss);
        assert_eq!(mated.signed(), 0);
        assert_eq!(win(7).signed(), 7);
    }
}
