//! `retro bench`: how long building and verifying tables takes, and how much memory building
//! needs.
//!
//! Each run is a separate `retro gen` process on a fresh scratch directory, so its peak resident
//! memory is its own, followed by a separate `retro verify` process on the tables it built.
//! The smaller tables a suite starts from are built and verified before the clock starts, and
//! the timed `retro verify --resume` passes over them (their certificates hold), so the verify
//! time counts the same tables as the build time.
//! Times are wall-clock; the report gives the median and range over the runs and names the
//! machine. The `table1` suite times the README's main job (`retro table1`, cold) as a whole.
//!
//! With `--syzygy PATH` the Syzygy generator (`rtbgen`, github.com/syzygy1/tb) is timed beside
//! `retro gen` in the pawnless suites, a run of each in turn: `rtbgen -g` (generation without
//! compression or saving, the same thread count) on the suite's measured tables, one fresh
//! process per table. It reads the tables captures reach even then, so the 3–4-man tables are
//! built and saved by `rtbgen` first, before the clock starts.
//!
//! The pawn suites build their table's smaller tables once (or take them from `--tables DIR`,
//! linked, not copied) and time only the table itself. With `--syzygy-pawns PATH` and
//! `--syzygy-tables DIR` Syzygy's `rtbgenp -g` (its build for tables with pawns) is timed on the
//! same table, a run of each in turn, reading the WDL tables its captures and promotions reach
//! from DIR: those take hours to build (110 of them for KPPvKP), so the bench does not build
//! them.

use anyhow::{bail, Context, Result};
use retro_engine::Material;
use retro_rules::{Board, Piece, Side};
use retro_tablebase::table1;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum Suite {
    /// Every 3- and 4-man pawnless table on 8x8 (Table 1's 25 tables), from nothing.
    Small,
    /// KRBvKR, its smaller tables already built.
    Krbkr,
    /// All 60 five-man pawnless tables on 8x8, the 4-man tables already built (one run).
    Five,
    /// `retro table1` from an empty directory: build the 25 tables, verify them, print Table 1.
    Table1,
    /// KRPvKR (pawns of one side, promotions into five-man tables), its other tables built once.
    Krpkr,
    /// KQPvKQ (the deepest five-man table with a pawn), its other tables built once.
    Kqpkq,
    /// KPPvKP (pawns of both sides: en passant), its other tables built once.
    Kppkp,
    /// Packed tables: sizes by class, packing time and memory, probe times warm and cold
    /// (the raw tables of `--tables DIR`, else the 36 of up to 4 men built first).
    Pack,
    /// `retro probe --batch`: positions a second over random legal positions of the largest
    /// tables of `--tables DIR` (else of the 36 of up to 4 men), files in the page cache.
    Batch,
    /// Six-man pawnless tables (`--six`, default KRNvKNN, KRBvKRN, KQRvKQR), their smaller
    /// tables linked from `--tables DIR`, beside `rtbgen -g -s` (`--syzygy`, its tables in
    /// `--syzygy-tables`), the win/draw/loss counts compared.
    Six,
    /// A WDL50 probe against Syzygy's (shakmaty-syzygy on the Syzygy generator's files in
    /// `--syzygy-tables DIR`), side by side on random positions of the largest materials
    /// both hold, our tables from `--tables DIR`.
    Wdl,
}

impl Suite {
    fn describe(self) -> &'static str {
        match self {
            Suite::Small => "all 3- and 4-man pawnless tables on 8x8, from nothing",
            Suite::Krbkr => "KRBvKR, its smaller tables already built (and verified)",
            Suite::Five => "all 60 five-man pawnless tables on 8x8, the smaller ones already built (and verified)",
            Suite::Table1 => "retro table1 from an empty directory (build, verify, print)",
            Suite::Krpkr => "KRPvKR, the tables its captures and promotions reach already built (and verified)",
            Suite::Kqpkq => "KQPvKQ, the tables its captures and promotions reach already built (and verified)",
            Suite::Kppkp => "KPPvKP, the tables its captures and promotions reach already built (and verified)",
            Suite::Pack => "packed tables: sizes, packing time, probe times",
            Suite::Batch => "retro probe --batch: positions a second",
            Suite::Six => "six-man pawnless tables beside the Syzygy generator",
            Suite::Wdl => "a WDL50 probe beside shakmaty-syzygy's on the Syzygy generator's files",
        }
    }
}

/// The canonical pawnless materials of exactly five men.
pub fn five_man_materials() -> Vec<Material> {
    let mut all: Vec<Material> = Material::all_up_to(5, false)
        .into_iter()
        .filter(|m| m.len() == 5 && m.is_canonical())
        .collect();
    all.sort_by_key(|m| m.to_string());
    all
}

