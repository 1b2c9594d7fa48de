//! The oracle builder and Oraclefinder (seed `003`, sections 3.1 and 4): grows an oracle from a
//! root — one move at each friend node, every move at each foe node, a position once — choosing
//! among the moves that keep the goal the ones that keep the oracle small.
//!
//! Owns: [`Heuristic`], [`Seam`], [`grow`], [`find_oracle`], [`FindReport`]; the oracle itself
//! is [`Oracle`] ([`crate::graph`]).
//!
//! A friend move keeps the goal when the position it reaches is worth the goal ([`Knowledge`]); for
//! goal *win* it must also reach a win in fewer plies than the position's own, so every path
//! shortens the win and the oracle has no cycle. Among those moves the finder prefers, in an
//! order each [`Heuristic`] sets: a position already in the oracle (a transposition costs no
//! node), one in the best oracle of an earlier round, few friend men on squares they have not
//! used yet, the friend side's last move taken back (the bare king shuttling between two
//! squares), for goal *not lose* the friend king waiting on a 2×2 block on the square of the foe
//! king's colour class, counted one line over beyond a [`Seam`] ([`Heuristic::Parity`]), few
//! positions not yet in the oracle among the foe's replies, the quickest win.
//! [`find_oracle`] grows one oracle per heuristic, then grows them again preferring the best
//! one's positions, while that makes it smaller, then, where the goal graph is small, searches
//! by SAT for the smallest ([`crate::smallest`]), then searches locally.

use crate::graph::{bound, moves_keeping_goal, Choice, Oracle};
use crate::judge::Knowledge;
use crate::smallest::{smallest_oracle, Skipped, SmallestReport};
use crate::OracleBuildError;
use retro_format::oracle::Goal;
use retro_rules::position::to_move;
use retro_rules::{Position, Side, Square};
use rustc_hash::{FxHashMap, FxHashSet};
use std::time::Instant;

/// The order in which the finder weighs what it prefers in a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heuristic {
    /// Reuse, then the quickest win, then few new foe replies, then few new squares.
    Quickest,
    /// Reuse, then few new squares, then few new foe replies, then the quickest win.
    FewSquares,
    /// Reuse, then few new foe replies, then the quickest win, then few new squares.
    FewReplies,
    /// Reuse, then few new squares, then many squares the friend men guard (less room for the
    /// foe), then few new foe replies.
    Guarding,
    /// Reuse, then the friend side's last move taken back (the seed's king going back and forth
    /// on two squares), then few new squares, then few new foe replies.
    Shuttle,
    /// Reuse, then the friend king on the square of the 2×2 block (lower left corner `corner`,
    /// as file and rank numbers) that has the foe king's colour class (files and ranks both an
    /// even distance apart), then the king near the block, then few new foe replies. A waiting
    /// king that always has a move: the foe king's class changes with each of its moves, and the
    /// block holds one square of each class, all adjacent to each other and none adjacent to a
    /// foe king of its class. Beyond a [`Seam`] the class counts one rank (or file) over, which
    /// keeps the foe king's class changing with each move and lets the friend king start in step
    /// from a square next to the block's wrong one. For goal *not lose*, one per block near the
    /// friend king's square and seam.
    Parity {
        /// The block's lower left square: file, rank.
        corner: (u8, u8),
        /// Where the foe king's class is counted one line over.
        seam: Seam,
    },
}

/// A line across the board beyond which [`Heuristic::Parity`] counts the foe king's class one
/// line over: the class of a foe king on file `f ≥ k` (for `File(k)`) is that of the square one
/// rank up, and likewise on rank `r ≥ k` (for `Rank(k)`) of the square one file right. Two
/// adjacent squares on either side of the seam still have different classes (their files, or
/// their ranks, differ in parity), so the waiting king still always has a square to step to;
/// the seam only chooses which block square answers which foe square.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seam {
    /// The plain colour classes everywhere.
    None,
    /// Ranks counted one over on files from this one on.
    File(u8),
    /// Files counted one over on ranks from this one on.
    Rank(u8),
}

