//! I/O faults: a disk that fills part way through a write, and two builds in one directory.
//!
//! A full disk is a file-size limit on the process (`ulimit -f`, with the signal it raises
//! ignored, so each write past the limit fails as a full disk's does): `retro gen`, `verify`,
//! `pack`, `freeze --save` and `oracle build` run under limits from a few hundred bytes to a
//! few MiB must fail with an error naming what they were writing, leave every file of their
//! directory one an undisturbed run writes, byte for byte, and write exactly what it writes when
//! run again without the limit. Each test prints its count of faults injected and of files
//! lost or wrong (0).

mod common;

use common::{built, retro, stderr_text, written_files};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// File-size limits, in the shell's `ulimit -f` blocks (512 bytes for Debian's `sh`).
const LIMITS: [u64; 7] = [0, 1, 4, 32, 256, 2048, 6144];

/// `retro` with `args` (`{dir}` standing for the directory), under a file-size limit of
/// `blocks` if any.
fn command(args: &[&str], dir: &Path, blocks: Option<u64>) -> Command {
    let args: Vec<String> = args
        .iter()
        .map(|a| a.replace("{dir}", dir.to_str().unwrap()))
        .collect();
    let mut command = match blocks {
        None => Command::new(env!("CARGO_BIN_EXE_retro")),
        Some(blocks) => {
            let mut sh = Command::new("sh");
            sh.arg("-c")
                .arg(format!(
                    "trap '' XFSZ; ulimit -f {blocks} && exec \"$0\" \"$@\""
                ))
                .arg(env!("CARGO_BIN_EXE_retro"));
            sh
        }
    };
    command.args(args).stdin(Stdio::null());
    command
}

/// Runs `args` after `setup` undisturbed, then under each of [`LIMITS`] in a fresh directory:
/// a run that fails must say why, and whatever it fails on, every file it leaves is one the
/// undisturbed run wrote, byte for byte; run again without the limit, it writes exactly that.
fn full_disk(what: &str, setup: impl Fn(&Path), args: &[&str]) {
    let reference = tempfile::tempdir().unwrap();
    setup(reference.path());
    let out = command(args, reference.path(), None).output().unwrap();
    assert!(out.status.success(), "{what}: {}", stderr_text(&out));
    let expected = written_files(reference.path());
    let (mut faults, mut checked) = (0, 0);
    for blocks in LIMITS {
        let dir = tempfile::tempdir().unwrap();
        setup(dir.path());
        let out = command(args, dir.path(), Some(blocks)).output().unwrap();
        if !out.status.success() {
            faults += 1;
            let text = stderr_text(&out);
            assert!(
                text.lines()
                    .any(|l| l.starts_with("error: ") && l.contains("too large")),
                "{what} under {blocks} blocks: {text}"
            );
            assert!(out.status.code().is_some(), "{what} died by a signal");
        }
        for (name, bytes) in written_files(dir.path()) {
            checked += 1;
            assert!(
                expected.get(&name) == Some(&bytes),
                "{what} under {blocks} blocks left {name}, not a file of an undisturbed run"
            );
        }
        let out = command(args, dir.path(), None).output().unwrap();
        assert!(out.status.success(), "{what} rerun: {}", stderr_text(&out));
        assert!(
            written_files(dir.path()) == expected,
            "{what}: the run after the fault wrote other files"
        );
    }
    assert!(faults > 0, "{what}: no limit made a write fail");
    println!(
        "full disk {what}: {} limits, {faults} writes failed, {checked} files checked after them, 0 lost or wrong",
        LIMITS.len()
    );
}

#[test]
fn gen_on_a_full_disk() {
    full_disk(
        "gen",
        |_| {},
        &[
            "gen", "--kinds", "dtm", "KQvKR", "KRvKN", "--dir", "{dir}", "--quiet",
        ],
    );
}

#[test]
fn verify_on_a_full_disk() {
    full_disk(
        "verify",
        |dir| built(dir, &["KQvKR"]),
        &["verify", "--dir", "{dir}", "--quiet"],
    );
}

#[test]
fn pack_on_a_full_disk() {
    // The tables built once and copied into each directory, then every one packed, all three
    // kinds (the DTM and WDL50 files read their exits' tables beside them).
    let template = tempfile::tempdir().unwrap();
    built(template.path(), &["KQvK", "KRvK", "KBNvK"]);
    full_disk(
        "pack",
        |dir| {
            for (name, bytes) in written_files(template.path()) {
                std::fs::write(dir.join(name), bytes).unwrap();
            }
        },
        &["pack", "--dir", "{dir}", "--quiet"],
    );
}

#[test]
fn freeze_save_and_oracle_on_a_full_disk() {
    let problem =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/freezer/en-passant.toml");
    let problem = problem.to_str().unwrap().to_string();
    // The tables (KQvKR certified: an oracle's leaves are settled by certified tables), built
    // once and copied into each directory.
    let template = tempfile::tempdir().unwrap();
    built(template.path(), &["KPvKP", "KQvKR"]);
    let out = retro(&[
        "verify",
        "KQvKR",
        "--dir",
        template.path().to_str().unwrap(),
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    let with_tables = |dir: &Path| {
        let tables = dir.join("tables");
        std::fs::create_dir(&tables).unwrap();
        for (name, bytes) in written_files(template.path()) {
            std::fs::write(tables.join(name), bytes).unwrap();
        }
    };
    full_disk(
        "freeze --save",
        with_tables,
        &[
            "freeze",
            &problem,
            "--dir",
            "{dir}/tables",
            "--save",
            "{dir}",
        ],
    );
    full_disk(
        "oracle build",
        with_tables,
        &[
            "oracle",
            "build",
            "8/8/8/8/8/2k5/r7/K5Q1 w - - 0 1",
            "--goal",
            "win",
            "--dir",
            "{dir}/tables",
            "--out",
            "{dir}/kqkr.oracle",
        ],
    );
}

#[test]
fn two_builds_in_one_directory_do_not_write_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    let mut first = command(
        &[
            "gen", "--kinds", "dtm", "KRBvKR", "--dir", "{dir}", "--quiet",
        ],
        dir.path(),
        None,
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    // Wait until the first holds the directory.
    let lock = dir.path().join(retro_format::lock::LOCK_FILE);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !std::fs::read_to_string(&lock).is_ok_and(|t| t.contains("retro gen KRBvKR")) {
        assert!(
            Instant::now() < deadline,
            "the first build never held the directory"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let second = retro(&["gen", "--kinds", "dtm", "KQvK", "--dir", d, "--quiet"]);
    let first_done = first.wait().unwrap();
    assert!(first_done.success());
    assert!(
        !second.status.success(),
        "the second build ran beside the first"
    );
    let text = stderr_text(&second);
    assert!(
        text.contains(&format!(
            "{d} is in use by retro gen KRBvKR (process {})",
            first.id()
        )),
        "{text}"
    );
    assert!(!dir.path().join("KQvK.8x8.rtb").exists());
    // Once the first is done, the second runs, and every table is whole.
    assert!(
        retro(&["gen", "--kinds", "dtm", "KQvK", "--dir", d, "--quiet"])
            .status
            .success()
    );
    let out = retro(&["verify", "--dir", d, "--quiet"]);
    assert!(out.status.success(), "{}", stderr_text(&out));
}
