//! The smaller tables a material's exits lead into, opened whole for the plain cores (the
//! reference core's DTM, the fifty-move core's DTZ50), and the code of a position in them.
//!
//! Owns: [`Subtables`], and the whole tables that rebuilding packed files shares within a
//! process ([`Subtables::open_shared`]).
//! Must never: interpret a code: the caller reads it as its kind's value.

use crate::{exit_targets, Builder, GenError};
use retro_engine::{Geometry, Indexer, Material, TablePosition};
use retro_format::{Table, TableKind};
use retro_rules::Side;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// The most bytes of whole tables that rebuilding packed files ([`crate::restore_packed`],
/// [`crate::exit_codes`]) keeps open in a process between calls.
pub const SHARED_TABLE_BYTES: u64 = 1 << 30;

/// A whole table kept for the next call, with the file's length and time it was read at.
struct Shared {
    path: PathBuf,
    stamp: (u64, Option<SystemTime>),
    table: Arc<Table>,
}

/// The tables kept, least recently used first.
static SHARED: Mutex<Vec<Shared>> = Mutex::new(Vec::new());

/// `path` opened whole, or the copy already open if the file is unchanged since; the copy is
/// kept while the tables kept fit in [`SHARED_TABLE_BYTES`] (the least recently used go
/// first). The lock is never held while a table is read: reading a packed table may rebuild
/// it from its own smaller tables, through here.
fn open_shared_table(path: &Path) -> Result<Arc<Table>, GenError> {
    let meta = std::fs::metadata(path).map_err(|e| retro_format::FormatError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    let stamp = (meta.len(), meta.modified().ok());
    let shared = || SHARED.lock().unwrap_or_else(|e| e.into_inner());
    {
        let mut kept = shared();
        if let Some(at) = kept.iter().position(|s| s.path == path && s.stamp == stamp) {
            let entry = kept.remove(at);
            let table = Arc::clone(&entry.table);
            kept.push(entry);
            return Ok(table);
        }
    }
    let table = Arc::new(Table::open(path)?);
    let mut kept = shared();
    kept.retain(|s| s.path != path);
    kept.push(Shared {
        path: path.to_path_buf(),
        stamp,
        table: Arc::clone(&table),
    });
    let bytes = |kept: &[Shared]| {
        kept.iter()
            .map(|s| s.table.body().len() as u64)
            .sum::<u64>()
    };
    while kept.len() > 1 && bytes(&kept) > SHARED_TABLE_BYTES {
        kept.remove(0);
    }
    if bytes(&kept) > SHARED_TABLE_BYTES {
        kept.clear();
    }
    Ok(table)
}

/// Lets go of every table kept for later calls ([`open_shared_table`]): before a build, whose
/// memory is planned without them.
pub(crate) fn forget_shared() {
    SHARED.lock().unwrap_or_else(|e| e.into_inner()).clear();
}

/// The tables of one kind that a material's captures and promotions lead into.
pub(crate) struct Subtables {
    /// At most six entries: a linear search beats hashing.
    tables: Vec<(Material, Arc<Table>, Indexer)>,
}

impl Subtables {
    /// The `kind` tables of `material`'s exits, from `builder`'s directory, each read anew.
    pub(crate) fn open(
        builder: &Builder,
        material: Material,
        kind: TableKind,
    ) -> Result<Subtables, GenError> {
        Subtables::open_with(builder, material, kind, |path| {
            Ok(Arc::new(Table::open(path)?))
        })
    }

    /// [`Subtables::open`], the tables shared with other calls in the process while they fit
    /// in [`SHARED_TABLE_BYTES`]: for rebuilding packed files, where a table's smaller tables
    /// are each read whole once, not once for each table above them.
    pub(crate) fn open_shared(
        builder: &Builder,
        material: Material,
        kind: TableKind,
    ) -> Result<Subtables, GenError> {
        Subtables::open_with(builder, material, kind, open_shared_table)
    }

    fn open_with(
        builder: &Builder,
        material: Material,
        kind: TableKind,
        open: impl Fn(&Path) -> Result<Arc<Table>, GenError>,
    ) -> Result<Subtables, GenError> {
        let mut tables = Vec::new();
        for target in exit_targets(material) {
            let table = open(&builder.kind_path_of(kind, target))?;
            table.expect_kind(kind)?;
            let indexer =
                Indexer::new(&builder.geo, target).map_err(|e| GenError::Unsupported {
                    material: target.to_string(),
                    reason: e.to_string(),
                })?;
            tables.push((target, table, indexer));
        }
        Ok(Subtables { tables })
    }

    /// The tables, with their materials, in the order of [`exit_targets`].
    pub(crate) fn tables(&self) -> impl ExactSizeIterator<Item = (Material, &Table)> {
        self.tables.iter().map(|(m, table, _)| (*m, &**table))
    }

    /// The entry code, for its side to move, of a legal position of a smaller material; an
    /// error if the table holds no value for it.
    pub(crate) fn code(&self, geo: &Geometry, p: &TablePosition) -> Result<u32, GenError> {
        let (canonical, flipped) = p.material().canonical();
        let inconsistent = || GenError::Inconsistent {
            material: canonical.to_string(),
            fen: p.to_natural(geo).fen(),
        };
        let (_, table, indexer) = self
            .tables
            .iter()
            .find(|(m, _, _)| *m == canonical)
            .ok_or_else(inconsistent)?;
        let q = if flipped { p.colour_flipped(geo) } else { *p };
        let index = indexer.index(geo, &q).ok_or_else(inconsistent)?;
        match table.code(q.side_to_move() == Side::White, index)? {
            0 => Err(inconsistent()),
            code => Ok(code),
        }
    }
}
