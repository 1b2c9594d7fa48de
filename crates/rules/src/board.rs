//! The geometry of the chessboard (FIDE Article 2; Hurd section 2.2): boards of `files × ranks`
//! squares, squares as pairs of natural numbers, and the lines that join them.
//!
//! Owns: [`Board`], [`Square`], and Hurd's geometric predicates `same_file`, `same_rank`,
//! `same_diag1`, `same_diag2`, `diff`, `file_diff`, `rank_diff`, `between`, `square_between`.
//! Must never: look at pieces (that is `laws`).

use std::fmt;

/// The largest number of files or ranks a board may have.
pub const MAX_BOARD_SIDE: u8 = 16;

/// A rectangular board of `files × ranks` squares, `1 ≤ files, ranks ≤ 16`.
///
/// Article 2.1 fixes an 8×8 grid; Hurd's `files ≡ 8` and `ranks ≡ 8` become parameters here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Board {
    files: u8,
    ranks: u8,
}

/// A board size outside `1..=16` in either direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a board must have 1 to 16 files and 1 to 16 ranks, not {files}×{ranks}")]
pub struct BoardSizeError {
    /// The files asked for.
    pub files: usize,
    /// The ranks asked for.
    pub ranks: usize,
}

impl Board {
    /// The standard 8×8 board.
    pub const STANDARD: Board = Board { files: 8, ranks: 8 };

    /// A board of `files × ranks` squares.
    pub fn new(files: usize, ranks: usize) -> Result<Board, BoardSizeError> {
        let side = 1..=usize::from(MAX_BOARD_SIDE);
        if side.contains(&files) && side.contains(&ranks) {
            Ok(Board {
                files: files as u8,
                ranks: ranks as u8,
            })
        } else {
            Err(BoardSizeError { files, ranks })
        }
    }

    /// Hurd's `files`: the number of files (columns).
    pub fn files(self) -> u8 {
        self.files
    }

    /// Hurd's `ranks`: the number of ranks (rows).
    pub fn ranks(self) -> u8 {
        self.ranks
    }

    /// `sq ∈ board ≡ file sq < files ∧ rank sq < ranks`.
    pub fn contains(self, sq: Square) -> bool {
        sq.file < self.files && sq.rank < self.ranks
    }

    /// Every square of the board, rank by rank from the first rank, file by file from file a.
    pub fn squares(self) -> impl Iterator<Item = Square> + Clone {
        (0..self.ranks).flat_map(move |rank| (0..self.files).map(move |file| Square { file, rank }))
    }

    /// The number of squares, `files × ranks`.
    pub fn square_count(self) -> usize {
        usize::from(self.files) * usize::from(self.ranks)
    }

    /// Whether the board is square (it then has 8 symmetries, otherwise 4).
    pub fn is_square(self) -> bool {
        self.files == self.ranks
    }
}

impl Default for Board {
    fn default() -> Self {
        Board::STANDARD
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.files, self.ranks)
    }
}

impl std::str::FromStr for Board {
    type Err = ParseBoardError;

    /// Parses `FxR` (or `F×R`), e.g. `8x8`, `5x4`.
    fn from_str(text: &str) -> Result<Board, ParseBoardError> {
        let bad = || ParseBoardError(text.to_string());
        let (files, ranks) = text.split_once(['x', 'X', '×']).ok_or_else(bad)?;
        let files: usize = files.trim().parse().map_err(|_| bad())?;
        let ranks: usize = ranks.trim().parse().map_err(|_| bad())?;
        Board::new(files, ranks).map_err(|_| bad())
    }
}

/// A board size that is not of the form `FxR` with `1 ≤ F, R ≤ 16`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid board size '{0}': expected FxR with 1 to 16 files and ranks, e.g. 8x8")]
pub struct ParseBoardError(pub String);

/// A square: Hurd's `square ≡ ℕ × ℕ`, a file and a rank counted from 0 (a1 is `(0, 0)`).
///
/// A square need not lie on any particular board; `Board::contains` says whether it does.
/// Squares are ordered rank by rank, then file by file (a1, b1, …, a2, …), as `Board::squares`
/// lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Square {
    /// `file (f, r) ≡ f`.
    pub file: u8,
    /// `rank (f, r) ≡ r`.
    pub rank: u8,
}

impl Square {
    /// The square on `file` and `rank`, both counted from 0.
    pub const fn new(file: u8, rank: u8) -> Square {
        Square { file, rank }
    }

    /// Parses algebraic notation on boards of up to 16 files and ranks: a file letter `a`–`p`
    /// and a rank number `1`–`16`, e.g. `e4`, `p16`.
    pub fn parse(text: &str) -> Option<Square> {
        let mut chars = text.chars();
        let letter = chars.next()?;
        if !('a'..='p').contains(&letter) {
            return None;
        }
        let digits = chars.as_str();
        if digits.is_empty()
            || digits.len() > 2
            || !digits.bytes().all(|b| b.is_ascii_digit())
            || digits.starts_with('0')
        {
            return None;
        }
        let rank: u8 = digits.parse().ok()?;
        if !(1..=MAX_BOARD_SIDE).contains(&rank) {
            return None;
        }
        Some(Square::new(letter as u8 - b'a', rank - 1))
    }
}

