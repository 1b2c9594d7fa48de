//! The proof that the engine simulates the natural model, by exhaustive comparison.
//!
//! Owns: [`Scope`], [`Report`], [`run`].
//! Must never: skip a position of its scope.
//!
//! For every position of every material of a scope — every placement of the men on distinct
//! squares (identical men interchangeable), either side to move, and every consistent
//! en-passant target — it checks:
//!
//! 1. **legality**: `Position::is_legal` ⟺ `retro_rules::laws::chess_legal`;
//! 2. **index**: every legal position has an index; `position(index(p))` is an image of `p`
//!    under a symmetry the index removes, and every such image of `p` has the same index; the
//!    stabilizer sizes the generator and the statistics rely on match a direct count;
//! 3. **moves**: for legal positions, the engine's moves (with the positions they lead to) are
//!    exactly `retro_rules::laws::successors`;
//! 4. **outcome**: checkmate and stalemate agree with `checkmated` and `stalemated`; and the
//!    generator's shortcut, `Position::quiet_move_count`, finds exactly the listed moves;
//! 5. **un-moves are the inverse of moves**: every predecessor the engine yields for a legal
//!    position `p` is legal and has `p` among its (already proven) moves, and none is yielded
//!    twice (soundness); and the number of (predecessor, position) pairs the un-move generator
//!    yields over the whole scope equals the number of (position, successor) pairs of the move
//!    generator, so no predecessor is missed (completeness). A 128-bit sum of the pairs'
//!    hashes is compared too, so a report names the kind of mismatch, though the counts and the
//!    soundness check alone carry the proof. Pairs are tallied by the material moved from, so a
//!    failure names the material whose predecessors are missed.
//!
//! A scope is closed: captures and promotions from its positions lead to its positions, and the
//! un-moves are asked only for predecessors inside it (put back a captured man only while the
//! material has fewer men than the scope allows; undo promotions only when pawns are in scope).

use crate::geometry::Geometry;
use crate::index::Indexer;
use crate::material::Material;
use crate::position::{Man, TablePosition as Position};
use crate::sqset::Sq;
use crate::unmove::Retractions;
use rayon::prelude::*;
use retro_rules::{Board, Piece, Side};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// A board and the materials checked on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scope {
    /// The board.
    pub board: Board,
    /// The most men (kings included) of a material in scope.
    pub max_men: usize,
    /// Whether materials with pawns are in scope.
    pub pawns: bool,
}

impl Scope {
    /// The default scope, run in CI: up to 3 men on 8×8, up to 4 men on 4×4 and 4×5 (a board with
    /// room for a double step short of the last rank, so en passant too).
    pub fn defaults() -> Vec<Scope> {
        vec![
            Scope {
                board: Board::STANDARD,
                max_men: 3,
                pawns: true,
            },
            Scope {
                board: Board::new(4, 4).expect("4x4"),
                max_men: 4,
                pawns: true,
            },
            Scope {
                board: Board::new(4, 5).expect("4x5"),
                max_men: 4,
                pawns: true,
            },
        ]
    }

    /// `--full`: every material of up to 4 men, pawnless and with pawns, on 8×8 and on 5×5 (the
    /// square board with a middle file and rank that CI's default scope leaves out for time).
    pub fn full() -> Vec<Scope> {
        [Board::STANDARD, Board::new(5, 5).expect("5x5")]
            .into_iter()
            .map(|board| Scope {
                board,
                max_men: 4,
                pawns: true,
            })
            .collect()
    }

    /// The materials of the scope, smallest first.
    pub fn materials(&self) -> Vec<Material> {
        Material::all_up_to(self.max_men, self.pawns)
    }
}

/// A disagreement between the engine and the natural model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The board.
    pub board: Board,
    /// The material.
    pub material: Material,
    /// The position, in FEN.
    pub fen: String,
    /// Which check failed.
    pub check: &'static str,
    /// What differs.
    pub detail: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} on {}: {} fails at {}: {}",
            self.material, self.board, self.check, self.fen, self.detail
        )
    }
}

