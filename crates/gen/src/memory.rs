//! How much memory building a table takes, worked out from its layout before any work starts,
//! so that a table that would not fit is refused with the figure rather than killed halfway.
//!
//! Owns: [`memory_needed`], [`MemoryNeed`]; [`disk_needed`], [`DiskNeed`] (the table file
//! and the scratch files of a build).
//! Must never: allocate what it estimates, or read a table file (it sizes the smaller tables
//! from their layouts).
//!
//! The fast core's figure is the sum of what it holds for the whole build: a byte per written
//! slot and side ([`fast::layout::Layout::slots_written`]), the hints (three bits a written
//! slot and side, two above [`fast::MAX_SEPARATE_WIN_HINTS`] slots), the code sets of its
//! chunks, the en-passant positions, and the smaller tables its exits read, one byte a slot for
//! each side loaded. A table solved in slices holds one part at a time, its work table in
//! scratch files: its figure is the largest part's slots and the slices its pushes read, a
//! byte each a side, that part's hints, the windows over the tables it promotes into and the
//! other smaller tables whole (`sliced_bytes`).
//! The reference core holds two bytes an entry and side for the states and as many again for
//! the body it encodes. Both add a fixed allowance for the program itself. Measured peaks
//! (resident set) are within a few percent below the figure for tables built whole, and well
//! below it for sliced ones (KRPvKR: 361 MiB figured, about 220 MiB measured): see
//! `docs/performance.md`.

use crate::fast::layout::{Layout, RankField};
use crate::fast::{self, ep::EpLayout};
use crate::{exit_targets, CoreKind};
use retro_engine::{Geometry, Indexer, Material};

/// What the program needs beside its tables: code, thread stacks, small tables.
const ALLOWANCE: u64 = 96 << 20;

/// The memory a build of one table needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryNeed {
    /// The core that would build it.
    pub core: CoreKind,
    /// Bytes, at the build's peak.
    pub bytes: u64,
}

/// The memory building `material`'s table on `geo`'s board takes with `core` (the fast core
/// falling back to the reference core where it does not handle the board or material, as
/// [`crate::Builder`] does); `None` if the table cannot be indexed at all.
pub fn memory_needed(geo: &Geometry, material: Material, core: CoreKind) -> Option<MemoryNeed> {
    if building_core(geo, material, core) == CoreKind::Fast {
        if let Some(bytes) = fast_bytes(geo, material) {
            return Some(MemoryNeed {
                core: CoreKind::Fast,
                bytes,
            });
        }
    }
    let entries = Indexer::new(geo, material).ok()?.size();
    Some(MemoryNeed {
        core: CoreKind::Reference,
        bytes: entries
            .saturating_mul(2 * (2 + 2))
            .saturating_add(ALLOWANCE),
    })
}

/// The fast core's figure, or `None` where it declines the table.
fn fast_bytes(geo: &Geometry, material: Material) -> Option<u64> {
    if let Some(layout) = Layout::sliced(geo, material) {
        return Some(sliced_bytes(geo, material, &layout));
    }
    whole_bytes(geo, material)
}

/// The fast core's figure for `material`'s table built whole, as a table whose pawns make
/// slices is when it turns out too deep for them; `None` where the core declines it.
pub(crate) fn whole_bytes(geo: &Geometry, material: Material) -> Option<u64> {
    let layout = Layout::new(geo, material)?;
    let size = layout.size();
    let men = material.men();
    let ep = EpLayout::new(geo, &layout, &men);
    let mut bytes = 2 * layout.slots_written();
    if ep.is_none() {
        // Words of no position are never written: the hints take pages where the codes do.
        let sets = if size <= fast::MAX_SEPARATE_WIN_HINTS {
            3
        } else {
            2
        };
        bytes += 2 * sets * layout.slots_written().div_ceil(8)
            + 2 * (size / layout.square_count()).div_ceil(8);
    }
    bytes += 2 * size.div_ceil(4096) * 32;
    if let Some(ep) = &ep {
        bytes += 2 * 2 * (ep.size(0) + ep.size(1));
    }
    for read in tables_read(geo, material, false) {
        bytes += read?.bytes();
    }
    Some(bytes + ALLOWANCE)
}

