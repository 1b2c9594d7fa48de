//! The generator against the reference solver of `retro-game` running on the natural model:
//! every legal position of the material and of everything its captures reach, both sides to
//! move, on small boards.

use super::*;
use rayon::prelude::*;
use retro_engine::TablePosition;
use retro_engine::{Geometry, Indexer};
use retro_format::{Table, Value};
use retro_game::solve;
use retro_rules::chess::universe;
use retro_rules::{Board, Side};
use retro_rules::{Chess, Man};
use std::collections::HashMap;
use std::path::Path;

struct Tables {
    geo: Geometry,
    tables: HashMap<Material, (Table, Indexer)>,
}

impl Tables {
    fn open(dir: &Path, board: Board, materials: &[Material]) -> Tables {
        let geo = Geometry::new(board);
        let tables = materials
            .iter()
            .map(|&m| {
                let path = dir.join(retro_format::file_name(
                    &m.to_string(),
                    board.files(),
                    board.ranks(),
                ));
                (
                    m,
                    (Table::open(&path).unwrap(), Indexer::new(&geo, m).unwrap()),
                )
            })
            .collect();
        Tables { geo, tables }
    }

    fn value(&self, p: &retro_rules::Position) -> Value {
        let fast: TablePosition = TablePosition::from_natural(&self.geo, p).unwrap();
        let (canonical, flipped) = fast.material().canonical();
        let q = if flipped {
            fast.colour_flipped(&self.geo)
        } else {
            fast
        };
        let (table, indexer) = &self.tables[&canonical];
        table
            .value(
                q.side_to_move() == Side::White,
                indexer.index(&self.geo, &q).unwrap(),
            )
            .unwrap()
    }
}

/// Builds `material` on `board` and compares every legal position with the reference solver.
fn compare_with_reference(material: &str, board: (usize, usize)) {
    let board = Board::new(board.0, board.1).unwrap();
    let material: Material = material.parse().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let builder = Builder::new(board, dir.path());
    let reports = builder.build(&[material], &Silent).unwrap();
    let built: Vec<Material> = reports.iter().map(|r| r.material).collect();
    let tables = Tables::open(dir.path(), board, &built);

    let men: Vec<Man> = material.men();
    let positions = universe(board, &men);
    let (white, black) = rayon::join(
        || solve(&Chess::WHITE, positions.iter().cloned()).unwrap(),
        || solve(&Chess::BLACK, positions.iter().cloned()).unwrap(),
    );
    let mut checked = 0;
    for p in positions
        .iter()
        .filter(|p| retro_rules::laws::chess_legal(p))
    {
        let stm = retro_rules::position::to_move(p);
        // Player I is the side whose wins a game describes; the side to move wins in 2n + 1
        // plies when n is least with p ∈ win1_by, and loses in 2n plies when the other side's
        // game has n least with p ∈ win2_by.
        let (mine, theirs) = if stm == Side::White {
            (&white, &black)
        } else {
            (&black, &white)
        };
        let expected = match (mine.least_win1_by(p), theirs.least_win2_by(p)) {
            (Some(n), None) => Value::Win(2 * n + 1),
            (None, Some(n)) => Value::Loss(2 * n),
            (None, None) => Value::Draw,
            (Some(_), Some(_)) => panic!("{} is won by both sides", p.fen()),
        };
        assert_eq!(
            tables.value(p),
            expected,
            "{} ({material} on {board})",
            p.fen()
        );
        checked += 1;
    }
    assert!(checked > 1000, "{checked}");
}

#[test]
fn krk_on_4x4_matches_the_reference_solver() {
    compare_with_reference("KRvK", (4, 4));
}

#[test]
fn krk_on_5x5_matches_the_reference_solver() {
    compare_with_reference("KRvK", (5, 5));
}

#[test]
fn kqkr_on_4x4_matches_the_reference_solver() {
    compare_with_reference("KQvKR", (4, 4));
}

#[test]
fn kqkr_on_5x5_matches_the_reference_solver() {
    compare_with_reference("KQvKR", (5, 5));
}

