//! Hurd's categories (section 3.2): a list of men with their sides — White's first, king first,
//! then Black's — read from names such as `KR_K` or `KRvK`.
//!
//! Owns: [`Category`].

use retro_rules::{Piece, Side};
use std::fmt;

/// A category: the men on the board, in a fixed order (each man has its own square variables,
/// so identical men are distinguishable, as in Hurd's counts).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Category {
    men: Vec<(Side, Piece)>,
}

impl Category {
    /// The category of these men, put in order.
    pub fn new(mut men: Vec<(Side, Piece)>) -> Category {
        // Piece's order is K, Q, R, B, N.
        men.sort_by_key(|&(side, piece)| (side != Side::White, piece));
        Category { men }
    }

    /// Reads `KR_K`, `KRvK` or `KRK`-less forms: White's men, `_` or `v`, Black's men; each side
    /// has exactly one king and any of Q, R, B, N.
    pub fn parse(text: &str) -> Result<Category, String> {
        let (white, black) = text
            .split_once('_')
            .or_else(|| text.split_once('v'))
            .ok_or_else(|| format!("'{text}' is not a category: write White's men, '_' or 'v', Black's men, e.g. KR_K"))?;
        let mut men = Vec::new();
        for (side, part) in [(Side::White, white), (Side::Black, black)] {
            let mut kings = 0;
            for c in part.chars() {
                let piece = match c {
                    'K' => {
                        kings += 1;
                        Piece::King
                    }
                    'Q' => Piece::Queen,
                    'R' => Piece::Rook,
                    'B' => Piece::Bishop,
                    'N' => Piece::Knight,
                    _ => return Err(format!("'{text}': '{c}' is not one of K, Q, R, B, N (the symbolic engine builds pawnless categories)")),
                };
                men.push((side, piece));
            }
            if kings != 1 {
                return Err(format!("'{text}': each side needs exactly one king"));
            }
        }
        Ok(Category::new(men))
    }

    /// The men, in order.
    pub fn men(&self) -> &[(Side, Piece)] {
        &self.men
    }

    /// The number of men.
    pub fn len(&self) -> usize {
        self.men.len()
    }

    /// Never: a category has two kings.
    pub fn is_empty(&self) -> bool {
        self.men.is_empty()
    }

    /// The index of `side`'s king.
    pub fn king(&self, side: Side) -> usize {
        self.men
            .iter()
            .position(|&m| m == (side, Piece::King))
            .expect("each side has a king")
    }

    /// The category after man `j` is captured, and where each of its men was in `self`.
    pub fn without(&self, j: usize) -> (Category, Vec<usize>) {
        let kept: Vec<usize> = (0..self.len()).filter(|&i| i != j).collect();
        let smaller = Category {
            men: kept.iter().map(|&i| self.men[i]).collect(),
        };
        (smaller, kept)
    }

    /// Every category its captures can reach, itself included, smallest first.
    pub fn closure(&self) -> Vec<Category> {
        let mut all = vec![self.clone()];
        let mut i = 0;
        while i < all.len() {
            let c = all[i].clone();
            for j in 0..c.len() {
                if c.men[j].1 != Piece::King {
                    let (smaller, _) = c.without(j);
                    if !all.contains(&smaller) {
                        all.push(smaller);
                    }
                }
            }
            i += 1;
        }
        all.sort_by_key(|c| (c.len(), c.to_string()));
        all
    }
}

impl fmt::Display for Category {
    /// Hurd's name, e.g. `KR_K`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for side in [Side::White, Side::Black] {
            if side == Side::Black {
                f.write_str("_")?;
            }
            for &(s, p) in &self.men {
                if s == side {
                    write!(f, "{}", p.letter())?;
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_closure() {
        let c = Category::parse("KQvKR").expect("a category");
        assert_eq!(c.to_string(), "KQ_KR");
        assert_eq!(
            Category::parse("KRK").unwrap_err(),
            "'KRK' is not a category: write White's men, '_' or 'v', Black's men, e.g. KR_K"
        );
        assert!(Category::parse("KP_K").is_err());
        assert!(Category::parse("KK_K").is_err());
        let names: Vec<String> = c.closure().iter().map(|c| c.to_string()).collect();
        assert_eq!(names, ["K_K", "KQ_K", "K_KR", "KQ_KR"]);
        let (smaller, kept) = c.without(1);
        assert_eq!(
            (smaller.to_string(), kept),
            ("K_KR".to_string(), vec![0, 2, 3])
        );
    }
}
