//! The engine's positions: a short list of men in a fixed order, with square sets for occupancy,
//! and fast legality, check and move generation over a board's [`Geometry`].
//!
//! Owns: [`Position`], [`Man`], [`Move`], [`PositionError`].
//! Must never: be trusted on its own — `selfcheck` proves it equal to the natural model.

use crate::geometry::{Geometry, Line, BISHOP_DIRECTIONS, ROOK_DIRECTIONS};
use crate::material::{piece_index, side_index, Material};

use crate::sqset::{Sq, SqSet};
use retro_rules::{opponent, Piece, Side};
use std::cmp::Ordering;
use std::fmt;

/// The most men a position may hold.
pub const MAX_MEN: usize = 32;

/// A man: a side, a piece and its square.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Man {
    /// Whose man it is.
    pub side: Side,
    /// What it is.
    pub piece: Piece,
    /// Where it stands.
    pub sq: Sq,
}

/// The place of a kind of man in the fixed order of a position's men: White's king, Black's king,
/// White's Q R B N P, Black's Q R B N P.
#[inline]
pub fn kind_order(side: Side, piece: Piece) -> u8 {
    match piece {
        Piece::King => side_index(side) as u8,
        _ => 2 + 5 * side_index(side) as u8 + piece_index(piece) as u8 - 1,
    }
}

impl Man {
    #[inline]
    fn order(&self) -> (u8, Sq) {
        (kind_order(self.side, self.piece), self.sq)
    }
}

/// A move of the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    /// The square left.
    pub from: Sq,
    /// The square reached.
    pub to: Sq,
    /// The piece moved (a pawn, if it promotes).
    pub piece: Piece,
    /// The piece a pawn is exchanged for.
    pub promotion: Option<Piece>,
    /// The piece captured, if any.
    pub captured: Option<Piece>,
    /// Whether the move is an en-passant capture.
    pub en_passant: bool,
}

/// A list of men that cannot be a position of the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// More than [`MAX_MEN`] men.
    #[error("the engine handles at most {MAX_MEN} men, not {0}")]
    TooManyMen(usize),
    /// Two men on one square.
    #[error("two men on one square")]
    SquareTaken,
    /// A man off the board.
    #[error("a man stands off the board")]
    OffBoard,
}

/// What decides the legality of the side to move's moves: its king, the men checking it, the
/// squares ending a single check, and the pinned men with their pinners.
struct Safety {
    king: Option<Sq>,
    checkers: u32,
    block: SqSet,
    pins: [(Sq, Sq); 8],
    pin_count: usize,
    /// The squares the other side attacks with the king lifted off its square.
    danger: SqSet,
}

/// The capacity of positions of endgame tables.
pub const TABLE_MEN: usize = 8;

/// A position: at most `N` men in the fixed order of [`kind_order`] (identical men by increasing
/// square), the side to move, and the en-passant target when an en-passant capture is legal.
///
/// `N` only bounds the number of men; positions of tables use [`TablePosition`], whose copies
/// are small.
#[derive(Clone, Copy)]
pub struct Position<const N: usize = MAX_MEN> {
    men: [Man; N],
    len: u8,
    stm: Side,
    ep: Option<Sq>,
    occ: SqSet,
}

/// A position of at most [`TABLE_MEN`] men.
pub type TablePosition = Position<TABLE_MEN>;

impl<const N: usize> PartialEq for Position<N> {
    fn eq(&self, other: &Position<N>) -> bool {
        self.men() == other.men() && self.stm == other.stm && self.ep == other.ep
    }
}

impl<const N: usize> Eq for Position<N> {}

impl<const N: usize> std::hash::Hash for Position<N> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.men().hash(state);
        self.stm.hash(state);
        self.ep.hash(state);
    }
}

impl<const N: usize> fmt::Debug for Position<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Position")
            .field("men", &self.men())
            .field("stm", &self.stm)
            .field("ep", &self.ep)
            .finish()
    }
}

const NO_MAN: Man = Man {
    side: Side::White,
    piece: Piece::King,
    sq: 0,
};

