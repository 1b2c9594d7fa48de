//! The packed table file: the values of a raw table, coded in small blocks of which a probe
//! reads one.
//!
//! Owns: the packed layout and its reader ([`PackedTable`], the decoder, checking every block
//! before decoding it); the writer is [`writer`], the order of entries [`order`], the pair
//! coder of version 2 [`pairs`].
//! Must never: change the value of a legal position. A file of version 1 decodes to exactly
//! the body of the raw table it was packed from, illegal entries included; a file of version 2
//! may leave the entries of illegal positions out (flag [`LEAVES_OUT_ILLEGAL`]) and those an
//! exit or, in DTZ50, the WDL50 table decides (flag [`EXITS_DECIDE`], [`crate::exits`]), and a whole read puts them back
//! through the installed [`Restorer`], which knows the rules. Either way
//! the blake3 hash of the body read whole (the *value stream*, in raw index order) is the raw
//! body's hash, recorded in both headers and in certificates, and checked on every whole read:
//! a wrong restoration is refused, never read.
//!
//! # Layout (all integers little-endian)
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `RETROTBZ` |
//! | 8 | 4 | packed format version: 1 (zstd blocks) or 2 (pair-coded sides) |
//! | 12 | 4 | header length `H` (a multiple of 8) |
//! | 16 | 1 | files of the board |
//! | 17 | 1 | ranks of the board |
//! | 18 | 1 | value width in bytes: 1 or 2 |
//! | 19 | 1 | number of board symmetries removed by the index |
//! | 20 | 4 | index scheme (as the raw table's) |
//! | 24 | 8 | entries per side to move, `E` |
//! | 32 | 4 | longest distance stored, in plies (as the raw table's) |
//! | 36 | 2 | length `L` of the material name |
//! | 38 | 2 | coder (1: one zstd frame per block, with a dictionary per side; 2: [`pairs`]) |
//! | 40 | 4 | entries per block `B` (coder 1; 0 for coder 2) |
//! | 44 | 1 | number `n` of the index's digits (1 to 16) |
//! | 45 | 1 | the table's kind (as the raw table's) |
//! | 46 | 1 | the plies the fifty-move rule allows (as the raw table's) |
//! | 47 | 1 | flags: 0, or in version 2 [`LEAVES_OUT_ILLEGAL`], with [`EXITS_DECIDE`] or not, and in DTM and DTZ50 with it [`WHITE_LEFT_OUT`] or [`BLACK_LEFT_OUT`] or neither |
//! | 48 | 32 | blake3 hash of the value stream: the raw body, White's `E` entries then Black's |
//! | 80 | 2 × 40 | per side to move (White, then Black): dictionary (coder 2: directory) offset (8) and length (4), block count (4), block table (coder 2: check table) offset (8), data offset (8), data length (8) |
//! | 160 | 32 | blake3 hash of the directory: the bytes from `H` to the first block's data |
//! | 192 | `L` | the material's name, e.g. `KRvK` |
//! | `D` | `8n` | from the next multiple of 8: the radices of the raw index's digits, most significant first (their product is `E`) |
//! | `D + 8n` | `n` | White's digit order: the raw digits by significance in the packed stream, most significant first |
//! | `D + 9n` | `n` | Black's digit order |
//! | … | | zero padding up to `H − 32` |
//! | `H − 32` | 32 | blake3 hash of bytes `0 .. H − 32` |
//! | `H` | | the directory: per side, its dictionary and block table, or (coder 2) its pair directory and check table (each 8-aligned) |
//! | | | the data: White's blocks, then Black's |
//!
//! A side's entries are taken in its digit order ([`DigitOrder`]: the raw index's digits
//! ranked anew, so that entries alike follow one another), cut into blocks of `B` entries (the
//! last one shorter), and each block compressed on its own as one zstd frame with the side's
//! dictionary (none when its length is 0). A block table holds 8 bytes per block: the offset
//! just past the block's end within the side's data (the block starts where the one before it
//! ends, the first at 0), and the first four bytes of the blake3 hash of the block's compressed
//! bytes.
//!
//! In version 2 (coder 2) a side's entries, in its digit order and with illegal positions'
//! entries filled by the entry before them, are one pair code ([`crate::PairCode`]): its
//! directory (symbols, code lengths, entries per block) and a check table of four bytes per
//! KiB of blocks, then blocks of one size (64 B for WDL50, 256 B for distances), laid out as
//! [`pairs`] describes. A side left out ([`WHITE_LEFT_OUT`], [`BLACK_LEFT_OUT`]) has no
//! directory, check table or data: its record holds lengths and a block count of 0.
//!
//! # Reading
//!
//! Opening a packed file maps it once to read the header and the directory and checks both
//! hashes; the blocks are not read then. A probe reads one block's compressed bytes with a
//! single positioned read (`pread`) into a per-thread buffer: no page of the file stays mapped,
//! so a probe costs one system call and never a page fault on a cold mapping. The entry of raw
//! index `i` lies at packed place `p = order(i)`: in version 1 in block `p / B` at entry
//! `p % B`, and decoding a block checks its hash first, then that it decodes to exactly its
//! entries; in version 2 in the block the pair code's marks lead to, its group of blocks
//! checked against the check table the first time one of them is read. A block failing a
//! check is refused with the table, side and block named, never decoded into a value.

