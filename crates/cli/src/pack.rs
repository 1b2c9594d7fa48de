//! `retro pack`: raw tables of every kind (DTM, DTZ50, WDL50) into packed files
//! (`MATERIAL.FxR[.KIND].rtbz`), each decoded back and compared before it is kept.

use crate::support::{
    available_memory, human_bytes, parse_size, peak_memory_mib, tables_dir, tables_in,
};
use anyhow::{anyhow, bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use retro_engine::Material;
use retro_format::{Coder, PackOptions, PackReport, TableKind};
use retro_rules::Board;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// `retro pack`'s arguments.
#[derive(clap::Args)]
pub struct PackArgs {
    /// Materials to pack (default: every raw table of the board in the directory).
    materials: Vec<String>,
    /// The board, FxR.
    #[arg(long, default_value = "8x8")]
    board: Board,
    /// The tables directory (default: $RETRO_TABLES, else ./tables).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Remove each raw file once its packed file is written and decoded back.
    #[arg(long)]
    remove_raw: bool,
    /// The most memory packing a table may take (e.g. 8G); a run with a table that would need
    /// more is refused before it starts, with the figure it needs (default: the memory the
    /// machine has available).
    #[arg(long, value_parser = parse_size)]
    mem: Option<u64>,
    /// How entries are coded: `pairs` (pair substitution and Huffman codes in small blocks,
    /// illegal positions left out; layout version 2) or `zstd` (zstd frames of
    /// --block-entries entries, every entry kept; version 1).
    #[arg(long, value_enum, default_value_t = CoderArg::Pairs)]
    coder: CoderArg,
    /// The zstd level, 1 (fastest) to 22 (smallest); both coders choose each side's order of
    /// entries by zstd samples.
    #[arg(long, default_value_t = PackOptions::default().level,
          value_parser = clap::value_parser!(i32).range(1..=22))]
    level: i32,
    /// Entries per block of the zstd coder (a probe decodes one block).
    #[arg(long, default_value_t = PackOptions::default().entries_per_block,
          value_parser = clap::value_parser!(u32).range(64..=1 << 20))]
    block_entries: u32,
    /// Keep both sides to move of DTM and DTZ50 files (by default the side that codes larger
    /// is left out, and every reader rebuilds it by a one-ply search into the other).
    #[arg(long)]
    both_sides: bool,
    /// Pack nothing: decode each packed table that has a raw one beside it and compare the
    /// two byte for byte (packing compares every file it writes; this checks files written
    /// before, or copied).
    #[arg(long, conflicts_with = "remove_raw")]
    check: bool,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
}

/// `--coder`'s values.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CoderArg {
    /// Pair substitution and canonical Huffman codes (layout version 2).
    Pairs,
    /// zstd frames with a dictionary per side (layout version 1).
    Zstd,
}

impl CoderArg {
    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            CoderArg::Pairs => "pairs",
            CoderArg::Zstd => "zstd",
        }
    }

    /// The format's coder.
    pub fn coder(self) -> Coder {
        match self {
            CoderArg::Pairs => Coder::Pairs,
            CoderArg::Zstd => Coder::ZstdBlocks,
        }
    }
}

impl PackArgs {
    fn options(&self) -> PackOptions {
        PackOptions {
            coder: self.coder.coder(),
            entries_per_block: self.block_entries,
            level: self.level,
            keep_both_sides: self.both_sides,
            ..PackOptions::default()
        }
    }
}

/// The raw and the packed file of `material`'s table of `kind` on `board` in `dir`.
fn both_files(
    dir: &std::path::Path,
    board: Board,
    kind: TableKind,
    material: &str,
) -> (PathBuf, PathBuf) {
    let (files, ranks) = (board.files(), board.ranks());
    (
        dir.join(retro_format::kind_file_name(
            kind, material, files, ranks, false,
        )),
        dir.join(retro_format::kind_file_name(
            kind, material, files, ranks, true,
        )),
    )
}

/// How a line names a table: the material, and the kind beside it but for DTM.
fn label(material: &str, kind: TableKind) -> String {
    match kind {
        TableKind::Dtm => material.to_string(),
        kind => format!("{material} {kind}"),
    }
}

