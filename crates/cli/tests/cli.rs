//! The `retro` binary: output and exit codes of `show`, `perft`, `selfcheck` and `bench` (its
//! Syzygy peer), and clear errors for bad input.

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

/// Writes an executable shell script standing for the Syzygy generator: it appends its
/// arguments, working directory and `RTBPATH` to `log`, then runs `body`.
#[cfg(unix)]
fn fake_rtbgen(dir: &std::path::Path, log: &std::path::Path, body: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("rtbgen");
    let script = format!(
        "#!/bin/sh\necho \"$* | $(pwd) | $RTBPATH\" >> '{}'\n{body}\n",
        log.display()
    );
    std::fs::write(&path, script).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// `retro bench --runs 1 ARGS… --syzygy RTBGEN`.
#[cfg(unix)]
fn bench_beside(rtbgen: &std::path::Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["bench", "--runs", "1"];
    all.extend_from_slice(args);
    all.extend(["--syzygy", rtbgen.to_str().unwrap()]);
    retro(&all)
}

/// `retro bench --syzygy`: the peer saves the 3–4-man tables first (no `-g`), then each run
/// generates the suite's tables with `-g`, one process each, in the directory that holds them;
/// its time is reported beside ours.
#[cfg(unix)]
#[test]
fn bench_times_the_syzygy_generator_beside_ours() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("calls.txt");
    let out = bench_beside(
        &fake_rtbgen(dir.path(), &log, "exit 0"),
        &["--suite", "small", "--no-verify", "--json"],
    );
    assert!(out.status.success(), "{}", stderr_text(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout_text(&out)).unwrap();
    let small = &report["results"][0];
    assert_eq!(small["suite"], "small");
    assert_eq!(small["syzygy_seconds"].as_array().unwrap().len(), 1);
    assert!(small["syzygy_median_seconds"].as_f64().unwrap() > 0.0);
    let calls = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = calls.lines().collect();
    // 24 tables of three or four men (KvK is not the peer's), saved, then generated.
    assert_eq!(lines.len(), 48, "{calls}");
    let (saved, timed) = lines.split_at(24);
    assert!(saved.iter().all(|l| !l.contains("-g")), "{calls}");
    assert!(timed.iter().all(|l| l.contains("-g")), "{calls}");
    assert!(saved[0].contains(" KBvK |"), "{calls}");
    assert!(lines.iter().any(|l| l.contains("KRvKR |")), "{calls}");
    // Each call runs where the saved tables are, and finds them there.
    for line in &lines {
        let fields: Vec<&str> = line.split(" | ").collect();
        assert_eq!(fields.len(), 3, "{line}");
        assert_eq!(fields[1].trim(), fields[2].trim(), "{line}");
    }
}

/// A peer that fails stops the bench with its name and output, before any table is built.
#[cfg(unix)]
#[test]
fn bench_reports_a_failing_syzygy_generator() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("calls.txt");
    let failing = "echo 'Missing table: KBvK' >&2; exit 1";
    let out = bench_beside(
        &fake_rtbgen(dir.path(), &log, failing),
        &["--suite", "krbkr"],
    );
    assert!(!out.status.success());
    let stderr = stderr_text(&out);
    assert!(
        stderr.contains("Syzygy generator") && stderr.contains("Missing table: KBvK"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 1);
}

/// The pawn suites' flags: a clear error, before anything is built, for a directory without
/// tables, a Syzygy tables directory without WDL files, a flag without its pair, or one given
/// to a suite without pawns.
#[cfg(unix)]
#[test]
fn bench_pawn_suite_flags_are_checked_first() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().to_str().unwrap();
    let out = retro(&[
        "bench",
        "--suite",
        "kppkp",
        "--no-verify",
        "--tables",
        empty,
    ]);
    assert!(!out.status.success());
    assert!(
        stderr_text(&out).contains("holds no table files"),
        "{}",
        stderr_text(&out)
    );
    let log = dir.path().join("calls.txt");
    let rtbgenp = fake_rtbgen(dir.path(), &log, "exit 0");
    let rtbgenp = rtbgenp.to_str().unwrap();
    let args = ["bench", "--suite", "kppkp", "--syzygy-pawns", rtbgenp];
    let out = retro(&[&args[..], &["--syzygy-tables", empty]].concat());
    assert!(!out.status.success());
    assert!(
        stderr_text(&out).contains("holds no Syzygy WDL tables"),
        "{}",
        stderr_text(&out)
    );
    assert!(!log.exists(), "the peer ran");
    let out = retro(&args);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr_text(&out).contains("--syzygy-tables"),
        "{}",
        stderr_text(&out)
    );
    let out = retro(&["bench", "--suite", "small", "--tables", empty]);
    assert!(!out.status.success());
    assert!(
        stderr_text(&out).contains("pawn suites"),
        "{}",
        stderr_text(&out)
    );
}

