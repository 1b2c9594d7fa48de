//! The fifty-move rule's tables at the command line: their statistics (five classes, the
//! distances to zeroing) in every format, compared with the Syzygy generator's, and a
//! position's value under the rule as `retro probe` prints it.
//!
//! Owns: [`stats_text`], [`stats_tsv`], [`stats_json`], [`compare_with_syzygy`],
//! [`value_lines`], [`move_lines`], [`move_words`].
//! Must never: count or probe a table itself (`retro_tablebase::stats::fifty_stats` and
//! `retro_tablebase::fifty` do).

use anyhow::{bail, Context, Result};
use retro_format::{Dtz, Wdl};
use retro_rules::{Board, Side};
use retro_tablebase::fifty::{Fifty, FiftyMove};
use retro_tablebase::stats::{Counts, FiftySideStats, FiftyStats};
use serde_json::{json, Value as Json};
use std::path::Path;

/// The lines `retro probe` prints of a position's value under the fifty-move rule at its
/// halfmove clock, with a line explaining a cursed win or a blessed loss.
pub fn value_lines(stm: Side, value: Fifty, clock: u32) -> Vec<String> {
    let mut lines = vec![format!(
        "Under the fifty-move rule (DTZ50): {}",
        retro_tablebase::report::fifty_words(stm, value, clock)
    )];
    match value.class_at(clock) {
        Wdl::CursedWin if value.class() == Wdl::Win => lines.push(format!(
            "  (a win from a clock of 0; with {clock} plies already played without a capture or \
             a pawn move, the defender reaches a claim first)"
        )),
        Wdl::CursedWin => lines.push(
            "  (cursed: mate can be forced, but not before the defender may claim a draw by \
             the fifty-move rule)"
                .into(),
        ),
        Wdl::BlessedLoss => lines.push(
            "  (blessed: the opponent can force mate, but not before a draw may be claimed by \
             the fifty-move rule)"
                .into(),
        ),
        _ => {}
    }
    lines
}

/// A line for each move under the fifty-move rule: SAN, UCI, the class it leaves the side then
/// to move (at its clock) and that position's DTZ50.
pub fn move_lines(moves: &[FiftyMove]) -> Vec<String> {
    let width = moves.iter().map(|m| m.san.len()).max().unwrap_or(0);
    moves
        .iter()
        .map(|m| {
            let dtz = match m.value.dtz {
                Dtz::Draw => String::new(),
                _ => format!(", DTZ50 {}", m.value.signed()),
            };
            format!(
                "  {:<width$}  {:<6}  {}{dtz}{}",
                m.san,
                m.uci,
                m.class().name(),
                if m.zeroing { ", zeroing" } else { "" }
            )
        })
        .collect()
}

/// What the fifty-move rule makes of a move, after its DTM result, for the mover: "; under the
/// rule a win (DTZ50 −30 after it)", with "zeroing" for a capture or a pawn move.
pub fn move_words(m: &FiftyMove) -> String {
    let after = match m.value.dtz {
        Dtz::Draw => String::new(),
        _ => format!(" (DTZ50 {} after it)", m.value.signed()),
    };
    format!(
        "; under the rule {}{after}{}",
        for_mover(m.class()),
        if m.zeroing { ", zeroing" } else { "" }
    )
}

/// A class for the side that made the move leaving it to the opponent.
fn for_mover(opponents: Wdl) -> &'static str {
    match opponents {
        Wdl::Loss => "a win",
        Wdl::BlessedLoss => "a cursed win",
        Wdl::Draw => "a draw",
        Wdl::CursedWin => "a blessed loss",
        Wdl::Win => "a loss",
        Wdl::Illegal => "no value",
    }
}

const COLUMNS: [&str; 5] = ["loss", "blessed_loss", "draw", "cursed_win", "win"];

