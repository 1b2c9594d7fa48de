//! The rule's tables as files: which moves build a table, the smaller tables they read, the
//! DTZ50 and WDL50 files written from the work words.
//!
//! Owns: [`Builder::build_fifty`] — the fast core's moves (`crate::fast::fifty`) where they
//! apply, the engine's ([`super::plain`]) elsewhere — and the header both write.
//! Must never: decide a value (the passes in `super` do).

use super::final_value;
use crate::{fast, BuildReport, Builder, CoreKind, GenError, Metric, Observer};
use rayon::prelude::*;
use retro_engine::{Indexer, Material};
use retro_format::{Header, Table, TableKind, TableWriter};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU16, Ordering};
use std::time::Instant;

/// A file of [`Builder::write_fifty_files`]: its header, where it goes, and the code of each
/// work word in it.
pub(crate) struct FiftyFile<'c> {
    pub(crate) header: Header,
    pub(crate) path: PathBuf,
    pub(crate) code: &'c (dyn Fn(u16) -> u32 + Sync),
}

impl Builder {
    /// Builds the DTZ50 table of `material` and its WDL50 companion, from the tables its
    /// exits lead into: with the fast core's moves where they apply, else the engine's.
    pub(crate) fn build_fifty(
        &self,
        material: Material,
        observer: &dyn Observer,
    ) -> Result<BuildReport, GenError> {
        match self.build_fifty_fast(material, observer) {
            Err(fast::Declined::Failed(e)) => Err(e),
            Err(_) => self.build_fifty_plain(material, observer),
            Ok(report) => Ok(report),
        }
    }

    /// [`Builder::build_fifty`] with the fast core's moves, reading the WDL50 tables of the
    /// smaller materials.
    fn build_fifty_fast(
        &self,
        material: Material,
        observer: &dyn Observer,
    ) -> Result<BuildReport, fast::Declined> {
        let start = Instant::now();
        let geo = &self.geo;
        // Where the fast core's slots would take more memory than the run may use, the
        // engine's moves may still fit (a six-man table's layout holds 2.6 times its entries).
        if !crate::memory::fifty_takes_fast_moves(geo, material, self.core, self.memory_limit) {
            return Err(fast::Declined::Unsupported);
        }
        let indexer = self.canonical_indexer(material)?;
        let mut subs = Vec::new();
        for (smaller, sides) in fast::exit_targets(material)
            .into_iter()
            .zip(fast::exit_sides(material))
        {
            let table = Table::open(&self.kind_path_of(TableKind::Wdl50, smaller))
                .map_err(GenError::from)?;
            table
                .expect_kind(TableKind::Wdl50)
                .map_err(GenError::from)?;
            crate::builder::expect_material(&table, smaller)?;
            subs.push(fast::convert::load_subtable(
                geo, &table, smaller, sides, None, None,
            )?);
        }
        let set_up = start.elapsed().as_secs_f64();
        let built = fast::fifty::build(geo, material, &subs, self.fifty_rule, observer)?;
        drop(subs);
        let mut words: Vec<&[AtomicU16]> = built.words.iter().map(|w| &w[..]).collect();
        if let Some(ep) = &built.ep {
            words.extend(ep.words.iter().map(|w| &w[..]));
        }
        let (path, header) = self.write_fifty_files(material, &indexer, &words, |files| {
            let writers = files
                .iter()
                .map(|file| TableWriter::create(&file.path, &file.header))
                .collect::<Result<Vec<_>, _>>()?;
            let outs: Vec<_> = files
                .iter()
                .zip(&writers)
                .map(|(file, writer)| fast::fifty::WordsOut {
                    writer,
                    width: usize::from(file.header.value_width),
                    code: file.code,
                })
                .collect();
            fast::fifty::write_words(geo, &indexer, &built, &outs)?;
            for writer in writers {
                writer.finish()?;
            }
            Ok(())
        })?;
        Ok(BuildReport {
            material,
            metric: Metric::Fifty,
            path,
            reused: false,
            body_checked: true,
            entries_per_side: indexer.size(),
            max_plies: header.max_plies,
            seconds: start.elapsed().as_secs_f64(),
            init_seconds: set_up + built.init_seconds,
            retrograde_seconds: built.retrograde_seconds,
            depths: built.depths,
            core: Some(CoreKind::Fast),
            packed: None,
            traffic: None,
        })
    }

    /// The header of a DTZ50 table of `indexer`'s material from its work words `words`, in
    /// any number of stretches (its width and longest distance); its WDL50 companion takes the
    /// same with a byte an entry.
    pub(crate) fn fifty_header(&self, indexer: &Indexer, words: &[&[AtomicU16]]) -> Header {
        let (max_plies, max_code) = words
            .par_iter()
            .flat_map(|stretch| stretch.par_iter())
            .map(|word| {
                let value = final_value(word.load(Ordering::Relaxed));
                (value.plies().unwrap_or(0), value.code())
            })
            .reduce(|| (0, 0), |a, b| (a.0.max(b.0), a.1.max(b.1)));
        let geo = &self.geo;
        Header {
            files: geo.files(),
            ranks: geo.ranks(),
            material: indexer.material().to_string(),
            index_scheme: retro_format::INDEX_SCHEME,
            symmetries: indexer.symmetry_count() as u8,
            entries_per_side: indexer.size(),
            value_width: retro_format::width_for_code(max_code),
            max_plies,
            kind: TableKind::Dtz50,
            rule_plies: self.fifty_rule as u8,
        }
    }

    /// Writes `material`'s DTZ50 file and its WDL50 companion from the work words `words` (in
    /// any number of stretches), both with one call of `write`, and removes packed files of an
    /// older build; returns the DTZ50 file's path and header.
    pub(crate) fn write_fifty_files(
        &self,
        material: Material,
        indexer: &Indexer,
        words: &[&[AtomicU16]],
        write: impl Fn(&[FiftyFile<'_>]) -> Result<(), GenError>,
    ) -> Result<(PathBuf, Header), GenError> {
        let header = self.fifty_header(indexer, words);
        let path = self.file_of(TableKind::Dtz50, material, false);
        let rule = self.fifty_rule;
        let wdl_header = Header {
            kind: TableKind::Wdl50,
            value_width: 1,
            max_plies: 0,
            ..header.clone()
        };
        let wdl_path = self.file_of(TableKind::Wdl50, material, false);
        write(&[
            FiftyFile {
                header: header.clone(),
                path: path.clone(),
                code: &|word| final_value(word).code(),
            },
            FiftyFile {
                header: wdl_header,
                path: wdl_path,
                code: &|word| final_value(word).class(rule).code(),
            },
        ])?;
        for kind in [TableKind::Dtz50, TableKind::Wdl50] {
            self.remove_stale_packed_of(kind, material)?;
        }
        Ok((path, header))
    }
}
