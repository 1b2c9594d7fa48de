//! The fifty-move core against the natural model's definitions (`retro_rules::fifty`): the
//! classes from chess on (position, clock) and the DTZ50 of the phase game, both solved by the
//! kernel's reference solvers, on every legal position of small universes, with rules short
//! enough that cursed wins and blessed losses abound.

use crate::{Builder, Metric, Silent};
use retro_engine::{Geometry, Indexer, Material, TablePosition};
use retro_format::{Dtz, Table, TableKind, Wdl};
use retro_game::phases::Outcome;
use retro_rules::chess::universe;
use retro_rules::fifty::{reference_classes, reference_zeroing, Class};
use retro_rules::{Board, Side};
use std::collections::BTreeMap;

fn wdl_of(class: Class) -> Wdl {
    match class {
        Class::Loss => Wdl::Loss,
        Class::BlessedLoss => Wdl::BlessedLoss,
        Class::Draw => Wdl::Draw,
        Class::CursedWin => Wdl::CursedWin,
        Class::Win => Wdl::Win,
    }
}

fn dtz_of(outcome: Outcome) -> Dtz {
    match outcome {
        Outcome::Win(n) => Dtz::Win(n),
        Outcome::Loss(n) => Dtz::Loss(n),
        Outcome::Draw => Dtz::Draw,
    }
}

/// Builds `name`'s fifty-move tables on `files × ranks` with a rule of `rule` plies and
/// compares every entry of every table the build wrote with the kernel's values; the counts of
/// each class among the positions of `name` itself, and of those with an en-passant target.
fn agrees_with_the_kernel(name: &str, files: usize, ranks: usize, rule: u8) -> BTreeMap<Wdl, u64> {
    agrees_counting_en_passant(name, files, ranks, rule).0
}

fn agrees_counting_en_passant(
    name: &str,
    files: usize,
    ranks: usize,
    rule: u8,
) -> (BTreeMap<Wdl, u64>, u64) {
    let board = Board::new(files, ranks).unwrap();
    let material = Material::parse(name).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let builder = Builder::new(board, dir.path())
        .with_metrics(&[Metric::Fifty])
        .with_fifty_rule(rule);
    let reports = builder.build(&[material], &Silent).unwrap();
    let all = universe(board, &material.men());
    let classes = reference_classes(&all, u32::from(rule)).unwrap();
    let dtz = reference_zeroing(&all, u32::from(rule), &classes).unwrap();
    let geo = Geometry::new(board);
    let (mut counts, mut en_passant) = (BTreeMap::new(), 0);
    for report in &reports {
        assert_eq!(report.metric, Metric::Fifty);
        let m = report.material;
        let indexer = Indexer::new(&geo, m).unwrap();
        let open = |kind| {
            let table = Table::open(&builder.kind_path_of(kind, m)).unwrap();
            assert_eq!(table.header().kind, kind);
            assert_eq!(table.header().rule_plies, rule);
            table
        };
        let (dtz_table, wdl_table) = (open(TableKind::Dtz50), open(TableKind::Wdl50));
        let mut legal = 0;
        for (s, stm) in Side::ALL.into_iter().enumerate() {
            let white = s == 0;
            indexer.for_each_position::<{ retro_engine::TABLE_MEN }>(
                &geo,
                0..indexer.size(),
                stm,
                |i, p: Option<TablePosition>| {
                    let stored = dtz_table.dtz(white, i).unwrap();
                    let class = Wdl::from_code(wdl_table.code(white, i).unwrap()).unwrap();
                    let Some(p) = p.filter(|p| p.is_legal(&geo)) else {
                        assert_eq!(stored, Dtz::Illegal, "{m} index {i}");
                        return;
                    };
                    // The universe holds a smaller table's positions in the colours its
                    // captures and promotions leave them in, which may be the table's
                    // exchanged; the value for the side to move is the same.
                    let mut natural = p.to_natural(&geo);
                    if !classes.contains_key(&natural) {
                        natural = p.colour_flipped(&geo).to_natural(&geo);
                    }
                    let fen = natural.fen();
                    assert_eq!(stored, dtz_of(dtz[&natural]), "{fen} ({m}, rule {rule})");
                    assert_eq!(class, wdl_of(classes[&natural]), "{fen} ({m}, rule {rule})");
                    assert_eq!(stored.class(u32::from(rule)), class, "{fen}");
                    legal += 1;
                    en_passant += u64::from(natural.en_passant().is_some());
                    if m == material {
                        *counts.entry(class).or_insert(0) += 1;
                    }
                },
            );
        }
        assert!(legal > 0 || m.len() > files * ranks, "{m}");
    }
    (counts, en_passant)
}

