//! `retro oracle`: build, check and play proof certificates (seed `003`).

use crate::support::{engine_position, tables_dir};
use anyhow::{bail, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use retro_engine::notation::notated_moves;
use retro_format::oracle::{read_oracle, write_oracle, Goal, OracleFile};
use retro_oracle::{find_oracle, reminder, FindSettings, Judge, Player, Skipped, SmallestReport};
use retro_rules::{Board, Side};
use retro_verify::oracle::{
    check_oracle, ordered_moves, replay, NodeKind, OracleError, OracleReport, Replay,
};
use retro_verify::Checker;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The goal on the command line.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum GoalArg {
    /// Every leaf a win for the friend side (no cycles).
    Win,
    /// Every leaf a win or a draw for it (cycles allowed).
    NotLose,
}

/// A side on the command line.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum SideArg {
    /// White.
    White,
    /// Black.
    Black,
}

/// What `retro oracle build` is asked.
#[derive(clap::Args)]
pub struct BuildArgs {
    /// The root position in FEN.
    fen: String,
    /// What every leaf must be for the friend side.
    #[arg(long, value_enum)]
    goal: GoalArg,
    /// The side the oracle plays for (default: the side to move).
    #[arg(long, value_enum)]
    side: Option<SideArg>,
    /// The tables directory: tables guide the moves, certified ones settle leaves (default:
    /// $RETRO_TABLES, else ./tables).
    #[arg(long)]
    dir: Option<PathBuf>,
    /// The oracle file to write.
    #[arg(long)]
    out: PathBuf,
    /// Plies of AND/OR search where no table covers a position (goal win).
    #[arg(long, default_value = "5")]
    depth: u32,
    /// Proof-number search where the bounded search proves nothing (goal win): its budget of
    /// tree nodes (0: none).
    #[arg(long, default_value = "200000")]
    pn_nodes: usize,
    /// Seconds of local search to make the oracle smaller.
    #[arg(long, default_value = "10")]
    improve: f64,
    /// Seconds of exact search by SAT for the smallest oracle, before the local search (0:
    /// none); it runs where the positions an oracle could hold are at most --exact-positions.
    #[arg(long, default_value = "60")]
    exact: f64,
    /// The most positions the exact search takes on.
    #[arg(long, default_value = "100000")]
    exact_positions: usize,
    /// The exact search stops at an oracle of at most this many nodes (default: it goes on
    /// until it shows one is the smallest, or its time runs out).
    #[arg(long, default_value = "0", hide_default_value = true)]
    exact_enough: usize,
    /// The most nodes an oracle may have.
    #[arg(long, default_value = "5000000")]
    max_nodes: usize,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// No spinner.
    #[arg(long)]
    quiet: bool,
}

