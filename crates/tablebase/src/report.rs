//! Probe results as the outside world reads them: JSON in the shape of the Lichess tablebase
//! API, best lines with move numbers and as PGN, statistics as JSON — shared by `retro probe`,
//! `retro stats` and `retro serve`.
//!
//! Owns: [`probe_json`], [`move_json`], [`move_result`], [`numbered_sans`], [`numbered`],
//! [`pgn_game`], [`pgn_text`], [`stats_json`].

use crate::probe::{category, describe, signed_dtm, ProbeError, RatedMove, Tablebase};
use crate::stats::{Counts, MaterialStats, SideStats};
use retro_engine::Position;
use retro_format::Value;
use retro_rules::{Board, Side};
use serde_json::{json, Value as Json};

/// What a move does, from the mover's side: "mate in 15 (29 plies)", "draw", "loses, mated in
/// 12 (24 plies)".
pub fn move_result(m: &RatedMove) -> String {
    match m.value {
        Value::Loss(0) => "checkmate".to_string(),
        Value::Loss(n) => format!("mate in {} ({} plies)", (n + 2) / 2, n + 1),
        Value::Win(n) => format!("loses, mated in {} ({} plies)", n.div_ceil(2), n + 1),
        _ if m.stalemate => "draw (stalemate)".to_string(),
        _ => "draw".to_string(),
    }
}

/// A rated move as JSON: `uci`, `san`, `category` and `dtm` for the side to move after it (the
/// Lichess convention), `checkmate`, `stalemate`, and `result` in words for the mover.
pub fn move_json(m: &RatedMove) -> Json {
    json!({
        "uci": m.uci,
        "san": m.san,
        "category": category(m.value),
        "dtm": signed_dtm(m.value),
        "checkmate": m.checkmate,
        "stalemate": m.stalemate,
        "result": move_result(m),
    })
}

/// A position's probe as JSON: `fen`, `material`, `board`, `category`, `dtm` (signed plies,
/// the Lichess convention), `description`, `checkmate`, `stalemate`, `moves` best first (each
/// with the `fen` it leads to), and
/// with `line` the best line in UCI (`line`) and SAN (`line_san`).
pub fn probe_json(
    tb: &Tablebase,
    natural: &retro_rules::Position,
    position: &Position,
    line: bool,
) -> Result<Json, ProbeError> {
    let geo = tb.geometry();
    let value = tb.value(position)?;
    let moves = tb.rated_moves(position)?;
    let mut out = json!({
        "fen": natural.fen(),
        "material": position.material().to_string(),
        "board": natural.board().to_string(),
        "category": category(value),
        "dtm": signed_dtm(value),
        "description": describe(position.side_to_move(), value),
        "checkmate": position.is_checkmate(geo),
        "stalemate": position.is_stalemate(geo),
        "moves": moves.iter().map(|m| {
            let mut j = move_json(m);
            j["fen"] = json!(m.after.to_natural(geo).fen());
            j
        }).collect::<Vec<_>>(),
    });
    if line {
        let best = tb.best_line(position)?;
        out["line"] = json!(best.iter().map(|m| m.uci.clone()).collect::<Vec<_>>());
        out["line_san"] = json!(best.iter().map(|m| m.san.clone()).collect::<Vec<_>>());
    }
    Ok(out)
}

/// SAN moves with move numbers, `first` to move at move `fullmove`: "1. Ka2 Kd4 2. Kb3", or
/// "1... Kd4 2. Kb3" when Black moves first.
pub fn numbered_sans<'a>(
    sans: impl IntoIterator<Item = &'a str>,
    first: Side,
    fullmove: u32,
) -> String {
    let mut text = String::new();
    let mut number = fullmove;
    let mut side = first;
    for (i, san) in sans.into_iter().enumerate() {
        if side == Side::White {
            text.push_str(&format!("{number}. "));
        } else if i == 0 {
            text.push_str(&format!("{number}... "));
        }
        text.push_str(san);
        text.push(' ');
        if side == Side::Black {
            number += 1;
        }
        side = retro_rules::opponent(side);
    }
    text.trim_end().to_string()
}

/// SAN of a line with move numbers, starting with `first` to move at move `fullmove`.
pub fn numbered(line: &[RatedMove], first: Side, fullmove: u32) -> String {
    numbered_sans(line.iter().map(|m| m.san.as_str()), first, fullmove)
}

/// A PGN game from a set-up position: the seven-tag roster with `event` and `result`, SetUp
/// and FEN, Board when not 8×8, Annotator, then the movetext and the result.
pub fn pgn_game(
    event: &str,
    fen: &str,
    board: Board,
    result: &str,
    annotator: &str,
    movetext: &str,
) -> String {
    let mut text = String::new();
    for (tag, val) in [
        ("Event", event),
        ("Site", "?"),
        ("Date", "????.??.??"),
        ("Round", "-"),
        ("White", "?"),
        ("Black", "?"),
        ("Result", result),
        ("SetUp", "1"),
        ("FEN", fen),
    ] {
        text.push_str(&format!("[{tag} \"{val}\"]\n"));
    }
    if board != Board::STANDARD {
        text.push_str(&format!("[Board \"{board}\"]\n"));
    }
    text.push_str(&format!("[Annotator \"{annotator}\"]\n"));
    text.push('\n');
    text.push_str(movetext);
    if !movetext.is_empty() {
        text.push(' ');
    }
    text.push_str(result);
    text.push('\n');
    text
}

/// The best line from `natural` (value `value`) as a PGN game with its FEN and result.
pub fn pgn_text(natural: &retro_rules::Position, value: Value, line: &[RatedMove]) -> String {
    let stm = retro_rules::position::to_move(natural);
    let result = match value {
        Value::Win(_) if stm == Side::White => "1-0",
        Value::Loss(_) if stm == Side::Black => "1-0",
        Value::Win(_) | Value::Loss(_) => "0-1",
        _ => "1/2-1/2",
    };
    pgn_game(
        "retro best line",
        &natural.fen(),
        natural.board(),
        result,
        &describe(stm, value),
        &numbered(line, stm, 1),
    )
}

fn side_json(s: &SideStats) -> Json {
    let counts = |c: Counts| json!({ "raw": c.raw, "unique": c.unique });
    json!({
        "legal": counts(s.legal),
        "win": counts(s.win),
        "draw": counts(s.draw),
        "loss": counts(s.loss),
        "longest_win": s.longest_win.as_ref().map(|(n, f)| json!({ "plies": n, "moves": n.div_ceil(2), "fen": f })),
        "longest_loss": s.longest_loss.as_ref().map(|(n, f)| json!({ "plies": n, "moves": n / 2, "fen": f })),
        "positions_by_plies": s.by_plies.iter().map(|(n, c)| json!({ "plies": n, "raw": c.raw, "unique": c.unique })).collect::<Vec<_>>(),
        "en_passant": {
            "legal": counts(s.en_passant.legal),
            "win": counts(s.en_passant.win),
            "draw": counts(s.en_passant.draw),
            "loss": counts(s.en_passant.loss),
        },
    })
}

/// One material's statistics as JSON.
pub fn stats_json(m: &MaterialStats, board: Board) -> Json {
    json!({
        "material": m.material.to_string(),
        "board": board.to_string(),
        "white_to_move": side_json(m.side(Side::White)),
        "black_to_move": side_json(m.side(Side::Black)),
    })
}
