//! The BDDs of the rules: a shared oxidd manager, and the sets and relations of a category —
//! legal positions, attacks, moves, captures — built from the natural model's predicates on
//! squares (`retro_rules::laws::*_attacks`, `retro_rules::board::square_between`), never from
//! positions enumerated one by one.
//!
//! Owns: [`Engine`], [`SymbolicError`], [`Bdd`].
//!
//! A relation between men's squares is the disjunction, over the squares `s` of the first man,
//! of "the first man is on `s`" and the set of squares the predicate allows the others; a
//! category's sets are conjunctions and disjunctions of those, man by man, as Hurd writes them
//! in HOL: `legal p ≡ all_on_board p ∧ distinct squares ∧ ¬in_check (opponent (to_move p)) p`,
//! `attacks` with `clear_line` as "no other man strictly between".

use crate::category::Category;
use crate::encoding::VariableLayout;
use oxidd::bdd::{BDDFunction, BDDManagerRef};
use oxidd::util::SatCountCache;
use oxidd::{
    BooleanFunction, BooleanFunctionQuant, BooleanOperator, Function, FunctionSubst, Manager,
    ManagerRef, Subst,
};
use retro_rules::board::square_between;
use retro_rules::laws::{
    bishop_attacks, king_attacks, knight_attacks, queen_attacks, rook_attacks,
};
use retro_rules::{Board, Piece, Side, Square};
use std::collections::HashMap;

/// A BDD.
pub type Bdd = BDDFunction;

/// What can go wrong building BDDs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SymbolicError {
    /// The node table is full.
    #[error("the BDD node table is full: the limit in force is {limit} nodes (raise it with --bdd-nodes)")]
    OutOfNodes {
        /// The node limit.
        limit: usize,
    },
    /// A category the engine cannot build.
    #[error("{0}")]
    Category(String),
}

/// Results with [`SymbolicError`].
pub type Result<T> = std::result::Result<T, SymbolicError>;

/// Cache keys for the relations between men.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key {
    /// Man `a`'s square (current or next) attacks man `b`'s by the geometry of a piece.
    Geometry(Piece, usize, bool, usize, bool),
    /// Man `c` stands strictly between men `a` and `b`.
    Between(usize, bool, usize, bool, usize, bool),
    /// Two men on the same square.
    Same(usize, bool, usize, bool),
    /// A man on the board.
    OnBoard(usize, bool),
}

/// The BDD engine of one board and ordering.
pub struct Engine {
    manager: BDDManagerRef,
    layout: VariableLayout,
    board: Board,
    node_limit: usize,
    cache: HashMap<Key, Bdd>,
    peak: std::cell::Cell<usize>,
}

impl Engine {
    /// An engine for categories of up to `layout.men` men, with a node table of `node_limit`
    /// nodes and `threads` worker threads.
    pub fn new(layout: VariableLayout, node_limit: usize, threads: u32) -> Result<Engine> {
        let board = Board::new(usize::from(layout.files), usize::from(layout.ranks))
            .map_err(|e| SymbolicError::Category(e.to_string()))?;
        let manager =
            oxidd::bdd::new_manager(node_limit, (node_limit / 4).max(1 << 16), threads.max(1));
        let mut names = vec![String::new(); layout.var_count() as usize];
        let fb = layout.file_bits as usize;
        for man in 0..layout.men {
            for bit in 0..layout.square_bits() as usize {
                let what = if bit < fb {
                    format!("f{bit}")
                } else {
                    format!("r{}", bit - fb)
                };
                names[layout.var(man, bit, false) as usize] = format!("m{man}_{what}");
                names[layout.var(man, bit, true) as usize] = format!("m{man}_{what}_next");
            }
        }
        manager
            .with_manager_exclusive(|m| m.add_named_vars(names).map(|_| ()))
            .map_err(|e| SymbolicError::Category(format!("naming variables: {e:?}")))?;
        Ok(Engine {
            manager,
            layout,
            board,
            node_limit,
            cache: HashMap::new(),
            peak: std::cell::Cell::new(0),
        })
    }

