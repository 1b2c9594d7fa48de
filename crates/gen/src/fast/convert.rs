//! Between the stored index and the working layout.
//!
//! Owns: reading a stored table into every slot of its layout ([`load_subtable`]) and writing
//! the work table as a stored body ([`write_body`]).
//! Must never: decide a value; it only moves codes between numberings.

use super::layout::{Layout, MAX_MEN};
use super::{Built, Subtable};
use crate::GenError;
use rayon::prelude::*;
use retro_engine::{Geometry, Indexer, Material, Sq, TABLE_MEN};
use retro_format::{FormatError, Table, TableWriter};
use retro_rules::Side;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Mutex;

fn unsupported(material: Material, reason: impl ToString) -> GenError {
    GenError::Unsupported {
        material: material.to_string(),
        reason: reason.to_string(),
    }
}

/// The stored table of `material` spread over every slot of its layout: each stored position's
/// code goes to all the slots that hold it.
pub fn load_subtable(
    geo: &Geometry,
    table: &Table,
    material: Material,
) -> Result<Subtable, GenError> {
    let indexer = Indexer::new(geo, material).map_err(|e| unsupported(material, e))?;
    let layout = Layout::new(geo, material)
        .ok_or_else(|| unsupported(material, "no slot layout for this material"))?;
    let slots = usize::try_from(layout.size()).map_err(|_| unsupported(material, "too large"))?;
    if table.header().max_plies > SUBTABLE_MAX_PLIES {
        return Err(unsupported(
            material,
            "mates too long for one byte an entry",
        ));
    }
    let n = layout.men_count();
    let failure = Mutex::new(None);
    let mut codes: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
    for (x, out) in codes.iter_mut().enumerate() {
        let side = Side::ALL[x];
        let mut cells = Vec::with_capacity(slots);
        cells.resize_with(slots, || AtomicU8::new(0));
        let inner = indexer.inner_size();
        let width = usize::from(table.header().value_width);
        let half =
            &table.body()[x * indexer.size() as usize * width..][..indexer.size() as usize * width];
        (0..indexer.king_pairs()).into_par_iter().for_each(|pair| {
            let first = pair as u64 * inner;
            let end = first + inner;
            let (wk, bk) = indexer.king_pair(pair);
            if indexer.men_are_distinct() && layout.in_region(wk) && !layout.is_fixed(wk) {
                // Every index of the pair is a position or an overlap (code 0), and the
                // only slot holding it is the one with the same digits.
                let base = layout.slot(&pair_squares(wk, bk, n)) as usize;
                for (k, entry) in half[first as usize * width..end as usize * width]
                    .chunks_exact(width)
                    .enumerate()
                {
                    let code = if width == 1 {
                        entry[0]
                    } else {
                        narrow(u16::from_le_bytes([entry[0], entry[1]]))
                    };
                    if code != 0 {
                        cells[base + k].store(code, Ordering::Relaxed);
                    }
                }
                return;
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
                    cells[slot as usize].store(code, Ordering::Relaxed)
                });
            });
        });
        *out = cells.into_iter().map(AtomicU8::into_inner).collect();
    }
    if let Some(e) = failure.into_inner().expect("no panics while locked") {
        return Err(e);
    }
    Ok(Subtable::new(layout, codes))
}

/// A stored entry code as one byte: callers load only tables whose longest mate is at most
/// [`SUBTABLE_MAX_PLIES`], whose codes all fit.
#[inline]
fn narrow(code: u16) -> u8 {
    u8::try_from(code).expect("the table's longest mate fits a byte")
}

/// The longest mate, in plies, of a table [`load_subtable`] takes: its codes (`2 + plies`) fit
/// a byte.
pub const SUBTABLE_MAX_PLIES: u32 = u8::MAX as u32 - 2;

/// The squares of a position with its kings on `wk`, `bk` and every other man on square 0.
fn pair_squares(wk: Sq, bk: Sq, n: usize) -> Vec<Sq> {
    let mut squares = vec![0 as Sq; n];
    squares[0] = wk;
    squares[1] = bk;
    squares
}

/// Writes the body of the stored table (both sides to move, `width` bytes an entry, in the
/// order of `indexer`) from the work table into `writer`, one king pair at a time.
pub fn write_body(
    geo: &Geometry,
    indexer: &Indexer,
    built: &Built,
    width: usize,
    writer: &TableWriter,
) -> Result<(), FormatError> {
    let entries = indexer.size();
    let layout = &built.layout;
    let n = layout.men_count();
    let inner = indexer.inner_size();
    let tasks: Vec<(usize, usize)> = (0..2)
        .flat_map(|x| (0..indexer.king_pairs()).map(move |pair| (x, pair)))
        .collect();
    let stored: [[u8; 2]; 256] =
        std::array::from_fn(|work| built.codes.stored(work as u8).to_le_bytes());
    tasks.into_par_iter().try_for_each_init(
        || vec![0u8; inner as usize * width],
        |out, (x, pair)| {
            let side = Side::ALL[x];
            let cells = &built.cells[x];
            let first = pair as u64 * inner;
            let end = first + inner;
            let (wk, bk) = indexer.king_pair(pair);
            if indexer.men_are_distinct()
                && indexer.kings_fixed_by_identity_only(wk, bk)
                && layout.in_region(wk)
            {
                // Every index of the pair is canonical; its digits are a slot's last
                // fields, and overlaps are slots of code 0.
                let base = layout.slot(&pair_squares(wk, bk, n));
                let cells = cells.bytes(base, base + inner);
                if width == 1 {
                    for (entry, cell) in out.iter_mut().zip(cells) {
                        *entry = stored[usize::from(cell)][0];
                    }
                } else {
                    for (entry, cell) in out.chunks_exact_mut(width).zip(cells) {
                        entry.copy_from_slice(&stored[usize::from(cell)][..width]);
                    }
                }
            } else {
                out.fill(0);
                indexer.for_each_position::<TABLE_MEN>(geo, first..end, side, |i, p| {
                    let Some(p) = p else { return };
                    let mut squares = [0 as Sq; MAX_MEN];
                    for (k, m) in p.men().iter().enumerate() {
                        squares[k] = m.sq;
                    }
                    layout.fold(&mut squares[..n]);
                    let work = cells.get(layout.slot(&squares[..n]));
                    let code = built.codes.stored(work).to_le_bytes();
                    let at = (i - first) as usize * width;
                    out[at..at + width].copy_from_slice(&code[..width]);
                });
            }
            writer.write_body_at((x as u64 * entries + first) * width as u64, out)
        },
    )
}
