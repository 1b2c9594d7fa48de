//! What don't-cares save when a WDL50 and a DTZ50 table are coded by pair substitution
//! ([`retro_format::PairCode`]): each side of a table coded as it is, with its illegal entries
//! filled, and with the entries a zeroing move decides filled too, as Syzygy's files do. The
//! figures docs/packing.md gives for don't-cares.
//!
//! `cargo run --release -p retro-tablebase --example dont_care_sizes -- DIR MATERIAL [ORDERS]`
//!
//! `DIR` holds the material's WDL50 and DTZ50 tables (raw) and those its captures reach;
//! `ORDERS`, a directory with the material's packed WDL50 and DTZ50 files, whose digit orders
//! the streams are taken in (the raw index's order without it).
//!
//! A WDL50 entry is a don't-care where the best zeroing move (a capture or a pawn move)
//! reaches the position's class: a reader takes the better of the stored class and that
//! move's, so any class no better may be stored. A DTZ50 entry is one where the position is
//! drawn (its WDL50 entry says so) or won with a zeroing move that keeps the class (the
//! distance is then one ply). Each don't-care is filled with the value before it in the
//! stream where that is allowed, else with its own value.

mod common;

use retro_engine::{Indexer, Material, Position};
use retro_format::{DigitOrder, PackedTable, PairCode, PairCodeOptions, Table, TableKind, Wdl};
use retro_rules::{Board, Piece, Side};
use retro_tablebase::Tablebase;
use std::path::PathBuf;

/// An entry of a stream: its value, and the best value a reader's zeroing moves give (`None`:
/// it must be stored as it is).
#[derive(Clone, Copy)]
struct Entry {
    value: u16,
    /// A don't-care: any value no better than this one (in the order `rank` gives) may be stored.
    free_up_to: Option<i32>,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, material, rest @ ..] = args.as_slice() else {
        return Err("usage: dont_care_sizes DIR MATERIAL [ORDERS]".into());
    };
    let dir = PathBuf::from(dir);
    let material = Material::parse(material)?;
    let tb = Tablebase::new(Board::STANDARD, &dir);
    let geo = tb.geometry().clone();
    let indexer = Indexer::new(&geo, material)?;
    let name = material.to_string();
    let wdl = Table::open(&dir.join(format!("{name}.8x8.wdl50.rtb")))?;
    let dtz = Table::open(&dir.join(format!("{name}.8x8.dtz50.rtb")))?;
    let orders = |kind: TableKind| -> Result<Option<PackedTable>, Box<dyn std::error::Error>> {
        Ok(match rest.first() {
            Some(o) => Some(PackedTable::open(
                &PathBuf::from(o).join(format!("{name}.8x8{}.rtbz", kind.suffix())),
            )?),
            None => None,
        })
    };
    let (wdl_orders, dtz_orders) = (orders(TableKind::Wdl50)?, orders(TableKind::Dtz50)?);
    let entries = indexer.size();
    let rank = |code: u16| {
        Wdl::from_code(u32::from(code))
            .and_then(Wdl::syzygy)
            .unwrap_or(-3)
    };
    println!("{name}: {entries} entries a side");
    for (white, stm) in [(true, Side::White), (false, Side::Black)] {
        // By index: the class a zeroing move reaches at best, for the side to move.
        let zeroing: Vec<Option<i32>> =
            common::by_index(&indexer, &geo, stm, |p| best_zeroing(&tb, &geo, p));
        let wdl_codes = wdl.codes(white);
        let dtz_codes = dtz.codes(white);
        let wdl_entry = |i: u64| {
            let value = wdl_codes.get(i).expect("an entry") as u16;
            let free_up_to = match (value, zeroing[i as usize]) {
                (0, _) => Some(3),
                (v, Some(z)) if z >= rank(v) => Some(rank(v)),
                _ => None,
            };
            Entry { value, free_up_to }
        };
        let dtz_entry = |i: u64| {
            let value = dtz_codes.get(i).expect("an entry") as u16;
            let class = wdl_codes.get(i).expect("an entry") as u16;
            let won_at_once = rank(class) >= 1 && zeroing[i as usize] == Some(rank(class));
            let free = value <= 1 || won_at_once;
            Entry {
                value,
                free_up_to: free.then_some(3),
            }
        };
        let side = if white { "White" } else { "Black" };
        for (kind, order, entry) in [
            (
                TableKind::Wdl50,
                &wdl_orders,
                &wdl_entry as &dyn Fn(u64) -> Entry,
            ),
            (TableKind::Dtz50, &dtz_orders, &dtz_entry),
        ] {
            let order: Option<&DigitOrder> = order.as_ref().map(|o| o.order(white));
            let stream: Vec<Entry> = (0..entries)
                .map(|k| entry(order.map_or(k, |o| o.raw_index(k))))
                .collect();
            let block_bytes = if kind == TableKind::Wdl50 { 64 } else { 1024 };
            let options = PairCodeOptions {
                block_bytes,
                ..PairCodeOptions::default()
            };
            let as_is: Vec<u16> = stream.iter().map(|e| e.value).collect();
            let illegal = fill(&stream, &rank, kind, true);
            let all = fill(&stream, &rank, kind, false);
            let free = stream.iter().filter(|e| e.free_up_to.is_some()).count();
            let bytes = |values: &[u16]| PairCode::build(values, options).stored_bytes();
            println!(
                "  {side} {kind}: as it is {} B, illegal filled {} B, every don't-care filled {} B ({:.1}% of entries)",
                bytes(&as_is),
                bytes(&illegal),
                bytes(&all),
                100.0 * free as f64 / entries as f64
            );
        }
    }
    Ok(())
}

/// The best class for the side to move of `p`'s zeroing moves, as `Wdl::syzygy` ranks it.
fn best_zeroing(tb: &Tablebase, geo: &retro_engine::Geometry, p: &Position<8>) -> Option<i32> {
    p.legal_moves(geo)
        .into_iter()
        .filter(|(m, _)| m.captured.is_some() || m.piece == Piece::Pawn)
        .map(|(_, after)| {
            let class = tb.wdl50(&after).expect("the tables a capture reaches");
            class.for_opponent().syzygy().expect("a legal position")
        })
        .max()
}

/// The values of `stream` with its don't-cares (the illegal entries alone if `illegal_only`)
/// filled with the value before them where that is allowed.
fn fill(
    stream: &[Entry],
    rank: &dyn Fn(u16) -> i32,
    kind: TableKind,
    illegal_only: bool,
) -> Vec<u16> {
    let mut out = Vec::with_capacity(stream.len());
    let mut last = 0u16;
    for e in stream {
        let value = match e.free_up_to {
            Some(_) if illegal_only && e.value != 0 => e.value,
            Some(bound) => {
                let allowed = kind == TableKind::Dtz50 || rank(last) <= bound;
                if allowed && last != 0 {
                    last
                } else {
                    e.value
                }
            }
            None => e.value,
        };
        out.push(value);
        if value != 0 {
            last = value;
        }
    }
    out
}