pub mod order;
pub mod pairs;
pub mod writer;

pub use order::DigitOrder;
pub use writer::{
    pack, pack_with_exits, Coder, ExitCodes, PackOptions, PackReport, MIN_DICTIONARY_BYTES,
    MIN_MATCH,
};

use crate::{io_error, read_u32, FormatError, Header, Table, TableKind};
use pairs::PairSide;
use rayon::prelude::*;
use std::cell::RefCell;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use zstd::zstd_safe::{self, DCtx, DDict};

/// The first eight bytes of every packed table file.
pub const PACKED_MAGIC: [u8; 8] = *b"RETROTBZ";
/// The version of the packed layout whose blocks are zstd frames.
pub const PACKED_VERSION: u32 = 1;
/// The version of the packed layout whose sides are pair-coded ([`pairs`]).
pub const PAIRS_VERSION: u32 = 2;
/// The coder of version 1: one zstd frame per block, with a dictionary per side.
pub const CODER_ZSTD_BLOCKS: u16 = 1;
/// The coder of version 2: pair substitution and canonical Huffman codes ([`pairs`]).
pub const CODER_PAIRS: u16 = 2;
/// Byte 47's flag of version 2: the entries of illegal positions are left out (any value).
pub const LEAVES_OUT_ILLEGAL: u8 = 1;

/// Byte 47's flag of version 2: in DTM and WDL50, an entry whose best exit (a capture or a
/// promotion) reaches its value may hold any value no better, a reader taking the better of
/// the stored value and the exit's; in DTZ50, a drawn position's entry may hold anything, a
/// reader taking the draw from the material's WDL50 table ([`crate::exits`]). Only with
/// [`LEAVES_OUT_ILLEGAL`].
pub const EXITS_DECIDE: u8 = 2;

/// Byte 47's flag of version 2, in DTM and DTZ50 files with [`EXITS_DECIDE`]: White's side to
/// move is not stored. Each of its entries is rebuilt by a one-ply search
/// ([`crate::exits::SideSearch`]) into Black's side (which is stored) and the tables its
/// exits lead into; in DTZ50 a zeroing move by the WDL50 class it reaches, a drawn position's
/// entry its WDL50 table's draw.
pub const WHITE_LEFT_OUT: u8 = 4;
/// Byte 47's flag: as [`WHITE_LEFT_OUT`], Black's side to move not stored.
pub const BLACK_LEFT_OUT: u8 = 8;

/// A packed table to put back whole, for a [`Restorer`].
#[derive(Debug, Clone, Copy)]
pub struct Restore<'a> {
    /// The packed file (the tables its exits lead into, or a DTZ50 file's WDL50 table, are
    /// beside it).
    pub path: &'a Path,
    /// The table's kind.
    pub kind: TableKind,
    /// Its material, e.g. `KRvK`.
    pub material: &'a str,
    /// Files of the board.
    pub files: u8,
    /// Ranks of the board.
    pub ranks: u8,
    /// Bytes an entry.
    pub width: usize,
    /// Whether entries an exit decides may hold any value no better ([`EXITS_DECIDE`]).
    pub exits_decide: bool,
    /// The side to move the file leaves out, to be rebuilt by a one-ply search into the other
    /// ([`WHITE_LEFT_OUT`]): `Some(true)` for White's; its entries are decoded as 0.
    pub left_out: Option<bool>,
}

