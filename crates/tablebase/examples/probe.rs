//! Probes a position in a directory of tables and prints its value, every move's value and
//! the best line: `cargo run --release -p retro-tablebase --example probe -- DIR FEN`.

use retro_rules::Board;
use retro_tablebase::probe::describe;
use retro_tablebase::Tablebase;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, fen] = args.as_slice() else {
        eprintln!("usage: probe DIR FEN");
        return ExitCode::from(2);
    };
    match run(dir, fen) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(dir: &str, fen: &str) -> Result<(), retro_tablebase::ProbeError> {
    // The board is the FEN's: count its ranks and the squares of its first rank.
    let board = board_of(fen).unwrap_or(Board::STANDARD);
    let tables = Tablebase::new(board, dir);
    let position = tables.position_from_fen(fen)?;
    let value = tables.value(&position)?;
    println!("{}", describe(position.side_to_move(), value));
    for m in tables.rated_moves(&position)? {
        println!("  {:<8} {:<6} {:?}", m.san, m.uci, m.value);
    }
    let line: Vec<String> = tables
        .best_line(&position)?
        .into_iter()
        .map(|m| m.san)
        .collect();
    if !line.is_empty() {
        println!("best line: {}", line.join(" "));
    }
    Ok(())
}

/// The board a FEN's placement describes, if it parses.
fn board_of(fen: &str) -> Option<Board> {
    let position: retro_rules::Position = fen.parse().ok()?;
    Some(position.board())
}
