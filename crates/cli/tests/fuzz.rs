//! Fuzzing on stable Rust, with proptest: FEN texts, table files (raw and packed), oracle
//! files, certificates, saved Freezer analyses, problem files, HTTP requests to every route
//! of `retro serve` (paths, queries, methods, bodies), and builds and probes on boards of 1×1
//! to 16×16 from a tables directory missing, empty, or holding other boards' or this board's
//! tables, each drawn at random or mutated from the
//! corpus kept in `tests/fuzz-corpus/` (and `examples/freezer/`, and files the `retro` binary
//! writes). Property: no panic, no case longer than [`CASE_TIME`], and a clear error or an
//! answer (the server: never a 500). Files with a checksum are fuzzed twice over: as mutated,
//! and with the checksum made right again, so that the parser behind it is reached.
//!
//! `RETRO_FUZZ_CASES` sets the cases per target (256 in the test command), and
//! `RETRO_FUZZ_BOARD_CASES` those of the boards-and-directories target, whose cases build
//! tables; each target prints the cases it ran. A case that once failed goes into the corpus.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// The longest one case may take before the target is failed as hung.
const CASE_TIME: Duration = Duration::from_secs(30);

/// Fails the whole test process when one case runs past [`CASE_TIME`]: a hang is a failure
/// with a message, not a test that never ends.
struct Watchdog {
    started: Instant,
    last: Arc<AtomicU64>,
    done: Arc<AtomicU64>,
}

impl Watchdog {
    fn new(target: &'static str) -> Watchdog {
        let started = Instant::now();
        let last = Arc::new(AtomicU64::new(0));
        let done = Arc::new(AtomicU64::new(0));
        let (seen, finished) = (last.clone(), done.clone());
        std::thread::spawn(move || {
            while finished.load(Ordering::Relaxed) == 0 {
                std::thread::sleep(Duration::from_millis(200));
                let since = started.elapsed().as_millis() as u64 - seen.load(Ordering::Relaxed);
                if since > CASE_TIME.as_millis() as u64 {
                    eprintln!("fuzz {target}: a case ran longer than {CASE_TIME:?}: hung");
                    std::process::exit(101);
                }
            }
        });
        Watchdog {
            started,
            last,
            done,
        }
    }

    /// A new case starts.
    fn case(&self) {
        self.last
            .store(self.started.elapsed().as_millis() as u64, Ordering::Relaxed);
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.done.store(1, Ordering::Relaxed);
    }
}

/// `bytes` with its last 32 bytes made the blake3 hash of the others again (the checksum
/// oracle files and saved analyses end with).
fn rehashed(mut bytes: Vec<u8>) -> Vec<u8> {
    if bytes.len() >= 32 {
        let at = bytes.len() - 32;
        let hash = *blake3::hash(&bytes[..at]).as_bytes();
        bytes[at..].copy_from_slice(&hash);
    }
    bytes
}

fn cases() -> u32 {
    std::env::var("RETRO_FUZZ_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(256)
}

/// The cases of the boards-and-directories target, whose cases build tables: `RETRO_FUZZ_BOARD_CASES`,
/// else as many as the others.
fn board_cases() -> u32 {
    std::env::var("RETRO_FUZZ_BOARD_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(cases)
}

fn runner() -> TestRunner {
    runner_of(cases())
}

fn runner_of(cases: u32) -> TestRunner {
    TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    })
}

