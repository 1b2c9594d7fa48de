//! The numbering of en-passant positions in the fast core.
//!
//! Owns: [`EpLayout`] — a number for every position whose last move was a double step (the
//! pawn that made it named), derived from the slot of the same placement without the right.
//! Must never: decide a value or say which numbers are positions (`super` does both).
//!
//! # Numbers
//!
//! A position with an en-passant right (Article 9.2: a position of its own) has side `x` to
//! move and a pawn `j` of the other side standing where its double step ended. Its placement
//! is a slot of [`Layout`], in which pawn `j`'s field is a square of that rank; the number
//! replaces that field by the square's file:
//!
//! `number = first(j) + (high · files + file) · stride(j) + low`, where
//! `slot = (high · squares + square) · stride(j) + low`,
//!
//! one block of `slots / ranks` numbers per pawn of the side not to move, the blocks of side
//! `x`'s positions numbered from 0. Most numbers are no position (no pawn of `x` beside pawn
//! `j`, or a capture that is not legal); their cells stay `0`, and they cost a byte per
//! `ranks` slots and pawn.

use super::layout::{Layout, RankField, MAX_MEN};
use retro_engine::{Geometry, Sq};
use retro_rules::{Piece, Side};

/// The en-passant numbering of one material: by side to move, one block per pawn of the other
/// side.
#[derive(Debug, Clone)]
pub struct EpLayout {
    files: u64,
    /// By side to move: the other side's pawns (man numbers), each with its block's first
    /// number.
    blocks: [Vec<(usize, u64)>; 2],
    sizes: [u64; 2],
    /// By man (pawns only): its block's first number and its numbering within the block.
    fields: [Option<(u64, RankField)>; MAX_MEN],
}

impl EpLayout {
    /// The numbering for `layout`'s men on `geo`'s board, or `None` unless both sides have
    /// pawns (a double step can then never be answered en passant).
    pub fn new(geo: &Geometry, layout: &Layout, men: &[(Side, Piece)]) -> Option<EpLayout> {
        let has = |side: Side| men.contains(&(side, Piece::Pawn));
        if !has(Side::White) || !has(Side::Black) {
            return None;
        }
        let mut blocks: [Vec<(usize, u64)>; 2] = [Vec::new(), Vec::new()];
        let mut sizes = [0u64; 2];
        let mut fields = [None; MAX_MEN];
        for (j, &(side, piece)) in men.iter().enumerate() {
            if piece != Piece::Pawn {
                continue;
            }
            let x = retro_engine::material::side_index(retro_rules::opponent(side));
            // The rank a double step of this pawn ends on (none on boards too short for one).
            let landing = match side {
                Side::White => geo.second_rank(side) + 2,
                Side::Black => geo.second_rank(side).wrapping_sub(2),
            };
            let field = RankField::new(layout, geo.files(), j, landing);
            blocks[x].push((j, sizes[x]));
            fields[j] = Some((sizes[x], field));
            sizes[x] += field.size(layout.size());
        }
        Some(EpLayout {
            files: u64::from(geo.files()),
            blocks,
            sizes,
            fields,
        })
    }

    /// The numbers of side `x`'s en-passant positions.
    pub fn size(&self, x: usize) -> u64 {
        self.sizes[x]
    }

    /// The number, among the positions of pawn `j`'s opponent to move, of the position with
    /// `slot`'s placement whose pawn `j` has just double-stepped, or `None` if pawn `j` does not
    /// stand on the rank a double step ends on.
    #[inline]
    pub fn number(&self, slot: u64, j: usize) -> Option<u64> {
        let (first, field) = self.fields[j].as_ref().expect("a pawn");
        field.number(slot).map(|n| first + n)
    }

    /// The placement slot and the pawn of side `x`'s en-passant number `number`.
    #[inline]
    pub fn decode(&self, number: u64, x: usize) -> (u64, usize) {
        let &(j, first) = self.blocks[x]
            .iter()
            .rev()
            .find(|&&(_, first)| first <= number)
            .expect("a number within the blocks");
        let (_, field) = self.fields[j].as_ref().expect("a pawn");
        (field.slot(number - first), j)
    }

    /// The square pawn `j` passed over on its double step, given where it stands.
    #[inline]
    pub fn passed(&self, square: Sq, origin: Sq) -> Sq {
        debug_assert_eq!(u64::from(square.abs_diff(origin)), 2 * self.files);
        (square + origin) / 2
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_rules::Board;

    #[test]
    fn numbers_decode_to_their_slots() {
        for (files, ranks, material) in [(8, 8, "KPPvKP"), (5, 6, "KPvKP"), (4, 5, "KRPvKP")] {
            let geo = Geometry::new(Board::new(files, ranks).unwrap());
            let material: retro_engine::Material = material.parse().unwrap();
            let layout = Layout::new(&geo, material).unwrap();
            let ep = EpLayout::new(&geo, &layout, &material.men()).unwrap();
            let mut seen = [0u64; 2];
            for slot in (0..layout.size()).step_by(13) {
                for (j, &(side, piece)) in material.men().iter().enumerate() {
                    if piece != Piece::Pawn {
                        continue;
                    }
                    let x = 1 - retro_engine::material::side_index(side);
                    let landing = match side {
                        Side::White => geo.second_rank(side) + 2,
                        Side::Black => geo.second_rank(side) - 2,
                    };
                    let on_landing_rank = layout.field(slot, j) / geo.files() == landing;
                    match ep.number(slot, j) {
                        Some(n) => {
                            assert!(on_landing_rank);
                            assert!(n < ep.size(x));
                            assert_eq!(ep.decode(n, x), (slot, j));
                            seen[x] += 1;
                        }
                        None => assert!(!on_landing_rank),
                    }
                }
            }
            assert!(seen[0] > 0 && seen[1] > 0, "{material} on {files}×{ranks}");
        }
    }
}
