//! Checking the positions of a category a lane at a time: the positions that differ only in the
//! square of the last listed man.
//!
//! Owns: [`check_pair`], the per-position summaries of a lane ([`Lanes`]).
//! Must never: take a move, a check or a value any other way than [`crate::moves`] and the
//! tables' own entries do; every position is still checked by (P), (C), (W), (L) and (D) on its
//! own, and a failing one again from the natural model's moves.
//!
//! # When and why
//!
//! When the last listed man `X` is a piece other than a king, on a board of at most 64 squares,
//! and no position has an en-passant target ([`Scheme::has_lanes`]: pawns of one side at most,
//! so that a position is its placement and side to move), the placements with the other men
//! fixed (the *prefix*) and `X` on each free square `x` are its *lane* — from
//! [`Scheme::lane_start`] on, past the men identical to `X`, so that each placement of the
//! category is in exactly one lane. Where one symmetry `g` gives every placement of the lane
//! its least key ([`Scheme::lane_symmetry`]: it alone minimises the king pair, or alone of
//! those that do gives the men before `X`'s group their least key), the position with `X` on
//! any free square `x` sits at entry `b + d[x]` ([`Scheme::lane_base`],
//! [`Scheme::lane_digits`]): the other groups' digits do not depend on `x`, and the last
//! group's, of weight 1, is a function of `x` alone — `x` itself when `X` has no identical man
//! and `g` is the identity (consecutive entries), `g(x)` under another `g`, and the rank of the
//! group with `g(x)` inserted among its other men's images when it has identical men.
//!
//! A move of a man `Y` other than `X`, from `a` to `b`, is the same in every position of the
//! lane except where `X` is in the way: by the runs of [`Lines::runs`], it is a move (a sortie)
//! in the lane's position on `x` exactly when `x` is free, `x ≠ b` and `x` is not between `a`
//! and `b` (`X` on `b` is captured instead, or, of `Y`'s side, stops it). So one walk of `Y`'s
//! runs over the prefix alone finds its sorties for all the lane's positions at once, as a set
//! of lanes; the positions they lead to form the lane of the prefix after the move, whose
//! entries `b′ + d′[x]` are read and folded into 64 summaries in one pass. When that lane is
//! read through the lane's own symmetry (the identity: a lane with canonical positions is read
//! through it, and one read through another symmetry has none, and is passed over) and `Y` is
//! not identical to `X`, so that `X`'s group keeps its other men, the digits `d′` are the
//! lane's own `d`. The sorties of `X` itself from `x` leave the prefix where it is, so a sortie
//! to `y` reaches the lane's own entry `b + d[y]` (the other side to move): one walk of `X`'s
//! runs over the prefix per position, each step a read from the same block of entries. A
//! capture of a man `Z` of the prefix, by `Y` or by `X`, leads into a smaller table where, the
//! other men fixed, the entry is `b″ + w × g[x]` for `X` on `x` ([`Scheme::man_lane`], through
//! the colour exchange's mirror when that table is stored with the colours exchanged) whenever
//! `X` is alone of its kind there and the king pair has one minimiser: its base is found once
//! per capture rather than an index per position; so, for a capture of `X` on `b` by `Y`, is
//! the entry by `Y`'s square `b`, once per man `Y`. Every other move (a capture where that does
//! not hold, a move to a lane with no one symmetry, every move of a lane with no one symmetry,
//! and every move of a pawn: pushes, double steps and promotions are few, and a pawn does not
//! move along runs) is taken position by position, as [`crate::Checker`] does.
//!
//! # Legal moves from the table
//!
//! These walks find the moves that are legal but for the mover's king: the moves of the
//! natural model are those among them after which the mover is not in check, that is, whose
//! position is legal. Here that is read from the entry: a position reached is legal exactly
//! when its entry is not *none* (0). That is fact (P), of this table (checked, over the whole
//! category, by the count at the end) and of the tables captures lead into (checked before).
//! So if every fact holds, the summaries made here are those of the legal moves, and the
//! proof in the crate's documentation goes through unchanged; if (P) fails somewhere, the
//! check fails anyway. A king moving next to the other king is in check (`king_attacks`), so
//! such a move is never legal and has no entry: it is dropped before its entry is sought.
//! Nor is a king ever taken: a man that could take it gives check with its own side to move,
//! so the lane's position is not legal and is not checked. Where the moves of `X` are taken
//! by [`Placement::for_each_move_of`], they are tested for check as the rest of the checker
//! tests them; one of them reaching an entry of 0 is dropped too, since by (P) it is not legal.
//! Each position's own legality, and whether its side to move is in check (mate or
//! stalemate), are [`Placement`]'s, as everywhere in the checker.