fn by_plies(s: &FiftySideStats, raw: bool) -> String {
    s.by_plies
        .iter()
        .map(|(&(win, n), c)| {
            let sign = if win { "" } else { "-" };
            format!("{sign}{n}:{}", if raw { c.raw } else { c.unique })
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// One row per material × side to move × convention.
pub fn stats_tsv(all: &[FiftyStats], board: Board) -> String {
    let mut text = format!(
        "material\tboard\tkind\tstm\tconvention\tlegal\t{}\tlongest_win_plies\tlongest_loss_plies\tpositions_by_dtz50\tep_legal\n",
        COLUMNS.join("\t")
    );
    for m in all {
        for (s, side) in m.sides.iter().enumerate() {
            for raw in [true, false] {
                let pick = |c: Counts| if raw { c.raw } else { c.unique };
                let classes: Vec<String> =
                    side.classes.iter().map(|&c| pick(c).to_string()).collect();
                let ep: u64 = side.en_passant.iter().map(|&c| pick(c)).sum();
                text.push_str(&format!(
                    "{}\t{board}\tdtz50\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{ep}\n",
                    m.material,
                    if s == 0 { "w" } else { "b" },
                    if raw { "raw" } else { "unique" },
                    pick(side.legal),
                    classes.join("\t"),
                    side.longest_win
                        .as_ref()
                        .map_or("-".into(), |(n, _)| n.to_string()),
                    side.longest_loss
                        .as_ref()
                        .map_or("-".into(), |(n, _)| n.to_string()),
                    by_plies(side, raw),
                ));
            }
        }
    }
    text
}

/// Per material, in words.
pub fn stats_text(all: &[FiftyStats], board: Board) -> String {
    let mut text = String::new();
    for m in all {
        text.push_str(&format!(
            "{} on {board} under the fifty-move rule ({} plies; positions: raw placements / \
             unique up to symmetry, classes at a clock of 0)\n",
            m.material, m.rule
        ));
        for (stm, s) in Side::ALL.into_iter().zip(&m.sides) {
            let c = |c: Counts| format!("{} / {}", c.raw, c.unique);
            text.push_str(&format!(
                "  {stm} to move: legal {}, wins {}, cursed wins {}, draws {}, blessed losses \
                 {}, losses {}\n",
                c(s.legal),
                c(s.of(Wdl::Win)),
                c(s.of(Wdl::CursedWin)),
                c(s.of(Wdl::Draw)),
                c(s.of(Wdl::BlessedLoss)),
                c(s.of(Wdl::Loss)),
            ));
            let ep: Counts = s.en_passant.iter().fold(Counts::default(), |a, b| Counts {
                raw: a.raw + b.raw,
                unique: a.unique + b.unique,
            });
            if ep.raw > 0 {
                text.push_str(&format!(
                    "    with an en-passant target (not counted above): legal {}\n",
                    c(ep)
                ));
            }
            if let Some((n, fen)) = &s.longest_win {
                text.push_str(&format!(
                    "    longest win: zeroing in {n} plies, e.g. {fen}\n"
                ));
            }
            if let Some((n, fen)) = &s.longest_loss {
                text.push_str(&format!(
                    "    longest loss: the opponent zeroing in {n} plies, e.g. {fen}\n"
                ));
            }
            let line = by_plies(s, true);
            if !line.is_empty() {
                text.push_str(&format!(
                    "    positions by DTZ50 in plies, losses negative (raw): {}\n",
                    line.replace(',', " ")
                ));
            }
        }
    }
    text
}

fn counts_json(c: Counts) -> Json {
    json!({ "raw": c.raw, "unique": c.unique })
}

/// One object per material.
pub fn stats_json(m: &FiftyStats, board: Board) -> Json {
    let side = |s: &FiftySideStats| {
        let mut classes = serde_json::Map::new();
        for (name, &c) in COLUMNS.iter().zip(&s.classes) {
            classes.insert((*name).to_string(), counts_json(c));
        }
        json!({
            "legal": counts_json(s.legal),
            "classes": classes,
            "longest_win": s.longest_win.as_ref().map(|(n, fen)| json!({"plies": n, "fen": fen})),
            "longest_loss": s.longest_loss.as_ref().map(|(n, fen)| json!({"plies": n, "fen": fen})),
            "by_dtz50": s.by_plies.iter().map(|(&(win, n), &c)| json!({
                "dtz50": if win { i64::from(n) } else { -i64::from(n) },
                "raw": c.raw,
                "unique": c.unique,
            })).collect::<Vec<_>>(),
        })
    };
    json!({
        "material": m.material.to_string(),
        "board": board.to_string(),
        "kind": "dtz50",
        "rule_plies": m.rule,
        "white": side(&m.sides[0]),
        "black": side(&m.sides[1]),
    })
}

/// Fails unless the five classes and the positions by distance to zeroing of `ours`, up to
/// symmetry, equal the Syzygy generator's statistics read from `path`; says so on standard
/// error when they do.
pub fn compare_with_syzygy(
    ours: &FiftyStats,
    peer: &crate::syzygy::SyzygyStats,
    path: &Path,
) -> Result<()> {
    let theirs = peer
        .fifty_of(ours.material)
        .with_context(|| format!("comparing with {}", path.display()))?;
    let mut differences = Vec::new();
    for ((stm, s), t) in Side::ALL.into_iter().zip(&ours.sides).zip(&theirs) {
        let classes: Vec<u64> = s.classes.iter().map(|c| c.unique).collect();
        if classes != t.classes {
            differences.push(format!(
                "{stm} to move: classes (loss, blessed loss, draw, cursed win, win) {classes:?} \
                 here, {:?} there",
                t.classes
            ));
        }
        for (win, table) in [(true, &t.wins), (false, &t.losses)] {
            let here: std::collections::BTreeMap<u32, u64> = s
                .by_plies
                .iter()
                .filter(|((w, _), _)| *w == win)
                .map(|(&(_, n), c)| (n, c.unique))
                .collect();
            if &here != table {
                let first = here
                    .keys()
                    .chain(table.keys())
                    .copied()
                    .filter(|n| here.get(n) != table.get(n))
                    .min()
                    .unwrap_or(0);
                differences.push(format!(
                    "{stm} to move: {} in {first} plies: {} here, {} there",
                    if win { "wins" } else { "losses" },
                    here.get(&first).copied().unwrap_or(0),
                    table.get(&first).copied().unwrap_or(0)
                ));
            }
        }
    }
    if !differences.is_empty() {
        bail!(
            "{} under the fifty-move rule differs from the Syzygy generator's statistics in {}: {}",
            ours.material,
            path.display(),
            differences.join("; ")
        );
    }
    eprintln!(
        "{}: the five classes and the positions by distance to zeroing equal the Syzygy \
         generator's in {} (positions up to symmetry): White to move {:?}, Black to move {:?} \
         (loss, blessed loss, draw, cursed win, win)",
        ours.material,
        path.display(),
        theirs[0].classes,
        theirs[1].classes
    );
    Ok(())
}
