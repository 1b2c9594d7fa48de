//! # retro-capi — the tables for engines in C
//!
//! Owns: the C interface declared in `include/retro_tb.h` — [`retro_tb_init`],
//! [`retro_tb_probe_dtm`] on bitboards and the side to move (Fathom's way for Syzygy's
//! tables), under the fifty-move rule [`retro_tb_probe_wdl`] and [`retro_tb_probe_root`] in
//! the shape of Fathom's `tb_probe_wdl` and `tb_probe_root`, [`retro_tb_free`] — and the safe
//! functions under them, [`probe_bitboards`], [`probe_wdl_bitboards`] and
//! [`probe_root_bitboards`].
//! Must never: read a value other than through `retro-tablebase`, or trust a position it was
//! handed: every one goes through the natural model's legality check first.
//!
//! This is the workspace's one crate with `unsafe` code: a C caller hands over raw pointers,
//! which only the `extern "C"` functions touch, each checking for null first.
//!
//! ```
//! use retro_tb::{probe_bitboards, Bitboards, Probe};
//! # let dir = tempfile::tempdir()?;
//! # retro_gen::Builder::new(retro_rules::Board::STANDARD, dir.path())
//! #     .build(&[retro_engine::Material::parse("KRvK")?], &retro_gen::Silent)?;
//! let tables = retro_tablebase::Tablebase::new(retro_rules::Board::STANDARD, dir.path());
//! // White: Ka1, Rb2; Black: Kc3; White to move mates in 16 (31 plies).
//! let sq = |file: u32, rank: u32| 1u64 << (8 * rank + file);
//! let board = Bitboards {
//!     white: sq(0, 0) | sq(1, 1),
//!     black: sq(2, 2),
//!     kings: sq(0, 0) | sq(2, 2),
//!     rooks: sq(1, 1),
//!     ..Bitboards::default()
//! };
//! assert_eq!(probe_bitboards(&tables, &board, 0, true), Probe::Value { category: 1, dtm_plies: 31 });
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![allow(unsafe_code)]

use retro_engine::fen::{engine_of_natural, natural_of_fen};
use retro_format::Wdl;
use retro_rules::Board;
use retro_tablebase::{ProbeError, Tablebase, Value};
use std::ffi::{c_char, c_int, c_uint, CStr};
use std::path::PathBuf;

/// A position on 8×8 as bitboards, square `a1 = 0 … h8 = 63`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bitboards {
    /// White's men.
    pub white: u64,
    /// Black's men.
    pub black: u64,
    /// Kings.
    pub kings: u64,
    /// Queens.
    pub queens: u64,
    /// Rooks.
    pub rooks: u64,
    /// Bishops.
    pub bishops: u64,
    /// Knights.
    pub knights: u64,
    /// Pawns.
    pub pawns: u64,
}

/// What a probe found (the C result codes of `retro_tb.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Probe {
    /// The value for the side to move: `category` 1 win, 0 draw, -1 loss; the depth to mate
    /// in plies.
    Value {
        /// 1 win, 0 draw, -1 loss, for the side to move.
        category: i32,
        /// Plies to mate (0 for a draw, or a side checkmated).
        dtm_plies: i32,
    },
    /// Not a legal position, or overlapping bitboards (`RETRO_TB_ILLEGAL`).
    Illegal,
    /// No table for its material in the directory (`RETRO_TB_NO_TABLE`).
    NoTable,
    /// A damaged file (`RETRO_TB_ERROR`).
    Error,
}

