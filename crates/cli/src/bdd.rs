//! The symbolic engine on the command line: `retro table1 --engine bdd`, `retro bdd solve`
//! (one category: counts by depth, node counts, DDDMP export) and `retro bdd bench` (Hurd's
//! ordering and fused-product experiments).

use anyhow::{bail, Context, Result};
use retro_rules::Board;
use retro_symbolic::{Category, Engine, Figures, Ordering, Product, Solver, VariableLayout};
use retro_tablebase::table1::{self, Row};
use serde_json::json;
use std::path::Path;
use std::process::{Command, ExitCode};
use std::time::Instant;

/// Options of the symbolic engine.
#[derive(Debug, Clone, Copy)]
pub struct BddOptions {
    /// Variable ordering.
    pub ordering: Ordering,
    /// Relational products fused or not.
    pub product: Product,
    /// Node table size.
    pub nodes: usize,
    /// Worker threads of the BDD manager.
    pub threads: u32,
}

fn solver(board: Board, men: usize, options: BddOptions) -> Result<Solver> {
    let layout = VariableLayout::new(board.files(), board.ranks(), men, options.ordering);
    let engine = Engine::new(layout, options.nodes, options.threads)?;
    Ok(Solver::new(engine, options.product))
}

fn row(f: &Figures) -> Row {
    let small = |n: u128| u64::try_from(n).expect("counts of 4 men fit in 64 bits");
    Row {
        material: f.name.clone(),
        wtm_max: f.wtm_max.map(|n| n as u32),
        wtm_win: small(f.wtm_win),
        wtm_legal: small(f.wtm_legal),
        btm_max: f.btm_max.map(|n| n as u32),
        btm_win: small(f.btm_win),
        btm_legal: small(f.btm_legal),
    }
}

fn percent(nodes: usize, positions: u128) -> String {
    if positions == 0 {
        "-".into()
    } else {
        format!("{:.2}%", nodes as f64 * 100.0 / positions as f64)
    }
}