impl Seam {
    /// The file and rank offsets (0 or 1) the foe king's class takes on `square`.
    fn offset(self, square: Square) -> (u8, u8) {
        match self {
            Seam::File(k) if square.file >= k => (0, 1),
            Seam::Rank(k) if square.rank >= k => (1, 0),
            _ => (0, 0),
        }
    }
}

impl Heuristic {
    /// All of them but the waiting king's.
    pub const ALL: [Heuristic; 5] = [
        Heuristic::Quickest,
        Heuristic::FewSquares,
        Heuristic::FewReplies,
        Heuristic::Guarding,
        Heuristic::Shuttle,
    ];

    /// The heuristics tried from `root`: [`Heuristic::ALL`], and for goal *not lose*
    /// [`Heuristic::Parity`] on every 2×2 block of the board that holds the friend king's
    /// square or one next to it, with every seam.
    pub fn for_root(root: &Position, friend: Side, goal: Goal) -> Vec<Heuristic> {
        let mut all = Heuristic::ALL.to_vec();
        let king = root
            .men()
            .find(|&(_, man)| man == (friend, retro_rules::Piece::King))
            .map(|(sq, _)| sq);
        if let (Goal::NotLose, Some(king)) = (goal, king) {
            let board = root.board();
            for file in king.file.saturating_sub(2)..=king.file.saturating_add(1) {
                for rank in king.rank.saturating_sub(2)..=king.rank.saturating_add(1) {
                    if file + 1 < board.files() && rank + 1 < board.ranks() {
                        let seams = std::iter::once(Seam::None)
                            .chain((1..board.files()).map(Seam::File))
                            .chain((1..board.ranks()).map(Seam::Rank));
                        all.extend(seams.map(|seam| Heuristic::Parity {
                            corner: (file, rank),
                            seam,
                        }));
                    }
                }
            }
        }
        all
    }

    /// Its name in reports.
    pub fn name(self) -> String {
        match self {
            Heuristic::Quickest => "quickest".into(),
            Heuristic::FewSquares => "few-squares".into(),
            Heuristic::FewReplies => "few-replies".into(),
            Heuristic::Guarding => "guarding".into(),
            Heuristic::Shuttle => "shuttle".into(),
            Heuristic::Parity { corner, seam } => {
                let block = Square::new(corner.0, corner.1);
                match seam {
                    Seam::None => format!("parity-{block}"),
                    Seam::File(k) => format!("parity-{block}-seam-file-{}", char::from(b'a' + k)),
                    Seam::Rank(k) => format!("parity-{block}-seam-rank-{}", k + 1),
                }
            }
        }
    }
}

fn friend_squares(p: &Position, friend: Side) -> impl Iterator<Item = Square> + '_ {
    p.men()
        .filter(move |&(_, (side, _))| side == friend)
        .map(|(sq, _)| sq)
}

/// How far the friend king of `p` stands from the 2×2 block with lower left square `corner`
/// (0 inside it), and whether it stands on the block's square of the foe king's colour class
/// (files and ranks both an even distance apart, counted over `seam`).
fn parity_place(p: &Position, friend: Side, corner: (u8, u8), seam: Seam) -> (u32, bool) {
    let king = |side| {
        p.men()
            .find(|&(_, man)| man == (side, retro_rules::Piece::King))
            .map(|(sq, _)| sq)
    };
    let (Some(own), Some(foe)) = (king(friend), king(retro_rules::opponent(friend))) else {
        return (u32::MAX, false);
    };
    let off = |x: u8, lo: u8| u32::from(lo.saturating_sub(x).max(x.saturating_sub(lo + 1)));
    let distance = off(own.file, corner.0).max(off(own.rank, corner.1));
    let (file_over, rank_over) = seam.offset(foe);
    let same_class =
        (own.file ^ foe.file ^ file_over) & 1 == 0 && (own.rank ^ foe.rank ^ rank_over) & 1 == 0;
    (distance, distance == 0 && same_class)
}

