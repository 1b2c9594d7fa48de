//! What a table's exits give, entry by entry, for packed files that store any value no better
//! where an exit decides ([`retro_format::exits`]): the codes a packer needs, and the
//! [`retro_format::Restorer`] that puts a packed side back whole.
//!
//! Owns: [`exit_codes`] (by raw index, the code of a side's best capture or promotion, from the
//! smaller tables, opened whole: a pass over the side, not a probe an entry; for DTZ50 the
//! draws of the material's WDL50 table and the wins a zeroing move keeps,
//! [`retro_format::exits::dtz50_decided`]) and [`restore_packed`], which every reader of
//! packed files installs.
//! Must never: change the entry of a legal position that nothing decides (no exit, and for
//! DTZ50 neither a draw of its WDL50 table nor a win its zeroing move keeps). What it rebuilds is
//! checked against the value stream's hash by the reader, and proved by `retro verify`.

use crate::subtables::Subtables;
use crate::{fast, Builder, GenError};
use rayon::prelude::*;
use retro_engine::{Indexer, Material, TABLE_MEN};
use retro_format::exits::{dtz50_decided, dtz50_needs_zeroing, SideSearch};
use retro_format::{Dtz, Restore, TableKind};
use retro_rules::{Board, Side};
use std::path::Path;
use std::sync::OnceLock;

/// Indices a task walks.
const PIECE: usize = 1 << 16;

/// What decides a table's entries besides its own file, opened once for both sides.
enum Decider {
    /// DTM and WDL50: the smaller tables of the kind its exits lead into.
    Exits(Subtables),
    /// DTZ50: the material's own WDL50 table (whose draws are the DTZ50 file's don't-cares,
    /// and which gives the class a pawn move reaches), the WDL50 tables its exits lead into
    /// (the class a capture or promotion reaches), and the plies the rule allows.
    Companion {
        table: retro_format::Table,
        exits: Subtables,
        rule_plies: u32,
    },
}

/// One pass over a table's positions with the code that decides each ([`Decider`]).
struct ExitPass {
    builder: Builder,
    indexer: Indexer,
    decider: Decider,
    kind: TableKind,
    /// For the fast core's pass ([`crate::fast::exit_pass`]), the tables the exits lead into
    /// loaded into their layouts, once; `None` where it does not apply (or is not wanted), and
    /// the engine's moves find the exits.
    fast: OnceLock<Option<Vec<fast::Subtable>>>,
    /// Whether the fast core's pass may be used.
    fast_allowed: bool,
}

impl ExitPass {
    /// The pass over `material`'s table of `kind` (canonical material) on `board`, its exits'
    /// tables read whole from `dir` (and shared with later calls while they fit:
    /// [`crate::subtables::SHARED_TABLE_BYTES`]).
    fn new(
        board: Board,
        dir: &Path,
        kind: TableKind,
        material: Material,
    ) -> Result<Self, GenError> {
        let builder = Builder::new(board, dir);
        let indexer = Indexer::new(&builder.geo, material).map_err(|e| GenError::Unsupported {
            material: material.to_string(),
            reason: e.to_string(),
        })?;
        let decider = match kind {
            TableKind::Dtz50 => {
                let path = builder.kind_path_of(TableKind::Wdl50, material);
                let companion = retro_format::Table::open(&path)?;
                crate::builder::expect_material(&companion, material)?;
                if companion.header().entries_per_side != indexer.size() {
                    return Err(GenError::Inconsistent {
                        material: material.to_string(),
                        fen: format!(
                            "{}: {} entries a side, the table {}",
                            path.display(),
                            companion.header().entries_per_side,
                            indexer.size()
                        ),
                    });
                }
                Decider::Companion {
                    rule_plies: u32::from(companion.header().rule_plies),
                    table: companion,
                    exits: Subtables::open_shared(&builder, material, TableKind::Wdl50)?,
                }
            }
            _ => Decider::Exits(Subtables::open_shared(&builder, material, kind)?),
        };
        Ok(ExitPass {
            builder,
            indexer,
            decider,
            kind,
            fast: OnceLock::new(),
            fast_allowed: true,
        })
    }

