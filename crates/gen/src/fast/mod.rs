//! The fast core: depth-to-mate by retrograde analysis over a field layout, one byte per slot
//! and side to move, on boards of at most 64 squares.
//!
//! Owns: building one table's values ([`build`]), pawns and en passant included, the
//! conversion between the working layout and the stored index ([`convert`]), the work table
//! ([`cells`]), the numbering of en-passant positions ([`ep`]) and the attack tables it moves
//! with ([`bits`]).
//! Must never: be trusted on its own (every table is checked by `retro-verify`, and tests
//! compare its files byte for byte with the reference core in `super`); write a table file
//! itself (it writes only scratch files, gone when dropped: the snapshots of [`rebase`], and
//! the work table and stored parts of a sliced build, [`words`] and `part_store`).
//!
//! # The rooms
//!
//! | module | what it holds |
//! |---|---|
//! | [`layout`], [`bits`], [`words`] | slots: one field per man, the White king folded; windows over a promotion's table; attack tables; words of bytes, in memory or a scratch file |
//! | [`cells`] | the work table (a byte per slot and side) and the hints (a bit per slot) |
//! | `codes` | what a byte says: undecided, watching, counting, decided in `n` plies |
//! | `exits` | captures and promotions, the smaller tables they lead into ([`exit_targets`]) |
//! | [`exit_pass`] | the best exit of every stored position, for packing and reading packed files |
//! | `init` | the init pass: every slot's first code, a run of slots at a time |
//! | `solve` | the driver: the parts, the way losses are found (chosen once), the passes of each depth |
//! | `parents` | un-moves: the parents of a slot or a run |
//! | `wins` | even passes: wins pushed from losses, or pulled by the parents |
//! | `forward`, `counting`, `ways_out` | odd passes: losses found by forward checks, by counting moves, by ways out |
//! | `store` | storing values, the chunks and their code sets, counts of losses |
//! | `mirror` | materials whose sides have the same men: Black's passes as the mirror of White's |
//! | `slices` | pawn slices and pushes |
//! | `part_store` | a sliced table's solved parts in the order of the stored index, until its body is written |
//! | [`ep`], `en_passant` | en-passant positions: their numbering, their values |
//! | [`fifty`] | the fifty-move rule's moves over the slots: first words, un-moves, the words in the stored order |
//! | `recode`, [`rebase`] | giving the watch codes up or taking them up, rebasing depths beyond a byte |
//! | [`convert`] | the work table to the stored index and back |
//! | `index_walk` | a king pair's entries in the order of the stored index, and the slots that hold them |
//!
//! The modules that extend `Core` (the state of one build) import the core's names from here
//! with `use super::*`: they are parts of one type, split by idea.
//!
//! # Hints
//!
//! Most of a pass's time goes into reading the bytes of the parents its un-moves reach, all
//! over the table (a five-man table's 168 MB a side stays in memory, not in the cache), and
//! most of those reads find nothing to do: a parent already won, unable to lose, or no
//! position. A table whose passes go a run at a time therefore keeps, by side to move, two sets
//! of one bit per slot ([`cells::SlotHints`]; for a five-man table on 8×8, 21 MB a set and
//! side, and a pass reads one, which the cache holds): the slots an even pass may still win
//! (`Core::may_win`: legal and not lost; a win the init pass stored may yet give way to a
//! quicker one) and those an odd pass may still find lost (`Core::may_lose`: undecided and
//! able to lose). The init pass fills both as it writes the codes; a slot leaves both when its
//! value is final — a win stored by an even pass, a loss stored by a count or a forward check,
//! and every slot of a depth when the pass of that depth meets it. A parent outside the set is
//! passed over unread, a whole parent run with one word. A hint never decides a slot: a set bit
//! sends the pass to the byte as before, and bits are only ever cleared, so a clear lost to
//! another thread's (plain stores) costs a read and nothing else. A table with en-passant
//! positions goes a slot at a time and keeps no hints, nor does one built with
//! [`Tuning::no_hints`]; the passes of such a table test none (`cells::EverySlot`). KRBvKR on
//! 8×8 takes 2 × 167,772,160 bytes (320 MiB) for its work table and 80 MiB for its hints (a
//! third set, `Core::not_won`, where losses are found by ways out: `ways_out`).
//!
//! A table of more than [`MAX_SEPARATE_WIN_HINTS`] slots a side (a six-man table on 8×8, whose
//! sets no longer fit the cache: 0.97 GB each) that finds its losses by ways out keeps two sets
//! a side rather than three, its `may_win` folded into `not_won`
//! (`Core::shared_win_hints`): the even passes test `not_won`, which holds every slot `may_win`
//! holds and the lost ones besides (a few bytes more read, each found lost and left), and a win
//! an even pass stores leaves it at once rather than when the odd pass of its depth meets it —
//! which is the same to the ways out, as no odd pass looks for them in between. The cost is
//! small where both fit the cache (KQRvKQ: 7.7 s against 7.3 s of passes), and a six-man table
//! on 8×8 keeps its 3.9 GB of hints within the 20 GiB a build is held to, where three sets
//! would not fit; with them, KRBvKRN builds in 431 s rather than 668 s reading every parent's
//! byte, KQRvKQR in 1,238 s rather than 1,728 s (`docs/performance.md`).
//!
//! # Why every slot is right
//!
//! Each slot stands for a position, and its moves lead to the slots of the resulting positions
//! (a white king move that leaves the region is turned back into it by a symmetry). A slot's
//! value is that of its position, so it is the same in every slot of the position. The step
//! "when a slot is decided, re-examine every slot with a move into it" needs the un-moves of a
//! slot to list each such parent slot: an un-move of any man but the white king keeps the
//! white king, hence the fold, so it gives back exactly the slot that moved; a white king
//! un-move gives a position that may be folded differently from the parent slot that moved, but
//! only by a symmetry fixing the folded king's square, so the un-move visits every image under
//! those symmetries whose kings are folded ([`layout::Layout::for_each_image`]); the same holds
//! of a black king un-move when the white king stands on such a square (the fold then also
//! places the black king). A move or un-move of one of several identical men sorts them again,
//! which only renames men: the slot reached is that of the same position.
//!
//! The un-moves also say where the man that moved stands in each parent slot they reach (the
//! symmetry that folds the parent, applied to its square in the child:
//! [`layout::Layout::fold_tracking`]). For a parent slot `P` and a move of it to square `b`
//! whose resulting position is decided, the forward check reads the child slot `C = h(m(P))`
//! (`h` the fold); the pass of `C`'s depth un-moves the man on `h(b)` back and reaches `P`
//! through some symmetry `σ` with `σ(P) = P` and the man on `σ(b)`. Either `σ` is the identity
//! (the man on `b`, as watching needs), or `P` is its own image under `σ`, which fixes both
//! kings; then the un-move visits `P` under every symmetry fixing the kings, the identity among
//! them.
//!
//! Counting needs more: the un-moves must reach a parent slot exactly once per move of it
//! into a win, or its count would reach zero too early or never. They do, but for one case.
//! A position whose kings both stand on squares that one symmetry fixes has two slots, itself
//! and its image ([`layout`]; two distinct squares share at most one such symmetry, as two
//! would fix only the centre), both decided alike and both un-moved by the pass of their
//! depth. A king's un-move from either slot reaches the parent, so a king's move into such a
//! position is counted twice (`Layout::share_fixer`). A move of another man keeps the kings,
//! and with them the number of slots: from a parent of two slots, each slot's move reaches
//! one of the child's slots and comes back to that parent slot alone. Before relying on this,
//! every lost slot of KQvKR, KRvKN, KBNvK, KQQvK and KRBvKR on 8×8 was checked: the un-moves
//! reaching it equalled its moves so counted. The tests compare the files with the reference
//! core's byte for byte, and fail when the double count or the shield test is left out.

