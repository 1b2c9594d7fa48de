//! The C interface from C: `tests/probe.c` compiled against `include/retro_tb.h` and the
//! built library with the system's C compiler, run on a directory of tables, its answers
//! checked (values, an illegal position, a missing table, two threads on one handle).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The directory cargo built this crate's libraries into for the tests
/// (`target/<profile>/deps`, where this test runs from).
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().to_path_buf()
}

#[test]
fn a_c_program_probes_the_tables() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib_dir = library_dir();
    assert!(
        lib_dir.join("libretro_tb.so").exists(),
        "no libretro_tb.so in {}",
        lib_dir.display()
    );
    let scratch = tempfile::tempdir().unwrap();
    let program = scratch.path().join("probe");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let compiled = Command::new(&cc)
        .arg(crate_dir.join("tests/probe.c"))
        .arg("-I")
        .arg(crate_dir.join("include"))
        .arg("-L")
        .arg(&lib_dir)
        .args(["-lretro_tb", "-lpthread", "-Wall", "-Werror", "-o"])
        .arg(&program)
        .output()
        .unwrap_or_else(|e| panic!("running the C compiler {cc}: {e}"));
    assert!(
        compiled.status.success(),
        "{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let tables = tempfile::tempdir().unwrap();
    retro_gen::Builder::new(retro_rules::Board::STANDARD, tables.path())
        .with_metrics(&[retro_gen::Metric::Dtm, retro_gen::Metric::Fifty])
        .build(
            &[retro_engine::Material::parse("KRvK").unwrap()],
            &retro_gen::Silent,
        )
        .unwrap();
    let run = Command::new(&program)
        .arg(tables.path())
        .env("LD_LIBRARY_PATH", &lib_dir)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "KRvK white to move: 0 1 31", "{out}");
    let black: Vec<i32> = lines[1]
        .trim_start_matches("KRvK black to move: ")
        .split(' ')
        .map(|n| n.parse().unwrap())
        .collect();
    assert_eq!((black[0], black[1], black[2] % 2), (0, -1, 0), "{out}");
    assert_eq!(lines[2], "kings adjacent: 1");
    assert_eq!(lines[3], "no table: 2");
    assert_eq!(lines[4], "wdl: 4 3 1", "{out}");
    // Ka1 Rb2 v Kc3: a win in 31 plies to zeroing (the mate); the best move (Ka2, a1a2, by the
    // first of lila-tablebase's orders) leaves Black a loss in 30; KRvK has 16 legal moves here.
    assert_eq!(
        lines[5], "root: wdl 4 dtz 31 from 0 to 8; 16 moves, the first 4 30",
        "{out}"
    );
    assert_eq!(lines[6], "threads: 0 failures in 40000 probes");
}
