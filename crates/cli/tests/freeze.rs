//! `retro freeze` end to end: JSON, a saved index read back, an exported oracle, and clear
//! errors (with the problem file's line) for bad problems, nothing written.

mod common;

use common::{retro_with_tables, stderr_text, stdout_text};

#[test]
fn a_problem_is_solved_saved_and_exported() {
    let dir = tempfile::tempdir().unwrap();
    let problem = dir.path().join("rook.toml");
    std::fs::write(&problem, common::ROOK_ON_TWO_FILES).unwrap();
    let problem = problem.to_str().unwrap();
    let tables = dir.path().join("tables");
    let save = dir.path().join("saved");
    let oracle = dir.path().join("rook.oracle");
    let args = [
        "freeze",
        problem,
        "--format",
        "json",
        "--quiet",
        "--save",
        save.to_str().unwrap(),
        "--oracle",
        oracle.to_str().unwrap(),
    ];
    let out = retro_with_tables(&args, &tables);
    assert!(out.status.success(), "{}", stderr_text(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout_text(&out)).unwrap();
    // 16 rook squares × 64 × 64 king placements.
    assert_eq!(json["entries_per_side"], 16 * 64 * 64);
    assert_eq!(json["start"]["value"], "win");
    assert!(json["start"]["dtm"].as_u64().unwrap() % 2 == 1);
    assert_eq!(json["start"]["proof"], true);
    assert_eq!(json["reused_saved"], false);
    assert_eq!(json["oracle"]["valid"], true);
    assert!(json["peak_bytes"].as_u64().unwrap() > 0);

    let again = retro_with_tables(&args[..7], &tables);
    let json2: serde_json::Value = serde_json::from_str(&stdout_text(&again)).unwrap();
    assert_eq!(json2["reused_saved"], true);
    assert_eq!(json2["start"], json["start"]);

    let checked = retro_with_tables(&["oracle", "check", oracle.to_str().unwrap()], &tables);
    assert!(checked.status.success(), "{}", stderr_text(&checked));
    assert!(stdout_text(&checked).contains("White wins"));

    // The narrow layout (a byte per entry and side) gives the same answer and counts.
    assert_eq!(json["layout"], "wide");
    let narrow = retro_with_tables(&[&args[..5], &["--layout", "narrow"]].concat(), &tables);
    assert!(narrow.status.success(), "{}", stderr_text(&narrow));
    let json3: serde_json::Value = serde_json::from_str(&stdout_text(&narrow)).unwrap();
    assert_eq!(json3["layout"], "narrow");
    for key in [
        "start",
        "counts",
        "longest_win_plies",
        "depth_passes",
        "best_moves",
    ] {
        assert_eq!(json3[key], json[key], "{key}");
    }
    let bad = retro_with_tables(&[&args[..5], &["--layout", "thin"]].concat(), &tables);
    assert!(!bad.status.success());
    assert!(stderr_text(&bad).contains("thin"), "{}", stderr_text(&bad));
}

/// En passant inside the index (`examples/freezer/en-passant.toml`): the positions after e2-e4
/// with the en-passant square e3 are entries of their own, probed by FEN with the capture
/// dxe3 listed as an exit; a saved index reads them back, and the start's win exported as an
/// oracle passes the checker.
#[test]
fn en_passant_positions_are_solved_probed_and_saved() {
    let dir = tempfile::tempdir().unwrap();
    let problem = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/freezer/en-passant.toml");
    let problem = problem.to_str().unwrap();
    let tables = dir.path().join("tables");
    let save = dir.path().join("saved");
    let oracle = dir.path().join("ep.oracle");
    let probe = "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1";
    let saved = save.to_str().unwrap();
    let args = [
        "freeze", problem, "--format", "json", "--quiet", "--save", saved, "--probe", probe,
    ];
    let out = retro_with_tables(&args, &tables);
    assert!(out.status.success(), "{}", stderr_text(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout_text(&out)).unwrap();
    // 64 x 64 king placements x 3 white pawn squares x 2 black pawn squares, and one
    // en-passant entry per placement with the white pawn on e4.
    assert_eq!(json["entries_per_side"], 64 * 64 * 3 * 2);
    assert_eq!(json["ep_entries_per_side"], 64 * 64 * 2);
    assert_eq!(json["reused_saved"], false);
    let probed = &json["probed"];
    assert_eq!(probed["fen"], probe, "{json}");
    let moves = json["best_moves"].as_array().unwrap();
    let ep = moves
        .iter()
        .find(|m| m["uci"] == "d4e3")
        .unwrap_or_else(|| panic!("dxe3 is listed: {json}"));
    assert_eq!(ep["san"], "dxe3");
    assert!(
        !ep["exit"].is_null(),
        "an en-passant capture leaves the index"
    );

    let again = retro_with_tables(&args, &tables);
    assert!(again.status.success(), "{}", stderr_text(&again));
    let json2: serde_json::Value = serde_json::from_str(&stdout_text(&again)).unwrap();
    assert_eq!(json2["reused_saved"], true);
    assert_eq!(json2["probed"], json["probed"]);
    assert_eq!(json2["best_moves"], json["best_moves"]);

    let start = retro_with_tables(
        &[
            "freeze",
            problem,
            "--format",
            "json",
            "--quiet",
            "--oracle",
            oracle.to_str().unwrap(),
        ],
        &tables,
    );
    assert!(start.status.success(), "{}", stderr_text(&start));
    let json: serde_json::Value = serde_json::from_str(&stdout_text(&start)).unwrap();
    assert_eq!(json["start"]["value"], "win");
    assert_eq!(json["start"]["proof"], true);
    assert_eq!(json["oracle"]["valid"], true, "{json}");

    // A start position after e2-e4 is one of the en-passant entries; with the pawn kept off
    // e2 no double step inside the index gives it, which is a clear error before any work.
    let text = std::fs::read_to_string(problem).unwrap().replace(
        "fen = \"4k3/8/8/8/3p4/8/4P3/4K3 w - - 0 1\"",
        &format!("fen = \"{probe}\""),
    );
    let after = text.replace("on = \"e2\"", "on = \"e4\"");
    let held = dir.path().join("after-e4.toml");
    std::fs::write(&held, &after).unwrap();
    let out = retro_with_tables(
        &[
            "freeze",
            held.to_str().unwrap(),
            "--format",
            "json",
            "--quiet",
        ],
        &tables,
    );
    assert!(out.status.success(), "{}", stderr_text(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout_text(&out)).unwrap();
    assert_eq!(json["start"]["fen"], probe);
    let not_held = dir.path().join("not-held.toml");
    std::fs::write(&not_held, after.replace("[\"e2-e4\"]", "[\"e3-e4\"]")).unwrap();
    let out = retro_with_tables(&["freeze", not_held.to_str().unwrap(), "--quiet"], &tables);
    assert!(!out.status.success());
    assert!(
        stderr_text(&out).contains("en-passant square e3"),
        "{}",
        stderr_text(&out)
    );
}

#[test]
fn bad_problems_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("fen = \"not a fen\"\n", "line 1"),
        (
            "fen = \"8/8/8/8/8/2k5/1R6/K7 w - - 0 1\"\n[[man]]\non = \"e4\"\nsquares = [\"all\"]\nelsewhere = \"loss\"\n",
            "line 3: no man stands on e4",
        ),
        (
            "fen = \"8/8/8/8/8/2k5/1R6/K7 w - - 0 1\"\n[[man]]\non = \"b2\"\nsquares = [\"z9\"]\nelsewhere = \"loss\"\n",
            "z9",
        ),
        (
            "fen = \"8/8/8/8/8/2k5/1R6/K7 w - - 0 1\"\n[[man]]\non = \"b2\"\nsquares = [\"a1-a8\"]\nelsewhere = \"loss\"\n",
            "b2",
        ),
    ];
    let save = dir.path().join("saved");
    for (i, (text, expected)) in cases.iter().enumerate() {
        let file = dir.path().join(format!("bad{i}.toml"));
        std::fs::write(&file, text).unwrap();
        let out = retro_with_tables(
            &[
                "freeze",
                file.to_str().unwrap(),
                "--quiet",
                "--save",
                save.to_str().unwrap(),
            ],
            dir.path(),
        );
        assert!(!out.status.success(), "{text}");
        assert!(
            stderr_text(&out).contains(expected),
            "{text}: {}",
            stderr_text(&out)
        );
    }
    assert!(!save.exists(), "nothing written");
    let missing = retro_with_tables(&["freeze", "/nonexistent/problem.toml"], dir.path());
    assert!(!missing.status.success());
    assert!(stderr_text(&missing).contains("/nonexistent/problem.toml"));
}
