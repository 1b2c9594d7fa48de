//! Packed tables end to end: `retro pack` and `retro gen --pack` write files that decode to the
//! raw tables byte for byte, and every reader — `probe`, `stats`, `verify`, `gen` of a larger
//! table — works on a directory of packed files alone; damaged, truncated and misnamed packed
//! files are refused with a clear error; a pack killed part way leaves no file behind.

mod common;

use common::{all_output, retro, stdout_text};

/// This process reads packed files whole, as `retro` does: their illegal positions put back.
fn restoring() {
    retro_format::install_restorer(retro_gen::restore_packed);
}
use retro_format::{PackedTable, Table};
use std::path::Path;
use std::process::Output;

/// What a command that must succeed printed on standard output.
fn ok(out: Output) -> String {
    assert!(out.status.success(), "{}", all_output(&out));
    stdout_text(&out)
}

/// The names of the files in `dir` but the lock a writing run holds (left behind by a run
/// killed while holding it, taken over by the next).
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name != retro_format::lock::LOCK_FILE)
        .collect();
    names.sort();
    names
}

fn copy_raw(from: &Path, to: &Path) {
    for name in names(from) {
        if name.ends_with(".rtb") {
            std::fs::copy(from.join(&name), to.join(&name)).unwrap();
        }
    }
}

/// Every table of up to 4 men on 8×8 packed: each decodes to its raw file's body exactly, the
/// checker proves the packed files alone (certificates naming the raw bodies' hashes), and
/// statistics and probes read the same values from both.
#[test]
fn every_table_of_up_to_four_men_packs_to_the_same_values() {
    restoring();
    let raw = tempfile::tempdir().unwrap();
    let packed = tempfile::tempdir().unwrap();
    let (r, p) = (
        raw.path().to_str().unwrap(),
        packed.path().to_str().unwrap(),
    );
    ok(retro(&[
        "gen", "--kinds", "dtm", "--up-to", "4", "--dir", r, "--quiet",
    ]));
    copy_raw(raw.path(), packed.path());
    let text = ok(retro(&["pack", "--dir", p, "--remove-raw", "--quiet"]));
    assert!(text.contains("36 tables packed"), "{text}");
    let files = names(packed.path());
    assert_eq!(files.len(), 36, "{files:?}");
    assert!(files.iter().all(|n| n.ends_with(".8x8.rtbz")), "{files:?}");
    for name in names(raw.path()) {
        let original = Table::open(&raw.path().join(&name)).unwrap();
        let decoded = Table::open(&packed.path().join(format!("{name}z"))).unwrap();
        assert!(decoded.is_packed());
        assert_eq!(decoded.header(), original.header(), "{name}");
        assert_eq!(decoded.body_hash(), original.body_hash(), "{name}");
        assert!(
            decoded.body() == original.body(),
            "{name} decodes to other values"
        );
        assert!(
            decoded.file_bytes() < original.file_bytes() / 2,
            "{name} hardly packed"
        );
    }
    let text = ok(retro(&["verify", "--dir", p, "--quiet"]));
    assert!(text.contains("checked 36 tables"), "{text}");
    assert!(text.contains("all pass"), "{text}");
    // The certificate of a packed table names the raw body's hash.
    let hash: String = Table::open(&raw.path().join("KQvKR.8x8.rtb"))
        .unwrap()
        .body_hash()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let certificate = std::fs::read_to_string(packed.path().join("KQvKR.8x8.verified")).unwrap();
    assert!(
        certificate.contains(&format!("body-blake3 {hash}")),
        "{certificate}"
    );
    for material in ["KQvKR", "KPvKP", "KBNvK", "KRvKP"] {
        let stats =
            |d: &str| stdout_text(&retro(&["stats", material, "--dir", d, "--format", "json"]));
        assert_eq!(stats(r), stats(p), "{material}");
    }
    for fen in [
        "8/8/8/8/8/2k5/1R6/K7 w - - 0 1",
        "3r4/8/2k5/8/8/8/8/3QK3 w - - 0 1",
        "8/8/8/2k5/4p3/8/3P4/4K3 w - - 0 1",
        "8/8/8/8/3pP3/8/2k5/4K3 b - e3 0 1",
        "8/2P5/8/8/8/k7/8/K6n w - - 0 1",
    ] {
        let probe = |d: &str| ok(retro(&["probe", fen, "--dir", d, "--json", "--line"]));
        assert_eq!(probe(r), probe(p), "{fen}");
    }
}