impl<const N: usize> Position<N> {
    /// The position with these men, `stm` to move and en-passant target `ep` (not checked for
    /// legality; see [`Position::is_legal`]).
    pub fn new(
        geo: &Geometry,
        men: impl IntoIterator<Item = Man>,
        stm: Side,
        ep: Option<Sq>,
    ) -> Result<Position<N>, PositionError> {
        let mut p = Position {
            men: [NO_MAN; N],
            len: 0,
            stm,
            ep,
            occ: SqSet::EMPTY,
        };
        for man in men {
            if usize::from(p.len) == N {
                return Err(PositionError::TooManyMen(N + 1));
            }
            if usize::from(man.sq) >= geo.square_count() {
                return Err(PositionError::OffBoard);
            }
            if p.occ.contains(man.sq) {
                return Err(PositionError::SquareTaken);
            }
            p.men[usize::from(p.len)] = man;
            p.len += 1;
            p.occ.insert(man.sq);
        }
        if ep.is_some_and(|sq| usize::from(sq) >= geo.square_count()) {
            return Err(PositionError::OffBoard);
        }
        p.sort();
        Ok(p)
    }

    /// The position with these men, already in the fixed order on distinct squares `occ`.
    pub(crate) fn from_ordered(men: &[Man], stm: Side, ep: Option<Sq>, occ: SqSet) -> Position<N> {
        debug_assert!(men.windows(2).all(|w| w[0].order() < w[1].order()));
        let mut p = Position {
            men: [NO_MAN; N],
            len: men.len() as u8,
            stm,
            ep,
            occ,
        };
        p.men[..men.len()].copy_from_slice(men);
        p
    }

    fn sort(&mut self) {
        let men = &mut self.men[..usize::from(self.len)];
        // Insertion sort: the lists are short and usually almost sorted.
        for i in 1..men.len() {
            let mut j = i;
            while j > 0 && men[j - 1].order() > men[j].order() {
                men.swap(j - 1, j);
                j -= 1;
            }
        }
    }

    /// The men, in the fixed order.
    #[inline]
    pub fn men(&self) -> &[Man] {
        &self.men[..usize::from(self.len)]
    }

    /// The side to move.
    #[inline]
    pub fn side_to_move(&self) -> Side {
        self.stm
    }

    /// The en-passant target square.
    #[inline]
    pub fn en_passant(&self) -> Option<Sq> {
        self.ep
    }

    /// The squares `side`'s men stand on.
    #[inline]
    pub fn occupied_by(&self, side: Side) -> SqSet {
        self.men()
            .iter()
            .filter(|m| m.side == side)
            .map(|m| m.sq)
            .collect()
    }

    /// The occupied squares.
    #[inline]
    pub fn occupied(&self) -> SqSet {
        self.occ
    }

    #[inline]
    fn is_occupied(&self, sq: Sq) -> bool {
        self.occ.contains(sq)
    }

    /// The man on `sq`, if any.
    pub fn man_on(&self, sq: Sq) -> Option<Man> {
        self.men().iter().copied().find(|m| m.sq == sq)
    }

    /// The square of `side`'s king (the first one, if a malformed position has several).
    #[inline]
    pub fn king(&self, side: Side) -> Option<Sq> {
        self.men()
            .iter()
            .find(|m| m.piece == Piece::King && m.side == side)
            .map(|m| m.sq)
    }

    /// The position's material.
    pub fn material(&self) -> Material {
        let men: Vec<(Side, Piece)> = self.men().iter().map(|m| (m.side, m.piece)).collect();
        Material::from_men(&men)
    }

    /// The same men with `stm` to move and no en-passant target.
    pub fn with_side_to_move(&self, stm: Side) -> Position<N> {
        Position {
            stm,
            ep: None,
            ..*self
        }
    }

    /// The same position with en-passant target `ep`.
    pub fn with_en_passant(&self, ep: Option<Sq>) -> Position<N> {
        Position { ep, ..*self }
    }

