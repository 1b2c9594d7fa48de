//! The iteration: the init pass, then a pass per depth until nothing more is found.
//!
//! Owns: the order of the work — the parts a table is solved in (the whole table, or its pawn
//! slices), the way its losses are found (chosen once per table: [`LossSearch`]), and the
//! passes of each depth, each side to move in turn.
//! Must never: decide a slot itself (the passes do).
//!
//! **depth d**, a parallel pass over the chunks of 4,096 slots that hold the code of depth `d`
//! (each chunk keeps a 256-bit set of the codes written into it, so a pass skips what it need
//! not read), one side to move at a time, so that the side scanned is never the side written.
//! Even `d` finds wins ([`super::wins`]); odd `d` finds losses, in one of three ways
//! ([`super::forward`], [`super::counting`], [`super::ways_out`]). Values stored before their
//! depth (capture wins and losses) are met by the pass of their depth like any other; the
//! iteration ends when a pass finds nothing and no stored value lies deeper. Undecided slots
//! are draws. Where the two sides have the same men (KQRvKQR), Black's half of each pass is
//! the mirror image of White's, stored without un-moving (`super::mirror`).

use super::part_store::PartStore;
use super::*;

/// How the odd passes find their losses, chosen once per table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LossSearch {
    /// A slot at a time: every parent of a win becomes a candidate, checked forward
    /// ([`super::forward`]). Tables with en-passant positions, and those of two men.
    Forward,
    /// A run at a time, counting each parent's moves ([`super::counting`]); a slot with too
    /// many moves to count, and every slot once the watch codes are given up, is checked
    /// forward.
    Counting,
    /// A run at a time, from the ways out of the runs the wins reach ([`super::ways_out`]):
    /// tables that keep hints and in which no pawn moves.
    WaysOut,
}

impl LossSearch {
    /// Whether the passes take the slots of a code a run at a time ([`Node::Run`]).
    pub(super) fn by_runs(self) -> bool {
        self != LossSearch::Forward
    }
}

/// What the driver chooses once for a table of `N` men: whether it is solved in slices, how
/// its odd passes find losses, and whether it keeps hints.
pub(super) struct Mode {
    sliced: bool,
    search: LossSearch,
    hinted: bool,
    /// Whether `may_win` is folded into `not_won` ([`Core::shared_win_hints`]).
    shared_win_hints: bool,
    /// Whether Black's passes are the mirror image of White's (`super::mirror`).
    mirrored: bool,
}

impl Mode {
    /// The mode of a core that only moves (its cells, never written, take no memory): the
    /// fifty-move passes' (`super::fifty`), in which no pawn moves or un-moves (a pawn's
    /// move is zeroing), as within a slice.
    pub(super) fn moves_only() -> Mode {
        Mode {
            sliced: true,
            search: LossSearch::Counting,
            hinted: false,
            shared_win_hints: false,
            mirrored: false,
        }
    }

    fn of<const N: usize>(parts: &Parts<'_>) -> Mode {
        let no_ep = parts.ep_layout.is_none();
        let sliced = parts.layout.slices() > 0 && no_ep;
        let by_runs = N >= 3 && no_ep;
        let hinted = by_runs && parts.hints;
        // A pawn's moves are not its un-moves turned round: only where pawns do not move (a
        // pawnless table, or the slices of one) are a run's ways out found by its un-moves.
        let pawns_stay = sliced || (0..N).all(|i| parts.piece[i] != Piece::Pawn);
        let search = if !by_runs {
            LossSearch::Forward
        } else if hinted && parts.ways_out && pawns_stay {
            LossSearch::WaysOut
        } else {
            LossSearch::Counting
        };
        Mode {
            sliced,
            search,
            hinted,
            shared_win_hints: search == LossSearch::WaysOut && parts.shared_win_hints,
            // Only where losses are found by ways out does a pass store nothing the mirror
            // step misses.
            mirrored: parts.colour_swap.is_some()
                && search == LossSearch::WaysOut
                && !sliced
                && no_ep,
        }
    }
}

