//! The checker of the fifty-move rule's tables: a DTZ50 table from the natural model, and its
//! WDL50 companion from the DTZ50 table proved.
//!
//! Owns: [`Checker::check_fifty`].
//! Must never: take a definition from anywhere but the kernel: what a zeroing move is and
//! what a zeroing move into each class is worth come from `retro_rules::fifty` (`zeroing`,
//! `exit_outcome`), every move from the natural model's tabulated geometry or `successors`.
//!
//! # What is checked
//!
//! A DTZ50 table stores `Z(p)` for every position `p` of a category: `Win(n)`, `Loss(n)`,
//! `Draw` or *none*, under a rule of `N` plies (its header's; the tables its exits lead into
//! must name the same). A move `m` of `p` to `q` is worth, for the mover, `κ(m)`: if it is not
//! zeroing, `Win(k + 1)` when `Z(q) = Loss(k)`, `Loss(k + 1)` when `Z(q) = Win(k)`, `Draw`
//! when `Z(q) = Draw`; if it is zeroing (`retro_rules::fifty::zeroing`), the kernel's
//! `exit_outcome` of the class of `Z(q)` under the rule (a win within `N` plies, a cursed win
//! beyond, and so on). `q`'s entry is read from this table, or after a capture or a promotion
//! from the table of the category it leads into, checked first. For every legal `p`:
//!
//! * **(P)** `Z(p)` is not *none*, and exactly the legal positions have entries;
//! * **(C)** `Z(p) = Loss(0)` exactly when `p` is checkmate;
//! * **(W)** if `Z(p) = Win(n)`: some move is worth `Win(n)`, none a win in fewer plies;
//! * **(L)** if `Z(p) = Loss(n)`, `n ≥ 1`: `p` has a move, every move is worth a loss in at
//!   most `n` plies, and some exactly `n`;
//! * **(D)** if `Z(p) = Draw`: no move is worth a win, and `p` is stalemate or some move is
//!   worth a draw.
//!
//! # Why that proves the table
//!
//! The true value `T(p)` is the value of `retro_rules::fifty::Zeroing`, the phase game whose
//! zeroing moves exit with the outcome of the class reached: `Win(n)` for the least `n` with
//! `p ∈ won_by n`, `Loss(n)` for the least with `p ∈ lost_by n`, else `Draw`
//! (`retro_game::phases`). A zeroing move reaches a position of a smaller category (a capture,
//! a promotion), already proved, or of this one with its pawns further advanced (a push).
//! Order the positions by how far their pawns have come, most advanced first: a zeroing move
//! of a position reaches one earlier in that order, or of a category proved before; a move
//! that is not zeroing keeps the pawns where they are.
//!
//! **Claim.** `Z = T` on every legal position. By induction along that order, and within a
//! level of it by strong induction on `k`: assume `Z(q) = T(q)` for every `q` a zeroing move
//! of the level reaches, so that each zeroing move's worth `κ(m)` is the outcome `T` gives it;
//! and `Z(p) = Win(j) ⟺ T(p) = Win(j)`, `Z(p) = Loss(j) ⟺ T(p) = Loss(j)` for all `j < k`.
//!
//! * `Z(p) = Win(k) ⇒ T(p) = Win(k)`: by (W) some move is worth `Win(k)` — a zeroing exit with
//!   that outcome, or a stay to `q` with `Z(q) = Loss(k − 1)`, so `T(q) = Loss(k − 1)` — hence
//!   `p ∈ won_by k`; and no move is worth a quicker win, which by the induction at `j < k`
//!   means no exit with a smaller outcome and no stay into `lost_by (k − 2)`: `p ∉ won_by
//!   (k − 1)`.
//! * `T(p) = Win(k) ⇒ Z(p) = Win(k)`: some move is worth `Win(k)` under `T`, hence under `Z`
//!   (an exit's worth is the same; a stay's child has `Z = T = Loss(k − 1)`). So `Z(p)` is no
//!   draw (D) and no loss (L needs every move to be worth a loss); it is `Win(m)`, and `m < k`
//!   would make `T(p) = Win(m)` by the first part, `m > k` contradicts (W).
//! * `Z(p) = Loss(k) ⇒ T(p) = Loss(k)`, `k ≥ 1`: by (L) every move is worth a loss in at most
//!   `k` — an exit so, or a stay to `q` with `Z(q) = Win(j)`, `j ≤ k − 1`, so `T(q) = Win(j)`
//!   — and one exactly `k`: `p ∈ lost_by k` and not `lost_by (k − 1)`. `k = 0` is (C).
//! * `T(p) = Loss(k) ⇒ Z(p) = Loss(k)`: every move is worth a loss in at most `k` under `T`,
//!   one exactly, hence under `Z`; so `Z(p)` is no win (W), no draw (D: stalemate is not, and
//!   no move is worth a draw), a loss, and (L) makes it `Loss(k)`.
//!
//! Draws follow as for depth to mate (crate documentation): a stored draw is no true win or
//! loss, and a true draw is stored as neither, hence as a draw by (P). With `Z = T`, the
//! kernel's theorem (`retro_rules::fifty`) makes the class of every entry its class under the
//! rule: the WDL50 companion is then checked entry by entry to hold exactly the class of the
//! DTZ50 entry beside it.

