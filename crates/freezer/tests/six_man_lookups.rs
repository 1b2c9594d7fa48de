//! A seven-man problem whose ways out are six-man tables: every capture the Freezer looks up
//! is valued as the six-man table values the position it reaches, and the start's proof,
//! exported as an oracle whose leaves are entries of those tables (verified first), passes the
//! kernel's checker. On a 4×4 board, so that the six-man tables build in seconds; and,
//! ignored, on 8×8 against KRNvKNN.

use retro_freezer::{export_oracle, tables_needed, Analysis, Problem, Verdict};
use retro_gen::{Builder, Silent};
use retro_oracle::FindSettings;
use retro_rules::{Board, Side};
use retro_tablebase::Tablebase;
use retro_verify::oracle::check_oracle;
use retro_verify::{certificate, Checker};

mod common;

/// White: king a1, rook b1, bishop c1, and a knight frozen on d2; Black: king a4, a rook kept
/// to b2-c3 and a knight to c3-d4 (either leaving its squares counts as a win for White). Each
/// capture leaves six men: KRBvKRN, KRNvKRN, KRBNvKN, KRBNvKR, or KBNvKRN (stored with the
/// colours exchanged, as KRNvKBN).
const PROBLEM: &str = r#"
title = "Rook, bishop and a frozen knight against rook and knight, on 4x4"
fen = "k2n/4/1r1N/KRB1 w - - 0 1"

[[man]]
on = "d2"
squares = ["d2"]
elsewhere = "draw"

[[man]]
on = "b2"
squares = ["b2-c3"]
elsewhere = "win"

[[man]]
on = "d4"
squares = ["c3-d4"]
elsewhere = "win"
"#;

#[test]
fn a_seven_man_problem_reads_six_man_tables() {
    let dir = tempfile::tempdir().unwrap();
    let problem = Problem::parse(PROBLEM).unwrap();
    let board = problem.geo.board();
    assert_eq!(board, Board::new(4, 4).unwrap());
    let needed = tables_needed(&problem).unwrap();
    let six: Vec<String> = needed
        .iter()
        .filter(|m| m.len() == 6)
        .map(|m| m.to_string())
        .collect();
    assert_eq!(
        six,
        ["KRBNvKN", "KRBNvKR", "KRBvKRN", "KRNvKBN", "KRNvKRN"],
        "{needed:?}"
    );
    Builder::new(board, dir.path())
        .build(&needed, &Silent)
        .unwrap();
    let tables = Tablebase::new(board, dir.path());
    let analysis = Analysis::solve(&problem, &tables, &Silent).unwrap();
    // 16 × 16 king squares, 16 for the rook and the bishop, 1 for the knight, 4 and 4.
    assert_eq!(analysis.space().size(), 16 * 16 * 16 * 16 * 4 * 4);

    // Every capture out of the index, from every position, against the six-man table.
    let (compared, decided) = common::exits_against_tables(&analysis, &tables, 1);
    eprintln!("{compared} captures compared with the six-man tables, {decided} not drawn");
    assert!(
        compared > 100_000 && decided > 10_000,
        "{compared} {decided}"
    );

    // The start's value, a proof, exported as an oracle; its table leaves are six-man entries,
    // checked by the kernel's checker once the tables are certified.
    let start = analysis.index_of(&problem.start).unwrap();
    let value = analysis.verdict(Side::White, start).unwrap();
    assert!(matches!(value, Verdict::Win(Some(_))), "{value:?}");
    let checker = Checker::new(board, dir.path());
    for men in checker
        .plan(&six.iter().map(String::as_str).collect::<Vec<_>>())
        .unwrap()
    {
        let report = checker.check(&men, &|_| {}).unwrap();
        assert!(report.passed(), "{men}: {:?}", report.failures);
        certificate::write(&checker, &report, board).unwrap();
    }
    let quick = FindSettings {
        rounds: 0,
        improve_seconds: 0.0,
        exact_seconds: 0.0,
        ..FindSettings::default()
    };
    let (file, _) = export_oracle(&analysis, dir.path(), &quick).unwrap();
    let report = check_oracle(&file, &checker).unwrap();
    assert!(
        report.table_win_leaves + report.table_draw_leaves > 0,
        "{report:?}"
    );
}

/// On 8×8, against a six-man table of the full board (`examples/freezer/queen-into-six-men.toml`:
/// KRN against a queen and two knights that may not move, White taking the queen into
/// KRNvKNN): every capture of the queen, from every position, is valued as KRNvKNN values the
/// position it reaches. Needs KRNvKNN:
/// `RETRO_TABLES=DIR cargo test --release -p retro-freezer -- --ignored` (built there if
/// missing: about 15 minutes and 19 GiB).
#[test]
#[ignore]
fn a_seven_man_problem_on_8x8_reads_a_six_man_table() {
    let dir = std::path::PathBuf::from(
        std::env::var_os("RETRO_TABLES").expect("RETRO_TABLES names a tables directory"),
    );
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/freezer/queen-into-six-men.toml");
    let problem = Problem::parse(&std::fs::read_to_string(path).unwrap()).unwrap();
    let needed = tables_needed(&problem).unwrap();
    let names: Vec<String> = needed.iter().map(|m| m.to_string()).collect();
    assert_eq!(names, ["KRNvKNN"]);
    Builder::new(Board::STANDARD, &dir)
        .build(&needed, &Silent)
        .unwrap();
    let tables = Tablebase::new(Board::STANDARD, &dir);
    let analysis = Analysis::solve(&problem, &tables, &Silent).unwrap();
    assert_eq!(analysis.space().size(), 64u64.pow(4));
    let (compared, decided) = common::exits_against_tables(&analysis, &tables, 1);
    let start = analysis.index_of(&problem.start).unwrap();
    let value = analysis.verdict(Side::White, start).unwrap();
    eprintln!(
        "start: {value:?}; {compared} captures of the queen compared with KRNvKNN, {decided} not drawn"
    );
    assert!(
        compared > 1_000_000 && decided > 10_000,
        "{compared} {decided}"
    );
}
