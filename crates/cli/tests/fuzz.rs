//! Fuzzing on stable Rust, with proptest: FEN texts, table files (raw and packed), problem
//! files and HTTP requests to every route of `retro serve`, each drawn at random or mutated
//! from the corpus kept in `tests/fuzz-corpus/` (and `examples/freezer/`). Property: no panic,
//! and a clear error or an answer (the server: never a 500).
//!
//! `RETRO_FUZZ_CASES` sets the cases per target (256 in the test command); each target prints
//! the cases it ran. A case that once failed goes into the corpus.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

fn cases() -> u32 {
    std::env::var("RETRO_FUZZ_CASES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(256)
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: cases(),
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
    runner()
        .run(&text_from(&corpus("fen.txt")), |fen| {
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

/// KRvK and KPvK on 4×4 and 5×5 (raw, and KRvK packed), built once.
fn tables() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        for board in [
            retro_rules::Board::new(4, 4).unwrap(),
            retro_rules::Board::new(5, 5).unwrap(),
        ] {
            retro_gen::Builder::new(board, dir.path())
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
    ];
    let seeds: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    let originals = seeds.clone();
    let scratch = tempfile::tempdir().unwrap();
    let (refused, read) = (Cell::new(0), Cell::new(0));
    runner()
        .run(&(mutated(seeds), any::<bool>()), |(bytes, packed)| {
            let name = if packed {
                "KRvK.5x5.rtbz"
            } else {
                "KRvK.5x5.rtb"
            };
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
    runner()
        .run(&text_from(&seeds), |text| {
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
    runner()
        .run(
            &(
                text_from(&corpus("uri.txt")),
                prop::sample::select(methods.to_vec()),
            ),
            |(uri, method)| {
                let Ok(request) = Request::builder()
                    .method(method)
                    .uri(&uri)
                    .body(Body::empty())
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
