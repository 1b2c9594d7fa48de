//! `retro strategy`: the KRK strategy of Janičić, Marić and Maliković — its retrograde
//! verification on n×n boards with the optimal depth beside it, its lemmas, and a game of the
//! strategy against the database's best defence.

use crate::support::{engine_position, tables_dir, Bars};
use anyhow::{bail, Context, Result};
use retro_engine::Material;
use retro_gen::Builder;
use retro_rules::{Board, Side};
use retro_strategy::lemmas::{check_lemmas, StrategyGraph};
use retro_strategy::notions::room;
use retro_strategy::retro::{verify, Mode, Outcome};
use retro_strategy::{Breakage, Kind, Krk, Strategy};
use retro_tablebase::stats::material_stats;
use retro_tablebase::{Tablebase, Value};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;
use std::str::FromStr;

/// Board sides: `8`, or a range `4-16`.
#[derive(Debug, Clone, Copy)]
pub struct Sides {
    first: u8,
    last: u8,
}

impl FromStr for Sides {
    type Err = String;

    fn from_str(text: &str) -> Result<Sides, String> {
        let side = |t: &str| -> Result<u8, String> {
            let n: u8 = t
                .trim()
                .parse()
                .map_err(|_| format!("'{t}' is not a board side (a number from 4 to 40)"))?;
            if !(4..=40).contains(&n) {
                return Err(format!(
                    "board side {n} is out of range: the strategy needs 4 to 40"
                ));
            }
            Ok(n)
        };
        let (first, last) = match text.split_once('-') {
            Some((a, b)) => (side(a)?, side(b)?),
            None => (side(text)?, side(text)?),
        };
        if first > last {
            return Err(format!("empty range {text}: write the smaller side first"));
        }
        Ok(Sides { first, last })
    }
}

/// Output formats of `retro strategy krk`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum KrkFormat {
    /// A table for people.
    Table,
    /// Tab-separated values, one row per board.
    Tsv,
    /// JSON, one object per board.
    Json,
}

/// Conditions a broken strategy drops, for showing that the checkers catch it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Broken {
    /// Squeeze without "the rook is not exposed".
    SqueezeMayExposeRook,
    /// Approach without "the rook divides the kings or there is an L-pattern".
    ApproachMayUndivide,
    /// RookHome into any line next to the white king, with no preference.
    RookHomeAnyLine,
    /// RookSafeSmallBoards measured to the white king, as the paper's text reads.
    SmallBoardsLiteral,
}

pub fn strategy_with(broken: &[Broken]) -> Strategy {
    let mut b = Breakage::default();
    for x in broken {
        match x {
            Broken::SqueezeMayExposeRook => b.squeeze_may_expose_rook = true,
            Broken::ApproachMayUndivide => b.approach_may_undivide = true,
            Broken::RookHomeAnyLine => b.rook_home_any_line = true,
            Broken::SmallBoardsLiteral => b.small_boards_literal = true,
        }
    }
    Strategy { broken: b }
}

/// The longest optimal win of KRvK with White to move on the n×n board, in plies, from the
/// DTM table in `dir` (built if missing); `None` past the engine's 16×16.
fn optimal_longest(n: u8, dir: &PathBuf, quiet: bool) -> Result<Option<u32>> {
    if n > 16 {
        return Ok(None);
    }
    let tb = krvk_tables(n, dir, quiet)?;
    let stats = material_stats(&tb, Material::parse("KRvK")?)?;
    Ok(stats
        .side(Side::White)
        .longest_win
        .as_ref()
        .map(|(plies, _)| *plies))
}

/// The KRvK DTM tables of the n×n board in `dir`, built if missing (n ≤ 16).
fn krvk_tables(n: u8, dir: &PathBuf, quiet: bool) -> Result<Tablebase> {
    let board = Board::new(usize::from(n), usize::from(n)).context("board")?;
    let material = Material::parse("KRvK")?;
    /// Reports nothing (`--quiet`).
    struct Silent;
    impl retro_gen::Observer for Silent {}
    let bars = Bars::new(quiet).lines_to_stderr();
    let observer: &dyn retro_gen::Observer = if quiet { &Silent } else { &bars };
    Builder::new(board, dir)
        .build(&[material], observer)
        .with_context(|| format!("building KRvK on {board} in {}", dir.display()))?;
    Ok(Tablebase::new(board, dir))
}

