//! `retro bench --suite six`: six-man tables built beside the Syzygy generator, run for run,
//! with both programs' peak memory and the win/draw/loss counts of each compared.
//!
//! Owns: [`six_suite`], reading the Syzygy generator's statistics files.
//! Must never: time a program while the other runs, or count a table whose counts differ
//! from the peer's as measured (the suite fails instead).

use crate::bench::{link_tables, material_args, median, run_retro, run_timed, spread};
use crate::syzygy::{swapped_name, syzygy_counts, Counts};
use anyhow::{anyhow, bail, Context, Result};
use retro_engine::Material;
use retro_rules::Board;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The tables the suite builds when none are named.
pub const DEFAULT_SIX: [&str; 3] = ["KRNvKNN", "KRBvKRN", "KQRvKQR"];

/// The Syzygy generator as the six-man suite runs it.
pub struct SixPeer {
    /// Its `rtbgen` binary.
    pub rtbgen: PathBuf,
    /// Its tables directory (`RTBPATH`): the WDL tables of every smaller table a six-man table
    /// reaches, built there first (`rtbgen -w`, outside the clock) where missing.
    pub tables: PathBuf,
    /// Threads (`-t`), as many as `retro gen` uses.
    pub threads: usize,
}

/// What the six suite builds, where, and beside what.
pub struct SixOptions {
    /// The tables, six men without pawns each.
    pub materials: Vec<Material>,
    /// The board (8×8 but in tests).
    pub board: Board,
    /// The Syzygy generator, if it runs beside.
    pub peer: Option<SixPeer>,
}

/// One program's run: wall-clock seconds and peak resident memory.
struct Timed {
    seconds: f64,
    peak_mib: f64,
}

