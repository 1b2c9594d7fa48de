//! The smaller tables a material's exits lead into, opened whole for the plain cores (the
//! reference core's DTM, the fifty-move core's DTZ50), and the code of a position in them.
//!
//! Owns: [`Subtables`].
//! Must never: interpret a code: the caller reads it as its kind's value.

use crate::{exit_targets, Builder, GenError};
use retro_engine::{Geometry, Indexer, Material, TablePosition};
use retro_format::{Table, TableKind};
use retro_rules::Side;

/// The tables of one kind that a material's captures and promotions lead into.
pub(crate) struct Subtables {
    /// At most six entries: a linear search beats hashing.
    tables: Vec<(Material, Table, Indexer)>,
}

impl Subtables {
    /// The `kind` tables of `material`'s exits, from `builder`'s directory.
    pub(crate) fn open(
        builder: &Builder,
        material: Material,
        kind: TableKind,
    ) -> Result<Subtables, GenError> {
        let mut tables: Vec<(Material, Table, Indexer)> = Vec::new();
        for target in exit_targets(material) {
            let table = Table::open(&builder.kind_path_of(kind, target))?;
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