    /// The image of the position under a symmetry of the board.
    pub fn transformed(&self, symmetry: &crate::geometry::Symmetry) -> Position<N> {
        let mut p = *self;
        p.occ = SqSet::EMPTY;
        for i in 0..usize::from(p.len) {
            let sq = symmetry.apply(p.men[i].sq);
            p.men[i].sq = sq;
            p.occ.insert(sq);
        }
        p.ep = p.ep.map(|sq| symmetry.apply(sq));
        p.sort();
        p
    }

    /// The same position with the colours exchanged: every man changes side, the board is
    /// mirrored top to bottom, and the other side is to move. The value for the side to move is
    /// unchanged; tables store only materials whose stronger side is White, and are probed
    /// through this map.
    pub fn colour_flipped(&self, geo: &Geometry) -> Position<N> {
        let mirror = |sq: Sq| geo.sq(geo.file(sq), geo.ranks() - 1 - geo.rank(sq));
        let mut p = *self;
        p.occ = SqSet::EMPTY;
        for i in 0..usize::from(p.len) {
            let sq = mirror(p.men[i].sq);
            p.men[i].side = opponent(p.men[i].side);
            p.men[i].sq = sq;
            p.occ.insert(sq);
        }
        p.stm = opponent(self.stm);
        p.ep = self.ep.map(mirror);
        p.men[..usize::from(p.len)].sort_unstable_by_key(|m| m.order());
        p
    }

    /// Whether the man `man` attacks `target`, given the occupied squares `occ`.
    #[inline]
    pub fn man_attacks(geo: &Geometry, man: Man, target: Sq, occ: SqSet) -> bool {
        match man.piece {
            Piece::King => geo.king_attacks(man.sq).contains(target),
            Piece::Knight => geo.knight_attacks(man.sq).contains(target),
            Piece::Pawn => geo.pawn_attacks(man.side, man.sq).contains(target),
            Piece::Rook => {
                geo.line(man.sq, target) == Line::Straight
                    && !geo.between(man.sq, target).intersects(occ)
            }
            Piece::Bishop => {
                geo.line(man.sq, target) == Line::Diagonal
                    && !geo.between(man.sq, target).intersects(occ)
            }
            Piece::Queen => {
                geo.line(man.sq, target) != Line::None
                    && !geo.between(man.sq, target).intersects(occ)
            }
        }
    }

    /// Whether a man of `by` attacks `target`.
    #[inline]
    pub fn attacked_by(&self, geo: &Geometry, target: Sq, by: Side) -> bool {
        let occ = self.occupied();
        self.men()
            .iter()
            .any(|&m| m.side == by && Self::man_attacks(geo, m, target, occ))
    }

    /// Whether `side`'s king is attacked.
    #[inline]
    pub fn in_check(&self, geo: &Geometry, side: Side) -> bool {
        match self.king(side) {
            Some(k) => self.attacked_by(geo, k, opponent(side)),
            None => false,
        }
    }

    /// Whether the position is legal: one king each, no pawn on an end rank, a valid en-passant
    /// target, and the side not to move not in check.
    pub fn is_legal(&self, geo: &Geometry) -> bool {
        // Men are kept in kind order, so one king each means: White's king first, Black's
        // second, and no third.
        let men = self.men();
        let king = |i: usize, s: Side| {
            men.get(i)
                .is_some_and(|m| m.piece == Piece::King && m.side == s)
        };
        king(0, Side::White)
            && king(1, Side::Black)
            && men.get(2).is_none_or(|m| m.piece != Piece::King)
            && self
                .men()
                .iter()
                .all(|m| m.piece != Piece::Pawn || geo.pawn_may_stand(m.sq))
            && self.en_passant_valid(geo)
            && !self.in_check(geo, opponent(self.stm))
    }

    /// The en-passant target follows a double step by the side not to move and some en-passant
    /// capture onto it is legal.
    fn en_passant_valid(&self, geo: &Geometry) -> bool {
        match self.ep {
            None => true,
            Some(t) => self.en_passant_consistent(geo, t) && self.en_passant_capture_legal(geo, t),
        }
    }

