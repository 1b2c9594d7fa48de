//! The work codes: what a byte of the work table says about its slot.
//!
//! Owns: the codes and their meaning ([`WorkCodes`]), and the hint words the init pass derives
//! from them ([`HintWords`]).
//! Must never: store or read a cell (the passes do, through [`super::cells`]).
//!
//! One byte per slot ([`super::layout`]) and side to move: `0` not a legal position (men on one
//! square, or the side not to move in check), `1` undecided, `2` undecided but unable to lose (a
//! capture reaches a draw), `3 + s` undecided and *watching* square `s` ([`super::forward`]),
//! `3 + K + n` decided in `n` plies (a win when `n` is odd, a loss when even; `K` watch codes,
//! one per square of the board), `255` a loss candidate during a pass. Where a pass takes its
//! slots a run at a time (no en-passant positions), the `K` codes *count* instead
//! ([`super::counting`]): `3 + c − 1` is a slot with `c` moves (`1 ≤ c < K`) not yet known to
//! reach a win, and `3 + K − 1` one with too many moves to count, checked forward. With
//! `K = 64` a byte holds depths up to 187 plies; deeper, the watch codes are given up in place
//! (`K = 0`, 251 plies; a table whose losses are found by ways out, which neither watch nor
//! count, starts with `K = 0`), and deeper still the shallow depths are folded into two codes,
//! their exact values kept in a snapshot on disk ([`super::recode`], [`super::rebase`]).

use super::*;

pub(super) const NONE: u8 = 0;
pub(super) const UNKNOWN: u8 = 1;
pub(super) const CANNOT_LOSE: u8 = 2;
/// `WATCHING + s`: undecided, and the last check of its moves stopped at a move to square `s`
/// that reaches no win yet.
pub(super) const WATCHING: u8 = 3;
/// An undecided slot whose every move may now reach a win: written by the first half of an
/// odd depth's pass, cleared by the second.
pub(super) const CANDIDATE: u8 = u8::MAX;
/// The deepest value a work byte holds when no codes are spent on watching.
pub const MAX_WORK_PLIES: u32 = (CANDIDATE - 1 - WATCHING) as u32;

/// The work codes of one build: how many watch codes there are, and so where the decided
/// codes begin; the depth the first decided code stands for (`low`, raised by each rebase,
/// [`rebase`]); and when to rebase.
#[derive(Clone, Copy, Debug)]
pub struct WorkCodes {
    /// Watch codes, one per square (`0`: none; a checked candidate then goes back to
    /// `UNKNOWN`, and any new win among its moves makes it a candidate again).
    pub(super) watch_keys: u8,
    /// The depth of the first decided code. Above `0`, the first two decided codes stand for
    /// every loss and every win of at most `low + 1` plies, their exact depths kept in a
    /// snapshot.
    pub(super) low: u32,
    /// With `Some(k)`, a rebase comes once a pass would store more than `low + k` plies, for
    /// tests (`None`: only when the byte is full).
    pub(super) rebase_span: Option<u32>,
}

impl WorkCodes {
    /// Codes with `watch_keys` watch codes and nothing rebased.
    pub(super) fn new(watch_keys: u8, rebase_span: Option<u32>) -> WorkCodes {
        WorkCodes {
            watch_keys,
            low: 0,
            rebase_span,
        }
    }

    /// The code of a decided slot, `plies` from mate (at least `low`).
    #[inline(always)]
    pub(super) fn decided(self, plies: u32) -> u8 {
        debug_assert!(plies >= self.low);
        WATCHING + self.watch_keys + (plies - self.low) as u8
    }

    /// The deepest value a work byte holds.
    pub(super) fn max_plies(self) -> u32 {
        self.low + MAX_WORK_PLIES - u32::from(self.watch_keys)
    }

    /// The deepest value a pass may store before a rebase.
    pub(super) fn rebase_limit(self) -> u32 {
        match self.rebase_span {
            Some(span) => self.max_plies().min(self.low + span),
            None => self.max_plies(),
        }
    }

