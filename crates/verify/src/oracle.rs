//! The oracle checker: confirms a proof certificate (Mhalla and Prost, seed `003`) from the
//! natural model alone.
//!
//! Owns: the meaning of an oracle file's node bytes ([`ordered_moves`], [`replay`]) and the
//! check of an oracle ([`check_oracle`], [`OracleReport`], [`OracleFault`]).
//! Must never: depend on the engine, the generator or the builder (`retro-oracle`); moves come
//! from `retro_rules::laws::successors`, leaf values from certified tables read by this crate.
//!
//! # What an oracle is
//!
//! A *friend oracle* for side `F` is a game graph from a root in which every node where `F` is
//! to move (a *friend* node) is a leaf or has exactly one move, and every other node (a *foe*
//! node) is a leaf or has all its legal moves; a position occurs once (transpositions share a
//! node). It proves that `F` can keep the play inside the graph whatever the foe does, so:
//!
//! * goal **win**: if every leaf is a win for `F` and the graph has no cycle, every play from the
//!   root following the oracle reaches a leaf within the graph's longest path, and so a win:
//!   the root is won for `F` (`win1_by`/`win2_by` of the natural model, for `F` as player one);
//! * goal **not-lose**: if every leaf is a win or a draw for `F`, every play following the oracle
//!   either stays in the graph for ever (`F` always has its move, so it is never mated: a draw
//!   at worst) or reaches such a leaf: the root is not lost for `F`.
//!
//! A leaf's status is settled in one of three ways, and in no other: the side to move is
//! checkmated or stalemated (`game_over` of the natural model), or its value is read from a
//! table that `retro verify` has certified (certificate established, every table it reaches
//! unchanged) and whose body hash is the one the oracle file names.
//!
//! # The bytes (the *reminder*, section 3.2)
//!
//! The graph is rebuilt by a depth-first walk from the root. A node is *new* the first time the
//! walk meets its position; each new node reads the next byte: `0x80` makes it a leaf; at a
//! friend node any other byte `m` (`0..=127`) plays the `m`-th move of [`ordered_moves`]; at a
//! foe node the byte must be `0x00`, and all moves follow in that order. The walk enters a
//! child only if its position is new; a position met again (a transposition, or a cycle back to
//! a node still being walked) is an edge to the node already made, and reads no byte. So the
//! bytes are the prefix list of the walk's spanning tree, one byte per node, and the structure
//! must end exactly where the bytes end.
//!
//! The move order: by the square the man leaves, then the square it reaches (squares rank by
//! rank, then file by file: a1, b1, …, a2, …), then the promotion (none first, then queen, rook,
//! bishop, knight) — `Move`'s order in the natural model.

use crate::certificate::established;
use crate::men::Men;
use crate::{stored, Checker, VerifyError};
use retro_format::oracle::{Colour, Goal, OracleFile, LEAF};
use retro_format::Value;
use retro_rules::laws::{checkmated, game_over, successors, Move};
use retro_rules::position::to_move;
use retro_rules::{Board, Position, Side};
use std::collections::HashMap;
use std::fmt;

/// Every legal move of `p` and the position it leads to, in the oracle files' total order
/// (see the module docs).
pub fn ordered_moves(p: &Position) -> Vec<(Move, Position)> {
    let mut moves = successors(p);
    moves.sort_by_key(|(m, _)| (m.from, m.to, m.promotion.map(promotion_rank)));
    moves
}

fn promotion_rank(piece: retro_rules::Piece) -> usize {
    retro_rules::Piece::PROMOTIONS
        .iter()
        .position(|&p| p == piece)
        .unwrap_or(usize::MAX)
}

/// How a leaf's status is settled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeafStatus {
    /// The side to move is checkmated.
    Checkmate,
    /// The side to move is stalemated.
    Stalemate,
    /// Read from a certified table (for the side to move).
    Table(Value),
}

/// What a node of the rebuilt graph is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeKind {
    /// A leaf (its status is settled by [`check_oracle`]).
    Leaf,
    /// A friend node: its one move and the node it leads to.
    Friend {
        /// The move.
        mv: Move,
        /// The node reached.
        child: usize,
    },
    /// A foe node: the nodes its moves lead to, in move order.
    Foe {
        /// The nodes reached.
        children: Vec<usize>,
    },
}