impl Bitboards {
    /// The FEN of the position, or `None` when a square holds two men or a man has no kind.
    fn fen(&self, ep: u32, white_to_move: bool) -> Option<String> {
        let kinds = [
            (self.kings, 'k'),
            (self.queens, 'q'),
            (self.rooks, 'r'),
            (self.bishops, 'b'),
            (self.knights, 'n'),
            (self.pawns, 'p'),
        ];
        let all = self.white | self.black;
        if self.white & self.black != 0
            || kinds.iter().map(|k| k.0).fold(0, |a, b| a | b) != all
            || kinds.iter().map(|k| k.0.count_ones()).sum::<u32>() != all.count_ones()
        {
            return None;
        }
        let mut fen = String::new();
        for rank in (0..8).rev() {
            let mut empty = 0;
            for file in 0..8 {
                let bit = 1u64 << (8 * rank + file);
                match kinds.iter().find(|k| k.0 & bit != 0) {
                    None => empty += 1,
                    Some(&(_, letter)) => {
                        if empty > 0 {
                            fen.push_str(&empty.to_string());
                            empty = 0;
                        }
                        let white = self.white & bit != 0;
                        fen.push(if white {
                            letter.to_ascii_uppercase()
                        } else {
                            letter
                        });
                    }
                }
            }
            if empty > 0 {
                fen.push_str(&empty.to_string());
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        let ep = match ep {
            0 => "-".to_string(),
            1..=63 => format!("{}{}", (b'a' + (ep % 8) as u8) as char, ep / 8 + 1),
            _ => return None,
        };
        let side = if white_to_move { 'w' } else { 'b' };
        Some(format!("{fen} {side} - {ep} 0 1"))
    }
}

/// The value of a position given by bitboards, through the natural model's legality check.
pub fn probe_bitboards(tb: &Tablebase, board: &Bitboards, ep: u32, white_to_move: bool) -> Probe {
    let Some(fen) = board.fen(ep, white_to_move) else {
        return Probe::Illegal;
    };
    let Ok(natural) = natural_of_fen(&fen) else {
        return Probe::Illegal;
    };
    let position: retro_engine::Position = match engine_of_natural(tb.geometry(), &fen, &natural) {
        Ok(p) => p,
        Err(_) => return Probe::NoTable,
    };
    match tb.value(&position) {
        Ok(Value::Win(n)) => Probe::Value {
            category: 1,
            dtm_plies: n as i32,
        },
        Ok(Value::Loss(n)) => Probe::Value {
            category: -1,
            dtm_plies: n as i32,
        },
        Ok(Value::Draw) => Probe::Value {
            category: 0,
            dtm_plies: 0,
        },
        Ok(Value::Illegal) => Probe::Illegal,
        Err(ProbeError::NoTable { .. } | ProbeError::Unsupported { .. }) => Probe::NoTable,
        Err(_) => Probe::Error,
    }
}

/// The engine position of bitboards, checked legal by the natural model; the probe's code for
/// what is wrong otherwise.
fn position_of(
    tb: &Tablebase,
    board: &Bitboards,
    ep: u32,
    white_to_move: bool,
) -> Result<retro_engine::Position, Probe> {
    let fen = board.fen(ep, white_to_move).ok_or(Probe::Illegal)?;
    let natural = natural_of_fen(&fen).map_err(|_| Probe::Illegal)?;
    engine_of_natural(tb.geometry(), &fen, &natural).map_err(|_| Probe::NoTable)
}

/// The probe's code for a failed look-up.
fn failed(e: &ProbeError) -> Probe {
    match e {
        ProbeError::NoTable { .. } | ProbeError::Unsupported { .. } => Probe::NoTable,
        _ => Probe::Error,
    }
}

/// Fathom's WDL codes (`TB_LOSS` … `TB_WIN`), as `retro_tb.h` names them.
fn wdl_code(class: Wdl) -> u32 {
    match class {
        Wdl::Loss => 0,
        Wdl::BlessedLoss => 1,
        Wdl::Draw | Wdl::Illegal => 2,
        Wdl::CursedWin => 3,
        Wdl::Win => 4,
    }
}

/// The class under the fifty-move rule of a position given by bitboards, for the side to
/// move, at halfmove clock `rule50` (Fathom's `tb_probe_wdl` takes only 0), as
/// `wdl_code` numbers it; the probe's code for what is wrong otherwise.
pub fn probe_wdl_bitboards(
    tb: &Tablebase,
    board: &Bitboards,
    rule50: u32,
    ep: u32,
    white_to_move: bool,
) -> Result<u32, Probe> {
    let position = position_of(tb, board, ep, white_to_move)?;
    let value = tb.fifty(&position).map_err(|e| failed(&e))?;
    Ok(wdl_code(value.class_at(rule50)))
}

/// The bits of a root probe's result (`retro_tb.h`, Fathom's layout): the class, the move's
/// squares, its promotion, whether it is en passant, and a distance to zeroing in plies.
pub fn root_result(wdl: u32, uci: &str, en_passant: bool, dtz: u32) -> u32 {
    let bytes = uci.as_bytes();
    let square =
        |at: usize| -> u32 { u32::from(bytes[at] - b'a') + 8 * u32::from(bytes[at + 1] - b'1') };
    let promotes = match bytes.get(4) {
        Some(b'q') => 1,
        Some(b'r') => 2,
        Some(b'b') => 3,
        Some(b'n') => 4,
        _ => 0,
    };
    (wdl & 0xF)
        | square(2) << 4
        | square(0) << 10
        | promotes << 16
        | u32::from(en_passant) << 19
        | dtz.min(0xFFF) << 20
}

/// The result of a root probe of a checkmated or stalemated position, as Fathom gives it:
/// no move, the class of the side that gave the mate (a win) or a draw.
pub const RESULT_CHECKMATE: u32 = 4;
/// See [`RESULT_CHECKMATE`].
pub const RESULT_STALEMATE: u32 = 2;

/// The root probe of a position given by bitboards at halfmove clock `rule50`, as Fathom's
/// `tb_probe_root` gives it: the best move under the fifty-move rule with the class it keeps
/// and the position's DTZ50, and each legal move's result (its class for the mover at the
/// clock after it, and the DTZ50 of the position it reaches), best first.
pub fn probe_root_bitboards(
    tb: &Tablebase,
    board: &Bitboards,
    rule50: u32,
    ep: u32,
    white_to_move: bool,
) -> Result<(u32, Vec<u32>), Probe> {
    let position = position_of(tb, board, ep, white_to_move)?;
    let geo = tb.geometry();
    let value = tb.fifty(&position).map_err(|e| failed(&e))?;
    if position.is_checkmate(geo) {
        return Ok((RESULT_CHECKMATE, Vec::new()));
    }
    if position.is_stalemate(geo) {
        return Ok((RESULT_STALEMATE, Vec::new()));
    }
    let moves = tb.fifty_moves(&position, rule50).map_err(|e| failed(&e))?;
    let results: Vec<u32> = moves
        .iter()
        .map(|m| {
            let en_passant = is_en_passant(&position, &m.uci);
            root_result(
                wdl_code(m.class().for_opponent()),
                &m.uci,
                en_passant,
                m.value.signed().unsigned_abs() as u32,
            )
        })
        .collect();
    let best = &moves[0];
    let root = root_result(
        wdl_code(value.class_at(rule50)),
        &best.uci,
        results[0] >> 19 & 1 == 1,
        value.signed().unsigned_abs() as u32,
    );
    Ok((root, results))
}

/// Whether the move `uci` of `position` captures en passant: a pawn moving onto the position's
/// en-passant target.
fn is_en_passant(position: &retro_engine::Position, uci: &str) -> bool {
    let Some(target) = position.en_passant() else {
        return false;
    };
    let bytes = uci.as_bytes();
    let square = |at: usize| u32::from(bytes[at] - b'a') + 8 * u32::from(bytes[at + 1] - b'1');
    let pawn_moves = position
        .men()
        .iter()
        .any(|m| u32::from(m.sq) == square(0) && m.piece == retro_rules::Piece::Pawn);
    pawn_moves && u32::from(target) == square(2)
}

/// The handle `retro_tb.h` calls `retro_tb`: the tables of one directory on 8×8.
pub struct RetroTb {
    tables: Tablebase,
}

/// `retro_tb_init`: opens the tables of the directory `path`; null if `path` is null, not
/// UTF-8, or not a directory.
///
/// # Safety
/// `path` is null or a NUL-terminated string valid for reads.
#[no_mangle]
pub unsafe extern "C" fn retro_tb_init(path: *const c_char) -> *mut RetroTb {
    if path.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: the caller passes a NUL-terminated string (checked non-null above).
    let path = unsafe { CStr::from_ptr(path) };
    let Ok(path) = path.to_str() else {
        return std::ptr::null_mut();
    };
    let dir = PathBuf::from(path);
    if !dir.is_dir() {
        return std::ptr::null_mut();
    }
    Box::into_raw(Box::new(RetroTb {
        tables: Tablebase::new(Board::STANDARD, dir),
    }))
}

/// `retro_tb_free`: closes what [`retro_tb_init`] opened; null is allowed.
///
/// # Safety
/// `tb` is null or a handle from [`retro_tb_init`] not freed before, used by no other thread.
#[no_mangle]
pub unsafe extern "C" fn retro_tb_free(tb: *mut RetroTb) {
    if !tb.is_null() {
        // SAFETY: the handle came from Box::into_raw in retro_tb_init and is freed once.
        drop(unsafe { Box::from_raw(tb) });
    }
}

/// `retro_tb_probe_dtm`: see `include/retro_tb.h`.
///
/// # Safety
/// `tb` is a live handle from [`retro_tb_init`]; `category` and `dtm_plies` are null or valid
/// for a write of one `int`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn retro_tb_probe_dtm(
    tb: *const RetroTb,
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    ep: c_uint,
    white_to_move: bool,
    category: *mut c_int,
    dtm_plies: *mut c_int,
) -> c_int {
    if tb.is_null() || category.is_null() || dtm_plies.is_null() {
        return 3;
    }
    // SAFETY: a live handle from retro_tb_init; shared reads only (Tablebase is Sync).
    let tb = unsafe { &*tb };
    let board = Bitboards {
        white,
        black,
        kings,
        queens,
        rooks,
        bishops,
        knights,
        pawns,
    };
    match probe_bitboards(&tb.tables, &board, ep, white_to_move) {
        Probe::Value {
            category: c,
            dtm_plies: d,
        } => {
            // SAFETY: both checked non-null above; the caller owns them.
            unsafe {
                *category = c;
                *dtm_plies = d;
            }
            0
        }
        Probe::Illegal => 1,
        Probe::NoTable => 2,
        Probe::Error => 3,
    }
}

/// `retro_tb_probe_wdl`: see `include/retro_tb.h`.
///
/// # Safety
/// `tb` is null or a live handle from [`retro_tb_init`].
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn retro_tb_probe_wdl(
    tb: *const RetroTb,
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    rule50: c_uint,
    castling: c_uint,
    ep: c_uint,
    white_to_move: bool,
) -> c_uint {
    if tb.is_null() || castling != 0 {
        return RESULT_FAILED;
    }
    // SAFETY: a live handle from retro_tb_init; shared reads only (Tablebase is Sync).
    let tb = unsafe { &*tb };
    let board = Bitboards {
        white,
        black,
        kings,
        queens,
        rooks,
        bishops,
        knights,
        pawns,
    };
    probe_wdl_bitboards(&tb.tables, &board, rule50, ep, white_to_move).unwrap_or(RESULT_FAILED)
}

/// What [`retro_tb_probe_wdl`] and [`retro_tb_probe_root`] return when the probe fails, as
/// Fathom's `TB_RESULT_FAILED`.
pub const RESULT_FAILED: u32 = 0xFFFF_FFFF;

/// The most moves a position of the tables has, and more: the length of the `results` array
/// [`retro_tb_probe_root`] fills (with `RESULT_FAILED` after the last).
pub const MAX_MOVES: usize = 256;

/// `retro_tb_probe_root`: see `include/retro_tb.h`.
///
/// # Safety
/// `tb` is null or a live handle from [`retro_tb_init`]; `results` is null or valid for
/// writes of [`MAX_MOVES`] `unsigned` values.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn retro_tb_probe_root(
    tb: *const RetroTb,
    white: u64,
    black: u64,
    kings: u64,
    queens: u64,
    rooks: u64,
    bishops: u64,
    knights: u64,
    pawns: u64,
    rule50: c_uint,
    castling: c_uint,
    ep: c_uint,
    white_to_move: bool,
    results: *mut c_uint,
) -> c_uint {
    if tb.is_null() || castling != 0 {
        return RESULT_FAILED;
    }
    // SAFETY: a live handle from retro_tb_init; shared reads only (Tablebase is Sync).
    let tb = unsafe { &*tb };
    let board = Bitboards {
        white,
        black,
        kings,
        queens,
        rooks,
        bishops,
        knights,
        pawns,
    };
    let Ok((root, moves)) = probe_root_bitboards(&tb.tables, &board, rule50, ep, white_to_move)
    else {
        return RESULT_FAILED;
    };
    if !results.is_null() {
        let count = moves.len().min(MAX_MOVES - 1);
        for (k, &result) in moves.iter().take(count).enumerate() {
            // SAFETY: the caller's array holds MAX_MOVES entries; k < MAX_MOVES - 1.
            unsafe { *results.add(k) = result };
        }
        // SAFETY: count < MAX_MOVES.
        unsafe { *results.add(count) = RESULT_FAILED };
    }
    root
}