    /// The target `t` is the square a pawn of the side not to move passed on its double step.
    pub fn en_passant_consistent(&self, geo: &Geometry, t: Sq) -> bool {
        let mover = opponent(self.stm);
        let (Some(pawn_sq), Some(passed_from)) = (geo.ahead(mover, t, 1), geo.ahead(mover, t, -1))
        else {
            return false;
        };
        geo.rank(passed_from) == geo.second_rank(mover)
            && self
                .man_on(pawn_sq)
                .is_some_and(|m| m.side == mover && m.piece == Piece::Pawn)
            && !self.is_occupied(t)
            && !self.is_occupied(passed_from)
    }

    /// Some pawn of the side to move can legally capture en passant onto `t`.
    fn en_passant_capture_legal(&self, geo: &Geometry, t: Sq) -> bool {
        let us = self.stm;
        let Some(victim) = geo.ahead(opponent(us), t, 1) else {
            return false;
        };
        self.men().iter().any(|m| {
            m.side == us
                && m.piece == Piece::Pawn
                && geo.pawn_attacks(us, m.sq).contains(t)
                && geo.rank(m.sq) == geo.rank(victim)
                && {
                    let after = self.after_move(m.sq, t, Some(victim), Piece::Pawn);
                    !after.in_check(geo, us)
                }
        })
    }

    /// The position after the man on `from` moves to `to` as `arrival`, removing the man on
    /// `capture_sq` if any; the other side is to move and there is no en-passant target.
    #[inline]
    pub(crate) fn after_move(
        &self,
        from: Sq,
        to: Sq,
        capture_sq: Option<Sq>,
        arrival: Piece,
    ) -> Position<N> {
        let mut p = *self;
        if let Some(c) = capture_sq {
            if let Some(i) = p.men().iter().position(|m| m.sq == c) {
                p.occ.remove(c);
                p.men.copy_within(i + 1..usize::from(p.len), i);
                p.len -= 1;
            }
        }
        let i = p
            .men()
            .iter()
            .position(|m| m.sq == from)
            .expect("a man stands on the square it moves from");
        p.occ.remove(from);
        p.occ.insert(to);
        p.men[i].sq = to;
        p.men[i].piece = arrival;
        p.stm = opponent(self.stm);
        p.ep = None;
        p.restore_order(i);
        p
    }

    /// The position before a move: the man on `now` goes back to the empty square `origin` as
    /// `before`, `restored` (a captured man) is put back, the other side is to move, with
    /// en-passant target `ep`. `None` if a square is taken or the position would be too full.
    #[inline]
    pub(crate) fn moved_back(
        &self,
        now: Sq,
        origin: Sq,
        before: Piece,
        restored: Option<Man>,
        ep: Option<Sq>,
    ) -> Option<Position<N>> {
        if self.occ.contains(origin) {
            return None;
        }
        let mut p = *self;
        let i = p.men().iter().position(|m| m.sq == now)?;
        p.occ.remove(now);
        p.occ.insert(origin);
        p.men[i].sq = origin;
        p.men[i].piece = before;
        p.stm = opponent(self.stm);
        p.ep = ep;
        p.restore_order(i);
        if let Some(man) = restored {
            let len = usize::from(p.len);
            if p.occ.contains(man.sq) || len == N {
                return None;
            }
            p.men[len] = man;
            p.len += 1;
            p.occ.insert(man.sq);
            p.restore_order(len);
        }
        Some(p)
    }

    /// Moves the man at `i`, the only one out of place, to its place in the fixed order.
    #[inline]
    fn restore_order(&mut self, mut i: usize) {
        let len = usize::from(self.len);
        while i > 0 && self.men[i - 1].order() > self.men[i].order() {
            self.men.swap(i - 1, i);
            i -= 1;
        }
        while i + 1 < len && self.men[i].order() > self.men[i + 1].order() {
            self.men.swap(i, i + 1);
            i += 1;
        }
    }

