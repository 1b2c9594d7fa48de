//! The best exit of every position of a stored table, by the fast core's moves: the pass over a
//! whole side that packing makes, and every reader of a packed file that leaves exit-decided
//! entries to its exits ([`crate::exit_codes`], [`crate::restore_packed`]).
//!
//! Owns: [`best_exits`], one king pair of the stored index at a time, each entry's slot from
//! the walk the writers use (`index_walk`), its captures and promotions from the moves the
//! init pass uses (`Core::for_each_leaving_move_but`), read in the smaller tables loaded into
//! their layouts.
//! Must never: decide an entry (it reports what the exits reach; the caller weighs that against
//! the stored value), or be trusted: tests hold it to the engine's pass entry for entry, a
//! reader's rebuilt stream is checked against the value stream's hash, and `retro verify`
//! proves the tables.

use super::convert::Kept;
use super::index_walk::{group_fields, PairWalk, Stretch};
use super::*;
use retro_engine::Indexer;
use retro_format::TableKind;

/// The entry [`best_exits`] gives an index that is no legal position.
pub const NO_LEGAL_POSITION: u16 = u16::MAX;

/// By raw index of `material`'s table with side `x` (0 White) to move: the best code, for the
/// side to move, among its legal captures and promotions, each child's entry read in its table
/// and seen from the mover (`TableKind::through_exit` of `kind`, the best by
/// `TableKind::better_code`); 0 where it has none, [`NO_LEGAL_POSITION`] where the index is no
/// legal position; 0 too, without looking at the exits, where `settled` says the index needs
/// none. `subs` are the tables of [`exit_targets`] in that order, loaded whole
/// ([`super::convert::load_subtable`]) with the sides [`exit_sides`] names.
///
/// Declines a board or material outside the slot layout, and a table with en-passant positions
/// (pawns of both sides), whose stored index numbers more than the layout's slots.
pub fn best_exits(
    geo: &Geometry,
    material: Material,
    subs: &[Subtable],
    kind: TableKind,
    x: usize,
    settled: &(dyn Fn(u64) -> bool + Sync),
) -> Result<Vec<u16>, Declined> {
    if subs.iter().any(|sub| !matches!(sub.kept, Kept::All)) {
        return Err(Declined::Unsupported);
    }
    let layout = Layout::new(geo, material).ok_or(Declined::Unsupported)?;
    let bits = Bits::new(geo).ok_or(Declined::Unsupported)?;
    if EpLayout::new(geo, &layout, &material.men()).is_some() {
        return Err(Declined::Unsupported);
    }
    let indexer = Indexer::new(geo, material).map_err(|_| Declined::Unsupported)?;
    let parts = Parts::new(geo, material, &bits, &layout, None, subs, Tuning::default());
    match material.men().len() {
        2 => side_exits::<2>(&parts, &indexer, kind, x, settled),
        3 => side_exits::<3>(&parts, &indexer, kind, x, settled),
        4 => side_exits::<4>(&parts, &indexer, kind, x, settled),
        5 => side_exits::<5>(&parts, &indexer, kind, x, settled),
        6 => side_exits::<6>(&parts, &indexer, kind, x, settled),
        7 => side_exits::<7>(&parts, &indexer, kind, x, settled),
        8 => side_exits::<8>(&parts, &indexer, kind, x, settled),
        _ => Err(Declined::Unsupported),
    }
}

fn side_exits<const N: usize>(
    parts: &Parts<'_>,
    indexer: &Indexer,
    kind: TableKind,
    x: usize,
    settled: &(dyn Fn(u64) -> bool + Sync),
) -> Result<Vec<u16>, Declined> {
    let core = Core::<N>::new(parts, WorkCodes::new(0, None), &Mode::moves_only(), 0, None)?;
    let (geo, layout) = (parts.geo, parts.layout);
    let groups = group_fields(indexer);
    let inner = usize::try_from(indexer.inner_size()).map_err(|_| Declined::Unsupported)?;
    let entries = usize::try_from(indexer.size()).map_err(|_| Declined::Unsupported)?;
    let mut out = vec![NO_LEGAL_POSITION; entries];
    out.par_chunks_mut(inner.max(1))
        .enumerate()
        .for_each(|(pair, chunk)| {
            let first = (pair * inner) as u64;
            let best = |at: usize, slot: u64| {
                let look = !settled(first + at as u64);
                core.best_exit(slot, x, kind, look)
            };
            let walk = PairWalk::new(geo, indexer, layout, groups.as_deref());
            walk.for_each_stretch(Side::ALL[x], pair, None, |stretch| match stretch {
                Stretch::Run(run) => {
                    for k in 0..run.len {
                        if run.is_position(layout, k) {
                            chunk[run.at + k] = best(run.at + k, run.base + k as u64 * run.stride);
                        }
                    }
                }
                Stretch::One { at, slot } => chunk[at] = best(at, slot),
            });
        });
    Ok(out)
}

impl<const N: usize> Core<'_, N> {
    /// [`best_exits`] of one slot, side `x` to move; 0 for a position where not `look`.
    fn best_exit(&self, slot: u64, x: usize, kind: TableKind, look: bool) -> u16 {
        let Some(p) = self.place(slot) else {
            return NO_LEGAL_POSITION;
        };
        if (0..N).any(|i| self.shared.allowed[i] & (1 << p.sq[i]) == 0) {
            return NO_LEGAL_POSITION;
        }
        // The mover's men's attacks alone: the exits and the legality need no others.
        let mut attacks = [0 as Board64; N];
        let side = &self.shared.side_men[x][..self.shared.side_len[x]];
        for &i in side {
            attacks[i] = self.man_attacks(i, p.sq[i], p.occ);
        }
        // The side not to move in check (its king beside the other, too): no position.
        let their_king = 1u64 << p.sq[1 - x];
        if side.iter().any(|&i| attacks[i] & their_king != 0) {
            return NO_LEGAL_POSITION;
        }
        let mut best = 0u32;
        if !look {
            return 0;
        }
        self.for_each_leaving_move_but(&p, &attacks, x, &[0; N], |after, rule| {
            if kind.nothing_better(best) {
                return;
            }
            // A child of no position: the move left the mover's king in check.
            match u32::from(self.exit_code(after, rule, x)) {
                0 => {}
                child => best = kind.better_code(best, kind.through_exit(child)),
            }
        });
        best as u16
    }
}