fn corpus(name: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fuzz-corpus")
        .join(name);
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// A seed's bytes changed: some bytes replaced, some cut, some inserted, and maybe truncated.
fn mutated(seeds: Vec<Vec<u8>>) -> impl Strategy<Value = Vec<u8>> {
    let edits = prop::collection::vec((any::<u16>(), any::<u8>(), 0u8..4), 0..8);
    (prop::sample::select(seeds), edits, any::<u16>()).prop_map(|(mut bytes, edits, cut)| {
        for (at, byte, kind) in edits {
            if bytes.is_empty() {
                bytes.push(byte);
                continue;
            }
            let at = usize::from(at) % bytes.len();
            match kind {
                0 => bytes[at] = byte,
                1 => {
                    bytes.remove(at);
                }
                2 => bytes.insert(at, byte),
                _ => bytes[at] ^= 1 << (byte % 8),
            }
        }
        if cut % 5 == 0 && !bytes.is_empty() {
            let keep = usize::from(cut) % bytes.len();
            bytes.truncate(keep);
        }
        bytes
    })
}

/// Random text, or a corpus text mutated.
fn text_from(seeds: &[String]) -> impl Strategy<Value = String> {
    let seeds: Vec<Vec<u8>> = seeds.iter().map(|s| s.clone().into_bytes()).collect();
    prop_oneof![
        "[ -~]{0,90}",
        mutated(seeds).prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}

#[test]
fn fen_texts_never_panic() {
    let ok = Cell::new(0);
    let dog = Watchdog::new("fen");
    runner()
        .run(&text_from(&corpus("fen.txt")), |fen| {
            dog.case();
            if retro_engine::fen::positions_of_fen(&fen).is_ok() {
                ok.set(ok.get() + 1);
            }
            let _ = retro_strategy::Krk::from_fen(&fen);
            Ok(())
        })
        .unwrap();
    println!(
        "fuzz fen: {} cases, {} legal positions, no panic",
        cases(),
        ok.get()
    );
}

/// KRvK and KPvK on 4×4 and 5×5, their DTM, DTZ50 and WDL50 tables (raw, and KRvK's DTM
/// packed), built once.
fn tables() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        for board in [
            retro_rules::Board::new(4, 4).unwrap(),
            retro_rules::Board::new(5, 5).unwrap(),
        ] {
            retro_gen::Builder::new(board, dir.path())
                .with_metrics(&[retro_gen::Metric::Dtm, retro_gen::Metric::Fifty])
                .build(
                    &[
                        retro_engine::Material::parse("KRvK").unwrap(),
                        retro_engine::Material::parse("KPvK").unwrap(),
                    ],
                    &retro_gen::Silent,
                )
                .unwrap();
        }
        let raw = dir.path().join("KRvK.5x5.rtb");
        let table = retro_format::Table::open(&raw).unwrap();
        let packed = dir.path().join("packed");
        std::fs::create_dir(&packed).unwrap();
        retro_format::pack(
            &table,
            &packed.join("KRvK.5x5.rtbz"),
            &[table.header().entries_per_side],
            &retro_format::PackOptions::default(),
        )
        .unwrap();
        dir
    })
    .path()
}

#[test]
fn damaged_table_files_never_panic() {
    let dir = tables();
    let files: Vec<PathBuf> = vec![
        dir.join("KRvK.4x4.rtb"),
        dir.join("KPvK.5x5.rtb"),
        dir.join("packed/KRvK.5x5.rtbz"),
        dir.join("KRvK.4x4.dtz50.rtb"),
        dir.join("KPvK.5x5.dtz50.rtb"),
        dir.join("KPvK.5x5.wdl50.rtb"),
    ];
    let seeds: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let originals = seeds.clone();
    let scratch = tempfile::tempdir().unwrap();
    let (refused, read) = (Cell::new(0), Cell::new(0));
    let dog = Watchdog::new("table files");
    runner()
        .run(&(mutated(seeds), 0..4usize), |(bytes, name)| {
            dog.case();
            let name = [
                "KRvK.5x5.rtbz",
                "KRvK.5x5.rtb",
                "KRvK.5x5.dtz50.rtb",
                "KRvK.5x5.wdl50.rtb",
            ][name];
            let path = scratch.path().join(name);
            std::fs::write(&path, &bytes).unwrap();
            match retro_format::Table::open(&path) {
                Err(e) => {
                    prop_assert!(!e.to_string().is_empty());
                    refused.set(refused.get() + 1);
                }
                Ok(table) => {
                    // Only a file its mutation left as it was may be accepted.
                    prop_assert!(originals.contains(&bytes), "a damaged file was accepted");
                    let entries = table.header().entries_per_side.min(4096);
                    for i in 0..entries {
                        let _ = table.value(true, i);
                        let _ = table.value(false, i);
                        let _ = table.dtz(true, i);
                        let _ = table.code(false, i);
                    }
                    read.set(read.get() + 1);
                }
            }
            Ok(())
        })
        .unwrap();
    println!(
        "fuzz table files: {} cases, {} refused with an error, {} unchanged by their mutation and read whole, no panic",
        cases(),
        refused.get(),
        read.get()
    );
}

#[test]
fn problem_files_never_panic() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/freezer");
    let mut seeds: Vec<String> = std::fs::read_dir(&examples)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    seeds.sort();
    let parsed = Cell::new(0);
    let dog = Watchdog::new("problem files");
    runner()
        .run(&text_from(&seeds), |text| {
            dog.case();
            if retro_freezer::Problem::parse(&text).is_ok() {
                parsed.set(parsed.get() + 1);
            }
            Ok(())
        })
        .unwrap();
    println!(
        "fuzz problem files: {} cases, {} parsed, no panic",
        cases(),
        parsed.get()
    );
}