pub mod bits;
pub mod cells;
pub mod convert;
pub mod ep;
pub mod layout;
pub mod rebase;
pub mod words;

mod codes;
mod counting;
mod en_passant;
pub mod exit_pass;
mod exits;
pub mod fifty;
mod forward;
mod index_walk;
mod init;
mod mirror;
mod parents;
mod part_store;
mod recode;
mod slices;
mod solve;
mod store;
mod ways_out;
mod wins;

pub use crate::exit_targets;
pub use codes::{WorkCodes, MAX_WORK_PLIES};
pub use exits::{exit_fields, exit_sides, exit_windows, Subtable};
pub use slices::window_capacity;

use codes::*;
use en_passant::*;
use exits::*;
use parents::*;
use slices::*;
use solve::*;
use store::*;

use crate::{GenError, Observer, Phase};
use bits::{Bits, Board64};
use cells::{
    byte_below, byte_equal, byte_nonzero, pack_high_bits, Cells, EverySlot, RunMarks, SlotHints,
    SlotSet, BYTE_ONES,
};
use ep::EpLayout;
use layout::{Layout, MAX_MEN};
use rayon::prelude::*;
use rebase::Snapshots;
use retro_engine::material::side_index;
use retro_engine::{Geometry, Material, Sq};
use retro_format::Value;
use retro_rules::{Piece, Side};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// What [`build`] computed.
pub struct Built {
    /// Values by side to move and slot, as work codes.
    pub cells: [Cells; 2],
    /// The layout of the slots.
    pub layout: Layout,
    /// The codes the cells hold.
    pub codes: WorkCodes,
    /// The exact depths of the slots whose codes rebases folded.
    pub snapshots: Snapshots,
    /// The longest depth to mate, in plies.
    pub max_plies: u32,
    /// Retrograde steps taken.
    pub depths: u32,
    /// Seconds spent in the retrograde iteration.
    pub retrograde_seconds: f64,
    /// The en-passant positions, for material with pawns of both sides.
    pub ep: Option<EpBuilt>,
    /// A sliced table's parts in the order of the stored index, when it kept its work table
    /// in scratch files (which then hold nothing any longer): the body is gathered from them.
    store: Option<part_store::PartStore>,
}