use crate::children::{Children, Lookup};
use crate::men::Men;
use crate::moves::Step;
use crate::*;
use retro_game::phases::Outcome;
use retro_rules::fifty::{exit_outcome, zeroing, Class};

/// The class, in the kernel's terms, of a DTZ50 entry's class.
fn kernel_class(class: Wdl) -> Option<Class> {
    Some(match class {
        Wdl::Loss => Class::Loss,
        Wdl::BlessedLoss => Class::BlessedLoss,
        Wdl::Draw => Class::Draw,
        Wdl::CursedWin => Class::CursedWin,
        Wdl::Win => Class::Win,
        Wdl::Illegal => return None,
    })
}

/// What a move reaching an entry of code `code` is worth to the mover (`None` if the entry is
/// empty), the move zeroing or not, the rule allowing `rule` plies.
fn worth(code: u32, zeroes: bool, rule: u32) -> Option<Outcome> {
    let child = Dtz::from_code(code);
    if zeroes {
        return Some(exit_outcome(kernel_class(child.class(rule))?, rule));
    }
    Some(match child {
        Dtz::Illegal => return None,
        Dtz::Draw => Outcome::Draw,
        Dtz::Loss(k) => Outcome::Win(k + 1),
        Dtz::Win(k) => Outcome::Loss(k + 1),
    })
}

/// What a position's moves are worth, summarised for the facts.
struct Summary {
    moves: u32,
    in_check: bool,
    /// A move reaches a legal position with no entry.
    valueless_child: bool,
    quickest_win: Option<u32>,
    /// Whether every move is worth a loss, and the longest.
    all_lose: bool,
    longest_loss: u32,
    any_draw: bool,
}

impl Summary {
    fn new(in_check: bool) -> Summary {
        Summary {
            moves: 0,
            in_check,
            valueless_child: false,
            quickest_win: None,
            all_lose: true,
            longest_loss: 0,
            any_draw: false,
        }
    }

    fn add(&mut self, worth: Option<Outcome>) {
        self.moves += 1;
        match worth {
            None => self.valueless_child = true,
            Some(Outcome::Win(n)) => {
                self.quickest_win = Some(self.quickest_win.map_or(n, |w| w.min(n)));
                self.all_lose = false;
            }
            Some(Outcome::Draw) => {
                self.any_draw = true;
                self.all_lose = false;
            }
            Some(Outcome::Loss(n)) => self.longest_loss = self.longest_loss.max(n),
        }
    }

    /// Whether (P), (C), (W), (L) and (D) hold at a position with stored entry `z`.
    fn holds_for(&self, z: Dtz) -> bool {
        if z == Dtz::Illegal || self.valueless_child {
            return false;
        }
        let checkmate = self.moves == 0 && self.in_check;
        let stalemate = self.moves == 0 && !self.in_check;
        if checkmate != (z == Dtz::Loss(0)) {
            return false;
        }
        match z {
            Dtz::Loss(0) => true,
            Dtz::Win(n) => self.quickest_win == Some(n),
            Dtz::Loss(n) => self.moves > 0 && self.all_lose && self.longest_loss == n,
            Dtz::Draw => self.quickest_win.is_none() && (stalemate || self.any_draw),
            Dtz::Illegal => false,
        }
    }
}

/// Whether the move `step` of a man of `listed` zeroes the clock: a capture, a promotion, or
/// any move of a pawn (read through the natural model's definition, `zeroing`, when a
/// position fails).
fn step_zeroes(step: &Step, listed: &[retro_rules::Man]) -> bool {
    step.captured.is_some() || step.promotion.is_some() || listed[step.man].1 == Piece::Pawn
}

