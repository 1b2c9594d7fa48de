//! `retro probe --batch`: many positions, one a line on standard input, one answer a line on
//! standard output, in input order.
//!
//! Owns: reading FEN or EPD lines, probing them in parallel a slice of lines at a time, and
//! writing a JSON object (or a TSV row) per line, an error being an answer like any other.
//! Must never: stop at a bad line, or hold more than one slice of lines in memory.

use anyhow::{Context, Result};
use rayon::prelude::*;
use retro_tablebase::probe::{category, signed_dtm};
use retro_tablebase::Directory;
use serde_json::json;
use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Lines probed together: enough to keep both cores busy, few enough to stream.
const SLICE_LINES: usize = 16_384;

/// How batch answers are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BatchFormat {
    /// One JSON object a line.
    Json,
    /// Tab-separated values, with a header row.
    Tsv,
}

/// One position's answer: its FEN as understood, and what the tables say, or what is wrong.
enum Answer {
    Value {
        fen: String,
        material: String,
        category: &'static str,
        dtm: Option<i64>,
        wdl50: Option<&'static str>,
        dtz: Option<i64>,
        description: String,
    },
    Error {
        input: String,
        error: String,
    },
}

impl Answer {
    fn write(&self, format: BatchFormat, out: &mut String) {
        match self {
            Answer::Value {
                fen,
                material,
                category,
                dtm,
                wdl50,
                dtz,
                description,
            } => match format {
                BatchFormat::Json => out.push_str(
                    &json!({
                        "fen": fen, "material": material, "category": category, "dtm": dtm,
                        "wdl50": wdl50, "dtz": dtz, "description": description,
                    })
                    .to_string(),
                ),
                BatchFormat::Tsv => {
                    let dtm = dtm.map_or(String::new(), |d| d.to_string());
                    let dtz = dtz.map_or(String::new(), |d| d.to_string());
                    let wdl50 = wdl50.unwrap_or("");
                    out.push_str(&format!(
                        "{fen}\t{material}\t{category}\t{dtm}\t{wdl50}\t{dtz}\t{description}\t"
                    ));
                }
            },
            Answer::Error { input, error } => match format {
                BatchFormat::Json => {
                    out.push_str(&json!({ "input": input, "error": error }).to_string())
                }
                BatchFormat::Tsv => {
                    let clean = |s: &str| s.replace(['\t', '\n'], " ");
                    out.push_str(&format!("{}\t\t\t\t\t\t\t{}", clean(input), clean(error)));
                }
            },
        }
        out.push('\n');
    }
}

/// A FEN from a FEN or EPD line: an EPD line (four fields, then operations such as
/// `bm Qh8;`) gets the clocks `0 1`.
fn fen_of_line(line: &str) -> String {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let clocks =
        fields.len() >= 6 && fields[4].parse::<u32>().is_ok() && fields[5].parse::<u32>().is_ok();
    match clocks || fields.len() < 4 {
        true => line.to_string(),
        false => format!("{} 0 1", fields[..4].join(" ")),
    }
}

/// The answer for one line: depth to mate where the DTM table is there, the class at the
/// FEN's halfmove clock and DTZ50 where the DTZ50 table is; an error where neither is.
fn answer(boards: &Directory, line: &str) -> Answer {
    let fen = fen_of_line(line);
    let found = boards.position(&fen).and_then(|(tb, natural, position)| {
        let clock = retro_tablebase::fifty::fen_clock(&fen);
        let dtm = tb.value(&position);
        let fifty = tb.fifty(&position);
        match (dtm, fifty) {
            (Err(e), Err(_)) => Err(e),
            (dtm, fifty) => Ok((dtm.ok(), fifty.ok(), clock, natural, position)),
        }
    });
    match found {
        Ok((dtm, fifty, clock, natural, position)) => {
            let stm = position.side_to_move();
            let class = fifty.map(|f| f.class_at(clock));
            Answer::Value {
                fen: natural.fen(),
                material: position.material().to_string(),
                category: match (class, dtm) {
                    (Some(c), _) => c.name(),
                    (None, Some(v)) => category(v),
                    (None, None) => "unknown",
                },
                dtm: dtm.and_then(signed_dtm),
                wdl50: class.map(|c| c.name()),
                dtz: fifty.map(|f| f.signed()),
                description: retro_tablebase::report::description(stm, dtm, fifty, clock),
            }
        }
        Err(e) => Answer::Error {
            input: line.to_string(),
            error: e.to_string(),
        },
    }
}

