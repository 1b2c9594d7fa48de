//! `retro oracle`: build, check and play a certificate end to end, and clear errors for bad
//! input and damaged files.

mod common;

use common::{retro_with_tables, stderr_text, stdout_text};

#[test]
fn an_oracle_is_built_checked_and_played() {
    let dir = tempfile::tempdir().unwrap();
    let tables = dir.path().join("tables");
    let file = dir.path().join("krk.oracle");
    let file = file.to_str().unwrap();
    let gen = retro_with_tables(&["gen", "--kinds", "dtm", "KRvK", "--quiet"], &tables);
    assert!(gen.status.success(), "{}", stderr_text(&gen));
    // Mate in one: Rh8#.
    let fen = "k7/8/1K6/8/8/8/8/7R w - - 0 1";
    let built = retro_with_tables(
        &[
            "oracle",
            "build",
            fen,
            "--goal",
            "win",
            "--out",
            file,
            "--improve",
            "1",
            "--quiet",
        ],
        &tables,
    );
    let text = stdout_text(&built);
    assert!(built.status.success(), "{}", stderr_text(&built));
    assert!(text.contains("checked by the kernel's checker"), "{text}");
    let checked = retro_with_tables(&["oracle", "check", file, "--format", "json"], &tables);
    let text = stdout_text(&checked);
    assert!(checked.status.success(), "{}", stderr_text(&checked));
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(json["valid"], true);
    assert_eq!(json["fault"], serde_json::Value::Null);
    assert_eq!(json["longest_path_plies"], 1);
    let played = retro_with_tables(&["oracle", "play", file, fen], &tables);
    assert!(played.status.success(), "{}", stderr_text(&played));
    assert_eq!(stdout_text(&played).trim(), "Rh8# (h1h8)");
    let elsewhere = retro_with_tables(
        &["oracle", "play", file, "k7/8/1K6/8/8/8/8/6R1 w - - 0 1"],
        &tables,
    );
    assert!(!elsewhere.status.success());
    assert!(stderr_text(&elsewhere).contains("is not one of the oracle's"));

    // A wrong move byte, checksum recomputed: refused in JSON with the position named.
    let mut wrong = retro_format::oracle::read_oracle(std::path::Path::new(file)).unwrap();
    wrong.nodes[0] = (wrong.nodes[0] + 1) % 0x7f;
    let wrong_path = dir.path().join("wrong.oracle");
    retro_format::oracle::write_oracle(&wrong_path, &wrong).unwrap();
    let out = retro_with_tables(
        &[
            "oracle",
            "check",
            wrong_path.to_str().unwrap(),
            "--format",
            "json",
        ],
        &tables,
    );
    assert!(!out.status.success());
    let json: serde_json::Value = serde_json::from_str(&stdout_text(&out)).unwrap();
    assert_eq!(json["valid"], false);
    assert!(
        json["fault"]["problem"].as_str().unwrap().len() > 10,
        "{json}"
    );
    let shown = retro_with_tables(&["oracle", "show", file, "--pgn"], &tables);
    assert!(
        stdout_text(&shown).contains("1. Rh8# 1-0"),
        "{}",
        stdout_text(&shown)
    );

    // Damage: a flipped byte fails the checksum, a cut file its length.
    let mut bytes = std::fs::read(file).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x40;
    let damaged = dir.path().join("damaged.oracle");
    std::fs::write(&damaged, &bytes).unwrap();
    let out = retro_with_tables(&["oracle", "check", damaged.to_str().unwrap()], &tables);
    assert!(!out.status.success());
    assert!(
        stderr_text(&out).contains("checksum"),
        "{}",
        stderr_text(&out)
    );
    std::fs::write(&damaged, &bytes[..middle]).unwrap();
    let out = retro_with_tables(&["oracle", "check", damaged.to_str().unwrap()], &tables);
    assert!(
        stderr_text(&out).contains("truncated"),
        "{}",
        stderr_text(&out)
    );
}

#[test]
fn bad_input_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let out_file = dir.path().join("x.oracle");
    let out_file = out_file.to_str().unwrap();
    let cases: [(&[&str], &str); 5] = [
        (
            &[
                "oracle",
                "build",
                "not a fen",
                "--goal",
                "win",
                "--out",
                out_file,
            ],
            "invalid FEN",
        ),
        (
            &[
                "oracle",
                "build",
                "8/8/8/8/8/8/8/K6k w - - 0 1",
                "--goal",
                "lose",
                "--out",
                out_file,
            ],
            "invalid value",
        ),
        // Bare kings cannot win.
        (
            &[
                "oracle",
                "build",
                "8/8/8/8/8/8/8/K6k w - - 0 1",
                "--goal",
                "win",
                "--out",
                out_file,
            ],
            "cannot reach the goal",
        ),
        (
            &["oracle", "check", "/nonexistent/x.oracle"],
            "No such file",
        ),
        (
            &[
                "oracle",
                "play",
                "/nonexistent/x.oracle",
                "8/8/8/8/8/8/8/K6k w - - 0 1",
            ],
            "No such file",
        ),
    ];
    for (args, expected) in cases {
        let out = retro_with_tables(args, dir.path());
        assert!(!out.status.success(), "{args:?}");
        assert!(
            stderr_text(&out).contains(expected),
            "{args:?}: {}",
            stderr_text(&out)
        );
    }
    assert!(!dir.path().join("x.oracle").exists());
}
