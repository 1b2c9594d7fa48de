//! # retro — the command-line front end
//!
//! A thin binary: argument parsing, progress bars and printing. Every subcommand's work lives in
//! the library crates; this file only wires them to the terminal.

mod batch;
mod bdd;
mod bench;
mod bench_args;
mod bench_pack;
mod bench_six;
mod bench_wdl;
mod distributed;
mod engine_checks;
mod export;
mod fifty;
mod freeze;
mod load_test;
mod manual;
mod oracle;
mod pack;
mod prove;
mod show;
mod strategy;
mod support;
mod syzygy;
mod tables;
mod verify;
mod verify_syzygy;

use anyhow::{bail, Context, Result};
use clap::{CommandFactory, Parser, Subcommand};
use retro_rules::Board;
use std::path::PathBuf;
use std::process::ExitCode;

/// Verified chess endgame databases: rules, retrograde analysis and checkers.
#[derive(Parser)]
#[command(name = "retro", version, about, propagate_version = true)]
struct Cli {
    /// Worker threads (default: one per core).
    #[arg(long, global = true, value_parser = clap::value_parser!(u16).range(1..))]
    threads: Option<u16>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Show a position: a board diagram, whether it is legal (and if not, why), its legal moves
    /// in SAN and UCI, and check, checkmate or stalemate.
    Show {
        /// The position in FEN (any board size up to 16x16; castling field '-').
        fen: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Count the legal move sequences of a given length (perft).
    Perft {
        /// The position in FEN.
        fen: String,
        /// The number of plies.
        depth: u32,
        /// Count with the natural model instead of the engine (slow).
        #[arg(long)]
        natural: bool,
        /// Print the count after each legal first move.
        #[arg(long)]
        divide: bool,
    },
    /// Build depth-to-mate tables by retrograde analysis, with every table their captures and
    /// promotions lead into (material of up to 6 men; a table whose build would take more
    /// memory than the machine has available, or than `--mem`, is refused before any work).
    Gen {
        /// Materials, e.g. KRvK KQvKR (or Hurd's KR_K).
        #[arg(required_unless_present = "up_to")]
        materials: Vec<String>,
        /// Every material of at most this many men (kings included), besides any named.
        #[arg(long, value_parser = clap::value_parser!(u8).range(2..=5))]
        up_to: Option<u8>,
        /// With `--up-to`: only the materials without pawns.
        #[arg(long, requires = "up_to")]
        pawnless: bool,
        /// The board, FxR.
        #[arg(long, default_value = "8x8")]
        board: Board,
        /// The tables directory (default: $RETRO_TABLES, else ./tables).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// The retrograde core: `fast` where it applies (boards of at most 64 squares), or
        /// `reference` everywhere (slower; it writes the same files).
        #[arg(long, value_enum, default_value = "fast")]
        core: CoreArg,
        /// No progress bars.
        #[arg(long)]
        quiet: bool,
        /// Leave every table of the run packed (`MATERIAL.FxR.rtbz`, as `retro pack` writes
        /// them): each built or kept raw table is packed and its raw file removed.
        #[arg(long)]
        pack: bool,
        /// The most memory a table's build may take (e.g. 20G); a run with a table that would
        /// need more is refused before it starts, with the figure it needs (default: the
        /// memory the machine has available).
        #[arg(long, value_parser = support::parse_size)]
        mem: Option<u64>,
        /// Which tables to build for each material, a comma-separated list: `dtm` (depth to
        /// mate, the fifty-move rule left out: `MATERIAL.FxR.rtb`) and `fifty` (under the
        /// fifty-move rule: the distance to zeroing, `MATERIAL.FxR.dtz50.rtb`, and the five
        /// classes, `MATERIAL.FxR.wdl50.rtb`, built from the smaller materials' DTZ50 tables).
        /// Default: both; `dtm` alone with `--distributed`, which builds no other kind.
        #[arg(long, value_enum, value_delimiter = ',')]
        kinds: Vec<MetricArg>,
        /// Run as one rank of an MPI job (`mpirun -np N retro gen … --distributed`, in a
        /// `retro` built with `--features mpi`): each table is partitioned over the ranks,
        /// each holding its part of the index; rank 0 writes the files (the same files one
        /// process writes) and prints, with what each rank exchanged. `--mem` is then each
        /// rank's; by default the memory available on its machine shared by its ranks there.
        #[arg(long)]
        distributed: bool,
    },
    /// Pack raw tables into compressed files (`MATERIAL.FxR.rtbz`) that every command reads
    /// as it reads raw ones: the same values, a probe decoding one small block. Each packed
    /// file is decoded back and compared with its raw table before it is kept.
    Pack(pack::PackArgs),
    /// The value of a position from the tables, and every legal move with the value it leads
    /// to, best first.
    Probe {
        /// The position in FEN (its board size selects the tables).
        #[arg(required_unless_present = "batch")]
        fen: Option<String>,
        /// Probe every FEN or EPD line of standard input instead, in parallel: one answer a
        /// line on standard output, in order (JSON objects, or TSV rows with --format tsv); a
        /// bad line gets an error answer and the rest go on (exit 1 if any line failed).
        #[arg(long, conflicts_with_all = ["fen", "json", "line", "pgn"])]
        batch: bool,
        /// With --batch: json (one object a line) or tsv (a header row, then a row a line).
        #[arg(long, value_enum, default_value = "json")]
        format: batch::BatchFormat,
        /// The tables directory (default: $RETRO_TABLES, else ./tables).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Print JSON in the shape of the Lichess tablebase API.
        #[arg(long)]
        json: bool,
        /// Also print the best line: fastest mate against the longest defence.
        #[arg(long)]
        line: bool,
        /// Print the best line as PGN.
        #[arg(long)]
        pgn: bool,
    },
    /// The Endgame Freezer: solve a problem file (a position, the squares each man may use,
    /// and rules valuing every way out) by retrograde analysis over that restricted index.
    Freeze(freeze::FreezeArgs),
    /// Serve the tables in a browser and as a JSON API (the Lichess tablebase shape): the
    /// position page at /, /api/probe, /api/line, /api/stats/MATERIAL, /api/strategy/krk.
    Serve {
        /// The tables directory (default: $RETRO_TABLES, else ./tables).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// The address to listen on.
        #[arg(long, default_value = "127.0.0.1:8080")]
        addr: std::net::SocketAddr,
        /// Instead of serving: a bounded load test on a free loopback port (the 3- and 4-man
        /// tables it probes are built in DIR if missing), then report and stop.
        #[arg(long)]
        load_test: bool,
        /// Load test: concurrent clients.
        #[arg(long, default_value = "16", value_parser = clap::value_parser!(u16).range(1..=1024))]
        clients: u16,
        /// Load test: seconds.
        #[arg(long, default_value = "10")]
        seconds: u64,
        /// The cache of decoded blocks of packed tables, in MiB per board served.
        #[arg(long, default_value = "64")]
        cache_mib: u64,
        /// Requests under way at once; more are answered 503 (Retry-After: 1).
        #[arg(long, default_value = "256", value_parser = clap::value_parser!(u32).range(1..=65536))]
        in_flight: u32,
        /// Requests under way at once from one address; more are answered 429.
        #[arg(long, default_value = "32", value_parser = clap::value_parser!(u32).range(1..=65536))]
        per_client: u32,
    },
    /// Oracles: proof certificates that a position is won or not lost, built, checked from the
    /// natural model alone, and played.
    Oracle {
        #[command(subcommand)]
        command: OracleCommand,
    },
    /// Statistics of tables: positions won, drawn and lost, the longest wins, positions by
    /// depth — as placements (raw) and up to symmetry (unique).
    Stats {
        /// Materials (default: every table in the directory).
        materials: Vec<String>,
        /// The board, FxR.
        #[arg(long, default_value = "8x8")]
        board: Board,
        /// The tables directory (default: $RETRO_TABLES, else ./tables).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: tables::StatsFormat,
        /// The Syzygy generator's statistics file of the one material named (`rtbgen -s` or
        /// `rtbgenp -s` writes MATERIAL.txt): fail unless the win/draw/loss counts of both
        /// sides to move, positions up to symmetry, equal its (cursed wins counted as wins,
        /// blessed losses as losses).
        #[arg(long, value_name = "FILE")]
        syzygy_stats: Option<PathBuf>,
        /// Which tables to count, a comma-separated list: `dtm` (wins, draws and losses, by
        /// depth to mate) and `fifty` (the five classes under the fifty-move rule, by distance
        /// to zeroing; with `--syzygy-stats`, both compared with the generator's); default:
        /// every kind the materials have tables of.
        #[arg(long, value_enum, value_delimiter = ',')]
        kinds: Vec<MetricArg>,
    },
    /// Build every 3- and 4-man pawnless table on 8x8, verify them against the natural model,
    /// and print Hurd's Table 1 beside the paper's values.
    Table1 {
        /// The tables directory (default: $RETRO_TABLES, else ./tables).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: tables::Table1Format,
        /// No progress bars.
        #[arg(long)]
        quiet: bool,
        /// Print the table without checking the tables against the natural model first.
        #[arg(long)]
        skip_verify: bool,
        /// Which engine computes the table: the explicit tables, or BDDs as Hurd built them.
        #[arg(long, value_enum, default_value = "explicit")]
        engine: EngineArg,
        #[command(flatten)]
        bdd: BddArgs,
    },
    /// The symbolic (BDD) engine: solve one category, or run Hurd's experiments.
    Bdd {
        #[command(subcommand)]
        command: BddCommand,
    },
    /// Check tables against the natural model of chess: every legal position's stored value
    /// must follow from its moves' values (and smaller tables, checked first). Writes a
    /// certificate beside each table that passes.
    Verify {
        /// Materials (default: every table in the directory).
        materials: Vec<String>,
        /// The board, FxR.
        #[arg(long, default_value = "8x8")]
        board: Board,
        /// The tables directory (default: $RETRO_TABLES, else ./tables).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// No progress bars.
        #[arg(long)]
        quiet: bool,
        /// Pass over tables an earlier check certified, whose files (and those of the tables
        /// they reach) have not changed since: a long check stopped part way goes on.
        #[arg(long)]
        resume: bool,
        /// Which tables to check, a comma-separated list: `dtm` and `fifty` (each DTZ50 table
        /// from the natural model, with its WDL50 classes); default: every kind the named
        /// materials (or the directory) have tables of.
        #[arg(long, value_enum, value_delimiter = ',')]
        kinds: Vec<MetricArg>,
        /// Run as one rank of an MPI job (`mpirun -np N retro verify … --distributed`, in a
        /// `retro` built with `--features mpi`): each rank checks its share of each table's
        /// king pairs; rank 0 adds the shares up, prints and writes the certificates.
        #[arg(long, conflicts_with = "resume")]
        distributed: bool,
        /// Check the Syzygy files (`.rtbw`, `.rtbz`) of this directory instead, from any
        /// source: every entry each material's files store (default: each material the
        /// directory has a WDL file of), decoded in index order, against this directory's
        /// certified DTZ50 and WDL50 tables, the class exactly and DTZ equal or one ply short
        /// (the format's rounding); an entry that differs, the positions with an en passant
        /// right and one position in 1,009 of both sides to move are asked of shakmaty-syzygy;
        /// exit 1 on any difference.
        #[arg(long, value_name = "DIR", conflicts_with_all = ["resume", "distributed", "kinds"])]
        syzygy: Option<PathBuf>,
        /// With `--syzygy`: ask shakmaty-syzygy for every legal position, both sides to move
        /// (the side a DTZ file leaves out by its one-ply search), instead of decoding the
        /// files; about 10⁵ positions a second.
        #[arg(long, requires = "syzygy")]
        every_position: bool,
    },
    /// Write Syzygy WDL and DTZ files (`.rtbw`, `.rtbz`, read by Fathom, Stockfish,
    /// python-chess and shakmaty-syzygy) from the proved WDL50 and DTZ50 tables, and read each
    /// back against its tables as `retro verify --syzygy` does: every stored entry, the class
    /// exactly, DTZ exactly for wins and losses (cursed wins and blessed losses in the
    /// format's moves, at most one ply short).
    Export {
        /// Materials (default: every table of three men or more in the directory).
        materials: Vec<String>,
        /// The directory to write the Syzygy files into (created if missing).
        #[arg(long, value_name = "DIR", required = true)]
        syzygy: PathBuf,
        /// The tables directory (default: $RETRO_TABLES, else ./tables).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Write the WDL files alone.
        #[arg(long)]
        wdl_only: bool,
        /// Read every legal position back through shakmaty-syzygy, both sides to move,
        /// instead of decoding the files' entries (slow: about 10⁵ positions a second).
        #[arg(long)]
        every_position: bool,
        /// No progress lines.
        #[arg(long)]
        quiet: bool,
    },
    /// State Hurd's theorems for a category (e.g. KR_K), or the theorem for one position (a
    /// FEN), from a verified table.
    Prove {
        /// A material such as KR_K or KQvKR, or a position in FEN.
        target: String,
        /// Only this side to move (for a material).
        #[arg(long, value_enum)]
        stm: Option<SideArg>,
        /// The board of a material's tables (a FEN brings its own), FxR.
        #[arg(long)]
        board: Option<Board>,
        /// The tables directory (default: $RETRO_TABLES, else ./tables).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Measure how long building and verifying tables takes and how much memory building
    /// needs (release build; medians over several runs, each a fresh process on a scratch
    /// directory).
    Bench(bench_args::BenchArgs),
    /// The KRK strategy of Janičić, Marić and Maliković: verify it, check its lemmas, play it.
    Strategy {
        #[command(subcommand)]
        command: StrategyCommand,
    },
    /// Print the completion script of a shell for `retro`: `source <(retro completions
    /// bash)`, or save it where the shell looks (e.g. /usr/share/bash-completion/completions/retro).
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff: `retro man | man -l -`), or with --dir write a page for
    /// `retro` and one for each command (retro.1, retro-gen.1, …) into DIR.
    Man {
        /// Write every page into this directory (e.g. /usr/local/share/man/man1).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Prove the fast engine equal to the natural model on every position of small materials.
    ///
    /// Default scope: all materials of up to 3 men on 8x8 and up to 4 men on 4x4 and 4x5,
    /// with and without pawns. `--board` and `--pieces` choose one board and size instead;
    /// `--full` checks all materials of up to 4 men on 8x8 and 5x5.
    Selfcheck {
        /// Check this board only (FxR, e.g. 6x5).
        #[arg(long)]
        board: Option<Board>,
        /// The most men per material, kings included (with --board; default 3).
        #[arg(long, value_parser = clap::value_parser!(u8).range(2..=5))]
        pieces: Option<u8>,
        /// All materials of up to 4 men, with and without pawns, on 8x8 and 5x5 (takes hours).
        #[arg(long, conflicts_with_all = ["board", "pieces"])]
        full: bool,
        /// Leave out materials with pawns.
        #[arg(long)]
        no_pawns: bool,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
}

/// Which retrograde core builds tables.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum CoreArg {
    /// The fast core where it applies, the reference core elsewhere.
    Fast,
    /// The reference core everywhere.
    Reference,
}

impl From<CoreArg> for retro_gen::CoreKind {
    fn from(core: CoreArg) -> retro_gen::CoreKind {
        match core {
            CoreArg::Fast => retro_gen::CoreKind::Fast,
            CoreArg::Reference => retro_gen::CoreKind::Reference,
        }
    }
}

/// Which tables a command builds or checks for each material.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub(crate) enum MetricArg {
    /// Depth to mate, the fifty-move rule left out.
    Dtm,
    /// Under the fifty-move rule: DTZ50 (the distance to zeroing) and WDL50 (the five
    /// classes).
    Fifty,
}

impl From<MetricArg> for retro_gen::Metric {
    fn from(metric: MetricArg) -> retro_gen::Metric {
        match metric {
            MetricArg::Dtm => retro_gen::Metric::Dtm,
            MetricArg::Fifty => retro_gen::Metric::Fifty,
        }
    }
}

/// Which engine builds Table 1.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum EngineArg {
    /// Explicit depth-to-mate tables, verified by the independent checker.
    Explicit,
    /// Binary decision diagrams (oxidd), as in Hurd's paper.
    Bdd,
}