pub(super) struct Solved {
    /// The codes the cells hold at the end.
    pub(super) codes: WorkCodes,
    /// The exact depths the rebases folded away.
    pub(super) snapshots: Snapshots,
    pub(super) cells: [Cells; 2],
    pub(super) ep_cells: Option<[Cells; 2]>,
    pub(super) max_plies: u32,
    pub(super) depths: u32,
    pub(super) retrograde_seconds: f64,
    /// Sliced, with its work table in scratch files: its parts, in the order of the index.
    pub(super) store: Option<PartStore>,
}

/// Solves a material of `N` men, its codes chosen here: `watching` (watch codes, one per
/// square), except where losses are found by ways out, which neither watch nor count — there
/// the watch codes would only take depths from the byte (and give them back in a pass over the
/// whole table once a table goes deeper than 187 plies); tests that ask for watch codes get
/// them. A table that started with watch codes and still finds its values too deep for a byte
/// is solved again without them; one that started without is declined.
pub(super) fn solve_table<const N: usize>(
    parts: &Parts<'_>,
    watching: WorkCodes,
    scratch: Option<&Path>,
    material: Material,
    observer: &dyn Observer,
) -> Result<Solved, Declined> {
    let mode = Mode::of::<N>(parts);
    let codes = match mode.search == LossSearch::WaysOut && parts.watch_by_default {
        true => WorkCodes {
            watch_keys: 0,
            ..watching
        },
        false => watching,
    };
    match solve::<N>(parts, &mode, codes, scratch, material, observer) {
        Err(Declined::TooDeep) if codes.watch_keys > 0 => {
            let codes = WorkCodes::new(0, codes.rebase_span);
            solve::<N>(parts, &mode, codes, scratch, material, observer)
        }
        other => other,
    }
}

