//! `retro serve`: the bounded load test runs and stops by itself; a bad address is a clear
//! error. (The pages and the API are tested in `crates/server/tests`.)

mod common;

use common::{retro_with_tables, stderr_text, stdout_text};

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
        text.contains("requests/s; 0 failed") && text.contains("p99"),
        "{text}"
    );
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
