//! `retro.syzygy`: the fifty-move tables from Python, in the shape of python-chess's
//! `chess.syzygy`, so that code written for `chess.syzygy.open_tablebase` runs unchanged.
//!
//! Owns: `retro.syzygy.open_tablebase` and [`SyzygyTablebase`] — `probe_wdl`, `get_wdl`,
//! `probe_dtz`, `get_dtz`, `add_directory`, `close`, the context manager.
//! Must never: read a value other than through `retro-tablebase`'s DTZ50 and WDL50 tables.
//!
//! As `chess.syzygy` does, every probe ignores the board's halfmove clock: a value is the one
//! of a position just reached by a capture or a pawn move. `probe_wdl` gives −2 (loss), −1
//! (blessed loss), 0, 1 (cursed win), 2 (win); `probe_dtz` the distance to zeroing in plies,
//! positive when the side to move wins, negative when it loses, beyond ±100 for a cursed win
//! or a blessed loss — exact here, where Syzygy's files may round it by one ply — and −1 for a
//! checkmated position, as `chess.syzygy` gives it.

use crate::{fen_of, or_default, python_error, Directories};
use pyo3::prelude::*;
use retro_format::Dtz;
use std::path::PathBuf;

/// The fifty-move tables (DTZ50 and WDL50) of one or more directories, probed from any number
/// of threads. Made by `retro.syzygy.open_tablebase(directory)`; a context manager, as
/// `chess.syzygy.open_tablebase` returns.
#[pyclass(frozen, module = "retro.syzygy", name = "Tablebase")]
pub struct SyzygyTablebase {
    directories: Directories,
}

impl SyzygyTablebase {
    /// `board`'s DTZ50 entry, probed without the interpreter's lock.
    fn dtz(&self, py: Python<'_>, board: &Bound<'_, PyAny>) -> PyResult<Dtz> {
        let fen = fen_of(board)?;
        py.detach(|| {
            self.directories
                .with_table(&fen, |tables, _, position| Ok(tables.fifty(position)?.dtz))
        })
        .map_err(python_error)
    }
}

#[pymethods]
impl SyzygyTablebase {
    /// Adds the tables of another directory; directories are searched in the order added.
    fn add_directory(&self, directory: PathBuf) -> PyResult<()> {
        self.directories.add(directory)
    }

    /// Win/draw/loss under the fifty-move rule, as after a zeroing move: 2 win, 1 cursed win,
    /// 0 draw, -1 blessed loss, -2 loss.
    ///
    /// Raises KeyError (MissingTableError where the table is not there) or TableError, as
    /// retro.Tablebase does.
    fn probe_wdl(&self, py: Python<'_>, board: &Bound<'_, PyAny>) -> PyResult<i64> {
        let fen = fen_of(board)?;
        let class = py
            .detach(|| {
                self.directories
                    .with_table(&fen, |tables, _, position| tables.wdl50(position))
            })
            .map_err(python_error)?;
        Ok(i64::from(class.syzygy().unwrap_or(0)))
    }

    /// As probe_wdl, but `default` where that raises a KeyError.
    #[pyo3(signature = (board, default = None))]
    fn get_wdl(
        &self,
        py: Python<'_>,
        board: &Bound<'_, PyAny>,
        default: Option<i64>,
    ) -> PyResult<Option<i64>> {
        or_default(py, self.probe_wdl(py, board), default)
    }

    /// The distance to zeroing in plies, as after a zeroing move: positive when the side to
    /// move wins, negative when it loses, 0 for a draw; beyond ±100 for a cursed win or a
    /// blessed loss; -1 for a checkmated position. Exact (Syzygy's own files may be one ply
    /// off).
    fn probe_dtz(&self, py: Python<'_>, board: &Bound<'_, PyAny>) -> PyResult<i64> {
        Ok(match self.dtz(py, board)? {
            Dtz::Win(n) => i64::from(n),
            Dtz::Loss(0) => -1,
            Dtz::Loss(n) => -i64::from(n),
            Dtz::Draw | Dtz::Illegal => 0,
        })
    }

    /// As probe_dtz, but `default` where that raises a KeyError.
    #[pyo3(signature = (board, default = None))]
    fn get_dtz(
        &self,
        py: Python<'_>,
        board: &Bound<'_, PyAny>,
        default: Option<i64>,
    ) -> PyResult<Option<i64>> {
        or_default(py, self.probe_dtz(py, board), default)
    }

    /// Forgets every directory (and the tables opened from them).
    fn close(&self) {
        self.directories.clear();
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, pyo3::types::PyTuple>) {
        self.close();
    }
}

/// Opens the fifty-move tables of `directory` (`MATERIAL.FxR.dtz50.rtb` and `.wdl50.rtb`, raw
/// or packed, as `retro gen` writes them); as `chess.syzygy.open_tablebase`.
#[pyfunction]
#[pyo3(signature = (directory, *, cache_mib = 64))]
fn open_tablebase(directory: PathBuf, cache_mib: u64) -> PyResult<SyzygyTablebase> {
    let tables = SyzygyTablebase {
        directories: Directories::new(cache_mib.saturating_mul(1 << 20)),
    };
    tables.add_directory(directory)?;
    Ok(tables)
}

/// retro's verified fifty-move tables, with chess.syzygy's conventions.
#[pymodule]
pub mod syzygy {
    #[pymodule_export]
    use super::{open_tablebase, SyzygyTablebase};
    #[pymodule_export]
    use crate::{MissingTableError, TableError};
}
