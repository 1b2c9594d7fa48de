//! Tests of the packed layouts: files written, read back whole and by probe, reordered, damaged
//! and refused, a failed pack keeping the old file.

use super::*;
use crate::tests::header;
use crate::{encode_body, file_name, read_header, write_table};
use std::fs;

/// A raw table of `entries` per side whose codes repeat with variations, as tables do.
fn raw_table(dir: &Path, entries: u64, width: u8) -> Table {
    let h = header(entries, width);
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let codes = (0..2 * entries).map(|i| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let lane = (i % 64) as u32;
        match state % 8 {
            0 => 0,
            1 => 1,
            _ if width == 2 && state % 5 == 0 => 2 + 300,
            _ => 2 + (lane % 31),
        }
    });
    let codes: Vec<u32> = codes.collect();
    let body = encode_body(&h, codes.into_iter()).unwrap();
    let path = dir.join(file_name("KRvK", 8, 8));
    write_table(&path, &h, &body).unwrap();
    Table::open(&path).unwrap()
}

/// Puts back the zeros of [`raw_table`]'s entries, from the same sequence: the test's
/// stand-in for the rules.
fn restore_raw_table(
    request: &Restore<'_>,
    white: &mut [u8],
    black: &mut [u8],
) -> Result<(), String> {
    let width = request.width;
    let entries = (white.len() / width) as u64;
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for i in 0..2 * entries {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        if state % 8 == 0 {
            let side = if i < entries {
                &mut *white
            } else {
                &mut *black
            };
            let at = (i % entries) as usize * width;
            side[at..at + width].fill(0);
        }
    }
    Ok(())
}

fn pair_coded() -> PackOptions {
    install_restorer(restore_raw_table);
    PackOptions {
        coder: Coder::Pairs,
        level: 3,
        ..PackOptions::default()
    }
}

#[test]
fn pair_coded_tables_read_back_and_leave_out_illegal_entries() {
    let dir = tempfile::tempdir().unwrap();
    for (entries, width) in [(5u64, 1u8), (4_321, 1), (300_001, 1), (150_007, 2)] {
        let raw = raw_table(dir.path(), entries, width);
        let path = dir.path().join("KRvK.8x8.rtbz");
        let report = pack(&raw, &path, &[], &pair_coded()).unwrap();
        assert_eq!(report.packed_bytes, fs::metadata(&path).unwrap().len());
        let packed = PackedTable::open(&path).unwrap();
        assert_eq!(packed.coder(), Coder::Pairs);
        assert!(packed.leaves_out_illegal());
        assert_eq!(packed.stream_hash(), raw.body_hash());
        for white in [true, false] {
            for i in 0..entries {
                let kept = raw.code(white, i).unwrap();
                if kept != 0 {
                    assert_eq!(packed.code(white, i).unwrap(), kept, "entry {i}");
                }
            }
        }
        assert!(packed.code(true, entries).is_err());
        let whole = Table::open(&path).unwrap();
        assert_eq!(whole.body(), raw.body());
    }
    // A smaller file than zstd blocks of the same table.
    let raw = raw_table(dir.path(), 300_001, 1);
    let pairs = dir.path().join("pairs.rtbz");
    let zstd = dir.path().join("zstd.rtbz");
    let a = pack(&raw, &pairs, &[], &pair_coded()).unwrap();
    let b = pack(&raw, &zstd, &[], &small_blocks()).unwrap();
    assert!(a.packed_bytes < b.packed_bytes, "{a:?} {b:?}");
}

