//! KRK positions on n×n boards: the white king, the white rook (or none, once captured), the
//! black king and the side to move; their legal moves, check, checkmate and stalemate; the
//! board's eight symmetries; and FEN.
//!
//! Owns: [`Krk`], [`Sq`], [`Move`], [`Mover`].
//! Must never: disagree with the natural model — `tests/rules.rs` compares every position on
//! boards from 4×4 to 8×8 with `retro-rules`. Boards up to 64×64 are allowed here (the natural
//! model stops at 16×16), as the strategy is proved for every n up to 32.

pub use crate::conditions::KING_STEPS;
use crate::conditions::{Moves, Placement, Square, Step, Visit};
use std::fmt;

/// The largest board side.
pub const MAX_N: u8 = 64;

/// A square (file, rank), both counted from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sq {
    /// The file (x).
    pub x: u8,
    /// The rank (y).
    pub y: u8,
}

impl Sq {
    /// The square on file `x`, rank `y`.
    pub const fn new(x: u8, y: u8) -> Sq {
        Sq { x, y }
    }
}

/// Chebyshev distance: `max(|x₁ − x₂|, |y₁ − y₂|)`, the number of king moves between squares.
pub fn chebyshev(a: Sq, b: Sq) -> u8 {
    a.x.abs_diff(b.x).max(a.y.abs_diff(b.y))
}

/// Manhattan distance: `|x₁ − x₂| + |y₁ − y₂|`.
pub fn manhattan(a: Sq, b: Sq) -> u8 {
    a.x.abs_diff(b.x) + a.y.abs_diff(b.y)
}

/// Which man moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mover {
    /// The white king.
    King,
    /// The white rook.
    Rook,
    /// The black king.
    BlackKing,
}

/// A move: who moves, from where, to where.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    /// The man that moves.
    pub mover: Mover,
    /// Its square before.
    pub from: Sq,
    /// Its square after.
    pub to: Sq,
}

impl Move {
    /// A king move along a diagonal.
    pub fn is_diagonal(&self) -> bool {
        self.from.x != self.to.x && self.from.y != self.to.y
    }

    /// UCI-like name, e.g. `a1a8` (files beyond `z` are written as numbers).
    pub fn name(&self) -> String {
        format!("{}{}", square_name(self.from), square_name(self.to))
    }
}

/// Algebraic name of a square: `e4`; files past `z` as `(27,3)`.
pub fn square_name(s: Sq) -> String {
    if s.x < 26 {
        format!("{}{}", (b'a' + s.x) as char, u32::from(s.y) + 1)
    } else {
        format!("({},{})", s.x, s.y)
    }
}

/// A KRK position on an n×n board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Krk {
    /// The board's side.
    pub n: u8,
    /// The white king.
    pub wk: Sq,
    /// The white rook, unless captured.
    pub wr: Option<Sq>,
    /// The black king.
    pub bk: Sq,
    /// Whether White is to move.
    pub white_to_move: bool,
}

impl Krk {
    fn on_board(&self, x: i64, y: i64) -> Option<Sq> {
        let n = i64::from(self.n);
        (x >= 0 && y >= 0 && x < n && y < n).then(|| Sq::new(x as u8, y as u8))
    }

    fn step(&self, s: Sq, (dx, dy): (i64, i64)) -> Option<Sq> {
        self.on_board(i64::from(s.x) + dx, i64::from(s.y) + dy)
    }

    /// Whether the rook on `wr` attacks `target` along its file or rank, with the white king as
    /// the only possible blocker (the black king, if it is the one moving, has left its square).
    pub fn rook_attacks(wr: Sq, wk: Sq, target: Sq) -> bool {
        if wr == target || (wr.x != target.x && wr.y != target.y) {
            return false;
        }
        let between = |a: u8, b: u8, c: u8| (a < b && b < c) || (c < b && b < a);
        let blocked = if wr.x == target.x {
            wk.x == wr.x && between(wr.y, wk.y, target.y)
        } else {
            wk.y == wr.y && between(wr.x, wk.x, target.x)
        };
        !blocked
    }

    /// The black king is attacked (by the rook; the white king never stands next to it).
    pub fn black_in_check(&self) -> bool {
        self.wr
            .is_some_and(|wr| Self::rook_attacks(wr, self.wk, self.bk))
    }

    /// Legal: the men on distinct squares of the board, the kings not adjoining, and, with White
    /// to move, the black king not in check.
    pub fn is_legal(&self) -> bool {
        let n = self.n;
        let on = |s: Sq| s.x < n && s.y < n;
        on(self.wk)
            && on(self.bk)
            && self
                .wr
                .is_none_or(|r| on(r) && r != self.wk && r != self.bk)
            && self.wk != self.bk
            && chebyshev(self.wk, self.bk) > 1
            && !(self.white_to_move && self.black_in_check())
    }

