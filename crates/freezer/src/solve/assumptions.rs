//! What a result rests on: the rules that fired, counted by outcome, and the assumptions and
//! counts reported.
//!
//! Owns: [`Assumption`], [`RuleRef`], [`Step`], [`SideCounts`]; noting each rule's use as
//! exits are valued, and turning the notes into the assumptions of a result
//! (`Analysis::assumptions`).
//! Must never: change a value.

use super::*;

/// Which rule valued an exit: `Elsewhere(man)`, `Capture(rule)`, `Promotion(rule)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleRef {
    /// A man left its squares.
    Elsewhere(usize),
    /// A capture rule.
    Capture(usize),
    /// A promotion rule.
    Promotion(usize),
}

/// How one move of an index position is valued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// To another index position.
    Stays(u64),
    /// Out of the index: the value for the side to move after it, and what valued it (`None`
    /// for a table look-up).
    Exits(Verdict, Option<(RuleRef, Outcome)>),
}

/// A fixed-value rule that fired, stated as an assumption.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assumption {
    /// The rule, in words, with its line.
    pub text: String,
    /// The value it gave.
    pub outcome: Outcome,
    /// How many exits of the index it valued.
    pub exits: u64,
}

/// Counts over one side to move.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SideCounts {
    /// Positions of the index that are legal.
    pub legal: u64,
    /// Wins with a depth.
    pub wins: u64,
    /// Wins by rule.
    pub rule_wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses by rule.
    pub rule_losses: u64,
    /// Losses with a depth.
    pub losses: u64,
    /// The longest win with a depth (plies) and its index.
    pub longest_win: Option<(u32, u64)>,
    /// The longest loss with a depth (plies) and its index.
    pub longest_loss: Option<(u32, u64)>,
}

impl Analysis<'_> {
    pub(super) fn note(&self, rule: RuleRef, outcome: Outcome) {
        let n = self.problem.men.len();
        let c = self.problem.captures.len();
        let k = match rule {
            RuleRef::Elsewhere(i) => i,
            RuleRef::Capture(j) => n + j,
            RuleRef::Promotion(j) => n + c + j,
        };
        self.hits[k][outcome_index(outcome)].fetch_add(1, Ordering::Relaxed);
    }

    /// Counts and longest values for one side to move.
    pub fn counts(&self, to_move: Side) -> SideCounts {
        let x = x_of(to_move);
        (0..self.space.size())
            .into_par_iter()
            .fold(SideCounts::default, |mut c, i| {
                let code = self.code_at(x, i as usize);
                match Verdict::from_code(code) {
                    None => return c,
                    Some(Verdict::Win(Some(d))) => {
                        c.wins += 1;
                        if c.longest_win.is_none_or(|(l, _)| d > l) {
                            c.longest_win = Some((d, i));
                        }
                    }
                    Some(Verdict::Loss(Some(d))) => {
                        c.losses += 1;
                        if c.longest_loss.is_none_or(|(l, _)| d > l) {
                            c.longest_loss = Some((d, i));
                        }
                    }
                    Some(Verdict::Win(None)) => c.rule_wins += 1,
                    Some(Verdict::Loss(None)) => c.rule_losses += 1,
                    Some(Verdict::Draw) => c.draws += 1,
                }
                c.legal += 1;
                c
            })
            .reduce(SideCounts::default, |a, b| {
                let longer = |p: Option<(u32, u64)>, q: Option<(u32, u64)>| match (p, q) {
                    (Some(p), Some(q)) => Some(if q.0 > p.0 || (q.0 == p.0 && q.1 < p.1) {
                        q
                    } else {
                        p
                    }),
                    (p, q) => p.or(q),
                };
                SideCounts {
                    legal: a.legal + b.legal,
                    wins: a.wins + b.wins,
                    rule_wins: a.rule_wins + b.rule_wins,
                    draws: a.draws + b.draws,
                    rule_losses: a.rule_losses + b.rule_losses,
                    losses: a.losses + b.losses,
                    longest_win: longer(a.longest_win, b.longest_win),
                    longest_loss: longer(a.longest_loss, b.longest_loss),
                }
            })
    }

    /// The fixed-value rules that valued at least one exit, each with the value it gave.
    pub fn assumptions(&self) -> Vec<Assumption> {
        let p = self.problem;
        let geo = &p.geo;
        let n = p.men.len();
        let c = p.captures.len();
        let mut out = Vec::new();
        for (k, hits) in self.hits.iter().enumerate() {
            for o in [Outcome::WhiteWins, Outcome::Draw, Outcome::BlackWins] {
                let exits = hits[outcome_index(o)].load(Ordering::Relaxed);
                if exits == 0 {
                    continue;
                }
                let text = if k < n {
                    let m = &p.men[k];
                    let squares = if m.allowed.len() == 1 {
                        format!(
                            "never leaves {}",
                            crate::problem::square_name(geo, m.allowed[0])
                        )
                    } else {
                        format!("keeps to its {} squares", m.allowed.len())
                    };
                    format!(
                        "line {}: {} {squares} — {} if it does not",
                        m.line,
                        p.man_name(k),
                        o.word()
                    )
                } else if k < n + c {
                    let r = &p.captures[k - n];
                    let what = r.victim.map_or("a man".to_string(), |(s, pc)| {
                        format!(
                            "the {} {}",
                            if s == Side::White { "white" } else { "black" },
                            pc.name()
                        )
                    });
                    format!("line {}: taking {what} counts as {}", r.line, o.word())
                } else {
                    let r = &p.promotions[k - n - c];
                    format!("line {}: a promotion counts as {}", r.line, o.word())
                };
                out.push(Assumption {
                    text,
                    outcome: o,
                    exits,
                });
            }
        }
        out
    }
}
