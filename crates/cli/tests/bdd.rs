//! `retro bdd solve`: figures by BDDs, DDDMP export, and clear errors (bad category, node
//! table too small).

mod common;

use common::{retro, stderr_text};

#[test]
fn solve_prints_hurds_figures_and_exports_dddmp() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("krk.dddmp");
    let out = retro(&[
        "bdd",
        "solve",
        "KR_K",
        "--json",
        "--export",
        file.to_str().expect("utf-8"),
        "--bdd-nodes",
        "4000000",
    ]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    // Table 1, KR_K: White to move 175,168 legal, all won, 16 moves; Black to move 223,944
    // legal, 201,700 won, 16 moves.
    assert_eq!(json["wtm"]["legal"], "175168");
    assert_eq!(json["wtm"]["win"], "175168");
    assert_eq!(json["wtm"]["max_moves"], 16);
    assert_eq!(json["btm"]["legal"], "223944");
    assert_eq!(json["btm"]["win"], "201700");
    assert_eq!(json["btm"]["max_moves"], 16);
    let dump = std::fs::read_to_string(&file).expect("the DDDMP file");
    assert!(dump.starts_with(".ver DDDMP-2.0"), "{dump:.200}");
    assert!(
        dump.contains(".nroots 2") && dump.contains(".rootnames KR_K_wtm_win KR_K_btm_win"),
        "{dump:.600}"
    );
}

#[test]
fn bad_category_and_exhausted_node_table_are_clear_errors() {
    for (args, needle) in [
        (vec!["bdd", "solve", "KP_K"], "pawnless"),
        (vec!["bdd", "solve", "KRK"], "not a category"),
        (
            vec!["bdd", "solve", "KR_KR", "--bdd-nodes", "5000"],
            "the limit in force is 5000 nodes",
        ),
        (
            vec!["bdd", "solve", "KR_K", "--ordering", "random"],
            "unknown variable ordering",
        ),
    ] {
        let out = retro(&args);
        assert!(!out.status.success(), "{args:?}");
        let stderr = stderr_text(&out);
        assert!(stderr.contains(needle), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}
