//! The laws of chess on the natural model: attacks, check, legal positions, moves and the end of
//! the game (FIDE Articles 1, 3 and 5; Hurd section 2.2 and appendix A).
//!
//! Owns: `bishop_attacks` … `king_attacks`, `pawn_attacks`, `clear_line`, `attacks`, `in_check`,
//! `all_on_board`, `chess_legal`, `sorties`, `captures`, the pawn moves, `chess_move`,
//! `game_over`, `checkmated`, `stalemated`, `chess_win`.
//! Must never: optimise. Every function is a direct transcription of one definition, checked by
//! reading; the fast engine is tested against these functions, never the other way round.
//!
//! Departures from Hurd, each because his results are pawnless and ours need not be:
//! * pawns move, capture, double-step, promote and capture en passant (Article 3.7);
//! * a legal position has exactly one king of each side and no pawn on its first or last rank
//!   (no game can reach such a position: Articles 2.3, 3.7(e)), and an en-passant target only
//!   when the last move was a double step that can be answered by an en-passant capture
//!   (Article 9.2 counts positions as different exactly then).
//!
//! For pawnless positions with one king each, the extra conditions hold trivially, so
//! `chess_legal` and the move relation are Hurd's.

use crate::board::{
    file, file_diff, rank, rank_diff, same_diag1, same_diag2, same_file, same_rank, square_between,
    Board, Square,
};
use crate::position::{empty, occupies, on_square, opponent, to_move, Man, Piece, Position, Side};
use std::fmt;

/// `bishop_attacks sq1 sq2 ≡ (same_diag1 sq1 sq2 ∨ same_diag2 sq1 sq2) ∧ sq1 ≠ sq2`
/// (Article 3.2: the bishop moves along a diagonal).
pub fn bishop_attacks(sq1: Square, sq2: Square) -> bool {
    (same_diag1(sq1, sq2) || same_diag2(sq1, sq2)) && sq1 != sq2
}

/// `rook_attacks sq1 sq2 ≡ (same_file sq1 sq2 ∨ same_rank sq1 sq2) ∧ sq1 ≠ sq2`
/// (Article 3.3: the rook moves along its file or rank).
pub fn rook_attacks(sq1: Square, sq2: Square) -> bool {
    (same_file(sq1, sq2) || same_rank(sq1, sq2)) && sq1 != sq2
}

/// `queen_attacks sq1 sq2 ≡ rook_attacks sq1 sq2 ∨ bishop_attacks sq1 sq2` (Article 3.4).
pub fn queen_attacks(sq1: Square, sq2: Square) -> bool {
    rook_attacks(sq1, sq2) || bishop_attacks(sq1, sq2)
}

/// `knight_attacks sq1 sq2 ≡ (file_diff = 1 ∧ rank_diff = 2) ∨ (file_diff = 2 ∧ rank_diff = 1)`
/// (Article 3.6, as the L-shape).
pub fn knight_attacks(sq1: Square, sq2: Square) -> bool {
    (file_diff(sq1, sq2) == 1 && rank_diff(sq1, sq2) == 2)
        || (file_diff(sq1, sq2) == 2 && rank_diff(sq1, sq2) == 1)
}

/// `king_attacks sq1 sq2 ≡ file_diff ≤ 1 ∧ rank_diff ≤ 1 ∧ sq1 ≠ sq2`
/// (Article 3.8(a): the king moves to an adjoining square).
pub fn king_attacks(sq1: Square, sq2: Square) -> bool {
    file_diff(sq1, sq2) <= 1 && rank_diff(sq1, sq2) <= 1 && sq1 != sq2
}

/// The direction in which `s`'s pawns advance: up the ranks for White, down for Black
/// (Article 3.7(a): the pawn moves forward).
pub fn forward(s: Side) -> i16 {
    match s {
        Side::White => 1,
        Side::Black => -1,
    }
}

/// The rank `steps` ranks forward of `sq` for side `s`, if that is a natural number.
fn rank_ahead(s: Side, sq: Square, steps: i16) -> Option<u8> {
    u8::try_from(i16::from(rank(sq)) + steps * forward(s)).ok()
}

/// `s`'s first rank: the rank of its king at the start of a game (rank 1 for White, the last
/// rank of the board for Black).
pub fn first_rank(board: Board, s: Side) -> u8 {
    match s {
        Side::White => 0,
        Side::Black => board.ranks() - 1,
    }
}

