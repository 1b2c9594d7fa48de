//! The seed's examples (Bleicher, sections 3.2 and 3.3) and exactness checks against full
//! tables: golden numbers from the seed; full tables from `retro-gen` (checked by
//! `retro-verify` elsewhere).

use retro_engine::notation::parse_move;
use retro_engine::{Material, Position};
use retro_format::oracle::{Colour, Goal};
use retro_format::Value;
use retro_freezer::{export_oracle, saved};
use retro_freezer::{tables_needed, Analysis, Problem, Verdict, WorkLayout};
use retro_gen::Builder;
use retro_gen::Silent;
use retro_oracle::FindSettings;
use retro_rules::{Board, Piece, Side};
use retro_tablebase::Tablebase;
use retro_verify::oracle::check_oracle;
use retro_verify::{certificate, Checker};
use std::path::{Path, PathBuf};

mod common;

fn example(name: &str) -> Problem {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/freezer")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    Problem::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn build(dir: &Path, materials: &[Material]) {
    Builder::new(Board::STANDARD, dir)
        .build(materials, &retro_gen::Silent)
        .unwrap();
}

/// Every value with a depth is a value of chess with at most that depth: the winner's wins
/// hold, the loser's losses hold. Returns (Freezer wins, table wins) with White to move.
fn check_against_table(analysis: &Analysis<'_>, table: &Tablebase) -> (u64, u64) {
    let size = analysis.space().entries();
    let mut wins = (0, 0);
    for side in [Side::White, Side::Black] {
        for index in 0..size {
            let Some(pos) = analysis.position_at(side, index) else {
                continue;
            };
            let truth = table.value(&pos).unwrap();
            let ours = analysis.verdict(side, index).unwrap();
            match ours {
                Verdict::Win(Some(d)) => {
                    assert!(
                        matches!(truth, Value::Win(n) if n <= d),
                        "{side:?} {index}: {ours:?} but {truth:?}"
                    )
                }
                Verdict::Loss(Some(d)) => {
                    assert!(
                        matches!(truth, Value::Loss(n) if n <= d),
                        "{side:?} {index}: {ours:?} but {truth:?}"
                    )
                }
                _ => {}
            }
            if side == Side::White {
                wins.0 += u64::from(matches!(ours, Verdict::Win(Some(_))));
                wins.1 += u64::from(matches!(truth, Value::Win(_)));
            }
        }
    }
    wins
}

/// Section 3.3: with the knight barred from d4, d5, e4 and e5, White still forces mate, the
/// longest optimal mate 36 moves (71 plies) against 33 (65) without the restriction; the
/// seed's line, the knight's round trip f7-h6-g4-e3-c2-a3-b5-d6-c8, keeps the win and mates.
#[test]
fn kbnk_without_the_centre() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), &[Material::parse("KBNvK").unwrap()]);
    let problem = example("kbnk-no-centre.toml");
    let tables = Tablebase::new(Board::STANDARD, dir.path());
    let analysis = Analysis::solve(&problem, &tables, &Silent).unwrap();
    let white = analysis.counts(Side::White);
    assert_eq!(
        white.longest_win.map(|l| l.0),
        Some(71),
        "the seed: 36 moves"
    );
    assert_eq!(white.rule_wins + white.rule_losses + white.losses, 0);
    let full =
        retro_tablebase::stats::material_stats(&tables, Material::parse("KBNvK").unwrap()).unwrap();
    assert_eq!(
        full.side(Side::White).longest_win.as_ref().map(|l| l.0),
        Some(65),
        "33 moves"
    );
    let (ours, truth) = check_against_table(&analysis, &tables);
    eprintln!("White-to-move wins kept under the restriction: {ours} of {truth}");
    assert!(ours <= truth && ours > truth * 99 / 100);

    // The seed's line from Figure 3.3.
    let line = "Nh6 Ke8 Ng4 Kd8 Ne3 Kc7 Nc2 Kd6 Be6 Kc5 Ke7 Kc6 Bb3 Kc5 Kd7 Kb5 Kd6 Ka5 Kc6 Ka6 \
                Na3 Ka5 Kc5 Ka6 Nb5 Kb7 Be6 Ka6 Nd6 Ka5 Bd7 Ka6 Bb5+ Ka7 Kc6 Kb8 Kb6 Ka8 Kc7 Ka7 \
                Nc8+ Ka8 Bc6#";
    let geo = &problem.geo;
    let mut pos: Position = problem.start.resized().unwrap();
    let centre: Vec<_> = ["d4", "d5", "e4", "e5"]
        .iter()
        .map(|s| {
            geo.from_square(retro_rules::board::Square::parse(s).unwrap())
                .unwrap()
        })
        .collect();
    for text in line.split_whitespace() {
        let index = analysis
            .index_of(&pos.resized().unwrap())
            .expect("in the index");
        let v = analysis.verdict(pos.side_to_move(), index).unwrap();
        match pos.side_to_move() {
            Side::White => assert!(matches!(v, Verdict::Win(Some(_))), "{text}: {v:?}"),
            Side::Black => assert!(matches!(v, Verdict::Loss(Some(_))), "{text}: {v:?}"),
        }
        pos = parse_move(geo, &pos, text).unwrap().after;
        let knight = pos.men().iter().find(|m| m.piece == Piece::Knight).unwrap();
        assert!(!centre.contains(&knight.sq));
    }
    assert!(pos.is_checkmate(geo));

    // The result exported as an oracle, which the kernel's checker confirms: every leaf a mate.
    let (file, _) = export_oracle(&analysis, dir.path(), &quick()).unwrap();
    let report = check_oracle(&file, &Checker::new(Board::STANDARD, dir.path())).unwrap();
    assert_eq!(file.goal, Goal::Win);
    assert!(
        report.checkmate_leaves > 0 && file.tables.is_empty(),
        "{report:?}"
    );
    assert!(
        report.longest_path.unwrap() <= 43,
        "the start is a win in 43 plies"
    );
}