    /// The layout.
    pub fn layout(&self) -> &VariableLayout {
        &self.layout
    }

    /// The board.
    pub fn board(&self) -> Board {
        self.board
    }

    /// The node limit in force.
    pub fn node_limit(&self) -> usize {
        self.node_limit
    }

    /// Converts an allocation failure into [`SymbolicError::OutOfNodes`].
    pub fn ok<T>(&self, r: oxidd::util::AllocResult<T>) -> Result<T> {
        r.map_err(|_| SymbolicError::OutOfNodes {
            limit: self.node_limit,
        })
    }

    /// The constant `value`.
    pub fn constant(&self, value: bool) -> Bdd {
        self.manager
            .with_manager_shared(|m| if value { Bdd::t(m) } else { Bdd::f(m) })
    }

    /// The variable `v`.
    pub fn var(&self, v: u32) -> Result<Bdd> {
        let r = self.manager.with_manager_shared(|m| Bdd::var(m, v));
        self.ok(r)
    }

    /// Inner nodes in the manager now.
    pub fn live_nodes(&self) -> usize {
        self.manager.with_manager_shared(|m| m.num_inner_nodes())
    }

    /// Collects unreferenced nodes (noting the live count before, for [`Engine::peak_nodes`]).
    pub fn collect_garbage(&self) {
        self.note_peak();
        self.manager.with_manager_shared(|m| {
            m.gc();
        });
    }

    /// Notes the number of live nodes now.
    pub fn note_peak(&self) {
        self.peak.set(self.peak.get().max(self.live_nodes()));
    }

    /// The most inner nodes seen live at once (sampled after each step of the fixpoint).
    pub fn peak_nodes(&self) -> usize {
        self.note_peak();
        self.peak.get()
    }

    /// Writes `sets` to a DDDMP file (ASCII, variables named `m{man}_f{bit}` / `m{man}_r{bit}`,
    /// most significant bit first, `_next` for next-state variables), atomically.
    pub fn export_dddmp(
        &self,
        path: &std::path::Path,
        title: &str,
        sets: &[&Bdd],
        names: &[String],
    ) -> std::io::Result<()> {
        let tmp = path.with_extension("dddmp.tmp");
        {
            let file = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
            let first = sets
                .first()
                .ok_or_else(|| std::io::Error::other("nothing to export"))?;
            first.with_manager_shared(|manager, _| {
                oxidd_dump::dddmp::ExportSettings::default()
                    .diagram_name(title)
                    .strict(false)
                    .ascii()
                    .export_with_names(file, manager, sets.iter().copied().zip(names.iter()))
            })?;
        }
        std::fs::rename(&tmp, path)
    }

    /// `a ∧ b`.
    pub fn and(&self, a: &Bdd, b: &Bdd) -> Result<Bdd> {
        self.ok(a.and(b))
    }

    /// `a ∨ b`.
    pub fn or(&self, a: &Bdd, b: &Bdd) -> Result<Bdd> {
        self.ok(a.or(b))
    }

    /// `¬a`.
    pub fn not(&self, a: &Bdd) -> Result<Bdd> {
        self.ok(a.not())
    }

    /// Conjunction of all.
    pub fn all(&self, items: impl IntoIterator<Item = Result<Bdd>>) -> Result<Bdd> {
        let mut acc = self.constant(true);
        for item in items {
            acc = self.and(&acc, &item?)?;
        }
        Ok(acc)
    }

    /// Disjunction of all.
    pub fn any(&self, items: impl IntoIterator<Item = Result<Bdd>>) -> Result<Bdd> {
        let mut acc = self.constant(false);
        for item in items {
            acc = self.or(&acc, &item?)?;
        }
        Ok(acc)
    }

