//! Statistics of a table: legal positions, wins, draws and losses for the side to move, the
//! longest win and loss with an example, and the number of positions at each depth — in two
//! counting conventions.
//!
//! Owns: [`MaterialStats`], [`SideStats`], [`EnPassantStats`], [`Counts`], [`material_stats`];
//! under the fifty-move rule, [`FiftyStats`] and [`fifty_stats`] (the five classes and the
//! distances to zeroing).
//!
//! Positions with an en-passant target are counted apart ([`SideStats::en_passant`]); every
//! other count, depth and example is of the positions without one.
//!
//! * **raw**: every placement of the men on the board, identical men distinguishable, no
//!   symmetry reduction — Hurd's convention in Table 1. A stored (canonical) position `x`
//!   stands for `L · |G| / |Stab x|` placements, where `G` is the symmetry group the index
//!   removes and `L = ∏ kᵢ!` the number of ways to label its identical men.
//! * **unique**: the number of orbits of those placements under `G`, by Burnside's lemma,
//!   `(1/|G|) Σ_g |Fix g|`. The placements of `x`'s orbit contribute `L · |G|/|Stab x| ·
//!   PF(x)`, where `PF(x)` counts the symmetries leaving every man on its own square, so `x`
//!   stands for `L · PF(x) / |Stab x|` orbits — 1 when its men are all different.

use crate::probe::{ProbeError, Tablebase};
use rayon::prelude::*;
use retro_engine::{Indexer, Material, TablePosition, TABLE_MEN};
use retro_format::{Dtz, Table, TableKind, Value, Wdl};
use retro_rules::Side;
use std::collections::BTreeMap;

/// A number of positions in both conventions.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Placements, identical men distinguishable, no symmetry reduction.
    pub raw: u64,
    /// Orbits of placements under the board's symmetries.
    pub unique: u64,
}

impl Counts {
    fn add(&mut self, other: Counts) {
        self.raw += other.raw;
        self.unique += other.unique;
    }
}

/// The statistics of one side to move.
#[derive(Debug, Clone, Default)]
pub struct SideStats {
    /// Legal positions.
    pub legal: Counts,
    /// Won for the side to move.
    pub win: Counts,
    /// Drawn.
    pub draw: Counts,
    /// Lost for the side to move.
    pub loss: Counts,
    /// The longest win, in plies, and an example.
    pub longest_win: Option<(u32, String)>,
    /// The longest loss, in plies, and an example.
    pub longest_loss: Option<(u32, String)>,
    /// Positions by depth to mate in plies: wins at odd depths, losses at even ones.
    pub by_plies: BTreeMap<u32, Counts>,
    /// The positions with an en-passant target (Article 9.2), counted apart: every count
    /// above leaves them out, as other tablebases' counts do.
    pub en_passant: EnPassantStats,
}

/// Positions whose last move was a double step answerable by an en-passant capture.
#[derive(Debug, Clone, Copy, Default)]
pub struct EnPassantStats {
    /// Legal positions.
    pub legal: Counts,
    /// Won for the side to move.
    pub win: Counts,
    /// Drawn.
    pub draw: Counts,
    /// Lost for the side to move.
    pub loss: Counts,
}

/// The statistics of a table.
#[derive(Debug, Clone)]
pub struct MaterialStats {
    /// The material (canonical).
    pub material: Material,
    /// White to move, then Black to move.
    pub sides: [SideStats; 2],
}

impl MaterialStats {
    /// The statistics of `side` to move.
    pub fn side(&self, side: Side) -> &SideStats {
        &self.sides[usize::from(side == Side::Black)]
    }
}

