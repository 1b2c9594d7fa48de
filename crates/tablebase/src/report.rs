//! Probe results as the outside world reads them: JSON in the shape of the Lichess tablebase
//! API, best lines with move numbers and as PGN, statistics as JSON — shared by `retro probe`,
//! `retro stats` and `retro serve`.
//!
//! Owns: [`probe_json`], [`description`], [`fifty_words`], [`move_json`], [`move_result`],
//! [`numbered_sans`],
//! [`numbered`],
//! [`pgn_game`], [`pgn_text`], [`stats_json`].

use crate::fifty::{class_words, Fifty, FiftyMove};
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

/// A position's probe as JSON: `fen`, `material`, `board`, `halfmove_clock`, `category`,
/// `dtm` (signed plies, the Lichess convention; `null` without a DTM table), `wdl50` (the
/// class at the halfmove clock `clock`: `win`, `cursed-win`, `draw`, `blessed-loss`, `loss`)
/// and `dtz` (signed plies to zeroing, exact; both `null` without a DTZ50 table),
/// `description`, `checkmate`, `stalemate`, `moves` best first (by depth to mate where there is
/// a DTM table, else as the fifty-move rule ranks them; each with the `fen` it leads to and,
/// under the rule, its `wdl50`, `dtz` and `zeroing`), and with `line` the best line in UCI
/// (`line`) and SAN (`line_san`) — mate as fast as possible where there is a DTM table, else
/// following DTZ50. `category` is the class under the rule where there is a DTZ50 table,
/// otherwise win, draw or loss by depth to mate. An error only where neither table is there.
pub fn probe_json(
    tb: &Tablebase,
    natural: &retro_rules::Position,
    position: &Position,
    line: bool,
    clock: u32,
) -> Result<Json, ProbeError> {
    let geo = tb.geometry();
    let stm = position.side_to_move();
    let (value, fifty) = match (tb.value(position), tb.fifty(position)) {
        (Err(e), Err(_)) => return Err(e),
        (value, fifty) => (value.ok(), fifty.ok()),
    };
    let dtm_moves = match value {
        Some(_) => tb.rated_moves(position)?,
        None => Vec::new(),
    };
    let fifty_moves = match fifty {
        Some(_) => tb.fifty_moves(position, clock)?,
        None => Vec::new(),
    };
    let fifty_of = |uci: &str| fifty_moves.iter().find(|m| m.uci == uci);
    let fifty_fields = |j: &mut Json, m: &FiftyMove| {
        j["wdl50"] = json!(m.class().name());
        j["dtz"] = json!(m.value.signed());
        j["zeroing"] = json!(m.zeroing);
    };
    let moves: Vec<Json> = match value {
        Some(_) => dtm_moves
            .iter()
            .map(|m| {
                let mut j = move_json(m);
                j["fen"] = json!(m.after.to_natural(geo).fen());
                if let Some(f) = fifty_of(&m.uci) {
                    fifty_fields(&mut j, f);
                    j["category"] = json!(f.class().name());
                }
                j
            })
            .collect(),
        None => fifty_moves
            .iter()
            .map(|m| {
                let mut j = json!({
                    "uci": m.uci,
                    "san": m.san,
                    "category": m.class().name(),
                    "dtm": null,
                    "checkmate": m.checkmate,
                    "stalemate": m.stalemate,
                    "fen": m.after.to_natural(geo).fen(),
                });
                fifty_fields(&mut j, m);
                j
            })
            .collect(),
    };
    let class = fifty.map(|f| f.class_at(clock));
    let mut out = json!({
        "fen": natural.fen(),
        "material": position.material().to_string(),
        "board": natural.board().to_string(),
        "halfmove_clock": clock,
        "category": match (class, value) {
            (Some(c), _) => c.name(),
            (None, Some(v)) => category(v),
            (None, None) => "unknown",
        },
        "dtm": value.and_then(signed_dtm),
        "wdl50": class.map(|c| c.name()),
        "dtz": fifty.map(|f| f.signed()),
        "description": description(stm, value, fifty, clock),
        "checkmate": position.is_checkmate(geo),
        "stalemate": position.is_stalemate(geo),
        "moves": moves,
    });
    if line {
        let (uci, san): (Vec<String>, Vec<String>) = match value {
            Some(_) => tb
                .best_line(position)?
                .into_iter()
                .map(|m| (m.uci, m.san))
                .unzip(),
            None => tb
                .fifty_line(position, clock)?
                .into_iter()
                .map(|m| (m.uci, m.san))
                .unzip(),
        };
        out["line"] = json!(uci);
        out["line_san"] = json!(san);
    }
    Ok(out)
}

/// A position's value in words, by depth to mate and under the fifty-move rule at halfmove
/// clock `clock`, each where its table is there: "White to move: mate in 16 (31 plies); under
/// the fifty-move rule, White to move: wins, zeroing in 31 plies".
pub fn description(stm: Side, value: Option<Value>, fifty: Option<Fifty>, clock: u32) -> String {
    let mut words = Vec::new();
    if let Some(v) = value {
        words.push(describe(stm, v));
    }
    if let Some(f) = fifty {
        words.push(format!(
            "under the fifty-move rule, {}",
            fifty_words(stm, f, clock)
        ));
    }
    words.join("; ")
}

/// The value under the fifty-move rule in words, for `stm` at halfmove clock `clock`: "White
/// to move, clock 37: wins, zeroing in 12 plies", "Black to move: cursed win: a draw under the
/// fifty-move rule, zeroing in 108 plies".
pub fn fifty_words(stm: Side, value: Fifty, clock: u32) -> String {
    let at = match clock {
        0 => String::new(),
        c => format!(", clock {c}"),
    };
    let distance = match value.dtz {
        retro_format::Dtz::Loss(0) => return format!("{stm} to move{at}: is checkmated"),
        retro_format::Dtz::Win(n) => format!(", zeroing in {n} plies"),
        retro_format::Dtz::Loss(n) => format!(", the opponent zeroing in {n} plies"),
        _ => String::new(),
    };
    format!(
        "{stm} to move{at}: {}{distance}",
        class_words(value.class_at(clock))
    )
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