#[test]
fn small_and_symmetric_materials_match_the_reference_solver() {
    // Identical men, a knight's odd geometry, non-square boards (4 symmetries), and odd sides
    // (kings on the middle file and rank, where symmetric positions are common).
    for (material, board) in [
        ("KBBvK", (4, 4)),
        ("KNNvK", (4, 4)),
        ("KRRvK", (3, 3)),
        ("KBNvK", (3, 4)),
        ("KRvKN", (5, 3)),
        ("KQvKQ", (3, 5)),
        ("KRvKB", (5, 4)),
        ("KQvK", (5, 5)),
    ] {
        compare_with_reference(material, board);
    }
}

#[test]
fn plans_build_smaller_materials_first() {
    let builder = Builder::new(Board::STANDARD, "unused");
    let plan = builder.plan(&["KRBvKR".parse().unwrap()]).unwrap();
    let names: Vec<String> = plan.iter().map(|m| m.to_string()).collect();
    assert_eq!(
        names,
        ["KvK", "KBvK", "KRvK", "KRBvK", "KRvKB", "KRvKR", "KRBvKR"]
    );
    // A promotion keeps the number of men: KQvK and the others come before KPvK, and a
    // promotion with a capture (KRvKP's pawn taking the rook as it promotes) is planned too.
    let plan = builder.plan(&["KRvKP".parse().unwrap()]).unwrap();
    let names: Vec<String> = plan.iter().map(|m| m.to_string()).collect();
    assert_eq!(
        names,
        [
            "KvK", "KBvK", "KNvK", "KQvK", "KRvK", "KPvK", "KQvKR", "KRvKB", "KRvKN", "KRvKR",
            "KRvKP"
        ]
    );
}

#[test]
fn existing_tables_are_reused_and_damaged_ones_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let board = Board::new(4, 4).unwrap();
    let builder = Builder::new(board, dir.path());
    let krk: Material = "KRvK".parse().unwrap();
    let first = builder.build(&[krk], &Silent).unwrap();
    assert!(first.iter().all(|r| !r.reused));
    let second = builder.build(&[krk], &Silent).unwrap();
    assert!(second.iter().all(|r| r.reused));
    // Damage the KRvK file: it is rebuilt, KvK is kept.
    let path = builder.path_of(krk);
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&path, bytes).unwrap();
    let third = builder.build(&[krk], &Silent).unwrap();
    assert_eq!(
        third.iter().map(|r| r.reused).collect::<Vec<_>>(),
        vec![true, false]
    );
    assert!(Table::open(&path).is_ok());
    // A file of an older index scheme, intact otherwise, is built again too.
    let table = Table::open(&path).unwrap();
    let old = retro_format::Header {
        index_scheme: retro_format::INDEX_SCHEME - 1,
        ..table.header().clone()
    };
    retro_format::write_table(&path, &old, table.body()).unwrap();
    drop(table);
    let fourth = builder.build(&[krk], &Silent).unwrap();
    assert_eq!(
        fourth.iter().map(|r| r.reused).collect::<Vec<_>>(),
        vec![true, false]
    );
    assert_eq!(
        Table::open(&path).unwrap().header().index_scheme,
        retro_format::INDEX_SCHEME
    );
}

#[test]
fn kept_files_are_checked_whole_where_the_run_reads_them() {
    let dir = tempfile::tempdir().unwrap();
    let builder = Builder::new(Board::new(4, 4).unwrap(), dir.path());
    let krk: Material = "KRvK".parse().unwrap();
    let kvk: Material = "KvK".parse().unwrap();
    builder.build(&[krk], &Silent).unwrap();
    let damage = |m: Material| {
        let path = builder.path_of(m);
        let mut bytes = std::fs::read(&path).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        std::fs::write(&path, bytes).unwrap();
    };
    // KvK's body damaged: KRvK is intact and kept, so nothing reads KvK, whose header is
    // checked alone.
    damage(kvk);
    let second = builder.build(&[krk], &Silent).unwrap();
    let flags = |reports: &[BuildReport]| {
        reports
            .iter()
            .map(|r| (r.material.to_string(), r.reused, r.body_checked))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        flags(&second),
        [("KvK".into(), true, false), ("KRvK".into(), true, true)]
    );
    // KRvK damaged too: it is built again and reads KvK, which is found damaged and built
    // again first.
    damage(krk);
    let third = builder.build(&[krk], &Silent).unwrap();
    assert_eq!(
        flags(&third),
        [("KvK".into(), false, true), ("KRvK".into(), false, true)]
    );
    assert!(Table::open(&builder.path_of(kvk)).is_ok());
    // Asked for by name, a file is checked whole.
    damage(kvk);
    let fourth = builder.build(&[kvk], &Silent).unwrap();
    assert_eq!(flags(&fourth), [("KvK".into(), false, true)]);
}

