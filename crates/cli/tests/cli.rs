//! The `retro` binary: output and exit codes of `show`, `perft` and `selfcheck`, and clear
//! errors for bad input.

mod common;

use common::{retro, stderr_text, stdout_text};

#[test]
fn show_lists_moves_in_san_and_uci() {
    let out = retro(&["show", "7k/8/6K1/8/8/8/8/R7 w - - 0 1"]);
    assert!(out.status.success());
    let stdout = stdout_text(&out);
    assert!(stdout.contains("Legal: yes"), "{stdout}");
    assert!(
        stdout.contains("Ra8#") && stdout.contains("a1a8"),
        "{stdout}"
    );
    let mate = retro(&["show", "R6k/8/6K1/8/8/8/8/8 b - - 0 1"]);
    assert!(stdout_text(&mate).contains("Black is checkmated"));
    let json = retro(&["show", "--json", "k7/8/1Q6/8/8/8/8/7K b - - 0 1"]);
    let stdout = stdout_text(&json);
    assert!(
        stdout.contains("\"stalemate\":true") && stdout.contains("\"moves\":[]"),
        "{stdout}"
    );
}

#[test]
fn show_rejects_malformed_fen_with_a_clear_error() {
    let out = retro(&["show", "not a fen"]);
    assert!(!out.status.success());
    let stderr = stderr_text(&out);
    assert!(
        stderr.contains("invalid FEN") && stderr.contains("column 2"),
        "{stderr}"
    );
    let out = retro(&["show", "k7/8/8/8/8/8/8/7K w KQkq - 0 1"]);
    assert!(!out.status.success());
    assert!(stderr_text(&out).contains("castling"));
}

#[test]
fn show_rejects_illegal_positions_with_the_reason() {
    let out = retro(&["show", "k6R/8/1K6/8/8/8/8/8 w - - 0 1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_text(&out).contains("Black is in check but not to move"),
        "{}",
        stderr_text(&out)
    );
    assert!(stdout_text(&out).contains("Legal: no"));
    let out = retro(&["show", "8/8/8/8/8/8/8/8 w - - 0 1"]);
    assert!(!out.status.success());
    assert!(stderr_text(&out).contains("White has no king"));
}

#[test]
fn perft_counts_with_both_models() {
    let out = retro(&[
        "perft",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
        "3",
    ]);
    assert!(stdout_text(&out).contains("nodes: 8902"));
    let out = retro(&[
        "perft",
        "--natural",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
        "2",
    ]);
    assert!(stdout_text(&out).contains("nodes: 400"));
    let out = retro(&[
        "perft",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
        "x",
    ]);
    assert_eq!(out.status.code(), Some(2), "clap rejects a bad depth");
}

#[test]
fn selfcheck_on_a_small_board() {
    let out = retro(&["selfcheck", "--board", "4x4", "--pieces", "3", "--quiet"]);
    assert!(out.status.success());
    let stdout = stdout_text(&out);
    assert!(
        stdout.contains("result: PASS") && stdout.contains("materials: 11"),
        "{stdout}"
    );
    // Without --quiet, and with no terminal to draw a bar on, a line per material.
    let out = retro(&["selfcheck", "--board", "4x4", "--pieces", "3"]);
    assert!(out.status.success());
    let log = stderr_text(&out);
    assert_eq!(log.lines().count(), 11, "{log}");
    assert!(
        log.contains("selfcheck: KvK on 4x4 done (1/11 materials"),
        "{log}"
    );
    let bad = retro(&["selfcheck", "--board", "20x3"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr_text(&bad).contains("invalid board size"));
}
