//! Which positions a check visits and where their entries are: every canonical placement of
//! a category (king pairs in parallel), every legal position of a placement with its side to
//! move and en-passant target, and the count of entries that hold a value against the count
//! of legal positions (condition (P)).
//!
//! Owns: [`for_each_canonical`], [`for_each_legal`], [`LegalAt`],
//! [`entries_are_the_legal_positions`] and the errors of a missing entry. Must never: judge a
//! value (that is the conditions of `lib.rs`, `fifty.rs` and `lanes.rs`).
use crate::lines::Lines;
use crate::moves::Placement;
use crate::scheme::{self, Scheme};
use crate::{Entry, Failure, Failures, Men, Stored, VerifyError};
use rayon::prelude::*;
use retro_format::{Codes, FormatError, Table};
use retro_rules::{Side, Square};
use std::sync::atomic::{AtomicU64, Ordering};

/// Calls `check` with the square numbers of every canonical placement of `scheme` (king pairs
/// in parallel) and the pair's counts of legal positions by side to move, which it adds to;
/// adds those counts to `legal` and reports progress pair by pair; stops at the first error.
pub(crate) fn for_each_canonical(
    scheme: &Scheme,
    pairs: &[(u32, u32)],
    legal: &[AtomicU64; 2],
    progress: &(dyn Fn(u64) + Sync),
    check: impl Fn(&[u32], &mut [u64; 2]) -> Result<(), VerifyError> + Sync,
) -> Result<(), VerifyError> {
    pairs.par_iter().try_for_each(|&pair| {
        let mut result = Ok(());
        let mut examined = 0;
        let mut legal_here = [0u64; 2];
        scheme.for_each_placement_numbers(pair, |numbers| {
            examined += 1;
            if result.is_ok() && scheme.is_canonical_numbers(numbers) {
                result = check(numbers, &mut legal_here);
            }
        });
        for (total, here) in legal.iter().zip(legal_here) {
            total.fetch_add(here, Ordering::Relaxed);
        }
        progress(examined);
        result
    })
}

/// (P): exactly the legal positions have entries — as many entries of each side to move hold
/// a value (a code other than 0) as the category has legal positions, `legal` by side.
pub(crate) fn entries_are_the_legal_positions(
    men: &Men,
    stored: &Stored,
    legal: [u64; 2],
    failures: &Failures,
) {
    let kind = stored.table.header().kind;
    for (s, side) in Side::ALL.into_iter().enumerate() {
        let codes = stored.table.codes(side == Side::White);
        let entries = (0..stored.scheme.size())
            .into_par_iter()
            .filter(|&i| codes.get(i).is_some_and(|c| c != 0))
            .count() as u64;
        let positions = legal[s];
        if entries != positions {
            failures.record(Failure {
                fen: format!("(the {side}-to-move half of {men})"),
                stored: Entry::from_code(kind, 0).expect("0 is every kind's illegal entry"),
                problem: format!(
                    "{entries} entries hold values but the category has {positions} legal positions (P)"
                ),
            });
        }
    }
}

/// A legal position of a category, as the checker visits it: its placement (with its
/// en-passant target), the side to move and whether its king is in check, the entry holding
/// its value, and the index of its placement without a target (from which its moves' entries
/// are found).
pub(crate) struct LegalAt<'a> {
    pub(crate) placement: Placement<'a>,
    pub(crate) side: Side,
    pub(crate) in_check: bool,
    pub(crate) entry: u64,
    pub(crate) index: u64,
}

/// Calls `visit` with every legal position of the canonical placement `numbers` of `scheme`'s
/// men `listed`: each side to move whose opponent is not in check, without an en-passant
/// target and with every target consistent with a double step that is the least of its orbit
/// and leaves the position legal; counts them by side to move into `legal_here`.
pub(crate) fn for_each_legal<'a>(
    scheme: &Scheme,
    lines: &'a Lines,
    listed: &'a [retro_rules::Man],
    table: &Table,
    numbers: &[u32],
    legal_here: &mut [u64; 2],
    mut visit: impl FnMut(LegalAt<'a>) -> Result<(), VerifyError>,
) -> Result<(), VerifyError> {
    let index = scheme
        .index_of_canonical(numbers)
        .expect("canonical pairs have an index");
    let plain = Placement::new(lines, listed, numbers);
    // Each side's king in check; a side may move only if the other's is not.
    let in_check = Side::ALL.map(|side| plain.in_check(side));
    for (s, side) in Side::ALL.into_iter().enumerate() {
        if in_check[1 - s] {
            continue;
        }
        let mut targets = [None; scheme::MAX_MEN + 1];
        let mut count = 1;
        plain.for_each_en_passant_target(side, |t| {
            targets[count] = Some(t);
            count += 1;
        });
        for &target in &targets[..count] {
            let placement = plain.with_en_passant(target);
            let entry = match target {
                None => index,
                Some(t) => {
                    let squares: Vec<Square> = numbers.iter().map(|&n| scheme.square(n)).collect();
                    if !scheme.is_canonical_target(&squares, scheme.square(t))
                        || !placement.is_legal_with_target(side)
                    {
                        continue;
                    }
                    scheme
                        .index_with_en_passant(&squares, Some(scheme.square(t)), side)
                        .ok_or_else(|| no_entry(table))?
                }
            };
            legal_here[s] += 1;
            visit(LegalAt {
                placement,
                side,
                in_check: in_check[s],
                entry,
                index,
            })?;
        }
    }
    Ok(())
}

/// A table's entries, White to move first.
pub(crate) fn both_sides(table: &Table) -> [Codes<'_>; 2] {
    [table.codes(true), table.codes(false)]
}

/// The error for an index past the end of a table's entries.
pub(crate) fn out_of_range(table: &Table, index: u64) -> VerifyError {
    VerifyError::Format(FormatError::IndexOutOfRange {
        material: table.header().material.clone(),
        index,
        entries: table.header().entries_per_side,
    })
}

pub(crate) fn no_entry(table: &Table) -> VerifyError {
    VerifyError::WrongHeader {
        path: table.path().to_path_buf(),
        expected: "an index entry for every legal position".into(),
        found: "a position without one".into(),
    }
}