/// Runs `command`, sampling its peak resident memory (`VmHWM`) while it runs; fails, naming
/// `what`, if it cannot start or exits with failure.
fn run_sampled(command: &mut Command, what: &str) -> Result<Timed> {
    let start = Instant::now();
    let mut child = command
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .with_context(|| format!("running {what}"))?;
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0u64;
    let status = loop {
        if let Ok(status) = std::fs::read_to_string(&status_path) {
            let hwm = status
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok());
            peak_kib = peak_kib.max(hwm.unwrap_or(0));
        }
        if let Some(status) = child.try_wait()? {
            break status;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let seconds = start.elapsed().as_secs_f64();
    if !status.success() {
        let mut stderr = String::new();
        if let Some(mut pipe) = child.stderr.take() {
            use std::io::Read;
            let _ = pipe.read_to_string(&mut stderr);
        }
        bail!("{what} failed ({status}): {stderr}");
    }
    Ok(Timed {
        seconds,
        peak_mib: peak_kib as f64 / 1024.0,
    })
}

/// Our counts, from `retro stats MATERIAL --format json` of the table built, with the stats
/// themselves (the longest win and loss, their positions, the counts by depth).
fn retro_counts(material: Material, board: Board, dir: &Path) -> Result<([Counts; 2], Value)> {
    // `retro stats` takes no `--quiet`: its arguments are not `material_args`.
    let args = [
        "stats".to_string(),
        material.to_string(),
        "--dir".to_string(),
        dir.display().to_string(),
        "--board".to_string(),
        board.to_string(),
        "--format".to_string(),
        "json".to_string(),
    ];
    let exe = std::env::current_exe().context("finding the retro binary")?;
    let (_, stdout) = run_timed(Command::new(exe).args(&args), "retro stats")?;
    let stats: Value = serde_json::from_str(&stdout).context("reading retro stats")?;
    let table = &stats[0];
    let side = |key: &str| -> Result<Counts> {
        let count = |kind: &str| {
            table[key][kind]["unique"]
                .as_u64()
                .ok_or_else(|| anyhow!("retro stats gives no {key} {kind} count"))
        };
        Ok(Counts {
            wins: count("win")?,
            draws: count("draw")?,
            losses: count("loss")?,
        })
    };
    let counts = [side("white_to_move")?, side("black_to_move")?];
    Ok((counts, table.clone()))
}

impl SixPeer {
    /// Builds, outside the clock, the WDL tables the peer needs for `material` and has not.
    fn prepare(&self, material: Material, plan: &[Material]) -> Result<()> {
        std::fs::create_dir_all(&self.tables)
            .with_context(|| format!("making {}", self.tables.display()))?;
        for &smaller in plan.iter().filter(|m| m.len() >= 3 && **m != material) {
            let present = [smaller.to_string(), swapped_name(smaller)]
                .iter()
                .any(|name| self.tables.join(format!("{name}.rtbw")).exists());
            if present {
                continue;
            }
            let mut command = Command::new(&self.rtbgen);
            command
                .args(["-t", &self.threads.to_string(), "-w", &smaller.to_string()])
                .current_dir(&self.tables)
                .env("RTBPATH", &self.tables);
            run_sampled(
                &mut command,
                &format!("the Syzygy generator on {smaller} (saving its WDL table)"),
            )?;
        }
        Ok(())
    }

    /// `rtbgen -t THREADS -g -s MATERIAL`, its statistics written into `stats`.
    fn run(&self, material: Material, stats: &Path) -> Result<(Timed, [Counts; 2])> {
        let mut command = Command::new(&self.rtbgen);
        command
            .args([
                "-t",
                &self.threads.to_string(),
                "-g",
                "-s",
                &material.to_string(),
            ])
            .current_dir(stats)
            .env("RTBPATH", &self.tables)
            .env("RTBSTATSDIR", stats);
        let timed = run_sampled(
            &mut command,
            &format!(
                "the Syzygy generator {} on {material}",
                self.rtbgen.display()
            ),
        )?;
        let file = [material.to_string(), swapped_name(material)]
            .iter()
            .map(|name| stats.join(format!("{name}.txt")))
            .find(|path| path.exists())
            .ok_or_else(|| anyhow!("the Syzygy generator wrote no statistics for {material}"))?;
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("reading {}", file.display()))?;
        let counts = syzygy_counts(&text).with_context(|| format!("reading {}", file.display()))?;
        let counts = match file.file_stem() == Some(std::ffi::OsStr::new(&material.to_string())) {
            true => counts,
            false => [counts[1], counts[0]],
        };
        Ok((timed, counts))
    }
}

