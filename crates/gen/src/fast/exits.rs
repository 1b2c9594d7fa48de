//! Exits: the moves that leave the table — captures, and promotions to each piece with or
//! without a capture — and the smaller tables they lead into.
//!
//! Owns: the list of the tables a material's exits lead into ([`exit_targets`], in the order
//! [`super::build`] takes their [`Subtable`]s), which sides of each are read
//! ([`exit_sides`]) and which part of a promotion's table ([`exit_fields`]), the rule of each
//! exit (where its men go, which table and side it reads), and the look-up of an exit's value.
//! Must never: write the work table; look anything up but in a [`Subtable`] loaded beforehand.

use super::convert::{Kept, Source};
use super::*;
use crate::exits::{exit_material, for_each_exit_kind};

/// A smaller table in its own layout, for the look-ups of exits.
pub struct Subtable {
    pub(super) layout: Layout,
    /// The slots held: all of them, those with one man on one rank, numbered by that field
    /// (the table of a promotion, whose promoted piece stands on its last rank), or those a
    /// window shows (a pawnless table a promotion of a sliced table leads into).
    pub(super) kept: Kept,
    /// A table read through a window: what each part reads it from again.
    pub(super) source: Option<Source>,
    /// Stored entry codes (`0` none, `1` draw, `2 + plies`), by side to move and slot (or
    /// number of `field`).
    pub(super) codes: [Cells; 2],
    /// The table's longest mate in plies (its file's header): an exit into it is at most a ply
    /// longer.
    pub(super) max_plies: u32,
}

impl Subtable {
    /// A table's entry codes spread over the slots of its layout that `kept` keeps, its
    /// longest mate `max_plies` plies.
    pub fn new(layout: Layout, kept: Kept, codes: [Cells; 2], max_plies: u32) -> Subtable {
        Subtable {
            layout,
            kept,
            source: None,
            codes,
            max_plies,
        }
    }

    /// The code of `slot` with side `x` to move.
    #[inline(always)]
    pub(super) fn code(&self, x: usize, slot: u64) -> u8 {
        let at = self
            .kept
            .number(slot)
            .expect("an exit into a table kept in part reaches the part kept");
        self.codes[x].get(at)
    }

    /// Hands the pages of the codes back to the kernel where they are kept in scratch files
    /// ([`super::convert::load_subtable`]); a later look-up reads them back.
    pub fn page_out(&self) {
        for codes in &self.codes {
            codes.page_out(0, codes.len());
        }
    }
}

/// For each of [`exit_targets`], the man and rank that every exit into it puts a promoted
/// piece on, when only promotions without a capture lead there and the table has pawns (its
/// slots keep ranks): a promoted piece stands on its side's last rank, and so does the last
/// (White) or first (Black) man of its group, identical men being sorted by square. Only
/// those slots of such a table need loading, a rank's worth.
pub fn exit_fields(geo: &Geometry, material: Material) -> Vec<Option<(usize, u8)>> {
    per_promotion_target(material, |target, group| {
        let (side, _) = target.men()[group[0]];
        match (target.has_pawns(), side) {
            (false, _) => None,
            (true, Side::White) => group.last().map(|&j| (j, geo.ranks() - 1)),
            (true, Side::Black) => group.first().map(|&j| (j, 0)),
        }
    })
}

/// For each of [`exit_targets`], the men a window over it keeps
/// ([`super::layout::SquareWindow`]) when only promotions without a capture lead there and the
/// table has no pawns: the promoted piece and the men identical to it (the layout sorts them
/// by square, so the piece may stand in any of their fields). A sliced table reads such a
/// table a part at a time ([`Subtable::show`]).
pub fn exit_windows(material: Material) -> Vec<Option<Vec<usize>>> {
    per_promotion_target(material, |target, group| {
        (!target.has_pawns()).then(|| group.to_vec())
    })
}

/// For each of [`exit_targets`], `of(target, group)` where every exit into it is a promotion
/// without a capture that gives the same value, `group` being the promoted piece and the men
/// identical to it in the target's order of men; `None` elsewhere.
fn per_promotion_target<T: Clone + PartialEq>(
    material: Material,
    of: impl Fn(Material, &[usize]) -> Option<T>,
) -> Vec<Option<T>> {
    let targets = exit_targets(material);
    let mut merged: Vec<Option<Option<T>>> = vec![None; targets.len()];
    for_each_exit_kind(material, |removed, promoted, _| {
        let rule = exit_rule(material, &targets, removed, promoted);
        let target = targets[rule.sub];
        let value = match promoted {
            Some((i, _)) if removed.is_empty() => {
                let men = target.men();
                let k = rule.to[i];
                let group: Vec<usize> = (0..men.len()).filter(|&j| men[j] == men[k]).collect();
                of(target, &group)
            }
            _ => None,
        };
        let slot = &mut merged[rule.sub];
        *slot = Some(match slot.take() {
            None => value,
            Some(before) if before == value => value,
            Some(_) => None,
        });
    });
    merged.into_iter().map(Option::flatten).collect()
}

