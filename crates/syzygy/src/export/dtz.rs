//! Syzygy DTZ files (`.rtbz`) written from the proved DTZ50 tables, in the layout the readers
//! decode: the magic, the layout byte, a subtable's men order, one side to move a subtable
//! (the one that codes smaller: a reader answers the other by a one-ply search), its flags,
//! the value maps, then the sparse indices, block entry counts and blocks as in a WDL file.
//!
//! What a reader gives for a position it looks up is the sign of its class and `1 +` the
//! stored value (wins and losses), or `101 + 2 ×` it (cursed wins and blessed losses, which
//! the format keeps in moves): this file stores wins and losses in plies (the flags
//! `WIN_PLIES` and `LOSS_PLIES`), so their DTZ50 reads back exactly, and a cursed win's or a
//! blessed loss's rounded down to the format's moves, one ply short at most. A reader looks
//! nothing up at a draw, at a win or cursed win a capture or a pawn move keeps (its DTZ is
//! 1 or 101, found by that move), nor at a position with an en passant right: those entries
//! are don't-cares, filled to make runs and frequent pairs. The stored values are numbered by
//! frequency in each class, so that one number stands for the most common value of every
//! class, and the maps turn the numbers back into values.
//!
//! Owns: the DTZ file's values, maps, flags and layout.
//! Must never: value a position itself (the proved DTZ50 and WDL50 tables do).

use super::code::{self, SideCode};
use super::index::Layout;
use super::{append_sides, choose_layouts, Exported, Source, UNSET};
use crate::{open_proved, SyzygyError};
use retro_engine::Material;
use retro_format::{Dtz, TableKind, Wdl};
use retro_rules::Board;
use std::cmp::Reverse;
use std::collections::HashMap;
use std::path::Path;

/// The first four bytes of a DTZ file.
const DTZ_MAGIC: [u8; 4] = [0xd7, 0x66, 0x0c, 0xa5];

/// Bytes a DTZ block holds at most (the most the readers take).
const DTZ_BLOCK_BYTES: usize = 1024;

/// The mark of a position whose entry no reader looks up.
const ANY: u16 = 0xfffe;

/// Subtable flag: the side stored is Black to move.
const STORES_BLACK: u8 = 1;
/// Subtable flag: the stored numbers go through value maps.
const MAPPED: u8 = 2;
/// Subtable flag: wins are stored in plies, not moves.
const WIN_PLIES: u8 = 4;
/// Subtable flag: losses are stored in plies, not moves.
const LOSS_PLIES: u8 = 8;
/// Subtable flag: the value maps are of two bytes an entry.
const WIDE_MAPS: u8 = 16;

/// Values a class may have below this (a mark holds the class above them).
const VALUE_LIMIT: u16 = 1 << 12;

/// The readers' number of a class's map: win, loss, cursed win, blessed loss.
fn map_of(class: Wdl) -> Option<u16> {
    Some(match class {
        Wdl::Win => 0,
        Wdl::Loss => 1,
        Wdl::CursedWin => 2,
        Wdl::BlessedLoss => 3,
        Wdl::Draw | Wdl::Illegal => return None,
    })
}

/// The value a file stores for a position of `class` whose DTZ50 is `dtz` (in plies, a cursed
/// win's and a blessed loss's counted as Syzygy counts them, from 101): plies less one for a
/// win or a loss (a checkmated position stores 0 as one mated by its zeroing move: the readers
/// say −1), and for the others half the plies past the 101st, rounded down (the readers give
/// `101 + 2 ×` the value).
fn stored_value(class: Wdl, dtz: Dtz) -> Option<u32> {
    Some(match (class, dtz) {
        (Wdl::Win, Dtz::Win(n)) if n >= 1 => n - 1,
        (Wdl::Loss, Dtz::Loss(n)) => n.saturating_sub(1),
        (Wdl::CursedWin, Dtz::Win(n)) if n >= 101 => (n - 101) / 2,
        (Wdl::BlessedLoss, Dtz::Loss(n)) if n >= 101 => (n - 101) / 2,
        _ => return None,
    })
}