/// Puts back what a packed file leaves out, in both sides' entries at once (White's, then
/// Black's; raw index order, `width` bytes each, as decoded): sets the entry of every index
/// that is no legal position to 0 and, where [`Restore::exits_decide`], takes at each legal
/// position the better of the stored value and its best exit's ([`TableKind::with_exit`]; in
/// DTZ50 the draws of its WDL50 table), the tables that decide opened once for both sides;
/// where the file leaves a side out ([`Restore::left_out`]), that side's every entry from the
/// other side by a one-ply search. A reader that knows the rules and opens the smaller tables
/// supplies it (`retro_gen::restore_packed`). A message says why it could not.
pub type Restorer = fn(&Restore<'_>, &mut [u8], &mut [u8]) -> Result<(), String>;

static RESTORER: OnceLock<Restorer> = OnceLock::new();

/// Installs the [`Restorer`] every whole-table read of a file that leaves entries out uses,
/// once a process (later calls keep the first).
pub fn install_restorer(restorer: Restorer) {
    let _ = RESTORER.set(restorer);
}
/// The most digits an index may have.
pub const MAX_DIGITS: usize = 16;

const FIXED_HEADER: usize = 192;
const HASH_LEN: usize = 32;
const SIDE_RECORD: usize = 40;
const BLOCK_RECORD: usize = 8;

/// The file name of the packed table of `material` on a `files × ranks` board:
/// `KRvK.8x8.rtbz`.
pub fn packed_file_name(material: &str, files: u8, ranks: u8) -> String {
    crate::kind_file_name(crate::TableKind::Dtm, material, files, ranks, true)
}

/// One side to move of an opened packed table.
#[derive(Debug)]
struct PackedSide {
    /// The order of its entries.
    order: DigitOrder,
    /// How its entries are coded.
    blocks: SideBlocks,
}

/// How a side's entries are coded.
#[derive(Debug)]
enum SideBlocks {
    /// Version 1: zstd frames of a fixed number of entries.
    Zstd(ZstdSide),
    /// Version 2: a pair code.
    Pairs(Box<PairSide>),
    /// Version 2: not stored, rebuilt by a one-ply search ([`WHITE_LEFT_OUT`]).
    LeftOut,
}

/// A side of version 1.
#[derive(Debug)]
struct ZstdSide {
    dictionary: Option<DDictHandle>,
    /// Per block, the offset just past its end within the side's data.
    ends: Vec<u32>,
    /// Per block, the first four bytes of the blake3 hash of its compressed bytes.
    checksums: Vec<u32>,
    /// Where the side's data starts in the file.
    data_start: usize,
}

/// A decoder dictionary (zstd's `DDict`, which is `Send + Sync`).
struct DDictHandle(DDict<'static>);

impl std::fmt::Debug for DDictHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DDict")
    }
}

thread_local! {
    /// Each thread's zstd decoding context, made once, and its buffer for a block's bytes.
    static DECODER: RefCell<(DCtx<'static>, Vec<u8>)> = RefCell::new((DCtx::create(), Vec::new()));
}

/// A packed table opened for reading: header and directory checked, blocks decoded on demand.
#[derive(Debug)]
pub struct PackedTable {
    path: PathBuf,
    header: Header,
    stream_hash: [u8; 32],
    entries_per_block: u64,
    /// The file, its blocks read with `pread` (one read a block, no page mapped).
    file: File,
    /// Its length in bytes.
    length: u64,
    /// Its coder.
    coder: Coder,
    /// Byte 47's flags ([`LEAVES_OUT_ILLEGAL`]).
    flags: u8,
    sides: [PackedSide; 2],
}

fn read_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("eight bytes"))
}

fn side_name(white_to_move: bool) -> &'static str {
    if white_to_move {
        "White"
    } else {
        "Black"
    }
}

/// The first four bytes of the blake3 hash of `bytes`: a block's checksum.
fn short_hash(bytes: &[u8]) -> u32 {
    let hash = blake3::hash(bytes);
    u32::from_le_bytes(hash.as_bytes()[..4].try_into().expect("four bytes"))
}

/// Where the digits section starts: after the material's name, 8-aligned.
fn digits_at(name_length: usize) -> usize {
    (FIXED_HEADER + name_length).div_ceil(8) * 8
}