/// The iteration for a material of `N` men in the mode `mode`, starting with the codes
/// `codes`: each part of the table (the whole, or its slices in the order their pushes need)
/// from its init pass to the pass that finds nothing more.
fn solve<const N: usize>(
    parts: &Parts<'_>,
    mode: &Mode,
    codes: WorkCodes,
    scratch: Option<&Path>,
    material: Material,
    observer: &dyn Observer,
) -> Result<Solved, Declined> {
    let mut snapshots = Snapshots::new(scratch, &material.to_string());
    let layout = parts.layout;
    let sliced = mode.sliced;
    let plan = Plan::of(layout, sliced);
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
    let first_codes = match watch_after_init {
        Some(_) => WorkCodes::new(0, codes.rebase_span),
        None => codes,
    };
    // A sliced table keeps its bytes in scratch files where it has somewhere to put them, and
    // holds in memory only the parts its passes read (see `slices`).
    let paging = scratch.filter(|_| sliced);
    let mut core = Core::<N>::new(parts, first_codes, mode, plan.chunk_end.len(), paging)?;
    // There, a table whose slices take much disk stores each part once solved and releases
    // the slices no later part reads (`part_store`).
    // With it: by part, the slices released once the part is stored; and the stored index.
    let failed = |e: retro_format::FormatError| Declined::Failed(e.into());
    let (mut store, released, indexer) = match paging {
        Some(dir) if parts.store_parts => (
            Some(PartStore::new(dir, layout, &plan.groups).map_err(failed)?),
            layout.slices_released(&plan.groups),
            Some(
                retro_engine::Indexer::new(parts.geo, parts.material)
                    .map_err(|_| Declined::Unsupported)?,
            ),
        ),
        _ => (None, Vec::new(), None),
    };
    // By side to move, the chunks that may hold a slot undecided or decided deeper than the
    // current pass (cleared by the passes that pull wins, [`Core::pull_wins`]).
    let open: [Vec<AtomicBool>; 2] = std::array::from_fn(|_| {
        (0..plan.chunk_end.len())
            .map(|_| AtomicBool::new(true))
            .collect()
    });
    // A sliced table shows progress by parts solved, their chunks on both sides; a whole one
    // by its init pass, then by the slots its passes meet.
    let progress = (!sliced).then_some(observer);
    if sliced {
        observer.phase(
            &material.to_string(),
            Phase::Retrograde,
            2 * plan.chunks() as u64 * CHUNK,
        );
    } else {
        observer.phase(&material.to_string(), Phase::Init, 2 * layout.size());
    }
    // The codes each part starts with.
    let watching = core.codes;
    // Sliced: by slice, the deepest pass its part made (`0` before it is solved).
    let mut slice_depths = vec![0u32; if sliced { layout.slices_count() } else { 0 }];
    let (mut max_plies, mut depths, mut retrograde_seconds) = (0, 0, 0.0);
    for (p, part) in plan.parts.iter().enumerate() {
        if sliced {
            core.start_part(watching, plan.pushes_depth(p, layout, &slice_depths), part);
            if let Some(dir) = paging {
                core.reserve_slices(&plan.groups[p]).map_err(|source| {
                    failed(retro_format::FormatError::Io {
                        path: dir.to_path_buf(),
                        source,
                    })
                })?;
            }
            // The tables read through windows show what this part's promotions reach.
            let promoted = plan.promotion_squares(p, layout);
            for sub in parts.subs {
                sub.show(promoted).map_err(Declined::Failed)?;
            }
        }
        let legal = core.init_part(part, &plan.chunk_end, progress)?;
        core.watch_after_init(watch_after_init, part);
        let retrograde_start = std::time::Instant::now();
        if let Some(observer) = progress {
            observer.phase(
                &material.to_string(),
                Phase::Retrograde,
                legal[0] + legal[1],
            );
        }
        let (depth, part_plies) = core.iterate(
            part,
            &plan.chunk_end,
            legal,
            &open,
            &mut snapshots,
            progress,
        )?;
        max_plies = max_plies.max(part_plies);
        depths = depths.max(depth);
        if sliced {
            for &number in &plan.groups[p] {
                slice_depths[number as usize] = depth;
            }
            if core.finished.watch_keys == 0 && core.codes.watch_keys > 0 {
                // The parts solved before gave the watch codes up: this one follows.
                core.stop_watching(Some(part));
            }
        }
        retrograde_seconds += retrograde_start.elapsed().as_secs_f64();
        if let (Some(store), Some(indexer)) = (&mut store, &indexer) {
            store
                .store(p, parts.geo, indexer, layout, &core.cells, core.codes)
                .map_err(failed)?;
            core.release_slices(&released[p]);
        }
        if sliced {
            core.put_part_away();
            observer.progressed(2 * part.len() as u64 * CHUNK);
        }
    }
    debug_assert!(!sliced || core.codes.watch_keys == core.finished.watch_keys);
    let Core {
        cells, ep, codes, ..
    } = core;
    Ok(Solved {
        codes,
        snapshots,
        cells,
        ep_cells: ep.map(|ep| ep.cells),
        max_plies,
        depths,
        retrograde_seconds,
        store,
    })
}

