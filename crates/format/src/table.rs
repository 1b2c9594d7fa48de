//! The checked, memory-mapped reader of raw tables, which also holds a packed file decoded
//! whole: [`Table`], the entry codes of a side ([`Codes`]) and a file's header alone
//! ([`read_header`]).
//!
//! Owns: opening a table file, checking its magic, version, header checksum and body hash,
//! and reading its entries. Must never: write a file (that is `lib.rs`'s writer and
//! [`crate::files`]) or decode a packed file's blocks itself (that is [`crate::packed`]).
use crate::{
    drop_pages, hash_mapped, io_error, packed, short_file, Dtz, FormatError, Header, PackedTable,
    TableKind, Value, FIXED_HEADER, FORMAT_VERSION, HASH_LEN, MAGIC,
};
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// A table opened for reading, whole: a raw file memory-mapped, or a packed file decoded into
/// memory (the same body either way). Header checked, body checksum verified unless opened with
/// [`Table::open_body_unchecked`]. For reading a few values of a packed file without decoding
/// it whole, see [`PackedTable`].
#[derive(Debug)]
pub struct Table {
    path: PathBuf,
    header: Header,
    body_hash: [u8; 32],
    storage: Storage,
}

/// Where a [`Table`]'s body lies.
#[derive(Debug)]
enum Storage {
    /// A raw file, mapped; the body starts at this offset.
    Mapped(memmap2::Mmap, usize),
    /// A packed file's body, decoded; the file's size beside it.
    Decoded(Vec<u8>, u64),
}

pub(crate) fn read_u32(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().expect("four bytes"))
}

/// Maps a table file, raw or packed, and reads the header fields both layouts share: the magic
/// bytes, the layout's version, the header length (a multiple of 8, within the file), the
/// header's blake3 checksum in its last 32 bytes, the board, value width, symmetries, index
/// scheme, entries per side and longest depth at offsets 16–35, the material's name, its
/// length at offset 36 and its text at `name_at`, and the kind and the rule's plies at
/// `kind_at` and the byte after. The rest is the caller's to check.
pub(crate) fn map_header(
    file: &File,
    path: &Path,
    magic: &[u8; 8],
    versions: &[u32],
    name_at: usize,
    kind_at: usize,
) -> Result<(memmap2::Mmap, Header, usize), FormatError> {
    let length = file.metadata().map_err(io_error(path))?.len();
    let corrupt = |what: &str| FormatError::CorruptHeader {
        path: path.to_path_buf(),
        what: what.to_string(),
    };
    if length < (name_at + HASH_LEN) as u64 {
        return Err(short_file(file, path, length, name_at + HASH_LEN, magic));
    }
    // SAFETY: the file is mapped read-only. Tables are only ever replaced by renaming a new
    // file over the old one, which leaves this mapping's inode intact; a process truncating
    // the file in place would break the mapping, which is outside this program's contract.
    #[allow(unsafe_code)]
    let map = unsafe { memmap2::Mmap::map(file) }.map_err(io_error(path))?;
    let bytes = &map[..];
    if &bytes[..8] != magic {
        return Err(FormatError::BadMagic {
            path: path.to_path_buf(),
        });
    }
    let found = read_u32(bytes, 8);
    if !versions.contains(&found) {
        return Err(FormatError::UnsupportedVersion {
            path: path.to_path_buf(),
            found,
            reads: match versions {
                [1] => "version 1",
                _ => "versions 1 and 2",
            },
        });
    }
    let header_length = read_u32(bytes, 12) as usize;
    if header_length < name_at + HASH_LEN || header_length as u64 > length || header_length % 8 != 0
    {
        return Err(corrupt("impossible header length"));
    }
    let stored = &bytes[header_length - HASH_LEN..header_length];
    if blake3::hash(&bytes[..header_length - HASH_LEN]).as_bytes() != stored {
        return Err(corrupt("header checksum mismatch"));
    }
    let name_length = usize::from(u16::from_le_bytes([bytes[36], bytes[37]]));
    if name_at + name_length > header_length - HASH_LEN {
        return Err(corrupt("material name overruns the header"));
    }
    let material = std::str::from_utf8(&bytes[name_at..name_at + name_length])
        .map_err(|_| corrupt("material name is not text"))?
        .to_string();
    let header = Header {
        files: bytes[16],
        ranks: bytes[17],
        value_width: bytes[18],
        symmetries: bytes[19],
        index_scheme: read_u32(bytes, 20),
        entries_per_side: u64::from_le_bytes(bytes[24..32].try_into().expect("eight bytes")),
        max_plies: read_u32(bytes, 32),
        material,
        kind: TableKind::from_code(bytes[kind_at]).ok_or_else(|| corrupt("unknown table kind"))?,
        rule_plies: bytes[kind_at + 1],
    };
    if !matches!(header.value_width, 1 | 2) {
        return Err(corrupt("value width is neither 1 nor 2"));
    }
    if header.kind.under_rule() != (header.rule_plies > 0) {
        return Err(corrupt(
            "the fifty-move rule's plies do not fit the table's kind",
        ));
    }
    Ok((map, header, header_length))
}

