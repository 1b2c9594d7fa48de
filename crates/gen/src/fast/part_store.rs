//! The solved parts of a sliced table, kept in the order of the stored index until its file
//! is written.
//!
//! Owns: [`PartStore`] — after each part of a sliced build, that part's entries (work codes,
//! with the stored code each stands for then) appended to one unnamed scratch file, king pair
//! by king pair; and at the end the table's body gathered from them, each stretch of the file
//! given back to the disk once gathered.
//! Must never: decide a value, or read a slot of the work table outside the part it stores.
//!
//! The stored index puts the king pair outermost, so each part's entries are spread over the
//! whole table file, and the body cannot be written a part at a time. Written at the end from
//! the work table, it kept every slice of the work table on disk until then (KRRPvKR: 48 GiB
//! of slices, two bytes a slot of a layout that leaves gaps, beside a 21 GiB table). Here each
//! part's entries, one byte an entry, go to the store as soon as the part is solved, and the
//! slices no later part reads are released (`Core::release_slices`): the store grows to one
//! byte an entry and side, the work table holds only the slices still read, and the table
//! file, gathered at the end, takes the place of the store as it is read.

use super::cells::Cells;
use super::codes::WorkCodes;
use super::index_walk::{colex_rank, group_fields, GroupFilter, PairWalk, Stretch};
use super::layout::Layout;
use super::words::punch_hole;
use rayon::prelude::*;
use retro_engine::index::GroupField;
use retro_engine::{Geometry, Indexer, Sq};
use retro_format::{FormatError, TableWriter};
use retro_rules::{Piece, Side};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

/// King pairs (by side to move) stored or gathered in one go: what a batch holds in memory is
/// this many pairs' entries of a part, twice over (some 33 MB for KRRPvKR), or a pair's whole
/// body a thread when gathering.
const BATCH: usize = 64;

/// The unit the disk gives space back in.
const PAGE: u64 = 4096;

/// A part not in the store ([`PartStore::part_of_slice`]).
const NO_PART: u32 = u32::MAX;

/// What the store holds of one part.
struct StoredPart {
    /// By task (side to move × king pair, in the order of the body), where its entries begin
    /// in the file; one more for the end.
    offsets: Vec<u64>,
    /// The stored code (little-endian) each work code stood for when the part was stored.
    stored: [[u8; 2]; 256],
}

/// The entries of a sliced table's solved parts, in the order of its stored index.
pub(super) struct PartStore {
    file: std::fs::File,
    dir: PathBuf,
    /// Bytes written so far.
    end: u64,
    /// By slice of the layout, the part it belongs to.
    part_of_slice: Vec<u32>,
    /// By part, its slices' numbers.
    groups: Vec<Vec<u64>>,
    /// The slots of a slice.
    block: u64,
    /// By part, in the order they were stored.
    parts: Vec<Option<StoredPart>>,
}

fn io(dir: &Path) -> impl Fn(std::io::Error) -> FormatError + '_ {
    move |source| FormatError::Io {
        path: dir.to_path_buf(),
        source,
    }
}

impl PartStore {
    /// An empty store in an unnamed scratch file in `dir`, for the parts `groups` (slice
    /// numbers by part) of `layout`.
    pub(super) fn new(
        dir: &Path,
        layout: &Layout,
        groups: &[Vec<u64>],
    ) -> Result<Self, FormatError> {
        let file = tempfile::tempfile_in(dir).map_err(io(dir))?;
        let mut part_of_slice = vec![NO_PART; layout.slices_count()];
        for (p, group) in groups.iter().enumerate() {
            for &number in group {
                part_of_slice[number as usize] = p as u32;
            }
        }
        Ok(PartStore {
            file,
            dir: dir.to_path_buf(),
            end: 0,
            part_of_slice,
            groups: groups.to_vec(),
            block: layout.size() / layout.slices_count().max(1) as u64,
            parts: groups.iter().map(|_| None).collect(),
        })
    }

    /// The part whose slices hold `slot`.
    fn part_of(&self, slot: u64) -> u32 {
        self.part_of_slice[(slot / self.block) as usize]
    }

