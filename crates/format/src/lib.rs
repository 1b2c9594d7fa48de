//! # retro-format — the endgame table file
//!
//! Owns: the on-disk layout of one table (one material, one board, both sides to move), its
//! value encoding and the atomic writer (this module), the checked, memory-mapped reader of raw
//! tables ([`Table`]); packed tables, the same values compressed in blocks ([`packed`]); the pair
//! substitution coder of a stream of values ([`pair_code`]); the entries a capture or a
//! promotion decides ([`exits`]); file names and atomic writes
//! ([`files`]); the lock of a directory being written ([`lock`]); oracle files ([`oracle`]).
//! Must never: depend on the engine or the generator — `retro-verify` reads tables through this
//! crate alone, and computes positions' offsets from the documented index scheme itself.
//!
//! # Layout (all integers little-endian)
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `RETROTB` followed by byte `0x1a` |
//! | 8 | 4 | format version (1) |
//! | 12 | 4 | header length `H` (the body starts at `H`; a multiple of 8) |
//! | 16 | 1 | files of the board |
//! | 17 | 1 | ranks of the board |
//! | 18 | 1 | value width in bytes: 1 or 2 |
//! | 19 | 1 | number of board symmetries removed by the index (8, 4 or 2) |
//! | 20 | 4 | index scheme (1: see below) |
//! | 24 | 8 | entries per side to move, `E` |
//! | 32 | 4 | longest distance stored, in plies (to mate, or to zeroing) |
//! | 36 | 2 | length `L` of the material name |
//! | 38 | 1 | the table's kind ([`TableKind`]): 0 DTM, 1 DTZ50, 2 WDL50 |
//! | 39 | 1 | the plies the fifty-move rule allows (100), for DTZ50 and WDL50; 0 for DTM |
//! | 40 | 32 | blake3 hash of the body |
//! | 72 | `L` | the material's name in ASCII, e.g. `KRvK` (White's men, `v`, Black's men) |
//! | … | | zero padding up to `H − 32` |
//! | `H − 32` | 32 | blake3 hash of bytes `0 .. H − 32` |
//! | `H` | `2 × E × width` | the body: the entries of White to move, then of Black to move |
//!
//! # Values
//!
//! A DTM table's entry (below); DTZ50 and WDL50 entries are in [`fifty`]. An entry is `0` for
//! an index that is not a legal position (a gap of the index, or an illegal
//! placement), `1` for a draw, and `2 + n` for a position decided in `n` plies: if `n` is odd
//! the side to move mates in `n` plies (mate in `(n+1)/2` moves); if `n` is even it is mated in
//! `n` plies (`0`: it is checkmated now). One byte holds depths up to 253 plies; tables with
//! longer mates use two bytes.
//!
//! # Index scheme 1
//!
//! The index of a position is that of `retro_engine::index`: `kings × inner + men` over the
//! canonical image of the position (see that module for the exact definition), with the king
//! pairs, symmetry group and combinatorial digits it describes.
//!
//! ```
//! use retro_format::{write_table, Header, Table, TableKind, Value, INDEX_SCHEME};
//! // A table of two entries a side, written atomically and read back, checksums checked.
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("KQvK.4x4.rtb");
//! let header = Header {
//!     files: 4,
//!     ranks: 4,
//!     material: "KQvK".into(),
//!     index_scheme: INDEX_SCHEME,
//!     symmetries: 8,
//!     entries_per_side: 2,
//!     value_width: 1,
//!     max_plies: 3,
//!     kind: TableKind::Dtm,
//!     rule_plies: 0,
//! };
//! let codes = [Value::Win(1), Value::Draw, Value::Loss(2), Value::Illegal];
//! let body: Vec<u8> = codes.iter().map(|v| v.code() as u8).collect();
//! write_table(&path, &header, &body)?;
//! let table = Table::open(&path)?;
//! assert_eq!(table.value(true, 0)?, Value::Win(1));
//! assert_eq!(table.value(false, 0)?, Value::Loss(2));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod exits;
pub mod fifty;
pub mod files;
pub mod lock;
pub mod oracle;
pub mod packed;
pub mod pair_code;
mod table;