/// Probes every line of `input` (blank lines and lines starting with `#` are passed over)
/// with the tables of `dir`, writing an answer a line to `output`. Returns the lines answered
/// and, of those, the errors.
pub fn probe_lines(
    input: impl BufRead,
    mut output: impl Write,
    dir: &Path,
    format: BatchFormat,
) -> Result<(u64, u64)> {
    // The tables of each board met, opened once (as the server keeps them).
    let boards = Directory::new(dir);
    if format == BatchFormat::Tsv {
        writeln!(
            output,
            "fen\tmaterial\tcategory\tdtm\twdl50\tdtz\tdescription\terror"
        )?;
    }
    let (mut answered, mut errors) = (0u64, 0u64);
    let mut lines = input.lines();
    loop {
        let mut slice = Vec::with_capacity(SLICE_LINES);
        for line in lines.by_ref() {
            let line = line.context("reading standard input")?;
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            slice.push(line.to_string());
            if slice.len() == SLICE_LINES {
                break;
            }
        }
        if slice.is_empty() {
            break;
        }
        let answers: Vec<(String, bool)> = slice
            .par_iter()
            .map(|line| {
                let answer = answer(&boards, line);
                let mut text = String::with_capacity(160);
                answer.write(format, &mut text);
                (text, matches!(answer, Answer::Error { .. }))
            })
            .collect();
        for (text, failed) in answers {
            output.write_all(text.as_bytes())?;
            answered += 1;
            errors += u64::from(failed);
        }
    }
    output.flush()?;
    Ok((answered, errors))
}

/// `retro probe --batch`: standard input to standard output. Exits with 1 when some line was
/// answered with an error (every line is answered all the same).
pub fn batch(dir: Option<PathBuf>, format: BatchFormat) -> Result<ExitCode> {
    let dir = crate::support::tables_dir(dir);
    let stdin = std::io::stdin().lock();
    let stdout = BufWriter::with_capacity(1 << 20, std::io::stdout().lock());
    let (_, errors) = probe_lines(stdin, stdout, &dir, format)?;
    Ok(match errors {
        0 => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epd_lines_get_clocks_and_fen_lines_keep_theirs() {
        assert_eq!(
            fen_of_line("8/8/8/8/8/2k5/1R6/K7 w - - bm Rb3; id \"x\";"),
            "8/8/8/8/8/2k5/1R6/K7 w - - 0 1"
        );
        assert_eq!(
            fen_of_line("8/8/8/8/8/2k5/1R6/K7 w - - 3 40"),
            "8/8/8/8/8/2k5/1R6/K7 w - - 3 40"
        );
        assert_eq!(
            fen_of_line("8/8/8/8/8/2k5/1R6/K7 w - -"),
            "8/8/8/8/8/2k5/1R6/K7 w - - 0 1"
        );
        assert_eq!(fen_of_line("nonsense"), "nonsense");
    }

    #[test]
    fn every_line_is_answered_in_order_errors_included() {
        let dir = tempfile::tempdir().unwrap();
        retro_gen::Builder::new(retro_rules::Board::STANDARD, dir.path())
            .build(
                &[retro_engine::Material::parse("KRvK").unwrap()],
                &retro_gen::Silent,
            )
            .unwrap();
        let input = "8/8/8/8/8/2k5/1R6/K7 w - - 0 1\n\n# a comment\nnot a fen\n\
                     8/8/8/8/8/2k5/1R6/K7 b - - 0 1\n8/8/8/8/3k4/8/8/KQ6 w - - 0 1\n";
        let mut out = Vec::new();
        let (answered, errors) =
            probe_lines(input.as_bytes(), &mut out, dir.path(), BatchFormat::Json).unwrap();
        assert_eq!((answered, errors), (4, 2));
        let lines: Vec<serde_json::Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0]["dtm"], 31);
        assert_eq!(lines[0]["category"], "win");
        assert!(lines[1]["error"].as_str().unwrap().contains("invalid FEN"));
        // Black to move: a value, its sign the category's.
        let dtm = lines[2]["dtm"].as_i64().unwrap_or(0);
        match lines[2]["category"].as_str().unwrap() {
            "win" => assert!(dtm > 0),
            "loss" => assert!(dtm < 0),
            other => assert_eq!((other, dtm), ("draw", 0)),
        }
        // KQvK is not in the directory: an error naming the table, not a stop.
        assert!(
            lines[3]["error"].as_str().unwrap().contains("KQvK"),
            "{}",
            lines[3]
        );
        let mut tsv = Vec::new();
        probe_lines(input.as_bytes(), &mut tsv, dir.path(), BatchFormat::Tsv).unwrap();
        let tsv = String::from_utf8(tsv).unwrap();
        let rows: Vec<Vec<&str>> = tsv.lines().map(|l| l.split('\t').collect()).collect();
        assert_eq!(rows.len(), 5);
        assert!(rows.iter().all(|r| r.len() == 8), "{tsv}");
        assert_eq!(rows[1][3], "31");
        // Without the fifty-move tables, their columns are empty.
        assert_eq!((rows[1][4], rows[1][5]), ("", ""));
    }
}
