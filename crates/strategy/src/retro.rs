//! Retrograde verification of the strategy (section 4.1): every legal KRK position with White to
//! move and the rook on the board is strategy-winning — White, following the strategy, mates
//! against any defence — and the set of those positions is closed under a strategy move
//! followed by any Black move.
//!
//! Owns: [`verify`], [`Mode`], [`Outcome`].
//!
//! Instead of the paper's breadth-first layers, a depth-first search with memoisation computes
//! for each position `p` the length of the longest strategy game from it: 1 ply if the strategy
//! mates at once, else 2 plies plus the longest over Black's replies (over every allowed move
//! too, for the relation). A position fails — is not strategy-winning — if the strategy has no
//! move, if its move stalemates, if Black can then take the rook (leaving the set), if a reply
//! fails, or if play can return to a position already on the search path (a cycle: play would go
//! on for ever). This is the inductive definition of strategy-winning positions.
//!
//! One position per orbit of the board's eight symmetries is searched. The strategy's
//! conditions use only distances, lines, edges and diagonality, all preserved by the
//! symmetries, so the relation commutes with them; the function computes its move on the
//! canonical image `c` of `p` and maps it back by some `g` with `g·c = p`; Black's moves commute
//! too. By induction on the game length, every position of an orbit has the same kind, the same
//! longest game and the same fate: the move played from `g·c` is `g` applied to the move from
//! `c`, whose replies lead to orbits already accounted for. Counts are weighted by orbit size,
//! `8 / |stabilizer|`, to count positions. [`verify_every_placement`] skips the reduction, and
//! `tests/figures.rs` checks that both give the same counts and lengths on 4×4 to 8×8.
//!
//! Memory: two bytes per placement (`n⁶`), allocated zeroed and touched only at canonical
//! positions and their successors; time grows as `n⁶` too (about 4 minutes at n = 32, one core).

use crate::krk::{Krk, Sq};
use crate::strategy::{Kind, Strategy};
use std::collections::BTreeMap;
use std::time::Instant;

/// Which form of the strategy to verify.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The deterministic function: one move per position.
    Function,
    /// The relation: every allowed move must win.
    Relation,
}

/// What verification found on one board.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// The board side.
    pub n: u8,
    /// Legal positions with White to move and the rook on the board.
    pub positions: u64,
    /// Positions where no strategy move applies.
    pub undefined: u64,
    /// Positions that are not strategy-winning (including those undefined).
    pub not_winning: u64,
    /// Positions by the kind of move the strategy plays there.
    pub kinds: BTreeMap<Kind, u64>,
    /// The longest strategy game, in plies.
    pub longest_plies: u32,
    /// A position of the longest game.
    pub longest_example: String,
    /// Positions by the length of their longest strategy game, in plies.
    pub lengths: BTreeMap<u32, u64>,
    /// A few failing positions, with why.
    pub failures: Vec<String>,
    /// Seconds taken.
    pub seconds: f64,
}

impl Outcome {
    /// Whether every position is strategy-winning.
    pub fn passed(&self) -> bool {
        self.not_winning == 0 && self.undefined == 0 && self.positions > 0
    }
}

const UNSEEN: u16 = 0;
const ON_PATH: u16 = u16::MAX;
const FAILED: u16 = u16::MAX - 1;

fn index(p: &Krk) -> usize {
    let n = usize::from(p.n);
    let num = |s: Sq| usize::from(s.y) * n + usize::from(s.x);
    let squares = n * n;
    (num(p.bk) * squares + num(p.wk)) * squares + num(p.wr.expect("the rook is on the board"))
}

struct Search<'a> {
    strategy: &'a Strategy,
    mode: Mode,
    /// Per canonical position: 0 unseen, plies + 1 once known, `FAILED`, or `ON_PATH`.
    state: Vec<u16>,
    outcome: Outcome,
    /// Whether only canonical positions are searched.
    reduce: bool,
}

/// What a position leads to: its kind and its children (canonical), or why it fails.
enum Step {
    Mates(Kind),
    Continues(Kind, Vec<Krk>),
    Fails(Option<Kind>, String),
}

