//! Between the stored index and the working layout.
//!
//! Owns: reading a stored table into every slot of its layout ([`load_subtable`]), or into
//! the slots a window shows, part after part ([`window_subtable`], [`Subtable::show`]), and
//! writing the work table as a stored body ([`write_body`]).
//! Must never: decide a value; it only moves codes between numberings.

use super::cells::Cells;
use super::ep::EpLayout;
use super::index_walk::{by_runs, for_each_run, group_fields, PairWalk, Stretch};
use super::layout::{Layout, RankField, SquareWindow, MAX_MEN};
use super::{rebase, Built, EpBuilt, Subtable};
use crate::GenError;
use rayon::prelude::*;
use retro_engine::index::GroupField;
use retro_engine::{Geometry, Indexer, Man, Material, Position, Sq, TABLE_MEN};
use retro_format::{FormatError, Table, TableWriter};
use retro_rules::Side;
use std::path::Path;
use std::sync::Mutex;

fn unsupported(material: Material, reason: impl ToString) -> GenError {
    GenError::Unsupported {
        material: material.to_string(),
        reason: reason.to_string(),
    }
}

/// The stored table of `material` spread over the slots of its layout: each stored position's
/// code goes to all the slots that hold it; only the sides to move `sides` marks (White first)
/// are loaded, the others left empty; with `field` (a man and a rank, see
/// `super::exit_fields`) only the slots with that man on that rank. With `paging`, a table of
/// more than [`PAGED_SUBTABLE_SLOTS`] slots kept is held in scratch files there, its pages
/// handed back to the kernel once loaded and after each part of a sliced build
/// ([`Subtable::page_out`]).
pub fn load_subtable(
    geo: &Geometry,
    table: &Table,
    material: Material,
    sides: [bool; 2],
    field: Option<(usize, u8)>,
    paging: Option<&Path>,
) -> Result<Subtable, GenError> {
    let (indexer, layout) = subtable_layout(geo, table, material)?;
    let slots = layout.size();
    let kept = match field {
        Some((man, rank)) => Kept::Rank(RankField::new(&layout, geo.files(), man, rank)),
        None => Kept::All,
    };
    let size = kept.size(slots);
    let paging = paging.filter(|_| size > PAGED_SUBTABLE_SLOTS);
    let mut codes: [Cells; 2] = [Cells::new(0), Cells::new(0)];
    for (x, out) in codes.iter_mut().enumerate() {
        if !sides[x] {
            continue;
        }
        *out =
            match paging {
                Some(dir) => Cells::in_file(size, dir, std::slice::from_ref(&(0..size))).map_err(
                    |source| FormatError::Io {
                        path: dir.to_path_buf(),
                        source,
                    },
                )?,
                None => Cells::new(size),
            };
        fill(geo, &indexer, &layout, table, x, out, &kept)?;
    }
    Ok(Subtable::new(layout, kept, codes, table.header().max_plies))
}

/// The table of `material` (stored in `table`) read a part at a time, through a window
/// ([`SquareWindow`]) over the fields of the men `men` of its layout, at most `capacity`
/// squares shown at once: the table a promotion of a sliced table leads into, of which each
/// part reads only the slots with the promoted piece on the images of the squares its pawns
/// promote on ([`Subtable::show`]). Nothing is shown, or held, until then.
pub fn window_subtable(
    geo: &Geometry,
    table: Table,
    material: Material,
    sides: [bool; 2],
    men: &[usize],
    capacity: u64,
) -> Result<Subtable, GenError> {
    let (indexer, layout) = subtable_layout(geo, &table, material)?;
    let window = SquareWindow::new(&layout, men, capacity);
    let size = window.size();
    let codes = sides.map(|read| Cells::new(if read { size } else { 0 }));
    let max_plies = table.header().max_plies;
    let mut sub = Subtable::new(layout, Kept::Window(window), codes, max_plies);
    sub.source = Some(Source {
        geo: geo.clone(),
        indexer,
        table,
    });
    Ok(sub)
}

