//! The init pass: every slot's first code, before the retrograde passes.
//!
//! Owns: one parallel pass over all slots. Illegal slots get `0` (a pawn on an end rank too);
//! *exits* ([`super::exits`]) are looked up in the tables they lead into. An exit into a loss
//! in `k` makes a win in at most `k + 1`, stored at once as that win (a quicker one overwrites
//! it); an exit into a draw gives `2`; a position in check with no move is mated; one whose
//! only moves are exits into wins is lost after the longest of them, stored at once. Moves that
//! stay are not counted.
//! Must never: un-move (the passes do), or store a value later passes could improve on other
//! than a win ahead of its depth.
//!
//! The pass goes a *run* at a time — the slots that differ only in the last man's square,
//! whose field is the last, so that they are consecutive: the other men's attacks are found
//! once a run, and so is every capture or promotion whose slot in the other table moves with
//! the last man's square alone (neither king moves with it, so that table's fold is fixed for
//! the run: `Core::run_exits`). With three men or more, the run's slots are then classified
//! all at once (`Core::classify_run`), as sets of the last man's squares found with a few
//! bitboard operations: where each king is attacked (by a man of the run unless the last man
//! stands between, or by the last man), hence which slots are no position with each side to
//! move and which are in check; and for each of the run's exits, the squares where it holds.
//! Each exit's value is then looked up only on those squares, and each slot's code follows
//! from the values found there, a quiet move being looked for only in check or where every
//! exit loses; a slot with no exit that is not in check is undecided from the sets alone. A
//! slot where an exit outside the run's may hold (its table's fold moves with the last man, or
//! a capture promotes) is classified alone, its men's attacks found again.
//!
//! The init pass also notes the deepest loss the exits of an undecided slot may force
//! (`Core::note_exit_loss`): a forward check stores such a loss whatever the depth of its
//! pass, so the watch codes are given up before the first pass when it lies deeper than they
//! allow.

use super::convert::Kept;
use super::*;

/// A capture, or a promotion without one, of a run of [`Core::classify_range`] whose slot in
/// the table it leads into moves with the last man's square only (`Core::run_exits`).
pub(super) struct RunExit<'a> {
    /// The side that moves.
    pub(super) side: usize,
    /// The moving man.
    pub(super) capturer: usize,
    /// A capture: the captured man's square, as a set (`0`: the last man's, which moves with
    /// the run). A promotion: the squares the pawn passes and moves to (two for a double step
    /// onto the last rank of a board of four ranks).
    pub(super) target: Board64,
    /// Whether it is a promotion, which holds while the last man stands on none of `target`
    /// (a capture holds while the moving man attacks `target`).
    pub(super) push: bool,
    /// The entry codes of the other table, with its side to move after the capture.
    pub(super) codes: &'a Cells,
    /// The slot there with the field of the man on the last man's square `0`.
    pub(super) base: u64,
    /// The stride of that field (`0`: no man stands there, the last man having captured).
    pub(super) stride: u64,
    /// Whether the table is stored with colours exchanged (squares mirrored by rank first).
    pub(super) mirror: bool,
    /// The symmetry the other table's fold applies ([`Layout::fold_map`]).
    pub(super) map: &'a [Sq],
}

/// The exits of one run, and by man, the squares whose captures and promotions they cover.
pub(super) struct RunExits<'a, const N: usize> {
    pub(super) exits: Vec<RunExit<'a>>,
    /// By moving man, the squares of the other men whose captures are here, and the squares
    /// whose promotions are.
    pub(super) skip: [Board64; N],
    /// By capturing man, every square (`u64::MAX`) if its capture of the last man is here.
    pub(super) skip_last: [Board64; N],
    /// In a sliced layout, the pushes of the run's pawns (none promoting): exits into a slice
    /// solved before, whose slot is a base plus the last man's square ([`Core::classify_run`]).
    pub(super) pushes: Vec<RunPush>,
}

/// A run of slots, those that differ in the last man's square alone ([`Core::run_at`]): its
/// first slot, and its men but the last (their squares, the last man's any, and by side the
/// squares they stand on).
#[derive(Clone, Copy)]
pub(super) struct RunAt<const N: usize> {
    pub(super) run: u64,
    pub(super) sq: [Sq; N],
    pub(super) by_side: [Board64; 2],
}

