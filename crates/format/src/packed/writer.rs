//! Writing packed tables: each side's order of entries chosen, its dictionary trained, its
//! blocks compressed a stretch at a time and written as they come, and the written file decoded
//! back against the raw body before it is kept.
//!
//! Owns: [`pack`], [`PackOptions`], [`Coder`], [`PackReport`].
//! Must never: keep a file that does not decode to the raw body, or hold a whole side's
//! compressed blocks in memory (the largest tables would not fit beside their raw bodies).

use super::{
    digits_at, pairs, short_hash, DigitOrder, PackedTable, SideBlocks, BLACK_LEFT_OUT,
    BLOCK_RECORD, CODER_PAIRS, CODER_ZSTD_BLOCKS, EXITS_DECIDE, HASH_LEN, LEAVES_OUT_ILLEGAL,
    MAX_DIGITS, PACKED_MAGIC, PACKED_VERSION, PAIRS_VERSION, WHITE_LEFT_OUT,
};
use crate::{io_error, FormatError, Table, TempFile};
use rayon::prelude::*;
use std::io::{Seek, SeekFrom, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Instant;
use zstd::zstd_safe::{self, CParameter, DCtx, DDict};

/// How a packed file codes its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Coder {
    /// Version 2: each side pair-coded ([`pairs`]), illegal positions left out.
    #[default]
    Pairs,
    /// Version 1: zstd frames of a fixed number of entries, every entry kept.
    ZstdBlocks,
}

/// How [`pack`] compresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackOptions {
    /// The coder.
    pub coder: Coder,
    /// Entries per block of [`Coder::ZstdBlocks`]: a probe decodes one block.
    pub entries_per_block: u32,
    /// The zstd compression level (1 to 22) of [`Coder::ZstdBlocks`], and of the samples
    /// both coders choose a side's order of entries by.
    pub level: i32,
    /// The largest dictionary trained for a side, in bytes; a side gets a dictionary of at
    /// most a sixty-fourth of its raw size, and none below [`MIN_DICTIONARY_BYTES`].
    pub max_dictionary_bytes: usize,
    /// Whether a pair-coded DTM or DTZ50 file whose exits decide keeps both sides to move; by
    /// default it keeps the side that codes smaller and leaves the other to a one-ply search
    /// ([`super::WHITE_LEFT_OUT`]).
    pub keep_both_sides: bool,
}

/// The shortest match the compressor looks for: tables repeat in long runs and whole lanes
/// (the last man's squares), and longer matches both compress them better at small block
/// sizes and decode faster than zstd's default (see `docs/packing.md`).
pub const MIN_MATCH: u32 = 7;

/// The smallest dictionary worth training; smaller sides are packed without one.
pub const MIN_DICTIONARY_BYTES: usize = 4096;

/// Blocks spread over a side to compare the orders of its entries by.
const SAMPLE_BLOCKS: usize = 256;

/// Blocks compressed at once before they are written.
const STRETCH_BLOCKS: u64 = 4096;

impl Default for PackOptions {
    fn default() -> PackOptions {
        PackOptions {
            coder: Coder::default(),
            entries_per_block: 1024,
            level: 12,
            max_dictionary_bytes: 16 * 1024,
            keep_both_sides: false,
        }
    }
}

/// What [`pack`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct PackReport {
    /// The packed file written.
    pub path: PathBuf,
    /// The raw table's size in bytes (its header included).
    pub raw_bytes: u64,
    /// The packed file's size in bytes.
    pub packed_bytes: u64,
    /// Blocks, both sides.
    pub blocks: u64,
    /// Dictionary bytes, both sides.
    pub dictionary_bytes: u64,
    /// The order of each side's digits chosen (White, Black): raw digit numbers, most
    /// significant first.
    pub orders: [Vec<u8>; 2],
    /// Seconds taken, the check of the written file included.
    pub seconds: f64,
}

/// One side of the raw body and how it is packed.
struct Side<'a> {
    /// The raw entries, `width` bytes each, in raw index order.
    raw: &'a [u8],
    width: usize,
    order: DigitOrder,
    dictionary: Vec<u8>,
}

