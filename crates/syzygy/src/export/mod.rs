//! Syzygy WDL files (`.rtbw`) written from the proved WDL50 tables, in the layout that Fathom,
//! Stockfish, python-chess and shakmaty-syzygy read: the magic, a layout byte, the men's order,
//! one coded side a side to move ([`code`]), the sparse indices, the block entry counts and the
//! blocks, 64-byte aligned, and the Syzygy generator's checksum ([`crate::checksum`]) in the
//! last 16 bytes. DTZ files ([`dtz`]) share the layout search, the placing and the writing of
//! the coded sides.
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
//! Owns: choosing the men's order (`choose_layouts`), placing the values, laying the WDL
//! file out and writing it.
//! Must never: value a position itself (the proved table does) or write a file of a table
//! that is not there.

pub mod code;
pub mod dtz;
pub mod index;

use crate::{SyzygyError, UnderRule};
use index::{Layout, Square, SyzygyMan};
use rayon::prelude::*;
use retro_engine::{Geometry, Indexer, Material, TABLE_MEN};
use retro_format::{TableKind, Wdl};
use retro_rules::{Board, Piece, Side};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};

/// The first four bytes of a WDL file.
const WDL_MAGIC: [u8; 4] = [0x71, 0xe8, 0x23, 0x5d];

/// Bytes a WDL block holds at most (the Syzygy generator's WDL blocks are 64 bytes).
const WDL_BLOCK_BYTES: usize = 64;

/// An index no position has reached yet: any value may be stored there.
pub(crate) const UNSET: u16 = 0xffff;

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
pub(crate) fn syzygy_man(side: Side, piece: Piece) -> SyzygyMan {
    SyzygyMan {
        kind: retro_engine::piece_rank(piece),
        black: side == Side::Black,
    }
}

/// The WDL value Syzygy stores for a class: 0 loss … 4 win, for the side to move.
pub(crate) fn stored_class(class: Wdl) -> Option<u8> {
    Some(match class {
        Wdl::Loss => 0,
        Wdl::BlessedLoss => 1,
        Wdl::Draw => 2,
        Wdl::CursedWin => 3,
        Wdl::Win => 4,
        Wdl::Illegal => return None,
    })
}

/// What every export of a material starts from: its proved WDL50 table, its indexer and the
/// men as the file's header names them.
pub(crate) struct Source {
    /// The material's name in `retro`'s tables.
    pub(crate) name: String,
    /// The material as the file names and orients it ([`crate::syzygy_material`]).
    pub(crate) file_material: Material,
    /// Whether the file's White is the tables' Black ([`crate::syzygy_material`]): the file's
    /// side to move `s` is then the tables' `1 - s`, and its positions the tables' with the
    /// colours exchanged.
    pub(crate) flipped: bool,
    pub(crate) material: Material,
    pub(crate) geo: Geometry,
    pub(crate) indexer: Indexer,
    pub(crate) wdl: retro_format::Table,
    pub(crate) men: Vec<SyzygyMan>,
    /// Whether the material's two sides are alike (one side to move stored).
    pub(crate) symmetric: bool,
}

impl Source {
    /// The source of `material` (made canonical) in `tables`: 8×8, three men or more, a rule
    /// of 100 plies.
    pub(crate) fn open(tables: &Path, material: Material) -> Result<Source, SyzygyError> {
        let (material, _) = material.canonical();
        let name = material.to_string();
        if material.len() < 3 {
            return Err(unsupported(
                &name,
                "Syzygy has no file of two kings alone (every reader calls it a draw)".into(),
            ));
        }
        let UnderRule {
            geo,
            indexer,
            table: wdl,
        } = UnderRule::open(tables, TableKind::Wdl50, material)?;
        let (file_material, flipped) = crate::syzygy_material(material);
        let men = file_material
            .men()
            .into_iter()
            .map(|(side, piece)| syzygy_man(side, piece))
            .collect();
        Ok(Source {
            symmetric: material.flipped() == material,
            name,
            file_material,
            flipped,
            material,
            geo,
            indexer,
            wdl,
            men,
        })
    }

