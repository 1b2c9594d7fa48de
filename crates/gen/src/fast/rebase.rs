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

use super::cells::Cells;
use super::WorkCodes;
use retro_format::FormatError;
use retro_format::TempFile;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// The work tables of a build, in the order snapshots keep them: placements with White and
/// with Black to move, then the en-passant positions with White and with Black to move.
pub const TABLES: usize = 4;

/// One snapshot: every work table's bytes, in the codes that held then.
struct Snapshot {
    /// An unnamed scratch file (or, where unnamed files are not available, one removed when
    /// dropped): a build killed part way leaves none behind.
    file: TempFile,
    codes: WorkCodes,
    /// Where each table's bytes begin in the file, and how many there are.
    spans: [(u64, u64); TABLES],
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

    /// Writes `tables` (by [`TABLES`] order; `None` for an absent one), which hold `codes`.
    pub fn write(
        &mut self,
        tables: [Option<&Cells>; TABLES],
        codes: WorkCodes,
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
        let mut snapshot = Snapshot {
            file,
            codes,
            spans: [(0, 0); TABLES],
        };
        // A mebibyte at a time, each written straight to its place in the file; a mebibyte of
        // no position (a six-man table's king pairs of no position) is left a hole, read back
        // as zeros.
        let mut at = 0u64;
        let mut buffer = Vec::with_capacity(1 << 20);
        for (t, cells) in tables.iter().enumerate() {
            let Some(cells) = cells else { continue };
            let len = cells.len();
            snapshot.spans[t] = (at, len);
            let mut first = 0;
            while first < len {
                let end = (first + (1 << 20)).min(len);
                buffer.resize((end - first) as usize, 0);
                cells.copy_to(first, &mut buffer);
                if buffer.iter().any(|&b| b != 0) {
                    snapshot
                        .file
                        .file()
                        .write_all_at(&buffer, at + first)
                        .map_err(io)?;
                }
                first = end;
            }
            at += len;
        }
        snapshot.file.file().set_len(at).map_err(io)?;
        self.levels.push(snapshot);
        Ok(())
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
            let (start, len) = snapshot.spans[self.table];
            debug_assert!(at < len);
            let io = |source| FormatError::Io {
                path: snapshot.file.path().to_path_buf(),
                source,
            };
            let (first, end) = self.window;
            code = if (first..end).contains(&at) {
                if self.loaded[level].is_none() {
                    let mut bytes = vec![0u8; (end.min(len) - first) as usize];
                    snapshot
                        .file
                        .file()
                        .read_exact_at(&mut bytes, start + first)
                        .map_err(io)?;
                    self.loaded[level] = Some(bytes);
                }
                self.loaded[level].as_ref().expect("just read")[(at - first) as usize]
            } else {
                let mut byte = [0u8];
                snapshot
                    .file
                    .file()
                    .read_exact_at(&mut byte, start + at)
                    .map_err(io)?;
                byte[0]
            };
            codes = snapshot.codes;
        }
        Ok(codes.stored(code))
    }
}