    /// The depth of a decided code, or `None` for an undecided or illegal slot (a folded code
    /// gives `low` or `low + 1`, the deepest it may stand for).
    #[inline(always)]
    pub(super) fn plies(self, code: u8) -> Option<u32> {
        if code == CANDIDATE {
            return None;
        }
        code.checked_sub(WATCHING + self.watch_keys)
            .map(|n| self.low + u32::from(n))
    }

    /// Whether `code` is one of the two that stand for every shallow loss or win after a
    /// rebase (their depths are in a snapshot).
    #[inline(always)]
    pub fn is_folded(self, code: u8) -> bool {
        self.low > 0 && code != CANDIDATE && code.wrapping_sub(WATCHING + self.watch_keys) < 2
    }

    /// The code of an undecided slot whose first move without a win goes to square `to`.
    #[inline(always)]
    pub(super) fn watching(self, to: Sq) -> u8 {
        if self.watch_keys == 0 {
            UNKNOWN
        } else {
            WATCHING + to
        }
    }

    /// The map from these codes to `new` ones without a rebase between: each decided code to
    /// the same depth, each watch code to `UNKNOWN` (`new` may watch other squares, or none),
    /// the rest unchanged. A decided code deeper than `new` holds is left as it is: the
    /// caller has made sure that no cell holds one.
    pub(super) fn recode(self, new: WorkCodes) -> [u8; 256] {
        std::array::from_fn(|c| {
            let c = c as u8;
            match self.plies(c) {
                Some(plies) if plies <= new.max_plies() => new.decided(plies),
                Some(_) => c,
                None if c >= WATCHING && c != CANDIDATE => UNKNOWN,
                None => c,
            }
        })
    }

    /// The stored entry code of a work code that is not folded: `0` none, `1` draw,
    /// `2 + plies` decided.
    #[inline]
    pub fn stored(self, work: u8) -> u16 {
        match (work, self.plies(work)) {
            (NONE, _) => 0,
            (_, None) => 1,
            (_, Some(plies)) => plies as u16 + 2,
        }
    }
}
/// The depths whose losses [`Core`] counts.
pub(super) const LOSS_DEPTHS: usize = 1024;

/// The init pass's hint words from its codes, 64 slots at a time and eight bytes to an
/// operation: by slot, whether it may win ([`Core::may_win`]: legal, and undecided or won),
/// may lose ([`Core::may_lose`]: undecided and able to lose) and is legal, each a bit.
#[derive(Clone, Copy)]
pub(super) struct HintWords {
    /// The first decided code: the codes below it are undecided, and so is `CANDIDATE` above.
    pub(super) first_decided: u8,
    /// The low bit of a decided code whose depth is even (a loss).
    pub(super) loss_parity: u8,
}

impl HintWords {
    pub(super) fn new(codes: WorkCodes) -> HintWords {
        let first_decided = codes.decided(codes.low);
        HintWords {
            first_decided,
            loss_parity: ((u32::from(first_decided) + codes.low) & 1) as u8,
        }
    }

    /// The words may win, may lose and legal of up to 64 codes, code `b` in bit `b` (bits
    /// past the end clear).
    #[inline]
    pub(super) fn of(self, codes: &[u8]) -> [u64; 3] {
        let mut padded = [NONE; 64];
        padded[..codes.len()].copy_from_slice(codes);
        let mut words = [0u64; 3];
        for (k, eight) in padded.chunks_exact(8).enumerate() {
            let w = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
            let legal = byte_nonzero(w);
            let undecided = byte_below(w, self.first_decided) | byte_equal(w, CANDIDATE);
            // A decided code's depth is odd (a win) where its low bit differs from a loss's.
            let won = ((w ^ (u64::from(self.loss_parity) * BYTE_ONES)) & BYTE_ONES) << 7;
            let win = legal & (undecided | won);
            let lose = legal & undecided & !byte_equal(w, CANNOT_LOSE);
            for (word, high) in words.iter_mut().zip([win, lose, legal]) {
                *word |= u64::from(pack_high_bits(high)) << (8 * k);
            }
        }
        words
    }
}
