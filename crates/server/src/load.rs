//! A bounded load test on the loopback address: a fixed number of clients send probe requests
//! for a fixed time, then it stops by itself and reports throughput and latency percentiles.
//!
//! Owns: [`load_test`], [`LoadReport`].

use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// What a load test measured.
#[derive(Debug, Clone)]
pub struct LoadReport {
    /// Concurrent clients.
    pub clients: usize,
    /// Seconds it ran.
    pub seconds: f64,
    /// Requests answered 200.
    pub ok: u64,
    /// Requests answered otherwise, or failed.
    pub failed: u64,
    /// Latency percentiles in milliseconds: median, 90th, 99th, maximum.
    pub p50_ms: f64,
    /// 90th percentile.
    pub p90_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// Maximum.
    pub max_ms: f64,
}

impl LoadReport {
    /// Requests per second.
    pub fn throughput(&self) -> f64 {
        (self.ok + self.failed) as f64 / self.seconds
    }
}

/// Sends `GET /api/probe?fen=…` for each of `fens` in turn from `clients` threads to the server
/// at `addr` for `duration`, then reports.
pub fn load_test(
    addr: SocketAddr,
    fens: &[String],
    clients: usize,
    duration: Duration,
) -> LoadReport {
    let start = Instant::now();
    let deadline = start + duration;
    let results: Vec<(u64, u64, Vec<f64>)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..clients)
            .map(|client| {
                scope.spawn(move || {
                    let agent: ureq::Agent = ureq::Agent::config_builder()
                        .http_status_as_error(false)
                        .build()
                        .into();
                    let (mut ok, mut failed, mut latencies) = (0u64, 0u64, Vec::new());
                    let mut k = client;
                    while Instant::now() < deadline {
                        let fen = &fens[k % fens.len()];
                        k += 1;
                        let url =
                            format!("http://{addr}/api/probe?fen={}", fen.replace(' ', "%20"));
                        let sent = Instant::now();
                        let answered = agent
                            .get(&url)
                            .call()
                            .ok()
                            .filter(|r| r.status().is_success())
                            .and_then(|mut r| r.body_mut().read_to_string().ok());
                        latencies.push(sent.elapsed().as_secs_f64() * 1000.0);
                        if answered.is_some() {
                            ok += 1;
                        } else {
                            failed += 1;
                        }
                    }
                    (ok, failed, latencies)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or((0, 1, Vec::new())))
            .collect()
    });
    let seconds = start.elapsed().as_secs_f64();
    let ok = results.iter().map(|r| r.0).sum();
    let failed = results.iter().map(|r| r.1).sum();
    let mut all: Vec<f64> = results.into_iter().flat_map(|r| r.2).collect();
    all.sort_by(f64::total_cmp);
    let pick = |q: f64| {
        if all.is_empty() {
            0.0
        } else {
            all[((all.len() - 1) as f64 * q).round() as usize]
        }
    };
    LoadReport {
        clients,
        seconds,
        ok,
        failed,
        p50_ms: pick(0.5),
        p90_ms: pick(0.9),
        p99_ms: pick(0.99),
        max_ms: pick(1.0),
    }
}