/// The first eight bytes of a file, if it has that many.
pub(crate) fn first_bytes(path: &Path) -> Result<Option<[u8; 8]>, FormatError> {
    use std::io::Read;
    let mut file = File::open(path).map_err(io_error(path))?;
    let mut first = [0u8; 8];
    match file.read_exact(&mut first) {
        Ok(()) => Ok(Some(first)),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(io_error(path)(e)),
    }
}

impl Table {
    /// Opens `path`, raw or packed (told apart by their magic bytes), checking magic, version,
    /// header checksum, length and body checksum (a packed file is decoded whole, each block
    /// against its checksum, and the decoded body against the value stream's hash).
    pub fn open(path: &Path) -> Result<Table, FormatError> {
        let table = Table::open_body_unchecked(path)?;
        table.check_body()?;
        Ok(table)
    }

    /// Checks the body against the checksum in the header.
    pub fn check_body(&self) -> Result<(), FormatError> {
        let hash = match &self.storage {
            Storage::Mapped(map, start) => hash_mapped(map, *start),
            Storage::Decoded(body, _) => *blake3::Hasher::new()
                .update_rayon(body)
                .finalize()
                .as_bytes(),
        };
        if hash != self.body_hash() {
            return Err(FormatError::CorruptBody {
                path: self.path.clone(),
            });
        }
        Ok(())
    }

    /// A table decoded from a packed file.
    pub(crate) fn from_decoded(
        path: PathBuf,
        header: Header,
        body_hash: [u8; 32],
        body: Vec<u8>,
        file_bytes: u64,
    ) -> Table {
        Table {
            path,
            header,
            body_hash,
            storage: Storage::Decoded(body, file_bytes),
        }
    }

    /// Opens `path` as [`Table::open`] does but without reading the body through: magic,
    /// version, header checksum and length are checked, the body checksum is not (for a file
    /// whose body was checked before, with the same checksum in its header, or that will not
    /// be read). A packed file is still decoded whole, each block checked against its own
    /// checksum; to read only its header, use [`read_header`].
    pub fn open_body_unchecked(path: &Path) -> Result<Table, FormatError> {
        if first_bytes(path)? == Some(packed::PACKED_MAGIC) {
            return PackedTable::open(path)?.to_table_unchecked();
        }
        let file = File::open(path).map_err(io_error(path))?;
        let (map, header, header_length) =
            map_header(&file, path, &MAGIC, &[FORMAT_VERSION], FIXED_HEADER, 38)?;
        let bytes = &map[..];
        let length = bytes.len() as u64;
        let corrupt = |what: &str| FormatError::CorruptHeader {
            path: path.to_path_buf(),
            what: what.to_string(),
        };
        let expected = (header.entries_per_side)
            .checked_mul(2 * u64::from(header.value_width))
            .and_then(|body| body.checked_add(header_length as u64))
            .ok_or_else(|| corrupt("impossible size"))?;
        if expected != length {
            return Err(FormatError::WrongLength {
                path: path.to_path_buf(),
                expected,
                found: length,
            });
        }
        let body_hash = bytes[40..72].try_into().expect("32 bytes");
        Ok(Table {
            path: path.to_path_buf(),
            header,
            body_hash,
            storage: Storage::Mapped(map, header_length),
        })
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The blake3 hash of the body, as the header records it (checked by [`Table::open`]); for
    /// a packed file, the value stream's hash, which is the raw file's body hash.
    pub fn body_hash(&self) -> [u8; 32] {
        self.body_hash
    }

    /// Whether the table was read from a packed file.
    pub fn is_packed(&self) -> bool {
        matches!(self.storage, Storage::Decoded(..))
    }

    /// The size of the file it was read from, in bytes.
    pub fn file_bytes(&self) -> u64 {
        match &self.storage {
            Storage::Mapped(map, _) => map.len() as u64,
            Storage::Decoded(_, bytes) => *bytes,
        }
    }

    /// The path it was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Where the body starts in a raw file (the header's length), for reading entries with
    /// positioned reads rather than through the mapping; `None` for a decoded packed file.
    pub fn body_offset(&self) -> Option<u64> {
        match &self.storage {
            Storage::Mapped(_, start) => Some(*start as u64),
            Storage::Decoded(..) => None,
        }
    }

    /// The entry code at `index` for White to move (`white = true`) or Black to move.
    pub fn code(&self, white_to_move: bool, index: u64) -> Result<u32, FormatError> {
        let at = self.entry_at(white_to_move, index)? as usize;
        let width = usize::from(self.header.value_width);
        Ok(packed::entry_code(&self.body()[at..at + width]))
    }

    /// Where the entry at `index` for a side to move starts in the body, in bytes (an entry is
    /// `value_width` bytes); an index past the side's entries is an error.
    pub fn entry_at(&self, white_to_move: bool, index: u64) -> Result<u64, FormatError> {
        let entries = self.header.entries_per_side;
        if index >= entries {
            return Err(FormatError::IndexOutOfRange {
                material: self.header.material.clone(),
                index,
                entries,
            });
        }
        let slot = if white_to_move {
            index
        } else {
            entries + index
        };
        Ok(slot * u64::from(self.header.value_width))
    }

    /// The entry codes of one side to move, for reading many entries.
    pub fn codes(&self, white_to_move: bool) -> Codes<'_> {
        let width = usize::from(self.header.value_width);
        let half = self.header.entries_per_side as usize * width;
        let start = if white_to_move { 0 } else { half };
        Codes {
            bytes: &self.body()[start..start + half],
            wide: width == 2,
        }
    }

