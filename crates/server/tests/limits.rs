//! The server's limits over real sockets: a long query is answered 414, a body 413, a client
//! past its share of requests 429, a server past its share 503, a client past its share of
//! connections 429 at once, a client too slow with its headers is cut off — and the server
//! goes on answering others throughout.

mod common;

use common::{exchange, serving, socket_get, status_of};
use retro_server::limits::Limits;
use retro_server::AppState;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::time::{Duration, Instant};

/// A position of KQvKR whose best line is long (many probes an answer).
const LONG_LINE: &str = "/api/line?fen=8/8/8/8/2r5/8/2k5/K6Q%20w%20-%20-%200%201";

/// The server over `dir` with `limits`, on a free loopback port, in a thread of its own.
fn start(dir: &Path, limits: Limits) -> SocketAddr {
    serving(AppState::new(dir).with_limits(limits))
}

fn get(addr: SocketAddr, path: &str) -> String {
    socket_get(addr, path)
}

fn status(answer: &str) -> u16 {
    status_of(answer)
}

fn tables() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    retro_gen::Builder::new(retro_rules::Board::STANDARD, dir.path())
        .build(
            &[retro_engine::Material::parse("KQvKR").unwrap()],
            &retro_gen::Silent,
        )
        .unwrap();
    dir
}

/// `clients` requests of `path` at once, each on its own connection; their statuses.
fn at_once(addr: SocketAddr, path: &str, clients: usize) -> Vec<u16> {
    let barrier = std::sync::Barrier::new(clients);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..clients)
            .map(|_| {
                let barrier = &barrier;
                scope.spawn(move || {
                    barrier.wait();
                    status(&get(addr, path))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

#[test]
fn requests_past_the_limits_are_refused_with_their_status() {
    let dir = tables();
    let addr = start(dir.path(), Limits::default());
    let long = format!("/api/probe?fen={}", "8".repeat(5000));
    let answer = get(addr, &long);
    assert_eq!(status(&answer), 414, "{answer}");
    assert!(answer.contains("at most 4096"), "{answer}");
    let answer = exchange(
        addr,
        b"GET /api/probe HTTP/1.1\r\nHost: retro\r\nContent-Length: 1000000\r\nConnection: close\r\n\r\nxxxx",
    );
    assert_eq!(status(&answer), 413, "{answer}");
    let answer = get(addr, LONG_LINE);
    assert_eq!(status(&answer), 200, "{answer}");
}

#[test]
fn a_client_past_its_share_gets_429_and_a_full_server_503() {
    let dir = tables();
    let per_client = Limits {
        in_flight_per_client: 1,
        ..Limits::default()
    };
    let addr = start(dir.path(), per_client);
    let statuses = at_once(addr, LONG_LINE, 24);
    assert!(
        statuses.iter().all(|s| *s == 200 || *s == 429),
        "{statuses:?}"
    );
    assert!(
        statuses.contains(&429) && statuses.contains(&200),
        "{statuses:?}"
    );
    let answer = get(addr, LONG_LINE);
    assert_eq!(status(&answer), 200, "{answer}");

    let whole = Limits {
        in_flight: 1,
        ..Limits::default()
    };
    let addr = start(dir.path(), whole);
    let statuses = at_once(addr, LONG_LINE, 24);
    assert!(
        statuses.iter().all(|s| *s == 200 || *s == 503),
        "{statuses:?}"
    );
    assert!(
        statuses.contains(&503) && statuses.contains(&200),
        "{statuses:?}"
    );
    let answer = get(addr, LONG_LINE);
    assert!(
        answer.contains("retry-after") || status(&answer) == 200,
        "{answer}"
    );
}

#[test]
fn connections_past_a_clients_share_are_turned_away() {
    let dir = tables();
    let limits = Limits {
        connections_per_client: 2,
        ..Limits::default()
    };
    let addr = start(dir.path(), limits);
    let idle: Vec<TcpStream> = (0..2).map(|_| TcpStream::connect(addr).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(200));
    let answer = get(addr, "/api/tables");
    assert_eq!(status(&answer), 429, "{answer}");
    assert!(answer.contains("connections open"), "{answer}");
    drop(idle);
    // Their places are given back when they close.
    let deadline = Instant::now() + Duration::from_secs(5);
    while status(&get(addr, "/api/tables")) != 200 {
        assert!(Instant::now() < deadline, "the places were not given back");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_client_slow_with_its_headers_is_cut_off_while_others_are_served() {
    let dir = tables();
    let limits = Limits {
        header_time: Duration::from_millis(500),
        ..Limits::default()
    };
    let addr = start(dir.path(), limits);
    let mut slow = TcpStream::connect(addr).unwrap();
    slow.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    slow.write_all(b"GET /api/tables HTTP/1.1\r\nHost: re")
        .unwrap();
    let started = Instant::now();
    // Others are answered meanwhile.
    assert_eq!(status(&get(addr, "/api/tables")), 200);
    let mut answer = Vec::new();
    let _ = slow.read_to_end(&mut answer);
    let waited = started.elapsed();
    assert!(
        waited < Duration::from_secs(5),
        "the slow client held its connection for {waited:?}"
    );
    let answer = String::from_utf8_lossy(&answer);
    assert!(!answer.contains("200 OK"), "{answer}");
}
