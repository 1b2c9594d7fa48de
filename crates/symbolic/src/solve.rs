//! Hurd's fixpoint (sections 2.1 and 3.2) on BDDs: White's winning sets of each category,
//! smallest first, depth by depth:
//!
//! - `win2_by 0 = W`: Black to move, checkmated;
//! - `win1_by n` = White to move and legal, with a simple move into `win2_by n` (one fused
//!   and-exists over the next-state variables) or a capture into `win2_by n` of the smaller
//!   category;
//! - `win2_by (n+1)` = `win2_by n` ∪ (Black to move, legal, not terminal, every simple move
//!   into `win1_by n` (one fused for-all) and every capture into `win1_by n` of the smaller
//!   category).
//!
//! A category is finished when its sets stop changing *and* `n` has reached the longest depth
//! of every category its captures reach — before that a capture may still lead to a longer win
//! (KQR_K settles after 6 moves while KR_K needs 16).
//!
//! Owns: [`Solver`], [`Solution`], [`Product`].

use crate::category::Category;
use crate::engine::{Bdd, Engine, Result};
use oxidd::BooleanFunction;
use retro_rules::{Piece, Side};
use std::collections::HashMap;
use std::time::Instant;

/// How relational products are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Product {
    /// Fused and-exists / implies-forall.
    Fused,
    /// Conjunction (implication), then quantification.
    Unfused,
}

/// White's winning sets of one category.
#[derive(Clone)]
pub struct Solution {
    /// The category.
    pub category: Category,
    /// Legal positions, White to move.
    pub legal_wtm: Bdd,
    /// Legal positions, Black to move.
    pub legal_btm: Bdd,
    /// `win1_by n` for n = 0, 1, …, last (constant afterwards).
    pub win1: Vec<Bdd>,
    /// `win2_by n` for n = 0, 1, …, last (constant afterwards).
    pub win2: Vec<Bdd>,
    /// Seconds spent on this category.
    pub seconds: f64,
}

impl Solution {
    /// `win1_by n` (the last set for larger n).
    pub fn win1_by(&self, n: usize) -> &Bdd {
        &self.win1[n.min(self.win1.len() - 1)]
    }

    /// `win2_by n`.
    pub fn win2_by(&self, n: usize) -> &Bdd {
        &self.win2[n.min(self.win2.len() - 1)]
    }

    /// The depth after which nothing changes: the largest n whose `win1_by n` or `win2_by n`
    /// adds positions.
    pub fn settled_at(&self) -> usize {
        self.win1.len().max(self.win2.len()) - 1
    }
}

/// Builds solutions for categories, smallest first, sharing one BDD engine.
pub struct Solver {
    engine: Engine,
    product: Product,
    solutions: HashMap<Category, Solution>,
}

impl Solver {
    /// A solver on `engine`.
    pub fn new(engine: Engine, product: Product) -> Solver {
        Solver {
            engine,
            product,
            solutions: HashMap::new(),
        }
    }

    /// The engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The solution of `category`, solving it and every smaller category its captures reach.
    pub fn solve(&mut self, category: &Category) -> Result<&Solution> {
        for c in category.closure() {
            if !self.solutions.contains_key(&c) {
                let s = self.solve_one(&c)?;
                self.solutions.insert(c, s);
            }
        }
        Ok(&self.solutions[category])
    }

    fn exists(&self, r: &Bdd, s: &Bdd, cube: &Bdd) -> Result<Bdd> {
        match self.product {
            Product::Fused => self.engine.and_exists(r, s, cube),
            Product::Unfused => self.engine.and_then_exists(r, s, cube),
        }
    }

    fn forall(&self, r: &Bdd, s: &Bdd, cube: &Bdd) -> Result<Bdd> {
        match self.product {
            Product::Fused => self.engine.imp_forall(r, s, cube),
            Product::Unfused => self.engine.imp_then_forall(r, s, cube),
        }
    }

