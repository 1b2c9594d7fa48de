//! Hurd's Table 1 reproduced: all 45 rows, both sides to move, exactly as
//! `../shared/data/hurd-table1.tsv` gives them.

use retro_gen::{Builder, Silent};
use retro_rules::Board;
use retro_tablebase::{table1, Tablebase};
use std::path::Path;

#[test]
fn table1_matches_the_paper_on_every_row() {
    let dir = tempfile::tempdir().unwrap();
    Builder::new(Board::STANDARD, dir.path())
        .build(&table1::materials(), &Silent)
        .unwrap();
    let tb = Tablebase::new(Board::STANDARD, dir.path());
    let ours = table1::rows(&tb).unwrap();

    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data/hurd-table1.tsv");
    let text = std::fs::read_to_string(&shared)
        .unwrap_or_else(|e| panic!("the golden reference {} is needed: {e}", shared.display()));
    let paper = table1::parse_tsv(&text).unwrap();
    assert_eq!(paper.len(), 45);
    assert_eq!(ours.len(), paper.len());
    for (row, expected) in ours.iter().zip(&paper) {
        assert_eq!(row, expected);
    }
    assert_eq!(table1::differences(&ours, &paper), 0);
}