/// The table's value of `pos` as the verdict an unrestricted index must give it.
fn table_verdict(tables: &Tablebase, pos: &retro_freezer::FreezerPosition) -> Verdict {
    match tables.value(pos).unwrap() {
        Value::Win(n) => Verdict::Win(Some(n)),
        Value::Loss(n) => Verdict::Loss(Some(n)),
        Value::Draw => Verdict::Draw,
        Value::Illegal => panic!("an index position the table calls illegal"),
    }
}

/// The narrow layout (a byte per entry and side) gives every entry the value `wide` gives it.
fn narrow_agrees<'a>(
    problem: &'a Problem,
    tables: &'a Tablebase,
    wide: &Analysis<'_>,
) -> Analysis<'a> {
    let narrow = Analysis::solve_with(problem, tables, WorkLayout::Narrow, &Silent).unwrap();
    assert_eq!(narrow.layout(), WorkLayout::Narrow);
    assert_eq!(narrow.depth_passes(), wide.depth_passes());
    for side in [Side::White, Side::Black] {
        for index in 0..wide.space().entries() {
            assert_eq!(
                narrow.verdict(side, index),
                wide.verdict(side, index),
                "{side:?} {index}"
            );
        }
    }
    assert_eq!(narrow.assumptions(), wide.assumptions());
    narrow
}

fn quick() -> FindSettings {
    FindSettings {
        rounds: 0,
        improve_seconds: 0.0,
        exact_seconds: 0.0,
        ..FindSettings::default()
    }
}

/// Certifies `material`'s table and those it leads into.
fn certify(dir: &Path, material: &str) {
    let checker = Checker::new(Board::STANDARD, dir);
    for men in checker.plan(&[material]).unwrap() {
        let report = checker.check(&men, &|_| {}).unwrap();
        assert!(report.passed(), "{:?}", report.failures);
        certificate::write(&checker, &report, Board::STANDARD).unwrap();
    }
}

