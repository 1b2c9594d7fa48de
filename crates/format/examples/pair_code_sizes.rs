//! Sizes of raw tables coded by pair substitution and Huffman codes ([`retro_format::PairCode`]),
//! a side at a time, beside the packed files' sizes: the figures docs/packing.md gives for the
//! coder.
//!
//! `cargo run --release -p retro-format --example pair_code_sizes -- [--fill] [--fill-draws]
//! [--block BYTES] [--pairs-per-round N] FILE…`
//!
//! A packed file (`.rtbz`) is coded in the order of digits its packer chose for each side.
//!
//! `--fill` codes each entry that is no legal position (code 0) as the entry before it, a
//! don't-care a reader restores from the rules; `--fill-draws` does the same with a DTZ50
//! table's draws (code 1), which its WDL50 table tells apart.

use retro_format::{PackedTable, PairCode, PairCodeOptions, Table};
use std::path::PathBuf;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut fill = false;
    let mut fill_draws = false;
    let mut block = None;
    let mut pairs_per_round = PairCodeOptions::default().pairs_per_round;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--fill" => fill = true,
            "--fill-draws" => fill_draws = true,
            "--pairs-per-round" => {
                pairs_per_round = args
                    .next()
                    .ok_or("--pairs-per-round needs a count")?
                    .parse()?
            }
            "--block" => block = Some(args.next().ok_or("--block needs a size")?.parse()?),
            _ => files.push(PathBuf::from(arg)),
        }
    }
    let mut total = 0u64;
    for path in &files {
        // A packed file: its values, in the order of its digits chosen for each side.
        let packed = if path.extension().is_some_and(|e| e == "rtbz") {
            Some(PackedTable::open(path)?)
        } else {
            None
        };
        let table = match &packed {
            Some(packed) => packed.to_table()?,
            None => Table::open(path)?,
        };
        let kind = table.header().kind;
        let block_bytes = block.unwrap_or(if kind == retro_format::TableKind::Wdl50 {
            64
        } else {
            1024
        });
        let options = PairCodeOptions {
            block_bytes,
            pairs_per_round,
            ..PairCodeOptions::default()
        };
        let mut sides = Vec::new();
        for white in [true, false] {
            let codes = table.codes(white);
            let entries = table.header().entries_per_side;
            let mut values = Vec::with_capacity(entries as usize);
            let mut last = 0u16;
            let order = packed.as_ref().map(|p| p.order(white).clone());
            for k in 0..entries {
                let i = order.as_ref().map_or(k, |o| o.raw_index(k));
                let code = codes.get(i).ok_or("entry past the end")? as u16;
                let draw = fill_draws && kind == retro_format::TableKind::Dtz50 && code == 1;
                if (fill && code == 0) || draw {
                    values.push(last);
                } else {
                    values.push(code);
                    last = code;
                }
            }
            let start = Instant::now();
            let code = PairCode::build(&values, options);
            let built = start.elapsed();
            let mut state = 0x9E37_79B9_7F4A_7C15u64;
            let start = Instant::now();
            let probes = 100_000u64;
            let mut sum = 0u64;
            for _ in 0..probes {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                sum += u64::from(code.get(state % entries).unwrap_or(0));
            }
            let per_probe = start.elapsed() / probes as u32;
            std::hint::black_box(sum);
            assert_eq!(
                code.decode_all(),
                values,
                "{} decodes to its values",
                path.display()
            );
            total += code.stored_bytes();
            sides.push(format!(
                "{}: {} B, {} symbols, {} blocks of {} B, built in {:.1} s, {:.2} µs a value",
                if white { "White" } else { "Black" },
                code.stored_bytes(),
                code.symbol_count(),
                code.block_count(),
                code.block_bytes(),
                built.as_secs_f64(),
                per_probe.as_secs_f64() * 1e6
            ));
        }
        println!(
            "{} ({kind}, blocks of at most {block_bytes} B{})",
            path.display(),
            match (fill, fill_draws) {
                (false, false) => "",
                (true, false) => ", illegal filled",
                (false, true) => ", draws filled",
                (true, true) => ", illegal and draws filled",
            }
        );
        for side in sides {
            println!("  {side}");
        }
    }
    println!("total {total} B");
    Ok(())
}
