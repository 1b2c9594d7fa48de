//! A position's *exits*: its legal moves that change the material (a capture or a promotion),
//! whose results lie in other tables; and its *zeroing* moves, the exits and every other pawn
//! move, which set the fifty-move rule's clock back to 0.
//!
//! Owns: [`Move::leaves_material`], [`Move::zeroes`], [`Position::for_each_exit`] and
//! [`Position::for_each_zeroing_move`].
//! Must never: list a move that stays in the table (or, for zeroing moves, one that leaves
//! the clock running), or miss one.

use crate::{Geometry, Move, Position};

impl Move {
    /// Whether the move changes the material: a capture or a promotion, whose result lies in
    /// another table.
    pub fn leaves_material(&self) -> bool {
        self.captured.is_some() || self.promotion.is_some()
    }

    /// Whether the move sets the fifty-move rule's clock back to 0: a capture or a pawn move
    /// (`retro_rules::fifty::zeroing`).
    pub fn zeroes(&self) -> bool {
        self.captured.is_some() || self.piece == retro_rules::Piece::Pawn
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

    /// Calls `visit` with every legal zeroing move of the side to move ([`Move::zeroes`]):
    /// without pawns the exits, with pawns every capture and every pawn move.
    pub fn for_each_zeroing_move(&self, geo: &Geometry, mut visit: impl FnMut(Move)) {
        if self
            .men()
            .iter()
            .any(|m| m.piece == retro_rules::Piece::Pawn)
        {
            self.for_each_legal_move(geo, None, |mv| {
                if mv.zeroes() {
                    visit(mv);
                }
            });
        } else {
            self.for_each_exit(geo, visit);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Geometry, Indexer, Material, Move, TablePosition, TABLE_MEN};
    use retro_rules::{Board, Piece, Side};

    /// Calls `check` with every legal position of `name`'s table at indices a `step` apart,
    /// both sides to move.
    fn sample(geo: &Geometry, name: &str, step: usize, mut check: impl FnMut(&TablePosition)) {
        let material: Material = name.parse().unwrap();
        let indexer = Indexer::new(geo, material).unwrap();
        for i in (0..indexer.size()).step_by(step) {
            for stm in [Side::White, Side::Black] {
                if let Some(p) = indexer.position::<TABLE_MEN>(geo, i, stm) {
                    if p.is_legal(geo) {
                        check(&p);
                    }
                }
            }
        }
    }

    /// `p`'s legal moves that `keep` says, and those `list` gives, each sorted.
    fn listed(
        geo: &Geometry,
        p: &TablePosition,
        keep: impl Fn(&Move) -> bool,
        list: impl FnOnce(&mut dyn FnMut(Move)),
    ) -> (Vec<Move>, Vec<Move>) {
        let key = |m: &Move| (m.from, m.to, m.promotion.map(|p| p as u8));
        let mut expected = Vec::new();
        p.for_each_legal_move(geo, None, |mv| {
            if keep(&mv) {
                expected.push(mv);
            }
        });
        let mut found = Vec::new();
        list(&mut |mv| found.push(mv));
        expected.sort_by_key(key);
        found.sort_by_key(key);
        (expected, found)
    }

    /// With and without pawns, the exits are exactly the legal moves that leave the material.
    #[test]
    fn exits_are_the_legal_moves_that_leave_the_material() {
        let geo = Geometry::new(Board::STANDARD);
        for name in ["KQvKR", "KPvKN"] {
            let mut with_exits = 0;
            sample(&geo, name, 97, |p| {
                let (expected, found) = listed(&geo, p, Move::leaves_material, |visit| {
                    p.for_each_exit(&geo, visit)
                });
                assert_eq!(found, expected, "{name}: {}", p.to_natural(&geo).fen());
                with_exits += usize::from(!found.is_empty());
            });
            assert!(with_exits > 0, "{name}: no position with an exit");
        }
    }

    /// Zeroing moves are the captures and pawn moves, with pawns and without.
    #[test]
    fn zeroing_moves_are_the_captures_and_pawn_moves() {
        let geo = Geometry::new(Board::STANDARD);
        let zeroes = |m: &Move| m.captured.is_some() || m.piece == Piece::Pawn;
        for name in ["KRvKN", "KPvKP", "KRPvK"] {
            let (mut pawn_moves, mut captures) = (0, 0);
            sample(&geo, name, 89, |p| {
                let (expected, found) = listed(&geo, p, zeroes, |visit| {
                    p.for_each_zeroing_move(&geo, visit)
                });
                assert_eq!(found, expected, "{name}: {}", p.to_natural(&geo).fen());
                pawn_moves += found.iter().filter(|m| m.captured.is_none()).count();
                captures += found.iter().filter(|m| m.captured.is_some()).count();
            });
            assert!(captures > 0, "{name}: no capture");
            assert_eq!(pawn_moves > 0, name.contains('P'), "{name}: pawn moves");
        }
    }
}