    /// The best exits of side `stm` by the fast core's moves ([`fast::exit_pass::best_exits`]),
    /// where they apply to the material and the tables its exits lead into; `None` elsewhere.
    fn fast_exits(
        &self,
        stm: Side,
        exits: &Subtables,
        kind: TableKind,
        settled: &(dyn Fn(u64) -> bool + Sync),
    ) -> Result<Option<Vec<u16>>, GenError> {
        // The smaller tables' layouts come on top of the memory a reader plans for: a
        // six-man table's (five-man layouts, up to 2 GB) is left to the engine's pass.
        if !self.fast_allowed || self.indexer.material().len() > 5 {
            return Ok(None);
        }
        let geo = &self.builder.geo;
        let material = self.indexer.material();
        let loaded = self.fast.get_or_init(|| {
            let sides = fast::exit_sides(material);
            let tables = exits.tables();
            (tables.len() == sides.len() && fast::layout::Layout::new(geo, material).is_some())
                .then(|| {
                    tables
                        .zip(sides)
                        .map(|((target, table), sides)| {
                            fast::convert::load_subtable(geo, table, target, sides, None, None)
                        })
                        .collect::<Result<Vec<_>, _>>()
                        .ok()
                })
                .flatten()
        });
        let Some(subs) = loaded else {
            return Ok(None);
        };
        let x = usize::from(stm == Side::Black);
        match fast::exit_pass::best_exits(geo, material, subs, kind, x, settled) {
            Ok(found) => Ok(Some(found)),
            Err(fast::Declined::Failed(e)) => Err(e),
            Err(_) => Ok(None),
        }
    }

