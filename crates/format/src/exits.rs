//! Entries other tables decide. An *exit* is a move out of a table: a capture, or a
//! promotion. A packed DTM or WDL50 file may store, at a position whose value its best exit
//! already reaches, any value no better for the side to move; a reader takes the better of the
//! stored value and the best exit's, which is the position's value (the side to move may always
//! play that exit, and no move is better than the best of all of them). Syzygy's WDL files do
//! the same for captures; here it holds for DTZ50 and DTM too, where an exit's depth is the
//! child's plus one ply.
//!
//! A packed DTZ50 file leaves two kinds of entry to its *companion*, the material's WDL50
//! table: a drawn position may store anything (the companion says which are drawn), and so may
//! a won one whose best zeroing move (a capture or a pawn move) keeps its class — a win whose
//! zeroing move reaches a loss is won in 1 ply, a cursed win whose zeroing move reaches a
//! blessed loss in `N + 1` ([`dtz50_decided`]) — except that such a win never stores a draw, so
//! that a draw read from the file is always one. For DTZ50 the code "its exits give" a position
//! is therefore the draw where the companion says draw, that win where a zeroing move keeps
//! the class, and nothing (0) elsewhere. A DTZ50 file may also leave a whole side to move
//! out: each of its entries follows from its moves ([`SideSearch`]), as a DTM file's may.
//!
//! Owns: for each kind, the order of its codes for the side to move
//! ([`TableKind::exit_rank`]), the code an exit gives the side making it
//! ([`TableKind::through_exit`]), the rebuilt entry ([`TableKind::with_exit`]) and the DTZ50
//! or DTM entry its moves give ([`SideSearch`]).
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
    /// for DTZ50 a draw (only a decided position may store something else, and only a drawn
    /// one a draw).
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
    /// (0 too), and for DTZ50 anything at a draw and anything but a draw at a win its zeroing
    /// move decides; where it is no legal position (`value` 0), anything.
    pub fn may_store(self, value: u32, exit: u32, candidate: u32) -> bool {
        let draw = crate::Dtz::Draw.code();
        candidate == value
            || value == 0
            || (exit == value
                && match self {
                    TableKind::Dtz50 => value == draw || candidate != draw,
                    _ => self.exit_rank(candidate) <= self.exit_rank(value),
                })
    }
}

/// Whether a DTZ50 entry may be decided by its position's zeroing moves: the position's WDL50
/// class (`class`, a code) is a win or a cursed win.
pub fn dtz50_needs_zeroing(class: u32) -> bool {
    class == Wdl::Win.code() || class == Wdl::CursedWin.code()
}

/// The DTZ50 code that decides a position's entry ([`TableKind::with_exit`]), from its WDL50
/// class (`class`) and the best class its zeroing moves give the side to move (`zeroing`, a
/// WDL50 code through [`TableKind::through_exit`]; 0 if it has none or they were not looked
/// at), the rule allowing `rule_plies`: the draw at a drawn position; a win of 1 ply where a
/// zeroing move keeps a win (into a loss: `retro_rules::fifty::exit_outcome`), of
/// `rule_plies + 1` where one keeps a cursed win (into a blessed loss) — no win is quicker, so
/// that is the entry; 0 elsewhere.
pub fn dtz50_decided(class: u32, zeroing: u32, rule_plies: u32) -> u32 {
    match Wdl::from_code(class) {
        Some(Wdl::Draw) => crate::Dtz::Draw.code(),
        Some(Wdl::Win) if zeroing == class => crate::Dtz::Win(1).code(),
        Some(Wdl::CursedWin) if zeroing == class => crate::Dtz::Win(rule_plies + 1).code(),
        _ => 0,
    }
}

/// What a move is worth to the side making it, in plies: the search's own scale, which the
/// kinds' codes convert into and out of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Worth {
    /// No entry where the move leads.
    Valueless,
    Win(u32),
    Draw,
    Loss(u32),
}

impl Worth {
    /// The worth of a move into a position whose own value (for its side to move) is `child`:
    /// the opponent's loss in `k` plies is a win in `k + 1`, and so on.
    fn one_ply_before(child: Worth) -> Worth {
        match child {
            Worth::Loss(k) => Worth::Win(k + 1),
            Worth::Win(k) => Worth::Loss(k + 1),
            other => other,
        }
    }
}

/// An entry rebuilt by a one-ply search, for a packed file that leaves a side to move out
/// ([`crate::packed::WHITE_LEFT_OUT`]; DTM and DTZ50 files): each legal move adds what it is
/// worth to the mover, and the entry is the quickest win, else a draw, else the longest loss;
/// checkmate is a loss in 0 plies, stalemate a draw. A move is worth its child's entry a ply
/// further ([`SideSearch::add_child`]): in DTM every move, its child's DTM entry (in the same
/// table or, after a capture or a promotion, a smaller one); in DTZ50 a move that keeps the
/// clock running, its child's DTZ50 entry, while a zeroing move is worth what the WDL50 class
/// it reaches gives (`retro_rules::fifty::exit_outcome`: [`SideSearch::add_zeroing`]). These
/// are the conditions `retro verify` checks of every entry, so the search gives back exactly
/// the entry of a table that passes.
#[derive(Debug, Clone, Copy)]
pub struct SideSearch {
    kind: TableKind,
    rule_plies: u32,
    moves: u32,
    quickest_win: Option<u32>,
    longest_loss: u32,
    draw: bool,
    /// A move reached a position with no entry.
    valueless: bool,
}

