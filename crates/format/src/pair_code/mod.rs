//! Pair substitution and canonical Huffman codes, in blocks bounded in bytes: a coder for long
//! streams of small values that reads any one entry back by decoding part of one block.
//!
//! Owns: [`PairCode`] — building the code of a stream ([`PairCode::build`]), its size in bytes
//! ([`PairCode::stored_bytes`]), reading one entry ([`PairCode::get`]) and a whole stream back
//! ([`PairCode::decode_all`]) — and [`PairDirectory`], everything of a code but its blocks:
//! its bytes as a file stores them ([`PairDirectory::to_bytes`], read back and checked by
//! [`PairDirectory::from_bytes`]) and the decoding of one block a reader has read — and, for a
//! writer with a layout of its own (Syzygy's files), the pairs alone ([`PairGrammar`]) and the
//! code lengths ([`huffman_lengths`]).
//! Must never: know what the values mean. Which entries are don't-cares, and what they are
//! filled with, is the caller's choice: the coder keeps every value it is given.
//!
//! # How a stream is coded
//!
//! 1. **Pairs.** Every distinct value is a symbol. Round after round, the pairs of adjacent
//!    symbols that occur most often become new symbols and replace their occurrences, many
//!    pairs a round: a pair is taken only if its first symbol is no chosen pair's second and its
//!    second no chosen pair's first, so that occurrences of two chosen pairs never overlap and
//!    one scan from the left replaces them all. A symbol stands for at most
//!    [`PairCodeOptions::max_symbol_entries`] entries, and there are at most
//!    [`PairCodeOptions::max_symbols`]. Long runs (a table's draws) fold into symbols of
//!    hundreds of entries within a few rounds.
//! 2. **Codes.** The symbols left in the stream get a canonical Huffman code of at most
//!    [`PairCodeOptions::max_code_bits`] bits, shorter codes numerically smaller when read
//!    from the left.
//! 3. **Blocks.** Codes are written first bit first into blocks of one size, each holding
//!    whole symbols and at most 65,536 entries; the rest of a block is zero. A block's entry
//!    count is kept (two bytes a block). The size is a power of two, the one of those up to
//!    [`PairCodeOptions::block_bytes`] that stores the stream smallest: a stream of long
//!    symbols reaches a block's entry limit before it fills a large block.
//! 4. **Finding an entry.** Every [`PairCode::span`] entries a mark records the block holding
//!    that entry and its place there; an entry's mark is the one at or before it, and the
//!    blocks' entry counts lead from there to its block. Marks are made from the blocks' entry
//!    counts when a directory is read, never stored. Its block's symbols are decoded from
//!    the start, their lengths skipped, and the symbol that holds the entry is descended pair
//!    by pair to its value.
//!
//! This is the scheme of Syzygy's tables (Ronald de Man's generator and the probing code
//! derived from it), written from its description; its bytes are laid out here in memory, not
//! in Syzygy's files.

use rayon::prelude::*;

/// The limits a [`PairCode`] is built within.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PairCodeOptions {
    /// Symbols at most, values and pairs together (Syzygy's files: 4,095); no more than
    /// [`MAX_SYMBOLS`] are made, the pair counts of a round being a table of symbols squared.
    pub max_symbols: usize,
    /// Entries a symbol may stand for at most (Syzygy's files: 256).
    pub max_symbol_entries: u32,
    /// Bytes a block holds at most: the code tries this size and each half of it down to the
    /// smallest that holds a code, and keeps the one that stores the stream smallest
    /// ([`PairCode::block_bytes`]; Syzygy's files choose so too).
    pub block_bytes: usize,
    /// The longest code, in bits.
    pub max_code_bits: u8,
    /// Pairs a round may turn into symbols.
    pub pairs_per_round: usize,
    /// How often a pair must occur to become a symbol.
    pub min_pair_count: u32,
    /// Pairs nested in a symbol at most: a value is 0 deep, a pair one more than the deeper of
    /// its two symbols (shakmaty-syzygy opens no Syzygy file with symbols deeper than 16).
    pub max_pair_depth: u8,
}

impl Default for PairCodeOptions {
    fn default() -> Self {
        PairCodeOptions {
            max_symbols: 4095,
            max_symbol_entries: 256,
            block_bytes: 64,
            max_code_bits: 32,
            pairs_per_round: 64,
            min_pair_count: 16,
            max_pair_depth: u8::MAX,
        }
    }
}

