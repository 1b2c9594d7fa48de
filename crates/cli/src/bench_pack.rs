//! `retro bench --suite pack`: how small packed tables are and how fast they are probed.
//!
//! The raw DTM tables of a directory (`--tables DIR`, else the 36 tables of up to 4 men built
//! into a scratch directory), with the WDL50 tables beside them where there are (a DTM probe of
//! a side its file leaves out reads its WDL50 class), are linked into a scratch directory and
//! packed there by one fresh `retro pack` process (its time and peak memory); the links are
//! then removed, leaving a directory of packed files only. Sizes are reported per class
//! (3–4-man, five-man pawnless, five-man with pawns), DTM alone and with WDL50, beside the
//! published totals of other depth-to-mate sets.
//!
//! Probes: random legal positions (a table drawn uniformly among the largest tables present,
//! then a legal position and side to move uniformly within it), each probe timed alone on one
//! thread through a fresh [`Tablebase`] whose tables were opened beforehand, with the packed
//! files in the page cache (the raw files dropped from it first, each packed file read twice);
//! the same positions on the raw tables where those fit in half the memory; every move's value
//! (what the web page shows) on a share of them; and cold probes: each packed file's pages
//! dropped from the page cache (`posix_fadvise(DONTNEED)`, which needs no privileges), then
//! the read calls each probe makes and the bytes it reads from the disk, from `/proc/self/io`.

use crate::support::human_bytes;
use anyhow::{bail, Context, Result};
use retro_engine::{Geometry, Indexer, Material, Position, TablePosition, TABLE_MEN};
use retro_format::TableKind;
use retro_rules::{Board, Side};
use retro_tablebase::Tablebase;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// Published sizes of other depth-to-mate (and Syzygy's) sets of up to five men, as their
/// authors give them, for the report.
const PUBLISHED: &str = "published: chesstb 3-5-man DTM 1.69 GiB (3-4-man 389 MiB, five-man 1.3 GiB; one side to move, the other rebuilt from its WDL companion), Gaviota 3-5-man DTM 6.5 GB, Nalimov 3-5-man DTM 7.1 GiB, Syzygy 3-5-man WDL+DTZ 939 MiB";

/// The sizes of a class of tables: its DTM tables raw and packed, and the packed WDL50 tables
/// beside them.
#[derive(Default)]
struct ClassSizes {
    class: &'static str,
    tables: usize,
    raw: u64,
    packed: u64,
    wdl50: u64,
}

/// A class of tables, as sizes are reported.
fn class(material: &Material) -> &'static str {
    match (material.len(), material.has_pawns()) {
        (..=4, _) => "3-4-man",
        (5, false) => "five-man pawnless",
        (5, true) => "five-man with pawns",
        _ => "six-man and more",
    }
}

/// A small, seeded generator (xorshift64*): the positions drawn are the same run after run.
struct Draw(u64);

impl Draw {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) % n.max(1)
    }
}

/// `count` random legal positions of `materials`: a table drawn uniformly, then an index and
/// side to move until the position is legal.
pub(crate) fn random_positions(
    geo: &Geometry,
    materials: &[Material],
    count: usize,
) -> Result<Vec<Position>> {
    let indexers: Vec<Indexer> = materials
        .iter()
        .map(|&m| Indexer::new(geo, m).map_err(|e| anyhow::anyhow!("{e}")))
        .collect::<Result<_>>()?;
    let mut draw = Draw(0x9e37_79b9_7f4a_7c15);
    let mut found = Vec::with_capacity(count);
    while found.len() < count {
        let indexer = &indexers[draw.below(indexers.len() as u64) as usize];
        let stm = Side::ALL[draw.below(2) as usize];
        let index = draw.below(indexer.size());
        let Some(p) = indexer.position::<TABLE_MEN>(geo, index, stm) else {
            continue;
        };
        let p: TablePosition = p;
        if p.is_legal(geo) {
            found.push(p.resized().expect("a table position fits"));
        }
    }
    Ok(found)
}

