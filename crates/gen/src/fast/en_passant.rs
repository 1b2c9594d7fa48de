//! The values of en-passant positions in the iteration (their numbering is [`super::ep`]).
//!
//! Owns: the work table of the en-passant positions ([`EpCells`]), their first values after
//! the init pass (`Core::init_ep`), keeping them in step with their placements
//! (`Core::follow_ep`), and their un-moves (the double step alone).
//! Must never: un-move an en-passant position by anything but the double step that made it.
//!
//! When both sides have pawns, a double step that an en-passant capture can answer leads to a
//! position of its own, `E` (Article 9.2), with a byte of its own (the slot of its placement
//! without the right, `P`, is another position). `E` has every move of `P` and the en-passant
//! captures besides, and every move of either leads out of both (no right survives a move), so
//! `E`'s value is the better, for the side to move, of `P`'s and the captures' — the captures'
//! alone when `P` has no move (mate or stalemate). The captures are exits, looked up once after
//! the init pass; from then on `E` changes only when `P` is decided, and is set then: a win of
//! `P` in `d` wins `E` in `d` unless a capture wins sooner; a loss of `P` in `d` loses `E`, in
//! the longer of `d` and the longest capture, if every capture loses. Every value so set is at
//! least one ply deeper than the pass that sets it, so the pass of its depth meets it like any
//! other and un-moves it — by the double step alone, to the placement before it. Conversely
//! the un-moves of `P` leave out that double step whenever `E` is a position, and the forward
//! check of a double step reads `E` rather than `P` when it is.

use super::*;

/// The work table of the en-passant positions ([`ep`]): each has the moves of its placement
/// without the right and the en-passant captures besides, so its value is the better of its
/// placement's and the captures' (the captures' alone when the placement has no move). It is
/// set from those whenever the placement is decided, and un-moves only by the double step.
pub(super) struct EpCells {
    pub(super) cells: [Cells; 2],
    pub(super) presence: [Vec<[AtomicU64; 4]>; 2],
    /// For a position whose every en-passant capture loses and whose placement has a move:
    /// the longest of those losses, in plies (it is lost when its placement is, in the longer
    /// of the two).
    pub(super) floor: [Cells; 2],
}

