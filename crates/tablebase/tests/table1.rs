//! Hurd's Table 1 reproduced: all 45 rows, both sides to move, exactly as the paper gives them
//! (the crate's copy of `../shared/data/hurd-table1.tsv`, which a unit test of
//! `retro_tablebase::table1` checks equal to the shared file wherever that is present).

use retro_gen::{Builder, Silent};
use retro_rules::Board;
use retro_tablebase::{table1, Tablebase};

#[test]
fn table1_matches_the_paper_on_every_row() {
    let dir = tempfile::tempdir().unwrap();
    Builder::new(Board::STANDARD, dir.path())
        .build(&table1::materials(), &Silent)
        .unwrap();
    let tb = Tablebase::new(Board::STANDARD, dir.path());
    let ours = table1::rows(&tb).unwrap();

    let paper = table1::paper();
    assert_eq!(paper.len(), 45);
    assert_eq!(ours.len(), paper.len());
    for (row, expected) in ours.iter().zip(&paper) {
        assert_eq!(row, expected);
    }
    assert_eq!(table1::differences(&ours, &paper), 0);
}