    /// Man `man` stands on the square coded (`file`, `rank`).
    pub fn on(&self, man: usize, next: bool, file: u8, rank: u8) -> Result<Bdd> {
        let bits = self.layout.square_bits() as usize;
        self.all((0..bits).map(|bit| {
            let v = self.var(self.layout.var(man, bit, next))?;
            if self.layout.bit_value(file, rank, bit) {
                Ok(v)
            } else {
                self.not(&v)
            }
        }))
    }

    /// Man `man` stands on one of `squares`.
    fn on_any(
        &self,
        man: usize,
        next: bool,
        squares: impl IntoIterator<Item = Square>,
    ) -> Result<Bdd> {
        self.any(
            squares
                .into_iter()
                .map(|s| self.on(man, next, s.file, s.rank)),
        )
    }

    fn squares(&self) -> Vec<Square> {
        self.board.squares().collect()
    }

    fn cached(&mut self, key: Key, build: impl FnOnce(&Self) -> Result<Bdd>) -> Result<Bdd> {
        if let Some(b) = self.cache.get(&key) {
            return Ok(b.clone());
        }
        let b = build(self)?;
        self.cache.insert(key, b.clone());
        Ok(b)
    }

    /// `all_on_board` for one man: its code is a square of the board.
    pub fn on_board(&mut self, man: usize, next: bool) -> Result<Bdd> {
        self.cached(Key::OnBoard(man, next), |e| {
            e.on_any(man, next, e.squares())
        })
    }

    /// Men `a` and `b` on the same square.
    pub fn same(&mut self, a: usize, an: bool, b: usize, bn: bool) -> Result<Bdd> {
        self.cached(Key::Same(a, an, b, bn), |e| {
            let bits = e.layout.square_bits() as usize;
            e.all((0..bits).map(|bit| {
                let x = e.var(e.layout.var(a, bit, an))?;
                let y = e.var(e.layout.var(b, bit, bn))?;
                e.ok(x.equiv(&y))
            }))
        })
    }

    /// The geometry of `piece`: man `a`'s square attacks man `b`'s on an empty board
    /// (`*_attacks sq1 sq2` of the natural model).
    pub fn geometry(
        &mut self,
        piece: Piece,
        a: usize,
        an: bool,
        b: usize,
        bn: bool,
    ) -> Result<Bdd> {
        self.cached(Key::Geometry(piece, a, an, b, bn), |e| {
            let attacks: fn(Square, Square) -> bool = match piece {
                Piece::King => king_attacks,
                Piece::Queen => queen_attacks,
                Piece::Rook => rook_attacks,
                Piece::Bishop => bishop_attacks,
                Piece::Knight => knight_attacks,
                Piece::Pawn => return Err(SymbolicError::Category("pawns are not encoded".into())),
            };
            let squares = e.squares();
            e.any(squares.iter().map(|&s| {
                let targets = squares.iter().copied().filter(|&t| attacks(s, t));
                e.and(&e.on(a, an, s.file, s.rank)?, &e.on_any(b, bn, targets)?)
            }))
        })
    }

    /// `square_between sq_a sq_c sq_b`: man `c` strictly between men `a` and `b` on a line.
    pub fn between(
        &mut self,
        a: usize,
        an: bool,
        c: usize,
        cn: bool,
        b: usize,
        bn: bool,
    ) -> Result<Bdd> {
        self.cached(Key::Between(a, an, c, cn, b, bn), |e| {
            let squares = e.squares();
            let mut acc = e.constant(false);
            for &sa in &squares {
                let mut for_a = e.constant(false);
                for &sb in &squares {
                    let inside: Vec<Square> = squares
                        .iter()
                        .copied()
                        .filter(|&sc| square_between(sa, sc, sb))
                        .collect();
                    if inside.is_empty() {
                        continue;
                    }
                    let pair = e.and(&e.on(b, bn, sb.file, sb.rank)?, &e.on_any(c, cn, inside)?)?;
                    for_a = e.or(&for_a, &pair)?;
                }
                let term = e.and(&e.on(a, an, sa.file, sa.rank)?, &for_a)?;
                acc = e.or(&acc, &term)?;
            }
            Ok(acc)
        })
    }

