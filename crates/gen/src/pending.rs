//! The work word that the plain cores (the reference core and the fifty-move core) keep for a
//! position while it is undecided: a pending bit, a *kind* (what the position's exits already
//! guarantee it) and a count of its moves not yet refuted, each weighted as the retrograde step
//! takes it off.
//!
//! Owns: the layout of a pending word and the one atomic step that takes a refuted move off it.
//! Must never: give a kind a meaning or read a decided word (those are each core's own codes).

use std::sync::atomic::{AtomicU16, Ordering};

/// Set in every pending word, clear in every decided one.
pub(crate) const PENDING: u16 = 0x8000;
const KIND_SHIFT: u16 = 13;
/// The count's bits: the most a pending word counts.
pub(crate) const COUNT_MASK: u16 = 0x1FFF;

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
    /// The word counted fewer moves than were taken off: the table is inconsistent.
    Underflow,
}

/// Takes `weight` refuted moves off the pending word `state`, unless it is decided or its kind
/// is one `immune` names.
pub(crate) fn take(state: &AtomicU16, weight: u16, immune: impl Fn(u16) -> bool) -> Taken {
    let mut old = state.load(Ordering::Relaxed);
    loop {
        if old & PENDING == 0 || immune(kind_of(old)) {
            return Taken::Untouched;
        }
        if old & COUNT_MASK < weight {
            return Taken::Underflow;
        }
        match state.compare_exchange_weak(old, old - weight, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) if old & COUNT_MASK == weight => return Taken::Emptied { kind: kind_of(old) },
            Ok(_) => return Taken::Counted,
            Err(now) => old = now,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_word_is_emptied_by_its_last_move_only() {
        let word = AtomicU16::new(pending(2, 3));
        assert!(matches!(take(&word, 2, |_| false), Taken::Counted));
        assert!(matches!(
            take(&word, 1, |_| false),
            Taken::Emptied { kind: 2 }
        ));
        assert!(matches!(take(&word, 1, |_| false), Taken::Underflow));
    }

    #[test]
    fn decided_and_immune_words_are_untouched() {
        let decided = AtomicU16::new(7);
        assert!(matches!(take(&decided, 1, |_| false), Taken::Untouched));
        let immune = AtomicU16::new(pending(1, 4));
        assert!(matches!(take(&immune, 1, |k| k == 1), Taken::Untouched));
        assert_eq!(immune.load(Ordering::Relaxed), pending(1, 4));
    }
}
