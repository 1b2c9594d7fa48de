//! The analysis of one position's moves: legality and the first code of every entry, the move
//! a step makes, every move valued, and the rule phase.
//!
//! Owns: `Analysis::init` and `Analysis::classify` (each entry's legality, mates, and its
//! exits valued by the problem's rules or a table look-up), `Analysis::step` (where a move
//! leads: an entry, or an exit and its value), the valued moves of a position, and the rule
//! phase (`Analysis::rules`).
//! Must never: value an exit other than by the problem's rules, a table look-up, or the rules
//! of chess.

use super::*;

/// The positions after each legal capture onto `sq`.
pub(super) fn takes_on(
    geo: &retro_engine::Geometry,
    pos: &FreezerPosition,
    sq: Sq,
) -> Vec<FreezerPosition> {
    let mut out = Vec::new();
    pos.for_each_legal_move(geo, None, |mv| {
        if mv.to == sq && mv.captured.is_some() {
            out.push(pos.play(geo, &mv));
        }
    });
    out
}

pub(super) fn can_take_on(geo: &retro_engine::Geometry, pos: &FreezerPosition, sq: Sq) -> bool {
    let mut found = false;
    pos.for_each_legal_move(geo, None, |mv| {
        found |= mv.to == sq && mv.captured.is_some()
    });
    found
}

