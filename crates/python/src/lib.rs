//! # retro-python — the tables from Python
//!
//! Owns: the Python module `retro` — `open_tablebase`, the class [`Tablebase`] with
//! `probe_dtm`, `get_dtm`, `probe_wdl`, `get_wdl` (the signs, units and errors of python-chess's
//! `chess.gaviota`), retro's own `probe`, `best_move` and `line`, and the exceptions
//! [`MissingTableError`] (a `KeyError`, as gaviota's) and [`TableError`] (an `OSError`: a
//! damaged file); and its submodule `retro.syzygy` — `open_tablebase` and the class
//! [`SyzygyTablebase`] with `probe_wdl`, `get_wdl`, `probe_dtz`, `get_dtz` in the shape of
//! python-chess's `chess.syzygy`, from the DTZ50 tables (module `syzygy`).
//! Must never: read a value other than through `retro-tablebase`, or hold the interpreter's
//! lock while probing (other Python threads run meanwhile).
//!
//! A position is a `chess.Board` (anything with a `fen()` method) or a FEN string, whose
//! board size (4×4 up to 16×16) selects the tables. Depths are in plies (half-moves), as
//! gaviota's: positive when the side to move mates, negative when it is mated, 0 for a draw or
//! a side already checkmated.

use pyo3::exceptions::{PyKeyError, PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use retro_tablebase::report::probe_json;
use retro_tablebase::{Directory, ProbeError, Value};
use std::path::PathBuf;
use std::sync::RwLock;

pyo3::create_exception!(
    retro,
    MissingTableError,
    PyKeyError,
    "No table for the position's material in the tablebase's directories (a KeyError, as \
     chess.gaviota.MissingTableError is)."
);
pyo3::create_exception!(
    retro,
    TableError,
    PyOSError,
    "A table file that is damaged, truncated or not what its name says."
);

mod syzygy;
pub use syzygy::SyzygyTablebase;

/// The directories a tablebase object searches, in the order added.
struct Directories {
    directories: RwLock<Vec<Directory>>,
    cache_bytes: u64,
}

/// The tables of one or more directories, probed from any number of threads.
///
/// Made by `retro.open_tablebase(directory)`; a context manager, as
/// `chess.gaviota.open_tablebase` returns.
#[pyclass(frozen, module = "retro")]
pub struct Tablebase {
    directories: Directories,
}

/// Why a probe failed, as the Python exception it raises.
fn python_error(error: ProbeError) -> PyErr {
    use retro_engine::fen::FenError;
    let text = error.to_string();
    match error {
        ProbeError::NoTable { .. } => MissingTableError::new_err(text),
        ProbeError::Fen(FenError::Malformed { reason, .. }) => match reason {
            retro_rules::fen::FenError::Castling { .. } => PyKeyError::new_err(format!(
                "retro's tables hold no positions with castling rights: {text}"
            )),
            _ => PyValueError::new_err(text),
        },
        ProbeError::Fen(_) | ProbeError::Unsupported { .. } | ProbeError::WrongBoard { .. } => {
            PyKeyError::new_err(text)
        }
        ProbeError::Format(_) | ProbeError::WrongTable { .. } | ProbeError::Inconsistent { .. } => {
            TableError::new_err(text)
        }
    }
}

/// The FEN of a `chess.Board` (or of anything with a `fen()` method), or the string given.
fn fen_of(board: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(fen) = board.extract::<String>() {
        return Ok(fen);
    }
    match board.call_method0("fen") {
        Ok(fen) => fen.extract::<String>(),
        Err(_) => Err(PyTypeError::new_err(
            "expected a chess.Board (or an object with a fen() method) or a FEN string",
        )),
    }
}

/// Gaviota's signed depth to mate in plies: positive when the side to move mates, negative
/// when it is mated, 0 for a draw or a side checkmated.
fn signed_plies(value: Value) -> i64 {
    match value {
        Value::Win(n) => i64::from(n),
        Value::Loss(n) => -i64::from(n),
        Value::Draw | Value::Illegal => 0,
    }
}

/// `default` where a probe raised a `KeyError` (the `get_` forms of gaviota's probes).
fn or_default(
    py: Python<'_>,
    probed: PyResult<i64>,
    default: Option<i64>,
) -> PyResult<Option<i64>> {
    match probed {
        Err(e) if e.is_instance_of::<PyKeyError>(py) => Ok(default),
        other => other.map(Some),
    }
}

/// Gaviota's win/draw/loss: 1, 0 or -1 for the side to move (-1 when checkmated).
fn wdl(value: Value) -> i64 {
    match value {
        Value::Win(_) => 1,
        Value::Loss(_) => -1,
        Value::Draw | Value::Illegal => 0,
    }
}

impl Directories {
    /// No directory yet; each added gets a cache of `cache_bytes` of decoded blocks a board.
    fn new(cache_bytes: u64) -> Directories {
        Directories {
            directories: RwLock::new(Vec::new()),
            cache_bytes,
        }
    }

    /// Adds the tables of another directory, searched after those added before.
    fn add(&self, directory: PathBuf) -> PyResult<()> {
        if !directory.is_dir() {
            return Err(PyOSError::new_err(format!(
                "not a directory: {}",
                directory.display()
            )));
        }
        let directory = Directory::new(directory).with_cache_bytes(self.cache_bytes);
        self.directories
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .push(directory);
        Ok(())
    }

    /// Forgets every directory (and the tables opened from them).
    fn clear(&self) {
        self.directories
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    /// Runs `probe` with the tables of the first directory that has the position's table.
    fn with_table<T>(
        &self,
        fen: &str,
        probe: impl Fn(
            &retro_tablebase::Tablebase,
            &retro_rules::Position,
            &retro_engine::Position,
        ) -> Result<T, ProbeError>,
    ) -> Result<T, ProbeError> {
        let directories = self.directories.read().unwrap_or_else(|e| e.into_inner());
        // The position is read once; each directory's tables of its board are tried in turn.
        let natural = retro_engine::fen::natural_of_fen(fen)?;
        let mut position: Option<retro_engine::Position> = None;
        let mut missing = None;
        for directory in directories.iter() {
            let tables = directory.tables(natural.board());
            let position = match position {
                Some(p) => p,
                None => *position.insert(retro_engine::fen::engine_of_natural(
                    tables.geometry(),
                    fen,
                    &natural,
                )?),
            };
            match probe(&tables, &natural, &position) {
                Err(e @ ProbeError::NoTable { .. }) => missing = missing.or(Some(e)),
                other => return other,
            }
        }
        if let Some(missing) = missing {
            return Err(missing);
        }
        // No directory (the tablebase was closed): the position is still read, so that a bad
        // one is reported as such.
        let geometry = retro_engine::Geometry::new(natural.board());
        let position: retro_engine::Position =
            retro_engine::fen::engine_of_natural(&geometry, fen, &natural)?;
        Err(ProbeError::Unsupported {
            material: position.material(),
            reason: "the tablebase has no directory (it was closed)".into(),
        })
    }
}

impl Tablebase {
    /// The value of `board` for its side to move, probed without the interpreter's lock.
    fn value(&self, py: Python<'_>, board: &Bound<'_, PyAny>) -> PyResult<Value> {
        let fen = fen_of(board)?;
        py.detach(|| {
            self.directories
                .with_table(&fen, |tables, _, position| tables.value(position))
        })
        .map_err(python_error)
    }
}

#[pymethods]
impl Tablebase {
    /// Adds the tables of another directory (raw `.rtb` or packed `.rtbz` files); directories
    /// are searched in the order added.
    fn add_directory(&self, directory: PathBuf) -> PyResult<()> {
        self.directories.add(directory)
    }

    /// The depth to mate in plies (half-moves): positive if the side to move mates, negative
    /// if it is mated, 0 for a draw or a side already checkmated.
    ///
    /// Raises KeyError if the position cannot be probed (castling rights, an illegal
    /// position, too many men), MissingTableError (a KeyError) if its table is not there,
    /// TableError if the table file is damaged, ValueError for a malformed FEN.
    fn probe_dtm(&self, py: Python<'_>, board: &Bound<'_, PyAny>) -> PyResult<i64> {
        self.value(py, board).map(signed_plies)
    }

    /// As probe_dtm, but `default` where that raises a KeyError.
    #[pyo3(signature = (board, default = None))]
    fn get_dtm(
        &self,
        py: Python<'_>,
        board: &Bound<'_, PyAny>,
        default: Option<i64>,
    ) -> PyResult<Option<i64>> {
        or_default(py, self.probe_dtm(py, board), default)
    }

    /// Win/draw/loss for the side to move: 1, 0 or -1 (-1 when checkmated). Raises as
    /// probe_dtm.
    fn probe_wdl(&self, py: Python<'_>, board: &Bound<'_, PyAny>) -> PyResult<i64> {
        self.value(py, board).map(wdl)
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

    /// Everything `retro probe --json` prints, as a dict: `fen`, `material`, `board`,
    /// `category`, `dtm` (signed plies), `description`, `checkmate`, `stalemate`, `moves` best
    /// first, and with `line=True` the best line (`line` in UCI, `line_san`).
    #[pyo3(signature = (board, line = false))]
    fn probe<'py>(
        &self,
        py: Python<'py>,
        board: &Bound<'py, PyAny>,
        line: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let fen = fen_of(board)?;
        let json = py
            .detach(|| {
                self.directories
                    .with_table(&fen, |tables, natural, position| {
                        probe_json(
                            tables,
                            natural,
                            position,
                            line,
                            retro_tablebase::fifty::fen_clock(&fen),
                        )
                    })
            })
            .map_err(python_error)?;
        py.import("json")?
            .call_method1("loads", (json.to_string(),))
    }

    /// The best move in UCI (the quickest mate, else a draw, else the longest resistance), or
    /// None when the side to move has no legal move.
    fn best_move(&self, py: Python<'_>, board: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
        let fen = fen_of(board)?;
        py.detach(|| {
            self.directories.with_table(&fen, |tables, _, position| {
                Ok(tables.best_move(position)?.map(|m| m.uci))
            })
        })
        .map_err(python_error)
    }

    /// The best line in UCI, to mate: the winner mating as fast as possible, the loser
    /// resisting as long as possible. Empty for a draw or a position already mated.
    fn line(&self, py: Python<'_>, board: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        let fen = fen_of(board)?;
        py.detach(|| {
            self.directories.with_table(&fen, |tables, _, position| {
                Ok(tables
                    .best_line(position)?
                    .into_iter()
                    .map(|m| m.uci)
                    .collect())
            })
        })
        .map_err(python_error)
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

/// Opens the tables of `directory` (raw `.rtb` or packed `.rtbz` files, as `retro gen` and
/// `retro pack` write them); `cache_mib` bounds each board's cache of decoded blocks of
/// packed files. As `chess.gaviota.open_tablebase`.
#[pyfunction]
#[pyo3(signature = (directory, *, cache_mib = 64))]
fn open_tablebase(directory: PathBuf, cache_mib: u64) -> PyResult<Tablebase> {
    let tables = Tablebase {
        directories: Directories::new(cache_mib.saturating_mul(1 << 20)),
    };
    tables.add_directory(directory)?;
    Ok(tables)
}

/// retro's verified chess endgame tables: depth to mate with chess.gaviota's conventions, and
/// under the fifty-move rule (`retro.syzygy`) with chess.syzygy's.
#[pymodule(name = "retro")]
mod retro_module {
    use pyo3::prelude::*;

    #[pymodule_export]
    use super::{open_tablebase, MissingTableError, TableError, Tablebase};

    #[pymodule_export]
    use super::syzygy::syzygy;

    /// `import retro.syzygy` finds the submodule, as `import chess.syzygy` does.
    #[pymodule_init]
    fn init(module: &Bound<'_, PyModule>) -> PyResult<()> {
        let submodule = module.getattr("syzygy")?;
        module
            .py()
            .import("sys")?
            .getattr("modules")?
            .set_item("retro.syzygy", submodule)
    }
}
