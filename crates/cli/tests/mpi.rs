//! `retro gen --distributed` and `retro verify --distributed` under `mpirun`: the files of
//! two and three ranks (an odd count) equal one process's byte for byte, on 8×8 and 6×6; a
//! rank killed part way fails the run and leaves no table; a rerun succeeds.
//!
//! The `retro` these tests run is built with `--features mpi` into its own target directory
//! (`target/mpi`), after Debian's Open MPI and clang (for rsmpi's bindings) are installed with
//! apt-get when missing, so the test command needs no preparation on a fresh machine (as
//! root, as CI runs). A five-man table over two ranks is among them.

mod common;

use common::{apt_install, stderr_text, stdout_text, written_files};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The `retro` binary with MPI, built once for all the tests of this file.
fn mpi_retro() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let packages = ["openmpi-bin", "libopenmpi-dev", "libclang-dev"];
        let installed = Command::new("dpkg-query")
            .args(["-W", "-f", "${Status}\n"])
            .args(packages)
            .output()
            .is_ok_and(|out| {
                let text = String::from_utf8_lossy(&out.stdout).into_owned();
                out.status.success() && text.lines().all(|l| l.ends_with(" installed"))
            });
        if !installed {
            assert!(
                apt_install(&packages),
                "Open MPI and libclang are needed: `apt-get install {}` failed",
                packages.join(" ")
            );
        }
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let target = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .parent()
            .expect("the target directory")
            .join("mpi");
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let out = Command::new(cargo)
            .current_dir(&workspace)
            .args(["build", "--release", "-p", "retro-cli", "--features", "mpi"])
            .arg("--target-dir")
            .arg(&target)
            .output()
            .expect("cargo runs");
        assert!(
            out.status.success(),
            "building retro with MPI failed:\n{}",
            stderr_text(&out)
        );
        target.join("release/retro")
    })
}

/// `mpirun -np ranks retro args`, as root where CI runs, more ranks than cores allowed.
fn mpirun(ranks: usize) -> Command {
    let mut command = Command::new("mpirun");
    command
        .args(["--allow-run-as-root", "--oversubscribe", "-np"])
        .arg(ranks.to_string())
        .arg(mpi_retro());
    command
}

fn run(mut command: Command) -> Output {
    command.output().expect("mpirun runs")
}

/// One process's build of `materials` on `board` into `dir`, with the plain `retro`.
fn one_process(dir: &Path, board: &str, materials: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_retro"))
        .arg("gen")
        .args(materials)
        .args(["--board", board, "--kinds", "dtm", "--quiet", "--dir"])
        .arg(dir)
        .output()
        .expect("retro runs");
    assert!(out.status.success(), "{}", stderr_text(&out));
}

fn distributed_gen(ranks: usize, dir: &Path, board: &str, materials: &[&str]) -> Output {
    let mut command = mpirun(ranks);
    command
        .arg("gen")
        .args(materials)
        .args(["--board", board, "--quiet", "--distributed", "--dir"])
        .arg(dir);
    run(command)
}

/// The table files of `dir` (certificates and other files aside).
fn tables(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut files = written_files(dir);
    files.retain(|name, _| name.ends_with(".rtb"));
    files
}

fn builds_agree(board: &str, materials: &[&str]) {
    let single = tempfile::tempdir().unwrap();
    one_process(single.path(), board, materials);
    let expected = tables(single.path());
    for ranks in [2, 3] {
        let dir = tempfile::tempdir().unwrap();
        let out = distributed_gen(ranks, dir.path(), board, materials);
        let text = stdout_text(&out);
        assert!(out.status.success(), "{text}{}", stderr_text(&out));
        assert!(
            text.contains(&format!("over {ranks} ranks")),
            "each table's traffic by rank is printed:\n{text}"
        );
        let found = tables(dir.path());
        assert_eq!(
            found.keys().collect::<Vec<_>>(),
            expected.keys().collect::<Vec<_>>()
        );
        for (name, bytes) in &expected {
            assert!(
                found[name] == *bytes,
                "{name} built by {ranks} ranks on {board} differs from one process's"
            );
        }
        // The check over the same ranks passes every table and certifies it.
        let mut command = mpirun(ranks);
        command
            .arg("verify")
            .args(materials)
            .args(["--board", board, "--quiet", "--distributed", "--dir"])
            .arg(dir.path());
        let out = run(command);
        let text = stdout_text(&out);
        assert!(out.status.success(), "{text}{}", stderr_text(&out));
        assert!(text.contains("all pass"), "{text}");
        let certificates = written_files(dir.path())
            .keys()
            .filter(|n| n.ends_with(".verified"))
            .count();
        assert_eq!(certificates, expected.len(), "{text}");
    }
}