#[test]
fn http_requests_never_panic_or_fail_inside() {
    use axum::body::Body;
    use axum::http::{Request, StatusCode};
    use tower::ServiceExt;
    let dir = tables();
    let app = retro_server::router(std::sync::Arc::new(retro_server::AppState::new(dir)));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let methods = ["GET", "POST", "HEAD", "PUT", "DELETE"];
    let statuses = RefCell::new(std::collections::BTreeMap::new());
    let dog = Watchdog::new("http");
    let body = prop_oneof![
        Just(Vec::new()),
        prop::collection::vec(any::<u8>(), 0..256),
        "[ -~]{0,64}".prop_map(String::into_bytes),
    ];
    runner()
        .run(
            &(
                text_from(&corpus("uri.txt")),
                prop::sample::select(methods.to_vec()),
                body,
            ),
            |(uri, method, body)| {
                dog.case();
                let Ok(request) = Request::builder()
                    .method(method)
                    .uri(&uri)
                    .body(Body::from(body))
                else {
                    return Ok(()); // not a URI at all: no request reaches the server
                };
                let status = runtime
                    .block_on(app.clone().oneshot(request))
                    .unwrap()
                    .status();
                prop_assert_ne!(
                    status,
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "{} {}",
                    method,
                    uri
                );
                *statuses.borrow_mut().entry(status.as_u16()).or_insert(0) += 1;
                Ok(())
            },
        )
        .unwrap();
    println!(
        "fuzz http: {} cases, statuses {:?}, no 500",
        cases(),
        statuses.borrow()
    );
}

/// Files the `retro` binary writes, in one directory built once: KRvK on 4×4 and its
/// certificates (`retro verify`), an oracle of a KRvK win on 4×4 (`retro oracle build`), and
/// the saved analysis of the Freezer's en-passant example (`retro freeze --save`) with the
/// KPvKP tables it reads.
fn written() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap().to_string();
        let retro = |args: &[&str]| {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_retro"))
                .args(args)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "retro {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr)
            );
        };
        retro(&[
            "gen", "--kinds", "dtm", "KRvK", "--board", "4x4", "--dir", &d, "--quiet",
        ]);
        retro(&["verify", "KRvK", "--board", "4x4", "--dir", &d, "--quiet"]);
        retro(&[
            "oracle",
            "build",
            "k3/4/1K2/3R w - - 0 1",
            "--goal",
            "win",
            "--dir",
            &d,
            "--out",
            &format!("{d}/krk.oracle"),
        ]);
        retro(&["gen", "--kinds", "dtm", "KPvKP", "--dir", &d, "--quiet"]);
        retro(&[
            "freeze",
            &en_passant().display().to_string(),
            "--dir",
            &d,
            "--save",
            &d,
        ]);
        dir
    })
    .path()
}

fn en_passant() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/freezer/en-passant.toml")
}

/// The one file of `dir` whose name ends with `suffix`.
fn file_ending(dir: &Path, suffix: &str) -> PathBuf {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(suffix))
        .unwrap_or_else(|| panic!("no file ending with {suffix} in {}", dir.display()))
}

#[test]
fn oracle_files_never_panic() {
    let dir = written();
    let original = std::fs::read(dir.join("krk.oracle")).unwrap();
    let checker = retro_verify::Checker::new(retro_rules::Board::new(4, 4).unwrap(), dir);
    let scratch = tempfile::tempdir().unwrap();
    let path = scratch.path().join("fuzzed.oracle");
    let (refused, checked, valid) = (Cell::new(0), Cell::new(0), Cell::new(0));
    let dog = Watchdog::new("oracle files");
    runner()
        .run(
            &(mutated(vec![original.clone()]), any::<bool>()),
            |(bytes, fix_checksum)| {
                dog.case();
                let bytes = if fix_checksum { rehashed(bytes) } else { bytes };
                match retro_format::oracle::OracleFile::from_bytes(&bytes, &path) {
                    Err(e) => {
                        prop_assert!(!e.to_string().is_empty());
                        refused.set(refused.get() + 1);
                    }
                    Ok(file) => {
                        checked.set(checked.get() + 1);
                        match retro_verify::oracle::check_oracle(&file, &checker) {
                            Ok(_) => valid.set(valid.get() + 1),
                            Err(e) => prop_assert!(!e.to_string().is_empty()),
                        }
                    }
                }
                Ok(())
            },
        )
        .unwrap();
    println!(
        "fuzz oracle files: {} cases, {} refused by the reader, {} read and checked ({} valid), no panic",
        cases(),
        refused.get(),
        checked.get(),
        valid.get()
    );
}