/// `retro gen --pack` leaves every table of its run packed, and a larger table built from
/// packed smaller tables alone is the one built from raw ones.
#[test]
fn a_larger_table_builds_from_packed_tables_alone() {
    restoring();
    let raw = tempfile::tempdir().unwrap();
    let packed = tempfile::tempdir().unwrap();
    let (r, p) = (
        raw.path().to_str().unwrap(),
        packed.path().to_str().unwrap(),
    );
    ok(retro(&[
        "gen", "--kinds", "dtm", "KRvKR", "--board", "5x5", "--dir", r, "--quiet",
    ]));
    ok(retro(&[
        "gen", "--kinds", "dtm", "KRvKR", "--board", "5x5", "--dir", p, "--quiet", "--pack",
    ]));
    assert!(names(packed.path()).iter().all(|n| n.ends_with(".rtbz")));
    let text = ok(retro(&[
        "gen", "--kinds", "dtm", "KRBvKR", "--board", "5x5", "--dir", p, "--pack",
    ]));
    assert!(text.contains("packed"), "{text}");
    ok(retro(&[
        "gen", "--kinds", "dtm", "KRBvKR", "--board", "5x5", "--dir", r, "--quiet",
    ]));
    let built = Table::open(&raw.path().join("KRBvKR.5x5.rtb")).unwrap();
    let from_packed = Table::open(&packed.path().join("KRBvKR.5x5.rtbz")).unwrap();
    assert!(from_packed.body() == built.body());
    assert!(
        names(packed.path()).iter().all(|n| n.ends_with(".rtbz")),
        "no raw file left"
    );
    let text = ok(retro(&[
        "verify", "KRBvKR", "--board", "5x5", "--dir", p, "--quiet",
    ]));
    assert!(text.contains("all pass"), "{text}");
}

/// A byte flipped in a block, a truncated file, a file of another table, a foreign file: each
/// is refused with a message naming the file and what is wrong, and a non-zero exit.
#[test]
fn damaged_packed_files_are_refused() {
    restoring();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    ok(retro(&[
        "gen", "--kinds", "dtm", "KQvK", "KRvK", "--dir", d, "--quiet", "--pack",
    ]));
    let path = dir.path().join("KQvK.8x8.rtbz");
    let good = std::fs::read(&path).unwrap();
    let fen = "8/8/2k5/8/8/8/8/3QK3 w - - 0 1";
    let probe = || retro(&["probe", fen, "--dir", d]);
    assert!(probe().status.success());
    let refused = |expected: &str| {
        let out = probe();
        let text = all_output(&out);
        assert!(!out.status.success(), "{text}");
        assert!(text.contains(expected), "{expected:?} not in {text}");
        assert!(text.contains("KQvK.8x8.rtbz"), "{text}");
        assert!(!text.contains("panicked"), "{text}");
    };
    // Damage every eighth byte of White's blocks, so that whichever the probe reads is damaged.
    let packed = PackedTable::open(&path).unwrap();
    let mut bad = good.clone();
    let (at, len) = packed.data_extent(true);
    for k in (0..len).step_by(8) {
        bad[(at + k) as usize] ^= 0x40;
    }
    drop(packed);
    std::fs::write(&path, &bad).unwrap();
    refused("(White to move) is damaged");
    let out = retro(&["verify", "KQvK", "--dir", d, "--quiet"]);
    assert!(!out.status.success());
    assert!(
        all_output(&out).contains("is damaged"),
        "{}",
        all_output(&out)
    );
    std::fs::write(&path, &good[..good.len() - 3]).unwrap();
    refused("truncated");
    std::fs::copy(dir.path().join("KRvK.8x8.rtbz"), &path).unwrap();
    refused("holds KRvK");
    std::fs::write(&path, b"GIF89a and then some more bytes to be long enough for a header ............................................................................................................................................................").unwrap();
    refused("not a retro table");
    std::fs::write(&path, &good).unwrap();
    assert!(probe().status.success());
}

/// A pack whose table would need more memory than `--mem` allows is refused before it starts,
/// naming the table and the figure, and writes nothing; a size that is no size is an error.
#[test]
fn a_pack_beyond_the_memory_allowed_is_refused_before_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    ok(retro(&[
        "gen", "KQvK", "--kinds", "dtm", "--dir", d, "--quiet",
    ]));
    let out = retro(&["pack", "KQvK", "--dir", d, "--mem", "1M", "--quiet"]);
    let text = all_output(&out);
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("packing KQvK needs about"), "{text}");
    assert!(text.contains("--mem allows 1.0 MiB"), "{text}");
    assert!(
        names(dir.path()).iter().all(|n| !n.ends_with(".rtbz")),
        "{:?}",
        names(dir.path())
    );
    let out = retro(&["pack", "--dir", d, "--mem", "lots"]);
    assert!(!out.status.success());
    assert!(all_output(&out).contains("--mem"), "{}", all_output(&out));
    let text = ok(retro(&[
        "pack", "KQvK", "--dir", d, "--mem", "2G", "--quiet",
    ]));
    assert!(text.contains("tables packed"), "{text}");
}

