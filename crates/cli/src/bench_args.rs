//! `retro bench`'s arguments and how they become the suites' options: which peer generator
//! runs beside `retro gen`, which tables a suite reads, the six suite's materials and board.
//!
//! Owns: [`BenchArgs`] and [`run`]. Must never: time anything itself (that is `bench.rs` and
//! `bench_six.rs`).

use crate::{bench, bench_six};
use anyhow::Result;
use retro_rules::Board;
use std::path::PathBuf;
use std::process::ExitCode;

/// The arguments of `retro bench`.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Suites to run (default: small and krbkr).
    #[arg(long = "suite", value_enum)]
    pub suites: Vec<bench::Suite>,
    /// Runs per suite (the five-man suite always runs once).
    #[arg(long, default_value = "3", value_parser = clap::value_parser!(u32).range(1..=50))]
    pub runs: u32,
    /// Time building only, not verifying the tables built.
    #[arg(long)]
    pub no_verify: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Time the Syzygy generator beside `retro gen`: the path of its `rtbgen` binary
    /// (github.com/syzygy1/tb, `make rtbgen` in src/). Pawnless suites only (small, krbkr,
    /// five): `rtbgen -g` on the same tables, a fresh process each, the smaller tables it
    /// needs built and saved first.
    #[arg(long, value_name = "RTBGEN")]
    pub syzygy: Option<PathBuf>,
    /// Time Syzygy's generator for tables with pawns beside `retro gen` in the pawn suites
    /// (krpkr, kqpkq, kppkp): the path of its `rtbgenp` binary (`make rtbgenp` in src/),
    /// run as `rtbgenp -g` on the suite's table. Needs --syzygy-tables.
    #[arg(long, value_name = "RTBGENP", requires = "syzygy_tables")]
    pub syzygy_pawns: Option<PathBuf>,
    /// The directory of the Syzygy tables the peer reads (its RTBPATH). Pawn suites: at
    /// least the WDL files of every table the pawn table's captures and promotions reach,
    /// built beforehand (`rtbgen -w` and `rtbgenp -w`; hours for KPPvKP). The six suite:
    /// the WDL tables a six-man table reaches, built there by `rtbgen -w` (outside the
    /// clock) where missing. The wdl suite: the Syzygy WDL files probed beside ours.
    #[arg(long, value_name = "DIR")]
    pub syzygy_tables: Option<PathBuf>,
    /// The six suite: a six-man pawnless table to build (repeat for more; default
    /// KRNvKNN, KRBvKRN and KQRvKQR).
    #[arg(long, value_name = "MATERIAL")]
    pub six: Vec<String>,
    /// The six suite: the board (the other suites are on 8x8).
    #[arg(long, default_value = "8x8")]
    pub board: Board,
    /// The pawn suites: take the smaller tables from this directory (linked, not copied;
    /// checked as `retro gen` checks the files it keeps) instead of building them; any
    /// missing are built. The pack suite: pack the raw tables of this directory (into a
    /// scratch directory; the files here are only read). The batch suite: probe the
    /// largest tables of this directory. The wdl suite: the WDL50 tables probed.
    #[arg(long, value_name = "DIR")]
    pub tables: Option<PathBuf>,
    /// The pack, batch and wdl suites: random positions probed.
    #[arg(long, default_value = "100000", value_parser = clap::value_parser!(u32).range(100..=10_000_000))]
    pub probes: u32,
    /// The small, krbkr, five and pawn suites: which tables `retro gen` builds and times,
    /// `dtm` or `fifty` (DTZ50 and WDL50, the work `rtbgen -g` does), or both.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "dtm")]
    pub kinds: Vec<crate::MetricArg>,
    /// The pack suite: the coders to pack with and probe, one after the other in one run
    /// (`pairs`, `zstd`, or both).
    #[arg(long, value_enum, value_delimiter = ',', default_value = "pairs")]
    pub coders: Vec<crate::pack::CoderArg>,
}

/// `retro bench`: checks the flags that go together, then runs the suites.
pub fn run(args: BenchArgs) -> Result<ExitCode> {
    let BenchArgs {
        suites,
        runs,
        no_verify,
        json,
        syzygy,
        syzygy_pawns,
        syzygy_tables,
        tables,
        probes,
        six,
        board,
        kinds,
        coders,
    } = args;
    // `retro gen`, run by the bench, uses one thread per core; so does the peer.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let six_suite = suites.contains(&bench::Suite::Six);
    let wdl_suite = suites.contains(&bench::Suite::Wdl);
    if syzygy_pawns.is_some() != (syzygy_tables.is_some() && !six_suite && !wdl_suite) {
        anyhow::bail!("--syzygy-pawns and --syzygy-tables go together (the six suite takes --syzygy with --syzygy-tables, the wdl suite --syzygy-tables alone)");
    }
    if board != Board::STANDARD && !six_suite {
        anyhow::bail!("--board applies to the six suite only");
    }
    let six_peer = match (six_suite, &syzygy, &syzygy_tables) {
        (true, Some(rtbgen), Some(tables)) => Some(bench_six::SixPeer {
            rtbgen: rtbgen.clone(),
            tables: tables.clone(),
            threads,
        }),
        (true, Some(_), None) => {
            anyhow::bail!(
                "the six suite's --syzygy needs --syzygy-tables DIR, where its WDL tables are kept"
            )
        }
        _ => None,
    };
    let materials: Vec<retro_engine::Material> = match six.is_empty() {
        true => bench_six::DEFAULT_SIX
            .iter()
            .map(|s| s.to_string())
            .collect(),
        false => six,
    }
    .iter()
    .map(|n| retro_engine::Material::parse(n).map_err(|e| anyhow::anyhow!(e)))
    .collect::<Result<_>>()?;
    let six = bench_six::SixOptions {
        materials,
        board,
        peer: six_peer,
    };
    let peer = syzygy.map(|rtbgen| bench::Peer { rtbgen, threads });
    let wdl_syzygy = syzygy_tables.clone().filter(|_| wdl_suite);
    let pawn_peer = syzygy_pawns
        .zip(syzygy_tables.filter(|_| !six_suite && !wdl_suite))
        .map(|(rtbgenp, tables)| bench::PawnPeer {
            rtbgenp,
            tables,
            threads,
        });
    bench::bench(
        &suites,
        runs,
        !no_verify,
        json,
        peer.as_ref(),
        pawn_peer.as_ref(),
        tables.as_deref(),
        wdl_syzygy.as_deref(),
        probes as usize,
        &six,
        &kinds,
        &coders,
    )
}
