//! A solved index kept on disk (`retro freeze --save DIR`), so that later runs of the same
//! problem browse it without solving again.
//!
//! Owns: [`save`], [`load`], [`saved_path`].
//!
//! # Layout (integers little-endian)
//!
//! | size | field |
//! |---|---|
//! | 8 | magic `RETROFZ` followed by byte `0x1a` |
//! | 4 | version (1) |
//! | 4 | length `T` of the problem file's text |
//! | `T` | the problem file's text, UTF-8 (a saved analysis answers only this exact text) |
//! | 8 | entries per side to move `E` |
//! | 4 | depth passes |
//! | 4 | number of rules `R` (one per man, then captures, then promotions) |
//! | `24 R` | per rule, the exits it valued as a White win, a draw, a Black win |
//! | `2 E` | White to move: one work code per entry |
//! | `2 E` | Black to move: likewise |
//! | 32 | blake3 hash of every byte before it |
//!
//! Written to a temporary file beside the destination and renamed over it.

use crate::problem::Problem;
use crate::solve::{Analysis, FreezeError};
use retro_tablebase::Tablebase;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

const MAGIC: [u8; 8] = *b"RETROFZ\x1a";
const VERSION: u32 = 1;

/// The file a problem's analysis is saved to in `dir`: the problem file's stem, `.freeze`.
pub fn saved_path(dir: &Path, problem_file: &Path) -> PathBuf {
    let stem = problem_file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "problem".into());
    dir.join(format!("{stem}.freeze"))
}

fn error(path: &Path, what: impl Into<String>) -> FreezeError {
    FreezeError::Saved {
        path: path.to_path_buf(),
        what: what.into(),
    }
}

/// Saves `analysis` of the problem whose file text is `text` to `path`, atomically.
pub fn save(analysis: &Analysis<'_>, text: &str, path: &Path) -> Result<(), FreezeError> {
    let (codes, hits, depths) = analysis.parts();
    let entries = codes[0].len();
    let mut bytes = Vec::with_capacity(64 + text.len() + 24 * hits.len() + 4 * entries);
    bytes.extend_from_slice(&MAGIC);
    bytes.extend_from_slice(&VERSION.to_le_bytes());
    bytes.extend_from_slice(&(text.len() as u32).to_le_bytes());
    bytes.extend_from_slice(text.as_bytes());
    bytes.extend_from_slice(&(entries as u64).to_le_bytes());
    bytes.extend_from_slice(&depths.to_le_bytes());
    bytes.extend_from_slice(&(hits.len() as u32).to_le_bytes());
    for h in &hits {
        for n in h {
            bytes.extend_from_slice(&n.to_le_bytes());
        }
    }
    for side in &codes {
        for c in side {
            bytes.extend_from_slice(&c.to_le_bytes());
        }
    }
    let hash = blake3::hash(&bytes);
    bytes.extend_from_slice(hash.as_bytes());
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).map_err(|e| error(dir, e.to_string()))?;
    }
    let temp = path.with_extension(format!("freeze.{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = fs::File::create(&temp)?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)
    })();
    if let Err(e) = result {
        let _ = fs::remove_file(&temp);
        return Err(error(path, e.to_string()));
    }
    Ok(())
}

/// Reads a saved analysis of `problem` (whose file text is `text`): `Ok(None)` if there is no
/// file, an error if it is damaged, of another version, or of another problem text.
pub fn load<'a>(
    problem: &'a Problem,
    tables: &'a Tablebase,
    text: &str,
    path: &Path,
) -> Result<Option<Analysis<'a>>, FreezeError> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(error(path, e.to_string())),
    };
    if bytes.len() < 52 || bytes[..8] != MAGIC {
        return Err(error(
            path,
            "not a saved Freezer analysis (wrong magic bytes)",
        ));
    }
    let (content, hash) = bytes.split_at(bytes.len() - 32);
    if blake3::hash(content).as_bytes() != hash {
        return Err(error(
            path,
            "the contents do not match the blake3 checksum (the file is corrupted)",
        ));
    }
    let mut at: usize = 8;
    let mut take = |n: usize| -> Result<&[u8], FreezeError> {
        let slice = at
            .checked_add(n)
            .and_then(|end| content.get(at..end))
            .ok_or_else(|| error(path, "truncated"))?;
        at += n;
        Ok(slice)
    };
    let word = |b: &[u8]| u32::from_le_bytes(b.try_into().expect("4 bytes"));
    let version = word(take(4)?);
    if version != VERSION {
        return Err(error(
            path,
            format!("version {version}; this build reads version {VERSION}: solve again"),
        ));
    }
    let text_len = word(take(4)?) as usize;
    if take(text_len)? != text.as_bytes() {
        return Err(error(
            path,
            "saved for another version of the problem file: solve again (it is overwritten)",
        ));
    }
    let entries = u64::from_le_bytes(take(8)?.try_into().expect("8 bytes"));
    let depths = word(take(4)?);
    let rules = word(take(4)?) as usize;
    let mut hits = Vec::with_capacity(rules.min(1 << 16));
    for _ in 0..rules {
        let mut h = [0u64; 3];
        for n in &mut h {
            *n = u64::from_le_bytes(take(8)?.try_into().expect("8 bytes"));
        }
        hits.push(h);
    }
    let mut codes = [Vec::new(), Vec::new()];
    for side in &mut codes {
        let bytes = usize::try_from(entries)
            .ok()
            .and_then(|e| e.checked_mul(2))
            .ok_or_else(|| error(path, "an impossible number of entries"))?;
        let raw = take(bytes)?;
        *side = raw
            .chunks_exact(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
    }
    if at != content.len() {
        return Err(error(path, "trailing bytes"));
    }
    let analysis = Analysis::from_parts(problem, tables, codes, hits, depths)?;
    if analysis.space().size() != entries {
        return Err(error(path, "its index size is not the problem's"));
    }
    Ok(Some(analysis))
}