impl SideSearch {
    /// A search for an entry of `kind` (DTM or DTZ50), under a rule of `rule_plies` plies
    /// (DTZ50), no move counted yet.
    pub fn new(kind: TableKind, rule_plies: u32) -> SideSearch {
        debug_assert!(kind.may_leave_side_out(), "{kind} keeps both sides");
        SideSearch {
            kind,
            rule_plies,
            moves: 0,
            quickest_win: None,
            longest_loss: 0,
            draw: false,
            valueless: false,
        }
    }

    fn add(&mut self, worth: Worth) {
        self.moves += 1;
        match worth {
            Worth::Valueless => self.valueless = true,
            Worth::Win(n) => {
                self.quickest_win = Some(self.quickest_win.map_or(n, |w| w.min(n)));
            }
            Worth::Draw => self.draw = true,
            Worth::Loss(n) => self.longest_loss = self.longest_loss.max(n),
        }
    }

    /// Counts a DTZ50 position's zeroing move into a position whose WDL50 code (for its own
    /// side to move, at a clock of 0) is `class`.
    pub fn add_zeroing(&mut self, class: u32) {
        debug_assert_eq!(self.kind, TableKind::Dtz50);
        let n = self.rule_plies + 1;
        self.add(match Wdl::from_code(class) {
            Some(Wdl::Loss) => Worth::Win(1),
            Some(Wdl::BlessedLoss) => Worth::Win(n),
            Some(Wdl::Draw) => Worth::Draw,
            Some(Wdl::CursedWin) => Worth::Loss(n),
            Some(Wdl::Win) => Worth::Loss(1),
            Some(Wdl::Illegal) | None => Worth::Valueless,
        });
    }

    /// Counts a move worth its child's entry (for the child's side to move) of the search's
    /// kind, `child`, a ply further: every DTM move, a DTZ50 move that is not zeroing.
    pub fn add_child(&mut self, child: u32) {
        let worth = match self.kind {
            TableKind::Dtz50 => match crate::Dtz::from_code(child) {
                crate::Dtz::Illegal => Worth::Valueless,
                crate::Dtz::Draw => Worth::Draw,
                crate::Dtz::Win(k) => Worth::Win(k),
                crate::Dtz::Loss(k) => Worth::Loss(k),
            },
            _ => match Value::from_code(child) {
                Value::Illegal => Worth::Valueless,
                Value::Draw => Worth::Draw,
                Value::Win(k) => Worth::Win(k),
                Value::Loss(k) => Worth::Loss(k),
            },
        };
        self.add(Worth::one_ply_before(worth));
    }

    /// Whether no move can be better for the mover than those counted: a win in one ply.
    pub fn settled(&self) -> bool {
        self.quickest_win == Some(1)
    }

    /// The entry's code, the side to move in check or not; `None` if a move reached a
    /// position with no entry.
    pub fn code(&self, in_check: bool) -> Option<u32> {
        if self.valueless {
            return None;
        }
        let worth = match (self.moves, self.quickest_win, self.draw) {
            (0, _, _) if in_check => Worth::Loss(0),
            (0, _, _) => Worth::Draw,
            (_, Some(n), _) => Worth::Win(n),
            (_, None, true) => Worth::Draw,
            (_, None, false) => Worth::Loss(self.longest_loss),
        };
        Some(match self.kind {
            TableKind::Dtz50 => match worth {
                Worth::Win(n) => crate::Dtz::Win(n),
                Worth::Loss(n) => crate::Dtz::Loss(n),
                _ => crate::Dtz::Draw,
            }
            .code(),
            _ => match worth {
                Worth::Win(n) => Value::Win(n),
                Worth::Loss(n) => Value::Loss(n),
                _ => Value::Draw,
            }
            .code(),
        })
    }
}

