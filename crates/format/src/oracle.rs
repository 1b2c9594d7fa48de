//! The oracle file: a proof certificate stored as Mhalla and Prost's *reminder* (seed `003`,
//! section 3.2) — the root position and one byte per node of a spanning tree, with the tables
//! its leaves rely on, checksummed and written atomically.
//!
//! Owns: [`OracleFile`], [`Goal`], [`Colour`], [`LeafTable`], [`write_oracle`],
//! [`read_oracle`], [`OracleFileError`].
//! Must never: interpret the bytes. What a byte means (the move order, the traversal) is
//! defined once, by the checker in `retro-verify` (`oracle` module), and obeyed by the builder.
//!
//! # Layout (integers little-endian)
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `RETROOR` followed by byte `0x1a` |
//! | 8 | 4 | version (1) |
//! | 12 | 4 | length `T` of the header text |
//! | 16 | `T` | header text, UTF-8, one `key value` per line (below) |
//! | 16 + `T` | 8 | number of nodes `N` |
//! | 24 + `T` | `N` | the nodes, one byte each, in the spanning tree's prefix order |
//! | 24 + `T` + `N` | 32 | blake3 hash of every byte before it |
//!
//! Header lines, in this order: `root FEN`, `board FILESxRANKS`, `friend white|black`,
//! `goal win|not-lose`, then one `table MATERIAL BLAKE3` per table whose values leaves read
//! (the blake3 hash of the table file's body, in hex, as the table header and its `retro verify`
//! certificate record it).
//!
//! A node byte is `0x80` for a leaf, and otherwise, at a friend node, the number of the move
//! played (`0..=127`), and at a foe node `0x00` (all moves follow).

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The first eight bytes of every oracle file.
pub const ORACLE_MAGIC: [u8; 8] = *b"RETROOR\x1a";
/// The version of the layout this crate reads and writes.
pub const ORACLE_VERSION: u32 = 1;
/// The node byte of a leaf.
pub const LEAF: u8 = 0x80;

const HASH_LEN: usize = 32;

/// A side, as the header names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Colour {
    /// White.
    White,
    /// Black.
    Black,
}

impl Colour {
    /// `white` or `black`.
    pub fn name(self) -> &'static str {
        match self {
            Colour::White => "white",
            Colour::Black => "black",
        }
    }
}

/// What every leaf of the oracle must be for the friend side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Goal {
    /// A win for the friend side (no cycles: every path ends in a leaf).
    Win,
    /// A win or a draw for it (cycles allowed: a path that never ends never loses).
    NotLose,
}

impl Goal {
    /// `win` or `not-lose`.
    pub fn name(self) -> &'static str {
        match self {
            Goal::Win => "win",
            Goal::NotLose => "not-lose",
        }
    }

    /// Parses `win` or `not-lose`.
    pub fn parse(text: &str) -> Option<Goal> {
        match text {
            "win" => Some(Goal::Win),
            "not-lose" => Some(Goal::NotLose),
            _ => None,
        }
    }
}

/// A table whose values some leaves read, named by its material and its body's hash.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LeafTable {
    /// The material as stored, e.g. `KQvKR`.
    pub material: String,
    /// The blake3 hash of the table file's body.
    pub body_blake3: [u8; 32],
}

/// An oracle reminder: the root, the friend side, the goal, the leaf tables and the node bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OracleFile {
    /// The root position in FEN.
    pub root: String,
    /// The board's files.
    pub files: u8,
    /// The board's ranks.
    pub ranks: u8,
    /// The side the oracle plays for.
    pub friend: Colour,
    /// What every leaf must be.
    pub goal: Goal,
    /// The tables leaves read values from.
    pub tables: Vec<LeafTable>,
    /// One byte per node, in prefix order.
    pub nodes: Vec<u8>,
}