pub(crate) struct Run {
    pub(crate) seconds: f64,
    pub(crate) peak_mib: Option<f64>,
}

/// The Syzygy generator timed beside ours.
pub struct Peer {
    /// Its `rtbgen` binary.
    pub rtbgen: PathBuf,
    /// The threads it is given (`-t`): as many as `retro gen` uses.
    pub threads: usize,
}

impl Peer {
    /// Runs `rtbgen` on `material` in `dir` (where it reads the smaller tables, `RTBPATH`),
    /// saving the table when `save`, else only generating it (`-g`); the wall-clock seconds.
    fn run(&self, material: &Material, dir: &Path, save: bool) -> Result<f64> {
        let mut command = Command::new(&self.rtbgen);
        command
            .arg("-t")
            .arg(self.threads.to_string())
            .current_dir(dir)
            .env("RTBPATH", dir);
        if !save {
            command.arg("-g");
        }
        let what = format!(
            "the Syzygy generator {} on {material}",
            self.rtbgen.display()
        );
        let (seconds, _) = run_timed(command.arg(material.to_string()), &what)?;
        Ok(seconds)
    }

    /// Generates `materials` one fresh process each (`-g`); the seconds in all.
    fn time(&self, materials: &[Material], dir: &Path) -> Result<f64> {
        materials
            .iter()
            .try_fold(0.0, |total, m| Ok(total + self.run(m, dir, false)?))
    }
}

/// The Syzygy generator's build for tables with pawns (`rtbgenp`), timed beside ours on the
/// pawn suites.
pub struct PawnPeer {
    /// Its `rtbgenp` binary.
    pub rtbgenp: PathBuf,
    /// Where the Syzygy tables it reads (`RTBPATH`) are kept: at least the WDL files of every
    /// table the measured table's captures and promotions reach.
    pub tables: PathBuf,
    /// The threads it is given (`-t`): as many as `retro gen` uses.
    pub threads: usize,
}

impl PawnPeer {
    /// Fails, before anything is timed, if its tables directory holds no WDL table at all.
    fn check_tables(&self) -> Result<()> {
        let dir = &self.tables;
        let entries = std::fs::read_dir(dir)
            .with_context(|| format!("reading the Syzygy tables directory {}", dir.display()))?;
        let wdl = |e: std::io::Result<std::fs::DirEntry>| {
            e.is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".rtbw"))
        };
        if !entries.into_iter().any(wdl) {
            bail!(
                "{} holds no Syzygy WDL tables (*.rtbw); build the tables the pawn table reaches there first",
                dir.display()
            );
        }
        Ok(())
    }

    /// Generates `material` without saving it (`-g`) in a scratch directory; the wall-clock
    /// seconds.
    fn time(&self, material: &Material) -> Result<f64> {
        let scratch = tempfile::tempdir().context("making a scratch directory")?;
        let mut command = Command::new(&self.rtbgenp);
        command
            .args(["-t", &self.threads.to_string(), "-g", &material.to_string()])
            .current_dir(scratch.path())
            .env("RTBPATH", &self.tables);
        let what = format!(
            "the Syzygy generator {} on {material} (its tables in {})",
            self.rtbgenp.display(),
            self.tables.display()
        );
        // A table it needs and does not find fails it, its message naming the table.
        let (seconds, _) = run_timed(&mut command, &what)?;
        Ok(seconds)
    }
}

/// Links the tables of every kind of `from` for `board` but `measured`'s into `into`,
/// so that a pawn suite starts from tables built before; `retro gen` checks each (the ones it
/// reads whole) as it would its own.
pub(crate) fn link_tables(
    from: &Path,
    into: &Path,
    board: Board,
    measured: Material,
) -> Result<()> {
    for kind in retro_format::TableKind::ALL {
        for material in crate::support::kind_tables_in(from, board, kind)? {
            if material == measured {
                continue;
            }
            let path = retro_format::kind_table_path(
                from,
                kind,
                &material.to_string(),
                board.files(),
                board.ranks(),
            );
            let source = std::fs::canonicalize(&path)
                .with_context(|| format!("finding {}", path.display()))?;
            let name = path.file_name().expect("a table file's name");
            std::os::unix::fs::symlink(&source, into.join(name))
                .with_context(|| format!("linking {} into {}", source.display(), into.display()))?;
        }
    }
    Ok(())
}

/// The materials of at least three men the Syzygy generator takes among `materials`.
fn peer_materials(materials: &[Material]) -> Vec<Material> {
    materials.iter().filter(|m| m.len() >= 3).cloned().collect()
}

