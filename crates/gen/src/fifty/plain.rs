//! The engine's moves for the rule's passes: over the stored index, with the engine's
//! generic positions, on any board and any material (pawns and en passant included).
//!
//! Owns: the build with these moves (`Builder::build_fifty_plain`, which
//! [`Builder::build_fifty`] takes where the fast core's do not apply: boards of more than 64
//! squares, `--core reference`, or a layout beyond the memory allowed) and the levels of its
//! entries.
//! Must never: decide a value itself (the passes in `super` do).
//!
//! A table with pawns is solved a *level* at a time: a position's level is how far its pawns
//! have come (each White pawn's rank, each Black pawn's ranks from the top, added up), and a
//! pawn move that captures nothing stays in the table and raises the level; the levels are
//! solved from the highest down. A move that stays is weighted by the size of its child's
//! stabilizer (as in [`crate::reference`]), which is how often the child's predecessors give
//! the position back.

use super::{
    final_value, first_word, new_words, solve_parts, Exits, NoSlotSets, Part, RuleMoves, SideWords,
    Stays, NO_POSITION,
};
use crate::subtables::Subtables;
use crate::{BuildReport, Builder, CoreKind, GenError, Metric, Observer};
use rayon::prelude::*;
use retro_engine::{Geometry, Indexer, Material, Retractions, TablePosition, TABLE_MEN};
use retro_format::{Dtz, Header, TableKind, TableWriter, Wdl};
use retro_rules::{Piece, Side};
use std::sync::atomic::Ordering;
use std::time::Instant;

/// A level no position has (an index that is not a legal position).
const NO_LEVEL: u8 = u8::MAX;

/// How far `p`'s pawns have advanced: every pawn move that stays in the table raises it.
fn level(geo: &Geometry, p: &TablePosition) -> u8 {
    let ranks = geo.ranks();
    p.men()
        .iter()
        .filter(|m| m.piece == Piece::Pawn)
        .map(|m| match m.side {
            Side::White => geo.rank(m.sq),
            Side::Black => ranks - 1 - geo.rank(m.sq),
        })
        .sum()
}

/// The engine's moves over the stored index of one material.
struct Work<'a> {
    geo: &'a Geometry,
    indexer: &'a Indexer,
    subtables: &'a Subtables,
    rule: u32,
    /// By side, each entry's level ([`NO_LEVEL`]: no position).
    levels: &'a [Vec<u8>; 2],
}

