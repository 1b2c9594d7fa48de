//! What the builder knows about a position: whether it is a leaf, and what it is worth for the
//! friend side — from mate and stalemate, from certified tables (leaves), from the table of the
//! root's own material (a guide, never a leaf), from the bare kings' draw, or from a bounded
//! AND/OR search whose leaves are the former.
//!
//! Owns: [`Knowledge`] (what any source of values tells the builder), [`Judge`] (the tables'
//! and the search's knowledge), [`Worth`].

use crate::OracleBuildError;
use retro_format::oracle::Goal;
use retro_format::Value;
use retro_rules::laws::{chess_legal, game_over, in_check};
use retro_rules::position::to_move;
use retro_rules::{Board, Position, Side};
use retro_tablebase::Tablebase;
use retro_verify::certificate::established;
use retro_verify::men::Men;
use retro_verify::oracle::ordered_moves;
use retro_verify::{stored, Checker};
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::path::Path;
use std::rc::Rc;

/// A position's worth for the friend side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Worth {
    /// The friend side wins within this many plies.
    Win(u32),
    /// Neither side wins.
    Draw,
    /// The friend side loses.
    Loss,
}

impl Worth {
    /// Whether the worth meets the goal.
    pub fn meets(self, goal: Goal) -> bool {
        match goal {
            Goal::Win => matches!(self, Worth::Win(_)),
            Goal::NotLose => self != Worth::Loss,
        }
    }
}

/// What the builder needs to know of positions, from whatever source (tables and search: a
/// [`Judge`]; the Freezer's analysis).
pub trait Knowledge {
    /// The side the oracle plays for.
    fn friend(&self) -> Side;
    /// What every leaf must be.
    fn goal(&self) -> Goal;
    /// The legal moves of `p` in the checker's order ([`ordered_moves`]).
    fn moves(&self, p: &Position) -> Rc<Moves>;
    /// If `p` is a leaf (a status the checker can settle), its worth for the friend side.
    fn leaf(&self, p: &Position) -> Result<Option<Worth>, OracleBuildError>;
    /// What `p` is worth for the friend side, if known; a win's plies must fall strictly along
    /// every move the oracle keeps (leaves count 0).
    fn worth(&self, p: &Position) -> Result<Option<Worth>, OracleBuildError>;
    /// The tables leaves have read (material, body hash).
    fn used_tables(&self) -> Vec<(String, [u8; 32])>;
}

impl Knowledge for Judge {
    fn friend(&self) -> Side {
        self.friend
    }
    fn goal(&self) -> Goal {
        self.goal
    }
    fn moves(&self, p: &Position) -> Rc<Moves> {
        Judge::moves(self, p)
    }
    fn leaf(&self, p: &Position) -> Result<Option<Worth>, OracleBuildError> {
        Judge::leaf(self, p)
    }
    fn worth(&self, p: &Position) -> Result<Option<Worth>, OracleBuildError> {
        Judge::worth(self, p)
    }
    fn used_tables(&self) -> Vec<(String, [u8; 32])> {
        Judge::used_tables(self)
    }
}

/// A leaf table: its stored material name and body hash.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Certified {
    hash: [u8; 32],
}

/// The builder's knowledge of positions for one friend side, goal and root.
pub struct Judge {
    friend: Side,
    goal: Goal,
    root_men: Men,
    tables: Option<(Tablebase, Checker)>,
    /// Per material other than the root's: its certified table, or none.
    certified: RefCell<FxHashMap<Men, Option<Certified>>>,
    /// Materials whose tables leaves have used.
    used: RefCell<Vec<(String, [u8; 32])>>,
    /// Search: per position, the least depth proved, or the greatest depth refuted.
    proved: RefCell<FxHashMap<Position, Result<u32, u32>>>,
    /// The search's depth bound in plies.
    search_depth: u32,
    /// Per material (canonical): whether its table is there to guide.
    present: RefCell<FxHashMap<retro_engine::Material, bool>>,
    /// Each position's moves in the checker's order, once computed.
    moves: RefCell<FxHashMap<Position, Rc<Moves>>>,
    /// Each position's worth, once known.
    worths: RefCell<FxHashMap<Position, Option<Worth>>>,
    /// Proof-number search: its budget of tree nodes (0: none), whether it has run, and the
    /// height of the proof of every position it proved.
    pn_nodes: usize,
    pn_done: std::cell::Cell<bool>,
    pn_heights: RefCell<FxHashMap<Position, u32>>,
}