impl Ord for Square {
    fn cmp(&self, other: &Square) -> std::cmp::Ordering {
        (self.rank, self.file).cmp(&(other.rank, other.file))
    }
}

impl PartialOrd for Square {
    fn partial_cmp(&self, other: &Square) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Square {
    /// Algebraic notation: `a1`, `e4`, `p16`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.file < 26 {
            write!(
                f,
                "{}{}",
                (b'a' + self.file) as char,
                u32::from(self.rank) + 1
            )
        } else {
            write!(f, "({},{})", self.file, self.rank)
        }
    }
}

/// `file sq`.
pub fn file(sq: Square) -> u8 {
    sq.file
}

/// `rank sq`.
pub fn rank(sq: Square) -> u8 {
    sq.rank
}

/// `same_file sq sq' ≡ (file sq = file sq')` (Article 2.4: files are the vertical columns).
pub fn same_file(sq: Square, sq2: Square) -> bool {
    file(sq) == file(sq2)
}

/// `same_rank sq sq' ≡ (rank sq = rank sq')` (Article 2.4: ranks are the horizontal rows).
pub fn same_rank(sq: Square, sq2: Square) -> bool {
    rank(sq) == rank(sq2)
}

/// `same_diag1 sq sq' ≡ (file sq + rank sq = file sq' + rank sq')` (Article 2.4: a diagonal,
/// here the one running from upper left to lower right).
pub fn same_diag1(sq: Square, sq2: Square) -> bool {
    u16::from(file(sq)) + u16::from(rank(sq)) == u16::from(file(sq2)) + u16::from(rank(sq2))
}

/// `same_diag2 sq sq' ≡ (file sq + rank sq' = file sq' + rank sq)` (Article 2.4: a diagonal,
/// here the one running from lower left to upper right).
pub fn same_diag2(sq: Square, sq2: Square) -> bool {
    u16::from(file(sq)) + u16::from(rank(sq2)) == u16::from(file(sq2)) + u16::from(rank(sq))
}

/// `diff m n ≡ if m ≤ n then n − m else m − n`.
#[allow(clippy::manual_abs_diff)] // written as Hurd writes it
pub fn diff(m: u8, n: u8) -> u8 {
    if m <= n {
        n - m
    } else {
        m - n
    }
}

/// `file_diff sq sq' ≡ diff (file sq) (file sq')`.
pub fn file_diff(sq: Square, sq2: Square) -> u8 {
    diff(file(sq), file(sq2))
}

/// `rank_diff sq sq' ≡ diff (rank sq) (rank sq')`.
pub fn rank_diff(sq: Square, sq2: Square) -> u8 {
    diff(rank(sq), rank(sq2))
}

/// `between n1 n n2 ≡ (n1 < n ∧ n < n2) ∨ (n2 < n ∧ n < n1)`.
pub fn between(n1: u8, n: u8, n2: u8) -> bool {
    (n1 < n && n < n2) || (n2 < n && n < n1)
}

/// `square_between sq1 sq sq2`: `sq` lies strictly between `sq1` and `sq2` on the file, rank or
/// diagonal that joins them (Hurd's definition, checked case by case in his order).
pub fn square_between(sq1: Square, sq: Square, sq2: Square) -> bool {
    if same_file(sq1, sq2) {
        same_file(sq, sq1) && between(rank(sq1), rank(sq), rank(sq2))
    } else if same_rank(sq1, sq2) {
        same_rank(sq, sq1) && between(file(sq1), file(sq), file(sq2))
    } else if same_diag1(sq1, sq2) {
        same_diag1(sq, sq1) && between(file(sq1), file(sq), file(sq2))
    } else if same_diag2(sq1, sq2) {
        same_diag2(sq, sq1) && between(file(sq1), file(sq), file(sq2))
    } else {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_parse_and_print() {
        assert_eq!(Square::parse("a1"), Some(Square::new(0, 0)));
        assert_eq!(Square::parse("p16"), Some(Square::new(15, 15)));
        assert_eq!(Square::parse("e10").unwrap().to_string(), "e10");
        for bad in ["", "a", "a0", "a17", "q1", "A1", "a01", "a1x", "1a", "a-1"] {
            assert_eq!(Square::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn board_sizes() {
        assert_eq!("8x8".parse::<Board>().unwrap(), Board::STANDARD);
        assert_eq!("5×4".parse::<Board>().unwrap(), Board::new(5, 4).unwrap());
        for bad in ["0x8", "17x3", "8", "x", "axb", "8x8x8"] {
            assert!(bad.parse::<Board>().is_err(), "{bad}");
        }
        assert_eq!(Board::new(3, 2).unwrap().squares().count(), 6);
    }

    #[test]
    fn between_squares_on_lines_only() {
        let sq = |s| Square::parse(s).unwrap();
        assert!(square_between(sq("a1"), sq("a4"), sq("a8")));
        assert!(square_between(sq("h1"), sq("c1"), sq("a1")));
        assert!(square_between(sq("a1"), sq("d4"), sq("h8")));
        assert!(square_between(sq("a8"), sq("d5"), sq("h1")));
        assert!(!square_between(sq("a1"), sq("a1"), sq("a8")));
        assert!(!square_between(sq("a1"), sq("b3"), sq("c5")));
        assert!(!square_between(sq("a1"), sq("b1"), sq("b2")));
    }
}
