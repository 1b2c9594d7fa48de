//! Syzygy WDL files (`.rtbw`) written from the proved WDL50 tables, in the layout that Fathom,
//! Stockfish, python-chess and shakmaty-syzygy read: the magic, a layout byte, the men's order,
//! one coded side a side to move ([`code`]), the sparse indices, the block entry counts and the
//! blocks, 64-byte aligned, the file's size 16 more than a multiple of 64.
//!
//! Every legal position of a proved table without an en passant right is placed at the index
//! the readers compute for it and for its image in the diagonal (pawnless) or between the a
//! and h files (pawns), which between them reach every index its symmetric images reach
//! ([`index`]); two positions placed at one index must have one value, or the export fails.
//! A table with pawns has a subtable a file of its leading pawn. Indices no position reaches
//! (illegal placements) and positions whose best capture reaches their class are don't-cares,
//! filled with the value before them where that is allowed. `retro export` reads every file
//! back through shakmaty-syzygy ([`crate::check`]) before it reports it.
//!
//! Owns: choosing the men's order, placing the values, laying the file out and writing it.
//! Must never: value a position itself (the proved table does) or write a file of a table
//! that is not there.

pub mod code;
pub mod index;

use crate::{open_proved, SyzygyError};
use index::{Layout, Square, SyzygyMan};
use rayon::prelude::*;
use retro_engine::{Geometry, Indexer, Material, TABLE_MEN};
use retro_format::{TableKind, Wdl};
use retro_rules::{Board, Piece, Side};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

/// The first four bytes of a WDL file.
const WDL_MAGIC: [u8; 4] = [0x71, 0xe8, 0x23, 0x5d];

/// Bytes a WDL block holds at most (the Syzygy generator's WDL blocks are 64 bytes).
const WDL_BLOCK_BYTES: usize = 64;

/// An index no position has reached yet: any value may be stored there.
const UNSET: u8 = 0xff;

/// Marks a value that any value no better may stand for: the position's best capture
/// reaches it, and every reader takes the better of the stored value and the captures'.
const UP_TO: u8 = 0x08;

/// What an export wrote.
#[derive(Debug, Clone)]
pub struct Exported {
    /// The file.
    pub path: PathBuf,
    /// Its size in bytes.
    pub bytes: u64,
    /// Indices a side, and the sides stored.
    pub indices: u64,
    /// Sides to move stored (1 for a material whose two sides are alike).
    pub sides: usize,
    /// Of the indices of all sides, those no legal position reaches.
    pub unreached: u64,
}

/// The header nibble of a man of ours, the file's White being the side named first.
fn syzygy_man(side: Side, piece: Piece) -> SyzygyMan {
    SyzygyMan {
        kind: retro_engine::piece_rank(piece),
        black: side == Side::Black,
    }
}

/// The WDL value Syzygy stores for a class: 0 loss … 4 win, for the side to move.
fn stored_class(class: Wdl) -> Option<u8> {
    Some(match class {
        Wdl::Loss => 0,
        Wdl::BlessedLoss => 1,
        Wdl::Draw => 2,
        Wdl::CursedWin => 3,
        Wdl::Win => 4,
        Wdl::Illegal => return None,
    })
}