/// Builds each of the tables of `options` (six men, no pawns) `runs` times from the smaller
/// tables of `tables` (linked into a scratch directory made there, on the same disk),
/// alternating with the peer if any; verifies the first build when `verify_too`; counts its
/// positions and compares the counts with the peer's.
pub fn six_suite(
    tables: &Path,
    options: &SixOptions,
    runs: usize,
    verify_too: bool,
    as_json: bool,
) -> Result<Value> {
    let (board, peer) = (options.board, options.peer.as_ref());
    let mut results = Vec::new();
    if !as_json {
        println!(
            "{:<9} {:>4} {:>9} {:>9} {:>9} {:>9} {:>10} {:>10} {:>9}  counts",
            "table",
            "runs",
            "build s",
            "peak MiB",
            "verify s",
            "syzygy s",
            "syz MiB",
            "build/syz",
            "positions"
        );
    }
    for &material in &options.materials {
        if material.len() != 6 || material.has_pawns() {
            bail!("the six suite builds six-man tables without pawns, not {material}");
        }
        let scratch = tempfile::tempdir_in(tables)
            .with_context(|| format!("making a scratch directory in {}", tables.display()))?;
        link_tables(tables, scratch.path(), board, material)?;
        let plan = retro_gen::Builder::new(board, scratch.path()).plan(&[material])?;
        if let Some(peer) = peer {
            peer.prepare(material, &plan)?;
        }
        let stats_dir = scratch.path().join("syzygy-stats");
        std::fs::create_dir_all(&stats_dir)?;
        let table = retro_format::table_path(
            scratch.path(),
            &material.to_string(),
            board.files(),
            board.ranks(),
        );
        let mut ours = Vec::new();
        let mut peak_mib = 0f64;
        let mut theirs = Vec::new();
        let mut their_peak = 0f64;
        let mut verify_seconds = None;
        let mut counts = None;
        let mut stats = Value::Null;
        let mut peer_counts = None;
        // `retro VERB MATERIAL` on the scratch directory and the board.
        let verb = |verb: &str| -> Vec<String> {
            let mut args = material_args(&[material], scratch.path(), verb);
            if verb == "gen" {
                args.extend(["--kinds".to_string(), "dtm".to_string()]);
            }
            args.extend(["--board".to_string(), board.to_string()]);
            args
        };
        for run in 0..runs {
            if table.exists() {
                std::fs::remove_file(&table)
                    .with_context(|| format!("removing {}", table.display()))?;
            }
            let built = run_retro(&verb("gen"), &format!("gen {material}"))?;
            ours.push(built.seconds);
            peak_mib = peak_mib.max(built.peak_mib.unwrap_or(0.0));
            if run == 0 {
                let (ours, table) = retro_counts(material, board, scratch.path())?;
                counts = Some(ours);
                stats = table;
                if verify_too {
                    // Its smaller tables are checked first (their certificates are written
                    // beside them), then the table: the time is the table's and theirs.
                    verify_seconds = Some(run_retro(&verb("verify"), "verify")?.seconds);
                }
            }
            if let Some(peer) = peer {
                let (timed, peer_count) = peer.run(material, &stats_dir)?;
                theirs.push(timed.seconds);
                their_peak = their_peak.max(timed.peak_mib);
                peer_counts = Some(peer_count);
            }
        }
        let counts = counts.expect("at least one run");
        if let Some(peer_counts) = peer_counts {
            if peer_counts != counts {
                bail!(
                    "{material}: our counts (White to move {:?}, Black to move {:?}) differ from the Syzygy generator's ({:?}, {:?})",
                    counts[0], counts[1], peer_counts[0], peer_counts[1]
                );
            }
        }
        let (med, min, max) = spread(&ours);
        let peer_med = (!theirs.is_empty()).then(|| median(theirs.clone()));
        let positions: u64 = counts.iter().map(|c| c.wins + c.draws + c.losses).sum();
        let compared = match peer_counts {
            Some(_) => "equal to Syzygy's",
            None => "not compared",
        };
        if !as_json {
            let cell = |x: Option<f64>, digits: usize| {
                x.map_or("-".to_string(), |x| format!("{x:.digits$}"))
            };
            println!(
                "{:<9} {:>4} {:>9.1} {:>9.0} {:>9} {:>9} {:>10} {:>10} {:>9}  {compared}",
                material.to_string(),
                runs,
                med,
                peak_mib,
                cell(verify_seconds, 1),
                cell(peer_med, 1),
                cell((their_peak > 0.0).then_some(their_peak), 0),
                cell(peer_med.map(|p| med / p), 2),
                positions,
            );
        }
        let side = |c: &Counts| json!({ "wins": c.wins, "draws": c.draws, "losses": c.losses });
        results.push(json!({
            "material": material.to_string(),
            "runs": runs,
            "median_seconds": med, "min_seconds": min, "max_seconds": max,
            "seconds": ours,
            "peak_mib": peak_mib,
            "verify_seconds": verify_seconds,
            "syzygy_seconds": theirs,
            "syzygy_median_seconds": peer_med,
            "syzygy_peak_mib": (their_peak > 0.0).then_some(their_peak),
            "counts": { "white_to_move": side(&counts[0]), "black_to_move": side(&counts[1]) },
            "counts_equal_to_syzygy": peer_counts.map(|p| p == counts),
            "stats": stats,
        }));
    }
    Ok(
        json!({ "suite": "six", "what": "six-man pawnless tables, their smaller tables linked from --tables", "results": results }),
    )
}