    /// Calls `visit` with every legal move and the position it leads to; after a double step the
    /// en-passant target is recorded exactly when an en-passant capture is then legal.
    pub fn for_each_move(&self, geo: &Geometry, visit: impl FnMut(Move, Position<N>)) {
        self.for_each_move_from(geo, None, visit);
    }

    /// Like [`Position::for_each_move`], for the moves of the man on `from` only (all men if
    /// `None`).
    pub fn for_each_move_from(
        &self,
        geo: &Geometry,
        from: Option<Sq>,
        mut visit: impl FnMut(Move, Position<N>),
    ) {
        self.for_each_legal_move(geo, from, |mv| visit(mv, self.play(geo, &mv)));
    }

    /// Calls `visit` with every legal move (of the man on `from`, or of all men), without
    /// building the positions they lead to — [`Position::play`] builds one on demand.
    ///
    /// Legality is decided once per position, not by making each move: the men giving check,
    /// the squares that end a single check (the checker's and those between it and the king),
    /// and the men pinned to their king with the line they may still move along. A king's move
    /// is tested against every attacker with the king moved; an en-passant capture, which can
    /// uncover two lines at once, is made and tested.
    pub fn for_each_legal_move(
        &self,
        geo: &Geometry,
        from: Option<Sq>,
        mut visit: impl FnMut(Move),
    ) {
        let safety = self.safety(geo);
        self.pseudo_legal_moves(geo, from, &mut |mv, capture_sq| {
            if self.move_is_legal(geo, &safety, &mv, capture_sq) {
                visit(mv);
            }
        });
    }

    /// For retrograde analysis of pawnless positions: the number of legal non-capturing moves of
    /// the men other than the king, found by counting squares rather than listing moves; each
    /// legal capture is given to `capture` and each legal non-capturing king move to
    /// `king_step`. `None` for a position with pawns. Together these are exactly the moves
    /// [`Position::for_each_legal_move`] lists (`selfcheck` compares them on every pawnless
    /// position it checks).
    pub fn quiet_move_count(
        &self,
        geo: &Geometry,
        mut capture: impl FnMut(Move),
        mut king_step: impl FnMut(Move),
    ) -> Option<u32> {
        if self.men().iter().any(|m| m.piece == Piece::Pawn) {
            return None;
        }
        let us = self.stm;
        let safety = self.safety(geo);
        let own = self.occupied_by(us);
        let theirs = self.occ.minus(own);
        let mut count = 0;
        for &man in self.men() {
            if man.side != us {
                continue;
            }
            let from = man.sq;
            let base = Move {
                from,
                to: from,
                piece: man.piece,
                promotion: None,
                captured: None,
                en_passant: false,
            };
            if man.piece == Piece::King {
                for to in geo.king_attacks(from).minus(own).iter() {
                    if theirs.contains(to) {
                        let mv = Move {
                            to,
                            captured: self.man_on(to).map(|m| m.piece),
                            ..base
                        };
                        if self.move_is_legal(geo, &safety, &mv, Some(to)) {
                            capture(mv);
                        }
                    } else if !safety.danger.contains(to) {
                        king_step(Move { to, ..base });
                    }
                }
                continue;
            }
            if safety.checkers >= 2 {
                continue;
            }
            let mut targets = Self::attack_set(geo, man, self.occ).minus(own);
            if safety.checkers == 1 {
                targets = targets.and(safety.block);
            }
            if let (Some(king), Some(&(_, pinner))) = (
                safety.king,
                safety.pins[..safety.pin_count]
                    .iter()
                    .find(|(pinned, _)| *pinned == from),
            ) {
                let mut line = geo.between(pinner, king);
                line.insert(pinner);
                targets = targets.and(line);
            }
            count += targets.minus(theirs).len() as u32;
            for to in targets.and(theirs).iter() {
                capture(Move {
                    to,
                    captured: self.man_on(to).map(|m| m.piece),
                    ..base
                });
            }
        }
        Some(count)
    }