/// Writes `MATERIAL.rtbw` into `out` from the proved WDL50 table of `material` in `tables`
/// (raw or packed, 8×8, a rule of 100 plies), atomically.
pub fn export_wdl(tables: &Path, material: Material, out: &Path) -> Result<Exported, SyzygyError> {
    retro_format::install_restorer(retro_gen::restore_packed);
    let (material, _) = material.canonical();
    let name = material.to_string();
    let unsupported = |reason: String| SyzygyError::Unsupported {
        material: name.clone(),
        reason,
    };
    if material.len() < 3 {
        return Err(unsupported(
            "Syzygy has no file of two kings alone (every reader calls it a draw)".into(),
        ));
    }
    let geo = Geometry::new(Board::STANDARD);
    let indexer = Indexer::new(&geo, material).map_err(|e| unsupported(e.to_string()))?;
    let wdl = open_proved(tables, TableKind::Wdl50, &name)?;
    let rule = u32::from(wdl.header().rule_plies);
    if rule != 100 {
        return Err(unsupported(format!(
            "its tables are of a rule of {rule} plies; Syzygy's files are of 100"
        )));
    }
    // The class each position's best capture or promotion gives (the readers search
    // captures only: `place` leaves a position with a promotion that is no capture alone).
    let exits = retro_gen::exit_codes(Board::STANDARD, tables, TableKind::Wdl50, material)
        .map_err(|e| unsupported(e.to_string()))?;
    let men: Vec<SyzygyMan> = material
        .men()
        .into_iter()
        .map(|(side, piece)| syzygy_man(side, piece))
        .collect();
    let symmetric = material.flipped() == material;
    let sides = if symmetric { 1 } else { 2 };
    let candidates = candidate_layouts(&men);
    let files = candidates[0].len();
    let budget = (PLACEMENT_BUDGET / indexer.size().max(1)).max(1) as usize;
    // Each subtable's layout: of the few whose samples code smallest, the one whose whole
    // side codes smallest; a subtable of one value stops the search at once.
    let mut ranked: Vec<Vec<Vec<(usize, Layout)>>> = vec![vec![Vec::new(); sides]; files];
    let place_all = |layouts: &[Layout], s: usize| {
        place(&indexer, &geo, &wdl, &exits, layouts, s, &unsupported)
    };
    for layouts in candidates.iter().take(budget) {
        for s in 0..sides {
            if ranked
                .iter()
                .all(|f| f[s].first().is_some_and(|(b, _)| *b <= 2))
            {
                continue;
            }
            for (f, marks) in place_all(layouts, s)?.iter().enumerate() {
                let bytes = code::code_side(&sample(&fill(marks)), WDL_BLOCK_BYTES).bytes();
                let list = &mut ranked[f][s];
                list.push((bytes, layouts[f].clone()));
                list.sort_by_key(|(b, _)| *b);
                list.truncate(FINALISTS);
            }
        }
    }
    let mut coded: Vec<Vec<(Layout, code::SideCode)>> = vec![Vec::new(); files];
    let mut unreached = 0u64;
    for s in 0..sides {
        let mut best: Vec<Option<(Layout, code::SideCode, u64)>> = vec![None; files];
        for k in 0..FINALISTS {
            // The k-th finalist of each subtable (its last where it has fewer).
            let layouts: Vec<Layout> = ranked
                .iter()
                .map(|f| f[s][k.min(f[s].len() - 1)].1.clone())
                .collect();
            if k > 0 && ranked.iter().all(|f| f[s].len() <= k) {
                break;
            }
            for (f, marks) in place_all(&layouts, s)?.into_iter().enumerate() {
                let code = code::code_side(&fill(&marks), WDL_BLOCK_BYTES);
                if best[f]
                    .as_ref()
                    .is_none_or(|(_, b, _)| code.bytes() < b.bytes())
                {
                    let free = marks.iter().filter(|&&v| v == UNSET).count() as u64;
                    best[f] = Some((layouts[f].clone(), code, free));
                }
            }
        }
        for (f, best) in best.into_iter().enumerate() {
            let (layout, code, free) = best.expect("a layout a subtable");
            unreached += free;
            coded[f].push((layout, code));
        }
    }
    let indices = coded.iter().map(|f| f[0].0.size()).sum();
    let bytes = wdl_file(&coded, symmetric, material.has_pawns());
    let path = out.join(format!("{name}.rtbw"));
    retro_format::write_atomically(&path, &bytes)?;
    Ok(Exported {
        path,
        bytes: bytes.len() as u64,
        indices,
        sides,
        unreached,
    })
}

/// The layouts a search may try, each one a subtable (one for a pawnless material, one a
/// leading pawn's file a–d otherwise): every listing of the men with every order of the
/// groups' weights. A table with pawns leads with the pawns of the side that has fewer
/// (White's where both have as many).
fn candidate_layouts(men: &[SyzygyMan]) -> Vec<Vec<Layout>> {
    let pawns = |black: bool| {
        men.iter()
            .filter(|m| m.kind == 1 && m.black == black)
            .count()
    };
    let (white_pawns, black_pawns) = (pawns(false), pawns(true));
    if white_pawns + black_pawns == 0 {
        let mut out = Vec::new();
        for (listed, lead) in Layout::listings(men) {
            let groups = Layout::new(listed.clone(), lead, 0).groups.len() as u8;
            for order in 0..groups {
                out.push(vec![Layout::new(listed.clone(), lead, order)]);
            }
        }
        return out;
    }
    let lead_black = white_pawns == 0 || (black_pawns > 0 && black_pawns < white_pawns);
    let is_lead = |m: &SyzygyMan| m.kind == 1 && m.black == lead_black;
    let is_other_pawn = |m: &SyzygyMan| m.kind == 1 && m.black != lead_black;
    let mut listed: Vec<SyzygyMan> = men.iter().copied().filter(is_lead).collect();
    let lead = listed.len();
    listed.extend(men.iter().copied().filter(is_other_pawn));
    let other = listed.len() - lead;
    let mut pieces: Vec<SyzygyMan> = men.iter().copied().filter(|m| m.kind != 1).collect();
    pieces.sort_by_key(|m| (m.black, std::cmp::Reverse(m.kind)));
    listed.extend(pieces);
    let groups = Layout::with_pawns(listed.clone(), lead, other, 0, 0, 1)
        .groups
        .len() as u8;
    let mut out = Vec::new();
    for order in 0..groups {
        let pawn_orders: Vec<u8> = if other > 0 {
            (0..groups).filter(|&o| o != order).collect()
        } else {
            vec![0xf]
        };
        for pawn_order in pawn_orders {
            out.push(
                (0..4)
                    .map(|file| {
                        Layout::with_pawns(listed.clone(), lead, other, file, order, pawn_order)
                    })
                    .collect(),
            );
        }
    }
    out
}