/// Options of the BDD engine.
#[derive(clap::Args, Clone, Copy)]
struct BddArgs {
    /// Variable ordering of the BDD engine.
    #[arg(long, default_value = "interleaved-squares")]
    ordering: retro_symbolic::Ordering,
    /// Compute relational products as a conjunction, then a quantification (slower; for
    /// comparison with the fused and-exists / implies-forall).
    #[arg(long)]
    unfused: bool,
    /// Size of the BDD node table; running out is reported as an error.
    #[arg(long, default_value = "67108864")]
    bdd_nodes: usize,
}

impl BddArgs {
    fn options(self, threads: Option<u16>) -> bdd::BddOptions {
        bdd::BddOptions {
            ordering: self.ordering,
            product: if self.unfused {
                retro_symbolic::Product::Unfused
            } else {
                retro_symbolic::Product::Fused
            },
            nodes: self.bdd_nodes,
            threads: threads.map_or_else(
                || std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
                u32::from,
            ),
        }
    }
}

/// `retro bdd` subcommands.
#[derive(Subcommand)]
enum BddCommand {
    /// White's winning sets of one category (e.g. KR_K, KRvKR) and every category its captures
    /// reach: counts by depth, BDD nodes, time; optionally written as DDDMP.
    Solve {
        /// The category, e.g. KR_KR.
        category: String,
        /// The board, FxR.
        #[arg(long, default_value = "8x8")]
        board: Board,
        #[command(flatten)]
        bdd: BddArgs,
        /// Write the final winning sets (White to move, Black to move) to this DDDMP file.
        #[arg(long)]
        export: Option<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Hurd's experiments: KR_KR in each ordering, fused against unfused products, and all
    /// of Table 1 (each a fresh process, release build).
    Bench {
        /// Runs per measurement (the median is reported).
        #[arg(long, default_value = "3", value_parser = clap::value_parser!(u32).range(1..=20))]
        runs: u32,
        /// Leave out the whole of Table 1.
        #[arg(long)]
        no_table1: bool,
    },
}

/// `retro oracle` subcommands.
#[derive(Subcommand)]
enum OracleCommand {
    /// Find a small oracle from a position and write it (then check it with the kernel's
    /// checker): moves chosen from the tables where they answer, by a bounded search where not.
    Build(oracle::BuildArgs),
    /// Check an oracle file from the natural model alone: every friend move legal, every foe
    /// move present, every leaf a mate, a stalemate or a certified table's value meeting the goal.
    Check {
        /// The oracle file.
        file: PathBuf,
        /// The tables directory for leaves read from tables (default: $RETRO_TABLES, else
        /// ./tables).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Output format (JSON: valid, nodes, friend_nodes, foe_nodes, leaves, depth, fault).
        #[arg(long, value_enum, default_value = "text")]
        format: oracle::CheckFormat,
    },
    /// The oracle as a tree of SAN moves from its root, to a depth, or as PGN with variations.
    Show {
        /// The oracle file.
        file: PathBuf,
        /// Plies to show.
        #[arg(long, default_value = "6")]
        depth: usize,
        /// Print PGN (the first reply at each foe node the main line, the others variations).
        #[arg(long)]
        pgn: bool,
    },
    /// The oracle's move in a position (SAN and UCI), if the position is one of its own.
    Play {
        /// The oracle file.
        file: PathBuf,
        /// The position in FEN.
        fen: String,
    },
}

/// `retro strategy` subcommands.
#[derive(Subcommand)]
enum StrategyCommand {
    /// Retrograde verification: every legal KRK position with White to move is won by the
    /// strategy against any defence; counts by move kind, game lengths, the optimal depth.
    Krk {
        /// Board side n (n×n), or a range such as 4-32.
        #[arg(long, default_value = "8")]
        board: strategy::Sides,
        /// Verify the relation (every allowed move must win) instead of the function.
        #[arg(long)]
        relation: bool,
        /// Output format.
        #[arg(long, value_enum, default_value = "table")]
        format: strategy::KrkFormat,
        /// Tables directory for the KRvK DTM tables (default: $RETRO_TABLES, else ./tables).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Skip the optimal comparison (no DTM table built).
        #[arg(long)]
        no_optimal: bool,
        /// Drop a condition of the strategy, to see verification fail.
        #[arg(long = "broken", value_enum)]
        broken: Vec<strategy::Broken>,
        /// No progress bars.
        #[arg(long)]
        quiet: bool,
    },
    /// Check the lemmas of the correctness proof exhaustively; print counterexample plays.
    Lemmas {
        /// Board side n (n×n), or a range such as 4-10.
        #[arg(long, default_value = "8")]
        board: strategy::Sides,
        /// Drop a condition of the strategy, to see a lemma fail.
        #[arg(long = "broken", value_enum)]
        broken: Vec<strategy::Broken>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Prove the lemmas for every board size at once: each lemma's negation in linear integer
    /// arithmetic over n and the coordinates, shown unsatisfiable by SMT solvers (z3, cvc5).
    Prove {
        /// Which solvers to run; with both, they must agree.
        #[arg(long, value_enum, default_value = "both")]
        solver: prove::Solvers,
        /// Where the SMT-LIB 2 queries are written, one file a lemma, to rerun by hand.
        #[arg(long, default_value = "krk-proof")]
        out: PathBuf,
        /// Drop a condition of the strategy: the solver then returns a counterexample, which
        /// enumeration confirms on its board.
        #[arg(long = "broken", value_enum)]
        broken: Vec<strategy::Broken>,
        /// Start from every position, not only those with the black king in the lower left
        /// octant (the others are their mirror images): slower, and free of the symmetry
        /// argument.
        #[arg(long)]
        whole_board: bool,
        /// Only these lemmas (repeat; default: every lemma the theorem needs).
        #[arg(long = "lemma", value_parser = clap::builder::PossibleValuesParser::new(retro_strategy::prove::PROVABLE))]
        lemmas: Vec<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Play the strategy from a position against the database's best defence.
    Play {
        /// A KRK position (White king and rook against the black king) in FEN, up to 16x16.
        fen: String,
        /// Tables directory for the KRvK DTM table (default: $RETRO_TABLES, else ./tables).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// No progress bars.
        #[arg(long)]
        quiet: bool,
    },
}

/// A side, on the command line.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum SideArg {
    White,
    Black,
}

impl SideArg {
    fn side(self) -> retro_rules::Side {
        match self {
            SideArg::White => retro_rules::Side::White,
            SideArg::Black => retro_rules::Side::Black,
        }
    }
}

/// Exits quietly, as other command-line tools do, when the reader of standard output goes away
/// (`retro … | head`): `println!` reports that as a panic, which would print a backtrace.
fn quiet_on_broken_pipe() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.contains("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(141);
        }
        default(info);
    }));
}

