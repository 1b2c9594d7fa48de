//! Tables going bad under a running server: a table cut short after the server opened it, and
//! one damaged before it was opened, are answered with an error naming the file; the server
//! goes on answering from the other tables.

mod common;

use common::{serving, socket_get, status_of};
use retro_server::AppState;
use std::net::SocketAddr;

/// The status and body of `GET path`.
fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let answer = socket_get(addr, path);
    (status_of(&answer), answer)
}

const KQ_KR: &str = "/api/probe?fen=8/8/8/8/2r5/8/2k5/K6Q%20w%20-%20-%200%201";
const KR_KR: &str = "/api/probe?fen=8/8/8/8/1k6/8/2r5/K1R5%20w%20-%20-%200%201";
const KR_K: &str = "/api/probe?fen=8/8/8/8/2k5/8/1R6/K7%20w%20-%20-%200%201";

#[test]
fn a_table_cut_short_or_damaged_is_an_error_naming_it_and_the_server_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    retro_gen::Builder::new(retro_rules::Board::STANDARD, dir.path())
        .build(
            &["KQvKR", "KRvKR"].map(|m| retro_engine::Material::parse(m).unwrap()),
            &retro_gen::Silent,
        )
        .unwrap();
    let addr = serving(AppState::new(dir.path()));
    assert_eq!(get(addr, KQ_KR).0, 200);
    // Cut KQvKR short while the server has it open.
    let kqkr = dir.path().join("KQvKR.8x8.rtb");
    let length = std::fs::metadata(&kqkr).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&kqkr)
        .unwrap()
        .set_len(length / 2)
        .unwrap();
    let mut errors = 0;
    // Probes whose entries lie past the cut are errors naming the file; none takes the
    // server down.
    for fen in [
        "8/8/8/8/2r5/8/2k5/K6Q w - - 0 1",
        "8/8/8/8/2r5/8/2k5/K6Q b - - 0 1",
        "7k/8/8/8/8/8/r7/1Q5K b - - 0 1",
        "1q6/8/8/8/8/8/R7/k6K b - - 0 1",
    ] {
        let (status, body) = get(addr, &format!("/api/probe?fen={}", fen.replace(' ', "%20")));
        assert!(status == 200 || status == 500, "{body}");
        if status == 500 {
            errors += 1;
            assert!(
                body.contains("KQvKR.8x8.rtb") && body.contains("truncated"),
                "{body}"
            );
        }
    }
    assert!(errors > 0, "no probe reached past the cut");
    assert_eq!(get(addr, KR_K).0, 200);
    // Damage KRvKR before the server opens it.
    let krkr = dir.path().join("KRvKR.8x8.rtb");
    let mut bytes = std::fs::read(&krkr).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&krkr, bytes).unwrap();
    let (status, body) = get(addr, KR_KR);
    assert_eq!(status, 500, "{body}");
    assert!(body.contains("KRvKR.8x8.rtb"), "{body}");
    assert_eq!(get(addr, KR_K).0, 200);
}