    /// White's legal moves with the positions they reach: king steps in [`KING_STEPS`] order,
    /// then rook moves along its rank by increasing file, then along its file by increasing rank.
    pub fn white_moves(&self) -> Vec<(Move, Krk)> {
        let mut moves = Vec::with_capacity(8 + 2 * usize::from(self.n));
        self.for_each_white_move(|m, p| moves.push((m, p)));
        moves
    }

    /// Calls `visit` with White's legal moves, in the order of [`Krk::white_moves`].
    pub fn for_each_white_move(&self, mut visit: impl FnMut(Move, Krk)) {
        for d in KING_STEPS {
            if let Some(to) = self.step(self.wk, d) {
                if Some(to) != self.wr && chebyshev(to, self.bk) > 1 {
                    visit(
                        Move {
                            mover: Mover::King,
                            from: self.wk,
                            to,
                        },
                        Krk {
                            wk: to,
                            white_to_move: false,
                            ..*self
                        },
                    );
                }
            }
        }
        if let Some(wr) = self.wr {
            let clear = |to: Sq| {
                to != self.wk
                    && to != self.bk
                    && Self::rook_attacks(wr, self.wk, to)
                    && !Self::rook_passes(wr, self.bk, to)
            };
            let along_rank = (0..self.n).map(|x| Sq::new(x, wr.y));
            let along_file = (0..self.n).map(|y| Sq::new(wr.x, y));
            for to in along_rank.chain(along_file).filter(|&to| clear(to)) {
                let mv = Move {
                    mover: Mover::Rook,
                    from: wr,
                    to,
                };
                visit(
                    mv,
                    Krk {
                        wr: Some(to),
                        white_to_move: false,
                        ..*self
                    },
                );
            }
        }
    }

    /// Whether `blocker` stands strictly between `from` and `to` on their common line.
    fn rook_passes(from: Sq, blocker: Sq, to: Sq) -> bool {
        let between = |a: u8, b: u8, c: u8| (a < b && b < c) || (c < b && b < a);
        (from.x == to.x && blocker.x == from.x && between(from.y, blocker.y, to.y))
            || (from.y == to.y && blocker.y == from.y && between(from.x, blocker.x, to.x))
    }

    /// Black's legal moves with the positions they reach (a capture of the rook removes it).
    pub fn black_moves(&self) -> Vec<(Move, Krk)> {
        let mut moves = Vec::with_capacity(8);
        self.for_each_black_move(|m, q| {
            moves.push((m, q));
            true
        });
        moves
    }

    /// Calls `visit` with Black's legal moves, in [`KING_STEPS`] order, while it returns true;
    /// returns whether every call did.
    pub fn for_each_black_move(&self, mut visit: impl FnMut(Move, Krk) -> bool) -> bool {
        for d in KING_STEPS {
            let Some(to) = self.step(self.bk, d) else {
                continue;
            };
            if chebyshev(to, self.wk) <= 1 {
                continue;
            }
            let captures = self.wr == Some(to);
            if !captures
                && self
                    .wr
                    .is_some_and(|wr| Self::rook_attacks(wr, self.wk, to))
            {
                continue;
            }
            let wr = if captures { None } else { self.wr };
            if !visit(
                Move {
                    mover: Mover::BlackKing,
                    from: self.bk,
                    to,
                },
                Krk {
                    bk: to,
                    wr,
                    white_to_move: true,
                    ..*self
                },
            ) {
                return false;
            }
        }
        true
    }

    /// Whether Black has a legal move (as [`Krk::black_moves`], without collecting them).
    pub fn black_can_move(&self) -> bool {
        KING_STEPS.iter().any(|&d| {
            self.step(self.bk, d).is_some_and(|to| {
                chebyshev(to, self.wk) > 1
                    && (self.wr == Some(to)
                        || !self
                            .wr
                            .is_some_and(|wr| Self::rook_attacks(wr, self.wk, to)))
            })
        })
    }

    /// Black to move, in check, with no legal move.
    pub fn is_mate(&self) -> bool {
        !self.white_to_move && self.black_in_check() && !self.black_can_move()
    }

    /// Black to move, not in check, with no legal move.
    pub fn is_stalemate(&self) -> bool {
        !self.white_to_move && !self.black_in_check() && !self.black_can_move()
    }

    /// The image of the position under symmetry `g` (0 to 7) of the square board.
    pub fn transformed(&self, g: u8) -> Krk {
        let n = self.n;
        let t = |s: Sq| transform(n, g, s);
        Krk {
            wk: t(self.wk),
            wr: self.wr.map(t),
            bk: t(self.bk),
            ..*self
        }
    }