/// Runs `command` to its end and times it (wall clock); its standard output. An error names
/// `what` and gives the command's output when it cannot start or fails.
pub(crate) fn run_timed(command: &mut Command, what: &str) -> Result<(f64, String)> {
    let start = Instant::now();
    let out = command
        .output()
        .with_context(|| format!("running {what}"))?;
    let seconds = start.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        bail!(
            "{what} failed ({}): {}{}",
            out.status,
            stdout,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok((seconds, stdout))
}

/// Runs `retro ARGS…` as a fresh process and times it.
pub(crate) fn run_retro(args: &[String], what: &str) -> Result<Run> {
    let exe = std::env::current_exe().context("finding the retro binary")?;
    let (seconds, stdout) = run_timed(Command::new(exe).args(args), &format!("retro {what}"))?;
    let peak_mib = stdout
        .lines()
        .last()
        .and_then(|l| l.split("peak memory ").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok());
    Ok(Run { seconds, peak_mib })
}

pub(crate) fn material_args(materials: &[Material], dir: &Path, verb: &str) -> Vec<String> {
    let mut args = vec![verb.to_string()];
    args.extend(materials.iter().map(|m| m.to_string()));
    args.extend([
        "--dir".to_string(),
        dir.display().to_string(),
        "--quiet".to_string(),
    ]);
    args
}

/// `retro gen` of `materials` in `dir`, building the tables of `kinds` (`--kinds`).
fn gen(materials: &[Material], dir: &Path, kinds: &str) -> Result<Run> {
    let mut args = material_args(materials, dir, "gen");
    args.extend(["--kinds".to_string(), kinds.to_string()]);
    run_retro(&args, "gen")
}

fn verify(materials: &[Material], dir: &Path) -> Result<Run> {
    run_retro(&material_args(materials, dir, "verify"), "verify")
}

/// Verifies `materials` only: the smaller tables they reach were certified beforehand.
fn verify_measured(materials: &[Material], dir: &Path) -> Result<Run> {
    let mut args = material_args(materials, dir, "verify");
    args.push("--resume".to_string());
    run_retro(&args, "verify")
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let memory = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            text.lines()
                .next()
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|k| k.parse::<f64>().ok())
        })
        .map_or(String::new(), |kib| {
            format!(", {:.0} GiB", kib / 1024.0 / 1024.0)
        });
    format!("{cpu}, {cores} cores{memory}")
}

pub(crate) fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// The figures of one suite's runs.
struct Figures {
    build: Vec<f64>,
    verify: Vec<f64>,
    peak_mib: f64,
    /// The Syzygy generator's time for the same tables, run by run.
    peer: Vec<f64>,
}

pub(crate) fn spread(times: &[f64]) -> (f64, f64, f64) {
    if times.is_empty() {
        return (f64::NAN, f64::NAN, f64::NAN);
    }
    (
        median(times.to_vec()),
        times.iter().copied().fold(f64::INFINITY, f64::min),
        times.iter().copied().fold(0.0, f64::max),
    )
}

