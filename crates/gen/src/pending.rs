//! The work word that the plain cores (the reference core and the fifty-move core) keep for a
//! position while it is undecided: a pending bit, a *kind* (what the position's exits already
//! guarantee it) and a count of its moves not yet refuted, each weighted as the retrograde step
//! takes it off — or [`UNCOUNTED`], its moves to be counted when the first is refuted.
//!
//! Owns: the layout of a pending word and the one atomic step that takes a refuted move off it.
//! Must never: give a kind a meaning or read a decided word (those are each core's own codes).

use std::sync::atomic::{AtomicU16, Ordering};

/// Set in every pending word, clear in every decided one.
pub(crate) const PENDING: u16 = 0x8000;
const KIND_SHIFT: u16 = 13;
/// The count's bits.
const COUNT_MASK: u16 = 0x1FFF;
/// The count of a word whose moves are not counted yet: [`take`] counts them when it first
/// takes one off.
pub(crate) const UNCOUNTED: u16 = COUNT_MASK;
/// The most moves a pending word counts.
pub(crate) const MAX_COUNT: u16 = COUNT_MASK - 1;

/// The pending word of `kind` (0–3) with `count` moves open.
pub(crate) fn pending(kind: u16, count: u16) -> u16 {
    PENDING | kind << KIND_SHIFT | count
}

/// The kind of a pending word.
pub(crate) fn kind_of(state: u16) -> u16 {
    (state >> KIND_SHIFT) & 3
}

/// What [`take`] did to a word.
pub(crate) enum Taken {
    /// The word is decided, or of a kind the count does not decide: left as it was.
    Untouched,
    /// Moves are still open.
    Counted,
    /// The last open move was taken off: every move is refuted. The word still holds its
    /// pending form (count zero) for the core to decide.
    Emptied {
        /// The word's kind.
        kind: u16,
    },
    /// The word counted fewer moves than were taken off, or its moves, counted now, are more
    /// than [`MAX_COUNT`] or fewer than were taken off: the table is inconsistent, or beyond
    /// what a word counts.
    Underflow,
}

/// Takes `weight` refuted moves off the pending word `state`, unless it is decided or its kind
/// is one `immune` names. A word whose moves are [`UNCOUNTED`] has them counted first, by
/// `count` (once, whichever thread gets there first storing its count).
pub(crate) fn take(
    state: &AtomicU16,
    weight: u16,
    immune: impl Fn(u16) -> bool,
    count: impl FnOnce() -> u32,
) -> Taken {
    let mut old = state.load(Ordering::Relaxed);
    let mut count = Some(count);
    let mut counted = None;
    loop {
        if old & PENDING == 0 || immune(kind_of(old)) {
            return Taken::Untouched;
        }
        let open = match old & COUNT_MASK {
            UNCOUNTED => match counted {
                Some(open) => open,
                None => {
                    let found = (count.take().expect("counted once"))();
                    match u16::try_from(found) {
                        Ok(open) if open <= MAX_COUNT => *counted.insert(open),
                        _ => return Taken::Underflow,
                    }
                }
            },
            open => open,
        };
        if open < weight {
            return Taken::Underflow;
        }
        let new = (old & !COUNT_MASK) | (open - weight);
        match state.compare_exchange_weak(old, new, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) if open == weight => return Taken::Emptied { kind: kind_of(old) },
            Ok(_) => return Taken::Counted,
            Err(now) => old = now,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn never() -> u32 {
        panic!("a counted word is not counted again")
    }

    #[test]
    fn a_word_is_emptied_by_its_last_move_only() {
        let word = AtomicU16::new(pending(2, 3));
        assert!(matches!(take(&word, 2, |_| false, never), Taken::Counted));
        assert!(matches!(
            take(&word, 1, |_| false, never),
            Taken::Emptied { kind: 2 }
        ));
        assert!(matches!(take(&word, 1, |_| false, never), Taken::Underflow));
    }

    #[test]
    fn decided_and_immune_words_are_untouched() {
        let decided = AtomicU16::new(7);
        assert!(matches!(
            take(&decided, 1, |_| false, never),
            Taken::Untouched
        ));
        let immune = AtomicU16::new(pending(1, UNCOUNTED));
        assert!(matches!(
            take(&immune, 1, |k| k == 1, never),
            Taken::Untouched
        ));
        assert_eq!(immune.load(Ordering::Relaxed), pending(1, UNCOUNTED));
    }

    #[test]
    fn an_uncounted_word_is_counted_once_at_its_first_refuted_move() {
        let word = AtomicU16::new(pending(3, UNCOUNTED));
        assert!(matches!(take(&word, 1, |_| false, || 3), Taken::Counted));
        assert_eq!(word.load(Ordering::Relaxed), pending(3, 2));
        assert!(matches!(
            take(&word, 2, |_| false, never),
            Taken::Emptied { kind: 3 }
        ));
        let single = AtomicU16::new(pending(0, UNCOUNTED));
        assert!(matches!(
            take(&single, 1, |_| false, || 1),
            Taken::Emptied { kind: 0 }
        ));
        let fewer = AtomicU16::new(pending(0, UNCOUNTED));
        assert!(matches!(take(&fewer, 2, |_| false, || 1), Taken::Underflow));
        let too_many = AtomicU16::new(pending(0, UNCOUNTED));
        let many = u32::from(MAX_COUNT) + 1;
        assert!(matches!(
            take(&too_many, 1, |_| false, || many),
            Taken::Underflow
        ));
        assert_eq!(too_many.load(Ordering::Relaxed), pending(0, UNCOUNTED));
    }
}