    /// The error of this material for `reason`.
    pub(crate) fn unsupported(&self, reason: String) -> SyzygyError {
        unsupported(&self.name, reason)
    }

    /// The class of index `i` of side `s` (0: White to move) in the proved WDL50 table.
    pub(crate) fn class(&self, s: usize, i: u64) -> Result<Wdl, SyzygyError> {
        match self.wdl.code(s == 0, i).map(Wdl::from_code) {
            Ok(Some(c)) => Ok(c),
            Ok(None) => Err(self.unsupported(format!("index {i}: no class"))),
            Err(e) => Err(SyzygyError::Table(e)),
        }
    }
}

fn unsupported(material: &str, reason: String) -> SyzygyError {
    SyzygyError::Unsupported {
        material: material.to_string(),
        reason,
    }
}

/// Writes `MATERIAL.rtbw` into `out` from the proved WDL50 table of `material` in `tables`
/// (raw or packed, 8×8, a rule of 100 plies), atomically.
pub fn export_wdl(tables: &Path, material: Material, out: &Path) -> Result<Exported, SyzygyError> {
    let source = Source::open(tables, material)?;
    // The class each position's best capture or promotion gives (the readers search
    // captures only: a position with a promotion that is no capture keeps its value).
    let exits = retro_gen::exit_codes(Board::STANDARD, tables, TableKind::Wdl50, source.material)
        .map_err(|e| source.unsupported(e.to_string()))?;
    let mark = |s: usize, i: u64, p: &retro_engine::TablePosition| {
        let Some(value) = stored_class(source.class(s, i)?) else {
            return Ok(None);
        };
        let exit = Wdl::from_code(u32::from(exits[s][i as usize])).and_then(stored_class);
        Ok(Some(u16::from(
            if exit == Some(value) && !pawn_step_promotes(&source.geo, p) {
                value | UP_TO
            } else {
                value
            },
        )))
    };
    let sides: Vec<usize> = if source.symmetric {
        vec![0]
    } else {
        vec![0, 1]
    };
    let code = |marks: &[u16]| code::code_side(&fill(marks), WDL_BLOCK_BYTES);
    let chosen = choose_layouts(&source, &sides, &mark, &code, &|c: &code::SideCode| {
        c.bytes()
    })?;
    let unreached = chosen.iter().flatten().map(|c| c.unreached).sum();
    let indices = chosen.iter().map(|f| f[0].layout.size()).sum();
    let coded: Vec<Vec<(Layout, code::SideCode)>> = chosen
        .into_iter()
        .map(|f| f.into_iter().map(|c| (c.layout, c.code)).collect())
        .collect();
    let bytes = wdl_file(&coded, source.symmetric, source.material.has_pawns());
    let path = out.join(format!("{}.rtbw", source.file_material));
    retro_format::write_atomically(&path, &bytes)?;
    Ok(Exported {
        path,
        bytes: bytes.len() as u64,
        indices,
        sides: sides.len(),
        unreached,
    })
}

/// Bytes of memory an export holds a Syzygy index for: its marks, the values coded from them,
/// the pair coder's counts and the proved tables beside them (measured at 13–14 bytes an
/// index of one side on five-man WDL exports), DTZ files four more.
const BYTES_AN_INDEX: [u64; 2] = [16, 20];

/// About the memory an export of `material` needs at its peak, in bytes (`dtz`: the DTZ
/// file's, else the WDL file's): from the size of a side of its Syzygy index, every subtable.
pub fn memory_needed(material: Material, dtz: bool) -> u64 {
    let (material, _) = material.canonical();
    let men: Vec<SyzygyMan> = material
        .men()
        .into_iter()
        .map(|(side, piece)| syzygy_man(side, piece))
        .collect();
    if material.len() < 3 {
        return 0;
    }
    let side: u64 = candidate_layouts(&men)
        .first()
        .map_or(0, |layouts| layouts.iter().map(Layout::size).sum());
    side * BYTES_AN_INDEX[usize::from(dtz)]
}