/// `s`'s second rank, where its pawns stand at the start and from which they may advance two
/// squares (Article 3.7(b)).
pub fn second_rank(board: Board, s: Side) -> u8 {
    match s {
        Side::White => 1,
        Side::Black => board.ranks().saturating_sub(2),
    }
}

/// The rank furthest from `s`'s starting position, where its pawns are exchanged
/// (Article 3.7(e)).
pub fn last_rank(board: Board, s: Side) -> u8 {
    first_rank(board, opponent(s))
}

/// `pawn_attacks s sq1 sq2`: a pawn of `s` on `sq1` attacks `sq2`, the square diagonally in front
/// of it on an adjacent file (Article 3.7(c)).
pub fn pawn_attacks(s: Side, sq1: Square, sq2: Square) -> bool {
    file_diff(sq1, sq2) == 1 && rank_ahead(s, sq1, 1) == Some(rank(sq2))
}

/// `sq2 ∈ clear_line p sq1 ≡ ∀sq. square_between sq1 sq sq2 ⇒ empty p sq` (Article 3.5: no
/// jumping over intervening pieces). Equivalently: no occupied square lies between them, which
/// is how it is evaluated — the occupied squares are finitely many.
pub fn clear_line(p: &Position, sq1: Square, sq2: Square) -> bool {
    p.men().all(|(sq, _)| !square_between(sq1, sq, sq2))
}

/// `sq' ∈ attacks p sq ≡ sq' ∈ board ∩ clear_line p sq ∩ (the squares the man on sq attacks
/// by its kind of move)` (Hurd's `attacks`, with the pawn's diagonal attack added). The three
/// conditions are tested in the order board, kind of move, clear line: the same conjunction.
pub fn attacks(p: &Position, sq: Square, sq2: Square) -> bool {
    p.board().contains(sq2)
        && match on_square(p, sq) {
            None => false,
            Some((_, Piece::King)) => king_attacks(sq, sq2),
            Some((_, Piece::Queen)) => queen_attacks(sq, sq2),
            Some((_, Piece::Rook)) => rook_attacks(sq, sq2),
            Some((_, Piece::Bishop)) => bishop_attacks(sq, sq2),
            Some((_, Piece::Knight)) => knight_attacks(sq, sq2),
            Some((s, Piece::Pawn)) => pawn_attacks(s, sq, sq2),
        }
        && clear_line(p, sq, sq2)
}

/// `in_check s p ≡ ∃sq1 sq2. on_square p sq1 = SOME (s, King) ∧ occupies p (opponent s) sq2 ∧
/// sq1 ∈ attacks p sq2` (Article 3.9: a king attacked by an opponent's piece is in check, even if
/// that piece could not itself move).
pub fn in_check(s: Side, p: &Position) -> bool {
    p.men().any(|(sq1, man)| {
        man == (s, Piece::King)
            && p.men()
                .any(|(sq2, _)| occupies(p, opponent(s), sq2) && attacks(p, sq2, sq1))
    })
}

/// `all_on_board p ≡ ∀sq. ¬empty p sq ⇒ sq ∈ board`.
pub fn all_on_board(p: &Position) -> bool {
    p.men().all(|(sq, _)| p.board().contains(sq))
}

/// Each side has exactly one king (Article 2.3 sets one king per side, and no move adds or
/// removes a king).
pub fn one_king_each(p: &Position) -> bool {
    Side::ALL.into_iter().all(|s| kings(p, s) == 1)
}

fn kings(p: &Position, s: Side) -> usize {
    p.men().filter(|&(_, man)| man == (s, Piece::King)).count()
}

/// No pawn stands on its own side's first rank or on its last rank (pawns start on the second
/// rank and only move forward, Article 3.7(a); on the last rank they are exchanged, 3.7(e)).
pub fn pawns_between_end_ranks(p: &Position) -> bool {
    p.men().all(|(sq, (s, piece))| {
        piece != Piece::Pawn
            || (rank(sq) != first_rank(p.board(), s) && rank(sq) != last_rank(p.board(), s))
    })
}