impl PackedTable {
    /// Opens `path`: magic, version, header checksum, directory checksum and the file's length
    /// are checked; the blocks are checked as they are decoded.
    pub fn open(path: &Path) -> Result<PackedTable, FormatError> {
        let file = File::open(path).map_err(io_error(path))?;
        PackedTable::from_file(&file, path)
    }

    /// [`PackedTable::open`] on a file already open, `path` naming it in messages.
    fn from_file(file: &File, path: &Path) -> Result<PackedTable, FormatError> {
        let (map, header, header_length) = crate::map_header(
            file,
            path,
            &PACKED_MAGIC,
            &[PACKED_VERSION, PAIRS_VERSION],
            FIXED_HEADER,
            45,
        )?;
        let bytes = &map[..];
        let length = bytes.len() as u64;
        let corrupt = |what: &str| FormatError::CorruptHeader {
            path: path.to_path_buf(),
            what: what.to_string(),
        };
        let coder = match (
            read_u32(bytes, 8),
            u16::from_le_bytes([bytes[38], bytes[39]]),
        ) {
            (PACKED_VERSION, CODER_ZSTD_BLOCKS) => Coder::ZstdBlocks,
            (PAIRS_VERSION, CODER_PAIRS) => Coder::Pairs,
            (version, coder) => {
                return Err(corrupt(&format!(
                    "coder {coder} in a file of version {version}"
                )))
            }
        };
        let flags = bytes[47];
        let known = LEAVES_OUT_ILLEGAL | EXITS_DECIDE | WHITE_LEFT_OUT | BLACK_LEFT_OUT;
        let exits_without_illegal = flags & EXITS_DECIDE != 0 && flags & LEAVES_OUT_ILLEGAL == 0;
        let left_out = flags & (WHITE_LEFT_OUT | BLACK_LEFT_OUT);
        let bad_left_out = left_out != 0
            && (left_out == WHITE_LEFT_OUT | BLACK_LEFT_OUT
                || flags & EXITS_DECIDE == 0
                || !header.kind.may_leave_side_out());
        if flags & !known != 0
            || (coder == Coder::ZstdBlocks && flags != 0)
            || exits_without_illegal
            || bad_left_out
        {
            return Err(corrupt(&format!("unknown flags {flags:#04x}")));
        }
        let entries_per_block = u64::from(read_u32(bytes, 40));
        if (entries_per_block == 0) != (coder == Coder::Pairs) {
            return Err(corrupt("blocks of no entries"));
        }
        // The index's digits and each side's order of them.
        let digits = usize::from(bytes[44]);
        let at = digits_at(header.material.len());
        if digits == 0 || digits > MAX_DIGITS || at + 10 * digits > header_length - HASH_LEN {
            return Err(corrupt("impossible number of index digits"));
        }
        let radices: Vec<u64> = (0..digits).map(|d| read_u64(bytes, at + 8 * d)).collect();
        let mut orders = Vec::with_capacity(2);
        for s in 0..2 {
            let order = &bytes[at + 8 * digits + s * digits..][..digits];
            let order = DigitOrder::new(&radices, order)
                .filter(|o| o.entries() == header.entries_per_side)
                .ok_or_else(|| corrupt("the index digits do not number the entries"))?;
            orders.push(order);
        }
        let blocks_per_side = header.entries_per_side.div_ceil(entries_per_block.max(1));
        let stream_hash: [u8; 32] = bytes[48..80].try_into().expect("32 bytes");
        // The side records, checked against each other and the file's length.
        let mut records = [(0u64, 0u64, 0u64, 0u64, 0u64, 0u64); 2];
        for (s, record) in records.iter_mut().enumerate() {
            let at = 80 + s * SIDE_RECORD;
            *record = (
                read_u64(bytes, at),
                u64::from(read_u32(bytes, at + 8)),
                u64::from(read_u32(bytes, at + 12)),
                read_u64(bytes, at + 16),
                read_u64(bytes, at + 24),
                read_u64(bytes, at + 32),
            );
        }
        let directory_end = records[0].4;
        let mut expected_end = directory_end;
        for &(dict_at, dict_len, blocks, table_at, data_at, data_len) in &records {
            let inside = |at: u64, len: u64| {
                at >= header_length as u64
                    && at.checked_add(len).is_some_and(|end| end <= directory_end)
            };
            let (blocks_expected, record_bytes) = match coder {
                Coder::ZstdBlocks => (blocks_per_side, BLOCK_RECORD as u64),
                Coder::Pairs => (blocks, 0),
            };
            if blocks != blocks_expected
                || !inside(dict_at, dict_len)
                || !inside(table_at, blocks * record_bytes)
                || data_at != expected_end
            {
                return Err(corrupt("inconsistent directory"));
            }
            expected_end = data_at
                .checked_add(data_len)
                .ok_or_else(|| corrupt("impossible size"))?;
        }
        if expected_end != length {
            return Err(FormatError::WrongLength {
                path: path.to_path_buf(),
                expected: expected_end,
                found: length,
            });
        }
        let directory = &bytes[header_length..directory_end as usize];
        if blake3::hash(directory).as_bytes()[..] != bytes[160..192] {
            return Err(corrupt(
                "directory checksum mismatch (dictionaries or block tables)",
            ));
        }
        let mut sides = Vec::with_capacity(2);
        for (s, (&(dict_at, dict_len, blocks, table_at, data_at, data_len), order)) in
            records.iter().zip(orders).enumerate()
        {
            let side_left_out = flags
                & match s {
                    0 => WHITE_LEFT_OUT,
                    _ => BLACK_LEFT_OUT,
                }
                != 0;
            if side_left_out {
                if dict_len != 0 || blocks != 0 || data_len != 0 {
                    return Err(corrupt("a side left out has a code"));
                }
                sides.push(PackedSide {
                    order,
                    blocks: SideBlocks::LeftOut,
                });
                continue;
            }
            if coder == Coder::Pairs {
                // The check table runs from its offset to the next side's directory, or to the
                // end of the directory.
                let checks_end = match s {
                    0 => records[1].0,
                    _ => directory_end,
                };
                if table_at > checks_end {
                    return Err(corrupt("inconsistent directory"));
                }
                let directory_bytes = &bytes[dict_at as usize..(dict_at + dict_len) as usize];
                let checks = &bytes[table_at as usize..checks_end as usize];
                let side = PairSide::parse(directory_bytes, checks, data_at, data_len)
                    .map_err(|what| corrupt(&format!("{} to move: {what}", side_name(s == 0))))?;
                if side.directory.entries() != header.entries_per_side
                    || side.directory.block_count() as u64 != blocks
                {
                    return Err(corrupt("a side's code holds another number of entries"));
                }
                sides.push(PackedSide {
                    order,
                    blocks: SideBlocks::Pairs(Box::new(side)),
                });
                continue;
            }
            let dictionary = (dict_len > 0).then(|| {
                DDictHandle(DDict::create(
                    &bytes[dict_at as usize..(dict_at + dict_len) as usize],
                ))
            });
            let table = &bytes[table_at as usize..][..blocks as usize * BLOCK_RECORD];
            let mut ends = Vec::with_capacity(blocks as usize);
            let mut checksums = Vec::with_capacity(blocks as usize);
            let mut previous = 0u32;
            for record in table.chunks_exact(BLOCK_RECORD) {
                let end = read_u32(record, 0);
                if end < previous {
                    return Err(corrupt("block offsets out of order"));
                }
                previous = end;
                ends.push(end);
                checksums.push(read_u32(record, 4));
            }
            if u64::from(previous) != data_len {
                return Err(corrupt("block offsets do not end with the side's data"));
            }
            sides.push(PackedSide {
                order,
                blocks: SideBlocks::Zstd(ZstdSide {
                    dictionary,
                    ends,
                    checksums,
                    data_start: data_at as usize,
                }),
            });
        }
        let sides: [PackedSide; 2] = sides.try_into().expect("two sides");
        Ok(PackedTable {
            path: path.to_path_buf(),
            header,
            stream_hash,
            entries_per_block,
            file: file.try_clone().map_err(io_error(path))?,
            length,
            coder,
            flags,
            sides,
        })
    }