/// Symbols a code makes at most ([`PairCodeOptions::max_symbols`]): numbered in twelve bits,
/// the last number marking a value in a stored symbol.
pub const MAX_SYMBOLS: usize = (1 << 12) - 1;

/// The largest value a stored directory holds (twelve bits).
pub const MAX_STORED_VALUE: u16 = (1 << 12) - 1;

/// Entries a block holds at most (its count is kept in two bytes).
pub const MAX_BLOCK_ENTRIES: u32 = 1 << 16;

/// What a symbol stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Symbol {
    /// One entry of this value.
    Value(u16),
    /// The entries of the first symbol, then those of the second.
    Pair(u16, u16),
}

/// A canonical Huffman code: by length, the first code and the number of codes, and the
/// symbols in code order.
#[derive(Debug, Clone, Default)]
struct Canonical {
    /// By length `l` (index `l`), the code after the last of that length, left-justified in
    /// 64 bits (`0` where no code has that length).
    limit: Vec<u64>,
    /// By length, the first code of that length.
    first: Vec<u64>,
    /// By length, where its symbols start in `sorted`.
    start: Vec<u32>,
    /// The symbols, by length and then by number.
    sorted: Vec<u16>,
    /// Each symbol's code length (`0`: no code) and code.
    codes: Vec<(u8, u64)>,
    /// By a code's first [`LOOKUP_BITS`] bits, the shortest length it may have.
    shortest: Vec<u8>,
}

/// The bits of a code that [`Canonical::shortest`] is indexed by.
const LOOKUP_BITS: u32 = 10;

/// A stream of values coded by pair substitution and canonical Huffman codes in blocks
/// bounded in bytes (the [module documentation](self) describes the scheme): its
/// [`PairDirectory`] and its blocks.
#[derive(Debug, Clone)]
pub struct PairCode {
    directory: PairDirectory,
    /// The blocks, `block_bytes` each.
    data: Vec<u8>,
}

/// Everything of a [`PairCode`] but its blocks: what a reader keeps in memory to find an entry's
/// block and decode it.
#[derive(Debug, Clone)]
pub struct PairDirectory {
    options: PairCodeOptions,
    entries: u64,
    symbols: Vec<Symbol>,
    /// Entries each symbol stands for.
    lengths: Vec<u32>,
    code: Canonical,
    /// Entries each block holds.
    block_entries: Vec<u32>,
    /// Entries between marks (a power of two).
    span: u64,
    /// By mark `k`: the block holding entry `k × span` and that entry's place there.
    marks: Vec<(u32, u32)>,
}

/// Step 1 of the [module documentation](self) alone: the symbols a stream's pairs make and the
/// stream in them, for a writer that codes and lays them out its own way (Syzygy's files).
#[derive(Debug, Clone)]
pub struct PairGrammar {
    /// The symbols: the stream's distinct values in increasing order, then the pairs, each
    /// made of symbols before it.
    pub symbols: Vec<Symbol>,
    /// Entries each symbol stands for.
    pub lengths: Vec<u32>,
    /// The stream, in symbols.
    pub stream: Vec<u16>,
}

impl PairGrammar {
    /// The pairs of `values` within `options` (its coding and block fields are not used).
    ///
    /// # Panics
    /// If `options` allow fewer symbols than `values` has distinct values.
    pub fn build(values: &[u16], options: &PairCodeOptions) -> PairGrammar {
        // The values, as symbols numbered in order of value.
        let mut present = vec![false; 1 << 16];
        for &v in values {
            present[usize::from(v)] = true;
        }
        let mut symbols: Vec<Symbol> = (0..=u16::MAX)
            .filter(|&v| present[usize::from(v)])
            .map(Symbol::Value)
            .collect();
        assert!(
            symbols.len() <= options.max_symbols.clamp(1, MAX_SYMBOLS),
            "{} distinct values, {} symbols allowed",
            symbols.len(),
            options.max_symbols
        );
        let mut number = vec![0u16; 1 << 16];
        for (s, symbol) in symbols.iter().enumerate() {
            if let Symbol::Value(v) = symbol {
                number[usize::from(*v)] = s as u16;
            }
        }
        let mut stream: Vec<u16> = values.iter().map(|&v| number[usize::from(v)]).collect();
        let mut lengths = vec![1u32; symbols.len()];
        substitute_pairs(&mut stream, &mut symbols, &mut lengths, options);
        PairGrammar {
            symbols,
            lengths,
            stream,
        }
    }
}

