//! Un-move generation: every predecessor of a position, the step retrograde analysis takes.
//!
//! Owns: [`Retractions`] and `Position::for_each_predecessor`.
//! Must never: return a position that has no legal move leading to the given one, or miss one
//! (`selfcheck` proves both directions exhaustively: `p'` is yielded for `p` iff `p` is a
//! successor of `p'`).
//!
//! In `p` the side to move is `S`; the last move was made by the other side, `M`. A predecessor
//! has `M` to move and differs from `p` by one man of `M` moved back — and, for a capture, by a
//! man of `S` put back on the square `M` arrived on; for a promotion, by the piece turned back
//! into a pawn; for an en-passant capture, by `S`'s pawn put back beside the capturing pawn with
//! the target recorded. A predecessor may also carry an en-passant target of its own (from a
//! double step of `S` just before), which the retracted move then cancelled.

use crate::geometry::{Geometry, BISHOP_DIRECTIONS, ROOK_DIRECTIONS};
use crate::position::{Man, Position};
use crate::sqset::Sq;
use retro_rules::{opponent, Piece, Side};

/// Which kinds of retracted move to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Retractions {
    /// The pieces of the side to move that may be put back as captured (never the king).
    pub uncapture: [bool; 6],
    /// Whether promoted pieces may be turned back into pawns.
    pub unpromote: bool,
    /// Whether pawns may be moved back (pushes, double steps, captures as `uncapture` allows).
    pub pawn_moves: bool,
}

impl Retractions {
    /// Moves within the same material only: no captures, no promotions.
    pub const QUIET: Retractions = Retractions {
        uncapture: [false; 6],
        unpromote: false,
        pawn_moves: true,
    };

    /// The moves that do not zero the fifty-move rule's clock: a piece's moves that capture
    /// nothing (no pawn moves, no captures, no promotions).
    pub const PIECES: Retractions = Retractions {
        uncapture: [false; 6],
        unpromote: false,
        pawn_moves: false,
    };

    /// Every kind of retracted move: any piece but the king put back, and promotions undone.
    pub const ALL: Retractions = Retractions {
        uncapture: [false, true, true, true, true, true],
        unpromote: true,
        pawn_moves: true,
    };

    fn uncaptures(&self) -> impl Iterator<Item = Piece> + '_ {
        Piece::ALL
            .into_iter()
            .filter(|&p| self.uncapture[crate::material::piece_index(p)])
    }
}

impl<const N: usize> Position<N> {
    /// The position before `M`'s man on `now` came from `origin` as `before` (a pawn, for an
    /// undone promotion), with `restored` put back on `now` (or elsewhere, for en passant).
    fn retracted(
        &self,
        _geo: &Geometry,
        now: Sq,
        origin: Sq,
        before: Piece,
        restored: Option<Man>,
        ep: Option<Sq>,
    ) -> Option<Position<N>> {
        self.moved_back(now, origin, before, restored, ep)
    }