/// A subtable's side under the layout chosen for it, coded.
pub(crate) struct Chosen<C> {
    pub(crate) layout: Layout,
    pub(crate) code: C,
    /// Its indices no legal position reaches.
    pub(crate) unreached: u64,
}

/// The layout of each subtable (one, or one a leading pawn's file) and side in `sides` (0:
/// the file's White to move), coded: every candidate judged on windows of its own indices
/// ([`sampled_marks`]: each index turned back into its position), then of the [`FINALISTS`]
/// whose samples code smallest, the one whose whole side codes smallest (a side of one value
/// stops the search at once). `mark` values a legal position without an en passant right in
/// the tables' orientation (`None`: no entry); `code` codes a side's marks; `bytes` is what a
/// coded side costs. By subtable, then by side.
pub(crate) fn choose_layouts<C: Clone + Send>(
    source: &Source,
    sides: &[usize],
    mark: &Mark<'_>,
    code: &(dyn Fn(&[u16]) -> C + Sync),
    bytes: &dyn Fn(&C) -> usize,
) -> Result<Vec<Vec<Chosen<C>>>, SyzygyError> {
    let candidates = candidate_layouts(&source.men);
    let files = candidates[0].len();
    let place_all = |layouts: &[Layout], s: usize| place(source, mark, layouts, s);
    let mut ranked: Vec<Vec<Vec<(usize, Layout)>>> = vec![vec![Vec::new(); sides.len()]; files];
    for layouts in &candidates {
        for (k, &s) in sides.iter().enumerate() {
            if ranked
                .iter()
                .all(|f| f[k].first().is_some_and(|(b, _)| *b <= 2))
            {
                continue;
            }
            for (f, layout) in layouts.iter().enumerate() {
                let marks = sampled_marks(source, mark, layout, s)?;
                let size = bytes(&code(&marks));
                let list = &mut ranked[f][k];
                list.push((size, layout.clone()));
                list.sort_by_key(|(b, _)| *b);
                list.truncate(FINALISTS);
            }
        }
    }
    let mut chosen: Vec<Vec<Chosen<C>>> = (0..files).map(|_| Vec::new()).collect();
    for (k, &s) in sides.iter().enumerate() {
        let mut best: Vec<Option<Chosen<C>>> = (0..files).map(|_| None).collect();
        for n in 0..FINALISTS {
            if n > 0 && ranked.iter().all(|f| f[k].len() <= n) {
                break;
            }
            // The n-th finalist of each subtable (its last where it has fewer).
            let layouts: Vec<Layout> = ranked
                .iter()
                .map(|f| f[k][n.min(f[k].len() - 1)].1.clone())
                .collect();
            for (f, marks) in place_all(&layouts, s)?.into_iter().enumerate() {
                let coded = code(&marks);
                if best[f]
                    .as_ref()
                    .is_none_or(|b| bytes(&coded) < bytes(&b.code))
                {
                    best[f] = Some(Chosen {
                        layout: layouts[f].clone(),
                        code: coded,
                        unreached: marks.iter().filter(|&&v| v == UNSET).count() as u64,
                    });
                }
            }
        }
        for (f, best) in best.into_iter().enumerate() {
            chosen[f].push(best.expect("a layout a subtable"));
        }
    }
    Ok(chosen)
}

/// The layouts a search may try, each one a subtable (one for a pawnless material, one a
/// leading pawn's file a–d otherwise): every listing of the men (the groups after the leading
/// one in every order) with every place of the leading group's weight among them. A table with pawns leads with the pawns of the side that has fewer
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
    let pieces: Vec<SyzygyMan> = men.iter().copied().filter(|m| m.kind != 1).collect();
    let mut out = Vec::new();
    for ordered in index::group_orders(&pieces) {
        let mut listed = listed.clone();
        listed.extend(ordered);
        let groups = Layout::with_pawns(listed.clone(), lead, other, 0, 0, 1)
            .groups
            .len() as u8;
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
    }
    out
}