impl Subtable {
    /// A table read through a window ([`window_subtable`]): shows the images, under the
    /// board's symmetries, of the squares of `promoted` (bit `sq` for square `sq`) and reads
    /// in the slots they keep, all others hidden; with no squares, holds nothing. The caller
    /// makes sure no thread reads the table meanwhile.
    pub fn show(&self, promoted: u64) -> Result<(), GenError> {
        let (Kept::Window(window), Some(source)) = (&self.kept, &self.source) else {
            return Ok(());
        };
        let shown = super::slices::square_images(&source.geo, promoted);
        assert!(
            window.show(shown),
            "more squares shown than the window holds"
        );
        for (x, cells) in self.codes.iter().enumerate() {
            cells.clear();
            if shown != 0 && !cells.is_empty() {
                fill(
                    &source.geo,
                    &source.indexer,
                    &self.layout,
                    &source.table,
                    x,
                    cells,
                    &self.kept,
                )?;
            }
        }
        Ok(())
    }
}

/// The index and the slot layout of a smaller table stored in `table`.
fn subtable_layout(
    geo: &Geometry,
    table: &Table,
    material: Material,
) -> Result<(Indexer, Layout), GenError> {
    let indexer = Indexer::new(geo, material).map_err(|e| unsupported(material, e))?;
    let layout = Layout::new(geo, material)
        .ok_or_else(|| unsupported(material, "no slot layout for this material"))?;
    usize::try_from(layout.size()).map_err(|_| unsupported(material, "too large"))?;
    if table.header().max_plies > SUBTABLE_MAX_PLIES {
        return Err(unsupported(
            material,
            "mates too long for one byte an entry",
        ));
    }
    Ok((indexer, layout))
}