/// Section 3.2: the fortress holds; the index has about 80 thousand entries (81,920 per side
/// to move); the draw rests on the white men's restrictions, which the report names.
#[test]
fn the_fortress_holds() {
    let dir = tempfile::tempdir().unwrap();
    let problem = example("fortress.toml");
    build(dir.path(), &tables_needed(&problem).unwrap());
    let tables = Tablebase::new(Board::STANDARD, dir.path());
    let analysis = Analysis::solve(&problem, &tables, &Silent).unwrap();
    assert_eq!(analysis.space().size(), 81_920);
    assert_eq!(analysis.layout(), WorkLayout::Wide);
    let narrow = narrow_agrees(&problem, &tables, &analysis);
    let start = analysis.index_of(&problem.start).unwrap();
    assert_eq!(analysis.verdict(Side::White, start), Some(Verdict::Draw));
    let texts: Vec<String> = analysis.assumptions().into_iter().map(|a| a.text).collect();
    assert!(
        texts
            .iter()
            .any(|t| t.contains("the white pawn on f2 never leaves f2")),
        "{texts:?}"
    );
    // Saved and read back: the same values, the same assumptions; damage and another problem
    // text are refused.
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/freezer/fortress.toml"),
    )
    .unwrap();
    let file = dir.path().join("fortress.freeze");
    saved::save(&analysis, &text, &file).unwrap();
    let loaded = saved::load(&problem, &tables, &text, &file)
        .unwrap()
        .unwrap();
    for side in [Side::White, Side::Black] {
        for index in 0..analysis.space().size() {
            assert_eq!(loaded.verdict(side, index), analysis.verdict(side, index));
        }
    }
    assert_eq!(loaded.assumptions(), analysis.assumptions());
    // A narrow analysis is saved a byte per code and reads back narrow, with the same values.
    let narrow_file = dir.path().join("fortress-narrow.freeze");
    saved::save(&narrow, &text, &narrow_file).unwrap();
    let size = |f: &Path| std::fs::metadata(f).unwrap().len();
    assert_eq!(size(&file) - size(&narrow_file), 2 * 81_920);
    let loaded = saved::load(&problem, &tables, &text, &narrow_file)
        .unwrap()
        .unwrap();
    assert_eq!(loaded.layout(), WorkLayout::Narrow);
    for side in [Side::White, Side::Black] {
        for index in 0..analysis.space().size() {
            assert_eq!(loaded.verdict(side, index), analysis.verdict(side, index));
        }
    }
    assert!(saved::load(&problem, &tables, "title = \"other\"\n", &file).is_err());
    let mut bytes = std::fs::read(&file).unwrap();
    bytes[100] ^= 1;
    std::fs::write(&file, &bytes).unwrap();
    let damaged = saved::load(&problem, &tables, &text, &file).err().unwrap();
    assert!(damaged.to_string().contains("checksum"), "{damaged}");

    // White's half of the draw is a proof: the restrictions bind White alone, and the rule for
    // Black (its king crossing into rows 1-3) favours Black. Exported as a not-lose oracle whose
    // leaves are certified table entries, the kernel's checker confirms it.
    for material in tables_needed(&problem).unwrap() {
        certify(dir.path(), &material.to_string());
    }
    let (file, _) = export_oracle(&analysis, dir.path(), &quick()).unwrap();
    assert_eq!((file.goal, file.friend), (Goal::NotLose, Colour::White));
    let report = check_oracle(&file, &Checker::new(Board::STANDARD, dir.path())).unwrap();
    assert!(
        report.table_draw_leaves + report.table_win_leaves > 0,
        "{report:?}"
    );
}

/// The same against the full five-man table (KQvKRP): the start is a draw there too, and every
/// value with a depth holds. Needs the five-man tables: `RETRO_TABLES=DIR cargo test --release
/// -p retro-freezer -- --ignored` (built there if missing, some minutes).
#[test]
#[ignore]
fn the_fortress_against_the_five_man_table() {
    let dir = PathBuf::from(
        std::env::var_os("RETRO_TABLES").expect("RETRO_TABLES names a tables directory"),
    );
    build(&dir, &[Material::parse("KQvKRP").unwrap()]);
    let problem = example("fortress.toml");
    let tables = Tablebase::new(Board::STANDARD, &dir);
    let analysis = Analysis::solve(&problem, &tables, &Silent).unwrap();
    assert_eq!(tables.value(&problem.start).unwrap(), Value::Draw);
    check_against_table(&analysis, &tables);
}