/// How much the finder dislikes a move: five counts compared in the heuristic's order.
type Preference = (u32, u32, u32, u32, u32);

/// The squares of the board no friend man stands on or attacks.
fn open_squares(p: &Position, friend: Side) -> u32 {
    let board = p.board();
    board
        .squares()
        .filter(|&to| {
            !friend_squares(p, friend)
                .any(|from| from == to || retro_rules::laws::attacks(p, from, to))
        })
        .count() as u32
}

/// Grows one oracle from `root` for the judge's friend side and goal: at a friend node the move
/// `fixed` gives it if that keeps the goal, otherwise the one `heuristic` prefers (positions of
/// `prior` before others); gives up past `limit` nodes.
pub fn grow(
    judge: &dyn Knowledge,
    root: &Position,
    heuristic: Heuristic,
    prior: Option<&FxHashSet<Position>>,
    fixed: Option<&FxHashMap<Position, Choice>>,
    limit: usize,
) -> Result<Oracle, OracleBuildError> {
    let friend = judge.friend();
    let goal = judge.goal();
    let out_of_reach = |p: &Position, reason: String| OracleBuildError::GoalOutOfReach {
        side: friend,
        goal: goal.name(),
        fen: p.fen(),
        reason,
    };
    match judge.worth(root)? {
        Some(w) if w.meets(goal) => {}
        Some(w) => {
            return Err(out_of_reach(
                root,
                format!("it is worth {w:?} for {friend}"),
            ))
        }
        None => {
            return Err(OracleBuildError::Unknown {
                fen: root.fen(),
                reason: "no table covers it and the search found no proof within its depth".into(),
            })
        }
    }
    let mut choices: FxHashMap<Position, Choice> = FxHashMap::default();
    let mut used: FxHashSet<Square> = friend_squares(root, friend).collect();
    // Each position to visit with the friend side's last move on the way to it.
    let mut stack: Vec<(Position, Option<(Square, Square)>)> = vec![(root.clone(), None)];
    while let Some((p, last)) = stack.pop() {
        if choices.contains_key(&p) {
            continue;
        }
        if choices.len() >= limit {
            return Err(out_of_reach(
                root,
                format!("the oracle grew past {limit} nodes; raise the limit"),
            ));
        }
        if let Some(w) = judge.leaf(&p)? {
            if !w.meets(goal) {
                return Err(out_of_reach(
                    &p,
                    format!("a foe reply reaches a leaf worth {w:?} for {friend}"),
                ));
            }
            choices.insert(p, Choice::Leaf);
            continue;
        }
        let moves = judge.moves(&p);
        if to_move(&p) != friend {
            choices.insert(p, Choice::All);
            stack.extend(moves.iter().rev().map(|(_, q)| (q.clone(), last)));
            continue;
        }
        let Some(limit_plies) = bound(goal, judge.worth(&p)?) else {
            return Err(out_of_reach(
                &p,
                "a foe reply reaches a position the friend side cannot hold".into(),
            ));
        };
        let candidates = moves_keeping_goal(judge, &moves, limit_plies)?;
        let kept = fixed.and_then(|f| match f.get(&p) {
            Some(Choice::Move(m)) => candidates
                .iter()
                .find(|(i, _)| *i == usize::from(*m))
                .copied(),
            _ => None,
        });
        let mut best: Option<(Preference, usize)> = None;
        for &(i, plies) in kept.as_slice().iter().chain(&candidates) {
            if kept.is_some() && best.is_some() {
                break;
            }
            let q = &moves[i].1;
            let reuse = u32::from(!choices.contains_key(q));
            let earlier = u32::from(!prior.is_some_and(|s| s.contains(q)));
            let squares = friend_squares(q, friend)
                .filter(|sq| !used.contains(sq))
                .count() as u32;
            let replies = if reuse == 0 {
                0
            } else {
                judge
                    .moves(q)
                    .iter()
                    .filter(|(_, r)| !choices.contains_key(r))
                    .count() as u32
            };
            let key = match heuristic {
                Heuristic::Quickest => (reuse, earlier, plies, replies, squares),
                Heuristic::FewSquares => (reuse, earlier, squares, replies, plies),
                Heuristic::FewReplies => (reuse, earlier, replies, plies, squares),
                Heuristic::Guarding => (reuse, earlier, squares, open_squares(q, friend), replies),
                Heuristic::Shuttle => {
                    let mv = moves[i].0;
                    let back = last.is_some_and(|(from, to)| mv.from == to && mv.to == from);
                    (reuse, earlier, u32::from(!back), squares, replies)
                }
                Heuristic::Parity { corner, seam } => {
                    let (distance, placed) = parity_place(q, friend, corner, seam);
                    (reuse, earlier, u32::from(!placed), distance, replies)
                }
            };
            if best.is_none_or(|(k, _)| key < k) {
                best = Some((key, i));
            }
        }
        let Some((_, i)) = best else {
            return Err(out_of_reach(&p, "no move keeps the goal".into()));
        };
        let number = u8::try_from(i).ok().filter(|&n| n < 0x80).ok_or_else(|| {
            OracleBuildError::TooManyMoves {
                fen: p.fen(),
                moves: moves.len(),
            }
        })?;
        let q = moves[i].1.clone();
        used.extend(friend_squares(&q, friend));
        choices.insert(p, Choice::Move(number));
        stack.push((q, Some((moves[i].0.from, moves[i].0.to))));
    }
    Ok(Oracle {
        root: root.clone(),
        friend,
        goal,
        choices,
    })
}

