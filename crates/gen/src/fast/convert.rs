//! Between the stored index and the working layout.
//!
//! Owns: reading a stored table into every slot of its layout ([`load_subtable`]) and writing
//! the work table as a stored body ([`encode_body`]).
//! Must never: decide a value; it only moves codes between numberings.

use super::layout::{Layout, MAX_MEN};
use super::{Built, Subtable, CANNOT_LOSE, DECIDED, NONE, UNKNOWN};
use crate::GenError;
use rayon::prelude::*;
use retro_engine::{Geometry, Indexer, Material, Sq, TABLE_MEN};
use retro_format::Table;
use retro_rules::Side;
use std::sync::atomic::{AtomicU16, Ordering};
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
    let n = layout.men_count();
    let failure = Mutex::new(None);
    let mut codes: [Vec<u16>; 2] = [Vec::new(), Vec::new()];
    for (x, out) in codes.iter_mut().enumerate() {
        let side = Side::ALL[x];
        let mut cells = Vec::with_capacity(slots);
        cells.resize_with(slots, || AtomicU16::new(0));
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
                        u16::from(entry[0])
                    } else {
                        u16::from_le_bytes([entry[0], entry[1]])
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
                    Ok(code) => code as u16,
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
        *out = cells.into_iter().map(AtomicU16::into_inner).collect();
    }
    if let Some(e) = failure.into_inner().expect("no panics while locked") {
        return Err(e);
    }
    Ok(Subtable::new(layout, codes))
}

/// The squares of a position with its kings on `wk`, `bk` and every other man on square 0.
fn pair_squares(wk: Sq, bk: Sq, n: usize) -> Vec<Sq> {
    let mut squares = vec![0 as Sq; n];
    squares[0] = wk;
    squares[1] = bk;
    squares
}

/// The stored entry code of a work code: `0` none, `1` draw, `2 + plies` decided.
#[inline]
fn stored_code(work: u8) -> u16 {
    match work {
        NONE => 0,
        UNKNOWN | CANNOT_LOSE => 1,
        c => u16::from(c - DECIDED) + 2,
    }
}

/// The body of the stored table (both sides to move, `width` bytes an entry, in the order of
/// `indexer`) from the work table.
pub fn encode_body(geo: &Geometry, indexer: &Indexer, built: &Built, width: usize) -> Vec<u8> {
    let entries = indexer.size() as usize;
    let layout = &built.layout;
    let n = layout.men_count();
    let mut body = vec![0u8; 2 * entries * width];
    let inner = indexer.inner_size();
    for (x, out) in body.chunks_mut(entries * width).enumerate() {
        let side = Side::ALL[x];
        let cells = &built.cells[x];
        out.par_chunks_mut(width * inner as usize)
            .enumerate()
            .for_each(|(pair, out)| {
                let first = pair as u64 * inner;
                let end = first + inner;
                let (wk, bk) = indexer.king_pair(pair);
                if indexer.men_are_distinct()
                    && indexer.kings_fixed_by_identity_only(wk, bk)
                    && layout.in_region(wk)
                {
                    // Every index of the pair is canonical; its digits are a slot's last
                    // fields, and overlaps are slots of code 0.
                    let base = layout.slot(&pair_squares(wk, bk, n)) as usize;
                    let cells = cells.bytes(base as u64, base as u64 + inner);
                    for (slot, cell) in out.chunks_exact_mut(width).zip(cells) {
                        let code = stored_code(cell).to_le_bytes();
                        slot.copy_from_slice(&code[..width]);
                    }
                    return;
                }
                indexer.for_each_position::<TABLE_MEN>(geo, first..end, side, |i, p| {
                    let Some(p) = p else { return };
                    let mut squares = [0 as Sq; MAX_MEN];
                    for (k, m) in p.men().iter().enumerate() {
                        squares[k] = m.sq;
                    }
                    layout.fold(&mut squares[..n]);
                    let work = cells.get(layout.slot(&squares[..n]));
                    let code = stored_code(work).to_le_bytes();
                    let at = (i - first) as usize * width;
                    out[at..at + width].copy_from_slice(&code[..width]);
                });
            });
    }
    body
}