/// The values of the en-passant positions of a build.
pub struct EpBuilt {
    /// Their numbering.
    pub layout: EpLayout,
    /// Values by side to move and number, as work codes (`0`: no position).
    pub cells: [Cells; 2],
}

/// Why the fast core did not build a table (the reference core then does).
pub enum Declined {
    /// The board or material is outside what the core handles.
    Unsupported,
    /// A depth the work byte cannot hold (exits beyond it, or nowhere to put a snapshot).
    TooDeep,
    /// A real error.
    Failed(GenError),
}

impl From<GenError> for Declined {
    fn from(e: GenError) -> Declined {
        Declined::Failed(e)
    }
}

struct Core<'a, const N: usize> {
    /// What every instance shares: tables, men, capture rules.
    shared: &'a Parts<'a>,
    /// The codes the cells hold (sliced: those of the part being solved).
    codes: WorkCodes,
    /// Sliced: the codes the parts solved so far hold, which pushes read.
    finished: WorkCodes,
    /// Whether man `i` has identical companions (its moves put them in order again).
    refold: [bool; MAX_MEN],
    /// Whether any man has an identical companion.
    grouped: bool,
    /// How the odd passes find their losses, and whether the passes take the slots of a code a
    /// run at a time ([`LossSearch::by_runs`]).
    search: LossSearch,
    /// Whether the layout is split into slices by the pawns' squares
    /// ([`Layout::slice_groups`]): pawn pushes are then exits into slices solved before, and
    /// pawns have no moves or un-moves within the slice being solved.
    sliced: bool,
    cells: [Cells; 2],
    /// By side to move, the slots an even pass may still win ([`SlotHints`]): legal and not
    /// lost (a win stored ahead of its depth may give way to a quicker one until its pass meets
    /// it). The passes that go a run at a time read a parent's byte only where its bit is set.
    may_win: [SlotHints; 2],
    /// By side to move, the slots an odd pass may still find lost: undecided, and able to lose.
    may_lose: [SlotHints; 2],
    /// Whether the hints are kept (the passes go a run at a time); the init pass fills them.
    hinted: bool,
    /// Whether `may_win` is folded into `not_won` (a table of more than
    /// [`MAX_SEPARATE_WIN_HINTS`] slots a side that finds its losses by ways out): the even
    /// passes test `not_won`, a win they store leaves it at once, and `may_win` is empty.
    shared_win_hints: bool,
    /// By side to move, where the odd passes find losses by ways out: the legal slots not
    /// met as wins by the passes so far, into which a move of the other side is a way out of
    /// a loss; the init pass fills it.
    not_won: [SlotHints; 2],
    /// By side to move, where the odd passes find losses by ways out: the runs (slot divided
    /// by the board's squares) an un-move from a win of the current pass reached in the
    /// hints `may_lose`.
    reached: [RunMarks; 2],
    presence: [Vec<[AtomicU64; 4]>; 2],
    too_deep: AtomicBool,
    /// The largest code stored so far.
    deepest: AtomicU32,
    /// The longest loss, in plies, that the exits of a slot the init pass left undecided may
    /// yet force on it (one more than the deepest win among its exits, or an en-passant
    /// position's floor): a forward check stores it whatever the depth of its pass.
    exit_loss: AtomicU32,
    /// By side to move and depth in plies (below [`LOSS_DEPTHS`]), how many slots are lost in
    /// that depth: a loss is stored once (by the init pass or a forward check) and never
    /// changes, so these are the slots the pass of that depth meets.
    losses: LossCounts,
    /// The en-passant positions (material with pawns of both sides).
    ep: Option<EpCells>,
    /// Sliced: by chunk, whether its part has been started (the chunks of parts not yet
    /// started hold only undecided slots, which no change of encoding touches).
    started: Vec<bool>,
    /// Whether Black's passes are the mirror image of White's (`mirror`).
    mirrored: bool,
    /// Where Black's passes are mirrored: the slots with Black to move that White's pass of
    /// the current depth left other than a value of the next depth (`mirror`).
    mirror_log: std::sync::Mutex<Vec<u64>>,
}