/// Median and 99th percentile, in microseconds, of durations in seconds.
pub(crate) fn percentiles(mut seconds: Vec<f64>) -> (f64, f64) {
    seconds.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| seconds[((seconds.len() - 1) as f64 * q).round() as usize] * 1e6;
    (at(0.5), at(0.99))
}

/// Times `probe` on each position alone.
fn time_each(
    positions: &[Position],
    mut probe: impl FnMut(&Position) -> Result<()>,
) -> Result<Vec<f64>> {
    let mut times = Vec::with_capacity(positions.len());
    for p in positions {
        let start = Instant::now();
        probe(p)?;
        times.push(start.elapsed().as_secs_f64());
    }
    Ok(times)
}

/// This process's read calls so far and the bytes they took from the disk (`syscr` and
/// `read_bytes` of `/proc/self/io`).
fn reads() -> Option<(u64, u64)> {
    let io = std::fs::read_to_string("/proc/self/io").ok()?;
    let field = |name: &str| -> Option<u64> {
        io.lines()
            .find_map(|l| l.strip_prefix(name))?
            .trim()
            .parse()
            .ok()
    };
    Some((field("syscr:")?, field("read_bytes:")?))
}

/// Drops a file's pages from the page cache.
fn drop_from_page_cache(path: &Path) -> Result<()> {
    let file = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    rustix::fs::fadvise(&file, 0, None, rustix::fs::Advice::DontNeed)
        .with_context(|| format!("dropping {} from the page cache", path.display()))
}

/// Reads a file through, so its pages are in the page cache.
fn warm(path: &Path) -> Result<()> {
    use std::io::Read;
    let mut file =
        std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut buffer = vec![0u8; 1 << 20];
    while file.read(&mut buffer)? > 0 {}
    Ok(())
}

/// Reads through every file of `dir` whose extension is one of `extensions`.
pub(crate) fn warm_files(dir: &Path, extensions: &[&str]) -> Result<()> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))?;
    for entry in entries {
        let path = entry?.path();
        if path
            .extension()
            .is_some_and(|e| extensions.iter().any(|x| e == *x))
        {
            warm(&path)?;
        }
    }
    Ok(())
}

