//! The fast core: depth-to-mate by retrograde analysis over a field layout, one byte per slot
//! and side to move, on boards of at most 64 squares.
//!
//! Owns: building one table's values ([`build`]), pawns and en passant included, the
//! conversion between the working layout and the stored index ([`convert`]), the work table
//! ([`cells`]), the numbering of en-passant positions ([`ep`]) and the attack tables it moves
//! with ([`bits`]).
//! Must never: be trusted on its own (every table is checked by `retro-verify`, and tests
//! compare its files byte for byte with the reference core in `super`); write a table file
//! itself (it writes only the scratch snapshots of [`rebase`], deleted when dropped).
//!
//! # The work table
//!
//! One byte per slot ([`layout`]) and side to move: `0` not a legal position (men on one square,
//! or the side not to move in check), `1` undecided, `2` undecided but unable to lose (a capture
//! reaches a draw), `3 + s` undecided and *watching* square `s` (below), `3 + K + n` decided in
//! `n` plies (a win when `n` is odd, a loss when even; `K` watch codes, one per square of the
//! board), `255` a loss candidate during a pass. Where a pass takes its slots a run at a time
//! (no en-passant positions), the `K` codes *count* instead: `3 + c − 1` is a slot with `c`
//! moves (`1 ≤ c < K`) not yet known to reach a win, and `3 + K − 1` one with too many moves
//! to count, checked forward as below. With `K = 64` a byte holds depths up to 187
//! plies; deeper, the watch codes are given up in place (`K = 0`, 251 plies) — before the first
//! pass when the exits may force a loss deeper than that (a forward check stores such a loss
//! whatever the depth of its pass; the init pass notes the deepest) — and deeper
//! still the shallow depths are folded into two codes, their exact values kept in a snapshot
//! on disk ([`rebase`]: KPPvKP, 254 plies, rebases once). A table whose exits alone reach
//! beyond a byte is left to the reference core. Threads write single bytes with plain stores,
//! and take one from a count with an atomic subtraction ([`cells`]); a pass finds the slots of
//! a code eight at a time. KRBvKR on 8×8 takes 2 × 167,772,160 bytes (320 MiB), and two bits
//! more per slot and side for its hints (80 MiB; see "Hints" below).
//!
//! # The iteration
//!
//! * **init**, one parallel pass over all slots: illegal slots get `0` (a pawn on an end rank
//!   too); *exits* — captures, and promotions to each piece with or without a capture — are
//!   looked up in the tables they lead into, loaded into their own layouts (only the side to
//!   move the exits reach) so that a look-up is a few arithmetic operations. An exit into a
//!   loss in `k` makes a win in at most `k + 1`, stored at once as that win (a quicker one
//!   overwrites it); an exit into a draw gives `2`; a position in check with no move is mated;
//!   one whose only moves are exits into wins is lost after the longest of them, stored at
//!   once. Moves that stay are not counted. The pass goes a *run* at a time — the slots that
//!   differ only in the last man's square, whose field is the last, so that they are
//!   consecutive: the other men's attacks are found once a run, and so is every capture or
//!   promotion whose slot in the other table moves with the last man's square alone (neither
//!   king moves with it, so that table's fold is fixed for the run: `Core::run_exits`).
//!   With three men or more, the run's slots are then classified all at once
//!   (`Core::classify_run`), as sets of the last man's squares found with a few bitboard
//!   operations: where each king is attacked (by a man of the run unless the last man stands
//!   between, or by the last man), hence which slots are no position with each side to move
//!   and which are in check; and for each of the run's exits, the squares where it holds.
//!   Each exit's value is then looked up only on those squares, and each slot's code follows
//!   from the values found there, a quiet move being looked for only in check or where every
//!   exit loses; a slot with no exit that is not in check is undecided from the sets alone.
//!   A slot where an exit outside the run's may hold (its table's fold moves with the
//!   last man, or a capture promotes) is classified alone, its men's attacks found again.
//!   In KRBvKR this took the set-up from 4.96–6.30 s to 3.08–3.37 s.
//! * **depth d**, a parallel pass over the chunks of 4,096 slots that hold the code of depth
//!   `d` (each chunk keeps a 256-bit set of the codes written into it, so a pass skips what it
//!   need not read), one side to move at a time, so that the side scanned is never the side
//!   written. Even `d`: every slot of a loss in `d` un-moves to its parents, which become wins
//!   in `d + 1` unless already won sooner. Odd `d`: every slot of a win in `d` un-moves to its
//!   undecided parents, which become candidates (code `255`, so a parent with several new
//!   winning children is examined once) — except a parent watching another square than the
//!   one the un-moved man stands on in it; then each candidate's moves are checked forward, in
//!   slot order: if every move reaches a win in at most `d` plies (the triggering one reaches
//!   `d`), the candidate is lost in one more ply than the longest; otherwise it watches the
//!   destination of the first move found that does not. A move into an illegal position (its
//!   own king left in check) reaches a slot of code `0`, here or in the smaller table, and is
//!   no move: legality is read from the tables rather than tested.
//! * **counted moves**, in place of the candidates and their checks where a pass goes a run at
//!   a time. The first un-move from a win to reach an undecided parent counts the parent's
//!   moves that stay in the table (`Core::count_moves`: legal moves, found with the other
//!   side's attacks and the squares where a man shields its king, without reading a child)
//!   and stores how many are left; each later un-move into it takes one off, with one atomic
//!   subtraction, as two threads may reach one parent at once. The un-move that takes the
//!   last one off finds the parent lost: every move that stays reaches a win, the deepest in
//!   `d` plies (the passes come in order of depth); its exits, which the init pass found to
//!   be wins for the other side or nothing (else the slot could not lose, `2`), are looked up
//!   once more, and the slot is lost in one ply more than the longest of all
//!   (`Core::lost_with_every_move_won`). In KRBvKN, 218 M forward checks reading 1.41 G
//!   children become one count per parent reached and one decrement per un-move. A slot with
//!   too many moves to count becomes a candidate as above, and when the watch codes are given
//!   up the counts become `1` (undecided): the candidates and their checks take over from
//!   there.
//! * **ways out**, in place of the counts where the table keeps hints (below) and no pawn
//!   moves in it (a pawnless table, or the slices of one): most counts went to slots that
//!   were never lost (in KRBvKR, 40.8 M of the 45.1 M slots counted, and most of the 186 M
//!   decrements, were draws). Each side keeps a set of one bit per slot, *not won*: its legal
//!   slots, less the wins the odd passes have met (`Core::not_won`). An odd pass takes the
//!   wins of depth `d` out of it and marks the runs of the parents they reach that may lose
//!   (`Core::reached`, a bit per run), then looks at each marked run once
//!   (`Core::lose_without_ways_out`): a slot of it that may lose and has no move into a slot
//!   that is not won — no way out — is lost in `d + 1` plies, or after its exits as above;
//!   one with no move at all is stalemate. A run's moves are its un-moves turned round (a
//!   piece's move and un-move are the same step), found for the whole run as the parents are
//!   (`Core::for_each_parent_run` with a `ParentSink` that reads the set rather than visits
//!   slots), the last man's own moves at once against the set's word for the run, and the
//!   search stops as soon as every slot has a way out. KRBvKR's 231 M parent visits made
//!   12.6 M marked runs; its retrograde passes went from 5.70–6.85 s to 4.75–5.27 s. The
//!   marks are made a stretch of parents at a time (`MarkReached`: one test of the hints'
//!   word per parent run, not one per parent), and the last man's own un-moves, which stay
//!   in the run, mark it at once: 6.0–6.9 s to 3.8–4.3 s. A sliding last man's moves are
//!   found for the whole run at once ([`bits::Bits::attacks_from_set`], from the open
//!   squares, a slider's attacks being symmetric): 6.0–6.2 s to 4.5–4.6 s on a slower hour.
//!
//! **Hints.** Most of a pass's time goes into reading the bytes of the parents its un-moves
//! reach, all over the table (a five-man table's 168 MB a side stays in memory, not in the
//! cache), and most of those reads find nothing to do: a parent already won, unable to lose,
//! or no position. A table whose passes go a run at a time therefore keeps, by side to move,
//! two sets of one bit per slot ([`cells::SlotHints`]; for a five-man table on 8×8, 21 MB a
//! set and side, and a pass reads one, which the cache holds): the slots an even pass may
//! still win (`Core::may_win`: legal and not lost; a win the init pass stored may yet give way
//! to a quicker one) and those an odd pass may still find lost (`Core::may_lose`: undecided
//! and able to lose). The init pass fills both as it writes the codes; a slot leaves both
//! when its value is final — a win stored by an even pass, a loss stored by a count or a
//! forward check, and every slot of a depth when the pass of that depth meets it. A parent
//! outside the set is passed over unread, a whole parent run with one word. A hint never
//! decides a slot: a set bit sends the pass to the byte as before, and bits are only ever
//! cleared, so a clear lost to another thread's (plain stores) costs a read and nothing else.
//! In KQvKBN the even passes' reads went from 1.47 G to 41 M (36 M of them store a win) and
//! the odd passes' from 1.82 G to 841 M, every one a count made or taken down. A sliced table
//! keeps them too: a part of KRPvKR (two slices of 7.4 M slots) takes 14.8 MB a side, which
//! the last-level cache holds but the core's own does not, and its bits 1.9 MB a set and
//! side; its retrograde passes went from 30–33 s to 26 s. A table with en-passant positions
//! goes a slot at a time and keeps no hints; nor does a table of more than
//! [`MAX_HINTED_SLOTS`] slots a side (a six-man table on 8×8: its work table stays at one
//! byte per slot and side, 2 × 7.7 GB rather than 2 × 9.6 GB), nor one built with
//! [`Tuning::no_hints`]. The passes of such a table test none (`cells::EverySlot`).
//!
//! Watching only skips checks that would fail: a slot watching `s` has a move to `s` whose
//! position was not won within the depth of its last check, and it cannot be lost before that
//! position is won, at a later depth; the pass of that depth un-moves from the position's
//! slots, and one of those un-moves reaches the watching slot with its man standing on `s`
//! (see below), making it a candidate again. A decided child never changes, so a check that
//! fails later fails at or after the watched move, and wins the slot skipped checking reached
//! are still wins.
//!
//! Pawns move within the table by pushes (one step, or two from the second rank) and un-move
//! by un-pushes; a push or capture onto the last rank is a promotion, an exit. With pawns only
//! the left–right mirror keeps the moves, so the layout folds the white king onto files a–d
//! and everything below holds with that smaller group.
//!
//! # Pawn slices
//!
//! When all pawns are of one side and the last man is not a pawn, the layout puts the pawns'
//! fields outermost ([`Layout::slice_groups`]): each placement of the pawns is a block of
//! slots, a *slice*. A push cannot be undone, and every other move within the table keeps
//! the pawns where they stand, except that a white king move out of the region mirrors the
//! whole position, pawns too. So the table is solved a part at a time — a placement and its
//! mirror image — after every part its pushes lead into, each part from depth 0 as above,
//! over its own chunks, with its own counts of losses and open slots. Within a part the pawns
//! have no moves and no un-moves; a push is an exit, looked up in the work table itself,
//! whose parts solved before are final (an undecided slot there is a draw). Its value enters
//! the init pass and the forward checks like a capture's: a push into a loss in `k` wins in
//! `k + 1` at once, one into a win in any depth counts as a move that loses. Its slot moves
//! with the last man's square alone, so the init pass finds a run's pushes once
//! (`Core::run_pushes`) and weighs each on the squares where the last man does not stop it,
//! as it weighs the run's exits. The slots a part's passes read stay within it (some 34 MB
//! for a five-man table on 8×8, both sides), and the slices of pawns on an end rank are never
//! touched. Rebasing is declined here
//! (a later part still reads the exact depths of earlier ones). The watch codes are given up
//! a part at a time: each part starts with them, and the parts solved so far share one
//! encoding, which pushes read (`Core::finished`). A part whose pushes lead into a part as
//! deep as they allow ([`Layout::push_targets`]) starts without them, and one whose exits may
//! force a loss deeper gives them up after its init pass. The first part to go
//! deeper than they allow — in its init pass (its captures lie too deep; the pass is made
//! again) or in a later pass — gives them up for the whole table, as a table solved whole
//! does; every part after it gives them up for its own chunks alone, when it must or at its
//! end. With pawns of both sides (en passant) or a pawn as the last man, the table is solved
//! whole.
//!
//! # En passant
//!
//! When both sides have pawns, a double step that an en-passant capture can answer leads to a
//! position of its own, `E` (Article 9.2), with a byte of its own ([`ep`]; the slot of its
//! placement without the right, `P`, is another position). `E` has every move of `P` and the
//! en-passant captures besides, and every move of either leads out of both (no right
//! survives a move), so `E`'s value is the better, for the side to move, of `P`'s and the
//! captures' — the captures' alone when `P` has no move (mate or stalemate). The captures are
//! exits, looked up once after the init pass; from then on `E` changes only when `P` is
//! decided, and is set then (`Core::follow_ep`): a win of `P` in `d` wins `E` in `d` unless a
//! capture wins sooner; a loss of `P` in `d` loses `E`, in the longer of `d` and the longest
//! capture, if every capture loses. Every value so set is at least one ply deeper than the pass
//! that sets it, so the pass of its depth meets it like any other and un-moves it — by the
//! double step alone, to the placement before it. Conversely the un-moves of `P` leave out
//! that double step whenever `E` is a position, and the forward check of a double step reads
//! `E` rather than `P` when it is.
//!
//! Without en-passant positions a pass also takes the slots of its code a run at a time
//! (`Core::for_each_parent_run`): an un-move of another man is found once for the run (with
//! the last man on `s`, it is one unless `s` is its destination or lies between its squares),
//! and its parents in all the run's slots lie in one parent run. The last man's own un-moves
//! are taken a slot at a time, and so are those whose parent puts the last man among its
//! identical companions rather than above them. A move of a man with identical companions
//! sorts them again by strides ([`layout::Layout::moved_in_order`]), without a fold.
//!
//! An even pass may also go the other way (`Core::pull_wins`): when the parents' side has
//! fewer slots neither decided nor met by a pass than there are losses in `d`, each of those
//! slots is checked forward for a quiet move into a loss in `d` (here or an en-passant
//! position) and becomes a win in `d + 1` if it has one — the same slots the un-moves reach.
//! The counts are exact without a scan: every legal slot is counted once by the pass of its
//! depth, and the losses of each depth are counted as they are stored (by the init pass or a
//! forward check; a loss never changes). In tables one side wins almost everywhere, the
//! losses of the middle depths far outnumber the parents left, which makes most of their
//! un-moves needless.
//!
//! Values stored before their depth (capture wins and losses) are met by the pass of their
//! depth like any other; the iteration ends when a pass finds nothing and no stored value lies
//! deeper. Undecided slots are draws.
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

use crate::{GenError, Observer, Phase};
use bits::{Bits, Board64};
use cells::{
    byte_below, byte_equal, byte_nonzero, pack_high_bits, Cells, EverySlot, RunMarks, SlotHints,
    SlotSet, BYTE_ONES,
};
use ep::EpLayout;
use layout::{Layout, RankField, MAX_MEN};
use rayon::prelude::*;
use rebase::Snapshots;
use retro_engine::material::side_index;
use retro_engine::{Geometry, Material, Sq};
use retro_format::Value;
use retro_rules::{Piece, Side};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

const NONE: u8 = 0;
const UNKNOWN: u8 = 1;
const CANNOT_LOSE: u8 = 2;
/// `WATCHING + s`: undecided, and the last check of its moves stopped at a move to square `s`
/// that reaches no win yet.
const WATCHING: u8 = 3;
/// An undecided slot whose every move may now reach a win: written by the first half of an
/// odd depth's pass, cleared by the second.
const CANDIDATE: u8 = u8::MAX;
/// The deepest value a work byte holds when no codes are spent on watching.
pub const MAX_WORK_PLIES: u32 = (CANDIDATE - 1 - WATCHING) as u32;

/// The work codes of one build: how many watch codes there are, and so where the decided
/// codes begin; the depth the first decided code stands for (`low`, raised by each rebase,
/// [`rebase`]); and when to rebase.
#[derive(Clone, Copy, Debug)]
pub struct WorkCodes {
    /// Watch codes, one per square (`0`: none; a checked candidate then goes back to
    /// `UNKNOWN`, and any new win among its moves makes it a candidate again).
    watch_keys: u8,
    /// The depth of the first decided code. Above `0`, the first two decided codes stand for
    /// every loss and every win of at most `low + 1` plies, their exact depths kept in a
    /// snapshot.
    low: u32,
    /// With `Some(k)`, a rebase comes once a pass would store more than `low + k` plies, for
    /// tests (`None`: only when the byte is full).
    rebase_span: Option<u32>,
}