fn hex(bytes: &[u8; 32]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn spinner(quiet: bool, message: &str) -> ProgressBar {
    if quiet || !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner().with_style(
        ProgressStyle::with_template("{spinner} {msg} {elapsed}").expect("a valid template"),
    );
    bar.set_message(message.to_string());
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}

fn report_json(report: &OracleReport) -> serde_json::Value {
    json!({
        "nodes": report.nodes,
        "friend_nodes": report.friend_nodes,
        "foe_nodes": report.foe_nodes,
        "leaves": {
            "checkmate": report.checkmate_leaves,
            "stalemate": report.stalemate_leaves,
            "table_win": report.table_win_leaves,
            "table_draw": report.table_draw_leaves,
        },
        "shared_edges": report.shared_edges,
        "depth": report.tree_depth,
        "longest_path_plies": report.longest_path,
    })
}

fn print_report(report: &OracleReport) {
    println!(
        "nodes: {} positions (friend {}, foe {}, leaves {}: checkmate {}, stalemate {}, table win {}, table draw {})",
        report.nodes,
        report.friend_nodes,
        report.foe_nodes,
        report.checkmate_leaves
            + report.stalemate_leaves
            + report.table_win_leaves
            + report.table_draw_leaves,
        report.checkmate_leaves,
        report.stalemate_leaves,
        report.table_win_leaves,
        report.table_draw_leaves
    );
    println!(
        "edges to positions already in the oracle: {}; spanning tree depth: {} plies",
        report.shared_edges, report.tree_depth
    );
    if let Some(longest) = report.longest_path {
        println!(
            "longest path to a leaf: {longest} plies (following the oracle, every line reaches a winning leaf within {longest} plies)"
        );
    }
}

/// `retro oracle build`.
pub fn build(args: BuildArgs) -> Result<ExitCode> {
    let root = crate::parse_position(&args.fen)?;
    let friend = match args.side {
        Some(SideArg::White) => Side::White,
        Some(SideArg::Black) => Side::Black,
        None => retro_rules::position::to_move(&root),
    };
    let goal = match args.goal {
        GoalArg::Win => Goal::Win,
        GoalArg::NotLose => Goal::NotLose,
    };
    let dir = tables_dir(args.dir);
    let judge =
        Judge::new(friend, goal, &root, Some(&dir), args.depth).with_proof_numbers(args.pn_nodes);
    let settings = FindSettings {
        limit: args.max_nodes,
        improve_seconds: args.improve,
        exact_seconds: args.exact,
        exact_positions: args.exact_positions,
        exact_enough: args.exact_enough,
        ..FindSettings::default()
    };
    let start = Instant::now();
    let bar = spinner(args.quiet, "finding a small oracle");
    let found = find_oracle(&judge, &root, &settings);
    bar.finish_and_clear();
    let (oracle, report) =
        found.with_context(|| format!("building an oracle from {}", root.fen()))?;
    let file = reminder::to_file(&oracle, &judge.used_tables());
    // Checked before it is written: a file that fails the checker is never left behind.
    let bar = spinner(args.quiet, "checking it with the kernel's checker");
    let checked = check_oracle(&file, &Checker::new(root.board(), &dir));
    bar.finish_and_clear();
    let checked = checked.context("the oracle found does not pass the checker; nothing written")?;
    write_oracle(&args.out, &file)?;
    let seconds = start.elapsed().as_secs_f64();
    if args.json {
        let out = json!({
            "root": root.fen(),
            "friend": friend.to_string().to_lowercase(),
            "goal": goal.name(),
            "file": args.out.display().to_string(),
            "bytes": file.to_bytes().len(),
            "attempts": report.attempts.iter().map(|(round, h, size)| json!({
                "round": round, "heuristic": h.name(), "nodes": size,
            })).collect::<Vec<_>>(),
            "before_search": report.before_search,
            "search_trials": report.search_trials,
            "search_kept": report.search_kept,
            "search_finished": report.search_finished,
            "exact": exact_json(&report.exact),
            "tables": file.tables.iter().map(|t| json!({
                "material": t.material, "body_blake3": hex(&t.body_blake3),
            })).collect::<Vec<_>>(),
            "check": report_json(&checked),
            "seconds": seconds,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "Oracle for {friend}, goal {}, from {}",
        goal.name(),
        root.fen()
    );
    let grown: Vec<String> = report
        .attempts
        .iter()
        .map(|(round, h, size)| format!("{} (round {round}) {size}", h.name()))
        .collect();
    println!("grown: {} nodes", grown.join(", "));
    if let Some(line) = exact_line(&report.exact) {
        println!("{line}");
    }
    if report.proved_minimal() {
        println!("local search: not run (the exact search showed the oracle the smallest)");
    } else {
        println!(
            "local search: {} → {} nodes ({} oracles grown, {} changes kept, {})",
            report.before_search,
            oracle.len(),
            report.search_trials,
            report.search_kept,
            if report.search_finished {
                "no single change helps any more"
            } else {
                "its time ran out"
            }
        );
    }
    for t in &file.tables {
        println!(
            "leaves read the certified table {} (body blake3 {})",
            t.material,
            hex(&t.body_blake3)
        );
    }
    println!("checked by the kernel's checker:");
    print_report(&checked);
    println!(
        "written: {} ({} bytes: {} node bytes, one per position)",
        args.out.display(),
        file.to_bytes().len(),
        file.nodes.len()
    );
    println!("time: {seconds:.2} s");
    Ok(ExitCode::SUCCESS)
}

/// What the exact search did, as a sentence.
fn exact_line(exact: &Option<Result<SmallestReport, Skipped>>) -> Option<String> {
    Some(match exact.as_ref()? {
        Err(Skipped::TooLarge { limit }) => format!(
            "exact search (SAT): not run, more than {limit} positions an oracle could hold (--exact-positions)"
        ),
        Ok(r) => {
            let found = if r.found.is_empty() {
                "no oracle".to_string()
            } else {
                let sizes: Vec<String> = r.found.iter().map(|n| n.to_string()).collect();
                format!("oracles of {} nodes", sizes.join(", "))
            };
            let end = if r.proved_minimal {
                "the solver shows none is smaller: the smallest oracle of these positions"
            } else if r.enough_reached {
                "it stopped there (--exact-enough)"
            } else {
                "its time ran out (--exact) before the solver showed none is smaller"
            };
            format!(
                "exact search (SAT, BatSat): {} positions an oracle could hold; found {found}; {end} ({:.1} s)",
                r.positions, r.seconds
            )
        }
    })
}

fn exact_json(exact: &Option<Result<SmallestReport, Skipped>>) -> serde_json::Value {
    match exact {
        None => serde_json::Value::Null,
        Some(Err(Skipped::TooLarge { limit })) => json!({ "skipped": "too_large", "limit": limit }),
        Some(Ok(r)) => json!({
            "positions": r.positions,
            "found": r.found,
            "proved_minimal": r.proved_minimal,
            "enough_reached": r.enough_reached,
            "seconds": r.seconds,
        }),
    }
}

fn read(path: &Path) -> Result<OracleFile> {
    Ok(read_oracle(path)?)
}

/// The output of `retro oracle check`.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum CheckFormat {
    /// Sentences.
    Text,
    /// JSON.
    Json,
}

/// `retro oracle check`.
pub fn check(path: &Path, dir: Option<PathBuf>, format: CheckFormat) -> Result<ExitCode> {
    let file = read(path)?;
    let board = Board::new(usize::from(file.files), usize::from(file.ranks))
        .with_context(|| format!("{}: the board in its header", path.display()))?;
    let dir = tables_dir(dir);
    let start = Instant::now();
    let checked = check_oracle(&file, &Checker::new(board, &dir));
    let seconds = start.elapsed().as_secs_f64();
    let friend = match file.friend {
        retro_format::oracle::Colour::White => Side::White,
        retro_format::oracle::Colour::Black => Side::Black,
    };
    if let CheckFormat::Json = format {
        let mut out = match &checked {
            Ok(report) => report_json(report),
            Err(_) => json!({}),
        };
        out["file"] = json!(path.display().to_string());
        out["root"] = json!(file.root);
        out["friend"] = json!(file.friend.name());
        out["goal"] = json!(file.goal.name());
        out["valid"] = json!(checked.is_ok());
        out["fault"] = match &checked {
            Ok(_) => serde_json::Value::Null,
            Err(OracleError::Fault(f)) => json!({
                "fen": f.fen, "line": f.line, "problem": f.problem,
            }),
            Err(e) => json!({ "fen": null, "line": [], "problem": e.to_string() }),
        };
        out["seconds"] = json!(seconds);
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(if checked.is_ok() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        });
    }
    let report = match checked {
        Ok(r) => r,
        Err(e) => bail!("{}: {e}", path.display()),
    };
    let claim = match file.goal {
        Goal::Win => format!("{friend} wins"),
        Goal::NotLose => format!("{friend} does not lose"),
    };
    println!(
        "{}: the oracle holds: {claim} from {}",
        path.display(),
        file.root
    );
    print_report(&report);
    for t in &file.tables {
        println!(
            "leaf table {} certified, body blake3 {}",
            t.material,
            hex(&t.body_blake3)
        );
    }
    println!("checked from the natural model in {seconds:.2} s");
    Ok(ExitCode::SUCCESS)
}

/// The SAN of a move of the natural model in `p`.
fn san_of(p: &retro_rules::Position, mv: &retro_rules::Move) -> String {
    let uci = mv.to_string();
    engine_position(&p.fen())
        .ok()
        .and_then(|(_, geo, fast)| {
            notated_moves(&geo, &fast)
                .into_iter()
                .find(|m| m.uci == uci)
                .map(|m| m.san)
        })
        .unwrap_or(uci)
}

/// The moves out of a node of the rebuilt graph, with the nodes they reach.
fn edges(graph: &Replay, k: usize) -> Vec<(retro_rules::Move, usize)> {
    match &graph.nodes[k].kind {
        NodeKind::Leaf => Vec::new(),
        NodeKind::Friend { mv, child } => vec![(*mv, *child)],
        NodeKind::Foe { children } => ordered_moves(&graph.nodes[k].position)
            .into_iter()
            .map(|(m, _)| m)
            .zip(children.iter().copied())
            .collect(),
    }
}

/// Whether the edge from `k` to `child` is the spanning tree's (else `child` was met before).
fn is_tree_edge(graph: &Replay, k: usize, child: usize) -> bool {
    graph.nodes[child].parent.map(|(p, _)| p) == Some(k)
}

fn tree_lines(graph: &Replay, k: usize, depth: usize, indent: usize, out: &mut Vec<String>) {
    if depth == 0 {
        return;
    }
    let p = &graph.nodes[k].position;
    let black = retro_rules::position::to_move(p) == Side::Black;
    for (mv, child) in edges(graph, k) {
        let mut line = format!(
            "{}{}{}",
            "  ".repeat(indent),
            if black { "… " } else { "" },
            san_of(p, &mv)
        );
        if !is_tree_edge(graph, k, child) {
            line.push_str("  (a position met before)");
            out.push(line);
            continue;
        }
        if matches!(graph.nodes[child].kind, NodeKind::Leaf) {
            line.push_str("  (leaf)");
        }
        out.push(line);
        tree_lines(graph, child, depth - 1, indent + 1, out);
    }
}

/// PGN movetext from node `k` (ply counted from the root), the first edge the main line.
fn pgn_moves(graph: &Replay, k: usize, ply: usize, depth: usize, numbered: bool) -> String {
    let all = edges(graph, k);
    if depth == 0 || all.is_empty() {
        return String::new();
    }
    let p = &graph.nodes[k].position;
    let black = retro_rules::position::to_move(p) == Side::Black;
    let number = |force: bool| match (black, force) {
        (false, _) => format!("{}. ", ply / 2 + 1),
        (true, true) => format!("{}... ", ply / 2 + 1),
        (true, false) => String::new(),
    };
    let follow = |child: usize| {
        if is_tree_edge(graph, k, child) {
            pgn_moves(graph, child, ply + 1, depth - 1, false)
        } else {
            String::new()
        }
    };
    let (main_move, main_child) = all[0];
    let mut text = format!("{}{}", number(numbered), san_of(p, &main_move));
    for &(mv, child) in &all[1..] {
        let rest = follow(child);
        text.push_str(&format!(
            " ({}{}{}{})",
            number(true),
            san_of(p, &mv),
            if rest.is_empty() { "" } else { " " },
            rest
        ));
    }
    let rest = if is_tree_edge(graph, k, main_child) {
        pgn_moves(graph, main_child, ply + 1, depth - 1, all.len() > 1)
    } else {
        String::new()
    };
    if !rest.is_empty() {
        text.push(' ');
        text.push_str(&rest);
    }
    text
}

/// `retro oracle show`.
pub fn show(path: &Path, depth: usize, pgn: bool) -> Result<ExitCode> {
    let file = read(path)?;
    let graph = replay(&file).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let root = &graph.nodes[0].position;
    // Move numbers count from the root, White's first move being move 1.
    let first_ply = usize::from(retro_rules::position::to_move(root) == Side::Black);
    if pgn {
        let result = match (file.goal, file.friend) {
            (Goal::Win, retro_format::oracle::Colour::White) => "1-0",
            (Goal::Win, retro_format::oracle::Colour::Black) => "0-1",
            _ => "*",
        };
        println!("[Event \"retro oracle\"]");
        println!("[FEN \"{}\"]", root.fen());
        println!("[SetUp \"1\"]");
        println!("[Result \"{result}\"]");
        println!();
        println!(
            "{} {result}",
            pgn_moves(&graph, 0, first_ply, depth, first_ply == 1)
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{}: oracle for {}, goal {}, {} nodes, from {}",
        path.display(),
        file.friend.name(),
        file.goal.name(),
        graph.nodes.len(),
        root.fen()
    );
    let mut lines = Vec::new();
    tree_lines(&graph, 0, depth, 0, &mut lines);
    for line in lines {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `retro oracle play`.
pub fn play(path: &Path, fen: &str) -> Result<ExitCode> {
    let file = read(path)?;
    let player = Player::compile(&file).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let (natural, geo, position) = engine_position(fen)?;
    let Some(mv) = player.play(&natural) else {
        eprintln!(
            "{} is not one of the oracle's {} positions with {} to move",
            natural.fen(),
            player.len(),
            player.friend()
        );
        return Ok(ExitCode::FAILURE);
    };
    let uci = mv.to_string();
    let san = notated_moves(&geo, &position)
        .into_iter()
        .find(|m| m.uci == uci)
        .map(|m| m.san)
        .unwrap_or_else(|| uci.clone());
    println!("{san} ({uci})");
    Ok(ExitCode::SUCCESS)
}
