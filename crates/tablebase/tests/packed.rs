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
        for stm in Side::ALL {
            let positions = legal_positions(&geo, &indexer, stm);
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
    // DTZ50 sides left to a one-ply search into the other side.
    let mut sides_left_out = 0;
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
                    assert_eq!(kind, TableKind::Dtz50, "{file:?}");
                    sides_left_out += 1;
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
            let positions = legal_positions(&geo, &indexer, stm);
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
    assert_eq!(
        sides_left_out,
        materials.len(),
        "a DTZ50 side left out a table"
    );
}