/// A smaller table a build reads, as it holds it.
struct TableRead {
    /// The slots kept a side: all of its layout's, a rank field's or a window's.
    slots: u64,
    /// How many sides to move are read.
    sides: u64,
    /// Whether it is read through a window.
    windowed: bool,
}

impl TableRead {
    /// Its bytes, one a slot kept and side read.
    fn bytes(&self) -> u64 {
        self.slots * self.sides
    }
}

/// The smaller tables `material`'s build reads, in the order of [`exit_targets`]: read through
/// windows where `windowed` (a sliced build) allows; `None` for one without a layout.
fn tables_read(geo: &Geometry, material: Material, windowed: bool) -> Vec<Option<TableRead>> {
    let sides = fast::exit_sides(material);
    let fields = fast::exit_fields(geo, material);
    let windows = match windowed {
        true => fast::exit_windows(material),
        false => vec![None; sides.len()],
    };
    let capacity = fast::window_capacity(geo, material);
    exit_targets(material)
        .into_iter()
        .zip(sides)
        .zip(fields)
        .zip(windows)
        .map(|(((target, sides), field), window)| {
            let sub = Layout::new(geo, target)?;
            let slots = match (field, &window) {
                (_, Some(men)) => sub.size() / sub.square_count() * capacity * men.len() as u64,
                (Some((man, rank)), None) => {
                    RankField::new(&sub, geo.files(), man, rank).size(sub.size())
                }
                (None, None) => sub.size(),
            };
            Some(TableRead {
                slots,
                sides: sides.iter().filter(|&&s| s).count() as u64,
                windowed: window.is_some(),
            })
        })
        .collect()
}

/// The fast core's figure for a table solved in slices, its work table and larger smaller
/// tables in scratch files ([`crate::fast`]'s `slices`): what one part holds at once — its
/// slots and those its pushes read, a byte each a side, and its hints — beside the smaller
/// tables (those a promotion reads through a window only as far as the window goes, the
/// others whole, as any part may read all of them) and, for the whole table, the code sets
/// of its chunks and a bit a run.
fn sliced_bytes(geo: &Geometry, material: Material, layout: &Layout) -> u64 {
    let (_, used) = layout.slice_span(0);
    let (mut part_slots, mut part_own) = (0, 0);
    for group in layout.slice_groups() {
        let mut read: Vec<u64> = group.iter().flat_map(|&n| layout.push_targets(n)).collect();
        read.sort_unstable();
        read.dedup();
        part_slots = part_slots.max((group.len() + read.len()) as u64 * used);
        part_own = part_own.max(group.len() as u64 * used);
    }
    let size = layout.size();
    let sets = if size <= fast::MAX_SEPARATE_WIN_HINTS {
        3
    } else {
        2
    };
    let mut bytes = 2 * part_slots + 2 * sets * part_own.div_ceil(8);
    bytes += 2 * size.div_ceil(4096) * 33 + 2 * (size / layout.square_count()).div_ceil(8);
    bytes += tables_read(geo, material, true)
        .iter()
        .flatten()
        .map(TableRead::bytes)
        .sum::<u64>();
    bytes + ALLOWANCE
}

/// The memory each rank of a build of `material`'s table partitioned over `ranks` ranks takes
/// (the reference core on its part of the index); `None` if the table cannot be indexed.
///
/// Twelve bytes an entry held: four of work entries, half a byte of frontier bitmaps, and what
/// the passes add (exchange buffers, positions waiting for a later depth), which is uneven
/// between ranks; with twice the usual allowance this covers the peaks measured on KQRvKR over
/// 2 to 4 ranks (docs/scaling.md: up to 500 MiB for a rank of 30 million entries).
pub fn partitioned_bytes(geo: &Geometry, material: Material, ranks: usize) -> Option<u64> {
    let entries = Indexer::new(geo, material).ok()?.size();
    let part = entries.div_ceil(ranks.max(1) as u64);
    Some(part.saturating_mul(12).saturating_add(2 * ALLOWANCE))
}