/// How the fast core spends its work byte; tests change it to reach paths that 8×8 tables
/// reach only when they are deep.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tuning {
    /// The watch codes to start with (`None`: one per square where the odd passes count
    /// moves or check forward, none where they find losses by ways out, which never watch:
    /// there the codes would only take depths from the byte).
    pub watch_keys: Option<u8>,
    /// Rebase once a pass would store more than this many plies beyond the first decided
    /// code (`None`: only when the byte is full).
    pub rebase_span: Option<u32>,
    /// Solve a table whole even where its pawns make slices (see the module docs).
    pub whole: bool,
    /// Keep no hints, as a table with en-passant positions does (see the module docs).
    pub no_hints: bool,
    /// Fold the even passes' hints into the ways out's set where losses are found by ways
    /// out, as a table of more than [`MAX_SEPARATE_WIN_HINTS`] slots a side does (see the
    /// module docs).
    pub shared_win_hints: bool,
    /// Find the losses of the odd passes by counting moves, as a table without hints does,
    /// rather than from the ways out of the runs their wins reach (see the module docs).
    pub count_moves: bool,
    /// Store a sliced table's parts as they are solved and release the slices no later part
    /// reads, as a table whose slices take more than [`MAX_SLICES_KEPT`] bytes does
    /// (`part_store`).
    pub store_parts: bool,
    /// Make the passes of both sides to move where the two sides have the same men, rather
    /// than those of Black to move as the mirror image of White's (`mirror`).
    pub no_mirror: bool,
}

/// The most bytes of slices a sliced build keeps on disk until it writes its body from them
/// (KRPvKR: 805 MB, both sides; writing from them is quicker than storing each part as it is
/// solved). A larger one (a six-man table with a pawn: 48 GiB for KRRPvKR, beside its 21 GiB
/// table file) stores each part in the order of the index once solved and releases the slices
/// no later part reads ([`Tuning::store_parts`]).
pub const MAX_SLICES_KEPT: u64 = 1 << 32;

/// The most slots a side for which a table keeps three hint sets a side, the even passes' own
/// among them: three bits more per slot and side for a five-man table on 8×8 (at most
/// 1.8 × 10⁸ slots a side); a six-man one (7.7 × 10⁹ written) keeps two, its even passes
/// testing the ways out's set ([`Tuning::shared_win_hints`]).
pub const MAX_SEPARATE_WIN_HINTS: u64 = 1 << 31;

/// Builds the values of `material` on `geo`'s board, with `subs` the tables of
/// [`exit_targets`] in that order, first with `tuning`'s watch codes, then, if the depths of
/// the exits are too deep for those, with none; depths beyond a byte are rebased ([`rebase`])
/// with snapshots in `scratch` (`None`: such a table is declined). A table whose pawns make
/// slices is solved slice by slice, unless a rebase would be needed; then it is solved whole.
pub fn build(
    geo: &Geometry,
    material: Material,
    subs: &[Subtable],
    tuning: Tuning,
    scratch: Option<&Path>,
    observer: &dyn Observer,
) -> Result<Built, Declined> {
    if let Some(layout) = (!tuning.whole)
        .then(|| Layout::sliced(geo, material))
        .flatten()
    {
        match build_in(geo, material, subs, layout, tuning, scratch, observer) {
            // Tables read through windows serve slices alone: the caller reads them whole.
            Err(Declined::TooDeep) if subs.iter().any(|sub| sub.source.is_some()) => {
                return Err(Declined::TooDeep)
            }
            Err(Declined::TooDeep) => {}
            other => return other,
        }
    }
    let layout = Layout::new(geo, material).ok_or(Declined::Unsupported)?;
    build_in(geo, material, subs, layout, tuning, scratch, observer)
}

