//! The Lichess tablebase API, as lila-tablebase documents it: `GET /standard?fen=…` and
//! `GET /standard/mainline?fen=…`, so that a client of tablebase.lichess.ovh can point at
//! `retro serve` unchanged.
//!
//! Owns: the mapping from `retro`'s values to lila-tablebase's fields — `category` (`win`,
//! `cursed-win`, `draw`, `blessed-loss`, `loss` for the side to move, from the DTZ50 table and
//! the FEN's halfmove clock as lila-tablebase takes it from Syzygy's DTZ; from depth to mate,
//! `win`, `draw` or `loss`, where only a DTM table is there), `dtz` and `precise_dtz` in
//! signed plies (exact: the same number, never rounded; 0 for a checkmated position, whose
//! distance is none; null without a DTZ50 table), `dtm` in signed plies (null without a DTM
//! table), the position's flags, its moves best first in lila-tablebase's order, and the main
//! line that follows DTZ50 until mate or the defender's claim.
//! Must never: answer a value the tables do not hold (a missing table is a 404, as there).

use crate::api::{ApiError, FenQuery};
use crate::AppState;
use axum::extract::{Query, State};
use axum::Json;
use retro_engine::{Geometry, Position};
use retro_format::Wdl;
use retro_rules::{Piece, Side};
use retro_tablebase::fifty::{class_rank, piece_rank, Fifty, FiftyMove};
use retro_tablebase::probe::{category, signed_dtm};
use retro_tablebase::Tablebase;
use serde_json::{json, Value};
use std::cmp::Reverse;
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

