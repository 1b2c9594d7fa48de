//! The BDD engine reproduces Hurd's Table 1 rows (from the shared golden file).

use retro_symbolic::{Category, Engine, Ordering, Product, Solver, VariableLayout};

/// Solves the category of a paper row and compares the six numbers of Table 1.
fn check_row(solver: &mut Solver, row: &[String]) {
    let category = Category::parse(&row[0]).expect("Hurd's name");
    solver.solve(&category).expect("solved");
    let f = solver.figures(&category).expect("figures");
    let dash = |m: Option<usize>| m.map_or("-".to_string(), |n| n.to_string());
    let ours = [
        dash(f.wtm_max),
        f.wtm_win.to_string(),
        f.wtm_legal.to_string(),
        dash(f.btm_max),
        f.btm_win.to_string(),
        f.btm_legal.to_string(),
    ];
    let theirs = [&row[1], &row[2], &row[3], &row[6], &row[7], &row[8]];
    eprintln!("{} {ours:?}", row[0]);
    for (o, t) in ours.iter().zip(theirs) {
        assert_eq!(o, t, "{}: ours {ours:?}", row[0]);
    }
}

fn paper_rows() -> Vec<Vec<String>> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tablebase/hurd-table1.tsv"
    ))
    .expect("the shipped Table 1");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("material"))
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

#[test]
fn three_man_rows_match_the_paper() {
    let engine = Engine::new(
        VariableLayout::new(8, 8, 3, Ordering::InterleavedSquares),
        1 << 22,
        1,
    )
    .expect("an engine");
    let mut solver = Solver::new(engine, Product::Fused);
    for row in paper_rows().into_iter().filter(|r| r[0].len() == 4) {
        check_row(&mut solver, &row);
    }
}

#[test]
#[ignore = "about 12 minutes on 2 cores; `retro table1 --engine bdd` runs the same check"]
fn every_row_matches_the_paper() {
    let engine = Engine::new(
        VariableLayout::new(8, 8, 4, Ordering::InterleavedSquares),
        1 << 26,
        2,
    )
    .expect("an engine");
    let mut solver = Solver::new(engine, Product::Fused);
    for row in paper_rows() {
        check_row(&mut solver, &row);
    }
}