/// The en-passant target `t` is consistent with a double step just played by the side not to
/// move: `t` is the square its pawn passed over, that pawn stands one square beyond `t`, and `t`
/// and the square the pawn left are empty (Article 3.7(d)).
pub fn en_passant_consistent(p: &Position, t: Square) -> bool {
    let mover = opponent(to_move(p));
    let Some(pawn_rank) = rank_ahead(mover, t, 1) else {
        return false;
    };
    let pawn_sq = Square::new(file(t), pawn_rank);
    let origin = Square::new(file(t), second_rank(p.board(), mover));
    p.board().contains(pawn_sq)
        && rank_ahead(mover, origin, 1) == Some(rank(t))
        && on_square(p, pawn_sq) == Some((mover, Piece::Pawn))
        && empty(p, t)
        && empty(p, origin)
}

/// `en_passant_capture p sq1 sq2`: the pawn of the side to move on `sq1` captures en passant on
/// the target `sq2`, removing the opponent's pawn that passed over it, which stands on `sq2`'s
/// file and `sq1`'s rank (Article 3.7(d)).
pub fn en_passant_capture(p: &Position, sq1: Square, sq2: Square) -> bool {
    let s = to_move(p);
    p.en_passant() == Some(sq2)
        && on_square(p, sq1) == Some((s, Piece::Pawn))
        && pawn_attacks(s, sq1, sq2)
        && on_square(p, Square::new(file(sq2), rank(sq1))) == Some((opponent(s), Piece::Pawn))
}

/// The position after the en-passant capture `sq1 → sq2`.
fn after_en_passant(p: &Position, sq1: Square, sq2: Square) -> Position {
    p.without(Square::new(file(sq2), rank(sq1)))
        .relocate(sq1, sq2, (to_move(p), Piece::Pawn))
}

/// The en-passant target of `p`, if any, is consistent and some en-passant capture onto it is a
/// legal move (Article 9.2: only then does it distinguish the position).
pub fn en_passant_valid(p: &Position) -> bool {
    match p.en_passant() {
        None => true,
        Some(t) => {
            en_passant_consistent(p, t)
                && p.men().any(|(sq1, _)| {
                    en_passant_capture(p, sq1, t) && chess_legal(&after_en_passant(p, sq1, t))
                })
        }
    }
}

/// `chess_legal p ≡ all_on_board p ∧ ¬in_check (opponent (to_move p)) p` (Article 3.9: no move
/// may leave one's own king in check, so the side that has just moved is not in check), with the
/// conditions on kings, pawns and en passant described in the module comment.
pub fn chess_legal(p: &Position) -> bool {
    all_on_board(p)
        && one_king_each(p)
        && pawns_between_end_ranks(p)
        && en_passant_valid(p)
        && !in_check(opponent(to_move(p)), p)
}

/// A reason why a position is not legal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Illegality {
    /// A man stands off the board.
    OffBoard(Square),
    /// A side has no king.
    MissingKing(Side),
    /// A side has more than one king.
    TooManyKings(Side, usize),
    /// A pawn stands on its first or last rank.
    PawnOnEndRank(Square),
    /// The en-passant square does not follow a double pawn step.
    InvalidEnPassant(Square),
    /// The en-passant square follows a double step, but no en-passant capture is legal.
    EnPassantUnavailable(Square),
    /// The side not to move is in check.
    OppositeCheck(Side),
}

impl fmt::Display for Illegality {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Illegality::OffBoard(sq) => write!(f, "a man stands on {sq}, off the board"),
            Illegality::MissingKing(s) => write!(f, "{s} has no king"),
            Illegality::TooManyKings(s, n) => write!(f, "{s} has {n} kings"),
            Illegality::PawnOnEndRank(sq) => {
                write!(f, "the pawn on {sq} stands on its first or last rank")
            }
            Illegality::InvalidEnPassant(sq) => write!(
                f,
                "the en-passant square {sq} does not follow a double pawn step by the side that just moved"
            ),
            Illegality::EnPassantUnavailable(sq) => write!(
                f,
                "the en-passant square {sq} is given but no en-passant capture is legal"
            ),
            Illegality::OppositeCheck(s) => write!(
                f,
                "{s} is in check but not to move (the side that just moved cannot be in check)"
            ),
        }
    }
}

