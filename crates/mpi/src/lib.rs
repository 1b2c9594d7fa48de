//! # retro-mpi — partitioned builds and checks over MPI
//!
//! Owns: `MpiRanks`, the [`retro_gen::Ranks`] of an MPI job (rsmpi over the system's MPI
//! library, Open MPI on Debian), and the job's start and abort.
//! Must never: decide anything about tables; it carries words and bytes between ranks.
//!
//! Everything but [`AVAILABLE`] is behind the `mpi` feature, off by default, so that the
//! default build needs no MPI library: `cargo build --release --features mpi` builds a `retro`
//! whose `gen` and `verify` take `--distributed` under `mpirun`.

/// Whether this build has MPI (the `mpi` feature).
pub const AVAILABLE: bool = cfg!(feature = "mpi");

#[cfg(feature = "mpi")]
mod job;
#[cfg(feature = "mpi")]
pub use job::{Job, MpiRanks};