/// Why an oracle file cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum OracleFileError {
    /// The operating system refused.
    #[error("{}: {cause}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        cause: std::io::Error,
    },
    /// Not an oracle file.
    #[error("{} is not a retro oracle (wrong magic bytes)", path.display())]
    BadMagic {
        /// The path.
        path: PathBuf,
    },
    /// A version this build cannot read.
    #[error("{} has oracle format version {found}; this build reads version {ORACLE_VERSION}", path.display())]
    UnsupportedVersion {
        /// The path.
        path: PathBuf,
        /// The version found.
        found: u32,
    },
    /// Shorter or longer than its fields say.
    #[error("{} is truncated or has trailing bytes: {found} bytes, its fields imply {expected}", path.display())]
    WrongLength {
        /// The path.
        path: PathBuf,
        /// The length the fields imply.
        expected: u64,
        /// The actual length.
        found: u64,
    },
    /// The checksum fails.
    #[error("{}: the contents do not match the blake3 checksum (the file is corrupted)", path.display())]
    BadChecksum {
        /// The path.
        path: PathBuf,
    },
    /// A header line is missing or malformed.
    #[error("{}: bad header: {what}", path.display())]
    BadHeader {
        /// The path.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
}

fn hex(bytes: &[u8; 32]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<[u8; 32]> {
    if text.len() != 64 || !text.is_ascii() {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(out)
}

impl OracleFile {
    /// The file's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut text = format!(
            "root {}\nboard {}x{}\nfriend {}\ngoal {}\n",
            self.root,
            self.files,
            self.ranks,
            self.friend.name(),
            self.goal.name()
        );
        for t in &self.tables {
            text.push_str(&format!("table {} {}\n", t.material, hex(&t.body_blake3)));
        }
        let mut bytes = Vec::with_capacity(24 + text.len() + self.nodes.len() + HASH_LEN);
        bytes.extend_from_slice(&ORACLE_MAGIC);
        bytes.extend_from_slice(&ORACLE_VERSION.to_le_bytes());
        bytes.extend_from_slice(&(text.len() as u32).to_le_bytes());
        bytes.extend_from_slice(text.as_bytes());
        bytes.extend_from_slice(&(self.nodes.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&self.nodes);
        let hash = blake3::hash(&bytes);
        bytes.extend_from_slice(hash.as_bytes());
        bytes
    }

    /// Parses a file's bytes; `path` names it in errors.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<OracleFile, OracleFileError> {
        let path_buf = || path.to_path_buf();
        let found = bytes.len() as u64;
        let short = |expected: u64| OracleFileError::WrongLength {
            path: path_buf(),
            expected,
            found,
        };
        if bytes.len() < 8 || bytes[..8] != ORACLE_MAGIC {
            return Err(OracleFileError::BadMagic { path: path_buf() });
        }
        if bytes.len() < 16 {
            return Err(short(16));
        }
        let word = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        let version = word(8);
        if version != ORACLE_VERSION {
            return Err(OracleFileError::UnsupportedVersion {
                path: path_buf(),
                found: version,
            });
        }
        let text_len = word(12) as u64;
        let nodes_at = 16 + text_len + 8;
        if found < nodes_at {
            return Err(short(nodes_at + HASH_LEN as u64));
        }
        let count_at = (16 + text_len) as usize;
        let count = u64::from_le_bytes(bytes[count_at..count_at + 8].try_into().expect("8"));
        let expected = nodes_at
            .checked_add(count)
            .and_then(|n| n.checked_add(HASH_LEN as u64))
            .unwrap_or(u64::MAX);
        if found != expected {
            return Err(short(expected));
        }
        let (content, hash) = bytes.split_at(bytes.len() - HASH_LEN);
        if blake3::hash(content).as_bytes() != hash {
            return Err(OracleFileError::BadChecksum { path: path_buf() });
        }
        let bad = |what: String| OracleFileError::BadHeader {
            path: path_buf(),
            what,
        };
        let text = std::str::from_utf8(&bytes[16..count_at])
            .map_err(|_| bad("the header is not UTF-8".into()))?;
        let mut lines = text.lines();
        let mut field = |key: &str| {
            lines
                .next()
                .and_then(|l| l.strip_prefix(key))
                .and_then(|l| l.strip_prefix(' '))
                .map(str::to_string)
                .ok_or_else(|| bad(format!("the line `{key} …` is missing or out of order")))
        };
        let root = field("root")?;
        let board = field("board")?;
        let friend = field("friend")?;
        let goal = field("goal")?;
        let (files, ranks) = board
            .split_once('x')
            .and_then(|(f, r)| Some((f.parse().ok()?, r.parse().ok()?)))
            .ok_or_else(|| bad(format!("board `{board}` is not FILESxRANKS")))?;
        let friend = match friend.as_str() {
            "white" => Colour::White,
            "black" => Colour::Black,
            other => return Err(bad(format!("friend `{other}` is not white or black"))),
        };
        let goal = Goal::parse(&goal)
            .ok_or_else(|| bad(format!("goal `{goal}` is not win or not-lose")))?;
        let mut tables = Vec::new();
        for line in lines {
            let parsed = line.strip_prefix("table ").and_then(|rest| {
                let (material, hash) = rest.split_once(' ')?;
                Some(LeafTable {
                    material: material.to_string(),
                    body_blake3: unhex(hash)?,
                })
            });
            tables.push(parsed.ok_or_else(|| bad(format!("unexpected line `{line}`")))?);
        }
        Ok(OracleFile {
            root,
            files,
            ranks,
            friend,
            goal,
            tables,
            nodes: bytes[nodes_at as usize..bytes.len() - HASH_LEN].to_vec(),
        })
    }
}

