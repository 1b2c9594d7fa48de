//! Depths beyond a byte: snapshots of the work table taken when its decided codes are rebased.
//!
//! Owns: [`Snapshots`] — writing the work tables to a scratch file before a rebase, reading
//! them back when the table is written ([`Resolver`]), and deleting the files.
//! Must never: decide a value; it keeps the exact depths that a rebase folds away, nothing
//! else.
//!
//! # Why it is sound
//!
//! The pass of depth `d` reads, of a decided slot, only whether it is decided, whether it is a
//! win or a loss, and — for the slots of depth `d` themselves and for the values stored ahead
//! of their depth (wins by capture) — the exact depth: a candidate for a loss at `d + 1` is lost
//! when every move reaches a win of at most `d` plies, and one of them, the one that made it a
//! candidate, reaches a win of exactly `d`. So once the pass of depth `d` begins, every slot
//! decided in fewer than `d − 1` plies may share one code with every other of its parity. A
//! rebase at depth `d` picks the even `low ≤ d − 2`, writes the work tables as they stand to a
//! snapshot, and gives every decided slot of fewer than `low + 2` plies the code of `low`
//! plies (losses) or `low + 1` (wins), and every deeper one its depth's code counted from
//! `low`. When the table is written, a slot holding one of those two folded codes takes its
//! value from the snapshot, which may in turn send it to an earlier snapshot.
//!
//! # Dense and sparse snapshots
//!
//! The first snapshot keeps every byte. A later one need keep only the slots its rebase folds
//! that the earlier ones do not hold: those decided, when it is taken, in `old_low + 2` to
//! `low + 1` plies. Any other slot it folds already holds a folded code, and it goes on to the
//! earlier snapshot with that code's parity. Where those slots are few (KRNvKNN's second
//! rebase, at 499 plies, folds about 1 % of its slots that way), the snapshot is *sparse*: by
//! blocks of 65,536 slots (`BLOCK`), each kept slot's place in its block and its code, with an
//! index in memory of where each block's entries begin.

use super::cells::{byte_below, pack_high_bits, Cells};
use super::codes::{CANDIDATE, WATCHING};
use super::WorkCodes;
use rayon::prelude::*;
use retro_format::FormatError;
use retro_format::TempFile;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The work tables of a build, in the order snapshots keep them: placements with White and
/// with Black to move, then the en-passant positions with White and with Black to move.
pub const TABLES: usize = 4;

/// The slots of one block of a sparse snapshot's index.
const BLOCK: u64 = 1 << 16;

/// The bytes of one entry of a sparse snapshot: the slot's place in its block (two bytes, the
/// low one first), then its code.
const ENTRY: u64 = 3;

/// A sparse snapshot is written where its entries take at most this share of a dense one's
/// bytes (one in `SPARSE_SHARE`).
const SPARSE_SHARE: u64 = 4;

/// The blocks a task of a sparse write takes at once.
const BLOCKS_PER_TASK: u64 = 16;

/// What a snapshot keeps of each work table.
enum Kept {
    /// Every byte: where each table's bytes begin in the file, and how many there are.
    Dense { spans: [(u64, u64); TABLES] },
    /// The slots no earlier snapshot holds, by [`BLOCK`]s: by table, the number of the first
    /// entry of each block, and one more (the end); empty for an absent table. Entries lie in
    /// the file in that order, [`ENTRY`] bytes each.
    Sparse { firsts: [Vec<u64>; TABLES] },
}

/// One snapshot: every work table's bytes, or the bytes of the slots no earlier snapshot holds
/// ([`Kept`]), in the codes that held then.
struct Snapshot {
    /// An unnamed scratch file (or, where unnamed files are not available, one removed when
    /// dropped): a build killed part way leaves none behind.
    file: TempFile,
    codes: WorkCodes,
    kept: Kept,
}

