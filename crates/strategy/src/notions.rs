//! The auxiliary notions of the strategy (Janičić, Marić, Maliković, section 2.2.1, generalised
//! to n×n boards in 5.3.1) on [`Krk`] positions, for reports and lemmas: each is
//! [`crate::conditions`]' one definition read on numbers.
//!
//! Owns: [`room`], [`critical_square`].
//! Must never: define a notion a second time — the definitions live in [`crate::conditions`].

use crate::conditions;
use crate::krk::{Krk, Sq};

/// *Room* (see [`conditions::room`]); `2n − 1` once the rook is taken.
pub fn room(p: &Krk) -> u8 {
    match p.wr {
        Some(_) => conditions::room(&p.placement()) as u8,
        None => 2 * p.n - 1,
    }
}

/// *Critical square* (see [`conditions::critical_square`]); none once the rook is taken.
pub fn critical_square(p: &Krk) -> Option<Sq> {
    p.wr?;
    let c = conditions::critical_square(&p.placement());
    Some(Sq::new(c.x as u8, c.y as u8))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conditions::{l_pattern, rook_divides, rook_exposed};

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
        assert!(rook_divides(&pos((5, 1), (3, 4), (1, 6)).placement()));
        assert!(!rook_divides(&pos((5, 1), (0, 0), (1, 6)).placement()));
        // L-pattern: kings a3 and c3 on rank 3, rook a2 next to the white king.
        assert!(l_pattern(&pos((0, 2), (0, 1), (2, 2)).placement()));
        // Black to move: exposed when the white king is farther from the rook than the black king.
        assert!(rook_exposed(
            &pos((7, 7), (0, 0), (2, 2)).placement(),
            false
        ));
        assert!(!rook_exposed(
            &pos((1, 1), (0, 0), (2, 2)).placement(),
            false
        ));
        assert!(conditions::kings_on_same_edge(
            &pos((0, 3), (5, 5), (0, 6)).placement()
        ));
    }
}