impl Work<'_> {
    /// The class of the position a zeroing move reaches: from a smaller table after a capture
    /// or a promotion, from this table's final word at a higher level after a push.
    fn reached_class(
        &self,
        states: &[SideWords; 2],
        child: &TablePosition,
        leaves: bool,
    ) -> Result<Wdl, GenError> {
        if leaves {
            let code = self.subtables.code(self.geo, child)?;
            return Ok(Dtz::from_code(code).class(self.rule));
        }
        let j = self.index_of(child)?;
        let s = usize::from(child.side_to_move() == Side::Black);
        match states[s][j as usize].load(Ordering::Relaxed) {
            NO_POSITION => Err(self.inconsistent(child)),
            state => Ok(final_value(state).class(self.rule)),
        }
    }

    fn index_of(&self, p: &TablePosition) -> Result<u64, GenError> {
        self.indexer
            .index(self.geo, p)
            .ok_or_else(|| self.inconsistent(p))
    }

    fn inconsistent(&self, p: &TablePosition) -> GenError {
        GenError::Inconsistent {
            material: self.indexer.material().to_string(),
            fen: p.to_natural(self.geo).fen(),
        }
    }

    /// The first word of entry `i`, side `s` to move ([`RuleMoves::first_words`]).
    fn first_word(
        &self,
        states: &[SideWords; 2],
        s: usize,
        i: u64,
    ) -> Result<(u16, Option<u32>), GenError> {
        if self.levels[s][i as usize] == NO_LEVEL {
            return Ok((NO_POSITION, None));
        }
        let geo = self.geo;
        let p = self
            .indexer
            .position::<TABLE_MEN>(geo, i, Side::ALL[s])
            .ok_or_else(|| self.inconsistent_index(i))?;
        let mut exits = Exits::default();
        let mut error = None;
        let stays = self.stays_and_zeroing(&p, |child, leaves| {
            match self.reached_class(states, child, leaves) {
                Ok(class) => exits.add(class, self.rule),
                Err(e) => error = Some(e),
            }
        });
        if let Some(e) = error {
            return Err(e);
        }
        let in_check = p.in_check(geo, p.side_to_move());
        first_word(
            Stays::Counted::<fn() -> bool>(stays),
            exits,
            in_check,
            &self.indexer.material(),
        )
    }

    /// The weighted count of `p`'s legal moves that stay; `zeroing` is called with the child of
    /// each of its zeroing moves, and whether that leaves the table (a capture or a promotion).
    fn stays_and_zeroing(
        &self,
        p: &TablePosition,
        mut zeroing: impl FnMut(&TablePosition, bool),
    ) -> u32 {
        let mut stays = 0u32;
        p.for_each_legal_move(self.geo, None, |mv| {
            let leaves = mv.leaves_material();
            let child = p.play(self.geo, &mv);
            match !leaves && mv.piece != Piece::Pawn {
                true => stays += self.weight(&child),
                false => zeroing(&child, leaves),
            }
        });
        stays
    }

    fn inconsistent_index(&self, i: u64) -> GenError {
        GenError::Inconsistent {
            material: self.indexer.material().to_string(),
            fen: format!("index {i}"),
        }
    }

    /// The weight of a position in the counters (a move's child, a retraction's parent): its
    /// stabilizer's size, 1 when only the identity fixes its kings.
    fn weight(&self, child: &TablePosition) -> u32 {
        let kings = (child.king(Side::White), child.king(Side::Black));
        match kings {
            (Some(w), Some(b)) if self.indexer.kings_fixed_by_identity_only(w, b) => 1,
            _ => self.indexer.stabilizer_size(self.geo, child),
        }
    }
}

impl RuleMoves for Work<'_> {
    fn parts(&self) -> Vec<Part> {
        // A bit a level, set where some entry has it.
        let present = self
            .levels
            .par_iter()
            .flat_map(|side| side.par_chunks(1 << 16))
            .map(|chunk| {
                let mut seen = [0u64; 4];
                for &l in chunk.iter().filter(|&&l| l != NO_LEVEL) {
                    seen[usize::from(l / 64)] |= 1 << (l % 64);
                }
                seen
            })
            .reduce(|| [0; 4], |a, b| std::array::from_fn(|k| a[k] | b[k]));
        // The most advanced pawns first.
        let levels = (0..=u8::MAX)
            .rev()
            .filter(|&l| present[usize::from(l / 64)] >> (l % 64) & 1 == 1);
        Part::levels(levels, self.indexer.size())
    }

    fn first_words(
        &self,
        states: &[SideWords; 2],
        entries: std::ops::Range<u64>,
        level: Option<u8>,
        mut visit: impl FnMut(usize, u64, Result<(u16, Option<u32>), GenError>),
    ) {
        for s in 0..2 {
            for i in entries
                .clone()
                .filter(|&i| level.is_none_or(|level| self.levels[s][i as usize] == level))
            {
                visit(s, i, self.first_word(states, s, i));
            }
        }
    }

    type CountCache = ();

    type Sets<'m>
        = NoSlotSets
    where
        Self: 'm;

    fn slot_sets(&self, _: &[SideWords; 2], _: &Part) -> Option<NoSlotSets> {
        None
    }

    fn count_stays(&self, s: usize, i: u64, _: &mut ()) -> u32 {
        match self
            .indexer
            .position::<TABLE_MEN>(self.geo, i, Side::ALL[s])
        {
            Some(p) => self.stays_and_zeroing(&p, |_, _| {}),
            None => u32::MAX,
        }
    }

    fn for_each_parent(
        &self,
        s: usize,
        i: u64,
        weighted: bool,
        mut visit: impl FnMut(u64, u16),
    ) -> Result<(), GenError> {
        let p = self
            .indexer
            .position::<TABLE_MEN>(self.geo, i, Side::ALL[s])
            .ok_or_else(|| self.inconsistent_index(i))?;
        let mut error = None;
        p.for_each_predecessor(self.geo, Retractions::PIECES, |q| match self.index_of(&q) {
            Ok(j) => visit(j, if weighted { self.weight(&q) as u16 } else { 0 }),
            Err(e) => error = Some(e),
        });
        error.map_or(Ok(()), Err)
    }
}

