//! A position's children as the checker reads them: the entries its moves reach, in this
//! table or after a capture or promotion in a smaller one, summarised for the facts.
//!
//! Owns: the look-up of an entry by placement ([`Lookup`]), the tables a category's exits
//! read ([`Exits`]), and the summary of a position's children ([`Summary`], [`Children`]).
//! Must never: decide whether a fact holds (the [`crate::Checker`] does), or read a move from
//! anywhere but the natural model's tabulated geometry.

use crate::*;

/// Tables opened for one check, read without locking: each category's men counted by kind,
/// and whether positions of that count are stored with the colours exchanged.
pub(crate) struct Lookup {
    pub(crate) ranks: u8,
    pub(crate) entries: Vec<([[u8; 5]; 2], bool, Arc<Stored>)>,
}

pub(crate) fn counts<'a>(men: impl Iterator<Item = &'a (Side, Piece)>) -> [[u8; 5]; 2] {
    let mut c = [[0u8; 5]; 2];
    for &(side, piece) in men {
        if piece != Piece::King {
            let kind = [
                Piece::Queen,
                Piece::Rook,
                Piece::Bishop,
                Piece::Knight,
                Piece::Pawn,
            ]
            .iter()
            .position(|&k| k == piece)
            .expect("a piece other than the king");
            c[usize::from(side == Side::Black)][kind] += 1;
        }
    }
    c
}

impl Lookup {
    pub(crate) fn new(board: Board, tables: Vec<(Men, Arc<Stored>)>) -> Lookup {
        let mut entries = Vec::new();
        for (men, table) in tables {
            let listed = men.listed();
            let c = counts(listed.iter());
            entries.push((c, false, table.clone()));
            entries.push(([c[1], c[0]], true, table));
        }
        Lookup {
            ranks: board.ranks(),
            entries,
        }
    }

    /// The stored DTM value of `p`, whose category must be among the tables.
    pub(crate) fn value(&self, p: &Position, checker: &Checker) -> Result<Value, VerifyError> {
        self.code(p, checker).map(Value::from_code)
    }

    /// The stored entry code of `p`, whose category must be among the tables.
    pub(crate) fn code(&self, p: &Position, checker: &Checker) -> Result<u32, VerifyError> {
        let mut placed = [(Square::new(0, 0), (Side::White, Piece::King)); scheme::MAX_MEN];
        let mut n = 0;
        for (sq, man) in p.men() {
            if n == scheme::MAX_MEN {
                return Err(VerifyError::Unsupported(p.fen()));
            }
            placed[n] = (sq, man);
            n += 1;
        }
        let c = counts(placed[..n].iter().map(|(_, man)| man));
        let missing = || VerifyError::WrongHeader {
            path: checker.dir.clone(),
            expected: format!("a table for {}", p.fen()),
            found: "none loaded".into(),
        };
        let (_, flip, stored) = self
            .entries
            .iter()
            .find(|(k, _, _)| *k == c)
            .ok_or_else(missing)?;
        let mut white_to_move = retro_rules::position::to_move(p) == Side::White;
        let mut ep = p.en_passant();
        if *flip {
            // The colours exchanged: sides swapped, the board turned top to bottom.
            let turned = |sq: Square| Square::new(sq.file, self.ranks - 1 - sq.rank);
            for (sq, (side, _)) in placed[..n].iter_mut() {
                *sq = turned(*sq);
                *side = retro_rules::opponent(*side);
            }
            ep = ep.map(turned);
            white_to_move = !white_to_move;
        }
        let none = || VerifyError::WrongHeader {
            path: checker.dir.clone(),
            expected: format!("an index entry for {}", p.fen()),
            found: "no entry".into(),
        };
        let squares = stored.scheme.placement(&placed[..n]).ok_or_else(none)?;
        let to_move = if white_to_move {
            Side::White
        } else {
            Side::Black
        };
        let index = stored
            .scheme
            .index_with_en_passant(&squares[..n], ep, to_move)
            .ok_or_else(none)?;
        Ok(stored.table.code(white_to_move, index)?)
    }
}