    /// Calls `write` with each entry of one side (`width` elements each of `side`, in raw index
    /// order) and, for a legal position, the code that decides it: its best exit's for the side
    /// to move (0: none; 0 without looking at the exits where `settled` says the entry needs
    /// none), or for DTZ50 what its WDL50 class and zeroing moves decide
    /// ([`retro_format::exits::dtz50_decided`]); `None` for an index that is no legal
    /// position. Positions are decoded once (DTZ50 decodes only its wins: the WDL50 table's 0
    /// marks the illegal ones), the side in pieces on every core.
    fn side<T: Send + Sync>(
        &self,
        stm: Side,
        side: &mut [T],
        width: usize,
        settled: impl Fn(&[T]) -> bool + Sync,
        write: impl Fn(&mut [T], Option<u32>) + Sync,
    ) -> Result<(), GenError> {
        let (geo, kind) = (&self.builder.geo, self.kind);
        if side.len() as u64 != self.indexer.size() * width as u64 {
            return Err(GenError::Inconsistent {
                material: self.indexer.material().to_string(),
                fen: format!(
                    "{} entries for {} indices",
                    side.len() / width.max(1),
                    self.indexer.size()
                ),
            });
        }
        let subtables = match &self.decider {
            Decider::Companion {
                table,
                exits,
                rule_plies,
            } => {
                // A drawn position's entry is the companion's draw, a won one's the win its
                // zeroing move keeps (`dtz50_decided`); the companion's 0s are the illegal ones.
                let codes = (table.codes(true), table.codes(false));
                let own = if stm == Side::White { codes.0 } else { codes.1 };
                let theirs = if stm == Side::White { codes.1 } else { codes.0 };
                let zeroing = |p: &retro_engine::TablePosition, class: u32| {
                    let mut found = Ok(0);
                    p.for_each_zeroing_move(geo, |mv| {
                        if !matches!(found, Ok(0)) {
                            return;
                        }
                        let child = p.play(geo, &mv);
                        let code = match mv.leaves_material() {
                            true => exits.code(geo, &child),
                            false => self.own_code(&theirs, &child),
                        };
                        found = code.map(|c| match TableKind::Wdl50.through_exit(c) {
                            c if c == class => c,
                            _ => 0,
                        });
                    });
                    found
                };
                // Without pawns the zeroing moves are the exits, and one keeps the class
                // exactly where the best exit's class is the position's (none is better).
                let best_exits = match self.indexer.material().has_pawns() {
                    true => None,
                    false => {
                        let needless = |index: u64| {
                            let at = index as usize * width;
                            let class = own.get(index).unwrap_or(0);
                            !dtz50_needs_zeroing(class) || settled(&side[at..at + width])
                        };
                        self.fast_exits(stm, exits, TableKind::Wdl50, &needless)?
                    }
                };
                return side.par_chunks_mut(PIECE * width).enumerate().try_for_each(
                    |(k, chunk)| {
                        let start = (k * PIECE) as u64;
                        for (i, entry) in chunk.chunks_mut(width).enumerate() {
                            let index = start + i as u64;
                            let class = match own.get(index).unwrap_or(0) {
                                0 => {
                                    write(entry, None);
                                    continue;
                                }
                                class => class,
                            };
                            let mut best = 0;
                            if let Some(found) = &best_exits {
                                // 0 where no zeroing move was needed.
                                if u32::from(found[index as usize]) == class {
                                    best = class;
                                }
                            } else if dtz50_needs_zeroing(class) && !settled(entry) {
                                let p = self
                                    .indexer
                                    .position::<TABLE_MEN>(geo, index, stm)
                                    .ok_or_else(|| self.inconsistent(index))?;
                                best = zeroing(&p, class)?;
                            }
                            write(entry, Some(dtz50_decided(class, best, *rule_plies)));
                        }
                        Ok(())
                    },
                );
            }
            Decider::Exits(subtables) => subtables,
        };
        let at = |index: u64| {
            let at = index as usize * width;
            &side[at..at + width]
        };
        let found = self.fast_exits(stm, subtables, kind, &|index| settled(at(index)))?;
        if let Some(found) = found {
            side.par_chunks_mut(PIECE * width)
                .zip(found.par_chunks(PIECE))
                .for_each(|(chunk, found)| {
                    for (entry, &exit) in chunk.chunks_mut(width).zip(found) {
                        match exit {
                            fast::exit_pass::NO_LEGAL_POSITION => write(entry, None),
                            exit => write(entry, Some(u32::from(exit))),
                        }
                    }
                });
            return Ok(());
        }
        side.par_chunks_mut(PIECE * width)
            .enumerate()
            .try_for_each(|(k, chunk)| {
                let start = (k * PIECE) as u64;
                let end = start + (chunk.len() / width) as u64;
                let mut failed = None;
                self.indexer
                    .for_each_position::<TABLE_MEN>(geo, start..end, stm, |i, p| {
                        let at = (i - start) as usize * width;
                        let entry = &mut chunk[at..at + width];
                        let Some(p) = p.filter(|p| p.is_legal(geo)) else {
                            write(entry, None);
                            return;
                        };
                        let mut best = 0u32;
                        if !settled(entry) {
                            p.for_each_exit(geo, |mv| {
                                if kind.nothing_better(best) {
                                    return;
                                }
                                match subtables.code(geo, &p.play(geo, &mv)) {
                                    Ok(child) => {
                                        best = kind.better_code(best, kind.through_exit(child))
                                    }
                                    Err(e) => failed = Some(e),
                                }
                            });
                        }
                        write(entry, Some(best));
                    });
                failed.map_or(Ok(()), Err)
            })
    }
}

