//! Forsyth–Edwards Notation for boards of any size: parsing into an unchecked [`Setup`], checking
//! it into a legal [`Position`], and printing.
//!
//! Owns: [`Setup`], [`FenError`], [`IllegalPosition`].
//! Must never: panic on any input text.
//!
//! The placement field lists the ranks from the last down to the first, separated by `/`; runs of
//! empty squares are written as decimal numbers, which may have two digits (`10` on a 12-file
//! board). The board's size is read off the placement: as many ranks as fields, as many files as
//! each rank's squares (all ranks must agree). Castling is not part of the model, so the castling
//! field must be `-`. The side to move is required; castling, en passant and the two clocks may be
//! left out (they default to `-`, `-`, `0`, `1`).

use crate::board::{Board, Square, MAX_BOARD_SIDE};
use crate::laws::{en_passant_consistent, en_passant_valid, illegalities, Illegality};
use crate::position::{fen_letter, Man, Piece, Position, Side};
use std::fmt;

/// A position as FEN describes it, not yet checked against the laws.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    /// The board, as wide and as high as the placement field.
    pub board: Board,
    /// The men and their squares, in square order.
    pub men: Vec<(Square, Man)>,
    /// The side to move.
    pub to_move: Side,
    /// The en-passant target square, if any.
    pub en_passant: Option<Square>,
    /// Plies since the last capture or pawn move (read and written, not used by the model).
    pub halfmove_clock: u32,
    /// The move number (read and written, not used by the model).
    pub fullmove_number: u32,
}

/// What is wrong with a FEN text, and where (`at` is a 0-based byte offset into the text).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// Nothing but white space.
    #[error("the FEN is empty")]
    Empty,
    /// A character in the placement field that is neither a piece letter, a digit nor `/`.
    #[error("at column {}: '{found}' is not a piece letter (KQRBNP for White, kqrbnp for Black), a digit or '/'", at + 1)]
    BadPiece {
        /// Byte offset.
        at: usize,
        /// The character found.
        found: char,
    },
    /// A count of empty squares that is zero, has a leading zero, or exceeds 16.
    #[error("at column {}: '{found}' is not a count of empty squares from 1 to 16", at + 1)]
    BadCount {
        /// Byte offset.
        at: usize,
        /// The digits found.
        found: String,
    },
    /// Two `/` in a row, or a `/` at either end of the placement.
    #[error("at column {}: rank field {rank} (counting from the top) is empty", at + 1)]
    EmptyRank {
        /// Byte offset.
        at: usize,
        /// Which rank field, 1 for the top.
        rank: usize,
    },
    /// A rank with more than 16 squares.
    #[error("at column {}: rank field {rank} (counting from the top) has more than 16 squares", at + 1)]
    RankTooWide {
        /// Byte offset.
        at: usize,
        /// Which rank field, 1 for the top.
        rank: usize,
    },
    /// A rank whose width differs from the first rank's.
    #[error("at column {}: rank field {rank} (counting from the top) has {width} squares, but the first has {expected}", at + 1)]
    UnevenRanks {
        /// Byte offset.
        at: usize,
        /// Which rank field, 1 for the top.
        rank: usize,
        /// Its width.
        width: usize,
        /// The first rank's width.
        expected: usize,
    },
    /// More than 16 ranks.
    #[error("the placement has {ranks} ranks; boards have at most 16")]
    TooManyRanks {
        /// How many rank fields.
        ranks: usize,
    },
    /// The side-to-move field is missing.
    #[error("the side to move is missing: after the placement write 'w' or 'b'")]
    MissingSide,
    /// The side-to-move field is not `w` or `b`.
    #[error("at column {}: the side to move must be 'w' or 'b', not '{found}'", at + 1)]
    BadSide {
        /// Byte offset.
        at: usize,
        /// The field found.
        found: String,
    },
    /// The castling field is not `-`.
    #[error("at column {}: castling is not part of the model, so the castling field must be '-', not '{found}'", at + 1)]
    Castling {
        /// Byte offset.
        at: usize,
        /// The field found.
        found: String,
    },
    /// The en-passant field is neither `-` nor a square.
    #[error("at column {}: the en-passant field must be '-' or a square such as e3, not '{found}'", at + 1)]
    BadEnPassant {
        /// Byte offset.
        at: usize,
        /// The field found.
        found: String,
    },
    /// The en-passant square is off the board.
    #[error("at column {}: the en-passant square {square} is off the {board} board", at + 1)]
    EnPassantOffBoard {
        /// Byte offset.
        at: usize,
        /// The square.
        square: Square,
        /// The board.
        board: Board,
    },
    /// A clock that is not a natural number (or a move number of 0).
    #[error("at column {}: the {field} must be a whole number{}, not '{found}'", at + 1, if *field == "fullmove number" { " from 1" } else { "" })]
    BadClock {
        /// Byte offset.
        at: usize,
        /// Which clock.
        field: &'static str,
        /// The field found.
        found: String,
    },
    /// Text after the sixth field.
    #[error("at column {}: unexpected text '{found}' after the fullmove number", at + 1)]
    TrailingText {
        /// Byte offset.
        at: usize,
        /// The field found.
        found: String,
    },
}

