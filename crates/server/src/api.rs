//! The JSON API: probe, best line, statistics, the KRK strategy — in the shape `retro probe
//! --json` prints (the Lichess tablebase API's). Bad input is answered 400 with the message the
//! command line prints; a table that is not built, 404 with the command that builds it.
//!
//! Owns: the handlers and [`ApiError`].

use crate::AppState;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::Json;
use retro_engine::{Material, Position};
use retro_rules::Board;
use retro_strategy::{Krk, Strategy};
use retro_tablebase::report::{pgn_text, probe_json, stats_json};
use retro_tablebase::stats::material_stats;
use retro_tablebase::{ProbeError, Tablebase};
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;

/// An answer that is not a success.
#[derive(Debug)]
pub enum ApiError {
    /// 400: the request is wrong (the message says how).
    BadRequest(String),
    /// 404: no such table or page (the message says how to build it).
    NotFound(String),
    /// 500: a table file is damaged, or the work failed.
    Internal(String),
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let (status, message) = match self {
            ApiError::BadRequest(m) => (StatusCode::BAD_REQUEST, m),
            ApiError::NotFound(m) => (StatusCode::NOT_FOUND, m),
            ApiError::Internal(m) => (StatusCode::INTERNAL_SERVER_ERROR, m),
        };
        (status, Json(json!({ "error": message }))).into_response()
    }
}

impl From<ProbeError> for ApiError {
    fn from(e: ProbeError) -> ApiError {
        match e {
            ProbeError::NoTable { .. } => ApiError::NotFound(e.to_string()),
            ProbeError::Unsupported { .. } => ApiError::BadRequest(e.to_string()),
            _ => ApiError::Internal(e.to_string()),
        }
    }
}

/// `?fen=…`.
#[derive(Deserialize)]
pub struct FenQuery {
    pub(crate) fen: Option<String>,
}

pub(crate) fn required_fen(fen: Option<String>) -> Result<String, ApiError> {
    fen.filter(|f| !f.trim().is_empty())
        .ok_or_else(|| ApiError::BadRequest("the query needs a position: ?fen=…".into()))
}

/// A legal position from FEN, for the natural model and the engine, with its board's tables
/// (whose geometry, made once per board, serves the engine's position).
pub(crate) fn position(
    state: &AppState,
    fen: &str,
) -> Result<(retro_rules::Position, Position, Arc<Tablebase>), ApiError> {
    match state.directory().position(fen) {
        Ok((tb, natural, fast)) => Ok((natural, fast, tb)),
        Err(ProbeError::Fen(e)) => Err(ApiError::BadRequest(e.to_string())),
        Err(e) => Err(e.into()),
    }
}

/// Runs table work off the async threads.
pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ApiError::Internal(format!("the work failed: {e}")))?
}

/// Runs `work` off the async threads on the position of `fen` and its board's tables.
async fn on_position(
    state: Arc<AppState>,
    fen: Option<String>,
    work: impl FnOnce(&Tablebase, &retro_rules::Position, &Position, u32) -> Result<Value, ApiError>
        + Send
        + 'static,
) -> Result<Json<Value>, ApiError> {
    let fen = required_fen(fen)?;
    blocking(move || {
        let (natural, fast, tb) = position(&state, &fen)?;
        work(
            &tb,
            &natural,
            &fast,
            retro_tablebase::fifty::fen_clock(&fen),
        )
        .map(Json)
    })
    .await
}

/// `GET /api/probe?fen=…`: the value and every move rated, best first.
pub async fn probe(
    State(state): State<Arc<AppState>>,
    Query(q): Query<FenQuery>,
) -> Result<Json<Value>, ApiError> {
    on_position(state, q.fen, |tb, natural, fast, clock| {
        Ok(probe_json(tb, natural, fast, false, clock)?)
    })
    .await
}

/// `GET /api/line?fen=…`: the probe with the best line (UCI and SAN) and its PGN.
pub async fn line(
    State(state): State<Arc<AppState>>,
    Query(q): Query<FenQuery>,
) -> Result<Json<Value>, ApiError> {
    on_position(state, q.fen, |tb, natural, fast, clock| {
        let mut out = probe_json(tb, natural, fast, true, clock)?;
        if let Ok(value) = tb.value(fast) {
            let best = tb.best_line(fast)?;
            out["pgn"] = json!(pgn_text(natural, value, &best));
        }
        Ok(out)
    })
    .await
}

/// `?board=FxR`.
#[derive(Deserialize)]
pub struct BoardQuery {
    board: Option<String>,
}

/// A material (canonical: the stronger side White) and a board (default 8×8) from a request.
fn material_on_board(material: &str, board: Option<&str>) -> Result<(Material, Board), ApiError> {
    let parsed = Material::parse(material)
        .map_err(|e| ApiError::BadRequest(format!("unknown material '{material}': {e}")))?;
    let board: Board = match board {
        None => Board::STANDARD,
        Some(text) => text
            .parse()
            .map_err(|e| ApiError::BadRequest(format!("board '{text}': {e}")))?,
    };
    Ok((parsed.canonical().0, board))
}

/// `GET /api/stats/MATERIAL?board=8x8`: positions won, drawn and lost, longest wins, depths.
pub async fn stats(
    State(state): State<Arc<AppState>>,
    Path(material): Path<String>,
    Query(q): Query<BoardQuery>,
) -> Result<Json<Value>, ApiError> {
    blocking(move || {
        let (canonical, board) = material_on_board(&material, q.board.as_deref())?;
        let tb = state.tables(board);
        let stats = material_stats(&tb, canonical)?;
        Ok(Json(stats_json(&stats, board)))
    })
    .await
}

