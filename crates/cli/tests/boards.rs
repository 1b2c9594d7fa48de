//! Every command that builds or reads tables — `gen`, `probe`, `stats`, `verify`,
//! `strategy krk` and `play`, `serve`'s API, `freeze`, `oracle build` — on boards from 1×1 to
//! 16×16, with the tables directory missing, empty, or holding other boards' tables: each
//! answers with a value or a clear error (exit 0 or 1, `error: …`), never a panic.
//!
//! Each command runs from the directory's starting state; the commands that only read run
//! again once the board's tables are built, so that both their answers are reached.

mod common;

use common::{serve, stderr_text, stdout_text};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// What the tables directory holds when a command starts.
#[derive(Debug, Clone, Copy)]
enum DirState {
    /// The directory does not exist.
    Missing,
    /// It exists and holds nothing.
    Empty,
    /// It holds KRvK and KvK on 5×5 and 7×7 (boards no test runs on).
    OtherBoards,
}

const STATES: [DirState; 3] = [DirState::Missing, DirState::Empty, DirState::OtherBoards];

/// KRvK and KvK on 5×5 and 7×7, built once.
fn other_boards() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        for board in ["5x5", "7x7"] {
            let out = retro_in(
                dir.path(),
                &["gen", "--kinds", "dtm", "KRvK", "--board", board, "--quiet"],
            );
            assert!(out.status.success(), "{}", stderr_text(&out));
        }
        dir
    })
    .path()
}

/// A fresh tables directory in `state`, under `root`.
fn prepare(root: &Path, state: DirState) -> PathBuf {
    let dir = root.join("tables");
    let _ = std::fs::remove_dir_all(&dir);
    match state {
        DirState::Missing => {}
        DirState::Empty => std::fs::create_dir(&dir).unwrap(),
        DirState::OtherBoards => {
            std::fs::create_dir(&dir).unwrap();
            for entry in std::fs::read_dir(other_boards()).unwrap() {
                let path = entry.unwrap().path();
                std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
            }
        }
    }
    dir
}

/// `retro args…` with `dir` as its tables directory (`$RETRO_TABLES`).
fn retro_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(args)
        .env("RETRO_TABLES", dir)
        .output()
        .expect("the binary runs")
}

/// The command answered with a value (exit 0) or a clear error (exit 1, `error: …`), and did
/// not panic. Returns whether it answered.
fn settled(out: &Output, what: &str) -> bool {
    let stderr = stderr_text(out);
    assert!(!stderr.contains("panicked"), "{what}: panicked\n{stderr}");
    match out.status.code() {
        Some(0) => true,
        Some(1) => {
            assert!(
                stderr.contains("error: ") && stderr.trim().len() > "error: ".len(),
                "{what}: exit 1 without an error naming what is wrong\n{stderr}"
            );
            false
        }
        code => panic!("{what}: exit {code:?}\n{}{stderr}", stdout_text(out)),
    }
}

/// FEN of `files` × `ranks` with the white king on a1, a white rook on b3 where the board has
/// that square and the black king in the far corner (White to move): KRvK where it fits, an
/// illegal or smaller position elsewhere.
fn fen(files: u8, ranks: u8) -> String {
    let mut board = vec![vec![None; usize::from(files)]; usize::from(ranks)];
    board[0][0] = Some('K');
    if files >= 2 && ranks >= 3 {
        board[2][1] = Some('R');
    }
    let far = &mut board[usize::from(ranks) - 1][usize::from(files) - 1];
    if far.is_none() {
        *far = Some('k');
    }
    let rows: Vec<String> = board
        .iter()
        .rev()
        .map(|row| {
            let (mut text, mut empty) = (String::new(), 0);
            for square in row {
                match square {
                    None => empty += 1,
                    Some(man) => {
                        if empty > 0 {
                            text += &empty.to_string();
                            empty = 0;
                        }
                        text.push(*man);
                    }
                }
            }
            if empty > 0 {
                text += &empty.to_string();
            }
            text
        })
        .collect();
    format!("{} w - - 0 1", rows.join("/"))
}

/// The Freezer problem of `fen`: the white king kept to the squares a1 to c3, the rook (on b3
/// where there is one) to the b-file, so that its index stays small on every board.
fn problem(fen: &str, files: u8, ranks: u8) -> String {
    let mut text = format!(
        "title = \"boards\"\nfen = \"{fen}\"\n\n[[man]]\non = \"a1\"\nsquares = [\"a1-c3\"]\nelsewhere = \"loss\"\n"
    );
    if files >= 2 && ranks >= 3 {
        text += "\n[[man]]\non = \"b3\"\nsquares = [\"b1-b3\"]\nelsewhere = \"loss\"\n";
    }
    text
}