/// `retro pack` killed at many moments never leaves a file, partial or whole, at the packed
/// table's name until it finishes, nor any temporary file; a run after it writes the file an
/// undisturbed run writes.
#[test]
fn a_pack_killed_part_way_leaves_nothing() {
    restoring();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    ok(retro(&[
        "gen", "--kinds", "dtm", "KQvKR", "--dir", d, "--quiet",
    ]));
    let whole = tempfile::tempdir().unwrap();
    copy_raw(dir.path(), whole.path());
    ok(retro(&[
        "pack",
        "KQvKR",
        "--dir",
        whole.path().to_str().unwrap(),
        "--quiet",
    ]));
    let expected = std::fs::read(whole.path().join("KQvKR.8x8.rtbz")).unwrap();
    let before = names(dir.path());
    let mut interrupted = 0;
    for millis in [5u64, 40, 120, 300] {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_retro"))
            .args(["pack", "KQvKR", "--dir", d, "--quiet"])
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(millis));
        let _ = child.kill();
        let status = child.wait().unwrap();
        let after = names(dir.path());
        if status.success() {
            // It finished before the kill: the whole file, nothing else.
            assert_eq!(
                std::fs::read(dir.path().join("KQvKR.8x8.rtbz")).unwrap(),
                expected
            );
            std::fs::remove_file(dir.path().join("KQvKR.8x8.rtbz")).unwrap();
        } else {
            interrupted += 1;
            assert_eq!(after, before, "killed after {millis} ms");
        }
    }
    assert!(interrupted > 0, "every run finished before its kill");
    ok(retro(&["pack", "KQvKR", "--dir", d, "--quiet"]));
    assert_eq!(
        std::fs::read(dir.path().join("KQvKR.8x8.rtbz")).unwrap(),
        expected
    );
}

/// The Freezer's look-ups and an oracle's table leaves read packed tables as raw ones.
#[test]
fn the_freezer_and_oracles_read_packed_tables() {
    restoring();
    let raw = tempfile::tempdir().unwrap();
    let packed = tempfile::tempdir().unwrap();
    let (r, p) = (
        raw.path().to_str().unwrap(),
        packed.path().to_str().unwrap(),
    );
    ok(retro(&[
        "gen", "--kinds", "dtm", "KQvKR", "--dir", r, "--quiet",
    ]));
    ok(retro(&[
        "gen", "--kinds", "dtm", "KQvKR", "--dir", p, "--quiet", "--pack",
    ]));
    let problem = packed.path().join("rook.toml");
    std::fs::write(&problem, common::ROOK_ON_TWO_FILES).unwrap();
    let problem = problem.to_str().unwrap();
    let freeze = |d: &str| {
        let text = ok(retro(&[
            "freeze", problem, "--format", "json", "--quiet", "--dir", d,
        ]));
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        (
            json["start"].clone(),
            json["counts"].clone(),
            json["best_moves"].clone(),
        )
    };
    let from_packed = freeze(p);
    assert_eq!(from_packed.0["value"], "win");
    assert_eq!(from_packed, freeze(r));
    assert!(names(packed.path()).iter().all(|n| !n.ends_with(".rtb")));
    // An oracle whose one leaf is a certified table's (Qxd2 into KQvK), checked from the
    // packed tables by the kernel's checker.
    ok(retro(&["verify", "--dir", p, "--quiet"]));
    let oracle = packed.path().join("qxr.oracle");
    let oracle = oracle.to_str().unwrap();
    let fen = "8/8/8/3k4/8/8/3r4/3QK3 w - - 0 1";
    let build = [
        "oracle", "build", fen, "--goal", "win", "--out", oracle, "--quiet",
    ];
    ok(common::retro_with_tables(&build, packed.path()));
    let out = common::retro_with_tables(
        &["oracle", "check", oracle, "--format", "json"],
        packed.path(),
    );
    let json: serde_json::Value = serde_json::from_str(&ok(out)).unwrap();
    assert_eq!(json["valid"], true, "{json}");
    assert_eq!(json["leaves"]["table_win"], 1, "{json}");
}

/// `retro pack --check` decodes packed tables kept beside their raw files and compares them;
/// a packed file of other values fails it, named.
#[test]
fn pack_check_compares_packed_with_raw_files() {
    restoring();
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    ok(retro(&[
        "gen", "--kinds", "dtm", "KQvK", "KRvK", "--dir", d, "--quiet",
    ]));
    ok(retro(&["pack", "--dir", d, "--quiet"]));
    let text = ok(retro(&["pack", "--check", "--dir", d, "--quiet"]));
    assert!(text.contains("3 packed tables compared"), "{text}");
    assert!(text.contains("3 decode to the same"), "{text}");
    std::fs::copy(
        dir.path().join("KRvK.8x8.rtbz"),
        dir.path().join("KQvK.8x8.rtbz"),
    )
    .unwrap();
    let out = retro(&["pack", "--check", "--dir", d, "--quiet"]);
    assert!(!out.status.success());
    let text = stdout_text(&out);
    assert!(text.contains("KQvK  DIFFERS"), "{text}");
    assert!(text.contains("1 differ: KQvK"), "{text}");
}
