//! The coder of layout version 2: each side's entries, in its digit order, coded by pair
//! substitution and canonical Huffman codes ([`crate::PairCode`]) in blocks of one size, the
//! entries of illegal positions left out (filled to code best) when the file says so.
//!
//! Owns: [`PairSide`] (one side of an opened file: an entry read with one positioned read, or
//! the whole side), [`code_side`] and [`check_written`] (the writer's, in [`super::writer`]).
//! Must never: hand out a value from a block whose group fails its checksum, or decide which
//! entries are illegal positions (a reader that knows the rules puts them back, see
//! [`super::install_restorer`]).
//!
//! # A side's bytes
//!
//! Its directory is a [`PairDirectory`] as [`PairDirectory::to_bytes`] writes it, followed (from
//! the next multiple of 8) by its check table: the first four bytes of the blake3 hash of each
//! group of [`GROUP_BYTES`] of its data (the blocks of a group, the last group shorter). Its
//! data are its blocks, one after another. A group is checked the first time one of its blocks
//! is read and remembered as checked while the file is open.

use super::{short_hash, DigitOrder, PackedTable};
use crate::pair_code::{PairCode, PairCodeOptions, PairDirectory, MAX_STORED_VALUE};
use crate::{FormatError, Table, TableKind};
use rayon::prelude::*;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes of data a check covers (fewer in a side's last group).
pub const GROUP_BYTES: usize = 1024;

/// Pairs a round of pair substitution takes when packing: a quarter of the passes of 64 a
/// round for a few percent more bytes (docs/packing.md).
pub const PAIRS_PER_ROUND: usize = 256;

/// Block bytes at most: 64 for WDL50, as Syzygy's WDL files; 256 for distances, where
/// Syzygy's DTZ files take 1 KiB: a value is decoded from its block's start, and quarter-size
/// blocks decode one 3.5 times faster for 2% more bytes (docs/packing.md).
pub fn block_bytes_for(kind: TableKind) -> usize {
    match kind {
        TableKind::Wdl50 => 64,
        _ => 256,
    }
}

/// One side of an opened file of version 2.
#[derive(Debug)]
pub struct PairSide {
    /// The code, but its blocks.
    pub directory: PairDirectory,
    /// By group, the first four bytes of the blake3 hash of its data.
    checks: Vec<u32>,
    /// Blocks a group holds.
    group_blocks: usize,
    /// By group, a bit set once it has been checked.
    checked: Vec<AtomicU64>,
    /// Where the side's data starts in the file.
    data_start: u64,
}

impl PairSide {
    /// Reads a side from its directory's and check table's bytes (the check table padded with
    /// at most seven bytes), its data lying at `data_start` for `data_length` bytes; what does
    /// not fit is described in the error.
    pub fn parse(
        directory: &[u8],
        checks: &[u8],
        data_start: u64,
        data_length: u64,
    ) -> Result<PairSide, String> {
        let directory = PairDirectory::from_bytes(directory)?;
        let block_bytes = directory.block_bytes();
        let blocks = directory.block_count();
        if data_length != (blocks * block_bytes) as u64 {
            return Err(format!(
                "{data_length} bytes of data for {blocks} blocks of {block_bytes} bytes"
            ));
        }
        let group_blocks = (GROUP_BYTES / block_bytes).max(1);
        let groups = blocks.div_ceil(group_blocks);
        if checks.len() < 4 * groups || checks.len() - 4 * groups >= 8 {
            return Err(format!("{} check bytes for {groups} groups", checks.len()));
        }
        let checks = &checks[..4 * groups];
        Ok(PairSide {
            directory,
            checks: checks
                .chunks_exact(4)
                .map(|c| u32::from_le_bytes(c.try_into().expect("four bytes")))
                .collect(),
            group_blocks,
            checked: (0..groups.div_ceil(64))
                .map(|_| AtomicU64::new(0))
                .collect(),
            data_start,
        })
    }

    /// The file offset and length of its data.
    pub fn data_extent(&self) -> (u64, u64) {
        let blocks = self.directory.block_count() * self.directory.block_bytes();
        (self.data_start, blocks as u64)
    }

    /// The blocks of group `group`: the first and one past the last.
    fn group_range(&self, group: usize) -> (usize, usize) {
        let first = group * self.group_blocks;
        (
            first,
            (first + self.group_blocks).min(self.directory.block_count()),
        )
    }

    /// Checks group `group`'s bytes (`bytes`, the group's data) against its check.
    fn check(&self, group: usize, bytes: &[u8]) -> Result<(), String> {
        if short_hash(bytes) != self.checks[group] {
            let (first, end) = self.group_range(group);
            return Err(format!(
                "its bytes (blocks {first} to {}) do not match their blake3 checksum",
                end - 1
            ));
        }
        self.checked[group / 64].fetch_or(1 << (group % 64), Ordering::Relaxed);
        Ok(())
    }

    /// The value at packed place `place`, reading its block from `file` (its whole group the
    /// first time, to check it). An error names the block.
    pub fn value(&self, file: &File, place: u64) -> Result<u16, (u64, String)> {
        let (block, offset) = self
            .directory
            .locate(place)
            .ok_or((0, format!("place {place} beyond the side")))?;
        let size = self.directory.block_bytes();
        let group = block / self.group_blocks;
        let fail = |what: String| (block as u64, what);
        let mut buffer = [0u8; GROUP_BYTES];
        let mut heap;
        let seen = self.checked[group / 64].load(Ordering::Relaxed) & 1 << (group % 64) != 0;
        let (start, end) = if seen {
            (block, block + 1)
        } else {
            self.group_range(group)
        };
        let bytes_wanted = (end - start) * size;
        let bytes: &mut [u8] = if bytes_wanted <= GROUP_BYTES {
            &mut buffer[..bytes_wanted]
        } else {
            heap = vec![0u8; bytes_wanted];
            &mut heap
        };
        file.read_exact_at(bytes, self.data_start + (start * size) as u64)
            .map_err(|e| fail(e.to_string()))?;
        if !seen {
            self.check(group, bytes).map_err(fail)?;
        }
        let at = (block - start) * size;
        Ok(self.directory.value_in_block(&bytes[at..at + size], offset))
    }

    /// Every value of the side in packed order, its data read from `file` whole and each group
    /// checked; an error names the first damaged block.
    pub fn decode(&self, file: &File) -> Result<Vec<u16>, (u64, String)> {
        let size = self.directory.block_bytes();
        let blocks = self.directory.block_count();
        let mut data = vec![0u8; blocks * size];
        file.read_exact_at(&mut data, self.data_start)
            .map_err(|e| (0, e.to_string()))?;
        let groups = blocks.div_ceil(self.group_blocks);
        (0..groups).into_par_iter().try_for_each(|group| {
            let (first, end) = self.group_range(group);
            self.check(group, &data[first * size..end * size])
                .map_err(|what| (first as u64, what))
        })?;
        // Blocks in parallel, each from the entry it starts at.
        let chunk = 1024;
        let pieces: Vec<Vec<u16>> = (0..blocks.div_ceil(chunk))
            .into_par_iter()
            .map(|k| {
                let mut out = Vec::new();
                for block in k * chunk..((k + 1) * chunk).min(blocks) {
                    self.directory.decode_block(
                        block,
                        &data[block * size..(block + 1) * size],
                        &mut out,
                    );
                }
                out
            })
            .collect();
        let mut out = Vec::with_capacity(self.directory.entries() as usize);
        for piece in pieces {
            out.extend_from_slice(&piece);
        }
        Ok(out)
    }
}

/// A side coded for writing: its directory's bytes, its check table's and its data.
pub struct CodedSide {
    /// [`PairDirectory::to_bytes`].
    pub directory: Vec<u8>,
    /// The check table.
    pub checks: Vec<u8>,
    /// The blocks.
    pub data: Vec<u8>,
    /// How many blocks.
    pub blocks: usize,
    /// The entries as coded, in packed order (illegal and exit-decided ones filled): what the
    /// file must decode to.
    pub stream: Vec<u16>,
}

impl CodedSide {
    /// A side left out of the file ([`crate::packed::WHITE_LEFT_OUT`]): nothing stored.
    pub fn left_out() -> CodedSide {
        CodedSide {
            directory: Vec::new(),
            checks: Vec::new(),
            data: Vec::new(),
            blocks: 0,
            stream: Vec::new(),
        }
    }
}

/// Codes one side of `table` (White's when `white_to_move`) in `order`, each entry that may
/// hold another value (an illegal position's, code 0; with `exits`, one they decide) filled
/// with the entry before it in that order where that is allowed (an illegal entry before the
/// first legal one takes the first legal entry). `exits` gives, by raw index, the code that
/// decides the entry (0: none; [`crate::packed::ExitCodes`]); what is stored must give back every
/// legal entry through [`TableKind::with_exit`], and is checked to.
pub fn code_side(
    table: &Table,
    white_to_move: bool,
    order: &DigitOrder,
    exits: Option<&[u16]>,
) -> Result<CodedSide, String> {
    let header = table.header();
    let kind = header.kind;
    let width = usize::from(header.value_width);
    let body = table.body();
    let half = body.len() / 2;
    let raw = if white_to_move {
        &body[..half]
    } else {
        &body[half..]
    };
    let entries = header.entries_per_side as usize;
    if exits.is_some_and(|e| e.len() != entries) {
        return Err(format!(
            "exit codes for {} of {entries} entries",
            exits.map_or(0, <[u16]>::len)
        ));
    }
    let mut stream = Vec::with_capacity(entries);
    let mut exit_stream = Vec::with_capacity(exits.map_or(0, |_| entries));
    order.for_each_raw(0, entries, |index| {
        let at = index as usize * width;
        stream.push(super::entry_code(&raw[at..at + width]) as u16);
        if let Some(e) = exits {
            exit_stream.push(e[index as usize]);
        }
    });
    if let Some(&largest) = stream.iter().max() {
        if largest > MAX_STORED_VALUE {
            return Err(format!(
                "entry codes up to {largest}, above the {MAX_STORED_VALUE} this coder stores"
            ));
        }
    }
    let exit_of = |k: usize| exit_stream.get(k).map_or(0, |&e| u32::from(e));
    let mut previous = stream.iter().copied().find(|&c| c != 0).unwrap_or(0);
    for (k, code) in stream.iter_mut().enumerate() {
        let value = u32::from(*code);
        let exit = exit_of(k);
        if kind.may_store(value, exit, u32::from(previous)) {
            *code = previous;
        } else if value != 0 && exit != 0 && kind.with_exit(value, exit) != value {
            return Err(format!(
                "an exit gives code {exit} where the entry is {value}, a better value than the position's"
            ));
        }
        previous = *code;
    }
    let options = PairCodeOptions {
        block_bytes: block_bytes_for(header.kind),
        pairs_per_round: PAIRS_PER_ROUND,
        ..PairCodeOptions::default()
    };
    let code = PairCode::build(&stream, options);
    let size = code.block_bytes();
    let group = (GROUP_BYTES / size).max(1) * size;
    let checks = code
        .data()
        .chunks(group)
        .flat_map(|g| short_hash(g).to_le_bytes())
        .collect();
    Ok(CodedSide {
        directory: code.directory().to_bytes(),
        checks,
        data: code.data().to_vec(),
        blocks: code.block_count(),
        stream,
    })
}

/// Checks that a written file's side decodes to the stream it was coded from, one entry in a
/// few read by a probe's path too.
pub fn check_written(
    written: &PackedTable,
    white_to_move: bool,
    side: &PairSide,
    stream: &[u16],
) -> Result<(), FormatError> {
    let differs = || FormatError::CorruptBody {
        path: written.path().to_path_buf(),
    };
    let decoded = side
        .decode(written.file())
        .map_err(|(block, what)| written.damaged(white_to_move, block, what))?;
    if decoded != stream {
        return Err(differs());
    }
    let step = (stream.len() / 4096).max(1);
    for place in (0..stream.len()).step_by(step) {
        let value = side
            .value(written.file(), place as u64)
            .map_err(|(block, what)| written.damaged(white_to_move, block, what))?;
        if value != stream[place] {
            return Err(differs());
        }
    }
    Ok(())
}
