//! Tests of the pair-substitution coder: pair counts, every entry read back, runs folded,
//! limits kept, stored directories read back or refused when damaged, prefix codes.

use super::*;

/// Both ways of counting pairs — sorted runs for a short stream, dense tables for a long
/// one — count every adjacent pair, overlapping ones included, as a plain count does.
#[test]
fn pair_counts_are_exact_both_ways() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for (len, n) in [(1_000usize, 300usize), (200_000, 12)] {
        let stream: Vec<u16> = (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                // Runs of one symbol, so that overlapping pairs occur.
                (state % n as u64).min(3) as u16
            })
            .collect();
        let mut expected = std::collections::BTreeMap::new();
        for w in stream.windows(2) {
            *expected.entry((w[0], w[1])).or_insert(0u32) += 1;
        }
        let mut found: Vec<(u32, u16, u16)> = pair_counts(&stream, n);
        found.sort_by_key(|&(_, a, b)| (a, b));
        let expected: Vec<(u32, u16, u16)> =
            expected.into_iter().map(|((a, b), c)| (c, a, b)).collect();
        assert_eq!(found, expected, "{len} entries, {n} symbols");
    }
}

/// A stream alike a table's: long runs of one value, stretches of many, a rare value.
fn table_like(entries: usize, seed: u64) -> Vec<u16> {
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut values = Vec::with_capacity(entries);
    while values.len() < entries {
        let r = next();
        let run = (r % 700) as usize + 1;
        let v = match r >> 60 {
            0..=9 => 1,
            10..=13 => (r >> 20) as u16 % 40 + 2,
            _ => (r >> 30) as u16 % 300 + 2,
        };
        for k in 0..run.min(entries - values.len()) {
            values.push(if v > 1 && k % 3 == 1 { v + 1 } else { v });
        }
    }
    values
}

fn small() -> PairCodeOptions {
    PairCodeOptions {
        max_symbols: 600,
        block_bytes: 16,
        min_pair_count: 2,
        ..PairCodeOptions::default()
    }
}

#[test]
fn every_entry_reads_back_one_by_one_and_whole() {
    for (entries, seed) in [(1, 3), (2, 5), (1000, 7), (200_000, 11)] {
        let values = table_like(entries, seed);
        let code = PairCode::build(&values, small());
        assert_eq!(code.decode_all(), values, "{entries} entries");
        for (i, &v) in values.iter().enumerate() {
            assert_eq!(code.get(i as u64), Some(v), "entry {i} of {entries}");
        }
        assert_eq!(code.get(values.len() as u64), None);
    }
}

#[test]
fn an_empty_stream_has_no_entry() {
    let code = PairCode::build(&[], PairCodeOptions::default());
    assert_eq!(code.entries(), 0);
    assert_eq!(code.block_count(), 0);
    assert_eq!(code.get(0), None);
    assert!(code.decode_all().is_empty());
}

#[test]
fn runs_fold_into_long_symbols_and_few_blocks() {
    // A million draws and a stretch of wins: a few hundred bytes, not a million.
    let mut values = vec![1u16; 1_000_000];
    values[500_000..500_100].fill(2);
    let code = PairCode::build(&values, PairCodeOptions::default());
    assert!(code.stored_bytes() < 2_000, "{} bytes", code.stored_bytes());
    assert!(code.block_count() < 40, "{} blocks", code.block_count());
    for i in [0, 499_999, 500_000, 500_099, 500_100, 999_999] {
        assert_eq!(code.get(i), Some(values[i as usize]));
    }
}

#[test]
fn limits_are_kept() {
    let values = table_like(300_000, 13);
    let options = PairCodeOptions {
        max_symbols: 400,
        max_symbol_entries: 8,
        max_code_bits: 12,
        block_bytes: 8,
        ..small()
    };
    let code = PairCode::build(&values, options);
    assert!(code.symbol_count() <= 400);
    let d = code.directory();
    assert!(d.lengths.iter().all(|&l| l <= 8));
    assert!(d.code.codes.iter().all(|&(l, _)| l <= 12));
    assert!(d.block_entries.iter().all(|&e| e <= MAX_BLOCK_ENTRIES));
    assert_eq!(code.decode_all(), values);
}

#[test]
fn a_stored_directory_reads_back_to_the_same_code() {
    for (entries, seed) in [(0, 1), (1, 3), (5000, 7), (200_000, 11)] {
        let values = table_like(entries, seed);
        let code = PairCode::build(&values, small());
        let bytes = code.directory().to_bytes();
        let read = PairDirectory::from_bytes(&bytes).unwrap();
        assert_eq!(read.to_bytes(), bytes);
        let size = read.block_bytes();
        let mut out = Vec::new();
        for (block, bytes) in code.data().chunks_exact(size).enumerate() {
            read.decode_block(block, bytes, &mut out);
        }
        assert_eq!(out, values, "{entries} entries");
        for i in (0..entries as u64).step_by(97) {
            let (block, offset) = read.locate(i).unwrap();
            let bytes = &code.data()[block * size..(block + 1) * size];
            assert_eq!(read.value_in_block(bytes, offset), values[i as usize]);
        }
    }
}

#[test]
fn a_damaged_directory_is_refused_not_read() {
    let values = table_like(50_000, 5);
    let bytes = PairCode::build(&values, small()).directory().to_bytes();
    assert!(PairDirectory::from_bytes(&bytes[..bytes.len() - 1]).is_err());
    assert!(PairDirectory::from_bytes(&bytes[..10]).is_err());
    // A block count one too many, a symbol made of itself, codes no prefix code.
    let mut more = bytes.clone();
    let n = bytes.len();
    more[n - 2] = more[n - 2].wrapping_add(1);
    assert!(PairDirectory::from_bytes(&more).is_err());
    let symbols = usize::from(u16::from_le_bytes([bytes[16], bytes[17]]));
    let last = 20 + 3 * (symbols - 1);
    let mut cyclic = bytes.clone();
    let own = (symbols - 1) as u32;
    cyclic[last..last + 3].copy_from_slice(&(own | own << 12).to_le_bytes()[..3]);
    assert!(PairDirectory::from_bytes(&cyclic).is_err());
    let mut short_codes = bytes.clone();
    short_codes[20 + 3 * symbols..20 + 4 * symbols].fill(1);
    assert!(PairDirectory::from_bytes(&short_codes).is_err());
    // Every single flipped byte is refused or still reads without a panic.
    for at in 0..bytes.len() {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x5a;
        if let Ok(d) = PairDirectory::from_bytes(&flipped) {
            let mut out = Vec::new();
            let block = vec![0xa5u8; d.block_bytes()];
            for b in 0..d.block_count().min(4) {
                d.decode_block(b, &block, &mut out);
            }
        }
    }
}

#[test]
fn code_lengths_form_a_prefix_code() {
    // Kraft's sum of a complete code is one; the limit of 4 bits forces a flatter code
    // than the counts ask for.
    let counts = [1u64, 1, 2, 4, 8, 16, 32, 64, 0, 128];
    for max in [4u8, 9, 32] {
        let bits = huffman_lengths(&counts, max);
        assert!(bits.iter().all(|&b| b <= max));
        assert_eq!(bits[8], 0);
        let kraft: f64 = bits
            .iter()
            .filter(|&&b| b > 0)
            .map(|&b| 0.5f64.powi(i32::from(b)))
            .sum();
        assert!((kraft - 1.0).abs() < 1e-12, "{bits:?}");
    }
}