    /// Its coder.
    pub fn coder(&self) -> Coder {
        self.coder
    }

    /// Whether it leaves out the entries of illegal positions: [`PackedTable::code`] then gives
    /// any value for an index that is no legal position, and reading the table whole needs a
    /// [`Restorer`].
    pub fn leaves_out_illegal(&self) -> bool {
        self.flags & LEAVES_OUT_ILLEGAL != 0
    }

    /// Whether an entry its best exit decides may hold any value no better
    /// ([`EXITS_DECIDE`]): a probe then takes the better of [`PackedTable::code`] and the best
    /// exit's ([`TableKind::with_exit`]).
    pub fn exits_decide(&self) -> bool {
        self.flags & EXITS_DECIDE != 0
    }

    /// The side to move the file leaves out, rebuilt by a one-ply search ([`WHITE_LEFT_OUT`]):
    /// `Some(true)` for White's. [`PackedTable::code`] refuses its entries.
    pub fn left_out(&self) -> Option<bool> {
        match (&self.sides[0].blocks, &self.sides[1].blocks) {
            (SideBlocks::LeftOut, _) => Some(true),
            (_, SideBlocks::LeftOut) => Some(false),
            _ => None,
        }
    }

    /// The open file.
    pub(crate) fn file(&self) -> &File {
        &self.file
    }