impl Side<'_> {
    /// The entries of packed places `start .. start + count`, gathered into `out`.
    fn gather(&self, start: u64, count: usize, out: &mut Vec<u8>) {
        out.clear();
        let w = self.width;
        self.order.for_each_raw(start, count, |raw| {
            let at = raw as usize * w;
            out.extend_from_slice(&self.raw[at..at + w]);
        });
    }

    /// `count` blocks of `entries` entries drawn over the side in its order (by a fixed
    /// pseudo-random sequence: blocks at even steps would fall in step with the digits and
    /// show one part of the side only).
    fn sample(&self, entries: u64, count: usize) -> Vec<Vec<u8>> {
        let total = self.order.entries();
        let blocks = total.div_ceil(entries);
        if blocks <= count as u64 {
            return (0..blocks).map(|b| self.block(b, entries)).collect();
        }
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        (0..count)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                self.block(state % blocks, entries)
            })
            .collect()
    }

    /// Block `block` of blocks of `entries` entries in the side's order.
    fn block(&self, block: u64, entries: u64) -> Vec<u8> {
        let mut out = Vec::new();
        let start = block * entries;
        self.gather(
            start,
            (self.order.entries() - start).min(entries) as usize,
            &mut out,
        );
        out
    }
}

fn compressor(
    options: &PackOptions,
    dictionary: &[u8],
) -> std::io::Result<zstd::bulk::Compressor<'static>> {
    let mut compressor = zstd::bulk::Compressor::with_dictionary(options.level, dictionary)?;
    compressor.set_parameter(CParameter::MinMatch(MIN_MATCH))?;
    Ok(compressor)
}

/// A dictionary for a side of `side_bytes` raw bytes, trained on `samples`, if the side is large
/// enough for one to pay.
fn train(samples: &[Vec<u8>], side_bytes: usize, options: &PackOptions) -> Vec<u8> {
    let size = (side_bytes / 64).min(options.max_dictionary_bytes);
    if size < MIN_DICTIONARY_BYTES || samples.len() < 16 {
        return Vec::new();
    }
    zstd::dict::from_samples(samples, size).unwrap_or_default()
}

/// The compressed size of blocks spread over a side taken in `order`, its dictionary included:
/// how the orders of a side are compared.
fn sampled_size(
    raw: &[u8],
    width: usize,
    order: DigitOrder,
    options: &PackOptions,
) -> std::io::Result<usize> {
    let side = Side {
        raw,
        width,
        order,
        dictionary: Vec::new(),
    };
    let blocks = side.sample(u64::from(options.entries_per_block), SAMPLE_BLOCKS);
    let dictionary = train(&blocks, raw.len(), options);
    let mut compressor = compressor(options, &dictionary)?;
    let mut total = dictionary.len();
    for block in &blocks {
        total += compressor.compress(block)?.len();
    }
    Ok(total)
}

/// The order of a side's entries that compresses best on a sample, the raw order on a tie.
fn choose_order(
    raw: &[u8],
    width: usize,
    radices: &[u64],
    options: &PackOptions,
) -> std::io::Result<DigitOrder> {
    let candidates = DigitOrder::candidates(radices);
    if candidates.len() == 1 {
        return Ok(candidates.into_iter().next().expect("one candidate"));
    }
    let sizes: Vec<usize> = candidates
        .par_iter()
        .map(|order| sampled_size(raw, width, order.clone(), options))
        .collect::<std::io::Result<_>>()?;
    let best = (0..candidates.len())
        .min_by_key(|&k| (sizes[k], k))
        .expect("a candidate");
    Ok(candidates[best].clone())
}

fn pad8(n: u64) -> u64 {
    n.div_ceil(8) * 8
}

/// Packs an opened table into `path`, atomically. `radices` are the digits of the table's
/// index, most significant first (their product the entries per side; empty for one digit):
/// each side's entries are taken in the order of those digits that compresses a sample of its
/// blocks best. The table's body is checked against its hash, the packed file written to a
/// temporary file beside `path` (unnamed where the file system allows, so that a process killed
/// part way leaves nothing), flushed, opened again and decoded block by block against the body,
/// then renamed into place. A failure leaves any previous file at `path` untouched.
pub fn pack(
    table: &Table,
    path: &Path,
    radices: &[u64],
    options: &PackOptions,
) -> Result<PackReport, FormatError> {
    pack_with_exits(table, path, radices, options, None)
}

/// By raw index, White's side then Black's, the code that decides each position's entry (0
/// where none does, or where it is no legal position): in DTM and WDL50 the code its best exit
/// gives its side to move, from the tables the exits lead into; in DTZ50 the draw where its
/// WDL50 table says draw. What the fast side supplies to [`pack_with_exits`].
pub type ExitCodes<'a> = &'a (dyn Fn() -> Result<[Vec<u16>; 2], String> + Sync);

