//! A Syzygy file read whole, in index order, as the format's readers would read each entry:
//! the header's listings and orders made into each subtable's [`Layout`], each side's
//! canonical Huffman code and pairs, its sparse index checked against its block lengths, and
//! its entries decoded a run of blocks at a time (in parallel by the caller).
//!
//! A reader such as shakmaty-syzygy looks one position up at a time, reading its block from
//! the file each time: right for a probe, slow for the thousands of millions of entries of a
//! five-man set. Walking the blocks in order reads each once.
//!
//! Owns: parsing a WDL or DTZ file ([`SyzygyFile::parse`]), decoding a side's entries
//! ([`CodedSide::decode`]) and a DTZ entry's value as the readers turn it into plies
//! ([`CodedSide::dtz_plies`]).
//! Must never: value a position or compare (the caller does, against the proved tables), or
//! panic on a damaged file (every offset and count is checked; a damaged file is an error
//! naming what is wrong).

use crate::export::index::{Layout, SyzygyMan};
use std::ops::Range;

/// The magic of a WDL file.
const WDL_MAGIC: [u8; 4] = [0x71, 0xe8, 0x23, 0x5d];
/// The magic of a DTZ file.
const DTZ_MAGIC: [u8; 4] = [0xd7, 0x66, 0x0c, 0xa5];

/// A side's flag: every entry is one value.
const SINGLE_VALUE: u8 = 0x80;
/// A DTZ side's flag: Black to move is stored.
pub const STORES_BLACK: u8 = 1;
/// A DTZ side's flag: values go through the file's value maps.
const MAPPED: u8 = 2;
/// A DTZ side's flag: wins are stored in plies (else in moves).
const WIN_PLIES: u8 = 4;
/// A DTZ side's flag: losses are stored in plies (else in moves).
const LOSS_PLIES: u8 = 8;
/// A DTZ side's flag: the value maps are of 16-bit values.
const WIDE_MAPS: u8 = 16;

/// Pairs nested in a symbol at most, as the readers allow.
const MAX_PAIR_DEPTH: u8 = 16;

/// Which of the two kinds of file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Win/draw/loss: both sides to move, unless the material's sides are alike.
    Wdl,
    /// Distance to zeroing: one side to move.
    Dtz,
}

/// A decisive class, as a DTZ file's maps and flags tell them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decisive {
    /// A win.
    Win,
    /// A loss.
    Loss,
    /// A win the fifty-move rule spoils.
    CursedWin,
    /// A loss the fifty-move rule saves.
    BlessedLoss,
}

/// A DTZ entry as the readers turn it into plies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredPlies {
    /// Plies to the zeroing move after the first, as stored.
    pub plies: u32,
    /// Whether they were stored in moves (doubled here): the true count may be one more.
    pub rounded: bool,
}

/// A file parsed: its bytes and its subtables (one, or one a leading pawn's file a–d).
pub struct SyzygyFile {
    bytes: Vec<u8>,
    /// Which kind of file.
    pub kind: FileKind,
    /// Whether the material's two sides are alike (one side to move stored).
    pub symmetric: bool,
    /// The subtables: the sides each stores.
    pub subtables: Vec<Vec<CodedSide>>,
}

/// How a side's entries are coded.
#[derive(Debug, Clone)]
enum Coding {
    /// Every entry is this value.
    Single(u16),
    /// Blocks of canonical Huffman codes of pair symbols.
    Blocks(Blocks),
}

/// The coded blocks of a side.
#[derive(Debug, Clone)]
struct Blocks {
    block_bytes: usize,
    span: u64,
    /// Real blocks.
    count: usize,
    /// Entries in the block length table (real blocks and padding).
    length_entries: usize,
    min_len: u32,
    /// By code length from `min_len`, the lowest code of that length, left-aligned in 64 bits.
    base: Vec<u64>,
    /// By code length from `min_len`, the number of its first symbol.
    lowest: Vec<u16>,
    /// By symbol: a value (`right == 0xfff`) or a pair of symbols.
    symbols: Vec<(u16, u16)>,
    /// By symbol, how many values it stands for.
    lengths: Vec<u32>,
    sparse_index: usize,
    block_lengths: usize,
    data: usize,
}