/// The whitespace-separated fields of `text` with their byte offsets.
fn fields(text: &str) -> Vec<(usize, &str)> {
    let mut result = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                result.push((s, &text[s..i]));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        result.push((s, &text[s..]));
    }
    result
}

/// Parses the placement field starting at byte `at`.
fn parse_placement(at: usize, field: &str) -> Result<(Board, Vec<(Square, Man)>), FenError> {
    let rank_fields: Vec<(usize, &str)> = {
        let mut offset = at;
        field
            .split('/')
            .map(|rank| {
                let start = offset;
                offset += rank.len() + 1;
                (start, rank)
            })
            .collect()
    };
    if rank_fields.len() > usize::from(MAX_BOARD_SIDE) {
        return Err(FenError::TooManyRanks {
            ranks: rank_fields.len(),
        });
    }
    let mut rows: Vec<Vec<Option<Man>>> = Vec::new();
    for (index, &(start, text)) in rank_fields.iter().enumerate() {
        let rank = index + 1;
        if text.is_empty() {
            return Err(FenError::EmptyRank { at: start, rank });
        }
        let mut row: Vec<Option<Man>> = Vec::new();
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if c.is_ascii_digit() {
                let mut end = i + 1;
                while let Some(&(j, d)) = chars.peek() {
                    if !d.is_ascii_digit() {
                        break;
                    }
                    end = j + 1;
                    chars.next();
                }
                let digits = &text[i..end];
                let count = digits.parse::<usize>().ok().filter(|&n| {
                    (1..=usize::from(MAX_BOARD_SIDE)).contains(&n) && !digits.starts_with('0')
                });
                let Some(count) = count else {
                    return Err(FenError::BadCount {
                        at: start + i,
                        found: digits.to_string(),
                    });
                };
                row.extend(std::iter::repeat_n(None, count));
            } else {
                let Some(piece) = Piece::from_letter(c).filter(|_| c.is_ascii_alphabetic()) else {
                    return Err(FenError::BadPiece {
                        at: start + i,
                        found: c,
                    });
                };
                let side = if c.is_ascii_uppercase() {
                    Side::White
                } else {
                    Side::Black
                };
                row.push(Some((side, piece)));
            }
            if row.len() > usize::from(MAX_BOARD_SIDE) {
                return Err(FenError::RankTooWide { at: start, rank });
            }
        }
        if let Some(first) = rows.first() {
            if row.len() != first.len() {
                return Err(FenError::UnevenRanks {
                    at: start,
                    rank,
                    width: row.len(),
                    expected: first.len(),
                });
            }
        }
        rows.push(row);
    }
    let files = rows[0].len();
    let board = Board::new(files, rows.len()).expect("sizes were checked above");
    let mut men = Vec::new();
    for (index, row) in rows.iter().enumerate() {
        let rank = (rows.len() - 1 - index) as u8;
        for (file, man) in row.iter().enumerate() {
            if let Some(man) = man {
                men.push((Square::new(file as u8, rank), *man));
            }
        }
    }
    men.sort();
    Ok((board, men))
}

fn parse_clock(at: usize, text: &str, field: &'static str) -> Result<u32, FenError> {
    text.parse::<u32>()
        .ok()
        .filter(|&n| {
            text.bytes().all(|b| b.is_ascii_digit()) && (n > 0 || field != "fullmove number")
        })
        .ok_or_else(|| FenError::BadClock {
            at,
            field,
            found: text.to_string(),
        })
}

impl Setup {
    /// Parses a FEN text; every malformation is reported with its column.
    pub fn parse(text: &str) -> Result<Setup, FenError> {
        let fields = fields(text);
        let Some(&(at, placement)) = fields.first() else {
            return Err(FenError::Empty);
        };
        let (board, men) = parse_placement(at, placement)?;
        let to_move = match fields.get(1) {
            None => return Err(FenError::MissingSide),
            Some(&(_, "w")) => Side::White,
            Some(&(_, "b")) => Side::Black,
            Some(&(at, found)) => {
                return Err(FenError::BadSide {
                    at,
                    found: found.to_string(),
                })
            }
        };
        if let Some(&(at, castling)) = fields.get(2) {
            if castling != "-" {
                return Err(FenError::Castling {
                    at,
                    found: castling.to_string(),
                });
            }
        }
        let en_passant = match fields.get(3) {
            None | Some(&(_, "-")) => None,
            Some(&(at, text)) => {
                let square = Square::parse(text).ok_or_else(|| FenError::BadEnPassant {
                    at,
                    found: text.to_string(),
                })?;
                if !board.contains(square) {
                    return Err(FenError::EnPassantOffBoard { at, square, board });
                }
                Some(square)
            }
        };
        let halfmove_clock = match fields.get(4) {
            None => 0,
            Some(&(at, text)) => parse_clock(at, text, "halfmove clock")?,
        };
        let fullmove_number = match fields.get(5) {
            None => 1,
            Some(&(at, text)) => parse_clock(at, text, "fullmove number")?,
        };
        if let Some(&(at, found)) = fields.get(6) {
            return Err(FenError::TrailingText {
                at,
                found: found.to_string(),
            });
        }
        Ok(Setup {
            board,
            men,
            to_move,
            en_passant,
            halfmove_clock,
            fullmove_number,
        })
    }

