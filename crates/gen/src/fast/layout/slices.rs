//! The slices of a layout whose pawns are all of one side: each placement of the pawns one
//! block of slots, solved on its own after the blocks its pushes lead into.
//!
//! Owns: numbering the slices, their order, the slices a push leads into.
//! Must never: decide which tables are sliced (`Layout::sliced` does).

use super::*;

impl Layout {
    /// How many men's fields make slices: the pawns, when the layout is split by their
    /// squares ([`Layout::sliced`]); `0` otherwise.
    pub fn slices(&self) -> usize {
        self.lead.len()
    }

    /// The slices of a sliced layout in an order in which to solve them, as groups of slice
    /// numbers (a slice is the block of slots `number · block .. number · block + used`, see
    /// [`Layout::slice_span`]): a group holds a placement of the pawns and its mirror image (a
    /// white king's move out of the region turns one into the other), and every group comes
    /// after the groups its pawn pushes lead into. Placements with a pawn on an end rank, two
    /// pawns on one square or identical pawns out of order are left out: no slot of theirs is
    /// used.
    ///
    /// A push keeps every pawn on its file, so the groups fall into chains with the same files
    /// (up to the mirror), which no push leaves: the order takes one chain after another, each
    /// from its most advanced placement down. A slice is then read by later groups only
    /// until its chain is done, and few are kept at once ([`Layout::slices_released`]).
    pub fn slice_groups(&self) -> Vec<Vec<u64>> {
        let count = self.slices_count() as u64;
        let mut groups: Vec<(Vec<Sq>, u32, Vec<u64>)> = Vec::new();
        let mut placed = vec![false; count as usize];
        for number in 0..count {
            if placed[number as usize] {
                continue;
            }
            let pawns = self.slice_squares(number);
            let on_board = pawns.iter().all(|&sq| {
                let rank = sq / self.files;
                rank > 0 && rank + 1 < self.ranks
            });
            // Identical pawns in increasing order of square, none on another's.
            let in_order = pawns.windows(2).all(|w| w[0] < w[1]);
            if !on_board || !in_order {
                continue;
            }
            // Each push moves a white pawn up a rank or a black pawn down one.
            let progress = self
                .lead
                .iter()
                .zip(&pawns)
                .map(|(&i, &sq)| {
                    let rank = u32::from(sq / self.files);
                    match self.men[i].0 {
                        Side::White => rank,
                        Side::Black => u32::from(self.ranks) - 1 - rank,
                    }
                })
                .sum();
            let mut group = vec![number];
            if let Some(mirror) = self.maps.get(1) {
                let mut image: Vec<Sq> = pawns.iter().map(|&sq| mirror[usize::from(sq)]).collect();
                image.sort_unstable();
                let other = self.slice_number(&image);
                if other != number {
                    group.push(other);
                    placed[other as usize] = true;
                }
            }
            let files = |squares: &[Sq]| {
                let mut files: Vec<Sq> = squares.iter().map(|&sq| sq % self.files).collect();
                files.sort_unstable();
                files
            };
            let chain = match self.maps.get(1) {
                Some(mirror) => {
                    let image: Vec<Sq> = pawns.iter().map(|&sq| mirror[usize::from(sq)]).collect();
                    files(&pawns).min(files(&image))
                }
                None => files(&pawns),
            };
            groups.push((chain, progress, group));
        }
        groups.sort_by(|(chain_a, progress_a, a), (chain_b, progress_b, b)| {
            (chain_a, progress_b, a[0]).cmp(&(chain_b, progress_a, b[0]))
        });
        groups.into_iter().map(|(_, _, group)| group).collect()
    }

    /// For each group of [`Layout::slice_groups`] (in that order), the slices that may be
    /// released once it is solved: those of its own and of earlier groups that no later
    /// group's pushes read.
    pub fn slices_released(&self, groups: &[Vec<u64>]) -> Vec<Vec<u64>> {
        let mut last_reader: Vec<usize> = vec![0; self.slices_count()];
        for (p, group) in groups.iter().enumerate() {
            for &number in group {
                last_reader[number as usize] = last_reader[number as usize].max(p);
                for target in self.push_targets(number) {
                    last_reader[target as usize] = last_reader[target as usize].max(p);
                }
            }
        }
        let mut released = vec![Vec::new(); groups.len()];
        for number in groups.iter().flatten() {
            released[last_reader[*number as usize]].push(*number);
        }
        released
    }

