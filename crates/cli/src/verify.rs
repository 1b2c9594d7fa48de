//! `retro verify` and `retro prove`: checking tables against the natural model, and stating
//! Hurd's theorems once they are checked.

use crate::support::tables_dir;
use crate::MetricArg;
use anyhow::{anyhow, bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use retro_format::TableKind;
use retro_rules::{Board, Position, Side};
use retro_tablebase::stats::material_stats;
use retro_tablebase::Tablebase;
use retro_verify::men::Men;
use retro_verify::{certificate, theorem, Checker, Report};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// What checking a list of tables found.
pub struct Checked {
    /// Tables checked.
    pub tables: usize,
    /// Legal positions checked.
    pub positions: u64,
    /// Tables that failed.
    pub failed: usize,
    /// Tables passed over because an earlier check certified them (`--resume`).
    pub certified: usize,
    /// Seconds taken.
    pub seconds: f64,
}

/// The progress bar of checking `men`'s table, `placements` to examine.
pub fn check_bar(men: &Men, placements: u64, quiet: bool) -> ProgressBar {
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(placements)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix:>20} {bar:30} {human_pos:>12}/{human_len} placements  {elapsed} (~{eta} left)",
        )
        .expect("a valid template"),
    );
    bar.set_prefix(format!("verify {men}"));
    bar
}

/// Prints the line of a checked table to `out`, with its failures, and writes its
/// certificate if it passed; whether it passed.
pub fn print_report(
    checker: &Checker,
    report: &Report,
    board: Board,
    out: &mut dyn std::io::Write,
) -> Result<bool> {
    let men = &report.men;
    let name = label(men, report.kind);
    if report.passed() {
        let cert = certificate::write(checker, report, board)?;
        writeln!(
            out,
            "{name:>14}  PASS  {} legal positions checked in {:.1} s; certificate {}",
            report.positions,
            report.seconds,
            cert.display()
        )?;
        return Ok(true);
    }
    writeln!(
        out,
        "{name:>14}  FAIL  {} facts fail ({} legal positions checked):",
        report.failure_count, report.positions
    )?;
    for f in &report.failures {
        writeln!(out, "    {f}")?;
    }
    Ok(false)
}

/// How a table is named in a line of `retro verify`: the material, and the kind beside it for
/// the fifty-move tables (`KRvK DTZ50`, which covers its WDL50 companion).
fn label(men: &Men, kind: TableKind) -> String {
    match kind {
        TableKind::Dtm => men.to_string(),
        kind => format!("{men} {kind}"),
    }
}