    /// The position after the legal move `mv`.
    pub fn play(&self, geo: &Geometry, mv: &Move) -> Position<N> {
        let capture_sq = if mv.en_passant {
            geo.ahead(opponent(self.stm), mv.to, 1)
        } else {
            mv.captured.map(|_| mv.to)
        };
        let after = self.after_move(mv.from, mv.to, capture_sq, mv.promotion.unwrap_or(mv.piece));
        let double_step = mv.piece == Piece::Pawn
            && mv.promotion.is_none()
            && geo.rank(mv.from).abs_diff(geo.rank(mv.to)) == 2;
        if double_step {
            after.with_double_step_target(geo, mv.from)
        } else {
            after
        }
    }

    /// Checks and pins against the side to move.
    fn safety(&self, geo: &Geometry) -> Safety {
        let us = self.stm;
        let mut safety = Safety {
            king: self.king(us),
            checkers: 0,
            block: SqSet::EMPTY,
            pins: [(0, 0); 8],
            pin_count: 0,
            danger: SqSet::EMPTY,
        };
        let Some(king) = safety.king else {
            return safety;
        };
        let mut lifted = self.occ;
        lifted.remove(king);
        for &m in self.men() {
            if m.side == us {
                continue;
            }
            safety.danger = safety.danger.or(Self::attack_set(geo, m, lifted));
            if Self::man_attacks(geo, m, king, self.occ) {
                safety.checkers += 1;
                safety.block = geo.between(m.sq, king);
                safety.block.insert(m.sq);
                continue;
            }
            let aligned = match (m.piece, geo.line(m.sq, king)) {
                (_, Line::None) => false,
                (Piece::Queen, _) => true,
                (Piece::Rook, line) => line == Line::Straight,
                (Piece::Bishop, line) => line == Line::Diagonal,
                _ => false,
            };
            if aligned {
                let blockers = geo.between(m.sq, king).and(self.occ);
                if blockers.len() == 1 {
                    let pinned = blockers.iter().next().expect("one blocker");
                    if self.occupied_by_side(us, pinned) && safety.pin_count < safety.pins.len() {
                        safety.pins[safety.pin_count] = (pinned, m.sq);
                        safety.pin_count += 1;
                    }
                }
            }
        }
        safety
    }

    /// The squares `man` attacks given the occupied squares `occ` (a slider's line stops at, and
    /// includes, the first occupied square).
    fn attack_set(geo: &Geometry, man: Man, occ: SqSet) -> SqSet {
        match man.piece {
            Piece::King => geo.king_attacks(man.sq),
            Piece::Knight => geo.knight_attacks(man.sq),
            Piece::Pawn => geo.pawn_attacks(man.side, man.sq),
            Piece::Rook => geo.slider_attacks(man.sq, ROOK_DIRECTIONS, occ),
            Piece::Bishop => geo.slider_attacks(man.sq, BISHOP_DIRECTIONS, occ),
            Piece::Queen => geo.slider_attacks(man.sq, 0..8, occ),
        }
    }

    fn occupied_by_side(&self, side: Side, sq: Sq) -> bool {
        self.men().iter().any(|m| m.sq == sq && m.side == side)
    }

    /// Whether the pseudo-legal move `mv` leaves the mover's king safe.
    fn move_is_legal(
        &self,
        geo: &Geometry,
        safety: &Safety,
        mv: &Move,
        capture_sq: Option<Sq>,
    ) -> bool {
        let us = self.stm;
        let Some(king) = safety.king else {
            return true;
        };
        if mv.en_passant {
            let after = self.after_move(mv.from, mv.to, capture_sq, Piece::Pawn);
            return !after.in_check(geo, us);
        }
        if mv.piece == Piece::King {
            if mv.captured.is_none() {
                return !safety.danger.contains(mv.to);
            }
            // A capturing king: the captured man no longer attacks, so test the others.
            let mut occ = self.occ;
            occ.remove(mv.from);
            occ.insert(mv.to);
            return !self
                .men()
                .iter()
                .any(|&m| m.side != us && m.sq != mv.to && Self::man_attacks(geo, m, mv.to, occ));
        }
        if safety.checkers >= 2 || (safety.checkers == 1 && !safety.block.contains(mv.to)) {
            return false;
        }
        for &(pinned, pinner) in &safety.pins[..safety.pin_count] {
            if pinned == mv.from {
                let mut line = geo.between(pinner, king);
                line.insert(pinner);
                return line.contains(mv.to);
            }
        }
        true
    }