impl TableKind {
    /// Whether a packed file of this kind may leave a side to move out, each of its entries
    /// rebuilt by a one-ply search ([`SideSearch`]): DTM and DTZ50. WDL50 keeps both, as
    /// Syzygy's WDL files do: the searches of the other kinds read it.
    pub fn may_leave_side_out(self) -> bool {
        self != TableKind::Wdl50
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
    fn dtz50_takes_the_companions_draw_and_zeroing_wins() {
        let k = TableKind::Dtz50;
        let (draw, win1, win7, win101, loss4) = (
            crate::Dtz::Draw.code(),
            crate::Dtz::Win(1).code(),
            crate::Dtz::Win(7).code(),
            crate::Dtz::Win(101).code(),
            crate::Dtz::Loss(4).code(),
        );
        // A drawn position may store anything, and reads back as the draw.
        assert!(k.may_store(draw, draw, win7) && k.may_store(draw, draw, loss4));
        assert_eq!(k.with_exit(win7, draw), draw);
        // A win its zeroing move decides may store anything but a draw.
        assert!(k.may_store(win1, win1, loss4) && k.may_store(win1, win1, win7));
        assert!(!k.may_store(win1, win1, draw));
        assert_eq!(k.with_exit(loss4, win1), win1);
        // Elsewhere the stored distance is the entry, stored exactly.
        assert!(!k.may_store(win7, 0, loss4) && k.may_store(win7, 0, win7));
        assert_eq!(k.with_exit(win7, 0), win7);
        assert!(k.stored_is_final(draw) && !k.stored_is_final(win7));
        // What the class and the best zeroing move decide.
        let (w, c, d, b) = (
            Wdl::Win.code(),
            Wdl::CursedWin.code(),
            Wdl::Draw.code(),
            Wdl::BlessedLoss.code(),
        );
        assert_eq!(dtz50_decided(w, w, 100), win1);
        assert_eq!(dtz50_decided(c, c, 100), win101);
        assert_eq!(dtz50_decided(d, 0, 100), draw);
        assert_eq!(dtz50_decided(w, c, 100), 0);
        assert_eq!(dtz50_decided(w, 0, 100), 0);
        assert_eq!(dtz50_decided(c, d, 100), 0);
        assert_eq!(dtz50_decided(b, b, 100), 0);
        assert!(dtz50_needs_zeroing(w) && dtz50_needs_zeroing(c));
        assert!(!dtz50_needs_zeroing(d) && !dtz50_needs_zeroing(b));
    }

    #[test]
    fn a_dtz50_search_takes_the_quickest_win_else_a_draw_else_the_longest_loss() {
        use crate::Dtz;
        let code = |moves: &[(bool, u32)], in_check: bool| {
            let mut search = SideSearch::new(TableKind::Dtz50, 100);
            for &(zeroing, child) in moves {
                match zeroing {
                    true => search.add_zeroing(child),
                    false => search.add_child(child),
                }
            }
            search.code(in_check).map(Dtz::from_code)
        };
        let (win, cursed, draw, blessed, loss) = (
            Wdl::Win.code(),
            Wdl::CursedWin.code(),
            Wdl::Draw.code(),
            Wdl::BlessedLoss.code(),
            Wdl::Loss.code(),
        );
        assert_eq!(code(&[], true), Some(Dtz::Loss(0)));
        assert_eq!(code(&[], false), Some(Dtz::Draw));
        // A stay into a loss of 6 beats a zeroing move into a blessed loss (101 plies).
        let stay_loss6 = (false, Dtz::Loss(6).code());
        assert_eq!(
            code(&[(true, blessed), stay_loss6], false),
            Some(Dtz::Win(7))
        );
        assert_eq!(code(&[(true, blessed)], false), Some(Dtz::Win(101)));
        assert_eq!(code(&[(true, loss), stay_loss6], false), Some(Dtz::Win(1)));
        // No win: a draw if any move draws, else the longest loss.
        let stay_win9 = (false, Dtz::Win(9).code());
        assert_eq!(code(&[(true, win), (true, draw)], false), Some(Dtz::Draw));
        assert_eq!(code(&[(true, win), stay_win9], true), Some(Dtz::Loss(10)));
        assert_eq!(
            code(&[(true, cursed), stay_win9], false),
            Some(Dtz::Loss(101))
        );
        assert_eq!(code(&[(false, Dtz::Draw.code())], false), Some(Dtz::Draw));
        // A move into a position with no entry: no value.
        assert_eq!(code(&[(false, 0)], false), None);
        assert_eq!(code(&[(true, 0)], false), None);
        let mut search = SideSearch::new(TableKind::Dtz50, 100);
        search.add_zeroing(loss);
        assert!(search.settled());
    }

    #[test]
    fn a_dtm_search_takes_each_child_a_ply_further() {
        let code = |children: &[Value], in_check: bool| {
            let mut search = SideSearch::new(TableKind::Dtm, 0);
            for child in children {
                search.add_child(child.code());
            }
            search.code(in_check).map(Value::from_code)
        };
        assert_eq!(code(&[], true), Some(Value::Loss(0)));
        assert_eq!(code(&[], false), Some(Value::Draw));
        // The quickest win: a move into the opponent's quickest loss.
        let children = [Value::Win(3), Value::Loss(6), Value::Loss(2), Value::Draw];
        assert_eq!(code(&children, false), Some(Value::Win(3)));
        // No win: a draw if a move draws, else the longest loss.
        assert_eq!(code(&[Value::Win(3), Value::Draw], true), Some(Value::Draw));
        assert_eq!(
            code(&[Value::Win(3), Value::Win(9)], false),
            Some(Value::Loss(10))
        );
        assert_eq!(code(&[Value::Illegal, Value::Win(1)], false), None);
        let mut search = SideSearch::new(TableKind::Dtm, 0);
        search.add_child(Value::Loss(0).code());
        assert!(search.settled() && search.code(false) == Some(Value::Win(1).code()));
        assert!(TableKind::Dtm.may_leave_side_out() && TableKind::Dtz50.may_leave_side_out());
        assert!(!TableKind::Wdl50.may_leave_side_out());
    }
}
