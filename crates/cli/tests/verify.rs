//! `retro verify` and `retro prove` end to end: generated tables pass; single wrong values are
//! found at their position; damaged files are clear errors; Hurd's theorems are stated only for
//! checked tables; and Hurd's KQRvK subtlety, shown on the tables.

mod common;

use common::{all_output, retro};
use retro_engine::{Geometry, Indexer, Material, TablePosition};
use retro_format::{Header, Table, Value};
use retro_rules::{Board, Side};
use retro_tablebase::stats::material_stats;
use retro_tablebase::Tablebase;
use std::path::Path;

fn gen(dir: &Path, board: &str, materials: &[&str]) {
    let mut args = vec![
        "gen",
        "--kinds",
        "dtm",
        "--board",
        board,
        "--dir",
        dir.to_str().unwrap(),
        "--quiet",
    ];
    args.extend(materials);
    let out = retro(&args);
    assert!(out.status.success(), "{}", all_output(&out));
}

/// Rewrites one entry of a table (a valid file with a wrong value) and returns the position's FEN.
fn inject(
    dir: &Path,
    board: Board,
    material: &str,
    pick: impl Fn(Value, &TablePosition) -> Option<Value>,
) -> String {
    let geo = Geometry::new(board);
    let m: Material = material.parse().unwrap();
    let indexer = Indexer::new(&geo, m).unwrap();
    let path = dir.join(retro_format::file_name(
        material,
        board.files(),
        board.ranks(),
    ));
    let table = Table::open(&path).unwrap();
    let header: Header = table.header().clone();
    let entries = header.entries_per_side;
    let mut body = table.body().to_vec();
    drop(table);
    for (s, stm) in Side::ALL.into_iter().enumerate() {
        for i in 0..entries {
            let at = (s as u64 * entries + i) as usize;
            let width = usize::from(header.value_width);
            let code = if width == 1 {
                u32::from(body[at])
            } else {
                u32::from(u16::from_le_bytes([body[2 * at], body[2 * at + 1]]))
            };
            let Some(p) = indexer.position::<{ retro_engine::TABLE_MEN }>(&geo, i, stm) else {
                continue;
            };
            if let Some(new) = pick(Value::from_code(code), &p) {
                if width == 1 {
                    body[at] = new.code() as u8;
                } else {
                    body[2 * at..2 * at + 2].copy_from_slice(&(new.code() as u16).to_le_bytes());
                }
                retro_format::write_table(&path, &header, &body).unwrap();
                return p.to_natural(&geo).fen();
            }
        }
    }
    panic!("no entry of {material} to change");
}

/// A wrong value to write: the table, what the change is, and which entry gets which value.
type Change = Box<dyn Fn(Value, &TablePosition) -> Option<Value>>;

/// For each change, on a fresh copy of the tables in `dir`: injects it and checks that
/// `retro verify` fails at that position.
fn inject_each(dir: &Path, board: Board, board_name: &str, cases: Vec<(&str, &str, Change)>) {
    for (material, what, pick) in cases {
        let copy = tempfile::tempdir().unwrap();
        for entry in std::fs::read_dir(dir).unwrap() {
            let entry = entry.unwrap();
            if entry.file_name().to_string_lossy().ends_with(".rtb") {
                std::fs::copy(entry.path(), copy.path().join(entry.file_name())).unwrap();
            }
        }
        let fen = inject(copy.path(), board, material, pick);
        eprintln!("{material}: {what} at {fen}");
        verify_reports(copy.path(), board_name, material, &fen);
    }
}