    /// `∃y. r(x, y) ∧ s(y)` in one fused operation.
    pub fn and_exists(&self, r: &Bdd, s: &Bdd, cube: &Bdd) -> Result<Bdd> {
        self.ok(r.apply_exists(BooleanOperator::And, s, cube))
    }

    /// `∃y. r(x, y) ∧ s(y)` as a conjunction followed by a quantification (for comparison).
    pub fn and_then_exists(&self, r: &Bdd, s: &Bdd, cube: &Bdd) -> Result<Bdd> {
        let both = self.and(r, s)?;
        self.ok(both.exists(cube))
    }

    /// `∀y. r(x, y) → s(y)` in one fused operation.
    pub fn imp_forall(&self, r: &Bdd, s: &Bdd, cube: &Bdd) -> Result<Bdd> {
        self.ok(r.apply_forall(BooleanOperator::Imp, s, cube))
    }

    /// `∀y. r(x, y) → s(y)`, unfused.
    pub fn imp_then_forall(&self, r: &Bdd, s: &Bdd, cube: &Bdd) -> Result<Bdd> {
        let imp = self.ok(r.imp(s))?;
        self.ok(imp.forall(cube))
    }

    /// Renames variables: each `(from, to)` pair replaces variable `from` by variable `to`
    /// (simultaneously).
    pub fn rename(&self, f: &Bdd, pairs: &[(u32, u32)]) -> Result<Bdd> {
        let vars: Vec<u32> = pairs.iter().map(|p| p.0).collect();
        let replacements = pairs
            .iter()
            .map(|p| self.var(p.1))
            .collect::<Result<Vec<Bdd>>>()?;
        self.ok(f.substitute(&Subst::new(vars, replacements)))
    }

    /// The number of assignments of the current-state variables of `men` men satisfying `f`,
    /// which must depend on no other variable.
    pub fn count(&self, f: &Bdd, men: usize) -> u128 {
        let total = self.layout.var_count();
        let used = men as u32 * self.layout.square_bits();
        let mut cache: SatCountCache<u128, std::collections::hash_map::RandomState> =
            SatCountCache::default();
        f.sat_count(total, &mut cache) >> (total - used)
    }

    /// Whether the position with man `k` on `squares[k]` (current state) is in `f`.
    pub fn contains(&self, f: &Bdd, squares: &[Square]) -> bool {
        let bits = self.layout.square_bits() as usize;
        let mut args = Vec::with_capacity(squares.len() * bits);
        for (man, s) in squares.iter().enumerate() {
            for bit in 0..bits {
                args.push((
                    self.layout.var(man, bit, false),
                    self.layout.bit_value(s.file, s.rank, bit),
                ));
            }
        }
        f.eval(args)
    }

    /// Nodes of `f`, terminals included.
    pub fn nodes(&self, f: &Bdd) -> usize {
        f.node_count()
    }

    /// The men of `side` in `category`.
    pub fn side_men(category: &Category, side: Side) -> Vec<usize> {
        (0..category.len())
            .filter(|&i| category.men()[i].0 == side)
            .collect()
    }

    /// Man `i` attacks man `t` in the current (`next = false`) or next state: the piece's
    /// geometry and, for line pieces, no other man strictly between (`attacks` and
    /// `clear_line` of the natural model).
    pub fn attacks(&mut self, category: &Category, i: usize, t: usize, next: bool) -> Result<Bdd> {
        let piece = category.men()[i].1;
        let mut a = self.geometry(piece, i, next, t, next)?;
        if matches!(piece, Piece::Queen | Piece::Rook | Piece::Bishop) {
            for j in 0..category.len() {
                if j != i && j != t {
                    let blocked = self.between(i, next, j, next, t, next)?;
                    a = self.and(&a, &self.not(&blocked)?)?;
                }
            }
        }
        Ok(a)
    }

