//! The two work layouts an analysis may be solved in, and the codes each keeps.
//!
//! Owns: [`WorkLayout`] (wide, narrow, or chosen by size) and the codes of both sides in the
//! chosen layout, read back as wide codes (`Analysis::code`).
//! Must never: solve (the wide phases are in `wide`, the narrow ones in `narrow`).
//!
//! The wide layout ([`WorkLayout::Wide`]) keeps a `u16` code, a counter of the moves not yet
//! won and a byte of exit flags per entry and side, and lists the decided entries by depth: a
//! lost candidate is found when its counter reaches zero. The narrow layout
//! ([`WorkLayout::Narrow`], the `narrow` module) keeps one byte per entry and side and nothing
//! else, scans for each depth and checks a candidate's moves forward; it is for spaces the
//! wide layout cannot hold (beyond about 400 million entries per side with
//! [`WorkLayout::Auto`]): 2 bytes per entry, both sides to move together.

use super::*;

/// How the work is laid out in memory while solving.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WorkLayout {
    /// [`WorkLayout::Wide`] while both sides' wide work fits in [`WIDE_LIMIT`] bytes, else
    /// [`WorkLayout::Narrow`].
    #[default]
    Auto,
    /// Two bytes of value, a move counter and a byte of exit flags per entry and side, and
    /// every decided entry listed by depth (about 4 bytes per entry and side, and 8 more per
    /// decided one): the quickest.
    Wide,
    /// One byte per entry and side and nothing else (the `narrow` module's docs): for index
    /// spaces beyond 2³² entries, at depths of at most [`NARROW_MAX_PLIES`] plies.
    Narrow,
}

/// The most bytes [`WorkLayout::Auto`] gives the wide layout (its codes, counters and flags, and
/// the depth lists at one decided entry in two): 6 GiB.
pub const WIDE_LIMIT: u64 = 6 << 30;

impl WorkLayout {
    /// The layout used for `entries` entries per side to move.
    pub fn resolve(self, entries: u64) -> WorkLayout {
        match self {
            WorkLayout::Auto if entries.saturating_mul(2 * 8) <= WIDE_LIMIT => WorkLayout::Wide,
            WorkLayout::Auto => WorkLayout::Narrow,
            chosen => chosen,
        }
    }

    /// Working bytes per entry and side to move, before any listed entry.
    pub fn bytes_per_entry(self) -> u64 {
        match self {
            WorkLayout::Narrow => 1,
            _ => 4,
        }
    }

    /// `auto`, `wide` or `narrow`.
    pub fn name(self) -> &'static str {
        match self {
            WorkLayout::Auto => "auto",
            WorkLayout::Wide => "wide",
            WorkLayout::Narrow => "narrow",
        }
    }
}

/// Both sides' work codes in one layout: the wide `u16` codes, or the narrow bytes
/// ([`narrow`]), which read back as wide codes.
pub(super) enum Codes {
    Wide([Vec<AtomicU16>; 2]),
    Narrow([Vec<AtomicU8>; 2]),
}

/// Saved codes of both sides, in the layout they were solved in.
pub(crate) enum SavedCodes {
    Wide([Vec<u16>; 2]),
    Narrow([Vec<u8>; 2]),
}

impl Analysis<'_> {
    pub(super) fn code(&self, entry: u64) -> u16 {
        self.code_at((entry & 1) as usize, (entry >> 1) as usize)
    }

    /// The wide code of entry `i` with side `x` to move, in either layout.
    pub(super) fn code_at(&self, x: usize, i: usize) -> u16 {
        match &self.codes {
            Codes::Wide(c) => c[x][i].load(Ordering::Relaxed),
            Codes::Narrow(c) => narrow::widen(c[x][i].load(Ordering::Relaxed)),
        }
    }
}