impl PairCode {
    /// Codes `values` within `options`.
    ///
    /// # Panics
    /// If `options` allow fewer symbols than `values` has distinct values, a block of fewer
    /// bytes than the longest code, or codes of more than 57 bits.
    pub fn build(values: &[u16], options: PairCodeOptions) -> PairCode {
        assert!(options.max_code_bits >= 1 && options.max_code_bits <= 57);
        assert!(options.block_bytes * 8 >= usize::from(options.max_code_bits));
        let PairGrammar {
            symbols,
            lengths,
            stream,
        } = PairGrammar::build(values, &options);
        let mut counts = vec![0u64; symbols.len()];
        for &s in &stream {
            counts[usize::from(s)] += 1;
        }
        let code = Canonical::new(&huffman_lengths(&counts, options.max_code_bits));
        // Blocks of each size from the smallest that holds a code up to `block_bytes`, in
        // powers of two; the size that stores smallest is kept (a stream of long symbols fills
        // small blocks before it reaches a block's entry limit).
        let smallest = usize::from(options.max_code_bits)
            .div_ceil(8)
            .next_power_of_two();
        let mut best: Option<(Vec<u8>, Vec<u32>, usize)> = None;
        let mut block_bytes = options.block_bytes;
        while block_bytes >= smallest {
            let (data, block_entries) = write_blocks(&stream, &lengths, &code, block_bytes);
            let bytes = data.len() + 8 * block_entries.len();
            if best
                .as_ref()
                .is_none_or(|(d, b, _)| bytes < d.len() + 8 * b.len())
            {
                best = Some((data, block_entries, block_bytes));
            }
            if block_bytes % 2 == 1 {
                break;
            }
            block_bytes /= 2;
        }
        let (data, block_entries, block_bytes) = best.expect("a block size");
        let options = PairCodeOptions {
            block_bytes,
            ..options
        };
        PairCode {
            directory: PairDirectory::new(
                options,
                values.len() as u64,
                symbols,
                lengths,
                code,
                block_entries,
            ),
            data,
        }
    }

    /// Its directory: everything but the blocks.
    pub fn directory(&self) -> &PairDirectory {
        &self.directory
    }

    /// The blocks, [`PairCode::block_bytes`] each, one after another.
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// Entries in the stream.
    pub fn entries(&self) -> u64 {
        self.directory.entries
    }

    /// The symbols, values and pairs.
    pub fn symbol_count(&self) -> usize {
        self.directory.symbols.len()
    }

    /// The blocks.
    pub fn block_count(&self) -> usize {
        self.directory.block_entries.len()
    }

    /// Bytes a block holds.
    pub fn block_bytes(&self) -> usize {
        self.directory.options.block_bytes
    }

    /// Entries between two marks.
    pub fn span(&self) -> u64 {
        self.directory.span
    }

    /// The bytes the code takes when stored as Syzygy's files store it: the blocks, two bytes
    /// a block for its entry count, six a mark, three a symbol, and by code length eight bytes
    /// for its first code and two for its symbols' start.
    pub fn stored_bytes(&self) -> u64 {
        let d = &self.directory;
        self.data.len() as u64
            + 2 * d.block_entries.len() as u64
            + 6 * d.marks.len() as u64
            + 3 * d.symbols.len() as u64
            + 10 * d.code.first.len() as u64
    }

    /// The value of entry `index`, or `None` past the end.
    pub fn get(&self, index: u64) -> Option<u16> {
        let (block, offset) = self.directory.locate(index)?;
        Some(self.directory.value_in_block(self.block(block), offset))
    }

    /// Every value of the stream, in order, decoded block by block.
    pub fn decode_all(&self) -> Vec<u16> {
        let mut out = Vec::with_capacity(self.directory.entries as usize);
        for block in 0..self.block_count() {
            self.directory
                .decode_block(block, self.block(block), &mut out);
        }
        out
    }

    fn block(&self, block: usize) -> &[u8] {
        let b = self.directory.options.block_bytes;
        &self.data[block * b..(block + 1) * b]
    }
}

impl PairDirectory {
    /// A directory of `block_entries` blocks holding `entries` entries, its marks placed.
    fn new(
        options: PairCodeOptions,
        entries: u64,
        symbols: Vec<Symbol>,
        lengths: Vec<u32>,
        code: Canonical,
        block_entries: Vec<u32>,
    ) -> PairDirectory {
        let span = mark_span(entries, block_entries.len());
        let marks = place_marks(&block_entries, entries, span);
        PairDirectory {
            options,
            entries,
            symbols,
            lengths,
            code,
            block_entries,
            span,
            marks,
        }
    }

