//! A position's *exits*: its legal moves that change the material (a capture or a promotion),
//! whose results lie in other tables.
//!
//! Owns: [`Move::leaves_material`] and [`Position::for_each_exit`].
//! Must never: list a move that stays in the table, or miss one that leaves it.

use crate::{Geometry, Move, Position};

impl Move {
    /// Whether the move changes the material: a capture or a promotion, whose result lies in
    /// another table.
    pub fn leaves_material(&self) -> bool {
        self.captured.is_some() || self.promotion.is_some()
    }
}

impl<const N: usize> Position<N> {
    /// Calls `visit` with every legal move of the side to move that leaves the material
    /// ([`Move::leaves_material`]). Without pawns those are the captures, found by
    /// [`Position::quiet_move_count`] without listing the quiet moves.
    pub fn for_each_exit(&self, geo: &Geometry, mut visit: impl FnMut(Move)) {
        if self.quiet_move_count(geo, &mut visit, |_| {}).is_none() {
            self.for_each_legal_move(geo, None, |mv| {
                if mv.leaves_material() {
                    visit(mv);
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Geometry, Indexer, Material, TABLE_MEN};
    use retro_rules::{Board, Side};

    /// With and without pawns, the exits are exactly the legal moves that leave the material.
    #[test]
    fn exits_are_the_legal_moves_that_leave_the_material() {
        let geo = Geometry::new(Board::STANDARD);
        for name in ["KQvKR", "KPvKN"] {
            let material: Material = name.parse().unwrap();
            let indexer = Indexer::new(&geo, material).unwrap();
            let mut with_exits = 0;
            for i in (0..indexer.size()).step_by(97) {
                for stm in [Side::White, Side::Black] {
                    let Some(p) = indexer.position::<TABLE_MEN>(&geo, i, stm) else {
                        continue;
                    };
                    if !p.is_legal(&geo) {
                        continue;
                    }
                    let mut expected = Vec::new();
                    p.for_each_legal_move(&geo, None, |mv| {
                        if mv.leaves_material() {
                            expected.push(mv);
                        }
                    });
                    let mut found = Vec::new();
                    p.for_each_exit(&geo, |mv| found.push(mv));
                    let key = |m: &crate::Move| (m.from, m.to, m.promotion.map(|p| p as u8));
                    expected.sort_by_key(key);
                    found.sort_by_key(key);
                    assert_eq!(found, expected, "{name}, index {i}, {stm:?} to move");
                    with_exits += usize::from(!found.is_empty());
                }
            }
            assert!(with_exits > 0, "{name}: no position with an exit");
        }
    }
}