/// A position's legal moves and the positions they reach, in the checker's order.
pub type Moves = Vec<(retro_rules::Move, Position)>;

fn worth_of(value: Value, mover_is_friend: bool) -> Option<Worth> {
    Some(match (value, mover_is_friend) {
        (Value::Win(n), true) | (Value::Loss(n), false) => Worth::Win(n),
        (Value::Win(_), false) | (Value::Loss(_), true) => Worth::Loss,
        (Value::Draw, _) => Worth::Draw,
        (Value::Illegal, _) => return None,
    })
}

impl Judge {
    /// A judge for `friend` reaching `goal` from `root`, reading tables from `dir` if given, and
    /// searching at most `search_depth` plies where no table answers (goal win only).
    pub fn new(
        friend: Side,
        goal: Goal,
        root: &Position,
        dir: Option<&Path>,
        search_depth: u32,
    ) -> Judge {
        let board: Board = root.board();
        Judge {
            friend,
            goal,
            root_men: stored(Men::of_position(root)),
            tables: dir.map(|d| (Tablebase::new(board, d), Checker::new(board, d))),
            certified: RefCell::new(FxHashMap::default()),
            used: RefCell::new(Vec::new()),
            proved: RefCell::new(FxHashMap::default()),
            search_depth,
            present: RefCell::new(FxHashMap::default()),
            moves: RefCell::new(FxHashMap::default()),
            worths: RefCell::new(FxHashMap::default()),
            pn_nodes: 0,
            pn_done: std::cell::Cell::new(false),
            pn_heights: RefCell::new(FxHashMap::default()),
        }
    }

    /// The same judge with proof-number search where the bounded search proves nothing (goal
    /// win), over at most `nodes` tree nodes, run once from the first position asked about.
    pub fn with_proof_numbers(mut self, nodes: usize) -> Judge {
        self.pn_nodes = nodes;
        self
    }

    /// The friend side.
    pub fn friend(&self) -> Side {
        self.friend
    }

    /// The goal.
    pub fn goal(&self) -> Goal {
        self.goal
    }

    /// The tables leaves have read (material, body hash), in the order first used.
    pub fn used_tables(&self) -> Vec<(String, [u8; 32])> {
        self.used.borrow().clone()
    }

    fn table_value(&self, p: &Position) -> Result<Option<Value>, OracleBuildError> {
        let Some((tables, _)) = &self.tables else {
            return Ok(None);
        };
        let geo = tables.geometry();
        let Ok(q) = retro_engine::Position::<{ retro_engine::MAX_MEN }>::from_natural(geo, p)
        else {
            return Ok(None);
        };
        let (material, _) = q.material().canonical();
        let present = *self
            .present
            .borrow_mut()
            .entry(material)
            .or_insert_with(|| {
                material.len() <= retro_engine::TABLE_MEN && tables.table(material).is_ok()
            });
        if !present {
            return Ok(None);
        }
        Ok(Some(tables.value(&q)?))
    }

    fn certified(&self, men: &Men) -> Result<Option<Certified>, OracleBuildError> {
        if let Some(c) = self.certified.borrow().get(men) {
            return Ok(c.clone());
        }
        let found = match &self.tables {
            Some((_, checker)) if checker.path_of(men).exists() => {
                match established(checker, men)? {
                    None => Some(Certified {
                        hash: checker.body_hash(men)?,
                    }),
                    Some(_) => None,
                }
            }
            _ => None,
        };
        self.certified
            .borrow_mut()
            .insert(men.clone(), found.clone());
        Ok(found)
    }

    /// The legal moves of `p` in the checker's order ([`ordered_moves`]), computed once.
    pub fn moves(&self, p: &Position) -> Rc<Moves> {
        if let Some(m) = self.moves.borrow().get(p) {
            return m.clone();
        }
        let m = Rc::new(ordered_moves(p));
        self.moves.borrow_mut().insert(p.clone(), m.clone());
        m
    }

    /// If `p` is a leaf, its worth: mate or stalemate, or a position of a material other than
    /// the root's whose table is certified.
    pub fn leaf(&self, p: &Position) -> Result<Option<Worth>, OracleBuildError> {
        if self.moves(p).is_empty() && chess_legal(p) {
            return Ok(Some(self.game_over_worth(p)));
        }
        self.table_leaf(p)
    }