impl<const N: usize> Core<'_, N> {
    /// Whether the un-move of pawn `i` from `from` to `t` in `slot` (side `x` to move, the
    /// pawn's opponent) undoes a double step that an en-passant capture can answer: the
    /// position the double step leads to is then the one with the right.
    #[inline(always)]
    pub(super) fn ep_answers_double_step(&self, slot: u64, i: usize, from: Sq, t: Sq) -> bool {
        let (Some(ep), Some(layout)) = (&self.ep, self.shared.ep_layout) else {
            return false;
        };
        let y = self.side_of(i);
        self.shared.piece[i] == Piece::Pawn
            && self.shared.bits.pawn_double_back(y, from) & (1 << t) != 0
            && layout
                .number(slot, i)
                .is_some_and(|number| ep.cells[1 - y].get(number) != NONE)
    }

    /// Calls `visit` with every parent of en-passant position `number` (side `x` to move): the
    /// slots, side `1 − x` to move, of the placement before the double step, with the square
    /// the pawn stands on after it (see [`Core::for_each_parent`]).
    pub(super) fn for_each_ep_parent(&self, number: u64, x: usize, mut visit: impl FnMut(u64, Sq)) {
        let layout = self
            .shared
            .ep_layout
            .expect("en-passant positions have a numbering");
        let (slot, j) = layout.decode(number, x);
        let Some(p) = self.place(slot) else {
            return;
        };
        let from = p.sq[j];
        let origin = self
            .shared
            .bits
            .pawn_double_back(1 - x, from)
            .trailing_zeros() as Sq;
        let white_king_fixed = self.shared.layout.is_fixed(p.sq[0]);
        self.visit_unmove(slot, &p.sq, j, from, origin, white_king_fixed, &mut visit);
    }

    /// Fills the en-passant positions' cells, after the init pass: a number is a position if
    /// its placement is legal and some en-passant capture is (the capture's look-up is not
    /// `0`); its code is the better of the captures' and, if the placement has a move, the
    /// placement's as far as it is decided.
    pub(super) fn init_ep(&self) {
        let Some(ep) = &self.ep else {
            return;
        };
        for x in 0..2 {
            let size = ep.cells[x].len();
            let chunks = size.div_ceil(CHUNK) as usize;
            (0..chunks).into_par_iter().for_each(|chunk| {
                let first = chunk as u64 * CHUNK;
                let end = (first + CHUNK).min(size);
                let mut present = [0u64; 4];
                let mut local_deepest = 0;
                for number in first..end {
                    let Some((code, floor)) = self.init_ep_position(number, x) else {
                        continue;
                    };
                    ep.cells[x].set(number, code);
                    ep.floor[x].set(number, floor);
                    present[usize::from(code >> 6)] |= 1 << (code & 63);
                    if self.codes.plies(code).is_some() {
                        local_deepest = local_deepest.max(code);
                    }
                }
                for (w, bits) in ep.presence[x][chunk].iter().zip(present) {
                    w.store(bits, Ordering::Relaxed);
                }
                self.deepest
                    .fetch_max(u32::from(local_deepest), Ordering::Relaxed);
            });
        }
    }

    /// The init code and floor of en-passant number `number` (side `x` to move), or `None` if
    /// it is no position.
    pub(super) fn init_ep_position(&self, number: u64, x: usize) -> Option<(u8, u8)> {
        let layout = self.shared.ep_layout?;
        let (slot, j) = layout.decode(number, x);
        let placement = self.cells[x].get(slot);
        if placement == NONE {
            return None;
        }
        let p = self.place(slot)?;
        let y = 1 - x;
        let square = p.sq[j];
        let origin = self.shared.bits.pawn_double_back(y, square);
        if origin == 0 || p.occ & origin != 0 {
            return None;
        }
        let passed = layout.passed(square, origin.trailing_zeros() as Sq);
        if p.occ & (1 << passed) != 0 {
            return None;
        }
        let rule = self.shared.exits.captures[j].expect("pawns are captured");
        // The best capture for side `x`: its shortest win, else a draw, else its longest loss.
        let mut tally = ExitTally::default();
        for &i in &self.shared.side_men[x][..self.shared.side_len[x]] {
            if self.shared.piece[i] != Piece::Pawn
                || self.shared.bits.pawn_attacks(x, p.sq[i]) & (1 << passed) == 0
            {
                continue;
            }
            let mut after = p.sq;
            after[i] = passed;
            tally.add(self.exit_value(&after, rule, x));
        }
        let (code, floor) = match (tally.win, tally.draw, tally.loss) {
            (Some(w), _, _) => (self.code_for(w), 0),
            (None, true, _) => (CANNOT_LOSE, 0),
            (None, false, Some(l)) => {
                self.note_exit_loss(l);
                (UNKNOWN, l)
            }
            // No en-passant capture is legal: the right is no right, and no position.
            (None, false, None) => return None,
        };
        let floor = u8::try_from(floor).expect("a subtable's depths fit a byte");
        // A placement without a move (mate, stalemate) leaves the captures alone to choose from.
        let mated = self.codes.plies(placement) == Some(0);
        let stalemated = placement == UNKNOWN && !self.has_any_move(&p, x);
        if mated || stalemated {
            return Some(match code {
                UNKNOWN => (self.code_for(u32::from(floor)), 0),
                code => (code, 0),
            });
        }
        let code = match self.codes.plies(placement) {
            Some(_) => self.ep_follows(code, floor, placement).unwrap_or(code),
            None => code,
        };
        Some((code, floor))
    }

    /// Whether side `x` has a legal move in `p` (staying in the table or leaving it).
    pub(super) fn has_any_move(&self, p: &Placed<N>, x: usize) -> bool {
        if self.has_quiet_move(p, x) {
            return true;
        }
        let attacks: [Board64; N] = std::array::from_fn(|i| self.man_attacks(i, p.sq[i], p.occ));
        let mut any = false;
        self.for_each_exit(p, &attacks, x, |value| any |= value != Value::Illegal);
        any
    }

    /// The new code of an en-passant position of code `old` and floor `floor` whose placement
    /// (with a move) has just been decided with code `placement`, or `None` if it keeps `old`:
    /// a win of the placement wins it at least as fast; a loss of the placement loses it if
    /// every capture loses too, in the longer of the two.
    #[inline]
    pub(super) fn ep_follows(&self, old: u8, floor: u8, placement: u8) -> Option<u8> {
        let plies = self.codes.plies(placement)?;
        if plies % 2 == 1 {
            match self.codes.plies(old) {
                Some(k) if k % 2 == 1 && k <= plies => None,
                _ => Some(placement),
            }
        } else if old == UNKNOWN {
            let code = self.code_for(plies.max(u32::from(floor)));
            (code != UNKNOWN).then_some(code)
        } else {
            None
        }
    }

    /// Brings the en-passant positions of `slot`'s placement (side `x` to move) up to date
    /// with its new decided code `code`.
    #[inline]
    pub(super) fn follow_ep(&self, x: usize, slot: u64, code: u8) {
        let (Some(ep), Some(layout)) = (&self.ep, self.shared.ep_layout) else {
            return;
        };
        let y = 1 - x;
        for &j in &self.shared.side_men[y][..self.shared.side_len[y]] {
            if self.shared.piece[j] != Piece::Pawn {
                continue;
            }
            let Some(number) = layout.number(slot, j) else {
                continue;
            };
            let old = ep.cells[x].get(number);
            if old == NONE {
                continue;
            }
            if let Some(new) = self.ep_follows(old, ep.floor[x].get(number), code) {
                ep.cells[x].set(number, new);
                let word = &ep.presence[x][(number >> CHUNK_BITS) as usize][usize::from(new >> 6)];
                let bit = 1u64 << (new & 63);
                if word.load(Ordering::Relaxed) & bit == 0 {
                    word.fetch_or(bit, Ordering::Relaxed);
                    self.deepest.fetch_max(u32::from(new), Ordering::Relaxed);
                }
            }
        }
    }
}