pub use fifty::{Dtz, TableKind, Wdl};
pub use files::{
    file_name, is_packed_path, kind_file_name, kind_table_path, table_names, table_path,
    write_atomically, TableName, TempFile,
};
pub use lock::DirectoryLock;
pub use packed::{
    install_restorer, pack, pack_with_exits, packed_file_name, Coder, DigitOrder, PackOptions,
    PackReport, PackedTable, Restore, Restorer,
};
pub use pair_code::{PairCode, PairCodeOptions, PairGrammar};
pub use table::{check_stored, read_header, Codes, Table};
use table::{map_header, read_u32};

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// The first eight bytes of every table file.
pub const MAGIC: [u8; 8] = *b"RETROTB\x1a";
/// The version of the layout this crate reads and writes.
pub const FORMAT_VERSION: u32 = 1;
/// The index scheme of `retro_engine::index` (2: en-passant codes only where both sides have
/// pawns; scheme 1 files are refused, to be built again).
pub const INDEX_SCHEME: u32 = 2;

const FIXED_HEADER: usize = 72;
const HASH_LEN: usize = 32;

/// The value of one position for the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Value {
    /// Not a legal position.
    Illegal,
    /// Neither side can force mate.
    Draw,
    /// The side to move mates in this many plies (odd).
    Win(u32),
    /// The side to move is mated in this many plies (even; 0 when checkmated).
    Loss(u32),
}

impl Value {
    /// The entry code: 0 illegal, 1 draw, `2 + plies` decided.
    pub fn code(self) -> u32 {
        match self {
            Value::Illegal => 0,
            Value::Draw => 1,
            Value::Win(n) | Value::Loss(n) => 2 + n,
        }
    }

    /// The value of an entry code.
    pub fn from_code(code: u32) -> Value {
        match code {
            0 => Value::Illegal,
            1 => Value::Draw,
            c if (c - 2) % 2 == 1 => Value::Win(c - 2),
            c => Value::Loss(c - 2),
        }
    }

    /// The depth to mate in plies, if decided.
    pub fn plies(self) -> Option<u32> {
        match self {
            Value::Win(n) | Value::Loss(n) => Some(n),
            _ => None,
        }
    }
}

/// The header fields of a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// Files of the board.
    pub files: u8,
    /// Ranks of the board.
    pub ranks: u8,
    /// The material, e.g. `KRvK`.
    pub material: String,
    /// The index scheme ([`INDEX_SCHEME`]).
    pub index_scheme: u32,
    /// Board symmetries removed by the index.
    pub symmetries: u8,
    /// Entries per side to move.
    pub entries_per_side: u64,
    /// Bytes per entry.
    pub value_width: u8,
    /// The longest distance stored, in plies: to mate (DTM), to zeroing (DTZ50); 0 for WDL50.
    pub max_plies: u32,
    /// What the table holds.
    pub kind: TableKind,
    /// The plies the fifty-move rule allows between zeroing moves (100 in chess) for a kind
    /// under the rule; 0 for DTM.
    pub rule_plies: u8,
}

impl Header {
    /// The header must be of a table of `kind`: an error naming the file at `path` otherwise.
    pub fn expect_kind(&self, kind: TableKind, path: &Path) -> Result<(), FormatError> {
        match self.kind == kind {
            true => Ok(()),
            false => Err(FormatError::WrongKind {
                path: path.to_path_buf(),
                expected: kind,
                found: self.kind,
            }),
        }
    }
}