/// What a run checked and found.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Materials checked.
    pub materials: usize,
    /// Positions examined (placements × side to move × en-passant variants).
    pub positions: u64,
    /// Of which legal.
    pub legal: u64,
    /// (position, successor) pairs generated.
    pub moves: u64,
    /// (predecessor, position) pairs generated.
    pub retractions: u64,
    /// Number of failed checks.
    pub failure_count: u64,
    /// The first failures found (at most [`Report::EXAMPLES`]).
    pub failures: Vec<Failure>,
    /// Wall-clock time.
    pub elapsed: Duration,
    /// Pairs counted from both ends, by the material of the position moved from.
    tallies: BTreeMap<Material, Tally>,
}

/// (position, successor) pairs counted by moves and by un-moves, with their fingerprints.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Tally {
    moves: u64,
    move_hash: [u64; 2],
    retractions: u64,
    retraction_hash: [u64; 2],
}

impl Tally {
    fn add(hash: &mut [u64; 2], h: [u64; 2]) {
        hash[0] = hash[0].wrapping_add(h[0]);
        hash[1] = hash[1].wrapping_add(h[1]);
    }

    fn merge(&mut self, other: &Tally) {
        self.moves += other.moves;
        self.retractions += other.retractions;
        Tally::add(&mut self.move_hash, other.move_hash);
        Tally::add(&mut self.retraction_hash, other.retraction_hash);
    }
}

impl Report {
    /// How many failures are kept with their positions.
    pub const EXAMPLES: usize = 20;

    /// Whether every check passed.
    pub fn passed(&self) -> bool {
        self.failure_count == 0
    }

    fn fail(&mut self, failure: Failure) {
        self.failure_count += 1;
        if self.failures.len() < Self::EXAMPLES {
            self.failures.push(failure);
        }
    }

    fn merge(mut self, other: Report) -> Report {
        self.materials += other.materials;
        self.positions += other.positions;
        self.legal += other.legal;
        self.moves += other.moves;
        self.retractions += other.retractions;
        self.failure_count += other.failure_count;
        for f in other.failures {
            if self.failures.len() < Self::EXAMPLES {
                self.failures.push(f);
            }
        }
        for (material, tally) in &other.tallies {
            self.tallies.entry(*material).or_default().merge(tally);
        }
        self
    }
}

/// Progress of a run: materials done, materials in all, and the one just finished.
#[derive(Debug, Clone)]
pub struct Progress {
    /// Materials finished.
    pub done: usize,
    /// Materials in all scopes.
    pub total: usize,
    /// The board of the material just finished.
    pub board: Board,
    /// The material just finished.
    pub material: Material,
}

/// A 128-bit fingerprint of a (position, position) pair, for the completeness diagnostics.
fn edge_hash(from: &Position, to: &Position) -> [u64; 2] {
    let mut state = [0x243F_6A88_85A3_08D3u64, 0x1319_8A2E_0370_7344u64];
    let mut mix = |word: u64| {
        for (i, s) in state.iter_mut().enumerate() {
            *s = (*s ^ word).wrapping_mul(if i == 0 {
                0x9E37_79B9_7F4A_7C15
            } else {
                0xC2B2_AE3D_27D4_EB4F
            });
            *s ^= *s >> 29;
        }
    };
    for p in [from, to] {
        mix(p.side_to_move() as u64 | u64::from(p.en_passant().map_or(0, |s| s + 1)) << 8);
        for m in p.men() {
            mix(u64::from(m.sq) | (m.piece as u64) << 8 | (m.side as u64) << 16);
        }
    }
    state
}

struct Context<'a> {
    geo: &'a Geometry,
    indexer: &'a Indexer,
    material: Material,
    retractions: Retractions,
}

