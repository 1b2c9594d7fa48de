//! A tablebase of packed files of either coder answers every position as the raw files do —
//! without a block cache, with one so small it evicts at every probe, and with threads probing
//! at once — and is shared between threads (`Send + Sync`).

use rayon::prelude::*;
use retro_engine::{Geometry, Indexer, Material, Position, TablePosition, TABLE_MEN};
use retro_format::{Coder, PackOptions, Table};
use retro_gen::{Builder, Silent};
use retro_rules::{Board, Side};
use retro_tablebase::Tablebase;

fn shared<T: Send + Sync>() {}

/// Every legal position of `indexer`'s table with `stm` to move.
/// The positions to probe of a side: all of them, or where the side's file leaves it to a
/// one-ply search (whose probe reads every move's value, and theirs through exits), one in
/// `SEARCHED_STEP`.
fn probed(positions: Vec<Position>, searched: bool) -> Vec<Position> {
    const SEARCHED_STEP: usize = 23;
    match searched {
        true => positions.into_iter().step_by(SEARCHED_STEP).collect(),
        false => positions,
    }
}

fn legal_positions(geo: &Geometry, indexer: &Indexer, stm: Side) -> Vec<Position> {
    (0..indexer.size())
        .filter_map(|i| indexer.position::<TABLE_MEN>(geo, i, stm))
        .filter(|p: &TablePosition| p.is_legal(geo))
        .map(|p| p.resized().unwrap())
        .collect()
}

#[test]
fn zstd_blocks_answer_every_position_as_raw_ones() {
    answer_as_raw(Coder::ZstdBlocks);
}

#[test]
fn pair_coded_tables_answer_every_position_as_raw_ones() {
    answer_as_raw(Coder::Pairs);
}

fn answer_as_raw(coder: Coder) {
    shared::<Tablebase>();
    let board = Board::STANDARD;
    let geo = Geometry::new(board);
    let raw = tempfile::tempdir().unwrap();
    let packed = tempfile::tempdir().unwrap();
    let materials: Vec<Material> = ["KRvK", "KQvKN", "KPvK"]
        .iter()
        .map(|m| m.parse().unwrap())
        .collect();
    Builder::new(board, raw.path())
        .build(&materials, &Silent)
        .unwrap();
    let options = PackOptions {
        coder,
        entries_per_block: 512,
        ..PackOptions::default()
    };
    Builder::new(board, packed.path())
        .with_pack(Some(options))
        .build(&materials, &Silent)
        .unwrap();
    let from_raw = Tablebase::new(board, raw.path());
    let tablebases = [
        Tablebase::new(board, packed.path()).with_cache_bytes(0),
        Tablebase::new(board, packed.path()).with_cache_bytes(2048),
        Tablebase::new(board, packed.path()),
    ];
    for material in &materials {
        let file = packed.path().join(format!("{material}.8x8.rtbz"));
        let whole = Table::open(&file).unwrap();
        assert!(whole.is_packed(), "{material} packed");
        let raw_file = raw.path().join(format!("{material}.8x8.rtb"));
        assert_eq!(whole.body(), Table::open(&raw_file).unwrap().body());
        let indexer = Indexer::new(&geo, *material).unwrap();
        let left_out = retro_format::PackedTable::open(&file).unwrap().left_out();
        for stm in Side::ALL {
            let searched = left_out == Some(stm == Side::White);
            let positions = probed(legal_positions(&geo, &indexer, stm), searched);
            for tb in &tablebases {
                let mismatches = positions
                    .par_iter()
                    .filter(|p| tb.value(*p).unwrap() != from_raw.value(*p).unwrap())
                    .count();
                assert_eq!(mismatches, 0, "{material}, {stm} to move");
            }
        }
    }
    let cache = tablebases[1].cache();
    assert!(cache.held_bytes() <= cache.capacity_bytes());
    assert_eq!(tablebases[0].cache().held_bytes(), 0);
    // Pair-coded entries are decoded from their block at each probe, never cached.
    assert_eq!(
        tablebases[2].cache().held_bytes() > 0,
        coder == Coder::ZstdBlocks
    );
}

