//! The checker's independence, made visible: `retro-verify` and everything it depends on inside
//! the workspace must never depend on the fast engine, the generator or the probing code.

use std::collections::BTreeSet;
use std::path::Path;

/// The workspace crates a manifest's `[dependencies]` name (dev-dependencies do not count: they
/// are not part of the checker).
fn workspace_dependencies(manifest: &str) -> Vec<String> {
    let mut in_dependencies = false;
    let mut found = Vec::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
            continue;
        }
        if in_dependencies {
            if let Some(name) = line
                .split(['.', ' ', '='])
                .next()
                .filter(|n| n.starts_with("retro-"))
            {
                found.push(name.to_string());
            }
        }
    }
    found
}

#[test]
fn verify_depends_only_on_the_kernel_and_the_file_reader() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let directory = |name: &str| name.trim_start_matches("retro-").to_string();
    let mut seen = BTreeSet::new();
    let mut todo = vec!["retro-verify".to_string()];
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        let manifest = std::fs::read_to_string(crates.join(directory(&name)).join("Cargo.toml"))
            .unwrap_or_else(|e| panic!("reading {name}'s manifest: {e}"));
        todo.extend(workspace_dependencies(&manifest));
    }
    let allowed: BTreeSet<String> = ["retro-verify", "retro-game", "retro-rules", "retro-format"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert!(
        seen.is_subset(&allowed),
        "retro-verify reaches {:?}",
        seen.difference(&allowed).collect::<Vec<_>>()
    );
    for forbidden in ["retro-engine", "retro-gen", "retro-tablebase"] {
        assert!(
            !seen.contains(forbidden),
            "retro-verify depends on {forbidden}"
        );
    }
}
