//! What every command shares: where tables live, progress bars, memory and sizes shown to
//! people, a FEN's positions.
//!
//! Owns: nothing of chess or of tables' contents.
//! Must never: hold a command of its own (each command has its file).

use anyhow::{Context, Result};
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};
use retro_engine::{Geometry, Material, Position};
use retro_gen::{BuildReport, Observer, Phase};
use retro_rules::Board;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The tables directory: `--dir`, else `$RETRO_TABLES`, else `./tables`.
pub fn tables_dir(dir: Option<PathBuf>) -> PathBuf {
    dir.or_else(|| std::env::var_os("RETRO_TABLES").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("tables"))
}

/// Progress bars for building, one per material and phase, hidden with `--quiet`; a line per
/// table either way. During the retrograde passes the bar shows the depth reached, and its
/// length is the positions expected to be decided ([`positions_left`]), so that its estimate
/// of the time left follows the passes still to come rather than the draws, which no pass
/// decides.
pub struct Bars {
    quiet: bool,
    lines_to_stderr: bool,
    multi: MultiProgress,
    current: Mutex<Option<Current>>,
}

/// The bar of the phase under way: its work (for the passes, the legal positions), and the
/// positions each pass so far decided.
struct Current {
    bar: ProgressBar,
    work: u64,
    found: Vec<u64>,
}

/// The positions the passes still to come will decide, estimated from those each pass so far
/// decided (`found[d]` by the pass of depth `d`), and at most `undecided`. Where the last two
/// passes decided fewer than the two before them, the counts are taken to keep falling at that
/// rate `r` every two plies, and what is left is the sum of that geometric tail,
/// `(f[d] + f[d−1]) × r / (1 − r)`; while they grow, every undecided position may still be
/// decided.
pub fn positions_left(found: &[u64], undecided: u64) -> u64 {
    let d = found.len();
    if d < 4 {
        return undecided;
    }
    let last = found[d - 1] + found[d - 2];
    let before = found[d - 3] + found[d - 4];
    if before == 0 || last >= before {
        return undecided;
    }
    let r = last as f64 / before as f64;
    let tail = last as f64 * r / (1.0 - r);
    (tail.ceil() as u64).min(undecided)
}

impl Bars {
    pub fn new(quiet: bool) -> Bars {
        Bars {
            quiet,
            lines_to_stderr: false,
            multi: MultiProgress::new(),
            current: Mutex::new(None),
        }
    }

    /// Reports each table on standard error, keeping standard output for the command's result.
    pub fn lines_to_stderr(mut self) -> Bars {
        self.lines_to_stderr = true;
        self
    }
}

impl Observer for Bars {
    fn phase(&self, subject: &str, phase: Phase, work: u64) {
        if self.quiet {
            return;
        }
        let bar = self.multi.add(ProgressBar::new(work));
        bar.set_style(
            ProgressStyle::with_template("{prefix:>14} {msg:<10} {bar:30} {human_pos:>12}/{human_len} positions  {elapsed} (~{eta} left)")
                .expect("a valid template"),
        );
        bar.set_prefix(subject.to_string());
        bar.set_message(phase.name());
        let current = Current {
            bar,
            work,
            found: Vec::new(),
        };
        if let Some(old) = self
            .current
            .lock()
            .expect("no panics while locked")
            .replace(current)
        {
            old.bar.finish_and_clear();
        }
    }

    fn progressed(&self, steps: u64) {
        if let Some(current) = self
            .current
            .lock()
            .expect("no panics while locked")
            .as_ref()
        {
            current.bar.inc(steps);
        }
    }

    fn depth_passed(&self, depth: u32, found: u64) {
        let mut current = self.current.lock().expect("no panics while locked");
        let Some(current) = current.as_mut() else {
            return;
        };
        current.found.push(found);
        let done = current.bar.position();
        let left = positions_left(&current.found, current.work.saturating_sub(done));
        current.bar.set_length(done + left);
        current.bar.set_message(format!("depth {depth}"));
    }

