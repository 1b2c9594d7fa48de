//! `retro export --syzygy DIR`: Syzygy WDL and DTZ files written from the proved WDL50 and
//! DTZ50 tables (`retro_syzygy::export`), each read back and compared with the proved tables
//! as `retro verify --syzygy` compares (every stored entry, the reader asked where an entry
//! differs and on a sample) before it is reported.
//!
//! Owns: choosing the materials, the progress and the report.
//! Must never: write a file the check did not read back equal to the proved table without
//! saying so and exiting 1.

use crate::support::{available_memory, human_bytes, kind_tables_in, tables_dir};
use crate::verify_syzygy::{check_bar, coverage};
use anyhow::{anyhow, bail, Context, Result};
use indicatif::ProgressBar;
use retro_engine::Material;
use retro_format::TableKind;
use retro_rules::Board;
use retro_syzygy::export::dtz::export_dtz;
use retro_syzygy::export::{export_wdl, memory_needed, Exported};
use retro_syzygy::{check, ProvedTables, SyzygyFiles};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Writes the Syzygy WDL and DTZ files (WDL alone with `wdl_only`) of `materials` (default:
/// every table of three men or more with a WDL50 table in the tables directory) into `out`,
/// and reads each back.
pub fn export_syzygy(
    out: &Path,
    materials: &[String],
    dir: Option<PathBuf>,
    wdl_only: bool,
    every_position: bool,
    quiet: bool,
) -> Result<ExitCode> {
    let coverage = coverage(every_position);
    let dir = tables_dir(dir);
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let mut list: Vec<Material> = if materials.is_empty() {
        kind_tables_in(&dir, Board::STANDARD, TableKind::Wdl50)?
            .into_iter()
            .filter(|m| m.len() >= 3)
            .collect()
    } else {
        materials
            .iter()
            .map(|name| {
                name.parse::<Material>()
                    .map(|m| m.canonical().0)
                    .map_err(|e| anyhow!("{name}: {e}"))
            })
            .collect::<Result<_>>()?
    };
    list.sort_by_key(|m| (m.len(), m.to_string()));
    list.dedup();
    if list.is_empty() {
        bail!(
            "no WDL50 table of three men or more in {} (build them with `retro gen --kinds \
             fifty`)",
            dir.display()
        );
    }
    // Refused before any work where an export would not fit in the memory available.
    if let Some(available) = available_memory() {
        for m in &list {
            let need = memory_needed(*m, !wdl_only);
            if need > available {
                bail!(
                    "exporting {m} needs about {} of memory, and the machine has {} available; \
                     nothing was written",
                    human_bytes(need),
                    human_bytes(available)
                );
            }
        }
    }
    let start = Instant::now();
    let (mut written, mut bytes) = (0usize, 0u64);
    type Export = fn(&Path, Material, &Path) -> Result<Exported, retro_syzygy::SyzygyError>;
    let mut kinds: Vec<(&str, Export)> = vec![("WDL", export_wdl)];
    if !wdl_only {
        kinds.push(("DTZ", export_dtz));
    }
    for m in &list {
        for (kind, export) in &kinds {
            let began = Instant::now();
            let spinner = if quiet {
                ProgressBar::hidden()
            } else {
                ProgressBar::new_spinner()
            };
            spinner.set_message(format!("{m}: choosing a {kind} layout and writing"));
            spinner.enable_steady_tick(std::time::Duration::from_millis(200));
            let file = export(&dir, *m, out).map_err(|e| anyhow!("{e}"));
            spinner.finish_and_clear();
            let file = file?;
            written += 1;
            bytes += file.bytes;
            println!(
                "{m:>10}  {} ({} bytes): {} indices × {} side{}, {} reached by no position \
                 ({:.1} s)",
                file.path.display(),
                file.bytes,
                file.indices,
                file.sides,
                if file.sides == 1 { "" } else { "s" },
                file.unreached,
                began.elapsed().as_secs_f64()
            );
        }
    }
    // Read back: every stored entry (or every legal position through shakmaty-syzygy) against
    // the proved tables; the smaller tables the captures reach are in `out` too.
    let files = SyzygyFiles::open(out)?;
    let mut failed = 0usize;
    let (mut positions, mut equal, mut short, mut through) = (0u64, 0u64, 0u64, 0u64);
    for m in &list {
        let bar = check_bar(format!("reading back {m}"), *m, quiet);
        let c = ProvedTables::open(&dir, *m)
            .and_then(|proved| check(&files, &proved, coverage, &|n| bar.inc(n)));
        bar.finish_and_clear();
        let c = c.map_err(|e| match e {
            retro_syzygy::SyzygyError::Missing { .. } => anyhow!(
                "{e}: the readers look a capture up in the file of the table it leads into; \
                 export those tables into the same directory too"
            ),
            e => anyhow!("{e}"),
        })?;
        positions += c.positions;
        through += c.through_reader;
        equal += c.dtz_equal;
        short += c.dtz_one_ply_short;
        if let Some(d) = &c.first {
            println!(
                "{m:>10}  FAIL: {} of {} positions read back differently; the first: {}: \
                 proved {}, the written file {}",
                c.differences, c.positions, d.fen, d.ours, d.theirs
            );
            failed += 1;
        } else if c.short_though_exact > 0 {
            println!(
                "{m:>10}  FAIL: {} positions read back one ply short where the file says it \
                 stores plies",
                c.short_though_exact
            );
            failed += 1;
        }
    }
    let dtz = if wdl_only {
        String::new()
    } else {
        format!(
            "; DTZ: {equal} equal, {short} one ply short (cursed wins and blessed losses, \
             which the format keeps in moves)"
        )
    };
    let how = match coverage {
        retro_syzygy::Coverage::EveryPosition => "both sides to move, through shakmaty-syzygy",
        retro_syzygy::Coverage::StoredEntries { .. } => "every stored entry",
    };
    println!(
        "{written} Syzygy files, {} ({bytes} bytes), in {}; read back: {positions} classes \
         compared ({how}; {through} positions through shakmaty-syzygy), {}{dtz} ({:.1} s)",
        human_bytes(bytes),
        out.display(),
        if failed == 0 {
            "every class as proved".to_string()
        } else {
            format!("{failed} materials differ")
        },
        start.elapsed().as_secs_f64()
    );
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