/// A run of whole blocks of a side: its first entry, how many entries it holds (the last
/// run cut at the side's size) and the blocks.
#[derive(Debug, Clone)]
pub struct Run {
    /// The index of its first entry.
    pub first: u64,
    /// Its entries.
    pub entries: u64,
    blocks: Range<usize>,
}

/// One side of one subtable.
#[derive(Debug, Clone)]
pub struct CodedSide {
    /// Where each entry's men stand.
    pub layout: Layout,
    /// The side to move its entries are for, in the file's colours (0: White).
    pub side: usize,
    /// The side's flags byte.
    pub flags: u8,
    coding: Coding,
    /// A DTZ side's value maps: by [`Decisive`] (win, loss, cursed win, blessed loss), where
    /// its map starts in the file and whether its values are two bytes.
    maps: Option<([usize; 4], bool)>,
}

/// What is wrong with a file.
pub type DecodeError = String;

/// Bytes of `bytes` at `at`, or what is wrong.
fn slice(bytes: &[u8], at: usize, len: usize) -> Result<&[u8], DecodeError> {
    at.checked_add(len)
        .and_then(|end| bytes.get(at..end))
        .ok_or_else(|| format!("truncated: {len} bytes at offset {at} are past its end"))
}

fn u8_at(bytes: &[u8], at: usize) -> Result<u8, DecodeError> {
    Ok(slice(bytes, at, 1)?[0])
}

fn u16_at(bytes: &[u8], at: usize) -> Result<u16, DecodeError> {
    let b = slice(bytes, at, 2)?;
    Ok(u16::from_le_bytes([b[0], b[1]]))
}