/// Computes the statistics of `material`'s table (canonical material).
pub fn material_stats(tb: &Tablebase, material: Material) -> Result<MaterialStats, ProbeError> {
    let loaded = tb.load(material)?;
    let whole = loaded.source.whole()?;
    let (table, indexer) = (&*whole, &loaded.indexer);
    let size = indexer.size();
    let mut sides: [SideStats; 2] = Default::default();
    for (s, stm) in Side::ALL.into_iter().enumerate() {
        const CHUNK: u64 = 1 << 16;
        // By chunk: counts by plies (indexed by plies, not a map: one look-up an entry), draws,
        // legal positions, en-passant positions.
        let partial: Vec<(Vec<Counts>, Counts, Counts, EnPassantStats)> = (0..size.div_ceil(CHUNK))
            .into_par_iter()
            .map(|chunk| -> Result<_, ProbeError> {
                let mut by_plies: Vec<Counts> = Vec::new();
                let mut draw = Counts::default();
                let mut legal = Counts::default();
                let mut en_passant = EnPassantStats::default();
                for i in chunk * CHUNK..((chunk + 1) * CHUNK).min(size) {
                    let value = table.value(stm == Side::White, i)?;
                    if value == Value::Illegal {
                        continue;
                    }
                    let weight = weight_of(tb, indexer, material, i, stm)?;
                    if i >= indexer.placements() {
                        // Indices past the placements carry an en-passant target.
                        en_passant.legal.add(weight);
                        match value {
                            Value::Win(_) => en_passant.win.add(weight),
                            Value::Loss(_) => en_passant.loss.add(weight),
                            _ => en_passant.draw.add(weight),
                        }
                        continue;
                    }
                    legal.add(weight);
                    match value.plies() {
                        Some(n) => {
                            let n = n as usize;
                            if n >= by_plies.len() {
                                by_plies.resize(n + 1, Counts::default());
                            }
                            by_plies[n].add(weight)
                        }
                        None => draw.add(weight),
                    }
                }
                Ok((by_plies, draw, legal, en_passant))
            })
            .collect::<Result<_, _>>()?;
        let stats = &mut sides[s];
        for (by_plies, draw, legal, en_passant) in partial {
            stats.draw.add(draw);
            stats.legal.add(legal);
            let ep = &mut stats.en_passant;
            ep.legal.add(en_passant.legal);
            ep.win.add(en_passant.win);
            ep.draw.add(en_passant.draw);
            ep.loss.add(en_passant.loss);
            for (n, c) in by_plies.into_iter().enumerate() {
                if c.raw > 0 {
                    stats.by_plies.entry(n as u32).or_default().add(c);
                }
            }
        }
        for (&n, &c) in &stats.by_plies {
            if n % 2 == 1 {
                stats.win.add(c);
            } else {
                stats.loss.add(c);
            }
        }
        let deepest = |odd: bool| {
            stats
                .by_plies
                .keys()
                .rev()
                .copied()
                .find(|n| (n % 2 == 1) == odd)
        };
        stats.longest_win =
            deepest(true).map(|n| (n, example(tb, table, indexer, stm, Value::Win(n))));
        stats.longest_loss =
            deepest(false).map(|n| (n, example(tb, table, indexer, stm, Value::Loss(n))));
    }
    Ok(MaterialStats { material, sides })
}

/// How many positions index `i` of `material`'s table (`stm` to move) stands for, in both
/// conventions (see the module documentation).
fn weight_of(
    tb: &Tablebase,
    indexer: &Indexer,
    material: Material,
    i: u64,
    stm: Side,
) -> Result<Counts, ProbeError> {
    let geo = tb.geometry();
    let group = indexer.symmetry_count() as u64;
    let labels = indexer.labelings();
    if indexer.kings_are_asymmetric(i) {
        return Ok(Counts {
            raw: labels * group,
            unique: labels,
        });
    }
    let p: TablePosition =
        indexer
            .position(geo, i, stm)
            .ok_or_else(|| ProbeError::Inconsistent {
                material,
                fen: format!("index {i} holds a value but is not a position"),
            })?;
    let stabilizer = u64::from(indexer.stabilizer_size(geo, &p));
    let fixers = u64::from(indexer.pointwise_fixers(geo, &p));
    Ok(Counts {
        raw: labels * group / stabilizer,
        unique: labels * fixers / stabilizer,
    })
}

/// The statistics of one side to move of a DTZ50 table.
#[derive(Debug, Clone, Default)]
pub struct FiftySideStats {
    /// Legal positions (without an en-passant target).
    pub legal: Counts,
    /// By class at a clock of 0, in the order of [`Wdl::CLASSES`]: losses, blessed losses,
    /// draws, cursed wins, wins.
    pub classes: [Counts; 5],
    /// Positions by distance to zeroing: wins (`true`) and losses by plies.
    pub by_plies: BTreeMap<(bool, u32), Counts>,
    /// The longest win and loss, in plies, with an example each.
    pub longest_win: Option<(u32, String)>,
    /// See [`FiftySideStats::longest_win`].
    pub longest_loss: Option<(u32, String)>,
    /// The positions with an en-passant target, by class, counted apart.
    pub en_passant: [Counts; 5],
}

impl FiftySideStats {
    /// The positions of `class`.
    pub fn of(&self, class: Wdl) -> Counts {
        Wdl::CLASSES
            .iter()
            .position(|&c| c == class)
            .map_or_else(Counts::default, |k| self.classes[k])
    }
}

/// The statistics of a material's DTZ50 table: both sides to move.
#[derive(Debug, Clone)]
pub struct FiftyStats {
    /// The material (canonical).
    pub material: Material,
    /// The plies the rule allows (100).
    pub rule: u32,
    /// White to move, then Black to move.
    pub sides: [FiftySideStats; 2],
}