/// A side coded with the maps its numbers go through.
#[derive(Debug, Clone)]
pub(crate) struct DtzSide {
    code: SideCode,
    /// By map (win, loss, cursed win, blessed loss), the value of each number.
    maps: [Vec<u16>; 4],
}

impl DtzSide {
    /// Bytes the side takes, its maps counted as narrow ones.
    fn bytes(&self) -> usize {
        self.code.bytes() + self.maps.iter().map(|m| m.len() + 1).sum::<usize>()
    }

    /// Whether a map needs two bytes an entry: a value or a length above 255.
    fn needs_wide_maps(&self) -> bool {
        self.maps
            .iter()
            .any(|m| m.len() > 255 || m.iter().any(|&v| v > 255))
    }
}

/// Codes a side's marks (`(map << 12) | value`, [`ANY`], [`UNSET`]): each map's values
/// numbered by frequency, the most frequent 0; the don't-cares filled by [`fill_gaps`].
fn code_dtz(marks: &[u16]) -> DtzSide {
    let mut counts = vec![[0u64; VALUE_LIMIT as usize]; 4];
    for &m in marks {
        if m != ANY && m != UNSET {
            counts[usize::from(m >> 12)][usize::from(m & (VALUE_LIMIT - 1))] += 1;
        }
    }
    let mut number = vec![[0u16; VALUE_LIMIT as usize]; 4];
    let maps: [Vec<u16>; 4] = std::array::from_fn(|k| {
        let mut values: Vec<u16> = (0..VALUE_LIMIT)
            .filter(|&v| counts[k][usize::from(v)] > 0)
            .collect();
        values.sort_by_key(|&v| (Reverse(counts[k][usize::from(v)]), v));
        for (n, &v) in values.iter().enumerate() {
            number[k][usize::from(v)] = n as u16;
        }
        values
    });
    let numbers: Vec<Option<u16>> = marks
        .iter()
        .map(|&m| {
            (m != ANY && m != UNSET)
                .then(|| number[usize::from(m >> 12)][usize::from(m & (VALUE_LIMIT - 1))])
        })
        .collect();
    let numbers = fill_gaps(&numbers);
    let code = code::code_side(&numbers, DTZ_BLOCK_BYTES);
    DtzSide { code, maps }
}

/// Gaps (runs of don't-cares) of at most this many entries take the number of a neighbour.
const SHORT_GAP: usize = 32;

/// The numbers to code, every don't-care (`None`) given one: a short gap the smaller number
/// of the two around it (the more frequent: numbers are ranked so), which makes it a run of
/// one of them; a longer gap, after the most frequent follower of the number before it, the
/// pair of numbers seen most often side by side, over and over, so that the pair coder takes
/// it in few symbols.
fn fill_gaps(numbers: &[Option<u16>]) -> Vec<u16> {
    const OPEN: u16 = u16::MAX;
    let mut out: Vec<u16> = Vec::with_capacity(numbers.len());
    let mut long_gaps: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    while at < numbers.len() {
        if let Some(n) = numbers[at] {
            out.push(n);
            at += 1;
            continue;
        }
        let end = (at..numbers.len())
            .find(|&k| numbers[k].is_some())
            .unwrap_or(numbers.len());
        let before = out.last().copied();
        let after = numbers.get(end).copied().flatten();
        let neighbour = match (before, after) {
            (Some(b), Some(a)) => Some(b.min(a)),
            (b, a) => b.or(a),
        };
        match neighbour {
            Some(n) if end - at <= SHORT_GAP => out.extend(std::iter::repeat_n(n, end - at)),
            _ => {
                long_gaps.push((at, end));
                out.extend(std::iter::repeat_n(OPEN, end - at));
            }
        }
        at = end;
    }
    if long_gaps.is_empty() {
        return out;
    }
    // The pairs side by side outside the long gaps: each number's most frequent follower, and
    // the most frequent pair (ties to the smaller numbers).
    let mut pairs: HashMap<(u16, u16), u64> = HashMap::new();
    for w in out.windows(2) {
        if w[0] != OPEN && w[1] != OPEN {
            *pairs.entry((w[0], w[1])).or_default() += 1;
        }
    }
    let mut follower: HashMap<u16, (u64, Reverse<u16>)> = HashMap::new();
    for (&(a, b), &count) in &pairs {
        let best = follower.entry(a).or_insert((0, Reverse(b)));
        *best = (*best).max((count, Reverse(b)));
    }
    let common = pairs
        .iter()
        .max_by_key(|(&pair, &count)| (count, Reverse(pair)))
        .map_or((0, 0), |(&pair, _)| pair);
    for (start, end) in long_gaps {
        let mut k = start;
        if let Some(&(_, Reverse(next))) = start.checked_sub(1).and_then(|b| follower.get(&out[b]))
        {
            out[k] = next;
            k += 1;
        }
        for (j, slot) in out[k..end].iter_mut().enumerate() {
            *slot = if j % 2 == 0 { common.0 } else { common.1 };
        }
    }
    out
}

