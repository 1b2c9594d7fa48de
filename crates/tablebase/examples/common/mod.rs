//! What the size examples share: a value for every legal position of one side of a table.

use rayon::prelude::*;
use retro_engine::{Geometry, Indexer, Position};
use retro_rules::Side;

/// By index, `value` of the position with `stm` to move (`None` for a gap, an illegal
/// position, or where `value` gives none), found in parallel over pieces of the index.
pub fn by_index<T: Send>(
    indexer: &Indexer,
    geo: &Geometry,
    stm: Side,
    value: impl Fn(&Position<8>) -> Option<T> + Sync,
) -> Vec<Option<T>> {
    let entries = indexer.size();
    let piece = 1u64 << 16;
    (0..entries.div_ceil(piece))
        .into_par_iter()
        .flat_map_iter(|k| {
            let start = k * piece;
            let end = (start + piece).min(entries);
            let mut out = Vec::with_capacity((end - start) as usize);
            indexer.for_each_position::<8>(geo, start..end, stm, |_, p| {
                out.push(p.filter(|p| p.is_legal(geo)).and_then(|p| value(&p)));
            });
            out
        })
        .collect()
}