    /// `in_check side p`: some man of the other side attacks `side`'s king.
    pub fn in_check(&mut self, category: &Category, side: Side, next: bool) -> Result<Bdd> {
        let king = category.king(side);
        let mut acc = self.constant(false);
        for i in Self::side_men(category, side.opponent_side()) {
            let a = self.attacks(category, i, king, next)?;
            acc = self.or(&acc, &a)?;
        }
        Ok(acc)
    }

    /// `legal p` with `to_move` to move: every man on the board, on distinct squares, the side
    /// not to move not in check.
    pub fn legal(&mut self, category: &Category, to_move: Side, next: bool) -> Result<Bdd> {
        let mut acc = self.constant(true);
        for i in 0..category.len() {
            let on = self.on_board(i, next)?;
            acc = self.and(&acc, &on)?;
            for j in 0..i {
                let same = self.same(i, next, j, next)?;
                acc = self.and(&acc, &self.not(&same)?)?;
            }
        }
        let check = self.in_check(category, to_move.opponent_side(), next)?;
        self.and(&acc, &self.not(&check)?)
    }

    /// The simple (non-capturing) steps of man `i` as a relation between the current position
    /// and the man's next square: it moves by its piece's geometry, through empty squares for
    /// line pieces, to a square no other man stands on; the other men stay where they are, so
    /// their next-state variables are not needed (the relation is partitioned by man). Whether
    /// the position reached is legal is left to the caller.
    pub fn step(&mut self, category: &Category, i: usize) -> Result<Bdd> {
        let piece = category.men()[i].1;
        let mut step = self.geometry(piece, i, false, i, true)?;
        for j in 0..category.len() {
            if j == i {
                continue;
            }
            let lands_on_j = self.same(i, true, j, false)?;
            step = self.and(&step, &self.not(&lands_on_j)?)?;
            if matches!(piece, Piece::Queen | Piece::Rook | Piece::Bishop) {
                let blocked = self.between(i, false, j, false, i, true)?;
                step = self.and(&step, &self.not(&blocked)?)?;
            }
        }
        Ok(step)
    }

    /// The next-state variables of man `i`, as a cube for quantification.
    pub fn man_next_cube(&self, i: usize) -> Result<Bdd> {
        let bits = self.layout.square_bits() as usize;
        self.all((0..bits).map(|b| self.var(self.layout.var(i, b, true))))
    }

    /// `f` with man `i`'s current square read from its next-state variables: the position
    /// after man `i` steps.
    pub fn moved(&self, f: &Bdd, i: usize) -> Result<Bdd> {
        let bits = self.layout.square_bits() as usize;
        let pairs: Vec<(u32, u32)> = (0..bits)
            .map(|b| (self.layout.var(i, b, false), self.layout.var(i, b, true)))
            .collect();
        self.rename(f, &pairs)
    }

    /// The captures of man `j` by man `i` (of the side to move): man `i` attacks man `j`.
    pub fn capture(&mut self, category: &Category, i: usize, j: usize) -> Result<Bdd> {
        self.attacks(category, i, j, false)
    }

    /// `f`, a set of positions of `smaller` (the category after man `j` of `category` is
    /// captured by man `i`), as a set of positions of `category` before the capture: the men
    /// of `smaller` read from their squares in `category`, the capturer from the victim's.
    pub fn after_capture(&self, f: &Bdd, category: &Category, i: usize, j: usize) -> Result<Bdd> {
        let (_, kept) = category.without(j);
        let bits = self.layout.square_bits() as usize;
        let mut pairs = Vec::new();
        for (t, &orig) in kept.iter().enumerate() {
            let source = if orig == i { j } else { orig };
            for b in 0..bits {
                pairs.push((
                    self.layout.var(t, b, false),
                    self.layout.var(source, b, false),
                ));
            }
        }
        self.rename(f, &pairs)
    }
}

/// The other side.
trait Opponent {
    fn opponent_side(self) -> Side;
}

impl Opponent for Side {
    fn opponent_side(self) -> Side {
        retro_rules::opponent(self)
    }
}
