//! Where tables live and how their files are written: the names of raw and packed files, the
//! table files of a directory, and the one way files are written — whole, or not at all.
//!
//! Owns: [`file_name`], [`kind_file_name`], [`table_path`], [`kind_table_path`],
//! [`TableName`], [`table_names`], [`is_packed_path`], and
//! the crate's temporary files (`TempFile`).
//! Must never: read a table's contents (that is [`crate::Table`] and [`crate::PackedTable`]).

use crate::{io_error, FormatError, TableKind};
use std::fs::{self, File};
use std::path::{Path, PathBuf};

/// The file name of the DTM table of `material` (e.g. `KRvK`) on a `files × ranks` board:
/// `KRvK.8x8.rtb`.
pub fn file_name(material: &str, files: u8, ranks: u8) -> String {
    kind_file_name(TableKind::Dtm, material, files, ranks, false)
}

/// The file name of `material`'s table of `kind` on a `files × ranks` board, raw
/// (`KRvK.8x8.rtb`, `KRvK.8x8.dtz50.rtb`) or packed (`KRvK.8x8.rtbz`, `KRvK.8x8.dtz50.rtbz`).
pub fn kind_file_name(
    kind: TableKind,
    material: &str,
    files: u8,
    ranks: u8,
    packed: bool,
) -> String {
    let extension = if packed { "rtbz" } else { "rtb" };
    format!("{material}.{files}x{ranks}{}.{extension}", kind.suffix())
}

/// The file holding the DTM table of `material` on a `files × ranks` board in `dir`: the raw
/// file (`KRvK.8x8.rtb`) if there is one, else the packed file (`KRvK.8x8.rtbz`) if there is
/// one, else the raw file's path (for writing it, or for an error naming it).
pub fn table_path(dir: &Path, material: &str, files: u8, ranks: u8) -> PathBuf {
    kind_table_path(dir, TableKind::Dtm, material, files, ranks)
}

/// [`table_path`] for the table of `kind`.
pub fn kind_table_path(
    dir: &Path,
    kind: TableKind,
    material: &str,
    files: u8,
    ranks: u8,
) -> PathBuf {
    let raw = dir.join(kind_file_name(kind, material, files, ranks, false));
    if raw.exists() {
        return raw;
    }
    let packed = dir.join(kind_file_name(kind, material, files, ranks, true));
    if packed.exists() {
        packed
    } else {
        raw
    }
}

/// A table file found in a directory, by its name: `MATERIAL.FxR[.KIND].rtb` or
/// `MATERIAL.FxR[.KIND].rtbz`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct TableName {
    /// The material as the name spells it, e.g. `KRvK`.
    pub material: String,
    /// Files of the board.
    pub files: u8,
    /// Ranks of the board.
    pub ranks: u8,
    /// Whether the file is packed (`.rtbz`).
    pub packed: bool,
    /// What the table holds, by the name's kind (none for DTM, `.dtz50`, `.wdl50`).
    pub kind: TableKind,
}

impl TableName {
    /// The name's parts, if `name` is a table file's name.
    pub fn parse(name: &str) -> Option<TableName> {
        let (stem, packed) = match name.strip_suffix(".rtbz") {
            Some(stem) => (stem, true),
            None => (name.strip_suffix(".rtb")?, false),
        };
        let (stem, kind) = TableKind::ALL
            .into_iter()
            .filter(|k| *k != TableKind::Dtm)
            .find_map(|k| stem.strip_suffix(k.suffix()).map(|s| (s, k)))
            .unwrap_or((stem, TableKind::Dtm));
        let (material, board) = stem.rsplit_once('.')?;
        let (files, ranks) = board.split_once('x')?;
        Some(TableName {
            material: material.to_string(),
            files: files.parse().ok()?,
            ranks: ranks.parse().ok()?,
            packed,
            kind,
        })
    }

    /// The file name it was parsed from.
    pub fn file_name(&self) -> String {
        kind_file_name(
            self.kind,
            &self.material,
            self.files,
            self.ranks,
            self.packed,
        )
    }
}

