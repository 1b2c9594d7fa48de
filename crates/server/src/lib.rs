//! # retro-server — the tables in a browser
//!
//! Owns: `retro serve`: the HTTP routes ([`router`]), the JSON API ([`api`]) and the pages with
//! their embedded assets ([`pages`]), graceful shutdown and a log line per request ([`serve`]),
//! the limits on connections and requests ([`limits`]), and a bounded load test ([`load`]).
//! Must never: panic on any input (a panic in a handler is caught and answered with 500), or
//! reach the internet at run time (every asset is compiled into the binary).
//!
//! ```
//! use axum::body::Body;
//! use axum::http::{Request, StatusCode};
//! use retro_server::{router, AppState};
//! use std::sync::Arc;
//! use tower::ServiceExt;
//! # let dir = tempfile::tempdir()?;
//! # retro_gen::Builder::new(retro_rules::Board::new(4, 4)?, dir.path())
//! #     .build(&[retro_engine::Material::parse("KRvK")?], &retro_gen::Silent)?;
//! // The JSON API over a directory holding KRvK on 4×4, without a socket.
//! let app = router(Arc::new(AppState::new(dir.path())));
//! let request = Request::get("/api/probe?fen=k3/4/1K2/3R%20w%20-%20-%200%201").body(Body::empty())?;
//! let response = tokio::runtime::Runtime::new()?.block_on(app.oneshot(request))?;
//! assert_eq!(response.status(), StatusCode::OK);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod api;
pub mod lichess;
pub mod limits;
pub mod load;
pub mod pages;

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use limits::{Gate, Limits};
use retro_rules::Board;
use retro_tablebase::{Directory, Tablebase};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// What every request shares: the tables directory, each board's tables opened once.
pub struct AppState {
    tables: Directory,
    limits: Limits,
}

impl AppState {
    /// The state for the tables in `dir`, with block caches of the tablebase's default size.
    pub fn new(dir: impl Into<PathBuf>) -> AppState {
        AppState {
            tables: Directory::new(dir),
            limits: Limits::default(),
        }
    }

    /// The same state with block caches of at most `bytes` bytes per board.
    pub fn with_cache_bytes(self, bytes: u64) -> AppState {
        AppState {
            tables: self.tables.with_cache_bytes(bytes),
            ..self
        }
    }

    /// The same state with other limits on connections and requests.
    pub fn with_limits(self, limits: Limits) -> AppState {
        AppState { limits, ..self }
    }

    /// The limits on connections and requests.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The tables directory.
    pub fn dir(&self) -> &std::path::Path {
        self.tables.dir()
    }

    /// The tables of `board`, opened once.
    pub fn tables(&self, board: Board) -> Arc<Tablebase> {
        self.tables.tables(board)
    }

    /// The directory's tables on every board.
    pub fn directory(&self) -> &Directory {
        &self.tables
    }
}

/// Every route: the API under `/api`, the pages, and their assets; a log line per request.
pub fn router(state: Arc<AppState>) -> Router {
    routes(state).layer(axum::middleware::from_fn(log_request))
}

/// The routes without the request log, behind the admission layer of the state's limits.
pub fn routes(state: Arc<AppState>) -> Router {
    let gate = Arc::new(Gate::new(state.limits));
    Router::new()
        .route("/standard", get(lichess::standard))
        .route("/standard/mainline", get(lichess::mainline))
        .route("/api/probe", get(api::probe))
        .route("/api/line", get(api::line))
        .route("/api/stats/{material}", get(api::stats))
        .route("/api/strategy/krk", get(api::strategy_krk))
        .route("/api/tables", get(api::tables))
        .route("/api/learn/{material}", get(api::learn))
        .route("/", get(pages::position_page))
        .route("/learn", get(pages::learn_page))
        .route("/learn/{material}", get(pages::learn_page))
        .route("/strategy/krk", get(pages::strategy_page))
        .route("/assets/{name}", get(pages::asset))
        .fallback(api::not_found)
        .with_state(state)
        .layer(tower_http::catch_panic::CatchPanicLayer::new())
        .layer(axum::middleware::from_fn_with_state(gate, limits::admit))
}

/// One line per request on standard error: method, path and query, status, milliseconds.
async fn log_request(request: Request, next: Next) -> Response {
    let start = Instant::now();
    let method = request.method().clone();
    let uri = request.uri().clone();
    let response = next.run(request).await;
    eprintln!(
        "{method} {uri} {} {:.1} ms",
        response.status().as_u16(),
        start.elapsed().as_secs_f64() * 1000.0
    );
    response
}

/// Serves the tables of `state` on `addr` until Ctrl-C (or SIGTERM), then finishes the
/// requests under way and returns; `log` writes a line per request. `ready` is called with the bound
/// address.
pub async fn serve(
    addr: SocketAddr,
    state: AppState,
    log: bool,
    ready: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    ready(listener.local_addr()?);
    let limits = state.limits;
    let state = Arc::new(state);
    let app = if log { router(state) } else { routes(state) };
    limits::serve_connections(listener, app, limits, shutdown_signal()).await;
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = terminate => {},
    }
    eprintln!("shutting down: finishing the requests under way");
}
