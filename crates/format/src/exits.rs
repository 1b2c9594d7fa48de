//! Entries other tables decide. An *exit* is a move out of a table: a capture, or a
//! promotion. A packed DTM or WDL50 file may store, at a position whose value its best exit
//! already reaches, any value no better for the side to move; a reader takes the better of the
//! stored value and the best exit's, which is the position's value (the side to move may always
//! play that exit, and no move is better than the best of all of them). Syzygy's WDL files do
//! the same for captures; here it holds for DTM too, where an exit's depth is the child's plus
//! one ply. A packed DTZ50 file may store anything at a drawn position: its *companion*, the
//! material's WDL50 table, says which positions are drawn, and a reader takes the draw from it.
//! For DTZ50 the code "its exits give" a position is therefore the draw where the companion
//! says draw, and nothing (0) elsewhere.
//!
//! Owns: for each kind, the order of its codes for the side to move
//! ([`TableKind::exit_rank`]), the code an exit gives the side making it
//! ([`TableKind::through_exit`]) and the rebuilt entry ([`TableKind::with_exit`]).
//! Must never: find exits or look a value up: the fast side does, with the rules, and the
//! checker proves what it rebuilds.

use crate::{TableKind, Value, Wdl};

impl TableKind {
    /// How good an entry code is for the side to move, higher better: for DTM a quicker win,
    /// then a draw, then a longer loss; for WDL50 the class's order (win, cursed win, draw,
    /// blessed loss, loss). Code 0 (no legal position) and codes no entry has rank below every
    /// value. DTZ50 ranks every code 0: its decided entries are the companion's draws.
    pub fn exit_rank(self, code: u32) -> i64 {
        const DRAW: i64 = 1 << 20;
        match self {
            TableKind::Dtm => match Value::from_code(code) {
                Value::Illegal => -1,
                Value::Loss(n) => i64::from(n),
                Value::Draw => DRAW,
                Value::Win(n) => 2 * DRAW - i64::from(n),
            },
            TableKind::Wdl50 => match Wdl::from_code(code) {
                None | Some(Wdl::Illegal) => -1,
                Some(class) => Wdl::CLASSES.iter().position(|&c| c == class).unwrap_or(0) as i64,
            },
            TableKind::Dtz50 => 0,
        }
    }

    /// The code, for the side making it, of an exit into a position whose entry (for its own
    /// side to move) is `child`: a win of `n` plies there is a loss of `n + 1` here, a WDL50
    /// class the opponent's (an exit zeroes the clock, so the child's class at a clock of 0 is
    /// the one reached). Not for DTZ50 (the code is returned as it is).
    pub fn through_exit(self, child: u32) -> u32 {
        match self {
            TableKind::Dtm => match Value::from_code(child) {
                Value::Win(n) => Value::Loss(n + 1).code(),
                Value::Loss(n) => Value::Win(n + 1).code(),
                v => v.code(),
            },
            TableKind::Wdl50 => Wdl::from_code(child).map_or(0, |c| c.for_opponent().code()),
            TableKind::Dtz50 => child,
        }
    }

    /// Whether no code of this kind is better for the side to move than `code`: a WDL50 win,
    /// a DTM mate in one ply. A reader whose best exit so far is one need not look further.
    pub fn nothing_better(self, code: u32) -> bool {
        match self {
            TableKind::Dtm => code == Value::Win(1).code(),
            TableKind::Wdl50 => code == Wdl::Win.code(),
            TableKind::Dtz50 => false,
        }
    }

    /// Whether a stored code is the entry whatever the exits give, so that a reader need not
    /// look at them: for DTM and WDL50 a code nothing beats ([`TableKind::nothing_better`]),
    /// for DTZ50 a draw (only a drawn position may store something else, and a draw stored is
    /// a draw).
    pub fn stored_is_final(self, stored: u32) -> bool {
        match self {
            TableKind::Dtz50 => stored == crate::Dtz::Draw.code(),
            _ => self.nothing_better(stored),
        }
    }

    /// The better of two codes for the side to move (`a` on a tie); code 0 (no value) ranks
    /// below every value, so a best found so far may start at 0.
    pub fn better_code(self, a: u32, b: u32) -> u32 {
        if self.exit_rank(b) > self.exit_rank(a) {
            b
        } else {
            a
        }
    }