/// Checks every table of `kind` of `plan` (smallest first; a DTZ50 table with its WDL50
/// companion), writing a certificate for each that passes and a line per table to `out`; with
/// `resume`, a table whose certificate still holds (its body and those of the tables it reaches
/// unchanged since they passed) is passed over.
pub fn check_all(
    checker: &Checker,
    plan: &[Men],
    kind: TableKind,
    board: Board,
    quiet: bool,
    resume: bool,
    out: &mut dyn std::io::Write,
) -> Result<Checked> {
    let start = Instant::now();
    let mut positions = 0;
    let mut failed = 0;
    let mut certified = 0;
    for men in plan {
        if resume && certificate::established_kind(checker, men, kind)?.is_none() {
            certified += 1;
            writeln!(
                out,
                "{:>14}  CERTIFIED by an earlier check ({} unchanged)",
                label(men, kind),
                checker.kind_certificate_path(men, kind).display()
            )?;
            continue;
        }
        let entries = retro_verify::scheme::Scheme::new(board, men).size();
        let bar = check_bar(men, entries, quiet);
        let report = match kind {
            TableKind::Dtm => checker.check(men, &|n| bar.inc(n)),
            _ => checker.check_fifty(men, &|n| bar.inc(n)),
        }
        .with_context(|| format!("checking {}", label(men, kind)))?;
        bar.finish_and_clear();
        positions += report.positions;
        if !print_report(checker, &report, board, out)? {
            failed += 1;
        }
    }
    Ok(Checked {
        tables: plan.len(),
        positions,
        failed,
        certified,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// `retro verify`: the tables of each kind in `kinds` (or, with none named, of every kind a
/// named material — or, with none named, any table of the board — has in the directory).
#[allow(clippy::too_many_arguments)]
pub fn verify(
    materials: &[String],
    kinds: &[MetricArg],
    board: Board,
    dir: Option<PathBuf>,
    quiet: bool,
    resume: bool,
    distributed: bool,
) -> Result<ExitCode> {
    let dir = tables_dir(dir);
    let checker = Checker::new(board, &dir);
    let mut runs: Vec<(TableKind, Vec<String>)> = Vec::new();
    for kind in [TableKind::Dtm, TableKind::Dtz50] {
        let asked = kinds.iter().any(|k| match k {
            MetricArg::Dtm => kind == TableKind::Dtm,
            MetricArg::Fifty => kind == TableKind::Dtz50,
        });
        if !kinds.is_empty() && !asked {
            continue;
        }
        let names: Vec<String> = if materials.is_empty() {
            crate::support::kind_tables_in(&dir, board, kind)?
                .iter()
                .map(|m| m.to_string())
                .collect()
        } else if kinds.is_empty() {
            // The kinds whose tables the named materials have.
            materials
                .iter()
                .filter(|name| {
                    Men::parse(name).is_ok_and(|men| {
                        checker
                            .kind_path_of(&retro_verify::stored(men), kind)
                            .exists()
                    })
                })
                .cloned()
                .collect()
        } else {
            materials.to_vec()
        };
        if !names.is_empty() {
            runs.push((kind, names));
        }
    }
    if runs.is_empty() {
        if let Some(name) = materials.first() {
            // No table of any kind: the check of the first material says which file is missing.
            Men::parse(name)?;
            runs.push((TableKind::Dtm, materials.to_vec()));
        } else {
            bail!(
                "no tables for {board} in {}; build some with `retro gen`",
                dir.display()
            );
        }
    }
    let mut total = Checked {
        tables: 0,
        positions: 0,
        failed: 0,
        certified: 0,
        seconds: 0.0,
    };
    for (kind, names) in runs {
        let plan = checker.plan(&names.iter().map(String::as_str).collect::<Vec<_>>())?;
        if distributed {
            if kind != TableKind::Dtm {
                bail!(
                    "--distributed checks DTM tables; check the fifty-move tables in one process"
                );
            }
            return crate::distributed::verify(&checker, &plan, board, quiet);
        }
        let what = match kind {
            TableKind::Dtm => "DTM tables",
            _ => "DTZ50 tables (each with its WDL50 classes)",
        };
        println!(
            "verify: {} {what} on {board} in {}, smallest first, against the natural model",
            plan.len(),
            dir.display()
        );
        let checked = check_all(
            &checker,
            &plan,
            kind,
            board,
            quiet,
            resume,
            &mut std::io::stdout(),
        )?;
        total.tables += checked.tables;
        total.positions += checked.positions;
        total.failed += checked.failed;
        total.certified += checked.certified;
        total.seconds += checked.seconds;
    }
    let checked = total;
    println!(
        "checked {} tables{}, {} legal positions, in {:.1} s: {}",
        checked.tables - checked.certified,
        if checked.certified > 0 {
            format!(" ({} more certified earlier)", checked.certified)
        } else {
            String::new()
        },
        checked.positions,
        checked.seconds,
        if checked.failed == 0 {
            "all pass".to_string()
        } else {
            format!("{} FAIL", checked.failed)
        }
    );
    Ok(if checked.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

pub fn prove(
    target: &str,
    stm: Option<Side>,
    board: Option<Board>,
    dir: Option<PathBuf>,
) -> Result<ExitCode> {
    let dir = tables_dir(dir);
    if target.contains('/') {
        return prove_position(target, dir);
    }
    let board = board.unwrap_or_default();
    let men = Men::parse(target)?;
    let stored = retro_verify::stored(men.clone());
    let flipped = stored != men;
    let checker = Checker::new(board, &dir);
    let status = certificate::established(&checker, &stored)?;
    let tb = Tablebase::new(board, &dir);
    let material: retro_engine::Material =
        stored.to_string().parse().map_err(|e| anyhow!("{e}"))?;
    let stats =
        material_stats(&tb, material).with_context(|| format!("reading the table of {stored}"))?;
    println!(
        "Category {} ({}) on {board}, from table {}",
        men.hurd_name(),
        men,
        checker.path_of(&stored).display()
    );
    match &status {
        None => println!(
            "Established by `retro verify` (certificate {}).",
            checker.certificate_path(&stored).display()
        ),
        Some(reason) => println!(
            "NOT ESTABLISHED: {reason}. The statements below are read from an unchecked table."
        ),
    }
    let sides: Vec<Side> = stm.map_or(Side::ALL.to_vec(), |s| vec![s]);
    for side in sides {
        // The table's side to move that plays this category's `side`.
        let table_side = if flipped {
            retro_rules::opponent(side)
        } else {
            side
        };
        let s = stats.side(table_side);
        println!();
        println!("{side} to move:");
        for winner in Side::ALL {
            // Positions won by `winner` are wins for the side to move when it is the winner.
            let (longest, example) = if winner == side {
                (&s.longest_win, "win")
            } else {
                (&s.longest_loss, "loss")
            };
            let plies = longest.as_ref().map(|(n, _)| *n);
            println!("  Stability theorem ({winner}'s forced mates):");
            println!("    ⊢ {}", theorem::stability(&men, side, winner, plies));
            match longest {
                None => println!("    In words: with {side} to move, {winner} can never force mate in this category."),
                Some((n, fen)) => {
                    let k = theorem::bound(*n);
                    let moves = n.div_ceil(2);
                    println!("    In words: with {side} to move, if {winner} can force mate at all, {winner} mates within {moves} moves.");
                    let witness: Position = flipped_fen(fen, flipped)?.parse().context("the witness position")?;
                    let value = checker.value(&witness)?;
                    let expected = if example == "win" { retro_format::Value::Win(*n) } else { retro_format::Value::Loss(*n) };
                    if value != expected {
                        bail!("the witness {} reads {value:?} through the checker, not {expected:?}", witness.fen());
                    }
                    println!("  The bound {k} is tight: a witness mated in exactly {moves} moves ({n} plies):");
                    println!("    ⊢ {}", theorem::membership_of("p₀", &witness, value));
                    println!("      where p₀ = {}", theorem::lambda(&witness));
                    println!("      (FEN {})", witness.fen());
                }
            }
        }
    }
    Ok(if status.is_none() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The FEN of the position of a category whose table stores it with the colours exchanged.
fn flipped_fen(fen: &str, flipped: bool) -> Result<String> {
    if !flipped {
        return Ok(fen.to_string());
    }
    let p = crate::parse_position(fen)?;
    let ranks = p.board().ranks();
    let men = p.men().map(|(sq, (side, piece))| {
        (
            retro_rules::Square::new(sq.file, ranks - 1 - sq.rank),
            (retro_rules::opponent(side), piece),
        )
    });
    let stm = retro_rules::opponent(retro_rules::position::to_move(&p));
    Ok(Position::new(p.board(), stm, men, None)?.fen())
}

fn prove_position(fen: &str, dir: PathBuf) -> Result<ExitCode> {
    let p = crate::parse_position(fen)?;
    let board = p.board();
    let checker = Checker::new(board, &dir);
    let men = retro_verify::stored(Men::of_position(&p));
    let value = checker
        .value(&p)
        .with_context(|| format!("reading the table of {men}"))?;
    let status = certificate::established(&checker, &men)?;
    println!("Position {}", p.fen());
    println!("  p = {}", theorem::lambda(&p));
    println!("  ⊢ {}", theorem::membership(&p, value));
    println!(
        "  In words: {}",
        retro_tablebase::probe::describe(retro_rules::position::to_move(&p), value)
    );
    println!(
        "  Rests on the table {} ({} on {board}).",
        checker.path_of(&men).display(),
        men
    );
    match status {
        None => {
            println!(
                "  Established by `retro verify` (certificate {}).",
                checker.certificate_path(&men).display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Some(reason) => {
            println!("  NOT ESTABLISHED: {reason}.");
            Ok(ExitCode::FAILURE)
        }
    }
}
