//! The fifty-move tables of every material of up to four men on 8×8, built by `retro gen
//! --kinds fifty`, against the independent peer and the kernel: the five classes and the
//! positions by distance to zeroing equal the Syzygy generator's statistics (`rtbgen -s`,
//! `rtbgenp -s`, in `tests/syzygy/stats/`); DTZ50 equals python-chess's `probe_dtz` on the
//! Syzygy generator's files on 3,500 random positions (`tests/syzygy/python-chess-3-4.tsv`,
//! written by `tools/syzygy-sample.py`) wherever that value is exact, and is within its
//! documented rounding elsewhere; `retro verify` certifies every table from the natural model.

mod common;

use common::{all_output, retro, stdout_text};
use std::path::Path;
use std::sync::OnceLock;

/// The DTZ50 and WDL50 tables of every material of up to four men on 8×8, built once.
fn tables() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        let out = retro(&[
            "gen", "--up-to", "4", "--kinds", "fifty", "--dir", d, "--quiet",
        ]);
        assert!(out.status.success(), "{}", all_output(&out));
        dir
    })
    .path()
}

fn golden(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/syzygy")
        .join(name)
}

#[test]
fn every_table_of_up_to_four_men_counts_as_the_syzygy_generator() {
    let dir = tables().to_str().unwrap();
    let stats = golden("stats");
    let mut compared = 0;
    for entry in std::fs::read_dir(&stats).unwrap() {
        let path = entry.unwrap().path();
        let material = path.file_stem().unwrap().to_str().unwrap().to_string();
        let out = retro(&[
            "stats",
            &material,
            "--kinds",
            "fifty",
            "--dir",
            dir,
            "--syzygy-stats",
            path.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{material}: {}", all_output(&out));
        assert!(
            all_output(&out).contains("equal the Syzygy generator's"),
            "{}",
            all_output(&out)
        );
        compared += 1;
    }
    assert_eq!(compared, 35, "every material of three and four men but KvK");
    println!("fifty: the five classes and distances of {compared} tables equal rtbgen -s's");
}

/// Python-chess's value, and whether it is exact (see `tools/syzygy-sample.py`).
struct Peer {
    fen: String,
    wdl: i64,
    dtz: i64,
    exact: bool,
}

#[test]
fn dtz50_agrees_with_python_chess_on_syzygy_files() {
    let exact = against_python_chess(&golden("python-chess-3-4.tsv"), tables());
    assert!(exact > 1000, "{exact}");
}

/// The longer check of five-man tables (README): `RETRO_TABLES` holds the DTZ50 and WDL50
/// tables built by `retro gen --kinds fifty`, `RETRO_PYTHON_CHESS` the TSV that
/// `tools/syzygy-sample.py` wrote from the Syzygy generator's files of the same materials.
#[test]
#[ignore = "a longer check: needs RETRO_TABLES and RETRO_PYTHON_CHESS"]
fn dtz50_agrees_with_python_chess_on_the_tables_given() {
    let tsv = std::env::var_os("RETRO_PYTHON_CHESS").expect("RETRO_PYTHON_CHESS names a TSV");
    let dir = std::env::var_os("RETRO_TABLES").expect("RETRO_TABLES names a directory");
    let exact = against_python_chess(Path::new(&tsv), Path::new(&dir));
    assert!(exact > 0, "no exact value compared");
}

/// Compares every position of `tsv` (see `tools/syzygy-sample.py`) with `retro probe
/// --batch` on the tables of `dir`: WDL exactly, DTZ50 exactly where python-chess's value is
/// exact and within its documented rounding elsewhere. Returns the positions compared
/// exactly (the figures printed).
fn against_python_chess(tsv: &Path, dir: &Path) -> usize {
    let text = std::fs::read_to_string(tsv).unwrap();
    let peers: Vec<Peer> = text
        .lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            Peer {
                fen: f[0].to_string(),
                wdl: f[1].parse().unwrap(),
                dtz: f[2].parse().unwrap(),
                exact: f[3] == "1",
            }
        })
        .collect();
    let input: String = peers.iter().map(|p| format!("{}\n", p.fen)).collect();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(["probe", "--batch", "--format", "json", "--dir"])
        .arg(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", all_output(&out));
    let (mut exact, mut rounded, mut mates) = (0, 0, 0);
    for (peer, line) in peers.iter().zip(stdout_text(&out).lines()) {
        let ours: serde_json::Value = serde_json::from_str(line).unwrap();
        let class = ours["wdl50"].as_str().unwrap();
        let wdl = match class {
            "loss" => -2,
            "blessed-loss" => -1,
            "draw" => 0,
            "cursed-win" => 1,
            "win" => 2,
            other => panic!("{}: class {other}", peer.fen),
        };
        assert_eq!(wdl, peer.wdl, "{}: WDL", peer.fen);
        let dtz = ours["dtz"].as_i64().unwrap();
        if peer.exact {
            assert_eq!(dtz, peer.dtz, "{}: exact DTZ", peer.fen);
            exact += 1;
        } else if dtz == 0 && peer.dtz == -1 {
            // A checkmated position: no distance here, -1 in python-chess.
            assert!(ours["description"].as_str().unwrap().contains("checkmated"));
            mates += 1;
        } else {
            // python-chess: "a return value -n can mean a losing zeroing move in n + 1 plies
            // and a return value +n can mean a winning zeroing move in n + 1 plies".
            let off = dtz.abs() - peer.dtz.abs();
            assert!(
                dtz.signum() == peer.dtz.signum() && (off == 0 || off == 1),
                "{}: DTZ50 {dtz} here, {} in python-chess",
                peer.fen,
                peer.dtz
            );
            rounded += 1;
        }
    }
    assert_eq!(exact + rounded + mates, peers.len());
    println!(
        "fifty: {} positions against python-chess: {exact} exact and equal, {rounded} within \
         its rounding, {mates} checkmated",
        exact + rounded + mates
    );
    exact
}

#[test]
fn every_fifty_table_of_up_to_four_men_is_certified() {
    let dir = tables().to_str().unwrap();
    let out = retro(&["verify", "--kinds", "fifty", "--dir", dir, "--quiet"]);
    assert!(out.status.success(), "{}", all_output(&out));
    let text = stdout_text(&out);
    assert!(
        text.contains("checked 36 tables") && text.contains("all pass"),
        "{text}"
    );
    // A certificate for each, and a second run finds them established.
    let again = retro(&[
        "verify", "--kinds", "fifty", "--dir", dir, "--resume", "--quiet",
    ]);
    assert!(
        stdout_text(&again).contains("36 more certified earlier"),
        "{}",
        stdout_text(&again)
    );
    println!("fifty: {}", text.lines().last().unwrap_or_default());
}

#[test]
fn probe_gives_the_class_at_the_fen_clock() {
    let dir = tables().to_str().unwrap();
    // KRvK: a win in 31 plies to mate (no capture or pawn move on the way, so 31 to zeroing).
    let fen = "8/8/8/8/8/2k5/1R6/K7 w - - 0 1";
    let out = retro(&["probe", fen, "--dir", dir]);
    assert!(out.status.success(), "{}", all_output(&out));
    assert!(
        stdout_text(&out).contains("White to move: wins, zeroing in 31 plies"),
        "{}",
        stdout_text(&out)
    );
    // Seventy plies in, the mate comes too late: a cursed win at that clock.
    let late = retro(&[
        "probe",
        "8/8/8/8/8/2k5/1R6/K7 w - - 70 60",
        "--dir",
        dir,
        "--json",
    ]);
    let json: serde_json::Value = serde_json::from_str(&stdout_text(&late)).unwrap();
    assert_eq!(json["wdl50"], "cursed-win");
    assert_eq!(json["category"], "cursed-win");
    assert_eq!(json["dtz"], 31);
    assert_eq!(
        json["dtm"],
        serde_json::Value::Null,
        "no DTM table was built"
    );
    assert_eq!(json["halfmove_clock"], 70);
    let moves = json["moves"].as_array().unwrap();
    assert!(moves.iter().all(|m| m["zeroing"].is_boolean()));
    // A position with no table of either kind is an error naming the material.
    let none = retro(&["probe", "8/8/8/8/8/2k4r/1R6/K6R w - - 0 1", "--dir", dir]);
    assert_eq!(none.status.code(), Some(1));
    assert!(
        all_output(&none).contains("KRRvKR"),
        "{}",
        all_output(&none)
    );
}
