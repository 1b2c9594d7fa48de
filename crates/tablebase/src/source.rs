//! Opened tables and the block cache: where a probe's entry comes from.
//!
//! Owns: [`Source`] (a raw table, its entries read with positioned reads, or a packed one read
//! a block at a time) and [`BlockCache`] (decoded blocks of packed tables, bounded in bytes,
//! shared by every thread).
//! Must never: interpret a code (that is [`retro_format::Value`]), decode a block itself
//! (that is [`retro_format::PackedTable`], which checks each block before decoding it), or
//! probe through a memory mapping: a file truncated under a mapping kills the process that
//! touches the lost pages (SIGBUS), where a positioned read returns an error.

use retro_format::{FormatError, PackedTable, Table, TableKind};
use std::sync::Arc;

/// A decoded block: its entries' bytes.
type Block = Arc<[u8]>;

/// Which block: the table's number in its [`crate::Tablebase`], the side to move (White 0),
/// the block's number.
type BlockKey = (u32, u8, u64);

#[derive(Clone)]
struct BlockBytes;

impl quick_cache::Weighter<BlockKey, Block> for BlockBytes {
    fn weight(&self, _key: &BlockKey, block: &Block) -> u64 {
        block.len() as u64 + 64
    }
}

/// Decoded blocks of packed tables, at most a given number of bytes of them; safe to share
/// between threads. With a size of 0 nothing is kept and every probe decodes its block.
pub struct BlockCache {
    blocks: Option<quick_cache::sync::Cache<BlockKey, Block, BlockBytes>>,
    bytes: u64,
}

impl BlockCache {
    /// A cache holding at most `bytes` bytes of decoded blocks.
    pub fn new(bytes: u64) -> BlockCache {
        // Blocks are a few KiB: the estimate only sizes the cache's own table.
        let estimated = usize::try_from(bytes / 4096).unwrap_or(usize::MAX).max(16);
        BlockCache {
            blocks: (bytes > 0)
                .then(|| quick_cache::sync::Cache::with_weighter(estimated, bytes, BlockBytes)),
            bytes,
        }
    }

    /// Its size in bytes.
    pub fn capacity_bytes(&self) -> u64 {
        self.bytes
    }

    /// The bytes of decoded blocks it holds now.
    pub fn held_bytes(&self) -> u64 {
        self.blocks.as_ref().map_or(0, |c| c.weight())
    }
}

/// An opened table file.
pub enum Source {
    /// A raw table, its body checked at opening; entries are read from `file` at their offset.
    Raw {
        /// The table (header, and the mapping read whole by [`Source::whole`]).
        table: Table,
        /// The file, for positioned reads of one entry.
        file: std::fs::File,
        /// Where the body starts in the file.
        body_offset: u64,
    },
    /// A packed table: header and directory checked at opening, each block when decoded.
    Packed(Box<PackedTable>),
    /// A packed file under a raw file's name: decoded whole at opening.
    Decoded(Table),
}

