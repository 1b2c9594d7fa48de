//! The lemmas hold on 8×8 (and on every board from 4×4 to 10×10), and a broken strategy — Squeeze
//! without "the rook is not exposed" — is caught with a counterexample play.

use retro_strategy::lemmas::{check_lemmas, StrategyGraph};
use retro_strategy::{Breakage, Strategy};

#[test]
fn lemmas_hold_on_eight_by_eight() {
    let graph = StrategyGraph::build(8, &Strategy::default());
    for report in check_lemmas(&graph) {
        eprintln!(
            "{} {} checked {} failures {} {:.2}s",
            report.lemma.source, report.lemma.name, report.checked, report.failures, report.seconds
        );
        for c in &report.counterexamples {
            eprintln!("    {}", c.join("\n    "));
        }
        assert!(report.checked > 0, "{}", report.lemma.name);
    }
    for report in check_lemmas(&graph) {
        assert!(
            report.holds(),
            "{}: {:?}",
            report.lemma.name,
            report.counterexamples
        );
    }
}

#[test]
fn broken_squeeze_is_caught() {
    let broken = Strategy {
        broken: Breakage {
            squeeze_may_expose_rook: true,
            ..Breakage::default()
        },
    };
    let graph = StrategyGraph::build(8, &broken);
    let reports = check_lemmas(&graph);
    let kept = reports
        .iter()
        .find(|r| r.lemma.name == "rook_kept")
        .expect("Lemma 1");
    assert!(!kept.holds());
    let play = &kept.counterexamples[0];
    eprintln!("{}", play.join("\n"));
    assert!(play[0].contains("(Squeeze)"), "{play:?}");
    assert!(
        play.last().expect("a line").contains("the rook is taken"),
        "{play:?}"
    );
}

#[test]
fn lemma_6_with_three_moves_has_one_counterexample() {
    let graph = StrategyGraph::build(8, &Strategy::default());
    let report = retro_strategy::lemmas::finish_as_the_paper_states(&graph);
    assert_eq!(report.failures, 1);
    let play = &report.counterexamples[0];
    assert_eq!(
        play.first().map(String::as_str),
        Some("8/8/8/8/4K3/8/2R5/1k6 w - - 0 1  White e4d3 (ApproachDiag)")
    );
    assert!(
        play.last().expect("a line").ends_with("(ApproachNonDiag)"),
        "{play:?}"
    );
}

#[test]
fn lemmas_hold_on_boards_four_to_ten() {
    for n in 4..=10 {
        let graph = StrategyGraph::build(n, &Strategy::default());
        for report in check_lemmas(&graph) {
            assert!(
                report.holds(),
                "{n}×{n} {}: {:?}",
                report.lemma.name,
                report.counterexamples
            );
        }
    }
}

#[test]
fn rook_home_into_any_line_breaks_lemma_4() {
    let any_line = Strategy {
        broken: Breakage {
            rook_home_any_line: true,
            ..Breakage::default()
        },
    };
    let graph = StrategyGraph::build(8, &any_line);
    let reports = check_lemmas(&graph);
    let thrice = reports
        .iter()
        .find(|r| r.lemma.name == "rook_home_not_thrice")
        .expect("the 5.2 lemma");
    assert!(!thrice.holds());
    // The rook chases the black king along the kings' file: three RookHome moves in a row.
    let play = &thrice.counterexamples[0];
    assert_eq!(
        play.iter().filter(|l| l.contains("(RookHome)")).count(),
        3,
        "{play:?}"
    );
}
