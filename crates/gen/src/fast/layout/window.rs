//! The slots of a pawnless table in which a promoted piece stands on a few squares, numbered
//! densely: what a part of a sliced table reads of the table a promotion leads into.
//!
//! Owns: [`SquareWindow`].
//! Must never: number a slot whose man stands on a square it does not show.
//!
//! A pawn of a slice promotes on the squares ahead of it, but the table it promotes into
//! folds the board by all its symmetries, so in that table's layout the new piece stands on
//! an image of one of those squares: eight squares at most for a part of one pawn on its
//! seventh rank, against 64. The window shows those squares for the part being solved
//! ([`SquareWindow::show`]) and keeps a slot for each slot of the layout with the man on one of
//! them — a tenth of the table, where a rank field cannot serve (ranks are not kept by a
//! pawnless fold). Where the promoted piece has identical companions, the layout sorts them
//! by square, so the piece may stand in any of their fields: the window keeps a block for
//! each field, and a slot whose men stand on shown squares in two fields is numbered by the
//! first.

use super::*;
use std::sync::atomic::{AtomicU8, Ordering};

/// A square not shown.
const HIDDEN: u8 = u8::MAX;

/// The slots of a layout with one of some men on one of the squares shown, numbered densely:
/// for the field of man `m` (stride `s`), `slot = (high · squares + square) · s + low` is
/// numbered `offset(m) + (high · capacity + place(square)) · s + low`.
#[derive(Debug)]
pub struct SquareWindow {
    /// By field kept, the man's stride and the first number of its block.
    fields: Vec<(u64, u64)>,
    /// The men whose fields are kept.
    men: Vec<usize>,
    squares: u64,
    /// The most squares shown at once.
    capacity: u64,
    /// The numbers of one field's block.
    block: u64,
    /// By square, its place among the squares shown, or [`HIDDEN`]; set between the passes
    /// of two parts ([`SquareWindow::show`]), read by many threads during them.
    places: Vec<AtomicU8>,
}

impl SquareWindow {
    /// The window of `layout` over the fields of the men `men` (neither king, no lead man), at
    /// most `capacity` squares shown at once; none shown yet.
    pub fn new(layout: &Layout, men: &[usize], capacity: u64) -> SquareWindow {
        assert!(
            capacity < u64::from(HIDDEN),
            "a window shows fewer squares than a byte numbers"
        );
        let block = layout.size / layout.squares * capacity;
        let fields = men
            .iter()
            .enumerate()
            .map(|(k, &m)| {
                assert!(m > 1 && !layout.lead.contains(&m), "a piece's field");
                (layout.strides[m], k as u64 * block)
            })
            .collect();
        SquareWindow {
            fields,
            men: men.to_vec(),
            squares: layout.squares,
            capacity,
            block,
            places: (0..layout.squares).map(|_| AtomicU8::new(HIDDEN)).collect(),
        }
    }

    /// How many numbers there are.
    pub fn size(&self) -> u64 {
        self.fields.len() as u64 * self.block
    }

    /// Shows the squares of `shown` (a set of squares, bit `sq` for square `sq`) and no
    /// other; the caller makes sure no thread reads the window meanwhile. Returns `false`
    /// (showing nothing) if there are more than the window's capacity.
    pub fn show(&self, shown: u64) -> bool {
        let fits = u64::from(shown.count_ones()) <= self.capacity;
        let mut place = 0u8;
        for (sq, slot) in self.places.iter().enumerate() {
            let kept = fits && shown >> sq & 1 == 1;
            slot.store(if kept { place } else { HIDDEN }, Ordering::Relaxed);
            place += u8::from(kept);
        }
        fits
    }

    /// Whether a man the window keeps is the layout's last (its field has stride 1), so that
    /// the slots of one run (the last man moved) are kept or not one by one.
    pub fn varies_within_runs(&self) -> bool {
        self.fields.iter().any(|&(stride, _)| stride == 1)
    }

    /// Whether the field of stride `stride` is one the window keeps.
    pub fn keeps_stride(&self, stride: u64) -> bool {
        self.fields.iter().any(|&(kept, _)| kept == stride)
    }