/// With no restriction and every exit looked up, the Freezer is a plain generator: KPvK (pawn
/// pushes, double steps, promotions to each piece looked up, captures looked up) comes out
/// equal to its table, position by position, depths included.
#[test]
fn an_unrestricted_problem_is_its_table() {
    let dir = tempfile::tempdir().unwrap();
    let problem = Problem::parse("fen = \"8/8/8/8/8/4k3/4P3/4K3 w - - 0 1\"\n").unwrap();
    build(dir.path(), &tables_needed(&problem).unwrap());
    build(dir.path(), &[Material::parse("KPvK").unwrap()]);
    let tables = Tablebase::new(Board::STANDARD, dir.path());
    let analysis = Analysis::solve(&problem, &tables, &Silent).unwrap();
    narrow_agrees(&problem, &tables, &analysis);
    let mut compared = 0;
    for side in [Side::White, Side::Black] {
        for index in 0..analysis.space().size() {
            let Some(pos) = analysis.position_at(side, index) else {
                continue;
            };
            let expected = table_verdict(&tables, &pos);
            assert_eq!(
                analysis.verdict(side, index),
                Some(expected),
                "{side:?} {index}"
            );
            compared += 1;
        }
    }
    assert!(compared > 300_000, "{compared}");
}

/// En passant inside the index: an unrestricted KPvKP on 6x6, every exit looked up, equals its
/// table position by position, depths included — the positions whose last move was a double
/// step that an en-passant capture answers (the index's en-passant entries) among them, each
/// against the table's value of that position with its en-passant target.
#[test]
fn an_unrestricted_problem_with_en_passant_is_its_table() {
    let dir = tempfile::tempdir().unwrap();
    let problem = Problem::parse("fen = \"3k2/2p3/6/6/3P2/3K2 w - - 0 1\"\n").unwrap();
    let board = problem.geo.board();
    let mut needed = tables_needed(&problem).unwrap();
    needed.push(Material::parse("KPvKP").unwrap());
    Builder::new(board, dir.path())
        .build(&needed, &retro_gen::Silent)
        .unwrap();
    let tables = Tablebase::new(board, dir.path());
    let analysis = Analysis::solve(&problem, &tables, &Silent).unwrap();
    narrow_agrees(&problem, &tables, &analysis);
    let space = analysis.space();
    assert!(space.entries() > space.size());
    let (mut compared, mut with_target) = (0, 0);
    for side in [Side::White, Side::Black] {
        for index in 0..space.entries() {
            let Some(pos) = analysis.position_at(side, index) else {
                continue;
            };
            assert_eq!(pos.en_passant().is_some(), index >= space.size());
            let expected = table_verdict(&tables, &pos);
            assert_eq!(
                analysis.verdict(side, index),
                Some(expected),
                "{side:?} {index}"
            );
            assert_eq!(analysis.index_of(&pos), Some(index));
            compared += 1;
            with_target += u64::from(pos.en_passant().is_some());
        }
    }
    eprintln!("{compared} positions compared, {with_target} with an en-passant target");
    assert!(with_target > 1_000, "{with_target}");
}

/// Section 3.1's shape: six men, the f4 and f5 pawns blocked, every capture looked up in a
/// five-man table. The value of each capture out of the index, for a sample of positions,
/// is the five-man table's value of the position it reaches. Needs the five-man tables:
/// `RETRO_TABLES=DIR cargo test --release -p retro-freezer -- --ignored` (built there if
/// missing).
#[test]
#[ignore]
fn blocked_pawns_against_the_five_man_tables() {
    let dir = PathBuf::from(
        std::env::var_os("RETRO_TABLES").expect("RETRO_TABLES names a tables directory"),
    );
    let problem = example("blocked-pawns.toml");
    build(&dir, &tables_needed(&problem).unwrap());
    let tables = Tablebase::new(Board::STANDARD, &dir);
    let analysis = Analysis::solve(&problem, &tables, &Silent).unwrap();
    let start = analysis.index_of(&problem.start).unwrap();
    let value = analysis.verdict(Side::White, start).unwrap();
    assert!(matches!(value, Verdict::Win(Some(_))), "{value:?}");
    narrow_agrees(&problem, &tables, &analysis);
    let (compared, _) = common::exits_against_tables(&analysis, &tables, 997);
    eprintln!("{value:?}; {compared} captures compared with the five-man tables");
    assert!(compared > 1000, "{compared}");
}
