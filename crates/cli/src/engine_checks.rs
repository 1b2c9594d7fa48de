//! `retro perft` and `retro selfcheck`: the engine's moves counted (perft, the natural model's
//! or the engine's, divided by first move) and the engine checked against the natural model
//! over every table of a board.
//!
//! Owns: the two commands' printing. Must never: count or compare anything itself (that is
//! `retro_engine::perft` and `retro_engine::selfcheck`).

use crate::parse_position;
use anyhow::{bail, Result};
use indicatif::{ProgressBar, ProgressStyle};
use retro_engine::selfcheck::{self, Scope};
use retro_engine::{perft, Geometry};
use retro_rules::Board;
use std::io::IsTerminal;
use std::process::ExitCode;
use std::time::Instant;

pub(crate) fn perft_command(
    fen: &str,
    depth: u32,
    natural: bool,
    divide: bool,
) -> Result<ExitCode> {
    let position = parse_position(fen)?;
    let start = Instant::now();
    if natural {
        if divide {
            bail!("--divide is available with the engine only");
        }
        let nodes = perft::perft_natural(&position, depth);
        report_perft(nodes, start);
        return Ok(ExitCode::SUCCESS);
    }
    let geo = Geometry::new(position.board());
    let fast = retro_engine::fen::engine_of_natural(&geo, fen, &position)?;
    if divide {
        let mut total = 0;
        for (uci, nodes) in perft::divide(&geo, &fast, depth) {
            println!("{uci}: {nodes}");
            total += nodes;
        }
        report_perft(total, start);
    } else {
        report_perft(perft::perft(&geo, &fast, depth), start);
    }
    Ok(ExitCode::SUCCESS)
}

fn report_perft(nodes: u64, start: Instant) {
    let seconds = start.elapsed().as_secs_f64();
    println!("nodes: {nodes}");
    println!(
        "time: {seconds:.3} s ({:.0} nodes/s)",
        nodes as f64 / seconds.max(1e-9)
    );
}

pub(crate) fn selfcheck_command(
    board: Option<Board>,
    pieces: Option<u8>,
    full: bool,
    pawns: bool,
    quiet: bool,
) -> Result<ExitCode> {
    let mut scopes = if full {
        Scope::full()
    } else if board.is_some() || pieces.is_some() {
        vec![Scope {
            board: board.unwrap_or_default(),
            max_men: usize::from(pieces.unwrap_or(3)),
            pawns: true,
        }]
    } else {
        Scope::defaults()
    };
    for scope in &mut scopes {
        scope.pawns = pawns;
    }
    let description: Vec<String> = scopes
        .iter()
        .map(|s| {
            format!(
                "{} up to {} men{}",
                s.board,
                s.max_men,
                if s.pawns { "" } else { " (no pawns)" }
            )
        })
        .collect();
    println!("selfcheck: {}", description.join("; "));
    let total: usize = scopes.iter().map(|s| s.materials().len()).sum();
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(total as u64)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{bar:40} {pos}/{len} materials, {elapsed} elapsed, ~{eta} left  {msg}",
        )
        .expect("a valid template"),
    );
    // Where no bar can be drawn (a log file, a pipe), a line per material shows the run is alive.
    let log_lines = !quiet && !std::io::stderr().is_terminal();
    let start = Instant::now();
    let report = selfcheck::run(&scopes, &|p| {
        bar.set_position(p.done as u64);
        bar.set_message(format!("{} on {}", p.material, p.board));
        if log_lines {
            eprintln!(
                "selfcheck: {} on {} done ({}/{} materials, {:.0} s elapsed)",
                p.material,
                p.board,
                p.done,
                p.total,
                start.elapsed().as_secs_f64()
            );
        }
    });
    bar.finish_and_clear();
    println!("materials: {}", report.materials);
    println!(
        "positions checked: {} ({} legal)",
        report.positions, report.legal
    );
    println!("moves compared with the natural model: {}", report.moves);
    println!("un-moves checked against moves: {}", report.retractions);
    println!("time: {:.1} s", report.elapsed.as_secs_f64());
    if report.passed() {
        println!("result: PASS — the engine agrees with the natural model on every position");
        Ok(ExitCode::SUCCESS)
    } else {
        println!(
            "result: FAIL — {} checks failed; the first ones:",
            report.failure_count
        );
        for f in &report.failures {
            println!("  {f}");
        }
        Ok(ExitCode::FAILURE)
    }
}