/// Runs the self-check over `scopes`, calling `progress` after each material.
pub fn run(scopes: &[Scope], progress: &(dyn Fn(Progress) + Sync)) -> Report {
    let start = Instant::now();
    let total: usize = scopes.iter().map(|s| s.materials().len()).sum();
    let done = AtomicUsize::new(0);
    let mut report = Report::default();
    for scope in scopes {
        let geo = Geometry::new(scope.board);
        let mut scope_report = Report::default();
        for material in scope.materials() {
            let r = check_material(&geo, scope, material);
            scope_report = scope_report.merge(r);
            progress(Progress {
                done: done.fetch_add(1, Ordering::Relaxed) + 1,
                total,
                board: scope.board,
                material,
            });
        }
        // Completeness of un-moves: the pairs counted from both ends agree, material by material.
        let mismatched: Vec<(Material, Tally)> = scope_report
            .tallies
            .iter()
            .filter(|(_, t)| t.moves != t.retractions || t.move_hash != t.retraction_hash)
            .map(|(m, t)| (*m, *t))
            .collect();
        for (material, t) in mismatched {
            let detail = format!(
                "moves from {material} give {} (position, successor) pairs, un-moves give {} (predecessor, position) pairs{}",
                t.moves,
                t.retractions,
                if t.moves == t.retractions { " (same count, different pairs)" } else { "" }
            );
            scope_report.fail(Failure {
                board: scope.board,
                material,
                fen: "(all positions)".to_string(),
                check: "un-moves are the inverse of moves",
                detail,
            });
        }
        scope_report.tallies.clear();
        report = report.merge(scope_report);
    }
    report.elapsed = start.elapsed();
    report
}

fn check_material(geo: &Geometry, scope: &Scope, material: Material) -> Report {
    let indexer = match Indexer::new(geo, material) {
        Ok(ix) => ix,
        Err(e) => {
            let mut r = Report::default();
            r.fail(Failure {
                board: scope.board,
                material,
                fen: String::new(),
                check: "index",
                detail: e.to_string(),
            });
            return r;
        }
    };
    let mut uncapture = [false; 6];
    if material.len() < scope.max_men {
        for piece in Piece::PROMOTIONS {
            uncapture[crate::material::piece_index(piece)] = true;
        }
        uncapture[crate::material::piece_index(Piece::Pawn)] = scope.pawns;
    }
    let context = Context {
        geo,
        indexer: &indexer,
        material,
        retractions: Retractions {
            uncapture,
            unpromote: scope.pawns,
            pawn_moves: true,
        },
    };
    let men = material.men();
    let mut report = (0..geo.square_count())
        .into_par_iter()
        .map(|first| {
            let mut report = Report::default();
            let mut placed = vec![Man {
                side: men[0].0,
                piece: men[0].1,
                sq: first as u8,
            }];
            place(&context, &men, &mut placed, &mut report);
            report
        })
        .reduce(Report::default, Report::merge);
    report.materials = 1;
    report
}

/// Places the remaining men on free squares (identical men in increasing order), then checks
/// every position of the placement.
fn place(ctx: &Context, men: &[(Side, Piece)], placed: &mut Vec<Man>, report: &mut Report) {
    let next = placed.len();
    if next == men.len() {
        check_placement(ctx, placed, report);
        return;
    }
    let (side, piece) = men[next];
    let last = placed.last().expect("the first man is placed");
    let start = if (last.side, last.piece) == (side, piece) {
        usize::from(last.sq) + 1
    } else {
        0
    };
    for sq in start..ctx.geo.square_count() {
        let sq = sq as u8;
        if placed.iter().any(|m| m.sq == sq) {
            continue;
        }
        placed.push(Man { side, piece, sq });
        place(ctx, men, placed, report);
        placed.pop();
    }
}

fn check_placement(ctx: &Context, placed: &[Man], report: &mut Report) {
    let geo = ctx.geo;
    for stm in Side::ALL {
        let base = Position::new(geo, placed.iter().copied(), stm, None)
            .expect("distinct squares on the board");
        let mut variants = vec![base];
        for m in base.men() {
            if m.side != stm && m.piece == Piece::Pawn {
                if let Some(target) = geo.ahead(m.side, m.sq, -1) {
                    if base.en_passant_consistent(geo, target) {
                        variants.push(base.with_en_passant(Some(target)));
                    }
                }
            }
        }
        for p in variants {
            check_position(ctx, &p, report);
        }
    }
}