/// [`pack`], and where `exits` are given and the coder is [`Coder::Pairs`], every entry they
/// decide stored as whatever codes best among the values allowed there
/// ([`crate::TableKind::may_store`], [`super::EXITS_DECIDE`]).
pub fn pack_with_exits(
    table: &Table,
    path: &Path,
    radices: &[u64],
    options: &PackOptions,
    exits: Option<ExitCodes<'_>>,
) -> Result<PackReport, FormatError> {
    let start = Instant::now();
    let header = table.header();
    let refuse = |what: String| FormatError::CorruptHeader {
        path: path.to_path_buf(),
        what,
    };
    if options.entries_per_block == 0 || !(1..=22).contains(&options.level) {
        return Err(refuse(format!(
            "cannot pack with {} entries per block at level {}",
            options.entries_per_block, options.level
        )));
    }
    let entries = header.entries_per_side;
    let radices: Vec<u64> = if radices.is_empty() {
        vec![entries]
    } else {
        radices.to_vec()
    };
    let product = radices.iter().try_fold(1u64, |p, &r| p.checked_mul(r));
    if radices.len() > MAX_DIGITS || product != Some(entries) {
        return Err(refuse(format!(
            "index digits {radices:?} do not number the {entries} entries of a side"
        )));
    }
    table.check_body()?;
    let io = |source: std::io::Error| FormatError::Io {
        path: path.to_path_buf(),
        source,
    };
    if options.coder == Coder::Pairs {
        return pack_pairs(table, path, &radices, options, exits, start);
    }
    let width = usize::from(header.value_width);
    let (white, black) = table.body().split_at(table.body().len() / 2);
    let per_block = u64::from(options.entries_per_block);
    let blocks_per_side = entries.div_ceil(per_block);
    let mut sides = Vec::with_capacity(2);
    for raw in [white, black] {
        let order = choose_order(raw, width, &radices, options).map_err(io)?;
        let mut side = Side {
            raw,
            width,
            order,
            dictionary: Vec::new(),
        };
        let wanted = (100 * options.max_dictionary_bytes).div_ceil(per_block as usize * width);
        side.dictionary = train(&side.sample(per_block, wanted.max(16)), raw.len(), options);
        sides.push(side);
    }

    // The layout: header (its digits after the name), then per side its dictionary and block
    // table, then the data.
    let header_length = header_length(&header.material, radices.len());
    let mut at = header_length;
    let mut places = Vec::new();
    for side in &sides {
        let dict_at = at;
        at = pad8(at + side.dictionary.len() as u64);
        let table_at = at;
        at = pad8(at + blocks_per_side * BLOCK_RECORD as u64);
        places.push((dict_at, table_at));
    }
    let directory_end = at;

    // The data, a stretch of blocks at a time: compressed in parallel, each decoded again at
    // once (a block that does not give back its entries is never written), then written.
    let temp = TempFile::beside(path)?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, temp.file());
    out.seek(SeekFrom::Start(directory_end))
        .map_err(io_error(temp.path()))?;
    let mut tables: Vec<Vec<u8>> = Vec::new();
    let mut lengths = Vec::new();
    for side in &sides {
        let decoder_dictionary = DDict::create(&side.dictionary);
        let mut records = Vec::with_capacity(blocks_per_side as usize * BLOCK_RECORD);
        let mut end = 0u64;
        for stretch in (0..blocks_per_side).step_by(STRETCH_BLOCKS as usize) {
            let last = (stretch + STRETCH_BLOCKS).min(blocks_per_side);
            let compressed: Vec<Vec<u8>> = (stretch..last)
                .into_par_iter()
                .map_init(
                    || {
                        (
                            compressor(options, &side.dictionary),
                            DCtx::create(),
                            Vec::new(),
                            Vec::new(),
                        )
                    },
                    |(compressor, decoder, block, check), b| {
                        let compressor = compressor
                            .as_mut()
                            .map_err(|e| std::io::Error::other(e.to_string()))?;
                        let first = b * per_block;
                        side.gather(first, (entries - first).min(per_block) as usize, block);
                        let bytes = compressor.compress(block)?;
                        check.resize(block.len(), 0);
                        let decoded = if side.dictionary.is_empty() {
                            decoder.decompress(&mut check[..], &bytes)
                        } else {
                            decoder.decompress_using_ddict(
                                &mut check[..],
                                &bytes,
                                &decoder_dictionary,
                            )
                        }
                        .map_err(|code| std::io::Error::other(zstd_safe::get_error_name(code)))?;
                        if decoded != block.len() || check != block {
                            return Err(std::io::Error::other(
                                "a block did not decode to its entries",
                            ));
                        }
                        Ok(bytes)
                    },
                )
                .collect::<std::io::Result<_>>()
                .map_err(io)?;
            for bytes in compressed {
                out.write_all(&bytes).map_err(io_error(temp.path()))?;
                end += bytes.len() as u64;
                let end32 = u32::try_from(end).map_err(|_| {
                    refuse("a side compresses to more than 4 GiB, beyond this layout".into())
                })?;
                records.extend_from_slice(&end32.to_le_bytes());
                records.extend_from_slice(&short_hash(&bytes).to_le_bytes());
            }
        }
        tables.push(records);
        lengths.push(end);
    }
    out.flush().map_err(io_error(temp.path()))?;
    drop(out);

    // The directory and the header, now that the blocks' ends are known.
    let mut directory = vec![0u8; (directory_end - header_length) as usize];
    for ((side, records), &(dict_at, table_at)) in sides.iter().zip(&tables).zip(&places) {
        let d = (dict_at - header_length) as usize;
        directory[d..d + side.dictionary.len()].copy_from_slice(&side.dictionary);
        let t = (table_at - header_length) as usize;
        directory[t..t + records.len()].copy_from_slice(records);
    }
    let mut records = [[0u64; 6]; 2];
    let mut data_at = directory_end;
    for (((side, &(dict_at, table_at)), &length), record) in
        sides.iter().zip(&places).zip(&lengths).zip(&mut records)
    {
        *record = [
            dict_at,
            side.dictionary.len() as u64,
            blocks_per_side,
            table_at,
            data_at,
            length,
        ];
        data_at += length;
    }
    let head = header_bytes(&HeaderFields {
        table,
        version: PACKED_VERSION,
        coder: CODER_ZSTD_BLOCKS,
        entries_per_block: options.entries_per_block,
        flags: 0,
        records,
        directory: &directory,
        radices: &radices,
        orders: [sides[0].order.order(), sides[1].order.order()],
    });
    let file = temp.file();
    file.write_all_at(&head, 0).map_err(io_error(temp.path()))?;
    file.write_all_at(&directory, header_length)
        .map_err(io_error(temp.path()))?;
    file.sync_all().map_err(io_error(temp.path()))?;

    // The file as written decodes to the raw body, block by block, or it is not kept.
    let written = PackedTable::from_file(file, path)?;
    let differs = || FormatError::CorruptBody {
        path: path.to_path_buf(),
    };
    for (s, side) in sides.iter().enumerate() {
        (0..blocks_per_side).into_par_iter().try_for_each_init(
            || (Vec::new(), Vec::new()),
            |(decoded, original), b| {
                let first = b * per_block;
                side.gather(first, (entries - first).min(per_block) as usize, original);
                decoded.resize(original.len(), 0);
                written.decode_block(s == 0, b, decoded)?;
                if decoded != original {
                    return Err(differs());
                }
                Ok(())
            },
        )?;
    }
    let packed_bytes = written.file_bytes();
    drop(written);
    temp.persist(path)?;
    Ok(PackReport {
        path: path.to_path_buf(),
        raw_bytes: table.file_bytes(),
        packed_bytes,
        blocks: 2 * blocks_per_side,
        dictionary_bytes: sides.iter().map(|s| s.dictionary.len() as u64).sum(),
        orders: [
            sides[0].order.order().to_vec(),
            sides[1].order.order().to_vec(),
        ],
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Bytes of the header of a packed table of `material` whose index has `digits` digits.
fn header_length(material: &str, digits: usize) -> u64 {
    pad8(digits_at(material.len()) as u64 + 10 * digits as u64) + HASH_LEN as u64
}

/// What a packed file's header records beside the raw table's header.
struct HeaderFields<'a> {
    table: &'a Table,
    version: u32,
    coder: u16,
    entries_per_block: u32,
    flags: u8,
    /// Per side: directory (or dictionary) offset and length, blocks, block or check table
    /// offset, data offset and length.
    records: [[u64; 6]; 2],
    /// The directory's bytes, hashed into the header.
    directory: &'a [u8],
    radices: &'a [u64],
    orders: [&'a [u8]; 2],
}

/// The header's bytes, its checksum last (the layout of the [module](super) documentation).
fn header_bytes(f: &HeaderFields<'_>) -> Vec<u8> {
    let header = f.table.header();
    let name = header.material.as_bytes();
    let length = header_length(&header.material, f.radices.len());
    let mut head = Vec::with_capacity(length as usize);
    head.extend_from_slice(&PACKED_MAGIC);
    head.extend_from_slice(&f.version.to_le_bytes());
    head.extend_from_slice(&(length as u32).to_le_bytes());
    head.extend_from_slice(&[
        header.files,
        header.ranks,
        header.value_width,
        header.symmetries,
    ]);
    head.extend_from_slice(&header.index_scheme.to_le_bytes());
    head.extend_from_slice(&header.entries_per_side.to_le_bytes());
    head.extend_from_slice(&header.max_plies.to_le_bytes());
    head.extend_from_slice(&(name.len() as u16).to_le_bytes());
    head.extend_from_slice(&f.coder.to_le_bytes());
    head.extend_from_slice(&f.entries_per_block.to_le_bytes());
    head.extend_from_slice(&[
        f.radices.len() as u8,
        header.kind.code(),
        header.rule_plies,
        f.flags,
    ]);
    head.extend_from_slice(&f.table.body_hash());
    for record in &f.records {
        head.extend_from_slice(&record[0].to_le_bytes());
        head.extend_from_slice(&(record[1] as u32).to_le_bytes());
        head.extend_from_slice(&(record[2] as u32).to_le_bytes());
        head.extend_from_slice(&record[3].to_le_bytes());
        head.extend_from_slice(&record[4].to_le_bytes());
        head.extend_from_slice(&record[5].to_le_bytes());
    }
    head.extend_from_slice(blake3::hash(f.directory).as_bytes());
    head.extend_from_slice(name);
    head.resize(digits_at(name.len()), 0);
    for radix in f.radices {
        head.extend_from_slice(&radix.to_le_bytes());
    }
    for order in &f.orders {
        head.extend_from_slice(order);
    }
    head.resize(length as usize - HASH_LEN, 0);
    let hash = blake3::hash(&head);
    head.extend_from_slice(hash.as_bytes());
    head
}

/// Checks, before a DTM or DTZ50 file leaving a side out is written to `path`, that the
/// installed [`super::Restorer`] gives that side back from the other exactly as `table` holds
/// it (the tables its exits lead into, and for DTZ50 its WDL50 tables, must be beside `path`):
/// the one-ply search
/// gives back the entries of a table that passes `retro verify`, and refuses one that does
/// not before any file is written.
fn check_rebuilt(table: &Table, path: &Path, white: bool) -> Result<(), FormatError> {
    let restore = *super::RESTORER
        .get()
        .ok_or_else(|| FormatError::NeedsRestorer {
            path: path.to_path_buf(),
        })?;
    let h = table.header();
    let width = usize::from(h.value_width);
    let body = table.body();
    let mut rebuilt = body.to_vec();
    let (w, b) = rebuilt.split_at_mut(body.len() / 2);
    if white { &mut *w } else { &mut *b }.fill(0);
    let request = super::Restore {
        path,
        kind: h.kind,
        material: &h.material,
        files: h.files,
        ranks: h.ranks,
        width,
        exits_decide: true,
        left_out: Some(white),
    };
    let undecided = |what: String| FormatError::Undecided {
        path: path.to_path_buf(),
        what,
    };
    restore(&request, w, b).map_err(undecided)?;
    if rebuilt != body {
        let differ = rebuilt
            .chunks_exact(width)
            .zip(body.chunks_exact(width))
            .filter(|(a, b)| a != b)
            .count();
        return Err(undecided(format!(
            "a one-ply search gives {differ} entries of {} to move otherwise than the table: verify it (`retro verify --kinds fifty`) before packing",
            super::side_name(white)
        )));
    }
    Ok(())
}

/// [`pack`] with [`Coder::Pairs`]: each side's order chosen as for zstd blocks, its entries
/// coded whole in memory with illegal positions filled, the file written, read back whole and
/// entry by entry against the coded streams, then renamed into place.
fn pack_pairs(
    table: &Table,
    path: &Path,
    radices: &[u64],
    options: &PackOptions,
    exits: Option<ExitCodes<'_>>,
    start: Instant,
) -> Result<PackReport, FormatError> {
    let header = table.header();
    let io = |source: std::io::Error| FormatError::Io {
        path: path.to_path_buf(),
        source,
    };
    let width = usize::from(header.value_width);
    let (white, black) = table.body().split_at(table.body().len() / 2);
    let mut orders = Vec::with_capacity(2);
    for raw in [white, black] {
        orders.push(choose_order(raw, width, radices, options).map_err(io)?);
    }
    let refuse = |what: String| FormatError::CorruptHeader {
        path: path.to_path_buf(),
        what: format!("cannot be pair-coded ({what}); pack it with zstd blocks"),
    };
    // The exits' codes, two bytes an entry of each side beside the raw body.
    let (white_exits, black_exits) = match exits {
        Some(exits) => {
            let [white, black] = exits().map_err(|what| FormatError::Undecided {
                path: path.to_path_buf(),
                what,
            })?;
            (Some(white), Some(black))
        }
        None => (None, None),
    };
    let (w, b) = rayon::join(
        || pairs::code_side(table, true, &orders[0], white_exits.as_deref()),
        || pairs::code_side(table, false, &orders[1], black_exits.as_deref()),
    );
    drop((white_exits, black_exits));
    let mut sides = [w.map_err(refuse)?, b.map_err(refuse)?];
    // A DTM or DTZ50 side is rebuilt from the other by a one-ply search: keep the smaller one.
    let bytes =
        |side: &pairs::CodedSide| side.directory.len() + side.checks.len() + side.data.len();
    let left_out =
        (header.kind.may_leave_side_out() && exits.is_some() && !options.keep_both_sides)
            .then(|| bytes(&sides[0]) > bytes(&sides[1]));
    let mut flags = LEAVES_OUT_ILLEGAL | if exits.is_some() { EXITS_DECIDE } else { 0 };
    if let Some(white) = left_out {
        check_rebuilt(table, path, white)?;
        sides[usize::from(!white)] = pairs::CodedSide::left_out();
        flags |= if white {
            WHITE_LEFT_OUT
        } else {
            BLACK_LEFT_OUT
        };
    }

    // Header, then per side its directory and check table, then the data.
    let header_length = header_length(&header.material, radices.len());
    let mut directory = Vec::new();
    let mut records = [[0u64; 6]; 2];
    for (side, record) in sides.iter().zip(&mut records) {
        let dict_at = header_length + directory.len() as u64;
        directory.extend_from_slice(&side.directory);
        directory.resize(pad8(directory.len() as u64) as usize, 0);
        let checks_at = header_length + directory.len() as u64;
        directory.extend_from_slice(&side.checks);
        directory.resize(pad8(directory.len() as u64) as usize, 0);
        *record = [
            dict_at,
            side.directory.len() as u64,
            side.blocks as u64,
            checks_at,
            0,
            side.data.len() as u64,
        ];
    }
    // The data follow the directory, White's then Black's.
    let data_start = header_length + directory.len() as u64;
    records[0][4] = data_start;
    records[1][4] = data_start + records[0][5];
    let head = header_bytes(&HeaderFields {
        table,
        version: PAIRS_VERSION,
        coder: CODER_PAIRS,
        entries_per_block: 0,
        flags,
        records,
        directory: &directory,
        radices,
        orders: [orders[0].order(), orders[1].order()],
    });
    let temp = TempFile::beside(path)?;
    let file = temp.file();
    file.write_all_at(&head, 0).map_err(io_error(temp.path()))?;
    file.write_all_at(&directory, header_length)
        .map_err(io_error(temp.path()))?;
    let mut at = data_start;
    for side in &sides {
        file.write_all_at(&side.data, at)
            .map_err(io_error(temp.path()))?;
        at += side.data.len() as u64;
    }
    file.sync_all().map_err(io_error(temp.path()))?;

    // The file as written gives back the coded streams, whole and entry by entry.
    let written = PackedTable::from_file(file, path)?;
    for (s, side) in sides.iter().enumerate() {
        match &written.sides[s].blocks {
            SideBlocks::Pairs(read) => pairs::check_written(&written, s == 0, read, &side.stream)?,
            SideBlocks::LeftOut if left_out == Some(s == 0) => {}
            _ => unreachable!("a pair-coded file keeps the sides it wrote"),
        }
    }
    let packed_bytes = written.file_bytes();
    drop(written);
    temp.persist(path)?;
    Ok(PackReport {
        path: path.to_path_buf(),
        raw_bytes: table.file_bytes(),
        packed_bytes,
        blocks: sides.iter().map(|s| s.blocks as u64).sum(),
        dictionary_bytes: 0,
        orders: [orders[0].order().to_vec(), orders[1].order().to_vec()],
        seconds: start.elapsed().as_secs_f64(),
    })
}
