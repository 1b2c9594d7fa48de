//! The reminder (seed `003`, section 3.2): an oracle as its root and one byte per node of the
//! spanning tree, in the order `retro_verify::oracle` defines, ready to write as a file.
//!
//! Owns: [`node_bytes`], [`to_file`].

use crate::graph::{Choice, Oracle};
use retro_format::oracle::{Colour, LeafTable, OracleFile, LEAF};
use retro_rules::Side;
use retro_verify::oracle::ordered_moves;
use rustc_hash::FxHashSet;

/// The node bytes of an oracle: the checker's depth-first walk, one byte for each position the
/// first time it is met (`0x80` a leaf, the move number at a friend node, `0x00` at a foe node).
pub fn node_bytes(oracle: &Oracle) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(oracle.len());
    let mut seen = FxHashSet::default();
    let mut stack: Vec<(Vec<retro_rules::Position>, usize)> = Vec::new();
    let enter = |p: &retro_rules::Position,
                 bytes: &mut Vec<u8>,
                 seen: &mut FxHashSet<retro_rules::Position>|
     -> Option<(Vec<retro_rules::Position>, usize)> {
        seen.insert(p.clone());
        let choice = oracle.choices[p];
        match choice {
            Choice::Leaf => {
                bytes.push(LEAF);
                None
            }
            Choice::Move(m) => {
                bytes.push(m);
                let q = ordered_moves(p).swap_remove(usize::from(m)).1;
                Some((vec![q], 0))
            }
            Choice::All => {
                bytes.push(0);
                Some((ordered_moves(p).into_iter().map(|(_, q)| q).collect(), 0))
            }
        }
    };
    if let Some(frame) = enter(&oracle.root, &mut bytes, &mut seen) {
        stack.push(frame);
    }
    while let Some((children, next)) = stack.last_mut() {
        let Some(q) = children.get(*next).cloned() else {
            stack.pop();
            continue;
        };
        *next += 1;
        if !seen.contains(&q) {
            if let Some(frame) = enter(&q, &mut bytes, &mut seen) {
                stack.push(frame);
            }
        }
    }
    bytes
}

/// The oracle as a file, naming those of `tables` (material and body hash) whose material some
/// leaf of the oracle has.
pub fn to_file(oracle: &Oracle, tables: &[(String, [u8; 32])]) -> OracleFile {
    let leaf_materials: FxHashSet<String> = oracle
        .choices
        .iter()
        .filter(|(_, c)| **c == Choice::Leaf)
        .map(|(p, _)| retro_verify::stored(retro_verify::men::Men::of_position(p)).to_string())
        .collect();
    let board = oracle.root.board();
    OracleFile {
        root: oracle.root.fen(),
        files: board.files(),
        ranks: board.ranks(),
        friend: match oracle.friend {
            Side::White => Colour::White,
            Side::Black => Colour::Black,
        },
        goal: oracle.goal,
        tables: tables
            .iter()
            .filter(|(material, _)| leaf_materials.contains(material))
            .map(|(material, hash)| LeafTable {
                material: material.clone(),
                body_blake3: *hash,
            })
            .collect(),
        nodes: node_bytes(oracle),
    }
}
