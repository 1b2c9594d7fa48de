//! The MPI job: its start, its ranks as [`retro_gen::Ranks`], its abort.
//!
//! Owns: every call into MPI. Must never: be used from more than one thread (MPI is started
//! with `MPI_THREAD_FUNNELED`: the thread that starts the job makes every call).

use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::{Communicator, SimpleCommunicator};
use mpi::traits::*;
use mpi::Count;
use retro_gen::Ranks;

/// A started MPI job; dropping it ends MPI in this process.
pub struct Job {
    _universe: mpi::environment::Universe,
    ranks: MpiRanks,
}

impl Job {
    /// Starts MPI in this process; `None` if it was started already or cannot start.
    pub fn start() -> Option<Job> {
        let (universe, _) = mpi::initialize_with_threading(mpi::Threading::Funneled)?;
        let world = universe.world();
        Some(Job {
            _universe: universe,
            ranks: MpiRanks { world },
        })
    }

    /// The job's ranks (`MPI_COMM_WORLD`).
    pub fn ranks(&self) -> &MpiRanks {
        &self.ranks
    }
}

/// The ranks of `MPI_COMM_WORLD`.
pub struct MpiRanks {
    world: SimpleCommunicator,
}

/// The most words one rank sends another in one round of an exchange: counts and offsets are
/// C `int`s in MPI.
const ROUND_WORDS: usize = 1 << 26;

impl MpiRanks {
    /// How many ranks of the job run on this machine (they share its memory).
    pub fn ranks_on_this_machine(&self) -> usize {
        self.world.split_shared(0).size() as usize
    }

    fn reduce(&self, value: u64, op: SystemOperation) -> u64 {
        let mut out = 0u64;
        self.world.all_reduce_into(&value, &mut out, op);
        out
    }

    /// One round of an exchange: every list at most [`ROUND_WORDS`] long; what each rank sent.
    fn exchange_round(&self, outgoing: &[&[u64]]) -> Vec<Vec<u64>> {
        let n = outgoing.len();
        let send_counts: Vec<Count> = outgoing.iter().map(|w| w.len() as Count).collect();
        let mut recv_counts: Vec<Count> = vec![0; n];
        self.world
            .all_to_all_into(&send_counts[..], &mut recv_counts[..]);
        let send: Vec<u64> = outgoing.concat();
        let send_displs = displacements(&send_counts);
        let recv_displs = displacements(&recv_counts);
        let total: usize = recv_counts.iter().map(|&c| c as usize).sum();
        let mut received = vec![0u64; total];
        {
            let sent = Partition::new(&send[..], &send_counts[..], &send_displs[..]);
            let mut into = PartitionMut::new(&mut received[..], &recv_counts[..], &recv_displs[..]);
            self.world.all_to_all_varcount_into(&sent, &mut into);
        }
        recv_counts
            .iter()
            .zip(&recv_displs)
            .map(|(&c, &d)| received[d as usize..(d + c) as usize].to_vec())
            .collect()
    }
}

/// Where each of the lists `counts` long starts in their concatenation.
fn displacements(counts: &[Count]) -> Vec<Count> {
    counts
        .iter()
        .scan(0, |at, &c| {
            let start = *at;
            *at += c;
            Some(start)
        })
        .collect()
}

impl Ranks for MpiRanks {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn count(&self) -> usize {
        self.world.size() as usize
    }

    fn exchange(&self, outgoing: Vec<Vec<u64>>) -> Vec<Vec<u64>> {
        // Rounds of at most ROUND_WORDS words a pair of ranks, as many as the longest list
        // anywhere needs; the words keep their order.
        let longest = outgoing.iter().map(Vec::len).max().unwrap_or(0) as u64;
        let rounds = self.max(longest.div_ceil(ROUND_WORDS as u64)) as usize;
        let mut received = vec![Vec::new(); self.count()];
        for round in 0..rounds {
            let pieces: Vec<&[u64]> = outgoing
                .iter()
                .map(|words| {
                    let begin = (round * ROUND_WORDS).min(words.len());
                    let end = ((round + 1) * ROUND_WORDS).min(words.len());
                    &words[begin..end]
                })
                .collect();
            for (from, words) in received.iter_mut().zip(self.exchange_round(&pieces)) {
                from.extend(words);
            }
        }
        received
    }

    fn sum(&self, value: u64) -> u64 {
        self.reduce(value, SystemOperation::sum())
    }

    fn max(&self, value: u64) -> u64 {
        self.reduce(value, SystemOperation::max())
    }

    fn broadcast(&self, words: Vec<u64>) -> Vec<u64> {
        let root = self.world.process_at_rank(0);
        let mut length = words.len() as u64;
        root.broadcast_into(&mut length);
        let mut out = match self.world.rank() {
            0 => words,
            _ => vec![0u64; length as usize],
        };
        root.broadcast_into(&mut out[..]);
        out
    }

    fn gather(&self, bytes: Vec<u8>) -> Vec<Vec<u8>> {
        // Every rank sends at least one byte (a leading zero, taken off at rank 0): Open MPI
        // refuses the empty buffers of ranks with nothing to say.
        let mut bytes = bytes;
        bytes.insert(0, 0);
        let root = self.world.process_at_rank(0);
        let length = bytes.len() as Count;
        if self.world.rank() != 0 {
            root.gather_into(&length);
            root.gather_varcount_into(&bytes[..]);
            return Vec::new();
        }
        let n = self.count();
        let mut lengths: Vec<Count> = vec![0; n];
        root.gather_into_root(&length, &mut lengths[..]);
        let displs = displacements(&lengths);
        let total: usize = lengths.iter().map(|&c| c as usize).sum();
        let mut all = vec![0u8; total];
        {
            let mut into = PartitionMut::new(&mut all[..], &lengths[..], &displs[..]);
            root.gather_varcount_into_root(&bytes[..], &mut into);
        }
        lengths
            .iter()
            .zip(&displs)
            .map(|(&c, &d)| all[d as usize + 1..(d + c) as usize].to_vec())
            .collect()
    }
}
