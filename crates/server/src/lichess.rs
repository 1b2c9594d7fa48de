//! The Lichess tablebase API, as lila-tablebase documents it: `GET /standard?fen=…` and
//! `GET /standard/mainline?fen=…`, so that a client of tablebase.lichess.ovh can point at
//! `retro serve` unchanged.
//!
//! Owns: the mapping from `retro`'s values to lila-tablebase's fields — `category` (`win`,
//! `draw`, `loss` for the side to move: depth to mate ignores the fifty-move rule, so the
//! cursed, blessed and maybe categories never occur), `dtm` in signed plies (positive when the
//! side to move wins), `dtz` and `precise_dtz` always null (these tables hold no distance to
//! zeroing), the position's flags, and its moves best first.
//! Must never: answer a value the tables do not hold (a missing table is a 404, as there).

use crate::api::{ApiError, FenQuery};
use crate::AppState;
use axum::extract::{Query, State};
use axum::Json;
use retro_engine::{Geometry, Position};
use retro_rules::{Piece, Side};
use retro_tablebase::probe::{category, signed_dtm};
use retro_tablebase::{RatedMove, Tablebase};
use serde_json::{json, Value};
use std::sync::Arc;

/// Neither side can mate by any series of legal moves, as Lichess counts it: no pawn, rook or
/// queen, and at most one minor piece, or only bishops, all on squares of one colour.
fn insufficient_material(geo: &Geometry, p: &Position) -> bool {
    let minors: Vec<_> = p.men().iter().filter(|m| m.piece != Piece::King).collect();
    if minors
        .iter()
        .any(|m| matches!(m.piece, Piece::Pawn | Piece::Rook | Piece::Queen))
    {
        return false;
    }
    let colour = |sq| (geo.file(sq) + geo.rank(sq)) % 2;
    minors.len() <= 1
        || (minors.iter().all(|m| m.piece == Piece::Bishop)
            && minors.iter().all(|m| colour(m.sq) == colour(minors[0].sq)))
}

/// Whether a move changes the material (a capture or a promotion): its value comes from
/// another table.
fn conversion(before: &Position, m: &RatedMove) -> bool {
    before.material() != m.after.material()
}

/// Whether a move resets the fifty-move count: a capture or a pawn move.
fn zeroing(before: &Position, m: &RatedMove) -> bool {
    let pawns = |p: &Position| {
        let mut squares: Vec<_> = p
            .men()
            .iter()
            .filter(|m| m.piece == Piece::Pawn)
            .map(|m| (m.side, m.sq))
            .collect();
        squares.sort();
        squares
    };
    conversion(before, m) || pawns(before) != pawns(&m.after)
}

/// The position of a query's FEN (underscores for spaces, as lila-tablebase allows) and its
/// board's tables.
fn position_of(
    state: &AppState,
    fen: Option<String>,
) -> Result<(Arc<Tablebase>, Position), ApiError> {
    let fen = crate::api::required_fen(fen)?.replace('_', " ");
    let (_, position, tb) = crate::api::position(state, &fen)?;
    Ok((tb, position))
}

/// The fields a position and a move share.
fn flags(geo: &Geometry, p: &Position) -> Value {
    json!({
        "checkmate": p.is_checkmate(geo),
        "stalemate": p.is_stalemate(geo),
        "variant_win": false,
        "variant_loss": false,
        "insufficient_material": insufficient_material(geo, p),
    })
}

/// lila-tablebase's answer for a position.
fn standard_json(tb: &Tablebase, p: &Position) -> Result<Value, ApiError> {
    let geo = tb.geometry();
    let value = tb.value(p)?;
    let moves: Vec<Value> = tb
        .rated_moves(p)?
        .iter()
        .map(|m| {
            let mut out = flags(geo, &m.after);
            out["uci"] = json!(m.uci);
            out["san"] = json!(m.san);
            out["dtz"] = Value::Null;
            out["precise_dtz"] = Value::Null;
            out["dtm"] = json!(signed_dtm(m.value));
            out["zeroing"] = json!(zeroing(p, m));
            out["conversion"] = json!(conversion(p, m));
            out["category"] = json!(category(m.value));
            out
        })
        .collect();
    let mut out = flags(geo, p);
    out["dtz"] = Value::Null;
    out["precise_dtz"] = Value::Null;
    out["dtm"] = json!(signed_dtm(value));
    out["category"] = json!(category(value));
    out["moves"] = json!(moves);
    Ok(out)
}

/// lila-tablebase's main line: the best line (fastest mate against the longest defence, where
/// lila-tablebase gives its distance-to-zeroing line), empty when drawn, and the winner.
fn mainline_json(tb: &Tablebase, p: &Position) -> Result<Value, ApiError> {
    let value = tb.value(p)?;
    let winner = match value {
        retro_tablebase::Value::Win(_) => Some(p.side_to_move()),
        retro_tablebase::Value::Loss(_) => Some(retro_rules::opponent(p.side_to_move())),
        _ => None,
    };
    let line = match winner {
        Some(_) => tb.best_line(p)?,
        None => Vec::new(),
    };
    Ok(json!({
        "dtz": Value::Null,
        "mainline": line
            .iter()
            .map(|m| json!({ "uci": m.uci, "san": m.san, "dtz": Value::Null }))
            .collect::<Vec<_>>(),
        "winner": winner.map(|s| if s == Side::White { "w" } else { "b" }),
    }))
}

/// `GET /standard?fen=…`.
pub async fn standard(
    State(state): State<Arc<AppState>>,
    Query(q): Query<FenQuery>,
) -> Result<Json<Value>, ApiError> {
    crate::api::blocking(move || {
        let (tb, p) = position_of(&state, q.fen)?;
        standard_json(&tb, &p).map(Json)
    })
    .await
}

/// `GET /standard/mainline?fen=…`.
pub async fn mainline(
    State(state): State<Arc<AppState>>,
    Query(q): Query<FenQuery>,
) -> Result<Json<Value>, ApiError> {
    crate::api::blocking(move || {
        let (tb, p) = position_of(&state, q.fen)?;
        mainline_json(&tb, &p).map(Json)
    })
    .await
}