    /// A side of version 1, or `None` for a pair-coded one.
    fn zstd_side(&self, white_to_move: bool) -> Option<&ZstdSide> {
        match &self.sides[usize::from(!white_to_move)].blocks {
            SideBlocks::Zstd(side) => Some(side),
            SideBlocks::Pairs(_) | SideBlocks::LeftOut => None,
        }
    }

    fn zstd(&self, white_to_move: bool) -> &ZstdSide {
        self.zstd_side(white_to_move)
            .expect("block-level reads are of zstd-block files only")
    }

    /// The header (the raw table's).
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The blake3 hash of the value stream, which is the raw table's body hash.
    pub fn stream_hash(&self) -> [u8; 32] {
        self.stream_hash
    }

    /// The path it was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Entries per block of a zstd-block file (0 for a pair-coded one, whose blocks hold
    /// different numbers of entries).
    pub fn entries_per_block(&self) -> u64 {
        self.entries_per_block
    }

    /// Blocks per side to move, or of White's side for a pair-coded file (0 if it is left
    /// out).
    pub fn blocks_per_side(&self) -> u64 {
        match &self.sides[0].blocks {
            SideBlocks::Zstd(side) => side.ends.len() as u64,
            SideBlocks::Pairs(side) => side.directory.block_count() as u64,
            SideBlocks::LeftOut => 0,
        }
    }

    /// The order of a side's entries.
    pub fn order(&self, white_to_move: bool) -> &DigitOrder {
        &self.sides[usize::from(!white_to_move)].order
    }

    /// The number of entries of block `block` (the last block of a side may be shorter).
    pub fn block_entries(&self, block: u64) -> usize {
        let start = block * self.entries_per_block;
        (self.header.entries_per_side - start).min(self.entries_per_block) as usize
    }

    /// Where the entry of raw index `index` lies for a side: its block and its place there.
    pub fn locate(&self, white_to_move: bool, index: u64) -> (u64, usize) {
        let place = self.order(white_to_move).packed_index(index);
        (
            place / self.entries_per_block,
            (place % self.entries_per_block) as usize,
        )
    }

    /// Reads the compressed bytes of a block into `bytes`.
    fn read_block(
        &self,
        white_to_move: bool,
        block: u64,
        bytes: &mut Vec<u8>,
    ) -> Result<(), FormatError> {
        use std::os::unix::fs::FileExt;
        let (at, len) = self.block_extent(white_to_move, block);
        bytes.resize(len as usize, 0);
        self.file
            .read_exact_at(bytes, at)
            .map_err(io_error(&self.path))
    }

    /// The file offset and length of a side's data: its blocks, one after another.
    pub fn data_extent(&self, white_to_move: bool) -> (u64, u64) {
        match &self.sides[usize::from(!white_to_move)].blocks {
            SideBlocks::Zstd(side) => (
                side.data_start as u64,
                side.ends.last().map_or(0, |&e| u64::from(e)),
            ),
            SideBlocks::Pairs(side) => side.data_extent(),
            SideBlocks::LeftOut => (0, 0),
        }
    }

    /// The file offset and compressed length of a block of a zstd-block file.
    ///
    /// # Panics
    /// On a pair-coded file.
    pub fn block_extent(&self, white_to_move: bool, block: u64) -> (u64, u64) {
        let side = self.zstd(white_to_move);
        let b = block as usize;
        let start = if b == 0 { 0 } else { side.ends[b - 1] as u64 };
        (
            side.data_start as u64 + start,
            u64::from(side.ends[b]) - start,
        )
    }

