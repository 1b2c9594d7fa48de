//! The tables of one directory on every board size: a [`Tablebase`] per board, opened the
//! first time a position on that board is probed and kept.
//!
//! Owns: [`Directory`], and reading a FEN into a position of the right board's tablebase
//! ([`Directory::position`]).
//! Must never: hold a lock while probing (a look-up takes the map's lock only to find or open
//! the board's tablebase).

use crate::probe::{ProbeError, Tablebase, DEFAULT_CACHE_BYTES};
use retro_engine::fen::{engine_of_natural, natural_of_fen};
use retro_engine::Position;
use retro_rules::Board;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The tables of one directory, on whatever board a position is given: each board's
/// [`Tablebase`] is opened once, with a block cache of the size set here. `Send + Sync`.
pub struct Directory {
    dir: PathBuf,
    boards: Mutex<HashMap<Board, Arc<Tablebase>>>,
    cache_bytes: u64,
}

impl Directory {
    /// The tables of `dir`, each board's with a block cache of [`DEFAULT_CACHE_BYTES`].
    pub fn new(dir: impl Into<PathBuf>) -> Directory {
        Directory {
            dir: dir.into(),
            boards: Mutex::new(HashMap::new()),
            cache_bytes: DEFAULT_CACHE_BYTES,
        }
    }

    /// The same directory with block caches of at most `bytes` bytes per board.
    pub fn with_cache_bytes(mut self, bytes: u64) -> Directory {
        self.cache_bytes = bytes;
        self
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The tables of `board`, opened once.
    pub fn tables(&self, board: Board) -> Arc<Tablebase> {
        let mut open = self.boards.lock().unwrap_or_else(|e| e.into_inner());
        open.entry(board)
            .or_insert_with(|| {
                Arc::new(Tablebase::new(board, &self.dir).with_cache_bytes(self.cache_bytes))
            })
            .clone()
    }

    /// The position of `fen` (checked legal) with its board's tablebase and the natural
    /// model's position (for its FEN as understood and its diagram).
    pub fn position(
        &self,
        fen: &str,
    ) -> Result<(Arc<Tablebase>, retro_rules::Position, Position), ProbeError> {
        let natural = natural_of_fen(fen)?;
        let tables = self.tables(natural.board());
        let position = engine_of_natural(tables.geometry(), fen, &natural)?;
        Ok((tables, natural, position))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_board_is_opened_once() {
        let dir = Directory::new("no-such-directory");
        let small = Board::new(4, 4).unwrap();
        assert!(Arc::ptr_eq(&dir.tables(small), &dir.tables(small)));
        assert!(!Arc::ptr_eq(
            &dir.tables(small),
            &dir.tables(Board::STANDARD)
        ));
        let (tables, natural, _) = dir.position("4/1k2/4/K2R w - - 0 1").unwrap();
        assert_eq!(natural.board(), small);
        assert_eq!(tables.geometry().board(), small);
        assert!(matches!(
            dir.position("8/8/8/8/8/8/8/K2kr3 w KQ - 0 1"),
            Err(ProbeError::Fen(_))
        ));
    }
}
