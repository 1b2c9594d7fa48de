//! The kinds of table a file may hold, and the entries of the fifty-move-rule tables: DTZ50
//! (the distance to the next zeroing move, exact, in plies) and WDL50 (the five classes).
//!
//! Owns: [`TableKind`], [`Dtz`] and [`Wdl`] with their entry codes.
//! Must never: say what a value means in chess beyond its name: the definitions are the
//! natural model's (`retro_rules::fifty`), and `retro-verify` checks a table against them.
//!
//! # Entry codes
//!
//! A DTZ50 entry is `0` for an index that is not a legal position, `1` for a draw, `2n` for a
//! win whose zeroing move (or mate) the side to move forces `n ≥ 1` plies from now, the zeroing
//! move included, and `2n + 3` for a loss held out `n ≥ 0` plies (`3`: checkmated). One byte
//! holds distances up to 126 plies; longer ones take two bytes an entry.
//!
//! A WDL50 entry is `0` (not a legal position), `1` draw, `2` win, `3` loss, `4` cursed win
//! (won, drawn by the fifty-move rule), `5` blessed loss: one byte.

/// What a table file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TableKind {
    /// Depth to mate, the fifty-move rule left out ([`crate::Value`]).
    Dtm,
    /// The distance to zeroing under the fifty-move rule ([`Dtz`]).
    Dtz50,
    /// The five classes under the fifty-move rule ([`Wdl`]).
    Wdl50,
}

impl TableKind {
    /// Every kind.
    pub const ALL: [TableKind; 3] = [TableKind::Dtm, TableKind::Dtz50, TableKind::Wdl50];

    /// The kind's byte in a header.
    pub fn code(self) -> u8 {
        match self {
            TableKind::Dtm => 0,
            TableKind::Dtz50 => 1,
            TableKind::Wdl50 => 2,
        }
    }

    /// The kind of a header's byte.
    pub fn from_code(code: u8) -> Option<TableKind> {
        TableKind::ALL.into_iter().find(|k| k.code() == code)
    }

    /// The kind's name: `dtm`, `dtz50`, `wdl50`.
    pub fn name(self) -> &'static str {
        match self {
            TableKind::Dtm => "dtm",
            TableKind::Dtz50 => "dtz50",
            TableKind::Wdl50 => "wdl50",
        }
    }

    /// What the kind's file names carry after the board: nothing for DTM (`KRvK.8x8.rtb`),
    /// `.dtz50` and `.wdl50` for the others (`KRvK.8x8.dtz50.rtb`).
    pub fn suffix(self) -> &'static str {
        match self {
            TableKind::Dtm => "",
            TableKind::Dtz50 => ".dtz50",
            TableKind::Wdl50 => ".wdl50",
        }
    }

    /// Whether the kind's values depend on the fifty-move rule (its header then names the
    /// plies the rule allows).
    pub fn under_rule(self) -> bool {
        self != TableKind::Dtm
    }
}

impl std::fmt::Display for TableKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TableKind::Dtm => "DTM",
            TableKind::Dtz50 => "DTZ50",
            TableKind::Wdl50 => "WDL50",
        })
    }
}

/// A DTZ50 entry, for the side to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dtz {
    /// Not a legal position.
    Illegal,
    /// Neither side mates, rule or no rule.
    Draw,
    /// The side to move forces a zeroing move (or mate) that keeps its win in this many plies.
    Win(u32),
    /// The side to move is forced into one in this many plies (0: checkmated).
    Loss(u32),
}

impl Dtz {
    /// The entry code (see the module documentation).
    pub fn code(self) -> u32 {
        match self {
            Dtz::Illegal => 0,
            Dtz::Draw => 1,
            Dtz::Win(n) => 2 * n,
            Dtz::Loss(n) => 2 * n + 3,
        }
    }

    /// The entry of a code.
    pub fn from_code(code: u32) -> Dtz {
        match code {
            0 => Dtz::Illegal,
            1 => Dtz::Draw,
            c if c % 2 == 0 => Dtz::Win(c / 2),
            c => Dtz::Loss((c - 3) / 2),
        }
    }

    /// The distance in plies, if decided.
    pub fn plies(self) -> Option<u32> {
        match self {
            Dtz::Win(n) | Dtz::Loss(n) => Some(n),
            _ => None,
        }
    }