/// Builds `materials` (and what they need) with both cores and compares the stored bodies.
fn cores_agree(board: (usize, usize), materials: &[&str]) {
    cores_agree_tuned(board, materials, fast::Tuning::default());
}

/// The phases a build report times (setting up, the retrograde iteration) are never negative
/// and fit in its total.
fn assert_phases_add_up(report: &crate::BuildReport) {
    let phases = [report.init_seconds, report.retrograde_seconds];
    assert!(
        phases.iter().all(|&s| s >= 0.0) && phases.iter().sum::<f64>() <= report.seconds,
        "{}: {phases:?} s of {} s",
        report.material,
        report.seconds
    );
}

/// The phases each table's build began, in order.
#[derive(Default)]
struct PhaseLog(std::sync::Mutex<HashMap<Material, Vec<Phase>>>);

impl Observer for PhaseLog {
    fn phase(&self, subject: &str, phase: Phase, _work: u64) {
        let material = Material::parse(subject).expect("the builders name a material");
        let mut log = self.0.lock().unwrap();
        log.entry(material).or_default().push(phase);
    }
}

/// [`cores_agree`] with the fast core spending its work byte as `tuning` says. Returns, by
/// material, the phases the fast core began: a table solved in one attempt begins one
/// retrograde phase (after its init phase, unless it is sliced).
fn cores_agree_tuned(
    board: (usize, usize),
    materials: &[&str],
    tuning: fast::Tuning,
) -> HashMap<Material, Vec<Phase>> {
    let board = Board::new(board.0, board.1).unwrap();
    let targets: Vec<Material> = materials.iter().map(|m| m.parse().unwrap()).collect();
    let reference_dir = tempfile::tempdir().unwrap();
    let fast_dir = tempfile::tempdir().unwrap();
    let reference = Builder::new(board, reference_dir.path()).with_core(CoreKind::Reference);
    let mut fast = Builder::new(board, fast_dir.path());
    fast.tuning = tuning;
    for report in reference.build(&targets, &Silent).unwrap() {
        assert_phases_add_up(&report);
    }
    let phases = PhaseLog::default();
    for report in fast.build(&targets, &phases).unwrap() {
        assert_phases_add_up(&report);
        assert_eq!(
            report.core,
            Some(CoreKind::Fast),
            "{} was built by the expected core",
            report.material
        );
        let mine = Table::open(&report.path).unwrap();
        let theirs = Table::open(&reference.path_of(report.material)).unwrap();
        assert_eq!(
            mine.header(),
            theirs.header(),
            "{} on {board}",
            report.material
        );
        if mine.body() != theirs.body() {
            let geo = Geometry::new(board);
            let indexer = Indexer::new(&geo, report.material).unwrap();
            let e = indexer.size();
            let width = usize::from(mine.header().value_width);
            let mut shown = 0;
            for side in [true, false] {
                for i in 0..e {
                    let (a, b) = (mine.value(side, i).unwrap(), theirs.value(side, i).unwrap());
                    if a != b && shown < 10 {
                        let stm = if side { Side::White } else { Side::Black };
                        let fen = indexer
                            .position::<8>(&geo, i, stm)
                            .map(|p| p.to_natural(&geo).fen());
                        eprintln!("{} {fen:?}: fast {a:?}, reference {b:?}", report.material);
                        shown += 1;
                    }
                }
            }
            panic!(
                "{} on {board}: bodies differ (width {width})",
                report.material
            );
        }
    }
    let left: Vec<_> = std::fs::read_dir(fast_dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.ends_with(".rtb"))
        .collect();
    assert!(left.is_empty(), "scratch files left behind: {left:?}");
    phases.0.into_inner().unwrap()
}

/// Asserts that the fast core solved every table of `phases` in one attempt: no table was
/// found too deep for its watch codes partway and built again without them (its slices, or
/// whole).
fn assert_one_attempt(phases: &HashMap<Material, Vec<Phase>>, what: &str) {
    for (material, phases) in phases {
        let retrogrades = phases.iter().filter(|&&p| p == Phase::Retrograde).count();
        assert_eq!(retrogrades, 1, "{material} ({what}) began {phases:?}");
    }
}