impl ExitPass {
    /// Rebuilds a side that its packed file leaves out (`side`, `stm` to move, `width` bytes an
    /// entry, every entry 0) from the other side (`kept`, whole) by a one-ply search at each
    /// legal position ([`SideSearch`]): in DTM every move by its child's entry, in `kept` or,
    /// after a capture or a promotion, in the table it leads into; in DTZ50, where the
    /// companion says which positions are legal and a drawn one's entry is its draw, a zeroing
    /// move by the WDL50 class it reaches (the companion's other side, or the tables its exits
    /// lead into), any other by `kept`'s entry.
    fn rebuild_side(
        &self,
        stm: Side,
        side: &mut [u8],
        kept: &[u8],
        width: usize,
    ) -> Result<(), GenError> {
        let geo = &self.builder.geo;
        let put = |entry: &mut [u8], code: u32| match width {
            1 => entry[0] = code as u8,
            _ => entry.copy_from_slice(&(code as u16).to_le_bytes()),
        };
        let (table, exits, rule_plies) = match &self.decider {
            Decider::Exits(exits) => {
                return side.par_chunks_mut(PIECE * width).enumerate().try_for_each(
                    |(k, chunk)| {
                        let start = (k * PIECE) as u64;
                        let end = start + (chunk.len() / width) as u64;
                        let mut failed = Ok(());
                        self.indexer.for_each_position::<TABLE_MEN>(
                            geo,
                            start..end,
                            stm,
                            |i, p| {
                                let at = (i - start) as usize * width;
                                let Some(p) = p.filter(|p| p.is_legal(geo)) else {
                                    return;
                                };
                                match self.searched(&p, None, kept, width, 0, exits) {
                                    Ok(code) => put(&mut chunk[at..at + width], code),
                                    Err(e) => failed = Err(e),
                                }
                            },
                        );
                        failed
                    },
                );
            }
            Decider::Companion {
                table,
                exits,
                rule_plies,
            } => (table, exits, *rule_plies),
        };
        let codes = (table.codes(true), table.codes(false));
        let (own, theirs) = match stm {
            Side::White => (codes.0, codes.1),
            Side::Black => (codes.1, codes.0),
        };
        let draw = retro_format::Wdl::Draw.code();
        side.par_chunks_mut(PIECE * width)
            .enumerate()
            .try_for_each(|(k, chunk)| {
                let start = (k * PIECE) as u64;
                for (i, entry) in chunk.chunks_mut(width).enumerate() {
                    let index = start + i as u64;
                    let code = match own.get(index).unwrap_or(0) {
                        0 => 0,
                        class if class == draw => Dtz::Draw.code(),
                        _ => {
                            let p = self
                                .indexer
                                .position::<TABLE_MEN>(geo, index, stm)
                                .ok_or_else(|| self.inconsistent(index))?;
                            self.searched(&p, Some(&theirs), kept, width, rule_plies, exits)?
                        }
                    };
                    put(entry, code);
                }
                Ok(())
            })
    }