    /// The canonical image — the least by (black king, white king, rook) square numbers over the
    /// eight symmetries — and a symmetry taking the position to it.
    pub fn canonical(&self) -> (Krk, u8) {
        let mut best = (*self, 0);
        let mut best_key = self.key();
        for g in 1..8 {
            let image = self.transformed(g);
            let key = image.key();
            if key < best_key {
                best = (image, g);
                best_key = key;
            }
        }
        best
    }

    fn key(&self) -> (u16, u16, u16) {
        let num = |s: Sq| u16::from(s.y) * u16::from(self.n) + u16::from(s.x);
        (num(self.bk), num(self.wk), self.wr.map_or(u16::MAX, num))
    }

    /// The number of symmetries that map the position to itself.
    pub fn stabilizer(&self) -> u8 {
        (0..8).filter(|&g| self.transformed(g) == *self).count() as u8
    }

    /// FEN of the position (multi-digit counts on boards wider than 9).
    pub fn fen(&self) -> String {
        let mut text = String::new();
        for y in (0..self.n).rev() {
            let mut run = 0;
            for x in 0..self.n {
                let s = Sq::new(x, y);
                let c = if s == self.wk {
                    Some('K')
                } else if Some(s) == self.wr {
                    Some('R')
                } else if s == self.bk {
                    Some('k')
                } else {
                    None
                };
                match c {
                    Some(c) => {
                        if run > 0 {
                            text.push_str(&run.to_string());
                            run = 0;
                        }
                        text.push(c);
                    }
                    None => run += 1,
                }
            }
            if run > 0 {
                text.push_str(&run.to_string());
            }
            if y > 0 {
                text.push('/');
            }
        }
        text.push_str(if self.white_to_move {
            " w - - 0 1"
        } else {
            " b - - 0 1"
        });
        text
    }
}

impl Krk {
    /// The men as numbers for [`crate::conditions`] (the rook must be on the board).
    pub fn placement(&self) -> Placement<i64> {
        let sq = |s: Sq| Square::new(i64::from(s.x), i64::from(s.y));
        Placement {
            n: i64::from(self.n),
            wk: sq(self.wk),
            wr: sq(self.wr.expect("the rook is on the board")),
            bk: sq(self.bk),
        }
    }

    /// The position of `p` with `white_to_move`.
    pub fn from_placement(p: &Placement<i64>, white_to_move: bool) -> Krk {
        let sq = |s: &Square<i64>| Sq::new(s.x as u8, s.y as u8);
        Krk {
            n: p.n as u8,
            wk: sq(&p.wk),
            wr: Some(sq(&p.wr)),
            bk: sq(&p.bk),
            white_to_move,
        }
    }
}

impl Move {
    /// The move as numbers for [`crate::conditions`] (a White move).
    pub fn step(&self) -> Step<i64> {
        let sq = |s: Sq| Square::new(i64::from(s.x), i64::from(s.y));
        Step {
            rook: self.mover == Mover::Rook,
            from: sq(self.from),
            to: sq(self.to),
        }
    }
}

/// [`Moves`] on numbers: every legal White move, tried in order until one satisfies.
pub struct EveryMove;

impl Moves<i64> for EveryMove {
    fn some_white_move(
        &mut self,
        p: &Placement<i64>,
        _positive: bool,
        _kind: crate::strategy::Kind,
        f: &mut Visit<'_, Self, i64>,
    ) -> bool {
        let position = Krk::from_placement(p, true);
        let mut found = false;
        position.for_each_white_move(|mv, after| {
            found = found || f(&mut EveryMove, &mv.step(), &after.placement());
        });
        found
    }
}

/// Symmetry `g` of the n×n board applied to a square: 0 identity, 1 mirror files, 2 mirror
/// ranks, 3 half turn, 4 transpose, 5 anti-transpose, 6 and 7 quarter turns.
pub fn transform(n: u8, g: u8, s: Sq) -> Sq {
    let l = n - 1;
    let (x, y) = (s.x, s.y);
    let (x, y) = match g {
        0 => (x, y),
        1 => (l - x, y),
        2 => (x, l - y),
        3 => (l - x, l - y),
        4 => (y, x),
        5 => (l - y, l - x),
        6 => (l - y, x),
        _ => (y, l - x),
    };
    Sq::new(x, y)
}

/// The symmetry undoing `g`.
pub fn inverse(g: u8) -> u8 {
    match g {
        6 => 7,
        7 => 6,
        g => g,
    }
}

impl fmt::Display for Krk {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.fen())
    }
}

/// A FEN that is not a KRK position, and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("'{fen}' is not a KRK position (white king and rook against the black king on a square board): {reason}")]
pub struct NotKrk {
    /// The text given.
    pub fen: String,
    /// What is wrong with it.
    pub reason: String,
}

