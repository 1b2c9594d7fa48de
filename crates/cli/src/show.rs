//! `retro show`: a position's diagram, legality, moves and status.

use anyhow::{anyhow, Result};
use retro_engine::fen::{positions_of_fen, FenError};
use retro_engine::notation::notated_moves;
use retro_rules::position::fen_letter;
use retro_rules::{Setup, Side, Square};
use serde_json::json;
use std::process::ExitCode;

/// A text diagram of a setup, ranks from the top, with file letters and rank numbers.
pub fn diagram(setup: &Setup) -> String {
    let board = setup.board;
    let mut text = String::new();
    for rank in (0..board.ranks()).rev() {
        text.push_str(&format!("{:>3} ", u32::from(rank) + 1));
        for file in 0..board.files() {
            let sq = Square::new(file, rank);
            let c = setup
                .men
                .iter()
                .find(|(s, _)| *s == sq)
                .map_or('.', |&(_, man)| fen_letter(man));
            text.push(' ');
            text.push(c);
        }
        text.push('\n');
    }
    text.push_str("    ");
    for file in 0..board.files() {
        text.push(' ');
        text.push((b'a' + file) as char);
    }
    text.push('\n');
    text
}

pub fn show(fen: &str, as_json: bool) -> Result<ExitCode> {
    let (natural, geo, position) = match positions_of_fen(fen) {
        Ok(positions) => positions,
        Err(FenError::Illegal { setup, illegal, .. }) => {
            if as_json {
                let reasons: Vec<String> = illegal.reasons.iter().map(|r| r.to_string()).collect();
                println!(
                    "{}",
                    json!({ "fen": setup.fen(), "board": setup.board.to_string(), "legal": false, "reasons": reasons })
                );
            } else {
                print!("{}", diagram(&setup));
                println!("Legal: no");
                for reason in &illegal.reasons {
                    println!("  - {reason}");
                }
            }
            return Err(anyhow!("'{fen}' is an {illegal}"));
        }
        Err(other) => return Err(other.into()),
    };
    let moves = notated_moves(&geo, &position);
    let stm = position.side_to_move();
    let check = position.in_check(&geo, stm);
    let status = match (check, moves.is_empty()) {
        (true, true) => "checkmate",
        (false, true) => "stalemate",
        (true, false) => "check",
        (false, false) => "none",
    };
    if as_json {
        let moves: Vec<_> = moves
            .iter()
            .map(|m| json!({ "san": m.san, "uci": m.uci }))
            .collect();
        println!(
            "{}",
            json!({
                "fen": natural.fen(),
                "board": natural.board().to_string(),
                "legal": true,
                "side_to_move": if stm == Side::White { "white" } else { "black" },
                "check": check,
                "checkmate": status == "checkmate",
                "stalemate": status == "stalemate",
                "moves": moves,
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    print!("{}", diagram(&natural.to_setup()));
    println!("FEN: {}", natural.fen());
    println!(
        "Board: {} ({} files × {} ranks)",
        natural.board(),
        natural.board().files(),
        natural.board().ranks()
    );
    println!("Side to move: {stm}");
    println!("Legal: yes");
    println!(
        "Status: {}",
        match status {
            "checkmate" => format!("{stm} is checkmated"),
            "stalemate" => format!("{stm} is stalemated (draw)"),
            "check" => format!("{stm} is in check"),
            _ => "no check".to_string(),
        }
    );
    println!("Legal moves: {}", moves.len());
    if !moves.is_empty() {
        let width = moves.iter().map(|m| m.san.len()).max().unwrap_or(0);
        for m in &moves {
            println!("  {:<width$}  {}", m.san, m.uci);
        }
    }
    Ok(ExitCode::SUCCESS)
}