    /// Calls `emit` with every move that obeys the men's movement rules, legal or not, and the
    /// square of the man it captures.
    fn pseudo_legal_moves(
        &self,
        geo: &Geometry,
        from: Option<Sq>,
        mut emit: &mut dyn FnMut(Move, Option<Sq>),
    ) {
        let us = self.stm;
        let them = opponent(us);
        let own = self.occupied_by(us);
        let theirs = self.occupied_by(them);
        for &man in self.men() {
            if man.side != us || from.is_some_and(|f| f != man.sq) {
                continue;
            }
            let from = man.sq;
            let step = |to: Sq, emit: &mut dyn FnMut(Move, Option<Sq>)| {
                if own.contains(to) {
                    return;
                }
                let captured = theirs
                    .contains(to)
                    .then(|| self.man_on(to).map(|m| m.piece))
                    .flatten();
                emit(
                    Move {
                        from,
                        to,
                        piece: man.piece,
                        promotion: None,
                        captured,
                        en_passant: false,
                    },
                    captured.map(|_| to),
                );
            };
            match man.piece {
                Piece::King => {
                    for &to in geo.king_targets(from) {
                        step(to, &mut emit);
                    }
                }
                Piece::Knight => {
                    for &to in geo.knight_targets(from) {
                        step(to, &mut emit);
                    }
                }
                Piece::Rook | Piece::Bishop | Piece::Queen => {
                    let dirs = match man.piece {
                        Piece::Rook => ROOK_DIRECTIONS,
                        Piece::Bishop => BISHOP_DIRECTIONS,
                        _ => 0..8,
                    };
                    for d in dirs {
                        for &to in geo.ray(from, d) {
                            step(to, &mut emit);
                            if self.is_occupied(to) {
                                break;
                            }
                        }
                    }
                }
                Piece::Pawn => self.pawn_moves(geo, man, &mut emit),
            }
        }
    }

    fn pawn_moves(&self, geo: &Geometry, man: Man, emit: &mut dyn FnMut(Move, Option<Sq>)) {
        let us = man.side;
        let from = man.sq;
        let last = geo.last_rank(us);
        let promote = |to: Sq, captured: Option<Piece>, emit: &mut dyn FnMut(Move, Option<Sq>)| {
            let base = Move {
                from,
                to,
                piece: Piece::Pawn,
                promotion: None,
                captured,
                en_passant: false,
            };
            let capture_sq = captured.map(|_| to);
            if geo.rank(to) == last {
                for promoted in Piece::PROMOTIONS {
                    emit(
                        Move {
                            promotion: Some(promoted),
                            ..base
                        },
                        capture_sq,
                    );
                }
            } else {
                emit(base, capture_sq);
            }
        };
        if let Some(one) = geo.ahead(us, from, 1) {
            if !self.is_occupied(one) {
                promote(one, None, emit);
                if geo.rank(from) == geo.second_rank(us) {
                    if let Some(two) = geo.ahead(us, from, 2) {
                        if !self.is_occupied(two) {
                            if geo.rank(two) == last {
                                promote(two, None, emit);
                            } else {
                                // The double step: emitted with the en-passant target fixed below.
                                let mv = Move {
                                    from,
                                    to: two,
                                    piece: Piece::Pawn,
                                    promotion: None,
                                    captured: None,
                                    en_passant: false,
                                };
                                emit(mv, None);
                            }
                        }
                    }
                }
            }
        }
        let theirs = self.occupied_by(opponent(us));
        for &to in geo.pawn_attack_targets(us, from) {
            if theirs.contains(to) {
                let captured = self.man_on(to).map(|m| m.piece);
                promote(to, captured, emit);
            }
            if self.ep == Some(to) {
                if let Some(victim) = geo.ahead(opponent(us), to, 1) {
                    if geo.rank(victim) == geo.rank(from) {
                        let mv = Move {
                            from,
                            to,
                            piece: Piece::Pawn,
                            promotion: None,
                            captured: Some(Piece::Pawn),
                            en_passant: true,
                        };
                        emit(mv, Some(victim));
                    }
                }
            }
        }
    }