impl Search<'_> {
    fn weight(&self, p: &Krk) -> u64 {
        if self.reduce {
            u64::from(8 / p.stabilizer())
        } else {
            1
        }
    }

    fn step(&self, p: &Krk) -> Step {
        let choices = match self.mode {
            Mode::Function => (if self.reduce {
                self.strategy.function_on_canonical(p)
            } else {
                self.strategy.function(p)
            })
            .map(|c| (c.kind, vec![c])),
            Mode::Relation => self.strategy.relation(p),
        };
        let Some((kind, choices)) = choices else {
            return Step::Fails(None, "no strategy move applies".into());
        };
        let mut children = Vec::new();
        let mut all_mate = true;
        for c in &choices {
            let replies = c.after.black_moves();
            if replies.is_empty() {
                if !c.after.black_in_check() {
                    return Step::Fails(Some(kind), format!("{kind} {} stalemates", c.mv.name()));
                }
                continue;
            }
            all_mate = false;
            for (reply, q) in replies {
                if q.wr.is_none() {
                    return Step::Fails(
                        Some(kind),
                        format!(
                            "after {kind} {}, Black takes the rook with {}",
                            c.mv.name(),
                            reply.name()
                        ),
                    );
                }
                children.push(if self.reduce { q.canonical().0 } else { q });
            }
        }
        if all_mate {
            Step::Mates(kind)
        } else {
            children.sort_by_key(index);
            children.dedup();
            Step::Continues(kind, children)
        }
    }

    /// Computes the longest game from canonical `root` and everything below it.
    fn solve(&mut self, root: Krk) {
        if self.state[index(&root)] != UNSEEN {
            return;
        }
        let mut stack: Vec<Frame> = Vec::new();
        let mut pending = Some(root);
        loop {
            if let Some(p) = pending.take() {
                let at = index(&p);
                let weight = self.weight(&p);
                match self.step(&p) {
                    Step::Mates(kind) => {
                        *self.outcome.kinds.entry(kind).or_default() += weight;
                        self.finish(&p, Some(1));
                        if let Some(parent) = stack.last_mut() {
                            parent.longest = parent.longest.max(1);
                        }
                    }
                    Step::Fails(kind, why) => {
                        match kind {
                            Some(kind) => *self.outcome.kinds.entry(kind).or_default() += weight,
                            None => self.outcome.undefined += weight,
                        }
                        self.fail(&p, why);
                        self.fail_path(&mut stack);
                    }
                    Step::Continues(kind, children) => {
                        *self.outcome.kinds.entry(kind).or_default() += weight;
                        self.state[at] = ON_PATH;
                        stack.push(Frame {
                            p,
                            children,
                            next: 0,
                            longest: 0,
                        });
                    }
                }
            }
            let Some(frame) = stack.last_mut() else { break };
            if frame.next < frame.children.len() {
                let child = frame.children[frame.next];
                frame.next += 1;
                match self.state[index(&child)] {
                    UNSEEN => pending = Some(child),
                    ON_PATH => {
                        let p = frame.p;
                        stack.pop();
                        self.fail(&p, format!("play can return to {} (a cycle)", child.fen()));
                        self.fail_path(&mut stack);
                    }
                    FAILED => {
                        let p = frame.p;
                        stack.pop();
                        self.fail(
                            &p,
                            format!("a reply reaches the failing position {}", child.fen()),
                        );
                        self.fail_path(&mut stack);
                    }
                    known => frame.longest = frame.longest.max(u32::from(known - 1)),
                }
            } else {
                let frame = stack.pop().expect("a frame");
                self.finish(&frame.p, Some(frame.longest + 2));
                if let Some(parent) = stack.last_mut() {
                    parent.longest = parent.longest.max(frame.longest + 2);
                }
            }
        }
    }

    /// Everything on the search path fails with the failed child.
    fn fail_path(&mut self, stack: &mut Vec<Frame>) {
        while let Some(frame) = stack.pop() {
            self.fail(&frame.p, "a reply leads to a failing position".into());
        }
    }

    fn finish(&mut self, p: &Krk, plies: Option<u32>) {
        let plies = plies.expect("a length");
        let weight = self.weight(p);
        self.state[index(p)] = u16::try_from(plies + 1).expect("games shorter than 65534 plies");
        *self.outcome.lengths.entry(plies).or_default() += weight;
        if plies > self.outcome.longest_plies {
            self.outcome.longest_plies = plies;
            self.outcome.longest_example = p.fen();
        }
    }

    fn fail(&mut self, p: &Krk, why: String) {
        let weight = self.weight(p);
        self.state[index(p)] = FAILED;
        self.outcome.not_winning += weight;
        if self.outcome.failures.len() < 20 {
            self.outcome.failures.push(format!("{}: {why}", p.fen()));
        }
    }
}

/// A position on the search path and the replies still to look at.
struct Frame {
    p: Krk,
    children: Vec<Krk>,
    next: usize,
    longest: u32,
}

/// Verifies the strategy on the n×n board, one position per symmetry orbit (4 ≤ n ≤ 40: the
/// search keeps 2 bytes per placement, `n⁶`, 2 GiB at n = 32).
pub fn verify(n: u8, strategy: &Strategy, mode: Mode) -> Outcome {
    verify_with(n, strategy, mode, true)
}

/// Verifies the strategy on every placement, without the symmetry reduction: slower by about
/// eight, and the check that the reduction loses nothing (`tests/figures.rs` compares the two).
pub fn verify_every_placement(n: u8, strategy: &Strategy, mode: Mode) -> Outcome {
    verify_with(n, strategy, mode, false)
}

fn verify_with(n: u8, strategy: &Strategy, mode: Mode, reduce: bool) -> Outcome {
    let start = Instant::now();
    let squares = usize::from(n) * usize::from(n);
    let mut search = Search {
        strategy,
        mode,
        state: vec![UNSEEN; squares * squares * squares],
        outcome: Outcome {
            n,
            ..Outcome::default()
        },
        reduce,
    };
    for p in legal_white_to_move(n) {
        if search.reduce && p.canonical().0 != p {
            continue;
        }
        search.outcome.positions += search.weight(&p);
        search.solve(p);
    }
    search.outcome.seconds = start.elapsed().as_secs_f64();
    search.outcome
}

/// Every legal KRK position of the n×n board with White to move and the rook on the board, by
/// black king, white king, rook square.
pub fn legal_white_to_move(n: u8) -> impl Iterator<Item = Krk> {
    all_squares(n).flat_map(move |bk| {
        all_squares(n).flat_map(move |wk| {
            all_squares(n)
                .map(move |wr| Krk {
                    n,
                    wk,
                    wr: Some(wr),
                    bk,
                    white_to_move: true,
                })
                .filter(Krk::is_legal)
        })
    })
}

/// Every square of the n×n board.
pub fn all_squares(n: u8) -> impl Iterator<Item = Sq> {
    (0..n).flat_map(move |y| (0..n).map(move |x| Sq::new(x, y)))
}