    fn finished(&self, report: &BuildReport) {
        if let Some(current) = self.current.lock().expect("no panics while locked").take() {
            current.bar.finish_and_clear();
        }
        let what = if report.reused && report.body_checked {
            "kept (file present and intact)".to_string()
        } else if report.reused {
            "kept (file present, header checked; not read by this run)".to_string()
        } else {
            format!(
                "built in {:.2} s ({:.2} s setting up, {:.2} s retrograde over {} depths, \
                 {:.2} s writing)",
                report.seconds,
                report.init_seconds,
                report.retrograde_seconds,
                report.depths,
                (report.seconds - report.init_seconds - report.retrograde_seconds).max(0.0)
            )
        };
        let packed = report.packed.as_ref().map_or(String::new(), |p| {
            format!(
                "; packed {} -> {} ({:.1}x) in {:.2} s",
                human_bytes(p.raw_bytes),
                human_bytes(p.packed_bytes),
                p.raw_bytes as f64 / p.packed_bytes.max(1) as f64,
                p.seconds
            )
        });
        let (label, longest) = match report.metric {
            retro_gen::Metric::Dtm => ("", "longest mate"),
            retro_gen::Metric::Fifty => (" DTZ50+WDL50", "longest distance to zeroing"),
        };
        let line = format!(
            "{:>14}{label}  {what}{packed}; {longest} {} plies; {} entries per side; {}",
            report.material.to_string(),
            report.max_plies,
            report.entries_per_side,
            report.path.display()
        );
        self.multi.suspend(|| {
            if self.lines_to_stderr {
                eprintln!("{line}");
            } else {
                println!("{line}");
            }
        });
    }

    /// On standard error, `--quiet` or not: it is about the run, not its progress.
    fn notice(&self, text: &str) {
        self.multi.suspend(|| eprintln!("note: {text}"));
    }
}

/// The peak resident memory of this process, in MiB (Linux), if known.
pub fn peak_memory_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// The memory the machine has available now (Linux `MemAvailable`), in bytes, if known.
pub fn available_memory() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// A size in bytes from `20G`, `20GiB`, `1500M`, `512MiB`, `64K` or a plain number of bytes
/// (binary units: `G` is 2³⁰). Written here rather than taken from a crate: a dozen lines.
pub fn parse_size(text: &str) -> std::result::Result<u64, String> {
    let text = text.trim();
    let digits = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    let number: f64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a size (e.g. 20G, 1500M)"))?;
    let shift = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        other => return Err(format!("`{other}` is not a unit of size (K, M, G or T)")),
    };
    Ok((number * (1u64 << shift) as f64) as u64)
}

/// A legal position from FEN, for the engine, with its natural-model twin.
pub(crate) fn engine_position(fen: &str) -> Result<(retro_rules::Position, Geometry, Position)> {
    Ok(retro_engine::fen::positions_of_fen(fen)?)
}

/// The canonical materials of the tables in `dir` for `board`, raw or packed (a table in both
/// forms once), smallest first.
pub(crate) fn tables_in(dir: &Path, board: Board) -> Result<Vec<Material>> {
    kind_tables_in(dir, board, retro_format::TableKind::Dtm)
}

/// The materials with a table of `kind` for `board` in `dir`, as [`tables_in`] lists DTM's.
pub(crate) fn kind_tables_in(
    dir: &Path,
    board: Board,
    kind: retro_format::TableKind,
) -> Result<Vec<Material>> {
    let mut found: Vec<Material> = retro_format::table_names(dir)
        .with_context(|| format!("reading {}", dir.display()))?
        .into_iter()
        .filter(|t| (t.files, t.ranks) == (board.files(), board.ranks()) && t.kind == kind)
        .filter_map(|t| Material::parse(&t.material).ok())
        .collect();
    found.sort_by_key(|m| (m.len(), m.to_string()));
    found.dedup();
    Ok(found)
}

/// Sizes in binary units, as `ls -h` gives them.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::{parse_size, positions_left};

    #[test]
    fn sizes_parse_in_binary_units() {
        assert_eq!(parse_size("20G"), Ok(20 << 30));
        assert_eq!(parse_size("20 GiB"), Ok(20 << 30));
        assert_eq!(parse_size("1500M"), Ok(1500 << 20));
        assert_eq!(parse_size("1.5g"), Ok(3 << 29));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("lots").unwrap_err().contains("not a size"));
        assert!(parse_size("20X").unwrap_err().contains("not a unit"));
    }

    #[test]
    fn positions_left_sums_a_falling_tail_and_bounds_a_growing_one() {
        // Counts halving every two plies: what is left is the rest of the series.
        let found = [4000, 4000, 2000, 2000, 1000, 1000];
        // (1000 + 1000) × ½ / ½ = 2000, the sum of 500 + 500 + 250 + 250 + …
        assert_eq!(positions_left(&found, 1_000_000), 2000);
        assert_eq!(positions_left(&found, 1500), 1500);
        // Growing, or too few passes to tell: every undecided position may still come.
        assert_eq!(positions_left(&[10, 20, 30, 40], 777), 777);
        assert_eq!(positions_left(&[10, 20, 30], 777), 777);
        // Passes that found nothing: nothing is left.
        assert_eq!(positions_left(&[5, 5, 0, 0], 777), 0);
    }
}
