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

/// Sets the generator's checksum of a file's bytes in its last 16 again.
fn checksum_made_right(bytes: &mut [u8]) {
    let n = bytes.len();
    let sum = retro_syzygy::checksum::checksum(&bytes[..n - 16]);
    bytes[n - 16..].copy_from_slice(&sum);
}

#[test]
fn a_changed_entry_is_found_and_named() {
    // Bytes past the header of KPvK's WDL file changed in turn, the checksum made right again
    // each time: the check fails naming a position (or, where the change breaks the code
    // itself, naming the file the reader could not decode); a change that leaves every value
    // as it was (a padding byte) passes.
    let length = std::fs::read(peer_files().join("KPvK.rtbw")).unwrap().len();
    let (mut named, mut undecodable) = (0, 0);
    for at in (64..length - 16).step_by(length / 12) {
        let dir = damaged("KPvK.rtbw", |b| {
            b[at] ^= 0x10;
            checksum_made_right(b);
        });
        let out = verify_syzygy(dir.path(), proved(), &["KPvK"]);
        if out.status.success() {
            continue;
        }
        let text = stdout_text(&out);
        assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
        if text.contains("positions differ; the first:") {
            named += 1;
        } else {
            assert!(text.contains("KPvK.rtbw is damaged"), "{text}");
            undecodable += 1;
        }
    }
    assert!(named > 0, "no changed byte of KPvK.rtbw named a position");
    println!(
        "syzygy files: of 12 changed bytes of KPvK.rtbw, {named} named a position, \
         {undecodable} the file"
    );
    // The same change with the checksum left as it was: the file is refused, named.
    let dir = damaged("KPvK.rtbw", |b| b[64] ^= 0x10);
    let out = verify_syzygy(dir.path(), proved(), &["KPvK"]);
    assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
    let text = stdout_text(&out);
    assert!(
        text.contains("KPvK.rtbw") && text.contains("checksum"),
        "{text}"
    );
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

#[test]
fn exported_files_pass_the_syzygy_check_and_what_cannot_be_written_is_refused() {
    let out_dir = tempfile::tempdir().unwrap();
    let syzygy = out_dir.path().to_str().unwrap();
    let tables = proved().to_str().unwrap();
    let out = retro(&["export", "--syzygy", syzygy, "--dir", tables, "--quiet"]);
    assert!(out.status.success(), "{}", all_output(&out));
    let text = stdout_text(&out);
    assert!(text.contains("10 Syzygy files"), "{text}");
    assert!(text.contains("every class as proved"), "{text}");
    // Wins and losses are stored in plies: no DTZ read back is short of the proved one but
    // those the format keeps in moves (KPvK and its promotions have no cursed win).
    assert!(text.contains(" equal, 0 one ply short"), "{text}");
    // The certified check reads them as it reads the generator's, DTZ included.
    let out = verify_syzygy(out_dir.path(), proved(), &[]);
    assert!(out.status.success(), "{}", all_output(&out));
    let text = stdout_text(&out);
    assert!(text.contains("5 of 5 materials"), "{text}");
    assert!(!text.contains("no DTZ file"), "{text}");
    // The generator's files and ours: both answer every position alike, ours no larger than
    // twice the generator's.
    for material in MATERIALS {
        for extension in ["rtbw", "rtbz"] {
            let file = format!("{material}.{extension}");
            let ours = std::fs::metadata(out_dir.path().join(&file)).unwrap().len();
            let theirs = std::fs::metadata(peer_files().join(&file)).unwrap().len();
            assert!(ours <= 2 * theirs, "{file}: {ours} bytes against {theirs}");
        }
    }
    // A material without tables, a misspelt one, two kings alone and a six-man table whose
    // export would not fit in memory are named.
    for (material, words) in [
        ("KQvKQ", "KQvKQ"),
        ("KXvK", "KXvK"),
        ("KvK", "two kings"),
        ("KQRvKQR", "needs about"),
    ] {
        let out = retro(&["export", "--syzygy", syzygy, "--dir", tables, material]);
        assert_eq!(out.status.code(), Some(1), "{}", all_output(&out));
        assert!(
            all_output(&out).contains(words),
            "{material}: {}",
            all_output(&out)
        );
    }
}

/// Stockfish (Debian's, installed here when missing), its `SyzygyPath` set to `dir`, searching
/// `fen` to `depth`: the last `info` line with a score.
fn stockfish(dir: &Path, fen: &str, depth: u32) -> String {
    use std::io::Write;
    let program = ["/usr/games/stockfish", "/usr/bin/stockfish"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .map(PathBuf::from)
        .or_else(|| {
            common::apt_install(&["stockfish"]);
            Some(PathBuf::from("/usr/games/stockfish")).filter(|p| p.exists())
        })
        .expect("Stockfish: `apt-get install stockfish` failed");
    let mut child = std::process::Command::new(program)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("Stockfish runs");
    let script = format!(
        "uci\nsetoption name SyzygyPath value {}\nsetoption name Threads value 1\nisready\n\
         position fen {fen}\ngo depth {depth}\n",
        dir.display()
    );
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(script.as_bytes()).unwrap();
    let mut text = String::new();
    let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    while std::io::BufRead::read_line(&mut reader, &mut line).unwrap() > 0 {
        text.push_str(&line);
        if line.starts_with("bestmove") {
            break;
        }
        line.clear();
    }
    stdin.write_all(b"quit\n").unwrap();
    drop(stdin);
    child.wait().unwrap();
    assert!(text.contains("Found 5 tablebases"), "{text}");
    text.lines()
        .rfind(|l| l.starts_with("info") && l.contains(" score "))
        .unwrap_or_else(|| panic!("no score: {text}"))
        .to_string()
}

#[test]
fn stockfish_finds_the_exported_files_and_plays_the_proved_result() {
    let out_dir = tempfile::tempdir().unwrap();
    let tables = proved().to_str().unwrap();
    let syzygy = out_dir.path().to_str().unwrap();
    let out = retro(&["export", "--syzygy", syzygy, "--dir", tables, "--quiet"]);
    assert!(out.status.success(), "{}", all_output(&out));
    for fen in [
        "8/8/8/4k3/8/8/8/KQ6 w - - 0 1",
        "8/8/8/4k3/8/8/8/KQ6 b - - 0 1",
        "8/8/8/4k3/8/8/8/KN6 w - - 0 1",
        "8/8/8/8/8/8/4P3/4K1k1 w - - 0 1",
        "4k3/8/4K3/4P3/8/8/8/8 b - - 0 1",
        "8/8/8/8/8/2k5/2P5/2K5 w - - 0 1",
    ] {
        let out = retro(&["probe", fen, "--json", "--dir", tables]);
        assert!(out.status.success(), "{}", all_output(&out));
        let text = stdout_text(&out);
        let class = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("\"category\": \""))
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_else(|| panic!("no category: {text}"))
            .to_string();
        let info = stockfish(out_dir.path(), fen, 10);
        let tbhits: u64 = info
            .split_whitespace()
            .skip_while(|w| *w != "tbhits")
            .nth(1)
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        assert!(tbhits > 0, "{fen}: {info}");
        let words: Vec<&str> = info.split_whitespace().collect();
        let at = words.iter().position(|w| *w == "score").unwrap();
        let (unit, value): (&str, i64) = (words[at + 1], words[at + 2].parse().unwrap());
        // A mate or a tablebase score (Stockfish 15.1 gives its wins 8,795 centipawns).
        let sign = if unit == "mate" || value.abs() >= 1000 {
            value.signum()
        } else {
            assert_eq!(
                value, 0,
                "{fen}: a score neither won, lost nor drawn: {info}"
            );
            0
        };
        let expected = match class.as_str() {
            "win" => 1,
            "loss" => -1,
            _ => 0,
        };
        assert_eq!(sign, expected, "{fen}: proved {class}, Stockfish: {info}");
        println!("stockfish: {fen}: proved {class}; {info}");
    }
}