    /// For the slots `base + q · stride` (`q` the square of a man the window does not keep,
    /// whose field has stride `stride`; his square in `base` is 0): the number of `base` and
    /// the step between the numbers of two squares, or `None` if `base` is not kept. A man
    /// below the kept field keeps his stride; one above it moves the number by his stride
    /// shrunk as the kept field is, from `squares` to `capacity`.
    pub fn run(&self, base: u64, stride: u64) -> Option<(u64, u64)> {
        let number = self.number(base)?;
        let &(kept, _) = self
            .fields
            .iter()
            .find(|&&(kept, _)| self.shows_in(base, kept))
            .expect("a kept slot shows a square in a field");
        debug_assert!(!self.keeps_stride(stride) || stride == 0);
        let step = match stride < kept {
            true => stride,
            false => stride / self.squares * self.capacity,
        };
        Some((number, step))
    }

    /// Whether the man of the field of stride `stride` stands on a square shown in `slot`.
    #[inline(always)]
    fn shows_in(&self, slot: u64, stride: u64) -> bool {
        self.shows((slot / stride % self.squares) as Sq)
    }

    /// Whether one of the men kept stands on a square shown, the men standing on `squares`
    /// (by man, in the layout's order, folded or not: the squares shown are closed under the
    /// board's symmetries).
    #[inline(always)]
    pub fn shows_any(&self, squares: &[Sq]) -> bool {
        self.men.iter().any(|&m| self.shows(squares[m]))
    }

    /// Whether square `sq` is shown.
    #[inline(always)]
    pub fn shows(&self, sq: Sq) -> bool {
        self.places[usize::from(sq)].load(Ordering::Relaxed) != HIDDEN
    }

    /// The number of `slot`, or `None` if none of the window's men stands on a square shown.
    #[inline(always)]
    pub fn number(&self, slot: u64) -> Option<u64> {
        for &(stride, offset) in &self.fields {
            let above = slot / stride;
            let square = above % self.squares;
            let place = self.places[square as usize].load(Ordering::Relaxed);
            if place != HIDDEN {
                let high = above / self.squares;
                return Some(
                    offset + (high * self.capacity + u64::from(place)) * stride + slot % stride,
                );
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_rules::Board;

    /// Every slot with a kept man on a shown square has a number below the size, no two the
    /// same; every other slot has none; and a run's numbers step as [`SquareWindow::run`]
    /// says, for a lone promoted piece and one with an identical companion.
    #[test]
    fn windows_number_the_slots_they_show_densely() {
        let geo = Geometry::new(Board::new(4, 4).unwrap());
        for (name, men) in [("KQRvK", vec![2]), ("KRRvK", vec![2, 3])] {
            let layout = Layout::new(&geo, Material::parse(name).unwrap()).unwrap();
            let window = SquareWindow::new(&layout, &men, 4);
            // The corners: the images of a4 under the board's symmetries.
            assert!(window.show(1 << 0 | 1 << 3 | 1 << 12 | 1 << 15));
            assert!(!SquareWindow::new(&layout, &men, 3).show(0b1111));
            let mut seen = vec![false; window.size() as usize];
            for slot in 0..layout.size() {
                let squares: Vec<Sq> = (0..layout.men_count())
                    .map(|i| match i {
                        0 => 0,
                        _ => layout.field(slot, i),
                    })
                    .collect();
                let shown = men.iter().any(|&m| window.shows(squares[m]));
                let number = window.number(slot);
                assert_eq!(number.is_some(), shown, "{name} slot {slot}");
                if let Some(number) = number {
                    assert!(!std::mem::replace(&mut seen[number as usize], true));
                }
                // The last man (not kept) moving from square 0.
                let last = layout.men_count() - 1;
                if !men.contains(&last) && squares[last] == 0 {
                    if let Some((base, step)) = window.run(slot, layout.stride(last)) {
                        for q in 0..layout.square_count() {
                            let moved = slot + q * layout.stride(last);
                            assert_eq!(window.number(moved), Some(base + q * step));
                        }
                    }
                }
            }
            assert!(window.show(0));
            assert_eq!(window.number(0), None);
        }
    }
}