/// `retro table1 --engine bdd`.
pub fn table1(tsv: bool, options: BddOptions, quiet: bool) -> Result<ExitCode> {
    let start = Instant::now();
    let mut solver = solver(Board::STANDARD, 4, options)?;
    let paper = table1::paper();
    let mut ours = Vec::new();
    let mut figures = Vec::new();
    for paper_row in &paper {
        let category = Category::parse(&paper_row.material).map_err(anyhow::Error::msg)?;
        let t = Instant::now();
        solver
            .solve(&category)
            .with_context(|| format!("solving {category}"))?;
        let f = solver.figures(&category).expect("solved");
        if !quiet {
            eprintln!(
                "{:>8}  {:.2} s; win sets {} / {} BDD nodes (White / Black to move)",
                f.name,
                t.elapsed().as_secs_f64(),
                f.wtm_nodes.0,
                f.btm_nodes.0
            );
        }
        ours.push(row(&f));
        figures.push(f);
    }
    let seconds = start.elapsed().as_secs_f64();
    if tsv {
        println!("material\twtm_max\twtm_win\twtm_legal\twtm_bdd_win\twtm_bdd_legal\tbtm_max\tbtm_win\tbtm_legal\tbtm_bdd_win\tbtm_bdd_legal");
        for f in &figures {
            let dash = |m: Option<usize>| m.map_or("-".to_string(), |n| n.to_string());
            println!(
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                f.name,
                dash(f.wtm_max),
                f.wtm_win,
                f.wtm_legal,
                f.wtm_nodes.0,
                f.wtm_nodes.1,
                dash(f.btm_max),
                f.btm_win,
                f.btm_legal,
                f.btm_nodes.0,
                f.btm_nodes.1
            );
        }
    } else {
        println!("Hurd's Table 1 from BDDs ({} ordering, {} products): all 4-man pawnless endgames on 8x8", options.ordering, product_name(options.product));
        println!("max = most moves White needs to mate; #win = positions won for White (exact BDD model counts)");
        println!("(a cell marked ≠ differs from the paper, whose value follows the mark)");
        println!();
        print!("{}", table1::to_text(&ours, &paper));
        println!();
        println!("BDD nodes of the winning and legal sets, and as a share of the positions (Hurd's 'bdd' columns):");
        println!(
            "{:<8} {:>10} {:>10} {:>8} {:>8}   {:>10} {:>10} {:>8} {:>8}",
            "", "wtm win", "wtm legal", "win", "legal", "btm win", "btm legal", "win", "legal"
        );
        for f in &figures {
            println!(
                "{:<8} {:>10} {:>10} {:>8} {:>8}   {:>10} {:>10} {:>8} {:>8}",
                f.name,
                f.wtm_nodes.0,
                f.wtm_nodes.1,
                percent(f.wtm_nodes.0, f.wtm_win),
                percent(f.wtm_nodes.1, f.wtm_legal),
                f.btm_nodes.0,
                f.btm_nodes.1,
                percent(f.btm_nodes.0, f.btm_win),
                percent(f.btm_nodes.1, f.btm_legal)
            );
        }
    }
    let differences = table1::differences(&ours, &paper);
    if !tsv {
        println!();
        println!(
            "solved {} categories in {seconds:.1} s; peak live BDD nodes {}",
            figures.len(),
            solver.engine().peak_nodes()
        );
        if differences == 0 {
            println!("all {} rows match the paper on both sides", ours.len());
        } else {
            println!("{differences} cells differ from the paper");
        }
    }
    Ok(if differences == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn product_name(p: Product) -> &'static str {
    match p {
        Product::Fused => "fused",
        Product::Unfused => "unfused",
    }
}

/// `retro bdd solve`.
pub fn solve(
    name: &str,
    board: Board,
    options: BddOptions,
    export: Option<&Path>,
    as_json: bool,
) -> Result<ExitCode> {
    let category = Category::parse(name).map_err(anyhow::Error::msg)?;
    if category.len() > 5 {
        bail!(
            "{category} has {} men; the symbolic engine is set up for at most 5",
            category.len()
        );
    }
    let start = Instant::now();
    let mut solver = solver(board, category.len(), options)?;
    solver
        .solve(&category)
        .with_context(|| format!("solving {category} on {board}"))?;
    let seconds = start.elapsed().as_secs_f64();
    let f = solver.figures(&category).expect("solved");
    let peak = solver.engine().peak_nodes();
    if let Some(path) = export {
        let s = solver.solution(&category).expect("solved");
        let names = [format!("{category}_wtm_win"), format!("{category}_btm_win")];
        let sets = [s.win1.last().expect("a set"), s.win2.last().expect("a set")];
        solver
            .engine()
            .export_dddmp(
                path,
                &format!("{category} on {board}: White's winning sets"),
                &sets,
                &names,
            )
            .with_context(|| format!("writing {}", path.display()))?;
    }
    if as_json {
        let out = json!({
            "category": f.name,
            "board": board.to_string(),
            "ordering": options.ordering.name(),
            "product": product_name(options.product),
            "wtm": { "legal": f.wtm_legal.to_string(), "win": f.wtm_win.to_string(), "max_moves": f.wtm_max,
                     "new_by_depth": f.wtm_by_depth.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
                     "bdd_nodes_win": f.wtm_nodes.0, "bdd_nodes_legal": f.wtm_nodes.1 },
            "btm": { "legal": f.btm_legal.to_string(), "win": f.btm_win.to_string(), "max_moves": f.btm_max,
                     "new_by_depth": f.btm_by_depth.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
                     "bdd_nodes_win": f.btm_nodes.0, "bdd_nodes_legal": f.btm_nodes.1 },
            "peak_live_nodes": peak,
            "seconds": seconds,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{} on {board} by BDDs ({} ordering, {} products), with every category its captures reach",
        f.name,
        options.ordering,
        product_name(options.product)
    );
    println!(
        "  White to move: {} legal positions, {} won for White, longest: {}",
        f.wtm_legal,
        f.wtm_win,
        f.wtm_max.map_or("-".to_string(), |m| format!("{m} moves"))
    );
    println!(
        "  Black to move: {} legal positions, {} won for White, longest: {}",
        f.btm_legal,
        f.btm_win,
        f.btm_max.map_or("-".to_string(), |m| format!("{m} moves"))
    );
    println!(
        "  new positions in win1_by n (White to move, mate in n+1 moves), n = 0, 1, …: {}",
        join(&f.wtm_by_depth)
    );
    println!(
        "  new positions in win2_by n (Black to move, mated in n moves), n = 0, 1, …: {}",
        join(&f.btm_by_depth)
    );
    println!("  BDD nodes: winning sets {} / {}, legal sets {} / {} (White / Black to move); peak live nodes {peak}", f.wtm_nodes.0, f.btm_nodes.0, f.wtm_nodes.1, f.btm_nodes.1);
    println!("  time: {seconds:.2} s");
    if let Some(path) = export {
        println!("  winning sets written to {} (DDDMP)", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn join(v: &[u128]) -> String {
    v.iter()
        .map(|n| n.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

struct Timed {
    seconds: f64,
    peak_nodes: u64,
}

fn timed_solve(args: &[&str]) -> Result<Timed> {
    let exe = std::env::current_exe().context("finding the retro binary")?;
    let start = Instant::now();
    let out = Command::new(exe)
        .args(args)
        .output()
        .context("running retro bdd solve")?;
    let seconds = start.elapsed().as_secs_f64();
    if !out.status.success() {
        bail!(
            "retro {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let value: serde_json::Value =
        serde_json::from_slice(&out.stdout).context("reading the JSON of retro bdd solve")?;
    Ok(Timed {
        seconds,
        peak_nodes: value["peak_live_nodes"].as_u64().unwrap_or(0),
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// `retro bdd bench`: KR_KR in each ordering, fused and unfused products, and all of Table 1.
pub fn bench(runs: u32, with_table1: bool, threads: u32) -> Result<ExitCode> {
    let threads = threads.to_string();
    println!("Symbolic engine benchmark: release build, {} logical CPUs; medians of {runs} runs, each a fresh process", std::thread::available_parallelism().map_or(1, |n| n.get()));
    println!("Hurd (Pentium 4, 3.2 GHz), KR_KR: sequential 1,514 s / 165.8M nodes; interleaved-squares 543 s / 16.4M; interleaved-all 835 s / 84.0M");
    println!();
    println!(
        "{:<34} {:>10} {:>16}",
        "KR_KR", "seconds", "peak live nodes"
    );
    let measure = |ordering: Ordering, unfused: bool| -> Result<(f64, u64)> {
        let mut args = vec![
            "bdd",
            "solve",
            "KR_KR",
            "--ordering",
            ordering.name(),
            "--threads",
            &threads,
            "--json",
        ];
        if unfused {
            args.push("--unfused");
        }
        let mut times = Vec::new();
        let mut peak = 0;
        for _ in 0..runs {
            let t = timed_solve(&args)?;
            times.push(t.seconds);
            peak = t.peak_nodes;
        }
        Ok((median(times), peak))
    };
    let mut best = (f64::MAX, Ordering::InterleavedSquares);
    for ordering in Ordering::ALL {
        let (m, peak) = measure(ordering, false)?;
        if m < best.0 {
            best = (m, ordering);
        }
        println!(
            "{:<34} {:>10.2} {:>16}",
            format!("{ordering}, fused"),
            m,
            peak
        );
    }
    let (unfused, peak) = measure(best.1, true)?;
    println!(
        "{:<34} {:>10.2} {:>16}",
        format!("{}, unfused", best.1),
        unfused,
        peak
    );
    let change = (unfused - best.0) * 100.0 / unfused;
    println!(
        "fused products: {:.0}% {} than unfused (Hurd: 19% faster)",
        change.abs(),
        if change >= 0.0 { "faster" } else { "slower" }
    );
    if with_table1 {
        let exe = std::env::current_exe().context("finding the retro binary")?;
        let start = Instant::now();
        let out = Command::new(exe)
            .args([
                "table1",
                "--engine",
                "bdd",
                "--ordering",
                best.1.name(),
                "--quiet",
                "--format",
                "tsv",
                "--threads",
                &threads,
            ])
            .output()
            .context("running retro table1 --engine bdd")?;
        let seconds = start.elapsed().as_secs_f64();
        if !out.status.success() {
            bail!(
                "retro table1 --engine bdd failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        println!();
        println!("all 4-man pawnless categories of Table 1 ({}): {seconds:.1} s (one run; Hurd: 18,540 s)", best.1);
    }
    Ok(ExitCode::SUCCESS)
}