fn verify_reports(dir: &Path, board: &str, material: &str, fen: &str) {
    let out = retro(&[
        "verify",
        material,
        "--board",
        board,
        "--dir",
        dir.to_str().unwrap(),
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    let report = all_output(&out);
    assert!(report.contains("FAIL"), "{report}");
    assert!(
        report.contains(&format!("    {fen}: stored")),
        "the injected position {fen} is not reported:\n{report}"
    );
}

#[test]
fn generated_tables_pass_and_every_injected_fault_is_found_where_it_is() {
    let board = Board::new(6, 6).unwrap();
    let dir = tempfile::tempdir().unwrap();
    gen(dir.path(), "6x6", &["KQvKR", "KRvKN", "KBNvK"]);
    let all = retro(&[
        "verify",
        "--board",
        "6x6",
        "--dir",
        dir.path().to_str().unwrap(),
        "--quiet",
    ]);
    assert!(all.status.success(), "{}", all_output(&all));
    assert!(all_output(&all).contains("all pass"));

    let cases: Vec<(&str, &str, Change)> = vec![
        (
            "KQvKR",
            "a win deepened by one ply",
            Box::new(|v, _| match v {
                Value::Win(n) if n > 5 => Some(Value::Loss(n + 1)),
                _ => None,
            }),
        ),
        (
            "KRvK",
            "a win shortened by one ply",
            Box::new(|v, _| match v {
                Value::Win(n) if n > 5 => Some(Value::Loss(n - 1)),
                _ => None,
            }),
        ),
        (
            "KBNvK",
            "a win deepened by two plies",
            Box::new(|v, _| match v {
                Value::Win(n) if n > 9 => Some(Value::Win(n + 2)),
                _ => None,
            }),
        ),
        (
            "KRvKN",
            "a win turned into a draw",
            Box::new(|v, _| match v {
                Value::Win(n) if n > 7 => Some(Value::Draw),
                _ => None,
            }),
        ),
        (
            "KRvKN",
            "a draw turned into a loss",
            Box::new(|v, _| match v {
                Value::Draw => Some(Value::Loss(4)),
                _ => None,
            }),
        ),
        (
            "KQvKR",
            "a loss turned into a draw",
            Box::new(|v, _| match v {
                Value::Loss(n) if n > 6 => Some(Value::Draw),
                _ => None,
            }),
        ),
    ];
    inject_each(dir.path(), board, "6x6", cases);
}

#[test]
fn pawn_tables_pass_and_faults_are_found_at_en_passant_positions_too() {
    let board = Board::new(5, 5).unwrap();
    let dir = tempfile::tempdir().unwrap();
    gen(dir.path(), "5x5", &["KPvKP", "KRvKP"]);
    let all = retro(&[
        "verify",
        "--board",
        "5x5",
        "--dir",
        dir.path().to_str().unwrap(),
        "--quiet",
    ]);
    assert!(all.status.success(), "{}", all_output(&all));
    let text = all_output(&all);
    // Promotions lead into the queen, rook, bishop and knight tables, checked first.
    for needed in ["KQvK ", "KNvK ", "KQvKP ", "KPvK ", "KPvKP ", "KRvKP "] {
        assert!(text.contains(needed), "{needed} not checked:\n{text}");
    }

    let cases: Vec<(&str, &str, Change)> = vec![
        (
            "KPvKP",
            "a position with an en-passant target given another value",
            Box::new(|v, p| match v {
                _ if p.en_passant().is_none() => None,
                Value::Draw => Some(Value::Win(3)),
                Value::Win(n) => Some(Value::Win(n + 2)),
                Value::Loss(n) => Some(Value::Draw).filter(|_| n > 0),
                Value::Illegal => None,
            }),
        ),
        (
            "KPvK",
            "a pawn's win deepened by two plies",
            Box::new(|v, _| match v {
                Value::Win(n) if n > 9 => Some(Value::Win(n + 2)),
                _ => None,
            }),
        ),
        (
            "KRvKP",
            "a draw turned into a loss",
            Box::new(|v, _| match v {
                Value::Draw => Some(Value::Loss(6)),
                _ => None,
            }),
        ),
    ];
    inject_each(dir.path(), board, "5x5", cases);
}

#[test]
fn damaged_files_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    gen(dir.path(), "5x5", &["KRvK"]);
    let path = dir.path().join("KRvK.5x5.rtb");
    let good = std::fs::read(&path).unwrap();
    let run = || {
        retro(&[
            "verify",
            "KRvK",
            "--board",
            "5x5",
            "--dir",
            dir.path().to_str().unwrap(),
            "--quiet",
        ])
    };
    let mut bad = good.clone();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    std::fs::write(&path, &bad).unwrap();
    let out = run();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        all_output(&out).contains("checksum"),
        "{}",
        all_output(&out)
    );
    std::fs::write(&path, &good[..good.len() - 3]).unwrap();
    let out = run();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        all_output(&out).contains("truncated"),
        "{}",
        all_output(&out)
    );
    // A well-formed table of another material under KRvK's name: a wrong header.
    gen(dir.path(), "5x5", &["KQvK"]);
    std::fs::copy(dir.path().join("KQvK.5x5.rtb"), &path).unwrap();
    let out = run();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        all_output(&out).contains("the header describes KQvK"),
        "{}",
        all_output(&out)
    );
}