    fn solve_one(&mut self, c: &Category) -> Result<Solution> {
        let start = Instant::now();
        let n = c.len();
        let e = &mut self.engine;
        let legal_wtm = e.legal(c, Side::White, false)?;
        let legal_btm = e.legal(c, Side::Black, false)?;
        let black_in_check = e.in_check(c, Side::Black, false)?;
        // Each side's steps, man by man, with the cube of that man's next square.
        let mut white_steps = Vec::new();
        let mut black_steps = Vec::new();
        for i in 0..n {
            let step = e.step(c, i)?;
            let cube = e.man_next_cube(i)?;
            if c.men()[i].0 == Side::White {
                white_steps.push((i, step, cube));
            } else {
                black_steps.push((i, step, cube));
            }
        }
        // Captures: (capturer, victim, the capturer attacks the victim, smaller category).
        let mut white_captures = Vec::new();
        let mut black_captures = Vec::new();
        for i in 0..n {
            for j in 0..n {
                let (si, sj) = (c.men()[i].0, c.men()[j].0);
                if si == sj || c.men()[j].1 == Piece::King {
                    continue;
                }
                let attack = e.capture(c, i, j)?;
                let (smaller, _) = c.without(j);
                if si == Side::White {
                    white_captures.push((i, j, attack, smaller));
                } else {
                    black_captures.push((i, j, attack, smaller));
                }
            }
        }
        let e = &self.engine;
        // Black's legal captures: the position reached is legal with White to move.
        let mut black_legal_captures = Vec::new();
        for (i, j, attack, smaller) in &black_captures {
            let after = e.after_capture(&self.solutions[smaller].legal_wtm, c, *i, *j)?;
            black_legal_captures.push((*i, *j, e.and(attack, &after)?, smaller.clone()));
        }
        // Black can move: a step to a legal position (White to move), or a legal capture.
        let mut black_can_move = e.constant(false);
        for (i, step, cube) in &black_steps {
            let target = e.moved(&legal_wtm, *i)?;
            black_can_move = e.or(&black_can_move, &self.exists(step, &target, cube)?)?;
        }
        for (_, _, cap, _) in &black_legal_captures {
            black_can_move = e.or(&black_can_move, cap)?;
        }
        let black_can_move = e.and(&black_can_move, &legal_btm)?;
        let mated = e.and(
            &e.and(&black_in_check, &legal_btm)?,
            &e.not(&black_can_move)?,
        )?;
        let illegal_wtm = e.not(&legal_wtm)?;
        let longest_below = c
            .closure()
            .iter()
            .filter(|s| *s != c)
            .map(|s| self.solutions[s].settled_at())
            .max()
            .unwrap_or(0);
        let mut win2 = vec![mated];
        let mut win1: Vec<Bdd> = Vec::new();
        let mut depth = 0usize;
        loop {
            let e = &self.engine;
            // win1_by depth: a step or a capture into win2_by depth. (win2 sets hold only legal
            // positions, so the position reached is legal.)
            let mut w1 = e.constant(false);
            for (i, step, cube) in &white_steps {
                let target = e.moved(&win2[depth], *i)?;
                w1 = e.or(&w1, &self.exists(step, &target, cube)?)?;
            }
            for (i, j, attack, smaller) in &white_captures {
                let into = e.after_capture(self.solutions[smaller].win2_by(depth), c, *i, *j)?;
                w1 = e.or(&w1, &e.and(attack, &into)?)?;
            }
            win1.push(e.and(&w1, &legal_wtm)?);
            // win2_by (depth + 1): every step to a legal position and every legal capture lead
            // into win1_by depth.
            let safe = e.or(&win1[depth], &illegal_wtm)?;
            let mut forced = e.constant(true);
            for (i, step, cube) in &black_steps {
                let target = e.moved(&safe, *i)?;
                forced = e.and(&forced, &self.forall(step, &target, cube)?)?;
            }
            for (i, j, cap, smaller) in &black_legal_captures {
                let into = e.after_capture(self.solutions[smaller].win1_by(depth), c, *i, *j)?;
                forced = e.and(&forced, &e.ok(cap.imp(&into))?)?;
            }
            let grown = e.and(&forced, &black_can_move)?;
            win2.push(e.or(&win2[depth], &grown)?);
            depth += 1;
            self.engine.collect_garbage();
            let changed = win2[depth] != win2[depth - 1]
                || (depth >= 2 && win1[depth - 1] != win1[depth - 2]);
            if !changed && depth > longest_below {
                break;
            }
        }
        while win1.len() > 1 && win1[win1.len() - 1] == win1[win1.len() - 2] {
            win1.pop();
        }
        while win2.len() > 1 && win2[win2.len() - 1] == win2[win2.len() - 2] {
            win2.pop();
        }
        self.engine.collect_garbage();
        Ok(Solution {
            category: c.clone(),
            legal_wtm,
            legal_btm,
            win1,
            win2,
            seconds: start.elapsed().as_secs_f64(),
        })
    }

