//! `retro gen`, `retro probe`, `retro stats`, `retro table1`: building and reading tables.

use crate::show::diagram;
use crate::support::{available_memory, engine_position, peak_memory_mib, tables_dir, Bars};
use anyhow::{anyhow, bail, Context, Result};
use retro_engine::Material;
use retro_gen::Builder;
use retro_rules::{Board, Side};
use retro_tablebase::probe::describe;
use retro_tablebase::report::{move_result, pgn_text, probe_json, stats_json};
use retro_tablebase::stats::{material_stats, MaterialStats};
use retro_tablebase::{table1, Tablebase};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

fn parse_materials(names: &[String]) -> Result<Vec<Material>> {
    names
        .iter()
        .map(|n| Material::parse(n).map_err(|e| anyhow!(e)))
        .collect()
}

/// How `retro gen` builds: the core, progress bars, packing, the memory it may take.
pub struct GenOptions {
    pub core: retro_gen::CoreKind,
    pub quiet: bool,
    pub pack: bool,
    /// Bytes a build may take (`None`: the memory the machine has available).
    pub mem: Option<u64>,
    /// What to build for each material.
    pub metrics: Vec<retro_gen::Metric>,
    /// One rank of an MPI job ([`crate::distributed`]).
    pub distributed: bool,
}

pub fn gen(
    materials: &[String],
    up_to: Option<(u8, bool)>,
    board: Board,
    dir: Option<PathBuf>,
    options: GenOptions,
) -> Result<ExitCode> {
    let GenOptions {
        core,
        quiet,
        pack,
        mem,
        metrics,
        distributed,
    } = options;
    let mut materials = parse_materials(materials)?;
    if let Some((men, pawns)) = up_to {
        materials.extend(
            Material::all_up_to(usize::from(men), pawns)
                .into_iter()
                .filter(|m| m.is_canonical()),
        );
    }
    if materials.is_empty() {
        bail!("name at least one material, e.g. `retro gen KRvK`");
    }
    for m in &materials {
        if m.len() > 6 {
            bail!(
                "{m} has {} men; `retro gen` builds material of up to 6 men",
                m.len()
            );
        }
    }
    let dir = tables_dir(dir);
    let builder = Builder::new(board, &dir)
        .with_core(core)
        .with_metrics(&metrics)
        .with_pack(pack.then(retro_format::PackOptions::default));
    if distributed {
        return crate::distributed::gen(builder, &materials, &dir, quiet, mem);
    }
    let builder = builder.with_memory_limit(mem.or_else(available_memory));
    let bars = Bars::new(quiet);
    let start = std::time::Instant::now();
    let reports = builder
        .build(&materials, &bars)
        .with_context(|| format!("building tables in {}", dir.display()))?;
    let built = reports.iter().filter(|r| !r.reused).count();
    println!(
        "{} tables ready in {} ({built} built, {} kept) in {:.2} s{}",
        reports.len(),
        dir.display(),
        reports.len() - built,
        start.elapsed().as_secs_f64(),
        peak_memory_mib().map_or(String::new(), |m| format!("; peak memory {m:.0} MiB"))
    );
    Ok(ExitCode::SUCCESS)
}