#[test]
fn theorems_are_stated_once_checked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    gen(dir.path(), "8x8", &["KRvK"]);
    let before = retro(&["prove", "KR_K", "--stm", "black", "--dir", d]);
    assert_eq!(before.status.code(), Some(1));
    assert!(
        all_output(&before).contains("NOT ESTABLISHED"),
        "{}",
        all_output(&before)
    );
    assert!(retro(&["verify", "KRvK", "--dir", d, "--quiet"])
        .status
        .success());
    let out = retro(&["prove", "KR_K", "--stm", "black", "--dir", d]);
    assert!(out.status.success(), "{}", all_output(&out));
    let t = all_output(&out);
    assert!(t.contains("Established by `retro verify`"), "{t}");
    assert!(t.contains("∀p. all_on_board p ∧ to_move p = Black ∧ has_pieces p White [King, Rook] ∧ has_pieces p Black [King] ⇒ (p ∈ win2 chess ⟺ p ∈ win2_by chess 16)"), "{t}");
    assert!(
        t.contains("p₀ ∈ win2_by chess 16 ∧ p₀ ∉ win2_by chess 15"),
        "{t}"
    );
    assert!(
        t.contains("has_pieces p Black [King] ⇒ p ∉ win1 chess_black"),
        "Black never wins: {t}"
    );
    // Hurd's own witness, a single-position theorem.
    let out = retro(&["prove", "8/3k1R2/8/8/8/8/8/K7 b - - 0 1", "--dir", d]);
    assert!(out.status.success(), "{}", all_output(&out));
    let t = all_output(&out);
    assert!(
        t.contains("p ∈ win2_by chess 16 ∧ p ∉ win2_by chess 15"),
        "{t}"
    );
    assert!(t.contains("if sq = (0, 0) then SOME (White, King) else if sq = (5, 6) then SOME (White, Rook) else if sq = (3, 6) then SOME (Black, King) else NONE"), "{t}");
    // White to move: the win1_by form.
    let t = all_output(&retro(&[
        "prove",
        "8/8/8/8/8/2k5/1R6/K7 w - - 0 1",
        "--dir",
        d,
    ]));
    assert!(
        t.contains("p ∈ win1_by chess 15 ∧ p ∉ win1_by chess 14"),
        "{t}"
    );
    // A changed table is no longer established.
    let path = dir.path().join("KRvK.8x8.rtb");
    let table = Table::open(&path).unwrap();
    let (header, mut body) = (table.header().clone(), table.body().to_vec());
    drop(table);
    let i = body.iter().position(|&c| c == 3).unwrap();
    body[i] = 5;
    retro_format::write_table(&path, &header, &body).unwrap();
    assert!(
        all_output(&retro(&["prove", "KR_K", "--dir", d])).contains("changed since it was checked")
    );
}

