//! What `retro serve` takes on, and what it answers beyond that: connections in all and per
//! client, requests under way in all and per client, the size of a request's path and query
//! and of its body, and how long a client may take to send its headers or the server to answer.
//!
//! Owns: [`Limits`], the admission layer every route goes through ([`admit`]: 413, 414, 429,
//! 503) and the connection loop ([`serve_connections`]: connections refused past their limits,
//! headers read within a time, connections closed after a lifetime).
//! Must never: let one client, or a slow one, hold what the others need for longer than these
//! limits say; or refuse a request without a JSON body saying which limit it met.

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use serde_json::json;
use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tower::ServiceExt;

/// The limits of one server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Open connections in all; more are answered 503 and closed.
    pub connections: usize,
    /// Open connections from one address; more are answered 429 and closed.
    pub connections_per_client: usize,
    /// Requests under way in all; more are answered 503.
    pub in_flight: usize,
    /// Requests under way from one address; more are answered 429.
    pub in_flight_per_client: usize,
    /// Bytes of a request's path and query; longer is answered 414.
    pub uri_bytes: usize,
    /// Bytes of a request's body (no route reads one); more is answered 413.
    pub body_bytes: u64,
    /// Time a client has to send a request's headers; then the connection is closed.
    pub header_time: Duration,
    /// Time a request may take to be answered; then it is answered 503.
    pub answer_time: Duration,
    /// Time a connection may stay open, however it is used; then it is closed.
    pub connection_time: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            connections: 1024,
            connections_per_client: 128,
            in_flight: 256,
            in_flight_per_client: 32,
            uri_bytes: 4096,
            body_bytes: 16 << 10,
            header_time: Duration::from_secs(10),
            answer_time: Duration::from_secs(60),
            connection_time: Duration::from_secs(600),
        }
    }
}

/// Counts per client address; each place is given back when its [`Ticket`] is dropped.
#[derive(Default, Clone)]
struct PerClient {
    counts: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

/// A client's place in a [`PerClient`] count.
struct Ticket {
    counts: Arc<Mutex<HashMap<IpAddr, usize>>>,
    ip: IpAddr,
}

impl PerClient {
    /// A place for `ip`, unless it already holds `most`.
    fn enter(&self, ip: IpAddr, most: usize) -> Option<Ticket> {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let count = counts.entry(ip).or_insert(0);
        if *count >= most {
            return None;
        }
        *count += 1;
        Some(Ticket {
            counts: self.counts.clone(),
            ip,
        })
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(count) = counts.get_mut(&self.ip) {
            *count -= 1;
            if *count == 0 {
                counts.remove(&self.ip);
            }
        }
    }
}

/// What the admission layer shares between requests.
pub struct Gate {
    limits: Limits,
    in_flight: Arc<Semaphore>,
    clients: PerClient,
}

impl Gate {
    /// A gate with nothing under way.
    pub fn new(limits: Limits) -> Gate {
        Gate {
            limits,
            in_flight: Arc::new(Semaphore::new(limits.in_flight)),
            clients: PerClient::default(),
        }
    }
}

/// A refusal: the status, a JSON body naming the limit, and `Retry-After` where waiting helps.
fn refusal(status: StatusCode, message: String) -> Response {
    let mut response = (status, Json(json!({ "error": message }))).into_response();
    if matches!(
        status,
        StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE
    ) {
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    response
}

/// The admission layer: 414 for a path and query longer than the limit, 413 for a body (no
/// route takes one beyond the limit), 429 when the client has its share of requests under
/// way, 503 when the server has; 503 again when the answer takes longer than its time (the
/// work goes on off the async threads, but its place is given back).
pub async fn admit(State(gate): State<Arc<Gate>>, request: Request, next: Next) -> Response {
    let limits = gate.limits;
    let uri_bytes = request
        .uri()
        .path_and_query()
        .map_or(0, |p| p.as_str().len());
    if uri_bytes > limits.uri_bytes {
        return refusal(
            StatusCode::URI_TOO_LONG,
            format!(
                "the request's path and query are {uri_bytes} bytes; the server reads at most {}",
                limits.uri_bytes
            ),
        );
    }
    let headers = request.headers();
    let length = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok());
    if length.is_some_and(|n| n > limits.body_bytes)
        || (length.is_none() && headers.contains_key(header::TRANSFER_ENCODING))
    {
        return refusal(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "the request's body is larger than the {} bytes the server takes (no route reads a body)",
                limits.body_bytes
            ),
        );
    }
    let client = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    let _ticket = match client {
        Some(ip) => match gate.clients.enter(ip, limits.in_flight_per_client) {
            Some(ticket) => Some(ticket),
            None => {
                return refusal(
                    StatusCode::TOO_MANY_REQUESTS,
                    format!(
                        "{ip} has {} requests under way, the most one client may have; try again when one is answered",
                        limits.in_flight_per_client
                    ),
                )
            }
        },
        None => None,
    };
    let Ok(_place) = gate.in_flight.clone().try_acquire_owned() else {
        return refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "the server has {} requests under way, the most it takes; try again shortly",
                limits.in_flight
            ),
        );
    };
    match tokio::time::timeout(limits.answer_time, next.run(request)).await {
        Ok(response) => response,
        Err(_) => refusal(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "the answer took longer than {} s, the most the server gives one request",
                limits.answer_time.as_secs_f64()
            ),
        ),
    }
}

