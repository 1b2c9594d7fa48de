//! Pawn slices: tables whose pawns are all of one side, solved a placement of the pawns at a
//! time.
//!
//! Owns: the parts a table is solved in ([`Plan`]), and the pushes, which are exits
//! into parts solved before (`Core::for_each_push_exit`, `Core::run_pushes`).
//! Must never: read a part not yet solved.
//!
//! Pawns move within the table by pushes (one step, or two from the second rank) and un-move
//! by un-pushes; a push or capture onto the last rank is a promotion, an exit. With pawns only
//! the left–right mirror keeps the moves, so the layout folds the white king onto files a–d.
//!
//! When all pawns are of one side and the last man is not a pawn, the layout puts the pawns'
//! fields outermost ([`Layout::slice_groups`]): each placement of the pawns is a block of
//! slots, a *slice*. A push cannot be undone, and every other move within the table keeps the
//! pawns where they stand, except that a white king move out of the region mirrors the whole
//! position, pawns too. So the table is solved a part at a time — a placement and its mirror
//! image — after every part its pushes lead into, each part from depth 0, over its own chunks,
//! with its own counts of losses and open slots. Within a part the pawns have no moves and no
//! un-moves; a push is an exit, looked up in the work table itself, whose parts solved before
//! are final (an undecided slot there is a draw). Its value enters the init pass and the
//! forward checks like a capture's: a push into a loss in `k` wins in `k + 1` at once, one
//! into a win in any depth counts as a move that loses. Its slot moves with the last man's
//! square alone, so the init pass finds a run's pushes once (`Core::run_pushes`) and weighs
//! each on the squares where the last man does not stop it, as it weighs the run's exits. The
//! slots a part's passes read stay within it (some 34 MB for a five-man table on 8×8, both
//! sides), and the slices of pawns on an end rank are never touched.
//!
//! So a part is all a sliced build holds in memory. Its work table lives in scratch files
//! (unnamed files in the tables directory, [`super::words`]), each part's slices reserved on
//! disk when it starts, and after each part its pages, its hints and the pages of the larger
//! smaller tables are handed back to the kernel; a later part's pushes read the slices they
//! reach back from the file. A solved part's entries go to the store of parts, in the order of
//! the stored index (`super::part_store`), and the slices no later part reads are released,
//! memory and disk ([`Layout::slices_released`]): as a push keeps each pawn on its file, parts
//! are solved a chain of files at a time, and a table with one pawn keeps three parts' slices
//! at most. The pawnless tables the pawns
//! promote into are read through windows ([`super::layout::SquareWindow`]): at the start of
//! each part the window shows the images, under the board's symmetries, of the squares its
//! pawns promote on, and holds the slots with the promoted piece on them, read from the
//! stored file (eight squares of 64 for a pawn on its seventh rank; nothing for a part that
//! does not promote). KRPvKR on 8×8 peaks at some 220 MiB rather than 1.6 GiB.
//!
//! Rebasing is declined here (a later part still reads the exact depths of earlier ones). The
//! watch codes are given up a part at a time: each part starts with them, and the parts solved
//! so far share one encoding, which pushes read (`Core::finished`). A part whose pushes lead
//! into a part as deep as they allow ([`Layout::push_targets`]) starts without them, and one
//! whose exits may force a loss deeper gives them up after its init pass. The first part to go
//! deeper than they allow — in its init pass (its captures lie too deep; the pass is made
//! again) or in a later pass — gives them up for the whole table, as a table solved whole
//! does; every part after it gives them up for its own chunks alone, when it must or at its
//! end. With pawns of both sides (en passant) or a pawn as the last man, the table is solved
//! whole.

use super::*;

/// The parts a table is solved in, as lists of chunks: the whole table, or its slices (a
/// placement of the pawns with its mirror image), each after those its pushes lead into.
pub(super) struct Plan {
    /// By part, its chunks.
    pub(super) parts: Vec<Vec<usize>>,
    /// Sliced: by part, the numbers of its slices.
    pub(super) groups: Vec<Vec<u64>>,
    /// By chunk, the end of its slots that may be used (a chunk may hold the end of a slice
    /// and the start of another, of another part).
    pub(super) chunk_end: Vec<u64>,
}

impl Plan {
    /// The parts of `layout`'s table: its slices when `sliced`, else the whole.
    pub(super) fn of(layout: &Layout, sliced: bool) -> Plan {
        let size = layout.size();
        let chunks = size.div_ceil(CHUNK) as usize;
        let mut chunk_end: Vec<u64> = (0..chunks as u64)
            .map(|c| ((c + 1) * CHUNK).min(size))
            .collect();
        if !sliced {
            return Plan {
                parts: vec![(0..chunks).collect()],
                groups: Vec::new(),
                chunk_end,
            };
        }
        let groups = layout.slice_groups();
        let parts = groups
            .iter()
            .map(|group| {
                group
                    .iter()
                    .flat_map(|&number| {
                        let (first, end) = layout.slice_span(number);
                        let chunks = (first / CHUNK) as usize..end.div_ceil(CHUNK) as usize;
                        for c in chunks.clone() {
                            chunk_end[c] = chunk_end[c].min(end);
                        }
                        chunks
                    })
                    .collect()
            })
            .collect();
        Plan {
            parts,
            groups,
            chunk_end,
        }
    }