/// What can go wrong reading or writing a table.
#[derive(Debug, thiserror::Error)]
pub enum FormatError {
    /// Another run is writing in the directory (see [`DirectoryLock`]).
    #[error("{} is in use by {holder}; wait for it to end, or use another directory", dir.display())]
    Busy {
        /// The directory.
        dir: PathBuf,
        /// The run holding it, as it described itself.
        holder: String,
    },
    /// The file does not exist.
    #[error("no table file {}", path.display())]
    Missing {
        /// The path.
        path: PathBuf,
    },
    /// A packed file is being written, or read whole, and the tables that decide the entries
    /// it leaves out cannot be read: those its captures and promotions lead into, or a DTZ50
    /// file's WDL50 table ([`exits`]).
    #[error("{}: the entries a packed file leaves out cannot be decided (they come from the rules, the tables captures and promotions lead into, and a DTZ50 table's WDL50 table): {what}", path.display())]
    Undecided {
        /// The packed file.
        path: PathBuf,
        /// Why, naming the table.
        what: String,
    },
    /// The operating system refused.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// Not a table file at all.
    #[error("{} is not a retro table (wrong magic bytes)", path.display())]
    BadMagic {
        /// The path.
        path: PathBuf,
    },
    /// A version this build cannot read.
    #[error("{} has format version {found}; this build reads {reads}", path.display())]
    UnsupportedVersion {
        /// The path.
        path: PathBuf,
        /// The version found.
        found: u32,
        /// The versions of its layout this build reads.
        reads: &'static str,
    },
    /// A packed file leaves out the entries of illegal positions (and, where its flags say so,
    /// of positions an exit decides), and no reader that puts them back from the rules and the
    /// smaller tables is installed ([`install_restorer`]).
    #[error("{} leaves out entries that only a reader knowing the rules puts back (illegal positions, and those a capture or promotion decides): retro, retro-tablebase; this program has none", path.display())]
    NeedsRestorer {
        /// The path.
        path: PathBuf,
    },
    /// A packed DTZ50 file leaves this side to move out, to be rebuilt by a one-ply search
    /// ([`packed::WHITE_LEFT_OUT`]): its entries are read through a reader that searches
    /// (`retro_tablebase::Tablebase`) or whole.
    #[error("{} leaves {side}'s side to move out; its entries come from a one-ply search into the other side (retro probe), not from the file", path.display())]
    SideLeftOut {
        /// The path.
        path: PathBuf,
        /// The side: `White` or `Black`.
        side: &'static str,
    },
    /// Shorter (or longer) than its header says.
    #[error("{} is truncated or has trailing bytes: {found} bytes, the header implies {expected}", path.display())]
    WrongLength {
        /// The path.
        path: PathBuf,
        /// The expected length.
        expected: u64,
        /// The actual length.
        found: u64,
    },
    /// The header is inconsistent or its checksum fails.
    #[error("{}: corrupted header ({what})", path.display())]
    CorruptHeader {
        /// The path.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// The body does not match its checksum.
    #[error("{}: the body does not match its blake3 checksum (the file is corrupted)", path.display())]
    CorruptBody {
        /// The path.
        path: PathBuf,
    },
    /// A block of a packed table fails its checksum or does not decode to its entries.
    #[error("{}: block {block} of {material} ({side} to move) is damaged: {what}; the table is refused", path.display())]
    CorruptBlock {
        /// The path.
        path: PathBuf,
        /// The material.
        material: String,
        /// The side to move whose block it is.
        side: &'static str,
        /// The block's number within its side.
        block: u64,
        /// What is wrong.
        what: String,
    },
    /// A file of another kind than the one asked for (a DTZ50 table where DTM is read).
    #[error("{} holds a {found} table, not {expected}", path.display())]
    WrongKind {
        /// The path.
        path: PathBuf,
        /// The kind asked for.
        expected: TableKind,
        /// The kind the header names.
        found: TableKind,
    },
    /// An index beyond the table.
    #[error("index {index} is beyond the {entries} entries of {material}")]
    IndexOutOfRange {
        /// The material.
        material: String,
        /// The index asked for.
        index: u64,
        /// Entries per side.
        entries: u64,
    },
    /// A value does not fit the chosen width.
    #[error("depth {plies} plies does not fit a {width}-byte entry")]
    ValueTooWide {
        /// The depth.
        plies: u32,
        /// The width.
        width: u8,
    },
}

fn io_error(path: &Path) -> impl FnOnce(io::Error) -> FormatError + '_ {
    move |source| {
        if source.kind() == io::ErrorKind::NotFound {
            FormatError::Missing {
                path: path.to_path_buf(),
            }
        } else {
            FormatError::Io {
                path: path.to_path_buf(),
                source,
            }
        }
    }
}