/// The table files in `dir`, raw and packed, of every kind, sorted by material name, board, form
/// and kind (a table present in both forms is listed twice). Temporary files of writes under way are not table
/// files.
pub fn table_names(dir: &Path) -> Result<Vec<TableName>, FormatError> {
    let mut found = Vec::new();
    for entry in fs::read_dir(dir).map_err(io_error(dir))? {
        let entry = entry.map_err(io_error(dir))?;
        if let Some(name) = TableName::parse(&entry.file_name().to_string_lossy()) {
            found.push(name);
        }
    }
    found.sort();
    Ok(found)
}

/// Whether `path` names a packed table file (by its `.rtbz` extension).
pub fn is_packed_path(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "rtbz")
}

/// A file being written for a destination, which appears there whole or not at all: the one
/// way the workspace writes files (tables, certificates, saved analyses), and its scratch files
/// (never given a name, so never left behind).
///
/// Where the file system allows (Linux's `O_TMPFILE`), the file has no name while it is
/// written, so a process killed part way (even by `SIGKILL`) leaves nothing behind; at
/// [`TempFile::persist`] it is linked under a temporary name beside the destination and renamed
/// over it. Elsewhere it is a hidden file `.NAME.PID.SERIAL.tmp` beside the destination from the
/// start, removed if the writer is dropped unfinished.
pub struct TempFile {
    /// The directory it is written in.
    dir: PathBuf,
    /// Its name there, once it has one.
    named: Option<PathBuf>,
    file: File,
    persisted: bool,
}

impl TempFile {
    /// Starts a file for `destination` in its directory (made if missing).
    pub fn beside(destination: &Path) -> Result<TempFile, FormatError> {
        let dir = destination
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf();
        fs::create_dir_all(&dir).map_err(io_error(&dir))?;
        use rustix::fs::{Mode, OFlags, CWD};
        let unnamed = rustix::fs::openat(
            CWD,
            &dir,
            OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o644),
        );
        if let Ok(fd) = unnamed {
            return Ok(TempFile {
                dir,
                named: None,
                file: File::from(fd),
                persisted: false,
            });
        }
        let path = Self::temporary_name(&dir, destination);
        let file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(io_error(&path))?;
        Ok(TempFile {
            dir,
            named: Some(path),
            file,
            persisted: false,
        })
    }

    /// `.NAME.PID.SERIAL.tmp` in `dir`, a name no other writer uses.
    fn temporary_name(dir: &Path, destination: &Path) -> PathBuf {
        let name = destination
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("table");
        static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let serial = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        dir.join(format!(".{name}.{}.{serial}.tmp", std::process::id()))
    }

    /// The open file, to write and read.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// A path for messages about the file: its name, or its directory while it has none.
    pub fn path(&self) -> &Path {
        self.named.as_deref().unwrap_or(&self.dir)
    }

    /// Puts the (flushed) file at `destination`, replacing any file there.
    pub fn persist(mut self, destination: &Path) -> Result<(), FormatError> {
        let named = match self.named.take() {
            Some(named) => named,
            None => {
                use std::os::fd::AsRawFd;
                let named = Self::temporary_name(&self.dir, destination);
                let fd = format!("/proc/self/fd/{}", self.file.as_raw_fd());
                rustix::fs::linkat(
                    rustix::fs::CWD,
                    fd.as_str(),
                    rustix::fs::CWD,
                    &named,
                    rustix::fs::AtFlags::SYMLINK_FOLLOW,
                )
                .map_err(|e| io_error(&named)(e.into()))?;
                named
            }
        };
        self.named = Some(named.clone());
        fs::rename(&named, destination).map_err(io_error(destination))?;
        self.persisted = true;
        Ok(())
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if let (false, Some(named)) = (self.persisted, &self.named) {
            let _ = fs::remove_file(named);
        }
    }
}

/// Writes `bytes` to `path` atomically: the whole file appears there, flushed, or nothing does.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), FormatError> {
    use std::io::Write;
    let temp = TempFile::beside(path)?;
    let io = |e| io_error(temp.path())(e);
    let mut file = temp.file();
    file.write_all(bytes).map_err(io)?;
    file.sync_all().map_err(io)?;
    temp.persist(path)
}