impl Snapshot {
    fn io(&self) -> impl Fn(std::io::Error) -> FormatError + '_ {
        |source| FormatError::Io {
            path: self.file.path().to_path_buf(),
            source,
        }
    }

    /// The bytes of slots `window` of table `table`, as [`Resolver::stored`] reads them: a
    /// sparse snapshot gives `0` for a slot it does not keep.
    fn read_window(&self, table: usize, window: Range<u64>) -> Result<Vec<u8>, FormatError> {
        match &self.kept {
            Kept::Dense { spans } => {
                let (start, len) = spans[table];
                let end = window.end.min(len);
                let mut bytes = vec![0u8; (end - window.start) as usize];
                self.file
                    .file()
                    .read_exact_at(&mut bytes, start + window.start)
                    .map_err(self.io())?;
                Ok(bytes)
            }
            Kept::Sparse { firsts } => {
                let firsts = &firsts[table];
                let mut bytes = vec![0u8; (window.end - window.start) as usize];
                let held = firsts.len().saturating_sub(1) as u64;
                let blocks = (window.start / BLOCK).min(held)..window.end.div_ceil(BLOCK).min(held);
                let entries = self.read_entries(firsts, blocks.clone())?;
                let mut entry = entries.chunks_exact(ENTRY as usize);
                for block in blocks {
                    let count = firsts[block as usize + 1] - firsts[block as usize];
                    for e in entry.by_ref().take(count as usize) {
                        let slot = block * BLOCK + u64::from(u16::from_le_bytes([e[0], e[1]]));
                        if window.contains(&slot) {
                            bytes[(slot - window.start) as usize] = e[2];
                        }
                    }
                }
                Ok(bytes)
            }
        }
    }

    /// The byte of slot `at` of table `table`, read alone (`0` where a sparse snapshot does not
    /// keep it).
    fn read_one(&self, table: usize, at: u64) -> Result<u8, FormatError> {
        match &self.kept {
            Kept::Dense { spans } => {
                let mut byte = [0u8];
                self.file
                    .file()
                    .read_exact_at(&mut byte, spans[table].0 + at)
                    .map_err(self.io())?;
                Ok(byte[0])
            }
            Kept::Sparse { firsts } => {
                let block = at / BLOCK;
                let held = firsts[table].len().saturating_sub(1) as u64;
                let entries =
                    self.read_entries(&firsts[table], block.min(held)..(block + 1).min(held))?;
                let place = (at % BLOCK) as u16;
                Ok(entries
                    .chunks_exact(ENTRY as usize)
                    .find(|e| u16::from_le_bytes([e[0], e[1]]) == place)
                    .map_or(0, |e| e[2]))
            }
        }
    }

    /// The entries of `blocks` of a sparse snapshot's table whose index is `firsts`.
    fn read_entries(&self, firsts: &[u64], blocks: Range<u64>) -> Result<Vec<u8>, FormatError> {
        if blocks.is_empty() {
            return Ok(Vec::new());
        }
        let first = firsts[blocks.start as usize];
        let end = firsts[blocks.end as usize];
        let mut entries = vec![0u8; ((end - first) * ENTRY) as usize];
        self.file
            .file()
            .read_exact_at(&mut entries, first * ENTRY)
            .map_err(self.io())?;
        Ok(entries)
    }
}

/// The snapshots of one build, oldest first, in a scratch directory.
pub struct Snapshots {
    dir: Option<PathBuf>,
    stem: String,
    levels: Vec<Snapshot>,
}

impl Snapshots {
    /// No snapshots yet; they will be written into `dir` (`None`: nowhere, so no rebase), named
    /// after `stem`.
    pub fn new(dir: Option<&Path>, stem: &str) -> Snapshots {
        Snapshots {
            dir: dir.map(Path::to_path_buf),
            stem: stem.to_string(),
            levels: Vec::new(),
        }
    }

    /// Whether a snapshot can be written.
    pub fn can_write(&self) -> bool {
        self.dir.is_some()
    }

    /// Whether there is any snapshot.
    pub fn is_empty(&self) -> bool {
        self.levels.is_empty()
    }