/// How an export values a legal position without an en passant right: by side (0: White to
/// move), index and position in the tables' orientation, its mark (`None`: it has no entry).
pub(crate) type Mark<'a> = dyn Fn(usize, u64, &retro_engine::TablePosition) -> Result<Option<u16>, SyzygyError>
    + Sync
    + 'a;

/// The marks of each subtable (`layouts`: one for a pawnless material, one a leading pawn's
/// file otherwise) of the file's side `s` (0: the file's White to move): the mark `mark` gives the legal
/// positions placed at an index, [`UNSET`] where none is. Positions with an en passant right
/// are not placed: the readers look those captures up themselves.
fn place(
    source: &Source,
    mark: &Mark<'_>,
    layouts: &[Layout],
    s: usize,
) -> Result<Vec<Vec<u16>>, SyzygyError> {
    let (geo, indexer) = (&source.geo, &source.indexer);
    let values: Vec<Vec<AtomicU16>> = layouts
        .iter()
        .map(|l| (0..l.size()).map(|_| AtomicU16::new(UNSET)).collect())
        .collect();
    let conflicts = AtomicU64::new(0);
    const CHUNK: u64 = 1 << 14;
    // The tables' side to move, and their positions turned into the file's.
    let ours = s ^ usize::from(source.flipped);
    let stm = [Side::White, Side::Black][ours];
    let pawns = layouts.len() > 1;
    let lead = layouts[0].groups[0];
    (0..indexer.size().div_ceil(CHUNK))
        .into_par_iter()
        .try_for_each(|chunk| {
            let begin = chunk * CHUNK;
            let end = (begin + CHUNK).min(indexer.size());
            let mut failure = None;
            let mut squares: Vec<Square> = Vec::with_capacity(layouts[0].men.len());
            indexer.for_each_position::<TABLE_MEN>(geo, begin..end, stm, |i, p| {
                if failure.is_some() {
                    return;
                }
                let Some(p) = p.filter(|p| p.en_passant().is_none()) else {
                    return;
                };
                let value = match mark(ours, i, &p) {
                    Ok(Some(v)) => v,
                    Ok(None) => return,
                    Err(e) => return failure = Some(e),
                };
                let p = if source.flipped {
                    p.colour_flipped(geo)
                } else {
                    p
                };
                // The men's squares in a listing's order.
                let list = |listing: &[SyzygyMan], squares: &mut Vec<Square>| -> bool {
                    let mut used = [false; 8];
                    squares.clear();
                    for m in listing {
                        let found =
                            p.men().iter().enumerate().position(|(k, man)| {
                                !used[k] && syzygy_man(man.side, man.piece) == *m
                            });
                        let Some(k) = found else {
                            return false;
                        };
                        used[k] = true;
                        let man = p.men()[k];
                        squares.push(geo.file(man.sq) + 8 * geo.rank(man.sq));
                    }
                    true
                };
                if !list(&layouts[0].men, &mut squares) {
                    return failure = Some(source.unsupported(format!("index {i}: a man missing")));
                }
                // The leading pawns, listed first in every subtable, choose the subtable;
                // its own listing orders the rest.
                let f = if pawns {
                    usize::from(index::pawn_file(&squares[..lead]))
                } else {
                    0
                };
                let layout = &layouts[f];
                if layout.men != layouts[0].men && !list(&layout.men, &mut squares) {
                    return failure = Some(source.unsupported(format!("index {i}: a man missing")));
                }
                let n = squares.len();
                let image = if pawns {
                    index::mirror_image(&squares)
                } else {
                    index::diagonal_image(&squares)
                };
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
        return Err(source.unsupported(format!(
            "{conflicts} Syzygy indices reached by positions of different values"
        )));
    }
    Ok(values
        .into_iter()
        .map(|f| f.into_iter().map(AtomicU16::into_inner).collect())
        .collect())
}

/// Of the indices of a side, windows of this many entries are judged by [`sampled_marks`].
const INDEX_WINDOW: u64 = 4096;

/// One index in this many is judged by [`sampled_marks`] (but at least [`LEAST_WINDOWS`]).
const INDEX_SAMPLE: u64 = 64;

/// Windows [`sampled_marks`] judges at least (every window of a side of fewer).
const LEAST_WINDOWS: u64 = 64;

/// The marks of windows of a `layout`'s indices spread evenly over side `s` (one entry in
/// [`INDEX_SAMPLE`], at least [`LEAST_WINDOWS`] windows), each index turned back into its
/// placement ([`Layout::placement`]) and that into the position `mark` values; [`UNSET`]
/// where the placement is no legal position of the table.
fn sampled_marks(
    source: &Source,
    mark: &Mark<'_>,
    layout: &Layout,
    s: usize,
) -> Result<Vec<u16>, SyzygyError> {
    let geo = &source.geo;
    let stm = [Side::White, Side::Black][s];
    let ours = s ^ usize::from(source.flipped);
    let men = listed_men(layout, source.file_material).expect("a listing of the material's men");
    let windows = layout.size().div_ceil(INDEX_WINDOW);
    let taken = windows
        .div_ceil(INDEX_SAMPLE)
        .max(LEAST_WINDOWS.min(windows))
        .max(1);
    let starts: Vec<u64> = (0..taken)
        .map(|k| k * windows / taken * INDEX_WINDOW)
        .collect();
    let parts: Vec<Vec<u16>> = starts
        .par_iter()
        .map(|&start| -> Result<Vec<u16>, SyzygyError> {
            let end = (start + INDEX_WINDOW).min(layout.size());
            let mut out = Vec::with_capacity((end - start) as usize);
            let mut squares = [0; 8];
            for index in start..end {
                let at = PlacedIndex {
                    geo,
                    indexer: &source.indexer,
                    layout,
                    men: &men,
                    flipped: source.flipped,
                };
                let value = match at.position(index, stm, &mut squares) {
                    Some((i, p)) => mark(ours, i, &p)?.unwrap_or(UNSET),
                    None => UNSET,
                };
                out.push(value);
            }
            Ok(out)
        })
        .collect::<Result<_, _>>()?;
    Ok(parts.concat())
}

/// The sides and pieces of a layout's listing in the file's colours, `file_material` the
/// material as the file's White and Black hold it; `None` where the listing names a man the
/// material has not.
pub(crate) fn listed_men(layout: &Layout, file_material: Material) -> Option<Vec<(Side, Piece)>> {
    let men = file_material.men();
    layout
        .men
        .iter()
        .map(|m| {
            men.iter()
                .copied()
                .find(|&(side, piece)| syzygy_man(side, piece) == *m)
        })
        .collect()
}

/// A layout's indices turned back into the tables' positions: each index's placement
/// ([`Layout::placement_into`]) with the listing's men `men`, in the file's colours, then the
/// colours exchanged where the file's White is the tables' Black (`flipped`).
pub(crate) struct PlacedIndex<'a> {
    pub(crate) geo: &'a Geometry,
    pub(crate) indexer: &'a Indexer,
    pub(crate) layout: &'a Layout,
    pub(crate) men: &'a [(Side, Piece)],
    pub(crate) flipped: bool,
}

impl PlacedIndex<'_> {
    /// The position `index` stands for with the file's side `stm` to move, and its index in
    /// the tables; `None` where the placement is no position of the tables.
    pub(crate) fn position(
        &self,
        index: u64,
        stm: Side,
        squares: &mut [Square; 8],
    ) -> Option<(u64, retro_engine::TablePosition)> {
        let geo = self.geo;
        let n = self.layout.placement_into(index, squares)?;
        let placed = self
            .men
            .iter()
            .zip(&squares[..n])
            .map(|(&(side, piece), &sq)| retro_engine::Man {
                side,
                piece,
                sq: geo.sq(sq % 8, sq / 8),
            });
        let p = retro_engine::TablePosition::new(geo, placed, stm, None).ok()?;
        let p = if self.flipped {
            p.colour_flipped(geo)
        } else {
            p
        };
        Some((self.indexer.index(geo, &p)?, p))
    }
}

/// Whether the side to move of `p` may promote a pawn by a step (no capture): the readers
/// search captures only, so an entry such a promotion decides is kept.
pub(crate) fn pawn_step_promotes(geo: &Geometry, p: &retro_engine::TablePosition) -> bool {
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

/// The values to code from each index's mark: a value kept; where a mark leaves the value
/// open (any value no better, [`UP_TO`], or any at all, [`UNSET`]), the one allowed that most
/// often follows the value before it among the kept values, that value itself on a tie, so
/// that runs grow and the pairs the coder makes recur (KQRvKR's weaker side to move 3%
/// smaller than taking the value before wherever allowed).
fn fill(marks: &[u16]) -> Vec<u16> {
    let up_to = u16::from(UP_TO);
    let kept = |m: u16| m != UNSET && m & up_to == 0;
    let mut counts = [[0u64; 8]; 8];
    for w in marks.windows(2) {
        if kept(w[0]) && kept(w[1]) {
            counts[usize::from(w[0] & 7)][usize::from(w[1] & 7)] += 1;
        }
    }
    let mut last = marks.iter().find(|&&v| kept(v)).map_or(2, |&v| v & 7);
    marks
        .iter()
        .map(|&mark| {
            let value = if mark != UNSET && mark & up_to == 0 {
                mark
            } else {
                let most = if mark == UNSET { 4 } else { mark & 7 };
                (0..=most)
                    .max_by_key(|&v| (counts[usize::from(last)][usize::from(v)], v == last))
                    .unwrap_or(last)
            };
            last = value;
            value
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
    append_sides(&mut file, &sides, &[]);
    file
}

/// Appends to a file's header the coded sides' headers, `between` (a DTZ file's value maps),
/// their sparse indices, block entry counts and blocks (each side's 64-byte aligned), the
/// padding to a multiple of 64 and the generator's checksum of all that in 16 more bytes
/// ([`crate::checksum`]; a reader may read four bytes past a block).
pub(crate) fn append_sides(file: &mut Vec<u8>, sides: &[&code::SideCode], between: &[u8]) {
    for side in sides {
        file.extend_from_slice(&side.header);
    }
    file.extend_from_slice(between);
    if file.len() % 2 == 1 {
        file.push(0);
    }
    for side in sides {
        file.extend_from_slice(&side.sparse_index);
    }
    for side in sides {
        file.extend_from_slice(&side.block_lengths);
    }
    for side in sides {
        if side.data.is_empty() {
            continue;
        }
        file.resize(file.len().next_multiple_of(64), 0);
        file.extend_from_slice(&side.data);
    }
    file.resize(file.len().next_multiple_of(64), 0);
    let sum = crate::checksum::checksum(file);
    file.extend_from_slice(&sum);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_judged_by_their_own_indices_write_a_file_read_back_as_proved() {
        // Every layout is judged on its indices turned back into positions; the file
        // written is read back position by position, both sides to move.
        let tables = tempfile::tempdir().unwrap();
        let out = tempfile::tempdir().unwrap();
        let materials: Vec<Material> = ["KQvK", "KRvK", "KBvK", "KNvK", "KQvKR", "KPvK"]
            .iter()
            .map(|m| Material::parse(m).unwrap())
            .collect();
        retro_gen::Builder::new(Board::STANDARD, tables.path())
            .with_metrics(&[retro_gen::Metric::Fifty])
            .build(&materials, &retro_gen::Silent)
            .unwrap();
        for &m in &materials {
            export_wdl(tables.path(), m, out.path()).unwrap();
        }
        let files = crate::SyzygyFiles::open(out.path()).unwrap();
        for &m in &materials[4..] {
            let proved = crate::ProvedTables::open(tables.path(), m).unwrap();
            let c = crate::check(&files, &proved, crate::Coverage::EveryPosition, &|_| {}).unwrap();
            assert!(c.positions > 0 && c.checksums == 1, "{m}");
            assert_eq!(c.differences, 0, "{m}: first {:?}", c.first);
        }
    }
}