    /// Entries in the stream.
    pub fn entries(&self) -> u64 {
        self.entries
    }

    /// The blocks.
    pub fn block_count(&self) -> usize {
        self.block_entries.len()
    }

    /// Bytes a block holds.
    pub fn block_bytes(&self) -> usize {
        self.options.block_bytes
    }

    /// Entries block `block` holds.
    pub fn block_entries(&self, block: usize) -> u32 {
        self.block_entries[block]
    }

    /// The block holding entry `index` and the entry's place in it, or `None` past the end.
    pub fn locate(&self, index: u64) -> Option<(usize, u32)> {
        if index >= self.entries {
            return None;
        }
        let mark = (index / self.span) as usize;
        let (mut block, place) = self.marks[mark];
        let mut offset = u64::from(place) + index % self.span;
        while offset >= u64::from(self.block_entries[block as usize]) {
            offset -= u64::from(self.block_entries[block as usize]);
            block += 1;
        }
        Some((block as usize, offset as u32))
    }

    /// The value of the entry at place `offset` of a block whose bytes are `block`.
    pub fn value_in_block(&self, block: &[u8], offset: u32) -> u16 {
        let mut bits = BitReader::new(block);
        let mut offset = offset;
        loop {
            let symbol = self.code.decode(&mut bits);
            let length = self.lengths[usize::from(symbol)];
            if offset < length {
                return self.descend(symbol, offset);
            }
            offset -= length;
        }
    }

    /// Appends the values of block number `block`, whose bytes are `bytes`, to `out`: exactly
    /// its entry count of them, whatever the bytes hold.
    pub fn decode_block(&self, block: usize, bytes: &[u8], out: &mut Vec<u16>) {
        let mut bits = BitReader::new(bytes);
        let end = out.len() + self.block_entries[block] as usize;
        while out.len() < end {
            let symbol = self.code.decode(&mut bits);
            self.expand(symbol, out);
        }
        out.truncate(end);
    }

    /// The value of entry `offset` of `symbol`.
    fn descend(&self, mut symbol: u16, mut offset: u32) -> u16 {
        loop {
            match self.symbols[usize::from(symbol)] {
                Symbol::Value(v) => return v,
                Symbol::Pair(first, second) => {
                    let left = self.lengths[usize::from(first)];
                    if offset < left {
                        symbol = first;
                    } else {
                        offset -= left;
                        symbol = second;
                    }
                }
            }
        }
    }

    /// Appends the values `symbol` stands for to `out`.
    fn expand(&self, symbol: u16, out: &mut Vec<u16>) {
        let mut stack = vec![symbol];
        while let Some(s) = stack.pop() {
            match self.symbols[usize::from(s)] {
                Symbol::Value(v) => out.push(v),
                Symbol::Pair(first, second) => {
                    stack.push(second);
                    stack.push(first);
                }
            }
        }
    }

    /// Whether [`PairDirectory::to_bytes`] can store it: every value fits twelve bits.
    pub fn storable(&self) -> bool {
        self.symbols
            .iter()
            .all(|s| !matches!(s, Symbol::Value(v) if *v > MAX_STORED_VALUE))
    }

    /// Its bytes, all integers little-endian: entries (8), bytes a block (4), blocks (4),
    /// symbols `S` (2), two zero bytes; then three bytes a symbol (twelve bits each for a
    /// pair's first and second symbol, the first `0xfff` for a value, the second then the
    /// value), one byte a symbol for its code length (0: not in the stream), and two bytes a
    /// block for its entry count less one.
    ///
    /// # Panics
    /// If it is not [`PairDirectory::storable`].
    pub fn to_bytes(&self) -> Vec<u8> {
        assert!(self.storable(), "values of more than twelve bits");
        let mut out = Vec::with_capacity(20 + 4 * self.symbols.len() + 2 * self.block_count());
        out.extend_from_slice(&self.entries.to_le_bytes());
        out.extend_from_slice(&(self.options.block_bytes as u32).to_le_bytes());
        out.extend_from_slice(&(self.block_count() as u32).to_le_bytes());
        out.extend_from_slice(&(self.symbols.len() as u16).to_le_bytes());
        out.extend_from_slice(&[0, 0]);
        for symbol in &self.symbols {
            let (first, second) = match *symbol {
                Symbol::Value(v) => (0xfff, u32::from(v)),
                Symbol::Pair(a, b) => (u32::from(a), u32::from(b)),
            };
            let packed = first | second << 12;
            out.extend_from_slice(&packed.to_le_bytes()[..3]);
        }
        out.extend(self.code.codes.iter().map(|&(l, _)| l));
        for &count in &self.block_entries {
            out.extend_from_slice(&((count - 1) as u16).to_le_bytes());
        }
        out
    }