#[allow(clippy::too_many_arguments)]
pub fn bench(
    suites: &[Suite],
    runs: u32,
    verify_too: bool,
    as_json: bool,
    peer: Option<&Peer>,
    pawn_peer: Option<&PawnPeer>,
    tables: Option<&Path>,
    wdl_syzygy: Option<&Path>,
    probes: usize,
    six: &crate::bench_six::SixOptions,
    kinds: &[crate::MetricArg],
    coders: &[crate::pack::CoderArg],
) -> Result<ExitCode> {
    let kinds: Vec<&str> = kinds
        .iter()
        .map(|k| match k {
            crate::MetricArg::Dtm => "dtm",
            crate::MetricArg::Fifty => "fifty",
        })
        .collect();
    let kinds = kinds.join(",");
    let gen = |materials: &[Material], dir: &Path| gen(materials, dir, &kinds);
    let mut suites: Vec<Suite> = if suites.is_empty() {
        vec![Suite::Small, Suite::Krbkr]
    } else {
        suites.to_vec()
    };
    let pawn_suite = |s: &Suite| matches!(s, Suite::Krpkr | Suite::Kqpkq | Suite::Kppkp);
    if pawn_peer.is_some() && !suites.iter().any(pawn_suite) {
        bail!("--syzygy-pawns and --syzygy-tables apply to the pawn suites (krpkr, kqpkq, kppkp) only");
    }
    let apart = |s: &Suite| matches!(s, Suite::Pack | Suite::Batch | Suite::Six | Suite::Wdl);
    if tables.is_some() && !suites.iter().any(|s| pawn_suite(s) || apart(s)) {
        bail!(
            "--tables applies to the pawn suites (krpkr, kqpkq, kppkp) and the pack, batch, six and wdl suites only"
        );
    }
    if let Some(pawn_peer) = pawn_peer {
        pawn_peer.check_tables()?;
    }
    let board = Board::STANDARD;
    if let Some(from) = tables {
        let board = match suites.contains(&Suite::Six) {
            true => six.board,
            false => board,
        };
        let kind = match suites.contains(&Suite::Wdl) {
            true => retro_format::TableKind::Wdl50,
            false => retro_format::TableKind::Dtm,
        };
        if crate::support::kind_tables_in(from, board, kind)?.is_empty() {
            bail!(
                "{} holds no table files (*.{board}{}.rtb or .rtbz)",
                from.display(),
                kind.suffix()
            );
        }
    }
    let machine = machine();
    let mut results = Vec::new();
    if suites.iter().any(apart) {
        if suites.contains(&Suite::Pack) {
            for &coder in coders {
                results.push(crate::bench_pack::pack_suite(
                    tables, probes, coder, as_json, &machine,
                )?);
            }
        }
        if suites.contains(&Suite::Batch) {
            results.push(crate::bench_pack::batch_suite(
                tables,
                probes,
                runs as usize,
                as_json,
            )?);
        }
        if suites.contains(&Suite::Six) {
            let tables = tables.ok_or_else(|| {
                anyhow::anyhow!("the six suite needs --tables DIR, holding the five-man tables")
            })?;
            results.push(crate::bench_six::six_suite(
                tables,
                six,
                runs as usize,
                verify_too,
                as_json,
            )?);
        }
        if suites.contains(&Suite::Wdl) {
            let (Some(tables), Some(syzygy)) = (tables, wdl_syzygy) else {
                bail!("the wdl suite needs --tables DIR (WDL50 tables) and --syzygy-tables DIR (the Syzygy generator's .rtbw files)");
            };
            results.push(crate::bench_wdl::wdl_suite(
                tables, syzygy, probes, as_json, &machine,
            )?);
        }
        suites.retain(|s| !apart(s));
        if suites.is_empty() {
            if as_json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(
                        &json!({ "machine": machine, "board": board.to_string(), "results": results })
                    )?
                );
            }
            return Ok(ExitCode::SUCCESS);
        }
    }
    if !as_json {
        println!("retro bench — {machine}; release build; wall-clock seconds of fresh processes; peak resident memory of the gen process");
        println!(
            "{:<7} {:>4} {:>9} {:>8} {:>8} {:>9} {:>10} {:>11} {:>9} {:>10}  what",
            "suite",
            "runs",
            "build s",
            "min s",
            "max s",
            "peak MiB",
            "verify s",
            "verify/build",
            "syzygy s",
            "build/syz"
        );
    }
    let small = table1::materials();
    // The Syzygy generator's 3–4-man tables, saved once for every suite, in the order
    // `table1::materials` lists them (smaller first): it reads those its captures reach even
    // with `-g`.
    let peer_kept = tempfile::tempdir().context("making a scratch directory")?;
    let peer_suite = |s: &Suite| matches!(s, Suite::Small | Suite::Krbkr | Suite::Five);
    if let (Some(peer), true) = (peer, suites.iter().any(peer_suite)) {
        for m in peer_materials(&small) {
            peer.run(&m, peer_kept.path(), true)?;
        }
    }
    for suite in suites {
        let runs = if suite == Suite::Five { 1 } else { runs.max(1) };
        let mut figures = Figures {
            build: Vec::new(),
            verify: Vec::new(),
            peak_mib: 0.0,
            peer: Vec::new(),
        };
        let peer = peer.filter(|_| peer_suite(&suite));
        // The pawn suites build their smaller tables (five-man ones among them) once, into a
        // directory kept across runs, and build the measured table again each run.
        let kept = tempfile::tempdir().context("making a scratch directory")?;
        let pawn_table = match suite {
            Suite::Krpkr => Some("KRPvKR"),
            Suite::Kqpkq => Some("KQPvKQ"),
            Suite::Kppkp => Some("KPPvKP"),
            _ => None,
        }
        .map(|name| name.parse::<Material>().map_err(|e| anyhow::anyhow!("{e}")))
        .transpose()?;
        if let Some(material) = pawn_table {
            if let Some(from) = tables {
                link_tables(from, kept.path(), board, material)?;
            }
            gen(&[material], kept.path())?;
            if verify_too {
                verify(&[material], kept.path())?;
            }
        }
        for _ in 0..runs {
            let scratch = tempfile::tempdir().context("making a scratch directory")?;
            let (prepare, measured): (Vec<Material>, Vec<Material>) = match suite {
                Suite::Krpkr | Suite::Kqpkq | Suite::Kppkp => {
                    let material = pawn_table.expect("a pawn suite names its table");
                    let path = kept.path().join(retro_format::file_name(
                        &material.to_string(),
                        board.files(),
                        board.ranks(),
                    ));
                    std::fs::remove_file(&path)
                        .with_context(|| format!("removing {}", path.display()))?;
                    let run = gen(&[material], kept.path())?;
                    figures.build.push(run.seconds);
                    figures.peak_mib = figures.peak_mib.max(run.peak_mib.unwrap_or(0.0));
                    if verify_too {
                        figures
                            .verify
                            .push(verify_measured(&[material], kept.path())?.seconds);
                    }
                    if let Some(pawn_peer) = pawn_peer {
                        figures.peer.push(pawn_peer.time(&material)?);
                    }
                    continue;
                }
                Suite::Pack | Suite::Batch | Suite::Six | Suite::Wdl => {
                    unreachable!("these suites run apart, above")
                }
                Suite::Small => (Vec::new(), small.clone()),
                Suite::Krbkr => {
                    let krbkr = Material::from_men(&[
                        (Side::White, Piece::King),
                        (Side::White, Piece::Rook),
                        (Side::White, Piece::Bishop),
                        (Side::Black, Piece::King),
                        (Side::Black, Piece::Rook),
                    ]);
                    (krbkr_subtables(krbkr), vec![krbkr])
                }
                Suite::Five => (small.clone(), five_man_materials()),
                Suite::Table1 => {
                    let args = vec![
                        "table1".to_string(),
                        "--dir".to_string(),
                        scratch.path().display().to_string(),
                        "--quiet".to_string(),
                    ];
                    figures.build.push(run_retro(&args, "table1")?.seconds);
                    continue;
                }
            };
            if !prepare.is_empty() {
                gen(&prepare, scratch.path())?;
                if verify_too {
                    verify(&prepare, scratch.path())?;
                }
            }
            let run = gen(&measured, scratch.path())?;
            figures.build.push(run.seconds);
            figures.peak_mib = figures.peak_mib.max(run.peak_mib.unwrap_or(0.0));
            if verify_too {
                figures
                    .verify
                    .push(verify_measured(&measured, scratch.path())?.seconds);
            }
            if let Some(peer) = peer {
                figures
                    .peer
                    .push(peer.time(&peer_materials(&measured), peer_kept.path())?);
            }
        }
        let (med, min, max) = spread(&figures.build);
        let (verify_med, _, _) = spread(&figures.verify);
        let ratio = verify_med / med;
        let (peer_med, _, _) = spread(&figures.peer);
        let name = format!("{suite:?}").to_lowercase();
        if as_json {
            results.push(
                json!({ "suite": name, "what": suite.describe(), "runs": runs,
                "median_seconds": med, "min_seconds": min, "max_seconds": max,
                "peak_mib": figures.peak_mib, "seconds": figures.build,
                "verify_median_seconds": (!figures.verify.is_empty()).then_some(verify_med),
                "verify_seconds": figures.verify,
                "syzygy_median_seconds": (!figures.peer.is_empty()).then_some(peer_med),
                "syzygy_seconds": figures.peer }),
            );
        } else {
            let verify_cell = |x: f64, digits: usize| {
                if x.is_nan() {
                    "-".to_string()
                } else {
                    format!("{x:.digits$}")
                }
            };
            println!(
                "{:<7} {:>4} {:>9.2} {:>8.2} {:>8.2} {:>9} {:>10} {:>11} {:>9} {:>10}  {}",
                name,
                runs,
                med,
                min,
                max,
                if suite == Suite::Table1 {
                    "-".to_string()
                } else {
                    format!("{:.0}", figures.peak_mib)
                },
                verify_cell(verify_med, 2),
                verify_cell(ratio, 2),
                verify_cell(peer_med, 2),
                verify_cell(med / peer_med, 2),
                suite.describe()
            );
        }
    }
    if as_json {
        println!(
            "{}",
            serde_json::to_string_pretty(
                &json!({ "machine": machine, "board": board.to_string(), "results": results })
            )?
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn krbkr_subtables(krbkr: Material) -> Vec<Material> {
    let mut subs = Vec::new();
    for side in Side::ALL {
        for piece in Piece::PROMOTIONS {
            if let Some(m) = krbkr.without(side, piece) {
                subs.push(m.canonical().0);
            }
        }
    }
    subs
}
