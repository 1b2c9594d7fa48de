//! `retro bench --suite wdl`: a WDL50 probe against Syzygy's, side by side in one process.
//!
//! The materials that have a WDL50 table in `--tables DIR` (raw or packed) and a WDL file in
//! `--syzygy-tables DIR` (the Syzygy generator's `.rtbw`), the largest of them, give random
//! legal positions (a table drawn uniformly, then a legal position and side to move). Every
//! position is first probed by both and the classes compared: a difference fails the suite,
//! named by its FEN. Then each position is probed once by each reader, timed alone on one
//! thread, the two readers taking turns in which goes first; both directories' files are in
//! the page cache (read twice beforehand), each reader freshly opened with its tables loaded
//! by probes of other positions. The reader on the Syzygy side is shakmaty-syzygy's
//! `probe_wdl_after_zeroing` (Fathom's `tb_probe_wdl`: the class at a clock of 0, from the WDL
//! files alone); ours is [`Tablebase::wdl50`].
//!
//! Owns: the suite. Must never: build, pack or write a table (the directories are only read).

use crate::bench_pack::{percentiles, random_positions, warm_files};
use anyhow::{bail, Context, Result};
use retro_engine::{Geometry, Material, Position, TablePosition};
use retro_format::TableKind;
use retro_rules::Board;
use retro_syzygy::{ReaderPosition, SyzygyFiles};
use retro_tablebase::Tablebase;
use serde_json::json;
use std::path::Path;
use std::time::Instant;

/// Positions probed before the clock starts, to open every table both readers reach.
const OPENING_PROBES: usize = 2000;

/// The wdl suite: `probes` random legal positions of the largest materials that both
/// `tables` (WDL50) and `syzygy` (`.rtbw`) hold.
pub fn wdl_suite(
    tables: &Path,
    syzygy: &Path,
    probes: usize,
    as_json: bool,
    machine: &str,
) -> Result<serde_json::Value> {
    let board = Board::STANDARD;
    let geo = Geometry::new(board);
    let ours = crate::support::kind_tables_in(tables, board, TableKind::Wdl50)?;
    let files = SyzygyFiles::open(syzygy)?;
    let mut both: Vec<Material> = files
        .materials()
        .iter()
        .filter_map(|n| Material::parse(n).ok())
        .filter(|m| ours.contains(m))
        .collect();
    if both.is_empty() {
        bail!(
            "no material has both a WDL50 table in {} and a Syzygy WDL file (*.rtbw) in {}",
            tables.display(),
            syzygy.display()
        );
    }
    let largest = both.iter().map(Material::len).max().unwrap_or(0);
    both.retain(|m| m.len() == largest);
    let names: Vec<String> = both.iter().map(|m| m.to_string()).collect();
    let kinds: Vec<&str> = both
        .iter()
        .map(|m| {
            let path = retro_format::kind_table_path(
                tables,
                TableKind::Wdl50,
                &m.to_string(),
                board.files(),
                board.ranks(),
            );
            match retro_format::is_packed_path(&path) {
                true => "packed",
                false => "raw",
            }
        })
        .collect();
    let drawn = random_positions(&geo, &both, probes + OPENING_PROBES)?;
    let paired = |positions: &[Position]| -> Result<Vec<(Position, ReaderPosition)>> {
        positions
            .iter()
            .map(|p| {
                let table: TablePosition = p.resized().context("a table position fits")?;
                let reader = ReaderPosition::of(&geo, &table).with_context(|| {
                    format!("shakmaty does not take {}", p.to_natural(&geo).fen())
                })?;
                Ok((*p, reader))
            })
            .collect()
    };
    let (opening, timed) = drawn.split_at(OPENING_PROBES);
    let (opening, timed) = (paired(opening)?, paired(timed)?);
    for _ in 0..2 {
        warm_files(tables, &["rtb", "rtbz"])?;
        warm_files(syzygy, &["rtbw"])?;
    }
    // Both readers must give every position the same class; those probes also prove that
    // every table either reaches is there.
    let checking = Tablebase::new(board, tables);
    for (p, reader) in opening.iter().chain(&timed) {
        let (a, b) = (checking.wdl50(p)?, files.wdl(reader)?);
        if a != b {
            bail!(
                "{}: WDL50 says {a:?}, the Syzygy file {b:?}",
                p.to_natural(&geo).fen()
            );
        }
    }
    drop(checking);
    // Fresh readers, their tables opened by the opening positions, then the clock.
    let tb = Tablebase::new(board, tables);
    let files = SyzygyFiles::open(syzygy)?;
    for (p, reader) in &opening {
        tb.wdl50(p)?;
        files.wdl(reader)?;
    }
    let (mut ours_s, mut theirs_s) = (
        Vec::with_capacity(timed.len()),
        Vec::with_capacity(timed.len()),
    );
    for (i, (p, reader)) in timed.iter().enumerate() {
        let mut time_ours = || -> Result<()> {
            let start = Instant::now();
            tb.wdl50(p)?;
            ours_s.push(start.elapsed().as_secs_f64());
            Ok(())
        };
        let mut time_theirs = || -> Result<()> {
            let start = Instant::now();
            files.wdl(reader)?;
            theirs_s.push(start.elapsed().as_secs_f64());
            Ok(())
        };
        if i % 2 == 0 {
            time_ours()?;
            time_theirs()?;
        } else {
            time_theirs()?;
            time_ours()?;
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64 * 1e6;
    let (ours_mean, theirs_mean) = (mean(&ours_s), mean(&theirs_s));
    let (ours_median, ours_p99) = percentiles(ours_s);
    let (theirs_median, theirs_p99) = percentiles(theirs_s);
    let ratio = ours_median / theirs_median;
    let report = json!({
        "suite": "wdl",
        "machine": machine,
        "tables": tables.display().to_string(),
        "syzygy_tables": syzygy.display().to_string(),
        "materials": names.iter().zip(&kinds).map(|(n, k)| json!({"material": n, "wdl50": k})).collect::<Vec<_>>(),
        "positions": timed.len(),
        "classes_equal": opening.len() + timed.len(),
        "wdl50_median_us": ours_median, "wdl50_p99_us": ours_p99, "wdl50_mean_us": ours_mean,
        "syzygy_median_us": theirs_median, "syzygy_p99_us": theirs_p99, "syzygy_mean_us": theirs_mean,
        "median_ratio": ratio,
    });
    if !as_json {
        println!("retro bench --suite wdl — {machine}; release build");
        let listed: Vec<String> = names
            .iter()
            .zip(&kinds)
            .map(|(n, k)| format!("{n} ({k})"))
            .collect();
        println!(
            "{} random legal positions over {} tables of {largest} men: {}",
            timed.len(),
            names.len(),
            listed.join(", ")
        );
        println!(
            "classes equal on all {} positions probed; files in the page cache, one thread, the readers taking turns",
            opening.len() + timed.len()
        );
        println!("  retro WDL50 ({}):  median {ours_median:.2} us, p99 {ours_p99:.2} us, mean {ours_mean:.2} us", tables.display());
        println!("  Syzygy WDL, shakmaty-syzygy probe_wdl_after_zeroing ({}): median {theirs_median:.2} us, p99 {theirs_p99:.2} us, mean {theirs_mean:.2} us", syzygy.display());
        println!("  ratio of medians (retro / Syzygy): {ratio:.2}");
    }
    Ok(report)
}