#[test]
fn krk_matches_the_kernel() {
    let counts = agrees_with_the_kernel("KRvK", 4, 4, 4);
    assert!(
        counts[&Wdl::CursedWin] > 0 && counts[&Wdl::BlessedLoss] > 0,
        "{counts:?}"
    );
    assert!(
        counts[&Wdl::Win] > 0 && counts[&Wdl::Loss] > 0,
        "{counts:?}"
    );
}

#[test]
fn kqkr_matches_the_kernel() {
    agrees_with_the_kernel("KQvKR", 3, 4, 4);
}

#[test]
fn kpk_matches_the_kernel() {
    let counts = agrees_with_the_kernel("KPvK", 4, 4, 4);
    assert!(
        counts[&Wdl::Win] > 0 && counts[&Wdl::Draw] > 0,
        "{counts:?}"
    );
}

#[test]
fn knkp_matches_the_kernel() {
    agrees_with_the_kernel("KNvKP", 3, 4, 2);
}

/// Pawns of both sides: en passant, and promotions on both sides.
#[test]
fn kpkp_matches_the_kernel() {
    let (counts, en_passant) = agrees_counting_en_passant("KPvKP", 2, 5, 6);
    assert!(
        en_passant > 0,
        "no position with an en-passant target was compared"
    );
    assert!(
        counts[&Wdl::Win] > 0 && counts[&Wdl::Loss] > 0,
        "{counts:?}"
    );
}

/// A rule too long to bite on a small board: no cursed wins or blessed losses.
#[test]
fn krk_under_the_real_rule_has_no_cursed_wins() {
    let counts = agrees_with_the_kernel("KRvK", 4, 4, 100);
    assert!(!counts.contains_key(&Wdl::CursedWin), "{counts:?}");
}

/// The fast core's moves and the engine's write the same DTZ50 and WDL50 files, byte for
/// byte: for tables without pawns on boards where kings share squares fixed by symmetries
/// (square boards: the diagonals) and where they do not, with the pawns of one side (solved
/// by levels, or by placements where the last man is no pawn), and with pawns of both
/// (en-passant positions).
#[test]
fn fast_and_plain_moves_write_the_same_files() {
    for (name, files, ranks, rule) in [
        ("KBvK", 4, 4, 4),
        ("KRvK", 4, 4, 4),
        ("KQvKR", 4, 4, 6),
        ("KRvKN", 5, 5, 8),
        ("KBNvK", 4, 5, 10),
        ("KRRvK", 4, 4, 4),
        ("KPvK", 4, 5, 6),
        ("KPvK", 5, 6, 10),
        ("KQvKP", 4, 5, 8),
        ("KRvKP", 5, 5, 8),
        ("KPPvK", 4, 5, 6),
        ("KNPvK", 4, 5, 8),
        ("KRvKPP", 4, 5, 6),
        ("KRPvKR", 4, 5, 8),
        ("KBPvKN", 4, 5, 8),
        ("KPvKP", 4, 6, 8),
        ("KPvKP", 5, 6, 12),
        ("KRPvKP", 3, 6, 8),
        ("KNPvKP", 3, 5, 8),
        ("KPPvKP", 3, 5, 6),
    ] {
        let board = Board::new(files, ranks).unwrap();
        let material = Material::parse(name).unwrap();
        let dirs = [tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap()];
        let cores = [crate::CoreKind::Fast, crate::CoreKind::Reference];
        let mut built = Vec::new();
        for (dir, core) in dirs.iter().zip(cores) {
            let builder = Builder::new(board, dir.path())
                .with_metrics(&[Metric::Fifty])
                .with_fifty_rule(rule)
                .with_core(core);
            let reports = builder.build(&[material], &Silent).unwrap();
            let m = reports.last().unwrap().material;
            assert_eq!(reports.last().unwrap().core, Some(core), "{name}");
            built.push((builder, m));
        }
        let geo = Geometry::new(board);
        for kind in [TableKind::Dtz50, TableKind::Wdl50] {
            let tables = built
                .iter()
                .map(|(b, m)| Table::open(&b.kind_path_of(kind, *m)).unwrap());
            let [fast, plain]: [Table; 2] = tables.collect::<Vec<_>>().try_into().ok().unwrap();
            let indexer = Indexer::new(&geo, built[0].1).unwrap();
            for (s, stm) in Side::ALL.into_iter().enumerate() {
                indexer.for_each_position::<{ retro_engine::TABLE_MEN }>(
                    &geo,
                    0..indexer.size(),
                    stm,
                    |i, p: Option<TablePosition>| {
                        let (f, r) = (
                            fast.code(s == 0, i).unwrap(),
                            plain.code(s == 0, i).unwrap(),
                        );
                        let fen = p.map(|p| p.to_natural(&geo).fen()).unwrap_or_default();
                        assert_eq!(f, r, "{name} {kind:?} index {i} {fen}");
                    },
                );
            }
        }
    }
}
