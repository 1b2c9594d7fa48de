//! One writer a directory: a lock that a run writing tables holds while it works, so that two
//! builds in one directory do not write the same files at once.
//!
//! Owns: [`DirectoryLock`] and its file ([`LOCK_FILE`]), there only while a run holds it.
//! Must never: wait (a held lock is an error at once, naming the run that holds it) or outlive
//! its process (the kernel lets go of an `flock` lock when the process ends, however it ends;
//! a file left by a killed run is taken over by the next).

use crate::FormatError;
use rustix::fs::{flock, FlockOperation};
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// The lock file's name in the directory (empty but for a line naming the run holding it).
pub const LOCK_FILE: &str = ".retro.lock";

/// A directory held for writing; let go, and its lock file removed, when dropped.
#[derive(Debug)]
pub struct DirectoryLock {
    file: File,
    path: std::path::PathBuf,
}

impl DirectoryLock {
    /// Holds `dir` (made if missing) for the run described by `what` (e.g. "retro gen
    /// KRvK"), or says which run holds it already.
    pub fn acquire(dir: &Path, what: &str) -> Result<DirectoryLock, FormatError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| FormatError::Io { path, source }
        };
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let path = dir.join(LOCK_FILE);
        // A holder removes the file before it lets go; a file locked after that is no longer
        // the one at the path, so the lock is taken again on the file that is.
        let mut file = loop {
            let mut file = OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(io(&path))?;
            match flock(&file, FlockOperation::NonBlockingLockExclusive) {
                Ok(()) => {}
                Err(rustix::io::Errno::WOULDBLOCK) => {
                    let mut holder = String::new();
                    let _ = file.read_to_string(&mut holder);
                    return Err(FormatError::Busy {
                        dir: dir.to_path_buf(),
                        holder: match holder.trim() {
                            "" => "another run".to_string(),
                            h => h.to_string(),
                        },
                    });
                }
                Err(e) => return Err(io(&path)(e.into())),
            }
            let held = file.metadata().map_err(io(&path))?;
            match std::fs::metadata(&path) {
                Ok(now) if now.ino() == held.ino() && now.dev() == held.dev() => break file,
                _ => continue,
            }
        };
        let line = format!("{what} (process {})\n", std::process::id());
        file.set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(line.as_bytes()))
            .map_err(io(&path))?;
        Ok(DirectoryLock { file, path })
    }
}

impl Drop for DirectoryLock {
    fn drop(&mut self) {
        // Removed while still held, so that no other run takes a lock on a file about to go.
        let _ = std::fs::remove_file(&self.path);
        let _ = flock(&self.file, FlockOperation::Unlock);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_held_directory_is_refused_naming_its_holder_until_let_go() {
        let dir = tempfile::tempdir().unwrap();
        let held = DirectoryLock::acquire(dir.path(), "retro gen KRvK").unwrap();
        let err = DirectoryLock::acquire(dir.path(), "retro gen KQvK").unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("retro gen KRvK (process")
                && text.contains(&dir.path().display().to_string()),
            "{text}"
        );
        drop(held);
        assert!(
            !dir.path().join(LOCK_FILE).exists(),
            "the lock file is removed"
        );
        let again = DirectoryLock::acquire(dir.path(), "retro gen KQvK").unwrap();
        assert!(dir.path().join(LOCK_FILE).exists());
        drop(again);
    }
}