/// Every reason why `p` is not legal: empty exactly when `chess_legal p`.
pub fn illegalities(p: &Position) -> Vec<Illegality> {
    let mut reasons = Vec::new();
    for (sq, _) in p.men().filter(|&(sq, _)| !p.board().contains(sq)) {
        reasons.push(Illegality::OffBoard(sq));
    }
    for s in Side::ALL {
        match kings(p, s) {
            0 => reasons.push(Illegality::MissingKing(s)),
            1 => {}
            n => reasons.push(Illegality::TooManyKings(s, n)),
        }
    }
    if !pawns_between_end_ranks(p) {
        for (sq, (s, piece)) in p.men() {
            if piece == Piece::Pawn
                && (rank(sq) == first_rank(p.board(), s) || rank(sq) == last_rank(p.board(), s))
            {
                reasons.push(Illegality::PawnOnEndRank(sq));
            }
        }
    }
    if let Some(t) = p.en_passant() {
        if !en_passant_consistent(p, t) {
            reasons.push(Illegality::InvalidEnPassant(t));
        } else if !en_passant_valid(p) {
            reasons.push(Illegality::EnPassantUnavailable(t));
        }
    }
    if in_check(opponent(to_move(p)), p) {
        reasons.push(Illegality::OppositeCheck(opponent(to_move(p))));
    }
    reasons
}

/// `sq2 ∈ sorties p sq1 ≡ sq2 ∈ pushes p sq1 ∧ empty p sq2`, where for every piece but the pawn
/// `pushes p sq1` is `attacks p sq1` (Hurd, appendix A). Pawns advance instead (see
/// [`pawn_advance`]).
pub fn sorties(p: &Position, sq1: Square, sq2: Square) -> bool {
    !matches!(on_square(p, sq1), Some((_, Piece::Pawn))) && attacks(p, sq1, sq2) && empty(p, sq2)
}

/// `sq2 ∈ captures p sq1 ≡ sq2 ∈ attacks p sq1 ∧ occupies p (opponent (to_move p)) sq2`
/// (Article 3.1: a piece moved to a square occupied by an opponent's piece captures it).
pub fn captures(p: &Position, sq1: Square, sq2: Square) -> bool {
    attacks(p, sq1, sq2) && occupies(p, opponent(to_move(p)), sq2)
}

/// The pawn on `sq1` advances one square to the empty square `sq2` directly in front of it
/// (Article 3.7(a)).
pub fn pawn_advance(p: &Position, sq1: Square, sq2: Square) -> bool {
    let s = to_move(p);
    on_square(p, sq1) == Some((s, Piece::Pawn))
        && same_file(sq1, sq2)
        && rank_ahead(s, sq1, 1) == Some(rank(sq2))
        && p.board().contains(sq2)
        && empty(p, sq2)
}

/// The pawn on its second rank at `sq1` advances two squares to `sq2` along its file, both
/// squares being empty (Article 3.7(b)).
pub fn pawn_double_advance(p: &Position, sq1: Square, sq2: Square) -> bool {
    let s = to_move(p);
    let Some(passed_rank) = rank_ahead(s, sq1, 1) else {
        return false;
    };
    on_square(p, sq1) == Some((s, Piece::Pawn))
        && rank(sq1) == second_rank(p.board(), s)
        && same_file(sq1, sq2)
        && rank_ahead(s, sq1, 2) == Some(rank(sq2))
        && p.board().contains(sq2)
        && empty(p, Square::new(file(sq1), passed_rank))
        && empty(p, sq2)
}

/// `sq2` is within the reach of `man` standing on `sq1`: the geometric relation of its kind of
/// move holds (for a pawn: one or two squares along its file, or diagonally forward). Every move
/// predicate below implies it — `sorties` and `captures` through `attacks`, the pawn moves
/// through their file and rank conditions — so `successors` need not try other squares.
pub fn in_reach((s, piece): Man, sq1: Square, sq2: Square) -> bool {
    match piece {
        Piece::King => king_attacks(sq1, sq2),
        Piece::Queen => queen_attacks(sq1, sq2),
        Piece::Rook => rook_attacks(sq1, sq2),
        Piece::Bishop => bishop_attacks(sq1, sq2),
        Piece::Knight => knight_attacks(sq1, sq2),
        Piece::Pawn => {
            pawn_attacks(s, sq1, sq2)
                || (same_file(sq1, sq2) && (1..=2).contains(&rank_diff(sq1, sq2)))
        }
    }
}

/// A move, named by the squares it leaves and reaches and the piece a pawn is exchanged for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Move {
    /// The square the moving man leaves.
    pub from: Square,
    /// The square it reaches.
    pub to: Square,
    /// The piece a pawn is exchanged for on the last rank.
    pub promotion: Option<Piece>,
}

