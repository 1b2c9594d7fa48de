//! `retro freeze`: the Endgame Freezer from the command line — read a problem file, build the
//! tables its look-ups need, solve the index, and report the start position's value with the
//! assumptions it rests on, the best moves and the main line.

use crate::support::{peak_memory_mib, tables_dir, Bars};
use anyhow::{anyhow, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use retro_engine::notation::{san, uci};
use retro_engine::{Move, Position};
use retro_freezer::{Analysis, Outcome, Problem, Step, Verdict, WorkLayout};
use retro_gen::Builder;
use retro_rules::{opponent, Side};
use retro_tablebase::report::{numbered_sans, pgn_game};
use retro_tablebase::Tablebase;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

/// What `retro freeze` is asked.
#[derive(clap::Args)]
pub struct FreezeArgs {
    /// The problem file (TOML; see examples/freezer/).
    problem: PathBuf,
    /// The tables directory for look-ups, built there on demand (default: $RETRO_TABLES,
    /// else ./tables).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: FreezeFormat,
    /// Browse the solved index: report this position (FEN) instead of the start.
    #[arg(long)]
    probe: Option<String>,
    /// Also print the main line as PGN.
    #[arg(long)]
    pgn: bool,
    /// No progress bars.
    #[arg(long)]
    quiet: bool,
    /// Export the start position's result as an oracle file (a certificate the kernel's
    /// checker confirms): only a proof can be exported; the tables look-ups read are
    /// verified first where they have no certificate.
    #[arg(long)]
    oracle: Option<PathBuf>,
    /// Keep the solved index in DIR (PROBLEM's stem, `.freeze`); a later run of the same
    /// problem file with `--save DIR` reads it instead of solving (`--probe` browses it).
    #[arg(long)]
    save: Option<PathBuf>,
    /// The work layout while solving: `wide` (4 bytes per entry and side, and 8 per decided
    /// entry: quickest), `narrow` (1 byte per entry and side, for index spaces beyond 2^32
    /// entries; depths up to 181 plies), `auto` (wide while it needs at most 6 GiB).
    #[arg(long, value_enum, default_value = "auto")]
    layout: LayoutArg,
}

/// The work layout of `retro freeze`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LayoutArg {
    /// Wide while it needs at most 6 GiB, else narrow.
    Auto,
    /// 4 bytes per entry and side, and 8 per decided entry.
    Wide,
    /// 1 byte per entry and side.
    Narrow,
}

/// Output format of `retro freeze`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum FreezeFormat {
    /// Sentences.
    Text,
    /// JSON.
    Json,
}

struct FreezeBars {
    quiet: bool,
    bar: Mutex<Option<ProgressBar>>,
}

impl retro_gen::Observer for FreezeBars {
    fn phase(&self, _subject: &str, phase: retro_gen::Phase, steps: u64) {
        if self.quiet {
            return;
        }
        let bar = ProgressBar::new(steps);
        bar.set_style(
            ProgressStyle::with_template(
                "{msg:>24} {bar:30} {human_pos:>12}/{human_len}  {elapsed} (~{eta} left)",
            )
            .expect("a valid template"),
        );
        bar.set_message(match phase {
            retro_gen::Phase::Init => "generating moves",
            retro_gen::Phase::Retrograde => "retrograde, by depth",
            retro_gen::Phase::Rules => "retrograde, by rule",
        });
        if let Some(old) = self.bar.lock().expect("no panics").replace(bar) {
            old.finish_and_clear();
        }
    }

    fn progressed(&self, steps: u64) {
        if let Some(bar) = self.bar.lock().expect("no panics").as_ref() {
            bar.inc(steps);
        }
    }
}

impl FreezeBars {
    fn done(&self) {
        if let Some(bar) = self.bar.lock().expect("no panics").take() {
            bar.finish_and_clear();
        }
    }
}

/// One move of a line or a list, as printed.
struct Shown {
    san: String,
    uci: String,
    /// The value for the side that makes the move.
    verdict: Verdict,
    /// Where it leaves the index, if it does.
    exit: Option<String>,
}