#[test]
fn certificates_never_panic() {
    let dir = written();
    let certificate = file_ending(dir, "KRvK.4x4.verified");
    let original = std::fs::read_to_string(&certificate).unwrap();
    // A directory of its own: the tables linked, the certificate replaced case by case.
    let scratch = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.contains(".4x4.") {
            std::fs::copy(&path, scratch.path().join(&name)).unwrap();
        }
    }
    let board = retro_rules::Board::new(4, 4).unwrap();
    let men = retro_verify::men::Men::parse("KRvK").unwrap();
    let (established, refused) = (Cell::new(0), Cell::new(0));
    let dog = Watchdog::new("certificates");
    runner()
        .run(&text_from(&[original]), |text| {
            dog.case();
            std::fs::write(scratch.path().join("KRvK.4x4.verified"), &text).unwrap();
            // A fresh checker a case: nothing of the last case's files is kept.
            let checker = retro_verify::Checker::new(board, scratch.path());
            match retro_verify::certificate::established(&checker, &men) {
                Ok(None) => established.set(established.get() + 1),
                Ok(Some(reason)) => {
                    prop_assert!(!reason.is_empty());
                    refused.set(refused.get() + 1);
                }
                Err(e) => {
                    prop_assert!(!e.to_string().is_empty());
                    refused.set(refused.get() + 1);
                }
            }
            Ok(())
        })
        .unwrap();
    println!(
        "fuzz certificates: {} cases, {} refused with a reason, {} still establishing the table, no panic",
        cases(),
        refused.get(),
        established.get()
    );
}

#[test]
fn saved_freezer_analyses_never_panic() {
    let dir = written();
    let saved = file_ending(dir, "en-passant.freeze");
    let original = std::fs::read(&saved).unwrap();
    let text = std::fs::read_to_string(en_passant()).unwrap();
    let problem = retro_freezer::Problem::parse(&text).unwrap();
    let tables = retro_tablebase::Tablebase::new(retro_rules::Board::STANDARD, dir);
    let scratch = tempfile::tempdir().unwrap();
    let path = scratch.path().join("fuzzed.freeze");
    let (refused, loaded) = (Cell::new(0), Cell::new(0));
    let dog = Watchdog::new("saved analyses");
    runner()
        .run(
            &(mutated(vec![original.clone()]), any::<bool>()),
            |(bytes, fix_checksum)| {
                dog.case();
                let bytes = if fix_checksum { rehashed(bytes) } else { bytes };
                std::fs::write(&path, &bytes).unwrap();
                match retro_freezer::saved::load(&problem, &tables, &text, &path) {
                    Ok(Some(_)) => loaded.set(loaded.get() + 1),
                    Ok(None) => prop_assert!(false, "the file was there"),
                    Err(e) => {
                        prop_assert!(!e.to_string().is_empty());
                        refused.set(refused.get() + 1);
                    }
                }
                Ok(())
            },
        )
        .unwrap();
    println!(
        "fuzz saved analyses: {} cases, {} refused with an error, {} loaded, no panic",
        cases(),
        refused.get(),
        loaded.get()
    );
}

/// The materials the boards-and-directories target builds and probes.
const BOARD_MATERIALS: [&str; 5] = ["KvK", "KRvK", "KPvK", "KNvKP", "KQvKR"];

/// The most entries a side a case of the boards-and-directories target builds (past it, the
/// case works out the build's figures and probes, but builds nothing).
const BUILT_ENTRIES: u64 = 40_000;

/// A FEN of `files` × `ranks` with `material`'s men on the squares `picks` choose (the first
/// free square from each pick), `black` to move, or `None` where the board is too small.
fn placed_fen(
    files: u8,
    ranks: u8,
    material: retro_engine::Material,
    picks: &[u16],
    black: bool,
) -> Option<String> {
    use retro_rules::{Piece, Side};
    let count = usize::from(files) * usize::from(ranks);
    let men = material.men();
    if men.len() > count {
        return None;
    }
    let mut board: Vec<Option<char>> = vec![None; count];
    for (k, &(side, piece)) in men.iter().enumerate() {
        let mut sq = usize::from(picks[k % picks.len()]) % count;
        while board[sq].is_some() {
            sq = (sq + 1) % count;
        }
        let letter = match piece {
            Piece::King => 'k',
            Piece::Queen => 'q',
            Piece::Rook => 'r',
            Piece::Bishop => 'b',
            Piece::Knight => 'n',
            Piece::Pawn => 'p',
        };
        board[sq] = Some(match side {
            Side::White => letter.to_ascii_uppercase(),
            Side::Black => letter,
        });
    }
    let rows: Vec<String> = (0..usize::from(ranks))
        .rev()
        .map(|rank| {
            let (mut row, mut empty) = (String::new(), 0);
            for file in 0..usize::from(files) {
                match board[rank * usize::from(files) + file] {
                    None => empty += 1,
                    Some(man) => {
                        if empty > 0 {
                            row += &empty.to_string();
                            empty = 0;
                        }
                        row.push(man);
                    }
                }
            }
            if empty > 0 {
                row += &empty.to_string();
            }
            row
        })
        .collect();
    let side = if black { 'b' } else { 'w' };
    Some(format!("{} {side} - - 0 1", rows.join("/")))
}

