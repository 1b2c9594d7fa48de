//! `retro strategy prove`: every lemma the theorem needs is unsatisfiable when negated, for every
//! board side n ≥ 4, by both Z3 and cvc5; the queries are written to rerun by hand; and each
//! broken strategy gets a counterexample that enumeration confirms on its board.
//!
//! Z3 and cvc5 are installed with apt-get when missing (Debian's `z3` and `cvc5`), so the test
//! command needs no preparation on a fresh machine (as root, as CI runs).

mod common;

use common::apt_install;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

fn on_path(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(program))
            .find(|p| p.is_file())
    })
}

/// Z3 and cvc5, installed with apt-get if missing.
fn solvers() {
    let found = || on_path("z3").is_some() && on_path("cvc5").is_some();
    if found() {
        return;
    }
    apt_install(&["z3", "cvc5"]);
    assert!(
        found(),
        "z3 and cvc5 are needed for the proof: `apt-get install z3 cvc5` failed"
    );
}

fn prove(dir: &Path, extra: &[&str]) -> (bool, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(["strategy", "prove", "--json", "--out"])
        .arg(dir)
        .args(extra)
        .output()
        .expect("retro runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let json: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{e}: {text}\n{}", String::from_utf8_lossy(&out.stderr)));
    (out.status.success(), json)
}

#[test]
fn every_lemma_is_proved_for_every_board_side_by_both_solvers() {
    solvers();
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("krk-proof");
    let (ok, report) = prove(&dir, &[]);
    eprintln!("{}", serde_json::to_string_pretty(&report).unwrap());
    assert!(ok, "{report}");
    assert_eq!(report["all_proved"], true);
    assert_eq!(report["from_n"], 4);
    let lemmas = report["lemmas"].as_array().expect("lemmas");
    assert_eq!(lemmas.len(), 9);
    for lemma in lemmas {
        let runs = lemma["solvers"].as_array().expect("solvers");
        assert_eq!(runs.len(), 2, "{lemma}");
        for run in runs {
            assert_eq!(run["answer"], "unsat", "{lemma}");
        }
        assert_eq!(lemma["proved_for_every_n_from"], 4, "{lemma}");
    }
    // Anyone can rerun a query with the solver alone.
    let file = dir.join("rook_kept.z3.smt2");
    let out = Command::new("z3")
        .arg("-smt2")
        .arg(&file)
        .output()
        .expect("z3 runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().next(), Some("unsat"), "{text}");
    let file = dir.join("ready_to_mate.cvc5.smt2");
    let out = Command::new("cvc5")
        .args(["--lang", "smt2"])
        .arg(&file)
        .output()
        .expect("cvc5 runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().next(), Some("unsat"), "{text}");
}

#[test]
fn each_broken_strategy_gets_a_counterexample_confirmed_by_enumeration() {
    solvers();
    for (broken, lemma) in [
        ("squeeze-may-expose-rook", "rook_kept"),
        ("approach-may-undivide", "rook_home_after_home_or_safe"),
        ("rook-home-any-line", "rook_home_not_thrice"),
        ("small-boards-literal", "defined"),
    ] {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("krk-broken-{broken}"));
        let (ok, report) = prove(&dir, &["--broken", broken, "--lemma", lemma]);
        assert!(!ok, "{broken}: {report}");
        let row = &report["lemmas"][0];
        assert_eq!(row["lemma"], lemma);
        assert!(row["proved_for_every_n_from"].is_null(), "{row}");
        let c = &row["counterexample"];
        eprintln!("{broken} breaks {lemma}: n = {}, {}", c["n"], c["start"]);
        let n = c["n"].as_i64().expect("a board side");
        assert!((4..=8).contains(&n), "{c}");
        assert_eq!(c["confirmed_by_enumeration"], true, "{broken}: {c}");
        assert!(c["failing_plays_on_board"].as_u64().unwrap() > 0, "{c}");
    }
}
