//! What a DTM table takes coded as the next packed format codes it: a class companion (win,
//! draw, loss) and a distance stream of ranked, halved depths, both by pair substitution
//! ([`retro_format::PairCode`]), with the entries a reader rebuilds left as don't-cares. The
//! figures docs/packing.md gives for DTM.
//!
//! `cargo run --release -p retro-tablebase --example dtm_sizes -- DIR MATERIAL [ORDERS]`
//!
//! `DIR` holds the material's DTM table (raw) and those its captures reach; `ORDERS`, a
//! directory with the material's packed DTM file, whose digit orders the streams are taken in.
//!
//! - **Companion.** The class of each entry; an illegal entry, or one whose best capture
//!   reaches its class, is a don't-care (any class no better).
//! - **Distances.** A win in `n` plies is stored as `(n + 1) / 2`, a loss in `n` as `n / 2`
//!   (a win's plies are odd, a loss's even); each class's depths are ranked by how often they
//!   occur among the entries stored, and an entry stores its depth's rank in its class. Illegal and drawn entries are
//!   don't-cares, and so is one whose best capture reaches its value exactly (the reader takes
//!   the better of the stored value and the capture's, so any value no better may be stored).
//!
//! A don't-care takes the value before it in its stream where that is allowed.

mod common;

use retro_engine::{Indexer, Material, Position};
use retro_format::{PackedTable, PairCode, PairCodeOptions, Table, Value};
use retro_rules::{Board, Side};
use retro_tablebase::Tablebase;
use std::collections::HashMap;
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, material, rest @ ..] = args.as_slice() else {
        return Err("usage: dtm_sizes DIR MATERIAL [ORDERS]".into());
    };
    let dir = PathBuf::from(dir);
    let material = Material::parse(material)?;
    let tb = Tablebase::new(Board::STANDARD, &dir);
    let geo = tb.geometry().clone();
    let indexer = Indexer::new(&geo, material)?;
    let name = material.to_string();
    let table = Table::open(&dir.join(format!("{name}.8x8.rtb")))?;
    let packed = match rest.first() {
        Some(o) => Some(PackedTable::open(
            &PathBuf::from(o).join(format!("{name}.8x8.rtbz")),
        )?),
        None => None,
    };
    let entries = indexer.size();
    println!("{name}: {entries} entries a side");
    let (mut companion_total, mut distance_total, mut plain_total) = (0, 0, 0);
    for (white, stm) in [(true, Side::White), (false, Side::Black)] {
        let captures: Vec<Option<Value>> =
            common::by_index(&indexer, &geo, stm, |p| best_capture(&tb, &geo, p));
        let codes = table.codes(white);
        let order = packed.as_ref().map(|p| p.order(white));
        let stream: Vec<(Value, Option<Value>)> = (0..entries)
            .map(|k| {
                let i = order.map_or(k, |o| o.raw_index(k));
                let value = Value::from_code(codes.get(i).expect("an entry"));
                (value, captures[i as usize])
            })
            .collect();
        // The companion: 0 illegal, 1 draw, 2 win, 3 loss.
        let class = |v: Value| match v {
            Value::Illegal => 0u16,
            Value::Draw => 1,
            Value::Win(_) => 2,
            Value::Loss(_) => 3,
        };
        let class_rank = |c: u16| [3, 1, 2, 0][usize::from(c)];
        let mut companion = Vec::with_capacity(stream.len());
        let mut last = 1u16;
        for &(value, capture) in &stream {
            let c = class(value);
            let free = c == 0 || capture.is_some_and(|v| class(v) == c);
            let stored = if free && (c == 0 || class_rank(last) <= class_rank(c)) {
                last
            } else {
                c
            };
            companion.push(stored);
            last = stored;
        }
        // The distances, ranked per class among the entries stored.
        let halved = |v: Value| match v {
            Value::Win(n) => Some((0usize, n.div_ceil(2))),
            Value::Loss(n) => Some((1usize, n / 2)),
            _ => None,
        };
        let kept = |&(value, capture): &(Value, Option<Value>)| {
            capture != Some(value) && halved(value).is_some()
        };
        let mut frequency = [HashMap::new(), HashMap::new()];
        for e in stream.iter().filter(|e| kept(e)) {
            let (c, m) = halved(e.0).expect("decided");
            *frequency[c].entry(m).or_insert(0u64) += 1;
        }
        // Depths only a capture reaches rank last, so that every depth has a rank.
        for e in stream.iter().filter(|e| !kept(e)) {
            if let Some((c, m)) = halved(e.0) {
                frequency[c].entry(m).or_insert(0);
            }
        }
        let ranks: Vec<HashMap<u32, u16>> = frequency
            .iter()
            .map(|f| {
                let mut by: Vec<(u64, u32)> = f.iter().map(|(&m, &n)| (n, m)).collect();
                by.sort_by(|a, b| b.cmp(a));
                by.iter()
                    .enumerate()
                    .map(|(r, &(_, m))| (m, r as u16))
                    .collect()
            })
            .collect();
        let depth_of: Vec<HashMap<u16, u32>> = ranks
            .iter()
            .map(|r| r.iter().map(|(&m, &k)| (k, m)).collect())
            .collect();
        let mut distances = Vec::with_capacity(stream.len());
        let mut last = 0u16;
        for e in &stream {
            let stored = match halved(e.0) {
                None => last,
                Some((c, m)) if kept(e) => ranks[c][&m],
                Some((c, m)) => {
                    // A capture reaches the value: any depth no better (a longer win, a
                    // shorter loss) may be stored.
                    let allowed = |d: u32| (c == 0 && d >= m) || (c == 1 && d <= m);
                    match depth_of[c].get(&last) {
                        Some(&d) if allowed(d) => last,
                        _ => ranks[c]
                            .iter()
                            .filter(|&(&d, _)| allowed(d))
                            .map(|(_, &r)| r)
                            .min()
                            .expect("the entry's own depth is ranked"),
                    }
                }
            };
            distances.push(stored);
            last = stored;
        }
        // The plain stream: one code per entry, an illegal entry or one whose best capture
        // reaches its value a don't-care (any value no better).
        let key = |v: Value| match v {
            Value::Win(n) => (2, -i64::from(n)),
            Value::Draw | Value::Illegal => (1, 0),
            Value::Loss(n) => (0, i64::from(n)),
        };
        let mut plain = Vec::with_capacity(stream.len());
        let mut last = 1u16;
        for &(value, capture) in &stream {
            let free = value == Value::Illegal || capture == Some(value);
            let last_value = Value::from_code(u32::from(last));
            let stored = if free && (value == Value::Illegal || key(last_value) <= key(value)) {
                last
            } else {
                value.code() as u16
            };
            plain.push(stored);
            last = stored;
        }
        let plain_code = PairCode::build(
            &plain,
            PairCodeOptions {
                block_bytes: 256,
                ..PairCodeOptions::default()
            },
        );
        plain_total += plain_code.stored_bytes();
        let side = if white { "White" } else { "Black" };
        let wdl = PairCode::build(
            &companion,
            PairCodeOptions {
                block_bytes: 64,
                ..PairCodeOptions::default()
            },
        );
        let dtm = PairCode::build(
            &distances,
            PairCodeOptions {
                block_bytes: 1024,
                ..PairCodeOptions::default()
            },
        );
        let free = stream.iter().filter(|e| !kept(e)).count();
        println!(
            "  {side}: companion {} B ({} B blocks), distances {} B ({} B blocks, {} ranks of wins, {} of losses, {:.1}% don't-cares)",
            wdl.stored_bytes(),
            wdl.block_bytes(),
            dtm.stored_bytes(),
            dtm.block_bytes(),
            ranks[0].len(),
            ranks[1].len(),
            100.0 * free as f64 / entries as f64
        );
        companion_total += wdl.stored_bytes();
        distance_total += dtm.stored_bytes();
    }
    println!("  both sides: one stream of codes, captures' don't-cares filled, 256 B blocks: {plain_total} B");
    println!(
        "  both sides: companion {companion_total} B, distances {distance_total} B, in all {} B",
        companion_total + distance_total
    );
    Ok(())
}

/// The best value for the side to move of `p`'s captures.
fn best_capture(tb: &Tablebase, geo: &retro_engine::Geometry, p: &Position<8>) -> Option<Value> {
    let key = |v: Value| match v {
        Value::Win(n) => (2, -i64::from(n)),
        Value::Draw | Value::Illegal => (1, 0),
        Value::Loss(n) => (0, i64::from(n)),
    };
    p.legal_moves(geo)
        .into_iter()
        .filter(|(m, _)| m.captured.is_some())
        .map(
            |(_, after)| match tb.value(&after).expect("the tables a capture reaches") {
                Value::Win(n) => Value::Loss(n + 1),
                Value::Loss(n) => Value::Win(n + 1),
                v => v,
            },
        )
        .max_by_key(|&v| key(v))
}