impl RunExit<'_> {
    /// Whether the exit is a move when the last man stands on `last`, given the moving man's
    /// attacks there.
    #[inline(always)]
    pub(super) fn holds(&self, last: Sq, attacks: Board64) -> bool {
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
    pub(super) fn code(&self, last: usize, mirror_rank: &[Sq]) -> u8 {
        let last = if self.mirror {
            usize::from(mirror_rank[last])
        } else {
            last
        };
        let turned = self.map[last];
        self.codes.get(self.base + u64::from(turned) * self.stride)
    }
}

impl<const N: usize> Core<'_, N> {
    /// The init pass over the chunks `part` (each used up to `chunk_end`): every slot's init
    /// code with each side to move ([`Core::classify_range`]), the chunks' code sets, the
    /// losses counted and the deepest code, all started again. Returns how many slots are legal
    /// with each side to move; reports its progress to `observer`, if any.
    pub(super) fn init_pass(
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
                    let at = (first / 8) as usize + k;
                    let word = u64::from_le_bytes(le);
                    // A word of no positions is left unwritten where it is still zero, so
                    // that pages of no position (a six-man table's king pairs that are no
                    // position, a quarter of its slots) never take memory.
                    if word != 0 || self.cells[x].word(at) != 0 {
                        self.cells[x].set_word(at, word);
                    }
                }
                if self.hinted {
                    // By side, the hints' words: may win, may lose; and where losses are
                    // found by ways out, the legal slots, none met as a win yet
                    // ([`Core::not_won`], which stands for `may_win` where that is folded
                    // into it: it holds every slot that may win).
                    for (k, word) in bytes.chunks(64).enumerate() {
                        let [win, lose, legal] = hint_words.of(word);
                        let at = (first / 64) as usize + k;
                        // As for the codes: words of no position stay unwritten.
                        if legal != 0 || self.win_hints(x).word(at) != 0 {
                            if !self.shared_win_hints {
                                self.may_win[x].set_word(at, win);
                            }
                            self.may_lose[x].set_word(at, lose);
                            if self.search == LossSearch::WaysOut {
                                self.not_won[x].set_word(at, legal);
                            }
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
    pub(super) fn classify_range(&self, first: u64, end: u64, mut visit: impl FnMut(u64, [u8; 2])) {
        let last = N - 1;
        let mut exits = Vec::new();
        let mut pushes = Vec::new();
        let squares = self.shared.layout.square_count();
        let mut slot = first;
        while slot < end {
            let run_start = slot - slot % squares;
            let run_end = (run_start + squares).min(end);
            let run_at = self.run_at(run_start);
            let (mut sq, outer_by_side) = (run_at.sq, run_at.by_side);
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
            let outer_attacks = self.run_attacks(&run_at);
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
                    _ => {
                        let (p, attacks) = self.with_last_man(&run_at, &outer_attacks, t);
                        self.classify(&p, &attacks, &run, known)
                    }
                };
                visit(slot, codes);
            }
            exits = run.exits;
            pushes = run.pushes;
            slot = run_end;
        }
    }

    /// The run of slots that starts at `run` (a multiple of the board's square count): its
    /// men but the last, decoded.
    pub(super) fn run_at(&self, run: u64) -> RunAt<N> {
        let sq: [Sq; N] = self.shared.layout.decode_array(run);
        let mut by_side = [0 as Board64; 2];
        for (i, &s) in sq.iter().enumerate().take(N - 1) {
            by_side[self.side_of(i)] |= 1 << s;
        }
        RunAt { run, sq, by_side }
    }

    /// The attacks of the men but the last of the run `at`, the last man off the board.
    pub(super) fn run_attacks(&self, at: &RunAt<N>) -> [Board64; N] {
        let occ = at.by_side[0] | at.by_side[1];
        let mut attacks = [0 as Board64; N];
        for (i, a) in attacks.iter_mut().enumerate().take(N - 1) {
            *a = self.man_attacks(i, at.sq[i], occ);
        }
        attacks
    }

    /// The slot of the run `at` whose last man stands on `t` (empty), and every man's attacks
    /// there, from `attacks` those of the others ([`Core::run_attacks`]): a slider's found
    /// again only where the last man stands on one of its lines (a man elsewhere blocks none).
    #[inline(always)]
    pub(super) fn with_last_man(
        &self,
        at: &RunAt<N>,
        attacks: &[Board64; N],
        t: Sq,
    ) -> (Placed<N>, [Board64; N]) {
        let last = N - 1;
        let bit = 1u64 << t;
        let mut sq = at.sq;
        sq[last] = t;
        let mut by_side = at.by_side;
        by_side[self.side_of(last)] |= bit;
        let p = Placed {
            slot: at.run + u64::from(t),
            sq,
            occ: by_side[0] | by_side[1],
            by_side,
        };
        let mut all = *attacks;
        for (i, a) in all.iter_mut().enumerate() {
            if i == last || (*a & bit != 0 && is_slider(self.shared.piece[i])) {
                *a = self.man_attacks(i, p.sq[i], p.occ);
            }
        }
        (p, all)
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
    /// ([`Core::with_last_man`], [`Core::classify`]).
    pub(super) fn classify_run(
        &self,
        run_start: u64,
        sq: &[Sq; N],
        by_side: [Board64; 2],
        occ: Board64,
        attacks: &[Board64; N],
        run: &RunExits<'_, N>,
    ) -> [[Option<u8>; 2]; 64] {
        let last = N - 1;
        let last_side = self.side_of(last);
        let empty = self.run_squares(sq, occ);
        let attacked = self.run_attacked(sq, occ, attacks);
        let mut codes = [[Some(NONE); 2]; 64];
        for x in 0..2 {
            let y = 1 - x;
            let legal = empty & !attacked[y];
            let mut tally = [ExitTally::default(); 64];
            for exit in run.exits.iter().filter(|e| e.side == x) {
                let mut on = self.run_exit_holds(exit, sq, occ, attacks) & legal;
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
            let elsewhere = self.run_elsewhere(x, sq, by_side, occ, attacks, run);
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

    /// The squares the last man of a run (its other men on `sq`, `occ` theirs) may stand on:
    /// empty, allowed to his piece, and with identical men in order.
    pub(super) fn run_squares(&self, sq: &[Sq; N], occ: Board64) -> Board64 {
        let mut empty = self.shared.allowed[N - 1] & !occ;
        if self.grouped {
            let mut placed = *sq;
            let mut rest = empty;
            while rest != 0 {
                let t = rest.trailing_zeros() as Sq;
                rest &= rest - 1;
                placed[N - 1] = t;
                if !self.shared.layout.groups_sorted(&placed) {
                    empty &= !(1 << t);
                }
            }
        }
        empty
    }

    /// The squares from which the last man of a run (its other men on `occ`) attacks
    /// `target`: the attacks of every piece but the pawn are symmetric, and the last man
    /// blocks none of his own lines.
    #[inline(always)]
    pub(super) fn last_attackers(&self, target: Sq, occ: Board64) -> Board64 {
        let last = N - 1;
        match self.shared.piece[last] {
            Piece::Pawn => self.shared.bits.pawn_attackers(self.side_of(last), target),
            piece => self.shared.bits.attacks(piece, target, occ),
        }
    }

    /// By side, the last man's squares in a run (its other men on `sq`, `occ` and `attacks`
    /// theirs) where that side's king is attacked: by a man of the run unless the last man
    /// stands between them, or by the last man.
    pub(super) fn run_attacked(
        &self,
        sq: &[Sq; N],
        occ: Board64,
        attacks: &[Board64; N],
    ) -> [Board64; 2] {
        let last = N - 1;
        let mut attacked = [0 as Board64; 2];
        for (s, attacked) in attacked.iter_mut().enumerate() {
            let king = sq[s];
            for &i in &self.shared.side_men[1 - s][..self.shared.side_len[1 - s]] {
                if i == last {
                    *attacked |= self.last_attackers(king, occ);
                } else if attacks[i] & (1 << king) != 0 {
                    *attacked |= !self.shared.bits.between(sq[i], king);
                }
            }
        }
        attacked
    }

    /// The last man's squares in a run (its other men on `sq`, `occ` and `attacks` theirs)
    /// where the run's `exit` is a move: a capture by a man of the run of another such man
    /// while the last man does not stand between them, a capture by the last man where he
    /// attacks the captured man's square, a capture of the last man where the capturing man
    /// attacks him, a promotion while the last man stands on none of the squares it passes.
    #[inline(always)]
    pub(super) fn run_exit_holds(
        &self,
        exit: &RunExit<'_>,
        sq: &[Sq; N],
        occ: Board64,
        attacks: &[Board64; N],
    ) -> Board64 {
        if exit.push {
            !exit.target
        } else if exit.target == 0 {
            attacks[exit.capturer]
        } else {
            let target = exit.target.trailing_zeros() as Sq;
            if exit.capturer == N - 1 {
                self.last_attackers(target, occ)
            } else {
                !self.shared.bits.between(sq[exit.capturer], target)
            }
        }
    }

    /// The last man's squares in a run (its men but the last on `sq`, `by_side`, `occ` and
    /// `attacks` theirs, `run` its exits) where a capture or a promotion of side `x` that is
    /// not among the run's exits may hold: there a slot is classified on its own.
    pub(super) fn run_elsewhere(
        &self,
        x: usize,
        sq: &[Sq; N],
        by_side: [Board64; 2],
        occ: Board64,
        attacks: &[Board64; N],
        run: &RunExits<'_, N>,
    ) -> Board64 {
        let last = N - 1;
        let last_side = self.side_of(last);
        let bits = &self.shared.bits;
        let y = 1 - x;
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
                    elsewhere |= self.last_attackers(target, occ);
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
        elsewhere
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
    pub(super) fn run_exits<'s>(
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
    pub(super) fn add_run_capture<'s>(
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
    pub(super) fn add_run_promotion<'s>(
        &'s self,
        sq: &[Sq; N],
        i: usize,
        to: Sq,
        run: &mut RunExits<'s, N>,
    ) {
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
    pub(super) fn add_run_exit<'s>(
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
        // The cells of a table read through a window move with the run as its slots do.
        let (base, stride) = sub
            .kept
            .run(base, stride)
            .expect("a run exit leads into the cells kept");
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

    /// Whether an exit (`rule`) can be a run exit: it leads into a table kept whole, or read
    /// through a window that does not keep the field of the man on the last man's square
    /// after it (`moving`; `None`: no man), and that man has no identical companion.
    pub(super) fn run_exit_fits(&self, rule: ExitRule, moving: Option<usize>) -> bool {
        let sub = &self.shared.subs[rule.sub];
        let kept = match &sub.kept {
            Kept::All => true,
            Kept::Rank(_) => false,
            Kept::Window(w) => {
                !moving.is_some_and(|m| w.keeps_stride(sub.layout.stride(rule.to[m])))
            }
        };
        kept && !moving.is_some_and(|m| sub.layout.is_grouped(rule.to[m]))
    }

    /// The init codes of a placement with White and with Black to move, given every man's
    /// attacks: they say which king is attacked (legality for one side to move, check for the
    /// other) and which captures there are.
    /// `known` has, by side to move, the code where it is known already
    /// ([`Core::classify_run`]).
    #[inline(always)]
    pub(super) fn classify(
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
    pub(super) fn classify_side(
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
    pub(super) fn code_of_tally(
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
    pub(super) fn note_exit_loss(&self, plies: u32) {
        // Read first: the word is written rarely, so it stays shared between the threads.
        if plies > self.exit_loss.load(Ordering::Relaxed) {
            self.exit_loss.fetch_max(plies, Ordering::Relaxed);
        }
    }

    pub(super) fn code_for(&self, plies: u32) -> u8 {
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
    pub(super) fn has_quiet_move(&self, p: &Placed<N>, x: usize) -> bool {
        let safety = self.king_safety(p, x);
        self.shared.side_men[x][..self.shared.side_len[x]]
            .iter()
            .any(|&i| self.legal_quiet_targets(p, x, i, &safety) != 0)
    }
}