/// Where a capture or a promotion leads: the smaller table and where each man goes in it.
#[derive(Clone, Copy)]
pub(super) struct ExitRule {
    pub(super) sub: usize,
    pub(super) flipped: bool,
    /// For every man of this material, its number in the other material (`NO_MAN` for a
    /// captured man; a promoted pawn's number is that of the piece it becomes).
    pub(super) to: [usize; MAX_MEN],
    /// How many men the other material has.
    pub(super) len: usize,
}

/// The exits of one material: each capture of a man, and each promotion of a pawn to each
/// piece, without or with the capture of each man.
pub(super) struct Exits {
    /// By captured man.
    pub(super) captures: [Option<ExitRule>; MAX_MEN],
    /// By pawn and promoted piece (`Piece::PROMOTIONS` order).
    pub(super) promotions: [[Option<ExitRule>; 4]; MAX_MEN],
    /// By pawn, captured man and promoted piece.
    pub(super) promotion_captures: Vec<[Option<ExitRule>; 4]>,
}

impl Exits {
    /// The rule of pawn `pawn` promoting to the `k`-th piece after taking `captured`.
    #[inline(always)]
    pub(super) fn promotion_capture(&self, pawn: usize, captured: usize, k: usize) -> ExitRule {
        self.promotion_captures[pawn * MAX_MEN + captured][k].expect("pawns promote")
    }
}

/// For each of [`exit_targets`], the sides to move (White first) whose entries the build of
/// `material` reads: after a capture either side may be to move, after a promotion only the
/// opponent of the promoting side (colours exchanged for a target stored flipped).
pub fn exit_sides(material: Material) -> Vec<[bool; 2]> {
    let targets = exit_targets(material);
    let mut sides = vec![[false; 2]; targets.len()];
    for_each_exit_kind(material, |removed, promoted, mover| {
        let rule = exit_rule(material, &targets, removed, promoted);
        let movers: &[Side] = match &mover {
            Some(side) => std::slice::from_ref(side),
            None => &Side::ALL,
        };
        for &mover in movers {
            let after = side_index(retro_rules::opponent(mover)) ^ usize::from(rule.flipped);
            sides[rule.sub][after] = true;
        }
    });
    sides
}

/// Every exit rule of `material`, its tables listed in `targets`.
pub(super) fn exit_rules(material: Material, targets: &[Material]) -> Exits {
    let mut exits = Exits {
        captures: [None; MAX_MEN],
        promotions: [[None; 4]; MAX_MEN],
        promotion_captures: vec![[None; 4]; MAX_MEN * MAX_MEN],
    };
    for_each_exit_kind(material, |removed, promoted, _| {
        let rule = Some(exit_rule(material, targets, removed, promoted));
        let Some((i, piece)) = promoted else {
            exits.captures[removed[0]] = rule;
            return;
        };
        let k = Piece::PROMOTIONS
            .iter()
            .position(|&p| p == piece)
            .expect("a promotion piece");
        match removed {
            [] => exits.promotions[i][k] = rule,
            &[j] => exits.promotion_captures[i * MAX_MEN + j][k] = rule,
            _ => unreachable!("an exit removes at most one man"),
        }
    });
    exits
}

/// Where the men of `material` go after the exit removing `removed` and promoting `promoted`,
/// in the table `targets[sub]`.
pub(super) fn exit_rule(
    material: Material,
    targets: &[Material],
    removed: &[usize],
    promoted: Option<(usize, Piece)>,
) -> ExitRule {
    let (canonical, flipped) = exit_material(material, removed, promoted).canonical();
    let sub = targets
        .iter()
        .position(|&m| m == canonical)
        .expect("every exit target is listed");
    let sub_men = canonical.men();
    let mut taken = [false; MAX_MEN];
    let mut to = [NO_MAN; MAX_MEN];
    for (j, (side, piece)) in material.men().into_iter().enumerate() {
        if removed.contains(&j) {
            continue;
        }
        let piece = match promoted {
            Some((i, p)) if i == j => p,
            _ => piece,
        };
        let side = if flipped {
            retro_rules::opponent(side)
        } else {
            side
        };
        let k = (0..sub_men.len())
            .find(|&k| !taken[k] && sub_men[k] == (side, piece))
            .expect("the other material has this man");
        taken[k] = true;
        to[j] = k;
    }
    ExitRule {
        sub,
        flipped,
        to,
        len: sub_men.len(),
    }
}

/// The exits of a slot (or its en-passant captures) as the init pass weighs them for the side
/// to move: the quickest win they give, whether one draws, and the longest loss.
#[derive(Clone, Copy, Default)]
pub(super) struct ExitTally {
    pub(super) win: Option<u32>,
    pub(super) draw: bool,
    pub(super) loss: Option<u32>,
}

impl ExitTally {
    /// Counts an exit whose value, for the side to move after it, is `value`; an illegal one
    /// (the moving side's king left in check) is no move.
    #[inline(always)]
    pub(super) fn add(&mut self, value: Value) {
        match value {
            Value::Loss(k) => self.win = Some(self.win.map_or(k + 1, |w| w.min(k + 1))),
            Value::Draw => self.draw = true,
            Value::Win(k) => self.loss = Some(self.loss.map_or(k + 1, |l| l.max(k + 1))),
            Value::Illegal => {}
        }
    }
}