impl Krk {
    /// Reads the placement and side-to-move fields of a FEN with exactly K, R and k on a square
    /// board of side 4 to 64. The position may be illegal: see [`Krk::is_legal`].
    pub fn from_fen(text: &str) -> Result<Krk, NotKrk> {
        let bad = |reason: String| NotKrk {
            fen: text.to_string(),
            reason,
        };
        let mut fields = text.split_whitespace();
        let placement = fields
            .next()
            .ok_or_else(|| bad("the text is empty".into()))?;
        let white_to_move = match fields.next() {
            Some("w") => true,
            Some("b") => false,
            Some(other) => {
                return Err(bad(format!(
                    "the side to move is '{other}', not 'w' or 'b'"
                )))
            }
            None => return Err(bad("the side to move is missing".into())),
        };
        let rows: Vec<&str> = placement.split('/').collect();
        let n = u8::try_from(rows.len())
            .ok()
            .filter(|n| (4..=MAX_N).contains(n))
            .ok_or_else(|| {
                bad(format!(
                    "{} ranks; the board must have 4 to {MAX_N}",
                    rows.len()
                ))
            })?;
        let (mut wk, mut wr, mut bk) = (None, None, None);
        for (i, row) in rows.iter().enumerate() {
            let y = n - 1 - i as u8;
            let rank = usize::from(y) + 1;
            let mut x: u32 = 0;
            let mut digits = String::new();
            for c in row.chars().chain(std::iter::once('/')) {
                if c.is_ascii_digit() {
                    digits.push(c);
                    continue;
                }
                if !digits.is_empty() {
                    x += digits.parse::<u32>().map_err(|_| {
                        bad(format!("rank {rank}: the count {digits} is too large"))
                    })?;
                    digits.clear();
                }
                if c == '/' {
                    break;
                }
                if x >= u32::from(n) {
                    return Err(bad(format!("rank {rank} is longer than {n} squares")));
                }
                let sq = Sq::new(x as u8, y);
                let slot = match c {
                    'K' => &mut wk,
                    'R' => &mut wr,
                    'k' => &mut bk,
                    _ => return Err(bad(format!("rank {rank}: '{c}' is not K, R or k"))),
                };
                if slot.replace(sq).is_some() {
                    return Err(bad(format!("a second '{c}'")));
                }
                x += 1;
            }
            if x != u32::from(n) {
                return Err(bad(format!("rank {rank} has {x} squares, not {n}")));
            }
        }
        let missing = |what: &str| bad(format!("no {what}"));
        Ok(Krk {
            n,
            wk: wk.ok_or_else(|| missing("white king"))?,
            wr: Some(wr.ok_or_else(|| missing("white rook"))?),
            bk: bk.ok_or_else(|| missing("black king"))?,
            white_to_move,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fen_round_trips_and_errors_say_what_is_wrong() {
        for fen in [
            "8/8/8/8/3R4/2k5/8/K7 w - - 0 1",
            "R3/4/4/1k1K b - - 0 1",
            "10/10/10/10/10/4k5/10/10/2R7/K9 w - - 0 1",
        ] {
            assert_eq!(Krk::from_fen(fen).expect("a KRK position").fen(), fen);
        }
        for (fen, reason) in [
            ("", "empty"),
            ("8/8/8/8/3R4/2k5/8/K7", "side to move is missing"),
            ("8/8/8/8/3R4/2k5/8/K7 x", "'x'"),
            ("8/8/8/8/3Q4/2k5/8/K7 w", "'Q' is not K, R or k"),
            ("8/8/8/8/3R4/2k5/8/K6 w", "rank 1 has 7 squares"),
            ("8/8/8/8/3R4/2k5/8/8K w", "longer than 8"),
            ("8/8/8/8/3R4/2k5/8/K8 w", "rank 1 has 9 squares"),
            ("8/8/8/8/8/2k5/8/K7 w", "no white rook"),
            ("8/8/8/8/3R4/2k5/8/KK6 w", "a second 'K'"),
            ("3/3/3 w", "3 ranks"),
        ] {
            let e = Krk::from_fen(fen).expect_err(fen);
            assert!(e.to_string().contains(reason), "{fen}: {e}");
        }
    }

    #[test]
    fn symmetries_form_a_group_and_canonical_images_agree_on_orbits() {
        let p = Krk::from_fen("8/8/8/8/3R4/2k5/8/K7 w").expect("KRK");
        for g in 0..8 {
            assert_eq!(p.transformed(g).transformed(inverse(g)), p);
            assert_eq!(p.transformed(g).canonical().0, p.canonical().0);
        }
        let (c, g) = p.canonical();
        assert_eq!(p.transformed(g), c);
    }
}