    /// The value at `index` for the given side to move, read as DTM (the caller checks the
    /// header's kind).
    pub fn value(&self, white_to_move: bool, index: u64) -> Result<Value, FormatError> {
        self.code(white_to_move, index).map(Value::from_code)
    }

    /// The DTZ50 entry at `index` for the given side to move, read as DTZ50 (the caller checks
    /// the header's kind).
    pub fn dtz(&self, white_to_move: bool, index: u64) -> Result<Dtz, FormatError> {
        self.code(white_to_move, index).map(Dtz::from_code)
    }

    /// The table must be of `kind`: an error naming the file otherwise.
    pub fn expect_kind(&self, kind: TableKind) -> Result<(), FormatError> {
        self.header.expect_kind(kind, &self.path)
    }

    /// The raw body: `2 × entries_per_side` entries of `value_width` bytes.
    pub fn body(&self) -> &[u8] {
        match &self.storage {
            Storage::Mapped(map, start) => &map[*start..],
            Storage::Decoded(body, _) => body,
        }
    }

    /// Hands the pages of the body's bytes `first..end` back to the kernel, for a reader done
    /// with them: a mapped file's bytes stay in the file and are read back if touched again.
    /// A decoded body is kept as it is.
    pub fn page_out(&self, first: usize, end: usize) {
        if let Storage::Mapped(map, start) = &self.storage {
            drop_pages(map, start + first, start + end);
        }
    }
}

/// The header and body hash of a table file, raw or packed, read without its body: magic,
/// version, header checksum and length are checked (and a packed file's directory).
pub fn read_header(path: &Path) -> Result<(Header, [u8; 32]), FormatError> {
    if first_bytes(path)? == Some(packed::PACKED_MAGIC) {
        let packed = PackedTable::open(path)?;
        return Ok((packed.header().clone(), packed.stream_hash()));
    }
    let table = Table::open_body_unchecked(path)?;
    Ok((table.header, table.body_hash))
}

/// The header and body hash of a table file, raw or packed, with every byte the file stores
/// checked: a raw file's body against its hash ([`Table::open`]), a packed file's blocks
/// decoded, each against its checksum, without putting back the entries it leaves out (that
/// rebuild reads other tables, and the value stream's hash is checked when the table is read
/// whole, [`Table::open`]).
pub fn check_stored(path: &Path) -> Result<(Header, [u8; 32]), FormatError> {
    if first_bytes(path)? == Some(packed::PACKED_MAGIC) {
        let packed = PackedTable::open(path)?;
        packed.decode_body()?;
        return Ok((packed.header().clone(), packed.stream_hash()));
    }
    let table = Table::open(path)?;
    Ok((table.header, table.body_hash))
}

/// The entry codes of one side to move of a [`Table`].
#[derive(Clone, Copy)]
pub struct Codes<'a> {
    bytes: &'a [u8],
    wide: bool,
}

impl Codes<'_> {
    /// The entry code at `index`, or `None` past the last entry.
    #[inline]
    pub fn get(&self, index: u64) -> Option<u32> {
        let index = usize::try_from(index).ok()?;
        if self.wide {
            let at = index.checked_mul(2)?;
            let pair = self.bytes.get(at..at + 2)?;
            Some(u32::from(u16::from_le_bytes([pair[0], pair[1]])))
        } else {
            self.bytes.get(index).map(|&b| u32::from(b))
        }
    }

    /// The codes of the `len` entries from `start` on, when entries are a byte each; `None` for
    /// two-byte entries or past the last entry.
    #[inline]
    pub fn bytes(&self, start: u64, len: usize) -> Option<&[u8]> {
        let start = usize::try_from(start).ok()?;
        if self.wide {
            return None;
        }
        self.bytes.get(start..start.checked_add(len)?)
    }

    /// The value at `index`, or `None` past the last entry.
    #[inline]
    pub fn value(&self, index: u64) -> Option<Value> {
        self.get(index).map(Value::from_code)
    }
}