#[test]
fn fast_core_equals_reference_core_on_small_boards() {
    cores_agree(
        (4, 4),
        &["KQvKR", "KRvKN", "KBNvK", "KNNvK", "KRvKR", "KQvKQ"],
    );
    cores_agree((5, 5), &["KQvKR", "KRvKB", "KBBvK", "KRRvK"]);
    cores_agree((5, 4), &["KQvKR", "KRvKN", "KBNvK"]);
    cores_agree((3, 7), &["KRvKR", "KQvKN"]);
}

/// Three identical men, and two with a third man after them: the run-wise un-moves and the
/// wins pulled from their parents on tables where the last man has companions.
#[test]
fn fast_core_equals_reference_core_with_identical_last_men() {
    cores_agree((4, 4), &["KRRRvK", "KNNvKB"]);
    cores_agree((5, 4), &["KQQvK", "KBBBvK"]);
}

#[test]
fn fast_core_equals_reference_core_with_pawns() {
    // Pushes, double steps, promotion to each piece with and without a capture, pawns of
    // either side, identical pawns, and capture targets with pawns of the other side.
    cores_agree((4, 4), &["KPvK", "KQvKP", "KPPvK", "KRvKP"]);
    cores_agree((4, 5), &["KPvK", "KNvKP", "KBPvK", "KPvKN"]);
    cores_agree((5, 5), &["KPvK", "KRvKP", "KPPvK", "KQPvK"]);
    cores_agree((5, 6), &["KRPvK", "KPvKB"]);
}

#[test]
fn fast_core_equals_reference_core_with_pawn_slices() {
    // Pawns of one side and a last man that is no pawn: solved slice by slice, pushes looked
    // up in the slices solved before; one and two pawns, promotions into sliced tables, slices
    // padded to whole chunks (4×6, 5×5) or not (4×4).
    cores_agree((4, 4), &["KRPvKR", "KQPvKQ"]);
    cores_agree((4, 6), &["KPPvKN", "KBPvKN"]);
    cores_agree((5, 5), &["KPPvKR", "KNPvKB"]);
}

#[test]
fn fast_core_without_hints_equals_reference_core() {
    // A table without hints makes the same passes, reading every parent's byte: whole tables
    // that go a run at a time and sliced ones, with identical men, checked as the hinted ones
    // are.
    let tuning = fast::Tuning {
        no_hints: true,
        ..fast::Tuning::default()
    };
    cores_agree_tuned((4, 4), &["KQvKR", "KRRvK", "KRPvKR"], tuning);
    cores_agree_tuned((5, 4), &["KBNvK", "KQvKQ"], tuning);
    cores_agree_tuned((4, 5), &["KBPvK", "KPPvKN"], tuning);
}

/// Sliced tables that store each part as it is solved and release the slices no later part
/// reads, as a six-man table with a pawn does ([`fast::MAX_SLICES_KEPT`]): one pawn and two,
/// identical men, and watch codes given up partway, the body gathered from the stored parts.
#[test]
fn fast_core_storing_its_parts_equals_reference_core() {
    let tuning = fast::Tuning {
        store_parts: true,
        ..fast::Tuning::default()
    };
    cores_agree_tuned((4, 4), &["KRPvKR", "KQPvKQ"], tuning);
    cores_agree_tuned((4, 6), &["KPPvKN", "KBPvKN"], tuning);
    cores_agree_tuned((5, 5), &["KPPvKR"], tuning);
    let watching = fast::Tuning {
        watch_keys: Some(12),
        ..tuning
    };
    cores_agree_tuned((5, 5), &["KNPvKB"], watching);
}

/// Six men, as on 8×8 (the even passes' hints folded into the ways out's set): every kind of
/// piece, identical men on either side — two groups of them at once, whose un-moves that fold
/// must put the other group in order again — and a pawn (solved in slices).
#[test]
fn fast_core_equals_reference_core_with_six_men() {
    let tuning = fast::Tuning {
        shared_win_hints: true,
        ..fast::Tuning::default()
    };
    cores_agree_tuned(
        (4, 4),
        &["KRNvKNN", "KQRvKQR", "KRRvKNN", "KBBvKNN"],
        tuning,
    );
    cores_agree_tuned((4, 5), &["KRBvKRN", "KRPvKNN"], tuning);
    cores_agree((4, 4), &["KBBNvK"]);
}

