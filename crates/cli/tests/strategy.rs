//! `retro strategy`: the TSV of `krk`, the lemmas and a broken variant's counterexample, a game
//! against the best defence, and clear errors for bad input.

mod common;

use common::{retro_with_tables, stderr_text, stdout_text};
use std::process::Command;

#[test]
fn krk_tsv_has_the_paper_figures_and_the_optimal_depth() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = retro_with_tables(
        &[
            "strategy", "krk", "--board", "7-8", "--format", "tsv", "--quiet",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr_text(&out));
    let stdout = stdout_text(&out);
    let mut lines = stdout.lines();
    let header: Vec<&str> = lines.next().expect("a header").split('\t').collect();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), 2);
    let column = |row: &Vec<&str>, name: &str| {
        row[header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("column {name}"))]
        .to_string()
    };
    let eight = &rows[1];
    assert_eq!(column(eight, "board"), "8x8");
    assert_eq!(column(eight, "positions"), "175168");
    assert_eq!(column(eight, "undefined"), "0");
    assert_eq!(column(eight, "Squeeze"), "116504");
    assert_eq!(column(eight, "RookHome"), "32520");
    assert_eq!(column(eight, "longest_plies"), "63");
    // KRvK on 8×8: mate in 16 moves, 31 plies, from the DTM table built on the way.
    assert_eq!(column(eight, "optimal_longest_plies"), "31");
}

#[test]
fn lemmas_hold_and_a_broken_squeeze_is_caught() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = retro_with_tables(&["strategy", "lemmas", "--board", "8"], dir.path());
    assert!(out.status.success(), "{}", stdout_text(&out));
    let stdout = stdout_text(&out);
    assert_eq!(stdout.matches(" holds ").count(), 11, "{stdout}");
    let broken = retro_with_tables(
        &[
            "strategy",
            "lemmas",
            "--board",
            "8",
            "--broken",
            "squeeze-may-expose-rook",
        ],
        dir.path(),
    );
    assert!(!broken.status.success());
    let stdout = stdout_text(&broken);
    assert!(
        stdout.contains("rook_kept") && stdout.contains("FAILS"),
        "{stdout}"
    );
    assert!(
        stdout.contains("(Squeeze)") && stdout.contains("the rook is taken"),
        "{stdout}"
    );
}

#[test]
fn play_mates_against_the_best_defence() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = retro_with_tables(
        &[
            "strategy",
            "play",
            "8/8/8/8/3R4/2k5/8/K7 w - - 0 1",
            "--quiet",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr_text(&out));
    let stdout = stdout_text(&out);
    assert!(
        stdout.contains("RookSafe")
            && stdout.contains("optimal before the move: mate in 14 (27 plies)"),
        "{stdout}"
    );
    // Mate comes no sooner than optimal play allows (27 plies) and no later than the longest
    // strategy game on 8×8 (63 plies).
    let plies: u32 = stdout
        .split("checkmate after ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no mate in {stdout}"));
    assert!((27..=63).contains(&plies), "{plies}");
    assert_eq!(stdout.matches("ImmediateMate").count(), 1, "{stdout}");
}

#[test]
fn bad_input_is_a_clear_error() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (args, needle) in [
        (vec!["strategy", "krk", "--board", "3"], "out of range"),
        (vec!["strategy", "krk", "--board", "9-5"], "empty range"),
        (
            vec!["strategy", "play", "8/8/8/8/3Q4/2k5/8/K7 w - - 0 1"],
            "not a KRK position",
        ),
        (
            vec!["strategy", "play", "8/8/8/8/3R4/2k5/1K6/8 w - - 0 1"],
            "not a legal position",
        ),
        (vec!["strategy", "play", "not a fen"], "not a fen"),
    ] {
        let out = retro_with_tables(&args, dir.path());
        assert!(!out.status.success(), "{args:?}");
        let stderr = stderr_text(&out);
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn a_closed_pipe_ends_quietly() {
    use std::process::Stdio;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut child = Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(["strategy", "krk", "--board", "4-9", "--no-optimal"])
        .env("RETRO_TABLES", dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("it ends");
    let stderr = stderr_text(&out);
    assert!(!stderr.contains("panicked"), "{stderr}");
}
