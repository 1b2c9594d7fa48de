//! `retro serve --load-test`: a bounded load test of the server on a loopback port.
//!
//! Owns: the clients, their requests (one in five a bad one) and the figures printed. Must
//! never: serve anything itself (that is `retro_server`).

use anyhow::{Context, Result};
use retro_rules::Board;
use std::process::ExitCode;

/// `retro serve --load-test`: the server on a free loopback port, `clients` threads probing
/// 3- and 4-man positions for `seconds`, then throughput and latency.
pub(crate) fn serve_load_test(
    dir: &std::path::Path,
    clients: usize,
    seconds: u64,
) -> Result<ExitCode> {
    const FENS: [&str; 8] = [
        "8/8/8/8/8/2k5/1R6/K7 w - - 0 1",
        "8/8/8/8/8/8/1Rk5/K7 b - - 0 1",
        "8/8/2k5/8/8/8/8/3QK3 w - - 0 1",
        "8/8/3k4/8/8/8/8/3QK3 b - - 0 1",
        "3r4/8/2k5/8/8/8/8/3QK3 w - - 0 1",
        "8/3r4/8/2k5/8/8/5Q2/6K1 b - - 0 1",
        "8/8/2k5/8/8/8/1r6/R3K3 w - - 0 1",
        "r7/8/2k5/8/8/8/8/R3K3 b - - 0 1",
    ];
    let materials: Vec<retro_engine::Material> = ["KRvK", "KQvK", "KQvKR", "KRvKR"]
        .iter()
        .map(|m| retro_engine::Material::parse(m).expect("a material"))
        .collect();
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    retro_gen::Builder::new(Board::STANDARD, dir)
        .build(&materials, &retro_gen::Silent)
        .context("building the tables the load test probes")?;
    let (tx, rx) = std::sync::mpsc::channel();
    let served = dir.to_path_buf();
    std::thread::spawn(move || {
        let Ok(runtime) = tokio::runtime::Runtime::new() else {
            return;
        };
        let _ = runtime.block_on(retro_server::serve(
            "127.0.0.1:0".parse().expect("an address"),
            retro_server::AppState::new(served),
            false,
            move |addr| {
                let _ = tx.send(addr);
            },
        ));
    });
    let addr = rx
        .recv_timeout(std::time::Duration::from_secs(10))
        .context("the server did not start")?;
    let fens: Vec<String> = FENS.iter().map(|f| f.to_string()).collect();
    // One request in five is a bad one the server must refuse (see `bad_requests`).
    const BAD_EVERY: usize = 5;
    println!(
        "load test: {clients} clients probing http://{addr}/api/probe for {seconds} s, one request in {BAD_EVERY} a bad one (request log off)"
    );
    let report = retro_server::load::load_test(
        addr,
        &fens,
        clients,
        std::time::Duration::from_secs(seconds),
        BAD_EVERY,
    );
    let (good, bad) = (&report.good, &report.bad);
    println!(
        "{} requests in {:.1} s: {:.0} requests/s",
        report.ok + report.failed + report.refused + report.mishandled,
        report.seconds,
        report.throughput(),
    );
    println!(
        "good: {} answered, {} failed; latency p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        report.ok, report.failed, good.p50_ms, good.p90_ms, good.p99_ms, good.max_ms
    );
    println!(
        "bad: {} refused with 4xx, {} otherwise; latency p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        report.refused, report.mishandled, bad.p50_ms, bad.p90_ms, bad.p99_ms, bad.max_ms
    );
    Ok(if report.failed == 0 && report.mishandled == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