fn main() -> ExitCode {
    // Packed files leave illegal positions out: every whole-table read (verify, stats, pack
    // --check, gen) puts them back from the rules before the value stream's hash is checked.
    retro_format::install_restorer(retro_gen::restore_packed);
    quiet_on_broken_pipe();
    let cli = Cli::parse();
    if let Some(threads) = cli.threads {
        if let Err(e) = rayon::ThreadPoolBuilder::new()
            .num_threads(usize::from(threads))
            .build_global()
        {
            eprintln!("error: cannot start {threads} threads: {e}");
            return ExitCode::FAILURE;
        }
    }
    match run(cli.command, cli.threads) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command, threads: Option<u16>) -> Result<ExitCode> {
    match command {
        Command::Show { fen, json } => show::show(&fen, json),
        Command::Freeze(args) => freeze::freeze(args),
        Command::Pack(args) => pack::pack(args),
        Command::Serve {
            dir,
            addr,
            load_test,
            clients,
            seconds,
            cache_mib,
            in_flight,
            per_client,
        } => {
            let dir = support::tables_dir(dir);
            let limits = retro_server::limits::Limits {
                in_flight: in_flight as usize,
                in_flight_per_client: per_client as usize,
                ..Default::default()
            };
            let state = retro_server::AppState::new(dir.clone())
                .with_cache_bytes(cache_mib.saturating_mul(1 << 20))
                .with_limits(limits);
            if load_test {
                return load_test::serve_load_test(&dir, usize::from(clients), seconds);
            }
            let runtime =
                tokio::runtime::Runtime::new().context("starting the server's runtime")?;
            runtime
                .block_on(retro_server::serve(addr, state, true, |bound| {
                    println!(
                        "serving the tables in {} on http://{bound}/ (Ctrl-C stops)",
                        dir.display()
                    );
                }))
                .with_context(|| format!("serving on {addr}"))?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Oracle { command } => match command {
            OracleCommand::Build(args) => oracle::build(args),
            OracleCommand::Check { file, dir, format } => oracle::check(&file, dir, format),
            OracleCommand::Show { file, depth, pgn } => oracle::show(&file, depth, pgn),
            OracleCommand::Play { file, fen } => oracle::play(&file, &fen),
        },
        Command::Perft {
            fen,
            depth,
            natural,
            divide,
        } => engine_checks::perft_command(&fen, depth, natural, divide),
        Command::Gen {
            materials,
            up_to,
            pawnless,
            board,
            dir,
            core,
            quiet,
            pack,
            mem,
            kinds,
            distributed,
        } => tables::gen(
            &materials,
            up_to.map(|men| (men, !pawnless)),
            board,
            dir,
            tables::GenOptions {
                core: core.into(),
                quiet,
                pack,
                mem,
                metrics: match (kinds.is_empty(), distributed) {
                    (true, true) => vec![retro_gen::Metric::Dtm],
                    (true, false) => vec![retro_gen::Metric::Dtm, retro_gen::Metric::Fifty],
                    (false, _) => kinds.into_iter().map(Into::into).collect(),
                },
                distributed,
            },
        ),
        Command::Probe {
            fen,
            batch,
            format,
            dir,
            json,
            line,
            pgn,
        } => match (batch, fen) {
            (true, _) => batch::batch(dir, format),
            (false, Some(fen)) => tables::probe(&fen, dir, json, line, pgn),
            (false, None) => bail!("name a position in FEN, or give --batch"),
        },
        Command::Stats {
            materials,
            board,
            dir,
            format,
            syzygy_stats,
            kinds,
        } => tables::stats(
            &materials,
            &kinds,
            board,
            dir,
            format,
            syzygy_stats.as_deref(),
        ),
        Command::Strategy { command } => match command {
            StrategyCommand::Krk {
                board,
                relation,
                format,
                dir,
                no_optimal,
                broken,
                quiet,
            } => strategy::krk(board, relation, format, dir, no_optimal, &broken, quiet),
            StrategyCommand::Lemmas {
                board,
                broken,
                json,
            } => strategy::lemmas(board, &broken, json),
            StrategyCommand::Prove {
                solver,
                out,
                broken,
                whole_board,
                lemmas,
                json,
            } => prove::prove(solver, &out, &broken, &lemmas, whole_board, json),
            StrategyCommand::Play { fen, dir, quiet } => strategy::play(&fen, dir, quiet),
        },
        Command::Table1 {
            dir,
            format,
            quiet,
            skip_verify,
            engine: EngineArg::Explicit,
            ..
        } => tables::table1(dir, format, quiet, skip_verify),
        Command::Table1 {
            format,
            quiet,
            engine: EngineArg::Bdd,
            bdd,
            ..
        } => bdd::table1(
            format == tables::Table1Format::Tsv,
            bdd.options(threads),
            quiet,
        ),
        Command::Bdd { command } => match command {
            BddCommand::Solve {
                category,
                board,
                bdd,
                export,
                json,
            } => bdd::solve(
                &category,
                board,
                bdd.options(threads),
                export.as_deref(),
                json,
            ),
            BddCommand::Bench { runs, no_table1 } => {
                bdd::bench(runs, !no_table1, threads.map_or(2, u32::from))
            }
        },
        Command::Bench(args) => bench_args::run(args),
        Command::Verify {
            materials,
            board,
            dir,
            quiet,
            resume,
            kinds,
            distributed,
            syzygy,
            every_position,
        } => match syzygy {
            Some(_) if board != Board::STANDARD => {
                bail!("--syzygy checks 8x8 tables: Syzygy's files are of the standard board")
            }
            Some(files) => {
                verify_syzygy::verify_syzygy(&files, &materials, dir, every_position, quiet)
            }
            None => verify::verify(&materials, &kinds, board, dir, quiet, resume, distributed),
        },
        Command::Export {
            materials,
            syzygy,
            dir,
            wdl_only,
            every_position,
            quiet,
        } => export::export_syzygy(&syzygy, &materials, dir, wdl_only, every_position, quiet),
        Command::Prove {
            target,
            stm,
            board,
            dir,
        } => verify::prove(&target, stm.map(SideArg::side), board, dir),
        Command::Completions { shell } => manual::completions(shell, Cli::command()),
        Command::Man { dir } => manual::man(Cli::command(), dir.as_deref()),
        Command::Selfcheck {
            board,
            pieces,
            full,
            no_pawns,
            quiet,
        } => engine_checks::selfcheck_command(board, pieces, full, !no_pawns, quiet),
    }
}

/// Parses a FEN into a legal position of the natural model, with a clear error.
pub(crate) fn parse_position(fen: &str) -> Result<retro_rules::Position> {
    Ok(retro_engine::fen::natural_of_fen(fen)?)
}
