//! The Syzygy generator's statistics files (`rtbgen -s`, `rtbgenp -s`): their win/draw/loss
//! counts, read and compared with a table's, as the independent peer's figures.
//!
//! Owns: reading those files and matching their sides to a material's.
//! Must never: count a table itself (`retro_tablebase::stats` does), or run the generator
//! (`bench_six` does).

use anyhow::{anyhow, bail, Context, Result};
use retro_engine::Material;
use std::collections::BTreeMap;
use std::path::Path;

/// Win/draw/loss counts of one side to move, positions up to symmetry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Counts {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
}

/// The counts of the Syzygy generator's statistics file (`rtbgen -s`), White to move then
/// Black to move; cursed wins count as wins and blessed losses as losses (the fifty-move rule
/// set aside, as depth to mate does).
pub fn syzygy_counts(text: &str) -> Result<[Counts; 2]> {
    Ok(syzygy_fifty_counts(text)?.map(|side| {
        let [losses, blessed, draws, cursed, wins] = side.classes;
        Counts {
            wins: wins + cursed,
            draws,
            losses: losses + blessed,
        }
    }))
}

/// The five classes of one side to move and its positions by distance to zeroing, as the
/// Syzygy generator's statistics give them, positions up to symmetry.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FiftyCounts {
    /// Losses, blessed losses ("cursed losses"), draws, cursed wins, wins: the order of
    /// `retro_format::Wdl::CLASSES`.
    pub classes: [u64; 5],
    /// Wins by plies to zeroing (`N positions win in P ply.`).
    pub wins: BTreeMap<u32, u64>,
    /// Losses likewise (`N positions lose in P ply.`).
    pub losses: BTreeMap<u32, u64>,
}

/// The five classes and distances of the Syzygy generator's statistics (`rtbgen -s`), White to
/// move then Black to move.
pub fn syzygy_fifty_counts(text: &str) -> Result<[FiftyCounts; 2]> {
    let mut sides: [FiftyCounts; 2] = Default::default();
    let mut side = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with("White to move") {
            side = Some(0);
        } else if line.starts_with("Black to move") {
            side = Some(1);
        }
        let Some(rest) = line.strip_suffix('.') else {
            continue;
        };
        let Some((number, what)) = rest.split_once(" positions ") else {
            continue;
        };
        let Ok(number) = number.trim().parse::<u64>() else {
            continue;
        };
        let x = side.ok_or_else(|| anyhow!("a count before the side to move: `{line}`"))?;
        let plies = |prefix: &str| -> Option<u32> {
            what.strip_prefix(prefix)?
                .strip_suffix(" ply")?
                .parse()
                .ok()
        };
        if let Some(p) = plies("win in ") {
            *sides[x].wins.entry(p).or_default() += number;
            continue;
        }
        if let Some(p) = plies("lose in ") {
            *sides[x].losses.entry(p).or_default() += number;
            continue;
        }
        let k = match what {
            "are losses" => 0,
            "are cursed losses" => 1,
            "are draws" => 2,
            "are cursed wins" => 3,
            "are wins" => 4,
            other => bail!("an unknown kind of position in the statistics: `{other}`"),
        };
        sides[x].classes[k] += number;
    }
    if side != Some(1) {
        bail!("the statistics name no Black to move section");
    }
    Ok(sides)
}

/// The Syzygy name of a material with the sides exchanged (`KNNvKR` for `KRvKNN`).
pub fn swapped_name(material: Material) -> String {
    let name = material.to_string();
    match name.split_once('v') {
        Some((white, black)) => format!("{black}v{white}"),
        None => name,
    }
}

/// The table a statistics file names (`########## KRPvKR ##########`) and its counts, White
/// to move then Black to move.
pub struct SyzygyStats {
    pub table: String,
    pub counts: [Counts; 2],
    pub fifty: [FiftyCounts; 2],
}

/// Reads the statistics file at `path`.
pub fn read_stats(path: &Path) -> Result<SyzygyStats> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the statistics file {}", path.display()))?;
    let table = text
        .lines()
        .find_map(|line| {
            let name = line.trim().strip_prefix("##########")?;
            Some(name.strip_suffix("##########")?.trim().to_string())
        })
        .ok_or_else(|| {
            anyhow!(
                "{} names no table (a `########## MATERIAL ##########` line); is it the \
                 Syzygy generator's statistics file?",
                path.display()
            )
        })?;
    let counts = syzygy_counts(&text).with_context(|| format!("reading {}", path.display()))?;
    let fifty =
        syzygy_fifty_counts(&text).with_context(|| format!("reading {}", path.display()))?;
    Ok(SyzygyStats {
        table,
        counts,
        fifty,
    })
}