/// `retro probe FEN`: the position's value by depth to mate and under the fifty-move rule (at
/// the FEN's halfmove clock), whichever tables are there, every move rated, the best line.
pub fn probe(
    fen: &str,
    dir: Option<PathBuf>,
    as_json: bool,
    line: bool,
    pgn: bool,
) -> Result<ExitCode> {
    let (natural, _, position) = engine_position(fen)?;
    let clock = retro_tablebase::fifty::fen_clock(fen);
    let tb = Tablebase::new(natural.board(), tables_dir(dir));
    let stm = position.side_to_move();
    let (value, fifty) = match (tb.value(&position), tb.fifty(&position)) {
        (Err(e), Err(_)) => {
            return Err(anyhow::Error::from(e).context(format!("probing {}", natural.fen())))
        }
        (value, fifty) => (value.ok(), fifty.ok()),
    };
    if as_json {
        let out = probe_json(&tb, &natural, &position, line, clock)?;
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    let moves = match value {
        Some(_) => tb.rated_moves(&position)?,
        None => Vec::new(),
    };
    let fifty_moves = match fifty {
        Some(_) => tb.fifty_moves(&position, clock)?,
        None => Vec::new(),
    };
    if pgn {
        let Some(value) = value else {
            bail!(
                "PGN follows depth to mate: build the DTM table (`retro gen {} --kinds dtm`)",
                position.material()
            );
        };
        print!("{}", pgn_text(&natural, value, &tb.best_line(&position)?));
        return Ok(ExitCode::SUCCESS);
    }
    print!("{}", diagram(&natural.to_setup()));
    println!("{} on {}", position.material(), natural.board());
    if let Some(value) = value {
        println!("{}", describe(stm, value));
    }
    if let Some(f) = fifty {
        for l in crate::fifty::value_lines(stm, f, clock) {
            println!("{l}");
        }
    }
    if !moves.is_empty() {
        println!("Moves (best first; result for {stm}):");
        let width = moves.iter().map(|m| m.san.len()).max().unwrap_or(0);
        for m in &moves {
            let rule = fifty_moves
                .iter()
                .find(|f| f.uci == m.uci)
                .map_or(String::new(), crate::fifty::move_words);
            println!(
                "  {:<width$}  {:<6}  {}{rule}",
                m.san,
                m.uci,
                move_result(m)
            );
        }
    } else if !fifty_moves.is_empty() {
        println!("Moves (best first under the fifty-move rule; class for the side then to move):");
        for l in crate::fifty::move_lines(&fifty_moves) {
            println!("{l}");
        }
    }
    if line {
        let (best, what) = match value {
            Some(_) => (
                tb.best_line(&position)?
                    .into_iter()
                    .map(|m| m.san)
                    .collect::<Vec<_>>(),
                "Best line",
            ),
            None => (
                tb.fifty_line(&position, clock)?
                    .into_iter()
                    .map(|m| m.san)
                    .collect(),
                "Line by DTZ50",
            ),
        };
        if best.is_empty() {
            println!("{what}: none (no forced win)");
        } else {
            println!(
                "{what} ({} plies): {}",
                best.len(),
                retro_tablebase::report::numbered_sans(best.iter().map(String::as_str), stm, 1)
            );
        }
        if value.is_some() && fifty.is_some() {
            let by_dtz: Vec<String> = tb
                .fifty_line(&position, clock)?
                .into_iter()
                .map(|m| m.san)
                .collect();
            if !by_dtz.is_empty() {
                println!(
                    "Line by DTZ50 ({} plies, claiming the draw as soon as the rule allows): {}",
                    by_dtz.len(),
                    retro_tablebase::report::numbered_sans(
                        by_dtz.iter().map(String::as_str),
                        stm,
                        1
                    )
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum StatsFormat {
    Table,
    Tsv,
    Json,
}

/// `retro stats`: the statistics of the tables of each kind asked for (`kinds`; none named:
/// every kind the materials have tables of), and the comparison with the Syzygy generator's
/// statistics file of the one material named.
pub fn stats(
    materials: &[String],
    kinds: &[crate::MetricArg],
    board: Board,
    dir: Option<PathBuf>,
    format: StatsFormat,
    syzygy_stats: Option<&Path>,
) -> Result<ExitCode> {
    use crate::MetricArg;
    use retro_format::TableKind;
    if syzygy_stats.is_some() && materials.len() != 1 {
        bail!("--syzygy-stats compares one table: name exactly one material");
    }
    // Read before the table is counted, which may take minutes.
    let peer = syzygy_stats
        .map(|path| crate::syzygy::read_stats(path).map(|stats| (path, stats)))
        .transpose()?;
    let dir = tables_dir(dir);
    let tb = Tablebase::new(board, &dir);
    let asked = |metric: MetricArg| kinds.is_empty() || kinds.contains(&metric);
    let named = parse_materials(materials)?;
    let of_kind = |kind: TableKind| -> Result<Vec<Material>> {
        match named.is_empty() {
            true => crate::support::kind_tables_in(&dir, board, kind),
            false => Ok(named
                .iter()
                .map(|m| m.canonical().0)
                .filter(|&m| !kinds.is_empty() || tb.kind_path_of(kind, m).exists())
                .collect()),
        }
    };
    let mut dtm = match asked(MetricArg::Dtm) {
        true => of_kind(TableKind::Dtm)?,
        false => Vec::new(),
    };
    let fifty = match asked(MetricArg::Fifty) {
        true => of_kind(TableKind::Dtz50)?,
        false => Vec::new(),
    };
    if dtm.is_empty() && fifty.is_empty() {
        if named.is_empty() {
            bail!(
                "no tables for {board} in {}; build some with `retro gen`",
                dir.display()
            );
        }
        // No table of any kind: the DTM statistics say which file is missing.
        dtm = named.iter().map(|m| m.canonical().0).collect();
    }
    let mut all = Vec::new();
    for m in dtm {
        all.push(material_stats(&tb, m).with_context(|| format!("statistics of {m}"))?);
    }
    let mut all_fifty = Vec::new();
    for m in fifty {
        all_fifty.push(
            retro_tablebase::stats::fifty_stats(&tb, m)
                .with_context(|| format!("statistics of {m} under the fifty-move rule"))?,
        );
    }
    match format {
        StatsFormat::Tsv => {
            let blocks: Vec<String> = [
                (!all.is_empty()).then(|| stats_tsv(&all, board)),
                (!all_fifty.is_empty()).then(|| crate::fifty::stats_tsv(&all_fifty, board)),
            ]
            .into_iter()
            .flatten()
            .collect();
            print!("{}", blocks.join("\n"));
        }
        StatsFormat::Json => println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::Value::Array(
                all.iter()
                    .map(|m| stats_json(m, board))
                    .chain(all_fifty.iter().map(|m| crate::fifty::stats_json(m, board)))
                    .collect()
            ))?
        ),
        StatsFormat::Table => {
            print!("{}", stats_table(&all, board));
            print!("{}", crate::fifty::stats_text(&all_fifty, board));
        }
    }
    if let Some((path, peer)) = peer {
        if let [ours] = all.as_slice() {
            compare_with_syzygy(ours, &peer, path)?;
        }
        if let [ours] = all_fifty.as_slice() {
            crate::fifty::compare_with_syzygy(ours, &peer, path)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Fails unless the counts of `ours`, positions up to symmetry, equal those of the Syzygy
/// generator's statistics `peer` (read from `path`); says so on standard error when they do.
fn compare_with_syzygy(
    ours: &MaterialStats,
    peer: &crate::syzygy::SyzygyStats,
    path: &Path,
) -> Result<()> {
    let theirs = peer
        .counts_of(ours.material)
        .with_context(|| format!("comparing with {}", path.display()))?;
    let counts = Side::ALL.map(|stm| {
        let s = ours.side(stm);
        crate::syzygy::Counts {
            wins: s.win.unique,
            draws: s.draw.unique,
            losses: s.loss.unique,
        }
    });
    let show = |c: &crate::syzygy::Counts| {
        format!("{} wins, {} draws, {} losses", c.wins, c.draws, c.losses)
    };
    if counts != theirs {
        bail!(
            "{}: the counts differ from the Syzygy generator's in {}: White to move {} here, \
             {} there; Black to move {} here, {} there",
            ours.material,
            path.display(),
            show(&counts[0]),
            show(&theirs[0]),
            show(&counts[1]),
            show(&theirs[1]),
        );
    }
    eprintln!(
        "{}: counts equal to the Syzygy generator's in {} (positions up to symmetry): White to \
         move {}; Black to move {}",
        ours.material,
        path.display(),
        show(&counts[0]),
        show(&counts[1]),
    );
    Ok(())
}

fn by_plies_text(s: &retro_tablebase::stats::SideStats, raw: bool) -> String {
    s.by_plies
        .iter()
        .map(|(n, c)| format!("{n}:{}", if raw { c.raw } else { c.unique }))
        .collect::<Vec<_>>()
        .join(",")
}

/// One row per material × side to move × convention.
pub fn stats_tsv(all: &[MaterialStats], board: Board) -> String {
    let mut text = String::from(
        "material\tboard\tstm\tconvention\tlegal\twin\tdraw\tloss\tlongest_win_plies\tlongest_loss_plies\tlongest_win_fen\tlongest_loss_fen\tpositions_by_plies\tep_legal\tep_win\tep_draw\tep_loss\n",
    );
    for m in all {
        for stm in Side::ALL {
            let s = m.side(stm);
            for raw in [true, false] {
                let pick = |c: retro_tablebase::stats::Counts| if raw { c.raw } else { c.unique };
                text.push_str(&format!(
                    "{}\t{board}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                    m.material,
                    if stm == Side::White { "w" } else { "b" },
                    if raw { "raw" } else { "unique" },
                    pick(s.legal),
                    pick(s.win),
                    pick(s.draw),
                    pick(s.loss),
                    s.longest_win
                        .as_ref()
                        .map_or("-".into(), |(n, _)| n.to_string()),
                    s.longest_loss
                        .as_ref()
                        .map_or("-".into(), |(n, _)| n.to_string()),
                    s.longest_win.as_ref().map_or("-", |(_, f)| f.as_str()),
                    s.longest_loss.as_ref().map_or("-", |(_, f)| f.as_str()),
                    by_plies_text(s, raw),
                    pick(s.en_passant.legal),
                    pick(s.en_passant.win),
                    pick(s.en_passant.draw),
                    pick(s.en_passant.loss),
                ));
            }
        }
    }
    text
}

fn stats_table(all: &[MaterialStats], board: Board) -> String {
    let mut text = String::new();
    for m in all {
        text.push_str(&format!(
            "{} on {board} (positions: raw placements / unique up to symmetry)\n",
            m.material
        ));
        for stm in Side::ALL {
            let s = m.side(stm);
            let c = |c: retro_tablebase::stats::Counts| format!("{} / {}", c.raw, c.unique);
            text.push_str(&format!(
                "  {stm} to move: legal {}, wins {}, draws {}, losses {}\n",
                c(s.legal),
                c(s.win),
                c(s.draw),
                c(s.loss)
            ));
            let ep = &s.en_passant;
            if ep.legal.raw > 0 {
                text.push_str(&format!(
                    "    with an en-passant target (not counted above): legal {}, wins {}, draws {}, losses {}\n",
                    c(ep.legal),
                    c(ep.win),
                    c(ep.draw),
                    c(ep.loss)
                ));
            }
            if let Some((n, fen)) = &s.longest_win {
                text.push_str(&format!(
                    "    longest win: mate in {} ({n} plies), e.g. {fen}\n",
                    n.div_ceil(2)
                ));
            }
            if let Some((n, fen)) = &s.longest_loss {
                text.push_str(&format!(
                    "    longest loss: mated in {} ({n} plies), e.g. {fen}\n",
                    n / 2
                ));
            }
            let depths: Vec<String> = s
                .by_plies
                .iter()
                .map(|(n, c)| format!("{n}:{}", c.raw))
                .collect();
            if !depths.is_empty() {
                text.push_str(&format!(
                    "    positions by plies (raw): {}\n",
                    depths.join(" ")
                ));
            }
        }
    }
    text
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Table1Format {
    Table,
    Tsv,
}

pub fn table1(
    dir: Option<PathBuf>,
    format: Table1Format,
    quiet: bool,
    skip_verify: bool,
) -> Result<ExitCode> {
    let dir = tables_dir(dir);
    let board = Board::STANDARD;
    let builder = Builder::new(board, &dir);
    let bars = Bars::new(quiet).lines_to_stderr();
    let start = std::time::Instant::now();
    builder
        .build(&table1::materials(), &bars)
        .with_context(|| format!("building tables in {}", dir.display()))?;
    let built = start.elapsed().as_secs_f64();
    // Every table is checked against the natural model before its numbers are printed.
    let checked = if skip_verify {
        None
    } else {
        let checker = retro_verify::Checker::new(board, &dir);
        let names: Vec<String> = table1::materials().iter().map(|m| m.to_string()).collect();
        let plan = checker.plan(&names.iter().map(String::as_str).collect::<Vec<_>>())?;
        Some(crate::verify::check_all(
            &checker,
            &plan,
            retro_format::TableKind::Dtm,
            board,
            quiet,
            false,
            &mut std::io::stderr(),
        )?)
    };
    let tb = Tablebase::new(board, &dir);
    let ours = table1::rows(&tb)?;
    let paper = table1::paper();
    match format {
        Table1Format::Tsv => print!("{}", table1::to_tsv(&ours)),
        Table1Format::Table => {
            println!("Hurd's Table 1: all 4-man pawnless endgames on 8x8 (no castling)");
            println!("max = most moves White needs to mate; #win = positions won for White; counts are placements, identical men distinguishable");
            println!("(a cell marked ≠ differs from the paper, whose value follows the mark)");
            println!();
            print!("{}", table1::to_text(&ours, &paper));
        }
    }
    let differences = table1::differences(&ours, &paper);
    if format == Table1Format::Table {
        println!();
        println!(
            "{} tables built or found in {built:.1} s ({})",
            table1::materials().len(),
            dir.display()
        );
        match &checked {
            Some(c) if c.failed == 0 => println!(
                "verified against the natural model by retro-verify: {} tables, {} legal positions, all pass ({:.1} s)",
                c.tables, c.positions, c.seconds
            ),
            Some(c) => println!("VERIFICATION FAILED for {} of {} tables", c.failed, c.tables),
            None => println!("not verified (--skip-verify)"),
        }
        if differences == 0 {
            println!("all {} rows match the paper on both sides", ours.len());
        }
    }
    if differences > 0 {
        eprintln!("{differences} cells differ from the paper");
        return Ok(ExitCode::FAILURE);
    }
    if checked.is_some_and(|c| c.failed > 0) {
        eprintln!("some tables fail verification");
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