/// The exits of a category, by listed man: where its capture leads (`None` for the kings),
/// and for a pawn, by the man it takes on promoting (`None` for none) and the piece it becomes
/// (in the order of `Piece::PROMOTIONS`), where its promotion leads.
pub(crate) struct Exits {
    pub(crate) captures: Vec<Option<CaptureTarget>>,
    pub(crate) promotions: Vec<Option<Promotions>>,
}

/// A pawn's promotions: by the man taken (`None` for none), one target per promoted piece.
pub(crate) type Promotions = Vec<(Option<usize>, Vec<CaptureTarget>)>;

/// Where a capture or a promotion leads: the stored category, whether its colours are
/// exchanged, and each remaining man's place in its list.
pub(crate) struct CaptureTarget {
    pub(crate) stored: Arc<Stored>,
    pub(crate) flipped: bool,
    pub(crate) order: Vec<usize>,
}

impl CaptureTarget {
    /// The squares, in this target's list, of the men of `after` (listed as in the category
    /// left) but `removed`, through the colour exchange's `mirror` when the target is stored
    /// with the colours exchanged.
    #[inline]
    pub(crate) fn numbers_after(
        &self,
        after: &[u32],
        removed: Option<usize>,
        mirror: &[u32],
    ) -> [u32; scheme::MAX_MEN] {
        let mut numbers = [0u32; scheme::MAX_MEN];
        for (j, &n) in after.iter().enumerate() {
            if Some(j) != removed {
                numbers[self.order[j]] = if self.flipped { mirror[n as usize] } else { n };
            }
        }
        numbers
    }
}

/// What a position's moves reach, summarised for the facts (P), (C), (W), (L) and (D).
#[derive(Debug)]
pub(crate) struct Summary {
    pub(crate) moves: u32,
    pub(crate) in_check: bool,
    /// A move reaches a legal position with no value.
    pub(crate) valueless_child: bool,
    /// The quickest loss a move reaches, in plies (`u32::MAX` if none).
    pub(crate) quickest_loss: u32,
    /// Whether every move reaches a win.
    pub(crate) all_wins: bool,
    /// The entry code of the deepest win a move reaches (0 if none; a win's code is odd).
    pub(crate) deepest_win_code: u32,
    pub(crate) any_draw: bool,
}

impl Summary {
    pub(crate) fn new(in_check: bool) -> Summary {
        Summary {
            moves: 0,
            in_check,
            valueless_child: false,
            quickest_loss: u32::MAX,
            all_wins: true,
            deepest_win_code: 0,
            any_draw: false,
        }
    }

    /// Adds a move reaching an entry of code `code` (`Value::code`: 0 no value, 1 draw,
    /// `2 + plies` decided: a win when the plies are odd, a loss when even).
    #[inline]
    pub(crate) fn add(&mut self, code: u32) {
        self.moves += 1;
        match code {
            0 => self.valueless_child = true,
            1 => {
                self.any_draw = true;
                self.all_wins = false;
            }
            c if c % 2 == 0 => {
                self.quickest_loss = self.quickest_loss.min(c - 2);
                self.all_wins = false;
            }
            c => self.deepest_win_code = self.deepest_win_code.max(c),
        }
    }

    /// Whether (P), (C), (W), (L) and (D) hold at a position with stored value `v`.
    pub(crate) fn holds_for(&self, v: Value) -> bool {
        if v == Value::Illegal || self.valueless_child {
            return false;
        }
        let checkmate = self.moves == 0 && self.in_check;
        let stalemate = self.moves == 0 && !self.in_check;
        if checkmate != (v == Value::Loss(0)) {
            return false;
        }
        let any_loss = self.quickest_loss != u32::MAX;
        match v {
            Value::Loss(0) => true,
            Value::Win(n) => any_loss && self.quickest_loss == n - 1,
            Value::Loss(n) => {
                self.moves > 0 && self.all_wins && self.deepest_win_code == Value::Win(n - 1).code()
            }
            Value::Draw => !any_loss && (stalemate || self.any_draw),
            Value::Illegal => false,
        }
    }
}