impl WorkCodes {
    /// Codes with `watch_keys` watch codes and nothing rebased.
    fn new(watch_keys: u8, rebase_span: Option<u32>) -> WorkCodes {
        WorkCodes {
            watch_keys,
            low: 0,
            rebase_span,
        }
    }

    /// The code of a decided slot, `plies` from mate (at least `low`).
    #[inline(always)]
    fn decided(self, plies: u32) -> u8 {
        debug_assert!(plies >= self.low);
        WATCHING + self.watch_keys + (plies - self.low) as u8
    }

    /// The deepest value a work byte holds.
    fn max_plies(self) -> u32 {
        self.low + MAX_WORK_PLIES - u32::from(self.watch_keys)
    }

    /// The deepest value a pass may store before a rebase.
    fn rebase_limit(self) -> u32 {
        match self.rebase_span {
            Some(span) => self.max_plies().min(self.low + span),
            None => self.max_plies(),
        }
    }

    /// The depth of a decided code, or `None` for an undecided or illegal slot (a folded code
    /// gives `low` or `low + 1`, the deepest it may stand for).
    #[inline(always)]
    fn plies(self, code: u8) -> Option<u32> {
        if code == CANDIDATE {
            return None;
        }
        code.checked_sub(WATCHING + self.watch_keys)
            .map(|n| self.low + u32::from(n))
    }

    /// Whether `code` is one of the two that stand for every shallow loss or win after a
    /// rebase (their depths are in a snapshot).
    #[inline(always)]
    pub fn is_folded(self, code: u8) -> bool {
        self.low > 0 && code != CANDIDATE && code.wrapping_sub(WATCHING + self.watch_keys) < 2
    }

    /// The code of an undecided slot whose first move without a win goes to square `to`.
    #[inline(always)]
    fn watching(self, to: Sq) -> u8 {
        if self.watch_keys == 0 {
            UNKNOWN
        } else {
            WATCHING + to
        }
    }

    /// The map from these codes to `new` ones without a rebase between: each decided code to
    /// the same depth, each watch code to `UNKNOWN` (`new` may watch other squares, or none),
    /// the rest unchanged. A decided code deeper than `new` holds is left as it is: the
    /// caller has made sure that no cell holds one.
    fn recode(self, new: WorkCodes) -> [u8; 256] {
        std::array::from_fn(|c| {
            let c = c as u8;
            match self.plies(c) {
                Some(plies) if plies <= new.max_plies() => new.decided(plies),
                Some(_) => c,
                None if c >= WATCHING && c != CANDIDATE => UNKNOWN,
                None => c,
            }
        })
    }

    /// The stored entry code of a work code that is not folded: `0` none, `1` draw,
    /// `2 + plies` decided.
    #[inline]
    pub fn stored(self, work: u8) -> u16 {
        match (work, self.plies(work)) {
            (NONE, _) => 0,
            (_, None) => 1,
            (_, Some(plies)) => plies as u16 + 2,
        }
    }
}
/// The depths whose losses [`Core`] counts.
const LOSS_DEPTHS: usize = 1024;

const CHUNK_BITS: u32 = 12;
const CHUNK: u64 = 1 << CHUNK_BITS;
const NO_MAN: usize = usize::MAX;

/// A smaller table in its own layout, for the look-ups of exits.
pub struct Subtable {
    layout: Layout,
    /// The slots held: all of them, or (the table of a promotion, whose promoted piece stands
    /// on its last rank) those with one man on one rank, numbered by that field.
    field: Option<RankField>,
    /// Stored entry codes (`0` none, `1` draw, `2 + plies`), by side to move and slot (or
    /// number of `field`).
    codes: [Vec<u8>; 2],
    /// The table's longest mate in plies (its file's header): an exit into it is at most a ply
    /// longer.
    max_plies: u32,
}

impl Subtable {
    /// A table's entry codes spread over the slots of its layout that `field` keeps (all
    /// without one), its longest mate `max_plies` plies.
    pub fn new(
        layout: Layout,
        field: Option<RankField>,
        codes: [Vec<u8>; 2],
        max_plies: u32,
    ) -> Subtable {
        Subtable {
            layout,
            field,
            codes,
            max_plies,
        }
    }

    /// The code of `slot` with side `x` to move.
    #[inline(always)]
    fn code(&self, x: usize, slot: u64) -> u8 {
        let at = match &self.field {
            Some(field) => field
                .number(slot)
                .expect("an exit into a table kept in part reaches the part kept"),
            None => slot,
        };
        self.codes[x][at as usize]
    }
}

/// For each of [`exit_targets`], the man and rank that every exit into it puts a promoted
/// piece on, when only promotions without a capture lead there and the table has pawns (its
/// slots keep ranks): a promoted piece stands on its side's last rank, and so does the last
/// (White) or first (Black) man of its group, identical men being sorted by square. Only
/// those slots of such a table need loading, a rank's worth.
pub fn exit_fields(geo: &Geometry, material: Material) -> Vec<Option<(usize, u8)>> {
    let targets = exit_targets(material);
    let mut fields: Vec<Option<Option<(usize, u8)>>> = vec![None; targets.len()];
    for_each_exit_kind(material, |removed, promoted, _| {
        let rule = exit_rule(material, &targets, removed, promoted);
        let target = targets[rule.sub];
        let field = match promoted {
            Some((i, _)) if removed.is_empty() && target.has_pawns() => {
                let men = target.men();
                let k = rule.to[i];
                let (side, _) = men[k];
                let group = (0..men.len()).filter(|&j| men[j] == men[k]);
                match side {
                    Side::White => group.max().map(|j| (j, geo.ranks() - 1)),
                    Side::Black => group.min().map(|j| (j, 0)),
                }
            }
            _ => None,
        };
        let merged = &mut fields[rule.sub];
        *merged = Some(match *merged {
            None => field,
            Some(before) if before == field => field,
            Some(_) => None,
        });
    });
    fields.into_iter().map(Option::flatten).collect()
}

/// Where a capture or a promotion leads: the smaller table and where each man goes in it.
#[derive(Clone, Copy)]
struct ExitRule {
    sub: usize,
    flipped: bool,
    /// For every man of this material, its number in the other material (`NO_MAN` for a
    /// captured man; a promoted pawn's number is that of the piece it becomes).
    to: [usize; MAX_MEN],
    /// How many men the other material has.
    len: usize,
}

/// The exits of one material: each capture of a man, and each promotion of a pawn to each
/// piece, without or with the capture of each man.
struct Exits {
    /// By captured man.
    captures: [Option<ExitRule>; MAX_MEN],
    /// By pawn and promoted piece (`Piece::PROMOTIONS` order).
    promotions: [[Option<ExitRule>; 4]; MAX_MEN],
    /// By pawn, captured man and promoted piece.
    promotion_captures: Vec<[Option<ExitRule>; 4]>,
}

impl Exits {
    /// The rule of pawn `pawn` promoting to the `k`-th piece after taking `captured`.
    #[inline(always)]
    fn promotion_capture(&self, pawn: usize, captured: usize, k: usize) -> ExitRule {
        self.promotion_captures[pawn * MAX_MEN + captured][k].expect("pawns promote")
    }
}

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
}

/// The values of the en-passant positions of a build.
pub struct EpBuilt {
    /// Their numbering.
    pub layout: EpLayout,
    /// Values by side to move and number, as work codes (`0`: no position).
    pub cells: [Cells; 2],
}

/// The work table of the en-passant positions ([`ep`]): each has the moves of its placement
/// without the right and the en-passant captures besides, so its value is the better of its
/// placement's and the captures' (the captures' alone when the placement has no move). It is
/// set from those whenever the placement is decided, and un-moves only by the double step.
struct EpCells {
    cells: [Cells; 2],
    presence: [Vec<[AtomicU64; 4]>; 2],
    /// For a position whose every en-passant capture loses and whose placement has a move:
    /// the longest of those losses, in plies (it is lost when its placement is, in the longer
    /// of the two).
    floor: [Cells; 2],
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

/// The init pass's hint words from its codes, 64 slots at a time and eight bytes to an
/// operation: by slot, whether it may win ([`Core::may_win`]: legal, and undecided or won),
/// may lose ([`Core::may_lose`]: undecided and able to lose) and is legal, each a bit.
#[derive(Clone, Copy)]
struct HintWords {
    /// The first decided code: the codes below it are undecided, and so is `CANDIDATE` above.
    first_decided: u8,
    /// The low bit of a decided code whose depth is even (a loss).
    loss_parity: u8,
}

impl HintWords {
    fn new(codes: WorkCodes) -> HintWords {
        let first_decided = codes.decided(codes.low);
        HintWords {
            first_decided,
            loss_parity: ((u32::from(first_decided) + codes.low) & 1) as u8,
        }
    }

    /// The words may win, may lose and legal of up to 64 codes, code `b` in bit `b` (bits
    /// past the end clear).
    #[inline]
    fn of(self, codes: &[u8]) -> [u64; 3] {
        let mut padded = [NONE; 64];
        padded[..codes.len()].copy_from_slice(codes);
        let mut words = [0u64; 3];
        for (k, eight) in padded.chunks_exact(8).enumerate() {
            let w = u64::from_le_bytes(eight.try_into().expect("eight bytes"));
            let legal = byte_nonzero(w);
            let undecided = byte_below(w, self.first_decided) | byte_equal(w, CANDIDATE);
            // A decided code's depth is odd (a win) where its low bit differs from a loss's.
            let won = ((w ^ (u64::from(self.loss_parity) * BYTE_ONES)) & BYTE_ONES) << 7;
            let win = legal & (undecided | won);
            let lose = legal & undecided & !byte_equal(w, CANNOT_LOSE);
            for (word, high) in words.iter_mut().zip([win, lose, legal]) {
                *word |= u64::from(pack_high_bits(high)) << (8 * k);
            }
        }
        words
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
    /// Whether the passes take the slots of a code a run at a time ([`Node::Run`]): there are
    /// no en-passant positions. The odd passes then count moves ([`Core::uncounted`]).
    by_runs: bool,
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
    /// Whether the hints are kept (the passes go a run at a time, and the table is not too
    /// large: [`MAX_HINTED_SLOTS`]); the init pass fills them.
    hinted: bool,
    /// Whether the odd passes find their losses from the ways out of the runs their wins
    /// reach ([`Core::lose_without_ways_out`]) rather than by counting moves: the table keeps
    /// hints, and no pawn moves in it.
    by_ways_out: bool,
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
}

/// By side to move and depth in plies (below [`LOSS_DEPTHS`]), a count of slots: one set of
/// counters per worker thread, so that threads counting at once do not contend for them.
struct LossCounts {
    shards: Vec<[Vec<AtomicU64>; 2]>,
}

impl LossCounts {
    fn new() -> LossCounts {
        let zeros = || (0..LOSS_DEPTHS).map(|_| AtomicU64::new(0)).collect();
        LossCounts {
            shards: (0..=rayon::current_num_threads())
                .map(|_| [zeros(), zeros()])
                .collect(),
        }
    }

    /// Adds `count` to side `x`'s count in `plies`.
    #[inline]
    fn add(&self, x: usize, plies: u32, count: u64) {
        let shard = rayon::current_thread_index().map_or(0, |i| i + 1) % self.shards.len();
        self.shards[shard][x][plies as usize].fetch_add(count, Ordering::Relaxed);
    }

    /// Side `x`'s count in `plies`.
    fn get(&self, x: usize, plies: u32) -> u64 {
        self.shards
            .iter()
            .map(|shard| shard[x][plies as usize].load(Ordering::Relaxed))
            .sum()
    }