impl<'a, const N: usize> Core<'a, N> {
    /// The state of a build of `parts` in `mode`, its cells all `0`, holding `codes`, over
    /// `chunks` chunks; the cells kept in scratch files in `paging` if given.
    pub(super) fn new(
        parts: &'a Parts<'a>,
        codes: WorkCodes,
        mode: &Mode,
        chunks: usize,
        paging: Option<&Path>,
    ) -> Result<Core<'a, N>, Declined> {
        let layout = parts.layout;
        let size = layout.size();
        // Kept in files, the disk of each part's slices is reserved when the part starts
        // (`Core::reserve_slices`); the slices of no placement are never written.
        let cells = |_| match paging {
            Some(dir) => Cells::in_file(size, dir, &[]).map_err(|source| {
                Declined::Failed(GenError::Format(retro_format::FormatError::Io {
                    path: dir.to_path_buf(),
                    source,
                }))
            }),
            None => Ok(Cells::new(size)),
        };
        let [white, black] = [0, 1].map(cells);
        let cells = [white?, black?];
        let hints = |size| match mode.hinted {
            true => SlotHints::new(size),
            false => SlotHints::none(),
        };
        let by_ways_out = mode.search == LossSearch::WaysOut;
        Ok(Core {
            refold: std::array::from_fn(|i| i < N && layout.is_grouped(i)),
            grouped: (0..N).any(|i| layout.is_grouped(i)),
            search: mode.search,
            sliced: mode.sliced,
            codes,
            finished: codes,
            shared: parts,
            cells,
            may_win: std::array::from_fn(|_| match mode.shared_win_hints {
                true => SlotHints::none(),
                false => hints(size),
            }),
            may_lose: std::array::from_fn(|_| hints(size)),
            hinted: mode.hinted,
            shared_win_hints: mode.shared_win_hints,
            not_won: std::array::from_fn(|_| match by_ways_out {
                true => SlotHints::new(size),
                false => SlotHints::none(),
            }),
            reached: std::array::from_fn(|_| match by_ways_out {
                true => RunMarks::new(size.div_ceil(layout.square_count())),
                false => RunMarks::new(0),
            }),
            presence: [presence_sets(chunks), presence_sets(chunks)],
            started: vec![false; chunks],
            mirrored: mode.mirrored,
            mirror_log: std::sync::Mutex::new(Vec::new()),
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
        })
    }

    /// Sliced, after a part is solved: its hints are of no more use (no later part reads
    /// them), and its bytes, kept in scratch files, are handed back to the kernel until a
    /// later part's pushes read them, as are the pages of the smaller tables kept so.
    fn put_part_away(&mut self) {
        for sub in self.shared.subs {
            sub.page_out();
        }
        for x in 0..2 {
            self.cells[x].page_out(0, self.cells[x].len());
            self.may_win[x].clear();
            self.may_lose[x].clear();
            self.not_won[x].clear();
        }
    }

    /// Sliced, in scratch files: reserves the disk of the slices `numbers` (a part about to
    /// be solved), so that a full disk is an error here.
    fn reserve_slices(&self, numbers: &[u64]) -> std::io::Result<()> {
        for &number in numbers {
            let (first, end) = self.shared.layout.slice_span(number);
            for cells in &self.cells {
                cells.reserve(first, end)?;
            }
        }
        Ok(())
    }

    /// Sliced, in scratch files: gives back the slices `numbers`, stored and read by no later
    /// part; no change of encoding touches them again.
    fn release_slices(&mut self, numbers: &[u64]) {
        for &number in numbers {
            let (first, end) = self.shared.layout.slice_span(number);
            for cells in &self.cells {
                cells.release(first, end);
            }
            for started in &mut self.started[(first / CHUNK) as usize..end.div_ceil(CHUNK) as usize]
            {
                *started = false;
            }
        }
    }

    /// Sliced: starts the part `part` with the codes `watching`, without the watch codes if
    /// its pushes, which lead into parts `pushes_depth` plies deep, may store deeper values
    /// than they allow (a push into a slice `d` plies deep stores at most `d + 1` plies).
    fn start_part(&mut self, watching: WorkCodes, pushes_depth: u32, part: &[usize]) {
        for &chunk in part {
            self.started[chunk] = true;
        }
        self.codes = watching;
        if self.codes.watch_keys > 0 && pushes_depth + 1 > self.codes.max_plies() {
            self.stop_watching_part(part);
        }
    }

    /// The init pass of `part`, made again without the watch codes where a sliced part's exits
    /// lie deeper than they allow, and the en-passant positions' first values. Returns the
    /// legal slots by side to move. Each part's counts start again: it is solved from depth 0
    /// as a table of its own.
    fn init_part(
        &mut self,
        part: &[usize],
        chunk_end: &[u64],
        progress: Option<&dyn Observer>,
    ) -> Result<[u64; 2], Declined> {
        loop {
            let legal = self.init_pass(part, chunk_end, progress);
            if self.sliced && self.codes.watch_keys > 0 && self.too_deep.load(Ordering::Relaxed) {
                self.too_deep.store(false, Ordering::Relaxed);
                self.stop_watching_part(part);
                continue;
            }
            self.check()?;
            self.init_ep();
            self.check()?;
            return Ok(legal);
        }
    }

    /// After the init pass: takes the watch codes `watching` up where the init pass was made
    /// without them ([`Core::start_watching`]), or gives them up now if the exits may force a
    /// loss deeper than they allow — a forward check may store such a loss whatever its pass —
    /// rather than find it too deep in a later pass and build the table again.
    fn watch_after_init(&mut self, watching: Option<WorkCodes>, part: &[usize]) {
        if let Some(watching) = watching {
            self.start_watching(watching);
        } else if self.codes.watch_keys > 0
            && self.exit_loss.load(Ordering::Relaxed) > self.codes.max_plies()
        {
            self.stop_watching_here(part);
        }
    }

    /// The passes of `part`, depth by depth, until one finds nothing and no stored value lies
    /// deeper. Returns the last depth passed and the longest mate found, in plies: each decided
    /// slot is met by the pass of its depth (a value is stored at least a ply deeper than the
    /// pass that stores it, and is final once its pass comes), so the longest mate is the last
    /// depth whose pass met a slot.
    fn iterate(
        &mut self,
        part: &[usize],
        chunk_end: &[u64],
        legal: [u64; 2],
        open: &[Vec<AtomicBool>; 2],
        snapshots: &mut Snapshots,
        progress: Option<&dyn Observer>,
    ) -> Result<(u32, u32), Declined> {
        // By side to move, the slots met by the passes so far: each slot's value is final when
        // the pass of its depth meets it, so the others are undecided or decided deeper.
        let mut met = [0u64; 2];
        let mut max_plies = 0;
        let mut depth: u32 = 0;
        loop {
            // The pass of depth `d` stores values of at most `d + 1` plies: when those no longer
            // fit beside the watch codes, the watch codes are given up, in place; when they no
            // longer fit at all, the shallow depths are folded away ([`rebase`]).
            if depth + 1 > self.codes.rebase_limit() && self.codes.watch_keys > 0 {
                self.stop_watching_here(part);
            }
            if depth + 1 > self.codes.rebase_limit() {
                // The slices solved later read the codes of those solved before: a rebase would
                // fold depths they still need.
                if self.sliced {
                    return Err(Declined::TooDeep);
                }
                self.rebase(depth, snapshots)?;
            }
            let code = self.codes.decided(depth);
            let found = self.pass(depth, part, chunk_end, legal, &mut met, open, progress);
            if let Some(observer) = progress {
                observer.depth_passed(depth, found);
            }
            if found > 0 {
                max_plies = max_plies.max(depth);
            }
            if depth % 2 == 1 {
                self.check_candidates(depth, part, chunk_end);
            }
            self.check()?;
            if found == 0 && u32::from(code) >= self.deepest.load(Ordering::Relaxed) {
                return Ok((depth, max_plies));
            }
            depth += 1;
            if depth > self.codes.max_plies() {
                return Err(Declined::TooDeep);
            }
        }
    }

    /// The pass of `depth` over `part`, one side to move at a time (its table is scanned while
    /// only the other side's is written): wins from the losses of an even depth, pushed or
    /// pulled, losses from the wins of an odd one. Counts the slots met in `met`, and returns
    /// the slots and en-passant positions met.
    #[allow(clippy::too_many_arguments)]
    fn pass(
        &self,
        depth: u32,
        part: &[usize],
        chunk_end: &[u64],
        legal: [u64; 2],
        met: &mut [u64; 2],
        open: &[Vec<AtomicBool>; 2],
        progress: Option<&dyn Observer>,
    ) -> u64 {
        let code = self.codes.decided(depth);
        // Even depths: each side's losses in `depth`, counted first, so that a side whose
        // parents not yet won are fewer than them has its wins pulled from those parents
        // rather than pushed from the losses.
        let losses = (depth % 2 == 0 && (depth as usize) < LOSS_DEPTHS)
            .then(|| self.losses_of_depth(depth, code));
        // By side, the slots met by the passes before this depth: the second side's choice
        // must not count the first side's losses of this pass as met.
        let met_before = *met;
        let mut found = 0;
        for x in 0..2 {
            if let Some(losses) = losses {
                let y = 1 - x;
                let open_slots = legal[y].saturating_sub(met_before[y] + losses[y][0]);
                let [slots, positions] = losses[x];
                if open_slots * 2 < slots + positions {
                    if !self.mirrored_half(x) {
                        self.pull_wins(y, depth + 1, &open[y], part, chunk_end);
                    }
                    if let Some(observer) = progress {
                        observer.progressed(slots + positions);
                    }
                    found += slots + positions;
                    met[x] += slots;
                    continue;
                }
            }
            let (slots_found, side_found) = self.push_from(x, depth, part, chunk_end);
            if let Some(observer) = progress {
                observer.progressed(side_found);
            }
            found += side_found;
            met[x] += slots_found;
        }
        if self.mirrored {
            self.mirror_stores(depth, part);
        }
        found
    }

    /// By side to move, the losses in `depth` (code `code`): the slots, counted as they were
    /// stored, and the en-passant positions, counted here.
    fn losses_of_depth(&self, depth: u32, code: u8) -> [[u64; 2]; 2] {
        std::array::from_fn(|x| {
            let ep = self.ep.as_ref().map_or(0, |ep| {
                for_each_chunk_of_code(&ep.cells[x], &ep.presence[x], None, code, |first, end| {
                    let mut count = 0;
                    ep.cells[x].for_each_equal(first, end, code, |_| count += 1);
                    count
                })
            });
            [self.losses.get(x, depth), ep]
        })
    }

    /// Side `x`'s slots and en-passant positions of `depth` in `part`, each un-moved to its
    /// parents: marked won (even depths) or, for the odd ones, made candidates, counted down,
    /// or their runs marked ([`LossSearch`]), the losses without ways out then found. Returns
    /// the slots met and, with them, the en-passant positions met.
    fn push_from(&self, x: usize, depth: u32, part: &[usize], chunk_end: &[u64]) -> (u64, u64) {
        let code = self.codes.decided(depth);
        let mirrored_half = self.mirrored_half(x);
        let visit = |node: Node| {
            if mirrored_half {
                // Its parents are the mirror step's; its wins leave the ways out all the same.
                if let (1, Node::Run { start, mask }) = (depth % 2, node) {
                    self.not_won[x].remove_run(start, mask);
                }
            } else if depth % 2 == 0 {
                self.mark_wins(node, x, depth + 1);
            } else {
                self.mark_candidates(node, x, depth);
            }
        };
        let slots_found = if self.search.by_runs() {
            for_each_run_of_code(
                &self.cells[x],
                &self.presence[x],
                Some(part),
                code,
                self.shared.layout.square_count(),
                |start, mask| {
                    // The values of this depth are final when its pass meets them.
                    self.settle_run(x, start, mask);
                    visit(Node::Run { start, mask })
                },
            )
        } else {
            for_each_of_code(
                &self.cells[x],
                &self.presence[x],
                Some(part),
                code,
                |slot| visit(Node::Slot(slot)),
            )
        };
        if depth % 2 == 1 && self.search == LossSearch::WaysOut && !mirrored_half {
            self.lose_without_ways_out(x, depth, part, chunk_end);
        }
        let mut side_found = slots_found;
        if let Some(ep) = &self.ep {
            side_found += for_each_of_code(&ep.cells[x], &ep.presence[x], None, code, |number| {
                visit(Node::Ep(number))
            });
        }
        (slots_found, side_found)
    }

    /// After the odd pass of `depth`: the candidates, each once, in slot order, checked
    /// forward ([`Core::find_loss`]); each chunk's are written by its task alone, and their
    /// moves read the other side's table, which no task writes.
    fn check_candidates(&self, depth: u32, part: &[usize], chunk_end: &[u64]) {
        let (word, bit) = (usize::from(CANDIDATE >> 6), 1u64 << (CANDIDATE & 63));
        for y in 0..2 {
            let tasks: Vec<usize> = part
                .iter()
                .copied()
                .filter(|&c| self.presence[y][c][word].load(Ordering::Relaxed) & bit != 0)
                .collect();
            tasks.par_iter().for_each(|&chunk| {
                self.presence[y][chunk][word].fetch_and(!bit, Ordering::Relaxed);
                let first = chunk as u64 * CHUNK;
                let end = chunk_end[chunk];
                // The losses found, counted by depth (most of them in `depth + 1`).
                let usual = self.codes.decided(depth + 1);
                let mut lost = 0;
                self.cells[y].for_each_equal(first, end, CANDIDATE, |slot| {
                    match self.find_loss(slot, y, depth) {
                        Some(code) if code == usual => lost += 1,
                        Some(code) => self.count_losses(y, code, 1),
                        None => {}
                    }
                });
                self.count_losses(y, usual, lost);
            });
        }
    }
}
