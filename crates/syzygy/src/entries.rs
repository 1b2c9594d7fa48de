//! Every entry a material's Syzygy files store, compared in index order with the proved
//! tables: each index turned back into its placement ([`Layout::placement_into`]) and
//! position, the class a WDL entry stores or the DTZ a DTZ entry stores (as the readers turn it
//! into plies) compared with the proved one. An entry that differs is asked of the reader
//! (shakmaty-syzygy), which may answer from captures instead (a don't-care entry): only the
//! reader's answer counts as a difference.
//!
//! Owns: the walk over the decoded entries of a material's files ([`check_entries`]).
//! Must never: count a stored entry as wrong without the reader's answer, or read a
//! position's value anywhere but the proved tables.

use crate::decode::{Decisive, FileKind, SyzygyFile};
use crate::export;
use crate::export::index::SyzygyMan;
use crate::{dtz_agreement, Agreement, FileCheck, ProvedTables, SyzygyError, SyzygyFiles};
use rayon::prelude::*;
use retro_engine::Material;
use retro_format::Wdl;
use retro_rules::{Piece, Side};
use shakmaty_syzygy::{Dtz as ReaderDtz, MaybeRounded};

/// Entries a run of blocks decoded at a time holds, about.
const RUN_ENTRIES: u64 = 1 << 16;

/// Compares every entry of `proved`'s material's WDL file in `files`, and of its DTZ file
/// where the check has the proved DTZ50 table; `progress` is told the entries of each run.
pub(crate) fn check_entries(
    files: &SyzygyFiles,
    proved: &ProvedTables,
    wdl_only: bool,
    progress: &(dyn Fn(u64) + Sync),
) -> Result<FileCheck, SyzygyError> {
    let material = proved.indexer.material();
    let men = material.men();
    let both_pawns = [Side::White, Side::Black]
        .iter()
        .all(|&side| men.contains(&(side, Piece::Pawn)));
    let mut parsed = Vec::new();
    for (extension, kind) in [("rtbw", FileKind::Wdl), ("rtbz", FileKind::Dtz)] {
        if kind == FileKind::Dtz && wdl_only {
            continue;
        }
        let Some(file_name) = files.file_name(material, extension) else {
            let (named, _) = crate::syzygy_material(material);
            return Err(SyzygyError::Missing {
                material: proved.name.clone(),
                file: format!("{named}.{extension}"),
                dir: files.dir.clone(),
            });
        };
        let damaged = |reason: String| SyzygyError::Damaged {
            material: proved.name.clone(),
            file: file_name.clone(),
            reason,
        };
        let bytes =
            std::fs::read(files.dir.join(&file_name)).map_err(|e| damaged(e.to_string()))?;
        let file = SyzygyFile::parse(bytes, kind, men.len(), both_pawns).map_err(damaged)?;
        parsed.push((file, file_name));
    }
    // Progress in the units of the caller's bar: both sides of the proved table.
    let stored: u64 = parsed
        .iter()
        .flat_map(|(f, _)| &f.subtables)
        .flatten()
        .map(|side| side.size())
        .sum();
    let units = 2 * proved.indexer.size();
    let scaled = |entries: u64| {
        progress((u128::from(entries) * u128::from(units) / u128::from(stored.max(1))) as u64)
    };
    let mut total = FileCheck::default();
    for (file, file_name) in &parsed {
        let damaged = |reason: String| SyzygyError::Damaged {
            material: proved.name.clone(),
            file: file_name.clone(),
            reason,
        };
        // The class each position's best capture or promotion reaches, for the WDL entries
        // below it.
        let exits = match file.kind {
            FileKind::Wdl => Some(
                retro_gen::exit_codes(
                    retro_rules::Board::STANDARD,
                    &proved.dir,
                    retro_format::TableKind::Wdl50,
                    material,
                )
                .map_err(|e| SyzygyError::Unsupported {
                    material: proved.name.clone(),
                    reason: e.to_string(),
                })?,
            ),
            FileKind::Dtz => None,
        };
        total.add(walk(
            files,
            proved,
            wdl_only,
            file,
            exits.as_ref(),
            &damaged,
            &scaled,
        )?);
    }
    Ok(total)
}

/// Whether the file's White is our tables' Black: its listing's White men are our Black's.
fn oriented(listing: &[SyzygyMan], material: Material) -> Option<bool> {
    let kinds = |black: bool| {
        let mut k: Vec<u8> = listing
            .iter()
            .filter(|m| m.black == black)
            .map(|m| m.kind)
            .collect();
        k.sort_unstable();
        k
    };
    let ours = |side: Side| {
        let mut k: Vec<u8> = material
            .men()
            .iter()
            .filter(|(s, _)| *s == side)
            .map(|&(_, p)| retro_engine::piece_rank(p))
            .collect();
        k.sort_unstable();
        k
    };
    let (white, black) = (kinds(false), kinds(true));
    if white == ours(Side::White) && black == ours(Side::Black) {
        Some(false)
    } else if white == ours(Side::Black) && black == ours(Side::White) {
        Some(true)
    } else {
        None
    }
}