    /// The worth of a position whose side to move has no move: mated or stalemated.
    fn game_over_worth(&self, p: &Position) -> Worth {
        match (in_check(to_move(p), p), to_move(p) == self.friend) {
            (false, _) => Worth::Draw,
            (true, true) => Worth::Loss,
            (true, false) => Worth::Win(0),
        }
    }

    /// If `p` is of a material other than the root's with a certified table, its worth there.
    fn table_leaf(&self, p: &Position) -> Result<Option<Worth>, OracleBuildError> {
        let men = stored(Men::of_position(p));
        if men == self.root_men {
            return Ok(None);
        }
        let Some(certified) = self.certified(&men)? else {
            return Ok(None);
        };
        let Some(value) = self.table_value(p)? else {
            return Ok(None);
        };
        // A leaf ends every path through it: its win counts no further plies.
        let worth = worth_of(value, to_move(p) == self.friend).map(|w| match w {
            Worth::Win(_) => Worth::Win(0),
            other => other,
        });
        if worth.is_some_and(|w| w.meets(self.goal)) {
            let name = men.to_string();
            let mut used = self.used.borrow_mut();
            if !used.iter().any(|(m, _)| *m == name) {
                used.push((name, certified.hash));
            }
        }
        Ok(worth)
    }

    /// What `p` is worth for the friend side, if anything says: a leaf's worth (a win at a leaf
    /// counts 0 plies), the table of the root's material (a guide: the depth to mate), the bare
    /// kings' draw, or (goal win) the least depth, at most the judge's, at which a search proves
    /// that the friend side reaches winning leaves.
    pub fn worth(&self, p: &Position) -> Result<Option<Worth>, OracleBuildError> {
        if let Some(w) = self.worths.borrow().get(p) {
            return Ok(*w);
        }
        let w = self.find_worth(p)?;
        self.worths.borrow_mut().insert(p.clone(), w);
        Ok(w)
    }

    fn find_worth(&self, p: &Position) -> Result<Option<Worth>, OracleBuildError> {
        if let Some(w) = self.leaf(p)? {
            return Ok(Some(w));
        }
        if stored(Men::of_position(p)) == self.root_men {
            if let Some(value) = self.table_value(p)? {
                return Ok(worth_of(value, to_move(p) == self.friend));
            }
        }
        if p.men().count() == 2 {
            return Ok(Some(Worth::Draw));
        }
        if self.goal == Goal::Win {
            for depth in 1..=self.search_depth {
                if self.proves(p, depth)? {
                    return Ok(Some(Worth::Win(depth)));
                }
            }
            if self.pn_nodes > 0 && !self.pn_done.replace(true) {
                self.proof_numbers(p)?;
            }
            if let Some(&h) = self.pn_heights.borrow().get(p) {
                return Ok(Some(Worth::Win(h)));
            }
        }
        Ok(None)
    }