    /// Calls `visit` with every legal position `p'` (with the other side to move) such that a
    /// legal move leads from `p'` to this position, restricted to the kinds in `kinds`. Each
    /// predecessor is visited once. The position itself must be legal.
    pub fn for_each_predecessor(
        &self,
        geo: &Geometry,
        kinds: Retractions,
        mut visit: impl FnMut(Position<N>),
    ) {
        let us = self.side_to_move();
        let mover = opponent(us);
        let occ = self.occupied();
        // Only the side to move here can have double-stepped just before the retracted move:
        // with one of its pawns on the board, or with a pawn the retraction puts back.
        let pawns_here = kinds.uncapture[crate::material::piece_index(Piece::Pawn)]
            || self
                .men()
                .iter()
                .any(|m| m.side == us && m.piece == Piece::Pawn);
        let accept = |before: Option<Position<N>>, visit: &mut dyn FnMut(Position<N>)| {
            let Some(before) = before else { return };
            if before.is_legal(geo) {
                if pawns_here {
                    before.visit_en_passant_variants(geo, visit);
                } else {
                    visit(before);
                }
            }
        };
        if let Some(target) = self.en_passant() {
            if !kinds.pawn_moves {
                return;
            }
            // Only the double step that created the target can have led here.
            let Some(now) = geo.ahead(mover, target, 1) else {
                return;
            };
            if let Some(origin) = geo.ahead(mover, target, -1) {
                let before = self.retracted(geo, now, origin, Piece::Pawn, None, None);
                if let Some(b) = before {
                    if b.double_step_leads_to(geo, origin, now, self) {
                        accept(Some(b), &mut visit);
                    }
                }
            }
            return;
        }
        for &man in self.men() {
            if man.side != mover {
                continue;
            }
            let now = man.sq;
            match man.piece {
                Piece::Pawn if !kinds.pawn_moves => {}
                Piece::Pawn => {
                    self.pawn_retractions(geo, kinds, man, &mut |b| accept(Some(b), &mut visit))
                }
                piece => {
                    // At most 2 × 15 + 2 × 15 squares on a 16×16 board: a fixed buffer.
                    let mut origins = [0 as Sq; 64];
                    let mut count = 0;
                    let mut push = |d: Sq| {
                        if !occ.contains(d) {
                            origins[count] = d;
                            count += 1;
                            true
                        } else {
                            false
                        }
                    };
                    match piece {
                        Piece::King => geo.king_targets(now).iter().for_each(|&d| {
                            push(d);
                        }),
                        Piece::Knight => geo.knight_targets(now).iter().for_each(|&d| {
                            push(d);
                        }),
                        _ => {
                            let dirs = match piece {
                                Piece::Rook => ROOK_DIRECTIONS,
                                Piece::Bishop => BISHOP_DIRECTIONS,
                                _ => 0..8,
                            };
                            for d in dirs {
                                for &sq in geo.ray(now, d) {
                                    if !push(sq) {
                                        break;
                                    }
                                }
                            }
                        }
                    }
                    let origins = &origins[..count];
                    for &origin in origins {
                        accept(
                            self.retracted(geo, now, origin, piece, None, None),
                            &mut visit,
                        );
                        for captured in kinds.uncaptures() {
                            if captured == Piece::Pawn && !geo.pawn_may_stand(now) {
                                continue;
                            }
                            let restored = Man {
                                side: us,
                                piece: captured,
                                sq: now,
                            };
                            accept(
                                self.retracted(geo, now, origin, piece, Some(restored), None),
                                &mut visit,
                            );
                        }
                    }
                    if kinds.unpromote
                        && piece != Piece::King
                        && geo.rank(now) == geo.last_rank(mover)
                    {
                        // The piece was a pawn that reached the last rank straight ahead …
                        if let Some(origin) =
                            geo.ahead(mover, now, -1).filter(|&d| !occ.contains(d))
                        {
                            accept(
                                self.retracted(geo, now, origin, Piece::Pawn, None, None),
                                &mut visit,
                            );
                            // On a board of four ranks a double step also reaches the last rank.
                            if let Some(start) =
                                geo.ahead(mover, now, -2).filter(|&d| !occ.contains(d))
                            {
                                if geo.rank(start) == geo.second_rank(mover) {
                                    accept(
                                        self.retracted(geo, now, start, Piece::Pawn, None, None),
                                        &mut visit,
                                    );
                                }
                            }
                        }
                        // … or by capturing diagonally.
                        for origin in Self::pawn_capture_origins(geo, mover, now) {
                            if occ.contains(origin) {
                                continue;
                            }
                            for captured in kinds.uncaptures().filter(|&c| c != Piece::Pawn) {
                                let restored = Man {
                                    side: us,
                                    piece: captured,
                                    sq: now,
                                };
                                accept(
                                    self.retracted(
                                        geo,
                                        now,
                                        origin,
                                        Piece::Pawn,
                                        Some(restored),
                                        None,
                                    ),
                                    &mut visit,
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// The squares from which a pawn of `side` attacks `target`.
    fn pawn_capture_origins(
        geo: &Geometry,
        side: Side,
        target: Sq,
    ) -> impl Iterator<Item = Sq> + '_ {
        geo.pawn_attack_targets(opponent(side), target)
            .iter()
            .copied()
    }

    fn pawn_retractions(
        &self,
        geo: &Geometry,
        kinds: Retractions,
        man: Man,
        visit: &mut dyn FnMut(Position<N>),
    ) {
        let us = self.side_to_move();
        let mover = man.side;
        let now = man.sq;
        let occ = self.occupied();
        let pawn_origin = |d: Sq| !occ.contains(d) && geo.pawn_may_stand(d);
        // A single step.
        if let Some(origin) = geo.ahead(mover, now, -1).filter(|&d| pawn_origin(d)) {
            if let Some(b) = self.retracted(geo, now, origin, Piece::Pawn, None, None) {
                visit(b);
            }
            // A double step, when this position records no target: then no en-passant capture
            // may be legal here, or the step would have recorded one.
            if let Some(start) = geo.ahead(mover, now, -2).filter(|&d| pawn_origin(d)) {
                if geo.rank(start) == geo.second_rank(mover) {
                    if let Some(b) = self.retracted(geo, now, start, Piece::Pawn, None, None) {
                        if b.double_step_leads_to(geo, start, now, self) {
                            visit(b);
                        }
                    }
                }
            }
        }
        // A capture.
        for origin in Self::pawn_capture_origins(geo, mover, now).filter(|&d| pawn_origin(d)) {
            for captured in kinds.uncaptures() {
                let restored = Man {
                    side: us,
                    piece: captured,
                    sq: now,
                };
                if let Some(b) = self.retracted(geo, now, origin, Piece::Pawn, Some(restored), None)
                {
                    visit(b);
                }
            }
            // An en-passant capture: `now` was the target, the victim stood beyond it.
            if kinds.uncapture[crate::material::piece_index(Piece::Pawn)] {
                let victim = geo.ahead(us, now, 1);
                let passed_from = geo.ahead(us, now, -1);
                if let (Some(victim), Some(passed_from)) = (victim, passed_from) {
                    if geo.rank(passed_from) == geo.second_rank(us)
                        && geo.rank(victim) == geo.rank(origin)
                        && !occ.contains(victim)
                        && !occ.contains(passed_from)
                    {
                        let restored = Man {
                            side: us,
                            piece: Piece::Pawn,
                            sq: victim,
                        };
                        if let Some(b) =
                            self.retracted(geo, now, origin, Piece::Pawn, Some(restored), Some(now))
                        {
                            visit(b);
                        }
                    }
                }
            }
        }
    }

    /// Whether the double step `from → to` in this position (its mover to move) leads exactly to
    /// `after`, en-passant target included.
    fn double_step_leads_to(&self, geo: &Geometry, from: Sq, to: Sq, after: &Position<N>) -> bool {
        let moved = self.after_move(from, to, None, Piece::Pawn);
        moved.with_double_step_target(geo, from) == *after
    }

    /// Visits this position, and the same with each en-passant target its side not to move
    /// could have just created by a double step, whenever that is legal.
    fn visit_en_passant_variants(&self, geo: &Geometry, visit: &mut dyn FnMut(Position<N>)) {
        visit(*self);
        if self.en_passant().is_some() {
            return;
        }
        let them = opponent(self.side_to_move());
        for m in self.men() {
            if m.side == them && m.piece == Piece::Pawn {
                if let Some(target) = geo.ahead(them, m.sq, -1) {
                    let variant = self.with_en_passant(Some(target));
                    if variant.is_legal(geo) {
                        visit(variant);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Geometry, Indexer, Material, Position, Retractions, TABLE_MEN};
    use retro_rules::{Board, Piece, Side};
    use std::collections::BTreeSet;

    /// The retractions of [`Retractions::PIECES`] are exactly the moves that do not zero the
    /// fifty-move rule's clock, on every position of tables with pawns of both sides (en
    /// passant) and of one: each move of a piece that captures nothing, retracted from the
    /// position it reaches, and nothing else.
    #[test]
    fn piece_retractions_are_the_moves_that_keep_the_clock() {
        for (name, files, ranks) in [("KPvKP", 4, 5), ("KRPvK", 4, 4), ("KNvKP", 3, 5)] {
            let geo = Geometry::new(Board::new(files, ranks).unwrap());
            let material = Material::parse(name).unwrap();
            let indexer = Indexer::new(&geo, material).unwrap();
            let key = |p: &Position<TABLE_MEN>| {
                (
                    p.side_to_move() == Side::White,
                    indexer
                        .index(&geo, p)
                        .expect("legal positions have an index"),
                )
            };
            let (mut moves, mut retractions) = (BTreeSet::new(), BTreeSet::new());
            for stm in Side::ALL {
                indexer.for_each_position::<TABLE_MEN>(&geo, 0..indexer.size(), stm, |_, p| {
                    let Some(p) = p.filter(|p| p.is_legal(&geo)) else {
                        return;
                    };
                    p.for_each_move(&geo, |mv, after| {
                        if mv.piece != Piece::Pawn && mv.captured.is_none() {
                            moves.insert((key(&p), key(&after)));
                        }
                    });
                    p.for_each_predecessor(&geo, Retractions::PIECES, |before| {
                        retractions.insert((key(&before), key(&p)));
                    });
                });
            }
            assert!(!moves.is_empty(), "{name}");
            assert_eq!(moves, retractions, "{name} on {files}x{ranks}");
        }
    }
}