    /// Writes `tables` (by [`TABLES`] order; `None` for an absent one), which hold `codes`,
    /// before a rebase to the depth `low`: sparse where an earlier snapshot holds most of the
    /// slots the rebase folds and the others are few, else dense.
    pub fn write(
        &mut self,
        tables: [Option<&Cells>; TABLES],
        codes: WorkCodes,
        low: u32,
    ) -> Result<(), FormatError> {
        let dir = self.dir.as_ref().expect("a scratch directory");
        let path = dir.join(format!(
            ".{}.{}.{}.depths.tmp",
            self.stem,
            std::process::id(),
            self.levels.len()
        ));
        let file = TempFile::beside(&path)?;
        let scratch = file.path().to_path_buf();
        let io = |source| FormatError::Io {
            path: scratch.clone(),
            source,
        };
        let sparse = self
            .newly_folded(codes, low)
            .map(|range| (block_counts(&tables, range.clone()), range))
            .filter(|(counts, _)| {
                let entries: u64 = counts.iter().flatten().sum();
                let bytes: u64 = tables.iter().flatten().map(|cells| cells.len()).sum();
                entries * ENTRY * SPARSE_SHARE <= bytes
            });
        let kept = match sparse {
            Some((counts, range)) => write_sparse(&file, &tables, counts, range).map_err(io)?,
            None => write_dense(&file, &tables).map_err(io)?,
        };
        self.levels.push(Snapshot { file, codes, kept });
        Ok(())
    }

    /// The codes, in `codes`, of the slots a rebase to `low` folds that no earlier snapshot
    /// holds (decided in `codes.low + 2 ..= low + 1` plies), where an earlier snapshot holds
    /// the rest; `None` for the first snapshot.
    fn newly_folded(&self, codes: WorkCodes, low: u32) -> Option<Range<u8>> {
        if self.levels.is_empty() || codes.low == 0 {
            return None;
        }
        let first_decided = u32::from(WATCHING + codes.watch_keys);
        let first = first_decided + 2;
        let end = (first_decided + low + 2 - codes.low).min(u32::from(CANDIDATE));
        Some(first as u8..end as u8)
    }

    /// A reader of stored codes for one thread.
    pub fn resolver(&self, codes: WorkCodes) -> Resolver<'_> {
        Resolver {
            levels: &self.levels,
            codes,
            window: (0, 0),
            table: 0,
            loaded: vec![None; self.levels.len()],
        }
    }
}

/// Every byte of `tables`, a mebibyte at a time, each written straight to its place in the
/// file; a mebibyte of no position (a six-man table's king pairs of no position) is left a
/// hole, read back as zeros.
fn write_dense(file: &TempFile, tables: &[Option<&Cells>; TABLES]) -> std::io::Result<Kept> {
    let mut spans = [(0, 0); TABLES];
    let mut at = 0u64;
    let mut buffer = Vec::with_capacity(1 << 20);
    for (t, cells) in tables.iter().enumerate() {
        let Some(cells) = cells else { continue };
        let len = cells.len();
        spans[t] = (at, len);
        let mut first = 0;
        while first < len {
            let end = (first + (1 << 20)).min(len);
            buffer.resize((end - first) as usize, 0);
            cells.copy_to(first, &mut buffer);
            if buffer.iter().any(|&b| b != 0) {
                file.file().write_all_at(&buffer, at + first)?;
            }
            first = end;
        }
        at += len;
    }
    file.file().set_len(at)?;
    Ok(Kept::Dense { spans })
}

/// The high bit of each byte of `w` whose code lies in `codes`.
#[inline(always)]
fn bytes_in(w: u64, codes: &Range<u8>) -> u64 {
    byte_below(w, codes.end) & !byte_below(w, codes.start)
}

/// Calls `visit` with the place and code of every slot of `bytes` whose code lies in `codes`,
/// in order, eight bytes to a compare.
fn for_each_in(bytes: &[u8], codes: &Range<u8>, mut visit: impl FnMut(usize, u8)) {
    for (k, eight) in bytes.chunks(8).enumerate() {
        let mut padded = [0u8; 8];
        padded[..eight.len()].copy_from_slice(eight);
        let mut found = pack_high_bits(bytes_in(u64::from_le_bytes(padded), codes));
        while found != 0 {
            let b = found.trailing_zeros() as usize;
            found &= found - 1;
            if b < eight.len() {
                visit(k * 8 + b, eight[b]);
            }
        }
    }
}