/// The disk a build of one table writes: its table file and the scratch files it keeps
/// while it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiskNeed {
    /// The raw table file, at one byte an entry and side (two where mates are longer than a
    /// byte holds, which only the build finds out).
    pub table: u64,
    /// Scratch files, removed when the build ends, beyond the table file's bytes at the
    /// build's peak: a sliced build's slices of the work table still read (two bytes a slot)
    /// beside the parts it has stored for the table file (which the table file takes the place
    /// of at the end), and the larger smaller tables it keeps in files.
    pub scratch: u64,
    /// What more the build writes if its mates turn out longer than a byte holds (which only
    /// the build finds out): the table file's second byte an entry and side, and the first
    /// snapshot of its work tables, a byte a written slot and side, kept until the file is
    /// written (`fast::rebase`; a sliced table that deep is built again whole, so its figure
    /// is the whole layout's).
    pub deep: u64,
}

/// The memory the fifty-move passes ([`crate::fifty`]) need to build `material`'s DTZ50 and
/// WDL50 tables on `geo`'s board with `core`, at most `limit` bytes if given: with the fast
/// core's moves where they apply and fit ([`fifty_fast_bytes`]), else with the engine's
/// ([`fifty_plain_bytes`]). `None` if the table cannot be indexed.
pub fn fifty_bytes(
    geo: &Geometry,
    material: Material,
    core: CoreKind,
    limit: Option<u64>,
) -> Option<u64> {
    match fifty_takes_fast_moves(geo, material, core, limit) {
        true => fifty_fast_bytes(geo, material, core),
        false => fifty_plain_bytes(geo, material),
    }
}

/// Whether the fifty-move passes build `material`'s tables with the fast core's moves: where
/// those apply and their memory ([`fifty_fast_bytes`]) is at most `limit`, if given. The run's
/// plan and the build both ask this, so that the figure a run is refused or admitted by is
/// that of the build it makes.
pub(crate) fn fifty_takes_fast_moves(
    geo: &Geometry,
    material: Material,
    core: CoreKind,
    limit: Option<u64>,
) -> bool {
    fifty_fast_bytes(geo, material, core)
        .is_some_and(|bytes| limit.is_none_or(|limit| bytes <= limit))
}

/// The memory the fifty-move passes need with the fast core's moves, where those apply (a
/// board of at most 64 squares): a 16-bit word a slot and side and one an en-passant number
/// and side, four sets of a bit a slot and side where losses come from ways out
/// (`fast::fifty`), the smaller tables' WDL50 companions a byte a slot and side, and room for
/// the positions decided at one depth (a fifth of the slots, eight bytes each).
pub fn fifty_fast_bytes(geo: &Geometry, material: Material, core: CoreKind) -> Option<u64> {
    if building_core(geo, material, core) != CoreKind::Fast {
        return None;
    }
    let layout = fast::fifty::layout(geo, material)?;
    let smaller: u64 = exit_targets(material)
        .into_iter()
        .filter_map(|m| Layout::new(geo, m))
        .map(|sub| 2 * sub.size())
        .sum();
    let en_passant =
        EpLayout::new(geo, &layout, &material.men()).map_or(0, |ep| 2 * (ep.size(0) + ep.size(1)));
    Some(
        layout
            .size()
            // Words, the four sets of a bit a side (a byte), the depth's positions.
            .saturating_mul(2 * 2 + 1 + 2 * 8 / 5)
            .saturating_add(en_passant)
            .saturating_add(smaller)
            .saturating_add(ALLOWANCE),
    )
}

