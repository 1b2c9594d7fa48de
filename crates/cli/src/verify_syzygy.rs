//! `retro verify --syzygy DIR`: Syzygy files from any source checked, position by position,
//! against the DTZ50 and WDL50 tables `retro verify` certified (`retro_syzygy`).

use crate::support::tables_dir;
use anyhow::{anyhow, bail, Result};
use indicatif::{ProgressBar, ProgressStyle};
use retro_engine::Material;
use retro_format::TableKind;
use retro_rules::Board;
use retro_syzygy::{check, Coverage, ProvedTables, SyzygyFiles, READER_SAMPLE};
use retro_verify::men::Men;
use retro_verify::{certificate, Checker};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// A bar over the entries of both sides of `material`'s table (8×8), as a check of its Syzygy
/// file walks them, its prefix `prefix`; hidden when `quiet`.
pub(crate) fn check_bar(prefix: String, material: Material, quiet: bool) -> ProgressBar {
    let entries =
        retro_engine::Indexer::new(&retro_engine::Geometry::new(Board::STANDARD), material)
            .map_or(0, |i| 2 * i.size());
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(entries)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix:>22} {bar:30} {human_pos:>12}/{human_len} entries  {elapsed} (~{eta} left)",
        )
        .expect("a valid template"),
    );
    bar.set_prefix(prefix);
    bar
}

/// How much of each material a check compares: every stored entry, or every position through
/// the reader where `every_position`.
pub(crate) fn coverage(every_position: bool) -> Coverage {
    if every_position {
        Coverage::EveryPosition
    } else {
        Coverage::StoredEntries {
            sample: READER_SAMPLE,
        }
    }
}

/// What a check compared, in words: positions, DTZ and how many went through the reader.
pub(crate) fn compared(c: &retro_syzygy::FileCheck, coverage: Coverage) -> String {
    let how = match coverage {
        Coverage::EveryPosition => "every legal position, both sides to move, through \
                                    shakmaty-syzygy"
            .to_string(),
        Coverage::StoredEntries { .. } => format!(
            "every stored entry, {} positions also through shakmaty-syzygy",
            c.through_reader
        ),
    };
    if c.wdl_only {
        format!(
            "{} classes compared ({how}), all equal; no DTZ file, so no DTZ compared",
            c.positions
        )
    } else {
        format!(
            "{} classes compared ({how}), all equal; DTZ of {} decisive positions: equal at \
             {}, one ply short in the file at {} ({} of them read as exact), as python-chess \
             documents its rounding",
            c.positions, c.dtz_compared, c.dtz_equal, c.dtz_one_ply_short, c.short_though_exact
        )
    }
}

/// Checks the Syzygy files of `syzygy` for `materials` (default: every material it has a WDL
/// file of) against the certified fifty-move tables of `dir`, every stored entry (every
/// position through the reader where `every_position`); exit 1 on any difference, a damaged
/// or missing file, or a table not certified.
pub fn verify_syzygy(
    syzygy: &Path,
    materials: &[String],
    dir: Option<PathBuf>,
    every_position: bool,
    quiet: bool,
) -> Result<ExitCode> {
    let coverage = coverage(every_position);
    let dir = tables_dir(dir);
    let board = Board::STANDARD;
    let files = SyzygyFiles::open(syzygy)?;
    let names: Vec<String> = if materials.is_empty() {
        files.materials()
    } else {
        materials.to_vec()
    };
    if names.is_empty() {
        bail!("no Syzygy WDL file (.rtbw) in {}", syzygy.display());
    }
    let checker = Checker::new(board, &dir);
    let start = Instant::now();
    let (mut passed, mut failed, mut positions) = (0usize, 0usize, 0u64);
    for name in &names {
        let material: Material = name.parse().map_err(|e| anyhow!("{name}: {e}"))?;
        let (canonical, _) = material.canonical();
        let men = retro_verify::stored(Men::parse(&canonical.to_string())?);
        let began = Instant::now();
        // The proved table read through once: its hash for the certificate, its values for
        // the comparison.
        let proved = match ProvedTables::open(&dir, canonical) {
            Ok(p) => p,
            Err(e) => {
                println!("{name:>14}  NOT CHECKED: {e}");
                failed += 1;
                continue;
            }
        };
        let body = proved.body_hash();
        if let Some(why) =
            certificate::established_as_read(&checker, &men, TableKind::Dtz50, &body)?
        {
            println!("{name:>14}  NOT CHECKED: {why}");
            failed += 1;
            continue;
        }
        let progress = check_bar(format!("syzygy {name}"), canonical, quiet);
        let result = check(&files, &proved, coverage, &|n| progress.inc(n));
        progress.finish_and_clear();
        match result {
            Err(e) => {
                println!("{name:>14}  FAIL: {e}");
                failed += 1;
            }
            Ok(c) => {
                positions += c.positions;
                let figures = format!(
                    "{}; {} ({:.1} s)",
                    compared(&c, coverage),
                    checksums(c.checksums),
                    began.elapsed().as_secs_f64()
                );
                match &c.first {
                    None => {
                        println!("{name:>14}  pass: {figures}");
                        passed += 1;
                    }
                    Some(d) => {
                        println!(
                            "{name:>14}  FAIL: {} of {} positions differ; the first: {}: proved \
                             {}; the Syzygy file {}",
                            c.differences, c.positions, d.fen, d.ours, d.theirs
                        );
                        failed += 1;
                    }
                }
            }
        }
    }
    println!(
        "{passed} of {} materials' Syzygy files agree with the proved tables of {}: {positions} \
         positions in {:.1} s",
        names.len(),
        dir.display(),
        start.elapsed().as_secs_f64()
    );
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// How many of a material's files carried the generator's checksum, all found right.
fn checksums(n: u32) -> String {
    match n {
        0 => "no checksum in its files".into(),
        1 => "its one checksum right".into(),
        n => format!("{n} checksums right"),
    }
}
