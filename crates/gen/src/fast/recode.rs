//! Changes of encoding in place: giving the watch codes up or taking them up, and rebasing.
//!
//! Owns: every rewrite of the whole work table (or a part of a sliced one) from one
//! [`WorkCodes`] to another, through one map of codes (`Core::remap`).
//! Must never: change a slot's value; only its code.
//!
//! Watching costs a code per square, taken from the depths a byte can hold. A table deeper
//! than what is left gives the watch codes up when it reaches that depth
//! (`Core::stop_watching_here`), or after its init pass if its exits may force a loss deeper
//! than that; a whole table whose exits may lie deeper makes its init pass without them and
//! takes them up after it where its values, and the losses its exits may force, fit
//! (`Core::start_watching`). Deeper than a byte holds without them (251 plies), the shallow
//! depths are folded into two codes, their exact values kept in a snapshot on disk
//! (`Core::rebase`, [`super::rebase`]; KPPvKP, 254 plies, rebases once). A table whose exits
//! alone reach beyond a byte is left to the reference core.

use super::*;

impl<const N: usize> Core<'_, N> {
    /// Gives up the watch codes where the table is being solved: in the part `part` of a sliced
    /// table ([`Core::stop_watching_part`]), else everywhere. Returns the new codes.
    pub(super) fn stop_watching_here(&mut self, part: &[usize]) -> WorkCodes {
        match self.sliced {
            true => self.stop_watching_part(part),
            false => self.stop_watching(None),
        }
    }

    /// Sliced: gives up the watch codes for the part being solved (`part`, its chunks), and for
    /// the whole table if the parts solved before still hold them ([`Core::stop_watching`]).
    /// Returns the new codes.
    pub(super) fn stop_watching_part(&mut self, part: &[usize]) -> WorkCodes {
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
    pub(super) fn stop_watching(&mut self, part: Option<&[usize]>) -> WorkCodes {
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
    pub(super) fn start_watching(&mut self, watching: WorkCodes) -> WorkCodes {
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
    pub(super) fn rebase(
        &mut self,
        depth: u32,
        snapshots: &mut Snapshots,
    ) -> Result<WorkCodes, Declined> {
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
                low,
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
    pub(super) fn remap(&mut self, map: &[u8; 256], part: Option<&[usize]>) {
        debug_assert_eq!(
            map[usize::from(NONE)],
            NONE,
            "undecided slots stay undecided"
        );
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
                    all = (0..presence.len())
                        .filter(|&c| !self.sliced || self.started[c])
                        .collect();
                    &all
                }
            };
            // The chunks of a sliced table's parts not yet started are left unread (all
            // undecided, which every map keeps); the pages of a table kept in scratch files are
            // handed back a batch of chunks at a time, so that remapping the parts solved so
            // far holds no more of them in memory than a part does.
            let batch = if cells.is_in_file() { 1024 } else { usize::MAX };
            chunks.par_chunks(batch).for_each(|batch| {
                for &chunk in batch {
                    remap_chunk(cells, &presence[chunk], map, chunk, size);
                }
                if let (Some(&low), Some(&high)) = (batch.iter().min(), batch.iter().max()) {
                    cells.page_out(low as u64 * CHUNK, ((high as u64 + 1) * CHUNK).min(size));
                }
            });
        }
        let deepest = self.deepest.load(Ordering::Relaxed);
        self.deepest
            .store(u32::from(map[deepest.min(255) as usize]), Ordering::Relaxed);
    }
}

/// Replaces every code `c` of chunk `chunk` of `cells` (of `size` slots) by `map[c]` and makes
/// its code set `sets` again.
fn remap_chunk(cells: &Cells, sets: &[AtomicU64; 4], map: &[u8; 256], chunk: usize, size: u64) {
    let first = chunk as u64 * CHUNK;
    let end = (first + CHUNK).min(size);
    let mut present = [0u64; 4];
    let mut word = 0u64;
    let mut codes = [0u8; CHUNK as usize];
    let codes = &mut codes[..(end - first) as usize];
    cells.copy_to(first, codes);
    let mut changed = false;
    for (k, &old) in codes.iter().enumerate() {
        let code = map[usize::from(old)];
        changed |= code != old;
        present[usize::from(code >> 6)] |= 1 << (code & 63);
        word |= u64::from(code) << (k % 8 * 8);
        if k % 8 == 7 || first + k as u64 + 1 == end {
            // Unchanged words are not written again (pages of no position stay
            // untouched, see `init`).
            if changed {
                cells.set_word((first / 8) as usize + k / 8, word);
            }
            word = 0;
            changed = false;
        }
    }
    for (set, bits) in sets.iter().zip(present) {
        set.store(bits, Ordering::Relaxed);
    }
}