/// Materials whose sides have the same men: Black's passes mirrored from White's (the
/// default) and made in full ([`fast::Tuning::no_mirror`]) both give the reference core's
/// files. Odd and square boards (kings on a shared line or diagonal: positions of two slots),
/// every kind of piece, identical men on both sides, and six men with the hints shared.
#[test]
fn fast_core_mirroring_black_equals_reference_core() {
    [false, true].into_par_iter().for_each(|no_mirror| {
        let tuning = fast::Tuning {
            no_mirror,
            ..fast::Tuning::default()
        };
        cores_agree_tuned((5, 5), &["KRvKR", "KBvKB", "KNvKN", "KQvKQ"], tuning);
        cores_agree_tuned((3, 5), &["KQvKQ", "KRvKR"], tuning);
        cores_agree_tuned((4, 4), &["KBNvKBN", "KRRvKRR"], tuning);
        let shared = fast::Tuning {
            shared_win_hints: true,
            ..tuning
        };
        cores_agree_tuned((4, 5), &["KQRvKQR"], shared);
    });
}

/// The fast core against the reference core, tuned as `base` but for the watch codes (its odd
/// passes counting moves or not: [`fast::Tuning::count_moves`]), in the cases their losses
/// are found in: odd and square boards, whose kings may share the diagonal (a king's move into
/// a position of two slots), pins and checks, identical men, pawns solved whole and slice by
/// slice, and watch codes given up partway.
fn run_cases_agree(base: fast::Tuning) {
    [
        (
            (4, 4),
            &["KQvKR", "KRvKN", "KBNvK", "KRvKR", "KQvKQ", "KRRRvK"][..],
            None,
        ),
        ((5, 5), &["KQvKR", "KRvKB", "KBBvK", "KRRvK"][..], None),
        ((5, 4), &["KQvKR", "KBNvK", "KQQvK"][..], None),
        ((4, 5), &["KPvK", "KBPvK", "KPvKN", "KRPvK"][..], None),
        ((4, 4), &["KRPvKR", "KQPvKQ"][..], None),
        (
            (5, 5),
            &["KNPvKB"][..],
            Some((fast::MAX_WORK_PLIES - 40) as u8),
        ),
    ]
    .into_par_iter()
    .for_each(|(board, materials, watch_keys)| {
        let tuning = fast::Tuning { watch_keys, ..base };
        cores_agree_tuned(board, materials, tuning);
    });
}

#[test]
fn fast_core_counting_moves_equals_reference_core() {
    // The odd passes count moves (as a table without hints does). Counting a king's move
    // into two slots once, a pinned man's moves off its line, or a sliding checker's line as
    // no answer to it makes it fail.
    run_cases_agree(fast::Tuning {
        count_moves: true,
        ..fast::Tuning::default()
    });
}

#[test]
fn fast_core_finding_losses_by_ways_out_equals_reference_core() {
    // The odd passes find losses from the ways out of the runs their wins reach (the
    // default where hints are kept and no pawn moves). Taking a stalemate for a loss, or
    // missing the last man's own ways out, makes it fail.
    run_cases_agree(fast::Tuning::default());
}

#[test]
fn fast_core_with_the_win_hints_shared_equals_reference_core() {
    // The even passes test the ways out's set, as a six-man table on 8×8 does
    // ([`fast::Tuning::shared_win_hints`]). Taking the lost slots out of it as their values
    // become final (as `may_win` loses them) makes it fail: a move into a loss is a way out.
    run_cases_agree(fast::Tuning {
        shared_win_hints: true,
        ..fast::Tuning::default()
    });
}

#[test]
fn pawn_slices_give_the_watch_codes_up_a_part_at_a_time() {
    // Watch codes that leave the work byte a few depths. With 12 (KNPvKB on 5×5), the first
    // parts' captures already lie deeper: their init passes are made again without watching,
    // and the later parts' pushes lie deeper too, so they start without. With 40, one part
    // goes deeper partway through its passes and gives the watch codes up for the whole
    // table; later parts start watching again, some give them up for their own chunks
    // partway, others at their end, others from the start (their pushes lie too deep). With
    // 24, KQPvKQ on 4×4 gives them up partway, for the table and then for a part.
    for (board, material, depths) in [
        ((5, 5), "KNPvKB", 12),
        ((5, 5), "KNPvKB", 40),
        ((4, 4), "KQPvKQ", 24),
    ] {
        let tuning = fast::Tuning {
            watch_keys: Some((fast::MAX_WORK_PLIES - depths) as u8),
            ..fast::Tuning::default()
        };
        let phases = cores_agree_tuned(board, &[material], tuning);
        assert_one_attempt(&phases, &format!("{depths} depths"));
    }
}