/// Index placements (positions × their eight images) the search for the smallest layout may
/// make for one table: every layout of up to four men, a few of five.
const PLACEMENT_BUDGET: u64 = 400_000_000;

/// The marks of each subtable (`layouts`: one for a pawnless material, one a leading pawn's
/// file otherwise) of side `s` (0: the file's White to move): the class of the legal
/// positions placed at an index (with [`UP_TO`] where their best capture reaches it, none of
/// their promotions being a plain pawn step), [`UNSET`] where none is. Positions with an en
/// passant right are not placed: the readers look those captures up themselves.
fn place(
    indexer: &Indexer,
    geo: &Geometry,
    wdl: &retro_format::Table,
    exits: &[Vec<u16>; 2],
    layouts: &[Layout],
    s: usize,
    unsupported: &(dyn Fn(String) -> SyzygyError + Sync),
) -> Result<Vec<Vec<u8>>, SyzygyError> {
    let values: Vec<Vec<AtomicU8>> = layouts
        .iter()
        .map(|l| (0..l.size()).map(|_| AtomicU8::new(UNSET)).collect())
        .collect();
    let conflicts = AtomicU64::new(0);
    const CHUNK: u64 = 1 << 14;
    let white = s == 0;
    let stm = [Side::White, Side::Black][s];
    let pawns = layouts.len() > 1;
    let listing = &layouts[0].men;
    let lead = layouts[0].groups[0];
    (0..indexer.size().div_ceil(CHUNK))
        .into_par_iter()
        .try_for_each(|chunk| {
            let begin = chunk * CHUNK;
            let end = (begin + CHUNK).min(indexer.size());
            let mut failure = None;
            let mut squares: Vec<Square> = Vec::with_capacity(listing.len());
            indexer.for_each_position::<TABLE_MEN>(geo, begin..end, stm, |i, p| {
                if failure.is_some() {
                    return;
                }
                let class = match wdl.code(white, i).map(Wdl::from_code) {
                    Ok(Some(c)) => c,
                    Ok(None) => return failure = Some(unsupported(format!("index {i}: no class"))),
                    Err(e) => return failure = Some(SyzygyError::Table(e)),
                };
                let (Some(value), Some(p)) = (stored_class(class), p) else {
                    return;
                };
                if p.en_passant().is_some() {
                    return;
                }
                let exit = Wdl::from_code(u32::from(exits[s][i as usize])).and_then(stored_class);
                let value = if exit == Some(value) && !pawn_step_promotes(geo, &p) {
                    value | UP_TO
                } else {
                    value
                };
                // The men's squares in the listing's order.
                let mut used = [false; 8];
                squares.clear();
                for m in listing {
                    let found = p
                        .men()
                        .iter()
                        .enumerate()
                        .position(|(k, man)| !used[k] && syzygy_man(man.side, man.piece) == *m);
                    let Some(k) = found else {
                        return failure = Some(unsupported(format!("index {i}: a man missing")));
                    };
                    used[k] = true;
                    let man = p.men()[k];
                    squares.push(geo.file(man.sq) + 8 * geo.rank(man.sq));
                }
                let n = squares.len();
                let (f, image) = if pawns {
                    (
                        usize::from(index::pawn_file(&squares[..lead])),
                        index::mirror_image(&squares),
                    )
                } else {
                    (0, index::diagonal_image(&squares))
                };
                let layout = &layouts[f];
                for at in [layout.index(&squares), layout.index(&image[..n])] {
                    let at = &values[f][at as usize];
                    if let Err(old) =
                        at.compare_exchange(UNSET, value, Ordering::Relaxed, Ordering::Relaxed)
                    {
                        if old != value {
                            conflicts.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            });
            match failure {
                Some(e) => Err(e),
                None => Ok(()),
            }
        })?;
    let conflicts = conflicts.into_inner();
    if conflicts > 0 {
        return Err(unsupported(format!(
            "{conflicts} Syzygy indices reached by positions of different values"
        )));
    }
    Ok(values
        .into_iter()
        .map(|f| f.into_iter().map(AtomicU8::into_inner).collect())
        .collect())
}

/// Whether the side to move of `p` may promote a pawn by a step (no capture): the readers
/// search captures only, so an entry such a promotion decides is kept.
fn pawn_step_promotes(geo: &Geometry, p: &retro_engine::TablePosition) -> bool {
    let stm = p.side_to_move();
    let square = |man: &retro_engine::Man| (geo.file(man.sq), geo.rank(man.sq));
    p.men().iter().any(|man| {
        let (file, rank) = square(man);
        let (seventh, ahead) = match stm {
            Side::White => (6, 7),
            Side::Black => (1, 0),
        };
        man.side == stm
            && man.piece == Piece::Pawn
            && rank == seventh
            && !p.men().iter().any(|o| square(o) == (file, ahead))
    })
}

/// Layouts of a subtable coded whole, the best by their samples.
const FINALISTS: usize = 3;

/// Entries of a window of [`sample`].
const SAMPLE_WINDOW: usize = 4096;

/// About an eighth of `values`, in windows spread evenly over them: what a layout is judged
/// by before the whole side is coded (all of it for a side of at most 32 windows).
fn sample(values: &[u16]) -> Vec<u16> {
    let windows = values.len() / SAMPLE_WINDOW;
    if windows <= 32 {
        return values.to_vec();
    }
    let taken = windows / 8;
    (0..taken)
        .flat_map(|k| {
            let start = k * windows / taken * SAMPLE_WINDOW;
            values[start..start + SAMPLE_WINDOW].iter().copied()
        })
        .collect()
}

/// The values to code from each index's mark: a value kept; a value any no better may stand
/// for ([`UP_TO`]) and an index no position reaches ([`UNSET`]) take the value before them
/// where they may, so that runs grow.
fn fill(marks: &[u8]) -> Vec<u16> {
    let mut last = marks
        .iter()
        .find(|&&v| v & UP_TO == 0)
        .map_or(2, |&v| v & 7);
    marks
        .iter()
        .map(|&mark| {
            let value = if mark == UNSET {
                last
            } else if mark & UP_TO != 0 {
                last.min(mark & 7)
            } else {
                mark
            };
            last = value;
            u16::from(value)
        })
        .collect()
}

/// The bytes of a WDL file whose subtables (one, or one a leading pawn's file) hold each side
/// (White to move, then Black to move unless the material's two sides are alike) coded under
/// its own layout.
fn wdl_file(files: &[Vec<(Layout, code::SideCode)>], symmetric: bool, pawns: bool) -> Vec<u8> {
    let mut file = WDL_MAGIC.to_vec();
    let men = files[0][0].0.men.len() as u8;
    file.push(u8::from(!symmetric) | u8::from(pawns) << 1 | men << 4);
    for sides in files {
        let white = &sides[0].0;
        let black = &sides[sides.len() - 1].0;
        file.push(white.order | black.order << 4);
        if white.pawn_order != 0xf {
            file.push(white.pawn_order | black.pawn_order << 4);
        }
        // Each man's nibble for White to move (low) and Black to move (high).
        file.extend(
            white
                .men
                .iter()
                .zip(&black.men)
                .map(|(w, b)| w.nibble() | b.nibble() << 4),
        );
    }
    if file.len() % 2 == 1 {
        file.push(0);
    }
    let sides: Vec<&code::SideCode> = files.iter().flatten().map(|(_, c)| c).collect();
    for side in &sides {
        file.extend_from_slice(&side.header);
    }
    if file.len() % 2 == 1 {
        file.push(0);
    }
    for side in &sides {
        file.extend_from_slice(&side.sparse_index);
    }
    for side in &sides {
        file.extend_from_slice(&side.block_lengths);
    }
    for side in &sides {
        if side.data.is_empty() {
            continue;
        }
        file.resize(file.len().next_multiple_of(64), 0);
        file.extend_from_slice(&side.data);
    }
    // A reader may read four bytes past a block; the size is 16 more than a multiple of 64.
    file.resize(file.len().next_multiple_of(64) + 16, 0);
    file
}