/// The tables a suite reads: `tables_from`, else the 36 of up to 4 men built into a scratch
/// directory (returned with it, removed when dropped).
fn source_tables(tables_from: Option<&Path>) -> Result<(PathBuf, Option<tempfile::TempDir>)> {
    if let Some(dir) = tables_from {
        return Ok((dir.to_path_buf(), None));
    }
    let built = tempfile::tempdir().context("making a scratch directory")?;
    let exe = std::env::current_exe().context("finding the retro binary")?;
    let out = Command::new(exe)
        .args(["gen", "--up-to", "4", "--kinds", "dtm", "--quiet", "--dir"])
        .arg(built.path())
        .output()
        .context("building the tables of up to 4 men")?;
    if !out.status.success() {
        bail!(
            "building the tables of up to 4 men failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok((built.path().to_path_buf(), Some(built)))
}

/// The batch suite: `retro probe --batch` over random legal positions of the largest tables
/// of `tables_from` (else of the 36 of up to 4 men), as FEN lines, the table files read
/// beforehand so that they are in the page cache; `runs` fresh processes, the median.
pub fn batch_suite(
    tables_from: Option<&Path>,
    probes: usize,
    runs: usize,
    as_json: bool,
) -> Result<serde_json::Value> {
    let board = Board::STANDARD;
    let geo = Geometry::new(board);
    let (source, _built) = source_tables(tables_from)?;
    let materials = crate::support::tables_in(&source, board)?;
    let largest = materials.iter().map(Material::len).max().unwrap_or(0);
    let chosen: Vec<Material> = materials
        .into_iter()
        .filter(|m| m.len() == largest)
        .collect();
    if chosen.is_empty() {
        bail!("{} holds no tables for {board}", source.display());
    }
    let positions = random_positions(&geo, &chosen, probes)?;
    let scratch = tempfile::tempdir().context("making a scratch directory")?;
    let input = scratch.path().join("positions.fen");
    let mut text = String::with_capacity(positions.len() * 48);
    for p in &positions {
        text.push_str(&p.to_natural(&geo).fen());
        text.push('\n');
    }
    std::fs::write(&input, text).with_context(|| format!("writing {}", input.display()))?;
    warm_files(&source, &["rtb", "rtbz"])?;
    let exe = std::env::current_exe().context("finding the retro binary")?;
    let mut seconds = Vec::new();
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let status = Command::new(&exe)
            .args(["probe", "--batch", "--dir"])
            .arg(&source)
            .stdin(std::fs::File::open(&input)?)
            .stdout(std::process::Stdio::null())
            .status()
            .context("running retro probe --batch")?;
        seconds.push(start.elapsed().as_secs_f64());
        if !status.success() {
            bail!("retro probe --batch answered some line with an error");
        }
    }
    seconds.sort_by(f64::total_cmp);
    let median = seconds[seconds.len() / 2];
    let rate = positions.len() as f64 / median;
    let what = format!(
        "{} random legal positions over the {} tables of {largest} men in {}",
        positions.len(),
        chosen.len(),
        source.display()
    );
    if !as_json {
        println!(
            "batch: retro probe --batch, {what}, files in the page cache: median {median:.3} s of {} runs (min {:.3} s, max {:.3} s): {rate:.0} positions a second",
            seconds.len(),
            seconds[0],
            seconds[seconds.len() - 1]
        );
    }
    Ok(json!({
        "suite": "batch", "positions": positions.len(), "tables": chosen.len(), "men": largest,
        "runs": seconds.len(), "median_seconds": median, "min_seconds": seconds[0],
        "max_seconds": seconds[seconds.len() - 1], "positions_per_second": rate,
    }))
}

/// The pack suite: sizes by class, packing time and memory, probe times.
pub fn pack_suite(
    tables_from: Option<&Path>,
    probes: usize,
    coder: crate::pack::CoderArg,
    as_json: bool,
    machine: &str,
) -> Result<serde_json::Value> {
    let board = Board::STANDARD;
    let geo = Geometry::new(board);
    let (source, _built) = source_tables(tables_from)?;
    // The raw tables of the source, linked into a scratch directory and packed there: DTM,
    // and where it is there each material's WDL50 table, which a DTM probe of a side left
    // out reads (the size a DTM probe needs counts both).
    let scratch = tempfile::tempdir().context("making a scratch directory")?;
    let mut raw = Vec::new();
    let mut companions = Vec::new();
    for material in crate::support::tables_in(&source, board)? {
        for kind in [TableKind::Dtm, TableKind::Wdl50] {
            let name = retro_format::kind_file_name(
                kind,
                &material.to_string(),
                board.files(),
                board.ranks(),
                false,
            );
            let path = source.join(&name);
            if !path.exists() {
                continue;
            }
            let target = std::fs::canonicalize(&path)?;
            std::os::unix::fs::symlink(&target, scratch.path().join(&name))
                .with_context(|| format!("linking {}", path.display()))?;
            match kind {
                TableKind::Dtm => raw.push((material, target)),
                _ => companions.push((material, target)),
            }
        }
    }
    if raw.is_empty() {
        bail!(
            "{} holds no raw tables (*.{board}.rtb) to pack",
            source.display()
        );
    }
    let exe = std::env::current_exe().context("finding the retro binary")?;
    let start = Instant::now();
    let out = Command::new(&exe)
        .args(["pack", "--quiet", "--coder", coder.name(), "--dir"])
        .arg(scratch.path())
        .output()
        .context("running retro pack")?;
    let pack_seconds = start.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        bail!(
            "retro pack failed: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let peak_mib: Option<f64> = stdout
        .lines()
        .last()
        .and_then(|l| l.split("peak memory ").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok());
    // Sizes by class; the links removed, the directory holds packed files only.
    let mut classes: Vec<ClassSizes> = Vec::new();
    let mut packed_files = Vec::new();
    for (kind, tables) in [(TableKind::Dtm, &raw), (TableKind::Wdl50, &companions)] {
        for (material, target) in tables {
            let name = material.to_string();
            let file = |packed| {
                let n =
                    retro_format::kind_file_name(kind, &name, board.files(), board.ranks(), packed);
                scratch.path().join(n)
            };
            std::fs::remove_file(file(false))?;
            let packed = file(true);
            let (raw_bytes, packed_bytes) = (
                std::fs::metadata(target)?.len(),
                std::fs::metadata(&packed)?.len(),
            );
            let c = class(material);
            let at = match classes.iter().position(|e| e.class == c) {
                Some(at) => at,
                None => {
                    classes.push(ClassSizes {
                        class: c,
                        ..ClassSizes::default()
                    });
                    classes.len() - 1
                }
            };
            let e = &mut classes[at];
            match kind {
                TableKind::Dtm => {
                    e.tables += 1;
                    e.raw += raw_bytes;
                    e.packed += packed_bytes;
                }
                _ => e.wdl50 += packed_bytes,
            }
            packed_files.push(packed);
        }
    }
    let total = classes.iter().fold(
        ClassSizes {
            class: "all",
            ..ClassSizes::default()
        },
        |t, c| ClassSizes {
            class: "all",
            tables: t.tables + c.tables,
            raw: t.raw + c.raw,
            packed: t.packed + c.packed,
            wdl50: t.wdl50 + c.wdl50,
        },
    );
    // Probes over the largest tables present.
    let largest = raw.iter().map(|(m, _)| m.len()).max().unwrap_or(0);
    let probed: Vec<Material> = raw
        .iter()
        .filter(|(m, _)| m.len() == largest)
        .map(|(m, _)| *m)
        .collect();
    let positions = random_positions(&geo, &probed, probes.max(100))?;
    let open = |dir: &Path| -> Result<Tablebase> {
        let tb = Tablebase::new(board, dir);
        for &m in &probed {
            tb.table(m)?;
        }
        Ok(tb)
    };
    // Warm: the raw files out of the page cache, the packed ones read twice (kept as used).
    for (_, target) in &raw {
        drop_from_page_cache(target)?;
    }
    for _ in 0..2 {
        for f in &packed_files {
            warm(f)?;
        }
    }
    let tb = open(scratch.path())?;
    let (value_median, value_p99) =
        percentiles(time_each(&positions, |p| Ok(tb.value(p).map(|_| ())?))?);
    let few = &positions[..(positions.len() / 10).max(100).min(positions.len())];
    let (moves_median, moves_p99) =
        percentiles(time_each(few, |p| Ok(tb.rated_moves(p).map(|_| ())?))?);
    drop(tb);
    // The raw tables, where they fit in half the memory beside the packed ones.
    let raw_bytes: u64 = classes.iter().map(|c| c.raw).sum();
    let memory = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .next()?
                .split_whitespace()
                .nth(1)?
                .parse::<u64>()
                .ok()
        })
        .map_or(0, |kib| kib * 1024);
    let raw_times = if raw_bytes < memory / 2 {
        for (_, target) in &raw {
            warm(target)?;
            warm(target)?;
        }
        let raw_tb = open(&source)?;
        Some(percentiles(time_each(&positions, |p| {
            Ok(raw_tb.value(p).map(|_| ())?)
        })?))
    } else {
        None
    };
    // Cold: every packed file dropped from the page cache after its table is opened.
    let cold_tb = open(scratch.path())?;
    for f in &packed_files {
        drop_from_page_cache(f)?;
    }
    let cold = &positions[..positions.len().min(2000)];
    let (mut calls, mut disk, mut cold_times) = (Vec::new(), Vec::new(), Vec::new());
    // Reading /proc/self/io takes read calls of its own: as many as two readings in a row show.
    let overhead = match (reads(), reads()) {
        (Some(a), Some(b)) => b.0 - a.0,
        _ => 0,
    };
    for p in cold {
        let before = reads();
        let start = Instant::now();
        cold_tb.value(p)?;
        cold_times.push(start.elapsed().as_secs_f64());
        if let (Some(a), Some(b)) = (before, reads()) {
            calls.push((b.0 - a.0).saturating_sub(overhead));
            disk.push(b.1 - a.1);
        }
    }
    let mean = |v: &[u64]| v.iter().sum::<u64>() as f64 / v.len().max(1) as f64;
    let (mean_calls, max_calls) = (mean(&calls), calls.iter().copied().max().unwrap_or(0));
    let mean_disk_kib = mean(&disk) / 1024.0;
    let (cold_median, cold_p99) = percentiles(cold_times);
    let probed_what = format!(
        "{} random legal positions over the {} tables of {largest} men",
        positions.len(),
        probed.len()
    );
    let report = json!({
        "suite": "pack",
        "coder": coder.name(),
        "machine": machine,
        "tables": source.display().to_string(),
        "classes": classes.iter().chain([&total]).map(|c| json!({
            "class": c.class, "tables": c.tables, "raw_bytes": c.raw, "packed_bytes": c.packed,
            "wdl50_packed_bytes": c.wdl50,
            "ratio": c.raw as f64 / c.packed.max(1) as f64 })).collect::<Vec<_>>(),
        "pack_seconds": pack_seconds,
        "pack_peak_mib": peak_mib,
        "probes": probed_what,
        "value_median_us": value_median, "value_p99_us": value_p99,
        "moves_median_us": moves_median, "moves_p99_us": moves_p99, "moves_positions": few.len(),
        "raw_value_median_us": raw_times.map(|t| t.0), "raw_value_p99_us": raw_times.map(|t| t.1),
        "cold_positions": cold.len(), "cold_reads_per_value_mean": mean_calls,
        "cold_reads_per_value_max": max_calls, "cold_disk_kib_per_value_mean": mean_disk_kib,
        "cold_value_median_us": cold_median, "cold_value_p99_us": cold_p99,
        "published": PUBLISHED,
    });
    if !as_json {
        println!(
            "retro bench --suite pack --coders {} — {machine}; release build",
            coder.name()
        );
        println!("tables from {}", source.display());
        println!(
            "{:<20} {:>6} {:>12} {:>12} {:>7} {:>12} {:>12}",
            "class", "tables", "raw DTM", "packed DTM", "ratio", "WDL50", "DTM+WDL50"
        );
        for c in classes.iter().chain([&total]) {
            println!(
                "{:<20} {:>6} {:>12} {:>12} {:>6.1}x {:>12} {:>12}",
                c.class,
                c.tables,
                human_bytes(c.raw),
                human_bytes(c.packed),
                c.raw as f64 / c.packed.max(1) as f64,
                human_bytes(c.wdl50),
                human_bytes(c.packed + c.wdl50)
            );
        }
        println!("{PUBLISHED}");
        println!(
            "packing: {pack_seconds:.1} s (one retro pack process){}",
            peak_mib.map_or(String::new(), |m| format!(", peak memory {m:.0} MiB"))
        );
        let cache = match coder {
            crate::pack::CoderArg::Zstd => "block cache 64 MiB",
            crate::pack::CoderArg::Pairs => "each value decoded from its block",
        };
        println!("probes: {probed_what}, files in the page cache, one thread, {cache}");
        println!("  value, packed:      median {value_median:.2} us, p99 {value_p99:.2} us");
        match raw_times {
            Some((median, p99)) => {
                println!("  value, raw:         median {median:.2} us, p99 {p99:.2} us")
            }
            None => println!(
                "  value, raw:         not compared (the raw tables do not fit in half the memory)"
            ),
        }
        println!(
            "  every move's value: median {moves_median:.2} us, p99 {moves_p99:.2} us ({} positions)",
            few.len()
        );
        println!(
            "  cold (page cache dropped, {} positions): {mean_calls:.2} read calls per value, at most {max_calls}, {mean_disk_kib:.1} KiB from the disk per value; median {cold_median:.1} us, p99 {cold_p99:.1} us",
            cold.len()
        );
    }
    Ok(report)
}
