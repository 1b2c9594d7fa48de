//! A Freezer result as an oracle (seed `003`): a certificate the kernel's oracle checker confirms
//! without trusting the Freezer.
//!
//! Owns: [`export_oracle`], [`FreezerKnowledge`], [`ExportError`].
//!
//! The oracle plays for the winner (a win with a depth) or for the side to move (a draw): its
//! friend moves are the analysis's, and every foe move must reach a position of the index whose
//! value keeps the goal, a mate or stalemate, or a position of another material whose table is
//! certified. A result that rests on a fixed rule (a win by rule, or a draw that needs a man to
//! stay on its squares) has a foe move that reaches none of these, and is refused at that
//! position: it is not a proof.

use crate::problem::FreezerPosition;
use crate::solve::{Analysis, Verdict};
use retro_format::oracle::{Goal, OracleFile};
use retro_oracle::finder::{find_oracle, FindReport, FindSettings};
use retro_oracle::{reminder, Judge, Knowledge, Moves, OracleBuildError, Worth};
use retro_rules::position::to_move;
use retro_rules::{Position, Side};
use std::path::Path;
use std::rc::Rc;

/// Why a Freezer result cannot be exported.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The result is no proof.
    #[error("{0}")]
    NotAProof(String),
    /// Building the oracle failed.
    #[error(transparent)]
    Build(#[from] OracleBuildError),
}

/// What the Freezer's analysis tells the oracle builder: the values of its index, and (through
/// a [`Judge`] without search) mates, stalemates and certified tables for what leaves it.
pub struct FreezerKnowledge<'a> {
    analysis: &'a Analysis<'a>,
    base: Judge,
}

impl<'a> FreezerKnowledge<'a> {
    /// The knowledge of `analysis` for `friend` reaching `goal` from `root`, with certified
    /// tables in `dir`.
    pub fn new(
        analysis: &'a Analysis<'a>,
        friend: Side,
        goal: Goal,
        root: &Position,
        dir: &Path,
    ) -> FreezerKnowledge<'a> {
        FreezerKnowledge {
            analysis,
            base: Judge::new(friend, goal, root, Some(dir), 0),
        }
    }

    fn index_value(&self, p: &Position) -> Option<Verdict> {
        let geo = &self.analysis.problem().geo;
        let fast = FreezerPosition::from_natural(geo, p).ok()?;
        let index = self.analysis.index_of(&fast)?;
        self.analysis.verdict(to_move(p), index)
    }
}

impl Knowledge for FreezerKnowledge<'_> {
    fn friend(&self) -> Side {
        self.base.friend()
    }
    fn goal(&self) -> Goal {
        self.base.goal()
    }
    fn moves(&self, p: &Position) -> Rc<Moves> {
        self.base.moves(p)
    }
    fn leaf(&self, p: &Position) -> Result<Option<Worth>, OracleBuildError> {
        self.base.leaf(p)
    }
    fn worth(&self, p: &Position) -> Result<Option<Worth>, OracleBuildError> {
        if let Some(w) = self.base.leaf(p)? {
            return Ok(Some(w));
        }
        let mover_is_friend = to_move(p) == self.friend();
        Ok(match self.index_value(p) {
            Some(Verdict::Win(Some(d))) if mover_is_friend => Some(Worth::Win(d)),
            Some(Verdict::Loss(Some(d))) if !mover_is_friend => Some(Worth::Win(d)),
            Some(Verdict::Win(Some(_))) | Some(Verdict::Loss(Some(_))) => Some(Worth::Loss),
            Some(Verdict::Draw) => Some(Worth::Draw),
            // A value by rule, or a position off the index: nothing exact is known.
            Some(Verdict::Win(None) | Verdict::Loss(None)) | None => None,
        })
    }
    fn used_tables(&self) -> Vec<(String, [u8; 32])> {
        self.base.used_tables()
    }
}

/// The oracle of the analysis's start position: a win oracle for the winner of a value with a
/// depth, a not-lose oracle for the side to move of a draw. Leaves read certified tables in
/// `dir`. Fails, naming the position, where the result rests on a fixed rule.
pub fn export_oracle(
    analysis: &Analysis<'_>,
    dir: &Path,
    settings: &FindSettings,
) -> Result<(OracleFile, FindReport), ExportError> {
    let problem = analysis.problem();
    let start = problem.start;
    let index = analysis
        .index_of(&start)
        .expect("the start position is in its index");
    let stm = start.side_to_move();
    let (friend, goal) = match analysis.verdict(stm, index) {
        Some(Verdict::Win(Some(_))) => (stm, Goal::Win),
        Some(Verdict::Loss(Some(_))) => (retro_rules::opponent(stm), Goal::Win),
        Some(Verdict::Draw) => (stm, Goal::NotLose),
        Some(v) => {
            return Err(ExportError::NotAProof(format!(
                "the start position's value is a {} — it rests on a fixed rule, so it is no proof to certify",
                v.describe()
            )))
        }
        None => return Err(ExportError::NotAProof("the start position is illegal".into())),
    };
    let root = start.to_natural(&problem.geo);
    let knowledge = FreezerKnowledge::new(analysis, friend, goal, &root, dir);
    let (oracle, report) = find_oracle(&knowledge, &root, settings).map_err(|e| match e {
        OracleBuildError::GoalOutOfReach { fen, reason, .. } => ExportError::NotAProof(format!(
            "at {fen}: {reason} — the result rests on an assumption there (a fixed rule, or a table that is not certified)"
        )),
        other => ExportError::Build(other),
    })?;
    Ok((reminder::to_file(&oracle, &knowledge.used_tables()), report))
}