    /// The code of `p` by a one-ply search ([`SideSearch`]) in the pass's kind: a move that
    /// stays in the table through `kept`, the other side's entries; a capture or a promotion
    /// through the tables it leads into (`exits`: of DTM, or of WDL50 for DTZ50); in DTZ50 a
    /// pawn move through `theirs`, the companion's side of `p`'s children.
    fn searched(
        &self,
        p: &retro_engine::TablePosition,
        theirs: Option<&retro_format::Codes<'_>>,
        kept: &[u8],
        width: usize,
        rule_plies: u32,
        exits: &Subtables,
    ) -> Result<u32, GenError> {
        let geo = &self.builder.geo;
        let zeroing_counts = self.kind == TableKind::Dtz50;
        let mut search = SideSearch::new(self.kind, rule_plies);
        let mut failed = None;
        p.for_each_legal_move(geo, None, |mv| {
            if failed.is_some() || search.settled() {
                return;
            }
            let child = p.play(geo, &mv);
            let found = if mv.leaves_material() {
                exits.code(geo, &child)
            } else if zeroing_counts && mv.zeroes() {
                let theirs = theirs.expect("a DTZ50 search reads its companion");
                self.own_code(theirs, &child)
            } else {
                match self.indexer.index(geo, &child) {
                    Some(i) => {
                        let at = i as usize * width;
                        search.add_child(retro_format::packed::entry_code(&kept[at..at + width]));
                        return;
                    }
                    None => Err(self.inconsistent_position(&child)),
                }
            };
            match found {
                Ok(code) if zeroing_counts => search.add_zeroing(code),
                Ok(code) => search.add_child(code),
                Err(e) => failed = Some(e),
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        search
            .code(p.in_check(geo, p.side_to_move()))
            .ok_or_else(|| self.inconsistent_position(p))
    }

    /// The error for a position the tables give no value.
    fn inconsistent_position(&self, p: &retro_engine::TablePosition) -> GenError {
        GenError::Inconsistent {
            material: self.indexer.material().to_string(),
            fen: p.to_natural(&self.builder.geo).fen(),
        }
    }

    /// The code, in the material's own WDL50 table (`theirs`: the side of the position's side
    /// to move), of a position a pawn move reaches.
    fn own_code(
        &self,
        theirs: &retro_format::Codes<'_>,
        p: &retro_engine::TablePosition,
    ) -> Result<u32, GenError> {
        let geo = &self.builder.geo;
        let inconsistent = || GenError::Inconsistent {
            material: self.indexer.material().to_string(),
            fen: p.to_natural(geo).fen(),
        };
        let index = self.indexer.index(geo, p).ok_or_else(inconsistent)?;
        match theirs.get(index).unwrap_or(0) {
            0 => Err(inconsistent()),
            code => Ok(code),
        }
    }

    /// The error for an index the companion says is legal that is no position.
    fn inconsistent(&self, index: u64) -> GenError {
        GenError::Inconsistent {
            material: self.indexer.material().to_string(),
            fen: format!("index {index}: legal in the WDL50 table, no position here"),
        }
    }
}

/// By raw index, White's side then Black's, of `material`'s table of `kind` (canonical
/// material) on `board`: the code, for the side to move, of its best exit (0 where the position
/// has none, or is no legal position), from the `kind` tables of `dir` that its exits lead
/// into, each read whole once for both sides (and shared with later calls while they fit:
/// [`crate::subtables::SHARED_TABLE_BYTES`]).
pub fn exit_codes(
    board: Board,
    dir: &Path,
    kind: TableKind,
    material: Material,
) -> Result<[Vec<u16>; 2], GenError> {
    let pass = ExitPass::new(board, dir, kind, material)?;
    let side = |stm: Side| -> Result<Vec<u16>, GenError> {
        let mut out = vec![0u16; pass.indexer.size() as usize];
        pass.side(
            stm,
            &mut out,
            1,
            |_| false,
            |entry, exit| {
                entry[0] = exit.map_or(0, |code| u16::try_from(code).unwrap_or(u16::MAX));
            },
        )?;
        Ok(out)
    };
    Ok([side(Side::White)?, side(Side::Black)?])
}

/// The [`retro_format::Restorer`] of every reader of packed files: the entry of each index
/// that is no legal position set to 0 (`retro_engine::restore_illegal`), and where the file
/// says exits decide, each entry the better of the stored value and its best exit's, the
/// exits' values read from the tables beside the file (in the same pass over the positions).
pub fn restore_packed(
    request: &Restore<'_>,
    white: &mut [u8],
    black: &mut [u8],
) -> Result<(), String> {
    let width = request.width;
    if !request.exits_decide {
        let illegal = |white_to_move: bool, side: &mut [u8]| {
            retro_engine::restore_illegal(
                request.material,
                request.files,
                request.ranks,
                white_to_move,
                width,
                side,
            )
        };
        let (w, b) = rayon::join(|| illegal(true, white), || illegal(false, black));
        return w.and(b);
    }
    let kind = request.kind;
    let board = Board::new(usize::from(request.files), usize::from(request.ranks))
        .map_err(|e| e.to_string())?;
    let material = Material::parse(request.material).map_err(|e| e.to_string())?;
    let dir = request.path.parent().unwrap_or(Path::new("."));
    let failed = |e: GenError| e.to_string();
    let pass = ExitPass::new(board, dir, kind, material).map_err(failed)?;
    let left_out = request.left_out;
    if left_out.is_some() && !kind.may_leave_side_out() {
        return Err(format!("a {kind} file leaves a side to move out"));
    }
    for (stm, side) in [(Side::White, &mut *white), (Side::Black, &mut *black)] {
        if left_out == Some(stm == Side::White) {
            continue;
        }
        // A stored value nothing beats is the entry, whatever the exits give.
        let settled = |entry: &[u8]| kind.nothing_better(retro_format::packed::entry_code(entry));
        pass.side(stm, side, width, settled, |entry, exit| {
            let code = match exit {
                None => 0,
                Some(exit) => kind.with_exit(retro_format::packed::entry_code(entry), exit),
            };
            match entry.len() {
                1 => entry[0] = code as u8,
                _ => entry.copy_from_slice(&(code as u16).to_le_bytes()),
            }
        })
        .map_err(failed)?;
    }
    // A side left out comes from the other, whole now, by a one-ply search.
    match left_out {
        Some(true) => pass.rebuild_side(Side::White, white, black, width),
        Some(false) => pass.rebuild_side(Side::Black, black, white, width),
        None => Ok(()),
    }
    .map_err(failed)
}

/// Packs `table` (of `material`, on `board`) into `path` as [`retro_format::pack`] does, its
/// exit-decided entries left to the coder where the kind and the coder allow, their exits'
/// values read from the tables in `dir`.
pub fn pack_table(
    board: Board,
    dir: &Path,
    material: Material,
    table: &retro_format::Table,
    path: &Path,
    radices: &[u64],
    options: &retro_format::PackOptions,
) -> Result<retro_format::PackReport, GenError> {
    let kind = table.header().kind;
    let exits = || exit_codes(board, dir, kind, material).map_err(|e| e.to_string());
    Ok(retro_format::pack_with_exits(
        table,
        path,
        radices,
        options,
        Some(&exits),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Metric, Silent};

    /// Each side's entries as the pass gives them, `u16::MAX` where the index is no legal
    /// position.
    /// An entry a multiple of `every` apart is marked settled (it needs no exits).
    fn exits_of(pass: &ExitPass, stm: Side, every: usize) -> Vec<u16> {
        const MARK: [u8; 2] = [0x5a, 0xa5];
        let mut entries = vec![0u8; 2 * pass.indexer.size() as usize];
        for entry in entries.chunks_exact_mut(2).step_by(every) {
            entry.copy_from_slice(&MARK);
        }
        pass.side(
            stm,
            &mut entries,
            2,
            |entry| entry == MARK,
            |entry, exit| {
                let code = exit.map_or(u16::MAX, |c| u16::try_from(c).unwrap());
                entry.copy_from_slice(&code.to_le_bytes());
            },
        )
        .unwrap();
        entries
            .chunks_exact(2)
            .map(|e| u16::from_le_bytes([e[0], e[1]]))
            .collect()
    }

    /// The fast core's pass gives every entry of both sides the engine's pass gives, legal or
    /// not, for depth to mate and the fifty-move rule's classes, with and without pawns, on two
    /// boards.
    #[test]
    fn the_fast_pass_equals_the_engines() {
        for (files, ranks, names) in [
            (8, 8, &["KQvKR", "KBNvK", "KRPvK", "KNvKP"][..]),
            (5, 6, &["KQvKB", "KPPvK"][..]),
        ] {
            let board = Board::new(files, ranks).unwrap();
            let dir = tempfile::tempdir().unwrap();
            let builder =
                Builder::new(board, dir.path()).with_metrics(&[Metric::Dtm, Metric::Fifty]);
            let materials: Vec<Material> = names.iter().map(|n| n.parse().unwrap()).collect();
            builder.build(&materials, &Silent).unwrap();
            for material in materials {
                for kind in [TableKind::Dtm, TableKind::Wdl50, TableKind::Dtz50] {
                    let engine = ExitPass {
                        fast_allowed: false,
                        ..ExitPass::new(board, dir.path(), kind, material).unwrap()
                    };
                    let fast = ExitPass::new(board, dir.path(), kind, material).unwrap();
                    for stm in Side::ALL {
                        // DTZ50 reads the exits' classes where the zeroing moves are the exits.
                        let applies = match &fast.decider {
                            Decider::Exits(subtables) => {
                                fast.fast_exits(stm, subtables, kind, &|_| false)
                            }
                            Decider::Companion { exits, .. } if !material.has_pawns() => {
                                fast.fast_exits(stm, exits, TableKind::Wdl50, &|_| false)
                            }
                            Decider::Companion { .. } => Ok(Some(Vec::new())),
                        };
                        assert!(
                            applies.unwrap().is_some(),
                            "{material} on {files}x{ranks}: the fast pass applies"
                        );
                        // Every entry looked at, then a third settled beforehand.
                        for every in [usize::MAX, 3] {
                            let want = exits_of(&engine, stm, every);
                            let got = exits_of(&fast, stm, every);
                            let differ = want.iter().zip(&got).position(|(a, b)| a != b);
                            assert_eq!(
                                differ,
                                None,
                                "{material} {kind} on {files}x{ranks}, {stm:?} to move, every {every}th settled: the first entry that differs ({} legal)",
                                want.iter().filter(|&&e| e != u16::MAX).count()
                            );
                        }
                    }
                }
            }
        }
    }
}
