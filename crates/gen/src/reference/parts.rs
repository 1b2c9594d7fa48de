//! What one rank of a reference build holds — its part of the work entries ([`Held`]) and of
//! each frontier ([`Frontier`]) — and how the parts reach the file (`Builder::write_parts`).
//!
//! Owns: the translation between the index and a rank's part. Must never: decide a value (the
//! core in the module above does).

use super::final_code;
use crate::ranks::{Partition, Ranks};
use crate::{Builder, GenError};
use rayon::prelude::*;
use retro_engine::Material;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering};

/// The positions of one side decided at one depth, among the entries `part` a rank holds: a
/// bit an entry (an eighth of a byte, where a list of indices takes eight).
pub(super) struct Frontier {
    part: std::ops::Range<u64>,
    words: Vec<AtomicU64>,
}

impl Frontier {
    /// Entries in a block of [`Frontier::par_blocks`].
    const BLOCK: usize = 1024;

    pub(super) fn new(part: std::ops::Range<u64>) -> Frontier {
        let words = (part.end - part.start).div_ceil(64) as usize;
        let mut v = Vec::with_capacity(words);
        v.resize_with(words, || AtomicU64::new(0));
        Frontier { part, words: v }
    }

    /// Empties it.
    pub(super) fn clear(&self) {
        self.words
            .par_iter()
            .for_each(|w| w.store(0, Ordering::Relaxed));
    }

    /// Adds index `i`, which this rank holds.
    pub(super) fn insert(&self, i: u64) {
        let k = i - self.part.start;
        self.words[(k / 64) as usize].fetch_or(1 << (k % 64), Ordering::Relaxed);
    }

    /// Adds `indices`; how many there were.
    pub(super) fn insert_all(&self, indices: &[u64]) -> usize {
        for &i in indices {
            self.insert(i);
        }
        indices.len()
    }

    /// How many positions it holds.
    pub(super) fn len(&self) -> u64 {
        self.words
            .par_iter()
            .map(|w| u64::from(w.load(Ordering::Relaxed).count_ones()))
            .sum()
    }

    /// `visit`'s results on the indices it holds, a block of [`Frontier::BLOCK`] entries at a
    /// time, blocks in parallel.
    pub(super) fn par_blocks<R: Send>(&self, visit: impl Fn(&[u64]) -> R + Sync) -> Vec<R> {
        self.words
            .par_chunks(Self::BLOCK / 64)
            .enumerate()
            .map(|(block, words)| {
                let mut indices = Vec::new();
                for (w, word) in words.iter().enumerate() {
                    let mut bits = word.load(Ordering::Relaxed);
                    let base = self.part.start + ((block * Self::BLOCK + w * 64) as u64);
                    while bits != 0 {
                        indices.push(base + u64::from(bits.trailing_zeros()));
                        bits &= bits - 1;
                    }
                }
                visit(&indices)
            })
            .collect()
    }
}

/// One side's work entries that this rank holds: indices `first..first + states.len()`.
#[derive(Clone, Copy)]
pub(super) struct Held<'a> {
    pub(super) first: u64,
    pub(super) states: &'a [AtomicU16],
}

impl Held<'_> {
    /// Whether index `i` is held here.
    pub(super) fn holds(&self, i: u64) -> bool {
        i.wrapping_sub(self.first) < self.states.len() as u64
    }

    /// The entry of index `i`, which must be held here.
    pub(super) fn at(&self, i: u64) -> &AtomicU16 {
        &self.states[(i - self.first) as usize]
    }
}

impl Builder {
    /// Writes the table `header` describes from the work entries of every rank
    /// (`states`, this rank's part of `partition`): each rank encodes its part, and rank 0
    /// writes the parts at their offsets into the file, which appears whole or not at all.
    /// Every rank calls it; rank 0's error, if any.
    pub(super) fn write_parts(
        &self,
        material: Material,
        header: &retro_format::Header,
        states: &[Vec<AtomicU16>; 2],
        partition: &Partition,
        ranks: &dyn Ranks,
    ) -> Option<GenError> {
        let mut error: Option<GenError> = None;
        let writer = match ranks.rank() {
            0 => retro_format::TableWriter::create(&self.raw_path_of(material), header)
                .map_err(|e| error = Some(e.into()))
                .ok(),
            _ => None,
        };
        let width = usize::from(header.value_width);
        let entries = states[0].len();
        // Parts travel in pieces of at most `PIECE` entries, so that rank 0 never holds more
        // than a piece of each rank.
        const PIECE: usize = 1 << 24;
        let pieces = ranks.max(entries.div_ceil(PIECE) as u64) as usize;
        for (s, side) in states.iter().enumerate() {
            for piece in 0..pieces {
                let begin = (piece * PIECE).min(entries);
                let end = ((piece + 1) * PIECE).min(entries);
                let mut bytes = vec![0u8; (end - begin) * width];
                bytes
                    .par_chunks_mut(width << 12)
                    .enumerate()
                    .for_each(|(chunk, out)| {
                        let at = begin + (chunk << 12);
                        for (k, slot) in out.chunks_mut(width).enumerate() {
                            let value = final_code(side[at + k].load(Ordering::Relaxed));
                            slot.copy_from_slice(&value.to_le_bytes()[..width]);
                        }
                    });
                let gathered = ranks.gather(bytes);
                let Some(writer) = writer.as_ref().filter(|_| error.is_none()) else {
                    continue;
                };
                for (rank, bytes) in gathered.iter().enumerate() {
                    let entry = s as u64 * header.entries_per_side
                        + partition.part(rank).start
                        + (piece * PIECE) as u64;
                    if let Err(e) = writer.write_body_at(entry * width as u64, bytes) {
                        error = Some(e.into());
                    }
                }
            }
        }
        if let Some(writer) = writer.filter(|_| error.is_none()) {
            error = writer
                .finish()
                .map_err(GenError::from)
                .and_then(|()| self.remove_stale_packed(material))
                .err();
        }
        error
    }
}