fn u32_at(bytes: &[u8], at: usize) -> Result<u32, DecodeError> {
    let b = slice(bytes, at, 4)?;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The man of a header nibble.
fn man_of(nibble: u8) -> Result<SyzygyMan, DecodeError> {
    let kind = nibble & 7;
    if !(1..=6).contains(&kind) {
        return Err(format!("a man of kind {kind} in its header"));
    }
    Ok(SyzygyMan {
        kind,
        black: nibble & 8 != 0,
    })
}

/// The layout of a subtable's side: its men listed, its order nibbles, the leading pawn's
/// file where the material has pawns.
fn layout_of(
    listed: Vec<SyzygyMan>,
    order: u8,
    pawn_order: u8,
    file: Option<u8>,
) -> Result<Layout, DecodeError> {
    let count = |m: &SyzygyMan| listed.iter().filter(|n| *n == m).count();
    if listed.iter().filter(|m| m.kind == 6).count() != 2
        || listed.iter().filter(|m| m.kind == 6 && m.black).count() != 1
    {
        return Err("a listing without one king a side".into());
    }
    let groups_after = |start: usize| {
        let mut groups = 0u8;
        let mut i = start;
        while i < listed.len() {
            i += listed[i..].iter().take_while(|m| **m == listed[i]).count();
            groups += 1;
        }
        groups
    };
    match file {
        None => {
            let unique = listed.iter().filter(|m| count(m) == 1).count();
            let lead = if unique >= 3 { 3 } else { 2 };
            if listed[..lead].iter().any(|m| count(m) != 1) {
                return Err("a leading group of men not alone of their kind".into());
            }
            if order > groups_after(lead) {
                return Err(format!("an order nibble {order} past its groups"));
            }
            Ok(Layout::new(listed, lead, order))
        }
        Some(file) => {
            let first = listed[0];
            if first.kind != 1 {
                return Err("a table with pawns listing a piece first".into());
            }
            let lead = listed.iter().take_while(|m| **m == first).count();
            let other = SyzygyMan {
                kind: 1,
                black: !first.black,
            };
            let other_pawns = listed[lead..].iter().take_while(|m| **m == other).count();
            if listed[lead + other_pawns..].iter().any(|m| m.kind == 1) {
                return Err("pawns listed apart from their side's".into());
            }
            let groups = 1 + u8::from(other_pawns > 0) + groups_after(lead + other_pawns);
            let pawn_order = if other_pawns > 0 { pawn_order } else { 0xf };
            if order >= groups || (other_pawns > 0 && (pawn_order >= groups || pawn_order == order))
            {
                return Err(format!(
                    "order nibbles {order} and {pawn_order} of {groups} groups"
                ));
            }
            Ok(Layout::with_pawns(
                listed,
                lead,
                other_pawns,
                file,
                order,
                pawn_order,
            ))
        }
    }
}

impl SyzygyFile {
    /// Parses `bytes`, the file of a material of `men` men (`both_pawns`: pawns of both
    /// sides among them), as a file of `kind`.
    pub fn parse(
        bytes: Vec<u8>,
        kind: FileKind,
        men: usize,
        both_pawns: bool,
    ) -> Result<SyzygyFile, DecodeError> {
        let magic = slice(&bytes, 0, 4)?;
        let expected = match kind {
            FileKind::Wdl => WDL_MAGIC,
            FileKind::Dtz => DTZ_MAGIC,
        };
        if magic != expected {
            return Err(format!("bad magic {magic:02x?}"));
        }
        let layout_byte = u8_at(&bytes, 4)?;
        let split = layout_byte & 1 != 0;
        let pawns = layout_byte & 2 != 0;
        let symmetric = !split;
        let sides = match kind {
            FileKind::Wdl if split => 2,
            _ => 1,
        };
        let mut at = 5;
        let mut listings = Vec::new();
        for file in 0..if pawns { 4u8 } else { 1 } {
            let orders = u8_at(&bytes, at)?;
            // The second order byte is there where both sides have pawns.
            let (pawn_orders, list_at) = if both_pawns {
                (u8_at(&bytes, at + 1)?, at + 2)
            } else {
                (0xff, at + 1)
            };
            let list = slice(&bytes, list_at, men)?;
            let mut per_side = Vec::new();
            for s in 0..sides {
                let shift = 4 * s as u32;
                let listed: Vec<SyzygyMan> = list
                    .iter()
                    .map(|b| man_of((b >> shift) & 0xf))
                    .collect::<Result<_, _>>()?;
                let layout = layout_of(
                    listed,
                    (orders >> shift) & 0xf,
                    (pawn_orders >> shift) & 0xf,
                    pawns.then_some(file),
                )?;
                per_side.push(layout);
            }
            listings.push(per_side);
            at = list_at + men;
        }
        at += at & 1;
        let mut subtables: Vec<Vec<CodedSide>> = Vec::new();
        for per_side in listings {
            let mut coded = Vec::new();
            for (s, layout) in per_side.into_iter().enumerate() {
                let (side, next) = parse_side(&bytes, at, layout, s, kind)?;
                coded.push(side);
                at = next;
            }
            subtables.push(coded);
        }
        if kind == FileKind::Dtz {
            for coded in &mut subtables {
                let side = &mut coded[0];
                if side.flags & MAPPED == 0 {
                    continue;
                }
                let wide = side.flags & WIDE_MAPS != 0;
                let mut starts = [0usize; 4];
                for start in &mut starts {
                    if wide {
                        at += at & 1;
                        *start = at + 2;
                        at += 2 + 2 * usize::from(u16_at(&bytes, at)?);
                    } else {
                        *start = at + 1;
                        at += 1 + usize::from(u8_at(&bytes, at)?);
                    }
                }
                side.maps = Some((starts, wide));
            }
            at += at & 1;
        }
        for coded in &mut subtables {
            for side in coded.iter_mut() {
                if let Coding::Blocks(b) = &mut side.coding {
                    b.sparse_index = at;
                    at += 6 * side.layout.size().div_ceil(b.span) as usize;
                }
            }
        }
        for coded in &mut subtables {
            for side in coded.iter_mut() {
                if let Coding::Blocks(b) = &mut side.coding {
                    b.block_lengths = at;
                    at += 2 * b.length_entries;
                }
            }
        }
        for coded in &mut subtables {
            for side in coded.iter_mut() {
                if let Coding::Blocks(b) = &mut side.coding {
                    at = at.next_multiple_of(64);
                    b.data = at;
                    at += b.count * b.block_bytes;
                }
            }
        }
        slice(&bytes, 0, at)?;
        let file = SyzygyFile {
            bytes,
            kind,
            symmetric,
            subtables,
        };
        for coded in &file.subtables {
            for side in coded {
                side.check_blocks(&file.bytes)?;
            }
        }
        Ok(file)
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// Parses the side header at `at`: the side and where the next header starts.
fn parse_side(
    bytes: &[u8],
    at: usize,
    layout: Layout,
    s: usize,
    kind: FileKind,
) -> Result<(CodedSide, usize), DecodeError> {
    let flags = u8_at(bytes, at)?;
    let side = match kind {
        FileKind::Wdl => s,
        FileKind::Dtz => usize::from(flags & STORES_BLACK),
    };
    if flags & SINGLE_VALUE != 0 {
        // A DTZ side of one value reads as 0 in every reader of chess files.
        let value = match kind {
            FileKind::Wdl => u16::from(u8_at(bytes, at + 1)?),
            FileKind::Dtz => 0,
        };
        let coded = CodedSide {
            layout,
            side,
            flags,
            coding: Coding::Single(value),
            maps: None,
        };
        return Ok((coded, at + 2));
    }
    let header = slice(bytes, at, 10)?;
    if header[1] > 16 || header[2] > 40 {
        return Err(format!(
            "a block of 2^{} bytes or a span of 2^{}",
            header[1], header[2]
        ));
    }
    let block_bytes = 1usize << header[1];
    let span = 1u64 << header[2];
    let padding = usize::from(header[3]);
    let count = u32::from_le_bytes([header[4], header[5], header[6], header[7]]) as usize;
    let (max_len, min_len) = (u32::from(header[8]), u32::from(header[9]));
    if max_len > 32 || min_len > max_len || min_len == 0 {
        return Err(format!("code lengths {min_len} to {max_len}"));
    }
    let h = (max_len - min_len + 1) as usize;
    let lowest: Vec<u16> = (0..h)
        .map(|i| u16_at(bytes, at + 10 + 2 * i))
        .collect::<Result<_, _>>()?;
    let mut base = vec![0u64; h];
    for i in (0..h - 1).rev() {
        let sum = base[i + 1] + u64::from(lowest[i]);
        let next = sum
            .checked_sub(u64::from(lowest[i + 1]))
            .ok_or("its lowest symbols out of order")?;
        base[i] = next / 2;
        if base[i] * 2 < base[i + 1] {
            return Err("a code not canonical".into());
        }
    }
    for (i, b) in base.iter_mut().enumerate() {
        let len = min_len + i as u32;
        *b = b
            .checked_shl(64 - len)
            .filter(|v| v >> (64 - len) == *b)
            .ok_or("a code longer than its length")?;
    }
    let symbols_at = at + 10 + 2 * h;
    let n = usize::from(u16_at(bytes, symbols_at)?);
    let table = slice(bytes, symbols_at + 2, 3 * n)?;
    let symbols: Vec<(u16, u16)> = (0..n)
        .map(|s| {
            let b = &table[3 * s..3 * s + 3];
            let left = u16::from(b[0]) | (u16::from(b[1] & 0xf) << 8);
            let right = (u16::from(b[2]) << 4) | u16::from(b[1] >> 4);
            (left, right)
        })
        .collect();
    let lengths = symbol_lengths(&symbols)?;
    let next = symbols_at + 2 + 3 * n + (n & 1);
    let blocks = Blocks {
        block_bytes,
        span,
        count,
        length_entries: count + padding,
        min_len,
        base,
        lowest,
        symbols,
        lengths,
        sparse_index: 0,
        block_lengths: 0,
        data: 0,
    };
    let coded = CodedSide {
        layout,
        side,
        flags,
        coding: Coding::Blocks(blocks),
        maps: None,
    };
    Ok((coded, next))
}

/// By symbol, how many values it stands for; an error where pairs nest deeper than the
/// readers follow or name a symbol past the table.
fn symbol_lengths(symbols: &[(u16, u16)]) -> Result<Vec<u32>, DecodeError> {
    let mut lengths: Vec<Option<u32>> = vec![None; symbols.len()];
    fn length(
        s: usize,
        symbols: &[(u16, u16)],
        lengths: &mut [Option<u32>],
        depth: u8,
    ) -> Result<u32, DecodeError> {
        if let Some(l) = lengths.get(s).copied().flatten() {
            return Ok(l);
        }
        let &(left, right) = symbols
            .get(s)
            .ok_or_else(|| format!("a pair naming symbol {s} of {}", symbols.len()))?;
        let l = if right == 0xfff {
            1
        } else {
            if depth == 0 {
                return Err("pairs nested deeper than the readers follow".into());
            }
            let a = length(usize::from(left), symbols, lengths, depth - 1)?;
            let b = length(usize::from(right), symbols, lengths, depth - 1)?;
            a.saturating_add(b)
        };
        lengths[s] = Some(l);
        Ok(l)
    }
    for s in 0..symbols.len() {
        length(s, symbols, &mut lengths, MAX_PAIR_DEPTH)?;
    }
    Ok(lengths.into_iter().map(|l| l.unwrap_or(0)).collect())
}

/// 64 bits of `block` from bit `bit`, first bit first, zeros past its end.
fn bits_at(block: &[u8], bit: usize) -> u64 {
    let byte = bit / 8;
    let mut buf = [0u8; 16];
    if byte < block.len() {
        let n = (block.len() - byte).min(16);
        buf[..n].copy_from_slice(&block[byte..byte + n]);
    }
    ((u128::from_be_bytes(buf) << (bit % 8)) >> 64) as u64
}

impl CodedSide {
    /// Entries of the side.
    pub fn size(&self) -> u64 {
        self.layout.size()
    }

    /// Runs of whole blocks of about `entries` entries each, in index order: the units
    /// [`CodedSide::decode`] takes.
    pub fn runs(&self, bytes: &[u8], entries: u64) -> Vec<Run> {
        let size = self.size();
        let entries = entries.max(1);
        match &self.coding {
            Coding::Single(_) => (0..size.div_ceil(entries))
                .map(|k| Run {
                    first: k * entries,
                    entries: entries.min(size - k * entries),
                    blocks: 0..0,
                })
                .collect(),
            Coding::Blocks(b) => {
                let mut runs = Vec::new();
                let (mut first, mut start, mut held) = (0u64, 0usize, 0u64);
                for block in 0..b.count {
                    held += self.block_entries(bytes, b, block);
                    if held >= entries || block + 1 == b.count {
                        runs.push(Run {
                            first,
                            entries: held.min(size.saturating_sub(first)),
                            blocks: start..block + 1,
                        });
                        first += held;
                        start = block + 1;
                        held = 0;
                    }
                }
                runs.retain(|r| r.entries > 0);
                runs
            }
        }
    }

    fn block_entries(&self, bytes: &[u8], b: &Blocks, block: usize) -> u64 {
        let at = b.block_lengths + 2 * block;
        u64::from(u16::from_le_bytes([bytes[at], bytes[at + 1]])) + 1
    }

    /// Checks the block lengths against the side's size and every sparse index entry against
    /// the block it names (the readers go by it, so a wrong one misleads them).
    fn check_blocks(&self, bytes: &[u8]) -> Result<(), DecodeError> {
        let Coding::Blocks(b) = &self.coding else {
            return Ok(());
        };
        let size = self.size();
        let mut starts = Vec::with_capacity(b.count + 1);
        let mut total = 0u64;
        for block in 0..b.count {
            starts.push(total);
            total += self.block_entries(bytes, b, block);
        }
        starts.push(total);
        if total < size {
            return Err(format!(
                "its blocks hold {total} entries of a side of {size}"
            ));
        }
        for k in 0..size.div_ceil(b.span) {
            let at = b.sparse_index + 6 * k as usize;
            let block = u32_at(bytes, at)? as usize;
            let place = u64::from(u16_at(bytes, at + 4)?);
            let entry = k * b.span + b.span / 2;
            // The readers start from the named block and place and walk by the blocks'
            // lengths: right where the two name the entry. Past the side's size no reader
            // looks.
            let right = entry >= size || (block < b.count && starts[block] + place == entry);
            if !right {
                return Err(format!(
                    "sparse index entry {k} (entry {entry}) names block {block}, place {place}, \
                     of {} blocks",
                    b.count
                ));
            }
        }
        Ok(())
    }

    /// The entries of `run` (one of [`CodedSide::runs`]) into `out`.
    pub fn decode(&self, bytes: &[u8], run: &Run, out: &mut Vec<u16>) -> Result<(), DecodeError> {
        out.clear();
        let b = match &self.coding {
            Coding::Single(v) => {
                out.resize(run.entries as usize, *v);
                return Ok(());
            }
            Coding::Blocks(b) => b,
        };
        let mut stack: Vec<u16> = Vec::with_capacity(64);
        for block in run.blocks.clone() {
            let n = self.block_entries(bytes, b, block) as usize;
            let data = slice(bytes, b.data + block * b.block_bytes, b.block_bytes)?;
            let bits = 8 * b.block_bytes;
            let end = out.len() + n;
            let mut bit = 0usize;
            while out.len() < end {
                let code = bits_at(data, bit);
                let mut l = 0usize;
                while l < b.base.len() && code < b.base[l] {
                    l += 1;
                }
                if l == b.base.len() {
                    return Err(format!("block {block}: a code no symbol has"));
                }
                let len = b.min_len + l as u32;
                let symbol = usize::from(b.lowest[l]) + ((code - b.base[l]) >> (64 - len)) as usize;
                if symbol >= b.symbols.len() {
                    return Err(format!("block {block}: symbol {symbol} past the table"));
                }
                bit += len as usize;
                if bit > bits {
                    return Err(format!("block {block}: codes past its end"));
                }
                if b.lengths[symbol] == 1 {
                    out.push(b.symbols[symbol].0);
                    continue;
                }
                // Expand the pair, left first.
                stack.clear();
                stack.push(symbol as u16);
                while let Some(s) = stack.pop() {
                    if out.len() >= end {
                        break;
                    }
                    let (left, right) = b.symbols[usize::from(s)];
                    if right == 0xfff {
                        out.push(left);
                    } else {
                        stack.push(right);
                        stack.push(left);
                    }
                }
            }
        }
        out.truncate(run.entries as usize);
        Ok(())
    }

    /// A DTZ entry's value `stored` for a position of class `class`, in plies as the readers
    /// turn it (through the maps, doubled where stored in moves); `None` past a map's end.
    pub fn dtz_plies(&self, bytes: &[u8], class: Decisive, stored: u16) -> Option<StoredPlies> {
        let value = match self.maps {
            None => u32::from(stored),
            Some((starts, wide)) => {
                let k = match class {
                    Decisive::Win => 0,
                    Decisive::Loss => 1,
                    Decisive::CursedWin => 2,
                    Decisive::BlessedLoss => 3,
                };
                if wide {
                    let at = starts[k] + 2 * usize::from(stored);
                    u32::from(u16_at(bytes, at).ok()?)
                } else {
                    u32::from(u8_at(bytes, starts[k] + usize::from(stored)).ok()?)
                }
            }
        };
        let plies = match class {
            Decisive::Win => self.flags & WIN_PLIES != 0,
            Decisive::Loss => self.flags & LOSS_PLIES != 0,
            Decisive::CursedWin | Decisive::BlessedLoss => false,
        };
        Some(if plies {
            StoredPlies {
                plies: value,
                rounded: false,
            }
        } else {
            StoredPlies {
                plies: 2 * value,
                rounded: true,
            }
        })
    }
}
