//! `retro strategy prove`: the KRK strategy's lemmas for every board size, by SMT solvers run
//! as processes on the queries `retro_strategy::prove` builds; counterexamples confirmed by the
//! exhaustive checker on their board.

use crate::strategy::{strategy_with, Broken};
use anyhow::{bail, Context, Result};
use retro_strategy::lemmas::{check_lemmas, StrategyGraph};
use retro_strategy::prove::{
    bound_plies, query, solve, Answer, Boards, Model, Solver, PROVABLE, PROVED, SMALLEST_N,
};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

/// Which solvers `prove` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Solvers {
    /// Z3 only.
    Z3,
    /// cvc5 only.
    Cvc5,
    /// Both, which must agree.
    Both,
}

impl Solvers {
    fn list(self) -> Vec<Solver> {
        match self {
            Solvers::Z3 => vec![Solver::Z3],
            Solvers::Cvc5 => vec![Solver::Cvc5],
            Solvers::Both => vec![Solver::Z3, Solver::Cvc5],
        }
    }
}

/// The largest board a counterexample is looked for on, so that enumeration can confirm it.
const CONFIRM_UP_TO: u8 = 8;

/// What one solver said about one lemma.
struct Run {
    lemma: usize,
    solver: Solver,
    answer: Answer,
    seconds: f64,
}