/// The memory the fifty-move passes need with the engine's moves: a 16-bit word and a level
/// byte an entry and side, and room for the positions decided at one depth (a fifth of the
/// entries, eight bytes each). `None` if the table cannot be indexed.
pub fn fifty_plain_bytes(geo: &Geometry, material: Material) -> Option<u64> {
    let entries = Indexer::new(geo, material).ok()?.size();
    Some(
        entries
            .saturating_mul(2 * (2 + 1) + 2 * 8 / 5)
            .saturating_add(ALLOWANCE),
    )
}

/// The disk the fifty-move core writes for `material`'s tables: the DTZ50 file at a byte an
/// entry and side (two where a distance passes 126 plies, which only the build finds out: its
/// `deep`) and the WDL50 file at one; no scratch.
pub fn fifty_disk(geo: &Geometry, material: Material) -> Option<DiskNeed> {
    let entries = Indexer::new(geo, material).ok()?.size();
    Some(DiskNeed {
        table: 2 * entries + 2 * entries,
        scratch: 0,
        deep: 2 * entries,
    })
}

/// The slices `core` solves `material`'s table on `geo`'s board in, if it does: the fast core,
/// on a material in its own colours whose pawns make slices ([`Layout::sliced`]).
pub(crate) fn sliced_layout(geo: &Geometry, material: Material, core: CoreKind) -> Option<Layout> {
    (building_core(geo, material, core) == CoreKind::Fast)
        .then(|| Layout::sliced(geo, material))
        .flatten()
}

/// The core that builds `material`'s table on `geo`'s board when `core` is asked for: the fast
/// core takes canonical materials on boards of 2 to [`fast::bits::MAX_SQUARES`] squares, the
/// reference core everything else. Every figure of a build is worked out for this core.
pub fn building_core(geo: &Geometry, material: Material, core: CoreKind) -> CoreKind {
    let fast = core == CoreKind::Fast
        && material.is_canonical()
        && (2..=fast::bits::MAX_SQUARES).contains(&geo.square_count());
    match fast {
        true => CoreKind::Fast,
        false => CoreKind::Reference,
    }
}

/// The disk building `material`'s table on `geo`'s board with `core` writes ([`DiskNeed`]);
/// `None` if the table cannot be indexed at all.
pub fn disk_needed(geo: &Geometry, material: Material, core: CoreKind) -> Option<DiskNeed> {
    let table = 2 * Indexer::new(geo, material).ok()?.size();
    // The reference core keeps no snapshots: its entries hold any depth.
    let snapshot = match building_core(geo, material, core) {
        CoreKind::Fast => Layout::new(geo, material).map_or(0, |whole| 2 * whole.slots_written()),
        CoreKind::Reference => 0,
    };
    let deep = table + snapshot;
    let Some(layout) = sliced_layout(geo, material, core) else {
        return Some(DiskNeed {
            table,
            scratch: 0,
            deep,
        });
    };
    // The tables read whole that `load_subtable` keeps in files.
    let kept_in_files = tables_read(geo, material, true)
        .into_iter()
        .flatten()
        .filter(|read| !read.windowed && read.slots > fast::convert::PAGED_SUBTABLE_SLOTS);
    let used = 2 * layout.slices_used();
    let slices = match used > fast::MAX_SLICES_KEPT {
        true => sliced_scratch(&layout, table),
        false => used,
    };
    let scratch = slices + kept_in_files.map(|read| read.bytes()).sum::<u64>();
    Some(DiskNeed {
        table,
        scratch,
        deep,
    })
}

/// The most a sliced build of `layout`'s table (`table` bytes, a byte an entry and side) that
/// stores its parts ([`fast::MAX_SLICES_KEPT`]) keeps on disk at once beyond the bytes of its
/// table file: the slices of its work table not
/// yet released (two bytes a slot, each part's reserved when it starts) beside the parts
/// stored so far in the order of the index (their share of `table`). The table file is written
/// at the end, each stretch of the store given back as it is gathered.
fn sliced_scratch(layout: &Layout, table: u64) -> u64 {
    let groups = layout.slice_groups();
    let released = layout.slices_released(&groups);
    let slots = |numbers: &[u64]| -> u64 {
        numbers
            .iter()
            .map(|&number| {
                let (first, end) = layout.slice_span(number);
                end - first
            })
            .sum()
    };
    let total = slots(&groups.concat()).max(1);
    let (mut live, mut solved, mut peak) = (0u64, 0u64, 0u64);
    for (group, freed) in groups.iter().zip(&released) {
        live += 2 * slots(group);
        solved += slots(group);
        let stored = (table as u128 * solved as u128 / total as u128) as u64;
        peak = peak.max(live + stored);
        live -= 2 * slots(freed);
    }
    peak.saturating_sub(table)
}