    /// The entry of a position whose file stores `stored` and whose best exit gives `exit`
    /// (0: it has none): the exit's where it is at least as good, else the stored one.
    pub fn with_exit(self, stored: u32, exit: u32) -> u32 {
        if self == TableKind::Dtz50 {
            return if exit != 0 { exit } else { stored };
        }
        if exit != 0 && self.exit_rank(exit) >= self.exit_rank(stored) {
            exit
        } else {
            stored
        }
    }

    /// Whether a packer may store `candidate` at an entry of code `value` whose best exit gives
    /// `exit`: the value itself always; where the exit reaches the value, any code no better
    /// (0 too), and for DTZ50 anything (its exit code is a draw's, where the companion says
    /// draw); where it is no legal position (`value` 0), anything.
    pub fn may_store(self, value: u32, exit: u32, candidate: u32) -> bool {
        candidate == value
            || value == 0
            || (exit == value
                && (self == TableKind::Dtz50 || self.exit_rank(candidate) <= self.exit_rank(value)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtm_exits_add_a_ply_and_the_better_value_is_taken() {
        let k = TableKind::Dtm;
        assert_eq!(k.through_exit(Value::Loss(0).code()), Value::Win(1).code());
        assert_eq!(k.through_exit(Value::Win(5).code()), Value::Loss(6).code());
        assert_eq!(k.through_exit(Value::Draw.code()), Value::Draw.code());
        let (win3, win5, draw, loss4) = (
            Value::Win(3).code(),
            Value::Win(5).code(),
            Value::Draw.code(),
            Value::Loss(4).code(),
        );
        assert!(k.exit_rank(win3) > k.exit_rank(win5));
        assert!(k.exit_rank(win5) > k.exit_rank(draw));
        assert!(k.exit_rank(draw) > k.exit_rank(loss4));
        assert!(k.exit_rank(loss4) > k.exit_rank(Value::Loss(2).code()));
        assert!(k.exit_rank(Value::Loss(0).code()) > k.exit_rank(0));
        // The exit decides: any value no better may be stored, and the exit's is read back.
        assert!(k.may_store(win5, win5, loss4) && k.may_store(win5, win5, 0));
        assert!(!k.may_store(win5, win5, win3) && !k.may_store(win5, 0, draw));
        assert_eq!(k.with_exit(loss4, win5), win5);
        assert_eq!(k.with_exit(0, draw), draw);
        // Not decided by the exit: the stored value stands.
        assert_eq!(k.with_exit(win3, win5), win3);
        assert_eq!(k.with_exit(win3, 0), win3);
        assert_eq!(k.better_code(draw, win5), win5);
        assert_eq!(k.better_code(0, loss4), loss4);
        assert!(k.nothing_better(Value::Win(1).code()));
        assert!(!k.nothing_better(win3) && !k.nothing_better(draw));
    }

    #[test]
    fn wdl50_exits_are_the_opponents_class() {
        let k = TableKind::Wdl50;
        for class in Wdl::CLASSES {
            assert_eq!(k.through_exit(class.code()), class.for_opponent().code());
        }
        let ranks: Vec<i64> = Wdl::CLASSES.iter().map(|c| k.exit_rank(c.code())).collect();
        assert!(ranks.windows(2).all(|w| w[0] < w[1]), "{ranks:?}");
        assert!(k.exit_rank(0) < k.exit_rank(Wdl::Loss.code()));
        let (cursed, draw) = (Wdl::CursedWin.code(), Wdl::Draw.code());
        assert_eq!(k.with_exit(draw, cursed), cursed);
        assert!(k.may_store(cursed, cursed, draw) && !k.may_store(draw, draw, cursed));
        assert!(k.nothing_better(Wdl::Win.code()) && !k.nothing_better(cursed));
    }

    #[test]
    fn dtz50_takes_the_companions_draw() {
        let k = TableKind::Dtz50;
        let (draw, win7, loss4) = (
            crate::Dtz::Draw.code(),
            crate::Dtz::Win(7).code(),
            crate::Dtz::Loss(4).code(),
        );
        // A drawn position may store anything, and reads back as the draw.
        assert!(k.may_store(draw, draw, win7) && k.may_store(draw, draw, loss4));
        assert_eq!(k.with_exit(win7, draw), draw);
        // Elsewhere the stored distance is the entry, stored exactly.
        assert!(!k.may_store(win7, 0, loss4) && k.may_store(win7, 0, win7));
        assert_eq!(k.with_exit(win7, 0), win7);
        assert!(k.stored_is_final(draw) && !k.stored_is_final(win7));
    }
}