    /// The class the entry stands for, the rule allowing `rule_plies` plies: a win or a loss
    /// within the rule, a cursed win or blessed loss beyond it.
    pub fn class(self, rule_plies: u32) -> Wdl {
        match self {
            Dtz::Illegal => Wdl::Illegal,
            Dtz::Draw => Wdl::Draw,
            Dtz::Win(n) if n <= rule_plies => Wdl::Win,
            Dtz::Win(_) => Wdl::CursedWin,
            Dtz::Loss(n) if n <= rule_plies => Wdl::Loss,
            Dtz::Loss(_) => Wdl::BlessedLoss,
        }
    }
}

/// A WDL50 entry: the class of the position for the side to move, at a clock of 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Wdl {
    /// Not a legal position.
    Illegal,
    /// Lost under the rule.
    Loss,
    /// Lost without the rule, drawn by it.
    BlessedLoss,
    /// Drawn.
    Draw,
    /// Won without the rule, drawn by it.
    CursedWin,
    /// Won under the rule.
    Win,
}

impl Wdl {
    /// Every class of a legal position, worst first.
    pub const CLASSES: [Wdl; 5] = [
        Wdl::Loss,
        Wdl::BlessedLoss,
        Wdl::Draw,
        Wdl::CursedWin,
        Wdl::Win,
    ];

    /// The entry code (see the module documentation).
    pub fn code(self) -> u32 {
        match self {
            Wdl::Illegal => 0,
            Wdl::Draw => 1,
            Wdl::Win => 2,
            Wdl::Loss => 3,
            Wdl::CursedWin => 4,
            Wdl::BlessedLoss => 5,
        }
    }

    /// The entry of a code; `None` for a code no entry has.
    pub fn from_code(code: u32) -> Option<Wdl> {
        Some(match code {
            0 => Wdl::Illegal,
            1 => Wdl::Draw,
            2 => Wdl::Win,
            3 => Wdl::Loss,
            4 => Wdl::CursedWin,
            5 => Wdl::BlessedLoss,
            _ => return None,
        })
    }

    /// The class for the other side: a win is the loser's loss, and so on.
    pub fn for_opponent(self) -> Wdl {
        match self {
            Wdl::Illegal => Wdl::Illegal,
            Wdl::Loss => Wdl::Win,
            Wdl::BlessedLoss => Wdl::CursedWin,
            Wdl::Draw => Wdl::Draw,
            Wdl::CursedWin => Wdl::BlessedLoss,
            Wdl::Win => Wdl::Loss,
        }
    }

    /// Syzygy's number for the class, as python-chess's `probe_wdl` gives it: −2 loss,
    /// −1 blessed loss, 0 draw, 1 cursed win, 2 win (`None` for an illegal entry).
    pub fn syzygy(self) -> Option<i32> {
        match self {
            Wdl::Illegal => None,
            Wdl::Loss => Some(-2),
            Wdl::BlessedLoss => Some(-1),
            Wdl::Draw => Some(0),
            Wdl::CursedWin => Some(1),
            Wdl::Win => Some(2),
        }
    }

    /// The class's name as Lichess's tablebase API spells it: `win`, `cursed-win`, `draw`,
    /// `blessed-loss`, `loss`.
    pub fn name(self) -> &'static str {
        match self {
            Wdl::Illegal => "illegal",
            Wdl::Loss => "loss",
            Wdl::BlessedLoss => "blessed-loss",
            Wdl::Draw => "draw",
            Wdl::CursedWin => "cursed-win",
            Wdl::Win => "win",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip() {
        for v in [
            Dtz::Illegal,
            Dtz::Draw,
            Dtz::Win(1),
            Dtz::Win(100),
            Dtz::Win(101),
            Dtz::Loss(0),
            Dtz::Loss(1),
            Dtz::Loss(250),
        ] {
            assert_eq!(Dtz::from_code(v.code()), v);
        }
        assert_eq!(Dtz::Win(127).code(), 254);
        assert_eq!(Dtz::Loss(126).code(), 255);
        for w in [Wdl::Illegal].into_iter().chain(Wdl::CLASSES) {
            assert_eq!(Wdl::from_code(w.code()), Some(w));
        }
        assert_eq!(Wdl::from_code(6), None);
        for kind in TableKind::ALL {
            assert_eq!(TableKind::from_code(kind.code()), Some(kind));
        }
    }

    #[test]
    fn classes_of_distances() {
        assert_eq!(Dtz::Win(100).class(100), Wdl::Win);
        assert_eq!(Dtz::Win(101).class(100), Wdl::CursedWin);
        assert_eq!(Dtz::Loss(0).class(100), Wdl::Loss);
        assert_eq!(Dtz::Loss(101).class(100), Wdl::BlessedLoss);
        assert_eq!(Dtz::Draw.class(100), Wdl::Draw);
        assert_eq!(Wdl::CursedWin.syzygy(), Some(1));
    }
}