/// [`build`] in `layout`.
fn build_in(
    geo: &Geometry,
    material: Material,
    subs: &[Subtable],
    layout: Layout,
    tuning: Tuning,
    scratch: Option<&Path>,
    observer: &dyn Observer,
) -> Result<Built, Declined> {
    let bits = Bits::new(geo).ok_or(Declined::Unsupported)?;
    let size = layout.size();
    usize::try_from(size).map_err(|_| Declined::Unsupported)?;
    let n = material.men().len();
    let ep_layout = EpLayout::new(geo, &layout, &material.men());
    let parts = Parts::new(
        geo,
        material,
        &bits,
        &layout,
        ep_layout.as_ref(),
        subs,
        tuning,
    );
    // Watching costs a code per square, taken from the depths a byte can hold: a table
    // deeper than what is left gives the watch codes up when it reaches that depth, or after
    // its init pass if its exits may force a loss deeper than that; a whole table whose exits
    // may lie deeper makes its init pass without them and takes them up after it where its
    // values, and the losses its exits may force, fit; `solve_table` chooses where to watch at
    // all, and solves again without watch codes a table that still finds its values too deep.
    let watching = WorkCodes::new(
        tuning.watch_keys.unwrap_or(layout.square_count() as u8),
        tuning.rebase_span,
    );
    let solved = match n {
        2 => solve_table::<2>(&parts, watching, scratch, material, observer),
        3 => solve_table::<3>(&parts, watching, scratch, material, observer),
        4 => solve_table::<4>(&parts, watching, scratch, material, observer),
        5 => solve_table::<5>(&parts, watching, scratch, material, observer),
        6 => solve_table::<6>(&parts, watching, scratch, material, observer),
        7 => solve_table::<7>(&parts, watching, scratch, material, observer),
        8 => solve_table::<8>(&parts, watching, scratch, material, observer),
        _ => Err(Declined::Unsupported),
    }?;
    Ok(Built {
        snapshots: solved.snapshots,
        cells: solved.cells,
        ep: ep_layout
            .zip(solved.ep_cells)
            .map(|(layout, cells)| EpBuilt { layout, cells }),
        layout,
        codes: solved.codes,
        max_plies: solved.max_plies,
        depths: solved.depths,
        retrograde_seconds: solved.retrograde_seconds,
        store: solved.store,
    })
}

/// What every instance of the core shares, whatever its number of men.
struct Parts<'a> {
    geo: &'a Geometry,
    material: Material,
    bits: &'a Bits,
    layout: &'a Layout,
    ep_layout: Option<&'a EpLayout>,
    piece: [Piece; MAX_MEN],
    side_men: [[usize; MAX_MEN]; 2],
    side_len: [usize; 2],
    side_of: [usize; MAX_MEN],
    /// By man, the squares of the board it may stand on (a pawn: off the end ranks).
    allowed: [Board64; MAX_MEN],
    exits: Exits,
    subs: &'a [Subtable],
    /// Whether a table that goes a run at a time may keep hints ([`Tuning::no_hints`]).
    hints: bool,
    /// Whether a table that finds its losses by ways out folds its even passes' hints into
    /// the ways out's set ([`Tuning::shared_win_hints`]).
    shared_win_hints: bool,
    /// Whether a sliced table stores its parts as they are solved ([`Tuning::store_parts`]).
    store_parts: bool,
    /// Whether a table that keeps hints may find its losses from the ways out of the runs
    /// its wins reach ([`Tuning::count_moves`]).
    ways_out: bool,
    /// Whether the watch codes are the default's ([`Tuning::watch_keys`] `None`): then a
    /// table that finds its losses by ways out starts without them.
    watch_by_default: bool,
    mirror_rank: Vec<Sq>,
    /// Where the two sides have the same men and no pawns, and [`Tuning::no_mirror`] is not
    /// asked for: by man, the man of the other side that takes its place when the colours are
    /// exchanged (`mirror`).
    colour_swap: Option<[usize; MAX_MEN]>,
}

