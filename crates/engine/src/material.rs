//! Material signatures: which men each side has, named `KRvK`, `KQvKR`, `KBNvK`, or in Hurd's
//! spelling `KR_K`.
//!
//! Owns: [`Material`], [`MaterialError`].
//! Must never: look at squares.

use retro_rules::{Piece, Side};
use std::fmt;

/// How many men of each kind each side has. Both sides have exactly one king.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Material {
    counts: [[u8; 6]; 2],
}

/// A material name that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown material '{text}': {reason} (write it like KRvK, KQvKR or Hurd's KR_K)")]
pub struct MaterialError {
    /// The text given.
    pub text: String,
    /// What is wrong with it.
    pub reason: String,
}

/// The order in which men of one side are listed: K Q R B N P.
const LISTING: [Piece; 6] = Piece::ALL;

/// The number of a side: White 0, Black 1.
pub fn side_index(side: Side) -> usize {
    match side {
        Side::White => 0,
        Side::Black => 1,
    }
}

/// The number of a kind of man: king 0, queen 1, rook 2, bishop 3, knight 4, pawn 5.
pub fn piece_index(piece: Piece) -> usize {
    match piece {
        Piece::King => 0,
        Piece::Queen => 1,
        Piece::Rook => 2,
        Piece::Bishop => 3,
        Piece::Knight => 4,
        Piece::Pawn => 5,
    }
}

fn value(piece: Piece) -> u32 {
    match piece {
        Piece::King => 0,
        Piece::Queen => 9,
        Piece::Rook => 5,
        Piece::Bishop | Piece::Knight => 3,
        Piece::Pawn => 1,
    }
}

/// Pieces by value, pawn 1 to king 6: the order of shakmaty's `Role` and the kinds of
/// Syzygy's file headers.
pub fn piece_rank(piece: Piece) -> u8 {
    match piece {
        Piece::Pawn => 1,
        Piece::Knight => 2,
        Piece::Bishop => 3,
        Piece::Rook => 4,
        Piece::Queen => 5,
        Piece::King => 6,
    }
}

impl Material {
    /// The material with exactly these men (kings included).
    pub fn from_men(men: &[(Side, Piece)]) -> Material {
        let mut counts = [[0u8; 6]; 2];
        for &(side, piece) in men {
            counts[side_index(side)][piece_index(piece)] += 1;
        }
        Material { counts }
    }

    /// Two bare kings.
    pub fn kings() -> Material {
        Material::from_men(&[(Side::White, Piece::King), (Side::Black, Piece::King)])
    }

    /// Parses `KRvK`, `KR_K`, or `KRK` (the second `K` starts Black's men), in either case.
    pub fn parse(text: &str) -> Result<Material, MaterialError> {
        let fail = |reason: &str| MaterialError {
            text: text.to_string(),
            reason: reason.to_string(),
        };
        let upper = text.trim().to_ascii_uppercase();
        let (white, black) = if let Some((w, b)) = upper.split_once(['V', '_']) {
            (w.to_string(), b.to_string())
        } else {
            let second_king = upper
                .char_indices()
                .skip(1)
                .find(|&(_, c)| c == 'K')
                .map(|(i, _)| i)
                .ok_or_else(|| fail("Black's men must start with a K"))?;
            (
                upper[..second_king].to_string(),
                upper[second_king..].to_string(),
            )
        };
        let mut counts = [[0u8; 6]; 2];
        for (side, letters) in [(Side::White, &white), (Side::Black, &black)] {
            if !letters.starts_with('K') {
                return Err(fail(&format!("{side}'s men must start with its king, K")));
            }
            for c in letters.chars() {
                let piece = Piece::from_letter(c)
                    .filter(|_| c.is_ascii_alphabetic())
                    .ok_or_else(|| fail(&format!("'{c}' is not one of K Q R B N P")))?;
                let count = &mut counts[side_index(side)][piece_index(piece)];
                *count += 1;
                if piece == Piece::King && *count > 1 {
                    return Err(fail(&format!("{side} has more than one king")));
                }
                if *count > 16 {
                    return Err(fail("too many men"));
                }
            }
        }
        Ok(Material { counts })
    }

    /// How many men of `piece` `side` has.
    pub fn count(&self, side: Side, piece: Piece) -> usize {
        usize::from(self.counts[side_index(side)][piece_index(piece)])
    }

    /// The total number of men, kings included.
    pub fn len(&self) -> usize {
        self.counts.iter().flatten().map(|&c| usize::from(c)).sum()
    }

    /// Whether only the two kings are left.
    pub fn is_empty(&self) -> bool {
        self.len() == 2
    }

    /// Whether either side has a pawn.
    pub fn has_pawns(&self) -> bool {
        self.count(Side::White, Piece::Pawn) + self.count(Side::Black, Piece::Pawn) > 0
    }

    /// The men in index order: White's king, Black's king, White's other men (Q R B N P), Black's
    /// other men.
    pub fn men(&self) -> Vec<(Side, Piece)> {
        let mut men = vec![(Side::White, Piece::King), (Side::Black, Piece::King)];
        for side in Side::ALL {
            for piece in &LISTING[1..] {
                for _ in 0..self.count(side, *piece) {
                    men.push((side, *piece));
                }
            }
        }
        men
    }