    fn clear(&self) {
        for count in self.shards.iter().flatten().flatten() {
            count.store(0, Ordering::Relaxed);
        }
    }
}

/// Calls `visit` with every kind of exit of `material`, captures first: the men it removes,
/// the pawn it promotes and to what, and the side that makes it (a promotion's; `None` for a
/// capture, whose table is loaded with both sides to move).
fn for_each_exit_kind(
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
fn exit_rules(material: Material, targets: &[Material]) -> Exits {
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

/// `material` without the men `removed`, with man `promoted.0` exchanged for `promoted.1`.
fn exit_material(
    material: Material,
    removed: &[usize],
    promoted: Option<(usize, Piece)>,
) -> Material {
    Material::from_men(&exit_men(material, removed, promoted))
}

fn exit_men(
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

/// Where the men of `material` go after the exit removing `removed` and promoting `promoted`,
/// in the table `targets[sub]`.
fn exit_rule(
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

/// How the fast core spends its work byte; tests change it to reach paths that 8×8 tables
/// reach only when they are deep.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tuning {
    /// The watch codes to start with (`None`: one per square).
    pub watch_keys: Option<u8>,
    /// Rebase once a pass would store more than this many plies beyond the first decided
    /// code (`None`: only when the byte is full).
    pub rebase_span: Option<u32>,
    /// Solve a table whole even where its pawns make slices (see the module docs).
    pub whole: bool,
    /// Keep no hints, as a table of more than [`MAX_HINTED_SLOTS`] slots a side does (see
    /// the module docs).
    pub no_hints: bool,
    /// Find the losses of the odd passes by counting moves, as a table without hints does,
    /// rather than from the ways out of the runs their wins reach (see the module docs).
    pub count_moves: bool,
}

/// The most slots a side that a table keeps hints for: two bits more per slot and side (a
/// quarter more memory) for a five-man table on 8×8 (at most 1.8 × 10⁸ slots a side), but not
/// for a six-man one (7.7 × 10⁹), whose work table is then one byte per slot and side.
pub const MAX_HINTED_SLOTS: u64 = 1 << 31;

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
    let ep_layout = EpLayout::new(geo, &layout, &men);
    let parts = Parts {
        bits: &bits,
        layout: &layout,
        ep_layout: ep_layout.as_ref(),
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
        hints: !tuning.no_hints && size <= MAX_HINTED_SLOTS,
        ways_out: !tuning.count_moves,
        mirror_rank: (0..geo.square_count() as Sq)
            .map(|sq| geo.sq(geo.file(sq), geo.ranks() - 1 - geo.rank(sq)))
            .collect(),
    };
    let solve_with = |codes: WorkCodes| match n {
        2 => solve::<2>(&parts, codes, scratch, material, observer),
        3 => solve::<3>(&parts, codes, scratch, material, observer),
        4 => solve::<4>(&parts, codes, scratch, material, observer),
        5 => solve::<5>(&parts, codes, scratch, material, observer),
        6 => solve::<6>(&parts, codes, scratch, material, observer),
        7 => solve::<7>(&parts, codes, scratch, material, observer),
        8 => solve::<8>(&parts, codes, scratch, material, observer),
        _ => Err(Declined::Unsupported),
    };
    // Watching costs a code per square, taken from the depths a byte can hold: a table
    // deeper than what is left gives the watch codes up when it reaches that depth, or after
    // its init pass if its exits may force a loss deeper than that; a whole table whose exits
    // may lie deeper makes its init pass without them and takes them up after it where its
    // values, and the losses its exits may force, fit; a table that still finds its values
    // too deep is built again without.
    let watching = WorkCodes::new(
        tuning.watch_keys.unwrap_or(layout.square_count() as u8),
        tuning.rebase_span,
    );
    let solved = match solve_with(watching) {
        Err(Declined::TooDeep) => solve_with(WorkCodes::new(0, tuning.rebase_span))?,
        other => other?,
    };
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
    })
}

/// What every instance of the core shares, whatever its number of men.
struct Parts<'a> {
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
    /// Whether a table that keeps hints may find its losses from the ways out of the runs
    /// its wins reach ([`Tuning::count_moves`]).
    ways_out: bool,
    mirror_rank: Vec<Sq>,
}

struct Solved {
    /// The codes the cells hold at the end.
    codes: WorkCodes,
    /// The exact depths the rebases folded away.
    snapshots: Snapshots,
    cells: [Cells; 2],
    ep_cells: Option<[Cells; 2]>,
    max_plies: u32,
    depths: u32,
    retrograde_seconds: f64,
}

/// The iteration for a material of `N` men.
fn solve<const N: usize>(
    parts: &Parts<'_>,
    codes: WorkCodes,
    scratch: Option<&Path>,
    material: Material,
    observer: &dyn Observer,
) -> Result<Solved, Declined> {
    let mut snapshots = Snapshots::new(scratch, &material.to_string());
    let layout = parts.layout;
    let size = layout.size();
    let chunks = size.div_ceil(CHUNK) as usize;
    // The parts solved one after another, as lists of chunks: the whole table, or its slices
    // (a placement of the pawns with its mirror image), each after those its pushes lead into.
    // By chunk, the end of its slots that may be used.
    let sliced = layout.slices() > 0 && parts.ep_layout.is_none();
    let mut chunk_end: Vec<u64> = (0..chunks as u64)
        .map(|c| ((c + 1) * CHUNK).min(size))
        .collect();
    let groups = if sliced {
        layout.slice_groups()
    } else {
        Vec::new()
    };
    let plan: Vec<Vec<usize>> = if sliced {
        groups
            .iter()
            .map(|group| {
                group
                    .iter()
                    .flat_map(|&number| {
                        let (first, end) = layout.slice_span(number);
                        let chunks = (first / CHUNK) as usize..end.div_ceil(CHUNK) as usize;
                        for c in chunks.clone() {
                            chunk_end[c] = chunk_end[c].min(end);
                        }
                        chunks
                    })
                    .collect()
            })
            .collect()
    } else {
        vec![(0..chunks).collect()]
    };
    let chunk_end = &chunk_end;
    // A whole table whose exits may lie deeper than the watch codes allow makes its init pass
    // without them, and takes them up after it if its values, and the losses its exits may
    // force, fit beside them ([`Core::start_watching`]), rather than finding them too deep
    // and making it again.
    let watch_after_init = (!sliced
        && codes.watch_keys > 0
        && parts
            .subs
            .iter()
            .any(|sub| sub.max_plies + 1 > codes.max_plies()))
    .then_some(codes);
    let mut codes = match watch_after_init {
        Some(_) => WorkCodes::new(0, codes.rebase_span),
        None => codes,
    };
    let by_runs = N >= 3 && parts.ep_layout.is_none();
    let hinted = by_runs && parts.hints;
    // A pawn's moves are not its un-moves turned round: only where pawns do not move (a
    // pawnless table, or the slices of one) are a run's ways out found by its un-moves.
    let pawns_stay = sliced || (0..N).all(|i| parts.piece[i] != Piece::Pawn);
    let by_ways_out = hinted && parts.ways_out && pawns_stay;
    let run_marks = |size: u64| match by_ways_out {
        true => RunMarks::new(size.div_ceil(layout.square_count())),
        false => RunMarks::new(0),
    };
    let hints = |size| match hinted {
        true => SlotHints::new(size),
        false => SlotHints::none(),
    };
    let mut core = Core::<N> {
        refold: std::array::from_fn(|i| i < N && layout.is_grouped(i)),
        grouped: (0..N).any(|i| layout.is_grouped(i)),
        by_runs,
        sliced,
        codes,
        finished: codes,
        shared: parts,
        cells: [Cells::new(size), Cells::new(size)],
        may_win: std::array::from_fn(|_| hints(size)),
        may_lose: std::array::from_fn(|_| hints(size)),
        hinted,
        by_ways_out,
        not_won: std::array::from_fn(|_| match by_ways_out {
            true => SlotHints::new(size),
            false => SlotHints::none(),
        }),
        reached: std::array::from_fn(|_| run_marks(size)),
        presence: [presence_sets(chunks), presence_sets(chunks)],
        too_deep: AtomicBool::new(false),
        deepest: AtomicU32::new(0),
        exit_loss: AtomicU32::new(0),
        losses: LossCounts::new(),
        ep: parts.ep_layout.map(|ep| {
            let sizes = [ep.size(0), ep.size(1)];
            let chunks = sizes.map(|size| presence_sets(size.div_ceil(CHUNK) as usize));
            EpCells {
                cells: sizes.map(Cells::new),
                presence: chunks,
                floor: sizes.map(Cells::new),
            }
        }),
    };

    // By side to move, the chunks that may hold a slot undecided or decided deeper than the
    // current pass (cleared by the passes that pull wins, [`Core::pull_wins`]).
    let open: [Vec<AtomicBool>; 2] =
        std::array::from_fn(|_| (0..chunks).map(|_| AtomicBool::new(true)).collect());
    let mut max_plies = 0;
    let mut depths = 0;
    let mut retrograde_seconds = 0.0;
    if sliced {
        // Progress by parts solved, their chunks on both sides.
        let planned: usize = plan.iter().map(Vec::len).sum();
        observer.phase(material, Phase::Retrograde, 2 * planned as u64 * CHUNK);
    } else {
        observer.phase(material, Phase::Init, 2 * size);
    }
    // The codes each part starts with.
    let watching = codes;
    // Sliced: by slice, the deepest pass its part made (`0` before it is solved).
    let mut slice_depths = vec![0u32; if sliced { layout.slices_count() } else { 0 }];
    for (p, part) in plan.iter().enumerate() {
        if sliced {
            codes = watching;
            core.codes = codes;
            // A push into a slice `d` plies deep stores at most `d + 1` plies here: a part
            // whose pushes reach deeper than the watch codes allow starts without them.
            let pushes_depth = groups[p]
                .iter()
                .flat_map(|&number| layout.push_targets(number))
                .map(|target| slice_depths[target as usize])
                .max()
                .unwrap_or(0);
            if codes.watch_keys > 0 && pushes_depth + 1 > codes.max_plies() {
                codes = core.stop_watching_part(part);
            }
        }
        let legal = loop {
            // Each part's counts start again: it is solved from depth 0 as a table of its own.
            let legal = core.init_pass(part, chunk_end, (!sliced).then_some(observer));
            if sliced && codes.watch_keys > 0 && core.too_deep.load(Ordering::Relaxed) {
                // The part's exits lie deeper than the watch codes allow: its init pass is made
                // again without them.
                core.too_deep.store(false, Ordering::Relaxed);
                codes = core.stop_watching_part(part);
                continue;
            }
            core.check()?;
            core.init_ep();
            core.check()?;
            break legal;
        };
        // A forward check may store a loss as deep as the exits force, whatever its pass: when
        // that is deeper than the watch codes allow, they are given up now (or not taken up),
        // rather than found too deep in a later pass and the table built again.
        if let Some(watching) = watch_after_init {
            codes = core.start_watching(watching);
        } else if codes.watch_keys > 0 && core.exit_loss.load(Ordering::Relaxed) > codes.max_plies()
        {
            codes = core.stop_watching_here(part);
        }
        let retrograde_start = std::time::Instant::now();

        // Depth by depth.
        if !sliced {
            observer.phase(material, Phase::Retrograde, legal[0] + legal[1]);
        }
        // By side to move, the slots met by the passes so far: each slot's value is final when
        // the pass of its depth meets it, so the others are undecided or decided deeper.
        let mut met = [0u64; 2];
        let mut depth: u32 = 0;
        // Each decided slot is met by the pass of its depth, which reads it then (a value is
        // stored at least a ply deeper than the pass that stores it, and is final once its pass
        // comes): the longest mate is the last depth whose pass met a slot.
        loop {
            // The pass of depth `d` stores values of at most `d + 1` plies: when those no longer
            // fit beside the watch codes, the watch codes are given up, in place; when they no
            // longer fit at all, the shallow depths are folded away ([`rebase`]).
            if depth + 1 > codes.rebase_limit() && codes.watch_keys > 0 {
                codes = core.stop_watching_here(part);
            }
            if depth + 1 > codes.rebase_limit() {
                // The slices solved later read the codes of those solved before: a rebase would
                // fold depths they still need.
                if sliced {
                    return Err(Declined::TooDeep);
                }
                codes = core.rebase(depth, &mut snapshots)?;
            }
            let code = codes.decided(depth);
            let mut found = 0;
            // Even depths: each side's losses in `depth`, counted first, so that a side whose
            // parents not yet won are fewer than them has its wins pulled from those parents
            // rather than pushed from the losses.
            // (Slots of the table, counted as they were stored, then en-passant positions.)
            let losses = (depth % 2 == 0 && (depth as usize) < LOSS_DEPTHS).then(|| {
                std::array::from_fn::<[u64; 2], 2, _>(|x| {
                    let ep = core.ep.as_ref().map_or(0, |ep| {
                        for_each_chunk_of_code(
                            &ep.cells[x],
                            &ep.presence[x],
                            None,
                            code,
                            |first, end| {
                                let mut count = 0;
                                ep.cells[x].for_each_equal(first, end, code, |_| count += 1);
                                count
                            },
                        )
                    });
                    [core.losses.get(x, depth), ep]
                })
            });
            // By side, the slots met by the passes before this depth: the second side's choice
            // must not count the first side's losses of this pass as met.
            let met_before = met;
            // One side at a time: its table is scanned while only the other side's is written.
            for x in 0..2 {
                if let Some(losses) = losses {
                    let y = 1 - x;
                    let open_slots = legal[y].saturating_sub(met_before[y] + losses[y][0]);
                    let [slots, positions] = losses[x];
                    if open_slots * 2 < slots + positions {
                        core.pull_wins(y, depth + 1, &open[y], part, chunk_end);
                        if !sliced {
                            observer.progressed(slots + positions);
                        }
                        found += slots + positions;
                        met[x] += slots;
                        continue;
                    }
                }
                let visit = |node: Node| {
                    if depth % 2 == 0 {
                        core.mark_wins(node, x, depth + 1);
                    } else {
                        core.mark_candidates(node, x, depth);
                    }
                };
                let slots_found = if core.by_runs {
                    for_each_run_of_code(
                        &core.cells[x],
                        &core.presence[x],
                        Some(part),
                        code,
                        layout.square_count(),
                        |start, mask| {
                            // The values of this depth are final when its pass meets them.
                            core.settle_run(x, start, mask);
                            visit(Node::Run { start, mask })
                        },
                    )
                } else {
                    for_each_of_code(
                        &core.cells[x],
                        &core.presence[x],
                        Some(part),
                        code,
                        |slot| visit(Node::Slot(slot)),
                    )
                };
                if depth % 2 == 1 && core.by_ways_out {
                    core.lose_without_ways_out(x, depth, part, chunk_end);
                }
                let mut side_found = slots_found;
                if let Some(ep) = &core.ep {
                    side_found +=
                        for_each_of_code(&ep.cells[x], &ep.presence[x], None, code, |number| {
                            visit(Node::Ep(number))
                        });
                }
                if !sliced {
                    observer.progressed(side_found);
                }
                found += side_found;
                met[x] += slots_found;
            }
            if found > 0 {
                max_plies = max_plies.max(depth);
            }
            if depth % 2 == 1 {
                // The candidates, each once, in slot order; each chunk's are written by its task
                // alone, and their moves read the other side's table, which no task writes.
                let (word, bit) = (usize::from(CANDIDATE >> 6), 1u64 << (CANDIDATE & 63));
                for y in 0..2 {
                    let tasks: Vec<usize> = part
                        .iter()
                        .copied()
                        .filter(|&c| core.presence[y][c][word].load(Ordering::Relaxed) & bit != 0)
                        .collect();
                    tasks.par_iter().for_each(|&chunk| {
                        core.presence[y][chunk][word].fetch_and(!bit, Ordering::Relaxed);
                        let first = chunk as u64 * CHUNK;
                        let end = chunk_end[chunk];
                        // The losses found, counted by depth (most of them in `depth + 1`).
                        let usual = codes.decided(depth + 1);
                        let mut lost = 0;
                        core.cells[y].for_each_equal(first, end, CANDIDATE, |slot| {
                            match core.find_loss(slot, y, depth) {
                                Some(code) if code == usual => lost += 1,
                                Some(code) => core.count_losses(y, code, 1),
                                None => {}
                            }
                        });
                        core.count_losses(y, usual, lost);
                    });
                }
            }
            core.check()?;
            if found == 0 && u32::from(code) >= core.deepest.load(Ordering::Relaxed) {
                break;
            }
            depth += 1;
            if depth > codes.max_plies() {
                return Err(Declined::TooDeep);
            }
        }
        depths = depths.max(depth);
        if sliced {
            for &number in &groups[p] {
                slice_depths[number as usize] = depth;
            }
        }
        if sliced && core.finished.watch_keys == 0 && codes.watch_keys > 0 {
            // The parts solved before gave the watch codes up: this one follows.
            codes = core.stop_watching(Some(part));
        }
        retrograde_seconds += retrograde_start.elapsed().as_secs_f64();
        if sliced {
            observer.progressed(2 * part.len() as u64 * CHUNK);
        }
    }
    debug_assert!(!sliced || codes.watch_keys == core.finished.watch_keys);
    let Core { cells, ep, .. } = core;
    Ok(Solved {
        codes,
        snapshots,
        cells,
        ep_cells: ep.map(|ep| ep.cells),
        max_plies,
        depths,
        retrograde_seconds,
    })
}

fn is_slider(piece: Piece) -> bool {
    matches!(piece, Piece::Queen | Piece::Rook | Piece::Bishop)
}

/// Calls `visit` with every slot of `cells` that holds `code`, in parallel over the chunks
/// whose code set (`presence`) has it; returns how many there were.
fn for_each_of_code(
    cells: &Cells,
    presence: &[[AtomicU64; 4]],
    part: Option<&[usize]>,
    code: u8,
    visit: impl Fn(u64) + Sync,
) -> u64 {
    for_each_chunk_of_code(cells, presence, part, code, |first, end| {
        let mut count = 0;
        cells.for_each_equal(first, end, code, |slot| {
            count += 1;
            visit(slot);
        });
        count
    })
}

/// Calls `scan` with the slots `first..end` of every chunk of `cells` (of `part`, if given)
/// whose code set (`presence`) has `code`, in parallel; the sum of what it returns.
fn for_each_chunk_of_code(
    cells: &Cells,
    presence: &[[AtomicU64; 4]],
    part: Option<&[usize]>,
    code: u8,
    scan: impl Fn(u64, u64) -> u64 + Sync,
) -> u64 {
    let (word, bit) = (usize::from(code >> 6), 1u64 << (code & 63));
    let has_code = |&c: &usize| presence[c][word].load(Ordering::Relaxed) & bit != 0;
    let tasks: Vec<usize> = match part {
        Some(part) => part.iter().copied().filter(has_code).collect(),
        None => (0..presence.len()).filter(has_code).collect(),
    };
    tasks
        .par_iter()
        .map(|&chunk| {
            let first = chunk as u64 * CHUNK;
            scan(first, (first + CHUNK).min(cells.len()))
        })
        .sum()
}

/// [`for_each_of_code`] a run at a time: calls `visit` with the first slot of each run of
/// `squares` slots (the last man's field) holding `code` somewhere and the set of its slots
/// that do, as offsets from that first slot, at most once per chunk and run.
fn for_each_run_of_code(
    cells: &Cells,
    presence: &[[AtomicU64; 4]],
    part: Option<&[usize]>,
    code: u8,
    squares: u64,
    visit: impl Fn(u64, u64) + Sync,
) -> u64 {
    debug_assert!(squares <= 64);
    for_each_chunk_of_code(cells, presence, part, code, |first, end| {
        let mut count = 0;
        let (mut start, mut mask) = (0, 0u64);
        cells.for_each_equal(first, end, code, |slot| {
            count += 1;
            let run = if squares == 64 {
                slot & !63
            } else {
                slot - slot % squares
            };
            if run != start && mask != 0 {
                visit(start, mask);
                mask = 0;
            }
            start = run;
            mask |= 1 << (slot - run);
        });
        if mask != 0 {
            visit(start, mask);
        }
        count
    })
}

/// Calls `visit` with every bit of `set`, lowest first.
#[inline(always)]
fn for_each_bit(mut set: u64, mut visit: impl FnMut(Sq)) {
    while set != 0 {
        visit(set.trailing_zeros() as Sq);
        set &= set - 1;
    }
}

fn presence_sets(chunks: usize) -> Vec<[AtomicU64; 4]> {
    let mut v = Vec::with_capacity(chunks);
    v.resize_with(chunks, Default::default);
    v
}

/// Where [`Core::for_each_parent_run`] sends the parents it finds, each as the parent of the
/// run's slot with the last man on some square `s`.
trait ParentSink {
    /// The parents `base + s`, `s` in `live`; the un-moved man stands on `to` in each.
    fn run(&mut self, base: u64, live: u64, to: Sq);
    /// The parent `slot` of the run's slot with the last man on `s`.
    fn slot(&mut self, slot: u64, s: Sq, to: Sq);
    /// Whether no more parents are wanted.
    #[inline(always)]
    fn done(&self) -> bool {
        false
    }
    /// The squares `s` whose parents are still wanted.
    #[inline(always)]
    fn pending(&self) -> u64 {
        u64::MAX
    }
}

/// Every parent in `hints`, to `visit` with its slot and the square the un-moved man stands
/// on; those outside are passed over unread.
struct HintedParents<'h, H, F> {
    hints: &'h H,
    visit: F,
}

