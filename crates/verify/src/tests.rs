//! The checker on tables written by hand (no generator involved): the index scheme's sizes, a
//! correct KvK table, and single wrong entries.

use super::*;
use retro_format::Header;
use retro_rules::laws::chess_legal;

fn write_kvk(dir: &Path, board: Board, mut value_of: impl FnMut(&Position) -> u32) {
    let men = Men::parse("KvK").unwrap();
    let scheme = Scheme::new(board, &men);
    let size = scheme.size() as usize;
    let mut codes = vec![0u32; 2 * size];
    for &pair in scheme.pairs() {
        scheme.for_each_placement(pair, |squares| {
            if !scheme.is_canonical(squares) {
                return;
            }
            let i = scheme.index(squares).unwrap() as usize;
            for (s, side) in Side::ALL.into_iter().enumerate() {
                let p = Position::new(
                    board,
                    side,
                    squares.iter().copied().zip(scheme.men().iter().copied()),
                    None,
                )
                .unwrap();
                if chess_legal(&p) {
                    codes[s * size + i] = value_of(&p);
                }
            }
        });
    }
    let header = Header {
        files: board.files(),
        ranks: board.ranks(),
        material: "KvK".into(),
        index_scheme: retro_format::INDEX_SCHEME,
        symmetries: if board.is_square() { 8 } else { 4 },
        entries_per_side: size as u64,
        value_width: 1,
        max_plies: 0,
        kind: retro_format::TableKind::Dtm,
        rule_plies: 0,
    };
    let body = retro_format::encode_body(&header, codes.into_iter()).unwrap();
    let path = dir.join(retro_format::file_name("KvK", board.files(), board.ranks()));
    retro_format::write_table(&path, &header, &body).unwrap();
}

#[test]
fn scheme_sizes_match_the_description() {
    let standard = Board::STANDARD;
    assert_eq!(
        Scheme::new(standard, &Men::parse("KvK").unwrap()).size(),
        462
    );
    assert_eq!(
        Scheme::new(standard, &Men::parse("KRvK").unwrap()).size(),
        462 * 64
    );
    assert_eq!(
        Scheme::new(standard, &Men::parse("KRRvK").unwrap()).size(),
        462 * 2016
    );
    // A non-square board has 4 symmetries, so about twice as many king pairs per square.
    let wide = Board::new(5, 3).unwrap();
    let pairs = Scheme::new(wide, &Men::parse("KvK").unwrap()).pairs().len();
    assert!(pairs > 0 && pairs < 15 * 14 / 2);
}

#[test]
fn a_correct_table_passes_and_a_wrong_entry_is_reported_where_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let board = Board::new(4, 4).unwrap();
    let checker = Checker::new(board, dir.path());
    let men = Men::parse("KvK").unwrap();
    write_kvk(dir.path(), board, |_| 1);
    let report = checker.check(&men, &|_| {}).unwrap();
    assert!(report.passed(), "{:?}", report.failures);
    assert!(report.positions > 0);

    // Claim one position is a win in 1 for the side to move: bare kings cannot mate.
    let mut target = None;
    let checker = Checker::new(board, dir.path());
    write_kvk(dir.path(), board, |p| {
        if target.is_none() {
            target = Some(p.fen());
            3
        } else {
            1
        }
    });
    let report = checker.check(&men, &|_| {}).unwrap();
    assert!(!report.passed());
    let target = target.unwrap();
    assert!(
        report
            .failures
            .iter()
            .any(|f| f.fen == target && f.problem.contains("(W)")),
        "{:?}",
        report.failures
    );

    // Leave one legal position out.
    let checker = Checker::new(board, dir.path());
    let mut dropped = None;
    write_kvk(dir.path(), board, |p| {
        if dropped.is_none() {
            dropped = Some(p.fen());
            0
        } else {
            1
        }
    });
    let report = checker.check(&men, &|_| {}).unwrap();
    let dropped = dropped.unwrap();
    assert!(
        report
            .failures
            .iter()
            .any(|f| f.fen == dropped && f.problem.contains("(P)")),
        "{:?}",
        report.failures
    );
}

#[test]
fn certificates_follow_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let board = Board::new(4, 4).unwrap();
    let checker = Checker::new(board, dir.path());
    let men = Men::parse("KvK").unwrap();
    write_kvk(dir.path(), board, |_| 1);
    assert!(certificate::established(&checker, &men).unwrap().is_some());
    let report = checker.check(&men, &|_| {}).unwrap();
    certificate::write(&checker, &report, board).unwrap();
    assert_eq!(certificate::established(&checker, &men).unwrap(), None);
    // A different file (here: one wrong entry) is no longer established.
    let mut first = true;
    write_kvk(dir.path(), board, |_| {
        if std::mem::take(&mut first) {
            3
        } else {
            1
        }
    });
    let reason = certificate::established(&Checker::new(board, dir.path()), &men)
        .unwrap()
        .unwrap();
    assert!(reason.contains("changed"), "{reason}");
}

#[test]
fn plans_start_from_the_smallest_tables() {
    let checker = Checker::new(Board::STANDARD, "unused");
    let names: Vec<String> = checker
        .plan(&["KR_KQ"])
        .unwrap()
        .iter()
        .map(|m| m.to_string())
        .collect();
    assert_eq!(names, ["KvK", "KQvK", "KRvK", "KQvKR"]);
    // A promotion keeps the men's number: the piece tables come before KPvK.
    let names: Vec<String> = checker
        .plan(&["KPvK"])
        .unwrap()
        .iter()
        .map(|m| m.to_string())
        .collect();
    assert_eq!(names, ["KvK", "KBvK", "KNvK", "KQvK", "KRvK", "KPvK"]);
    assert!(checker.plan(&["KXvK"]).is_err());
}

#[test]
fn a_check_in_shares_finds_what_the_whole_check_finds() {
    let dir = tempfile::tempdir().unwrap();
    let board = Board::new(5, 5).unwrap();
    let men = Men::parse("KvK").unwrap();
    // A wrong entry (a win in 1 with bare kings) and a missing one.
    let (mut wrong, mut missing) = (None, None);
    write_kvk(dir.path(), board, |p| {
        if wrong.is_none() {
            wrong = Some(p.fen());
            3
        } else if missing.is_none() {
            missing = Some(p.fen());
            0
        } else {
            1
        }
    });
    let checker = Checker::new(board, dir.path());
    let whole = checker.check(&men, &|_| {}).unwrap();
    let fens = |report: &Report| {
        let mut fens: Vec<String> = report.failures.iter().map(|f| f.fen.clone()).collect();
        fens.sort();
        fens
    };
    for count in [2, 3, 7] {
        let shares: Vec<ShareReport> = (0..count)
            .map(|rank| {
                checker
                    .check_share(&men, Share { rank, count }, &|_| {})
                    .unwrap()
            })
            .collect();
        // Every share checks some positions; together, each position once.
        assert!(shares.iter().all(|s| s.legal[0] > 0), "{count} shares");
        let combined = checker.combine(&men, shares, Instant::now()).unwrap();
        assert_eq!(combined.positions, whole.positions, "{count} shares");
        assert_eq!(
            combined.failure_count, whole.failure_count,
            "{count} shares"
        );
        assert_eq!(fens(&combined), fens(&whole), "{count} shares");
    }
    assert!(fens(&whole).contains(&wrong.unwrap()));
    assert!(whole.failures.iter().any(|f| f.problem.contains("(P)")));
}