impl<'a> Parts<'a> {
    /// The parts of a build of `material` on `geo`'s board in `layout`, with `subs` the
    /// tables of [`exit_targets`] in that order.
    fn new(
        geo: &'a Geometry,
        material: Material,
        bits: &'a Bits,
        layout: &'a Layout,
        ep_layout: Option<&'a EpLayout>,
        subs: &'a [Subtable],
        tuning: Tuning,
    ) -> Parts<'a> {
        let men = material.men();
        let n = men.len();
        let mut piece = [Piece::King; MAX_MEN];
        let mut side_men = [[NO_MAN; MAX_MEN]; 2];
        let mut side_len = [0usize; 2];
        for (i, &(side, p)) in men.iter().enumerate() {
            piece[i] = p;
            let s = side_index(side);
            side_men[s][side_len[s]] = i;
            side_len[s] += 1;
        }
        let exits = exit_rules(material, &exit_targets(material));
        let mut side_of = [0usize; MAX_MEN];
        for (i, &(side, _)) in men.iter().enumerate() {
            side_of[i] = side_index(side);
        }
        Parts {
            geo,
            material,
            bits,
            layout,
            ep_layout,
            piece,
            side_men,
            side_len,
            side_of,
            allowed: std::array::from_fn(|i| {
                if i < n && piece[i] == Piece::Pawn {
                    bits.pawn_squares()
                } else {
                    match geo.square_count() {
                        64 => u64::MAX,
                        squares => (1 << squares) - 1,
                    }
                }
            }),
            exits,
            subs,
            hints: !tuning.no_hints,
            shared_win_hints: tuning.shared_win_hints || layout.size() > MAX_SEPARATE_WIN_HINTS,
            store_parts: tuning.store_parts
                || (layout.slices() > 0 && 2 * layout.slices_used() > MAX_SLICES_KEPT),
            ways_out: !tuning.count_moves,
            watch_by_default: tuning.watch_keys.is_none(),
            mirror_rank: (0..geo.square_count() as Sq)
                .map(|sq| geo.sq(geo.file(sq), geo.ranks() - 1 - geo.rank(sq)))
                .collect(),
            colour_swap: (!tuning.no_mirror)
                .then(|| mirror::colour_swap(&men))
                .flatten(),
        }
    }
}

fn is_slider(piece: Piece) -> bool {
    matches!(piece, Piece::Queen | Piece::Rook | Piece::Bishop)
}

/// A position of the work table: a slot, or an en-passant number ([`ep`]).
#[derive(Clone, Copy)]
enum Node {
    Slot(u64),
    Ep(u64),
    /// The slots `start + s` for every bit `s` of `mask`: one run, the slots whose men other
    /// than the last stand on the squares of `start` (`Core::for_each_parent_run`).
    Run {
        start: u64,
        mask: u64,
    },
}

/// The men's squares and occupancy of one slot.
#[derive(Clone, Copy)]
struct Placed<const N: usize> {
    slot: u64,
    sq: [Sq; N],
    occ: Board64,
    by_side: [Board64; 2],
}