use crate::lines::Lines;
use crate::moves::{Placement, Step};
use crate::scheme::{LaneDigits, Scheme, MAX_MEN};
use crate::{out_of_range, CaptureLane, Child, Children, Summary, VerifyError};
use retro_format::{Codes, Table, Value};
use retro_rules::{opponent, Man, Piece, Side};

/// The summaries of the moves of up to 64 positions of a lane, by the last man's square, in
/// entry codes (`Value::code`).
struct Lanes {
    /// The least code of a loss reached (`u16::MAX` for none: a loss's code is even).
    least_loss: [u16; 64],
    /// The greatest code of a win reached (0 for none).
    greatest_win: [u16; 64],
    /// A draw is reached (1) or not (0).
    draw: [u8; 64],
    /// Something other than a win is reached.
    not_win: [u8; 64],
    /// Some legal move is found.
    moved: [u8; 64],
}

impl Lanes {
    fn new() -> Lanes {
        Lanes {
            least_loss: [u16::MAX; 64],
            greatest_win: [0; 64],
            draw: [0; 64],
            not_win: [0; 64],
            moved: [0; 64],
        }
    }

    /// Adds, for every lane `x` in `lanes`, a move reaching the entry of code `codes[x]`; an
    /// entry of 0 is no move (see the module documentation).
    #[inline]
    fn fold(&mut self, codes: &[u8], lanes: u64) {
        for (x, &code) in codes.iter().enumerate().take(64) {
            let on = 0u8.wrapping_sub((lanes >> x & 1) as u8);
            let c = code & on;
            let odd = c & 1 == 1;
            let loss = !odd && c != 0;
            let win = odd && c != 1;
            let draw = c == 1;
            let wide = u16::from(c);
            self.least_loss[x] = self.least_loss[x].min(if loss { wide } else { u16::MAX });
            self.greatest_win[x] = self.greatest_win[x].max(if win { wide } else { 0 });
            self.draw[x] |= u8::from(draw);
            self.not_win[x] |= u8::from(draw || loss);
            self.moved[x] |= u8::from(c != 0);
        }
    }

    /// Adds a move of lane `x` reaching an entry of code `code` (0: no move).
    #[inline]
    fn add(&mut self, x: u32, code: u32) {
        let x = x as usize;
        // Entries are at most two bytes.
        let code = code as u16;
        match code {
            0 => return,
            1 => {
                self.draw[x] = 1;
                self.not_win[x] = 1;
            }
            c if c % 2 == 0 => {
                self.least_loss[x] = self.least_loss[x].min(c);
                self.not_win[x] = 1;
            }
            c => self.greatest_win[x] = self.greatest_win[x].max(c),
        }
        self.moved[x] = 1;
    }

    /// Lane `x`'s summary, its side to move in check when `in_check`.
    fn summary(&self, x: u32, in_check: bool) -> Summary {
        let x = x as usize;
        let mut summary = Summary::new(in_check);
        summary.moves = u32::from(self.moved[x]);
        if self.least_loss[x] != u16::MAX {
            summary.quickest_loss = u32::from(self.least_loss[x]) - 2;
        }
        summary.all_wins = self.not_win[x] == 0;
        summary.deepest_win_code = u32::from(self.greatest_win[x]);
        summary.any_draw = self.draw[x] == 1;
        summary
    }
}