/// How long and how hard the finder works.
#[derive(Debug, Clone, Copy)]
pub struct FindSettings {
    /// Rounds of growing again with the best oracle's positions preferred.
    pub rounds: usize,
    /// The most nodes an oracle may have.
    pub limit: usize,
    /// Seconds of local search after the rounds: each friend node's other moves tried in
    /// turn, the oracle grown again around the change, kept when smaller.
    pub improve_seconds: f64,
    /// Seconds for the exact search ([`crate::smallest`]) after the rounds, before the local
    /// search: oracles ever smaller found by SAT until none is (0: no exact search).
    pub exact_seconds: f64,
    /// The most positions the exact search's goal graph may hold.
    pub exact_positions: usize,
    /// The exact search stops once it has found an oracle of at most this many nodes (0: it
    /// goes on until it proves one the smallest or its time runs out).
    pub exact_enough: usize,
}

impl Default for FindSettings {
    fn default() -> FindSettings {
        FindSettings {
            rounds: 3,
            limit: 5_000_000,
            improve_seconds: 10.0,
            exact_seconds: 60.0,
            exact_positions: 100_000,
            exact_enough: 0,
        }
    }
}

/// What the finder tried and reached.
#[derive(Debug, Clone)]
pub struct FindReport {
    /// Each oracle grown: the round (0 first), the heuristic and its size in nodes.
    pub attempts: Vec<(usize, Heuristic, usize)>,
    /// The size before the local search.
    pub before_search: usize,
    /// Oracles grown by the local search, and how many of them were kept (each smaller).
    pub search_trials: usize,
    /// Changes kept by the local search.
    pub search_kept: usize,
    /// Whether the local search ended because no change helped (else its time ran out).
    pub search_finished: bool,
    /// What the exact search did, or why it did not run (`None`: not asked for).
    pub exact: Option<Result<SmallestReport, Skipped>>,
    /// Seconds taken.
    pub seconds: f64,
}

impl FindReport {
    /// Whether the exact search showed the oracle found the smallest (the local search then
    /// does not run).
    pub fn proved_minimal(&self) -> bool {
        exact_proved_minimal(&self.exact)
    }
}

fn exact_proved_minimal(exact: &Option<Result<SmallestReport, Skipped>>) -> bool {
    matches!(exact, Some(Ok(r)) if r.proved_minimal)
}

