//! The men of a category: which pieces each side has, read from a table's material name.
//!
//! Owns: [`Men`], and the categories a category's captures and promotions lead into
//! ([`exits`]), as tables store them ([`stored`]). Written afresh for the checker, in the terms of the natural model; it shares
//! nothing with the engine's `Material`.

use retro_rules::{Man, Piece, Side};
use std::fmt;

/// The non-king men of each side (both sides also have a king), White's then Black's, each in
/// the order Q R B N P.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Men {
    /// White's men other than the king.
    pub white: Vec<Piece>,
    /// Black's men other than the king.
    pub black: Vec<Piece>,
}

const ORDER: [Piece; 5] = [
    Piece::Queen,
    Piece::Rook,
    Piece::Bishop,
    Piece::Knight,
    Piece::Pawn,
];

fn rank_of(p: Piece) -> usize {
    ORDER.iter().position(|&q| q == p).unwrap_or(0)
}

/// A material name the checker cannot read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{0}' is not a material name like KRvK or KR_K")]
pub struct BadMaterial(pub String);

impl Men {
    /// Reads `KRvK`, `KR_K` or `KRK`.
    pub fn parse(text: &str) -> Result<Men, BadMaterial> {
        let bad = || BadMaterial(text.to_string());
        let upper = text.trim().to_ascii_uppercase();
        let (white, black) = match upper.split_once(['V', '_']) {
            Some((w, b)) => (w.to_string(), b.to_string()),
            None => {
                let second = upper
                    .char_indices()
                    .skip(1)
                    .find(|&(_, c)| c == 'K')
                    .ok_or_else(bad)?
                    .0;
                (upper[..second].to_string(), upper[second..].to_string())
            }
        };
        let side = |letters: &str| -> Result<Vec<Piece>, BadMaterial> {
            let rest = letters.strip_prefix('K').ok_or_else(bad)?;
            let mut pieces = rest
                .chars()
                .map(|c| {
                    Piece::from_letter(c)
                        .filter(|p| *p != Piece::King && c.is_ascii_alphabetic())
                        .ok_or_else(bad)
                })
                .collect::<Result<Vec<_>, _>>()?;
            pieces.sort_by_key(|&p| rank_of(p));
            Ok(pieces)
        };
        Ok(Men {
            white: side(&white)?,
            black: side(&black)?,
        })
    }

    /// The men of `side` other than its king.
    pub fn of(&self, side: Side) -> &[Piece] {
        match side {
            Side::White => &self.white,
            Side::Black => &self.black,
        }
    }

    /// Every man, in the order the index numbers them: White's king, Black's king, White's
    /// other men, Black's other men.
    pub fn listed(&self) -> Vec<Man> {
        let mut men = vec![(Side::White, Piece::King), (Side::Black, Piece::King)];
        men.extend(self.white.iter().map(|&p| (Side::White, p)));
        men.extend(self.black.iter().map(|&p| (Side::Black, p)));
        men
    }

    /// The number of men, kings included.
    pub fn count(&self) -> usize {
        2 + self.white.len() + self.black.len()
    }

    /// Whether a pawn is among them.
    pub fn has_pawns(&self) -> bool {
        self.white.contains(&Piece::Pawn) || self.black.contains(&Piece::Pawn)
    }

    /// The same men with the colours exchanged.
    pub fn flipped(&self) -> Men {
        Men {
            white: self.black.clone(),
            black: self.white.clone(),
        }
    }

    fn strength(pieces: &[Piece]) -> (u32, [usize; 5]) {
        let value = |p: &Piece| match p {
            Piece::Queen => 9,
            Piece::Rook => 5,
            Piece::Bishop | Piece::Knight => 3,
            _ => 1,
        };
        let mut counts = [0; 5];
        for &p in pieces {
            counts[rank_of(p)] += 1;
        }
        (pieces.iter().map(value).sum(), counts)
    }

    /// Whether tables store this category as it is (White at least as strong as Black: more
    /// material value, then more queens, rooks, bishops, knights, pawns) rather than with the
    /// colours exchanged.
    pub fn is_stored_as_is(&self) -> bool {
        Self::strength(&self.white) >= Self::strength(&self.black)
    }