/// The error for a file shorter than the smallest header: a foreign file if its first eight
/// bytes are not `magic`, else a truncated one.
fn short_file(
    file: &File,
    path: &Path,
    length: u64,
    minimum: usize,
    magic: &[u8; 8],
) -> FormatError {
    if length >= 8 {
        use std::os::unix::fs::FileExt;
        let mut first = [0u8; 8];
        match file.read_exact_at(&mut first, 0) {
            Err(e) => return io_error(path)(e),
            Ok(()) if &first != magic => {
                return FormatError::BadMagic {
                    path: path.to_path_buf(),
                }
            }
            Ok(()) => {}
        }
    }
    FormatError::WrongLength {
        path: path.to_path_buf(),
        expected: minimum as u64,
        found: length,
    }
}

/// The smallest value width holding every DTM code up to `2 + max_plies`.
pub fn width_for(max_plies: u32) -> u8 {
    width_for_code(2 + max_plies)
}

/// The smallest value width holding every code up to `max_code`.
pub fn width_for_code(max_code: u32) -> u8 {
    if max_code <= u32::from(u8::MAX) {
        1
    } else {
        2
    }
}

fn header_bytes(header: &Header, body_hash: &[u8; 32]) -> Vec<u8> {
    let name = header.material.as_bytes();
    let unpadded = FIXED_HEADER + name.len() + HASH_LEN;
    let length = unpadded.div_ceil(8) * 8;
    let mut bytes = Vec::with_capacity(length);
    bytes.extend_from_slice(&MAGIC);
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&(length as u32).to_le_bytes());
    bytes.push(header.files);
    bytes.push(header.ranks);
    bytes.push(header.value_width);
    bytes.push(header.symmetries);
    bytes.extend_from_slice(&header.index_scheme.to_le_bytes());
    bytes.extend_from_slice(&header.entries_per_side.to_le_bytes());
    bytes.extend_from_slice(&header.max_plies.to_le_bytes());
    bytes.extend_from_slice(&(name.len() as u16).to_le_bytes());
    bytes.extend_from_slice(&[header.kind.code(), header.rule_plies]);
    bytes.extend_from_slice(body_hash);
    bytes.extend_from_slice(name);
    bytes.resize(length - HASH_LEN, 0);
    let header_hash = blake3::hash(&bytes);
    bytes.extend_from_slice(header_hash.as_bytes());
    bytes
}

/// Encodes entry codes (`Value::code`) into a body of the header's width.
pub fn encode_body(
    header: &Header,
    codes: impl ExactSizeIterator<Item = u32>,
) -> Result<Vec<u8>, FormatError> {
    let width = header.value_width;
    let mut body = Vec::with_capacity(codes.len() * usize::from(width));
    for code in codes {
        match width {
            1 if code <= u32::from(u8::MAX) => body.push(code as u8),
            2 if code <= u32::from(u16::MAX) => {
                body.extend_from_slice(&(code as u16).to_le_bytes())
            }
            _ => {
                return Err(FormatError::ValueTooWide {
                    plies: code.saturating_sub(2),
                    width,
                })
            }
        }
    }
    Ok(body)
}

/// Writes a table atomically: to a temporary file beside `path`, flushed to disk, then renamed
/// over `path`. A failure leaves any previous file at `path` untouched.
pub fn write_table(path: &Path, header: &Header, body: &[u8]) -> Result<(), FormatError> {
    let expected = 2 * header.entries_per_side * u64::from(header.value_width);
    if body.len() as u64 != expected {
        return Err(FormatError::WrongLength {
            path: path.to_path_buf(),
            expected,
            found: body.len() as u64,
        });
    }
    let writer = TableWriter::create(path, header)?;
    writer.write_body_at(0, body)?;
    writer.finish()
}

/// A table file being written: the body goes straight into a temporary file beside the
/// destination, in pieces at any offsets and from any thread ([`TableWriter::write_body_at`]),
/// so it never has to be held in memory whole; [`TableWriter::finish`] then hashes it, writes
/// the header, flushes the file to disk and renames it over the destination. Dropped
/// unfinished, it removes the temporary file and leaves any previous file untouched.
pub struct TableWriter {
    path: PathBuf,
    temp: TempFile,
    header: Header,
    header_length: u64,
    body_length: u64,
}

