//! Crash consistency: `retro gen`, `retro verify --resume`, `retro pack` and `retro freeze
//! --save` killed with SIGKILL at moments spread over an undisturbed run never leave a partial
//! or wrong file: after every kill each file of the directory is one an undisturbed run writes,
//! byte for byte, and a run to the end after the kills writes exactly what it writes.
//!
//! `RETRO_KILLS` sets the kills per command (4 in the test command); each test prints its
//! count of kills, of runs that died part way, and of files checked.

mod common;

use common::{built, written_files};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn kills() -> u32 {
    std::env::var("RETRO_KILLS")
        .ok()
        .and_then(|k| k.parse().ok())
        .unwrap_or(4)
}

/// Runs `args` (with `{dir}` standing for the directory) after `setup` in a reference directory,
/// then in another it kills the same command at `kills()` moments spread over the reference
/// run's time, checking after each kill that every file is one the reference holds with the
/// same bytes; then runs it to the end and compares the two directories whole.
fn killed_part_way(what: &str, setup: impl Fn(&Path), args: &[&str]) {
    let run = |dir: &Path| -> Command {
        let d = dir.to_str().unwrap();
        let mut command = Command::new(env!("CARGO_BIN_EXE_retro"));
        command
            .args(args.iter().map(|a| a.replace("{dir}", d)))
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        command
    };
    let reference = tempfile::tempdir().unwrap();
    setup(reference.path());
    let start = Instant::now();
    assert!(
        run(reference.path()).status().unwrap().success(),
        "{what}: the undisturbed run"
    );
    let took = start.elapsed();
    let expected = written_files(reference.path());

    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let (mut died, mut checked) = (0, 0);
    for k in 0..kills() {
        let delay = took.mul_f64(f64::from(k + 1) / f64::from(kills() + 1));
        let mut child = run(dir.path()).spawn().unwrap();
        std::thread::sleep(delay.max(Duration::from_millis(1)));
        let _ = child.kill();
        if !child.wait().unwrap().success() {
            died += 1;
        }
        for (name, bytes) in written_files(dir.path()) {
            let Some(want) = expected.get(&name) else {
                panic!(
                    "{what}: after a kill at {delay:?}, {name} is not a file of an undisturbed run"
                );
            };
            assert!(
                &bytes == want,
                "{what}: after a kill at {delay:?}, {name} differs"
            );
            checked += 1;
        }
    }
    assert!(
        run(dir.path()).status().unwrap().success(),
        "{what}: the run after the kills"
    );
    assert_eq!(
        written_files(dir.path()).keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "{what}: the files after the kills"
    );
    assert!(
        written_files(dir.path()) == expected,
        "{what}: a file differs from the undisturbed run's"
    );
    println!(
        "crash {what}: {} kills, {died} died part way, {checked} files checked after them, none partial or wrong",
        kills()
    );
}

#[test]
fn gen_killed_part_way() {
    killed_part_way(
        "gen",
        |_| {},
        &[
            "gen", "--kinds", "dtm", "KQvKR", "KRvKN", "--dir", "{dir}", "--quiet",
        ],
    );
}

#[test]
fn verify_resume_killed_part_way() {
    killed_part_way(
        "verify --resume",
        |dir| built(dir, &["KQvKR", "KRvKN"]),
        &["verify", "--resume", "--dir", "{dir}"],
    );
}

#[test]
fn pack_killed_part_way() {
    killed_part_way(
        "pack",
        |dir| built(dir, &["KQvKR", "KRvKN"]),
        &["pack", "--dir", "{dir}", "--quiet"],
    );
}

#[test]
fn freeze_save_killed_part_way() {
    let problem =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/freezer/en-passant.toml");
    let problem = problem.to_str().unwrap().to_string();
    killed_part_way(
        "freeze --save",
        |dir| {
            let tables = dir.join("tables");
            std::fs::create_dir(&tables).unwrap();
            built(&tables, &["KPvKP"]);
        },
        &[
            "freeze",
            &problem,
            "--dir",
            "{dir}/tables",
            "--save",
            "{dir}",
        ],
    );
}
