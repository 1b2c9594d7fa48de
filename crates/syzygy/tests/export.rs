//! Syzygy WDL and DTZ files written from proved tables and read back two ways: by
//! shakmaty-syzygy, every legal position of each table, both sides to move, its class and DTZ
//! as the proved DTZ50 table's (exactly for wins and losses, which the files store in plies);
//! and by decoding every stored entry, where an entry the reader's answer does not depend on
//! is all that may differ.

use retro_engine::Material;
use retro_gen::{Builder, Metric, Silent};
use retro_rules::Board;
use retro_syzygy::export::dtz::export_dtz;
use retro_syzygy::export::export_wdl;
use retro_syzygy::{check, Coverage, ProvedTables, SyzygyFiles};

/// Tables of three and four men: three men alone of their kind leading (KQvKR), the kings
/// leading (KRRvK), a material whose two sides are alike (KBvKB), a pawn leading (KPvK), and
/// those their captures and promotions reach.
fn materials() -> Vec<Material> {
    [
        "KRvK", "KQvK", "KBvK", "KNvK", "KQvKR", "KRRvK", "KBvKB", "KPvK",
    ]
    .iter()
    .map(|m| Material::parse(m).unwrap())
    .collect()
}

#[test]
fn written_files_read_back_as_proved() {
    let tables = tempfile::tempdir().unwrap();
    let out = tempfile::tempdir().unwrap();
    let materials = materials();
    Builder::new(Board::STANDARD, tables.path())
        .with_metrics(&[Metric::Fifty])
        .build(&materials, &Silent)
        .unwrap();
    for &m in &materials {
        let written = export_wdl(tables.path(), m, out.path()).unwrap();
        assert_eq!(written.bytes % 64, 16, "{m}");
        let written = export_dtz(tables.path(), m, out.path()).unwrap();
        assert_eq!(written.bytes % 64, 16, "{m}");
        assert_eq!(written.sides, 1, "{m}");
    }
    let files = SyzygyFiles::open(out.path()).unwrap();
    assert_eq!(files.materials().len(), materials.len());
    for &m in &materials {
        let proved = ProvedTables::open(tables.path(), m).unwrap();
        let c = check(&files, &proved, Coverage::EveryPosition, &|_| {}).unwrap();
        assert!(!c.wdl_only);
        assert!(c.positions > 0, "{m}");
        assert_eq!(c.through_reader, c.positions, "{m}");
        assert_eq!(c.differences, 0, "{m}: first {:?}", c.first);
        assert_eq!(c.short_though_exact, 0, "{m}");
        assert_eq!(c.dtz_compared, c.positions, "{m}");
        assert_eq!(c.dtz_equal + c.dtz_one_ply_short, c.positions, "{m}");
        let entries = check(
            &files,
            &proved,
            Coverage::StoredEntries { sample: 7 },
            &|_| {},
        );
        let e = entries.unwrap();
        assert_eq!(e.differences, 0, "{m}: first {:?}", e.first);
        assert_eq!(e.short_though_exact, 0, "{m}");
        assert_eq!(e.dtz_equal + e.dtz_one_ply_short, e.dtz_compared, "{m}");
        // Every legal position of a stored side is compared; the sample of both sides
        // besides.
        assert!(
            e.positions >= c.positions / 2 && e.through_reader > 0,
            "{m}: {e:?}"
        );
    }
}