/// Hurd, section 3.2: KQRvK with White to move settles after six moves, but its captures reach
/// KRvK, which needs sixteen. The theorem at 6 is sound only because the iteration went on to 16
/// and found the set unchanged; a rule that stopped when a category's set first stops changing
/// would be unsound — as KQvKR shows, where Black's wins pause and then grow again.
#[test]
fn hurds_kqrk_subtlety() {
    let dir = tempfile::tempdir().unwrap();
    gen(dir.path(), "8x8", &["KQRvK", "KQvKR"]);
    assert!(retro(&[
        "verify",
        "KQRvK",
        "KQvKR",
        "--dir",
        dir.path().to_str().unwrap(),
        "--quiet"
    ])
    .status
    .success());
    let tb = Tablebase::new(Board::STANDARD, dir.path());
    // win1_by n with White to move: wins in at most 2n + 1 plies; win2_by n with Black to move:
    // losses in at most 2n plies. Sizes of the sets, from the verified table:
    let kqrk = material_stats(&tb, "KQRvK".parse().unwrap()).unwrap();
    let win1_by = |n: u32| -> u64 {
        kqrk.side(Side::White)
            .by_plies
            .iter()
            .filter(|(&p, _)| p % 2 == 1 && p <= 2 * n + 1)
            .map(|(_, c)| c.raw)
            .sum()
    };
    let win2_by = |n: u32| -> u64 {
        kqrk.side(Side::Black)
            .by_plies
            .iter()
            .filter(|(&p, _)| p % 2 == 0 && p <= 2 * n)
            .map(|(_, c)| c.raw)
            .sum()
    };
    // The White-to-move sets stop changing after six moves (Table 1: max 6) …
    assert!(win1_by(4) < win1_by(5));
    for n in 5..=16 {
        assert_eq!(win1_by(n), win1_by(5), "win1_by {n}");
    }
    assert_eq!(win1_by(16), kqrk.side(Side::White).legal.raw);
    // … but the Black-to-move sets they depend on keep growing to 16 (captures into KRvK), so
    // at 6 the iteration is not yet at a fixed point and the stability lemma does not apply.
    assert!(win2_by(6) < win2_by(16));
    assert!(win2_by(15) < win2_by(16));
    let (deepest, witness) = kqrk.side(Side::Black).longest_loss.clone().unwrap();
    assert_eq!(
        deepest, 32,
        "a Black-to-move position of KQRvK mated in 16: {witness}"
    );
    // Carried to 16, where every set is stable, the theorem at 16 holds, and the set at 6 is
    // the same: so the theorem holds at 6 too (Hurd's last step).
    assert_eq!(win2_by(16), win2_by(17));
    assert_eq!(win1_by(6), win1_by(16));

    // Stopping as soon as a category's set repeats would be unsound: in KQvKR with White to
    // move, Black's forced mates (the colour-exchanged game's win2_by) include 2-ply mates, none
    // new at 4 … 12 plies, then more up to 36.
    let kqkr = material_stats(&tb, "KQvKR".parse().unwrap()).unwrap();
    let black_wins = |n: u32| -> u64 {
        kqkr.side(Side::White)
            .by_plies
            .iter()
            .filter(|(&p, _)| p % 2 == 0 && p <= 2 * n)
            .map(|(_, c)| c.raw)
            .sum()
    };
    assert!(black_wins(1) > 0);
    assert_eq!(
        black_wins(2),
        black_wins(1),
        "the set repeats: a naive stop here"
    );
    assert!(black_wins(18) > black_wins(1), "yet there are later mates");
    let (deepest, witness) = kqkr.side(Side::White).longest_loss.clone().unwrap();
    assert_eq!(deepest, 36, "White to move, mated in 18: {witness}");
}

/// Every table of up to 4 men on 8×8, the 11 with pawns among them (promotions, en passant),
/// is built by the fast core and passes the checker.
#[test]
fn every_table_of_up_to_four_men_passes_on_8x8() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let built = retro(&[
        "gen", "--kinds", "dtm", "--up-to", "4", "--dir", d, "--quiet",
    ]);
    assert!(built.status.success(), "{}", all_output(&built));
    let checked = retro(&["verify", "--dir", d, "--quiet"]);
    let text = all_output(&checked);
    assert!(checked.status.success(), "{text}");
    assert!(text.contains("checked 36 tables"), "{text}");
    assert!(text.contains("all pass"), "{text}");
    for pawns in [
        "KPvK ", "KPPvK ", "KPvKP ", "KQPvK ", "KRPvK ", "KBPvK ", "KNPvK ", "KQvKP ", "KRvKP ",
        "KBvKP ", "KNvKP ",
    ] {
        assert!(
            text.lines()
                .any(|l| l.contains(pawns) && l.contains("PASS")),
            "{pawns} not checked:\n{text}"
        );
    }
}