impl<const N: usize> Core<'_, N> {
    /// The stored value, for the side to move after it, of the position an exit (`rule`) of a
    /// move by side `mover` leads to; `after` has the moving man on its new square (and a
    /// captured man still on it, which the rule leaves out).
    #[inline]
    pub(super) fn exit_value(&self, after: &[Sq], rule: ExitRule, mover: usize) -> Value {
        Value::from_code(u32::from(self.exit_code(after, rule, mover)))
    }

    /// [`Core::exit_value`] as the other table's entry code, whatever its kind.
    #[inline]
    pub(super) fn exit_code(&self, after: &[Sq], rule: ExitRule, mover: usize) -> u8 {
        let sub = &self.shared.subs[rule.sub];
        let mut sq = self.exit_squares(after, rule);
        let k = rule.len;
        sub.layout.fold(&mut sq[..k]);
        let slot = sub.layout.slot(&sq[..k]);
        let side = (1 - mover) ^ usize::from(rule.flipped);
        sub.code(side, slot)
    }

    /// The squares, in the other table's order of men and unfolded, of the men after an exit
    /// (`rule`); `after` has the moving man on its new square (and a captured man still on it,
    /// which the rule leaves out).
    #[inline(always)]
    pub(super) fn exit_squares(&self, after: &[Sq], rule: ExitRule) -> [Sq; MAX_MEN] {
        let mut sq = [0 as Sq; MAX_MEN];
        for (j, &s) in after.iter().enumerate() {
            if rule.to[j] != NO_MAN {
                sq[rule.to[j]] = if rule.flipped {
                    self.shared.mirror_rank[usize::from(s)]
                } else {
                    s
                };
            }
        }
        sq
    }

    /// Calls `visit` with the value (for the side to move after it) of every move of side `x`
    /// in `p` that leaves the table: captures, and promotions with and without a capture.
    #[inline]
    pub(super) fn for_each_exit(
        &self,
        p: &Placed<N>,
        attacks: &[Board64; N],
        x: usize,
        visit: impl FnMut(Value),
    ) {
        self.for_each_exit_but(p, attacks, x, &[0; N], visit);
    }

    /// [`Core::for_each_exit`], leaving out the captures and promotions by each man `i` on (or
    /// onto) the squares of `skip[i]`.
    #[inline(always)]
    pub(super) fn for_each_exit_but(
        &self,
        p: &Placed<N>,
        attacks: &[Board64; N],
        x: usize,
        skip: &[Board64; N],
        mut visit: impl FnMut(Value),
    ) {
        if self.sliced {
            for &i in &self.shared.side_men[x][..self.shared.side_len[x]] {
                if self.shared.piece[i] == Piece::Pawn {
                    let pushes = self.shared.bits.pawn_pushes(x, p.sq[i], p.occ);
                    let staying = pushes & !self.shared.bits.last_rank(x);
                    self.for_each_push_exit(p, i, staying, x, &mut visit);
                }
            }
        }
        self.for_each_leaving_move_but(p, attacks, x, skip, |after, rule| {
            visit(self.exit_value(after, rule, x))
        });
    }

    /// Calls `visit` with every capture and promotion of side `x` in `p` (`attacks` its men's
    /// attacks), as the squares after it (the moving man on his new square, a captured man
    /// still on it) and the rule of the table it leads into, leaving out the captures and
    /// promotions by each man `i` on (or onto) the squares of `skip[i]`. A sliced layout's
    /// pushes into other slices are not among them.
    #[inline(always)]
    pub(super) fn for_each_leaving_move_but(
        &self,
        p: &Placed<N>,
        attacks: &[Board64; N],
        x: usize,
        skip: &[Board64; N],
        mut visit: impl FnMut(&[Sq; N], ExitRule),
    ) {
        let y = 1 - x;
        for &i in &self.shared.side_men[x][..self.shared.side_len[x]] {
            let from = p.sq[i];
            let mut targets = attacks[i] & p.by_side[y] & !skip[i];
            if self.shared.piece[i] == Piece::Pawn {
                let pushes = self.shared.bits.pawn_pushes(x, from, p.occ);
                targets |= pushes & self.shared.bits.last_rank(x) & !skip[i];
            }
            while targets != 0 {
                let t = targets.trailing_zeros() as Sq;
                targets &= targets - 1;
                let mut after = p.sq;
                after[i] = t;
                let captured = (p.by_side[y] & (1 << t) != 0).then(|| self.man_on(&p.sq, y, t));
                if self.promotes(i, t) {
                    for k in 0..Piece::PROMOTIONS.len() {
                        let rule = match captured {
                            Some(j) => self.shared.exits.promotion_capture(i, j, k),
                            None => self.shared.exits.promotions[i][k].expect("pawns promote"),
                        };
                        visit(&after, rule);
                    }
                } else {
                    let j = captured.expect("a move that stays is no exit");
                    let rule = self.shared.exits.captures[j].expect("kings are never captured");
                    visit(&after, rule);
                }
            }
        }
    }
}
