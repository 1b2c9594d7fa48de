//! The wide layout's depth phase: lists of decided entries by depth, a move counter per entry.
//!
//! Owns: the depth phase in the wide layout (`Analysis::depths`): each depth's entries
//! un-moved to their parents, a parent won in `d + 1` by a move into a loss in `d`, and lost
//! when its counter of moves not yet won reaches zero (checked forward for the longest win it
//! faces).
//! Must never: run on narrow codes (the `narrow` module has its own phases).

use super::*;

impl Analysis<'_> {
    /// The wide layout's codes (only its own phases call this).
    pub(super) fn wide(&self) -> &[Vec<AtomicU16>; 2] {
        match &self.codes {
            Codes::Wide(c) => c,
            Codes::Narrow(_) => unreachable!("a wide phase on a narrow analysis"),
        }
    }

    pub(super) fn depths(&mut self, observer: &dyn Observer) -> Result<(), FreezeError> {
        let size = self.space.entries();
        let mut buckets: Vec<Vec<u64>> = Vec::new();
        let seeds: Vec<(u16, u64)> = (0..2usize)
            .flat_map(|x| {
                let codes = &self.wide()[x];
                (0..size)
                    .into_par_iter()
                    .filter_map(move |i| {
                        let c = codes[i as usize].load(Ordering::Relaxed);
                        (c != UNDECIDED && c < STALEMATE).then_some((c, i << 1 | x as u64))
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        let decided: u64 = 2 * size;
        observer.phase(self.subject(), Phase::Retrograde, decided);
        let place = |buckets: &mut Vec<Vec<u64>>, plies: u32, entry: u64| {
            let d = plies as usize;
            if buckets.len() <= d {
                buckets.resize_with(d + 1, Vec::new);
            }
            buckets[d].push(entry);
        };
        for (code, entry) in seeds {
            place(&mut buckets, u32::from(code) - 1, entry);
        }
        let failure: Mutex<Option<FreezeError>> = Mutex::new(None);
        let mut d = 0usize;
        while d < buckets.len() {
            let bucket = std::mem::take(&mut buckets[d]);
            let code = (d + 1) as u16;
            let found: Vec<(u32, u64)> = bucket
                .par_iter()
                .filter(|&&e| self.code(e) == code)
                .flat_map_iter(|&entry| {
                    let mut out = Vec::new();
                    self.for_each_parent(entry, |parent, _| {
                        let (y, p) = ((parent & 1) as usize, (parent >> 1) as usize);
                        if d % 2 == 0 {
                            // A loss in d: the parent wins in d + 1 unless it wins sooner.
                            let win = code + 1;
                            let cell = &self.wide()[y][p];
                            let mut cur = cell.load(Ordering::Relaxed);
                            loop {
                                let better = cur == UNDECIDED || (cur < STALEMATE && cur > win);
                                if !better {
                                    break;
                                }
                                match cell.compare_exchange_weak(
                                    cur,
                                    win,
                                    Ordering::Relaxed,
                                    Ordering::Relaxed,
                                ) {
                                    Ok(_) => {
                                        out.push((d as u32 + 1, parent));
                                        break;
                                    }
                                    Err(now) => cur = now,
                                }
                            }
                        } else if self.wide()[y][p].load(Ordering::Relaxed) == UNDECIDED {
                            // A win in d: one more move of the parent reaches a win.
                            let left = self.counts[y][p].fetch_sub(1, Ordering::Relaxed) - 1;
                            // Any flag keeps it from a loss with a depth: a draw or a win by
                            // rule of the opponent, or a loss by rule of the opponent (a win).
                            if left == 0 && self.flags[y][p] == 0 {
                                match self.longest_win(parent) {
                                    Ok(longest) if longest < MAX_PLIES => {
                                        self.wide()[y][p]
                                            .store((longest + 2) as u16, Ordering::Relaxed);
                                        out.push((longest + 1, parent));
                                    }
                                    Ok(_) => {
                                        failure
                                            .lock()
                                            .expect("no panics")
                                            .get_or_insert(FreezeError::TooDeep(MAX_PLIES));
                                    }
                                    Err(e) => {
                                        failure.lock().expect("no panics").get_or_insert(e);
                                    }
                                }
                            }
                        }
                    });
                    out
                })
                .collect();
            if let Some(e) = failure.lock().expect("no panics").take() {
                return Err(e);
            }
            observer.progressed(bucket.len() as u64);
            for (plies, entry) in found {
                place(&mut buckets, plies, entry);
            }
            d += 1;
        }
        self.depths = d as u32;
        Ok(())
    }
}