/// Pair-coded DTM and WDL50 files store any value no better where a capture or a promotion
/// decides, DTZ50 files anything where their WDL50 table says draw and anything but a draw
/// where a zeroing move keeps a win (the flag says so), and leave one side to move to a
/// one-ply search: read
/// whole, through the exits' tables or the companion, they are the raw bodies, and every
/// position probes to the raw value in all three kinds.
#[test]
fn exit_decided_entries_come_back_in_every_kind() {
    use retro_format::{PackedTable, TableKind};
    use retro_gen::Metric;
    let board = Board::STANDARD;
    let geo = Geometry::new(board);
    let raw = tempfile::tempdir().unwrap();
    let packed = tempfile::tempdir().unwrap();
    let materials: Vec<Material> = ["KQvKN", "KPvK"]
        .iter()
        .map(|m| m.parse().unwrap())
        .collect();
    let metrics = [Metric::Dtm, Metric::Fifty];
    Builder::new(board, raw.path())
        .with_metrics(&metrics)
        .build(&materials, &Silent)
        .unwrap();
    Builder::new(board, packed.path())
        .with_metrics(&metrics)
        .with_pack(Some(PackOptions::default()))
        .build(&materials, &Silent)
        .unwrap();
    let from_raw = Tablebase::new(board, raw.path());
    let from_packed = Tablebase::new(board, packed.path()).with_cache_bytes(0);
    let mut decided = [0; 3];
    // DTZ50 wins whose stored code is another: left to their zeroing moves.
    let mut zeroing_wins = 0;
    // DTM and DTZ50 sides left to a one-ply search into the other side, by kind.
    let mut sides_left_out = [0; 3];
    for material in &materials {
        for (k, kind) in TableKind::ALL.into_iter().enumerate() {
            let file = from_packed.kind_path_of(kind, *material);
            let table = PackedTable::open(&file).unwrap();
            assert!(table.exits_decide(), "{file:?}");
            // Entries the coder was free to change: stored values other than the raw ones.
            let original = Table::open(&from_raw.kind_path_of(kind, *material)).unwrap();
            let indexer = Indexer::new(&geo, *material).unwrap();
            for white in [true, false] {
                if table.left_out() == Some(white) {
                    sides_left_out[k] += 1;
                    continue;
                }
                let changed: Vec<u32> = (0..indexer.size())
                    .map(|i| original.code(white, i).unwrap())
                    .enumerate()
                    .filter(|&(i, kept)| kept != 0 && table.code(white, i as u64).unwrap() != kept)
                    .map(|(_, kept)| kept)
                    .collect();
                decided[k] += changed.len();
                if kind == TableKind::Dtz50 {
                    let win = |c: &&u32| {
                        matches!(retro_format::Dtz::from_code(**c), retro_format::Dtz::Win(_))
                    };
                    zeroing_wins += changed.iter().filter(win).count();
                }
            }
            let whole = Table::open(&file).unwrap();
            assert!(
                whole.body() == original.body(),
                "{file:?} decodes to other values"
            );
        }
        let indexer = Indexer::new(&geo, *material).unwrap();
        for stm in Side::ALL {
            let positions = probed(legal_positions(&geo, &indexer, stm), true);
            let mismatches = positions
                .par_iter()
                .filter(|p| {
                    from_packed.value(*p).unwrap() != from_raw.value(*p).unwrap()
                        || from_packed.wdl50(*p).unwrap() != from_raw.wdl50(*p).unwrap()
                        || from_packed.fifty(*p).unwrap() != from_raw.fifty(*p).unwrap()
                })
                .count();
            assert_eq!(mismatches, 0, "{material}, {stm} to move");
        }
    }
    assert!(
        decided.iter().all(|&n| n > 0),
        "entries left to the coder, DTM, DTZ50, WDL50: {decided:?}"
    );
    assert!(zeroing_wins > 0, "no DTZ50 win left to its zeroing move");
    let one_a_table = |kind: TableKind| {
        let k = TableKind::ALL.iter().position(|&x| x == kind).unwrap();
        let expected = match kind {
            TableKind::Wdl50 => 0,
            _ => materials.len(),
        };
        sides_left_out[k] == expected
    };
    assert!(
        TableKind::ALL.into_iter().all(one_a_table),
        "a DTM and a DTZ50 side left out a table, by kind {:?}: {sides_left_out:?}",
        TableKind::ALL
    );
    // Without the WDL50 tables beside them, the DTM files' sides left out are searched
    // move by move, draws too.
    let dtm_only = tempfile::tempdir().unwrap();
    for file in std::fs::read_dir(packed.path()).unwrap() {
        let file = file.unwrap().path();
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with(".8x8.rtbz") {
            std::fs::copy(&file, dtm_only.path().join(name)).unwrap();
        }
    }
    let alone = Tablebase::new(board, dtm_only.path()).with_cache_bytes(0);
    for material in &materials {
        let indexer = Indexer::new(&geo, *material).unwrap();
        for stm in Side::ALL {
            let positions = probed(legal_positions(&geo, &indexer, stm), true);
            let mismatches = positions
                .par_iter()
                .filter(|p| alone.value(*p).unwrap() != from_raw.value(*p).unwrap())
                .count();
            assert_eq!(mismatches, 0, "{material}, {stm} to move, DTM alone");
        }
    }
}