/// A node of the rebuilt graph.
#[derive(Debug, Clone)]
pub struct Node {
    /// Its position.
    pub position: Position,
    /// What it is.
    pub kind: NodeKind,
    /// In the spanning tree: its parent and the move from it (none for the root).
    pub parent: Option<(usize, Move)>,
}

/// An oracle's graph rebuilt from its bytes: node 0 is the root.
#[derive(Debug, Clone)]
pub struct Replay {
    /// The nodes, in the bytes' order.
    pub nodes: Vec<Node>,
    /// The side the oracle plays for.
    pub friend: Side,
    /// The goal.
    pub goal: Goal,
    /// The board.
    pub board: Board,
    /// The deepest node of the spanning tree, in plies from the root.
    pub tree_depth: usize,
}

/// The first thing wrong with an oracle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OracleFault {
    /// The position where it is wrong, in FEN (none for faults of the file as a whole).
    pub fen: Option<String>,
    /// The moves from the root to it, in UCI.
    pub line: Vec<String>,
    /// What is wrong.
    pub problem: String,
}

impl fmt::Display for OracleFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.fen {
            Some(fen) if self.line.is_empty() => write!(f, "at the root {fen}: {}", self.problem),
            Some(fen) => write!(
                f,
                "at {fen} (reached by {}): {}",
                self.line.join(" "),
                self.problem
            ),
            None => write!(f, "{}", self.problem),
        }
    }
}

/// What a passed check found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OracleReport {
    /// All nodes (positions, each once).
    pub nodes: usize,
    /// Friend nodes with their one move.
    pub friend_nodes: usize,
    /// Foe nodes with all their moves.
    pub foe_nodes: usize,
    /// Leaves where the side to move is checkmated.
    pub checkmate_leaves: usize,
    /// Leaves where it is stalemated.
    pub stalemate_leaves: usize,
    /// Leaves read from tables as wins for the friend side.
    pub table_win_leaves: usize,
    /// Leaves read from tables as draws.
    pub table_draw_leaves: usize,
    /// Edges to positions already in the graph (transpositions and cycles).
    pub shared_edges: usize,
    /// The deepest node of the spanning tree, in plies.
    pub tree_depth: usize,
    /// Goal win: the longest path from the root to a leaf, in plies (the friend side wins in at
    /// most this many plies by following the oracle). Not-lose: none.
    pub longest_path: Option<usize>,
}

