//! `retro gen`, `probe`, `stats` and `table1` end to end, and a clear error (with a non-zero
//! exit) for every kind of bad input: malformed FEN, unknown material, a material without a
//! table, missing, truncated, corrupted and foreign table files, wrong flags.

mod common;

use common::{all_output, retro, stderr_text, stdout_text};
use serde_json::Value as Json;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

/// The tables every test here reads, built once per test run.
fn tables() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_str().unwrap();
        let out = retro(&[
            "gen", "--kinds", "dtm", "KQvK", "KRvK", "KBBvK", "KBNvK", "KQvKR", "KRvKN", "--dir",
            path, "--quiet",
        ]);
        assert!(out.status.success(), "{}", stderr_text(&out));
        assert!(stdout_text(&out).contains("tables ready"));
        dir
    })
    .path()
}

fn dir() -> &'static str {
    tables().to_str().unwrap()
}

fn json(out: &Output) -> Json {
    assert!(out.status.success(), "{}", stderr_text(out));
    serde_json::from_str(&stdout_text(out)).unwrap()
}

#[test]
fn longest_wins_probe_to_the_papers_maxima() {
    // Table 1's White-to-move maxima, in moves.
    let paper = retro_tablebase::table1::paper();
    for (material, hurd) in [
        ("KQvK", "KQ_K"),
        ("KRvK", "KR_K"),
        ("KBBvK", "KBB_K"),
        ("KBNvK", "KBN_K"),
        ("KQvKR", "KQ_KR"),
        ("KRvKN", "KR_KN"),
    ] {
        let max = paper
            .iter()
            .find(|r| r.material == hurd)
            .unwrap()
            .wtm_max
            .unwrap() as i64;
        let stats = json(&retro(&[
            "stats",
            material,
            "--dir",
            dir(),
            "--format",
            "json",
        ]));
        let longest = &stats[0]["white_to_move"]["longest_win"];
        assert_eq!(longest["moves"].as_i64(), Some(max), "{material}");
        let fen = longest["fen"].as_str().unwrap();
        let probe = json(&retro(&["probe", fen, "--dir", dir(), "--json"]));
        assert_eq!(probe["category"], "win", "{material}");
        assert_eq!(
            probe["dtm"].as_i64(),
            Some(2 * max - 1),
            "{material}: mate in {max} is {} plies",
            2 * max - 1
        );
        assert_eq!(probe["checkmate"], false);
        // The best move leads to a loss for the other side in one ply less.
        let best = &probe["moves"][0];
        assert_eq!(best["category"], "loss");
        assert_eq!(best["dtm"].as_i64(), Some(-(2 * max - 2)));
        for m in probe["moves"].as_array().unwrap() {
            assert!(m["uci"].is_string() && m["san"].is_string() && m["checkmate"].is_boolean());
        }
    }
}

#[test]
fn probe_describes_lines_and_writes_pgn() {
    let fen = "K7/8/3k1R2/8/8/8/8/8 b - - 0 1";
    let out = retro(&["probe", fen, "--dir", dir(), "--line"]);
    let text = stdout_text(&out);
    assert!(
        text.contains("Black to move: loses, mated in 16 (32 plies)"),
        "{text}"
    );
    assert!(text.contains("Best line (32 plies): 1... "), "{text}");
    assert!(text.trim_end().ends_with('#'), "{text}");
    let pgn = stdout_text(&retro(&["probe", fen, "--dir", dir(), "--pgn"]));
    assert!(
        pgn.contains("[SetUp \"1\"]") && pgn.contains(&format!("[FEN \"{fen}\"]")),
        "{pgn}"
    );
    assert!(
        pgn.contains("[Result \"1-0\"]") && pgn.trim_end().ends_with("1-0"),
        "{pgn}"
    );
    // A draw has no line; a mated position has no moves.
    let draw = stdout_text(&retro(&[
        "probe",
        "8/8/8/8/8/8/8/KR4qk w - - 0 1",
        "--dir",
        dir(),
        "--line",
    ]));
    assert!(draw.contains("draw") || draw.contains("mate"), "{draw}");
    let mated = json(&retro(&[
        "probe",
        "R6k/8/6K1/8/8/8/8/8 b - - 0 1",
        "--dir",
        dir(),
        "--json",
    ]));
    assert_eq!(mated["checkmate"], true);
    assert_eq!(mated["dtm"].as_i64(), Some(0));
    assert_eq!(mated["category"], "loss");
}