/// The commands that only read tables, from `dir` as it is.
fn readers(dir: &Path, scratch: &Path, files: u8, ranks: u8, label: &str) {
    let board = format!("{files}x{ranks}");
    let fen = fen(files, ranks);
    let d = dir.to_str().unwrap();
    let problem_file = scratch.join("problem.toml");
    std::fs::write(&problem_file, problem(&fen, files, ranks)).unwrap();
    let oracle_file = scratch.join("krvk.oracle");
    let runs: Vec<(&str, Vec<String>)> = vec![
        ("probe", vec!["probe".into(), fen.clone(), "--line".into()]),
        (
            "probe --json",
            vec!["probe".into(), fen.clone(), "--json".into()],
        ),
        (
            "stats",
            vec![
                "stats".into(),
                "KRvK".into(),
                "--board".into(),
                board.clone(),
            ],
        ),
        (
            "verify",
            vec![
                "verify".into(),
                "KRvK".into(),
                "--board".into(),
                board.clone(),
                "--quiet".into(),
            ],
        ),
        (
            "freeze",
            vec![
                "freeze".into(),
                problem_file.display().to_string(),
                "--dir".into(),
                d.into(),
                "--quiet".into(),
            ],
        ),
        (
            "oracle build",
            vec![
                "oracle".into(),
                "build".into(),
                fen.clone(),
                "--goal".into(),
                "win".into(),
                "--dir".into(),
                d.into(),
                "--out".into(),
                oracle_file.display().to_string(),
                "--exact".into(),
                "0".into(),
                "--improve".into(),
                "0".into(),
                "--quiet".into(),
            ],
        ),
    ];
    let mut runs = runs;
    if files == ranks {
        runs.push((
            "strategy play",
            vec![
                "strategy".into(),
                "play".into(),
                fen.clone(),
                "--quiet".into(),
            ],
        ));
    }
    for (what, args) in runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = retro_in(dir, &args);
        settled(&out, &format!("{label}: retro {what}"));
    }
    serve_api(dir, &fen, &board, label);
}

/// `retro serve` over `dir`: each route that reads tables answers, 2xx or 4xx, never 5xx.
fn serve_api(dir: &Path, fen: &str, board: &str, label: &str) {
    let (mut child, port) = serve(dir);
    let fen = fen.replace(' ', "%20");
    let n = board.split('x').next().unwrap();
    let routes = [
        format!("/api/probe?fen={fen}"),
        format!("/api/line?fen={fen}"),
        format!("/standard?fen={fen}"),
        format!("/standard/mainline?fen={fen}"),
        format!("/api/stats/KRvK?board={board}"),
        format!("/api/learn/KRvK?board={board}"),
        format!("/api/strategy/krk?fen={fen}&board={n}"),
        "/api/tables".to_string(),
    ];
    for route in &routes {
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        write!(
            stream,
            "GET {route} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        let status = answer.split(' ').nth(1).unwrap_or("");
        assert!(
            status.starts_with('2') || status.starts_with('4'),
            "{label}: GET {route}: {}",
            answer.lines().next().unwrap_or("no answer")
        );
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Every command on the board of `files` × `ranks`, from each state of the directory.
fn every_command_on(files: u8, ranks: u8) {
    let board = format!("{files}x{ranks}");
    for state in STATES {
        let label = format!("{board}, directory {state:?}");
        let root = tempfile::tempdir().unwrap();
        let scratch = root.path().join("scratch");
        std::fs::create_dir(&scratch).unwrap();
        let dir = prepare(root.path(), state);
        readers(&dir, &scratch, files, ranks, &label);
        if files == ranks {
            // The strategy's check builds the KRvK table it needs (boards of 4 to 40).
            let out = retro_in(
                &dir,
                &[
                    "strategy",
                    "krk",
                    "--board",
                    &files.to_string(),
                    "--format",
                    "tsv",
                ],
            );
            if (4..=40).contains(&files) {
                assert!(
                    settled(&out, &format!("{label}: retro strategy krk")),
                    "{label}: strategy krk: {}",
                    stderr_text(&out)
                );
                let text = stdout_text(&out);
                assert!(
                    text.lines()
                        .any(|row| row.starts_with(&format!("{board}\t"))),
                    "{text}"
                );
            } else {
                // Outside the strategy's range, clap refuses the flag's value (exit 2).
                assert_eq!(out.status.code(), Some(2), "{label}: {}", stderr_text(&out));
                assert!(stderr_text(&out).contains("out of range"));
            }
        }
        let dir = prepare(root.path(), state);
        let out = retro_in(
            &dir,
            &[
                "gen", "--kinds", "dtm", "KRvK", "--board", &board, "--quiet",
            ],
        );
        assert!(
            settled(&out, &format!("{label}: retro gen")),
            "{label}: gen: {}",
            stderr_text(&out)
        );
        // With the board's tables built, the readers answer from them.
        readers(
            &dir,
            &scratch,
            files,
            ranks,
            &format!("{label}, tables built"),
        );
        let fen = fen(files, ranks);
        let probe = retro_in(&dir, &["probe", &fen]);
        if files >= 2 && ranks >= 3 {
            assert!(probe.status.success(), "{label}: {}", stderr_text(&probe));
            assert!(stdout_text(&probe).contains("White to move"));
        }
    }
}

#[test]
fn every_command_on_1x1() {
    every_command_on(1, 1);
}

#[test]
fn every_command_on_3x5() {
    every_command_on(3, 5);
}

#[test]
fn every_command_on_8x8() {
    every_command_on(8, 8);
}

#[test]
fn every_command_on_9x9() {
    every_command_on(9, 9);
}

#[test]
fn every_command_on_15x15() {
    every_command_on(15, 15);
}

#[test]
fn every_command_on_16x16() {
    every_command_on(16, 16);
}

#[test]
fn the_positions_are_of_their_boards() {
    assert_eq!(fen(3, 5), "2k/3/1R1/3/K2 w - - 0 1");
    assert_eq!(fen(1, 1), "K w - - 0 1");
    assert_eq!(
        fen(16, 16).split('/').next(),
        Some("15k"),
        "{}",
        fen(16, 16)
    );
}