#[test]
fn damaged_pair_coded_files_are_refused_naming_the_block() {
    let dir = tempfile::tempdir().unwrap();
    let raw = raw_table(dir.path(), 300_001, 1);
    let path = dir.path().join("KRvK.8x8.rtbz");
    pack(&raw, &path, &[], &pair_coded()).unwrap();
    let good = fs::read(&path).unwrap();
    // Black's data is the file's last bytes: flip one in its last block.
    let mut bad = good.clone();
    let n = bad.len();
    bad[n - 3] ^= 0x10;
    fs::write(&path, &bad).unwrap();
    let damaged = PackedTable::open(&path).unwrap();
    assert!(
        damaged.code(true, 300_000).is_ok(),
        "White's side is intact"
    );
    let error = damaged.code(false, 300_000).unwrap_err();
    assert!(
        matches!(error, FormatError::CorruptBlock { side: "Black", .. }),
        "{error}"
    );
    assert!(error.to_string().contains("blake3"), "{error}");
    assert!(matches!(
        Table::open(&path),
        Err(FormatError::CorruptBlock { .. })
    ));
    let check = |bytes: &[u8]| {
        fs::write(&path, bytes).unwrap();
        PackedTable::open(&path).unwrap_err()
    };
    assert!(matches!(
        check(&good[..good.len() - 1]),
        FormatError::WrongLength { .. }
    ));
    let header_length = read_u32(&good, 12) as usize;
    for at in [header_length + 3, header_length + 30] {
        let mut bad = good.clone();
        bad[at] ^= 1;
        let error = check(&bad);
        assert!(error.to_string().contains("directory checksum"), "{error}");
    }
    let mut bad = good.clone();
    bad[47] = 0x80;
    assert!(matches!(check(&bad), FormatError::CorruptHeader { .. }));
    // Exits decide only where illegal entries are left out too (the header's checksum
    // made right again, so that the flag itself is what is refused).
    bad[47] = EXITS_DECIDE;
    let hash = blake3::hash(&bad[..header_length - HASH_LEN]);
    bad[header_length - HASH_LEN..header_length].copy_from_slice(hash.as_bytes());
    let error = check(&bad);
    assert!(error.to_string().contains("unknown flags"), "{error}");
    // A side is left out only of a file whose exits decide, never both sides, and a side the
    // flags say is left out holds no code (this DTM file stores both).
    let exits = LEAVES_OUT_ILLEGAL | EXITS_DECIDE;
    for (flags, refused) in [
        (LEAVES_OUT_ILLEGAL | WHITE_LEFT_OUT, "unknown flags"),
        (exits | WHITE_LEFT_OUT | BLACK_LEFT_OUT, "unknown flags"),
        (exits | WHITE_LEFT_OUT, "a side left out has a code"),
        (exits | BLACK_LEFT_OUT, "a side left out has a code"),
    ] {
        bad[47] = flags;
        let hash = blake3::hash(&bad[..header_length - HASH_LEN]);
        bad[header_length - HASH_LEN..header_length].copy_from_slice(hash.as_bytes());
        let error = check(&bad);
        assert!(error.to_string().contains(refused), "{flags:#04x}: {error}");
    }
}

fn small_blocks() -> PackOptions {
    PackOptions {
        coder: Coder::ZstdBlocks,
        entries_per_block: 1000,
        level: 3,
        ..PackOptions::default()
    }
}

#[test]
fn packed_tables_decode_to_the_raw_body() {
    let dir = tempfile::tempdir().unwrap();
    // Small sides (no dictionary) and large ones (a dictionary each), one and two bytes an
    // entry, the last block short.
    for (entries, width) in [(5u64, 1u8), (4_321, 1), (300_001, 1), (150_007, 2)] {
        let raw = raw_table(dir.path(), entries, width);
        let path = dir.path().join("KRvK.8x8.rtbz");
        let report = pack(&raw, &path, &[], &small_blocks()).unwrap();
        assert_eq!(report.packed_bytes, fs::metadata(&path).unwrap().len());
        assert_eq!(
            report.dictionary_bytes > 0,
            entries * u64::from(width) >= 262_144
        );
        let packed = PackedTable::open(&path).unwrap();
        assert_eq!(packed.header(), raw.header());
        assert_eq!(packed.stream_hash(), raw.body_hash());
        for white in [true, false] {
            for i in (0..entries).step_by(997).chain([entries - 1]) {
                assert_eq!(packed.code(white, i).unwrap(), raw.code(white, i).unwrap());
            }
        }
        assert!(packed.code(true, entries).is_err());
        assert!(packed.order(true).is_identity() && packed.order(false).is_identity());
        let whole = Table::open(&path).unwrap();
        assert!(whole.is_packed());
        assert_eq!(whole.body(), raw.body());
        assert_eq!(whole.body_hash(), raw.body_hash());
        let (h, hash) = read_header(&path).unwrap();
        assert_eq!((&h, hash), (raw.header(), raw.body_hash()));
    }
    let names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(names.len(), 2, "no temporary file left: {names:?}");
}

