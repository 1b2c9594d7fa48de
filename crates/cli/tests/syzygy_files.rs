//! `retro verify --syzygy`: the Syzygy generator's own files (`rtbgen` / `rtbgenp` of
//! github.com/syzygy1/tb, kept in `tests/syzygy/files/` for KPvK and the tables it promotes
//! into) checked position by position against the proved fifty-move tables; a damaged or
//! truncated file, and a table not certified, are refused with the file or the step named.

mod common;

use common::{all_output, retro, stdout_text};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

const MATERIALS: [&str; 5] = ["KQvK", "KRvK", "KBvK", "KNvK", "KPvK"];

fn peer_files() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/syzygy/files")
}

/// KPvK's DTZ50 and WDL50 tables and those it leads into, built and certified once.
fn proved() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        let out = retro(&["gen", "KPvK", "--kinds", "fifty", "--dir", d, "--quiet"]);
        assert!(out.status.success(), "{}", all_output(&out));
        let out = retro(&["verify", "--kinds", "fifty", "--dir", d, "--quiet"]);
        assert!(out.status.success(), "{}", all_output(&out));
        dir
    })
    .path()
}

fn verify_syzygy(files: &Path, tables: &Path, materials: &[&str]) -> std::process::Output {
    let mut args = vec![
        "verify",
        "--syzygy",
        files.to_str().unwrap(),
        "--dir",
        tables.to_str().unwrap(),
        "--quiet",
    ];
    args.extend_from_slice(materials);
    retro(&args)
}

#[test]
fn the_syzygy_generators_files_agree_with_the_proved_tables() {
    let out = verify_syzygy(&peer_files(), proved(), &[]);
    let text = stdout_text(&out);
    assert!(out.status.success(), "{}", all_output(&out));
    for material in MATERIALS {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{material} ")))
            .unwrap_or_else(|| panic!("no line for {material}: {text}"));
        assert!(line.contains("pass:"), "{line}");
    }
    assert!(text.contains("5 of 5 materials"), "{text}");
    let summary = text.lines().last().unwrap();
    println!("syzygy files: {summary}");
}

/// A copy of the peer's files in a scratch directory, `damage` applied to `file`.
fn damaged(file: &str, damage: impl FnOnce(&mut Vec<u8>)) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(peer_files()).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    let path = dir.path().join(file);
    let mut bytes = std::fs::read(&path).unwrap();
    damage(&mut bytes);
    std::fs::write(&path, bytes).unwrap();
    dir
}

#[test]
fn a_changed_entry_is_found_and_named() {
    // Every byte past the header of KPvK's WDL file changed in turn until the check fails; a
    // change that leaves every value as it was (a padding byte) passes, and is tried past.
    let length = std::fs::read(peer_files().join("KPvK.rtbw")).unwrap().len();
    let mut failures = 0;
    for at in (64..length).step_by(length / 12) {
        let dir = damaged("KPvK.rtbw", |b| b[at] ^= 0x10);
        let out = verify_syzygy(dir.path(), proved(), &["KPvK"]);
        if out.status.success() {
            continue;
        }
        let text = stdout_text(&out);
        assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
        assert!(
            text.contains("positions differ; the first:") || text.contains("KPvK.rtbw"),
            "{text}"
        );
        failures += 1;
    }
    assert!(failures > 0, "no changed byte of KPvK.rtbw was found");
    println!("syzygy files: {failures} of 12 changed bytes of KPvK.rtbw found");
}

#[test]
fn a_truncated_or_foreign_file_is_refused() {
    let dir = damaged("KPvK.rtbz", |b| b.truncate(b.len() / 2));
    let out = verify_syzygy(dir.path(), proved(), &["KPvK"]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    assert!(
        all_output(&out).contains("KPvK.rtbz"),
        "{}",
        all_output(&out)
    );

    let dir = damaged("KRvK.rtbw", |b| b[..4].copy_from_slice(b"nope"));
    let out = verify_syzygy(dir.path(), proved(), &["KRvK"]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    assert!(
        stdout_text(&out).contains("KRvK.rtbw"),
        "{}",
        all_output(&out)
    );
}

#[test]
fn tables_not_certified_are_not_compared() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let out = retro(&["gen", "KRvK", "--kinds", "fifty", "--dir", d, "--quiet"]);
    assert!(out.status.success(), "{}", all_output(&out));
    let out = verify_syzygy(&peer_files(), dir.path(), &["KRvK"]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    assert!(
        stdout_text(&out).contains("NOT CHECKED"),
        "{}",
        all_output(&out)
    );
    let out = verify_syzygy(&peer_files(), dir.path(), &["KQvKR"]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
}

/// `retro bench --suite wdl` on the proved tables, with `more` arguments.
fn wdl_bench(more: &[&str]) -> std::process::Output {
    let tables = proved().to_str().unwrap();
    let mut args = vec!["bench", "--suite", "wdl", "--tables", tables];
    args.extend_from_slice(more);
    retro(&args)
}

#[test]
fn the_wdl_bench_times_both_readers_on_positions_they_agree_on() {
    let files = peer_files();
    let out = wdl_bench(&[
        "--syzygy-tables",
        files.to_str().unwrap(),
        "--probes",
        "300",
        "--json",
    ]);
    assert!(out.status.success(), "{}", all_output(&out));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let wdl = &report["results"][0];
    assert_eq!(wdl["suite"], "wdl", "{report}");
    assert_eq!(wdl["positions"], 300, "{report}");
    // The opening probes and the timed ones, every class the same in both.
    assert_eq!(wdl["classes_equal"], 2300, "{report}");
    let materials: Vec<&str> = wdl["materials"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["material"].as_str().unwrap())
        .collect();
    let mut expected = MATERIALS.to_vec();
    expected.sort();
    assert_eq!(materials, expected, "{report}");
    for field in ["wdl50_median_us", "syzygy_median_us", "median_ratio"] {
        let value = wdl[field].as_f64().unwrap();
        assert!(value.is_finite() && value > 0.0, "{field}: {report}");
    }

    // Without the Syzygy files the suite is refused, naming the flag it needs.
    let out = wdl_bench(&[]);
    assert!(!out.status.success());
    assert!(
        all_output(&out).contains("--syzygy-tables"),
        "{}",
        all_output(&out)
    );
}