#[test]
fn boards_and_directories_never_panic() {
    // The board (1×1 to 16×16), the material, the tables directory's state (missing, empty,
    // holding other boards' tables, holding this board's), the core, and a position.
    let case = (
        1u8..=16,
        1u8..=16,
        0..BOARD_MATERIALS.len(),
        0u8..4,
        any::<bool>(),
        prop::collection::vec(any::<u16>(), 1..6),
        any::<bool>(),
    );
    let (built, refused, probed) = (Cell::new(0), Cell::new(0), Cell::new(0));
    let dog = Watchdog::new("boards and directories");
    runner_of(board_cases())
        .run(
            &case,
            |(files, ranks, pick, state, reference, squares, black)| {
                dog.case();
                let board =
                    retro_rules::Board::new(usize::from(files), usize::from(ranks)).unwrap();
                let material = retro_engine::Material::parse(BOARD_MATERIALS[pick]).unwrap();
                let root = tempfile::tempdir().unwrap();
                let dir = root.path().join("tables");
                if state >= 1 {
                    std::fs::create_dir(&dir).unwrap();
                }
                if state >= 2 {
                    for entry in std::fs::read_dir(tables()).unwrap() {
                        let path = entry.unwrap().path();
                        if path.is_file() {
                            std::fs::copy(&path, dir.join(path.file_name().unwrap())).unwrap();
                        }
                    }
                }
                let core = match reference {
                    true => retro_gen::CoreKind::Reference,
                    false => retro_gen::CoreKind::Fast,
                };
                let builder = retro_gen::Builder::new(board, &dir).with_core(core);
                let geo = retro_engine::Geometry::new(board);
                let small = retro_engine::Indexer::new(&geo, material)
                    .is_ok_and(|i| i.size() <= BUILT_ENTRIES);
                if state == 3 && small {
                    // The directory holds this board's tables before the case starts.
                    let _ = builder.build(&[material], &retro_gen::Silent);
                }
                if let Ok(plan) = builder.plan(&[material]) {
                    for &m in &plan {
                        let _ = retro_gen::memory_needed(&geo, m, core);
                        let _ = retro_gen::disk_needed(&geo, m, core);
                    }
                }
                if small {
                    let done = builder.build(&[material], &retro_gen::Silent);
                    match &done {
                        Ok(_) => built.set(built.get() + 1),
                        Err(e) => {
                            prop_assert!(!e.to_string().is_empty());
                            refused.set(refused.get() + 1);
                        }
                    }
                    // What was built is proved from the natural model.
                    if done.is_ok() {
                        let checker = retro_verify::Checker::new(board, &dir);
                        let name = material.to_string();
                        if let Ok(plan) = checker.plan(&[name.as_str()]) {
                            for men in &plan {
                                let report = checker.check(men, &|_| {});
                                prop_assert!(
                                    report.as_ref().is_ok_and(|r| r.passed()),
                                    "{} on {}: {:?}",
                                    name,
                                    board,
                                    report.err()
                                );
                            }
                        }
                    }
                }
                let tb = retro_tablebase::Tablebase::new(board, &dir);
                if let Some(fen) = placed_fen(files, ranks, material, &squares, black) {
                    match tb.position_from_fen(&fen) {
                        Ok(p) => {
                            if tb.value(&p).is_ok() {
                                probed.set(probed.get() + 1);
                            }
                            let _ = tb.rated_moves(&p);
                            let _ = tb.best_line(&p);
                        }
                        Err(e) => prop_assert!(!e.to_string().is_empty()),
                    }
                }
                let _ = retro_tablebase::stats::material_stats(&tb, material);
                Ok(())
            },
        )
        .unwrap();
    println!(
        "fuzz boards and directories: {} cases, {} builds, {} refused with an error, {} positions valued, no panic",
        board_cases(),
        built.get(),
        refused.get(),
        probed.get()
    );
}