/// Where a move leads: an entry of the table being checked (the index for the other side to
/// move), or, after a capture or a promotion, another table's entry, read at once (its code).
pub(crate) enum Child {
    Here(u64),
    Code(u32),
}

/// The entries a capture reaches, as a function of the square of one man that stays
/// ([`Children::capture_lane`]): the position with that man on `x` is at
/// `base + weight × image[x]`, `x` taken through the colour exchange's mirror first when the
/// capture's table is stored with the colours exchanged.
pub(crate) struct CaptureLane<'a> {
    codes: Codes<'a>,
    base: u64,
    weight: u64,
    image: &'a [u32],
    mirror: Option<&'a [u32]>,
    table: &'a Table,
}

impl CaptureLane<'_> {
    /// The code of the entry reached with the lane's man on `x`.
    #[inline]
    pub(crate) fn code(&self, x: u32) -> Result<u32, VerifyError> {
        let x = self.mirror.map_or(x, |mirror| mirror[x as usize]);
        let index = self.base + self.weight * u64::from(self.image[x as usize]);
        self.codes
            .get(index)
            .ok_or_else(|| out_of_range(self.table, index))
    }
}

/// The values of positions one move away, in the table being checked or, after a capture, in
/// a smaller one.
pub(crate) struct Children<'a> {
    pub(crate) scheme: &'a Scheme,
    pub(crate) table: &'a Table,
    /// The table's entries, White to move first.
    pub(crate) codes: [Codes<'a>; 2],
    pub(crate) captures: &'a [Option<CaptureTarget>],
    /// The entries of each capture's table, White to move first.
    pub(crate) capture_codes: Vec<Option<[Codes<'a>; 2]>>,
    pub(crate) promotions: &'a [Option<Promotions>],
    pub(crate) mirror: &'a [u32],
}

impl<'a> Children<'a> {
    /// The children of the positions of `table` (numbered by `scheme`), whose exits lead into
    /// `exits`; `mirror` turns the board top to bottom.
    pub(crate) fn new(
        scheme: &'a Scheme,
        table: &'a Table,
        exits: &'a Exits,
        mirror: &'a [u32],
    ) -> Children<'a> {
        Children {
            scheme,
            table,
            codes: both_sides(table),
            captures: &exits.captures,
            capture_codes: exits
                .captures
                .iter()
                .map(|c| c.as_ref().map(|c| both_sides(&c.stored.table)))
                .collect(),
            promotions: &exits.promotions,
            mirror,
        }
    }

    /// The moves of `placement` (canonical, at `index`) with `side` to move, whose king is in
    /// check when `in_check`.
    pub(crate) fn summarise(
        &self,
        placement: &Placement,
        index: u64,
        side: Side,
        in_check: bool,
    ) -> Result<Summary, VerifyError> {
        let mut summary = Summary::new(in_check);
        self.for_each_child(placement, index, side, |_, code| summary.add(code))?;
        Ok(summary)
    }

    /// Calls `visit` with each move of `placement` (canonical, at `index`) with `side` to move
    /// and the code of the entry it reaches, in this table or another.
    pub(crate) fn for_each_child(
        &self,
        placement: &Placement,
        index: u64,
        side: Side,
        mut visit: impl FnMut(Step, u32),
    ) -> Result<(), VerifyError> {
        let mut error = None;
        let own = &self.codes[usize::from(side == Side::White)];
        placement.for_each_move(side, |step, after| {
            if error.is_some() {
                return;
            }
            let code = match self.child_after(placement.numbers(), index, side, step, after) {
                Ok(Child::Here(index)) => own
                    .get(index)
                    .ok_or_else(|| out_of_range(self.table, index)),
                Ok(Child::Code(code)) => Ok(code),
                Err(e) => Err(e),
            };
            match code {
                Ok(code) => visit(step, code),
                Err(e) => error = Some(e),
            }
        });
        error.map_or(Ok(()), Err)
    }

    /// The entries reached by capturing listed man `captured`, with `side` to move before the
    /// capture, as a function of the square of listed man `lane_man` (neither a king nor
    /// `captured`): `after` gives the other men's squares after the move (its entries for
    /// `captured` and `lane_man` are not read). The placements and the index are those
    /// [`Children::child_after`] finds one at a time; `None` where the capture's scheme has no
    /// [`Scheme::man_lane`] for that man, and the entries are then found one at a time.
    pub(crate) fn capture_lane(
        &self,
        after: &[u32],
        captured: usize,
        lane_man: usize,
        side: Side,
    ) -> Option<CaptureLane<'_>> {
        let target = self.captures[captured].as_ref()?;
        let codes = (*self.capture_codes[captured].as_ref()?)
            [usize::from((side == Side::White) != target.flipped)];
        let numbers = target.numbers_after(after, Some(captured), self.mirror);
        let (base, weight, image) = target
            .stored
            .scheme
            .man_lane(&numbers[..after.len() - 1], target.order[lane_man])?;
        Some(CaptureLane {
            codes,
            base,
            weight,
            image,
            mirror: target.flipped.then_some(self.mirror),
            table: &target.stored.table,
        })
    }

    /// Where the value of the position after `step` from `before` (canonical, at `index`),
    /// the opponent of `side` to move, is stored.
    #[inline]
    pub(crate) fn child_after(
        &self,
        before: &[u32],
        index: u64,
        side: Side,
        step: Step,
        after: &[u32],
    ) -> Result<Child, VerifyError> {
        let white_to_move = side == Side::Black;
        let (target, codes) = match (step.captured, step.promotion) {
            (None, None) => {
                let index = match step.target {
                    Some(t) => {
                        let squares: Vec<Square> =
                            after.iter().map(|&n| self.scheme.square(n)).collect();
                        let to_move = retro_rules::opponent(side);
                        self.scheme.index_with_en_passant(
                            &squares,
                            Some(self.scheme.square(t)),
                            to_move,
                        )
                    }
                    None => self
                        .scheme
                        .index_after_move(index, before, after, step.man)
                        .or_else(|| self.scheme.index_of_numbers(after)),
                };
                return Ok(Child::Here(index.ok_or_else(|| no_entry(self.table))?));
            }
            (Some(captured), None) => {
                let target = self.captures[captured]
                    .as_ref()
                    .expect("kings are never captured");
                let codes = *self.capture_codes[captured]
                    .as_ref()
                    .expect("kings are never captured");
                (target, codes)
            }
            (captured, Some(piece)) => {
                let k = Piece::PROMOTIONS
                    .iter()
                    .position(|&p| p == piece)
                    .expect("a promotion piece");
                let target = &self.promotions[step.man]
                    .as_ref()
                    .expect("pawns promote")
                    .iter()
                    .find(|(taken, _)| *taken == captured)
                    .expect("every capture on promotion is listed")
                    .1[k];
                (target, both_sides(&target.stored.table))
            }
        };
        let numbers = target.numbers_after(after, step.captured, self.mirror);
        let k = after.len() - usize::from(step.captured.is_some());
        let index = target
            .stored
            .scheme
            .index_of_numbers(&numbers[..k])
            .ok_or_else(|| no_entry(&target.stored.table))?;
        let white_to_move = white_to_move != target.flipped;
        let code = codes[usize::from(!white_to_move)]
            .get(index)
            .ok_or_else(|| out_of_range(&target.stored.table, index))?;
        Ok(Child::Code(code))
    }
}