impl Source {
    /// Opens `path`, a table of `kind`: a packed file (`.rtbz`) for reading a block at a time,
    /// a raw one whole. A file of another kind is refused, naming it.
    pub fn open(path: &std::path::Path, kind: TableKind) -> Result<Source, FormatError> {
        if retro_format::is_packed_path(path) {
            let packed = PackedTable::open(path)?;
            packed.header().expect_kind(kind, path)?;
            return Ok(Source::Packed(Box::new(packed)));
        }
        let table = Table::open(path)?;
        table.expect_kind(kind)?;
        let file = std::fs::File::open(path).map_err(|source| FormatError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        match table.body_offset() {
            Some(body_offset) => Ok(Source::Raw {
                table,
                file,
                body_offset,
            }),
            // A packed file under a raw name: read it as decoded, whole.
            None => Ok(Source::Decoded(table)),
        }
    }

    /// The header.
    pub fn header(&self) -> &retro_format::Header {
        match self {
            Source::Raw { table, .. } | Source::Decoded(table) => table.header(),
            Source::Packed(p) => p.header(),
        }
    }

    /// Whether an entry its best exit decides may hold any value no better (a packed file's
    /// [`PackedTable::exits_decide`]): the prober then takes the better of the two.
    pub fn exits_decide(&self) -> bool {
        matches!(self, Source::Packed(p) if p.exits_decide())
    }

    /// The side to move a packed DTZ50 file leaves to a one-ply search
    /// ([`PackedTable::left_out`]): `Some(true)` for White's.
    pub fn left_out(&self) -> Option<bool> {
        match self {
            Source::Packed(p) => p.left_out(),
            _ => None,
        }
    }

    /// The entry code of `index` for a side to move, through `cache` for a packed table (the
    /// table's number there is `id`).
    pub fn code(
        &self,
        white_to_move: bool,
        index: u64,
        cache: &BlockCache,
        id: u32,
    ) -> Result<u32, FormatError> {
        let packed = match self {
            Source::Raw {
                table,
                file,
                body_offset,
            } => return raw_code(table, file, *body_offset, white_to_move, index),
            Source::Decoded(table) => return table.code(white_to_move, index),
            Source::Packed(p) => p,
        };
        // A pair-coded file decodes one entry from its block: nothing to cache.
        let Some(blocks) = cache
            .blocks
            .as_ref()
            .filter(|_| packed.coder() == retro_format::Coder::ZstdBlocks)
        else {
            return packed.code(white_to_move, index);
        };
        let entries = packed.header().entries_per_side;
        if index >= entries {
            return Err(FormatError::IndexOutOfRange {
                material: packed.header().material.clone(),
                index,
                entries,
            });
        }
        let (block, place) = packed.locate(white_to_move, index);
        let key = (id, u8::from(!white_to_move), block);
        let bytes = blocks.get_or_insert_with(&key, || {
            let width = usize::from(packed.header().value_width);
            let mut out = vec![0u8; packed.block_entries(block) * width];
            packed.decode_block(white_to_move, block, &mut out)?;
            Ok::<Block, FormatError>(out.into())
        })?;
        let width = usize::from(packed.header().value_width);
        Ok(retro_format::packed::entry_code(
            &bytes[place * width..(place + 1) * width],
        ))
    }

    /// The whole table, for reading every entry (statistics): a raw table as it is, a packed
    /// one decoded into memory and checked against its value stream's hash.
    pub fn whole(&self) -> Result<Whole<'_>, FormatError> {
        match self {
            Source::Raw { table, .. } | Source::Decoded(table) => Ok(Whole::Mapped(table)),
            Source::Packed(p) => p.to_table().map(Whole::Decoded),
        }
    }
}

/// The entry code of `index` for a side to move in a raw table, read from `file` at its
/// offset; a file cut short since it was opened is an error naming it and both lengths.
fn raw_code(
    table: &Table,
    file: &std::fs::File,
    body_offset: u64,
    white_to_move: bool,
    index: u64,
) -> Result<u32, FormatError> {
    use std::os::unix::fs::FileExt;
    let at = body_offset + table.entry_at(white_to_move, index)?;
    let width = usize::from(table.header().value_width);
    let mut bytes = [0u8; 2];
    match file.read_exact_at(&mut bytes[..width], at) {
        Ok(()) => Ok(retro_format::packed::entry_code(&bytes[..width])),
        Err(source) => {
            let now = file.metadata().map(|m| m.len()).unwrap_or(0);
            let path = table.path().to_path_buf();
            match now < table.file_bytes() {
                true => Err(FormatError::WrongLength {
                    path,
                    expected: table.file_bytes(),
                    found: now,
                }),
                false => Err(FormatError::Io { path, source }),
            }
        }
    }
}

/// A whole table: the raw one mapped, or a packed one decoded for the caller.
pub enum Whole<'a> {
    /// The opened raw table.
    Mapped(&'a Table),
    /// A packed table, decoded.
    Decoded(Table),
}

impl std::ops::Deref for Whole<'_> {
    type Target = Table;

    fn deref(&self) -> &Table {
        match self {
            Whole::Mapped(t) => t,
            Whole::Decoded(t) => t,
        }
    }
}