/// Reads and checks an oracle file.
pub fn read_oracle(path: &Path) -> Result<OracleFile, OracleFileError> {
    let bytes = fs::read(path).map_err(|cause| OracleFileError::Io {
        path: path.to_path_buf(),
        cause,
    })?;
    OracleFile::from_bytes(&bytes, path)
}

/// Writes an oracle file atomically: to a temporary file beside `path`, flushed, then renamed
/// over it. A failure leaves any previous file untouched.
pub fn write_oracle(path: &Path, oracle: &OracleFile) -> Result<(), OracleFileError> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "oracle".into());
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let io = |cause| OracleFileError::Io {
        path: temp.clone(),
        cause,
    };
    let result = (|| {
        let mut file = fs::File::create(&temp).map_err(io)?;
        file.write_all(&oracle.to_bytes()).map_err(io)?;
        file.sync_all().map_err(io)?;
        fs::rename(&temp, path).map_err(|cause| OracleFileError::Io {
            path: path.to_path_buf(),
            cause,
        })
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> OracleFile {
        OracleFile {
            root: "8/8/8/8/8/8/8/K6k w - - 0 1".into(),
            files: 8,
            ranks: 8,
            friend: Colour::White,
            goal: Goal::NotLose,
            tables: vec![LeafTable {
                material: "KQvKR".into(),
                body_blake3: [7; 32],
            }],
            nodes: vec![3, 0, LEAF, 0x05],
        }
    }

    #[test]
    fn a_file_reads_back_as_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.oracle");
        write_oracle(&path, &sample()).unwrap();
        assert_eq!(read_oracle(&path).unwrap(), sample());
    }

    #[test]
    fn damage_is_named() {
        let path = Path::new("x.oracle");
        let good = sample().to_bytes();
        let mut flipped = good.clone();
        let last_node = good.len() - HASH_LEN - 1;
        flipped[last_node] ^= 1;
        assert!(matches!(
            OracleFile::from_bytes(&flipped, path),
            Err(OracleFileError::BadChecksum { .. })
        ));
        assert!(matches!(
            OracleFile::from_bytes(&good[..good.len() - 1], path),
            Err(OracleFileError::WrongLength { .. })
        ));
        assert!(matches!(
            OracleFile::from_bytes(b"RETROTB\x1a........", path),
            Err(OracleFileError::BadMagic { .. })
        ));
        let mut version = good.clone();
        version[8] = 9;
        assert!(matches!(
            OracleFile::from_bytes(&version, path),
            Err(OracleFileError::UnsupportedVersion { found: 9, .. })
        ));
    }
}
