//! `--distributed`: `retro gen` and `retro verify` as one rank of an MPI job
//! (`mpirun -np N retro … --distributed`, in a `retro` built with `--features mpi`).
//!
//! Owns: starting the job, handing each rank its part, printing on rank 0 only, and ending
//! every rank with the same outcome. Must never: build or check anything itself (`retro-gen`
//! partitions a build, `retro-verify` shares out a check), or call MPI (`retro-mpi` does).

use crate::support::{available_memory, human_bytes, peak_memory_mib, Bars};
use crate::verify::{check_bar, print_report};
use anyhow::Result;
use retro_engine::Material;
use retro_format::Value;
use retro_gen::{Builder, GenError, Observer, Ranks, Silent};
use retro_rules::Board;
use retro_verify::men::Men;
use retro_verify::{Checker, Failure, Share, ShareReport};
use serde_json::json;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

/// `retro gen --distributed`: this process as one rank of the MPI job it was started in.
pub fn gen(
    builder: Builder,
    materials: &[Material],
    dir: &Path,
    quiet: bool,
    mem: Option<u64>,
) -> Result<ExitCode> {
    let job = start()?;
    // The ranks on one machine share its memory.
    let limit = mem.or_else(|| available_memory().map(|b| b / job.ranks_here().max(1) as u64));
    gen_on(
        job.ranks(),
        builder.with_memory_limit(limit),
        materials,
        dir,
        quiet,
    )
}

/// `retro verify --distributed`: this process as one rank of the MPI job it was started in.
pub fn verify(checker: &Checker, plan: &[Men], board: Board, quiet: bool) -> Result<ExitCode> {
    let job = start()?;
    verify_on(job.ranks(), checker, plan, board, quiet)
}

#[cfg(feature = "mpi")]
fn start() -> Result<Job> {
    retro_mpi::Job::start()
        .map(Job)
        .ok_or_else(|| anyhow::anyhow!("MPI could not be started in this process"))
}

#[cfg(feature = "mpi")]
struct Job(retro_mpi::Job);

#[cfg(feature = "mpi")]
impl Job {
    fn ranks(&self) -> &dyn Ranks {
        self.0.ranks()
    }
    fn ranks_here(&self) -> usize {
        self.0.ranks().ranks_on_this_machine()
    }
}

#[cfg(not(feature = "mpi"))]
fn start() -> Result<Job> {
    anyhow::bail!(
        "this retro was built without MPI: `--distributed` needs a build with \
         `cargo build --release --features mpi` (on Debian, Open MPI and clang first: \
         `apt-get install openmpi-bin libopenmpi-dev libclang-dev`), run under `mpirun`"
    )
}

#[cfg(not(feature = "mpi"))]
enum Job {}

#[cfg(not(feature = "mpi"))]
impl Job {
    fn ranks(&self) -> &dyn Ranks {
        match *self {}
    }
    fn ranks_here(&self) -> usize {
        match *self {}
    }
}