/// Writes `MATERIAL.rtbz` into `out` from the proved DTZ50 and WDL50 tables of `material` in
/// `tables` (raw or packed, 8×8, a rule of 100 plies), atomically.
pub fn export_dtz(tables: &Path, material: Material, out: &Path) -> Result<Exported, SyzygyError> {
    let source = Source::open(tables, material)?;
    let dtz = open_proved(tables, TableKind::Dtz50, &source.name)?;
    // By index, what decides a position's entry without the file: a draw, or a win or cursed
    // win that a zeroing move keeps (`retro_format::exits::dtz50_decided`; 0 elsewhere).
    let decided = retro_gen::exit_codes(Board::STANDARD, tables, TableKind::Dtz50, source.material)
        .map_err(|e| source.unsupported(e.to_string()))?;
    let mark = |s: usize, i: u64, _: &retro_engine::TablePosition| {
        let class = source.class(s, i)?;
        if class == Wdl::Illegal {
            return Ok(None);
        }
        let Some(map) = map_of(class) else {
            return Ok(Some(ANY));
        };
        if decided[s][i as usize] != 0 {
            return Ok(Some(ANY));
        }
        let d = dtz.dtz(s == 0, i)?;
        match stored_value(class, d) {
            Some(v) if v < u32::from(VALUE_LIMIT) => Ok(Some(map << 12 | v as u16)),
            _ => Err(source.unsupported(format!(
                "index {i}: a {} of DTZ50 {d:?} has no value in a Syzygy DTZ file",
                class.name()
            ))),
        }
    };
    let sides: Vec<usize> = if source.symmetric {
        vec![0]
    } else {
        vec![0, 1]
    };
    let chosen = choose_layouts(&source, &sides, &mark, &code_dtz, &|c: &DtzSide| c.bytes())?;
    // Each subtable keeps the side that codes smaller.
    let mut unreached = 0;
    let kept: Vec<(usize, Layout, DtzSide)> = chosen
        .into_iter()
        .map(|f| {
            let (k, c) = f
                .into_iter()
                .enumerate()
                .min_by_key(|(_, c)| c.code.bytes())
                .expect("a side a subtable");
            unreached += c.unreached;
            (sides[k], c.layout, c.code)
        })
        .collect();
    let indices = kept.iter().map(|(_, l, _)| l.size()).sum();
    let bytes = dtz_file(&kept, source.symmetric, source.material.has_pawns())
        .map_err(|reason| source.unsupported(reason))?;
    let path = out.join(format!("{}.rtbz", source.file_material));
    retro_format::write_atomically(&path, &bytes)?;
    Ok(Exported {
        path,
        bytes: bytes.len() as u64,
        indices,
        sides: 1,
        unreached,
    })
}