    pub(crate) fn damaged(&self, white_to_move: bool, block: u64, what: String) -> FormatError {
        FormatError::CorruptBlock {
            path: self.path.clone(),
            material: self.header.material.clone(),
            side: side_name(white_to_move),
            block,
            what,
        }
    }

    /// Decodes block `block` of a side of a zstd-block file into `out`, which must hold
    /// exactly its entries ([`PackedTable::block_entries`] × value width bytes), in the side's
    /// packed order. The block's checksum is checked before it is decoded.
    ///
    /// # Panics
    /// On a pair-coded file.
    pub fn decode_block(
        &self,
        white_to_move: bool,
        block: u64,
        out: &mut [u8],
    ) -> Result<(), FormatError> {
        if block >= self.blocks_per_side() {
            return Err(FormatError::IndexOutOfRange {
                material: self.header.material.clone(),
                index: block * self.entries_per_block,
                entries: self.header.entries_per_side,
            });
        }
        let expected = self.block_entries(block) * usize::from(self.header.value_width);
        assert_eq!(out.len(), expected, "a buffer of the block's size");
        let side = self.zstd(white_to_move);
        let decoded = DECODER.with(|decoder| {
            let (decoder, bytes) = &mut *decoder.borrow_mut();
            self.read_block(white_to_move, block, bytes)?;
            if short_hash(bytes) != side.checksums[block as usize] {
                return Err(self.damaged(
                    white_to_move,
                    block,
                    "its bytes do not match their blake3 checksum".into(),
                ));
            }
            Ok(match &side.dictionary {
                Some(DDictHandle(dictionary)) => {
                    decoder.decompress_using_ddict(out, bytes, dictionary)
                }
                None => decoder.decompress(out, bytes),
            })
        })?;
        match decoded {
            Ok(n) if n == expected => Ok(()),
            Ok(n) => Err(self.damaged(
                white_to_move,
                block,
                format!("it decodes to {n} bytes, not {expected}"),
            )),
            Err(code) => Err(self.damaged(
                white_to_move,
                block,
                format!("zstd: {}", zstd_safe::get_error_name(code)),
            )),
        }
    }

    /// The entry code at raw index `index` for a side, decoding its block (into a buffer of
    /// this thread; a prober that reads many values of a zstd-block file keeps decoded blocks
    /// in a cache instead). Of a file that [leaves out](PackedTable::leaves_out_illegal)
    /// illegal positions, the code of an index that is no legal position is any code; of a
    /// side [left out](PackedTable::left_out), an error.
    pub fn code(&self, white_to_move: bool, index: u64) -> Result<u32, FormatError> {
        if index >= self.header.entries_per_side {
            return Err(FormatError::IndexOutOfRange {
                material: self.header.material.clone(),
                index,
                entries: self.header.entries_per_side,
            });
        }
        let side = &self.sides[usize::from(!white_to_move)];
        if let SideBlocks::LeftOut = side.blocks {
            return Err(FormatError::SideLeftOut {
                path: self.path.clone(),
                side: side_name(white_to_move),
            });
        }
        if let SideBlocks::Pairs(pairs) = &side.blocks {
            let place = side.order.packed_index(index);
            return pairs
                .value(&self.file, place)
                .map(u32::from)
                .map_err(|(block, what)| self.damaged(white_to_move, block, what));
        }
        thread_local! {
            static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
        }
        let (block, place) = self.locate(white_to_move, index);
        let width = usize::from(self.header.value_width);
        BUFFER.with(|buffer| {
            let mut buffer = buffer.borrow_mut();
            buffer.resize(self.block_entries(block) * width, 0);
            self.decode_block(white_to_move, block, &mut buffer)?;
            Ok(entry_code(&buffer[place * width..(place + 1) * width]))
        })
    }