#[test]
fn stats_tsv_has_the_named_columns_and_both_conventions() {
    let out = retro(&["stats", "KRvK", "KQvK", "--dir", dir(), "--format", "tsv"]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    let text = stdout_text(&out);
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    for column in [
        "material",
        "board",
        "stm",
        "convention",
        "legal",
        "win",
        "draw",
        "loss",
        "longest_win_plies",
        "longest_loss_plies",
        "longest_win_fen",
    ] {
        assert!(header.contains(&column), "{column}");
    }
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split('\t').collect()).collect();
    assert_eq!(rows.len(), 2 * 2 * 2);
    let col = |name: &str| header.iter().position(|c| *c == name).unwrap();
    // KRvK, Black to move, raw: Hurd's 223,944 legal and 201,700 lost positions.
    let krk_black_raw = rows
        .iter()
        .find(|r| {
            r[col("material")] == "KRvK" && r[col("stm")] == "b" && r[col("convention")] == "raw"
        })
        .unwrap();
    assert_eq!(krk_black_raw[col("legal")], "223944");
    assert_eq!(krk_black_raw[col("loss")], "201700");
    assert_eq!(krk_black_raw[col("longest_loss_plies")], "32");
}

#[test]
fn malformed_fen_is_an_error() {
    let out = retro(&["probe", "8/8/8 w - - 0 1 zz", "--dir", dir()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_text(&out).contains("invalid FEN"),
        "{}",
        stderr_text(&out)
    );
}

#[test]
fn unknown_material_is_an_error() {
    let out = retro(&["gen", "--kinds", "dtm", "KXvK", "--dir", dir()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_text(&out).contains("unknown material 'KXvK'") && stderr_text(&out).contains("'X'"),
        "{}",
        stderr_text(&out)
    );
    let out = retro(&[
        "gen",
        "--kinds",
        "dtm",
        "KPvK",
        "--board",
        "6x2",
        "--dir",
        dir(),
        "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_text(&out).contains("no square a pawn may stand on"),
        "{}",
        stderr_text(&out)
    );
    let out = retro(&["stats", "KRRRvK", "--dir", dir()]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn material_without_a_table_is_an_error() {
    let out = retro(&["probe", "k7/8/8/8/8/8/8/KR5r w - - 0 1", "--dir", dir()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_text(&out).contains("no table for KRvKR"),
        "{}",
        stderr_text(&out)
    );
    let empty = tempfile::tempdir().unwrap();
    let out = retro(&[
        "probe",
        "k7/8/8/8/8/8/8/KR6 w - - 0 1",
        "--dir",
        empty.path().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_text(&out).contains("no table for KRvK"),
        "{}",
        stderr_text(&out)
    );
}

/// A copy of the KQvK tables directory whose KQvK file `damage` changes.
fn damaged(damage: impl FnOnce(&mut Vec<u8>)) -> (tempfile::TempDir, PathBuf) {
    let copy = tempfile::tempdir().unwrap();
    for name in ["KvK.8x8.rtb", "KQvK.8x8.rtb"] {
        std::fs::copy(tables().join(name), copy.path().join(name)).unwrap();
    }
    let path = copy.path().join("KQvK.8x8.rtb");
    let mut bytes = std::fs::read(&path).unwrap();
    damage(&mut bytes);
    std::fs::write(&path, bytes).unwrap();
    (copy, path)
}

fn probe_kqk(dir: &Path) -> Output {
    retro(&[
        "probe",
        "k7/8/8/8/8/8/8/KQ6 w - - 0 1",
        "--dir",
        dir.to_str().unwrap(),
    ])
}

#[test]
fn truncated_table_is_an_error() {
    let (dir, _) = damaged(|b| b.truncate(b.len() - 100));
    let out = probe_kqk(dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_text(&out).contains("truncated"),
        "{}",
        stderr_text(&out)
    );
}

#[test]
fn corrupted_table_is_an_error() {
    let (dir, _) = damaged(|b| {
        let middle = b.len() / 2;
        b[middle] ^= 0x40;
    });
    let out = probe_kqk(dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_text(&out).contains("checksum"),
        "{}",
        stderr_text(&out)
    );
    let (dir, _) = damaged(|b| b[20] ^= 1);
    assert!(stderr_text(&probe_kqk(dir.path())).contains("corrupted header"));
}

#[test]
fn foreign_file_is_an_error() {
    let (dir, _) = damaged(|b| b[..8].copy_from_slice(b"PK\x03\x04zip!"));
    let out = probe_kqk(dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_text(&out).contains("not a retro table"),
        "{}",
        stderr_text(&out)
    );
}

#[test]
fn wrong_flags_are_errors() {
    let out = retro(&["gen", "--kinds", "dtm", "KRvK", "--bogus"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_text(&out).contains("--bogus"));
    let out = retro(&["gen", "--kinds", "dtm", "KRvK", "--board", "9x99"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_text(&out).contains("invalid board size"));
    let out = retro(&["stats", "--format", "xml"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn table1_builds_verifies_and_matches_the_paper_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    // Build, verify every table against the natural model, print the TSV.
    let out = retro(&["table1", "--dir", d, "--quiet", "--format", "tsv"]);
    assert!(
        out.status.success(),
        "{}{}",
        stdout_text(&out),
        stderr_text(&out)
    );
    let log = stderr_text(&out);
    assert_eq!(
        log.lines().filter(|l| l.contains("  PASS  ")).count(),
        25,
        "{log}"
    );
    assert!(!log.contains("FAIL"), "{log}");
    // All 45 rows, both sides, exactly as the paper (the crate's copy of
    // ../shared/data/hurd-table1.tsv, checked equal to it by the tablebase's unit tests).
    let paper = retro_tablebase::table1::paper();
    let ours = retro_tablebase::table1::parse_tsv(&stdout_text(&out)).unwrap();
    assert_eq!(paper.len(), 45);
    assert_eq!(ours, paper);
    // The text form, beside the paper's values.
    let text = stdout_text(&retro(&["table1", "--dir", d, "--quiet", "--skip-verify"]));
    assert!(
        text.contains("all 45 rows match the paper on both sides"),
        "{text}"
    );
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with('K')).collect();
    assert_eq!(rows.len(), 45);
    assert!(rows.iter().all(|r| !r.contains('≠')), "{text}");
}

/// `retro gen --core reference` writes the same files as the default fast core, and an unknown
/// core is refused with a message naming the choices.
#[test]
fn both_cores_write_the_same_files() {
    let fast = tempfile::tempdir().unwrap();
    let reference = tempfile::tempdir().unwrap();
    for (dir, core) in [(fast.path(), "fast"), (reference.path(), "reference")] {
        let out = common::retro(&[
            "gen",
            "--kinds",
            "dtm",
            "KRvKB",
            "KQvKN",
            "--board",
            "5x5",
            "--core",
            core,
            "--quiet",
            "--dir",
            dir.to_str().unwrap(),
        ]);
        assert!(out.status.success(), "{}", common::all_output(&out));
    }
    let mut compared = 0;
    for entry in std::fs::read_dir(fast.path()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        assert_eq!(
            std::fs::read(&path).unwrap(),
            std::fs::read(reference.path().join(name)).unwrap(),
            "{name:?}"
        );
        compared += 1;
    }
    assert!(compared >= 6, "{compared} files compared");
    let wrong = common::retro(&["gen", "--kinds", "dtm", "KRvK", "--core", "quick"]);
    assert!(!wrong.status.success());
    let message = common::stderr_text(&wrong);
    assert!(
        message.contains("quick") && message.contains("reference"),
        "{message}"
    );
}

/// Pawn tables: KPvK's longest win is 28 moves (55 plies) with White to move; a position whose
/// last move was a double step lists the en-passant capture with its value; `stats` counts the
/// positions with an en-passant target apart.
#[test]
fn pawn_tables_probe_and_count_en_passant_apart() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let out = retro(&["gen", "--kinds", "dtm", "KPvK", "--dir", d, "--quiet"]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    let stats = json(&retro(&["stats", "KPvK", "--dir", d, "--format", "json"]));
    let white = &stats[0]["white_to_move"];
    assert_eq!(white["longest_win"]["plies"], 55);
    assert_eq!(white["longest_win"]["moves"], 28);
    // A lone pawn cannot be taken en passant.
    assert_eq!(white["en_passant"]["legal"]["raw"], 0);

    let out = retro(&[
        "gen", "--kinds", "dtm", "KPvKP", "--board", "5x5", "--dir", d, "--quiet",
    ]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    let probe = json(&retro(&[
        "probe",
        "k4/5/5/1pP2/K4 w - b3 0 1",
        "--dir",
        d,
        "--json",
    ]));
    let moves = probe["moves"].as_array().unwrap();
    assert!(
        moves
            .iter()
            .any(|m| m["san"] == "cxb3" && m["uci"] == "c2b3"),
        "{probe}"
    );
    let tsv = stdout_text(&retro(&[
        "stats", "KPvKP", "--board", "5x5", "--dir", d, "--format", "tsv",
    ]));
    let header: Vec<&str> = tsv.lines().next().unwrap().split('\t').collect();
    let row: Vec<&str> = tsv.lines().nth(1).unwrap().split('\t').collect();
    let column = |name: &str| row[header.iter().position(|&h| h == name).unwrap()];
    let ep: Vec<u64> = ["ep_legal", "ep_win", "ep_draw", "ep_loss"]
        .iter()
        .map(|c| column(c).parse().unwrap())
        .collect();
    assert!(ep[0] > 0, "{tsv}");
    assert_eq!(ep[0], ep[1] + ep[2] + ep[3]);
}

#[test]
fn batch_answers_every_line_as_probe_does() {
    use std::io::Write;
    let lines = [
        "8/8/8/8/8/2k5/1R6/K7 w - - 0 1",
        "8/8/8/8/3k4/8/8/KQ6 w - - 0 1",
        "8/8/8/8/3k4/8/8/KQ6 b - - 0 1",
        "k7/8/1K6/8/8/8/8/7Q w - - bm Qh8; id \"epd\";",
        "not a fen",
        "8/8/8/8/3k4/8/8/KP6 w - - 0 1",
    ];
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(["probe", "--batch", "--dir", dir()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all((lines.join("\n") + "\n").as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    // Two lines fail (no FEN; no KPvK table): every line is answered, and the exit says so.
    assert_eq!(out.status.code(), Some(1));
    let answers: Vec<Json> = stdout_text(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), lines.len());
    for (line, answer) in lines.iter().zip(&answers) {
        let fen = line.split(" bm ").next().unwrap();
        let alone = retro(&["probe", fen, "--json", "--dir", dir()]);
        if answer.get("error").is_some() {
            assert!(
                !alone.status.success(),
                "{line}: batch failed, probe did not"
            );
            continue;
        }
        let alone = json(&alone);
        for key in ["fen", "material", "category", "dtm", "description"] {
            assert_eq!(answer[key], alone[key], "{line}: {key}");
        }
    }
}

/// A table whose build would take more memory than allowed is refused before any work, with
/// the figure it needs; nothing is written, not even its smaller tables.
#[test]
fn a_table_beyond_the_memory_limit_is_refused_before_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    // KQRvKQR needs about 19 GiB: 462 king pairs × 64⁴ slots, a byte each and side (14.4
    // GiB) and two bits of hints (3.6 GiB), its five-man tables and the chunks' code sets.
    let out = retro(&[
        "gen", "--kinds", "dtm", "KQRvKQR", "--dir", path, "--mem", "8G", "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr_text(&out));
    let err = stderr_text(&out);
    assert!(
        err.contains("building KQRvKQR needs about 19.") && err.contains("8.0 GiB"),
        "{err}"
    );
    // Six men with pawns: the White king on half the board and every square for a pawn; the
    // first table of the plan over the limit is named (here a promotion's).
    let out = retro(&[
        "gen", "--kinds", "dtm", "KRPvKRP", "--dir", path, "--mem", "20G", "--quiet",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr_text(&out).contains("needs about")
            && stderr_text(&out).contains("more than the 20.0 GiB"),
        "{}",
        stderr_text(&out)
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // A bad size is a usage error.
    let out = retro(&[
        "gen", "--kinds", "dtm", "KRvK", "--dir", path, "--mem", "lots",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_text(&out).contains("not a size"));
}

/// Six men end to end on a small board: built, verified, counted, probed with the best line.
#[test]
fn six_man_tables_build_verify_and_probe() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    let out = retro(&[
        "gen", "--kinds", "dtm", "KRNvKNN", "--board", "4x4", "--dir", path, "--quiet",
    ]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    let out = retro(&[
        "verify", "KRNvKNN", "--board", "4x4", "--dir", path, "--quiet",
    ]);
    assert!(out.status.success(), "{}", all_output(&out));
    assert!(
        stdout_text(&out).contains("all pass"),
        "{}",
        stdout_text(&out)
    );
    let stats = json(&retro(&[
        "stats", "KRNvKNN", "--board", "4x4", "--dir", path, "--format", "json",
    ]));
    let white = &stats[0]["white_to_move"];
    let count = |kind: &str| white[kind]["unique"].as_u64().unwrap();
    assert_eq!(
        count("win") + count("draw") + count("loss"),
        count("legal"),
        "every legal position is won, drawn or lost"
    );
    let longest = &white["longest_win"];
    let fen = longest["fen"].as_str().unwrap();
    let probe = json(&retro(&["probe", fen, "--dir", path, "--json", "--line"]));
    assert_eq!(probe["category"], "win");
    let plies = longest["plies"].as_i64().unwrap();
    assert_eq!(probe["dtm"].as_i64(), Some(plies));
    // The best line is the mate, a ply at a time.
    assert_eq!(probe["line"].as_array().unwrap().len() as i64, plies);
    // Packed, it answers the same and verifies again.
    let out = retro(&[
        "pack",
        "KRNvKNN",
        "--board",
        "4x4",
        "--dir",
        path,
        "--remove-raw",
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    assert!(!dir.path().join("KRNvKNN.4x4.rtb").exists());
    let packed = json(&retro(&["probe", fen, "--dir", path, "--json", "--line"]));
    assert_eq!(packed["dtm"], probe["dtm"]);
    assert_eq!(packed["line"], probe["line"]);
    let out = retro(&[
        "verify", "KRNvKNN", "--board", "4x4", "--dir", path, "--quiet",
    ]);
    assert!(
        stdout_text(&out).contains("all pass"),
        "{}",
        all_output(&out)
    );
    // The server and an oracle read the six-man table as they read the others.
    use axum::body::Body;
    use axum::http::Request;
    use tower::ServiceExt;
    let app = retro_server::router(std::sync::Arc::new(retro_server::AppState::new(dir.path())));
    let uri = format!("/api/probe?fen={}", fen.replace(' ', "%20"));
    let response = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(app.oneshot(Request::get(uri).body(Body::empty()).unwrap()))
        .unwrap();
    assert_eq!(response.status(), 200);
    let oracle = dir.path().join("six.oracle");
    let out = retro(&[
        "oracle",
        "build",
        fen,
        "--goal",
        "win",
        "--dir",
        path,
        "--out",
        oracle.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", all_output(&out));
    let out = retro(&["oracle", "check", oracle.to_str().unwrap(), "--dir", path]);
    assert!(out.status.success(), "{}", all_output(&out));
}

/// `retro stats --syzygy-stats` against the Syzygy generator's own statistics of KQvKR
/// (`rtbgen -s`, in `tests/syzygy/`): equal counts pass; one count changed, or the statistics
/// of another table, fail naming what differs.
#[test]
fn stats_compare_with_the_syzygy_generators_statistics() {
    let peer = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/syzygy/KQvKR.txt");
    let peer_arg = peer.to_str().unwrap();
    let out = retro(&["stats", "KQvKR", "--dir", dir(), "--syzygy-stats", peer_arg]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    assert!(
        stderr_text(&out).contains("counts equal to the Syzygy generator's"),
        "{}",
        stderr_text(&out)
    );
    let text = std::fs::read_to_string(&peer).unwrap();
    let draws = text
        .lines()
        .find(|l| l.ends_with("positions are draws."))
        .unwrap();
    let count: u64 = draws.split_whitespace().next().unwrap().parse().unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let changed = scratch.path().join("KQvKR.txt");
    std::fs::write(
        &changed,
        text.replacen(draws, &format!("{} positions are draws.", count + 1), 1),
    )
    .unwrap();
    let out = retro(&[
        "stats",
        "KQvKR",
        "--dir",
        dir(),
        "--syzygy-stats",
        changed.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(
        stderr_text(&out).contains("the counts differ"),
        "{}",
        stderr_text(&out)
    );
    let out = retro(&["stats", "KRvKN", "--dir", dir(), "--syzygy-stats", peer_arg]);
    assert!(!out.status.success());
    assert!(
        stderr_text(&out).contains("the statistics are of KQvKR, not KRvKN"),
        "{}",
        stderr_text(&out)
    );
    let out = retro(&[
        "stats",
        "KQvKR",
        "KRvK",
        "--dir",
        dir(),
        "--syzygy-stats",
        peer_arg,
    ]);
    assert!(!out.status.success());
    assert!(
        stderr_text(&out).contains("exactly one material"),
        "{}",
        stderr_text(&out)
    );
}