    /// Reads a directory written by [`PairDirectory::to_bytes`], checking that it describes a
    /// code: its length, symbols built only from symbols before them, standing for at most a
    /// block's entries each, code lengths of a prefix code, blocks large enough for the
    /// longest code, and block entry counts adding up to the entries.
    pub fn from_bytes(bytes: &[u8]) -> Result<PairDirectory, String> {
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4"));
        if bytes.len() < 20 {
            return Err(format!(
                "{} bytes, fewer than a directory's 20",
                bytes.len()
            ));
        }
        let entries = u64::from_le_bytes(bytes[..8].try_into().expect("8"));
        let block_bytes = u32_at(8) as usize;
        let blocks = u32_at(12) as usize;
        let symbol_count = usize::from(u16::from_le_bytes([bytes[16], bytes[17]]));
        let expected = 20 + 4 * symbol_count + 2 * blocks;
        if bytes.len() != expected {
            return Err(format!(
                "{} bytes, where {symbol_count} symbols and {blocks} blocks take {expected}",
                bytes.len()
            ));
        }
        if symbol_count > MAX_SYMBOLS || (symbol_count == 0) != (entries == 0) {
            return Err(format!("{symbol_count} symbols for {entries} entries"));
        }
        if block_bytes == 0 || block_bytes > 1 << 20 {
            return Err(format!("blocks of {block_bytes} bytes"));
        }
        let mut symbols = Vec::with_capacity(symbol_count);
        let mut lengths: Vec<u32> = Vec::with_capacity(symbol_count);
        for s in 0..symbol_count {
            let at = 20 + 3 * s;
            let packed = u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], 0]);
            let (first, second) = ((packed & 0xfff) as u16, (packed >> 12) as u16);
            if first == 0xfff {
                symbols.push(Symbol::Value(second));
                lengths.push(1);
                continue;
            }
            if usize::from(first) >= s || usize::from(second) >= s {
                return Err(format!("symbol {s} is made of a symbol not before it"));
            }
            let length = lengths[usize::from(first)] + lengths[usize::from(second)];
            if length > MAX_BLOCK_ENTRIES {
                return Err(format!("symbol {s} stands for {length} entries"));
            }
            symbols.push(Symbol::Pair(first, second));
            lengths.push(length);
        }
        let bits = &bytes[20 + 3 * symbol_count..20 + 4 * symbol_count];
        let longest = bits.iter().copied().max().unwrap_or(0);
        if longest > 57 || usize::from(longest) > 8 * block_bytes {
            return Err(format!(
                "codes of {longest} bits in blocks of {block_bytes} bytes"
            ));
        }
        let kraft: u128 = bits
            .iter()
            .filter(|&&b| b > 0)
            .map(|&b| 1u128 << (57 - b))
            .sum();
        if kraft > 1u128 << 57 || (entries > 0 && kraft == 0) {
            return Err("its code lengths are no prefix code".into());
        }
        let code = Canonical::new(bits);
        let counts = &bytes[20 + 4 * symbol_count..];
        let block_entries: Vec<u32> = counts
            .chunks_exact(2)
            .map(|c| u32::from(u16::from_le_bytes([c[0], c[1]])) + 1)
            .collect();
        let total: u64 = block_entries.iter().map(|&c| u64::from(c)).sum();
        if total != entries {
            return Err(format!("its blocks hold {total} entries, not {entries}"));
        }
        let options = PairCodeOptions {
            block_bytes,
            max_code_bits: longest.max(1),
            ..PairCodeOptions::default()
        };
        Ok(PairDirectory::new(
            options,
            entries,
            symbols,
            lengths,
            code,
            block_entries,
        ))
    }
}