/// `bytes` in GiB to one decimal (in MiB below one GiB), for messages.
pub fn gib(bytes: u64) -> String {
    match bytes {
        0..0x4000_0000 => format!("{:.0} MiB", bytes as f64 / (1u64 << 20) as f64),
        _ => format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_rules::Board;

    /// Every board from 1×1 to 16×16: the figures are worked out for the core that builds the
    /// table (the reference core past 64 squares and on a single square), without a panic.
    #[test]
    fn figures_on_every_board_are_those_of_the_building_core() {
        for files in 1..=16 {
            for ranks in 1..=16 {
                let geo = Geometry::new(Board::new(files, ranks).unwrap());
                for name in ["KvK", "KRvK", "KPvK", "KRPvKR"] {
                    let material = Material::parse(name).unwrap();
                    let core = building_core(&geo, material, CoreKind::Fast);
                    let fast = (2..=64).contains(&(files * ranks));
                    assert_eq!(core == CoreKind::Fast, fast, "{name} on {files}x{ranks}");
                    if let Some(need) = memory_needed(&geo, material, CoreKind::Fast) {
                        assert_eq!(need.core, core, "{name} on {files}x{ranks}");
                    }
                    let _ = disk_needed(&geo, material, CoreKind::Fast);
                    let _ = disk_needed(&geo, material, CoreKind::Reference);
                }
            }
        }
    }

    fn need(name: &str) -> MemoryNeed {
        let geo = Geometry::new(Board::STANDARD);
        memory_needed(&geo, Material::parse(name).unwrap(), CoreKind::Fast).unwrap()
    }

    /// A six-man pawnless table writes only the blocks of its 462 king pairs that hold
    /// positions (the stored index's pairs), of 640 blocks of 64⁴ slots a side.
    #[test]
    fn six_men_write_only_the_king_pairs_of_positions() {
        let geo = Geometry::new(Board::STANDARD);
        let six = Layout::new(&geo, Material::parse("KRNvKNN").unwrap()).unwrap();
        assert_eq!(six.size(), 10 * 64u64.pow(5));
        assert_eq!(six.slots_written(), 462 * 64u64.pow(4));
        let indexer = Indexer::new(&geo, Material::parse("KRNvKNN").unwrap()).unwrap();
        assert_eq!(indexer.king_pairs(), 462);
        let five = Layout::new(&geo, Material::parse("KRBvKR").unwrap()).unwrap();
        assert_eq!(five.slots_written(), five.size());
    }

    /// A table deeper than a byte writes its file again at two bytes an entry and keeps one
    /// snapshot of its work tables: for a six-man pawnless table, a byte a side for each slot
    /// of its 462 king pairs' blocks of 64⁴ slots. The reference core keeps no snapshot.
    #[test]
    fn a_deep_table_needs_its_second_byte_and_a_snapshot() {
        let geo = Geometry::new(Board::STANDARD);
        let krnknn = Material::parse("KRNvKNN").unwrap();
        let entries = Indexer::new(&geo, krnknn).unwrap().size();
        let fast = disk_needed(&geo, krnknn, CoreKind::Fast).unwrap();
        assert_eq!(fast.table, 2 * entries);
        assert_eq!(fast.deep, 2 * entries + 2 * 462 * 64u64.pow(4));
        let reference = disk_needed(&geo, krnknn, CoreKind::Reference).unwrap();
        assert_eq!(reference.deep, reference.table);
    }

    /// A table solved in slices holds a part at a time: its figure, smaller tables and all, is
    /// below half the two bytes a slot of its whole work table, and above the bytes of one part and the slices its
    /// pushes read.
    #[test]
    fn sliced_tables_need_a_part_at_a_time() {
        let geo = Geometry::new(Board::STANDARD);
        let material = Material::parse("KRPvKR").unwrap();
        let layout = Layout::sliced(&geo, material).unwrap();
        let figure = need("KRPvKR");
        assert_eq!(figure.core, CoreKind::Fast);
        assert!(figure.bytes < layout.size(), "{}", gib(figure.bytes));
        let (first, end) = layout.slice_span(0);
        // A pawn on its second rank: its slice and its mirror's, and the two slices each of
        // its pushes reaches.
        assert!(
            figure.bytes > 2 * 6 * (end - first),
            "{}",
            gib(figure.bytes)
        );
    }

    /// A sliced build keeps two bytes a slot of its used slices on disk — for KRPvKR, the pawn
    /// on one of 48 squares, the White king on 32, the other three men anywhere — unless they
    /// would take more than [`fast::MAX_SLICES_KEPT`]; then, at its peak, the parts it has
    /// stored for the table file (a byte an entry and side, as the table file later) and the
    /// slices still read. A table built whole keeps none.
    #[test]
    fn scratch_is_the_used_slices_or_the_slices_still_read() {
        let geo = Geometry::new(Board::STANDARD);
        let disk =
            |name: &str| disk_needed(&geo, Material::parse(name).unwrap(), CoreKind::Fast).unwrap();
        let krpkr = disk("KRPvKR");
        let entries = Indexer::new(&geo, Material::parse("KRPvKR").unwrap())
            .unwrap()
            .size();
        assert_eq!(krpkr.table, 2 * entries);
        assert_eq!(krpkr.scratch, 2 * 48 * 32 * 64u64.pow(3));
        // KRRPvKR's slices (the White king on 32 squares, the four other men anywhere) would
        // take 48 GiB: it stores its parts, and keeps at most the last file's three
        // placements' slices, each with its mirror, beside the parts stored (and the five-man
        // tables it reads whole, under 4 GiB).
        let krrpkr = disk("KRRPvKR");
        let slice = 32 * 64u64.pow(4);
        assert!(2 * 48 * slice > fast::MAX_SLICES_KEPT);
        assert!(krrpkr.scratch >= 2 * 6 * slice, "{}", gib(krrpkr.scratch));
        assert!(
            krrpkr.scratch < 2 * 6 * slice + (4 << 30),
            "{}",
            gib(krrpkr.scratch)
        );
        assert_eq!(disk("KRBvKR").scratch, 0);
        assert_eq!(disk("KPPvKP").scratch, 0);
    }

    /// The figures order the tables as their sizes do, and a six-man table on 8×8 fits the
    /// 20 GiB the fast core is held to, with two sets of hints a side.
    #[test]
    fn figures_follow_the_layouts() {
        let krbkr = need("KRBvKR");
        // Two bytes a slot, three bits more for the hints, the smaller tables beside.
        let slots = 10 * 64u64.pow(4);
        assert!(krbkr.bytes > 2 * slots + 6 * slots / 8);
        assert!(krbkr.bytes < 2 * slots + 6 * slots / 8 + (160 << 20));
        let six = need("KQRvKQR");
        assert_eq!(six.core, CoreKind::Fast);
        assert!(six.bytes > 2 * 462 * 64u64.pow(4) + 4 * 462 * 64u64.pow(4) / 8);
        assert!(six.bytes < 20 << 30, "{}", gib(six.bytes));
        let reference = memory_needed(
            &Geometry::new(Board::STANDARD),
            Material::parse("KQRvKQR").unwrap(),
            CoreKind::Reference,
        )
        .unwrap();
        assert_eq!(reference.core, CoreKind::Reference);
        assert!(reference.bytes > 8 * 462 * 64u64.pow(4));
    }
}
