//! One side of a Syzygy file coded as the format's readers decode it: the pairs of
//! `retro_format::PairGrammar`, a canonical Huffman code whose longer codes are numerically
//! smaller and whose symbols are numbered by length (the longest first), blocks of a power of
//! two of bytes holding whole symbols, two bytes a block for its entry count, and a *sparse
//! index*: every `span` entries, the block and place of the entry half a span further (where
//! that is past the side's end, in blocks of padding: entry counts without data).
//!
//! Owns: a side's header bytes, sparse index, block entry counts and blocks ([`SideCode`]).
//! Must never: choose values (don't-cares are filled by the caller) or lay out a file.

use retro_format::pair_code::{huffman_lengths, Symbol};
use retro_format::{PairCodeOptions, PairGrammar};

/// Flag of a side whose every entry is one value: its header is the flag and the value.
const SINGLE_VALUE: u8 = 0x80;

/// The longest code the readers decode (they refill 32 bits at a time).
const MAX_CODE_BITS: u8 = 32;

/// Pairs nested in a symbol at most: shakmaty-syzygy refuses deeper ones.
const MAX_PAIR_DEPTH: u8 = 15;

/// How often a pair must occur to become a symbol: pairs of four occurrences still pay for
/// their three bytes in the symbol table on five-man sides (KQRvKR's WDL sides 3% and 7%
/// smaller than at 16).
const MIN_PAIR_COUNT: u32 = 4;

/// Largest span: its padding blocks (at most half a span past the side's end, 65,536 entries
/// each) stay within the header's byte that counts them.
const MAX_SPAN_BITS: u32 = 24;

/// A side coded: its parts, in the order and form the file stores them.
#[derive(Debug, Clone, Default)]
pub struct SideCode {
    /// From its flags byte to its symbols (and their padding byte).
    pub header: Vec<u8>,
    /// Six bytes a span: the block (4) and the place (2) of the entry half a span in.
    pub sparse_index: Vec<u8>,
    /// Two bytes a block: its entries less one.
    pub block_lengths: Vec<u8>,
    /// The blocks.
    pub data: Vec<u8>,
}

impl SideCode {
    /// Bytes the side takes in a file, alignment aside.
    pub fn bytes(&self) -> usize {
        self.header.len() + self.sparse_index.len() + self.block_lengths.len() + self.data.len()
    }
}

/// The canonical code: each symbol's new number and code length, and by length (shortest
/// first) the number of its first symbol.
struct Canonical {
    /// By old symbol, its number in the file.
    number: Vec<u16>,
    /// By old symbol, its code and length (0: not coded).
    codes: Vec<(u32, u8)>,
    min_len: u8,
    max_len: u8,
    /// By length from `min_len`, the number of the first symbol of that length.
    lowest: Vec<u16>,
}

impl Canonical {
    fn new(lengths: &[u8]) -> Canonical {
        let used: Vec<usize> = (0..lengths.len()).filter(|&s| lengths[s] > 0).collect();
        let min_len = used.iter().map(|&s| lengths[s]).min().unwrap_or(1);
        let max_len = used.iter().map(|&s| lengths[s]).max().unwrap_or(1);
        // Numbers: the longest codes first, each length in the old order, then the symbols
        // no code has (pairs met only inside others).
        let mut order: Vec<usize> = used.clone();
        order.sort_by_key(|&s| (std::cmp::Reverse(lengths[s]), s));
        order.extend((0..lengths.len()).filter(|&s| lengths[s] == 0));
        let mut number = vec![0u16; lengths.len()];
        for (n, &s) in order.iter().enumerate() {
            number[s] = n as u16;
        }
        let h = usize::from(max_len - min_len) + 1;
        let mut count = vec![0u64; h];
        for &s in &used {
            count[usize::from(lengths[s] - min_len)] += 1;
        }
        let mut lowest = vec![0u16; h];
        for i in (0..h - 1).rev() {
            lowest[i] = lowest[i + 1] + count[i + 1] as u16;
        }
        // The first code of each length, as the readers work it out from `lowest`.
        let mut base = vec![0u64; h];
        for i in (0..h - 1).rev() {
            base[i] = (base[i + 1] + count[i + 1]) / 2;
        }
        let mut codes = vec![(0u32, 0u8); lengths.len()];
        for &s in &used {
            let i = usize::from(lengths[s] - min_len);
            let code = base[i] + u64::from(number[s] - lowest[i]);
            codes[s] = (code as u32, lengths[s]);
        }
        Canonical {
            number,
            codes,
            min_len,
            max_len,
            lowest,
        }
    }
}

/// Bits written first bit first.
struct BitWriter {
    bytes: Vec<u8>,
    bits: usize,
}

impl BitWriter {
    fn put(&mut self, code: u32, len: u8) {
        for k in (0..len).rev() {
            if self.bits.is_multiple_of(8) {
                self.bytes.push(0);
            }
            if (code >> k) & 1 == 1 {
                let last = self.bytes.len() - 1;
                self.bytes[last] |= 0x80 >> (self.bits % 8);
            }
            self.bits += 1;
        }
    }
}

