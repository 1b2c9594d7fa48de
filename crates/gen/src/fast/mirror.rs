//! Materials whose two sides have the same men (KQRvKQR, KRvKR): the passes of Black to move
//! as the mirror image of White's.
//!
//! Owns: the men exchanged by a change of colours ([`colour_swap`]), the slot of a position
//! with colours exchanged (`Core::swapped_slot`), and the step that writes into White's table
//! the mirror image of what a pass stored in Black's (`Core::mirror_stores`).
//! Must never: find a value itself (it copies what White's half found); run where a pass
//! stores anything it does not follow (it runs only where losses are found by ways out,
//! without pawns, slices or en passant).
//!
//! # Why it is sound
//!
//! Exchange the colours of a position (each man goes to the other side, the board turned
//! upside down, the other side to move): the result is a position of the same material whose
//! value is the same. So when the sides have the same men, each side's table is the other's
//! with colours exchanged, and so is every set the passes keep, as long as the passes treat
//! both sides alike: the init pass does, and so does the pass of a depth, which takes White's
//! slots of that depth, then Black's. White's half reads White's slots of the depth and
//! Black's parents, and writes only Black's table (and White's hints of the slots it met);
//! Black's half reads what White's half does not write and writes White's table. So Black's
//! half stores, in White's table, exactly the images of what White's half stored in Black's.
//!
//! The mirror step stores them: every slot of Black's table holding the value of the next
//! depth whose image in White's does not — the wins and losses White's half found — and the
//! others White's half left ([`Core::log_for_mirror`]: a loss that its exits make deeper,
//! a stalemate taken out of the hints). Black's half itself only takes its slots of the depth
//! out of Black's hints, as a pass does when it meets them (`Core::mirrored_half`). A
//! stored value costs a decode and a fold rather than the un-moves of a pass, and the
//! tests compare the files with the reference core's and with the core's without mirroring,
//! byte for byte.

use super::*;

/// By man of `men` (kings first, then White's men, then Black's, as `Material::men` orders
/// them), the man of the other side of the same kind — where each side has the same men, and
/// no pawn (whose moves the change of colours keeps, but whose en-passant positions the core
/// numbers by side).
pub(super) fn colour_swap(men: &[(Side, Piece)]) -> Option<[usize; MAX_MEN]> {
    let of = |side: Side| -> Vec<usize> { (0..men.len()).filter(|&i| men[i].0 == side).collect() };
    let (white, black) = (of(Side::White), of(Side::Black));
    let same = white.len() == black.len()
        && white
            .iter()
            .zip(&black)
            .all(|(&w, &b)| men[w].1 == men[b].1)
        && men.iter().all(|&(_, piece)| piece != Piece::Pawn);
    if !same || men.len() > MAX_MEN {
        return None;
    }
    let mut swap = [0; MAX_MEN];
    for (&w, &b) in white.iter().zip(&black) {
        swap[w] = b;
        swap[b] = w;
    }
    Some(swap)
}

impl<const N: usize> Core<'_, N> {
    /// The slot of the position of `slot` with colours exchanged (each man given to the other
    /// side and the ranks mirrored; the other side to move), folded.
    #[inline]
    pub(super) fn swapped_slot(&self, slot: u64) -> u64 {
        let swap = self
            .shared
            .colour_swap
            .as_ref()
            .expect("slots are swapped only where the sides have the same men");
        let sq: [Sq; N] = self.shared.layout.decode_array(slot);
        let mut swapped = [0 as Sq; N];
        for (i, square) in swapped.iter_mut().enumerate() {
            *square = self.shared.mirror_rank[usize::from(sq[swap[i]])];
        }
        self.shared.layout.fold(&mut swapped);
        self.shared.layout.slot(&swapped)
    }

    /// Where Black's passes are mirrored: notes that White's half of the pass left Black's
    /// `slot` other than a value of the next depth, for the mirror step.
    pub(super) fn log_for_mirror(&self, slot: u64) {
        if self.mirrored {
            self.mirror_log
                .lock()
                .expect("no panics while locked")
                .push(slot);
        }
    }

    /// Whether the half of a pass that takes side `x`'s slots is the mirror step's
    /// (Black's, where mirrored): it meets its slots, taking them out of the hints as a pass
    /// does, but leaves their parents to [`Core::mirror_stores`].
    #[inline]
    pub(super) fn mirrored_half(&self, x: usize) -> bool {
        self.mirrored && x == 1
    }

    /// After the pass of `depth`: stores in White's table the image of every value White's half
    /// stored in Black's — Black's slots of the next depth whose images do not hold it yet, and
    /// those [`Core::log_for_mirror`] noted — counting the losses as the half counted Black's.
    pub(super) fn mirror_stores(&self, depth: u32, part: &[usize]) {
        let (white, black) = (0, 1);
        if depth < self.codes.max_plies() {
            let code = self.codes.decided(depth + 1);
            for_each_chunk_of_code(
                &self.cells[black],
                &self.presence[black],
                Some(part),
                code,
                |first, end| {
                    let mut stored = 0;
                    self.cells[black].for_each_equal(first, end, code, |slot| {
                        let image = self.swapped_slot(slot);
                        if self.cells[white].get(image) != code {
                            self.decide(white, image, code);
                            stored += 1;
                        }
                    });
                    self.count_losses(white, code, stored);
                    0
                },
            );
        }
        let logged = std::mem::take(&mut *self.mirror_log.lock().expect("no panics while locked"));
        logged.into_par_iter().for_each(|slot| {
            let image = self.swapped_slot(slot);
            match self.cells[black].get(slot) {
                CANDIDATE => {
                    self.cells[white].set(image, CANDIDATE);
                    self.mark_present(white, image, CANDIDATE);
                }
                UNKNOWN => self.settle(white, image),
                code if self.cells[white].get(image) != code => {
                    self.decide(white, image, code);
                    self.count_losses(white, code, 1);
                }
                _ => {}
            }
        });
    }
}