#[test]
fn fast_core_equals_reference_core_with_en_passant() {
    // Pawns of both sides: double steps answered en passant (positions of their own), by one
    // or two pawns, into wins, draws and losses, after mate and stalemate of the placement,
    // identical pawns on either side, odd and even widths. Leaving out the en-passant parent
    // rule, the stalemate rule or the floor of losing captures makes it fail.
    for (board, materials) in [
        ((4, 5), &["KPvKP", "KPPvKP", "KPvKPP", "KRPvKP"][..]),
        ((5, 6), &["KPvKP"][..]),
        ((6, 6), &["KPvKP"][..]),
        ((4, 6), &["KPvKP"][..]),
    ] {
        cores_agree(board, materials);
    }
}

#[test]
fn the_fast_core_builds_again_without_watching_when_a_table_is_too_deep_for_it() {
    // 248 watch codes leave the work byte three depths (0 to 2 plies): KRvK on 5×5 mates in
    // more, so the first attempt gives up and the second, without watching, builds it.
    let board = Board::new(5, 5).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let reference_dir = tempfile::tempdir().unwrap();
    let mut fast = Builder::new(board, dir.path());
    fast.tuning.watch_keys = Some(248);
    let reference = Builder::new(board, reference_dir.path()).with_core(CoreKind::Reference);
    let targets = ["KRvK".parse().unwrap(), "KQvKR".parse().unwrap()];
    for report in reference.build(&targets, &Silent).unwrap() {
        assert_phases_add_up(&report);
    }
    for report in fast.build(&targets, &Silent).unwrap() {
        assert_phases_add_up(&report);
        assert_eq!(report.core, Some(CoreKind::Fast), "{}", report.material);
        let mine = Table::open(&report.path).unwrap();
        let theirs = Table::open(&reference.path_of(report.material)).unwrap();
        assert_eq!(mine.header(), theirs.header(), "{}", report.material);
        assert!(mine.body() == theirs.body(), "{}", report.material);
    }
    assert!(
        Table::open(&fast.path_of(targets[0]))
            .unwrap()
            .header()
            .max_plies
            > 2,
        "the test needs a table deeper than the first attempt holds"
    );
}

#[test]
fn a_whole_table_whose_exits_may_lie_too_deep_for_watching_takes_the_watch_codes_up_after_its_init_pass(
) {
    // KQvKP on 5×5 (a whole table: its last man is a pawn) leads into KQvKQ, mate in 34 plies,
    // so an exit may be 35 plies deep; its init pass stores at most 21. With 215 to 232 watch
    // codes a byte holds 36 down to 19 depths beside them: at 36 and 35 the init pass watches
    // from the start; at 34 to 21 it is made without watching and takes the watch codes up
    // after; at 20 and 19 it goes on without them. Every way gives the reference core's files
    // byte for byte, watching given up in place once the retrograde goes deeper.
    (215..=232u8).into_par_iter().for_each(|watch| {
        let tuning = fast::Tuning {
            watch_keys: Some(watch),
            rebase_span: None,
            whole: false,
            no_hints: false,
            shared_win_hints: false,
            count_moves: false,
            store_parts: false,
            no_mirror: false,
        };
        let phases = cores_agree_tuned((5, 5), &["KQvKP"], tuning);
        assert_one_attempt(&phases, &format!("{watch} watch codes"));
    });
}

