//! A solved index kept on disk (`retro freeze --save DIR`), so that later runs of the same
//! problem browse it without solving again.
//!
//! Owns: [`save`], [`load`], [`saved_path`].
//!
//! # WorkLayout (integers little-endian)
//!
//! | size | field |
//! |---|---|
//! | 8 | magic `RETROFZ` followed by byte `0x1a` |
//! | 4 | version (2) |
//! | 4 | length `T` of the problem file's text |
//! | `T` | the problem file's text, UTF-8 (a saved analysis answers only this exact text) |
//! | 8 | entries per side to move `E`: the index positions, then the en-passant entries |
//! | 4 | depth passes |
//! | 4 | bytes per code `W`: 2 (the wide layout's `u16` codes) or 1 (the narrow layout's bytes) |
//! | 4 | number of rules `R` (one per man, then captures, then promotions) |
//! | `24 R` | per rule, the exits it valued as a White win, a draw, a Black win |
//! | `W E` | White to move: one work code per entry |
//! | `W E` | Black to move: likewise |
//! | 32 | blake3 hash of every byte before it |
//!
//! Version 1 had no `W` field (its codes are wide); it is still read. Written a piece at a
//! time (so saving takes no second copy of the codes) to a temporary file beside the
//! destination, then renamed over it.

use crate::problem::Problem;
use crate::solve::{Analysis, FreezeError, SavedCodes};
use retro_tablebase::Tablebase;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

const MAGIC: [u8; 8] = *b"RETROFZ\x1a";
const VERSION: u32 = 2;

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
    let (hits, depths) = analysis.saved_counts();
    let entries = analysis.space().entries();
    let mut head = Vec::with_capacity(64 + text.len() + 24 * hits.len());
    head.extend_from_slice(&MAGIC);
    head.extend_from_slice(&VERSION.to_le_bytes());
    head.extend_from_slice(&(text.len() as u32).to_le_bytes());
    head.extend_from_slice(text.as_bytes());
    head.extend_from_slice(&entries.to_le_bytes());
    head.extend_from_slice(&depths.to_le_bytes());
    head.extend_from_slice(&analysis.saved_width().to_le_bytes());
    head.extend_from_slice(&(hits.len() as u32).to_le_bytes());
    for h in &hits {
        for n in h {
            head.extend_from_slice(&n.to_le_bytes());
        }
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        fs::create_dir_all(dir).map_err(|e| error(dir, e.to_string()))?;
    }
    // An unnamed file until it is whole: a process killed part way leaves nothing.
    let temp = retro_format::TempFile::beside(path).map_err(|e| error(path, e.to_string()))?;
    let written = (|| {
        let mut file = std::io::BufWriter::with_capacity(1 << 20, temp.file());
        let mut hasher = blake3::Hasher::new();
        let mut put = |bytes: &[u8]| {
            hasher.update(bytes);
            file.write_all(bytes)
        };
        put(&head)?;
        for x in 0..2 {
            analysis.write_codes(x, &mut put)?;
        }
        file.write_all(hasher.finalize().as_bytes())?;
        file.into_inner().map_err(|e| e.into_error())?.sync_all()
    })();
    written.map_err(|e| error(path, e.to_string()))?;
    temp.persist(path).map_err(|e| error(path, e.to_string()))?;
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
    if version != 1 && version != VERSION {
        return Err(error(
            path,
            format!("version {version}; this build reads versions 1 and {VERSION}: solve again"),
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
    let width = if version == 1 { 2 } else { word(take(4)?) };
    if width != 1 && width != 2 {
        return Err(error(
            path,
            format!("{width} bytes per code (1 or 2 expected)"),
        ));
    }
    let rules = word(take(4)?) as usize;
    let mut hits = Vec::with_capacity(rules.min(1 << 16));
    for _ in 0..rules {
        let mut h = [0u64; 3];
        for n in &mut h {
            *n = u64::from_le_bytes(take(8)?.try_into().expect("8 bytes"));
        }
        hits.push(h);
    }
    let side_bytes = usize::try_from(entries)
        .ok()
        .and_then(|e| e.checked_mul(width as usize))
        .ok_or_else(|| error(path, "an impossible number of entries"))?;
    let (white, black) = (take(side_bytes)?, take(side_bytes)?);
    let codes = if width == 2 {
        let wide = |raw: &[u8]| {
            raw.chunks_exact(2)
                .map(|c| u16::from_le_bytes([c[0], c[1]]))
                .collect()
        };
        SavedCodes::Wide([wide(white), wide(black)])
    } else {
        SavedCodes::Narrow([white.to_vec(), black.to_vec()])
    };
    if at != content.len() {
        return Err(error(path, "trailing bytes"));
    }
    let analysis = Analysis::from_parts(problem, tables, codes, hits, depths)?;
    if analysis.space().entries() != entries {
        return Err(error(path, "its index size is not the problem's"));
    }
    Ok(Some(analysis))
}