    /// Appends part `p`'s entries, read from `cells` (work codes of `codes`), in the order of
    /// `indexer`'s body: by side to move and king pair, the entries whose slot lies in the
    /// part, in index order.
    pub(super) fn store(
        &mut self,
        p: usize,
        geo: &Geometry,
        indexer: &Indexer,
        layout: &Layout,
        cells: &[Cells; 2],
        codes: WorkCodes,
    ) -> Result<(), FormatError> {
        let groups = group_fields(indexer);
        let walk = PairWalk::new(geo, indexer, layout, groups.as_deref());
        let tasks = 2 * indexer.king_pairs();
        let mut offsets = Vec::with_capacity(tasks + 1);
        let part = p as u32;
        let slices = &self.groups[p];
        // Read a run at a time, only the placements of the part's pawns are walked: there the
        // index's group of pawns (the men a slice is made by) stands where the layout's does.
        let filter = groups
            .iter()
            .flatten()
            .enumerate()
            .find_map(|(group, field)| {
                let mut allowed: Vec<(u64, Vec<Sq>)> = (field.piece == Piece::Pawn)
                    .then_some(slices)?
                    .iter()
                    .map(|&number| {
                        let pawns = layout.slice_squares(number);
                        (colex_rank(&pawns, field.first), pawns)
                    })
                    .collect();
                allowed.sort_unstable();
                Some(GroupFilter { group, allowed })
            });
        let mut joined = Vec::new();
        for batch in (0..tasks).collect::<Vec<_>>().chunks(BATCH) {
            let pieces: Vec<Vec<u8>> = batch
                .par_iter()
                .map_init(Vec::new, |run_cells: &mut Vec<u8>, &task| {
                    let (x, pair) = (task / indexer.king_pairs(), task % indexer.king_pairs());
                    let mut piece = Vec::new();
                    walk.for_each_stretch(Side::ALL[x], pair, filter.as_ref(), |stretch| {
                        match stretch {
                            Stretch::Run(run) => {
                                if self.part_of(run.base) == part {
                                    run_cells.resize(run.len, 0);
                                    run.read(&cells[x], run_cells);
                                    piece.extend_from_slice(run_cells);
                                }
                            }
                            Stretch::One { slot, .. } => {
                                if self.part_of(slot) == part {
                                    piece.push(cells[x].get(slot));
                                }
                            }
                        }
                    });
                    piece
                })
                .collect();
            joined.clear();
            for piece in &pieces {
                offsets.push(self.end);
                joined.extend_from_slice(piece);
                self.end += piece.len() as u64;
            }
            let at = self.end - joined.len() as u64;
            self.file.write_all_at(&joined, at).map_err(io(&self.dir))?;
        }
        offsets.push(self.end);
        self.parts[p] = Some(StoredPart {
            offsets,
            stored: std::array::from_fn(|work| codes.stored(work as u8).to_le_bytes()),
        });
        Ok(())
    }

    /// Writes the body of the table (`width` bytes an entry, in the order of `indexer`) into
    /// `writer`, gathering each king pair's entries from the parts stored; the store's bytes
    /// are given back to the disk as they are read. Every part must have been stored.
    pub(super) fn write_body(
        &self,
        geo: &Geometry,
        indexer: &Indexer,
        layout: &Layout,
        width: usize,
        writer: &TableWriter,
    ) -> Result<(), FormatError> {
        let parts: Vec<&StoredPart> = self
            .parts
            .iter()
            .map(|part| part.as_ref().expect("every part stored"))
            .collect();
        let groups: Option<Vec<GroupField>> = group_fields(indexer);
        let walk = PairWalk::new(geo, indexer, layout, groups.as_deref());
        let (pairs, inner, entries) = (indexer.king_pairs(), indexer.inner_size(), indexer.size());
        let tasks = 2 * pairs;
        // By part, the bytes before this have been given back (whole pages of its own: the
        // page it starts in may hold the end of the part before).
        let mut released: Vec<u64> = parts
            .iter()
            .map(|part| part.offsets[0].div_ceil(PAGE) * PAGE)
            .collect();
        if self.end == 0 {
            return Ok(());
        }
        // SAFETY: the file is unnamed and this store's own; nothing writes it while it is
        // mapped, and the pages punched out below are never read again.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(&self.file) }.map_err(io(&self.dir))?;
        for batch in (0..tasks).collect::<Vec<_>>().chunks(BATCH) {
            batch.par_iter().try_for_each_init(
                || (vec![0u8; inner as usize * width], Vec::new()),
                |(out, taken), &task| {
                    let (x, pair) = (task / pairs, task % pairs);
                    // Each part's entries of this pair, and how many of them are taken.
                    taken.clear();
                    for part in &parts {
                        let (first, end) = (part.offsets[task], part.offsets[task + 1]);
                        taken.push((&map[first as usize..end as usize], 0usize));
                    }
                    out.fill(0);
                    walk.for_each_stretch(Side::ALL[x], pair, None, |stretch| {
                        let (slot, len) = match &stretch {
                            Stretch::Run(run) => (run.base, run.len),
                            Stretch::One { slot, .. } => (*slot, 1),
                        };
                        let p = self.part_of(slot) as usize;
                        let (bytes, taken_so_far) = &mut taken[p];
                        let codes = &bytes[*taken_so_far..*taken_so_far + len];
                        *taken_so_far += len;
                        let stored = &parts[p].stored;
                        let (at, run) = match stretch {
                            Stretch::Run(run) => (run.at, Some(run)),
                            Stretch::One { at, .. } => (at, None),
                        };
                        let out = &mut out[at * width..][..len * width];
                        for (entry, &code) in out.chunks_exact_mut(width).zip(codes) {
                            entry.copy_from_slice(&stored[usize::from(code)][..width]);
                        }
                        if let Some(run) = run {
                            run.clear_images(layout, out, width);
                        }
                    });
                    debug_assert!(taken.iter().all(|(bytes, at)| *at == bytes.len()));
                    writer.write_body_at(
                        (x as u64 * entries + pair as u64 * inner) * width as u64,
                        out,
                    )
                },
            )?;
            // What every task of the batch has read goes back to the disk.
            let last = batch[batch.len() - 1] + 1;
            for (part, released) in parts.iter().zip(&mut released) {
                let end = part.offsets[last] / PAGE * PAGE;
                if end > *released {
                    punch_hole(&self.file, *released, end);
                    *released = end;
                }
            }
        }
        Ok(())
    }
}