#[test]
fn a_table_whose_exits_force_losses_deeper_than_the_watch_codes_allow_is_solved_in_one_attempt() {
    // A slot whose moves but its exits are all won at shallow depths is lost after its deepest
    // exit, stored by the forward check of a shallow pass. On 4×5, KRPvK (a whole table: its
    // last man is a pawn) has exits into KPvK, mate in 21 plies, and KRBvK and KRNvK into KRvK,
    // 18; their init passes store little: with 20 or 21 depths beside the watch codes (16 and
    // 17 for KRBvK and KRNvK) they took the watch codes up after the init pass, found such a
    // loss too deep for them and were built again without. KRPvKN (sliced) went too deep in a
    // part's passes with 31 to 33 and was built again too. Now the init pass notes the deepest
    // loss the exits may force, and the watch codes are given up (or not taken up) at once;
    // every table is built in one attempt, byte for byte the reference core's.
    [
        (16, "KRPvK"),
        (17, "KRPvK"),
        (20, "KRPvK"),
        (21, "KRPvK"),
        (31, "KRPvKN"),
        (33, "KRPvKN"),
    ]
    .into_par_iter()
    .for_each(|(depths, material)| {
        let tuning = fast::Tuning {
            watch_keys: Some((fast::MAX_WORK_PLIES - depths) as u8),
            ..fast::Tuning::default()
        };
        let phases = cores_agree_tuned((4, 5), &[material], tuning);
        assert_one_attempt(&phases, &format!("{depths} depths"));
    });
}

#[test]
fn rebased_depths_come_back_exact() {
    // A rebase every few depths (as 8×8 tables deeper than a byte rebase once or twice): each
    // folds the shallow depths into two codes and keeps them in a snapshot, a chain of dozens
    // here, with and without watching first, with en-passant positions, promotions and
    // pawnless material; the files are the reference core's byte for byte, and the snapshots
    // are deleted. Leaving the folded codes unresolved, or folding the frontier, makes it fail.
    // The two tunings side by side, so that this long test does not run last alone.
    [(5, Some(0)), (9, None)]
        .into_par_iter()
        .for_each(|(span, watch)| {
            // Sliced tables among the promotions (KRPvKB) decline the rebases and are solved
            // whole after all (one tuning storing their parts until then). One tuning shares
            // the even passes' hints with the ways out, as a six-man table deeper than a byte
            // (KRNvKNN) does. KRvKR has its Black passes mirrored from White's across the
            // rebases.
            let tuning = fast::Tuning {
                watch_keys: watch,
                rebase_span: Some(span),
                whole: false,
                no_hints: false,
                shared_win_hints: span == 9,
                count_moves: false,
                store_parts: span == 5,
                no_mirror: false,
            };
            cores_agree_tuned((4, 5), &["KPvKP", "KRPvKP", "KQvKR"], tuning);
            cores_agree_tuned((5, 5), &["KRvK", "KBNvK", "KRvKR"], tuning);
        });
}

#[test]
fn fast_core_equals_reference_core_on_8x8() {
    cores_agree(
        (8, 8),
        &["KQvK", "KRvK", "KBNvK", "KQvKR", "KRvKB", "KBBvK", "KNNvK"],
    );
}

// Pawns: pushes, double steps, en passant, promotion to each piece with and without a capture,
// on boards with room for a double step (at least 4 ranks), one test per case: every material of
// up to 4 men with pawns.

#[test]
fn kpk_on_4x4_4x5_and_5x5_matches_the_reference_solver() {
    for board in [(4, 4), (4, 5), (5, 5)] {
        compare_with_reference("KPvK", board);
    }
}

#[test]
fn kpkp_on_4x4_matches_the_reference_solver() {
    // Both sides' pawns; a double step promotes on 4 ranks, so no en passant.
    compare_with_reference("KPvKP", (4, 4));
}

#[test]
fn kpkp_on_3x5_matches_the_reference_solver() {
    // Double steps that end off the last rank: en passant both ways.
    compare_with_reference("KPvKP", (3, 5));
}

#[test]
fn krkp_on_4x4_matches_the_reference_solver() {
    compare_with_reference("KRvKP", (4, 4));
}

#[test]
fn kppk_on_4x4_matches_the_reference_solver() {
    compare_with_reference("KPPvK", (4, 4));
}

#[test]
fn knkp_on_4x5_matches_the_reference_solver() {
    compare_with_reference("KNvKP", (4, 5));
}

#[test]
fn the_other_four_man_pawn_materials_on_4x4_match_the_reference_solver() {
    // With KPvK, KPPvK, KPvKP, KRvKP and KNvKP above: every material of up to 4 men with
    // pawns, promotions into every piece's tables.
    for material in ["KQPvK", "KRPvK", "KBPvK", "KNPvK", "KQvKP", "KBvKP"] {
        compare_with_reference(material, (4, 4));
    }
}