/// The six suite on a small board beside a stand-in for the Syzygy generator that writes the
/// statistics file `rtbgen -s` writes: the peer's WDL tables are made first (`-w`, every
/// smaller table), then each run times `-g -s`; equal counts pass, a count off by one fails
/// the suite with both sets of counts.
#[cfg(unix)]
#[test]
fn bench_six_compares_counts_with_the_syzygy_generator() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    let syzygy = dir.path().join("syzygy");
    std::fs::create_dir_all(&tables).unwrap();
    let t = tables.to_str().unwrap();
    let out = retro(&[
        "gen", "--kinds", "dtm", "KRNvKNN", "--board", "4x4", "--dir", t, "--quiet",
    ]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    let stats = retro(&[
        "stats", "KRNvKNN", "--board", "4x4", "--dir", t, "--format", "json",
    ]);
    let stats: serde_json::Value = serde_json::from_str(&stdout_text(&stats)).unwrap();
    let count = |side: &str, kind: &str| stats[0][side][kind]["unique"].as_u64().unwrap();
    let text = |off: u64| {
        format!(
            "########## KRNvKNN ##########\n\nWhite to move:\n\n{} positions are wins.\n{} positions are draws.\n{} positions are losses.\n\n\nBlack to move:\n\n{} positions are wins.\n{} positions are draws.\n{} positions are losses.\n",
            count("white_to_move", "win") + off,
            count("white_to_move", "draw"),
            count("white_to_move", "loss"),
            count("black_to_move", "win"),
            count("black_to_move", "draw"),
            count("black_to_move", "loss"),
        )
    };
    let log = dir.path().join("calls.txt");
    for (off, passes) in [(0, true), (1, false)] {
        let _ = std::fs::remove_dir_all(&syzygy);
        let body = format!(
            "case \"$*\" in *-s*) printf '%s' '{}' > \"$RTBSTATSDIR/KRNvKNN.txt\";; *) touch \"$RTBPATH/$4.rtbw\";; esac",
            text(off)
        );
        let fake = fake_rtbgen(dir.path(), &log, &body);
        let out = retro(&[
            "bench",
            "--suite",
            "six",
            "--six",
            "KRNvKNN",
            "--board",
            "4x4",
            "--runs",
            "1",
            "--no-verify",
            "--json",
            "--tables",
            t,
            "--syzygy",
            fake.to_str().unwrap(),
            "--syzygy-tables",
            syzygy.to_str().unwrap(),
        ]);
        if passes {
            assert!(out.status.success(), "{}", stderr_text(&out));
            let report: serde_json::Value = serde_json::from_str(&stdout_text(&out)).unwrap();
            let result = &report["results"][0]["results"][0];
            assert_eq!(result["material"], "KRNvKNN");
            assert_eq!(result["counts_equal_to_syzygy"], true);
            assert_eq!(result["syzygy_seconds"].as_array().unwrap().len(), 1);
            let calls = std::fs::read_to_string(&log).unwrap();
            // The smaller tables of three men and more (KvK is not the peer's), saved, then
            // the table generated with its statistics.
            assert!(calls.lines().any(|l| l.contains("-w KNNvKN |")), "{calls}");
            assert!(
                calls.lines().last().unwrap().contains("-g -s KRNvKNN"),
                "{calls}"
            );
        } else {
            assert!(!out.status.success());
            assert!(
                stderr_text(&out).contains("differ from the Syzygy generator's"),
                "{}",
                stderr_text(&out)
            );
        }
    }
}

#[test]
fn completions_and_manual_pages_come_from_the_command_line() {
    let out = retro(&["completions", "bash"]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    let script = stdout_text(&out);
    assert!(
        script.contains("_retro()") && script.contains("--mem") && script.contains("--per-client"),
        "{script}"
    );
    let out = retro(&["completions", "nushell"]);
    assert!(!out.status.success());
    assert!(stderr_text(&out).contains("bash"), "{}", stderr_text(&out));
    let out = retro(&["man"]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    let page = stdout_text(&out);
    assert!(
        page.starts_with(".ie") || page.contains(".TH retro 1"),
        "{page}"
    );
    let dir = tempfile::tempdir().unwrap();
    let out = retro(&["man", "--dir", dir.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    for page in [
        "retro.1",
        "retro-gen.1",
        "retro-probe.1",
        "retro-oracle-build.1",
    ] {
        let text = std::fs::read_to_string(dir.path().join(page)).unwrap();
        assert!(text.contains(".SH"), "{page}: {text}");
    }
    let gen = std::fs::read_to_string(dir.path().join("retro-gen.1")).unwrap();
    assert!(gen.contains("mem"), "{gen}");
}