/// `GET /api/tables`: the tables in the directory, per board, smallest first.
pub async fn tables(State(state): State<Arc<AppState>>) -> Result<Json<Value>, ApiError> {
    blocking(move || {
        let mut found: Vec<(usize, String, String)> = Vec::new();
        let names = retro_format::table_names(state.dir()).map_err(|e| {
            ApiError::NotFound(format!("no tables: {e}; build some with `retro gen`"))
        })?;
        for name in names {
            if let Ok(m) = Material::parse(&name.material) {
                let board = format!("{}x{}", name.files, name.ranks);
                found.push((m.len(), name.material, board));
            }
        }
        found.sort();
        // A table present raw and packed is listed once.
        found.dedup();
        Ok(Json(json!(found
            .into_iter()
            .map(|(_, material, board)| json!({ "material": material, "board": board }))
            .collect::<Vec<_>>())))
    })
    .await
}

/// `GET /api/learn/MATERIAL?board=8x8`: what the learning page shows — the statistics, Hurd's
/// Table 1 rows for the material beside ours (8×8), the mutual zugzwangs with examples.
pub async fn learn(
    State(state): State<Arc<AppState>>,
    Path(material): Path<String>,
    Query(q): Query<BoardQuery>,
) -> Result<Json<Value>, ApiError> {
    blocking(move || {
        let (canonical, board) = material_on_board(&material, q.board.as_deref())?;
        let tb = state.tables(board);
        let stats = material_stats(&tb, canonical)?;
        let zugzwangs = retro_tablebase::stats::mutual_zugzwangs(&tb, canonical, 12)?;
        let mut table1 = Vec::new();
        if board == Board::STANDARD {
            for paper in retro_tablebase::table1::paper() {
                let Ok(m) = paper.material.parse::<Material>() else {
                    continue;
                };
                let (c, flipped) = m.canonical();
                if c == canonical {
                    let ours = retro_tablebase::table1::row(&paper.material, &stats, flipped);
                    let row = |r: &retro_tablebase::table1::Row| {
                        json!({
                            "material": r.material,
                            "wtm_max_moves": r.wtm_max, "wtm_win": r.wtm_win, "wtm_legal": r.wtm_legal,
                            "btm_max_moves": r.btm_max, "btm_win": r.btm_win, "btm_legal": r.btm_legal,
                        })
                    };
                    table1.push(json!({ "ours": row(&ours), "paper": row(&paper), "equal": ours == paper }));
                }
            }
        }
        Ok(Json(json!({
            "material": canonical.to_string(),
            "board": board.to_string(),
            "stats": stats_json(&stats, board),
            "table1": table1,
            "zugzwangs": {
                "draw_win": zugzwangs.draw_win,
                "loss_draw": zugzwangs.loss_draw,
                "loss_win": zugzwangs.loss_win,
                "total": zugzwangs.total(),
                "examples": zugzwangs.examples,
            },
        })))
    })
    .await
}

/// `?fen=…&board=N`.
#[derive(Deserialize)]
pub struct KrkQuery {
    fen: Option<String>,
    board: Option<u8>,
}

/// `GET /api/strategy/krk?fen=…&board=N`: the KRK strategy's move and its kind, beside the
/// table's best move where the KRvK table of that board is built.
pub async fn strategy_krk(
    State(state): State<Arc<AppState>>,
    Query(q): Query<KrkQuery>,
) -> Result<Json<Value>, ApiError> {
    let fen = required_fen(q.fen)?;
    blocking(move || {
        let p = Krk::from_fen(&fen).map_err(|e| ApiError::BadRequest(e.to_string()))?;
        if let Some(n) = q.board.filter(|&n| n != p.n) {
            return Err(ApiError::BadRequest(format!(
                "board={n}, but the FEN describes a {0}x{0} board",
                p.n
            )));
        }
        if !p.is_legal() {
            return Err(ApiError::BadRequest(format!(
                "'{fen}' is not a legal position (kings adjoining, or the side not to move in check)"
            )));
        }
        if p.wr.is_none() || !p.white_to_move {
            return Err(ApiError::BadRequest(
                "the strategy moves for White, with the rook on the board".into(),
            ));
        }
        let choice = Strategy::default().function(&p);
        // The table's moves, where the KRvK table of this board is built.
        let rated = position(&state, &p.fen())
            .ok()
            .and_then(|(_, fast, tb)| tb.rated_moves(&fast).ok());
        let optimal = rated.as_ref().and_then(|r| r.first()).map(|best| {
            json!({ "uci": best.uci, "san": best.san, "dtm": retro_tablebase::probe::signed_dtm(best.value) })
        });
        let san = choice.as_ref().and_then(|c| {
            let uci = c.mv.name();
            rated.as_ref()?.iter().find(|m| m.uci == uci).map(|m| m.san.clone())
        });
        Ok(Json(json!({
            "fen": p.fen(),
            "board": p.n,
            "move": choice.as_ref().map(|c| c.mv.name()),
            "san": san,
            "kind": choice.as_ref().map(|c| c.kind.name()),
            "after": choice.as_ref().map(|c| c.after.fen()),
            "optimal": optimal,
        })))
    })
    .await
}

/// Anything else: 404.
pub async fn not_found(uri: Uri) -> ApiError {
    ApiError::NotFound(format!("no such page: {}", uri.path()))
}
