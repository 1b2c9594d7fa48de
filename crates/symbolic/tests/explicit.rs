//! The BDD winning sets against the explicit tables and the natural model: for every category
//! of up to three men and several of four, on 8×8 and other boards, the positions new at each
//! depth are as many as the explicit table holds at that depth; for the three-man categories
//! every placement is looked up in the BDDs — legal set and winning sets — and compared with
//! the natural model's legality and the table's value.

use retro_engine::{Geometry, Material, Position};
use retro_gen::{Builder, Observer};
use retro_rules::laws::chess_legal;
use retro_rules::{Board, Side, Square};
use retro_symbolic::{Category, Engine, Ordering, Product, Solver, VariableLayout};
use retro_tablebase::stats::material_stats;
use retro_tablebase::{Tablebase, Value};

struct Silent;
impl Observer for Silent {}

/// Per-depth counts of the explicit table for Hurd's category `name`: White wins with White to
/// move by n (plies 2n+1), and with Black to move by n (plies 2n).
fn explicit_depths(board: Board, dir: &std::path::Path, name: &str) -> (Vec<u128>, Vec<u128>) {
    let material: Material = name.parse().expect("a material");
    let (canonical, flipped) = material.canonical();
    Builder::new(board, dir)
        .build(&[canonical], &Silent)
        .expect("tables built");
    let tb = Tablebase::new(board, dir);
    let stats = material_stats(&tb, canonical).expect("stats");
    let (white, black) = if flipped {
        (Side::Black, Side::White)
    } else {
        (Side::White, Side::Black)
    };
    let collect = |side: Side, parity: u32, offset: u32| {
        let by = &stats.side(side).by_plies;
        let last = by.keys().filter(|p| *p % 2 == parity).max().copied();
        match last {
            None => Vec::new(),
            Some(last) => (0..=(last - offset) / 2)
                .map(|n| u128::from(by.get(&(2 * n + offset)).map_or(0, |c| c.raw)))
                .collect(),
        }
    };
    (collect(white, 1, 1), collect(black, 0, 0))
}

fn trim(mut v: Vec<u128>) -> Vec<u128> {
    while v.last() == Some(&0) {
        v.pop();
    }
    v
}

fn compare_depths(board: Board, names: &[&str]) {
    let dir = tempfile::tempdir().expect("a scratch directory");
    let men = names
        .iter()
        .map(|n| Category::parse(n).expect("a category").len())
        .max()
        .unwrap_or(2);
    let engine = Engine::new(
        VariableLayout::new(
            board.files(),
            board.ranks(),
            men,
            Ordering::InterleavedSquares,
        ),
        1 << 24,
        1,
    )
    .expect("an engine");
    let mut solver = Solver::new(engine, Product::Fused);
    for name in names {
        let category = Category::parse(name).expect("a category");
        solver.solve(&category).expect("solved");
        let f = solver.figures(&category).expect("figures");
        let (wtm, btm) = explicit_depths(board, dir.path(), name);
        assert_eq!(
            trim(f.wtm_by_depth.clone()),
            trim(wtm),
            "{name} on {board}, White to move"
        );
        assert_eq!(
            trim(f.btm_by_depth.clone()),
            trim(btm),
            "{name} on {board}, Black to move"
        );
    }
}

#[test]
fn depths_match_on_eight_by_eight() {
    compare_depths(
        Board::STANDARD,
        &[
            "K_K", "KQ_K", "KR_K", "KB_K", "KN_K", "K_KQ", "K_KR", "KR_KR", "KB_KN", "KNN_K",
            "KQ_KQ",
        ],
    );
}

#[test]
fn depths_match_on_other_boards() {
    for (f, r) in [(4, 4), (5, 5), (6, 6), (7, 7), (5, 7), (8, 6)] {
        let board = Board::new(f, r).expect("a board");
        compare_depths(board, &["KR_K", "KR_KR"]);
    }
    for n in [9, 10] {
        compare_depths(Board::new(n, n).expect("a board"), &["KR_K", "KQ_K"]);
    }
}