impl Checker {
    /// Checks the DTZ50 table of `men` (as stored) from the natural model and its WDL50
    /// companion against it; the DTZ50 tables its captures and promotions lead into must be
    /// checked already. `progress` is called with the number of positions examined.
    pub fn check_fifty(
        &self,
        men: &Men,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Result<Report, VerifyError> {
        let start = Instant::now();
        let stored = self.load_kind(men, TableKind::Dtz50)?;
        let rule = u32::from(stored.table.header().rule_plies);
        let listed = stored.scheme.men().to_vec();
        let exits = self.exit_targets(men, &listed, TableKind::Dtz50)?;
        let mut loaded = vec![(men.clone(), stored.clone())];
        for exit in crate::exits(men) {
            let table = self.load_kind(&exit, TableKind::Dtz50)?;
            let other = table.table.header().rule_plies;
            if u32::from(other) != rule {
                return Err(VerifyError::WrongHeader {
                    path: table.table.path().to_path_buf(),
                    expected: format!("a fifty-move rule of {rule} plies, as {men}'s"),
                    found: format!("a rule of {other} plies"),
                });
            }
            loaded.push((exit, table));
        }
        let lookup = Lookup::new(self.board, loaded);
        let BoardTables { lines, mirror } =
            self.tables.get_or_init(|| BoardTables::new(self.board));
        let children = Children::new(&stored.scheme, &stored.table, &exits, mirror);
        let tally = Tally::default();
        let pairs = Share::WHOLE.pairs(&stored.scheme);
        for_each_canonical(
            &stored.scheme,
            &pairs,
            &tally.legal,
            progress,
            |numbers, legal_here| {
                for_each_legal(
                    &stored.scheme,
                    lines,
                    &listed,
                    &stored.table,
                    numbers,
                    legal_here,
                    |at| {
                        let z = stored.table.dtz(at.side == Side::White, at.entry)?;
                        let mut summary = Summary::new(at.in_check);
                        children.for_each_child(
                            &at.placement,
                            at.index,
                            at.side,
                            |step, code| {
                                summary.add(worth(code, step_zeroes(&step, &listed), rule))
                            },
                        )?;
                        if summary.holds_for(z) {
                            return Ok(());
                        }
                        let p = at.placement.position(at.side);
                        self.recheck_fifty(&lookup, &p, z, rule, &tally.failures)
                    },
                )
            },
        )?;
        let legal = tally.legal.map(|n| n.into_inner());
        entries_are_the_legal_positions(men, &stored, legal, &tally.failures);
        let companion = self.load_kind(men, TableKind::Wdl50)?;
        self.classes_match(men, &stored, &companion, rule, &tally.failures)?;
        Ok(Report {
            men: men.clone(),
            kind: TableKind::Dtz50,
            positions: legal[0] + legal[1],
            failure_count: tally.failures.count(),
            failures: tally.failures.examples(),
            seconds: start.elapsed().as_secs_f64(),
            body_hash: stored.table.body_hash(),
            companion_hash: Some(companion.table.body_hash()),
        })
    }

    /// The WDL50 table `classes` holds, entry by entry, the class of the DTZ50 entry beside it
    /// in `dtz`, under the rule of `rule` plies, which both headers name.
    fn classes_match(
        &self,
        men: &Men,
        dtz: &Stored,
        classes: &Stored,
        rule: u32,
        failures: &Failures,
    ) -> Result<(), VerifyError> {
        let header = classes.table.header();
        if u32::from(header.rule_plies) != rule {
            return Err(VerifyError::WrongHeader {
                path: classes.table.path().to_path_buf(),
                expected: format!("a fifty-move rule of {rule} plies, as the DTZ50 table's"),
                found: format!("a rule of {} plies", header.rule_plies),
            });
        }
        for side in Side::ALL {
            let white = side == Side::White;
            let (distances, wdl) = (dtz.table.codes(white), classes.table.codes(white));
            let wrong: Vec<u64> = (0..dtz.scheme.size())
                .into_par_iter()
                .filter(|&i| {
                    let expected = Dtz::from_code(distances.get(i).unwrap_or(0)).class(rule);
                    wdl.get(i) != Some(expected.code())
                })
                .collect();
            for &i in wrong.iter().take(Report::EXAMPLES) {
                let found = wdl.get(i).unwrap_or(0);
                failures.record(Failure {
                    fen: format!("(entry {i} of the {side}-to-move half of {men}'s WDL50 table)"),
                    stored: Entry::from_code(TableKind::Wdl50, found)
                        .unwrap_or(Entry::Wdl50(Wdl::Illegal)),
                    problem: format!(
                        "the DTZ50 entry beside it is {:?}, of class {:?}",
                        Dtz::from_code(distances.get(i).unwrap_or(0)),
                        Dtz::from_code(distances.get(i).unwrap_or(0)).class(rule)
                    ),
                });
            }
            if wrong.len() > Report::EXAMPLES {
                failures
                    .count
                    .fetch_add((wrong.len() - Report::EXAMPLES) as u64, Ordering::Relaxed);
            }
        }
        Ok(())
    }

    /// A position whose summary fails: the natural model's own moves say which fact, and how.
    fn recheck_fifty(
        &self,
        lookup: &Lookup,
        p: &Position,
        z: Dtz,
        rule: u32,
        failures: &Failures,
    ) -> Result<(), VerifyError> {
        let fail = |problem: String| failures.fail(p, Entry::Dtz50(z), problem);
        if z == Dtz::Illegal {
            fail("a legal position has no value (P)".into());
            return Ok(());
        }
        let moves = successors(p);
        let mut worths = Vec::with_capacity(moves.len());
        for (mv, q) in &moves {
            match worth(lookup.code(q, self)?, zeroing(p, mv), rule) {
                Some(w) => worths.push((mv, w)),
                None => {
                    fail(format!(
                        "the move {mv} leads to a legal position with no value (P)"
                    ));
                    return Ok(());
                }
            }
        }
        let in_check = retro_rules::laws::in_check(retro_rules::position::to_move(p), p);
        let checkmate = moves.is_empty() && in_check;
        if checkmate != (z == Dtz::Loss(0)) {
            fail(format!(
                "checkmate is {checkmate} but the entry is {z:?} (C)"
            ));
            return Ok(());
        }
        let quickest_win = worths
            .iter()
            .filter_map(|(mv, w)| match w {
                Outcome::Win(n) => Some((*n, *mv)),
                _ => None,
            })
            .min();
        let not_loss = worths.iter().find(|(_, w)| !matches!(w, Outcome::Loss(_)));
        let longest_loss = worths
            .iter()
            .filter_map(|(_, w)| match w {
                Outcome::Loss(n) => Some(*n),
                _ => None,
            })
            .max();
        let before = failures.count();
        match z {
            Dtz::Loss(0) | Dtz::Illegal => {}
            Dtz::Win(n) => match quickest_win {
                Some((k, _)) if k == n => {}
                Some((k, mv)) => fail(format!(
                    "a win in {n} plies needs its quickest move to be worth a win in {n}, but {mv} is worth one in {k} (W)"
                )),
                None => fail(format!("a win in {n} plies needs a move worth a win, but none is (W)")),
            },
            Dtz::Loss(n) => match (not_loss, longest_loss) {
                _ if moves.is_empty() => {
                    fail(format!("a loss in {n} plies needs a move, but there is none (L)"))
                }
                (Some((mv, w)), _) => fail(format!(
                    "a loss in {n} plies needs every move to be worth a loss, but {mv} is worth {w:?} (L)"
                )),
                (None, Some(k)) if k != n => fail(format!(
                    "a loss in {n} plies needs its longest move to be worth a loss in {n}, but the longest is worth one in {k} (L)"
                )),
                _ => {}
            },
            Dtz::Draw => {
                if let Some((k, mv)) = quickest_win {
                    fail(format!("a draw cannot have a move worth a win, but {mv} is worth one in {k} (D)"));
                } else if !moves.is_empty() && !worths.iter().any(|(_, w)| *w == Outcome::Draw) {
                    fail("a draw needs stalemate or a move worth a draw, but every move is worth a loss (D)".into());
                }
            }
        }
        if failures.count() == before {
            fail(
                "the tabulated moves and the natural model's moves disagree about this position"
                    .into(),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_engine::Material;
    use retro_gen::{Builder, Metric, Silent};

    /// Builds the fifty-move tables of `name` on `files × ranks` under a rule of `rule` plies.
    fn built(name: &str, files: usize, ranks: usize, rule: u8) -> (tempfile::TempDir, Board) {
        let dir = tempfile::tempdir().unwrap();
        let board = Board::new(files, ranks).unwrap();
        Builder::new(board, dir.path())
            .with_metrics(&[Metric::Fifty])
            .with_fifty_rule(rule)
            .build(&[Material::parse(name).unwrap()], &Silent)
            .unwrap();
        (dir, board)
    }

    fn check_plan(checker: &Checker, name: &str) -> Vec<Report> {
        checker
            .plan(&[name])
            .unwrap()
            .iter()
            .map(|men| checker.check_fifty(men, &|_| {}).unwrap())
            .collect()
    }

    /// The generator's tables pass, with the rule biting (cursed wins on 4×4 under a rule of 4
    /// plies), with pawns of both sides and en passant, and under the real rule.
    #[test]
    fn built_tables_pass() {
        for (name, files, ranks, rule) in [
            ("KRvK", 4, 4, 4),
            ("KQvKR", 3, 4, 4),
            ("KPvKP", 3, 5, 6),
            ("KRvK", 5, 5, 100),
        ] {
            let (dir, board) = built(name, files, ranks, rule);
            let checker = Checker::new(board, dir.path());
            for report in check_plan(&checker, name) {
                assert!(report.passed(), "{name} on {board}: {:?}", report.failures);
                assert_eq!(report.kind, TableKind::Dtz50);
                assert!(report.companion_hash.is_some());
            }
        }
    }

    /// Rewrites entry `i` of White's half of `path`'s body with `code`, the checksums made
    /// right again, so that only the checker can tell.
    fn rewrite_entry(path: &std::path::Path, i: u64, code: u32) {
        let table = Table::open(path).unwrap();
        let header = table.header().clone();
        let mut body = table.body().to_vec();
        drop(table);
        let width = usize::from(header.value_width);
        let at = i as usize * width;
        match width {
            1 => body[at] = code as u8,
            _ => body[at..at + 2].copy_from_slice(&(code as u16).to_le_bytes()),
        }
        retro_format::write_table(path, &header, &body).unwrap();
    }

    /// A wrong distance, a wrong class and a wrong WDL50 entry are each found, at their
    /// position.
    #[test]
    fn wrong_entries_are_found() {
        let (dir, board) = built("KRvK", 4, 4, 4);
        let men = Men::parse("KRvK").unwrap();
        let path = Checker::new(board, dir.path()).kind_path_of(&men, TableKind::Dtz50);
        let table = Table::open(&path).unwrap();
        // The first White-to-move win, and a cursed one.
        let codes = table.codes(true);
        let find = |wanted: &dyn Fn(Dtz) -> bool| {
            (0..table.header().entries_per_side)
                .find(|&i| wanted(Dtz::from_code(codes.get(i).unwrap())))
                .unwrap()
        };
        let win = find(&|z| matches!(z, Dtz::Win(n) if (2..=4).contains(&n)));
        let cursed = find(&|z| matches!(z, Dtz::Win(n) if n > 4));
        let (win_value, cursed_value) = (
            Dtz::from_code(codes.get(win).unwrap()),
            Dtz::from_code(codes.get(cursed).unwrap()),
        );
        drop(table);
        let original = std::fs::read(&path).unwrap();
        for (i, wrong) in [
            (win, Dtz::Win(win_value.plies().unwrap() + 1)),
            (win, Dtz::Draw),
            (cursed, Dtz::Win(3)),
            (cursed, Dtz::Loss(cursed_value.plies().unwrap())),
        ] {
            std::fs::write(&path, &original).unwrap();
            rewrite_entry(&path, i, wrong.code());
            let checker = Checker::new(board, dir.path());
            let report = checker.check_fifty(&men, &|_| {}).unwrap();
            assert!(!report.passed(), "{wrong:?} at {i} passed");
            assert!(
                report
                    .failures
                    .iter()
                    .any(|f| f.stored == Entry::Dtz50(wrong)),
                "{wrong:?}: {:?}",
                report.failures
            );
        }
        // The distances right, one class wrong.
        std::fs::write(&path, &original).unwrap();
        let wdl = Checker::new(board, dir.path()).kind_path_of(&men, TableKind::Wdl50);
        rewrite_entry(&wdl, win, Wdl::CursedWin.code());
        let report = Checker::new(board, dir.path())
            .check_fifty(&men, &|_| {})
            .unwrap();
        assert_eq!(report.failure_count, 1, "{:?}", report.failures);
        assert!(
            report.failures[0].problem.contains("class Win"),
            "{:?}",
            report.failures
        );
    }
}