fn lengths_text(o: &Outcome) -> String {
    o.lengths
        .iter()
        .map(|(plies, count)| format!("{plies}:{count}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// `retro strategy krk`.
pub fn krk(
    sides: Sides,
    relation: bool,
    format: KrkFormat,
    dir: Option<PathBuf>,
    no_optimal: bool,
    broken: &[Broken],
    quiet: bool,
) -> Result<ExitCode> {
    let strategy = strategy_with(broken);
    let mode = if relation {
        Mode::Relation
    } else {
        Mode::Function
    };
    let dir = tables_dir(dir);
    let mut all_passed = true;
    if format == KrkFormat::Tsv {
        let kinds: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
        println!("board\tmode\tpositions\tundefined\tnot_winning\t{}\tlongest_plies\tlongest_moves\toptimal_longest_plies\tseconds\tlongest_fen\tlengths", kinds.join("\t"));
    }
    let mut json_rows = Vec::new();
    for n in sides.first..=sides.last {
        let o = verify(n, &strategy, mode);
        let optimal = if no_optimal {
            None
        } else {
            optimal_longest(n, &dir, quiet)?
        };
        all_passed &= o.passed();
        let count = |k: Kind| o.kinds.get(&k).copied().unwrap_or(0);
        let optimal_text = optimal.map_or("-".to_string(), |p| p.to_string());
        let mode_name = if relation { "relation" } else { "function" };
        match format {
            KrkFormat::Tsv => {
                let kinds: Vec<String> = Kind::ALL.iter().map(|&k| count(k).to_string()).collect();
                println!(
                    "{n}x{n}\t{mode_name}\t{}\t{}\t{}\t{}\t{}\t{}\t{optimal_text}\t{:.3}\t{}\t{}",
                    o.positions,
                    o.undefined,
                    o.not_winning,
                    kinds.join("\t"),
                    o.longest_plies,
                    o.longest_plies.div_ceil(2),
                    o.seconds,
                    o.longest_example,
                    lengths_text(&o)
                );
            }
            KrkFormat::Json => json_rows.push(json!({
                "board": format!("{n}x{n}"),
                "mode": mode_name,
                "positions": o.positions,
                "undefined": o.undefined,
                "not_winning": o.not_winning,
                "kinds": Kind::ALL.iter().map(|&k| (k.name().to_string(), json!(count(k)))).collect::<serde_json::Map<_, _>>(),
                "longest_plies": o.longest_plies,
                "longest_moves": o.longest_plies.div_ceil(2),
                "longest_fen": o.longest_example,
                "optimal_longest_plies": optimal,
                "lengths_plies": o.lengths.iter().map(|(p, c)| (p.to_string(), json!(c))).collect::<serde_json::Map<_, _>>(),
                "failures": o.failures,
                "seconds": o.seconds,
            })),
            KrkFormat::Table => {
                println!("KRK strategy ({mode_name}) on {n}x{n}: {}", if o.passed() { "every position is strategy-winning" } else { "NOT VERIFIED" });
                println!("  legal positions, White to move, rook on the board: {}", o.positions);
                println!("  positions where no strategy move applies:            {}", o.undefined);
                println!("  positions not strategy-winning:                       {}", o.not_winning);
                println!("  positions by the kind of move played:");
                for k in Kind::ALL {
                    println!("    {:<20} {:>12}", k.name(), count(k));
                }
                println!("  longest strategy game: {} plies ({} moves), from {}", o.longest_plies, o.longest_plies.div_ceil(2), o.longest_example);
                match optimal {
                    Some(p) => println!("  longest optimal mate (KRvK DTM table): {p} plies ({} moves)", p.div_ceil(2)),
                    None if no_optimal => {}
                    None => println!("  longest optimal mate: not available (the DTM generator's boards stop at 16x16)"),
                }
                println!("  game lengths (plies: positions): {}", lengths_text(&o).replace(',', ", "));
                println!("  time: {:.2} s", o.seconds);
                for f in &o.failures {
                    println!("  failure: {f}");
                }
            }
        }
    }
    if format == KrkFormat::Json {
        println!("{}", serde_json::to_string_pretty(&json_rows)?);
    }
    Ok(if all_passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `retro strategy lemmas`.
pub fn lemmas(sides: Sides, broken: &[Broken], json_out: bool) -> Result<ExitCode> {
    let strategy = strategy_with(broken);
    let mut all_hold = true;
    let mut rows = Vec::new();
    for n in sides.first..=sides.last {
        let start = std::time::Instant::now();
        let graph = StrategyGraph::build(n, &strategy);
        let build = start.elapsed().as_secs_f64();
        if !json_out {
            println!("Lemmas of the KRK strategy on {n}x{n} ({} canonical positions; relation built in {build:.2} s)", graph.len());
        }
        for r in check_lemmas(&graph) {
            all_hold &= r.holds();
            if json_out {
                rows.push(json!({
                    "board": format!("{n}x{n}"),
                    "lemma": r.lemma.name,
                    "source": r.lemma.source,
                    "statement": r.lemma.statement,
                    "checked": r.checked,
                    "failures": r.failures,
                    "holds": r.holds(),
                    "counterexamples": r.counterexamples,
                    "seconds": r.seconds,
                }));
                continue;
            }
            println!(
                "  {:<7} {:<28} {:<6} {:>12} plays checked, {} counterexamples, {:.2} s",
                r.lemma.source,
                r.lemma.name,
                if r.holds() { "holds" } else { "FAILS" },
                r.checked,
                r.failures,
                r.seconds
            );
            for (i, play) in r.counterexamples.iter().enumerate() {
                println!("      counterexample {}:", i + 1);
                for line in play {
                    println!("        {line}");
                }
            }
        }
    }
    if json_out {
        println!("{}", serde_json::to_string_pretty(&rows)?);
    }
    Ok(if all_hold {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn plies(n: u32) -> String {
    if n == 1 {
        "1 ply".to_string()
    } else {
        format!("{n} plies")
    }
}

fn dtm_words(value: Value) -> String {
    match value {
        Value::Win(p) => format!("mate in {} ({})", p.div_ceil(2), plies(p)),
        Value::Loss(0) => "checkmated".to_string(),
        Value::Loss(p) => format!("mated in {} ({})", p / 2, plies(p)),
        Value::Draw => "draw".to_string(),
        Value::Illegal => "illegal".to_string(),
    }
}

/// `retro strategy play`.
pub fn play(fen: &str, dir: Option<PathBuf>, quiet: bool) -> Result<ExitCode> {
    let mut p = Krk::from_fen(fen)?;
    if !p.is_legal() {
        bail!(
            "'{fen}' is not a legal position (kings adjoining, or the side not to move in check)"
        );
    }
    if p.wr.is_none() {
        bail!("'{fen}' has no white rook: the strategy is for king and rook against king");
    }
    let n = p.n;
    if n > 16 {
        bail!("the DTM tables stop at 16x16; this board is {n}x{n}");
    }
    let dir = tables_dir(dir);
    let tb = krvk_tables(n, &dir, quiet)?;
    let strategy = Strategy::default();
    println!("The KRK strategy (function) against the best defence, on {n}x{n}");
    let mut plies = 0u32;
    let mut optimal_at_start = None;
    loop {
        let (_, _, position) = engine_position(&p.fen())?;
        let value = tb.value(&position)?;
        let rated = tb.rated_moves(&position)?;
        if p.white_to_move {
            optimal_at_start.get_or_insert(value);
            let Some(choice) = strategy.function(&p) else {
                bail!("the strategy has no move in {}", p.fen());
            };
            let uci = choice.mv.name();
            let san = rated
                .iter()
                .find(|m| m.uci == uci)
                .map_or(uci.clone(), |m| m.san.clone());
            plies += 1;
            println!(
                "{:>3}. {:<8} {:<20} room {:>2} → {:>2}   optimal before the move: {}",
                plies.div_ceil(2),
                san,
                choice.kind.name(),
                room(&p),
                room(&choice.after),
                dtm_words(value)
            );
            p = choice.after;
        } else {
            if rated.is_empty() {
                let end = if p.black_in_check() {
                    "checkmate"
                } else {
                    "stalemate"
                };
                println!(
                    "     {end} after {plies} plies ({} moves)",
                    plies.div_ceil(2)
                );
                if let Some(Value::Win(opt)) = optimal_at_start {
                    println!(
                        "     optimal play mates in {opt} plies; the strategy took {} more",
                        plies.saturating_sub(opt)
                    );
                }
                return Ok(if end == "checkmate" {
                    ExitCode::SUCCESS
                } else {
                    ExitCode::FAILURE
                });
            }
            let best = &rated[0];
            plies += 1;
            println!(
                "{:>3}… {:<8} best defence: {}",
                plies.div_ceil(2),
                best.san,
                dtm_words(value)
            );
            let reply = p
                .black_moves()
                .into_iter()
                .find(|(m, _)| m.name() == best.uci);
            let Some((_, q)) = reply else {
                bail!("no black move {} in {}", best.uci, p.fen());
            };
            if q.wr.is_none() {
                println!("     Black takes the rook: the strategy failed");
                return Ok(ExitCode::FAILURE);
            }
            p = q;
        }
        if plies > 4000 {
            bail!("no mate after 4000 plies");
        }
    }
}