impl<H: SlotSet, F: FnMut(u64, Sq)> ParentSink for HintedParents<'_, H, F> {
    #[inline(always)]
    fn run(&mut self, base: u64, live: u64, to: Sq) {
        for_each_bit(live & self.hints.may_hold_run(base), |s| {
            (self.visit)(base + u64::from(s), to)
        });
    }

    #[inline(always)]
    fn slot(&mut self, slot: u64, _: Sq, to: Sq) {
        if self.hints.may_hold(slot) {
            (self.visit)(slot, to)
        }
    }
}

/// The squares `s` of a run's last man from which a move reaches a slot of `open` (a way out
/// of a loss: a legal position not won), found among `wanted` until every one has one.
struct WaysOut<'h> {
    open: &'h SlotHints,
    wanted: u64,
    found: u64,
}

impl ParentSink for WaysOut<'_> {
    #[inline(always)]
    fn run(&mut self, base: u64, live: u64, _: Sq) {
        self.found |= live & self.open.run(base);
    }

    #[inline(always)]
    fn slot(&mut self, slot: u64, s: Sq, _: Sq) {
        if self.found >> s & 1 == 0 && self.open.get(slot) {
            self.found |= 1 << s;
        }
    }

    #[inline(always)]
    fn done(&self) -> bool {
        self.wanted & !self.found == 0
    }

    #[inline(always)]
    fn pending(&self) -> u64 {
        self.wanted & !self.found
    }
}

/// Marks the run of every parent in `hints` (those that may lose), once per parent run
/// rather than once per parent: the parents of one stretch lie in one run.
struct MarkReached<'h> {
    hints: &'h SlotHints,
    marks: &'h RunMarks,
    squares: u64,
}

impl ParentSink for MarkReached<'_> {
    #[inline(always)]
    fn run(&mut self, base: u64, live: u64, _: Sq) {
        debug_assert_eq!(base % self.squares, 0, "a stretch of parents starts a run");
        if live & self.hints.run(base) != 0 {
            self.marks.mark(base / self.squares);
        }
    }

    #[inline(always)]
    fn slot(&mut self, slot: u64, _: Sq, _: Sq) {
        if self.hints.get(slot) {
            self.marks.mark(slot / self.squares);
        }
    }
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

/// A capture, or a promotion without one, of a run of [`Core::classify_range`] whose slot in
/// the table it leads into moves with the last man's square only (`Core::run_exits`).
struct RunExit<'a> {
    /// The side that moves.
    side: usize,
    /// The moving man.
    capturer: usize,
    /// A capture: the captured man's square, as a set (`0`: the last man's, which moves with
    /// the run). A promotion: the squares the pawn passes and moves to (two for a double step
    /// onto the last rank of a board of four ranks).
    target: Board64,
    /// Whether it is a promotion, which holds while the last man stands on none of `target`
    /// (a capture holds while the moving man attacks `target`).
    push: bool,
    /// The entry codes of the other table, with its side to move after the capture.
    codes: &'a [u8],
    /// The slot there with the field of the man on the last man's square `0`.
    base: u64,
    /// The stride of that field (`0`: no man stands there, the last man having captured).
    stride: u64,
    /// Whether the table is stored with colours exchanged (squares mirrored by rank first).
    mirror: bool,
    /// The symmetry the other table's fold applies ([`Layout::fold_map`]).
    map: &'a [Sq],
}

/// The exits of one run, and by man, the squares whose captures and promotions they cover.
struct RunExits<'a, const N: usize> {
    exits: Vec<RunExit<'a>>,
    /// By moving man, the squares of the other men whose captures are here, and the squares
    /// whose promotions are.
    skip: [Board64; N],
    /// By capturing man, every square (`u64::MAX`) if its capture of the last man is here.
    skip_last: [Board64; N],
    /// In a sliced layout, the pushes of the run's pawns (none promoting): exits into a slice
    /// solved before, whose slot is a base plus the last man's square ([`Core::classify_run`]).
    pushes: Vec<RunPush>,
}

/// A push of a pawn in a run of a sliced layout: a move when the last man is off `path` (the
/// squares it passes and moves to), into the slot `base + s` (the other side to move) when the
/// last man stands on `s`.
struct RunPush {
    side: usize,
    path: Board64,
    base: u64,
}

/// What the other side's men mean for a king ([`Core::king_safety`]).
struct KingSafety {
    /// The squares they attack through the king's square (his own attacked or not either way).
    attacked: Board64,
    /// Where a move that captures nothing may stand to answer a check: everywhere without
    /// one; between a sliding checker and the king; nowhere against two checkers or another
    /// checker.
    answers: Board64,
    /// The lines on which a man of the king's side may shield him from a slider.
    shields: Board64,
}

/// The exits of a slot (or its en-passant captures) as the init pass weighs them for the side
/// to move: the quickest win they give, whether one draws, and the longest loss.
#[derive(Clone, Copy, Default)]
struct ExitTally {
    win: Option<u32>,
    draw: bool,
    loss: Option<u32>,
}

impl ExitTally {
    /// Counts an exit whose value, for the side to move after it, is `value`; an illegal one
    /// (the moving side's king left in check) is no move.
    #[inline(always)]
    fn add(&mut self, value: Value) {
        match value {
            Value::Loss(k) => self.win = Some(self.win.map_or(k + 1, |w| w.min(k + 1))),
            Value::Draw => self.draw = true,
            Value::Win(k) => self.loss = Some(self.loss.map_or(k + 1, |l| l.max(k + 1))),
            Value::Illegal => {}
        }
    }
}