/// Answers a connection the server will not serve with `status` and closes it, without
/// waiting on the client for more than a second.
fn turn_away(mut stream: TcpStream, status: StatusCode, message: String) {
    tokio::spawn(async move {
        let body = json!({ "error": message }).to_string();
        let head = format!(
            "HTTP/1.1 {} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nretry-after: 1\r\nconnection: close\r\n\r\n",
            status.as_u16(),
            status.canonical_reason().unwrap_or(""),
            body.len()
        );
        let write = async {
            stream.write_all(head.as_bytes()).await?;
            stream.write_all(body.as_bytes()).await?;
            stream.shutdown().await
        };
        let _ = tokio::time::timeout(Duration::from_secs(1), write).await;
    });
}

/// Serves `app` on `listener` within `limits` until `shutdown` completes; then lets the
/// requests under way finish (for at most the answer time) and returns. Each request carries
/// its client's address (`ConnectInfo<SocketAddr>`) for the admission layer.
pub async fn serve_connections(
    listener: TcpListener,
    app: Router,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) {
    use hyper_util::rt::{TokioIo, TokioTimer};
    use hyper_util::service::TowerToHyperService;
    let connections = Arc::new(Semaphore::new(limits.connections));
    let clients = PerClient::default();
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                // Out of file descriptors, or a connection reset before it was taken: wait a
                // moment rather than spin.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Ok(place) = connections.clone().try_acquire_owned() else {
            turn_away(
                stream,
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "the server has {} connections open, the most it takes",
                    limits.connections
                ),
            );
            continue;
        };
        let Some(ticket) = clients.enter(peer.ip(), limits.connections_per_client) else {
            turn_away(
                stream,
                StatusCode::TOO_MANY_REQUESTS,
                format!(
                    "{} has {} connections open, the most one client may have",
                    peer.ip(),
                    limits.connections_per_client
                ),
            );
            continue;
        };
        let _ = stream.set_nodelay(true);
        let service =
            app.clone()
                .map_request(move |mut request: Request<hyper::body::Incoming>| {
                    request.extensions_mut().insert(ConnectInfo(peer));
                    request.map(Body::new)
                });
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_time)
            .serve_connection(TokioIo::new(stream), TowerToHyperService::new(service));
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            let _ = tokio::time::timeout(limits.connection_time, connection).await;
            drop((place, ticket));
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(limits.answer_time, graceful.shutdown()).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_holds_at_most_its_share_and_gives_it_back() {
        let clients = PerClient::default();
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        let other: IpAddr = "127.0.0.2".parse().unwrap();
        let first = clients.enter(ip, 2).unwrap();
        let second = clients.enter(ip, 2).unwrap();
        assert!(clients.enter(ip, 2).is_none());
        assert!(clients.enter(other, 2).is_some());
        drop(first);
        let third = clients.enter(ip, 2).unwrap();
        drop((second, third));
        assert!(clients.counts.lock().unwrap().is_empty());
    }
}
