//! Move notation: UCI (`e2e4`, `a7a8q`) and Standard Algebraic Notation (`Nf3`, `exd6`,
//! `e8=Q+`, `Rxh8#`) on boards of up to 16 files (`a`–`p`) and ranks (`1`–`16`).
//!
//! Owns: [`uci`], [`san`], [`NotatedMove`], [`parse_move`].
//! Must never: decide legality itself; it names the moves `Position::legal_moves` gives.

use crate::geometry::Geometry;
use crate::position::{Move, Position};
use crate::sqset::Sq;
use retro_rules::Piece;

/// The algebraic name of `sq`: `e4`, `p16`.
pub fn square_name(geo: &Geometry, sq: Sq) -> String {
    geo.square(sq).to_string()
}

/// The UCI name of a move: from-square, to-square, and the promotion letter.
pub fn uci(geo: &Geometry, mv: &Move) -> String {
    let mut text = format!("{}{}", square_name(geo, mv.from), square_name(geo, mv.to));
    if let Some(p) = mv.promotion {
        text.push(p.letter().to_ascii_lowercase());
    }
    text
}

/// A legal move with its names and the position it leads to.
#[derive(Debug, Clone)]
pub struct NotatedMove {
    /// The move.
    pub mv: Move,
    /// The position after it.
    pub after: Position,
    /// Its SAN.
    pub san: String,
    /// Its UCI name.
    pub uci: String,
}

/// The SAN of `mv` among the legal moves `legal` of `pos`.
pub fn san(geo: &Geometry, legal: &[(Move, Position)], mv: &Move, after: &Position) -> String {
    let mut text = String::new();
    let capture = mv.captured.is_some();
    if mv.piece == Piece::Pawn {
        if capture {
            text.push((b'a' + geo.file(mv.from)) as char);
            text.push('x');
        }
        text.push_str(&square_name(geo, mv.to));
        if let Some(p) = mv.promotion {
            text.push('=');
            text.push(p.letter());
        }
    } else {
        text.push(mv.piece.letter());
        let rivals: Vec<&Move> = legal
            .iter()
            .map(|(m, _)| m)
            .filter(|m| {
                m.piece == mv.piece && m.to == mv.to && m.from != mv.from && m.promotion.is_none()
            })
            .collect();
        if !rivals.is_empty() {
            let same_file = rivals.iter().any(|m| geo.file(m.from) == geo.file(mv.from));
            let same_rank = rivals.iter().any(|m| geo.rank(m.from) == geo.rank(mv.from));
            let from = square_name(geo, mv.from);
            if !same_file {
                text.push_str(&from[..1]);
            } else if !same_rank {
                text.push_str(&from[1..]);
            } else {
                text.push_str(&from);
            }
        }
        if capture {
            text.push('x');
        }
        text.push_str(&square_name(geo, mv.to));
    }
    if after.in_check(geo, after.side_to_move()) {
        text.push(if after.has_legal_move(geo) { '+' } else { '#' });
    }
    text
}

/// Every legal move of `pos` with its SAN and UCI names, in generation order.
pub fn notated_moves(geo: &Geometry, pos: &Position) -> Vec<NotatedMove> {
    let legal = pos.legal_moves(geo);
    legal
        .iter()
        .map(|(mv, after)| NotatedMove {
            mv: *mv,
            after: *after,
            san: san(geo, &legal, mv, after),
            uci: uci(geo, mv),
        })
        .collect()
}

/// A move text that names no legal move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{text}' is not a legal move here (legal: {legal})")]
pub struct MoveParseError {
    /// The text given.
    pub text: String,
    /// The legal moves in SAN, comma-separated.
    pub legal: String,
}

/// The legal move named by `text`, in SAN (check marks optional) or UCI.
pub fn parse_move(
    geo: &Geometry,
    pos: &Position,
    text: &str,
) -> Result<NotatedMove, MoveParseError> {
    let moves = notated_moves(geo, pos);
    let strip = |s: &str| s.trim_end_matches(['+', '#', '!', '?']).to_string();
    let wanted = strip(text.trim());
    moves
        .iter()
        .find(|m| strip(&m.san) == wanted || m.uci == wanted)
        .cloned()
        .ok_or_else(|| MoveParseError {
            text: text.to_string(),
            legal: moves
                .iter()
                .map(|m| m.san.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_rules::Board;

    fn names(fen: &str) -> Vec<String> {
        let geo = Geometry::new(Board::STANDARD);
        let p = Position::from_natural(&geo, &fen.parse().unwrap()).unwrap();
        let mut sans: Vec<String> = notated_moves(&geo, &p).into_iter().map(|m| m.san).collect();
        sans.sort();
        sans
    }

    #[test]
    fn disambiguation_checks_and_promotions() {
        let sans = names("2k5/8/8/8/8/8/4K3/R6R w - - 0 1");
        assert!(sans.contains(&"Rab1".to_string()) && sans.contains(&"Rhb1".to_string()));
        assert!(sans.contains(&"Ra8+".to_string()));
        let sans = names("1k6/8/8/8/R7/8/8/R3K3 w - - 0 1");
        assert!(sans.contains(&"R1a2".to_string()) && sans.contains(&"R4a2".to_string()));
        let sans = names("1r5k/P7/8/8/8/8/8/2K5 w - - 0 1");
        assert!(sans.contains(&"axb8=Q+".to_string()) && sans.contains(&"a8=N".to_string()));
        let sans = names("7k/8/6K1/8/8/8/8/R7 w - - 0 1");
        assert!(sans.contains(&"Ra8#".to_string()));
        let sans = names("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1");
        assert!(sans.contains(&"exd6".to_string()));
    }

    #[test]
    fn parsing_accepts_san_and_uci() {
        let geo = Geometry::new(Board::STANDARD);
        let p = Position::from_natural(&geo, &"7k/8/6K1/8/8/8/8/R7 w - - 0 1".parse().unwrap())
            .unwrap();
        assert_eq!(parse_move(&geo, &p, "Ra8#").unwrap().uci, "a1a8");
        assert_eq!(parse_move(&geo, &p, "Ra8").unwrap().uci, "a1a8");
        assert_eq!(parse_move(&geo, &p, "a1a8").unwrap().san, "Ra8#");
        let err = parse_move(&geo, &p, "Qd4").unwrap_err();
        assert!(err.to_string().contains("not a legal move"));
    }
}