/// The bytes of block `block` of `cells`, copied into `buffer` (of [`BLOCK`] bytes).
fn block_bytes<'b>(cells: &Cells, block: u64, buffer: &'b mut [u8]) -> &'b [u8] {
    let first = block * BLOCK;
    let bytes = &mut buffer[..((first + BLOCK).min(cells.len()) - first) as usize];
    cells.copy_to(first, bytes);
    bytes
}

/// By table, the number of slots of each [`BLOCK`] whose code lies in `codes`.
fn block_counts(tables: &[Option<&Cells>; TABLES], codes: Range<u8>) -> [Vec<u64>; TABLES] {
    std::array::from_fn(|t| {
        let Some(cells) = tables[t] else {
            return Vec::new();
        };
        let len = cells.len();
        (0..len.div_ceil(BLOCK))
            .into_par_iter()
            .map_init(
                || vec![0u8; BLOCK as usize],
                |buffer, block| {
                    let bytes = block_bytes(cells, block, buffer);
                    let mut count = 0;
                    for_each_in(bytes, &codes, |_, _| count += 1);
                    count
                },
            )
            .collect()
    })
}

/// The slots of `tables` whose code lies in `codes`, `counts` of them in each block
/// ([`block_counts`]), as a sparse snapshot's entries, a task of [`BLOCKS_PER_TASK`] blocks
/// writing its entries straight to their place.
fn write_sparse(
    file: &TempFile,
    tables: &[Option<&Cells>; TABLES],
    counts: [Vec<u64>; TABLES],
    codes: Range<u8>,
) -> std::io::Result<Kept> {
    let mut next = 0u64;
    let firsts: [Vec<u64>; TABLES] = counts.map(|counts| {
        if counts.is_empty() {
            return Vec::new();
        }
        let mut firsts = Vec::with_capacity(counts.len() + 1);
        firsts.push(next);
        for count in counts {
            next += count;
            firsts.push(next);
        }
        firsts
    });
    for (cells, firsts) in tables.iter().zip(&firsts) {
        let Some(cells) = cells else { continue };
        let blocks = firsts.len() as u64 - 1;
        (0..blocks.div_ceil(BLOCKS_PER_TASK))
            .into_par_iter()
            .try_for_each_init(
                || (vec![0u8; BLOCK as usize], Vec::new()),
                |(buffer, entries), task| {
                    let blocks = task * BLOCKS_PER_TASK..((task + 1) * BLOCKS_PER_TASK).min(blocks);
                    entries.clear();
                    for block in blocks.clone() {
                        for_each_in(block_bytes(cells, block, buffer), &codes, |place, code| {
                            let [low, high] = (place as u16).to_le_bytes();
                            entries.extend_from_slice(&[low, high, code]);
                        });
                    }
                    let start = firsts[blocks.start as usize];
                    debug_assert_eq!(
                        entries.len() as u64,
                        (firsts[blocks.end as usize] - start) * ENTRY
                    );
                    file.file().write_all_at(entries, start * ENTRY)
                },
            )?;
    }
    file.file().set_len(next * ENTRY)?;
    Ok(Kept::Sparse { firsts })
}

/// Finds the stored code (`0` none, `1` draw, `2 + plies`) of a work code, reading the
/// snapshots when the code is a folded one; reads a window of positions at a time.
pub struct Resolver<'a> {
    levels: &'a [Snapshot],
    /// The codes of the work table as it ends.
    codes: WorkCodes,
    table: usize,
    window: (u64, u64),
    /// By level, the window's bytes once read.
    loaded: Vec<Option<Vec<u8>>>,
}