impl Analysis<'_> {
    /// The position of the men on `squares`, side `x` to move, en-passant target `ep`, if
    /// legal (with a target: only if an en-passant capture onto it is legal).
    pub(super) fn position(
        &self,
        squares: &[Sq],
        x: usize,
        ep: Option<Sq>,
    ) -> Option<FreezerPosition> {
        let men = self.problem.men.iter().zip(squares).map(|(m, &sq)| Man {
            side: m.side,
            piece: m.piece,
            sq,
        });
        let p = Position::new(&self.problem.geo, men, side(x), ep).ok()?;
        p.is_legal(&self.problem.geo).then_some(p)
    }

    /// Values the move `mv` of the position with men on `squares` at index position `index`
    /// (an en-passant entry's moves are those of its index position, and its en-passant
    /// captures): a double step an en-passant capture can answer stays in the en-passant entry.
    pub fn step(
        &self,
        pos: &FreezerPosition,
        squares: &[Sq],
        index: u64,
        mv: &Move,
    ) -> Result<Step, FreezeError> {
        let geo = &self.problem.geo;
        let after = opponent(pos.side_to_move());
        let fixed =
            |rule: RuleRef, o: Outcome| Ok(Step::Exits(Verdict::fixed(o, after), Some((rule, o))));
        let lookup = || {
            let child = pos.play(geo, mv);
            let v = self
                .tables
                .value(&child)
                .map_err(|e| FreezeError::Probe(e.to_string()))?;
            let v = Verdict::from_table(v).ok_or_else(|| {
                FreezeError::Probe(format!("{} is not legal", child.to_natural(geo).fen()))
            })?;
            Ok(Step::Exits(v, None))
        };
        if mv.promotion.is_some() {
            return match self.problem.promotion_rule(mv.to) {
                Some((k, rule)) => match rule.value {
                    RuleValue::Lookup => lookup(),
                    RuleValue::Fixed(o) => {
                        let o = match rule.attacked {
                            Some(a) if can_take_on(geo, &pos.play(geo, mv), mv.to) => a,
                            _ => o,
                        };
                        fixed(RuleRef::Promotion(k), o)
                    }
                },
                None => lookup(),
            };
        }
        if let Some(piece) = mv.captured {
            // The captured man's square: an en-passant capture takes the pawn beside.
            let taken = if mv.en_passant {
                geo.ahead(after, mv.to, 1)
                    .expect("an en-passant capture takes a pawn beside")
            } else {
                mv.to
            };
            return match self.problem.capture_rule((after, piece), taken) {
                Some((k, rule)) => match rule.value {
                    RuleValue::Lookup => lookup(),
                    RuleValue::Fixed(o) => {
                        let o = match rule.recapture {
                            None => o,
                            Some(re) => {
                                let child = pos.play(geo, mv);
                                let recaptures = takes_on(geo, &child, mv.to);
                                if recaptures.is_empty() {
                                    o
                                } else if rule.second_recapture.is_some()
                                    && recaptures.iter().any(|r| can_take_on(geo, r, mv.to))
                                {
                                    rule.second_recapture.expect("checked")
                                } else {
                                    re
                                }
                            }
                        };
                        fixed(RuleRef::Capture(k), o)
                    }
                },
                None => lookup(),
            };
        }
        let i = squares
            .iter()
            .position(|&s| s == mv.from)
            .expect("a move starts on a man's square");
        match self.space.moved(index, i, mv.from, mv.to) {
            Some(child)
                if mv.piece == Piece::Pawn
                    && geo.rank(mv.from).abs_diff(geo.rank(mv.to)) == 2
                    && pos.play(geo, mv).en_passant().is_some() =>
            {
                // An en-passant capture answers it: the block of this step exists, as the
                // capturing pawn stands on one of its squares.
                let entry = self
                    .space
                    .ep_entry(child, i, mv.to)
                    .expect("a double step inside the index that en passant answers has a block");
                Ok(Step::Stays(entry))
            }
            Some(child) => Ok(Step::Stays(child)),
            None => fixed(
                RuleRef::Elsewhere(i),
                self.problem.men[i]
                    .elsewhere
                    .expect("a man with fewer squares has a value elsewhere"),
            ),
        }
    }

    pub(super) fn init(&mut self, observer: &dyn Observer) -> Result<(), FreezeError> {
        let size = self.space.entries();
        observer.phase(self.subject(), Phase::Init, 2 * size);
        let failure: Mutex<Option<FreezeError>> = Mutex::new(None);
        let mut flags = [vec![0u8; size as usize], vec![0u8; size as usize]];
        for (x, side_flags) in flags.iter_mut().enumerate() {
            side_flags
                .par_chunks_mut(4096)
                .enumerate()
                .for_each(|(chunk, out)| {
                    let first = chunk as u64 * 4096;
                    for (k, f) in out.iter_mut().enumerate() {
                        let index = first + k as u64;
                        match self.classify(x, index) {
                            Ok((code, count, flag)) => {
                                self.wide()[x][index as usize].store(code, Ordering::Relaxed);
                                self.counts[x][index as usize].store(count, Ordering::Relaxed);
                                *f = flag;
                            }
                            Err(e) => {
                                failure.lock().expect("no panics").get_or_insert(e);
                                return;
                            }
                        }
                    }
                    observer.progressed(out.len() as u64);
                });
        }
        if let Some(e) = failure.into_inner().expect("no panics") {
            return Err(e);
        }
        self.flags = flags;
        Ok(())
    }

    pub(super) fn classify(&self, x: usize, index: u64) -> Result<(u16, u8, u8), FreezeError> {
        let geo = &self.problem.geo;
        let mut squares = [0 as Sq; MAX_MEN];
        let n = self.problem.men.len();
        let (index, ep) = self.space.decode(index, &mut squares[..n]);
        let Some(pos) = self.position(&squares[..n], x, ep) else {
            return Ok((ILLEGAL, 0, 0));
        };
        let mut count: u32 = 0;
        let mut flags = 0u8;
        let mut best_win: Option<u32> = None;
        // The opponent's longest win with a depth over the exits.
        let mut longest_exit_win: u32 = 0;
        let mut any = false;
        let mut failure = None;
        pos.for_each_legal_move(geo, None, |mv| {
            any = true;
            match self.step(&pos, &squares[..n], index, &mv) {
                Ok(Step::Stays(_)) => count += 1,
                Ok(Step::Exits(v, rule)) => {
                    if let Some((r, o)) = rule {
                        self.note(r, o);
                    }
                    match v {
                        Verdict::Loss(Some(k)) => {
                            best_win = Some(best_win.map_or(k + 1, |b| b.min(k + 1)))
                        }
                        Verdict::Loss(None) => flags |= RULE_WIN_EXIT,
                        Verdict::Draw => flags |= DRAW_EXIT,
                        Verdict::Win(None) => flags |= OPPONENT_RULE_WIN,
                        Verdict::Win(Some(k)) => longest_exit_win = longest_exit_win.max(k),
                    }
                }
                Err(e) => failure = Some(e),
            }
        });
        if let Some(e) = failure {
            return Err(e);
        }
        let count = u8::try_from(count).map_err(|_| {
            FreezeError::Unsupported("a position with more than 255 moves inside the index".into())
        })?;
        let code = if !any {
            if pos.in_check(geo, pos.side_to_move()) {
                1
            } else {
                STALEMATE
            }
        } else if let Some(w) = best_win {
            if w > MAX_PLIES {
                return Err(FreezeError::TooDeep(MAX_PLIES));
            }
            (w + 1) as u16
        } else if count == 0 && flags == 0 {
            // Every move leaves the index into a win with a depth for the opponent: lost now,
            // as no move inside the index will ever count down to it.
            let lost = longest_exit_win + 1;
            if lost > MAX_PLIES {
                return Err(FreezeError::TooDeep(MAX_PLIES));
            }
            (lost + 1) as u16
        } else {
            UNDECIDED
        };
        Ok((code, count, flags))
    }

    /// An entry's side-to-move slot, index position, en-passant target and the squares of its
    /// men.
    pub(super) fn unpack(&self, entry: u64) -> (usize, u64, Option<Sq>, [Sq; MAX_MEN]) {
        let mut squares = [0 as Sq; MAX_MEN];
        let (index, ep) = self
            .space
            .decode(entry >> 1, &mut squares[..self.problem.men.len()]);
        ((entry & 1) as usize, index, ep, squares)
    }

    /// Calls `visit(to, value, inside)` for each legal move of `entry`, in the order moves are
    /// generated: the square the move goes to, the value it reaches for the side to move after
    /// it (the code of the entry it reaches inside the index, an illegal one read as a draw; the
    /// exit's value outside), and whether it stays inside. Stops when `visit` returns `false`.
    /// `Ok(false)`: the entry is not a legal position.
    pub(super) fn for_each_valued_move(
        &self,
        entry: u64,
        mut visit: impl FnMut(Sq, Verdict, bool) -> bool,
    ) -> Result<bool, FreezeError> {
        let geo = &self.problem.geo;
        let n = self.problem.men.len();
        let (x, index, ep, squares) = self.unpack(entry);
        let Some(pos) = self.position(&squares[..n], x, ep) else {
            return Ok(false);
        };
        let mut going = true;
        let mut failure = None;
        pos.for_each_legal_move(geo, None, |mv| {
            if !going {
                return;
            }
            going = match self.step(&pos, &squares[..n], index, &mv) {
                Ok(Step::Stays(child)) => {
                    let value = Verdict::from_code(self.code_at(1 - x, child as usize));
                    visit(mv.to, value.unwrap_or(Verdict::Draw), true)
                }
                Ok(Step::Exits(value, _)) => visit(mv.to, value, false),
                Err(e) => {
                    failure = Some(e);
                    false
                }
            };
        });
        match failure {
            Some(e) => Err(e),
            None => Ok(true),
        }
    }

    /// The longest win every move of a lost candidate reaches, checked forward.
    pub(super) fn longest_win(&self, entry: u64) -> Result<u32, FreezeError> {
        let mut longest = Some(0);
        let legal = self.for_each_valued_move(entry, |_, value, _| match value {
            Verdict::Win(Some(d)) => {
                longest = longest.map(|l: u32| l.max(d));
                true
            }
            _ => {
                longest = None;
                false
            }
        })?;
        longest.filter(|_| legal).ok_or_else(|| {
            FreezeError::Unsupported(
                "internal: a lost candidate that is not legal or has a move that does not reach a win"
                    .into(),
            )
        })
    }

    pub(super) fn rules(&mut self, observer: &dyn Observer) {
        let size = self.space.entries();
        let mut frontier: Vec<u64> = (0..2usize)
            .flat_map(|x| {
                let this = &*self;
                (0..size)
                    .into_par_iter()
                    .filter_map(move |i| {
                        let cell = &this.wide()[x][i as usize];
                        if cell.load(Ordering::Relaxed) != UNDECIDED {
                            return None;
                        }
                        let f = this.flags[x][i as usize];
                        if f & RULE_WIN_EXIT != 0 {
                            cell.store(RULE_WIN, Ordering::Relaxed);
                        } else if f & DRAW_EXIT == 0
                            && f & OPPONENT_RULE_WIN != 0
                            && this.counts[x][i as usize].load(Ordering::Relaxed) == 0
                        {
                            cell.store(RULE_LOSS, Ordering::Relaxed);
                        } else {
                            return None;
                        }
                        Some(i << 1 | x as u64)
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        observer.phase(self.subject(), Phase::Rules, frontier.len() as u64);
        while !frontier.is_empty() {
            let next: Vec<u64> = frontier
                .par_iter()
                .flat_map_iter(|&entry| {
                    let lost = self.code(entry) == RULE_LOSS;
                    let mut out = Vec::new();
                    self.for_each_parent(entry, |parent, _| {
                        let (y, p) = ((parent & 1) as usize, (parent >> 1) as usize);
                        let cell = &self.wide()[y][p];
                        if cell.load(Ordering::Relaxed) != UNDECIDED {
                            return;
                        }
                        if lost {
                            if cell
                                .compare_exchange(
                                    UNDECIDED,
                                    RULE_WIN,
                                    Ordering::Relaxed,
                                    Ordering::Relaxed,
                                )
                                .is_ok()
                            {
                                out.push(parent);
                            }
                        } else {
                            let left = self.counts[y][p].fetch_sub(1, Ordering::Relaxed) - 1;
                            if left == 0
                                && self.flags[y][p] & DRAW_EXIT == 0
                                && cell
                                    .compare_exchange(
                                        UNDECIDED,
                                        RULE_LOSS,
                                        Ordering::Relaxed,
                                        Ordering::Relaxed,
                                    )
                                    .is_ok()
                            {
                                out.push(parent);
                            }
                        }
                    });
                    out
                })
                .collect();
            observer.progressed(frontier.len() as u64);
            frontier = next;
        }
    }
}