impl fmt::Display for Move {
    /// UCI notation: `e2e4`, `a7a8q`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from, self.to)?;
        if let Some(piece) = self.promotion {
            write!(f, "{}", piece.letter().to_ascii_lowercase())?;
        }
        Ok(())
    }
}

/// The men that may arrive on `sq2` when `man` moves there: a pawn reaching its last rank is
/// exchanged for a queen, rook, bishop or knight of its colour (Article 3.7(e)).
fn arrivals(board: Board, (s, piece): Man, sq2: Square) -> Vec<(Man, Option<Piece>)> {
    if piece == Piece::Pawn && rank(sq2) == last_rank(board, s) {
        Piece::PROMOTIONS
            .into_iter()
            .map(|promoted| ((s, promoted), Some(promoted)))
            .collect()
    } else {
        vec![((s, piece), None)]
    }
}

/// Every `(move, p')` with `chess_move p p'`, Hurd's move relation for the side to move:
///
/// `chess_move p p' ≡ chess_legal p ∧ chess_legal p' ∧ to_move p' = opponent (to_move p) ∧
/// (simple_move p p' ∨ capture_move p p')`,
///
/// where a simple move takes a man of the side to move from `sq1` to `sq2 ∈ sorties p sq1` and a
/// capture move to `sq2 ∈ captures p sq1`, leaving every other square as it was; pawns advance,
/// double-step, capture and capture en passant instead, and are exchanged on the last rank.
/// After a double step the successor records the passed square as en-passant target exactly when
/// that makes it legal, that is, when an en-passant capture is then legal.
pub fn successors(p: &Position) -> Vec<(Move, Position)> {
    let mut result = Vec::new();
    if !chess_legal(p) {
        return result;
    }
    let s = to_move(p);
    let board = p.board();
    for (sq1, man) in p.men().filter(|&(_, (side, _))| side == s) {
        for sq2 in board.squares().filter(|&sq2| in_reach(man, sq1, sq2)) {
            let moved = |arrival: Man| p.relocate(sq1, sq2, arrival);
            let mut candidates: Vec<(Option<Piece>, Position)> = Vec::new();
            if sorties(p, sq1, sq2) || captures(p, sq1, sq2) || pawn_advance(p, sq1, sq2) {
                for (arrival, promotion) in arrivals(board, man, sq2) {
                    candidates.push((promotion, moved(arrival)));
                }
            }
            if pawn_double_advance(p, sq1, sq2) {
                for (arrival, promotion) in arrivals(board, man, sq2) {
                    let after = moved(arrival);
                    let passed = rank_ahead(s, sq1, 1).map(|r| Square::new(file(sq1), r));
                    let with_target = after.with_en_passant(passed);
                    if promotion.is_none() && chess_legal(&with_target) {
                        candidates.push((None, with_target));
                    } else {
                        candidates.push((promotion, after));
                    }
                }
            }
            if en_passant_capture(p, sq1, sq2) {
                candidates.push((None, after_en_passant(p, sq1, sq2)));
            }
            for (promotion, after) in candidates {
                if chess_legal(&after) {
                    let mv = Move {
                        from: sq1,
                        to: sq2,
                        promotion,
                    };
                    result.push((mv, after));
                }
            }
        }
    }
    result
}

/// `chess_move p p'`: `p'` is reached from `p` by one legal move of the side to move.
pub fn chess_move(p: &Position, p2: &Position) -> bool {
    successors(p).iter().any(|(_, after)| after == p2)
}

/// `game_over p ≡ chess_legal p ∧ ∀p'. ¬chess_move p p'`.
pub fn game_over(p: &Position) -> bool {
    chess_legal(p) && successors(p).is_empty()
}

/// `checkmated p ≡ game_over p ∧ in_check (to_move p) p` (Article 1.2).
pub fn checkmated(p: &Position) -> bool {
    game_over(p) && in_check(to_move(p), p)
}

/// The side to move has no legal move and is not in check (Article 5.2(a): stalemate, a draw).
pub fn stalemated(p: &Position) -> bool {
    game_over(p) && !in_check(to_move(p), p)
}

/// `chess_win p ≡ (to_move p = Black) ∧ checkmated p`: the position is won for White.
pub fn chess_win(p: &Position) -> bool {
    to_move(p) == Side::Black && checkmated(p)
}

#[cfg(test)]
mod tests;