impl SyzygyStats {
    /// The counts with `material`'s White to move first: the file's own where it names
    /// `material`, exchanged where it names it with the sides exchanged (Syzygy names the
    /// stronger side first); an error where it names another table.
    pub fn counts_of(&self, material: Material) -> Result<[Counts; 2]> {
        Ok(match self.swapped_for(material)? {
            false => self.counts,
            true => [self.counts[1], self.counts[0]],
        })
    }

    /// The five classes and distances, as [`SyzygyStats::counts_of`] gives the counts.
    pub fn fifty_of(&self, material: Material) -> Result<[FiftyCounts; 2]> {
        let [white, black] = self.fifty.clone();
        Ok(match self.swapped_for(material)? {
            false => [white, black],
            true => [black, white],
        })
    }

    /// Whether the file names `material` with its sides exchanged; an error where it names
    /// another table.
    fn swapped_for(&self, material: Material) -> Result<bool> {
        if self.table == material.to_string() {
            Ok(false)
        } else if self.table == swapped_name(material) {
            Ok(true)
        } else {
            bail!("the statistics are of {}, not {material}", self.table)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The statistics of `rtbgen -s` as it writes them (KQvK, from the Syzygy generator).
    #[test]
    fn syzygy_statistics_are_read() {
        let text = "########## KQvK ##########\n\nWhite to move:\n\n2448 positions win in 1 ply.\n\n18081 positions are wins.\n0 positions are draws.\n0 positions are losses.\n\n\nBlack to move:\n\n\n0 positions are wins.\n2896 positions are draws.\n25160 positions are losses.\n\n46 positions lose in 0 ply.\n";
        let counts = syzygy_counts(text).unwrap();
        assert_eq!(
            counts,
            [
                Counts {
                    wins: 18081,
                    draws: 0,
                    losses: 0
                },
                Counts {
                    wins: 0,
                    draws: 2896,
                    losses: 25160
                }
            ]
        );
        let cursed = "White to move:\n10 positions are wins.\n3 positions are cursed wins.\n5 positions are draws.\n2 positions are cursed losses.\n1 positions are losses.\nBlack to move:\n4 positions are draws.\n";
        let counts = syzygy_counts(cursed).unwrap();
        assert_eq!(
            counts[0],
            Counts {
                wins: 13,
                draws: 5,
                losses: 3
            }
        );
        let fifty = syzygy_fifty_counts(cursed).unwrap();
        assert_eq!(fifty[0].classes, [1, 2, 5, 3, 10]);
        let fifty = syzygy_fifty_counts(text).unwrap();
        assert_eq!(fifty[0].wins.get(&1), Some(&2448));
        assert_eq!(fifty[1].losses.get(&0), Some(&46));
        assert!(syzygy_counts("White to move:\n1 positions are odd.\n").is_err());
        assert!(syzygy_counts("nothing").is_err());
    }

    /// A file names its table; its sides are exchanged for the material named the other way.
    #[test]
    fn a_statistics_file_is_matched_to_its_material() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("KNNvKR.txt");
        std::fs::write(
            &path,
            "########## KNNvKR ##########\n\nWhite to move:\n\n1 positions are wins.\n2 positions are draws.\n3 positions are losses.\n\nBlack to move:\n\n4 positions are wins.\n5 positions are draws.\n6 positions are losses.\n",
        )
        .unwrap();
        let stats = read_stats(&path).unwrap();
        assert_eq!(stats.table, "KNNvKR");
        let ours = stats.counts_of(Material::parse("KRvKNN").unwrap()).unwrap();
        assert_eq!((ours[0].wins, ours[1].losses), (4, 3));
        assert!(stats.counts_of(Material::parse("KRvKN").unwrap()).is_err());
        std::fs::write(&path, "White to move:\n1 positions are wins.\n").unwrap();
        assert!(read_stats(&path).is_err());
        assert!(read_stats(&dir.path().join("absent.txt")).is_err());
    }

    #[test]
    fn names_swap_sides() {
        assert_eq!(swapped_name(Material::parse("KRvKNN").unwrap()), "KNNvKR");
    }
}