/// Oraclefinder: grows an oracle with every heuristic, then again preferring the positions of
/// the smallest so far, for at most `settings.rounds` further rounds or until none is smaller;
/// then, where the goal graph is small enough, searches for smaller ones by SAT for at most
/// `settings.exact_seconds` ([`smallest_oracle`]); then, unless that proved the oracle the
/// smallest, improves it by local search for at most `settings.improve_seconds`.
pub fn find_oracle(
    judge: &dyn Knowledge,
    root: &Position,
    settings: &FindSettings,
) -> Result<(Oracle, FindReport), OracleBuildError> {
    let start = Instant::now();
    let limit = settings.limit;
    let mut attempts = Vec::new();
    let mut best: Option<(Oracle, Heuristic)> = None;
    let heuristics = Heuristic::for_root(root, judge.friend(), judge.goal());
    for round in 0..=settings.rounds {
        let prior: Option<FxHashSet<Position>> = best
            .as_ref()
            .map(|(o, _)| o.choices.keys().cloned().collect());
        let before = best.as_ref().map_or(usize::MAX, |(o, _)| o.len());
        // The waiting king's blocks and seams are many; after the first round only the best of
        // them grows again.
        let this_round: Vec<Heuristic> = match &best {
            None => heuristics.clone(),
            Some((_, best_heuristic)) => heuristics
                .iter()
                .copied()
                .filter(|h| !matches!(h, Heuristic::Parity { .. }) || h == best_heuristic)
                .collect(),
        };
        for &heuristic in &this_round {
            let oracle = grow(judge, root, heuristic, prior.as_ref(), None, limit)?;
            attempts.push((round, heuristic, oracle.len()));
            if best.as_ref().is_none_or(|(b, _)| oracle.len() < b.len()) {
                best = Some((oracle, heuristic));
            }
        }
        if best.as_ref().map_or(usize::MAX, |(o, _)| o.len()) >= before {
            break;
        }
    }
    let (mut oracle, heuristic) = best.expect("at least one oracle grown");
    let mut exact = None;
    if settings.exact_seconds > 0.0 {
        let deadline = Instant::now() + std::time::Duration::from_secs_f64(settings.exact_seconds);
        let searched = smallest_oracle(
            judge,
            &oracle,
            settings.exact_positions,
            settings.exact_enough,
            deadline,
        )?;
        exact = Some(searched.map(|(smallest, report)| {
            oracle = smallest;
            report
        }));
    }
    let proved_minimal = exact_proved_minimal(&exact);
    let before_search = oracle.len();
    let improve_seconds = if proved_minimal {
        0.0
    } else {
        settings.improve_seconds
    };
    let deadline = Instant::now() + std::time::Duration::from_secs_f64(improve_seconds);
    let (mut trials, mut kept, mut finished) = (0, 0, proved_minimal);
    let (mut sweep, mut seed, mut idle) = (0u64, 0x9e37_79b9_7f4a_7c15_u64, 0);
    'search: while Instant::now() < deadline {
        let mut friend_nodes: Vec<(Position, u8)> = oracle
            .choices
            .iter()
            .filter_map(|(p, c)| match c {
                Choice::Move(m) => Some((p.clone(), *m)),
                _ => None,
            })
            .collect();
        friend_nodes.sort();
        // Every other sweep visits the nodes in a shuffled order and accepts changes that keep
        // the size, to leave a plateau.
        sweep += 1;
        let sideways = sweep % 2 == 0;
        if sideways {
            for k in (1..friend_nodes.len()).rev() {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                friend_nodes.swap(k, (seed >> 33) as usize % (k + 1));
            }
        }
        let mut changed = false;
        for (p, current) in friend_nodes {
            let Some(bound) = bound(judge.goal(), judge.worth(&p)?) else {
                continue;
            };
            let moves = judge.moves(&p);
            for (i, _) in moves_keeping_goal(judge, &moves, bound)? {
                if i == usize::from(current) {
                    continue;
                }
                if Instant::now() >= deadline {
                    break 'search;
                }
                let mut fixed = oracle.choices.clone();
                fixed.insert(p.clone(), Choice::Move(i as u8));
                trials += 1;
                let Ok(other) = grow(judge, root, heuristic, None, Some(&fixed), limit) else {
                    continue;
                };
                if other.len() < oracle.len() || (sideways && other.len() == oracle.len()) {
                    if other.len() < oracle.len() {
                        kept += 1;
                        changed = true;
                    }
                    oracle = other;
                    break;
                }
            }
        }
        idle = if changed { 0 } else { idle + 1 };
        if idle >= 16 {
            finished = true;
            break;
        }
    }
    Ok((
        oracle,
        FindReport {
            attempts,
            before_search,
            search_trials: trials,
            search_kept: kept,
            search_finished: finished,
            exact,
            seconds: start.elapsed().as_secs_f64(),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn position(fen: &str) -> Position {
        fen.parse().unwrap()
    }

    /// The waiting king's blocks are those holding the friend king's square or one next to it,
    /// and only for goal not-lose.
    #[test]
    fn parity_blocks_surround_the_friend_king() {
        let corner_king = position("8/8/8/8/8/8/8/K6k w - - 0 1");
        // Every waiting-king heuristic tried: its block and seam.
        let parities = |p: &Position, goal| {
            Heuristic::for_root(p, Side::White, goal)
                .into_iter()
                .filter_map(|h| match h {
                    Heuristic::Parity { corner, seam } => Some((corner, seam)),
                    _ => None,
                })
                .collect::<Vec<_>>()
        };
        let blocks = |p: &Position, goal| {
            parities(p, goal)
                .into_iter()
                .filter(|&(_, seam)| seam == Seam::None)
                .map(|(corner, _)| corner)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            blocks(&corner_king, Goal::NotLose),
            [(0, 0), (0, 1), (1, 0), (1, 1)]
        );
        assert!(blocks(&corner_king, Goal::Win).is_empty());
        let central = position("8/8/8/8/3K4/8/8/7k w - - 0 1");
        assert_eq!(blocks(&central, Goal::NotLose).len(), 16);
        // Each block with no seam and a seam on each of the 7 lines between files and the 7
        // between ranks.
        let seams: Vec<Seam> = parities(&corner_king, Goal::NotLose)
            .into_iter()
            .map(|(_, seam)| seam)
            .collect();
        assert_eq!(seams.len(), 4 * 15);
        assert!(seams.contains(&Seam::File(7)));
        assert!(seams.contains(&Seam::Rank(1)));
    }

    /// The king is placed when it stands in the block on the foe king's colour class.
    #[test]
    fn parity_place_measures_the_block_and_the_class() {
        // White's king on b1, Black's on h1: files 1 and 7, ranks 0 and 0.
        let p = position("8/8/8/8/8/8/8/1K5k b - - 0 1");
        assert_eq!(parity_place(&p, Side::White, (1, 0), Seam::None), (0, true));
        assert_eq!(parity_place(&p, Side::White, (0, 0), Seam::None), (0, true));
        assert_eq!(
            parity_place(&p, Side::White, (3, 2), Seam::None),
            (2, false)
        );
        let other_class = position("8/8/8/8/8/8/8/2K4k b - - 0 1");
        assert_eq!(
            parity_place(&other_class, Side::White, (1, 0), Seam::None),
            (0, false)
        );
        // Beyond a seam on the e-file, Black's h1 king counts as the class of h2: b2's, not
        // b1's.
        let seam = Seam::File(4);
        assert_eq!(parity_place(&p, Side::White, (1, 0), seam), (0, false));
        let b2 = position("8/8/8/8/8/8/1K6/7k b - - 0 1");
        assert_eq!(parity_place(&b2, Side::White, (1, 0), seam), (0, true));
        // Before the seam nothing changes: Black's d1 king has b1's class.
        let d1 = position("8/8/8/8/8/8/8/1K1k4 b - - 0 1");
        assert_eq!(parity_place(&d1, Side::White, (1, 0), seam), (0, true));
    }
}
