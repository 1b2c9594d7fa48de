//! Ranks: the processes a partitioned build runs on, and the few collective steps they take
//! together.
//!
//! Owns: the [`Ranks`] trait a transport implements (MPI in `retro-mpi`), [`OneRank`] (a build
//! in one process) and [`ThreadRanks`] (ranks as threads of one process, so that a partition
//! is tested without MPI), and [`Traffic`], what a build sent between ranks.
//! Must never: know what the words it carries mean (the reference core routes them), or
//! decide anything on its own: every rank calls every step, in the same order.

use crate::GenError;
use retro_engine::Material;
use std::sync::{Arc, Barrier, Mutex};

/// A group of processes building one table together, each holding a contiguous part of its
/// index ([`Partition`]). Every method is collective: every rank of the group calls it, in
/// the same order, and it returns once all have.
pub trait Ranks {
    /// This process's rank, `0..count()`.
    fn rank(&self) -> usize;
    /// How many ranks the group has.
    fn count(&self) -> usize;
    /// Sends `outgoing[r]` to rank `r` (`outgoing` has `count()` lists; this rank's own is
    /// empty) and returns what each rank sent this one (`count()` lists, this rank's empty).
    fn exchange(&self, outgoing: Vec<Vec<u64>>) -> Vec<Vec<u64>>;
    /// The sum of `value` over the ranks.
    fn sum(&self, value: u64) -> u64;
    /// The largest `value` over the ranks.
    fn max(&self, value: u64) -> u64;
    /// Rank 0's `words`, on every rank (the others' are ignored).
    fn broadcast(&self, words: Vec<u64>) -> Vec<u64>;
    /// Every rank's `bytes`, in rank order, on rank 0; nothing on the others.
    fn gather(&self, bytes: Vec<u8>) -> Vec<Vec<u8>>;

    /// Whether `flag` holds on any rank.
    fn any(&self, flag: bool) -> bool {
        self.max(u64::from(flag)) != 0
    }
}

/// `result` where every rank of `ranks` succeeded; an error on every rank otherwise (a rank
/// that did not fail itself names the first of `materials`).
pub(crate) fn agree<T>(
    ranks: &dyn Ranks,
    result: Result<T, GenError>,
    materials: &[Material],
) -> Result<T, GenError> {
    match ranks.any(result.is_err()) {
        false => result,
        true => Err(result.err().unwrap_or_else(|| GenError::OtherRank {
            material: materials.first().map_or(String::new(), |m| m.to_string()),
        })),
    }
}

/// The one rank of a build in a single process: every step returns at once.
pub struct OneRank;

impl Ranks for OneRank {
    fn rank(&self) -> usize {
        0
    }
    fn count(&self) -> usize {
        1
    }
    fn exchange(&self, _outgoing: Vec<Vec<u64>>) -> Vec<Vec<u64>> {
        vec![Vec::new()]
    }
    fn sum(&self, value: u64) -> u64 {
        value
    }
    fn max(&self, value: u64) -> u64 {
        value
    }
    fn broadcast(&self, words: Vec<u64>) -> Vec<u64> {
        words
    }
    fn gather(&self, bytes: Vec<u8>) -> Vec<Vec<u8>> {
        vec![bytes]
    }
}

/// The contiguous parts of an index of `size` entries, one per rank: rank `r` holds
/// `size·r/n .. size·(r+1)/n`.
#[derive(Debug, Clone)]
pub struct Partition {
    bounds: Vec<u64>,
}

impl Partition {
    /// `size` entries over `ranks` ranks.
    pub fn new(size: u64, ranks: usize) -> Partition {
        let n = ranks.max(1) as u128;
        let bounds = (0..=n).map(|r| (u128::from(size) * r / n) as u64).collect();
        Partition { bounds }
    }

    /// The entries of `rank`.
    pub fn part(&self, rank: usize) -> std::ops::Range<u64> {
        self.bounds[rank]..self.bounds[rank + 1]
    }

    /// The rank holding entry `index`.
    pub fn owner(&self, index: u64) -> usize {
        // The last bound not above `index`; empty parts (more ranks than entries) are skipped.
        self.bounds.partition_point(|&b| b <= index) - 1
    }
}

/// What one rank's build of one table sent to and received from the others.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Traffic {
    /// The ranks of the build.
    pub ranks: usize,
    /// Exchanges: one per retrograde pass and side to move with parents to update.
    pub exchanges: u64,
    /// Parent updates this rank made from what it holds: backward, from its own frontier;
    /// forward, from the children it holds (those from other ranks' words are in
    /// `bytes_received`).
    pub local_updates: u64,
    /// Bytes this rank sent to the others (8 a parent update).
    pub bytes_sent: u64,
    /// Bytes this rank received.
    pub bytes_received: u64,
    /// The most bytes this rank sent in one exchange.
    pub largest_exchange: u64,
    /// Seconds spent in the exchanges (waiting for the slowest rank included).
    pub exchange_seconds: f64,
    /// Index entries this rank held, per side to move.
    pub entries_held: u64,
}