    /// Decodes one side into `out` (its `E` entries in raw index order): blocks in parallel
    /// where the side is in raw order, else one after another, each entry put at its raw place.
    fn decode_side(&self, white_to_move: bool, out: &mut [u8]) -> Result<(), FormatError> {
        let width = usize::from(self.header.value_width);
        let blocks = &self.sides[usize::from(!white_to_move)].blocks;
        if let SideBlocks::LeftOut = blocks {
            out.fill(0);
            return Ok(());
        }
        if let SideBlocks::Pairs(pairs) = blocks {
            let values = pairs
                .decode(&self.file)
                .map_err(|(block, what)| self.damaged(white_to_move, block, what))?;
            let mut value = values.iter().map(|&v| v.to_le_bytes());
            let mut next = || value.next().expect("a value per place");
            let order = self.order(white_to_move);
            // A byte or two put in place, not a copy of a slice's length an entry.
            match width {
                1 => order.for_each_raw(0, values.len(), |raw| out[raw as usize] = next()[0]),
                _ => order.for_each_raw(0, values.len(), |raw| {
                    let at = raw as usize * 2;
                    let [low, high] = next();
                    out[at] = low;
                    out[at + 1] = high;
                }),
            }
            return Ok(());
        }
        let block_bytes = self.entries_per_block as usize * width;
        let order = self.order(white_to_move);
        if order.is_identity() {
            return out
                .par_chunks_mut(block_bytes)
                .enumerate()
                .try_for_each(|(block, out)| self.decode_block(white_to_move, block as u64, out));
        }
        let mut buffer = vec![0u8; block_bytes];
        for block in 0..self.blocks_per_side() {
            let entries = self.block_entries(block);
            let decoded = &mut buffer[..entries * width];
            self.decode_block(white_to_move, block, decoded)?;
            let mut entry = decoded.chunks_exact(width);
            order.for_each_raw(block * self.entries_per_block, entries, |raw| {
                let at = raw as usize * width;
                out[at..at + width].copy_from_slice(entry.next().expect("an entry per place"));
            });
        }
        Ok(())
    }

    /// Decodes both sides into a body of the raw layout (White's entries, then Black's), the
    /// two sides at once, as stored: of a file that leaves out illegal positions, their entries
    /// are the fill, and a side left out is all 0 (see [`PackedTable::to_table`]). The body's hash is not checked here
    /// ([`Table::open`] does).
    pub fn decode_body(&self) -> Result<Vec<u8>, FormatError> {
        let width = usize::from(self.header.value_width);
        let half = usize::try_from(self.header.entries_per_side)
            .ok()
            .and_then(|e| e.checked_mul(width))
            .ok_or_else(|| FormatError::CorruptHeader {
                path: self.path.clone(),
                what: "too large to decode in memory".into(),
            })?;
        let mut body = vec![0u8; 2 * half];
        let (white, black) = body.split_at_mut(half);
        let (w, b) = rayon::join(
            || self.decode_side(true, white),
            || self.decode_side(false, black),
        );
        w?;
        b?;
        Ok(body)
    }

    /// Decodes the whole table into a [`Table`] held in memory, the entries it leaves out put
    /// back by the installed [`Restorer`], checking the value stream against its hash.
    pub fn to_table(&self) -> Result<Table, FormatError> {
        let table = self.to_table_unchecked()?;
        table.check_body()?;
        Ok(table)
    }

    /// [`PackedTable::to_table`] without the check of the whole value stream's hash (each
    /// block's checksum is still checked as it is decoded).
    pub fn to_table_unchecked(&self) -> Result<Table, FormatError> {
        let restorer = match self.leaves_out_illegal() {
            true => Some(*RESTORER.get().ok_or_else(|| FormatError::NeedsRestorer {
                path: self.path.clone(),
            })?),
            false => None,
        };
        let mut body = self.decode_body()?;
        if let Some(restore) = restorer {
            let half = body.len() / 2;
            let (white, black) = body.split_at_mut(half);
            let h = &self.header;
            let width = usize::from(h.value_width);
            let request = Restore {
                path: &self.path,
                kind: h.kind,
                material: &h.material,
                files: h.files,
                ranks: h.ranks,
                width,
                exits_decide: self.exits_decide(),
                left_out: self.left_out(),
            };
            restore(&request, white, black).map_err(|what| FormatError::Undecided {
                path: self.path.clone(),
                what,
            })?;
        }
        Ok(Table::from_decoded(
            self.path.clone(),
            self.header.clone(),
            self.stream_hash,
            body,
            self.file_bytes(),
        ))
    }

    /// The packed file's size in bytes.
    pub fn file_bytes(&self) -> u64 {
        self.length
    }
}

/// An entry's code from its bytes (one, or two little-endian).
#[inline]
pub fn entry_code(bytes: &[u8]) -> u32 {
    match bytes {
        [b] => u32::from(*b),
        [lo, hi] => u32::from(u16::from_le_bytes([*lo, *hi])),
        _ => unreachable!("entries are one or two bytes"),
    }
}

#[cfg(test)]
mod tests;
