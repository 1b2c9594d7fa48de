//! Requests through the router without a network, for the API tests, and over real sockets to
//! a server in a thread of its own, for the tests of its limits and faults.
#![allow(dead_code)]

use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use retro_server::{router, AppState};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;
use tower::ServiceExt;

/// The status and body text of `GET uri` over the tables in `dir`.
pub async fn get(dir: &Path, uri: &str) -> (StatusCode, String) {
    let app = router(Arc::new(AppState::new(dir)));
    let response = app
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

/// The status and JSON body of `GET uri` (null when the body is not JSON).
pub async fn get_json(dir: &Path, uri: &str) -> (StatusCode, Value) {
    let (status, text) = get(dir, uri).await;
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

/// The server of `state` on a free loopback port, in a thread of its own; its address.
pub fn serving(state: AppState) -> std::net::SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let _ = runtime.block_on(retro_server::serve(
            "127.0.0.1:0".parse().unwrap(),
            state,
            false,
            move |addr| tx.send(addr).unwrap(),
        ));
    });
    rx.recv_timeout(std::time::Duration::from_secs(10)).unwrap()
}

/// Sends `raw` on a new connection and reads until the server closes it (at most 10 s).
pub fn exchange(addr: std::net::SocketAddr, raw: &[u8]) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    stream.write_all(raw).unwrap();
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

/// `GET path` with `Connection: close` over a socket: the whole answer, status line first.
pub fn socket_get(addr: std::net::SocketAddr, path: &str) -> String {
    exchange(
        addr,
        format!("GET {path} HTTP/1.1\r\nHost: retro\r\nConnection: close\r\n\r\n").as_bytes(),
    )
}

/// The status code of an answer read off a socket (0 if there is none).
pub fn status_of(answer: &str) -> u16 {
    answer
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}
