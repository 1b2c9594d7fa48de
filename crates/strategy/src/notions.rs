//! The auxiliary notions of the strategy (Janičić, Marić, Maliković, section 2.2.1, generalised
//! to n×n boards in 5.3.1). Each function quotes the paper's wording.
//!
//! Owns: [`room`], [`critical_square`], [`rook_exposed`], [`rook_divides`], [`l_pattern`],
//! [`kings_on_same_edge`], [`towards_black_kings_edge`], [`edges`].

use crate::krk::{chebyshev, Krk, Move, Sq};

/// *Room*: "the rectangular space available to the black king … measured by its
/// half-perimeter. When the black king and the white rook are in line, the black king is not
/// confined … and the room takes the value 15" (`2n − 1` on an n×n board); otherwise `x + y`,
/// where `x = wr_x` if `wr_x > bk_x` and `x = n − 1 − wr_x` if `wr_x < bk_x`, and likewise `y`.
pub fn room(p: &Krk) -> u8 {
    let Some(wr) = p.wr else { return 2 * p.n - 1 };
    let bk = p.bk;
    if wr.x == bk.x || wr.y == bk.y {
        return 2 * p.n - 1;
    }
    let side = |r: u8, b: u8| if r > b { r } else { p.n - 1 - r };
    side(wr.x, bk.x) + side(wr.y, bk.y)
}

/// *Critical square*: "the square adjacent to the square of the rook in the direction of the
/// black king; if the rook and the black king are in the same column or the same row, then the
/// critical square is between them, otherwise, it is diagonal to the square of the rook."
pub fn critical_square(p: &Krk) -> Option<Sq> {
    let wr = p.wr?;
    let towards = |r: u8, b: u8| match r.cmp(&b) {
        std::cmp::Ordering::Equal => r,
        std::cmp::Ordering::Greater => r - 1,
        std::cmp::Ordering::Less => r + 1,
    };
    Some(Sq::new(towards(wr.x, p.bk.x), towards(wr.y, p.bk.y)))
}

/// *Rook exposed*: "the white king cannot reach it fast enough to protect it, i.e., if white
/// (black) is on turn and the Chebyshev distance between the rook and the white king is greater
/// by at least 2 (by at least 1) than the Chebyshev distance between the rook and the black
/// king."
pub fn rook_exposed(p: &Krk) -> bool {
    let Some(wr) = p.wr else { return true };
    let white = i16::from(chebyshev(wr, p.wk));
    let black = i16::from(chebyshev(wr, p.bk));
    white - black >= if p.white_to_move { 2 } else { 1 }
}

/// *Rook divides*: "its x coordinate is (strictly) between x coordinates of the two kings, or
/// … its y coordinate is (strictly) between y coordinates of the two kings (or both)."
pub fn rook_divides(p: &Krk) -> bool {
    let Some(wr) = p.wr else { return false };
    let between = |a: u8, b: u8, c: u8| (a < b && b < c) || (c < b && b < a);
    between(p.wk.x, wr.x, p.bk.x) || between(p.wk.y, wr.y, p.bk.y)
}

/// *L-pattern*: "the kings are in the same row (column), at the distance 2, and … the rook and
/// the white king are in the same column (row) and at the distance 1."
pub fn l_pattern(p: &Krk) -> bool {
    let Some(wr) = p.wr else { return false };
    let (wk, bk) = (p.wk, p.bk);
    (wk.y == bk.y && wk.x.abs_diff(bk.x) == 2 && wr.x == wk.x && wr.y.abs_diff(wk.y) == 1)
        || (wk.x == bk.x && wk.y.abs_diff(bk.y) == 2 && wr.y == wk.y && wr.x.abs_diff(wk.x) == 1)
}

/// The edges a square is on: bits 1 left (file 0), 2 right (file n−1), 4 bottom (rank 0),
/// 8 top (rank n−1).
pub fn edges(n: u8, s: Sq) -> u8 {
    u8::from(s.x == 0)
        | u8::from(s.x == n - 1) << 1
        | u8::from(s.y == 0) << 2
        | u8::from(s.y == n - 1) << 3
}

/// *Kings on a same edge*: "their files or ranks are both equal to 0 or 7" (0 or n − 1).
pub fn kings_on_same_edge(p: &Krk) -> bool {
    edges(p.n, p.wk) & edges(p.n, p.bk) != 0
}

/// *Towards black king's edge move*: "If the black king is on an edge, then the white king
/// moves towards that edge." A black king in a corner is not "on an edge" here: it has two, and
/// the paper's 8×8 counts (KeepRoomDiag 3,160, KeepRoomNonDiag 184) need this reading.
pub fn towards_black_kings_edge(p: &Krk, mv: &Move) -> bool {
    let e = edges(p.n, p.bk);
    e.count_ones() == 1
        && ((e & 1 != 0 && mv.to.x < mv.from.x)
            || (e & 2 != 0 && mv.to.x > mv.from.x)
            || (e & 4 != 0 && mv.to.y < mv.from.y)
            || (e & 8 != 0 && mv.to.y > mv.from.y))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(wk: (u8, u8), wr: (u8, u8), bk: (u8, u8)) -> Krk {
        Krk {
            n: 8,
            wk: Sq::new(wk.0, wk.1),
            wr: Some(Sq::new(wr.0, wr.1)),
            bk: Sq::new(bk.0, bk.1),
            white_to_move: false,
        }
    }

    #[test]
    fn notions_on_examples() {
        // Rook on c3, black king on a1: the king is boxed in files 0–1, ranks 0–1: room 2 + 2.
        let p = pos((4, 4), (2, 2), (0, 0));
        assert_eq!(room(&p), 4);
        assert_eq!(critical_square(&p), Some(Sq::new(1, 1)));
        // Rook and black king on one file: not confined.
        assert_eq!(room(&pos((4, 4), (0, 5), (0, 0))), 15);
        // Rook on d5 between kings on b7 and f2: divides both ways.
        assert!(rook_divides(&pos((5, 1), (3, 4), (1, 6))));
        assert!(!rook_divides(&pos((5, 1), (0, 0), (1, 6))));
        // L-pattern: kings on e1 and e3? No: kings a3 and c3 on rank 3, rook a2 next to the king.
        assert!(l_pattern(&pos((0, 2), (0, 1), (2, 2))));
        // Black to move: exposed when the white king is farther from the rook than the black king.
        assert!(rook_exposed(&pos((7, 7), (0, 0), (2, 2))));
        assert!(!rook_exposed(&pos((1, 1), (0, 0), (2, 2))));
        assert!(kings_on_same_edge(&pos((0, 3), (5, 5), (0, 6))));
    }
}