/// Compares every entry of `file` with the proved tables.
fn walk(
    files: &SyzygyFiles,
    proved: &ProvedTables,
    wdl_only: bool,
    file: &SyzygyFile,
    exits: Option<&[Vec<u16>; 2]>,
    damaged: &(dyn Fn(String) -> SyzygyError + Sync),
    progress: &(dyn Fn(u64) + Sync),
) -> Result<FileCheck, SyzygyError> {
    let (geo, indexer) = (&proved.geo, &proved.indexer);
    let material = indexer.material();
    let bytes = file.bytes();
    let flipped = oriented(&file.subtables[0][0].layout.men, material)
        .ok_or_else(|| damaged("its men are not the material's".into()))?;
    let file_material = if flipped {
        material.flipped()
    } else {
        material
    };
    let pawns = material.has_pawns();
    let mut work = Vec::new();
    for subtable in &file.subtables {
        for side in subtable {
            // A material whose sides are alike: Black to move is read as White to move with
            // the colours exchanged, so the entries are White to move; a DTZ file of one with
            // pawns that says it stores Black to move is never read.
            if file.symmetric && file.kind == FileKind::Dtz && pawns && side.side == 1 {
                continue;
            }
            let stm = if file.symmetric { 0 } else { side.side };
            let men = export::listed_men(&side.layout, file_material)
                .ok_or_else(|| damaged("a listing of men not the material's".into()))?;
            for run in side.runs(bytes, RUN_ENTRIES) {
                work.push((side, stm, men.clone(), run));
            }
        }
    }
    let checks: Vec<FileCheck> = work
        .par_iter()
        .map(|(side, stm, men, run)| -> Result<FileCheck, SyzygyError> {
            let mut out = FileCheck::default();
            let mut values = Vec::with_capacity(run.entries as usize);
            side.decode(bytes, run, &mut values).map_err(damaged)?;
            let to_move = [Side::White, Side::Black][*stm];
            let ours = stm ^ usize::from(flipped);
            let mut squares = [0u8; 8];
            let at = export::PlacedIndex {
                geo,
                indexer,
                layout: &side.layout,
                men,
                flipped,
            };
            for (k, &value) in values.iter().enumerate() {
                let index = run.first + k as u64;
                let Some((i, p)) = at.position(index, to_move, &mut squares) else {
                    continue;
                };
                let Some(class) = proved.class(ours, i)? else {
                    continue;
                };
                match file.kind {
                    FileKind::Wdl => {
                        out.positions += 1;
                        let proved_number = export::stored_class(class);
                        if Some(value) == proved_number.map(u16::from) {
                            continue;
                        }
                        // Below the class a capture reaches: the readers take the capture's.
                        let exit = exits
                            .and_then(|e| Wdl::from_code(u32::from(e[ours][i as usize])))
                            .and_then(export::stored_class);
                        if value <= 4
                            && exit == proved_number
                            && proved_number.is_some_and(|c| value < u16::from(c))
                            && !export::pawn_step_promotes(geo, &p)
                        {
                            out.unread += 1;
                        } else {
                            proved.through_reader(files, wdl_only, ours, i, class, &p, &mut out)?;
                        }
                    }
                    FileKind::Dtz => {
                        let Some(decisive) = decisive(class) else {
                            continue;
                        };
                        let proved_dtz = proved.dtz.dtz(ours == 0, i)?;
                        let agreement = side
                            .dtz_plies(bytes, decisive, value)
                            .map(|stored| dtz_agreement(proved_dtz, reader_dtz(decisive, stored)))
                            .unwrap_or(Agreement::Differs);
                        if agreement != Agreement::Differs {
                            out.count(agreement);
                        } else if zeroing_wins(decisive, proved_dtz) {
                            // A win whose zeroing move is now: every reader finds that move
                            // (a capture, or a pawn move) before it reads the table.
                            out.unread += 1;
                        } else {
                            proved.through_reader(files, wdl_only, ours, i, class, &p, &mut out)?;
                        }
                    }
                }
            }
            progress(run.entries);
            Ok(out)
        })
        .collect::<Result<_, _>>()?;
    Ok(FileCheck::summed(checks))
}

/// Whether a position of class `class` and proved DTZ `dtz` is won by a zeroing move now:
/// the readers then answer from that move (a capture or a pawn move that keeps the class)
/// without reading the DTZ entry.
fn zeroing_wins(class: Decisive, dtz: retro_format::Dtz) -> bool {
    matches!(class, Decisive::Win | Decisive::CursedWin)
        && dtz_agreement(
            dtz,
            reader_dtz(
                class,
                crate::decode::StoredPlies {
                    plies: 0,
                    rounded: false,
                },
            ),
        ) == Agreement::Equal
}

fn decisive(class: Wdl) -> Option<Decisive> {
    Some(match class {
        Wdl::Win => Decisive::Win,
        Wdl::Loss => Decisive::Loss,
        Wdl::CursedWin => Decisive::CursedWin,
        Wdl::BlessedLoss => Decisive::BlessedLoss,
        Wdl::Draw | Wdl::Illegal => return None,
    })
}

/// The DTZ a reader gives for a stored entry read from the table: one ply for the zeroing
/// move (101 where the rule spoils the result) and the stored plies after it, signed.
fn reader_dtz(class: Decisive, stored: crate::decode::StoredPlies) -> MaybeRounded<ReaderDtz> {
    let (sign, first) = match class {
        Decisive::Win => (1, 1),
        Decisive::Loss => (-1, 1),
        Decisive::CursedWin => (1, 101),
        Decisive::BlessedLoss => (-1, 101),
    };
    let dtz = ReaderDtz(sign * (first + stored.plies as i32));
    if stored.rounded {
        MaybeRounded::Rounded(dtz)
    } else {
        MaybeRounded::Precise(dtz)
    }
}