impl Builder {
    /// [`Builder::build_fifty`] with the engine's moves.
    pub(super) fn build_fifty_plain(
        &self,
        material: Material,
        observer: &dyn Observer,
    ) -> Result<BuildReport, GenError> {
        let start = Instant::now();
        let geo = &self.geo;
        let indexer = self.canonical_indexer(material)?;
        let size = indexer.size();
        let entries = usize::try_from(size).map_err(|_| GenError::Unsupported {
            material: material.to_string(),
            reason: "too many positions for this machine".into(),
        })?;
        let subtables = Subtables::open(self, material, TableKind::Dtz50)?;
        let states = [new_words(entries), new_words(entries)];
        let name = material.to_string();

        // Each position's level; a table without pawns is one level.
        const CHUNK: u64 = 1 << 14;
        let levels: [Vec<u8>; 2] = Side::ALL.map(|stm| {
            let mut levels = vec![NO_LEVEL; entries];
            levels
                .par_chunks_mut(CHUNK as usize)
                .enumerate()
                .for_each(|(chunk, out)| {
                    let begin = chunk as u64 * CHUNK;
                    let end = (begin + CHUNK).min(size);
                    indexer.for_each_position::<TABLE_MEN>(geo, begin..end, stm, |i, p| {
                        if let Some(p) = p.filter(|p| p.is_legal(geo)) {
                            out[(i - begin) as usize] = level(geo, &p);
                        }
                    });
                });
            levels
        });
        let work = Work {
            geo,
            indexer: &indexer,
            subtables: &subtables,
            rule: self.fifty_rule,
            levels: &levels,
        };
        let init_seconds = start.elapsed().as_secs_f64();
        let level = solve_parts(&work, &states, self.fifty_rule, &name, observer)?;
        let (init_seconds, retrograde_seconds, depths) = (
            init_seconds + level.init_seconds,
            level.retrograde_seconds,
            level.depths,
        );
        drop(levels);
        let (path, header) =
            self.write_fifty_files(material, &indexer, &[&states[0], &states[1]], |files| {
                files
                    .iter()
                    .try_for_each(|file| write_body(&file.path, &file.header, &states, file.code))
            })?;
        Ok(BuildReport {
            material,
            metric: Metric::Fifty,
            path,
            reused: false,
            body_checked: true,
            entries_per_side: size,
            max_plies: header.max_plies,
            seconds: start.elapsed().as_secs_f64(),
            init_seconds,
            retrograde_seconds,
            depths,
            core: Some(CoreKind::Reference),
            packed: None,
            traffic: None,
        })
    }
}

/// Writes the table `header` describes at `path`, each entry's code `code` of its work word,
/// White's entries first, a piece at a time.
fn write_body(
    path: &std::path::Path,
    header: &Header,
    states: &[SideWords; 2],
    code: &(dyn Fn(u16) -> u32 + Sync),
) -> Result<(), GenError> {
    const PIECE: usize = 1 << 20;
    let writer = TableWriter::create(path, header)?;
    let width = usize::from(header.value_width);
    let size = header.entries_per_side as usize;
    for (s, side) in states.iter().enumerate() {
        side.par_chunks(PIECE)
            .enumerate()
            .try_for_each(|(k, piece)| {
                let mut bytes = Vec::with_capacity(piece.len() * width);
                for state in piece {
                    let c = code(state.load(Ordering::Relaxed));
                    match width {
                        1 => bytes.push(c as u8),
                        _ => bytes.extend_from_slice(&(c as u16).to_le_bytes()),
                    }
                }
                writer.write_body_at(((s * size + k * PIECE) * width) as u64, &bytes)
            })?;
    }
    writer.finish()?;
    Ok(())
}
