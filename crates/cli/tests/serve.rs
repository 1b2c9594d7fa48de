//! `retro serve`: it serves, logs and stops cleanly on SIGTERM; the bounded load test runs and
//! stops by itself; a bad address is a clear error. (The pages and the API are tested in
//! `crates/server/tests`.)

mod common;

use common::{retro_with_tables, serve, stderr_text, stdout_text};

#[test]
fn the_load_test_stops_by_itself() {
    let dir = tempfile::tempdir().unwrap();
    let out = retro_with_tables(
        &["serve", "--load-test", "--clients", "2", "--seconds", "1"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", stderr_text(&out));
    let text = stdout_text(&out);
    assert!(
        text.contains("requests/s") && text.contains("answered, 0 failed; latency p50"),
        "{text}"
    );
    // A request in five is a bad one; every one is refused with a 4xx answer.
    assert!(
        text.contains(" otherwise;") && !text.contains("bad: 0 refused"),
        "{text}"
    );
    assert!(text.contains("refused with 4xx, 0 otherwise"), "{text}");
}

#[test]
fn a_bad_address_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = retro_with_tables(&["serve", "--addr", "nowhere"], dir.path());
    assert!(!out.status.success());
    assert!(
        stderr_text(&out).contains("--addr"),
        "{}",
        stderr_text(&out)
    );
}

#[test]
fn it_serves_until_told_to_stop() {
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let (mut child, port) = serve(dir.path());
    // One request, answered and logged.
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .write_all(b"GET /api/probe HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    // SIGTERM: it finishes and exits cleanly.
    let status = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = child.wait().unwrap();
    assert!(exit.success(), "{exit:?}");
    let mut log = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut log)
        .unwrap();
    assert!(
        log.contains("GET /api/probe 400") && log.contains("shutting down"),
        "{log}"
    );
}