/// [`gen`] on `ranks`.
fn gen_on(
    ranks: &dyn Ranks,
    builder: Builder,
    materials: &[Material],
    dir: &Path,
    quiet: bool,
) -> Result<ExitCode> {
    let lead = ranks.rank() == 0;
    let bars = Bars::new(quiet);
    let observer: &dyn Observer = if lead { &bars } else { &Silent };
    let start = Instant::now();
    let result = builder.build_on(materials, observer, ranks);
    // The builder stops every rank together; each says why it stopped, rank 0 prints.
    let why = match &result {
        Err(GenError::OtherRank { .. }) | Ok(_) => String::new(),
        Err(e) => format!("building tables in {}: {e}", dir.display()),
    };
    let whys = ranks.gather(why.into_bytes());
    let reports = match result {
        Ok(reports) => reports,
        Err(_) => {
            print_errors(&whys);
            return Ok(ExitCode::FAILURE);
        }
    };
    for report in reports.iter().filter(|r| !r.reused) {
        let traffic = report.traffic.unwrap_or_default();
        let words = [
            traffic.entries_held,
            traffic.exchanges,
            traffic.bytes_sent,
            traffic.bytes_received,
            traffic.largest_exchange,
            traffic.exchange_seconds.to_bits(),
            report.retrograde_seconds.to_bits(),
            traffic.local_updates,
        ];
        let gathered = ranks.gather(words.iter().flat_map(|w| w.to_le_bytes()).collect());
        if lead && ranks.count() > 1 {
            println!(
                "{:>14}  over {} ranks, each holding a contiguous part of the index:",
                report.material.to_string(),
                ranks.count()
            );
            for (rank, bytes) in gathered.iter().enumerate() {
                let w: Vec<u64> = bytes
                    .chunks_exact(8)
                    .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
                    .collect();
                println!(
                    "{:>14}  rank {rank}: {} entries a side; {} parent updates at home; sent {} \
                     and received {} in {} exchanges (largest {}); {:.2} s exchanging of {:.2} \
                     s retrograde",
                    "",
                    w[0],
                    w[7],
                    human_bytes(w[2]),
                    human_bytes(w[3]),
                    w[1],
                    human_bytes(w[4]),
                    f64::from_bits(w[5]),
                    f64::from_bits(w[6]),
                );
            }
        }
    }
    let peak = peak_memory_mib().unwrap_or(0.0);
    let peaks = ranks.gather(peak.to_le_bytes().to_vec());
    if lead {
        let peaks: Vec<String> = peaks
            .iter()
            .map(|b| {
                let mib = f64::from_le_bytes(b[..8].try_into().expect("8 bytes"));
                format!("{mib:.0}")
            })
            .collect();
        let built = reports.iter().filter(|r| !r.reused).count();
        println!(
            "{} tables ready in {} ({built} built, {} kept) in {:.2} s over {}; \
             peak memory by rank {} MiB",
            reports.len(),
            dir.display(),
            reports.len() - built,
            start.elapsed().as_secs_f64(),
            rank_count(ranks.count()),
            peaks.join(", ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// [`verify`] on `ranks`: each rank checks its share of every table; rank 0 adds the shares
/// up, prints and certifies, and tells every rank whether to go on.
fn verify_on(
    ranks: &dyn Ranks,
    checker: &Checker,
    plan: &[Men],
    board: Board,
    quiet: bool,
) -> Result<ExitCode> {
    let lead = ranks.rank() == 0;
    let share = Share {
        rank: ranks.rank(),
        count: ranks.count(),
    };
    if lead {
        println!(
            "verify: {} tables on {board} in {}, smallest first, against the natural model, \
             over {}",
            plan.len(),
            checker.dir().display(),
            rank_count(ranks.count())
        );
    }
    let start = Instant::now();
    let (mut positions, mut failed) = (0u64, 0u64);
    for men in plan {
        let started = Instant::now();
        let placements = retro_verify::scheme::Scheme::new(board, men).size();
        let bar = check_bar(men, placements / ranks.count() as u64, quiet || !lead);
        let result = checker.check_share(men, share, &|n| bar.inc(n));
        bar.finish_and_clear();
        let encoded = match result {
            Ok(report) => encode_share(&report),
            Err(e) => json!({ "error": format!("checking {men}: {e}") }),
        };
        let gathered = ranks.gather(encoded.to_string().into_bytes());
        let mut go_on = true;
        if lead {
            let mut shares = Vec::new();
            let mut whys = Vec::new();
            for bytes in &gathered {
                match decode_share(bytes) {
                    Ok(share) => {
                        shares.push(share);
                        whys.push(Vec::new());
                    }
                    Err(why) => whys.push(why.into_bytes()),
                }
            }
            if whys.iter().any(|w| !w.is_empty()) {
                print_errors(&whys);
                go_on = false;
            }
            if go_on {
                let combined = checker
                    .combine(men, shares, started)
                    .map_err(anyhow::Error::from)
                    .and_then(|report| {
                        positions += report.positions;
                        print_report(checker, &report, board, &mut std::io::stdout())
                    });
                match combined {
                    Ok(true) => {}
                    Ok(false) => failed += 1,
                    Err(e) => {
                        eprintln!("error: checking {men}: {e:#}");
                        go_on = false;
                    }
                }
            }
        }
        // Every rank learns whether to go on, and how many tables failed so far.
        let verdict = ranks.broadcast(vec![u64::from(go_on), failed]);
        if verdict[0] != 1 {
            return Ok(ExitCode::FAILURE);
        }
        failed = verdict[1];
    }
    if lead {
        println!(
            "checked {} tables, {positions} legal positions, in {:.1} s over {}: {}",
            plan.len(),
            start.elapsed().as_secs_f64(),
            rank_count(ranks.count()),
            match failed {
                0 => "all pass".to_string(),
                n => format!("{n} FAIL"),
            }
        );
    }
    Ok(match failed {
        0 => ExitCode::SUCCESS,
        _ => ExitCode::FAILURE,
    })
}

/// "1 rank", "3 ranks".
fn rank_count(count: usize) -> String {
    match count {
        1 => "1 rank".into(),
        n => format!("{n} ranks"),
    }
}

/// Prints each rank's error (`whys[rank]`, empty where a rank has none) once, with the ranks
/// that gave it.
fn print_errors(whys: &[Vec<u8>]) {
    let mut distinct: Vec<(String, Vec<usize>)> = Vec::new();
    for (rank, why) in whys.iter().enumerate().filter(|(_, w)| !w.is_empty()) {
        let why = String::from_utf8_lossy(why).into_owned();
        match distinct.iter_mut().find(|(w, _)| *w == why) {
            Some((_, ranks)) => ranks.push(rank),
            None => distinct.push((why, vec![rank])),
        }
    }
    for (why, ranks) in distinct {
        let ranks: Vec<String> = ranks.iter().map(usize::to_string).collect();
        let label = if ranks.len() == 1 { "rank" } else { "ranks" };
        eprintln!("error: {label} {}: {why}", ranks.join(", "));
    }
}

/// A share's report as JSON, for rank 0.
fn encode_share(report: &ShareReport) -> serde_json::Value {
    json!({
        "legal": report.legal,
        "failure_count": report.failure_count,
        "failures": report.failures.iter().map(|f| json!({
            "fen": f.fen,
            "stored": f.stored.code(),
            "problem": f.problem,
        })).collect::<Vec<_>>(),
    })
}

/// [`encode_share`]'s JSON back, or the error a rank sent instead.
fn decode_share(bytes: &[u8]) -> Result<ShareReport, String> {
    let broken = || "a rank sent a share report that does not read".to_string();
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|_| broken())?;
    if let Some(error) = value["error"].as_str() {
        return Err(error.to_string());
    }
    let number = |v: &serde_json::Value| v.as_u64().ok_or_else(broken);
    let failures = value["failures"]
        .as_array()
        .ok_or_else(broken)?
        .iter()
        .map(|f| {
            Ok(Failure {
                fen: f["fen"].as_str().ok_or_else(broken)?.to_string(),
                stored: Value::from_code(number(&f["stored"])? as u32).into(),
                problem: f["problem"].as_str().ok_or_else(broken)?.to_string(),
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(ShareReport {
        legal: [number(&value["legal"][0])?, number(&value["legal"][1])?],
        failure_count: number(&value["failure_count"])?,
        failures,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_gen::ThreadRanks;

    /// Runs `work` on `count` thread ranks; each rank's result.
    fn on_threads<T: Send + 'static>(
        count: usize,
        work: impl Fn(&ThreadRanks) -> T + Send + Sync + 'static,
    ) -> Vec<T> {
        let work = std::sync::Arc::new(work);
        let handles: Vec<_> = ThreadRanks::group(count)
            .into_iter()
            .map(|ranks| {
                let work = std::sync::Arc::clone(&work);
                std::thread::spawn(move || work(&ranks))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("no panic"))
            .collect()
    }

    /// `retro gen --distributed MATERIAL` on `count` thread ranks; each rank's exit code.
    fn gen_on_threads(count: usize, board: Board, dir: &Path, material: &str) -> Vec<ExitCode> {
        let (dir, material) = (dir.to_path_buf(), Material::parse(material).unwrap());
        on_threads(count, move |ranks| {
            let builder = Builder::new(board, &dir);
            gen_on(ranks, builder, &[material], &dir, true).unwrap()
        })
    }

    /// `retro verify --distributed MATERIAL` on `count` thread ranks; each rank's exit code.
    fn verify_on_threads(
        count: usize,
        board: Board,
        dir: &Path,
        material: &'static str,
    ) -> Vec<ExitCode> {
        let dir = dir.to_path_buf();
        on_threads(count, move |ranks| {
            let checker = Checker::new(board, &dir);
            let plan = checker.plan(&[material]).unwrap();
            verify_on(ranks, &checker, &plan, board, true).unwrap()
        })
    }

    #[test]
    fn a_share_report_travels_whole() {
        let report = ShareReport {
            legal: [5, 7],
            failure_count: 3,
            failures: vec![Failure {
                fen: "4/4/1k2/K3 w - - 0 1".into(),
                stored: Value::Win(3).into(),
                problem: "(W) \"quoted\"".into(),
            }],
        };
        let back = decode_share(encode_share(&report).to_string().as_bytes()).unwrap();
        assert_eq!(back.legal, report.legal);
        assert_eq!(back.failure_count, 3);
        assert_eq!(back.failures, report.failures);
        let error = json!({ "error": "rank 2: no file" }).to_string();
        assert_eq!(
            decode_share(error.as_bytes()).unwrap_err(),
            "rank 2: no file"
        );
        assert!(decode_share(b"{").is_err());
    }

    #[test]
    fn ranks_build_and_verify_together() {
        let board = Board::new(4, 4).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let codes = gen_on_threads(3, board, dir.path(), "KQvKR");
        assert!(codes.iter().all(|&c| c == ExitCode::SUCCESS));
        let codes = verify_on_threads(2, board, dir.path(), "KQvKR");
        assert!(codes.iter().all(|&c| c == ExitCode::SUCCESS));
        let checker = Checker::new(board, dir.path());
        for men in checker.plan(&["KQvKR"]).unwrap() {
            assert!(checker.certificate_path(&men).exists(), "{men}");
        }
    }

    #[test]
    fn a_wrong_entry_fails_the_distributed_check() {
        let board = Board::new(4, 4).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let krvk = [Material::parse("KRvK").unwrap()];
        Builder::new(board, dir.path())
            .build(&krvk, &Silent)
            .unwrap();
        // One entry changed, the checksum made anew: only the check can tell.
        let path = dir.path().join("KRvK.4x4.rtb");
        let table = retro_format::Table::open(&path).unwrap();
        let header = table.header().clone();
        let mut body = table.body().to_vec();
        drop(table);
        let entry = body.iter().position(|&b| b > 2).expect("a decided entry");
        body[entry] += 2;
        retro_format::write_table(&path, &header, &body).unwrap();
        let codes = verify_on_threads(3, board, dir.path(), "KRvK");
        assert!(codes.iter().all(|&c| c == ExitCode::FAILURE));
        let checker = Checker::new(board, dir.path());
        let men = Men::parse("KRvK").unwrap();
        assert!(!checker.certificate_path(&men).exists());
    }

    #[test]
    fn a_build_that_fails_on_one_rank_fails_on_all() {
        let board = Board::new(4, 4).unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("KRvK.4x4.rtb/occupied")).unwrap();
        let codes = gen_on_threads(2, board, dir.path(), "KRvK");
        assert!(codes.iter().all(|&c| c == ExitCode::FAILURE));
    }

    #[test]
    fn a_rank_that_cannot_check_stops_every_rank() {
        let board = Board::new(4, 4).unwrap();
        let dir = tempfile::tempdir().unwrap();
        // No tables at all: every rank fails to read KRvK, and all stop.
        let codes = verify_on_threads(2, board, dir.path(), "KRvK");
        assert!(codes.iter().all(|&c| c == ExitCode::FAILURE));
    }
}