/// Looks `placed` (man k on `placed[k]`, `to_move` to move) up in the BDDs of `solution` and
/// compares with the natural model's legality and the table's value; false if illegal.
fn agrees(
    name: &str,
    category: &Category,
    solver: &Solver,
    tb: &Tablebase,
    geo: &Geometry,
    placed: &[Square],
    to_move: Side,
) -> Option<bool> {
    let board = solver.engine().board();
    let men = placed.iter().zip(category.men()).map(|(&s, &m)| (s, m));
    let natural = retro_rules::Position::new(board, to_move, men, None).ok()?;
    let solution = solver.solution(category).expect("solved");
    let engine = solver.engine();
    let (legal_set, win_set) = if to_move == Side::White {
        (&solution.legal_wtm, solution.win1.last().expect("a set"))
    } else {
        (&solution.legal_btm, solution.win2.last().expect("a set"))
    };
    let legal = chess_legal(&natural);
    assert_eq!(
        engine.contains(legal_set, placed),
        legal,
        "{name} legality of {}",
        natural.fen()
    );
    if !legal {
        return Some(false);
    }
    let fast: Position = Position::from_natural(geo, &natural).expect("a table position");
    let value = tb.value(&fast).expect("probed");
    let white_wins = matches!(
        (to_move, value),
        (Side::White, Value::Win(_)) | (Side::Black, Value::Loss(_))
    );
    assert_eq!(
        engine.contains(win_set, placed),
        white_wins,
        "{name}: {}",
        natural.fen()
    );
    Some(true)
}

/// Solves `name` by BDDs and builds its explicit table on the engine's board.
fn solved_with_table(
    solver: &mut Solver,
    name: &str,
    dir: &std::path::Path,
) -> (Category, Tablebase) {
    let board = solver.engine().board();
    let category = Category::parse(name).expect("a category");
    solver.solve(&category).expect("solved");
    let material: Material = name.parse().expect("a material");
    Builder::new(board, dir)
        .build(&[material.canonical().0], &Silent)
        .expect("built");
    (category, Tablebase::new(board, dir))
}

#[test]
fn every_three_man_placement_agrees() {
    let board = Board::STANDARD;
    let geo = Geometry::new(board);
    let dir = tempfile::tempdir().expect("a scratch directory");
    let engine = Engine::new(
        VariableLayout::new(8, 8, 3, Ordering::Sequential),
        1 << 22,
        1,
    )
    .expect("an engine");
    let mut solver = Solver::new(engine, Product::Unfused);
    let squares: Vec<Square> = board.squares().collect();
    for name in ["KQ_K", "KR_K", "K_KR", "KB_K"] {
        let (category, tb) = solved_with_table(&mut solver, name, dir.path());
        let mut legal = 0;
        for &a in &squares {
            for &b in &squares {
                for &c in &squares {
                    for to_move in [Side::White, Side::Black] {
                        if agrees(name, &category, &solver, &tb, &geo, &[a, b, c], to_move)
                            == Some(true)
                        {
                            legal += 1;
                        }
                    }
                }
            }
        }
        assert!(legal > 300_000, "{name}: {legal}");
    }
}

#[test]
fn running_out_of_nodes_is_an_error_naming_the_limit() {
    let engine = Engine::new(
        VariableLayout::new(8, 8, 3, Ordering::InterleavedSquares),
        2_000,
        1,
    )
    .expect("an engine");
    let mut solver = Solver::new(engine, Product::Fused);
    let err = solver
        .solve(&Category::parse("KR_K").expect("a category"))
        .err()
        .expect("too few nodes");
    assert!(err.to_string().contains("2000 nodes"), "{err}");
}

#[test]
fn four_man_sample_agrees() {
    let board = Board::STANDARD;
    let geo = Geometry::new(board);
    let dir = tempfile::tempdir().expect("a scratch directory");
    let engine = Engine::new(
        VariableLayout::new(8, 8, 4, Ordering::InterleavedAll),
        1 << 24,
        1,
    )
    .expect("an engine");
    let mut solver = Solver::new(engine, Product::Fused);
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut random = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    for name in ["KR_KR", "KB_KN"] {
        let (category, tb) = solved_with_table(&mut solver, name, dir.path());
        let mut legal = 0;
        while legal < 20_000 {
            let placed: Vec<Square> = (0..4)
                .map(|_| Square::new(random(8) as u8, random(8) as u8))
                .collect();
            let to_move = if random(2) == 0 {
                Side::White
            } else {
                Side::Black
            };
            if agrees(name, &category, &solver, &tb, &geo, &placed, to_move) == Some(true) {
                legal += 1;
            }
        }
    }
}
