//! `retro selfcheck`'s default scope — every position of every material of up to 3 men on 8×8
//! and up to 4 men on 4×4 and 4×5 — and a few odd boards (non-square: 4 symmetries; odd sides:
//! kings on the middle file and rank).

use retro_engine::selfcheck::{run, Scope};
use retro_rules::Board;

fn check(scopes: &[Scope]) -> retro_engine::selfcheck::Report {
    let report = run(scopes, &|_| {});
    for f in &report.failures {
        eprintln!("{f}");
    }
    assert!(report.passed(), "{} checks failed", report.failure_count);
    assert_eq!(report.moves, report.retractions);
    report
}

#[test]
fn default_scope_engine_equals_natural_model() {
    let report = check(&Scope::defaults());
    // 11 materials of up to 3 men on 8×8, 66 of up to 4 men on each of 4×4 and 4×5.
    assert_eq!(report.materials, 11 + 66 + 66);
    assert!(report.legal > 10_000_000, "{}", report.legal);
}

#[test]
fn odd_boards_engine_equals_natural_model() {
    let boards = [(4, 3), (3, 5), (7, 2), (3, 3), (1, 3)];
    let scopes: Vec<Scope> = boards
        .iter()
        .map(|&(f, r)| Scope {
            board: Board::new(f, r).unwrap(),
            max_men: 4,
            pawns: true,
        })
        .collect();
    let report = check(&scopes);
    assert_eq!(report.materials, 66 * boards.len());
}