/// Replaces the most frequent pairs of `stream` by new symbols, round after round, within
/// `options` (step 1 of the [module documentation](self)).
fn substitute_pairs(
    stream: &mut Vec<u16>,
    symbols: &mut Vec<Symbol>,
    lengths: &mut Vec<u32>,
    options: &PairCodeOptions,
) {
    let max_symbols = options.max_symbols.min(MAX_SYMBOLS);
    let mut replace: Option<Vec<u16>> = None;
    let mut depths: Vec<u8> = symbols
        .iter()
        .map(|s| match s {
            Symbol::Value(_) => 0,
            Symbol::Pair(..) => u8::MAX,
        })
        .collect();
    while symbols.len() < max_symbols && stream.len() >= 2 {
        let n = symbols.len();
        let mut candidates: Vec<(u32, u16, u16)> = pair_counts(stream, n)
            .into_iter()
            .filter(|&(c, _, _)| c >= options.min_pair_count.max(2))
            .filter(|&(_, a, b)| {
                lengths[usize::from(a)] + lengths[usize::from(b)] <= options.max_symbol_entries
                    && depths[usize::from(a)].max(depths[usize::from(b)]) < options.max_pair_depth
            })
            .collect();
        candidates.sort_unstable_by(|x, y| y.cmp(x));
        let mut is_first = vec![false; n];
        let mut is_second = vec![false; n];
        // The new symbol of each chosen pair, from a table kept across rounds (rows of
        // `max_symbols`), its entries set back once the stream is rewritten.
        let replace = replace.get_or_insert_with(|| vec![u16::MAX; max_symbols * max_symbols]);
        let mut chosen_pairs = Vec::new();
        let room = (max_symbols - n).min(options.pairs_per_round.max(1));
        let mut chosen = 0;
        for &(_, a, b) in &candidates {
            if chosen == room {
                break;
            }
            let (ai, bi) = (usize::from(a), usize::from(b));
            if is_second[ai] || is_first[bi] {
                continue;
            }
            is_first[ai] = true;
            is_second[bi] = true;
            replace[ai * max_symbols + bi] = symbols.len() as u16;
            chosen_pairs.push(ai * max_symbols + bi);
            lengths.push(lengths[ai] + lengths[bi]);
            depths.push(depths[ai].max(depths[bi]) + 1);
            symbols.push(Symbol::Pair(a, b));
            chosen += 1;
        }
        if chosen == 0 {
            break;
        }
        let mut read = 0;
        let mut write = 0;
        while read < stream.len() {
            let s = stream[read];
            if read + 1 < stream.len() {
                let r = replace[usize::from(s) * max_symbols + usize::from(stream[read + 1])];
                if r != u16::MAX {
                    stream[write] = r;
                    write += 1;
                    read += 2;
                    continue;
                }
            }
            stream[write] = s;
            write += 1;
            read += 1;
        }
        stream.truncate(write);
        for at in chosen_pairs {
            replace[at] = u16::MAX;
        }
    }
}

/// Every pair of adjacent symbols of `stream` (symbols below `n`; overlapping pairs each
/// counted) with its count, as `(count, first, second)`. A dense table of `n²` counts a task
/// where the stream is long enough to fill it; otherwise the pairs sorted and counted by runs,
/// so that a short stream costs no table of millions of entries a round.
fn pair_counts(stream: &[u16], n: usize) -> Vec<(u32, u16, u16)> {
    let split = |key: usize| ((key / n) as u16, (key % n) as u16);
    if stream.len() < n * n {
        let mut keys: Vec<u32> = stream
            .windows(2)
            .map(|w| u32::from(w[0]) * n as u32 + u32::from(w[1]))
            .collect();
        keys.par_sort_unstable();
        let mut out = Vec::new();
        for run in keys.chunk_by(|a, b| a == b) {
            let (a, b) = split(run[0] as usize);
            out.push((u32::try_from(run.len()).unwrap_or(u32::MAX), a, b));
        }
        return out;
    }
    // A table a task over a piece of the stream, then added up.
    let piece = (stream.len() / rayon::current_num_threads().max(1)).max(1 << 16);
    let counts = stream
        .par_chunks(piece)
        .enumerate()
        .map(|(k, chunk)| {
            let mut counts = vec![0u32; n * n];
            // The pair across the piece's start is counted by this piece.
            let mut previous = if k == 0 {
                None
            } else {
                Some(stream[k * piece - 1])
            };
            for &s in chunk {
                if let Some(p) = previous {
                    let c = &mut counts[usize::from(p) * n + usize::from(s)];
                    *c = c.saturating_add(1);
                }
                previous = Some(s);
            }
            counts
        })
        .reduce_with(|mut a, b| {
            for (x, y) in a.iter_mut().zip(b) {
                *x = x.saturating_add(y);
            }
            a
        })
        .unwrap_or_default();
    counts
        .iter()
        .enumerate()
        .filter(|&(_, &c)| c > 0)
        .map(|(at, &c)| {
            let (a, b) = split(at);
            (c, a, b)
        })
        .collect()
}