/// Why an oracle could not be checked, or the fault that refutes it.
#[derive(Debug, thiserror::Error)]
pub enum OracleError {
    /// A leaf's table could not be read.
    #[error(transparent)]
    Verify(#[from] VerifyError),
    /// The oracle is wrong.
    #[error("the oracle is refuted {0}")]
    Fault(OracleFault),
}

fn side_of(colour: Colour) -> Side {
    match colour {
        Colour::White => Side::White,
        Colour::Black => Side::Black,
    }
}

fn fault_at(nodes: &[Node], at: usize, problem: String) -> OracleFault {
    let mut line = Vec::new();
    let mut k = at;
    while let Some((parent, mv)) = nodes[k].parent {
        line.push(mv.to_string());
        k = parent;
    }
    line.reverse();
    OracleFault {
        fen: Some(nodes[at].position.fen()),
        line,
        problem,
    }
}

fn whole(problem: String) -> OracleFault {
    OracleFault {
        fen: None,
        line: Vec::new(),
        problem,
    }
}

/// Rebuilds an oracle's graph from its root and bytes, checking the structure: the root is a
/// legal position on the stated board, every friend move number names a legal move, every foe
/// byte is `0x00`, a node with no legal move is a leaf, and the structure ends where the bytes end.
pub fn replay(file: &OracleFile) -> Result<Replay, OracleFault> {
    let root: Position = file.root.parse().map_err(|e| {
        whole(format!(
            "the root `{}` is not a legal position: {e}",
            file.root
        ))
    })?;
    let board = root.board();
    if (board.files(), board.ranks()) != (file.files, file.ranks) {
        return Err(whole(format!(
            "the root is on a {board} board, the header says {}x{}",
            file.files, file.ranks
        )));
    }
    let friend = side_of(file.friend);
    let mut nodes: Vec<Node> = Vec::new();
    let mut seen: HashMap<Position, usize> = HashMap::new();
    let mut next_byte = 0usize;
    // A frame of the walk: a node and the positions its moves reach, still to be entered.
    struct Frame {
        node: usize,
        moves: Vec<(Move, Position)>,
        next: usize,
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut tree_depth = 0;
    // Makes the node of a new position from the next byte; returns its frame if it has moves.
    let mut make = |position: Position,
                    parent: Option<(usize, Move)>,
                    nodes: &mut Vec<Node>,
                    seen: &mut HashMap<Position, usize>|
     -> Result<Option<Frame>, OracleFault> {
        let id = nodes.len();
        seen.insert(position.clone(), id);
        nodes.push(Node {
            position,
            kind: NodeKind::Leaf,
            parent,
        });
        let Some(&byte) = file.nodes.get(next_byte) else {
            return Err(fault_at(
                nodes,
                id,
                format!(
                    "the bytes end after {} nodes, before this node (the file is truncated)",
                    file.nodes.len()
                ),
            ));
        };
        next_byte += 1;
        if byte == LEAF {
            return Ok(None);
        }
        let moves = ordered_moves(&nodes[id].position);
        let friend_to_move = to_move(&nodes[id].position) == friend;
        if moves.is_empty() {
            return Err(fault_at(
                nodes,
                id,
                format!("byte {byte:#04x} marks an inner node, but the position has no legal move"),
            ));
        }
        if friend_to_move {
            if byte & LEAF != 0 || usize::from(byte) >= moves.len() {
                return Err(fault_at(
                    nodes,
                    id,
                    format!(
                        "byte {byte:#04x} names move {byte}, but the position has {} legal moves",
                        moves.len()
                    ),
                ));
            }
            let chosen = moves[usize::from(byte)].clone();
            nodes[id].kind = NodeKind::Friend {
                mv: chosen.0,
                child: usize::MAX,
            };
            Ok(Some(Frame {
                node: id,
                moves: vec![chosen],
                next: 0,
            }))
        } else {
            if byte != 0 {
                return Err(fault_at(
                    nodes,
                    id,
                    format!("byte {byte:#04x} at a foe node, which must be 0x00 (all moves) or 0x80 (a leaf)"),
                ));
            }
            nodes[id].kind = NodeKind::Foe {
                children: Vec::with_capacity(moves.len()),
            };
            Ok(Some(Frame {
                node: id,
                moves,
                next: 0,
            }))
        }
    };
    if let Some(frame) = make(root, None, &mut nodes, &mut seen)? {
        stack.push(frame);
    }
    while let Some(frame) = stack.last_mut() {
        let Some((mv, q)) = frame.moves.get(frame.next).cloned() else {
            stack.pop();
            continue;
        };
        frame.next += 1;
        let parent = frame.node;
        let child = match seen.get(&q) {
            Some(&id) => id,
            None => {
                // The walk's stack holds one frame per ancestor: its length is the new node's
                // depth in the spanning tree.
                tree_depth = tree_depth.max(stack.len());
                let id = nodes.len();
                if let Some(f) = make(q, Some((parent, mv)), &mut nodes, &mut seen)? {
                    stack.push(f);
                }
                id
            }
        };
        match &mut nodes[parent].kind {
            NodeKind::Friend { child: c, .. } => *c = child,
            NodeKind::Foe { children } => children.push(child),
            NodeKind::Leaf => unreachable!("leaves have no frame"),
        }
    }
    if next_byte != file.nodes.len() {
        return Err(whole(format!(
            "the structure ends after {next_byte} nodes, but the file has {} node bytes (trailing bytes)",
            file.nodes.len()
        )));
    }
    Ok(Replay {
        nodes,
        friend,
        goal: file.goal,
        board,
        tree_depth,
    })
}

impl Replay {
    /// The nodes each node's moves lead to.
    pub fn children(&self, k: usize) -> &[usize] {
        match &self.nodes[k].kind {
            NodeKind::Leaf => &[],
            NodeKind::Friend { child, .. } => std::slice::from_ref(child),
            NodeKind::Foe { children } => children,
        }
    }
}

/// Checks an oracle file: its structure ([`replay`]), every leaf's status against the goal, and
/// for goal *win* that the graph has no cycle. Leaf tables are read from `tables` (a checker for
/// the oracle's board), and only if certified and with the hash the file names.
pub fn check_oracle(file: &OracleFile, tables: &Checker) -> Result<OracleReport, OracleError> {
    let replay = replay(file).map_err(OracleError::Fault)?;
    let nodes = &replay.nodes;
    let friend = replay.friend;
    let mut report = OracleReport {
        nodes: nodes.len(),
        tree_depth: replay.tree_depth,
        ..OracleReport::default()
    };
    let fault = |k: usize, problem: String| OracleError::Fault(fault_at(nodes, k, problem));
    let mut certified: HashMap<Men, Result<(), String>> = HashMap::new();
    for (k, node) in nodes.iter().enumerate() {
        match &node.kind {
            NodeKind::Friend { .. } => report.friend_nodes += 1,
            NodeKind::Foe { .. } => report.foe_nodes += 1,
            NodeKind::Leaf => {
                let p = &node.position;
                let status = leaf_status(p, file, tables, &mut certified)
                    .map_err(|problem| fault(k, problem))?;
                let mover_is_friend = to_move(p) == friend;
                // The leaf's value for the friend side: 1 win, 0 draw, -1 loss.
                let for_friend = match status {
                    LeafStatus::Checkmate => {
                        if mover_is_friend {
                            -1
                        } else {
                            1
                        }
                    }
                    LeafStatus::Stalemate => 0,
                    LeafStatus::Table(Value::Draw) => 0,
                    LeafStatus::Table(Value::Win(_)) => {
                        if mover_is_friend {
                            1
                        } else {
                            -1
                        }
                    }
                    LeafStatus::Table(Value::Loss(_)) => {
                        if mover_is_friend {
                            -1
                        } else {
                            1
                        }
                    }
                    LeafStatus::Table(Value::Illegal) => {
                        return Err(fault(k, "the table has no value for this position".into()))
                    }
                };
                let needed = match replay.goal {
                    Goal::Win => 1,
                    Goal::NotLose => 0,
                };
                if for_friend < needed {
                    let what = match for_friend {
                        -1 => "a loss",
                        _ => "a draw",
                    };
                    return Err(fault(
                        k,
                        format!(
                            "this leaf ({status:?}) is {what} for {friend}, and the goal is {}",
                            replay.goal.name()
                        ),
                    ));
                }
                match status {
                    LeafStatus::Checkmate => report.checkmate_leaves += 1,
                    LeafStatus::Stalemate => report.stalemate_leaves += 1,
                    LeafStatus::Table(Value::Draw) => report.table_draw_leaves += 1,
                    LeafStatus::Table(_) => report.table_win_leaves += 1,
                }
            }
        }
    }
    for k in 0..nodes.len() {
        let children = replay.children(k);
        let tree_children = children
            .iter()
            .filter(|&&c| nodes[c].parent.map(|(p, _)| p) == Some(k))
            .count();
        report.shared_edges += children.len() - tree_children;
    }
    if replay.goal == Goal::Win {
        report.longest_path = Some(longest_path(&replay).map_err(|k| {
            fault(
                k,
                "the oracle returns to this position (a cycle), so it proves no win".into(),
            )
        })?);
    }
    Ok(report)
}

/// A leaf's settled status, or why it is not settled.
fn leaf_status(
    p: &Position,
    file: &OracleFile,
    tables: &Checker,
    certified: &mut HashMap<Men, Result<(), String>>,
) -> Result<LeafStatus, String> {
    if game_over(p) {
        return Ok(if checkmated(p) {
            LeafStatus::Checkmate
        } else {
            LeafStatus::Stalemate
        });
    }
    let men = stored(Men::of_position(p));
    let name = men.to_string();
    let Some(listed) = file.tables.iter().find(|t| t.material == name) else {
        return Err(format!(
            "a leaf that is neither mate nor stalemate, and the file names no table of {name} for it"
        ));
    };
    let ready = certified
        .entry(men.clone())
        .or_insert_with(|| {
            let body = tables.body_hash(&men).map_err(|e| e.to_string())?;
            if body != listed.body_blake3 {
                return Err(format!(
                    "the table of {name} in {} is not the one the oracle names (its body hash differs)",
                    tables.dir().display()
                ));
            }
            match established(tables, &men) {
                Ok(None) => Ok(()),
                Ok(Some(reason)) => Err(format!("the table of {name} is not certified: {reason}")),
                Err(e) => Err(e.to_string()),
            }
        })
        .clone();
    ready?;
    tables
        .value(p)
        .map(LeafStatus::Table)
        .map_err(|e| e.to_string())
}

/// The longest path from the root to a leaf, in plies, or a node on a cycle.
fn longest_path(replay: &Replay) -> Result<usize, usize> {
    // Depth-first with colours: 0 unvisited, 1 on the walk, 2 done (its longest path known).
    let n = replay.nodes.len();
    let mut colour = vec![0u8; n];
    let mut longest = vec![0usize; n];
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    colour[0] = 1;
    while let Some(&mut (k, ref mut next)) = stack.last_mut() {
        let children = replay.children(k);
        if let Some(&c) = children.get(*next) {
            *next += 1;
            match colour[c] {
                0 => {
                    colour[c] = 1;
                    stack.push((c, 0));
                }
                1 => return Err(c),
                _ => {}
            }
        } else {
            longest[k] = children.iter().map(|&c| longest[c] + 1).max().unwrap_or(0);
            colour[k] = 2;
            stack.pop();
        }
    }
    Ok(longest[0])
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_format::oracle::Colour;

    const ROOT: &str = "k7/7Q/1K6/8/8/8/8/8 w - - 0 1";

    fn oracle(nodes: Vec<u8>) -> OracleFile {
        OracleFile {
            root: ROOT.into(),
            files: 8,
            ranks: 8,
            friend: Colour::White,
            goal: Goal::Win,
            tables: Vec::new(),
            nodes,
        }
    }

    fn number_of(uci: &str) -> u8 {
        let root: Position = ROOT.parse().unwrap();
        ordered_moves(&root)
            .iter()
            .position(|(m, _)| m.to_string() == uci)
            .unwrap() as u8
    }

    fn check(file: &OracleFile) -> Result<OracleReport, OracleError> {
        let dir = std::env::temp_dir();
        check_oracle(file, &Checker::new(Board::default(), dir))
    }

    #[test]
    fn the_move_order_is_by_from_to_and_promotion() {
        let root: Position = ROOT.parse().unwrap();
        let moves: Vec<Move> = ordered_moves(&root).into_iter().map(|(m, _)| m).collect();
        assert!(moves
            .windows(2)
            .all(|w| (w[0].from, w[0].to) < (w[1].from, w[1].to)));
        assert_eq!(moves.len(), successors(&root).len());
    }

    #[test]
    fn a_mate_in_one_is_proved() {
        let report = check(&oracle(vec![number_of("h7b7"), LEAF])).unwrap();
        assert_eq!(
            (report.nodes, report.friend_nodes, report.checkmate_leaves),
            (2, 1, 1)
        );
        assert_eq!(report.longest_path, Some(1));
    }

    #[test]
    fn faults_are_named() {
        let fault = |nodes: Vec<u8>| match check(&oracle(nodes)) {
            Err(OracleError::Fault(f)) => f.to_string(),
            other => panic!("not refuted: {other:?}"),
        };
        // A stalemate is no win.
        let text = fault(vec![number_of("h7c7"), LEAF]);
        assert!(
            text.contains("Stalemate") && text.contains("h7c7"),
            "{text}"
        );
        // A move number beyond the legal moves.
        assert!(fault(vec![0x7f, LEAF]).contains("legal moves"));
        // Bytes left over, or missing.
        assert!(fault(vec![number_of("h7b7"), LEAF, LEAF]).contains("trailing"));
        assert!(fault(vec![number_of("h7b7")]).contains("truncated"));
        // A leaf that is settled by nothing.
        assert!(fault(vec![LEAF]).contains("neither mate nor stalemate"));
        // A mated position marked as an inner node.
        assert!(fault(vec![number_of("h7b7"), 0]).contains("no legal move"));
    }
}