impl RunExit<'_> {
    /// Whether the exit is a move when the last man stands on `last`, given the moving man's
    /// attacks there.
    #[inline(always)]
    fn holds(&self, last: Sq, attacks: Board64) -> bool {
        if self.push {
            self.target & (1 << last) == 0
        } else if self.target == 0 {
            attacks & (1 << last) != 0
        } else {
            attacks & self.target != 0
        }
    }

    /// The code of the exit when the last man stands on `last` (with `mirror_rank` the
    /// board's rank mirror).
    #[inline(always)]
    fn code(&self, last: usize, mirror_rank: &[Sq]) -> u8 {
        let last = if self.mirror {
            usize::from(mirror_rank[last])
        } else {
            last
        };
        let turned = self.map[last];
        self.codes[(self.base + u64::from(turned) * self.stride) as usize]
    }
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

    /// The stored value, for the side to move after it, of the position an exit (`rule`) of a
    /// move by side `mover` leads to; `after` has the moving man on its new square (and a
    /// captured man still on it, which the rule leaves out).
    #[inline]
    fn exit_value(&self, after: &[Sq], rule: ExitRule, mover: usize) -> Value {
        let sub = &self.shared.subs[rule.sub];
        let mut sq = self.exit_squares(after, rule);
        let k = rule.len;
        sub.layout.fold(&mut sq[..k]);
        let slot = sub.layout.slot(&sq[..k]);
        let side = (1 - mover) ^ usize::from(rule.flipped);
        Value::from_code(u32::from(sub.code(side, slot)))
    }

    /// The squares, in the other table's order of men and unfolded, of the men after an exit
    /// (`rule`); `after` has the moving man on its new square (and a captured man still on it,
    /// which the rule leaves out).
    #[inline(always)]
    fn exit_squares(&self, after: &[Sq], rule: ExitRule) -> [Sq; MAX_MEN] {
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
    fn for_each_exit(
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
    fn for_each_exit_but(
        &self,
        p: &Placed<N>,
        attacks: &[Board64; N],
        x: usize,
        skip: &[Board64; N],
        mut visit: impl FnMut(Value),
    ) {
        let y = 1 - x;
        for &i in &self.shared.side_men[x][..self.shared.side_len[x]] {
            let from = p.sq[i];
            let pawn = self.shared.piece[i] == Piece::Pawn;
            let mut targets = attacks[i] & p.by_side[y] & !skip[i];
            if pawn {
                let pushes = self.shared.bits.pawn_pushes(x, from, p.occ);
                targets |= pushes & self.shared.bits.last_rank(x) & !skip[i];
                if self.sliced {
                    self.for_each_push_exit(
                        p,
                        i,
                        pushes & !self.shared.bits.last_rank(x),
                        x,
                        &mut visit,
                    );
                }
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
                        visit(self.exit_value(&after, rule, x));
                    }
                } else {
                    let j = captured.expect("a move that stays is no exit");
                    let rule = self.shared.exits.captures[j].expect("kings are never captured");
                    visit(self.exit_value(&after, rule, x));
                }
            }
        }
    }

    /// Calls `visit` with the value (for the side to move after it) of each push of pawn `i`
    /// of side `x` in `p` to the squares of `pushes` (none promoting), in a sliced layout: the
    /// child lies in a slice solved before, whose undecided slots are draws.
    #[inline]
    fn for_each_push_exit(
        &self,
        p: &Placed<N>,
        i: usize,
        mut pushes: Board64,
        x: usize,
        visit: &mut impl FnMut(Value),
    ) {
        while pushes != 0 {
            let t = pushes.trailing_zeros() as Sq;
            pushes &= pushes - 1;
            let (child, _) = self.moved_unfolded(p.slot, &p.sq, i, t);
            visit(self.push_value(x, child));
        }
    }

    /// The value, for the side to move after it, of a push of side `x` into `child`, a slot of
    /// a slice solved before (an undecided slot there is a draw).
    #[inline(always)]
    fn push_value(&self, x: usize, child: u64) -> Value {
        // Read as a stored entry: nothing is folded, as sliced tables never rebase.
        let code = self.finished.stored(self.cells[1 - x].get(child));
        Value::from_code(u32::from(code))
    }

    /// The init pass over the chunks `part` (each used up to `chunk_end`): every slot's init
    /// code with each side to move ([`Core::classify_range`]), the chunks' code sets, the
    /// losses counted and the deepest code, all started again. Returns how many slots are legal
    /// with each side to move; reports its progress to `observer`, if any.
    fn init_pass(
        &self,
        part: &[usize],
        chunk_end: &[u64],
        observer: Option<&dyn Observer>,
    ) -> [u64; 2] {
        self.losses.clear();
        self.deepest.store(0, Ordering::Relaxed);
        self.exit_loss.store(0, Ordering::Relaxed);
        let deepest = &self.deepest;
        let legal = [AtomicU64::new(0), AtomicU64::new(0)];
        // The hints' sets ([`Core::may_win`], [`Core::may_lose`]) by code: the losses are final
        // when stored; a win stored here may yet give way to a quicker one.
        let hint_words = HintWords::new(self.codes);
        part.par_iter().for_each(|&chunk| {
            let first = chunk as u64 * CHUNK;
            let end = chunk_end[chunk];
            let len = (end - first) as usize;
            // The chunk's bytes belong to this task alone: they are assembled here and stored
            // whole, then read again for the chunk's counts, code sets and hints.
            let mut bytes = [[NONE; CHUNK as usize]; 2];
            self.classify_range(first, end, |slot, codes| {
                let at = (slot - first) as usize;
                bytes[0][at] = codes[0];
                bytes[1][at] = codes[1];
            });
            let first_decided = usize::from(self.codes.decided(0));
            let mut local_deepest = 0;
            for (x, bytes) in bytes.iter().enumerate() {
                let bytes = &bytes[..len];
                for (k, word) in bytes.chunks(8).enumerate() {
                    let mut le = [NONE; 8];
                    le[..word.len()].copy_from_slice(word);
                    self.cells[x].set_word((first / 8) as usize + k, u64::from_le_bytes(le));
                }
                if self.hinted {
                    // By side, the hints' words: may win, may lose; and where losses are
                    // found by ways out, the legal slots, none met as a win yet
                    // ([`Core::not_won`]).
                    for (k, word) in bytes.chunks(64).enumerate() {
                        let [win, lose, legal] = hint_words.of(word);
                        let at = (first / 64) as usize + k;
                        self.may_win[x].set_word(at, win);
                        self.may_lose[x].set_word(at, lose);
                        if self.by_ways_out {
                            self.not_won[x].set_word(at, legal);
                        }
                    }
                }
                // How many slots hold each code, counted four ways so that repeated codes do
                // not wait on one another's counts.
                let mut counts = [[0u32; 256]; 4];
                for quad in bytes.chunks(4) {
                    for (counts, &code) in counts.iter_mut().zip(quad) {
                        counts[usize::from(code)] += 1;
                    }
                }
                let mut present = [0u64; 4];
                let mut legal_here = 0;
                for code in 1..256 {
                    let count: u32 = counts.iter().map(|counts| counts[code]).sum();
                    if count > 0 {
                        legal_here += u64::from(count);
                        present[code >> 6] |= 1 << (code & 63);
                        local_deepest = local_deepest.max(code);
                        if code >= first_decided {
                            self.count_losses(x, code as u8, u64::from(count));
                        }
                    }
                }
                for (w, bits) in self.presence[x][chunk].iter().zip(present) {
                    w.store(bits, Ordering::Relaxed);
                }
                legal[x].fetch_add(legal_here, Ordering::Relaxed);
            }
            deepest.fetch_max(local_deepest as u32, Ordering::Relaxed);
            if let Some(observer) = observer {
                observer.progressed(2 * (end - first));
            }
        });
        legal.map(AtomicU64::into_inner)
    }

    /// Calls `visit` with every slot of `first..end` and its init codes with White and with
    /// Black to move. Slots come in runs in which only the last man moves: the other men's
    /// squares are decoded once a run, and their attacks computed once, a slider's again only
    /// when the last man stands on one of its lines (a man elsewhere blocks none of them).
    fn classify_range(&self, first: u64, end: u64, mut visit: impl FnMut(u64, [u8; 2])) {
        let last = N - 1;
        let mut exits = Vec::new();
        let mut pushes = Vec::new();
        let squares = self.shared.layout.square_count();
        let mut slot = first;
        while slot < end {
            let run_start = slot - slot % squares;
            let run_end = (run_start + squares).min(end);
            let mut sq: [Sq; N] = self.shared.layout.decode_array(run_start);
            let mut outer_by_side = [0 as Board64; 2];
            for (i, &s) in sq.iter().enumerate().take(last) {
                outer_by_side[self.side_of(i)] |= 1 << s;
            }
            let outer_occ = outer_by_side[0] | outer_by_side[1];
            // Men on one square, a pawn on an end rank, or (the last man not being a king)
            // kings that are not folded or that stand side by side: no slot of the run is a
            // legal position.
            let kings_apart = last < 2
                || (self.shared.layout.kings_folded(sq[0], sq[1])
                    && self.shared.bits.attacks(Piece::King, sq[0], 0) & (1 << sq[1]) == 0);
            let allowed = (0..last).all(|i| self.shared.allowed[i] & (1 << sq[i]) != 0);
            if (outer_occ.count_ones() as usize) < last || !kings_apart || !allowed {
                for slot in slot..run_end {
                    visit(slot, [NONE, NONE]);
                }
                slot = run_end;
                continue;
            }
            let mut outer_attacks = [0 as Board64; N];
            for i in 0..last {
                outer_attacks[i] = self.man_attacks(i, sq[i], outer_occ);
            }
            exits.clear();
            pushes.clear();
            let mut run = RunExits {
                exits: std::mem::take(&mut exits),
                skip: [0; N],
                skip_last: [0; N],
                pushes: std::mem::take(&mut pushes),
            };
            self.run_exits(&sq, outer_by_side, outer_occ, &outer_attacks, &mut run);
            if self.sliced {
                self.run_pushes(run_start, &sq, outer_occ, &mut run.pushes);
            }
            // With three men or more, the run is classified all at once; with two, the last
            // man is a king, and the kings' fold is looked at a slot at a time.
            let run_codes = (N >= 3).then(|| {
                self.classify_run(
                    run_start,
                    &sq,
                    outer_by_side,
                    outer_occ,
                    &outer_attacks,
                    &run,
                )
            });
            for slot in slot..run_end {
                let t = (slot - run_start) as Sq;
                sq[last] = t;
                let known = match &run_codes {
                    Some(codes) => codes[usize::from(t)],
                    None if outer_occ & 1 << t != 0
                        || !self.shared.layout.kings_folded(sq[0], sq[1]) =>
                    {
                        [Some(NONE); 2]
                    }
                    None => [None; 2],
                };
                let codes = match known {
                    [Some(white), Some(black)] => [white, black],
                    _ => self.classify_slot(slot, &sq, outer_by_side, &outer_attacks, &run, known),
                };
                visit(slot, codes);
            }
            exits = run.exits;
            pushes = run.pushes;
            slot = run_end;
        }
    }

    /// The init codes of `slot` (its men on `sq`) with White and with Black to move, where a
    /// side's code is not `known` already: the men's attacks are found, those of the run's
    /// men (`by_side` and `attacks` theirs, without the last man) again only where the last man
    /// may block them, and the slot is classified ([`Core::classify`]).
    #[inline(always)]
    fn classify_slot(
        &self,
        slot: u64,
        sq: &[Sq; N],
        outer_by_side: [Board64; 2],
        outer_attacks: &[Board64; N],
        run: &RunExits<'_, N>,
        known: [Option<u8>; 2],
    ) -> [u8; 2] {
        let last = N - 1;
        let bit = 1u64 << sq[last];
        let occ = outer_by_side[0] | outer_by_side[1] | bit;
        let mut by_side = outer_by_side;
        by_side[self.side_of(last)] |= bit;
        let mut attacks = *outer_attacks;
        for i in 0..last {
            if outer_attacks[i] & bit != 0 && is_slider(self.shared.piece[i]) {
                attacks[i] = self.shared.bits.attacks(self.shared.piece[i], sq[i], occ);
            }
        }
        attacks[last] = self.man_attacks(last, sq[last], occ);
        let p = Placed {
            slot,
            sq: *sq,
            occ,
            by_side,
        };
        self.classify(&p, &attacks, run, known)
    }

    /// The init codes of a run of at least three men (its last man no king), by the last
    /// man's square and side to move, found for all squares at once with bitboards: the run
    /// starts at slot `run_start`, its men but the last stand on `sq` (`by_side`, `occ` and
    /// `attacks` theirs), and `run` holds its exits and pushes. A square the last man cannot
    /// stand on (occupied, off a pawn's ranks, or identical men out of order) is no position
    /// with either side to move, nor is
    /// one where the side to move attacks the other king. Of the others, every exit of the run
    /// is weighed where it holds: a capture by a man of the run of another such man while the
    /// last man does not stand between them, a capture by the last man where it attacks the
    /// captured man's square, a capture of the last man where the capturing man attacks it, a
    /// promotion or a push (sliced) while the last man stands on none of the squares it
    /// passes; then the code follows as in [`Core::classify_side`]. `None` where an exit that
    /// is not among the run's may hold: that slot is classified on its own
    /// ([`Core::classify_slot`]).
    fn classify_run(
        &self,
        run_start: u64,
        sq: &[Sq; N],
        by_side: [Board64; 2],
        occ: Board64,
        attacks: &[Board64; N],
        run: &RunExits<'_, N>,
    ) -> [[Option<u8>; 2]; 64] {
        let last = N - 1;
        let last_piece = self.shared.piece[last];
        let last_side = self.side_of(last);
        let bits = &self.shared.bits;
        // The squares from which the last man attacks `target` (attacks of every piece but the
        // pawn are symmetric, and the last man blocks none of its own lines).
        let attackers_of = |target: Sq| match last_piece {
            Piece::Pawn => bits.pawn_attackers(last_side, target),
            piece => bits.attacks(piece, target, occ),
        };
        let mut empty = self.shared.allowed[last] & !occ;
        if self.grouped {
            let mut placed = *sq;
            let mut rest = empty;
            while rest != 0 {
                let t = rest.trailing_zeros() as Sq;
                rest &= rest - 1;
                placed[last] = t;
                if !self.shared.layout.groups_sorted(&placed) {
                    empty &= !(1 << t);
                }
            }
        }
        // By side, the last man's squares where that side's king is attacked: by a man of the
        // run unless the last man stands between them, or by the last man.
        let mut attacked = [0 as Board64; 2];
        for (s, attacked) in attacked.iter_mut().enumerate() {
            let king = sq[s];
            for &i in &self.shared.side_men[1 - s][..self.shared.side_len[1 - s]] {
                if i == last {
                    *attacked |= attackers_of(king);
                } else if attacks[i] & (1 << king) != 0 {
                    *attacked |= !bits.between(sq[i], king);
                }
            }
        }
        let mut codes = [[Some(NONE); 2]; 64];
        for x in 0..2 {
            let y = 1 - x;
            let legal = empty & !attacked[y];
            let mut tally = [ExitTally::default(); 64];
            for exit in run.exits.iter().filter(|e| e.side == x) {
                let holds = if exit.push {
                    !exit.target
                } else if exit.target == 0 {
                    attacks[exit.capturer]
                } else {
                    let target = exit.target.trailing_zeros() as Sq;
                    if exit.capturer == last {
                        attackers_of(target)
                    } else {
                        !bits.between(sq[exit.capturer], target)
                    }
                };
                let mut on = holds & legal;
                while on != 0 {
                    let t = on.trailing_zeros() as usize;
                    on &= on - 1;
                    let code = exit.code(t, &self.shared.mirror_rank);
                    tally[t].add(Value::from_code(u32::from(code)));
                }
            }
            for push in run.pushes.iter().filter(|p| p.side == x) {
                let mut on = legal & !push.path;
                while on != 0 {
                    let t = on.trailing_zeros();
                    on &= on - 1;
                    tally[t as usize].add(self.push_value(x, push.base + u64::from(t)));
                }
            }
            // Where an exit that is not among the run's exits and pushes may hold.
            let mut elsewhere = 0 as Board64;
            let others = by_side[y] & !(1 << sq[y]);
            for &i in &self.shared.side_men[x][..self.shared.side_len[x]] {
                let pawn = self.shared.piece[i] == Piece::Pawn;
                if i == last {
                    if pawn {
                        // Its promotions by a push are not among the run's exits.
                        elsewhere |= bits.promoting(x);
                    }
                    let mut targets = others & !run.skip[last];
                    while targets != 0 {
                        let target = targets.trailing_zeros() as Sq;
                        targets &= targets - 1;
                        elsewhere |= attackers_of(target);
                    }
                    continue;
                }
                if pawn {
                    // A promotion not among the run's exits, or a pawn that may promote and
                    // push without promoting (whose pushes the run leaves out).
                    let pushes = bits.pawn_pushes(x, sq[i], occ);
                    let promotions = pushes & bits.last_rank(x);
                    if promotions & !run.skip[i] != 0 || (promotions != 0 && pushes != promotions) {
                        elsewhere = !0;
                    }
                }
                if attacks[i] & others & !run.skip[i] != 0 {
                    elsewhere = !0;
                }
                if last_side == y && run.skip_last[i] != u64::MAX {
                    elsewhere |= attacks[i];
                }
            }
            let mut rest = legal;
            while rest != 0 {
                let t = rest.trailing_zeros() as Sq;
                rest &= rest - 1;
                let bit = 1u64 << t;
                codes[usize::from(t)][x] = if elsewhere & bit != 0 {
                    None
                } else {
                    Some(self.code_of_tally(
                        tally[usize::from(t)],
                        attacked[x] & bit != 0,
                        || {
                            let mut placed = *sq;
                            placed[last] = t;
                            let mut by_side = by_side;
                            by_side[last_side] |= bit;
                            Placed {
                                slot: run_start + u64::from(t),
                                sq: placed,
                                occ: occ | bit,
                                by_side,
                            }
                        },
                        x,
                    ))
                };
            }
        }
        codes
    }

    /// Adds to `pushes` the pushes of the pawns of a run starting at `run_start` (the men but
    /// the last on `sq`, occupying `occ`) in a sliced layout, none promoting: a pawn is never
    /// the last man there, so each push's slot moves with the last man's square alone.
    fn run_pushes(&self, run_start: u64, sq: &[Sq; N], occ: Board64, pushes: &mut Vec<RunPush>) {
        for x in 0..2 {
            for &i in &self.shared.side_men[x][..self.shared.side_len[x]] {
                if self.shared.piece[i] != Piece::Pawn {
                    continue;
                }
                debug_assert!(i != N - 1, "a sliced layout's last man is no pawn");
                let mut targets = self.shared.bits.pawn_pushes(x, sq[i], occ);
                if targets & self.shared.bits.last_rank(x) != 0 {
                    // Promotions, and pawns that may promote, are left to the full look-up.
                    continue;
                }
                while targets != 0 {
                    let t = targets.trailing_zeros() as Sq;
                    targets &= targets - 1;
                    pushes.push(RunPush {
                        side: x,
                        path: self.shared.bits.between(sq[i], t) | 1 << t,
                        base: self.moved_unfolded(run_start, sq, i, t).0,
                    });
                }
            }
        }
    }

    /// Fills `run` with the captures and promotions of a run (the men but the last on `sq`,
    /// `by_side`, `occ` and `attacks` theirs) whose slot in the table they lead into is a base
    /// plus the last man's square, turned, times a stride — the same for the whole run. The
    /// other table's fold depends on its kings alone, so that holds of an exit that moves no
    /// king's square with the last man and leads into a table kept whole in which the man
    /// standing on the last man's square has no identical companion (or, when the last man
    /// captures, of any such capture: its slot is fixed). Such a capture holds in a slot while
    /// its capturing man attacks the captured man's square there (the last man may block a
    /// slider), and a promotion of a man but the last while the last man does not stand on the
    /// square it moves to; the others (a capture that promotes among them) are looked up a
    /// slot at a time ([`Core::exit_value`]).
    fn run_exits<'s>(
        &'s self,
        sq: &[Sq; N],
        by_side: [Board64; 2],
        occ: Board64,
        attacks: &[Board64; N],
        run: &mut RunExits<'s, N>,
    ) {
        let last = N - 1;
        let last_side = self.side_of(last);
        for x in 0..2 {
            let y = 1 - x;
            for &i in &self.shared.side_men[x][..self.shared.side_len[x]] {
                if i == last {
                    // The last man takes a man of the other side: a slot for the run.
                    for &j in &self.shared.side_men[y][..self.shared.side_len[y]] {
                        if j >= 2 && !self.promotes(i, sq[j]) {
                            self.add_run_capture(sq, i, j, None, run);
                        }
                    }
                    continue;
                }
                if x != last_side
                    && i >= 2
                    && self.shared.piece[i] != Piece::Pawn
                    && self.shared.exits.captures[last].is_some()
                {
                    // A piece takes the last man, landing on its square.
                    self.add_run_capture(sq, i, last, Some(i), run);
                }
                let mut targets = attacks[i] & by_side[y];
                while targets != 0 {
                    let t = targets.trailing_zeros() as Sq;
                    targets &= targets - 1;
                    let j = self.man_on(sq, y, t);
                    // A king under attack makes the placement illegal with `x` to move.
                    if j >= 2 && !self.promotes(i, t) {
                        self.add_run_capture(sq, i, j, Some(last), run);
                    }
                }
                if self.shared.piece[i] == Piece::Pawn {
                    let pushes = self.shared.bits.pawn_pushes(x, sq[i], occ);
                    let mut promotions = pushes & self.shared.bits.last_rank(x);
                    while promotions != 0 {
                        let t = promotions.trailing_zeros() as Sq;
                        promotions &= promotions - 1;
                        self.add_run_promotion(sq, i, t, run);
                    }
                }
            }
        }
    }

    /// Adds to `run` the capture of man `j` by man `i` in a run on `sq`, if its slot in the
    /// other table moves with the run as [`Core::run_exits`] needs: `moving` is the man on
    /// the last man's square after it (`None`: no man, the last man having moved away).
    fn add_run_capture<'s>(
        &'s self,
        sq: &[Sq; N],
        i: usize,
        j: usize,
        moving: Option<usize>,
        run: &mut RunExits<'s, N>,
    ) {
        let last = N - 1;
        let rule = self.shared.exits.captures[j].expect("kings are never captured");
        let mut moved = *sq;
        if j != last {
            moved[i] = sq[j];
        }
        let target = if j == last { 0 } else { 1 << sq[j] };
        if self.add_run_exit(&moved, rule, i, target, false, moving, run) {
            if j == last {
                run.skip_last[i] = u64::MAX;
            } else {
                run.skip[i] |= 1 << sq[j];
            }
        }
    }

    /// Adds to `run` the promotions of pawn `i` (not the last man) moving to the square `to` of
    /// a run on `sq`, the squares it passes and moves to empty of the other men, if their slots
    /// in the other tables move with the run as [`Core::run_exits`] needs.
    fn add_run_promotion<'s>(&'s self, sq: &[Sq; N], i: usize, to: Sq, run: &mut RunExits<'s, N>) {
        let last = N - 1;
        let path = self.shared.bits.between(sq[i], to) | 1 << to;
        let mut moved = *sq;
        moved[i] = to;
        let rules = self.shared.exits.promotions[i].map(|rule| rule.expect("pawns promote"));
        // All four or none: the skip below covers the push.
        if !rules
            .iter()
            .all(|&rule| self.run_exit_fits(rule, Some(last)))
        {
            return;
        }
        for rule in rules {
            let added = self.add_run_exit(&moved, rule, i, path, true, Some(last), run);
            debug_assert!(added, "the promotion's table was checked to fit");
        }
        run.skip[i] |= 1 << to;
    }

    /// Adds to `run` the exit (`rule`) of man `i`, leaving the men on `moved` (the one on the
    /// last man's square standing anywhere meanwhile), if its slot in the other table moves with
    /// the run: `moving` is the man on the last man's square after it (`None`: no man, the last
    /// man having moved away). Returns whether it was added.
    #[allow(clippy::too_many_arguments)]
    fn add_run_exit<'s>(
        &'s self,
        moved: &[Sq; N],
        rule: ExitRule,
        i: usize,
        target: Board64,
        push: bool,
        moving: Option<usize>,
        run: &mut RunExits<'s, N>,
    ) -> bool {
        if !self.run_exit_fits(rule, moving) {
            return false;
        }
        let sub = &self.shared.subs[rule.sub];
        let k = moving.map(|m| rule.to[m]);
        // The man on the last man's square stands anywhere meanwhile: its field is taken out
        // of the base below.
        let mut after = self.exit_squares(moved, rule);
        let map = sub.layout.fold_map(after[0], after[1]);
        sub.layout.fold(&mut after[..rule.len]);
        let slot = sub.layout.slot(&after[..rule.len]);
        let (base, stride) = match k {
            Some(k) => {
                let stride = sub.layout.stride(k);
                (slot - u64::from(after[k]) * stride, stride)
            }
            None => (slot, 0),
        };
        let x = self.side_of(i);
        run.exits.push(RunExit {
            side: x,
            capturer: i,
            target,
            push,
            codes: &sub.codes[(1 - x) ^ usize::from(rule.flipped)],
            base,
            stride,
            mirror: rule.flipped,
            map,
        });
        true
    }

    /// Whether an exit (`rule`) can be a run exit: it leads into a table kept whole in which
    /// the man on the last man's square after it (`moving`; `None`: no man) has no identical
    /// companion.
    fn run_exit_fits(&self, rule: ExitRule, moving: Option<usize>) -> bool {
        let sub = &self.shared.subs[rule.sub];
        sub.field.is_none() && !moving.is_some_and(|m| sub.layout.is_grouped(rule.to[m]))
    }

    /// The side of man `i` (0 White, 1 Black).
    #[inline(always)]
    fn side_of(&self, i: usize) -> usize {
        self.shared.side_of[i]
    }

    /// The init codes of a placement with White and with Black to move, given every man's
    /// attacks: they say which king is attacked (legality for one side to move, check for the
    /// other) and which captures there are.
    /// `known` has, by side to move, the code where it is known already
    /// ([`Core::classify_run`]).
    #[inline(always)]
    fn classify(
        &self,
        p: &Placed<N>,
        attacks: &[Board64; N],
        run: &RunExits<'_, N>,
        known: [Option<u8>; 2],
    ) -> [u8; 2] {
        let mut by_side_attacks = [0 as Board64; 2];
        for (i, &a) in attacks.iter().enumerate() {
            by_side_attacks[self.side_of(i)] |= a;
        }
        // The king of side `s` is attacked by the other side.
        let king_attacked = [
            by_side_attacks[1] & (1 << p.sq[0]) != 0,
            by_side_attacks[0] & (1 << p.sq[1]) != 0,
        ];
        let mut codes = [NONE; 2];
        for (x, code) in codes.iter_mut().enumerate() {
            let y = 1 - x;
            if let Some(known) = known[x] {
                *code = known;
            } else if !king_attacked[y] {
                *code = self.classify_side(p, attacks, run, x, king_attacked[x]);
            }
        }
        codes
    }

    /// The init code of a legal placement with side `x` to move, given every man's attacks.
    fn classify_side(
        &self,
        p: &Placed<N>,
        attacks: &[Board64; N],
        run: &RunExits<'_, N>,
        x: usize,
        in_check: bool,
    ) -> u8 {
        let mut tally = ExitTally::default();
        // The opponent's king is not attacked (the placement is legal with `x` to move).
        let last_sq = p.sq[N - 1];
        for exit in run.exits.iter().filter(|e| e.side == x) {
            if exit.holds(last_sq, attacks[exit.capturer]) {
                tally.add(Value::from_code(u32::from(
                    exit.code(usize::from(last_sq), &self.shared.mirror_rank),
                )));
            }
        }
        let mut skip = run.skip;
        for (skip, &all) in skip.iter_mut().zip(&run.skip_last) {
            *skip |= all & (1 << last_sq);
        }
        self.for_each_exit_but(p, attacks, x, &skip, |value| tally.add(value));
        self.code_of_tally(tally, in_check, || *p, x)
    }

    /// The init code, side `x` to move, of a legal slot whose exits weigh `tally`, in check
    /// or not; `placed` gives its men, looked at only where a quiet move decides the code.
    #[inline(always)]
    fn code_of_tally(
        &self,
        tally: ExitTally,
        in_check: bool,
        placed: impl FnOnce() -> Placed<N>,
        x: usize,
    ) -> u8 {
        let ExitTally {
            win: capture_win,
            draw: escape,
            loss: capture_loss,
        } = tally;
        if let Some(w) = capture_win {
            return self.code_for(w);
        }
        if escape {
            return CANNOT_LOSE;
        }
        if (in_check || capture_loss.is_some()) && !self.has_quiet_move(&placed(), x) {
            return match capture_loss {
                Some(l) => self.code_for(l),
                None => self.codes.decided(0),
            };
        }
        if let Some(l) = capture_loss {
            self.note_exit_loss(l);
        }
        UNKNOWN
    }

    /// Records that an undecided slot's exits may force a loss of `plies` on it later.
    #[inline]
    fn note_exit_loss(&self, plies: u32) {
        // Read first: the word is written rarely, so it stays shared between the threads.
        if plies > self.exit_loss.load(Ordering::Relaxed) {
            self.exit_loss.fetch_max(plies, Ordering::Relaxed);
        }
    }

    fn code_for(&self, plies: u32) -> u8 {
        // After a rebase, a depth below `low + 2` has no code of its own (none arises: every
        // value stored after one is deeper than the pass that made it).
        let folded = self.codes.low > 0 && plies < self.codes.low + 2;
        if plies > self.codes.max_plies() || folded {
            self.too_deep.store(true, Ordering::Relaxed);
            return UNKNOWN;
        }
        self.codes.decided(plies)
    }

    /// Whether side `x` has a legal move that stays in the table (captures and promotes
    /// nothing): the king's or another man's ([`Core::legal_quiet_targets`]).
    fn has_quiet_move(&self, p: &Placed<N>, x: usize) -> bool {
        let safety = self.king_safety(p, x);
        self.shared.side_men[x][..self.shared.side_len[x]]
            .iter()
            .any(|&i| self.legal_quiet_targets(p, x, i, &safety) != 0)
    }

    /// Whether a move of man `i` must fold the squares again rather than move the slot by
    /// strides: the White king's always, the Black king's when the White king stands on a
    /// square a symmetry fixes (`white_king_fixed`). A man with identical companions only puts
    /// them in order again ([`Layout::moved_in_order`]).
    #[inline(always)]
    fn needs_fold(&self, i: usize, white_king_fixed: bool) -> bool {
        i == 0 || (i == 1 && white_king_fixed)
    }

    /// The slot after man `i` of `slot` (squares `sq`) moves to `to`, with the man's number
    /// after (identical men are sorted again; a king's number never changes).
    #[inline(always)]
    fn child_of(
        &self,
        slot: u64,
        sq: &[Sq; N],
        i: usize,
        to: Sq,
        white_king_fixed: bool,
    ) -> (u64, usize) {
        if self.needs_fold(i, white_king_fixed) {
            let mut after = *sq;
            after[i] = to;
            self.shared.layout.fold(&mut after[..]);
            (self.shared.layout.slot(&after[..]), i)
        } else {
            self.moved_unfolded(slot, sq, i, to)
        }
    }

    /// The slot after man `i` of `slot` (squares `sq`) moves to `to`, when the move needs no
    /// fold, with the man's number after (identical men are put in order again).
    #[inline(always)]
    fn moved_unfolded(&self, slot: u64, sq: &[Sq], i: usize, to: Sq) -> (u64, usize) {
        let layout = self.shared.layout;
        if self.refold[i] {
            layout.moved_in_order(slot, sq, i, to, layout.group_of(i))
        } else {
            (layout.moved(slot, i, sq[i], to), i)
        }
    }

    /// Calls `visit` with every slot, side `1 − x` to move, that has a quiet move into `slot`
    /// (side `x` to move) — and with the slots of un-moves into illegal positions (the side
    /// not to move in check), whose cells are `0`: callers skip those.
    #[inline]
    fn for_each_parent(&self, slot: u64, x: usize, mut visit: impl FnMut(u64, Sq)) {
        let Some(p) = self.place(slot) else {
            return;
        };
        let y = 1 - x;
        let white_king_fixed = self.shared.layout.is_fixed(p.sq[0]);
        for &i in &self.shared.side_men[y][..self.shared.side_len[y]] {
            self.for_each_unmove_of(slot, &p.sq, p.occ, i, white_king_fixed, &mut visit);
        }
    }

    /// Calls `visit` with the slots of every un-move of man `i` in `slot` (squares `sq`,
    /// occupancy `occ`), as [`Core::for_each_parent`] gives them.
    #[inline(always)]
    fn for_each_unmove_of(
        &self,
        slot: u64,
        sq: &[Sq; N],
        occ: Board64,
        i: usize,
        white_king_fixed: bool,
        visit: &mut impl FnMut(u64, Sq),
    ) {
        let from = sq[i];
        let mut targets = self.unmove_targets(i, from, occ);
        while targets != 0 {
            let t = targets.trailing_zeros() as Sq;
            targets &= targets - 1;
            // A double step that an en-passant capture can answer leads to the position with
            // the right, not to this one: its parent is that position's.
            if self.ep_answers_double_step(slot, i, from, t) {
                continue;
            }
            self.visit_unmove(slot, sq, i, from, t, white_king_fixed, visit);
        }
    }

    /// Calls `visit` with the slots of the un-move of man `i` from `from` back to `t` in
    /// `slot` (squares `sq`), each with the square the man stands on after the move.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn visit_unmove(
        &self,
        slot: u64,
        sq: &[Sq; N],
        i: usize,
        from: Sq,
        t: Sq,
        white_king_fixed: bool,
        visit: &mut impl FnMut(u64, Sq),
    ) {
        if self.needs_fold(i, white_king_fixed) {
            let mut before = *sq;
            before[i] = t;
            let to = self.shared.layout.fold_tracking(&mut before[..], from);
            self.shared
                .layout
                .for_each_image_tracking(&before[..], to, visit);
        } else {
            visit(self.moved_unfolded(slot, sq, i, t).0, from);
        }
    }

    /// Whether the un-move of pawn `i` from `from` to `t` in `slot` (side `x` to move, the
    /// pawn's opponent) undoes a double step that an en-passant capture can answer: the
    /// position the double step leads to is then the one with the right.
    #[inline(always)]
    fn ep_answers_double_step(&self, slot: u64, i: usize, from: Sq, t: Sq) -> bool {
        let (Some(ep), Some(layout)) = (&self.ep, self.shared.ep_layout) else {
            return false;
        };
        let y = self.side_of(i);
        self.shared.piece[i] == Piece::Pawn
            && self.shared.bits.pawn_double_back(y, from) & (1 << t) != 0
            && layout
                .number(slot, i)
                .is_some_and(|number| ep.cells[1 - y].get(number) != NONE)
    }

    /// Calls `visit` with every parent of en-passant position `number` (side `x` to move): the
    /// slots, side `1 − x` to move, of the placement before the double step, with the square
    /// the pawn stands on after it (see [`Core::for_each_parent`]).
    fn for_each_ep_parent(&self, number: u64, x: usize, mut visit: impl FnMut(u64, Sq)) {
        let layout = self
            .shared
            .ep_layout
            .expect("en-passant positions have a numbering");
        let (slot, j) = layout.decode(number, x);
        let Some(p) = self.place(slot) else {
            return;
        };
        let from = p.sq[j];
        let origin = self
            .shared
            .bits
            .pawn_double_back(1 - x, from)
            .trailing_zeros() as Sq;
        let white_king_fixed = self.shared.layout.is_fixed(p.sq[0]);
        self.visit_unmove(slot, &p.sq, j, from, origin, white_king_fixed, &mut visit);
    }

    /// The parents of `node` (side `x` to move), as [`Core::for_each_parent`] gives them.
    #[inline(always)]
    fn for_each_parent_of(
        &self,
        node: Node,
        x: usize,
        hints: &impl SlotSet,
        visit: impl FnMut(u64, Sq),
    ) {
        match node {
            Node::Slot(slot) => self.for_each_parent(slot, x, visit),
            Node::Ep(number) => self.for_each_ep_parent(number, x, visit),
            Node::Run { start, mask } => {
                self.for_each_parent_run(start, mask, x, true, &mut HintedParents { hints, visit })
            }
        }
    }

    /// [`Core::for_each_parent`] of every slot `start + s`, `s` in `mask`, of one run (without
    /// en-passant positions). The un-moves of the other men are found once for the run, from
    /// the other men's squares: with the last man on `s` such an un-move to `t` is one unless
    /// `s` is `t` or lies between the two squares. Its parents are then slots of one parent
    /// run, the last man's field moving by 1 per square: `s` itself when the un-move keeps the
    /// fold, else `s` turned by the symmetries the fold (which depends on the kings alone) and
    /// the image apply — one stretch of memory for the whole run. When the last man has
    /// identical companions (it stands above them all in every slot used), an un-move of a
    /// companion keeps it last where it still stands above them all, and a king's un-move
    /// that folds may put it anywhere among them: the parent's slot is then one of a few
    /// bases, found once for the run, plus the last man's turned square times a stride
    /// ([`Layout::last_among_companions`]). A companion's un-move that puts the last man
    /// below it, and the last man's own un-moves, are found a slot at a time.
    fn for_each_parent_run(
        &self,
        start: u64,
        mask: u64,
        x: usize,
        last_man: bool,
        sink: &mut impl ParentSink,
    ) {
        let last = N - 1;
        let layout = self.shared.layout;
        let bits = self.shared.bits;
        let y = 1 - x;
        let mut sq: [Sq; N] = layout.decode_array(start);
        let outer = sq[..last].iter().fold(0 as Board64, |occ, &s| occ | 1 << s);
        let white_king_fixed = layout.is_fixed(sq[0]);
        let men = &self.shared.side_men[y][..self.shared.side_len[y]];
        // The first of the men identical to the last man (the last man itself when alone).
        let companions = layout.group_of(last).0;
        // A parent a slot at a time: the un-move of man `i` from `from` to `t`, the last man on
        // `s`.
        let one_slot = |i: usize, t: Sq, s: Sq, sink: &mut _| {
            let mut at = sq;
            at[last] = s;
            let slot = start + u64::from(s);
            let mut visit = |parent, to| ParentSink::slot(sink, parent, s, to);
            self.visit_unmove(slot, &at, i, at[i], t, white_king_fixed, &mut visit);
        };
        for &i in men {
            if i == last {
                continue;
            }
            let from = sq[i];
            let mut targets = self.unmove_targets(i, from, outer);
            while targets != 0 {
                if sink.done() {
                    return;
                }
                let t = targets.trailing_zeros() as Sq;
                targets &= targets - 1;
                let live = mask & sink.pending() & !(1 << t | bits.between(from, t));
                if live == 0 {
                    continue;
                }
                if i >= companions {
                    // A companion of the last man: the companions are put in order again
                    // (the last man, on square 0 meanwhile, out of it), and the last man keeps
                    // the last field wherever it still stands above them all.
                    let (base, _) = layout.moved_in_order(start, &sq, i, t, (companions, last));
                    let top = sq[companions..last]
                        .iter()
                        .enumerate()
                        .map(|(k, &c)| if companions + k == i { t } else { c })
                        .max()
                        .expect("the last man has a companion");
                    let above = bits::squares_above(top);
                    sink.run(base, live & above, from);
                    for_each_bit(live & !above, |s| one_slot(i, t, s, sink));
                    continue;
                }
                if !self.needs_fold(i, white_king_fixed) {
                    let (base, _) = self.moved_unfolded(start, &sq, i, t);
                    sink.run(base, live, from);
                    continue;
                }
                // The fold turns every man by the symmetries its kings choose (the last man
                // stands on square 0 meanwhile).
                let mut before = sq;
                before[i] = t;
                let map = layout.fold_map(before[0], before[1]);
                let turn = |s: Sq| map[usize::from(s)];
                // Where the fold turns nothing, the folded slot's parents with the last man
                // above any companions are one stretch, as where no fold is needed (its other
                // images, if any, are turned).
                let mut straight = layout.folds_nothing(before[0], before[1]);
                if companions < last {
                    // The fold may put the last man anywhere among his companions: each
                    // image's slots come from the other men's squares once, then a square at
                    // a time.
                    let turned = before.map(turn);
                    let moved = turn(from);
                    let mut visit_image = |image: &[Sq]| {
                        let slots =
                            layout.last_among_companions(&turned.map(|s| image[usize::from(s)]));
                        let to = image[usize::from(moved)];
                        let mut live = live;
                        if std::mem::take(&mut straight) {
                            let (above, base) = slots.above_all();
                            sink.run(base, live & above, to);
                            live &= !above;
                        }
                        for_each_bit(live, |s| {
                            sink.slot(slots.slot(image[usize::from(turn(s))]), s, to)
                        });
                    };
                    visit_image(layout.identity());
                    layout.for_each_king_fixer(turned[0], turned[1], &mut visit_image);
                    continue;
                }
                // The last man keeps the last field, moving by 1 per square, in the folded
                // slot and in each image.
                layout.fold(&mut before[..]);
                let (placeholder, moved) = (before[last], turn(from));
                layout.for_each_image_map(&before[..], |slot, image| {
                    let base = slot - u64::from(image[usize::from(placeholder)]);
                    let to = image[usize::from(moved)];
                    if std::mem::take(&mut straight) {
                        sink.run(base, live, to);
                        return;
                    }
                    for_each_bit(live, |s| {
                        sink.slot(base + u64::from(image[usize::from(turn(s))]), s, to)
                    });
                });
            }
        }
        // The last man's own un-moves, a slot at a time (unless the caller found them).
        if !last_man || self.side_of(last) != y {
            return;
        }
        for_each_bit(mask, |s| {
            if sink.done() {
                return;
            }
            sq[last] = s;
            let slot = start + u64::from(s);
            self.for_each_unmove_of(
                slot,
                &sq,
                outer | 1 << s,
                last,
                white_king_fixed,
                &mut |parent, to| sink.slot(parent, s, to),
            );
        });
    }

    /// Takes `slot` (side `x` to move), whose value is now final, out of the hints.
    #[inline(always)]
    fn settle(&self, x: usize, slot: u64) {
        self.settle_run(x, slot, 1);
    }

    /// Takes the slots `start + s`, `s` in `mask` (side `x` to move), whose values are final,
    /// out of the hints.
    #[inline(always)]
    fn settle_run(&self, x: usize, start: u64, mask: u64) {
        if self.hinted {
            self.may_win[x].remove_run(start, mask);
            self.may_lose[x].remove_run(start, mask);
        }
    }

    /// [`Core::for_each_parent_of`] with the parents outside `hints` passed over, where the
    /// hints are kept; without them, every parent, with nothing tested.
    #[inline(always)]
    fn for_each_parent_in(
        &self,
        node: Node,
        x: usize,
        hints: &SlotHints,
        visit: impl FnMut(u64, Sq),
    ) {
        if self.hinted {
            self.for_each_parent_of(node, x, hints, visit)
        } else {
            self.for_each_parent_of(node, x, &EverySlot, visit)
        }
    }

    /// Even depths: the parents of a loss in `plies − 1` (side `x` to move) are wins in `plies`.
    fn mark_wins(&self, node: Node, x: usize, plies: u32) {
        if plies > self.codes.max_plies() {
            self.too_deep.store(true, Ordering::Relaxed);
            return;
        }
        let y = 1 - x;
        let code = self.codes.decided(plies);
        self.for_each_parent_in(node, x, &self.may_win[y], |parent, _| {
            let old = self.cells[y].get(parent);
            // Undecided, or decided later (a win by capture stored ahead of its depth).
            if old != NONE && (self.codes.plies(old).is_none() || old > code) {
                self.decide(y, parent, code);
            }
        });
    }

    /// Even depths, from the other end: every slot (side `y` to move) neither decided nor
    /// won in at most `plies` (only a win by capture, stored ahead, can be) that has a quiet
    /// move into a loss in `plies − 1` (here or in an en-passant position) is won in `plies`.
    /// These are the parents [`Core::mark_wins`] reaches from those losses, found by the
    /// parents' moves rather than the losses' un-moves: cheaper when the parents not yet won
    /// are fewer than the losses. Chunks in `open` (side `y`) are scanned, each by one task,
    /// which alone writes it; one left with no such slot is closed.
    fn pull_wins(
        &self,
        y: usize,
        plies: u32,
        open: &[AtomicBool],
        part: &[usize],
        chunk_end: &[u64],
    ) {
        let loss = self.codes.decided(plies - 1);
        let win = self.codes.decided(plies);
        let pending = |code: u8| {
            code != NONE
                && code != CANDIDATE
                && (code < win && self.codes.plies(code).is_none() || code > win)
        };
        part.par_iter().for_each(|&chunk| {
            if !open[chunk].load(Ordering::Relaxed) {
                return;
            }
            let first = chunk as u64 * CHUNK;
            let end = chunk_end[chunk];
            let mut left = false;
            for slot in first..end {
                let old = self.cells[y].get(slot);
                if !pending(old) {
                    continue;
                }
                if !self.has_move_into(slot, y, loss) {
                    left = true;
                    continue;
                }
                if plies > self.codes.max_plies() {
                    self.too_deep.store(true, Ordering::Relaxed);
                    return;
                }
                self.decide(y, slot, win);
            }
            if !left {
                open[chunk].store(false, Ordering::Relaxed);
            }
        });
    }

    /// Whether `slot` (side `y` to move) has a quiet move into a slot or en-passant position
    /// of code `code`.
    fn has_move_into(&self, slot: u64, y: usize, code: u8) -> bool {
        let Some(p) = self.place(slot) else {
            return false;
        };
        let x = 1 - y;
        let white_king_fixed = self.shared.layout.is_fixed(p.sq[0]);
        for &i in self.shared.side_men[y][..self.shared.side_len[y]]
            .iter()
            .rev()
        {
            let from = p.sq[i];
            let mut targets = self.quiet_targets(&p, i);
            while targets != 0 {
                let t = targets.trailing_zeros() as Sq;
                targets &= targets - 1;
                let (child, moved) = self.child_of(slot, &p.sq, i, t, white_king_fixed);
                if self.child_code(child, x, moved, from, t) == code {
                    return true;
                }
            }
        }
        false
    }

    /// Odd depths, first half: the undecided parents of a win in `depth` (side `x` to move)
    /// become candidates for a loss — unless the last check of a parent's moves stopped at a
    /// move of another man than the one that moved here: that move still reaches no win (or no
    /// win yet found), and when it does, its own pass makes the parent a candidate. When the
    /// watch codes count, a parent counts this move off instead (its moves counted when the
    /// first is found), and is lost when none is left; one with too many moves to count
    /// becomes a candidate. Where the table keeps hints and no pawn moves in it, the runs of
    /// the parents are only marked here, and their ways out looked at after the pass
    /// ([`Core::reach_runs`], [`Core::lose_without_ways_out`]).
    fn mark_candidates(&self, node: Node, x: usize, depth: u32) {
        let y = 1 - x;
        if self.by_ways_out {
            return self.reach_runs(node, x);
        }
        if let Some(uncounted) = self.uncounted() {
            return self.count_down_parents(node, x, depth, uncounted);
        }
        self.for_each_parent_in(node, x, &self.may_lose[y], |parent, to| {
            let old = self.cells[y].get(parent);
            if old == UNKNOWN || old == self.codes.watching(to) {
                self.cells[y].set(parent, CANDIDATE);
                self.mark_present(y, parent, CANDIDATE);
            }
        });
    }

    /// Whether the last man is a piece of side `y` alone of its kind: its moves and un-moves
    /// (the same steps) change its own field alone, staying in its run.
    #[inline(always)]
    fn last_is_lone_piece_of(&self, y: usize) -> bool {
        let last = N - 1;
        self.side_of(last) == y
            && self.shared.layout.group_of(last).0 == last
            && self.shared.piece[last] != Piece::Pawn
    }

    /// Where the odd passes find losses by ways out: the wins of this pass (side `x` to
    /// move, `node`) are no way out any more, and the runs of their parents that may lose
    /// are marked for [`Core::lose_without_ways_out`].
    fn reach_runs(&self, node: Node, x: usize) {
        let y = 1 - x;
        let Node::Run { start, mask } = node else {
            unreachable!("ways out are found where the passes go a run at a time");
        };
        // The task scanning a chunk is the only one clearing bits of its words.
        self.not_won[x].remove_run(start, mask);
        let squares = self.shared.layout.square_count();
        let mut sink = MarkReached {
            hints: &self.may_lose[y],
            marks: &self.reached[y],
            squares,
        };
        // The last man's own un-moves, where it is a piece alone of its kind of the parents'
        // side, stay in this run: it is marked if, from a square of `mask`, the man attacks
        // a square where a slot of the run may lose (a piece's un-move is a move).
        let last = N - 1;
        let lone_piece = self.last_is_lone_piece_of(y);
        if lone_piece {
            let run_slots = u64::MAX >> (64 - squares);
            let open = self.may_lose[y].run(start) & run_slots;
            if open != 0 {
                let sq: [Sq; N] = self.shared.layout.decode_array(start);
                let outer = sq[..last].iter().fold(0 as Board64, |occ, &s| occ | 1 << s);
                let bits = self.shared.bits;
                let reached = bits.attacks_from_set(self.shared.piece[last], mask, outer);
                if reached & open & !outer != 0 {
                    self.reached[y].mark(start / squares);
                }
            }
        }
        self.for_each_parent_run(start, mask, x, !lone_piece, &mut sink);
    }

    /// Where the odd passes find losses by ways out, after the pass of `depth` (odd) met the
    /// wins of side `x`: in every run of side `y` (the other) that an un-move from them
    /// reached, each slot that may lose and has no move into a legal position not won — a
    /// *way out* — is lost: every move reaches a win, the deepest in `depth` plies (a slot
    /// whose moves were all won before was lost by an earlier pass, when the last of them
    /// was won and reached it), and its exits lose too (else it could not lose). The moves
    /// are found as the un-moves of [`Core::for_each_parent_run`] turned round: a piece's
    /// move and un-move are the same step, and no pawn moves here. The part's chunks are
    /// taken in parallel, each with the runs that start in it, so that each run is looked at
    /// once and its slots written by one task.
    fn lose_without_ways_out(&self, x: usize, depth: u32, part: &[usize], chunk_end: &[u64]) {
        let y = 1 - x;
        let squares = self.shared.layout.square_count();
        let run_slots = u64::MAX >> (64 - squares);
        part.par_iter().for_each(|&chunk| {
            let (first, end) = (chunk as u64 * CHUNK, chunk_end[chunk]);
            self.reached[y].take(first.div_ceil(squares), end.div_ceil(squares), |run| {
                let start = run * squares;
                let wanted = self.may_lose[y].run(start) & run_slots;
                if wanted == 0 {
                    return;
                }
                let mut ways = WaysOut {
                    open: &self.not_won[x],
                    wanted,
                    found: 0,
                };
                // The last man's own moves first, all at once where it moves within the run
                // (a piece, alone of its kind: its move changes nothing but its own field).
                let last = N - 1;
                let lone_piece = self.last_is_lone_piece_of(y);
                if lone_piece {
                    let sq: [Sq; N] = self.shared.layout.decode_array(start);
                    let outer = sq[..last].iter().fold(0 as Board64, |occ, &s| occ | 1 << s);
                    let open = self.not_won[x].run(start) & run_slots & !outer;
                    let piece = self.shared.piece[last];
                    if open != 0 && is_slider(piece) {
                        // A slider's moves for all the run at once: the empty squares from
                        // which it attacks an open one are those it attacks from them.
                        let bits = self.shared.bits;
                        ways.found |= wanted & !outer & bits.attacks_from_set(piece, open, outer);
                    } else if open != 0 {
                        for_each_bit(wanted, |s| {
                            if self.man_attacks(last, s, outer) & open != 0 {
                                ways.found |= 1 << s;
                            }
                        });
                    }
                }
                if !ways.done() {
                    self.for_each_parent_run(start, wanted, x, !lone_piece, &mut ways);
                }
                for_each_bit(wanted & !ways.found, |s| {
                    let slot = start + u64::from(s);
                    // A hint may be stale (a clear lost to another thread's): the byte says.
                    if self.cells[y].get(slot) != UNKNOWN {
                        return;
                    }
                    // A slot of the run that no un-move reached may have no move at all.
                    self.lost_with_every_move_won(slot, y, depth, true);
                });
            });
        });
    }

    /// When the watch codes count moves ([`Core::count_moves`]: wherever the passes go a run at
    /// a time, until the watch codes are given up), the code of a slot with too many moves to
    /// count; the counts lie below it.
    #[inline(always)]
    fn uncounted(&self) -> Option<u8> {
        (self.by_runs && !self.by_ways_out && self.codes.watch_keys > 0)
            .then(|| WATCHING + self.codes.watch_keys - 1)
    }

    /// [`Core::mark_candidates`] where the parents' side counts its moves, `uncounted` the code
    /// of a slot with too many ([`Core::uncounted`]).
    fn count_down_parents(&self, node: Node, x: usize, depth: u32, uncounted: u8) {
        let y = 1 - x;
        self.for_each_parent_in(node, x, &self.may_lose[y], |parent, _| {
            let old = self.cells[y].get(parent);
            if old == uncounted {
                self.cells[y].set(parent, CANDIDATE);
                self.mark_present(y, parent, CANDIDATE);
            } else if old == UNKNOWN {
                // The first move found into a win: the others are counted now.
                let left = self.count_moves(parent, y) - 1;
                let new = match left {
                    0 => CANDIDATE,
                    _ if left < u32::from(self.codes.watch_keys) => WATCHING + (left - 1) as u8,
                    _ => uncounted,
                };
                match self.cells[y].replace(parent, UNKNOWN, new) {
                    Ok(()) if left == 0 => self.lost_with_every_move_won(parent, y, depth, false),
                    Ok(()) if new == uncounted => {
                        self.cells[y].set(parent, CANDIDATE);
                        self.mark_present(y, parent, CANDIDATE);
                    }
                    Ok(()) => {}
                    // Another thread counted it first.
                    Err(now) => self.count_down(parent, y, now, uncounted, depth),
                }
            } else {
                self.count_down(parent, y, old, uncounted, depth);
            }
        });
    }

    /// One more move of `slot` (side `x` to move, its code `old`) reaches a win: a counted slot
    /// counts it, and is lost when none is left.
    #[inline(always)]
    fn count_down(&self, slot: u64, x: usize, old: u8, uncounted: u8, depth: u32) {
        if (WATCHING..uncounted).contains(&old) {
            let before = self.cells[x].count_down(slot);
            debug_assert!((WATCHING..uncounted).contains(&before));
            if before == WATCHING {
                self.lost_with_every_move_won(slot, x, depth, false);
            }
        }
    }

    /// The moves of `slot` (side `x` to move, a legal position) that stay in the table, as the
    /// un-moves of the odd passes reach it: a king's move into a position of two slots (both
    /// kings on squares one symmetry fixes) counts twice, once from each.
    #[inline(never)]
    fn count_moves(&self, slot: u64, x: usize) -> u32 {
        let layout = self.shared.layout;
        let p = self
            .place(slot)
            .expect("an undecided slot holds a position");
        let y = 1 - x;
        let safety = self.king_safety(&p, x);
        let mut count = 0;
        for &i in &self.shared.side_men[x][..self.shared.side_len[x]] {
            let legal = self.legal_quiet_targets(&p, x, i, &safety);
            count += legal.count_ones();
            if i == x && layout.is_fixed(p.sq[y]) {
                for_each_bit(legal, |t| {
                    if layout.share_fixer(t, p.sq[y]) {
                        count += 1;
                    }
                });
            }
        }
        count
    }

    /// What the other side's men mean for side `x`'s king in `p` ([`KingSafety`]).
    #[inline(always)]
    fn king_safety(&self, p: &Placed<N>, x: usize) -> KingSafety {
        let bits = self.shared.bits;
        let king = p.sq[x];
        // A man attacks the king's square with the king lifted off it exactly when he does
        // with the king on it: the king ends every line onto his square.
        let occ = p.occ ^ (1 << king);
        let mut safety = KingSafety {
            attacked: 0,
            answers: !0,
            shields: 0,
        };
        for &j in &self.shared.side_men[1 - x][..self.shared.side_len[1 - x]] {
            let attacks = self.man_attacks(j, p.sq[j], occ);
            safety.attacked |= attacks;
            let slider = is_slider(self.shared.piece[j]);
            if attacks & (1 << king) != 0 {
                safety.answers &= if slider {
                    bits.between(p.sq[j], king)
                } else {
                    0
                };
            }
            if slider {
                safety.shields |= bits.between(p.sq[j], king);
            }
        }
        safety
    }

    /// The squares man `i` of side `x` in `p` moves to legally without capturing or promoting
    /// (`safety` what the other side's men mean for the king): the king onto a square not
    /// attacked, another man onto a square that answers every check, and, pinned, along the
    /// line of his pinner only.
    #[inline(always)]
    fn legal_quiet_targets(
        &self,
        p: &Placed<N>,
        x: usize,
        i: usize,
        safety: &KingSafety,
    ) -> Board64 {
        let bits = self.shared.bits;
        let targets = self.quiet_targets(p, i);
        if i == x {
            return targets & !safety.attacked;
        }
        let (from, king) = (p.sq[i], p.sq[x]);
        let mut legal = targets & safety.answers;
        if legal != 0 && safety.shields & (1 << from) != 0 {
            for &j in &self.shared.side_men[1 - x][..self.shared.side_len[1 - x]] {
                let line = bits.between(p.sq[j], king);
                if line & (1 << from) != 0
                    && is_slider(self.shared.piece[j])
                    && bits.attacks_square(self.shared.piece[j], p.sq[j], king, p.occ ^ (1 << from))
                {
                    legal &= line;
                }
            }
        }
        legal
    }

    /// A slot (side `x` to move) every move of which the pass of `depth` found to reach a win,
    /// the deepest in `depth` plies — its count of moves taken to zero, or no way out left
    /// ([`Core::lose_without_ways_out`]); with its exits, it is lost. Where its moves were not
    /// counted (`may_have_none`), it may have none at all: then, not in check (the init pass
    /// found the mates) and with no exit (it stored those lost by their exits), it is
    /// stalemate, a draw for good. A slot with an exit has a quiet move too (else the init
    /// pass decided it), so only one without is looked at for them.
    #[inline(never)]
    fn lost_with_every_move_won(&self, slot: u64, x: usize, depth: u32, may_have_none: bool) {
        let p = self
            .place(slot)
            .expect("a slot that may lose holds a position");
        let mut attacks = [0 as Board64; N];
        for &i in &self.shared.side_men[x][..self.shared.side_len[x]] {
            attacks[i] = self.man_attacks(i, p.sq[i], p.occ);
        }
        let (longest, exits) = self.longest_with_exits(&p, &attacks, x, depth);
        if may_have_none && !exits && !self.has_quiet_move(&p, x) {
            self.settle(x, slot);
            return;
        }
        let Some(longest) = longest else {
            // An exit that does not lose made the slot unable to lose in the init pass, so
            // this is not reached; were it, the forward check would decide the slot.
            self.cells[x].set(slot, CANDIDATE);
            self.mark_present(x, slot, CANDIDATE);
            return;
        };
        if let Some(code) = self.store_loss(x, slot, longest) {
            self.count_losses(x, code, 1);
        }
    }

    /// Stores the loss of `slot` (side `x` to move) in one ply more than `longest`, and
    /// returns its code; past the depths the codes hold, stores it undecided (`None`; the
    /// pass is then found too deep).
    fn store_loss(&self, x: usize, slot: u64, longest: u32) -> Option<u8> {
        let code = self.code_for(longest + 1);
        if code == UNKNOWN {
            self.cells[x].set(slot, UNKNOWN);
            return None;
        }
        self.decide(x, slot, code);
        Some(code)
    }

    /// Stores `code`, a final value, in `slot` (side `x` to move): out of the hints, noted
    /// in its chunk's code set, and followed by the slot's en-passant positions.
    #[inline(always)]
    fn decide(&self, x: usize, slot: u64, code: u8) {
        self.cells[x].set(slot, code);
        self.settle(x, slot);
        self.note(x, slot, code);
        self.follow_ep(x, slot, code);
    }

    /// Odd depths, second half: a candidate (side `x` to move) whose every move now reaches a
    /// win is lost (its code returned); any other is undecided again.
    fn find_loss(&self, slot: u64, x: usize, depth: u32) -> Option<u8> {
        match self.longest_forced_win(slot, x, depth) {
            Ok(longest) => self.store_loss(x, slot, longest),
            Err(watch) => {
                self.cells[x].set(slot, watch);
                None
            }
        }
    }

    /// Counts `count` more slots (side `x` to move) of code `code`, if it is a loss.
    fn count_losses(&self, x: usize, code: u8, count: u64) {
        match self.codes.plies(code) {
            Some(plies) if plies % 2 == 0 && (plies as usize) < LOSS_DEPTHS && count > 0 => {
                self.losses.add(x, plies, count);
            }
            _ => {}
        }
    }

    /// If every move of `slot` (side `x` to move) reaches a position won for the opponent in
    /// at most `depth` plies (or, by a capture, in any depth), the longest of those wins;
    /// otherwise the undecided code that watches the first move found that does not.
    fn longest_forced_win(&self, slot: u64, x: usize, depth: u32) -> Result<u32, u8> {
        let p = self.place(slot).ok_or(UNKNOWN)?;
        let y = 1 - x;
        let white_king_fixed = self.shared.layout.is_fixed(p.sq[0]);
        let mut longest = 0;
        // Each man's attacks, kept for the exits below.
        let mut attacks = [0 as Board64; N];
        // The moves that stay in the table first, the men with the shortest strides first:
        // their children lie near this slot in memory, and most checks fail at their first
        // undecided child.
        for &i in self.shared.side_men[x][..self.shared.side_len[x]]
            .iter()
            .rev()
        {
            let from = p.sq[i];
            attacks[i] = self.man_attacks(i, from, p.occ);
            let mut targets = self.staying_targets(i, from, p.occ, attacks[i]);
            while targets != 0 {
                let t = targets.trailing_zeros() as Sq;
                targets &= targets - 1;
                let (child, moved) = self.child_of(slot, &p.sq, i, t, white_king_fixed);
                // A move into an illegal position (its own king in check) has a child of code
                // 0: it is no move, and is passed over.
                let code = self.child_code(child, y, moved, from, t);
                if code == NONE {
                    continue;
                }
                match self.codes.plies(code) {
                    Some(k) if k % 2 == 1 && k <= depth => longest = longest.max(k),
                    _ => return Err(self.uncounted().unwrap_or(self.codes.watching(t))),
                }
            }
        }
        // Then the exits, whose look-ups reach other tables. Each leads to a win for the
        // opponent or nowhere (an illegal position, code 0): an exit into a draw or a loss made
        // the slot unable to lose, or won, in the init pass, and such a slot is never a
        // candidate.
        self.longest_with_exits(&p, &attacks, x, longest)
            .0
            .ok_or(UNKNOWN)
    }

    /// The longer of `longest` and the longest win the opponent reaches by an exit of `p`
    /// (side `x` to move, `attacks` its men's attacks), `None` if an exit reaches a draw or a
    /// loss instead; and whether `p` has an exit at all (one that is a legal move).
    #[inline(always)]
    fn longest_with_exits(
        &self,
        p: &Placed<N>,
        attacks: &[Board64; N],
        x: usize,
        mut longest: u32,
    ) -> (Option<u32>, bool) {
        let (mut undecided, mut any) = (false, false);
        self.for_each_exit(p, attacks, x, |value| match value {
            Value::Win(k) => {
                any = true;
                longest = longest.max(k);
            }
            Value::Illegal => {}
            _ => (any, undecided) = (true, true),
        });
        ((!undecided).then_some(longest), any)
    }

    /// The code of `child` (side `y` to move), reached by man `moved` of the other side going
    /// from `from` to `to`: that of the position with an en-passant right if the move is a
    /// double step an en-passant capture can answer.
    #[inline(always)]
    fn child_code(&self, child: u64, y: usize, moved: usize, from: Sq, to: Sq) -> u8 {
        if let (Some(ep), Some(layout)) = (&self.ep, self.shared.ep_layout) {
            if self.shared.piece[moved] == Piece::Pawn
                && self.shared.bits.pawn_double_back(1 - y, to) & (1 << from) != 0
            {
                if let Some(number) = layout.number(child, moved) {
                    let code = ep.cells[y].get(number);
                    if code != NONE {
                        return code;
                    }
                }
            }
        }
        self.cells[y].get(child)
    }

    /// Gives up the watch codes where the table is being solved: in the part `part` of a sliced
    /// table ([`Core::stop_watching_part`]), else everywhere. Returns the new codes.
    fn stop_watching_here(&mut self, part: &[usize]) -> WorkCodes {
        match self.sliced {
            true => self.stop_watching_part(part),
            false => self.stop_watching(None),
        }
    }

    /// Sliced: gives up the watch codes for the part being solved (`part`, its chunks), and for
    /// the whole table if the parts solved before still hold them ([`Core::stop_watching`]).
    /// Returns the new codes.
    fn stop_watching_part(&mut self, part: &[usize]) -> WorkCodes {
        if self.finished.watch_keys == 0 {
            return self.stop_watching(Some(part));
        }
        let new = self.stop_watching(None);
        self.finished = new;
        new
    }

    /// Gives up the watch codes between passes, in the chunks of `part` (`None`: all):
    /// watching slots become undecided (re-examined at every new win among their children,
    /// which watching only spared checks that would fail) and decided codes move down to the
    /// same depths without watch codes, so that a byte holds deeper values; the chunks' code
    /// sets are made again. Returns the new codes.
    fn stop_watching(&mut self, part: Option<&[usize]>) -> WorkCodes {
        let old = self.codes;
        let new = WorkCodes {
            watch_keys: 0,
            ..old
        };
        self.remap(&old.recode(new), part);
        self.codes = new;
        new
    }

    /// After an init pass of a whole table made without watch codes: takes up the codes
    /// `watching` if every value stored, and every loss the exits may force later
    /// ([`Core::exit_loss`]), fits beside them, the decided codes moving up to the same depths
    /// with watch codes (the cells then hold what an init pass made with them would have
    /// stored). Returns the codes now held.
    fn start_watching(&mut self, watching: WorkCodes) -> WorkCodes {
        let old = self.codes;
        debug_assert!(old.watch_keys == 0 && old.low == 0 && watching.low == 0);
        let deepest = self.deepest.load(Ordering::Relaxed).min(255) as u8;
        let stored_too_deep = old
            .plies(deepest)
            .is_some_and(|plies| plies > watching.max_plies());
        if stored_too_deep || self.exit_loss.load(Ordering::Relaxed) > watching.max_plies() {
            return old;
        }
        self.remap(&old.recode(watching), None);
        self.codes = watching;
        self.finished = watching;
        watching
    }

    /// Rebases the decided codes at the start of the pass of `depth` (see [`rebase`]), so that
    /// a byte holds deeper values: the work tables go to a snapshot, and every decided slot of
    /// fewer than `low + 2` plies takes the code of `low` (a loss) or `low + 1` (a win), for the
    /// even `low ≤ depth − 2`. Returns the new codes, or the old ones when there is nothing to
    /// gain (or nowhere to write) and the byte still holds the pass.
    fn rebase(&mut self, depth: u32, snapshots: &mut Snapshots) -> Result<WorkCodes, Declined> {
        let old = self.codes;
        debug_assert_eq!(old.watch_keys, 0, "watching is given up first");
        let low = depth.saturating_sub(2) & !1;
        if low <= old.low || !snapshots.can_write() {
            return match depth + 1 > old.max_plies() {
                true => Err(Declined::TooDeep),
                false => Ok(old),
            };
        }
        let ep = self.ep.as_ref();
        snapshots
            .write(
                [
                    Some(&self.cells[0]),
                    Some(&self.cells[1]),
                    ep.map(|ep| &ep.cells[0]),
                    ep.map(|ep| &ep.cells[1]),
                ],
                old,
            )
            .map_err(|e| Declined::Failed(e.into()))?;
        let new = WorkCodes { low, ..old };
        let map: [u8; 256] = std::array::from_fn(|c| {
            let c = c as u8;
            match old.plies(c) {
                Some(plies) if plies < low + 2 => new.decided(low + plies % 2),
                Some(plies) => new.decided(plies),
                None => c,
            }
        });
        self.remap(&map, None);
        self.codes = new;
        Ok(new)
    }

    /// Replaces every code `c` of the work tables by `map[c]`, in the chunks of `part` (`None`:
    /// all, en-passant tables too), and makes their code sets and the deepest code again.
    fn remap(&mut self, map: &[u8; 256], part: Option<&[usize]>) {
        let ep_tables = self
            .ep
            .iter()
            .filter(|_| part.is_none())
            .flat_map(|ep| ep.cells.iter().zip(&ep.presence));
        for (cells, presence) in self.cells.iter().zip(&self.presence).chain(ep_tables) {
            let size = cells.len();
            let all: Vec<usize>;
            let chunks = match part {
                Some(part) => part,
                None => {
                    all = (0..presence.len()).collect();
                    &all
                }
            };
            chunks.par_iter().for_each(|&chunk| {
                let sets = &presence[chunk];
                let first = chunk as u64 * CHUNK;
                let end = (first + CHUNK).min(size);
                let mut present = [0u64; 4];
                let mut word = 0u64;
                let mut codes = [0u8; CHUNK as usize];
                let codes = &mut codes[..(end - first) as usize];
                cells.copy_to(first, codes);
                for (k, &code) in codes.iter().enumerate() {
                    let code = map[usize::from(code)];
                    present[usize::from(code >> 6)] |= 1 << (code & 63);
                    word |= u64::from(code) << (k % 8 * 8);
                    if k % 8 == 7 || first + k as u64 + 1 == end {
                        cells.set_word((first / 8) as usize + k / 8, word);
                        word = 0;
                    }
                }
                for (set, bits) in sets.iter().zip(present) {
                    set.store(bits, Ordering::Relaxed);
                }
            });
        }
        let deepest = self.deepest.load(Ordering::Relaxed);
        self.deepest
            .store(u32::from(map[deepest.min(255) as usize]), Ordering::Relaxed);
    }

    /// Fills the en-passant positions' cells, after the init pass: a number is a position if
    /// its placement is legal and some en-passant capture is (the capture's look-up is not
    /// `0`); its code is the better of the captures' and, if the placement has a move, the
    /// placement's as far as it is decided.
    fn init_ep(&self) {
        let Some(ep) = &self.ep else {
            return;
        };
        for x in 0..2 {
            let size = ep.cells[x].len();
            let chunks = size.div_ceil(CHUNK) as usize;
            (0..chunks).into_par_iter().for_each(|chunk| {
                let first = chunk as u64 * CHUNK;
                let end = (first + CHUNK).min(size);
                let mut present = [0u64; 4];
                let mut local_deepest = 0;
                for number in first..end {
                    let Some((code, floor)) = self.init_ep_position(number, x) else {
                        continue;
                    };
                    ep.cells[x].set(number, code);
                    ep.floor[x].set(number, floor);
                    present[usize::from(code >> 6)] |= 1 << (code & 63);
                    if self.codes.plies(code).is_some() {
                        local_deepest = local_deepest.max(code);
                    }
                }
                for (w, bits) in ep.presence[x][chunk].iter().zip(present) {
                    w.store(bits, Ordering::Relaxed);
                }
                self.deepest
                    .fetch_max(u32::from(local_deepest), Ordering::Relaxed);
            });
        }
    }

    /// The init code and floor of en-passant number `number` (side `x` to move), or `None` if
    /// it is no position.
    fn init_ep_position(&self, number: u64, x: usize) -> Option<(u8, u8)> {
        let layout = self.shared.ep_layout?;
        let (slot, j) = layout.decode(number, x);
        let placement = self.cells[x].get(slot);
        if placement == NONE {
            return None;
        }
        let p = self.place(slot)?;
        let y = 1 - x;
        let square = p.sq[j];
        let origin = self.shared.bits.pawn_double_back(y, square);
        if origin == 0 || p.occ & origin != 0 {
            return None;
        }
        let passed = layout.passed(square, origin.trailing_zeros() as Sq);
        if p.occ & (1 << passed) != 0 {
            return None;
        }
        let rule = self.shared.exits.captures[j].expect("pawns are captured");
        // The best capture for side `x`: its shortest win, else a draw, else its longest loss.
        let mut tally = ExitTally::default();
        for &i in &self.shared.side_men[x][..self.shared.side_len[x]] {
            if self.shared.piece[i] != Piece::Pawn
                || self.shared.bits.pawn_attacks(x, p.sq[i]) & (1 << passed) == 0
            {
                continue;
            }
            let mut after = p.sq;
            after[i] = passed;
            tally.add(self.exit_value(&after, rule, x));
        }
        let (code, floor) = match (tally.win, tally.draw, tally.loss) {
            (Some(w), _, _) => (self.code_for(w), 0),
            (None, true, _) => (CANNOT_LOSE, 0),
            (None, false, Some(l)) => {
                self.note_exit_loss(l);
                (UNKNOWN, l)
            }
            // No en-passant capture is legal: the right is no right, and no position.
            (None, false, None) => return None,
        };
        let floor = u8::try_from(floor).expect("a subtable's depths fit a byte");
        // A placement without a move (mate, stalemate) leaves the captures alone to choose from.
        let mated = self.codes.plies(placement) == Some(0);
        let stalemated = placement == UNKNOWN && !self.has_any_move(&p, x);
        if mated || stalemated {
            return Some(match code {
                UNKNOWN => (self.code_for(u32::from(floor)), 0),
                code => (code, 0),
            });
        }
        let code = match self.codes.plies(placement) {
            Some(_) => self.ep_follows(code, floor, placement).unwrap_or(code),
            None => code,
        };
        Some((code, floor))
    }

    /// Whether side `x` has a legal move in `p` (staying in the table or leaving it).
    fn has_any_move(&self, p: &Placed<N>, x: usize) -> bool {
        if self.has_quiet_move(p, x) {
            return true;
        }
        let attacks: [Board64; N] = std::array::from_fn(|i| self.man_attacks(i, p.sq[i], p.occ));
        let mut any = false;
        self.for_each_exit(p, &attacks, x, |value| any |= value != Value::Illegal);
        any
    }

    /// The new code of an en-passant position of code `old` and floor `floor` whose placement
    /// (with a move) has just been decided with code `placement`, or `None` if it keeps `old`:
    /// a win of the placement wins it at least as fast; a loss of the placement loses it if
    /// every capture loses too, in the longer of the two.
    #[inline]
    fn ep_follows(&self, old: u8, floor: u8, placement: u8) -> Option<u8> {
        let plies = self.codes.plies(placement)?;
        if plies % 2 == 1 {
            match self.codes.plies(old) {
                Some(k) if k % 2 == 1 && k <= plies => None,
                _ => Some(placement),
            }
        } else if old == UNKNOWN {
            let code = self.code_for(plies.max(u32::from(floor)));
            (code != UNKNOWN).then_some(code)
        } else {
            None
        }
    }

    /// Brings the en-passant positions of `slot`'s placement (side `x` to move) up to date
    /// with its new decided code `code`.
    #[inline]
    fn follow_ep(&self, x: usize, slot: u64, code: u8) {
        let (Some(ep), Some(layout)) = (&self.ep, self.shared.ep_layout) else {
            return;
        };
        let y = 1 - x;
        for &j in &self.shared.side_men[y][..self.shared.side_len[y]] {
            if self.shared.piece[j] != Piece::Pawn {
                continue;
            }
            let Some(number) = layout.number(slot, j) else {
                continue;
            };
            let old = ep.cells[x].get(number);
            if old == NONE {
                continue;
            }
            if let Some(new) = self.ep_follows(old, ep.floor[x].get(number), code) {
                ep.cells[x].set(number, new);
                let word = &ep.presence[x][(number >> CHUNK_BITS) as usize][usize::from(new >> 6)];
                let bit = 1u64 << (new & 63);
                if word.load(Ordering::Relaxed) & bit == 0 {
                    word.fetch_or(bit, Ordering::Relaxed);
                    self.deepest.fetch_max(u32::from(new), Ordering::Relaxed);
                }
            }
        }
    }

    /// Records that the value `code` was written into `slot`'s chunk on side `x`.
    #[inline]
    fn note(&self, x: usize, slot: u64, code: u8) {
        if self.mark_present(x, slot, code) {
            self.deepest.fetch_max(u32::from(code), Ordering::Relaxed);
        }
    }

    /// Records that `code` was written into `slot`'s chunk on side `x`; whether it is new there.
    #[inline]
    fn mark_present(&self, x: usize, slot: u64, code: u8) -> bool {
        let word = &self.presence[x][(slot >> CHUNK_BITS) as usize][usize::from(code >> 6)];
        let bit = 1u64 << (code & 63);
        let new = word.load(Ordering::Relaxed) & bit == 0;
        if new {
            word.fetch_or(bit, Ordering::Relaxed);
        }
        new
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