/// With the index's digits named, each side is packed in the order of them that compresses
/// best, and still reads back every entry at its raw index.
#[test]
fn reordered_sides_read_back_in_raw_order() {
    let dir = tempfile::tempdir().unwrap();
    // Digits 20 × 125 × 120, the entries depending on the last two only: in raw order the
    // same 15,000 codes come twenty times over, too far apart for a block to use; with the
    // first digit last, each code comes twenty times in a row.
    let h = header(300_000, 1);
    let codes: Vec<u32> = (0..2 * 300_000u64)
        .map(|i| {
            let mut x = (i % 15_000).wrapping_mul(0x9e37_79b9_7f4a_7c15) + 1;
            x ^= x >> 29;
            x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
            x ^= x >> 32;
            2 + (x % 29) as u32
        })
        .collect();
    let path = dir.path().join(file_name("KRvK", 8, 8));
    write_table(&path, &h, &encode_body(&h, codes.into_iter()).unwrap()).unwrap();
    let raw = Table::open(&path).unwrap();
    let packed_path = dir.path().join("KRvK.8x8.rtbz");
    let report = pack(&raw, &packed_path, &[20, 125, 120], &small_blocks()).unwrap();
    assert_eq!(report.orders[0].last(), Some(&0), "{report:?}");
    let identity = dir.path().join("identity.rtbz");
    let plain = pack(&raw, &identity, &[], &small_blocks()).unwrap();
    assert!(
        report.packed_bytes < plain.packed_bytes,
        "{report:?} {plain:?}"
    );
    assert_eq!(report.orders[0].last(), Some(&0), "{report:?}");
    let packed = PackedTable::open(&packed_path).unwrap();
    assert!(!packed.order(true).is_identity());
    for i in (0..300_000).step_by(331) {
        for white in [true, false] {
            assert_eq!(packed.code(white, i).unwrap(), raw.code(white, i).unwrap());
        }
    }
    assert_eq!(Table::open(&packed_path).unwrap().body(), raw.body());
    assert!(pack(&raw, &identity, &[20, 125, 121], &small_blocks()).is_err());
}

#[test]
fn damaged_packed_files_are_refused_naming_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let raw = raw_table(dir.path(), 300_001, 1);
    let path = dir.path().join("KRvK.8x8.rtbz");
    pack(&raw, &path, &[], &small_blocks()).unwrap();
    let good = fs::read(&path).unwrap();
    let packed = PackedTable::open(&path).unwrap();
    // A byte flipped in block 7 of Black's side.
    let (at, _) = packed.block_extent(false, 7);
    drop(packed);
    let mut bad = good.clone();
    bad[at as usize + 3] ^= 0x10;
    fs::write(&path, &bad).unwrap();
    let damaged = PackedTable::open(&path).unwrap();
    assert!(
        damaged.code(true, 7_500).is_ok(),
        "White's block 7 is intact"
    );
    let error = damaged.code(false, 7_500).unwrap_err();
    assert!(
        matches!(
            error,
            FormatError::CorruptBlock {
                block: 7,
                side: "Black",
                ..
            }
        ),
        "{error}"
    );
    let message = error.to_string();
    assert!(
        message.contains("block 7 of KRvK (Black to move)"),
        "{message}"
    );
    assert!(matches!(
        Table::open(&path),
        Err(FormatError::CorruptBlock { .. })
    ));
    // Truncated, a header field changed, the directory changed, another kind of file.
    let check = |bytes: &[u8]| {
        fs::write(&path, bytes).unwrap();
        PackedTable::open(&path).unwrap_err()
    };
    assert!(matches!(
        check(&good[..good.len() - 1]),
        FormatError::WrongLength { .. }
    ));
    assert!(matches!(
        check(&good[..100]),
        FormatError::WrongLength { .. }
    ));
    let mut bad = good.clone();
    bad[24] ^= 1;
    assert!(matches!(check(&bad), FormatError::CorruptHeader { .. }));
    let header_length = read_u32(&good, 12) as usize;
    let mut bad = good.clone();
    bad[header_length + 5] ^= 1;
    let error = check(&bad);
    assert!(error.to_string().contains("directory checksum"), "{error}");
    let mut bad = good.clone();
    bad[..8].copy_from_slice(b"NOTATABL");
    assert!(matches!(check(&bad), FormatError::BadMagic { .. }));
    let mut bad = good.clone();
    bad[8] = 9;
    assert!(matches!(
        check(&bad),
        FormatError::UnsupportedVersion { found: 9, .. }
    ));
}

#[test]
fn a_failed_pack_keeps_the_old_file() {
    let dir = tempfile::tempdir().unwrap();
    let raw = raw_table(dir.path(), 4_321, 1);
    let path = dir.path().join("KRvK.8x8.rtbz");
    fs::write(&path, b"the old file").unwrap();
    let bad = PackOptions {
        level: 40,
        ..PackOptions::default()
    };
    assert!(pack(&raw, &path, &[], &bad).is_err());
    assert_eq!(fs::read(&path).unwrap(), b"the old file");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
}