pub fn freeze(args: FreezeArgs) -> Result<ExitCode> {
    let FreezeArgs {
        problem: problem_file,
        dir,
        format,
        probe,
        pgn,
        quiet,
        oracle,
        save,
        layout,
    } = args;
    let layout = match layout {
        LayoutArg::Auto => WorkLayout::Auto,
        LayoutArg::Wide => WorkLayout::Wide,
        LayoutArg::Narrow => WorkLayout::Narrow,
    };
    let path = problem_file.as_path();
    let start_time = Instant::now();
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the problem file {}", path.display()))?;
    let problem = Problem::parse(&text).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    let board = problem.geo.board();
    let dir = tables_dir(dir);
    // Every exit a fixed rule does not value is looked up: its tables first.
    let needed =
        retro_freezer::tables_needed(&problem).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    retro_freezer::Space::new(&problem).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    if !needed.is_empty() {
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        let bars = Bars::new(quiet).lines_to_stderr();
        Builder::new(board, &dir)
            .build(&needed, &bars)
            .with_context(|| {
                format!("building the tables the look-ups need in {}", dir.display())
            })?;
    }
    let tables = Tablebase::new(board, &dir);
    let bars = FreezeBars {
        quiet,
        bar: Mutex::new(None),
    };
    let saved_path = save
        .as_deref()
        .map(|d| retro_freezer::saved::saved_path(d, path));
    let loaded = match &saved_path {
        Some(file) => retro_freezer::saved::load(&problem, &tables, &text, file)?,
        None => None,
    };
    let reused = loaded.is_some();
    let analysis = match loaded {
        Some(a) => a,
        None => Analysis::solve_with(&problem, &tables, layout, &bars)
            .map_err(|e| anyhow!("{}: {e}", path.display()))?,
    };
    bars.done();
    if let (Some(file), false) = (&saved_path, reused) {
        retro_freezer::saved::save(&analysis, &text, file)?;
    }
    let saved_note = saved_path.as_ref().map(|file| {
        if reused {
            format!(
                "the analysis saved in {} (not solved again)",
                file.display()
            )
        } else {
            format!("saved to {}", file.display())
        }
    });
    let seconds = start_time.elapsed().as_secs_f64();

    let (position, label) = match &probe {
        Some(fen) => {
            let natural = retro_engine::fen::natural_of_fen(fen)?;
            if natural.board() != board {
                return Err(anyhow!(
                    "'{fen}' is on a {} board; the problem is on {board}",
                    natural.board()
                ));
            }
            let p = retro_engine::fen::engine_of_natural(&problem.geo, fen, &natural)?;
            (p, "probed")
        }
        None => (problem.start, "start"),
    };
    let to_move = position.side_to_move();
    let index = analysis.index_of(&position).ok_or_else(|| {
        anyhow!(
            "{} is not a position of this index: it has other men, a man off its squares, or an en-passant square no double step inside the index gives",
            position.to_natural(&problem.geo).fen()
        )
    })?;
    let verdict = analysis
        .verdict(to_move, index)
        .expect("a legal position has a value");
    let best = shown_moves(&analysis, to_move, index)?;
    let line = main_line(&analysis, to_move, index)?;
    let fen = position.to_natural(&problem.geo).fen();
    let counts = [Side::White, Side::Black].map(|s| analysis.counts(s));
    let longest_win = counts
        .iter()
        .filter_map(|c| c.longest_win.map(|l| l.0))
        .max();
    let longest_loss = counts
        .iter()
        .filter_map(|c| c.longest_loss.map(|l| l.0))
        .max();
    let assumptions = analysis.assumptions();
    let relevant = relevant_assumptions(verdict, to_move, &assumptions);
    let exported = oracle.as_deref().map(|out| {
        export(
            &analysis,
            &needed,
            &dir,
            out,
            quiet,
            format == FreezeFormat::Text,
        )
    });
    let peak = peak_memory_mib();
    let size = analysis.space().size();
    // Positions after a double step inside the index that en passant answers, beside the index.
    let ep_entries = analysis.space().entries() - size;
    let exit = match &exported {
        Some(Err(_)) => ExitCode::FAILURE,
        _ => ExitCode::SUCCESS,
    };

    if format == FreezeFormat::Json {
        let (value, dtm) = match verdict {
            Verdict::Win(d) => ("win", d),
            Verdict::Loss(d) => ("loss", d),
            Verdict::Draw => ("draw", None),
        };
        let out = json!({
            "problem": path.display().to_string(),
            "title": problem.title,
            "board": board.to_string(),
            "entries": 2 * size,
            "entries_per_side": size,
            "ep_entries_per_side": ep_entries,
            label: {
                "fen": fen,
                "value": value,
                "dtm": dtm,
                "by_rule": verdict.plies().is_none() && verdict != Verdict::Draw,
                "proof": verdict.plies().is_some(),
                "assumptions": relevant.iter().map(|a| json!({"rule": a.text, "exits": a.exits})).collect::<Vec<_>>(),
            },
            "best_moves": best.iter().map(|m| json!({"san": m.san, "uci": m.uci, "value": m.verdict.describe(), "exit": m.exit})).collect::<Vec<_>>(),
            "main_line": line.iter().map(|m| m.san.clone()).collect::<Vec<_>>(),
            "longest_win_plies": longest_win,
            "longest_loss_plies": longest_loss,
            "counts": counts.iter().zip(["white_to_move", "black_to_move"]).map(|(c, name)| (name.to_string(), json!({
                "legal": c.legal, "wins": c.wins, "wins_by_rule": c.rule_wins, "draws": c.draws,
                "losses_by_rule": c.rule_losses, "losses": c.losses,
                "longest_win_plies": c.longest_win.map(|l| l.0), "longest_loss_plies": c.longest_loss.map(|l| l.0),
            }))).collect::<serde_json::Map<_, _>>(),
            "depth_passes": analysis.depth_passes(),
            "layout": analysis.layout().name(),
            "saved": saved_path.as_ref().map(|f| f.display().to_string()),
            "reused_saved": reused,
            "seconds": seconds,
            "peak_bytes": peak.map(|m| (m * 1024.0 * 1024.0) as u64),
            "oracle": match &exported {
                None => serde_json::Value::Null,
                Some(Ok(e)) => json!({
                    "file": e.file.display().to_string(), "valid": true, "nodes": e.nodes,
                    "friend": e.friend, "goal": e.goal, "tables": e.tables,
                }),
                Some(Err(e)) => json!({ "valid": false, "error": format!("{e:#}") }),
            },
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        if let Some(Err(e)) = &exported {
            eprintln!("error: no oracle written: {e:#}");
        }
        return Ok(exit);
    }

    if let Some(title) = &problem.title {
        println!("{title}");
    }
    println!(
        "Problem: {} on {board}, {} men",
        path.display(),
        problem.men.len()
    );
    let ep_note = if ep_entries > 0 {
        format!(" and {ep_entries} en-passant entries per side (positions after a double step that en passant answers)")
    } else {
        String::new()
    };
    println!(
        "Index: {size} entries per side to move ({} in all){ep_note}; {} depth passes; {} layout ({} byte{} per entry and side)",
        2 * size,
        analysis.depth_passes(),
        analysis.layout().name(),
        analysis.layout().bytes_per_entry(),
        if analysis.layout().bytes_per_entry() == 1 { "" } else { "s" },
    );
    println!("Position ({label}): {fen}, {} to move", side_name(to_move));
    println!("Value: {}", verdict_sentence(verdict, to_move));
    match verdict.plies() {
        Some(_) => println!(
            "  A proof: every line of it ends in mate or in a table look-up, and every move of \
             the defence is counted; restrictions only take options from the winner, so it \
             mates in at most this many moves in chess."
        ),
        None => {
            if relevant.is_empty() {
                println!("  No fixed-value rule valued an exit in its favour: it holds in chess.");
            } else {
                println!("  It holds provided:");
                for a in &relevant {
                    println!(
                        "    - {} ({} exits of the index so valued)",
                        a.text, a.exits
                    );
                }
            }
        }
    }
    println!("Best moves:");
    for m in best.iter().take(8) {
        let exit = m.exit.as_ref().map_or(String::new(), |e| format!("; {e}"));
        println!("  {:<8} {:<6} {}{exit}", m.san, m.uci, m.verdict.describe());
    }
    if !line.is_empty() {
        println!("Main line: {}", numbered(&line, to_move));
        if let Some(exit) = line.last().and_then(|m| m.exit.as_ref()) {
            println!("  (then out of the index: {exit})");
        }
    }
    for (c, s) in counts.iter().zip([Side::White, Side::Black]) {
        let longest = |l: Option<(u32, u64)>| {
            l.and_then(|(plies, i)| {
                analysis
                    .position_at(s, i)
                    .map(|p| format!("{plies} plies ({})", p.to_natural(&problem.geo).fen()))
            })
            .unwrap_or_else(|| "none".into())
        };
        println!(
            "{} to move: {} legal; {} wins with a depth, {} by rule; {} draws; {} losses by rule, {} with a depth; longest win {}; longest loss {}",
            side_name(s), c.legal, c.wins, c.rule_wins, c.draws, c.rule_losses, c.losses,
            longest(c.longest_win), longest(c.longest_loss)
        );
    }
    println!(
        "Time: {seconds:.2} s{}",
        peak.map_or(String::new(), |m| format!("; peak memory {m:.0} MiB"))
    );
    if let Some(note) = &saved_note {
        println!("Database: {note}");
    }
    match &exported {
        Some(Ok(e)) => println!(
            "Oracle: {} — a certificate that {} {} from the start, {} nodes ({} bytes), confirmed by the kernel's oracle checker{}",
            e.file.display(),
            e.friend,
            if e.goal == "win" { "wins" } else { "does not lose" },
            e.nodes,
            e.bytes,
            if e.tables.is_empty() {
                String::new()
            } else {
                format!("; its leaves read the certified tables {}", e.tables.join(", "))
            }
        ),
        Some(Err(e)) => eprintln!("error: no oracle written: {e:#}"),
        None => {}
    }
    if pgn && !line.is_empty() {
        println!();
        print!("{}", pgn_text(&problem, &position, verdict, &line));
    }
    Ok(exit)
}

/// An oracle written from a Freezer result.
struct Exported {
    file: PathBuf,
    nodes: usize,
    bytes: usize,
    friend: &'static str,
    goal: &'static str,
    tables: Vec<String>,
}

/// Certifies the tables the look-ups read (checking those without a certificate that still
/// holds), exports the start position's result as an oracle, writes it and confirms it with
/// the kernel's oracle checker.
fn export(
    analysis: &Analysis<'_>,
    needed: &[retro_engine::Material],
    dir: &Path,
    out: &Path,
    quiet: bool,
    text: bool,
) -> Result<Exported> {
    let board = analysis.problem().geo.board();
    if !needed.is_empty() {
        let checker = retro_verify::Checker::new(board, dir);
        let names: Vec<String> = needed.iter().map(|m| m.to_string()).collect();
        let plan = checker.plan(&names.iter().map(String::as_str).collect::<Vec<_>>())?;
        // A line per table as it is checked (on standard error, so JSON output stays clean).
        let mut log: Box<dyn std::io::Write> = if text {
            Box::new(std::io::stderr())
        } else {
            Box::new(std::io::sink())
        };
        let checked = crate::verify::check_all(
            &checker,
            &plan,
            retro_format::TableKind::Dtm,
            board,
            quiet,
            true,
            &mut log,
        )?;
        if checked.failed > 0 {
            return Err(anyhow!(
                "{} of the tables the look-ups read fail verification",
                checked.failed
            ));
        }
    }
    let settings = retro_oracle::FindSettings {
        improve_seconds: 5.0,
        exact_seconds: 0.0,
        ..retro_oracle::FindSettings::default()
    };
    let (file, _) = retro_freezer::export_oracle(analysis, dir, &settings)?;
    // Checked before it is written: a file that fails the checker is never left behind.
    let report = retro_verify::oracle::check_oracle(&file, &retro_verify::Checker::new(board, dir))
        .context("the exported oracle does not pass the checker; nothing written")?;
    retro_format::oracle::write_oracle(out, &file)?;
    Ok(Exported {
        file: out.to_path_buf(),
        nodes: report.nodes,
        bytes: file.to_bytes().len(),
        friend: match file.friend {
            retro_format::oracle::Colour::White => "White",
            retro_format::oracle::Colour::Black => "Black",
        },
        goal: file.goal.name(),
        tables: file.tables.iter().map(|t| t.material.clone()).collect(),
    })
}

fn side_name(s: Side) -> &'static str {
    if s == Side::White {
        "White"
    } else {
        "Black"
    }
}

/// "White wins: mate in at most 36 moves (71 plies)".
fn verdict_sentence(v: Verdict, to_move: Side) -> String {
    let (winner, plies) = match v {
        Verdict::Draw => return "draw".into(),
        Verdict::Win(d) => (to_move, d),
        Verdict::Loss(d) => (opponent(to_move), d),
    };
    match plies {
        Some(0) => format!("{} is checkmated", side_name(to_move)),
        Some(d) => format!(
            "{} wins: mate in at most {} moves ({d} plies with {} to move)",
            side_name(winner),
            d.div_ceil(2),
            side_name(to_move)
        ),
        None => format!(
            "{} wins by rule (no depth: a fixed-value rule decides)",
            side_name(winner)
        ),
    }
}

/// The fired rules a value by rule or a draw rests on: those in the favour of the side that
/// gets the result (for a draw, of either side).
fn relevant_assumptions(
    v: Verdict,
    to_move: Side,
    all: &[retro_freezer::Assumption],
) -> Vec<retro_freezer::Assumption> {
    let favours = |o: Outcome| -> bool {
        match v {
            Verdict::Draw => true,
            Verdict::Win(None) | Verdict::Loss(None) => {
                let winner = if matches!(v, Verdict::Win(_)) {
                    to_move
                } else {
                    opponent(to_move)
                };
                (winner == Side::White) == (o == Outcome::WhiteWins) && o != Outcome::Draw
            }
            _ => false,
        }
    };
    all.iter().filter(|a| favours(a.outcome)).cloned().collect()
}

fn describe_step(analysis: &Analysis<'_>, step: &Step, after: Side) -> Option<String> {
    let problem = analysis.problem();
    match step {
        Step::Stays(_) => None,
        Step::Exits(v, None) => Some(format!(
            "table look-up: {} for {}",
            v.describe(),
            side_name(after)
        )),
        Step::Exits(_, Some((rule, o))) => Some(match rule {
            retro_freezer::solve::RuleRef::Elsewhere(i) => {
                format!(
                    "{} leaves its squares: {} (line {})",
                    problem.man_name(*i),
                    o.word(),
                    problem.men[*i].line
                )
            }
            retro_freezer::solve::RuleRef::Capture(k) => {
                format!(
                    "capture rule of line {}: {}",
                    problem.captures[*k].line,
                    o.word()
                )
            }
            retro_freezer::solve::RuleRef::Promotion(k) => {
                format!(
                    "promotion rule of line {}: {}",
                    problem.promotions[*k].line,
                    o.word()
                )
            }
        }),
    }
}

fn notate(analysis: &Analysis<'_>, to_move: Side, index: u64, mv: &Move) -> (String, String) {
    let geo = &analysis.problem().geo;
    let pos: Position = analysis
        .position_at(to_move, index)
        .expect("a legal position")
        .resized()
        .expect("16 men fit");
    let legal = pos.legal_moves(geo);
    let after = pos.play(geo, mv);
    (san(geo, &legal, mv, &after), uci(geo, mv))
}

fn shown_moves(analysis: &Analysis<'_>, to_move: Side, index: u64) -> Result<Vec<Shown>> {
    Ok(analysis
        .rated_moves(to_move, index)?
        .into_iter()
        .map(|(mv, step, verdict)| {
            let (san, uci) = notate(analysis, to_move, index, &mv);
            Shown {
                san,
                uci,
                verdict,
                exit: describe_step(analysis, &step, opponent(to_move)),
            }
        })
        .collect())
}

/// The best line from a position with a depth: quickest mate against the longest defence, up
/// to mate or an exit. Empty for draws and values by rule.
fn main_line(analysis: &Analysis<'_>, mut to_move: Side, mut index: u64) -> Result<Vec<Shown>> {
    let mut line = Vec::new();
    while analysis
        .verdict(to_move, index)
        .and_then(|v| v.plies())
        .is_some_and(|d| d > 0)
    {
        let moves = analysis.rated_moves(to_move, index)?;
        let Some((mv, step, verdict)) = moves.into_iter().next() else {
            break;
        };
        let (san, uci) = notate(analysis, to_move, index, &mv);
        let exit = describe_step(analysis, &step, opponent(to_move));
        line.push(Shown {
            san,
            uci,
            verdict,
            exit,
        });
        match step {
            Step::Stays(child) => {
                index = child;
                to_move = opponent(to_move);
            }
            Step::Exits(..) => break,
        }
        if line.len() > 1000 {
            break;
        }
    }
    Ok(line)
}

fn pgn_text(
    problem: &Problem,
    start: &retro_freezer::FreezerPosition,
    v: Verdict,
    line: &[Shown],
) -> String {
    let to_move = start.side_to_move();
    let result = match v {
        Verdict::Win(_) if to_move == Side::White => "1-0",
        Verdict::Loss(_) if to_move == Side::Black => "1-0",
        Verdict::Win(_) | Verdict::Loss(_) => "0-1",
        Verdict::Draw => "1/2-1/2",
    };
    let event = problem
        .title
        .clone()
        .unwrap_or_else(|| "retro freeze main line".into());
    pgn_game(
        &event,
        &start.to_natural(&problem.geo).fen(),
        problem.geo.board(),
        result,
        &format!("retro freeze: {}", v.describe()),
        &numbered(line, to_move),
    )
}

/// The SAN of a line with move numbers, `first` to move at move 1.
fn numbered(line: &[Shown], first: Side) -> String {
    numbered_sans(line.iter().map(|m| m.san.as_str()), first, 1)
}