    /// Every legal move with the position it leads to (see [`Position::for_each_move`]).
    pub fn legal_moves(&self, geo: &Geometry) -> Vec<(Move, Position<N>)> {
        let mut moves = Vec::new();
        self.for_each_move(geo, |mv, after| moves.push((mv, after)));
        moves
    }

    /// After a double step from `from`, records the passed square as en-passant target if an
    /// en-passant capture onto it is legal.
    pub(crate) fn with_double_step_target(&self, geo: &Geometry, from: Sq) -> Position<N> {
        let mover = opponent(self.stm);
        let passed = geo
            .ahead(mover, from, 1)
            .expect("a double step passes a square");
        if self.en_passant_capture_legal(geo, passed) {
            self.with_en_passant(Some(passed))
        } else {
            *self
        }
    }

    /// Whether the side to move has a legal move.
    pub fn has_legal_move(&self, geo: &Geometry) -> bool {
        let mut any = false;
        self.for_each_legal_move(geo, None, |_| any = true);
        any
    }

    /// The side to move is checkmated.
    pub fn is_checkmate(&self, geo: &Geometry) -> bool {
        self.in_check(geo, self.stm) && !self.has_legal_move(geo)
    }

    /// The side to move is stalemated.
    pub fn is_stalemate(&self, geo: &Geometry) -> bool {
        !self.in_check(geo, self.stm) && !self.has_legal_move(geo)
    }

    /// The natural model's position.
    pub fn to_natural(&self, geo: &Geometry) -> retro_rules::Position {
        retro_rules::Position::new(
            geo.board(),
            self.stm,
            self.men()
                .iter()
                .map(|m| (geo.square(m.sq), (m.side, m.piece))),
            self.ep.map(|sq| geo.square(sq)),
        )
        .expect("engine positions have one man per square")
    }

    /// The engine's position for a position of the natural model on `geo`'s board.
    pub fn from_natural(
        geo: &Geometry,
        p: &retro_rules::Position,
    ) -> Result<Position<N>, PositionError> {
        let men: Vec<Man> = p
            .men()
            .map(|(square, (side, piece))| {
                geo.from_square(square)
                    .map(|sq| Man { side, piece, sq })
                    .ok_or(PositionError::OffBoard)
            })
            .collect::<Result<_, _>>()?;
        if men.len() > N {
            return Err(PositionError::TooManyMen(men.len()));
        }
        let ep = match p.en_passant() {
            None => None,
            Some(square) => Some(geo.from_square(square).ok_or(PositionError::OffBoard)?),
        };
        Position::new(geo, men, retro_rules::position::to_move(p), ep)
    }
}

impl<const N: usize> Position<N> {
    /// The same position with room for `M` men.
    pub fn resized<const M: usize>(&self) -> Result<Position<M>, PositionError> {
        if self.men().len() > M {
            return Err(PositionError::TooManyMen(self.men().len()));
        }
        let mut men = [NO_MAN; M];
        men[..self.men().len()].copy_from_slice(self.men());
        Ok(Position {
            men,
            len: self.len,
            stm: self.stm,
            ep: self.ep,
            occ: self.occ,
        })
    }
}

impl<const N: usize> PartialOrd for Position<N> {
    fn partial_cmp(&self, other: &Position<N>) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<const N: usize> Ord for Position<N> {
    fn cmp(&self, other: &Position<N>) -> Ordering {
        self.men()
            .iter()
            .map(|m| m.order())
            .cmp(other.men().iter().map(|m| m.order()))
            .then(self.stm.cmp(&other.stm))
            .then(self.ep.cmp(&other.ep))
    }
}

#[cfg(test)]
mod tests;