impl Canonical {
    /// The canonical code of symbols whose codes are `bits` long (0: no code).
    fn new(bits: &[u8]) -> Canonical {
        let longest = bits.iter().copied().max().unwrap_or(0);
        let mut per_length = vec![0u32; usize::from(longest) + 1];
        for &b in bits {
            if b > 0 {
                per_length[usize::from(b)] += 1;
            }
        }
        let mut sorted: Vec<u16> = (0..bits.len() as u16)
            .filter(|&s| bits[usize::from(s)] > 0)
            .collect();
        sorted.sort_by_key(|&s| (bits[usize::from(s)], s));
        let mut first = vec![0u64; usize::from(longest) + 1];
        let mut limit = vec![0u64; usize::from(longest) + 1];
        let mut start = vec![0u32; usize::from(longest) + 1];
        let mut code = 0u64;
        let mut at = 0u32;
        for l in 1..=usize::from(longest) {
            first[l] = code;
            start[l] = at;
            let end = code + u64::from(per_length[l]);
            limit[l] = if per_length[l] == 0 {
                0
            } else {
                end << (64 - l)
            };
            // A full code ends on all ones: its last limit wraps to zero, so it is kept as
            // the largest value instead.
            if per_length[l] > 0 && end << (64 - l) == 0 {
                limit[l] = u64::MAX;
            }
            at += per_length[l];
            code = end << 1;
        }
        let mut codes = vec![(0u8, 0u64); bits.len()];
        let mut next = first.clone();
        for &s in &sorted {
            let l = usize::from(bits[usize::from(s)]);
            codes[usize::from(s)] = (l as u8, next[l]);
            next[l] += 1;
        }
        let mut code = Canonical {
            limit,
            first,
            start,
            sorted,
            codes,
            shortest: Vec::new(),
        };
        // The limits grow with the length among the lengths that have codes, so the length
        // found for a prefix followed by zeros is the shortest of every code with that prefix.
        code.shortest = (0..1u64 << LOOKUP_BITS)
            .map(|prefix| code.length_from(prefix << (64 - LOOKUP_BITS), 1) as u8)
            .collect();
        code
    }

    /// The length of the code at the head of `window`, trying lengths from `from` up.
    #[inline]
    fn length_from(&self, window: u64, from: usize) -> usize {
        let mut l = from.max(1);
        if l >= self.limit.len() {
            return self.limit.len().saturating_sub(1).max(1);
        }
        while self.limit[l] == 0 || window >= self.limit[l] {
            l += 1;
            if l == self.limit.len() {
                // Only a damaged block gets here; its last length is the best guess.
                return l - 1;
            }
        }
        l
    }

    /// The next symbol of `bits`.
    #[inline]
    fn decode(&self, bits: &mut BitReader<'_>) -> u16 {
        let window = bits.peek();
        let from = self.shortest[(window >> (64 - LOOKUP_BITS)) as usize];
        let l = self.length_from(window, usize::from(from));
        let code = window >> (64 - l);
        bits.skip(l as u32);
        // Only a damaged block has a code below its length's first; any symbol will do.
        let k = u64::from(self.start[l]).saturating_add(code.saturating_sub(self.first[l]));
        self.sorted[(k as usize).min(self.sorted.len().saturating_sub(1))]
    }
}