/// The blocks of `stream` in blocks of `block_bytes`, each at most `max_entries` entries:
/// the blocks' bytes and each one's entry count.
fn blocks(
    stream: &[u16],
    entries: &[u32],
    code: &Canonical,
    block_bytes: usize,
    max_entries: u32,
) -> (Vec<u8>, Vec<u32>) {
    let mut data = Vec::new();
    let mut counts = Vec::new();
    let mut block = BitWriter {
        bytes: Vec::with_capacity(block_bytes),
        bits: 0,
    };
    let mut in_block = 0u32;
    for &s in stream {
        let (c, len) = code.codes[usize::from(s)];
        let n = entries[usize::from(s)];
        if block.bits + usize::from(len) > 8 * block_bytes || in_block + n > max_entries {
            block.bytes.resize(block_bytes, 0);
            data.extend_from_slice(&block.bytes);
            counts.push(in_block);
            block = BitWriter {
                bytes: Vec::with_capacity(block_bytes),
                bits: 0,
            };
            in_block = 0;
        }
        block.put(c, len);
        in_block += n;
    }
    if in_block > 0 {
        block.bytes.resize(block_bytes, 0);
        data.extend_from_slice(&block.bytes);
        counts.push(in_block);
    }
    (data, counts)
}

/// Codes `values` (each below 4,096) as one side of a Syzygy file whose blocks hold at most
/// `max_block_bytes` (a power of two, at most 1,024): the block size up to it that stores the
/// side smallest is chosen.
pub fn code_side(values: &[u16], max_block_bytes: usize) -> SideCode {
    let options = PairCodeOptions {
        max_pair_depth: MAX_PAIR_DEPTH,
        min_pair_count: MIN_PAIR_COUNT,
        ..PairCodeOptions::default()
    };
    code_side_with(values, max_block_bytes, &options)
}