/// Runs every (lemma, solver) job on `threads` workers.
fn run_all(
    lemmas: &[&'static str],
    texts: &[Vec<String>],
    solvers: &[Solver],
    threads: usize,
    quiet: bool,
) -> Result<Vec<Run>> {
    // The longest queries first (by their text's length), so the workers end together.
    let mut jobs: Vec<(usize, usize)> = (0..texts.len())
        .flat_map(|l| (0..solvers.len()).map(move |s| (l, s)))
        .collect();
    jobs.sort_by_key(|&(l, s)| {
        std::cmp::Reverse(texts[l][s].len() * (1 + usize::from(solvers[s] == Solver::Cvc5)))
    });
    let next = Mutex::new(0usize);
    let results = Mutex::new(Vec::new());
    let failure: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..threads.max(1) {
            scope.spawn(|| loop {
                let job = {
                    let mut at = next.lock().expect("job counter");
                    let job = jobs.get(*at).copied();
                    *at += 1;
                    job
                };
                let Some((lemma, at)) = job else { break };
                let solver = solvers[at];
                match solve(solver, &texts[lemma][at]) {
                    Ok((answer, seconds)) => {
                        if !quiet {
                            let said = match answer {
                                Answer::Proved => "unsat",
                                Answer::Counterexample(_) => "sat",
                            };
                            eprintln!(
                                "  {} on {}: {said} ({seconds:.2} s)",
                                solver.program(),
                                lemmas[lemma]
                            );
                        }
                        results.lock().expect("results").push(Run {
                            lemma,
                            solver,
                            answer,
                            seconds,
                        })
                    }
                    Err(e) => {
                        failure
                            .lock()
                            .expect("failure")
                            .get_or_insert(anyhow::Error::new(e).context(lemmas[lemma]));
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().expect("failure") {
        return Err(e);
    }
    Ok(results.into_inner().expect("results"))
}

/// A counterexample's board and start, and what enumeration on that board says of the lemma.
fn confirm(lemma: &str, model: &Model, broken: &[Broken]) -> serde_json::Value {
    let (Some(n), Some(start)) = (model.n(), model.start()) else {
        return json!({ "model": format!("{:?}", model.values) });
    };
    let strategy = strategy_with(broken);
    let graph = StrategyGraph::build(start.n, &strategy);
    let report = check_lemmas(&graph)
        .into_iter()
        .find(|r| r.lemma.name == lemma);
    let (failures, example) = report.map_or((0, None), |r| {
        (r.failures, r.counterexamples.first().cloned())
    });
    json!({
        "n": n,
        "start": start.fen(),
        "confirmed_by_enumeration": failures > 0,
        "failing_plays_on_board": failures,
        "example_play": example,
    })
}

fn write_query(dir: &Path, lemma: &str, solver: Solver, text: &str) -> Result<PathBuf> {
    let path = dir.join(format!("{lemma}.{}.smt2", solver.program()));
    retro_format::write_atomically(&path, text.as_bytes())
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(path)
}

/// `retro strategy prove`.
pub fn prove(
    solvers: Solvers,
    out: &Path,
    broken: &[Broken],
    only: &[String],
    whole_board: bool,
    json_out: bool,
) -> Result<ExitCode> {
    let boards = Boards {
        octant: !whole_board,
        ..Boards::default()
    };
    let lemmas: Vec<&'static str> = match only.is_empty() {
        true => PROVED.to_vec(),
        false => PROVABLE
            .iter()
            .copied()
            .filter(|l| only.iter().any(|o| o == l))
            .collect(),
    };
    let solvers = solvers.list();
    let mut versions = Vec::new();
    for s in &solvers {
        versions.push(s.version()?);
    }
    std::fs::create_dir_all(out).with_context(|| format!("making {}", out.display()))?;
    let strategy = strategy_with(broken);
    let started = Instant::now();
    let mut texts = Vec::new();
    for &lemma in &lemmas {
        let q = query(&strategy, lemma, &boards).expect("a proved lemma");
        let mut per_solver = Vec::new();
        for &solver in &solvers {
            let text = q.text(solver);
            write_query(out, lemma, solver, &text)?;
            per_solver.push(text);
        }
        texts.push(per_solver);
    }
    let built = started.elapsed().as_secs_f64();
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let runs = run_all(&lemmas, &texts, &solvers, threads, json_out)?;
    let mut all_proved = true;
    let mut rows = Vec::new();
    if !json_out {
        println!(
            "The KRK strategy's lemmas for every board side n >= {SMALLEST_N} ({}; queries in {})",
            versions.join(", "),
            out.display()
        );
        println!(
            "  n < {SMALLEST_N}: no boards (the strategy is defined from 4x4 on); `retro strategy lemmas --board 4-32` enumerates boards 4 to 32 besides"
        );
    }
    for (i, lemma) in lemmas.iter().enumerate() {
        let mut mine: Vec<&Run> = runs.iter().filter(|r| r.lemma == i).collect();
        mine.sort_by_key(|r| solvers.iter().position(|&s| s == r.solver));
        let proved = mine
            .iter()
            .filter(|r| matches!(r.answer, Answer::Proved))
            .count();
        if proved != 0 && proved != mine.len() {
            bail!(
                "the solvers disagree on lemma {lemma}: {proved} of {} say unsat",
                mine.len()
            );
        }
        let times: Vec<String> = mine
            .iter()
            .map(|r| format!("{} {:.2} s", r.solver.program(), r.seconds))
            .collect();
        let holds = proved == mine.len();
        all_proved &= holds;
        let mut counterexample = serde_json::Value::Null;
        if !holds {
            let solver = mine[0].solver;
            let mut model = match &mine[0].answer {
                Answer::Counterexample(m) => m.clone(),
                Answer::Proved => unreachable!("not proved"),
            };
            if model.n().is_none_or(|n| n > i64::from(CONFIRM_UP_TO)) {
                let small = Boards {
                    up_to_n: Some(CONFIRM_UP_TO),
                    ..boards
                };
                let q = query(&strategy, lemma, &small).expect("a proved lemma");
                if let (Answer::Counterexample(m), _) = solve(solver, &q.text(solver))? {
                    model = m;
                }
            }
            counterexample = confirm(lemma, &model, broken);
        }
        if json_out {
            rows.push(json!({
                "lemma": lemma,
                "proved_for_every_n_from": holds.then_some(SMALLEST_N),
                "solvers": mine.iter().map(|r| json!({
                    "solver": r.solver.program(),
                    "answer": if matches!(r.answer, Answer::Proved) { "unsat" } else { "sat" },
                    "seconds": r.seconds,
                })).collect::<Vec<_>>(),
                "counterexample": counterexample,
                "queries": solvers.iter().map(|s| out.join(format!("{lemma}.{}.smt2", s.program())).display().to_string()).collect::<Vec<_>>(),
            }));
            continue;
        }
        if holds {
            println!(
                "  {lemma:<29} proved for every n >= {SMALLEST_N} ({})",
                times.join(", ")
            );
        } else {
            println!(
                "  {lemma:<29} NOT PROVED: counterexample ({})",
                times.join(", ")
            );
            println!("{}", describe(&counterexample));
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    let solver_seconds: f64 = runs.iter().map(|r| r.seconds).sum();
    if json_out {
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({
                "from_n": SMALLEST_N,
                "lemmas": rows,
                "all_proved": all_proved,
                "seconds": seconds,
                "building_seconds": built,
                "solver_seconds": solver_seconds,
            }))?
        );
    } else {
        println!(
            "  {:.1} s in all: {built:.1} s building the queries, {:.1} s of solver time over {threads} threads (the paper's Table 6: 136 s with Z3)",
            seconds, solver_seconds
        );
        if all_proved && only.is_empty() {
            println!(
                "Theorem: from every legal position with White to move and the rook on the board, on every n x n board with n >= {SMALLEST_N}, every play of the strategy relation mates within 2(3 + 3(2n-4)(2n-1) + 6) - 1 plies (n = 8: {}; n = 32: {})",
                bound_plies(8),
                bound_plies(32)
            );
        }
    }
    Ok(if all_proved {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn describe(c: &serde_json::Value) -> String {
    let mut lines = Vec::new();
    if let Some(start) = c.get("start").and_then(|v| v.as_str()) {
        lines.push(format!(
            "      the solver's play starts on {0}x{0} at {start}",
            c["n"]
        ));
        let failing = c["failing_plays_on_board"].as_u64().unwrap_or(0);
        if failing > 0 {
            lines.push(format!(
                "      confirmed by enumeration on that board: {failing} failing plays, e.g.:"
            ));
            for line in c["example_play"].as_array().into_iter().flatten() {
                lines.push(format!("        {}", line.as_str().unwrap_or_default()));
            }
        } else {
            lines.push("      enumeration on that board finds the lemma holding: the query's candidate moves admit a play the strategy does not".into());
        }
    } else {
        lines.push(format!("      model: {c}"));
    }
    lines.join("\n")
}