fn check_position(ctx: &Context, p: &Position, report: &mut Report) {
    let geo = ctx.geo;
    report.positions += 1;
    let natural = p.to_natural(geo);
    let fail = |report: &mut Report, check: &'static str, detail: String| {
        report.fail(Failure {
            board: geo.board(),
            material: ctx.material,
            fen: natural.fen(),
            check,
            detail,
        })
    };

    // 1. Legality.
    let legal = retro_rules::laws::chess_legal(&natural);
    if p.is_legal(geo) != legal {
        fail(
            report,
            "legality",
            format!("natural model says legal = {legal}, engine says {}", !legal),
        );
        return;
    }

    // 2. Index.
    match ctx.indexer.index(geo, p) {
        None if legal => fail(report, "index", "a legal position has no index".to_string()),
        None => {}
        Some(index) => {
            let images: Vec<Position> = ctx
                .indexer
                .symmetries()
                .iter()
                .map(|&s| p.transformed(&geo.symmetries()[s]))
                .collect();
            match ctx.indexer.position(geo, index, p.side_to_move()) {
                Some(q) if images.contains(&q) => {}
                Some(q) => fail(
                    report,
                    "index",
                    format!(
                        "index {index} decodes to {}, not an image",
                        q.to_natural(geo).fen()
                    ),
                ),
                None => fail(report, "index", format!("index {index} decodes to nothing")),
            }
            for image in &images {
                let other = ctx.indexer.index(geo, image);
                if other != Some(index) {
                    fail(
                        report,
                        "index",
                        format!(
                            "image {} has index {other:?}, not {index}",
                            image.to_natural(geo).fen()
                        ),
                    );
                }
            }
            let fixed = images.iter().filter(|image| *image == p).count() as u32;
            let pointwise = ctx
                .indexer
                .symmetries()
                .iter()
                .filter(|&&s| {
                    let sym = &geo.symmetries()[s];
                    p.men().iter().all(|m| sym.apply(m.sq) == m.sq)
                        && p.en_passant().is_none_or(|t| sym.apply(t) == t)
                })
                .count() as u32;
            let (stabilizer, fixers) = (
                ctx.indexer.stabilizer_size(geo, p),
                ctx.indexer.pointwise_fixers(geo, p),
            );
            if stabilizer != fixed || fixers != pointwise {
                fail(
                    report,
                    "index",
                    format!("stabilizer {stabilizer} (a direct count gives {fixed}), pointwise fixers {fixers} (direct: {pointwise})"),
                );
            }
        }
    }
    if !legal {
        return;
    }
    report.legal += 1;

    // 3. Moves: the engine's, and the natural model's brought into the engine's representation.
    let fast = p.legal_moves(geo);
    type Named = ((Sq, Sq, Option<Piece>), Position);
    let mut fast_named: Vec<Named> = fast
        .iter()
        .map(|(mv, after)| ((mv.from, mv.to, mv.promotion), *after))
        .collect();
    let mut natural_named: Vec<Named> = Vec::new();
    for (mv, after) in retro_rules::laws::successors(&natural) {
        match (
            geo.from_square(mv.from),
            geo.from_square(mv.to),
            Position::from_natural(geo, &after),
        ) {
            (Some(from), Some(to), Ok(q)) => natural_named.push(((from, to, mv.promotion), q)),
            _ => {
                fail(
                    report,
                    "moves",
                    format!("the natural model's move {mv} leaves the board"),
                );
                return;
            }
        }
    }
    fast_named.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    natural_named.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    if fast_named != natural_named {
        let only = |a: &[Named], b: &[Named]| {
            a.iter()
                .filter(|x| !b.contains(x))
                .map(|((from, to, promotion), after)| {
                    let name = retro_rules::Move {
                        from: geo.square(*from),
                        to: geo.square(*to),
                        promotion: *promotion,
                    };
                    format!("{name} → {}", after.to_natural(geo).fen())
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        fail(
            report,
            "moves",
            format!(
                "engine only: [{}]; natural model only: [{}]",
                only(&fast_named, &natural_named),
                only(&natural_named, &fast_named)
            ),
        );
        return;
    }
    let mut outgoing = Tally::default();
    for (_, after) in &fast {
        outgoing.moves += 1;
        Tally::add(&mut outgoing.move_hash, edge_hash(p, after));
    }
    report.moves += outgoing.moves;
    report
        .tallies
        .entry(ctx.material)
        .or_default()
        .merge(&outgoing);

    // The counting shortcut of retrograde analysis lists the same moves.
    let mut captures_counted = Vec::new();
    let mut king_steps = Vec::new();
    if let Some(count) = p.quiet_move_count(
        geo,
        |mv| captures_counted.push(mv),
        |mv| king_steps.push(mv),
    ) {
        let mut listed_captures: Vec<_> = fast
            .iter()
            .map(|(mv, _)| *mv)
            .filter(|mv| mv.captured.is_some())
            .collect();
        let mut listed_kings: Vec<_> = fast
            .iter()
            .map(|(mv, _)| *mv)
            .filter(|mv| mv.captured.is_none() && mv.piece == Piece::King)
            .collect();
        let listed_others = fast
            .iter()
            .filter(|(mv, _)| mv.captured.is_none() && mv.piece != Piece::King)
            .count();
        let key = |m: &crate::position::Move| (m.from, m.to);
        for list in [
            &mut listed_captures,
            &mut listed_kings,
            &mut captures_counted,
            &mut king_steps,
        ] {
            list.sort_by_key(key);
        }
        if count as usize != listed_others
            || captures_counted != listed_captures
            || king_steps != listed_kings
        {
            fail(
                report,
                "quiet move count",
                format!(
                    "counted {count} quiet moves, {} captures, {} king steps; listed {listed_others}, {}, {}",
                    captures_counted.len(),
                    king_steps.len(),
                    listed_captures.len(),
                    listed_kings.len()
                ),
            );
        }
    }

    // 4. Outcome.
    let mate = retro_rules::laws::checkmated(&natural);
    let stalemate = retro_rules::laws::stalemated(&natural);
    if p.is_checkmate(geo) != mate || p.is_stalemate(geo) != stalemate {
        fail(
            report,
            "checkmate and stalemate",
            format!(
                "natural model: mate {mate}, stalemate {stalemate}; engine: mate {}, stalemate {}",
                p.is_checkmate(geo),
                p.is_stalemate(geo)
            ),
        );
    }

    // 5. Un-moves: each predecessor is legal, has p among its moves, and is new.
    let mut predecessors: Vec<Position> = Vec::new();
    p.for_each_predecessor(geo, ctx.retractions, |before| predecessors.push(before));
    for (i, before) in predecessors.iter().enumerate() {
        report.retractions += 1;
        let material = if before.men().len() == p.men().len()
            && before
                .men()
                .iter()
                .zip(p.men())
                .all(|(a, b)| a.piece == b.piece)
        {
            ctx.material
        } else {
            before.material()
        };
        let tally = report.tallies.entry(material).or_default();
        tally.retractions += 1;
        Tally::add(&mut tally.retraction_hash, edge_hash(before, p));
        // Only a man of the side to move in `before` whose square is empty in `p` can have moved.
        let mut leads_here = false;
        if before.is_legal(geo) {
            let occupied_here = p.occupied();
            for m in before.men() {
                if m.side == before.side_to_move() && !occupied_here.contains(m.sq) {
                    before
                        .for_each_move_from(geo, Some(m.sq), |_, after| leads_here |= after == *p);
                }
            }
        }
        if !leads_here {
            fail(
                report,
                "un-moves",
                format!(
                    "{} is yielded as a predecessor but has no move here",
                    before.to_natural(geo).fen()
                ),
            );
        }
        if predecessors[..i].contains(before) {
            fail(
                report,
                "un-moves",
                format!("{} is yielded twice", before.to_natural(geo).fen()),
            );
        }
    }
}