    /// The FEN text of the setup, with all six fields.
    pub fn fen(&self) -> String {
        let mut text = placement_field(self.board, &self.men);
        text.push(' ');
        text.push(self.to_move.fen_char());
        text.push_str(" - ");
        match self.en_passant {
            Some(sq) => text.push_str(&sq.to_string()),
            None => text.push('-'),
        }
        text.push_str(&format!(
            " {} {}",
            self.halfmove_clock, self.fullmove_number
        ));
        text
    }
}

impl std::str::FromStr for Setup {
    type Err = FenError;

    fn from_str(text: &str) -> Result<Setup, FenError> {
        Setup::parse(text)
    }
}

impl fmt::Display for Setup {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}

/// The placement field for `men` on `board`.
fn placement_field(board: Board, men: &[(Square, Man)]) -> String {
    let mut text = String::new();
    for rank in (0..board.ranks()).rev() {
        let mut run = 0;
        for file in 0..board.files() {
            let sq = Square::new(file, rank);
            match men.iter().find(|(s, _)| *s == sq) {
                Some(&(_, man)) => {
                    if run > 0 {
                        text.push_str(&run.to_string());
                        run = 0;
                    }
                    text.push(fen_letter(man));
                }
                None => run += 1,
            }
        }
        if run > 0 {
            text.push_str(&run.to_string());
        }
        if rank > 0 {
            text.push('/');
        }
    }
    text
}

/// A setup that breaks the laws, with every reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IllegalPosition {
    /// The reasons, never empty.
    pub reasons: Vec<Illegality>,
}

impl fmt::Display for IllegalPosition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("illegal position: ")?;
        for (i, reason) in self.reasons.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{reason}")?;
        }
        Ok(())
    }
}

impl std::error::Error for IllegalPosition {}

impl Position {
    /// The position of an unchecked setup, or every reason why it is illegal.
    ///
    /// An en-passant square that follows a double step but allows no legal en-passant capture is
    /// dropped, as Article 9.2 does not distinguish such positions; one that does not follow a
    /// double step is an error.
    pub fn from_setup(setup: &Setup) -> Result<Position, IllegalPosition> {
        let raw = Position::new(
            setup.board,
            setup.to_move,
            setup.men.iter().copied(),
            setup.en_passant,
        )
        .expect("a parsed placement has one man per square");
        let position = match raw.en_passant() {
            Some(t) if en_passant_consistent(&raw, t) && !en_passant_valid(&raw) => {
                raw.with_en_passant(None)
            }
            _ => raw,
        };
        let reasons = illegalities(&position);
        if reasons.is_empty() {
            Ok(position)
        } else {
            Err(IllegalPosition { reasons })
        }
    }

    /// The setup of this position, with the clocks at `0 1`.
    pub fn to_setup(&self) -> Setup {
        Setup {
            board: self.board(),
            men: self.men().collect(),
            to_move: crate::position::to_move(self),
            en_passant: self.en_passant(),
            halfmove_clock: 0,
            fullmove_number: 1,
        }
    }

    /// The FEN of this position, with the clocks at `0 1`.
    pub fn fen(&self) -> String {
        self.to_setup().fen()
    }
}

/// Why a FEN text does not describe a legal position.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionFromFenError {
    /// The text is not FEN.
    #[error("invalid FEN: {0}")]
    Fen(FenError),
    /// The text is FEN, but the position breaks the laws.
    #[error("{0}")]
    Illegal(IllegalPosition),
}

impl From<FenError> for PositionFromFenError {
    fn from(e: FenError) -> Self {
        PositionFromFenError::Fen(e)
    }
}

impl From<IllegalPosition> for PositionFromFenError {
    fn from(e: IllegalPosition) -> Self {
        PositionFromFenError::Illegal(e)
    }
}

impl std::str::FromStr for Position {
    type Err = PositionFromFenError;

    /// Parses and checks a FEN text.
    fn from_str(text: &str) -> Result<Position, PositionFromFenError> {
        Ok(Position::from_setup(&Setup::parse(text)?)?)
    }
}

#[cfg(test)]
mod tests;