/// The squares of a board of at most 64 squares, as bits.
fn board_bits(count: usize) -> u64 {
    if count == 64 {
        u64::MAX
    } else {
        (1u64 << count) - 1
    }
}

/// Checks every canonical position whose kings form `pair`, lane by lane, counting the legal
/// ones into `legal` and calling `fallback` with each position (placement, side to move,
/// stored code) whose summary fails; returns the number of placements examined.
#[allow(clippy::too_many_arguments)]
pub(crate) fn check_pair(
    scheme: &Scheme,
    lines: &Lines,
    listed: &[Man],
    children: &Children,
    table: &Table,
    pair: (u32, u32),
    legal: &mut [u64; 2],
    fallback: &mut dyn FnMut(&Placement, Side, u32) -> Result<(), VerifyError>,
) -> Result<u64, VerifyError> {
    let codes = [table.codes(true), table.codes(false)];
    let mut examined = 0;
    let mut result = Ok(());
    scheme.for_each_lane_prefix(pair, |prefix| {
        if result.is_err() {
            return;
        }
        result = check_prefix(
            scheme, lines, listed, children, &codes, table, prefix, legal, fallback,
        )
        .map(|placements| examined += placements);
    });
    result.map(|()| examined)
}

/// [`check_pair`] for the lane of one prefix; returns the number of placements in the lane.
#[allow(clippy::too_many_arguments)]
fn check_prefix(
    scheme: &Scheme,
    lines: &Lines,
    listed: &[Man],
    children: &Children,
    codes: &[Codes; 2],
    table: &Table,
    prefix: &[u32],
    legal: &mut [u64; 2],
    fallback: &mut dyn FnMut(&Placement, Side, u32) -> Result<(), VerifyError>,
) -> Result<u64, VerifyError> {
    let n = listed.len();
    let last = n - 1;
    let count = lines.board().square_count();
    let occupied = prefix.iter().fold(0u64, |set, &k| set | 1 << k);
    let lane = board_bits(count) & !occupied & from(scheme.lane_start(prefix));
    let radix = usize::try_from(scheme.lane_radix()).expect("a lane's digits fit in memory");
    let mut prefix_numbers = [0u32; MAX_MEN];
    prefix_numbers[..last].copy_from_slice(prefix);
    let with = |x: u32| {
        let mut numbers = prefix_numbers;
        numbers[last] = x;
        numbers
    };
    // The lane's canonical positions and their indices: where the lane is read through the
    // identity, all of them, at `base + digits[x]`; where through another symmetry, none.
    let own = match scheme.lane_symmetry(prefix) {
        Some(0) => Some((scheme.lane_base(prefix, 0), scheme.lane_digits(prefix, 0))),
        Some(_) => return Ok(u64::from(lane.count_ones())),
        None => None,
    };
    let mut canonical = 0u64;
    let mut indices = [0u64; 64];
    // The canonical positions' placements, made once for both sides to move.
    let mut placements: [Option<Placement>; 64] = [None; 64];
    for x in bits(lane) {
        let numbers = with(x);
        let index = match &own {
            Some((base, digits)) => base + digits.get(x) as u64,
            None if scheme.is_canonical_numbers(&numbers[..n]) => scheme
                .index_of_canonical(&numbers[..n])
                .expect("canonical pairs have an index"),
            None => continue,
        };
        canonical |= 1 << x;
        indices[x as usize] = index;
        placements[x as usize] = Some(Placement::new(lines, listed, &numbers[..n]));
    }
    // Whether each side has men whose moves are taken position by position: pawns, and `X`
    // where the lane has no digits.
    let by_position = Side::ALL.map(|side| {
        listed.iter().enumerate().any(|(man, &(owner, piece))| {
            owner == side && (piece == Piece::Pawn || (man == last && own.is_none()))
        })
    });
    // The first man of the last group (of men identical to `X`).
    let (last_group, _) = scheme.last_group();
    for side in Side::ALL {
        // The other king, which a king may not move next to.
        let other_king = prefix[usize::from(side == Side::White)] as u16;
        // The entries of positions reached (the other side to move).
        let reached = &codes[usize::from(side == Side::White)];
        let mut lanes = Lanes::new();
        // Moves of lane `x` taken one at a time: the entry they reach, if legal by the kings.
        let one = |x: u32, step: Step, lanes: &mut Lanes| -> Result<(), VerifyError> {
            let numbers = with(x);
            let mut after = numbers;
            after[step.man] = step.to;
            let code = match children.child_after(
                &numbers[..n],
                indices[x as usize],
                side,
                step,
                &after[..n],
            )? {
                Child::Here(index) => reached
                    .get(index)
                    .ok_or_else(|| out_of_range(table, index))?,
                Child::Code(code) => code,
            };
            lanes.add(x, code);
            Ok(())
        };
        for (i, &(owner, piece)) in listed[..last].iter().enumerate() {
            // A pawn's moves are taken position by position, below.
            if owner != side || piece == Piece::Pawn {
                continue;
            }
            let a = prefix[i] as u16;
            let runs = lines.runs(piece, a);
            let mut x_taken = None;
            let mut k = 0;
            while k < runs.len() {
                let (b, end) = runs[k];
                let beyond = !lines.between(a, b)[0];
                if piece == Piece::King && lines.reaches(Piece::King, b, other_king) {
                    k += 1;
                    continue;
                }
                let step = |captured| Step {
                    man: i,
                    to: u32::from(b),
                    captured,
                    promotion: None,
                    target: None,
                };
                if occupied >> b & 1 == 1 {
                    // A man of the prefix: captured if of the other side, in every lane where
                    // `X` is not in the way; the run stops here.
                    let j = prefix.iter().position(|&m| m == u32::from(b));
                    let j = j.expect("an occupied square holds a man of the prefix");
                    // A king is never taken: where it could be, its side is in check with the
                    // other to move, and the lane's position is not legal (dropped below).
                    if listed[j].0 != side && listed[j].1 != Piece::King {
                        let mut after = with(0);
                        after[i] = u32::from(b);
                        match children.capture_lane(&after[..n], j, last, side) {
                            Some(reached) => {
                                for x in bits(canonical & beyond) {
                                    lanes.add(x, reached.code(x)?);
                                }
                            }
                            None => {
                                for x in bits(canonical & beyond) {
                                    one(x, step(Some(j)), &mut lanes)?;
                                }
                            }
                        }
                    }
                    k = usize::from(end);
                    continue;
                }
                let sorties = canonical & beyond & !(1 << b);
                let mut after = with(0);
                after[i] = u32::from(b);
                let after = &after[..last];
                match scheme.lane_symmetry(after) {
                    Some(g) => {
                        let reached_base = scheme.lane_base(after, g);
                        let lane_codes = reached
                            .bytes(reached_base, radix)
                            .ok_or_else(|| out_of_range(table, reached_base))?;
                        // The digits are this lane's own when the lane reached is read
                        // through the same symmetry (the identity) and the last group's other
                        // men stand where they stood.
                        let computed;
                        let digits = match &own {
                            Some((_, digits)) if g == 0 && i < last_group => digits,
                            _ => {
                                computed = scheme.lane_digits(after, g);
                                &computed
                            }
                        };
                        match digits {
                            LaneDigits::Own => lanes.fold(lane_codes, sorties),
                            digits => {
                                // The entries reached, in the order of this lane's squares.
                                let mut gathered = [0u8; 64];
                                for x in bits(sorties) {
                                    gathered[x as usize] = lane_codes[digits.get(x)];
                                }
                                lanes.fold(&gathered[..count], sorties);
                            }
                        }
                    }
                    None => {
                        for x in bits(sorties) {
                            one(x, step(None), &mut lanes)?;
                        }
                    }
                }
                // `X` on `b`, of the other side: captured.
                if listed[last].0 != side && canonical >> b & 1 == 1 {
                    // The capture's entries by `Y`'s square, found once per man moving.
                    let reached = x_taken
                        .get_or_insert_with(|| children.capture_lane(&with(0)[..n], last, i, side));
                    match reached {
                        Some(reached) => lanes.add(u32::from(b), reached.code(u32::from(b))?),
                        None => one(u32::from(b), step(Some(last)), &mut lanes)?,
                    }
                }
                k += 1;
            }
        }
        // This lane's entries with the other side to move, reached by `X`'s sorties.
        let own_lane = match &own {
            Some((base, _)) => reached
                .bytes(*base, radix)
                .ok_or_else(|| out_of_range(table, *base))?,
            None => &[],
        };
        let mut x_captures: [Option<Option<CaptureLane>>; MAX_MEN] = std::array::from_fn(|_| None);
        for x in bits(canonical) {
            let placement = placements[x as usize].expect("every canonical position is placed");
            if placement.in_check(opponent(side)) {
                continue;
            }
            legal[usize::from(side == Side::Black)] += 1;
            let index = indices[x as usize];
            if let (true, Some((_, digits))) = (listed[last].0 == side, &own) {
                // `X`'s own moves from `x`: its runs over the prefix; a sortie to `y` reaches
                // this lane's entry of `y` (the prefix is unchanged), a capture another table.
                let piece = listed[last].1;
                let runs = lines.runs(piece, x as u16);
                let mut k = 0;
                while k < runs.len() {
                    let (y, end) = runs[k];
                    if occupied >> y & 1 == 0 {
                        lanes.add(x, u32::from(own_lane[digits.get(u32::from(y))]));
                        k += 1;
                        continue;
                    }
                    let j = prefix.iter().position(|&m| m == u32::from(y));
                    let j = j.expect("an occupied square holds a man of the prefix");
                    // The other king is never taken in a legal position.
                    if listed[j].0 != side && listed[j].1 != Piece::King {
                        // The capture's entries by `X`'s square, found once per man taken.
                        let reached = x_captures[j].get_or_insert_with(|| {
                            children.capture_lane(&with(0)[..n], j, last, side)
                        });
                        match reached {
                            Some(reached) => lanes.add(x, reached.code(u32::from(y))?),
                            None => {
                                let step = Step {
                                    man: last,
                                    to: u32::from(y),
                                    captured: Some(j),
                                    promotion: None,
                                    target: None,
                                };
                                one(x, step, &mut lanes)?;
                            }
                        }
                    }
                    k = usize::from(end);
                }
            }
            if by_position[usize::from(side == Side::Black)] {
                let mut error = Ok(());
                placement.for_each_move_of(
                    side,
                    |man| listed[man].1 == Piece::Pawn || (man == last && own.is_none()),
                    |step, _| {
                        if error.is_ok() {
                            error = one(x, step, &mut lanes);
                        }
                    },
                );
                error?;
            }
            // Whether the side to move is in check matters only without a move (mate or
            // stalemate).
            let mut summary = lanes.summary(x, false);
            if summary.moves == 0 {
                summary.in_check = placement.in_check(side);
            }
            let stored = codes[usize::from(side == Side::Black)]
                .get(index)
                .ok_or_else(|| out_of_range(table, index))?;
            if !summary.holds_for(Value::from_code(stored)) {
                fallback(&placement, side, stored)?;
            }
        }
    }
    Ok(u64::from(lane.count_ones()))
}

/// The squares numbered `start` or more, as bits.
fn from(start: u32) -> u64 {
    u64::MAX.checked_shl(start).unwrap_or(0)
}

/// The members of a set of at most 64 squares, least first.
fn bits(mut set: u64) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let x = set.trailing_zeros();
            set &= set - 1;
            x
        })
    })
}
