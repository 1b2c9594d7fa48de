//! What leaving a side to move out of a packed file costs a probe: the same random legal
//! positions probed in two directories of packed tables, one packed with `retro pack
//! --both-sides` and one without, taking turns position by position, one thread; the
//! medians and 99th percentiles of DTM and DTZ50 probes, split by whether the position's side
//! to move is stored in the second directory's file or left to a one-ply search. The figures
//! docs/packing.md gives for probes of sides left out.
//!
//! `cargo run --release -p retro-tablebase --example side_probes -- BOTH ONE N MATERIAL…`

use retro_engine::{Geometry, Indexer, Position, TablePosition, TABLE_MEN};
use retro_format::{PackedTable, TableKind};
use retro_rules::{Board, Side};
use retro_tablebase::Tablebase;
use std::path::PathBuf;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [both, one, count, materials @ ..] = args.as_slice() else {
        return Err("usage: side_probes BOTH ONE N MATERIAL…".into());
    };
    let (both, one) = (PathBuf::from(both), PathBuf::from(one));
    let count: usize = count.parse()?;
    let board = Board::STANDARD;
    let geo = Geometry::new(board);
    let tables = [Tablebase::new(board, &both), Tablebase::new(board, &one)];
    let mut draw = 0x9e37_79b9_7f4a_7c15u64;
    let mut below = |n: u64| {
        draw ^= draw >> 12;
        draw ^= draw << 25;
        draw ^= draw >> 27;
        (draw.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) % n.max(1)
    };
    for kind in [TableKind::Dtm, TableKind::Dtz50] {
        // By kept (0) or left out (1), by directory: the seconds of each probe.
        let mut seconds = [[Vec::new(), Vec::new()], [Vec::new(), Vec::new()]];
        for name in materials {
            let material = name.parse()?;
            let indexer = Indexer::new(&geo, material)?;
            let file = tables[1].kind_path_of(kind, material);
            let left_out = PackedTable::open(&file)?.left_out();
            let mut found = 0;
            while found < count {
                let stm = Side::ALL[below(2) as usize];
                let Some(p) = indexer.position::<TABLE_MEN>(&geo, below(indexer.size()), stm)
                else {
                    continue;
                };
                let p: TablePosition = p;
                if !p.is_legal(&geo) {
                    continue;
                }
                found += 1;
                let p: Position = p.resized()?;
                let searched = usize::from(left_out == Some(stm == Side::White));
                let mut values = Vec::new();
                for (d, tb) in tables.iter().enumerate() {
                    let start = Instant::now();
                    let value = match kind {
                        TableKind::Dtm => format!("{:?}", tb.value(&p)?),
                        _ => format!("{:?}", tb.fifty(&p)?),
                    };
                    seconds[searched][d].push(start.elapsed().as_secs_f64());
                    values.push(value);
                }
                if values[0] != values[1] {
                    return Err(format!("{name}: {} and {} differ", values[0], values[1]).into());
                }
            }
        }
        for (searched, by_dir) in seconds.iter_mut().enumerate() {
            let what = ["stored side", "side left out"][searched];
            let [kept, alone] = by_dir;
            if kept.is_empty() {
                continue;
            }
            let (a, b) = (percentiles(kept), percentiles(alone));
            println!(
                "{kind} {what}: {} positions; both sides stored: median {:.2} us, p99 {:.2} us; one side: median {:.2} us, p99 {:.2} us ({:.1}x)",
                kept.len(),
                a.0,
                a.1,
                b.0,
                b.1,
                b.0 / a.0
            );
        }
    }
    Ok(())
}

/// Median and 99th percentile, in microseconds, of durations in seconds.
fn percentiles(seconds: &mut [f64]) -> (f64, f64) {
    seconds.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| seconds[((seconds.len() - 1) as f64 * q).round() as usize] * 1e6;
    (at(0.5), at(0.99))
}
