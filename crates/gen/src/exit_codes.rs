//! What a table's exits give, entry by entry, for packed files that store any value no better
//! where an exit decides ([`retro_format::exits`]): the codes a packer needs, and the
//! [`retro_format::Restorer`] that puts a packed side back whole.
//!
//! Owns: [`exit_codes`] (by raw index, the code of a side's best capture or promotion, from the
//! smaller tables, opened whole: a pass over the side, not a probe an entry; for DTZ50 the
//! draws of the material's WDL50 table) and [`restore_packed`], which every reader of packed
//! files installs.
//! Must never: change the entry of a legal position that nothing decides (no exit, and for
//! DTZ50 no draw of its WDL50 table). What it rebuilds is
//! checked against the value stream's hash by the reader, and proved by `retro verify`.

use crate::subtables::Subtables;
use crate::{Builder, GenError};
use rayon::prelude::*;
use retro_engine::{Indexer, Material, TABLE_MEN};
use retro_format::{Dtz, Restore, TableKind, Wdl};
use retro_rules::{Board, Side};
use std::path::Path;

/// Indices a task walks.
const PIECE: usize = 1 << 16;

/// What decides a table's entries besides its own file, opened once for both sides.
enum Decider {
    /// DTM and WDL50: the smaller tables of the kind its exits lead into.
    Exits(Subtables),
    /// DTZ50: the material's own WDL50 table, whose draws are the DTZ50 file's don't-cares.
    Companion(retro_format::Table),
}

/// One pass over a table's positions with the code that decides each ([`Decider`]).
struct ExitPass {
    builder: Builder,
    indexer: Indexer,
    decider: Decider,
    kind: TableKind,
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
                Decider::Companion(companion)
            }
            _ => Decider::Exits(Subtables::open_shared(&builder, material, kind)?),
        };
        Ok(ExitPass {
            builder,
            indexer,
            decider,
            kind,
        })
    }

    /// Calls `write` with each entry of one side (`width` elements each of `side`, in raw index
    /// order) and, for a legal position, the code that decides it: its best exit's for the side
    /// to move (0: none; 0 without looking at the exits where `settled` says the entry needs
    /// none), or for DTZ50 the draw where the WDL50 table says draw (else 0); `None` for an
    /// index that is no legal position. Positions are decoded once (DTZ50 decodes none: the
    /// WDL50 table's 0 marks the illegal ones), the side in pieces on every core.
    fn side<T: Send>(
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
            Decider::Companion(companion) => {
                // A drawn position's entry is the companion's draw; its illegal ones are 0.
                let codes = companion.codes(stm == Side::White);
                let (draw, drawn) = (Dtz::Draw.code(), Wdl::Draw.code());
                side.par_chunks_mut(PIECE * width)
                    .enumerate()
                    .for_each(|(k, chunk)| {
                        let start = (k * PIECE) as u64;
                        for (i, entry) in chunk.chunks_mut(width).enumerate() {
                            match codes.get(start + i as u64).unwrap_or(0) {
                                0 => write(entry, None),
                                c => write(entry, Some(if c == drawn { draw } else { 0 })),
                            }
                        }
                    });
                return Ok(());
            }
            Decider::Exits(subtables) => subtables,
        };
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
    for (stm, side) in [(Side::White, white), (Side::Black, black)] {
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
    Ok(())
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