impl<const N: usize> Core<'_, N> {
    fn check(&self) -> Result<(), Declined> {
        if self.too_deep.load(Ordering::Relaxed) {
            return Err(Declined::TooDeep);
        }
        Ok(())
    }

    /// The squares of `slot`, or `None` if two men share a square.
    #[inline(always)]
    fn place(&self, slot: u64) -> Option<Placed<N>> {
        let sq: [Sq; N] = self.shared.layout.decode_array(slot);
        let mut by_side = [0u64; 2];
        for (s, side) in by_side.iter_mut().enumerate() {
            for &i in &self.shared.side_men[s][..self.shared.side_len[s]] {
                *side |= 1 << sq[i];
            }
        }
        let occ = by_side[0] | by_side[1];
        (occ.count_ones() as usize == N).then_some(Placed {
            slot,
            sq,
            occ,
            by_side,
        })
    }

    /// The squares man `i` on `sq` attacks when `occ` is occupied (a pawn: its captures).
    #[inline(always)]
    fn man_attacks(&self, i: usize, sq: Sq, occ: Board64) -> Board64 {
        match self.shared.piece[i] {
            Piece::Pawn => self.shared.bits.pawn_attacks(self.side_of(i), sq),
            piece => self.shared.bits.attacks(piece, sq, occ),
        }
    }

    /// The squares man `i` on `from` moves to without capturing or promoting (staying in the
    /// table) when `occ` is occupied; `attacks` are its attacks.
    #[inline(always)]
    fn staying_targets(&self, i: usize, from: Sq, occ: Board64, attacks: Board64) -> Board64 {
        match self.shared.piece[i] {
            // Pushes between slices are exits.
            Piece::Pawn if self.sliced => 0,
            Piece::Pawn => {
                let x = self.side_of(i);
                self.shared.bits.pawn_pushes(x, from, occ) & !self.shared.bits.last_rank(x)
            }
            _ => attacks & !occ,
        }
    }

    /// The squares man `i` of `p` can move to without capturing or promoting (its own king
    /// may be left in check).
    #[inline(always)]
    fn quiet_targets(&self, p: &Placed<N>, i: usize) -> Board64 {
        let from = p.sq[i];
        self.staying_targets(i, from, p.occ, self.man_attacks(i, from, p.occ))
    }

    /// The squares man `i`, standing on `sq`, can have come from by a move that captured
    /// nothing and promoted nothing, when `occ` is occupied.
    #[inline(always)]
    fn unmove_targets(&self, i: usize, sq: Sq, occ: Board64) -> Board64 {
        match self.shared.piece[i] {
            Piece::Pawn if self.sliced => 0,
            Piece::Pawn => self.shared.bits.pawn_unpushes(self.side_of(i), sq, occ),
            piece => self.shared.bits.attacks(piece, sq, occ) & !occ,
        }
    }

    /// Whether man `i` moving to `to` promotes.
    #[inline(always)]
    fn promotes(&self, i: usize, to: Sq) -> bool {
        self.shared.piece[i] == Piece::Pawn
            && self.shared.bits.last_rank(self.side_of(i)) & (1 << to) != 0
    }

    /// The man of side `side` on `sq`.
    #[inline]
    fn man_on(&self, sq: &[Sq], side: usize, target: Sq) -> usize {
        *self.shared.side_men[side][..self.shared.side_len[side]]
            .iter()
            .find(|&&j| sq[j] == target)
            .expect("an occupied square holds a man")
    }

    /// The side of man `i` (0 White, 1 Black).
    #[inline(always)]
    fn side_of(&self, i: usize) -> usize {
        self.shared.side_of[i]
    }

    /// Whether a move of man `i` must fold the squares again rather than move the slot by
    /// strides: the White king's always, the Black king's when the White king stands on a
    /// square a symmetry fixes (`white_king_fixed`). A man with identical companions only puts
    /// them in order again ([`Layout::moved_in_order`]).
    #[inline(always)]
    fn needs_fold(&self, i: usize, white_king_fixed: bool) -> bool {
        i == 0 || (i == 1 && white_king_fixed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The hint words, eight bytes to an operation, equal the sets' definitions by code, for
    /// every code in every place of a word, with and without watch codes and after rebases
    /// of both parities.
    #[test]
    fn hint_words_follow_the_codes() {
        for (watch_keys, low) in [
            (0, 0),
            (16, 0),
            (64, 0),
            (64, 5),
            (0, 6),
            (25, 7),
            (125, 0),
            (126, 3),
            (248, 0),
            (252, 1),
        ] {
            let codes = WorkCodes {
                watch_keys,
                low,
                rebase_span: None,
            };
            let may_win = |c: u8| c != NONE && codes.plies(c).is_none_or(|k| k % 2 == 1);
            let may_lose = |c: u8| c != NONE && c != CANNOT_LOSE && codes.plies(c).is_none();
            let hint_words = HintWords::new(codes);
            for shift in 0..256usize {
                for len in [64, 63, 9, 1] {
                    let bytes: Vec<u8> = (0..len).map(|b| ((shift + 5 * b) % 256) as u8).collect();
                    let [win, lose, legal] = hint_words.of(&bytes);
                    for b in 0..64 {
                        let code = bytes.get(b).copied();
                        let bit = |word: u64| word >> b & 1 == 1;
                        let at =
                            format!("code {code:?} at {b}, {watch_keys} watch keys, low {low}");
                        assert_eq!(bit(win), code.is_some_and(may_win), "may win: {at}");
                        assert_eq!(bit(lose), code.is_some_and(may_lose), "may lose: {at}");
                        assert_eq!(bit(legal), code.is_some_and(|c| c != NONE), "legal: {at}");
                    }
                }
            }
        }
    }
}