/// [`code_side`] with the pairs made within `options` (its block size aside).
pub fn code_side_with(
    values: &[u16],
    max_block_bytes: usize,
    options: &PairCodeOptions,
) -> SideCode {
    assert!(max_block_bytes.is_power_of_two() && max_block_bytes <= 1024);
    let first = values.first().copied().unwrap_or(0);
    if values.iter().all(|&v| v == first) {
        return SideCode {
            header: vec![SINGLE_VALUE, first as u8],
            ..SideCode::default()
        };
    }
    let grammar = PairGrammar::build(values, options);
    let mut counts = vec![0u64; grammar.symbols.len()];
    for &s in &grammar.stream {
        counts[usize::from(s)] += 1;
    }
    let code = Canonical::new(&huffman_lengths(&counts, MAX_CODE_BITS));
    // A block's entry count is stored less one in two bytes.
    let max_entries = 1u32 << 16;
    let mut best: Option<(Vec<u8>, Vec<u32>, usize)> = None;
    let mut block_bytes = max_block_bytes;
    while block_bytes * 8 >= usize::from(code.max_len) {
        let (data, lengths) = blocks(
            &grammar.stream,
            &grammar.lengths,
            &code,
            block_bytes,
            max_entries,
        );
        if best
            .as_ref()
            .is_none_or(|(d, l, _)| data.len() + 2 * lengths.len() < d.len() + 2 * l.len())
        {
            best = Some((data, lengths, block_bytes));
        }
        if block_bytes == 1 {
            break;
        }
        block_bytes /= 2;
    }
    let (data, block_entries, block_bytes) = best.expect("a block size");
    // The span: about sixteen blocks' entries, so that a reader scans few block lengths, and
    // no more than the side's entries need.
    let entries = values.len() as u64;
    let per_block = entries / block_entries.len() as u64;
    let mut span_bits = (64 - per_block.max(1).leading_zeros() + 4).min(MAX_SPAN_BITS);
    while span_bits > 1 && 1u64 << (span_bits - 1) > entries {
        span_bits -= 1;
    }
    let span = 1u64 << span_bits;
    let marks = entries.div_ceil(span);
    // The last sparse index entries may fall past the side's end: blocks of padding (lengths
    // without data, counted apart in the header) take them, so that every entry names a block
    // and a place in it.
    let last = (marks - 1) * span + span / 2;
    let padding = (last + 1).saturating_sub(entries).div_ceil(1 << 16);
    let mut lengths_all = block_entries.clone();
    lengths_all.extend((0..padding).map(|_| 1u32 << 16));
    let mut sparse_index = Vec::with_capacity(6 * marks as usize);
    let mut block = 0usize;
    let mut start = 0u64;
    for k in 0..marks {
        let entry = k * span + span / 2;
        while start + u64::from(lengths_all[block]) <= entry {
            start += u64::from(lengths_all[block]);
            block += 1;
        }
        let place = entry - start;
        sparse_index.extend_from_slice(&(block as u32).to_le_bytes());
        sparse_index.extend_from_slice(&(place as u16).to_le_bytes());
    }
    let mut block_lengths = Vec::with_capacity(2 * lengths_all.len());
    for &n in &lengths_all {
        block_lengths.extend_from_slice(&((n - 1) as u16).to_le_bytes());
    }
    let mut header = vec![
        0,
        block_bytes.trailing_zeros() as u8,
        span_bits as u8,
        padding as u8,
    ];
    header.extend_from_slice(&(block_entries.len() as u32).to_le_bytes());
    header.push(code.max_len);
    header.push(code.min_len);
    for &l in &code.lowest {
        header.extend_from_slice(&l.to_le_bytes());
    }
    header.extend_from_slice(&(grammar.symbols.len() as u16).to_le_bytes());
    let mut table = vec![[0u8; 3]; grammar.symbols.len()];
    for (s, symbol) in grammar.symbols.iter().enumerate() {
        let (left, right) = match *symbol {
            Symbol::Value(v) => (v, 0xfff),
            Symbol::Pair(a, b) => (code.number[usize::from(a)], code.number[usize::from(b)]),
        };
        table[usize::from(code.number[s])] = [
            left as u8,
            ((left >> 8) as u8 & 0xf) | ((right as u8 & 0xf) << 4),
            (right >> 4) as u8,
        ];
    }
    header.extend(table.iter().flatten());
    if grammar.symbols.len() % 2 == 1 {
        header.push(0);
    }
    SideCode {
        header,
        sparse_index,
        block_lengths,
        data,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader of one side, written from the format's description as the readers decode it.
    fn read(side: &SideCode, entries: usize) -> Vec<u16> {
        let h = &side.header;
        let block_bytes = 1usize << h[1];
        let span = 1u64 << h[2];
        let (max_len, min_len) = (h[8], h[9]);
        let lengths = usize::from(max_len - min_len) + 1;
        let lowest: Vec<u64> = (0..lengths)
            .map(|i| u64::from(u16::from_le_bytes([h[10 + 2 * i], h[11 + 2 * i]])))
            .collect();
        let mut base = vec![0u64; lengths];
        for i in (0..lengths - 1).rev() {
            base[i] = (base[i + 1] + lowest[i] - lowest[i + 1]) / 2;
            assert!(base[i] * 2 >= base[i + 1]);
        }
        let at = 10 + 2 * lengths;
        let symbols = usize::from(u16::from_le_bytes([h[at], h[at + 1]]));
        let sym = |s: usize| {
            let b = &h[at + 2 + 3 * s..at + 5 + 3 * s];
            let left = usize::from(b[0]) | (usize::from(b[1] & 0xf) << 8);
            let right = (usize::from(b[2]) << 4) | usize::from(b[1] >> 4);
            (left, right)
        };
        fn expand(sym: &dyn Fn(usize) -> (usize, usize), s: usize, out: &mut Vec<u16>) {
            let (l, r) = sym(s);
            if r == 0xfff {
                out.push(l as u16);
            } else {
                expand(sym, l, out);
                expand(sym, r, out);
            }
        }
        let _ = (span, symbols);
        let mut out = Vec::new();
        let blocks = u32::from_le_bytes([h[4], h[5], h[6], h[7]]) as usize;
        assert_eq!(side.block_lengths.len() / 2, blocks + usize::from(h[3]));
        for b in 0..blocks {
            let n = usize::from(u16::from_le_bytes([
                side.block_lengths[2 * b],
                side.block_lengths[2 * b + 1],
            ])) + 1;
            let bytes = &side.data[b * block_bytes..(b + 1) * block_bytes];
            let bit = |k: usize| u64::from((bytes[k / 8] >> (7 - k % 8)) & 1);
            let mut pos = 0;
            let end = out.len() + n;
            while out.len() < end {
                let mut len = 0usize;
                loop {
                    let l = usize::from(min_len) + len;
                    let mut c = 0u64;
                    for k in 0..l {
                        c = (c << 1) | bit(pos + k);
                    }
                    if c >= base[len] {
                        let s = (c - base[len]) as usize + lowest[len] as usize;
                        expand(&sym, s, &mut out);
                        pos += l;
                        break;
                    }
                    len += 1;
                }
            }
            out.truncate(end);
        }
        assert_eq!(out.len(), entries);
        out
    }

    #[test]
    fn a_side_reads_back_as_the_format_decodes_it() {
        let mut values = Vec::new();
        let mut x = 12345u32;
        for i in 0..200_000u32 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let v = if (i / 700) % 3 == 0 { 2 } else { (x >> 16) % 5 };
            values.push(v as u16);
        }
        for max in [64, 1024] {
            let side = code_side(&values, max);
            assert_eq!(read(&side, values.len()), values, "blocks of at most {max}");
        }
    }

    #[test]
    fn a_side_of_one_value_is_its_flag_and_value() {
        let side = code_side(&[4; 1000], 64);
        assert_eq!(side.header, vec![SINGLE_VALUE, 4]);
        assert_eq!(side.bytes(), 2);
    }
}