    /// Proof-number search (Allis) from `root`, for at most the judge's node budget: a tree of
    /// positions grown at the most-proving node (the friend side's child of least proof number,
    /// the foe's child of least disproof number), leaves settled as in [`Judge::leaf`]; a
    /// position repeating one on its own path counts as disproved there (a win must end). Every
    /// position it proves is kept with the height of its proof — 0 at a leaf, one more than
    /// the least proven child's at a friend node, one more than the greatest child's at a foe
    /// node — so the heights fall strictly along the oracle's moves.
    fn proof_numbers(&self, root: &Position) -> Result<(), OracleBuildError> {
        const INFINITE: u64 = u64::MAX / 4;
        struct Node {
            position: Position,
            parent: usize,
            children: Vec<usize>,
            proof: u64,
            disproof: u64,
            height: u32,
            friend: bool,
        }
        let mut tree = vec![Node {
            position: root.clone(),
            parent: usize::MAX,
            children: Vec::new(),
            proof: 1,
            disproof: 1,
            height: 0,
            friend: to_move(root) == self.friend,
        }];
        while tree[0].proof != 0 && tree[0].disproof != 0 && tree.len() < self.pn_nodes {
            let mut k = 0;
            while !tree[k].children.is_empty() {
                let pick = |c: &usize| {
                    if tree[k].friend {
                        tree[*c].proof
                    } else {
                        tree[*c].disproof
                    }
                };
                k = *tree[k]
                    .children
                    .iter()
                    .min_by_key(|c| pick(c))
                    .expect("children");
            }
            let moves = ordered_moves(&tree[k].position);
            if moves.is_empty() {
                // Only the root can be a position without moves here: no proof.
                tree[k].disproof = 0;
                tree[k].proof = INFINITE;
            }
            for (_, q) in moves {
                let on_path = {
                    let mut a = k;
                    loop {
                        if tree[a].position == q {
                            break true;
                        }
                        if a == 0 {
                            break false;
                        }
                        a = tree[a].parent;
                    }
                };
                let settled = if game_over(&q) {
                    Some(self.game_over_worth(&q))
                } else {
                    self.table_leaf(&q)?
                };
                let known = self.pn_heights.borrow().get(&q).copied();
                let (proof, disproof, height) = match (settled, known) {
                    (Some(Worth::Win(_)), _) => (0, INFINITE, 0),
                    (Some(_), _) => (INFINITE, 0, 0),
                    (None, Some(h)) => (0, INFINITE, h),
                    (None, None) if on_path => (INFINITE, 0, 0),
                    (None, None) => (1, 1, 0),
                };
                let friend = to_move(&q) == self.friend;
                tree.push(Node {
                    position: q,
                    parent: k,
                    children: Vec::new(),
                    proof,
                    disproof,
                    height,
                    friend,
                });
                let id = tree.len() - 1;
                tree[k].children.push(id);
            }
            // Back up the numbers to the root.
            let mut a = k;
            loop {
                if !tree[a].children.is_empty() {
                    let kids = &tree[a].children;
                    let (proof, disproof, height) = if tree[a].friend {
                        let proof = kids
                            .iter()
                            .map(|&c| tree[c].proof)
                            .min()
                            .unwrap_or(INFINITE);
                        let disproof = kids.iter().fold(0u64, |s, &c| {
                            s.saturating_add(tree[c].disproof).min(INFINITE)
                        });
                        let height = kids
                            .iter()
                            .filter(|&&c| tree[c].proof == 0)
                            .map(|&c| tree[c].height + 1)
                            .min()
                            .unwrap_or(0);
                        (proof, disproof, height)
                    } else {
                        let proof = kids
                            .iter()
                            .fold(0u64, |s, &c| s.saturating_add(tree[c].proof).min(INFINITE));
                        let disproof = kids
                            .iter()
                            .map(|&c| tree[c].disproof)
                            .min()
                            .unwrap_or(INFINITE);
                        let height = kids.iter().map(|&c| tree[c].height + 1).max().unwrap_or(0);
                        (proof, disproof, height)
                    };
                    tree[a].proof = proof;
                    tree[a].disproof = disproof;
                    tree[a].height = height;
                    if proof == 0 {
                        self.pn_heights
                            .borrow_mut()
                            .insert(tree[a].position.clone(), height);
                    }
                }
                if a == 0 {
                    break;
                }
                a = tree[a].parent;
            }
        }
        Ok(())
    }

    /// Whether the friend side forces, within `depth` plies, a leaf that is a win for it
    /// (an AND/OR search over the natural model's moves, with a table of results).
    fn proves(&self, p: &Position, depth: u32) -> Result<bool, OracleBuildError> {
        if let Some(w) = self.leaf(p)? {
            return Ok(matches!(w, Worth::Win(_)));
        }
        if depth == 0 {
            return Ok(false);
        }
        match self.proved.borrow().get(p) {
            Some(Ok(d)) if *d <= depth => return Ok(true),
            Some(Err(d)) if *d >= depth => return Ok(false),
            _ => {}
        }
        let moves = self.moves(p);
        let result = if to_move(p) == self.friend {
            let mut any = false;
            for (_, q) in moves.iter() {
                if self.proves(q, depth - 1)? {
                    any = true;
                    break;
                }
            }
            any
        } else {
            let mut all = !moves.is_empty();
            for (_, q) in moves.iter() {
                if !self.proves(q, depth - 1)? {
                    all = false;
                    break;
                }
            }
            all
        };
        let mut proved = self.proved.borrow_mut();
        let entry = proved.entry(p.clone()).or_insert(Err(0));
        *entry = match (*entry, result) {
            (Ok(d), true) => Ok(d.min(depth)),
            (Err(_), true) => Ok(depth),
            (Ok(d), false) => Ok(d),
            (Err(d), false) => Err(d.max(depth)),
        };
        Ok(result)
    }
}
