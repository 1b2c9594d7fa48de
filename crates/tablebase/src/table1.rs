//! Hurd's Table 1: every 4-man pawnless category on 8×8, in his conventions, beside the paper's
//! values.
//!
//! Owns: [`Row`], [`rows`], [`paper`], [`parse_tsv`], [`to_tsv`].
//!
//! Hurd counts placements without symmetry reduction (identical men distinguishable) and
//! counts moves of White:
//! * White to move: `max` is `n + 1` for the least `n` with `p ∈ win1_by n` — mate in `max`
//!   moves, a win in `2·max − 1` plies;
//! * Black to move: `max` is the least `n` with `p ∈ win2_by n` — a loss in `2·max` plies;
//! * `#win` counts positions won for White, `#legal` legal positions.
//!
//! A category whose White is the weaker side (`K_KQ`) is the colour-flipped table (`KQvK`),
//! read from the other side to move.

use crate::probe::{ProbeError, Tablebase};
use crate::stats::{material_stats, MaterialStats};
use retro_engine::Material;
use retro_rules::Side;
use std::collections::HashMap;

/// One category's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Hurd's name, e.g. `KR_K`.
    pub material: String,
    /// White to move: the most moves White needs to mate (`None`: White never wins).
    pub wtm_max: Option<u32>,
    /// White to move: positions won for White.
    pub wtm_win: u64,
    /// White to move: legal positions.
    pub wtm_legal: u64,
    /// Black to move: the most moves White needs to mate.
    pub btm_max: Option<u32>,
    /// Black to move: positions won for White.
    pub btm_win: u64,
    /// Black to move: legal positions.
    pub btm_legal: u64,
}

/// The paper's Table 1, as shipped with the crate (a copy of `shared/data/hurd-table1.tsv`).
pub const PAPER_TSV: &str = include_str!("../hurd-table1.tsv");

/// A TSV that is not in Table 1's shape.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {what}")]
pub struct TsvError {
    /// The 1-based line.
    pub line: usize,
    /// What is wrong.
    pub what: String,
}

/// Reads a Table 1 TSV (`#` comments, a header line naming `material wtm_max wtm_win wtm_legal
/// btm_max btm_win btm_legal`; other columns ignored).
pub fn parse_tsv(text: &str) -> Result<Vec<Row>, TsvError> {
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty());
    let (header_line, header) = lines.next().ok_or(TsvError {
        line: 1,
        what: "no header".into(),
    })?;
    let columns: Vec<&str> = header.split('\t').collect();
    let column = |name: &str| {
        columns.iter().position(|c| *c == name).ok_or(TsvError {
            line: header_line + 1,
            what: format!("no column {name}"),
        })
    };
    let at = [
        column("material")?,
        column("wtm_max")?,
        column("wtm_win")?,
        column("wtm_legal")?,
        column("btm_max")?,
        column("btm_win")?,
        column("btm_legal")?,
    ];
    let mut rows = Vec::new();
    for (n, line) in lines {
        let fields: Vec<&str> = line.split('\t').collect();
        let bad = |what: String| TsvError { line: n + 1, what };
        let field = |i: usize| {
            fields
                .get(at[i])
                .copied()
                .ok_or_else(|| bad(format!("missing column {i}")))
        };
        let count = |i: usize| {
            field(i)?
                .parse::<u64>()
                .map_err(|_| bad(format!("'{}' is not a count", field(i).unwrap_or(""))))
        };
        let max = |i: usize| match field(i)? {
            "-" | "—" => Ok(None),
            text => text
                .parse::<u32>()
                .map(Some)
                .map_err(|_| bad(format!("'{text}' is not a depth"))),
        };
        rows.push(Row {
            material: field(0)?.to_string(),
            wtm_max: max(1)?,
            wtm_win: count(2)?,
            wtm_legal: count(3)?,
            btm_max: max(4)?,
            btm_win: count(5)?,
            btm_legal: count(6)?,
        });
    }
    Ok(rows)
}

/// The paper's rows.
pub fn paper() -> Vec<Row> {
    parse_tsv(PAPER_TSV).expect("the shipped copy of Table 1 is well-formed")
}

/// The canonical materials Table 1 needs.
pub fn materials() -> Vec<Material> {
    let mut all: Vec<Material> = paper()
        .iter()
        .map(|r| {
            r.material
                .parse::<Material>()
                .expect("Hurd's names parse")
                .canonical()
                .0
        })
        .collect();
    all.sort_by_key(|m| (m.len(), m.to_string()));
    all.dedup();
    all
}

/// The row of Hurd's category `name` from the statistics of its canonical table.
pub fn row(name: &str, stats: &MaterialStats, flipped: bool) -> Row {
    let (white_side, black_side) = if flipped {
        (Side::Black, Side::White)
    } else {
        (Side::White, Side::Black)
    };
    let wtm = stats.side(white_side);
    let btm = stats.side(black_side);
    Row {
        material: name.to_string(),
        wtm_max: wtm.longest_win.as_ref().map(|(n, _)| n.div_ceil(2)),
        wtm_win: wtm.win.raw,
        wtm_legal: wtm.legal.raw,
        btm_max: btm.longest_loss.as_ref().map(|(n, _)| n / 2),
        btm_win: btm.loss.raw,
        btm_legal: btm.legal.raw,
    }
}

