//! Positions of the natural model (Hurd section 2.2, extended by pawns and en passant).
//!
//! Owns: [`Side`], [`Piece`], [`Position`] and Hurd's accessors `opponent`, `to_move`,
//! `on_square`, `empty`, `occupies`.
//! Must never: decide legality or moves (that is `laws`).

use crate::board::{Board, Square};
use std::collections::BTreeMap;
use std::fmt;

/// `side ≡ White | Black`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Side {
    /// Player I of the game.
    White,
    /// Player II of the game.
    Black,
}

impl Side {
    /// Both sides, White first.
    pub const ALL: [Side; 2] = [Side::White, Side::Black];

    /// The FEN letter of the side to move: `w` or `b`.
    pub fn fen_char(self) -> char {
        match self {
            Side::White => 'w',
            Side::Black => 'b',
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::White => "White",
            Side::Black => "Black",
        })
    }
}

/// `opponent s ≡ case s of White → Black | Black → White`.
pub fn opponent(s: Side) -> Side {
    match s {
        Side::White => Side::Black,
        Side::Black => Side::White,
    }
}

/// `piece ≡ King | Queen | Rook | Bishop | Knight`, and the pawn (Article 3.7), which Hurd leaves
/// out because his results are pawnless.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Piece {
    /// Article 3.8.
    King,
    /// Article 3.4.
    Queen,
    /// Article 3.3.
    Rook,
    /// Article 3.2.
    Bishop,
    /// Article 3.6.
    Knight,
    /// Article 3.7.
    Pawn,
}

impl Piece {
    /// Every piece, in the order K Q R B N P.
    pub const ALL: [Piece; 6] = [
        Piece::King,
        Piece::Queen,
        Piece::Rook,
        Piece::Bishop,
        Piece::Knight,
        Piece::Pawn,
    ];

    /// The pieces a pawn may be exchanged for on the last rank (Article 3.7(e)).
    pub const PROMOTIONS: [Piece; 4] = [Piece::Queen, Piece::Rook, Piece::Bishop, Piece::Knight];

    /// The upper-case letter of the piece: K Q R B N P.
    pub fn letter(self) -> char {
        match self {
            Piece::King => 'K',
            Piece::Queen => 'Q',
            Piece::Rook => 'R',
            Piece::Bishop => 'B',
            Piece::Knight => 'N',
            Piece::Pawn => 'P',
        }
    }

    /// The piece named by an upper- or lower-case letter.
    pub fn from_letter(c: char) -> Option<Piece> {
        Piece::ALL
            .into_iter()
            .find(|p| p.letter() == c.to_ascii_uppercase())
    }

    /// The piece's name in English, lower case.
    pub fn name(self) -> &'static str {
        match self {
            Piece::King => "king",
            Piece::Queen => "queen",
            Piece::Rook => "rook",
            Piece::Bishop => "bishop",
            Piece::Knight => "knight",
            Piece::Pawn => "pawn",
        }
    }
}

/// A man on the board: a side and a piece.
pub type Man = (Side, Piece);

/// The FEN letter of a man: upper case for White, lower case for Black.
pub fn fen_letter((side, piece): Man) -> char {
    match side {
        Side::White => piece.letter(),
        Side::Black => piece.letter().to_ascii_lowercase(),
    }
}

/// `position ≡ side × (square → (side × piece) option)`, on a given board, with the en-passant
/// target square when the last move was a double pawn push that may be answered by an en-passant
/// capture (Articles 3.7(d) and 9.2: positions differ when such a capture is possible).
///
/// The partial function from squares to men is a finite map; squares it does not mention are
/// empty. Men may stand off the board: `laws::all_on_board` says whether they all stand on it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    board: Board,
    to_move: Side,
    men: BTreeMap<Square, Man>,
    en_passant: Option<Square>,
}

/// Two men placed on one square.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("two men placed on {0}")]
pub struct SquareTaken(pub Square);

impl Position {
    /// A position with `to_move` to move and the given men; fails if two men share a square.
    pub fn new(
        board: Board,
        to_move: Side,
        men: impl IntoIterator<Item = (Square, Man)>,
        en_passant: Option<Square>,
    ) -> Result<Position, SquareTaken> {
        let mut map = BTreeMap::new();
        for (sq, man) in men {
            if map.insert(sq, man).is_some() {
                return Err(SquareTaken(sq));
            }
        }
        Ok(Position {
            board,
            to_move,
            men: map,
            en_passant,
        })
    }

    /// The board the position is played on.
    pub fn board(&self) -> Board {
        self.board
    }

    /// The en-passant target square, if the last move was a double pawn push.
    pub fn en_passant(&self) -> Option<Square> {
        self.en_passant
    }

    /// The occupied squares and their men, in square order.
    pub fn men(&self) -> impl Iterator<Item = (Square, Man)> + '_ {
        self.men.iter().map(|(&sq, &man)| (sq, man))
    }

    /// The same position with a different en-passant target.
    pub fn with_en_passant(&self, en_passant: Option<Square>) -> Position {
        Position {
            en_passant,
            ..self.clone()
        }
    }

    /// The same men with the other side to move and no en-passant target.
    pub fn with_to_move(&self, to_move: Side) -> Position {
        Position {
            to_move,
            en_passant: None,
            ..self.clone()
        }
    }

    /// The position after a man leaves `from` and stands on `to` (whatever stood there is
    /// removed), with `opponent (to_move p)` to move and no en-passant target; `man` is the man
    /// that arrives (the same man, or the piece a pawn is exchanged for).
    pub(crate) fn relocate(&self, from: Square, to: Square, man: Man) -> Position {
        let mut men = self.men.clone();
        men.remove(&from);
        men.insert(to, man);
        Position {
            board: self.board,
            to_move: opponent(self.to_move),
            men,
            en_passant: None,
        }
    }

    /// The same position with the man on `sq` removed.
    pub(crate) fn without(&self, sq: Square) -> Position {
        let mut men = self.men.clone();
        men.remove(&sq);
        Position {
            men,
            ..self.clone()
        }
    }
}

/// `to_move (s, _) ≡ s`.
pub fn to_move(p: &Position) -> Side {
    p.to_move
}

/// `on_square (_, f) sq ≡ f sq`.
pub fn on_square(p: &Position, sq: Square) -> Option<Man> {
    p.men.get(&sq).copied()
}

/// `empty p sq ≡ (on_square p sq = NONE)`.
pub fn empty(p: &Position, sq: Square) -> bool {
    on_square(p, sq).is_none()
}

/// `occupies p s sq ≡ ∃v. on_square p sq = SOME (s, v)`.
pub fn occupies(p: &Position, s: Side, sq: Square) -> bool {
    matches!(on_square(p, sq), Some((side, _)) if side == s)
}