/// Computes the statistics of `material`'s DTZ50 table (canonical material).
pub fn fifty_stats(tb: &Tablebase, material: Material) -> Result<FiftyStats, ProbeError> {
    let loaded = tb.load_kind(TableKind::Dtz50, material)?;
    let rule = u32::from(loaded.source.header().rule_plies);
    let whole = loaded.source.whole()?;
    let (table, indexer) = (&*whole, &loaded.indexer);
    let size = indexer.size();
    let class_index = |c: Wdl| Wdl::CLASSES.iter().position(|&k| k == c);
    let mut sides: [FiftySideStats; 2] = Default::default();
    for (s, stm) in Side::ALL.into_iter().enumerate() {
        const CHUNK: u64 = 1 << 16;
        let partial: Vec<FiftySideStats> = (0..size.div_ceil(CHUNK))
            .into_par_iter()
            .map(|chunk| -> Result<_, ProbeError> {
                let mut here = FiftySideStats::default();
                for i in chunk * CHUNK..((chunk + 1) * CHUNK).min(size) {
                    let dtz = table.dtz(stm == Side::White, i)?;
                    let Some(k) = class_index(dtz.class(rule)) else {
                        continue;
                    };
                    let weight = weight_of(tb, indexer, material, i, stm)?;
                    if i >= indexer.placements() {
                        here.en_passant[k].add(weight);
                        continue;
                    }
                    here.legal.add(weight);
                    here.classes[k].add(weight);
                    if let Some(n) = dtz.plies() {
                        let win = matches!(dtz, Dtz::Win(_));
                        here.by_plies.entry((win, n)).or_default().add(weight);
                    }
                }
                Ok(here)
            })
            .collect::<Result<_, _>>()?;
        let stats = &mut sides[s];
        for here in partial {
            stats.legal.add(here.legal);
            for k in 0..5 {
                stats.classes[k].add(here.classes[k]);
                stats.en_passant[k].add(here.en_passant[k]);
            }
            for (key, c) in here.by_plies {
                stats.by_plies.entry(key).or_default().add(c);
            }
        }
        let deepest = |win: bool| {
            stats
                .by_plies
                .keys()
                .rev()
                .find(|(w, _)| *w == win)
                .map(|&(_, n)| n)
        };
        let example = |wanted: Dtz| {
            let geo = tb.geometry();
            (0..indexer.placements())
                .find(|&i| table.dtz(stm == Side::White, i).ok() == Some(wanted))
                .and_then(|i| indexer.position::<TABLE_MEN>(geo, i, stm))
                .map(|p| p.to_natural(geo).fen())
                .unwrap_or_default()
        };
        stats.longest_win = deepest(true).map(|n| (n, example(Dtz::Win(n))));
        stats.longest_loss = deepest(false).map(|n| (n, example(Dtz::Loss(n))));
    }
    Ok(FiftyStats {
        material,
        rule,
        sides,
    })
}

/// The FEN of the first position (by index, without an en-passant target) with `value`.
fn example(tb: &Tablebase, table: &Table, indexer: &Indexer, stm: Side, value: Value) -> String {
    let geo = tb.geometry();
    (0..indexer.placements())
        .find(|&i| table.value(stm == Side::White, i).ok() == Some(value))
        .and_then(|i| indexer.position::<TABLE_MEN>(geo, i, stm))
        .map(|p| p.to_natural(geo).fen())
        .unwrap_or_default()
}

/// Mutual zugzwangs of a table: placements where the side to move is worse off than if the
/// other side were to move — for White to move a worse result for White than with Black to
/// move (which is then also worse for Black), counted up to symmetry (one per index entry).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Zugzwangs {
    /// White to move draws, Black to move loses.
    pub draw_win: u64,
    /// White to move loses, Black to move draws.
    pub loss_draw: u64,
    /// Whoever moves loses.
    pub loss_win: u64,
    /// The first few, as FEN with White to move.
    pub examples: Vec<String>,
}

impl Zugzwangs {
    /// All of them.
    pub fn total(&self) -> u64 {
        self.draw_win + self.loss_draw + self.loss_win
    }
}

/// The mutual zugzwangs of `material`'s table (placements without an en-passant target), with
/// at most `examples` example positions.
pub fn mutual_zugzwangs(
    tb: &Tablebase,
    material: Material,
    examples: usize,
) -> Result<Zugzwangs, ProbeError> {
    let loaded = tb.load(material)?;
    let whole = loaded.source.whole()?;
    let (table, indexer) = (&*whole, &loaded.indexer);
    let geo = tb.geometry();
    // The result for White: 1 a win, 0 a draw, -1 a loss.
    let for_white = |v: Value, white_to_move: bool| match (v, white_to_move) {
        (Value::Win(_), true) | (Value::Loss(_), false) => 1,
        (Value::Loss(_), true) | (Value::Win(_), false) => -1,
        _ => 0,
    };
    let mut found = Zugzwangs::default();
    for i in 0..indexer.placements() {
        let (w, b) = (table.value(true, i)?, table.value(false, i)?);
        if w == Value::Illegal || b == Value::Illegal {
            continue;
        }
        let (rw, rb) = (for_white(w, true), for_white(b, false));
        if rw >= rb {
            continue;
        }
        match (rw, rb) {
            (0, 1) => found.draw_win += 1,
            (-1, 0) => found.loss_draw += 1,
            _ => found.loss_win += 1,
        }
        if found.examples.len() < examples {
            if let Some(p) = indexer.position::<TABLE_MEN>(geo, i, Side::White) {
                found.examples.push(p.to_natural(geo).fen());
            }
        }
    }
    Ok(found)
}