    /// The slices that a push of one pawn of slice `number` leads into (a single or double
    /// step that promotes nothing, to a square no other pawn stands on; a man standing in the
    /// way is not looked at). Each comes earlier in [`Layout::slice_groups`].
    pub fn push_targets(&self, number: u64) -> Vec<u64> {
        let pawns = self.slice_squares(number);
        let mut targets = Vec::new();
        for (k, to, promotes) in self.pushes(&pawns) {
            if promotes || pawns.contains(&to) {
                continue;
            }
            let mut moved = pawns.clone();
            moved[k] = to;
            moved.sort_unstable();
            targets.push(self.slice_number(&moved));
        }
        targets
    }

    /// Each push of a pawn standing on `pawns` (the lead men's squares): a step, and two from
    /// its second rank, as the pawn's place among the lead men, the square it goes to and
    /// whether that is its last rank (a push beyond it left out).
    fn pushes(&self, pawns: &[Sq]) -> Vec<(usize, Sq, bool)> {
        let files = Sq::from(self.files);
        let mut pushes = Vec::new();
        for (k, (&i, &sq)) in self.lead.iter().zip(pawns).enumerate() {
            let rank = sq / files;
            // Ranks counted from the pawn's own side: it starts on 1 and promotes on the last.
            let (own_rank, up): (u8, fn(Sq, Sq) -> Sq) = match self.men[i].0 {
                Side::White => (rank, |sq, d| sq + d),
                Side::Black => (self.ranks - 1 - rank, |sq, d| sq - d),
            };
            let steps: &[Sq] = if own_rank == 1 { &[1, 2] } else { &[1] };
            for &step in steps {
                if own_rank + step < self.ranks {
                    let promotes = own_rank + step + 1 == self.ranks;
                    pushes.push((k, up(sq, step * files), promotes));
                }
            }
        }
        pushes
    }

    /// The number of the slice whose lead men (the pawns) stand on `pawns`, in men order
    /// ([`Layout::slice_squares`] undone).
    pub(super) fn slice_number(&self, pawns: &[Sq]) -> u64 {
        pawns
            .iter()
            .fold(0, |n, &sq| n * self.squares + u64::from(sq))
    }

    /// The squares of the lead men (the pawns) of slice `number`, in men order.
    pub(crate) fn slice_squares(&self, mut number: u64) -> Vec<Sq> {
        let mut pawns = vec![0 as Sq; self.lead.len()];
        for sq in pawns.iter_mut().rev() {
            *sq = (number % self.squares) as Sq;
            number /= self.squares;
        }
        pawns
    }

    /// The squares the pawns of slice `number` promote on by a push (bit `sq` for square
    /// `sq`): a step ahead of a pawn on the rank before its last, and two ahead of one on its
    /// second rank where that leads onto the last (a board of four ranks).
    pub fn promotion_squares(&self, number: u64) -> u64 {
        self.pushes(&self.slice_squares(number))
            .into_iter()
            .filter(|&(_, _, promotes)| promotes)
            .fold(0, |squares, (_, to, _)| squares | 1 << to)
    }

    /// The slots of the slices of a sliced layout that are used (those of
    /// [`Layout::slice_groups`]), a side.
    pub fn slices_used(&self) -> u64 {
        self.slice_groups().iter().flatten().count() as u64 * self.block_used
    }

    /// The number of slices of a sliced layout (blocks of [`Layout::slice_span`], used or not).
    pub fn slices_count(&self) -> usize {
        (self.size / self.block) as usize
    }

    /// The slots `first..end` of slice `number` that may be used (the rest of its block, up
    /// to the next multiple of [`SLICE_ALIGN`], never is).
    pub fn slice_span(&self, number: u64) -> (u64, u64) {
        let first = number * self.block;
        (first, first + self.block_used)
    }
}