/// Huffman code lengths for `counts` (0 where a count is 0), none longer than `max_bits`: a
/// Huffman tree built from the counts, built again from halved counts while it is too deep.
/// A lone symbol gets one bit; no symbol, no code.
pub fn huffman_lengths(counts: &[u64], max_bits: u8) -> Vec<u8> {
    use std::cmp::Reverse;
    use std::collections::BinaryHeap;
    let used: Vec<usize> = (0..counts.len()).filter(|&s| counts[s] > 0).collect();
    let mut bits = vec![0u8; counts.len()];
    if used.is_empty() {
        return bits;
    }
    if used.len() == 1 {
        bits[used[0]] = 1;
        return bits;
    }
    let mut weights: Vec<u64> = used.iter().map(|&s| counts[s]).collect();
    loop {
        // Nodes: the used symbols, then the tree's inner nodes; each node's parent.
        let mut parent = vec![usize::MAX; 2 * used.len()];
        let mut heap: BinaryHeap<Reverse<(u64, usize)>> = weights
            .iter()
            .enumerate()
            .map(|(i, &w)| Reverse((w, i)))
            .collect();
        let mut next = used.len();
        while heap.len() > 1 {
            let Reverse((wa, a)) = heap.pop().expect("two nodes");
            let Reverse((wb, b)) = heap.pop().expect("two nodes");
            parent[a] = next;
            parent[b] = next;
            heap.push(Reverse((wa + wb, next)));
            next += 1;
        }
        let mut depth = vec![0u8; next];
        for node in (0..next - 1).rev() {
            depth[node] = depth[parent[node]] + 1;
        }
        if depth[..used.len()].iter().all(|&d| d <= max_bits) {
            for (i, &s) in used.iter().enumerate() {
                bits[s] = depth[i];
            }
            return bits;
        }
        for w in &mut weights {
            *w = (*w).div_ceil(2);
        }
    }
}

/// Writes `stream`'s codes into blocks of `block_bytes` (step 3 of the
/// [module documentation](self)); returns the blocks and each block's entry count.
fn write_blocks(
    stream: &[u16],
    lengths: &[u32],
    code: &Canonical,
    block_bytes: usize,
) -> (Vec<u8>, Vec<u32>) {
    let capacity = block_bytes as u64 * 8;
    let mut data = Vec::new();
    let mut block_entries = Vec::new();
    let mut block = vec![0u8; block_bytes];
    let (mut used, mut entries) = (0u64, 0u32);
    for &s in stream {
        let (l, c) = code.codes[usize::from(s)];
        let length = lengths[usize::from(s)];
        if used + u64::from(l) > capacity || entries + length > MAX_BLOCK_ENTRIES {
            data.extend_from_slice(&block);
            block_entries.push(entries);
            block.fill(0);
            used = 0;
            entries = 0;
        }
        for k in 0..u64::from(l) {
            if c >> (u64::from(l) - 1 - k) & 1 == 1 {
                let at = used + k;
                block[(at / 8) as usize] |= 0x80 >> (at % 8);
            }
        }
        used += u64::from(l);
        entries += length;
    }
    if entries > 0 {
        data.extend_from_slice(&block);
        block_entries.push(entries);
    }
    (data, block_entries)
}

/// Entries between marks: the power of two nearest above the mean entries a block holds.
fn mark_span(entries: u64, blocks: usize) -> u64 {
    let mean = entries.div_ceil(blocks.max(1) as u64).max(1);
    mean.next_power_of_two()
}

/// By mark `k`, the block holding entry `k × span` and its place there.
fn place_marks(block_entries: &[u32], entries: u64, span: u64) -> Vec<(u32, u32)> {
    let mut marks = Vec::with_capacity(entries.div_ceil(span) as usize);
    let mut block_start = 0u64;
    let mut block = 0usize;
    let mut next = 0u64;
    while next < entries {
        while block_start + u64::from(block_entries[block]) <= next {
            block_start += u64::from(block_entries[block]);
            block += 1;
        }
        marks.push((block as u32, (next - block_start) as u32));
        next += span;
    }
    marks
}

/// Bits read first bit first from a block, zeros past its end.
struct BitReader<'a> {
    bytes: &'a [u8],
    /// The next byte to take into `window`.
    next: usize,
    /// The bits not yet read, the first of them highest; at least 57 of them are the block's
    /// (or zeros past its end).
    window: u64,
    /// How many of `window`'s bits are loaded.
    loaded: u32,
}

impl<'a> BitReader<'a> {
    fn new(bytes: &'a [u8]) -> BitReader<'a> {
        let mut reader = BitReader {
            bytes,
            next: 0,
            window: 0,
            loaded: 0,
        };
        reader.refill();
        reader
    }

    #[inline]
    fn refill(&mut self) {
        while self.loaded <= 56 {
            let byte = self.bytes.get(self.next).copied().unwrap_or(0);
            self.window |= u64::from(byte) << (56 - self.loaded);
            self.next += 1;
            self.loaded += 8;
        }
    }

    /// The next bits, the first of them highest (at least 57 of them meaningful).
    #[inline]
    fn peek(&self) -> u64 {
        self.window
    }

    /// Passes `bits` bits (at most 57).
    #[inline]
    fn skip(&mut self, bits: u32) {
        self.window <<= bits;
        self.loaded -= bits;
        self.refill();
    }
}

#[cfg(test)]
mod tests;