/// A group of ranks as threads of one process: [`ThreadRanks::group`] makes one handle per
/// rank, each to be moved into its own thread.
pub struct ThreadRanks {
    rank: usize,
    shared: Arc<Shared>,
}

struct Shared {
    count: usize,
    barrier: Barrier,
    /// `mail[to][from]`.
    mail: Mutex<Vec<Vec<Vec<u64>>>>,
    values: Mutex<Vec<u64>>,
    bytes: Mutex<Vec<Vec<u8>>>,
}

impl ThreadRanks {
    /// The handles of a group of `count` ranks.
    pub fn group(count: usize) -> Vec<ThreadRanks> {
        let shared = Arc::new(Shared {
            count,
            barrier: Barrier::new(count),
            mail: Mutex::new(vec![vec![Vec::new(); count]; count]),
            values: Mutex::new(vec![0; count]),
            bytes: Mutex::new(vec![Vec::new(); count]),
        });
        (0..count)
            .map(|rank| ThreadRanks {
                rank,
                shared: Arc::clone(&shared),
            })
            .collect()
    }

    fn all_values(&self, value: u64) -> Vec<u64> {
        lock(&self.shared.values)[self.rank] = value;
        self.shared.barrier.wait();
        let values = lock(&self.shared.values).clone();
        self.shared.barrier.wait();
        values
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Ranks for ThreadRanks {
    fn rank(&self) -> usize {
        self.rank
    }

    fn count(&self) -> usize {
        self.shared.count
    }

    fn exchange(&self, outgoing: Vec<Vec<u64>>) -> Vec<Vec<u64>> {
        {
            let mut mail = lock(&self.shared.mail);
            for (to, words) in outgoing.into_iter().enumerate() {
                mail[to][self.rank] = words;
            }
        }
        self.shared.barrier.wait();
        let received = lock(&self.shared.mail)[self.rank]
            .iter_mut()
            .map(std::mem::take)
            .collect();
        self.shared.barrier.wait();
        received
    }

    fn sum(&self, value: u64) -> u64 {
        self.all_values(value).iter().sum()
    }

    fn max(&self, value: u64) -> u64 {
        self.all_values(value).into_iter().max().unwrap_or(0)
    }

    fn broadcast(&self, words: Vec<u64>) -> Vec<u64> {
        if self.rank == 0 {
            lock(&self.shared.mail)[0][0] = words;
        }
        self.shared.barrier.wait();
        let words = lock(&self.shared.mail)[0][0].clone();
        self.shared.barrier.wait();
        if self.rank == 0 {
            lock(&self.shared.mail)[0][0].clear();
        }
        self.shared.barrier.wait();
        words
    }

    fn gather(&self, bytes: Vec<u8>) -> Vec<Vec<u8>> {
        lock(&self.shared.bytes)[self.rank] = bytes;
        self.shared.barrier.wait();
        let gathered = match self.rank {
            0 => std::mem::take(&mut *lock(&self.shared.bytes)),
            _ => Vec::new(),
        };
        if self.rank == 0 {
            *lock(&self.shared.bytes) = vec![Vec::new(); self.shared.count];
        }
        self.shared.barrier.wait();
        gathered
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partition_covers_the_index_once() {
        for (size, ranks) in [(10, 3), (3, 5), (1 << 40, 7), (0, 2), (17, 1)] {
            let partition = Partition::new(size, ranks);
            let mut next = 0;
            for r in 0..ranks {
                let part = partition.part(r);
                assert_eq!(part.start, next);
                for i in part.clone().take(3).chain(part.clone().rev().take(3)) {
                    assert_eq!(partition.owner(i), r, "{i} of {size} over {ranks}");
                }
                next = part.end;
            }
            assert_eq!(next, size);
        }
    }

    #[test]
    fn thread_ranks_exchange_and_reduce() {
        let handles: Vec<_> = ThreadRanks::group(3)
            .into_iter()
            .map(|ranks| {
                std::thread::spawn(move || {
                    let me = ranks.rank() as u64;
                    let outgoing = (0..3u64)
                        .map(|to| match to == me {
                            true => Vec::new(),
                            false => vec![10 * me + to],
                        })
                        .collect();
                    let received = ranks.exchange(outgoing);
                    let sum = ranks.sum(me + 1);
                    let max = ranks.max(me);
                    let words = ranks.broadcast(vec![me + 100]);
                    let gathered = ranks.gather(vec![me as u8; me as usize]);
                    (me, received, sum, max, words, gathered)
                })
            })
            .collect();
        for handle in handles {
            let (me, received, sum, max, words, gathered) = handle.join().expect("no panic");
            let expected: Vec<Vec<u64>> = (0..3)
                .map(|f| match f == me {
                    true => Vec::new(),
                    false => vec![10 * f + me],
                })
                .collect();
            assert_eq!(received, expected);
            assert_eq!((sum, max, words), (6, 2, vec![100]));
            match me {
                0 => assert_eq!(gathered, vec![vec![], vec![1], vec![2, 2]]),
                _ => assert!(gathered.is_empty()),
            }
        }
    }
}