/// The materials with a table of any kind for `board` in `dir`, smallest first.
fn any_tables_in(dir: &std::path::Path, board: Board) -> Result<Vec<Material>> {
    let mut all = tables_in(dir, board)?;
    for kind in [TableKind::Dtz50, TableKind::Wdl50] {
        all.extend(crate::support::kind_tables_in(dir, board, kind)?);
    }
    all.sort_by_key(|m| (m.len(), m.to_string()));
    all.dedup();
    Ok(all)
}

/// One line for a packed table.
pub fn pack_line(material: &str, report: &PackReport) -> String {
    format!(
        "{material:>14}  raw {} -> packed {} ({:.1}x) in {:.2} s; {}",
        human_bytes(report.raw_bytes),
        human_bytes(report.packed_bytes),
        report.raw_bytes as f64 / report.packed_bytes.max(1) as f64,
        report.seconds,
        report.path.display()
    )
}

pub fn pack(args: PackArgs) -> Result<ExitCode> {
    let dir = tables_dir(args.dir.clone());
    let board = args.board;
    let materials: Vec<Material> = if args.materials.is_empty() {
        any_tables_in(&dir, board)?
    } else {
        args.materials
            .iter()
            .map(|n| {
                Material::parse(n)
                    .map(|m| m.canonical().0)
                    .map_err(|e| anyhow!(e))
            })
            .collect::<Result<_>>()?
    };
    if materials.is_empty() {
        bail!(
            "no tables for {board} in {}; build some with `retro gen`",
            dir.display()
        );
    }
    if args.check {
        return check(&dir, board, &materials, args.quiet);
    }
    // One run writing the directory at a time (`retro gen` takes the same lock).
    let _lock = retro_format::DirectoryLock::acquire(&dir, "retro pack")?;
    // The raw files to pack; a table found only packed is reported, not an error.
    let mut todo = Vec::new();
    for material in materials {
        let name = material.to_string();
        let mut found = false;
        for kind in TableKind::ALL {
            let (raw, packed) = both_files(&dir, board, kind, &name);
            if raw.exists() {
                todo.push((material, kind, raw, packed));
            } else if packed.exists() {
                println!(
                    "{:>14}  already packed; {}",
                    label(&name, kind),
                    packed.display()
                );
            } else {
                continue;
            }
            found = true;
        }
        if !found {
            bail!(
                "no table for {name} on {board} in {}: build it with `retro gen {name} --board {board}`",
                dir.display()
            );
        }
    }
    let total_raw: u64 = todo
        .iter()
        .map(|(_, _, raw, _)| std::fs::metadata(raw).map_or(0, |m| m.len()))
        .sum();
    let options = args.options();
    // Refused before any work where a table would not fit in the memory allowed.
    let allowed = args
        .mem
        .map(|bytes| (bytes, "--mem allows"))
        .or_else(|| available_memory().map(|bytes| (bytes, "the machine has available")));
    if let Some((allowed, whose)) = allowed {
        for (material, kind, raw, _) in &todo {
            let bytes = std::fs::metadata(raw).map_or(0, |m| m.len());
            let need = pack_memory_needed(options.coder, *kind, bytes);
            if need > allowed {
                bail!(
                    "packing {} needs about {} of memory, and {whose} {}; nothing was written",
                    label(&material.to_string(), *kind),
                    human_bytes(need),
                    human_bytes(allowed)
                );
            }
        }
    }
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(total_raw)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40} {binary_bytes}/{binary_total_bytes} raw packed, {elapsed} (~{eta} left)  {msg}",
        )
        .expect("a valid template"),
    );
    let geo = retro_engine::Geometry::new(board);
    let start = Instant::now();
    let (mut raw_bytes, mut packed_bytes) = (0u64, 0u64);
    for (material, kind, raw, packed) in &todo {
        let name = label(&material.to_string(), *kind);
        bar.set_message(name.clone());
        let table = retro_format::Table::open_body_unchecked(raw)
            .with_context(|| format!("reading {}", raw.display()))?;
        let radices = retro_engine::Indexer::new(&geo, *material)
            .map_err(|e| anyhow!("{material}: {e}"))?
            .digit_radices();
        let report =
            retro_gen::pack_table(board, &dir, *material, &table, packed, &radices, &options)
                .with_context(|| format!("packing {}", raw.display()))?;
        drop(table);
        if args.remove_raw {
            std::fs::remove_file(raw).with_context(|| format!("removing {}", raw.display()))?;
        }
        raw_bytes += report.raw_bytes;
        packed_bytes += report.packed_bytes;
        bar.inc(report.raw_bytes);
        bar.suspend(|| println!("{}", pack_line(&name, &report)));
    }
    bar.finish_and_clear();
    if !todo.is_empty() {
        println!(
            "{} tables packed in {}: raw {} -> packed {} ({:.1}x) in {:.1} s{}",
            todo.len(),
            dir.display(),
            human_bytes(raw_bytes),
            human_bytes(packed_bytes),
            raw_bytes as f64 / packed_bytes.max(1) as f64,
            start.elapsed().as_secs_f64(),
            peak_memory_mib().map_or(String::new(), |m| format!("; peak memory {m:.0} MiB"))
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The most memory packing a raw file of `raw_bytes` of `kind` with `coder` takes: the file
/// (mapped), and for pair codes four bytes an entry for the coded streams and the coder's work,
/// two more for the codes that decide entries, with the tables that give them read whole beside
/// them (the smaller tables, [`retro_gen::SHARED_TABLE_BYTES`]; for DTZ50 its WDL50 table, no
/// larger), and for DTM and DTZ50, which leave a side to move out, one more copy of the body, in
/// which that side is rebuilt and compared before the file is written. KRBvKR's DTM (231 MiB
/// raw): 2.8 GiB by this count; 2.3 GiB measured at the peak of `retro pack` of it and its
/// three kinds' smaller tables.
fn pack_memory_needed(coder: Coder, kind: TableKind, raw_bytes: u64) -> u64 {
    const WORK: u64 = 64 << 20;
    let rebuilt_side = match kind.may_leave_side_out() {
        true => raw_bytes,
        false => 0,
    };
    match coder {
        Coder::ZstdBlocks => raw_bytes + WORK,
        Coder::Pairs => {
            raw_bytes + 6 * raw_bytes + rebuilt_side + retro_gen::SHARED_TABLE_BYTES + WORK
        }
    }
}

/// `retro pack --check`: every packed table with a raw one beside it decoded and compared.
fn check(
    dir: &std::path::Path,
    board: Board,
    materials: &[Material],
    quiet: bool,
) -> Result<ExitCode> {
    let start = Instant::now();
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(materials.len() as u64)
    };
    let (mut same, mut entries) = (0usize, 0u64);
    let mut differ = Vec::new();
    for (material, kind) in materials
        .iter()
        .flat_map(|m| TableKind::ALL.map(|kind| (m, kind)))
    {
        let (raw, packed) = both_files(dir, board, kind, &material.to_string());
        let name = label(&material.to_string(), kind);
        if kind == TableKind::Dtm {
            bar.inc(1);
        }
        if !(raw.exists() && packed.exists()) {
            continue;
        }
        let original = retro_format::Table::open(&raw)
            .with_context(|| format!("reading {}", raw.display()))?;
        let decoded = retro_format::Table::open(&packed);
        let verdict = match &decoded {
            Ok(d) if d.header() == original.header() && d.body() == original.body() => None,
            Ok(_) => Some("decodes to other values".to_string()),
            Err(e) => Some(e.to_string()),
        };
        let line = match &verdict {
            None => format!("{name:>14}  same values as {}", raw.display()),
            Some(why) => format!("{name:>14}  DIFFERS: {why}"),
        };
        bar.suspend(|| println!("{line}"));
        match verdict {
            None => {
                same += 1;
                entries += 2 * original.header().entries_per_side;
            }
            Some(_) => differ.push(name),
        }
    }
    bar.finish_and_clear();
    if same + differ.len() == 0 {
        bail!("no table in {} is there both raw and packed", dir.display());
    }
    println!(
        "{} packed tables compared with their raw files in {:.1} s: {same} decode to the same {entries} entries{}",
        same + differ.len(),
        start.elapsed().as_secs_f64(),
        if differ.is_empty() { String::new() } else { format!("; {} differ: {}", differ.len(), differ.join(", ")) }
    );
    Ok(if differ.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
