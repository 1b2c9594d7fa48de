//! The pages and their assets, compiled into the binary (no internet at run time).
//!
//! Owns: [`position_page`], [`learn_page`], [`strategy_page`], [`asset`].

use crate::api::ApiError;
use axum::extract::Path;
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};

const POSITION_HTML: &str = include_str!("../assets/position.html");
const LEARN_HTML: &str = include_str!("../assets/learn.html");
const STRATEGY_HTML: &str = include_str!("../assets/strategy.html");
const ASSETS: &[(&str, &str, &str)] = &[
    (
        "position.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/position.js"),
    ),
    (
        "board.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/board.js"),
    ),
    (
        "strategy.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/strategy.js"),
    ),
    (
        "learn.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/learn.js"),
    ),
    (
        "retro.css",
        "text/css; charset=utf-8",
        include_str!("../assets/retro.css"),
    ),
    // chessground (GPL-3.0-or-later), vendored by assets/vendor/refresh-chessground.sh.
    (
        "chessground.min.js",
        "text/javascript; charset=utf-8",
        include_str!("../assets/vendor/chessground/chessground.min.js"),
    ),
    (
        "chessground.base.css",
        "text/css; charset=utf-8",
        include_str!("../assets/vendor/chessground/chessground.base.css"),
    ),
    (
        "chessground.brown.css",
        "text/css; charset=utf-8",
        include_str!("../assets/vendor/chessground/chessground.brown.css"),
    ),
    (
        "chessground.cburnett.css",
        "text/css; charset=utf-8",
        include_str!("../assets/vendor/chessground/chessground.cburnett.css"),
    ),
];

/// `GET /`: the position page (`?fen=…` selects the position).
pub async fn position_page() -> Html<&'static str> {
    Html(POSITION_HTML)
}

/// `GET /learn` and `GET /learn/MATERIAL`: the learning pages (the script reads the path).
pub async fn learn_page() -> Html<&'static str> {
    Html(LEARN_HTML)
}

/// `GET /strategy/krk?board=N&fen=…`: the KRK strategy beside the optimal moves.
pub async fn strategy_page() -> Html<&'static str> {
    Html(STRATEGY_HTML)
}

/// `GET /assets/NAME`: a script or style sheet.
pub async fn asset(Path(name): Path<String>) -> Result<Response, ApiError> {
    let (_, mime, body) = ASSETS
        .iter()
        .find(|(n, _, _)| *n == name)
        .ok_or_else(|| ApiError::NotFound(format!("no such asset: {name}")))?;
    Ok(([(header::CONTENT_TYPE, *mime)], *body).into_response())
}