    /// The chunks of all parts.
    pub(super) fn chunks(&self) -> usize {
        self.parts.iter().map(Vec::len).sum()
    }

    /// The squares the pawns of part `p` promote on by a push (bit `sq` for square `sq`).
    pub(super) fn promotion_squares(&self, p: usize, layout: &Layout) -> u64 {
        self.groups[p].iter().fold(0, |squares, &number| {
            squares | layout.promotion_squares(number)
        })
    }

    /// The deepest pass made by a part that part `p`'s pushes lead into, `slice_depths`
    /// giving each slice's (`0` before it is solved).
    pub(super) fn pushes_depth(&self, p: usize, layout: &Layout, slice_depths: &[u32]) -> u32 {
        self.groups[p]
            .iter()
            .flat_map(|&number| layout.push_targets(number))
            .map(|target| slice_depths[target as usize])
            .max()
            .unwrap_or(0)
    }
}

/// The images of the squares of `squares` (bit `sq` for square `sq`) under the symmetries
/// of `geo`'s board: where a piece promoted on one of them may stand in a pawnless table.
pub(super) fn square_images(geo: &Geometry, squares: u64) -> u64 {
    let mut images = 0u64;
    for sq in (0..64).filter(|&sq| squares >> sq & 1 == 1) {
        for symmetry in geo.symmetries() {
            images |= 1 << symmetry.apply(sq as Sq);
        }
    }
    images
}

/// The most squares a window over a pawnless table a promotion of `material`'s sliced table
/// leads into shows at once ([`super::convert::window_subtable`]): the images of the squares
/// one part's pawns promote on; `0` if the table is not sliced.
pub fn window_capacity(geo: &Geometry, material: Material) -> u64 {
    let Some(layout) = Layout::sliced(geo, material) else {
        return 0;
    };
    let plan = Plan::of(&layout, true);
    (0..plan.parts.len())
        .map(|p| u64::from(square_images(geo, plan.promotion_squares(p, &layout)).count_ones()))
        .max()
        .unwrap_or(0)
}

/// A push of a pawn in a run of a sliced layout: a move when the last man is off `path` (the
/// squares it passes and moves to), into the slot `base + s` (the other side to move) when the
/// last man stands on `s`.
pub(super) struct RunPush {
    pub(super) side: usize,
    pub(super) path: Board64,
    pub(super) base: u64,
}

impl<const N: usize> Core<'_, N> {
    /// Calls `visit` with the value (for the side to move after it) of each push of pawn `i`
    /// of side `x` in `p` to the squares of `pushes` (none promoting), in a sliced layout: the
    /// child lies in a slice solved before, whose undecided slots are draws.
    #[inline]
    pub(super) fn for_each_push_exit(
        &self,
        p: &Placed<N>,
        i: usize,
        mut pushes: Board64,
        x: usize,
        visit: &mut impl FnMut(Value),
    ) {
        while pushes != 0 {
            let t = pushes.trailing_zeros() as Sq;
            pushes &= pushes - 1;
            let (child, _) = self.moved_unfolded(p.slot, &p.sq, i, t);
            visit(self.push_value(x, child));
        }
    }

    /// The value, for the side to move after it, of a push of side `x` into `child`, a slot of
    /// a slice solved before (an undecided slot there is a draw).
    #[inline(always)]
    pub(super) fn push_value(&self, x: usize, child: u64) -> Value {
        // Read as a stored entry: nothing is folded, as sliced tables never rebase.
        let code = self.finished.stored(self.cells[1 - x].get(child));
        Value::from_code(u32::from(code))
    }

    /// Adds to `pushes` the pushes of the pawns of a run starting at `run_start` (the men but
    /// the last on `sq`, occupying `occ`) in a sliced layout, none promoting: a pawn is never
    /// the last man there, so each push's slot moves with the last man's square alone.
    pub(super) fn run_pushes(
        &self,
        run_start: u64,
        sq: &[Sq; N],
        occ: Board64,
        pushes: &mut Vec<RunPush>,
    ) {
        for x in 0..2 {
            for &i in &self.shared.side_men[x][..self.shared.side_len[x]] {
                if self.shared.piece[i] != Piece::Pawn {
                    continue;
                }
                debug_assert!(i != N - 1, "a sliced layout's last man is no pawn");
                let mut targets = self.shared.bits.pawn_pushes(x, sq[i], occ);
                if targets & self.shared.bits.last_rank(x) != 0 {
                    // Promotions, and pawns that may promote, are left to the full look-up.
                    continue;
                }
                while targets != 0 {
                    let t = targets.trailing_zeros() as Sq;
                    targets &= targets - 1;
                    pushes.push(RunPush {
                        side: x,
                        path: self.shared.bits.between(sq[i], t) | 1 << t,
                        base: self.moved_unfolded(run_start, sq, i, t).0,
                    });
                }
            }
        }
    }
}