    /// The same material with the colours exchanged.
    pub fn flipped(&self) -> Material {
        Material {
            counts: [self.counts[1], self.counts[0]],
        }
    }

    fn strength(&self, side: Side) -> (u32, [u8; 5]) {
        let c = self.counts[side_index(side)];
        let total = LISTING
            .iter()
            .map(|&p| value(p) * u32::from(c[piece_index(p)]))
            .sum();
        (total, [c[1], c[2], c[3], c[4], c[5]])
    }

    /// Whether White is the stronger side (or the sides are equally strong), as table names are.
    pub fn is_canonical(&self) -> bool {
        self.strength(Side::White) >= self.strength(Side::Black)
    }

    /// The canonical material of the pair `{self, self.flipped()}`, and whether it is flipped.
    pub fn canonical(&self) -> (Material, bool) {
        if self.is_canonical() {
            (*self, false)
        } else {
            (self.flipped(), true)
        }
    }

    /// The material after `side` loses one `piece`.
    pub fn without(&self, side: Side, piece: Piece) -> Option<Material> {
        let mut m = *self;
        let count = &mut m.counts[side_index(side)][piece_index(piece)];
        if piece == Piece::King || *count == 0 {
            return None;
        }
        *count -= 1;
        Some(m)
    }

    /// The material after `side` gains one `piece`.
    pub fn with(&self, side: Side, piece: Piece) -> Material {
        let mut m = *self;
        m.counts[side_index(side)][piece_index(piece)] += 1;
        m
    }

    /// Hurd's spelling: `KR_K`.
    pub fn hurd_name(&self) -> String {
        format!(
            "{}_{}",
            self.side_name(Side::White),
            self.side_name(Side::Black)
        )
    }

    fn side_name(&self, side: Side) -> String {
        LISTING
            .iter()
            .flat_map(|&p| std::iter::repeat_n(p.letter(), self.count(side, p)))
            .collect()
    }

    /// Every material of at most `max_men` men (kings included), with or without pawns, smallest
    /// first.
    pub fn all_up_to(max_men: usize, pawns: bool) -> Vec<Material> {
        let kinds: &[Piece] = if pawns { &LISTING[1..] } else { &LISTING[1..5] };
        let mut result = vec![Material::kings()];
        let mut frontier = vec![Material::kings()];
        for _ in 2..max_men {
            let mut next = Vec::new();
            for m in &frontier {
                for side in Side::ALL {
                    for &piece in kinds {
                        let bigger = m.with(side, piece);
                        if !next.contains(&bigger) {
                            next.push(bigger);
                        }
                    }
                }
            }
            next.sort_by_key(|m| m.to_string());
            result.extend(next.iter().copied());
            frontier = next;
        }
        result
    }
}

impl fmt::Display for Material {
    /// `KRvK`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}v{}",
            self.side_name(Side::White),
            self.side_name(Side::Black)
        )
    }
}

impl std::str::FromStr for Material {
    type Err = MaterialError;

    fn from_str(text: &str) -> Result<Material, MaterialError> {
        Material::parse(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_and_print() {
        for (text, name, hurd) in [
            ("KRvK", "KRvK", "KR_K"),
            ("KQvKR", "KQvKR", "KQ_KR"),
            ("kbnvk", "KBNvK", "KBN_K"),
            ("KR_K", "KRvK", "KR_K"),
            ("KRK", "KRvK", "KR_K"),
            ("K_KQ", "KvKQ", "K_KQ"),
            ("KNBvK", "KBNvK", "KBN_K"),
            ("KPvKP", "KPvKP", "KP_KP"),
        ] {
            let m = Material::parse(text).unwrap();
            assert_eq!(m.to_string(), name);
            assert_eq!(m.hurd_name(), hurd);
        }
        for bad in ["", "K", "RvK", "KRvR", "KXvK", "KKvK", "KRvKvK", "KR K"] {
            assert!(Material::parse(bad).is_err(), "{bad}");
        }
        assert!(Material::parse("KXvK")
            .unwrap_err()
            .to_string()
            .contains("'X'"));
    }

    #[test]
    fn strong_side_first() {
        let m: Material = "KRvKQ".parse().unwrap();
        assert_eq!(m.canonical(), ("KQvKR".parse().unwrap(), true));
        assert!("KBvKN".parse::<Material>().unwrap().is_canonical());
        assert!(!"KNvKB".parse::<Material>().unwrap().is_canonical());
        assert!("KRvKR".parse::<Material>().unwrap().is_canonical());
    }

    #[test]
    fn enumerations() {
        assert_eq!(Material::all_up_to(2, true).len(), 1);
        assert_eq!(Material::all_up_to(3, true).len(), 1 + 10);
        // Four men: 10 + 10 with both extras on one side, 25 split, plus the smaller ones.
        assert_eq!(Material::all_up_to(4, true).len(), 1 + 10 + 15 + 15 + 25);
        assert_eq!(Material::all_up_to(4, false).len(), 1 + 8 + 10 + 10 + 16);
        assert_eq!(
            "KQRvK".parse::<Material>().unwrap().men(),
            vec![
                (Side::White, Piece::King),
                (Side::Black, Piece::King),
                (Side::White, Piece::Queen),
                (Side::White, Piece::Rook)
            ]
        );
    }
}
