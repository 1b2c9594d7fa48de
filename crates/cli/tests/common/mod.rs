//! Helpers shared by the end-to-end tests of the `retro` binary: run it, read what it printed.
//!
//! Each test file includes this module and uses only part of it.
#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Output};

/// Installs Debian `packages` with apt-get (as root, as CI runs), refreshing the package lists
/// if the first try fails; whether it succeeded. The tests of one binary install one at a
/// time, and apt-get waits for another process's lock rather than failing at once.
pub fn apt_install(packages: &[&str]) -> bool {
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let apt = |args: &[&str]| {
        Command::new("apt-get")
            .args(["-o", "DPkg::Lock::Timeout=600"])
            .args(args)
            .env("DEBIAN_FRONTEND", "noninteractive")
            .status()
            .is_ok_and(|s| s.success())
    };
    let install = |_: ()| {
        let mut args = vec!["install", "-y"];
        args.extend_from_slice(packages);
        apt(&args)
    };
    install(()) || (apt(&["update"]) && install(()))
}

/// Runs the `retro` binary built for these tests with `args`.
pub fn retro(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Runs `retro` with `args`, its tables directory (`$RETRO_TABLES`) set to `tables`.
pub fn retro_with_tables(args: &[&str], tables: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(args)
        .env("RETRO_TABLES", tables)
        .output()
        .expect("the binary runs")
}

/// `retro serve` over the tables directory `tables`, on a free port of 127.0.0.1, started
/// and past the line it prints once it listens (which must name the address): the process and
/// the port.
pub fn serve(tables: &Path) -> (std::process::Child, u16) {
    use std::io::{BufRead, BufReader};
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_retro"))
        .args(["serve", "--addr", &format!("127.0.0.1:{port}")])
        .env("RETRO_TABLES", tables)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(
        first.contains(&format!("http://127.0.0.1:{port}/")),
        "{first}"
    );
    (child, port)
}

/// What the command printed on standard output.
pub fn stdout_text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What the command printed on standard error.
pub fn stderr_text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Standard output followed by standard error.
pub fn all_output(out: &Output) -> String {
    format!("{}{}", stdout_text(out), stderr_text(out))
}

/// A Freezer problem: KRvK with the rook kept to the a- and b-files (White still mates), its
/// captures looked up in the tables.
pub const ROOK_ON_TWO_FILES: &str = r#"
title = "KRvK, the rook on the a- and b-files"
fen = "8/8/8/8/8/2k5/1R6/K7 w - - 0 1"

[[man]]
on = "b2"
squares = ["a1-b8"]
elsewhere = "loss"
"#;

/// Every file of `dir` (not directories, nor the lock a writing run holds, which names its
/// process and is left behind by a run killed while holding it) by name, with its bytes.
pub fn written_files(dir: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && !p.ends_with(retro_format::lock::LOCK_FILE))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// Builds `materials` into `dir` with `retro gen`, which must succeed.
pub fn built(dir: &Path, materials: &[&str]) {
    let d = dir.to_str().unwrap();
    let mut args = vec!["gen"];
    args.extend_from_slice(materials);
    args.extend_from_slice(&["--dir", d, "--quiet"]);
    let out = retro(&args);
    assert!(out.status.success(), "{}", stderr_text(&out));
}