/// The position of a query's FEN (underscores for spaces, as lila-tablebase allows), its
/// board's tables and its halfmove clock.
fn position_of(
    state: &AppState,
    fen: Option<String>,
) -> Result<(Arc<Tablebase>, Position, u32), ApiError> {
    let fen = crate::api::required_fen(fen)?.replace('_', " ");
    let (_, position, tb) = crate::api::position(state, &fen)?;
    Ok((tb, position, retro_tablebase::fifty::fen_clock(&fen)))
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

/// A position's values as lila-tablebase names them: `category`, `dtz`, `precise_dtz`, `dtm`.
fn values(out: &mut Value, dtm: Option<retro_tablebase::Value>, fifty: Option<Fifty>, clock: u32) {
    let class = fifty.map(|f| f.class_at(clock));
    out["category"] = json!(match (class, dtm) {
        (Some(c), _) => c.name(),
        (None, Some(v)) => category(v),
        (None, None) => "unknown",
    });
    let dtz = fifty.map(|f| f.signed());
    out["dtz"] = json!(dtz);
    out["precise_dtz"] = json!(dtz);
    out["dtm"] = json!(dtm.and_then(signed_dtm));
}

/// A move of a position with what it leads to, by either metric.
struct Rated {
    uci: String,
    san: String,
    after: Position,
    dtm: Option<retro_tablebase::Value>,
    fifty: Option<FiftyMove>,
    zeroing: bool,
    conversion: bool,
}

impl Rated {
    /// The class left to the opponent: under the rule where there is a DTZ50 table.
    fn class(&self) -> Wdl {
        match (&self.fifty, self.dtm) {
            (Some(f), _) => f.class(),
            (None, Some(retro_tablebase::Value::Win(_))) => Wdl::Win,
            (None, Some(retro_tablebase::Value::Loss(_))) => Wdl::Loss,
            _ => Wdl::Draw,
        }
    }

    /// lila-tablebase's order of moves, best first: by the class left to the opponent (its
    /// loss first), mates first, then stalemates and dead positions, then by depth to mate
    /// (the quickest mate, the longest resistance), then (winning) conversions and zeroing
    /// moves first and the smallest distance to zeroing left, (otherwise) the largest, then
    /// captures and promotions of larger pieces first.
    fn key(&self, geo: &Geometry) -> impl Ord {
        let class = self.class();
        let positive = matches!(class, Wdl::Win | Wdl::CursedWin);
        let rank = class_rank(class);
        let dtm = self.dtm.and_then(signed_dtm);
        let piece = |p: Option<Piece>| p.map(piece_rank);
        let fifty = self.fifty.as_ref();
        (
            rank,
            Reverse(self.after.is_checkmate(geo)),
            (
                Reverse(self.after.is_stalemate(geo)),
                Reverse(insufficient_material(geo, &self.after)),
            ),
            (
                Reverse(dtm.filter(|m| *m < 0)),
                dtm.filter(|m| *m > 0).map(Reverse),
            ),
            self.conversion ^ !positive,
            (
                self.zeroing ^ !positive,
                fifty.map(|f| Reverse(f.value.signed())),
            ),
            (
                Reverse(fifty.and_then(|f| piece(f.capture))),
                Reverse(fifty.and_then(|f| piece(f.promotion))),
            ),
        )
    }
}

/// The moves of `p` at halfmove clock `clock` with their values, in lila-tablebase's order
/// (ties in SAN order).
fn rated(
    tb: &Tablebase,
    p: &Position,
    clock: u32,
    dtm: bool,
    fifty: bool,
) -> Result<Vec<Rated>, ApiError> {
    let geo = tb.geometry();
    let mut fifty_moves = match fifty {
        true => tb.fifty_moves(p, clock)?,
        false => Vec::new(),
    };
    let mut moves: Vec<Rated> = match dtm {
        true => tb
            .rated_moves(p)?
            .into_iter()
            .map(|m| {
                let found = fifty_moves.iter().position(|f| f.uci == m.uci);
                Rated {
                    zeroing: zeroing(p, &m.after),
                    conversion: p.material() != m.after.material(),
                    fifty: found.map(|k| fifty_moves.swap_remove(k)),
                    uci: m.uci,
                    san: m.san,
                    after: m.after,
                    dtm: Some(m.value),
                }
            })
            .collect(),
        false => fifty_moves
            .into_iter()
            .map(|f| Rated {
                uci: f.uci.clone(),
                san: f.san.clone(),
                after: f.after,
                dtm: None,
                zeroing: f.zeroing,
                conversion: p.material() != f.after.material(),
                fifty: Some(f),
            })
            .collect(),
    };
    moves.sort_by(|a, b| a.key(geo).cmp(&b.key(geo)).then_with(|| a.san.cmp(&b.san)));
    Ok(moves)
}

/// Whether a move from `before` to `after` resets the fifty-move count: a capture or a pawn
/// move (the men change, or a pawn's square does).
fn zeroing(before: &Position, after: &Position) -> bool {
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
    before.material() != after.material() || pawns(before) != pawns(after)
}

/// The DTM and DTZ50 values of `p`, each where its table is there; the DTM error where
/// neither is.
fn both(
    tb: &Tablebase,
    p: &Position,
) -> Result<(Option<retro_tablebase::Value>, Option<Fifty>), ApiError> {
    match (tb.value(p), tb.fifty(p)) {
        (Err(e), Err(_)) => Err(e.into()),
        (dtm, fifty) => Ok((dtm.ok(), fifty.ok())),
    }
}

/// lila-tablebase's answer for a position at halfmove clock `clock`.
fn standard_json(tb: &Tablebase, p: &Position, clock: u32) -> Result<Value, ApiError> {
    let geo = tb.geometry();
    let (dtm, fifty) = both(tb, p)?;
    let moves: Vec<Value> = rated(tb, p, clock, dtm.is_some(), fifty.is_some())?
        .iter()
        .map(|m| {
            let mut out = flags(geo, &m.after);
            out["uci"] = json!(m.uci);
            out["san"] = json!(m.san);
            out["zeroing"] = json!(m.zeroing);
            out["conversion"] = json!(m.conversion);
            let after_clock = m.fifty.as_ref().map_or(0, |f| f.clock);
            values(
                &mut out,
                m.dtm,
                m.fifty.as_ref().map(|f| f.value),
                after_clock,
            );
            out
        })
        .collect();
    let mut out = flags(geo, p);
    values(&mut out, dtm, fifty, clock);
    out["moves"] = json!(moves);
    Ok(out)
}

/// lila-tablebase's main line: the line that follows DTZ50 (the winner's quickest zeroing
/// move, the loser's slowest) until mate or the clock reaching a hundred plies, when the
/// defender claims; empty when drawn; and the winner, where the line ends in mate. Where only
/// a DTM table is there, the line of the fastest mate against the longest defence.
fn mainline_json(tb: &Tablebase, p: &Position, clock: u32) -> Result<Value, ApiError> {
    let geo = tb.geometry();
    let (dtm, fifty) = both(tb, p)?;
    if let Some(f) = fifty {
        let line = tb.fifty_line(p, clock)?;
        let winner = line
            .last()
            .filter(|m| m.after.is_checkmate(geo))
            .map(|m| retro_rules::opponent(m.after.side_to_move()));
        return Ok(json!({
            "dtz": f.signed(),
            "precise_dtz": f.signed(),
            "mainline": line
                .iter()
                .map(|m| json!({
                    "uci": m.uci,
                    "san": m.san,
                    "dtz": m.value.signed(),
                    "precise_dtz": m.value.signed(),
                }))
                .collect::<Vec<_>>(),
            "winner": winner.map(|s| if s == Side::White { "w" } else { "b" }),
        }));
    }
    let value = dtm.expect("one of the tables is there");
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
        "precise_dtz": Value::Null,
        "mainline": line
            .iter()
            .map(|m| json!({ "uci": m.uci, "san": m.san, "dtz": Value::Null, "precise_dtz": Value::Null }))
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
        let (tb, p, clock) = position_of(&state, q.fen)?;
        standard_json(&tb, &p, clock).map(Json)
    })
    .await
}

/// `GET /standard/mainline?fen=…`.
pub async fn mainline(
    State(state): State<Arc<AppState>>,
    Query(q): Query<FenQuery>,
) -> Result<Json<Value>, ApiError> {
    crate::api::blocking(move || {
        let (tb, p, clock) = position_of(&state, q.fen)?;
        mainline_json(&tb, &p, clock).map(Json)
    })
    .await
}