    /// The men after `side` loses one `piece`.
    pub fn without(&self, side: Side, piece: Piece) -> Option<Men> {
        let mut men = self.clone();
        let list = match side {
            Side::White => &mut men.white,
            Side::Black => &mut men.black,
        };
        let at = list.iter().position(|&p| p == piece)?;
        list.remove(at);
        Some(men)
    }

    /// The men after `side` gains one `piece`.
    pub fn with(&self, side: Side, piece: Piece) -> Men {
        let mut men = self.clone();
        let list = match side {
            Side::White => &mut men.white,
            Side::Black => &mut men.black,
        };
        list.push(piece);
        list.sort_by_key(|&p| rank_of(p));
        men
    }

    /// The men of a position.
    pub fn of_position(p: &retro_rules::Position) -> Men {
        let mut men = Men {
            white: Vec::new(),
            black: Vec::new(),
        };
        for (_, (side, piece)) in p.men() {
            if piece != Piece::King {
                match side {
                    Side::White => men.white.push(piece),
                    Side::Black => men.black.push(piece),
                }
            }
        }
        men.white.sort_by_key(|&p| rank_of(p));
        men.black.sort_by_key(|&p| rank_of(p));
        men
    }

    /// Hurd's name: `KR_K`.
    pub fn hurd_name(&self) -> String {
        self.to_string().replace('v', "_")
    }
}

impl fmt::Display for Men {
    /// `KRvK`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let letters = |pieces: &[Piece]| pieces.iter().map(|p| p.letter()).collect::<String>();
        write!(f, "K{}vK{}", letters(&self.white), letters(&self.black))
    }
}

/// The categories one move away from `men` that have other men, as stored: a capture takes
/// a man other than a king; a promotion exchanges a pawn for a queen, rook, bishop or knight,
/// capturing a man of the other side or not.
pub fn exits(men: &Men) -> Vec<Men> {
    let mut result: Vec<Men> = Vec::new();
    let mut add = |m: Men| {
        let m = stored(m);
        if !result.contains(&m) {
            result.push(m);
        }
    };
    for side in Side::ALL {
        for &piece in men.of(side) {
            if let Some(m) = men.without(side, piece) {
                add(m);
            }
        }
        let Some(without_pawn) = men.without(side, Piece::Pawn) else {
            continue;
        };
        for promoted in Piece::PROMOTIONS {
            let exchanged = without_pawn.with(side, promoted);
            for &victim in exchanged.of(retro_rules::opponent(side)) {
                if let Some(m) = exchanged.without(retro_rules::opponent(side), victim) {
                    add(m);
                }
            }
            add(exchanged);
        }
    }
    result
}

/// How many pawns both sides have.
pub(crate) fn pawns(men: &Men) -> usize {
    men.white
        .iter()
        .chain(&men.black)
        .filter(|&&p| p == Piece::Pawn)
        .count()
}

/// A category as tables store it.
pub fn stored(men: Men) -> Men {
    if men.is_stored_as_is() {
        men
    } else {
        men.flipped()
    }
}

/// The men of a position that has a king per side, for `has_pieces`.
pub fn pieces_of(men: &Men, side: Side) -> Vec<Piece> {
    std::iter::once(Piece::King)
        .chain(men.of(side).iter().copied())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_orientation() {
        let m = Men::parse("KR_KQ").unwrap();
        assert_eq!(m.to_string(), "KRvKQ");
        assert!(!m.is_stored_as_is());
        assert!(m.flipped().is_stored_as_is());
        assert_eq!(Men::parse("KNBvK").unwrap().to_string(), "KBNvK");
        assert!(Men::parse("KBvKN").unwrap().is_stored_as_is());
        assert!(!Men::parse("KNvKB").unwrap().is_stored_as_is());
        assert!(
            Men::parse("KKvK").is_err()
                && Men::parse("RvK").is_err()
                && Men::parse("KXvK").is_err()
        );
        assert_eq!(
            Men::parse("KRBvKR")
                .unwrap()
                .without(Side::White, Piece::Rook)
                .unwrap()
                .to_string(),
            "KBvKR"
        );
    }
}
