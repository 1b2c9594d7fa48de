//! The tables a material's exits lead into: one list, shared by both cores.
//!
//! Owns: the kinds of exit of a material — captures of a man other than a king, promotions
//! to each piece with or without a capture — and the canonical materials they lead into, in
//! the fixed order in which the fast core takes its smaller tables ([`exit_targets`]).
//! Must never: look a value up (the cores do); the checker keeps a list of its own, by design,
//! so that a fault here cannot hide from it.

use retro_engine::Material;
use retro_rules::{Piece, Side};

/// Calls `visit` with every kind of exit of `material`, captures first: the men it removes,
/// the pawn it promotes and to what, and the side that makes it (a promotion's; `None` for a
/// capture, whose table is loaded with both sides to move).
pub(crate) fn for_each_exit_kind(
    material: Material,
    mut visit: impl FnMut(&[usize], Option<(usize, Piece)>, Option<Side>),
) {
    let men = material.men();
    for i in 2..men.len() {
        visit(&[i], None, None);
    }
    for (i, &(side, piece)) in men.iter().enumerate() {
        if piece != Piece::Pawn {
            continue;
        }
        for promoted in Piece::PROMOTIONS {
            visit(&[], Some((i, promoted)), Some(side));
            for j in (2..men.len()).filter(|&j| men[j].0 != side) {
                visit(&[j], Some((i, promoted)), Some(side));
            }
        }
    }
}

/// The materials a capture or a promotion in `material` leads into (canonical), in a fixed
/// order: captures first.
pub fn exit_targets(material: Material) -> Vec<Material> {
    let mut targets: Vec<Material> = Vec::new();
    for_each_exit_kind(material, |removed, promoted, _| {
        let m = exit_material(material, removed, promoted).canonical().0;
        if !targets.contains(&m) {
            targets.push(m);
        }
    });
    targets
}

/// `material` without the men `removed`, with man `promoted.0` exchanged for `promoted.1`.
pub(crate) fn exit_material(
    material: Material,
    removed: &[usize],
    promoted: Option<(usize, Piece)>,
) -> Material {
    Material::from_men(&exit_men(material, removed, promoted))
}

pub(crate) fn exit_men(
    material: Material,
    removed: &[usize],
    promoted: Option<(usize, Piece)>,
) -> Vec<(Side, Piece)> {
    material
        .men()
        .into_iter()
        .enumerate()
        .filter(|(j, _)| !removed.contains(j))
        .map(|(j, (side, piece))| match promoted {
            Some((i, to)) if i == j => (side, to),
            _ => (side, piece),
        })
        .collect()
}
