//! A bounded load test on the loopback address: a fixed number of clients send probe requests,
//! a share of them bad ones the server must refuse, for a fixed time; then it stops by itself
//! and reports throughput, how each kind was answered, and latency percentiles of each.
//!
//! Owns: [`load_test`], [`LoadReport`], [`Latencies`], [`bad_requests`].

use std::net::SocketAddr;
use std::time::{Duration, Instant};

/// Requests a load test sends that the server must refuse with a 4xx answer: a malformed FEN,
/// an illegal position, no position, too many men, an unknown table and route, a hostile
/// path, and a query longer than the server reads.
pub fn bad_requests() -> Vec<String> {
    vec![
        "/api/probe?fen=not%20a%20fen".to_string(),
        "/api/probe?fen=8/8/8/8/8/8/8/Kk6%20w%20-%20-%200%201".to_string(),
        "/standard?fen=".to_string(),
        "/standard/mainline?fen=8/8/8/8/8/8/8/8_w_-_-_0_1".to_string(),
        "/api/probe?fen=rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR%20w%20-%20-%200%201"
            .to_string(),
        "/api/stats/KQQQQvK".to_string(),
        "/api/nothing/here".to_string(),
        "/assets/..%2f..%2fetc%2fpasswd".to_string(),
        format!("/api/probe?fen={}", "8".repeat(5000)),
    ]
}

/// Latencies in milliseconds, and their percentiles.
#[derive(Debug, Clone, Default)]
pub struct Latencies {
    /// Median.
    pub p50_ms: f64,
    /// 90th percentile.
    pub p90_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// Maximum.
    pub max_ms: f64,
}

impl Latencies {
    fn of(mut all: Vec<f64>) -> Latencies {
        all.sort_by(f64::total_cmp);
        let pick = |q: f64| {
            if all.is_empty() {
                0.0
            } else {
                all[((all.len() - 1) as f64 * q).round() as usize]
            }
        };
        Latencies {
            p50_ms: pick(0.5),
            p90_ms: pick(0.9),
            p99_ms: pick(0.99),
            max_ms: pick(1.0),
        }
    }
}

/// What a load test measured.
#[derive(Debug, Clone)]
pub struct LoadReport {
    /// Concurrent clients.
    pub clients: usize,
    /// Seconds it ran.
    pub seconds: f64,
    /// Good requests answered 200.
    pub ok: u64,
    /// Good requests answered otherwise, or failed.
    pub failed: u64,
    /// Bad requests answered with a 4xx status, as they must be.
    pub refused: u64,
    /// Bad requests answered otherwise (a 5xx, a 200, no answer).
    pub mishandled: u64,
    /// Latencies of the good requests.
    pub good: Latencies,
    /// Latencies of the bad requests.
    pub bad: Latencies,
}

impl LoadReport {
    /// Requests per second, good and bad.
    pub fn throughput(&self) -> f64 {
        (self.ok + self.failed + self.refused + self.mishandled) as f64 / self.seconds
    }
}

/// Sends `GET /api/probe?fen=…` for each of `fens` in turn from `clients` threads to the server
/// at `addr` for `duration`, every `bad_every`-th request of a client being one of
/// [`bad_requests`] instead (none when 0), then reports.
pub fn load_test(
    addr: SocketAddr,
    fens: &[String],
    clients: usize,
    duration: Duration,
    bad_every: usize,
) -> LoadReport {
    let start = Instant::now();
    let deadline = start + duration;
    let bad = bad_requests();
    // Per client: good answered, good failed, bad refused, bad mishandled, latencies.
    type Tally = ([u64; 4], Vec<f64>, Vec<f64>);
    let results: Vec<Tally> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..clients)
            .map(|client| {
                let bad = &bad;
                scope.spawn(move || {
                    let agent: ureq::Agent = ureq::Agent::config_builder()
                        .http_status_as_error(false)
                        .build()
                        .into();
                    let mut tally: Tally = ([0; 4], Vec::new(), Vec::new());
                    let mut k = client;
                    while Instant::now() < deadline {
                        k += 1;
                        let is_bad = bad_every > 0 && k % bad_every == 0;
                        let path = match is_bad {
                            true => bad[(k / bad_every) % bad.len()].clone(),
                            false => format!(
                                "/api/probe?fen={}",
                                fens[k % fens.len()].replace(' ', "%20")
                            ),
                        };
                        let sent = Instant::now();
                        let status = agent
                            .get(&format!("http://{addr}{path}"))
                            .call()
                            .ok()
                            .and_then(|mut r| {
                                r.body_mut().read_to_string().ok().map(|_| r.status())
                            });
                        let ms = sent.elapsed().as_secs_f64() * 1000.0;
                        let slot = match (is_bad, status) {
                            (false, Some(s)) if s.is_success() => 0,
                            (false, _) => 1,
                            (true, Some(s)) if s.is_client_error() => 2,
                            (true, _) => 3,
                        };
                        tally.0[slot] += 1;
                        match is_bad {
                            false => tally.1.push(ms),
                            true => tally.2.push(ms),
                        }
                    }
                    tally
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(([0, 1, 0, 0], Vec::new(), Vec::new())))
            .collect()
    });
    let seconds = start.elapsed().as_secs_f64();
    let count = |i: usize| results.iter().map(|r| r.0[i]).sum::<u64>();
    let (ok, failed, refused, mishandled) = (count(0), count(1), count(2), count(3));
    let mut good = Vec::new();
    let mut bad = Vec::new();
    for (_, g, b) in results {
        good.extend(g);
        bad.extend(b);
    }
    LoadReport {
        clients,
        seconds,
        ok,
        failed,
        refused,
        mishandled,
        good: Latencies::of(good),
        bad: Latencies::of(bad),
    }
}