impl Resolver<'_> {
    /// Positions `first..end` of table `table` (by [`TABLES`] order) are read next: each
    /// snapshot's bytes of them are read at once when first needed.
    pub fn window(&mut self, table: usize, first: u64, end: u64) {
        self.table = table;
        self.window = (first, end);
        self.loaded.iter_mut().for_each(|l| *l = None);
    }

    /// The stored code of position `at` of the current table, whose work code is `work`.
    pub fn stored(&mut self, at: u64, work: u8) -> Result<u16, FormatError> {
        let mut codes = self.codes;
        let mut code = work;
        for level in (0..self.levels.len()).rev() {
            if !codes.is_folded(code) {
                break;
            }
            let snapshot = &self.levels[level];
            let (first, end) = self.window;
            let byte = if (first..end).contains(&at) {
                if self.loaded[level].is_none() {
                    self.loaded[level] = Some(snapshot.read_window(self.table, first..end)?);
                }
                self.loaded[level].as_ref().expect("just read")[(at - first) as usize]
            } else {
                snapshot.read_one(self.table, at)?
            };
            code = match (&snapshot.kept, byte) {
                // Not kept by a sparse snapshot: folded already when it was taken, by an
                // earlier rebase, into the folded code of the same parity.
                (Kept::Sparse { .. }, 0) => {
                    let parity = code - codes.decided(codes.low);
                    snapshot
                        .codes
                        .decided(snapshot.codes.low + u32::from(parity))
                }
                _ => byte,
            };
            codes = snapshot.codes;
        }
        Ok(codes.stored(code))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fast::codes::{NONE, UNKNOWN};

    /// The depth of slot `s` in the tables below: most shallow, a few (one in 20) between the
    /// two rebases, a few deeper still, some undecided or no position.
    fn depth_of(s: u64) -> Option<u32> {
        let h = s.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
        match h % 20 {
            0 => Some(102 + (h / 20 % 100) as u32),
            1 => Some(202 + (h / 20 % 40) as u32),
            2 | 3 => None,
            _ => Some((h / 20 % 102) as u32),
        }
    }

    #[test]
    fn a_second_rebase_keeps_only_what_the_first_did_not() {
        // Two tables of a few blocks each (the second ending part way through a block), a
        // rebase to 100 plies and one to 200: the first snapshot is dense, the second sparse,
        // and every slot's stored code comes back exact, read by windows and alone.
        let dir = tempfile::tempdir().unwrap();
        let lens = [5 * BLOCK + 17, 3 * BLOCK - 5];
        let tables = lens.map(Cells::new);
        let legal = |s: u64| s % 7 != 3;
        let codes0 = WorkCodes::new(0, None);
        let fill = |codes: WorkCodes, through: u32| {
            for (cells, &len) in tables.iter().zip(&lens) {
                for s in 0..len {
                    let code = match (legal(s), depth_of(s)) {
                        (false, _) => NONE,
                        (true, Some(d)) if d < codes.low + 2 => codes.decided(codes.low + d % 2),
                        (true, Some(d)) if d <= through => codes.decided(d),
                        (true, _) => UNKNOWN,
                    };
                    cells.set(s, code);
                }
            }
        };
        let mut snapshots = Snapshots::new(Some(dir.path()), "test");
        let cells = [Some(&tables[0]), Some(&tables[1]), None, None];
        fill(codes0, 101);
        snapshots.write(cells, codes0, 100).unwrap();
        let codes1 = WorkCodes { low: 100, ..codes0 };
        fill(codes1, 201);
        snapshots.write(cells, codes1, 200).unwrap();
        let codes2 = WorkCodes { low: 200, ..codes0 };
        fill(codes2, 300);
        assert!(matches!(snapshots.levels[0].kept, Kept::Dense { .. }));
        assert!(matches!(snapshots.levels[1].kept, Kept::Sparse { .. }));
        let mut folded = 0;
        for (t, (cells, &len)) in tables.iter().zip(&lens).enumerate() {
            let mut by_window = snapshots.resolver(codes2);
            let mut alone = snapshots.resolver(codes2);
            for first in (0..len).step_by(10_000) {
                let end = (first + 10_000).min(len);
                by_window.window(t, first, end);
                for s in first..end {
                    let work = cells.get(s);
                    let expected = match (legal(s), depth_of(s)) {
                        (false, _) => 0,
                        (true, Some(d)) => d as u16 + 2,
                        (true, None) => 1,
                    };
                    folded += usize::from(codes2.is_folded(work));
                    assert_eq!(by_window.stored(s, work).unwrap(), expected, "slot {s}");
                    if s % 13 == 0 {
                        assert_eq!(alone.stored(s, work).unwrap(), expected, "slot {s}");
                    }
                }
            }
        }
        assert!(folded > 300_000, "{folded} folded slots");
    }
}