impl TableWriter {
    /// Starts writing the table `header` describes, to end up at `path`.
    pub fn create(path: &Path, header: &Header) -> Result<TableWriter, FormatError> {
        let body_length = header
            .entries_per_side
            .checked_mul(2 * u64::from(header.value_width))
            .ok_or_else(|| FormatError::CorruptHeader {
                path: path.to_path_buf(),
                what: "impossible size".into(),
            })?;
        let header_length = header_bytes(header, &[0; HASH_LEN]).len() as u64;
        let temp = TempFile::beside(path)?;
        temp.file()
            .set_len(header_length + body_length)
            .map_err(io_error(temp.path()))?;
        Ok(TableWriter {
            path: path.to_path_buf(),
            temp,
            header: header.clone(),
            header_length,
            body_length,
        })
    }

    /// Writes `bytes` into the body at byte `offset` (entries of White to move first, then of
    /// Black to move, each `value_width` bytes).
    pub fn write_body_at(&self, offset: u64, bytes: &[u8]) -> Result<(), FormatError> {
        use std::os::unix::fs::FileExt;
        let end = offset.checked_add(bytes.len() as u64);
        if end.is_none_or(|end| end > self.body_length) {
            return Err(FormatError::WrongLength {
                path: self.path.clone(),
                expected: self.body_length,
                found: end.unwrap_or(u64::MAX),
            });
        }
        self.temp
            .file()
            .write_all_at(bytes, self.header_length + offset)
            .map_err(io_error(self.temp.path()))
    }

    /// Hashes the body, writes the header, flushes the file and renames it into place.
    pub fn finish(self) -> Result<(), FormatError> {
        use std::os::unix::fs::FileExt;
        let file = self.temp.file();
        // SAFETY: the temporary file is this writer's own; nothing writes it while it is mapped.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(file) }.map_err(io_error(self.temp.path()))?;
        let hash = hash_mapped(&map, self.header_length as usize);
        drop(map);
        let head = header_bytes(&self.header, &hash);
        file.write_all_at(&head, 0)
            .map_err(io_error(self.temp.path()))?;
        file.sync_all().map_err(io_error(self.temp.path()))?;
        self.temp.persist(&self.path)
    }
}

/// The BLAKE3 hash of the bytes of `map` from `start` on, a piece at a time, each piece's
/// pages handed back to the kernel after it, so that hashing a large file never holds it in
/// memory.
fn hash_mapped(map: &memmap2::Mmap, start: usize) -> [u8; HASH_LEN] {
    const PIECE: usize = 64 << 20;
    let mut hasher = blake3::Hasher::new();
    let mut at = start;
    while at < map.len() {
        let end = (at + PIECE).min(map.len());
        hasher.update_rayon(&map[at..end]);
        drop_pages(map, at, end);
        at = end;
    }
    *hasher.finalize().as_bytes()
}

