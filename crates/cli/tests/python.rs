//! The Python module in a virtual environment under the build directory, with pytest and
//! python-chess from PyPI: the extension module cargo built for this test copied in (or,
//! with `RETRO_PIP_INSTALL=1`, `pip install crates/python` as a user installs it, maturin
//! building it from source), then the pytest files of `crates/python/tests` run against
//! tables this test builds with the `retro` binary.
//!
//! Python 3.9 or later with `venv` is needed; Debian's `python3-venv` is installed with apt-get
//! when the machine has none.

mod common;

use common::{all_output, apt_install, retro};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `program` with `args`, panicking with its output unless it succeeds; its standard
/// output.
fn run(program: &Path, args: &[&str], env: &[(&str, &Path)]) -> String {
    let mut command = Command::new(program);
    command.args(args);
    for (key, value) in env {
        command.env(key, value);
    }
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", program.display()));
    assert!(
        out.status.success(),
        "{} {}:\n{}{}",
        program.display(),
        args.join(" "),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A Python 3 that can make virtual environments, installed with apt-get if missing.
fn python() -> PathBuf {
    let works = |python: &str| {
        Command::new(python)
            .args([
                "-c",
                "import sys, venv, ensurepip; assert sys.version_info >= (3, 9)",
            ])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !works("python3") {
        apt_install(&["python3", "python3-venv", "python3-pip"]);
        assert!(
            works("python3"),
            "Python 3.9 or later with venv is needed: `apt-get install python3-venv` failed"
        );
    }
    PathBuf::from("python3")
}

/// The extension module cargo built beside this test (`retro-python` is a dev-dependency, so
/// `target/<profile>/deps/libretro_py.so` is built before any test runs).
fn built_module() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let module = exe.parent().unwrap().join("libretro_py.so");
    assert!(
        module.exists(),
        "no extension module at {} (is retro-python a dev-dependency?)",
        module.display()
    );
    module
}

/// The virtual environment (made once, kept beside the build), with pytest and
/// python-chess, and the module of this checkout installed into it afresh: the one cargo
/// built for this test, or, with `RETRO_PIP_INSTALL=1`, built from source by pip and maturin
/// as a user installs it (`pip install crates/python`; minutes more, in its own cargo build
/// directory).
fn environment(build: &Path) -> PathBuf {
    let venv = build.join("python-venv");
    let bin = venv.join("bin");
    if !bin.join("python").exists() {
        run(&python(), &["-m", "venv", venv.to_str().unwrap()], &[]);
    }
    let pip = bin.join("pip");
    run(
        &pip,
        &[
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "pytest",
            "chess",
        ],
        &[],
    );
    let site_packages = PathBuf::from(
        run(
            &bin.join("python"),
            &[
                "-c",
                "import sysconfig; print(sysconfig.get_paths()['platlib'])",
            ],
            &[],
        )
        .trim(),
    );
    let copied = site_packages.join("retro.abi3.so");
    if std::env::var_os("RETRO_PIP_INSTALL").is_some_and(|v| v == "1") {
        let _ = std::fs::remove_file(&copied);
        let package = Path::new(env!("CARGO_MANIFEST_DIR")).join("../python");
        // Its own cargo build directory: the one running this test is busy with it.
        run(
            &pip,
            &[
                "install",
                "--quiet",
                "--disable-pip-version-check",
                "--force-reinstall",
                "--no-deps",
                package.to_str().unwrap(),
            ],
            &[("CARGO_TARGET_DIR", &build.join("python-build"))],
        );
    } else {
        // A module pip installed earlier would be found beside this one: remove it first.
        let _ = Command::new(&pip)
            .args(["uninstall", "--yes", "--quiet", "retro-tablebase"])
            .output();
        std::fs::copy(built_module(), &copied).unwrap();
    }
    bin
}

#[test]
fn the_python_module_answers_as_the_command_line_does() {
    let build = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let bin = environment(&build);
    let tables = tempfile::tempdir().unwrap();
    let packed = tempfile::tempdir().unwrap();
    let dir = tables.path().to_str().unwrap();
    for material in ["KRvK", "KQvKR", "KPvKP", "KBvK"] {
        let out = retro(&["gen", material, "--dir", dir, "--quiet"]);
        assert!(out.status.success(), "{}", all_output(&out));
    }
    let out = retro(&["gen", "KRvK", "--board", "4x4", "--dir", dir, "--quiet"]);
    assert!(out.status.success(), "{}", all_output(&out));
    let packed_dir = packed.path().to_str().unwrap();
    let out = retro(&["gen", "KQvKR", "--pack", "--dir", packed_dir, "--quiet"]);
    assert!(out.status.success(), "{}", all_output(&out));
    // Syzygy WDL files of the tables, for python-chess to read.
    let exported = tempfile::tempdir().unwrap();
    let out = retro(&[
        "export",
        "--syzygy",
        exported.path().to_str().unwrap(),
        "--dir",
        dir,
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", all_output(&out));
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("../python/tests");
    let report = run(
        &bin.join("python"),
        &[
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            tests.to_str().unwrap(),
        ],
        &[
            ("RETRO_BIN", Path::new(env!("CARGO_BIN_EXE_retro"))),
            ("RETRO_TABLES", tables.path()),
            ("RETRO_PACKED", packed.path()),
            ("RETRO_SYZYGY_EXPORT", exported.path()),
        ],
    );
    println!(
        "python: pytest {}",
        report.lines().last().unwrap_or_default().trim()
    );
}