/// Reads side `x` of the stored table `table` into `cells`, the slots of `layout` that `kept`
/// keeps; kept in a scratch file, a batch of king pairs at a time, the pages of the file and
/// of the cells handed back after each.
fn fill(
    geo: &Geometry,
    indexer: &Indexer,
    layout: &Layout,
    table: &Table,
    x: usize,
    cells: &Cells,
    kept: &Kept,
) -> Result<(), GenError> {
    let n = layout.men_count();
    // The kept field, if its man has no identical companion: he stands on his square in every
    // slot holding a position whose white king stands on no square a symmetry fixes (those
    // slots are the orders of the identical men), so such an entry with him on another rank
    // is kept in none.
    let field = match kept {
        Kept::Rank(f) => Some(*f),
        _ => None,
    };
    let lone_field = field.filter(|f| !layout.is_grouped(f.man()));
    // The cell of a slot, if it is kept.
    let cell_of = |slot: u64| kept.number(slot).map(|n| n as usize);
    let groups = group_fields(indexer);
    let failure = Mutex::new(None);
    let side = Side::ALL[x];
    let inner = indexer.inner_size();
    let width = usize::from(table.header().value_width);
    let half_first = x * indexer.size() as usize * width;
    let half = &table.body()[half_first..][..indexer.size() as usize * width];
    // A large table is read a batch of king pairs at a time, the pages of its file (and of
    // its cells, if kept in a file) handed back after each.
    let paged = cells.is_in_file() || indexer.size() > PAGED_SUBTABLE_SLOTS;
    let batch = match paged {
        true => 32,
        false => indexer.king_pairs().max(1),
    };
    let pairs: Vec<usize> = (0..indexer.king_pairs()).collect();
    for batch in pairs.chunks(batch) {
        batch.par_iter().for_each(|&pair| {
            let first = pair as u64 * inner;
            let end = first + inner;
            let (wk, bk) = indexer.king_pair(pair);
            if let Some(groups) = groups.as_deref() {
                if layout.in_region(wk) {
                    // Every index of the pair is a position or an overlap (code 0), and the
                    // slots holding it are those with the same squares, identical men in
                    // every order, and (a white king on a square a symmetry fixes) their
                    // images under those symmetries.
                    let fixed = layout.is_fixed(wk);
                    let pair_entries = &half[first as usize * width..end as usize * width];
                    let entry_code = |entry: &[u8]| {
                        if width == 1 {
                            entry[0]
                        } else {
                            narrow(u16::from_le_bytes([entry[0], entry[1]]))
                        }
                    };
                    for_each_run(groups, wk, bk, |run, squares, radix| {
                        // A window keeps no slot of a run whose kept men all stand off the
                        // squares it shows, in any image.
                        if let Kept::Window(w) = kept {
                            if !w.varies_within_runs() && !w.shows_any(squares) {
                                return;
                            }
                        }
                        if fixed {
                            // The last man's squares follow one another in the run; every
                            // slot holding each position is written.
                            let n = squares.len();
                            let mut placed = [0 as Sq; MAX_MEN];
                            placed[..n].copy_from_slice(squares);
                            for k in 0..radix {
                                let code = entry_code(&pair_entries[(run + k) * width..][..width]);
                                if code != 0 {
                                    placed[n - 1] = squares[n - 1] + k as Sq;
                                    layout.for_each_holder(&placed[..n], |slot| {
                                        if let Some(at) = cell_of(slot) {
                                            cells.set(at as u64, code)
                                        }
                                    });
                                }
                            }
                            return;
                        }
                        if radix == 1 {
                            // The white king stands on no square a symmetry fixes here.
                            if lone_field.is_some_and(|f| !f.keeps_square(squares[f.man()])) {
                                return;
                            }
                            let code = entry_code(&pair_entries[run * width..][..width]);
                            if code != 0 {
                                layout.for_each_holder(squares, |slot| {
                                    if let Some(at) = cell_of(slot) {
                                        cells.set(at as u64, code)
                                    }
                                });
                            }
                            return;
                        }
                        let base = layout.slot(squares);
                        // The run's entries kept: all of them, none (the kept man stands on
                        // another rank), or the last man's squares on the kept rank.
                        let (skip, count) = match kept {
                            Kept::All => (0, radix),
                            Kept::Window(w) if w.varies_within_runs() => {
                                // Entry by entry: the last man is one the window shows.
                                let entries = &pair_entries[run * width..][..radix * width];
                                for (k, entry) in entries.chunks_exact(width).enumerate() {
                                    let code = entry_code(entry);
                                    if let Some(at) = cell_of(base + k as u64) {
                                        if code != 0 {
                                            cells.set(at as u64, code);
                                        }
                                    }
                                }
                                return;
                            }
                            Kept::Window(w) if w.number(base).is_some() => (0, radix),
                            Kept::Window(_) => return,
                            Kept::Rank(f) if f.man() == n - 1 => {
                                // The last man's kept squares follow one another.
                                let kept = |k: &usize| f.number(base + *k as u64).is_some();
                                let Some(skip) = (0..radix).find(kept) else {
                                    return;
                                };
                                (skip, (skip..radix).take_while(kept).count())
                            }
                            Kept::Rank(f) if f.number(base).is_some() => (0, radix),
                            Kept::Rank(_) => return,
                        };
                        let start = cell_of(base + skip as u64).expect("a kept slot");
                        let entries = &pair_entries[(run + skip) * width..][..count * width];
                        for (k, entry) in entries.chunks_exact(width).enumerate() {
                            let code = entry_code(entry);
                            if code != 0 {
                                cells.set((start + k) as u64, code);
                            }
                        }
                    });
                    return;
                }
            }
            indexer.for_each_position::<TABLE_MEN>(geo, first..end, side, |i, p| {
                let Some(p) = p else { return };
                let code = match table.code(x == 0, i) {
                    Ok(0) => return,
                    Ok(code) => narrow(code as u16),
                    Err(e) => {
                        failure
                            .lock()
                            .expect("no panics while locked")
                            .get_or_insert(GenError::from(e));
                        return;
                    }
                };
                let mut squares = [0 as Sq; MAX_MEN];
                for (k, m) in p.men().iter().enumerate() {
                    squares[k] = m.sq;
                }
                layout.fold(&mut squares[..n]);
                layout.for_each_holder(&squares[..n], |slot| {
                    if let Some(at) = cell_of(slot) {
                        cells.set(at as u64, code)
                    }
                });
            });
        });
        if paged {
            let (first, last) = (batch[0] as u64, *batch.last().expect("a batch") as u64);
            let start = half_first + (first * inner) as usize * width;
            table.page_out(start, half_first + ((last + 1) * inner) as usize * width);
            cells.page_out(0, cells.len());
        }
    }
    match failure.into_inner().expect("no panics while locked") {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Which slots of a smaller table's layout a [`Subtable`] keeps.
#[derive(Debug)]
pub enum Kept {
    /// All of them.
    All,
    /// Those with one man on one rank (a table with pawns a promotion leads into).
    Rank(RankField),
    /// Those with a promoted piece on the squares a window shows (a pawnless table a
    /// promotion of a sliced table leads into).
    Window(SquareWindow),
}

impl Kept {
    /// How many cells a layout of `slots` slots keeps.
    fn size(&self, slots: u64) -> u64 {
        match self {
            Kept::All => slots,
            Kept::Rank(f) => f.size(slots),
            Kept::Window(w) => w.size(),
        }
    }

    /// For the slots `base + q · stride` of a run (`q` the square of the man moving with it,
    /// 0 in `base`): the cell of `base` and the step between two squares' cells; `None` where
    /// the cells do not move with the run (a rank field), or `base` is not kept.
    pub fn run(&self, base: u64, stride: u64) -> Option<(u64, u64)> {
        match self {
            Kept::All => Some((base, stride)),
            Kept::Rank(_) => None,
            Kept::Window(w) => w.run(base, stride),
        }
    }

    /// The cell of `slot`, if it is kept.
    #[inline(always)]
    pub fn number(&self, slot: u64) -> Option<u64> {
        match self {
            Kept::All => Some(slot),
            Kept::Rank(f) => f.number(slot),
            Kept::Window(w) => w.number(slot),
        }
    }
}

/// What a table read through a window is read again from, part after part.
pub struct Source {
    geo: Geometry,
    indexer: Indexer,
    table: Table,
}

/// The most slots a side of a smaller table [`load_subtable`] keeps in memory when asked to
/// page: above it (the five-man tables a six-man one promotes into, say), the table is kept in
/// scratch files. 2²⁴ slots are 16 MiB.
pub const PAGED_SUBTABLE_SLOTS: u64 = 1 << 24;

/// A stored entry code as one byte: callers load only tables whose longest mate is at most
/// [`SUBTABLE_MAX_PLIES`], whose codes all fit.
#[inline]
fn narrow(code: u16) -> u8 {
    u8::try_from(code).expect("the table's longest mate fits a byte")
}

/// The longest mate, in plies, of a table [`load_subtable`] takes: its codes (`2 + plies`) fit
/// a byte.
pub const SUBTABLE_MAX_PLIES: u32 = u8::MAX as u32 - 2;

/// Writes the body of the stored table (both sides to move, `width` bytes an entry, in the
/// order of `indexer`) from the work table into `writer`, one king pair at a time.
pub fn write_body(
    geo: &Geometry,
    indexer: &Indexer,
    built: &Built,
    width: usize,
    writer: &TableWriter,
) -> Result<(), FormatError> {
    if let Some(store) = &built.store {
        return store.write_body(geo, indexer, &built.layout, width, writer);
    }
    let n = built.layout.men_count();
    let tasks: Vec<(usize, usize)> = (0..2)
        .flat_map(|x| (0..indexer.king_pairs()).map(move |pair| (x, pair)))
        .collect();
    let groups = group_fields(indexer);
    let stored: [[u8; 2]; 256] =
        std::array::from_fn(|work| built.codes.stored(work as u8).to_le_bytes());
    let block = built.layout.square_count().pow(n as u32 - 2);
    // A table kept in scratch files is written a batch of king pairs at a time, its pages
    // handed back after each, so that it is never read into memory whole.
    let paged = built.cells.iter().any(|cells| cells.is_in_file());
    let batch = if paged { 64 } else { tasks.len().max(1) };
    for batch in tasks.chunks(batch) {
        write_pairs(
            geo, indexer, built, width, writer, batch, &groups, &stored, block,
        )?;
        if paged {
            for cells in &built.cells {
                cells.page_out(0, cells.len());
            }
        }
    }
    match &built.ep {
        Some(ep) => write_ep_entries(geo, indexer, built, ep, width, writer),
        None => Ok(()),
    }
}

/// [`write_body`] for the king pairs `tasks` (side to move, pair), `groups` the index's groups
/// of men, `stored` the stored code of each work code, `block` the slots of a pair of kings.
#[allow(clippy::too_many_arguments)]
fn write_pairs(
    geo: &Geometry,
    indexer: &Indexer,
    built: &Built,
    width: usize,
    writer: &TableWriter,
    tasks: &[(usize, usize)],
    groups: &Option<Vec<GroupField>>,
    stored: &[[u8; 2]; 256],
    block: u64,
) -> Result<(), FormatError> {
    let entries = indexer.size();
    let layout = &built.layout;
    let n = layout.men_count();
    let inner = indexer.inner_size();
    let folds = !built.snapshots.is_empty();
    tasks.par_iter().copied().try_for_each_init(
        || {
            (
                vec![0u8; inner as usize * width],
                built.snapshots.resolver(built.codes),
                vec![0u8; layout.square_count() as usize],
            )
        },
        |(out, resolver, run_cells), (x, pair)| {
            let cells = &built.cells[x];
            let first = pair as u64 * inner;
            let (wk, bk) = indexer.king_pair(pair);
            if folds {
                // The pair's slots lie in the block of its kings, unless they are folded, when
                // each folded one is read alone.
                match by_runs(layout, groups.as_deref(), wk) {
                    true => {
                        let mut kings = [0 as Sq; MAX_MEN];
                        (kings[0], kings[1]) = (wk, bk);
                        let block_first = layout.slot(&kings[..n]);
                        resolver.window(x, block_first, block_first + block);
                    }
                    false => resolver.window(x, 0, 0),
                }
            }
            // A slot's stored code, from the snapshots if a rebase folded it.
            let mut failure = None;
            let mut code_of = |slot: u64, work: u8| -> [u8; 2] {
                if !(folds && built.codes.is_folded(work)) {
                    return stored[usize::from(work)];
                }
                match resolver.stored(slot, work) {
                    Ok(code) => code.to_le_bytes(),
                    Err(e) => {
                        failure.get_or_insert(e);
                        [0, 0]
                    }
                }
            };
            out.fill(0);
            let walk = PairWalk::new(geo, indexer, layout, groups.as_deref());
            walk.for_each_stretch(Side::ALL[x], pair, None, |stretch| match stretch {
                Stretch::Run(run) => {
                    let run_cells = &mut run_cells[..run.len];
                    run.read(cells, run_cells);
                    let cells = run_cells.iter().copied();
                    let out = &mut out[run.at * width..][..run.len * width];
                    if folds {
                        for (k, (entry, cell)) in out.chunks_exact_mut(width).zip(cells).enumerate()
                        {
                            let slot = run.base + k as u64 * run.stride;
                            entry.copy_from_slice(&code_of(slot, cell)[..width]);
                        }
                    } else if width == 1 {
                        for (entry, cell) in out.iter_mut().zip(cells) {
                            *entry = stored[usize::from(cell)][0];
                        }
                    } else {
                        for (entry, cell) in out.chunks_exact_mut(width).zip(cells) {
                            entry.copy_from_slice(&stored[usize::from(cell)][..width]);
                        }
                    }
                    run.clear_images(layout, out, width);
                }
                Stretch::One { at, slot } => {
                    let code = code_of(slot, cells.get(slot));
                    out[at * width..][..width].copy_from_slice(&code[..width]);
                }
            });
            if let Some(e) = failure {
                return Err(e);
            }
            writer.write_body_at((x as u64 * entries + first) * width as u64, out)
        },
    )
}

/// Writes the entries of the en-passant positions (the indices with an en-passant code); the
/// others of those indices are no position and stay `0`, as the writer leaves them.
fn write_ep_entries(
    geo: &Geometry,
    indexer: &Indexer,
    built: &Built,
    ep: &EpBuilt,
    width: usize,
    writer: &TableWriter,
) -> Result<(), FormatError> {
    const CHUNK: u64 = 1 << 16;
    for (x, cells) in ep.cells.iter().enumerate() {
        let size = cells.len();
        // Each position's stored index and stored code, found from its number.
        let found: Result<Vec<(u64, u16)>, FormatError> = (0..size.div_ceil(CHUNK))
            .into_par_iter()
            .flat_map_iter(|chunk| {
                let first = chunk * CHUNK;
                let end = (first + CHUNK).min(size);
                let mut resolver = built.snapshots.resolver(built.codes);
                resolver.window(rebase::TABLES / 2 + x, first, end);
                let mut found = Vec::new();
                for number in first..end {
                    let work = cells.get(number);
                    if work == 0 {
                        continue;
                    }
                    let code = match built.codes.is_folded(work) {
                        true => match resolver.stored(number, work) {
                            Ok(code) => code,
                            Err(e) => {
                                found.push(Err(e));
                                break;
                            }
                        },
                        false => built.codes.stored(work),
                    };
                    let index = ep_stored_index(geo, indexer, &built.layout, &ep.layout, number, x);
                    found.push(Ok((index, code)));
                }
                found
            })
            .collect();
        write_scattered_entries(indexer, found?, x, width, writer)?;
    }
    Ok(())
}

/// The stored index of side `x`'s en-passant position `number` of `ep` (over `layout`'s
/// slots): its placement with the square the double step passed over.
pub(super) fn ep_stored_index(
    geo: &Geometry,
    indexer: &Indexer,
    layout: &Layout,
    ep: &EpLayout,
    number: u64,
    x: usize,
) -> u64 {
    let men = indexer.material().men();
    let (slot, j) = ep.decode(number, x);
    let mut squares = [0 as Sq; MAX_MEN];
    layout.decode_into(slot, &mut squares[..layout.men_count()]);
    let (pawn_side, _) = men[j];
    let passed = geo.ahead(pawn_side, squares[j], -1);
    let placed = men
        .iter()
        .zip(&squares)
        .map(|(&(side, piece), &sq)| Man { side, piece, sq });
    Position::<TABLE_MEN>::new(geo, placed, Side::ALL[x], passed)
        .ok()
        .and_then(|p| indexer.index(geo, &p))
        .expect("an en-passant position has a stored index")
}

/// Writes side `x`'s entries `found` (stored index, code), scattered among entries written
/// already, in windows of the indices after the placements' (those of the en-passant
/// positions); an index found twice (a position and its image) is written once.
pub(super) fn write_scattered_entries(
    indexer: &Indexer,
    mut found: Vec<(u64, u16)>,
    x: usize,
    width: usize,
    writer: &TableWriter,
) -> Result<(), FormatError> {
    const WINDOW: u64 = 1 << 12;
    let entries = indexer.size();
    found.par_sort_unstable();
    found.dedup_by_key(|&mut (index, _)| index);
    let placements = indexer.placements();
    let window_of = |index: u64| (index - placements) / WINDOW;
    let windows: Vec<&[(u64, u16)]> = found
        .chunk_by(|a, b| window_of(a.0) == window_of(b.0))
        .collect();
    windows.into_par_iter().try_for_each(|window| {
        let start = placements + window_of(window[0].0) * WINDOW;
        let len = WINDOW.min(entries - start) as usize;
        let mut out = vec![0u8; len * width];
        for &(index, code) in window {
            let at = (index - start) as usize * width;
            out[at..at + width].copy_from_slice(&code.to_le_bytes()[..width]);
        }
        writer.write_body_at((x as u64 * entries + start) * width as u64, &out)
    })
}