/// `--resume` passes over tables whose certificates still hold, and checks again a table whose
/// file changed since.
#[test]
fn resume_passes_over_certified_tables_only() {
    let board = Board::new(5, 5).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    gen(dir.path(), "5x5", &["KRvK"]);
    let args = [
        "verify", "KRvK", "--board", "5x5", "--dir", d, "--quiet", "--resume",
    ];
    let first = retro(&args);
    assert!(first.status.success(), "{}", all_output(&first));
    assert!(all_output(&first).contains("KRvK  PASS"));
    let again = retro(&args);
    let text = all_output(&again);
    assert!(again.status.success(), "{text}");
    assert!(text.contains("KRvK  CERTIFIED"), "{text}");
    assert!(text.contains("checked 0 tables"), "{text}");
    inject(dir.path(), board, "KRvK", |v, _| match v {
        Value::Win(n) if n > 3 => Some(Value::Win(n + 2)),
        _ => None,
    });
    let changed = retro(&args);
    let text = all_output(&changed);
    assert!(!changed.status.success(), "{text}");
    assert!(text.contains("KRvK  FAIL"), "{text}");
}

/// Checking a lane at a time (the positions that differ only in the last man's square, read
/// together) and a position at a time agree: on correct tables both pass with the same counts,
/// and after an injected fault both report the same failures. Square and oblong boards, groups
/// of identical men before the last man and ending with it, pawns (whose moves the lanes take
/// a position at a time), and king pairs with several minimisers all occur.
#[test]
fn lane_and_position_checks_agree() {
    use retro_verify::men::Men;
    use retro_verify::Checker;
    for (board_name, materials) in [
        ("5x5", &["KRRvKB", "KBNvKN"][..]),
        ("4x5", &["KRBvKR"]),
        ("5x4", &["KRNNvK"]),
        ("4x5", &["KRPvKR"]),
    ] {
        let board: Board = {
            let (f, r) = board_name.split_once('x').unwrap();
            Board::new(f.parse().unwrap(), r.parse().unwrap()).unwrap()
        };
        let dir = tempfile::tempdir().unwrap();
        gen(dir.path(), board_name, materials);
        let reports = |lanes: bool| {
            let checker = Checker::new(board, dir.path()).with_lanes(lanes);
            let plan = checker.plan(materials).unwrap();
            plan.iter()
                .map(|men: &Men| {
                    let report = checker.check(men, &|_| {}).unwrap();
                    let mut failures: Vec<String> =
                        report.failures.iter().map(|f| f.to_string()).collect();
                    failures.sort();
                    (
                        men.to_string(),
                        report.positions,
                        report.failure_count,
                        failures,
                    )
                })
                .collect::<Vec<_>>()
        };
        let correct = reports(true);
        assert!(correct
            .iter()
            .all(|(_, positions, failed, _)| *positions > 0 && *failed == 0));
        assert_eq!(correct, reports(false), "{board_name}");
        let fen = inject(dir.path(), board, materials[0], |v, _| match v {
            Value::Win(n) if n > 7 => Some(Value::Win(n + 2)),
            _ => None,
        });
        let faulty = reports(true);
        let (_, _, failed, failures) = faulty.iter().find(|r| r.0 == materials[0]).unwrap();
        assert!(
            *failed > 0 && failures.iter().any(|f| f.starts_with(&fen)),
            "{failures:?}"
        );
        assert_eq!(faulty, reports(false), "{board_name} with a fault at {fen}");
    }
}