/// Our Table 1, in the paper's row order, from the tables in `tb` (8×8, all built).
pub fn rows(tb: &Tablebase) -> Result<Vec<Row>, ProbeError> {
    let mut stats: HashMap<Material, MaterialStats> = HashMap::new();
    let mut result = Vec::new();
    for paper_row in paper() {
        let material: Material = paper_row.material.parse().expect("Hurd's names parse");
        let (canonical, flipped) = material.canonical();
        let table_stats = match stats.entry(canonical) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(material_stats(tb, canonical)?)
            }
        };
        result.push(row(&paper_row.material, table_stats, flipped));
    }
    Ok(result)
}

fn dash(max: Option<u32>) -> String {
    max.map_or("-".to_string(), |n| n.to_string())
}

/// Rows as TSV with the columns of `hurd-table1.tsv`.
pub fn to_tsv(rows: &[Row]) -> String {
    let mut text =
        String::from("material\twtm_max\twtm_win\twtm_legal\tbtm_max\tbtm_win\tbtm_legal\n");
    for r in rows {
        text.push_str(&format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
            r.material,
            dash(r.wtm_max),
            r.wtm_win,
            r.wtm_legal,
            dash(r.btm_max),
            r.btm_win,
            r.btm_legal
        ));
    }
    text
}

/// Rows as a text table beside the paper's values: every cell that differs is marked `≠` with
/// the paper's value.
pub fn to_text(ours: &[Row], paper: &[Row]) -> String {
    let headings = [
        "Pieces", "WTM max", "#win", "#legal", "BTM max", "#win", "#legal",
    ];
    let mut lines: Vec<[String; 7]> = vec![headings.map(String::from)];
    for (r, p) in ours.iter().zip(paper) {
        let cell = |ours: String, theirs: String| {
            if ours == theirs {
                ours
            } else {
                format!("{ours} ≠{theirs}")
            }
        };
        lines.push([
            r.material.clone(),
            cell(dash(r.wtm_max), dash(p.wtm_max)),
            cell(r.wtm_win.to_string(), p.wtm_win.to_string()),
            cell(r.wtm_legal.to_string(), p.wtm_legal.to_string()),
            cell(dash(r.btm_max), dash(p.btm_max)),
            cell(r.btm_win.to_string(), p.btm_win.to_string()),
            cell(r.btm_legal.to_string(), p.btm_legal.to_string()),
        ]);
    }
    let widths: Vec<usize> = (0..7)
        .map(|c| {
            lines
                .iter()
                .map(|l| l[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut text = String::new();
    for line in &lines {
        let cells: Vec<String> = line
            .iter()
            .enumerate()
            .map(|(c, s)| {
                if c == 0 {
                    format!("{s:<w$}", w = widths[c])
                } else {
                    format!("{s:>w$}", w = widths[c])
                }
            })
            .collect();
        text.push_str(cells.join("  ").trim_end());
        text.push('\n');
    }
    text
}

/// The number of cells (of the six numeric columns) that differ from the paper.
pub fn differences(ours: &[Row], paper: &[Row]) -> usize {
    let mut n = ours.len().abs_diff(paper.len()) * 6;
    for (r, p) in ours.iter().zip(paper) {
        n += usize::from(r.material != p.material) * 6;
        n += usize::from(r.wtm_max != p.wtm_max)
            + usize::from(r.wtm_win != p.wtm_win)
            + usize::from(r.wtm_legal != p.wtm_legal)
            + usize::from(r.btm_max != p.btm_max)
            + usize::from(r.btm_win != p.btm_win)
            + usize::from(r.btm_legal != p.btm_legal);
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_copy_has_45_rows_and_25_tables() {
        let rows = paper();
        assert_eq!(rows.len(), 45);
        assert_eq!(rows[0].material, "K_K");
        assert_eq!(
            rows.iter().find(|r| r.material == "KR_K").unwrap().btm_max,
            Some(16)
        );
        assert_eq!(materials().len(), 25);
    }

    #[test]
    fn the_shipped_copy_equals_the_shared_data() {
        let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/data/hurd-table1.tsv");
        match std::fs::read_to_string(&shared) {
            Ok(text) => assert_eq!(parse_tsv(&text).unwrap(), paper()),
            // A checkout without the project's shared folder beside it: nothing to compare.
            Err(e) => eprintln!("{} not compared: {e}", shared.display()),
        }
    }

    #[test]
    fn malformed_tsv_is_reported() {
        assert!(parse_tsv("").is_err());
        assert!(parse_tsv("material\twtm_max\n").is_err());
        let e = parse_tsv("material\twtm_max\twtm_win\twtm_legal\tbtm_max\tbtm_win\tbtm_legal\nKR_K\t16\tx\t1\t1\t1\t1\n").unwrap_err();
        assert_eq!(e.line, 2);
    }
}
