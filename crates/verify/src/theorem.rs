//! Hurd's theorems, written in his notation: the stability theorem of a category, the witness
//! that its bound is tight, and the theorem about a single position.
//!
//! Owns: [`category`], [`stability`], [`membership`], [`lambda`].
//!
//! `chess` is Hurd's game, whose Player I is White; `chess_black` is the same game with the
//! colours exchanged (Player I is Black), whose `win1_by`/`win2_by` are Black's wins. In either,
//! `win1_by n` holds positions with Player I to move that mate in `n + 1` moves, and `win2_by n`
//! positions with Player II to move that are mated within `n` moves of Player I.

use crate::men::Men;
use retro_format::Value;
use retro_rules::{Piece, Position, Side};

fn piece_name(p: Piece) -> &'static str {
    match p {
        Piece::King => "King",
        Piece::Queen => "Queen",
        Piece::Rook => "Rook",
        Piece::Bishop => "Bishop",
        Piece::Knight => "Knight",
        Piece::Pawn => "Pawn",
    }
}

/// `all_on_board p ∧ to_move p = Black ∧ has_pieces p White [King, Rook] ∧ has_pieces p Black
/// [King]`.
pub fn category(men: &Men, stm: Side) -> String {
    let list = |side: Side| {
        std::iter::once(Piece::King)
            .chain(men.of(side).iter().copied())
            .map(piece_name)
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "all_on_board p ∧ to_move p = {stm} ∧ has_pieces p White [{}] ∧ has_pieces p Black [{}]",
        list(Side::White),
        list(Side::Black)
    )
}

/// The game and set in which `winner`'s forced mates with `stm` to move are counted, e.g.
/// `("chess", "win2")` for White's wins with Black to move.
fn game_and_set(winner: Side, stm: Side) -> (&'static str, &'static str) {
    let game = if winner == Side::White {
        "chess"
    } else {
        "chess_black"
    };
    let set = if stm == winner { "win1" } else { "win2" };
    (game, set)
}

/// The `n` of `win1_by n` / `win2_by n` for a depth to mate in plies: a win in `2n + 1` plies
/// is `win1_by n`, a loss in `2n` plies is `win2_by n`.
pub fn bound(plies: u32) -> u32 {
    plies / 2
}

/// The stability theorem for `winner`'s wins with `stm` to move, given the longest such mate in
/// plies (`None`: the winner never wins there).
pub fn stability(men: &Men, stm: Side, winner: Side, longest: Option<u32>) -> String {
    let (game, set) = game_and_set(winner, stm);
    match longest {
        Some(plies) => format!(
            "∀p. {} ⇒ (p ∈ {set} {game} ⟺ p ∈ {set}_by {game} {})",
            category(men, stm),
            bound(plies)
        ),
        None => format!("∀p. {} ⇒ p ∉ {set} {game}", category(men, stm)),
    }
}

/// Hurd's λ-notation for a position: `(Black, λsq. if sq = (0, 0) then SOME (White, King) else
/// … else NONE)`, White's men first.
pub fn lambda(p: &Position) -> String {
    let mut men: Vec<_> = p.men().collect();
    men.sort_by_key(|&(sq, (side, piece))| (side, piece != Piece::King, piece, sq));
    let mut text = format!("({}, λsq. ", retro_rules::position::to_move(p));
    for (sq, (side, piece)) in men {
        text.push_str(&format!(
            "if sq = ({}, {}) then SOME ({side}, {}) else ",
            sq.file,
            sq.rank,
            piece_name(piece)
        ));
    }
    text.push_str("NONE)");
    text
}

/// The single-position theorem for a value `v` of `p`: membership in the least set and not in
/// the one before; or, for a draw, in neither side's winning set.
pub fn membership(p: &Position, v: Value) -> String {
    membership_of("p", p, v)
}

/// [`membership`] with the position called `name`.
pub fn membership_of(name: &str, p: &Position, v: Value) -> String {
    let stm = retro_rules::position::to_move(p);
    let other = retro_rules::opponent(stm);
    match v {
        Value::Win(plies) | Value::Loss(plies) => {
            let winner = if matches!(v, Value::Win(_)) {
                stm
            } else {
                other
            };
            let (game, set) = game_and_set(winner, stm);
            let n = bound(plies);
            if n == 0 {
                format!("{name} ∈ {set}_by {game} 0")
            } else {
                format!(
                    "{name} ∈ {set}_by {game} {n} ∧ {name} ∉ {set}_by {game} {}",
                    n - 1
                )
            }
        }
        _ => {
            let (g1, s1) = game_and_set(Side::White, stm);
            let (g2, s2) = game_and_set(Side::Black, stm);
            format!("{name} ∉ {s1} {g1} ∧ {name} ∉ {s2} {g2}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hurds_krk_statements() {
        let men = Men::parse("KR_K").unwrap();
        assert_eq!(
            stability(&men, Side::Black, Side::White, Some(32)),
            "∀p. all_on_board p ∧ to_move p = Black ∧ has_pieces p White [King, Rook] ∧ has_pieces p Black [King] ⇒ (p ∈ win2 chess ⟺ p ∈ win2_by chess 16)"
        );
        assert_eq!(
            stability(&men, Side::White, Side::White, Some(31)),
            "∀p. all_on_board p ∧ to_move p = White ∧ has_pieces p White [King, Rook] ∧ has_pieces p Black [King] ⇒ (p ∈ win1 chess ⟺ p ∈ win1_by chess 15)"
        );
        let p: Position = "8/3k1R2/8/8/8/8/8/K7 b - - 0 1".parse().unwrap();
        assert_eq!(
            lambda(&p),
            "(Black, λsq. if sq = (0, 0) then SOME (White, King) else if sq = (5, 6) then SOME (White, Rook) else if sq = (3, 6) then SOME (Black, King) else NONE)"
        );
        assert_eq!(
            membership(&p, Value::Loss(32)),
            "p ∈ win2_by chess 16 ∧ p ∉ win2_by chess 15"
        );
        assert_eq!(
            membership(&p, Value::Draw),
            "p ∉ win2 chess ∧ p ∉ win1 chess_black"
        );
    }
}
