//! Builds partitioned over ranks (threads of one process standing in for MPI ranks) against
//! the same builds in one process: every file byte for byte.

use crate::ranks::ThreadRanks;
use crate::{BuildReport, Builder, GenError, Silent};
use retro_engine::Material;
use retro_rules::Board;
use std::path::Path;

/// Builds `targets` on `board` into `dir` with `count` thread ranks; every rank's reports.
fn build_on_threads(
    board: Board,
    dir: &Path,
    targets: &[Material],
    count: usize,
) -> Vec<Result<Vec<BuildReport>, GenError>> {
    let handles: Vec<_> = ThreadRanks::group(count)
        .into_iter()
        .map(|ranks| {
            let dir = dir.to_path_buf();
            let targets = targets.to_vec();
            std::thread::spawn(move || Builder::new(board, dir).build_on(&targets, &Silent, &ranks))
        })
        .collect();
    handles
        .into_iter()
        .map(|h| h.join().expect("no panic"))
        .collect()
}

/// Every file `materials` need, built by `counts` ranks, equals the one-process build's.
fn partitioned_builds_agree(board: (usize, usize), materials: &[&str], counts: &[usize]) {
    let board = Board::new(board.0, board.1).unwrap();
    let targets: Vec<Material> = materials.iter().map(|m| m.parse().unwrap()).collect();
    let single = tempfile::tempdir().unwrap();
    let reports = Builder::new(board, single.path())
        .build(&targets, &Silent)
        .unwrap();
    for &count in counts {
        let dir = tempfile::tempdir().unwrap();
        let results = build_on_threads(board, dir.path(), &targets, count);
        for (rank, result) in results.into_iter().enumerate() {
            let built = result.unwrap_or_else(|e| panic!("rank {rank} of {count}: {e}"));
            assert_eq!(built.len(), reports.len());
            for report in built.iter().filter(|r| !r.reused) {
                let traffic = report
                    .traffic
                    .expect("a partitioned build reports its traffic");
                assert_eq!(traffic.ranks, count);
                assert!(traffic.entries_held <= report.entries_per_side.div_ceil(count as u64));
            }
        }
        for report in &reports {
            let name = report.path.file_name().unwrap();
            let expected = std::fs::read(&report.path).unwrap();
            let found = std::fs::read(dir.path().join(name)).unwrap();
            assert!(
                expected == found,
                "{} built by {count} ranks differs from the one-process build",
                report.material
            );
        }
    }
}

#[test]
fn partitioned_pawnless_builds_write_the_one_process_files() {
    partitioned_builds_agree((4, 4), &["KQvKR", "KRvKR"], &[2, 3]);
    partitioned_builds_agree((5, 5), &["KRvKN"], &[2, 4]);
}

#[test]
fn partitioned_pawn_builds_write_the_one_process_files() {
    partitioned_builds_agree((4, 5), &["KPvKP", "KRPvK"], &[2, 3]);
}

#[test]
fn a_partitioned_run_keeps_the_files_rank_0_finds() {
    let board = Board::new(4, 4).unwrap();
    let targets = [Material::parse("KRvKR").unwrap()];
    let dir = tempfile::tempdir().unwrap();
    for result in build_on_threads(board, dir.path(), &targets, 2) {
        assert!(result.unwrap().iter().all(|r| !r.reused));
    }
    // Damaged: rebuilt by both ranks; the others kept.
    let damaged = dir.path().join("KRvKR.4x4.rtb");
    let mut bytes = std::fs::read(&damaged).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&damaged, bytes).unwrap();
    for result in build_on_threads(board, dir.path(), &targets, 2) {
        let reports = result.unwrap();
        for report in reports {
            assert_eq!(
                report.reused,
                report.material != targets[0],
                "{}",
                report.material
            );
        }
    }
    assert!(retro_format::Table::open(&damaged).is_ok());
}

#[test]
fn a_rank_that_fails_stops_every_rank_and_leaves_no_file() {
    // Rank 0 alone writes: with a directory where KRvKR's file should go, its write fails
    // and every rank stops with it.
    let board = Board::new(4, 4).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let in_the_way = dir.path().join("KRvKR.4x4.rtb");
    std::fs::create_dir_all(in_the_way.join("occupied")).unwrap();
    let targets = [Material::parse("KRvKR").unwrap()];
    let results = build_on_threads(board, dir.path(), &targets, 3);
    for (rank, result) in results.into_iter().enumerate() {
        match (rank, result) {
            (0, Err(GenError::Format(_))) => {}
            (1 | 2, Err(GenError::OtherRank { material })) => assert_eq!(material, "KRvKR"),
            (rank, other) => panic!("rank {rank}: {other:?}"),
        }
    }
    let mut left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    // The smaller tables built before are whole files; nothing else is left.
    assert_eq!(left, ["KRvK.4x4.rtb", "KRvKR.4x4.rtb", "KvK.4x4.rtb"]);
    assert!(in_the_way.is_dir());
}