/// Hands the pages of bytes `from..to` of `map` (widened to whole pages) back to the kernel.
fn drop_pages(map: &memmap2::Mmap, from: usize, to: usize) {
    const PAGE: usize = 4096;
    let (from, to) = (from / PAGE * PAGE, to.min(map.len()));
    if from >= to {
        return;
    }
    #[allow(unsafe_code)]
    // SAFETY: a read-only shared mapping of a file: dropped pages are read back from the file
    // when next touched, so the bytes every view sees stay the same.
    let _ =
        unsafe { map.unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, from, to - from) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// The header of a small test table of KRvK on 8×8.
    pub(crate) fn header(entries: u64, width: u8) -> Header {
        Header {
            files: 8,
            ranks: 8,
            material: "KRvK".into(),
            index_scheme: INDEX_SCHEME,
            symmetries: 8,
            entries_per_side: entries,
            value_width: width,
            max_plies: 31,
            kind: TableKind::Dtm,
            rule_plies: 0,
        }
    }

    fn sample(dir: &Path, width: u8) -> PathBuf {
        let h = header(5, width);
        let codes = [0, 1, 2, 33, 5, 1, 1, 0, 2 + 30, 3];
        let body = encode_body(&h, codes.iter().copied()).unwrap();
        let path = dir.join("KRvK.8x8.rtb");
        write_table(&path, &h, &body).unwrap();
        path
    }

    #[test]
    fn values_encode_and_decode() {
        for v in [
            Value::Illegal,
            Value::Draw,
            Value::Win(1),
            Value::Win(31),
            Value::Loss(0),
            Value::Loss(30),
        ] {
            assert_eq!(Value::from_code(v.code()), v);
        }
        assert_eq!(Value::from_code(33), Value::Win(31));
        assert_eq!(width_for(253), 1);
        assert_eq!(width_for(254), 2);
    }

    #[test]
    fn round_trip_in_both_widths() {
        let dir = tempfile::tempdir().unwrap();
        for width in [1, 2] {
            let path = sample(dir.path(), width);
            let t = Table::open(&path).unwrap();
            assert_eq!(t.header(), &header(5, width));
            assert_eq!(t.value(true, 3).unwrap(), Value::Win(31));
            assert_eq!(t.value(false, 3).unwrap(), Value::Loss(30));
            assert_eq!(t.value(true, 2).unwrap(), Value::Loss(0));
            for white in [true, false] {
                let codes = t.codes(white);
                for i in 0..5 {
                    assert_eq!(codes.value(i), Some(t.value(white, i).unwrap()));
                }
                assert_eq!(codes.get(5), None);
            }
            assert!(matches!(
                t.value(true, 5),
                Err(FormatError::IndexOutOfRange { .. })
            ));
        }
        // No temporary file is left behind.
        let names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, vec!["KRvK.8x8.rtb".to_string()]);
    }

    #[test]
    fn damaged_files_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = sample(dir.path(), 1);
        let good = fs::read(&path).unwrap();
        let check = |bytes: &[u8]| {
            fs::write(&path, bytes).unwrap();
            Table::open(&path).unwrap_err()
        };
        // One flipped bit in the body.
        let mut bad = good.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert!(matches!(check(&bad), FormatError::CorruptBody { .. }));
        // Truncated.
        assert!(matches!(
            check(&good[..good.len() - 1]),
            FormatError::WrongLength { .. }
        ));
        assert!(matches!(
            check(&good[..50]),
            FormatError::WrongLength { .. }
        ));
        // A header field changed.
        let mut bad = good.clone();
        bad[24] ^= 1;
        assert!(matches!(check(&bad), FormatError::CorruptHeader { .. }));
        // Another kind of file.
        assert!(matches!(check(b"GIF89a this is not a table at all, honestly, not at all!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"), FormatError::BadMagic { .. }));
        let mut bad = good.clone();
        bad[8] = 9;
        assert!(matches!(
            check(&bad),
            FormatError::UnsupportedVersion { found: 9, .. }
        ));
        assert!(matches!(
            Table::open(&dir.path().join("none.rtb")),
            Err(FormatError::Missing { .. })
        ));
        let message = check(&good[..good.len() - 1]).to_string();
        assert!(message.contains("truncated"), "{message}");
    }

    #[test]
    fn a_failed_write_keeps_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = sample(dir.path(), 1);
        let before = fs::read(&path).unwrap();
        let h = header(5, 1);
        assert!(write_table(&path, &h, &[1, 2, 3]).is_err());
        assert!(encode_body(&h, [300u32].into_iter()).is_err());
        assert_eq!(fs::read(&path).unwrap(), before);
        // A writer dropped unfinished, or asked to write past the body, changes nothing.
        let writer = TableWriter::create(&path, &h).unwrap();
        assert!(writer.write_body_at(8, &[1, 1, 1]).is_err());
        writer.write_body_at(0, &[1, 1]).unwrap();
        drop(writer);
        assert_eq!(fs::read(&path).unwrap(), before);
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary file left"
        );
    }

    #[test]
    fn a_body_written_in_pieces_equals_one_written_whole() {
        let dir = tempfile::tempdir().unwrap();
        let whole = fs::read(sample(dir.path(), 2)).unwrap();
        let h = header(5, 2);
        let body = &whole[whole.len() - 20..];
        let path = dir.path().join("pieces.rtb");
        let writer = TableWriter::create(&path, &h).unwrap();
        for (k, piece) in body.chunks(3).enumerate().rev() {
            writer.write_body_at(3 * k as u64, piece).unwrap();
        }
        writer.finish().unwrap();
        assert_eq!(fs::read(&path).unwrap(), whole);
        assert_eq!(
            Table::open(&path).unwrap().value(true, 3).unwrap(),
            Value::Win(31)
        );
    }
}