    /// The solution of an already solved category.
    pub fn solution(&self, category: &Category) -> Option<&Solution> {
        self.solutions.get(category)
    }
}

/// One category's figures: what Table 1 reports, per side to move, and per-depth counts.
#[derive(Debug, Clone)]
pub struct Figures {
    /// Hurd's name.
    pub name: String,
    /// Legal positions, White to move.
    pub wtm_legal: u128,
    /// White wins, White to move.
    pub wtm_win: u128,
    /// Most moves White needs with White to move (`win1_by n` reported as n + 1).
    pub wtm_max: Option<usize>,
    /// Legal positions, Black to move.
    pub btm_legal: u128,
    /// White wins, Black to move.
    pub btm_win: u128,
    /// Most moves with Black to move (`win2_by n` reported as n).
    pub btm_max: Option<usize>,
    /// New positions in `win1_by n`, by n.
    pub wtm_by_depth: Vec<u128>,
    /// New positions in `win2_by n`, by n.
    pub btm_by_depth: Vec<u128>,
    /// BDD nodes of the final White-to-move winning set and of the legal set.
    pub wtm_nodes: (usize, usize),
    /// BDD nodes of the final Black-to-move winning set and of the legal set.
    pub btm_nodes: (usize, usize),
}

fn by_depth(engine: &Engine, sets: &[Bdd], men: usize) -> Vec<u128> {
    let mut out = Vec::new();
    let mut before = 0u128;
    for s in sets {
        let now = engine.count(s, men);
        out.push(now - before);
        before = now;
    }
    out
}

impl Solver {
    /// The figures of a solved category.
    pub fn figures(&self, category: &Category) -> Option<Figures> {
        let s = self.solutions.get(category)?;
        let e = &self.engine;
        let men = category.len();
        let wtm_by_depth = by_depth(e, &s.win1, men);
        let btm_by_depth = by_depth(e, &s.win2, men);
        let last_new = |v: &[u128]| v.iter().rposition(|&x| x > 0);
        let final1 = s.win1.last().expect("win1_by 0");
        let final2 = s.win2.last().expect("win2_by 0");
        Some(Figures {
            name: category.to_string(),
            wtm_legal: e.count(&s.legal_wtm, men),
            wtm_win: e.count(final1, men),
            wtm_max: last_new(&wtm_by_depth).map(|n| n + 1),
            btm_legal: e.count(&s.legal_btm, men),
            btm_win: e.count(final2, men),
            btm_max: last_new(&btm_by_depth),
            wtm_by_depth,
            btm_by_depth,
            wtm_nodes: (e.nodes(final1), e.nodes(&s.legal_wtm)),
            btm_nodes: (e.nodes(final2), e.nodes(&s.legal_btm)),
        })
    }
}
