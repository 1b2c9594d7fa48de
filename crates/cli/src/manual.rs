//! Shell completions and manual pages, generated from the command line's own definition, so
//! that they always list the flags the binary takes.
//!
//! Owns: `retro completions SHELL` and `retro man [--dir DIR]`. Must never: describe a flag
//! by hand (everything comes from the clap definition in `main.rs`).

use anyhow::{Context, Result};
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// `retro completions SHELL`: the shell's completion script on standard output.
pub fn completions(shell: clap_complete::Shell, mut cli: clap::Command) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    clap_complete::generate(shell, &mut cli, "retro", &mut out);
    out.flush().context("writing the completion script")?;
    Ok(ExitCode::SUCCESS)
}

/// Every page of `cli`: its own, then one a subcommand (`retro-gen.1`, `retro-oracle-build.1`,
/// …), each as its file name and its roff text.
fn pages(cli: clap::Command) -> Result<Vec<(String, Vec<u8>)>> {
    fn collect(cmd: clap::Command, pages: &mut Vec<(String, Vec<u8>)>) -> Result<()> {
        let man = clap_mangen::Man::new(cmd.clone());
        let mut text = Vec::new();
        man.render(&mut text)?;
        pages.push((man.get_filename(), text));
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()).cloned() {
            collect(sub, pages)?;
        }
        Ok(())
    }
    let mut cli = cli.disable_help_subcommand(true);
    cli.build();
    let mut pages = Vec::new();
    collect(cli, &mut pages)?;
    Ok(pages)
}

/// `retro man`: the manual page of `retro` on standard output, or with `dir` every page
/// written into it (each file whole or not at all).
pub fn man(cli: clap::Command, dir: Option<&Path>) -> Result<ExitCode> {
    let pages = pages(cli)?;
    match dir {
        None => {
            let mut out = std::io::stdout().lock();
            out.write_all(&pages[0].1)?;
            out.flush()?;
        }
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("making the directory {}", dir.display()))?;
            for (name, text) in &pages {
                retro_format::write_atomically(&dir.join(name), text)?;
            }
            println!("{} manual pages written to {}", pages.len(), dir.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_a_page_naming_its_flags() {
        let cli = clap::Command::new("retro")
            .about("tables")
            .subcommand(clap::Command::new("gen").arg(clap::Arg::new("mem").long("mem")))
            .subcommand(
                clap::Command::new("oracle").subcommand(clap::Command::new("build").about("b")),
            );
        let pages = pages(cli).unwrap();
        let names: Vec<&str> = pages.iter().map(|p| p.0.as_str()).collect();
        assert_eq!(
            names,
            [
                "retro.1",
                "retro-gen.1",
                "retro-oracle.1",
                "retro-oracle-build.1"
            ]
        );
        let gen = String::from_utf8(pages[1].1.clone()).unwrap();
        assert!(
            gen.contains(".TH retro-gen 1") && gen.contains("mem"),
            "{gen}"
        );
    }
}