/// The bytes of a DTZ file whose subtables (one, or one a leading pawn's file) each hold one
/// side to move (`0`: White) coded under its layout, with its maps.
fn dtz_file(
    files: &[(usize, Layout, DtzSide)],
    symmetric: bool,
    pawns: bool,
) -> Result<Vec<u8>, String> {
    let mut file = DTZ_MAGIC.to_vec();
    let men = files[0].1.men.len() as u8;
    file.push(u8::from(!symmetric) | u8::from(pawns) << 1 | men << 4);
    for (_, layout, _) in files {
        file.push(layout.order | layout.order << 4);
        if layout.pawn_order != 0xf {
            file.push(layout.pawn_order | layout.pawn_order << 4);
        }
        file.extend(layout.men.iter().map(|m| m.nibble() | m.nibble() << 4));
    }
    if file.len() % 2 == 1 {
        file.push(0);
    }
    let wide = files.iter().any(|(_, _, side)| side.needs_wide_maps());
    let mut maps = Vec::new();
    let mut sides: Vec<SideCode> = Vec::new();
    for (s, _, side) in files {
        let mut code = side.code.clone();
        if code.header[0] & 0x80 != 0 && code.header[1] != 0 {
            // The readers differ on a DTZ side of one value; all of them read a 0 right.
            return Err("a DTZ side of one value that is not the first number".into());
        }
        code.header[0] |= (if *s == 1 { STORES_BLACK } else { 0 })
            | MAPPED
            | WIN_PLIES
            | LOSS_PLIES
            | if wide { WIDE_MAPS } else { 0 };
        for map in &side.maps {
            if wide {
                maps.extend_from_slice(&(map.len() as u16).to_le_bytes());
                for &v in map {
                    maps.extend_from_slice(&v.to_le_bytes());
                }
            } else {
                maps.push(map.len() as u8);
                maps.extend(map.iter().map(|&v| v as u8));
            }
        }
        sides.push(code);
    }
    let sides: Vec<&SideCode> = sides.iter().collect();
    append_sides(&mut file, &sides, &maps);
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_plies_less_one_or_moves_past_fifty() {
        assert_eq!(stored_value(Wdl::Win, Dtz::Win(1)), Some(0));
        assert_eq!(stored_value(Wdl::Win, Dtz::Win(100)), Some(99));
        assert_eq!(stored_value(Wdl::Loss, Dtz::Loss(0)), Some(0));
        assert_eq!(stored_value(Wdl::Loss, Dtz::Loss(2)), Some(1));
        assert_eq!(stored_value(Wdl::CursedWin, Dtz::Win(101)), Some(0));
        assert_eq!(stored_value(Wdl::CursedWin, Dtz::Win(104)), Some(1));
        assert_eq!(stored_value(Wdl::BlessedLoss, Dtz::Loss(102)), Some(0));
        assert_eq!(stored_value(Wdl::Win, Dtz::Loss(3)), None);
        assert_eq!(stored_value(Wdl::CursedWin, Dtz::Win(99)), None);
    }

    #[test]
    fn a_short_gap_takes_the_smaller_neighbour_a_long_one_the_frequent_pair() {
        assert_eq!(fill_gaps(&[Some(1), None, None, Some(0)]), vec![1, 0, 0, 0]);
        assert_eq!(fill_gaps(&[None, Some(4)]), vec![4, 4]);
        let mut numbers: Vec<Option<u16>> = [2, 3, 2, 3, 2, 3].map(Some).to_vec();
        numbers.extend([None; 40]);
        numbers.push(Some(2));
        let filled = fill_gaps(&numbers);
        // After 3 its follower 2, then the pair seen most often, (2, 3), over and over.
        assert_eq!(filled[6..11], [2, 2, 3, 2, 3]);
        assert_eq!(filled.len(), numbers.len());
    }

    #[test]
    fn numbers_follow_frequency_in_each_map() {
        let marks = [
            5,
            5,
            7,
            ANY,
            1 << 12 | 9,
            UNSET,
            5,
            1 << 12 | 9,
            1 << 12 | 3,
        ];
        let side = code_dtz(&marks);
        assert_eq!(side.maps[0], vec![5, 7]);
        assert_eq!(side.maps[1], vec![9, 3]);
        assert!(side.maps[2].is_empty() && !side.needs_wide_maps());
    }
}