#[test]
fn two_and_three_ranks_write_the_one_process_files_on_8x8() {
    builds_agree("8x8", &["KRvKR", "KQvKR"]);
}

#[test]
fn two_and_three_ranks_write_the_one_process_files_on_6x6() {
    builds_agree("6x6", &["KRvKR", "KQvKR"]);
}

/// The process ids of the children of `parent` (Linux).
fn children(parent: u32) -> Vec<u32> {
    let tasks = format!("/proc/{parent}/task");
    let mut found = Vec::new();
    for task in std::fs::read_dir(tasks).into_iter().flatten().flatten() {
        let list = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        found.extend(
            list.split_whitespace()
                .filter_map(|p| p.parse::<u32>().ok()),
        );
    }
    found
}

#[test]
fn a_killed_rank_fails_the_run_and_leaves_no_table() {
    let dir = tempfile::tempdir().unwrap();
    let mut command = mpirun(3);
    command
        .args(["gen", "KQvKR", "--quiet", "--distributed", "--dir"])
        .arg(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let job = command.spawn().expect("mpirun starts");
    // KQvKR's smaller tables take a moment; KQvKR itself takes seconds. Kill a rank once
    // they are written, while KQvKR is being solved.
    let start = Instant::now();
    while !dir.path().join("KRvK.8x8.rtb").exists() || !dir.path().join("KQvK.8x8.rtb").exists() {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "the smaller tables never appeared"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(300));
    let ranks = children(job.id());
    assert_eq!(
        ranks.len(),
        3,
        "mpirun starts one process a rank: {ranks:?}"
    );
    let victim = ranks[ranks.len() - 1];
    assert!(Command::new("kill")
        .args(["-KILL", &victim.to_string()])
        .status()
        .is_ok_and(|s| s.success()));
    let out = job.wait_with_output().expect("mpirun ends");
    assert!(!out.status.success(), "the run fails when a rank dies");
    let said = format!("{}{}", stdout_text(&out), stderr_text(&out));
    assert!(
        said.contains("signal 9") || said.contains("Killed"),
        "mpirun names the rank that died:\n{said}"
    );
    let left = written_files(dir.path());
    assert!(
        !left.contains_key("KQvKR.8x8.rtb"),
        "the killed run was still solving KQvKR, and wrote none of it: {:?}",
        left.keys()
    );
    assert!(
        left.keys().all(|n| n.ends_with(".rtb")),
        "no partial or temporary file: {:?}",
        left.keys()
    );
    // A rerun keeps the smaller tables and builds KQvKR, the file one process writes.
    let out = distributed_gen(3, dir.path(), "8x8", &["KQvKR"]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    assert!(
        stdout_text(&out).contains("1 built, 3 kept"),
        "{}",
        stdout_text(&out)
    );
    let single = tempfile::tempdir().unwrap();
    one_process(single.path(), "8x8", &["KQvKR"]);
    assert!(tables(dir.path()) == tables(single.path()));
}

#[test]
fn a_wrong_flag_and_a_retro_without_mpi_say_what_is_wrong() {
    // The plain build has no MPI and says how to get it.
    let out = Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(["gen", "KRvK", "--distributed", "--quiet", "--dir"])
        .arg(tempfile::tempdir().unwrap().path())
        .output()
        .expect("retro runs");
    let said = stderr_text(&out);
    if !cfg!(feature = "mpi") {
        assert!(!out.status.success());
        assert!(said.contains("--features mpi"), "{said}");
    }
    // `--resume` is for one process.
    let out = Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(["verify", "KRvK", "--distributed", "--resume"])
        .output()
        .expect("retro runs");
    assert!(!out.status.success());
    assert!(
        stderr_text(&out).contains("--resume"),
        "{}",
        stderr_text(&out)
    );
}

#[test]
fn a_five_man_table_over_two_ranks_is_the_one_process_file() {
    // KBBvKB: sliders and identical men, 60 million entries a side; five times quicker than
    // KQRvKR over two ranks (docs/scaling.md measures that one).
    let single = tempfile::tempdir().unwrap();
    one_process(single.path(), "8x8", &["KBBvKB"]);
    let dir = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let out = distributed_gen(2, dir.path(), "8x8", &["KBBvKB"]);
    eprintln!("{}", stdout_text(&out));
    assert!(out.status.success(), "{}", stderr_text(&out));
    eprintln!("two ranks: {:.1} s", start.elapsed().as_secs_f64());
    let expected = tables(single.path());
    let found = tables(dir.path());
    for (name, bytes) in &expected {
        assert!(found[name] == *bytes, "{name} differs from one process's");
    }
}
