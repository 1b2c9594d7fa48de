//! Putting back the entries a packed table leaves out: the code 0 of every index that is no
//! legal position.
//!
//! Owns: [`restore_illegal`], which a reader of packed files installs
//! (`retro_format::install_restorer`) so that a file whose illegal positions' entries hold any
//! value reads whole as the raw table did.
//! Must never: change the entry of a legal position. What it puts back is checked by the
//! reader against the value stream's hash, so a wrong restoration is an error, never a value.

use crate::{Geometry, Indexer, Material, TABLE_MEN};
use rayon::prelude::*;
use retro_rules::{Board, Side};

/// Indices a task walks.
const PIECE: u64 = 1 << 16;

/// Sets to 0 the entry of every index of one side (White's when `white_to_move`) of the table
/// of `material` on a `files × ranks` board that is a gap of the index or an illegal position;
/// `side` holds the side's entries in index order, `width` bytes each.
pub fn restore_illegal(
    material: &str,
    files: u8,
    ranks: u8,
    white_to_move: bool,
    width: usize,
    side: &mut [u8],
) -> Result<(), String> {
    let board = Board::new(usize::from(files), usize::from(ranks)).map_err(|e| e.to_string())?;
    let geo = Geometry::new(board);
    let material = Material::parse(material).map_err(|e| e.to_string())?;
    let indexer = Indexer::new(&geo, material).map_err(|e| e.to_string())?;
    let entries = indexer.size();
    if width == 0 || side.len() as u64 != entries * width as u64 {
        return Err(format!(
            "{} bytes for {entries} entries of {width} bytes",
            side.len()
        ));
    }
    let stm = if white_to_move {
        Side::White
    } else {
        Side::Black
    };
    side.par_chunks_mut(PIECE as usize * width)
        .enumerate()
        .for_each(|(k, chunk)| {
            let start = k as u64 * PIECE;
            let end = start + (chunk.len() / width) as u64;
            indexer.for_each_position::<TABLE_MEN>(&geo, start..end, stm, |i, p| {
                if !p.is_some_and(|p| p.is_legal(&geo)) {
                    let at = (i - start) as usize * width;
                    chunk[at..at + width].fill(0);
                }
            });
        });
    Ok(())
}
