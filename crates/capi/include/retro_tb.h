/*
 * retro_tb.h: probing retro's verified tables from C, on 8x8: depth to mate, and under the
 * fifty-move rule the five classes and the distance to zeroing (DTZ50), in the shape of
 * Fathom's tb_probe_wdl and tb_probe_root for Syzygy's tables.
 *
 * Squares are numbered a1 = 0, b1 = 1, ..., h8 = 63, and a position is given by bitboards
 * as Fathom gives it for Syzygy's tables: the men of each colour, and of each kind.
 * Every function may be called from any number of threads at once on one handle.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef RETRO_TB_H
#define RETRO_TB_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An opened directory of tables (raw .rtb or packed .rtbz files). */
typedef struct retro_tb retro_tb;

/* What a probe found. */
enum retro_tb_result {
    RETRO_TB_OK = 0,       /* *category and *dtm_plies are set */
    RETRO_TB_ILLEGAL = 1,  /* not a legal position (or overlapping bitboards) */
    RETRO_TB_NO_TABLE = 2, /* its material has no table in the directory, or too many men */
    RETRO_TB_ERROR = 3     /* a damaged table file, or a null argument */
};

/* Opens the tables of the directory `path` (NUL-terminated); NULL if it is not a directory. */
retro_tb *retro_tb_init(const char *path);

/* Closes what retro_tb_init opened (NULL is allowed). */
void retro_tb_free(retro_tb *tb);

/*
 * The value of a position for the side to move (`white_to_move`), `ep` the en-passant target
 * square (0 for none, as a1 can never be one). On RETRO_TB_OK, *category is 1 (the side to
 * move mates), 0 (draw) or -1 (it is mated), and *dtm_plies the depth to mate in plies (odd
 * for a win, even for a loss, 0 for a draw or a checkmated side).
 */
int retro_tb_probe_dtm(const retro_tb *tb, uint64_t white, uint64_t black, uint64_t kings,
                       uint64_t queens, uint64_t rooks, uint64_t bishops, uint64_t knights,
                       uint64_t pawns, unsigned ep, bool white_to_move, int *category,
                       int *dtm_plies);

/*
 * Under the fifty-move rule, from the DTZ50 and WDL50 tables (retro gen --kinds fifty).
 * The classes, as Fathom numbers them: */
#define RETRO_TB_LOSS 0
#define RETRO_TB_BLESSED_LOSS 1
#define RETRO_TB_DRAW 2
#define RETRO_TB_CURSED_WIN 3
#define RETRO_TB_WIN 4
/* A probe that failed: an illegal position, castling rights, no table, a damaged file. */
#define RETRO_TB_RESULT_FAILED 0xFFFFFFFFu

/*
 * The class of a position for the side to move (`white_to_move`) at halfmove clock `rule50`
 * (Fathom's tb_probe_wdl takes only 0: the class after a capture or a pawn move), `castling`
 * the castling rights (retro's tables hold none: anything but 0 fails), `ep` the en-passant
 * target as for retro_tb_probe_dtm. Returns RETRO_TB_LOSS ... RETRO_TB_WIN or
 * RETRO_TB_RESULT_FAILED.
 */
unsigned retro_tb_probe_wdl(const retro_tb *tb, uint64_t white, uint64_t black, uint64_t kings,
                            uint64_t queens, uint64_t rooks, uint64_t bishops, uint64_t knights,
                            uint64_t pawns, unsigned rule50, unsigned castling, unsigned ep,
                            bool white_to_move);

/* A root probe's result, in Fathom's layout: the class, the move's squares and promotion,
 * whether it is en passant, and a distance to zeroing in plies (exact, at most 4095). */
#define RETRO_TB_RESULT_WDL(r) ((r) & 0xFu)
#define RETRO_TB_RESULT_TO(r) (((r) >> 4) & 0x3Fu)
#define RETRO_TB_RESULT_FROM(r) (((r) >> 10) & 0x3Fu)
#define RETRO_TB_RESULT_PROMOTES(r) (((r) >> 16) & 0x7u) /* 0 none, 1 Q, 2 R, 3 B, 4 N */
#define RETRO_TB_RESULT_EP(r) (((r) >> 19) & 0x1u)
#define RETRO_TB_RESULT_DTZ(r) (((r) >> 20) & 0xFFFu)
/* The result of a checkmated (the side to move is lost) and of a stalemated position. */
#define RETRO_TB_RESULT_CHECKMATE RETRO_TB_WIN
#define RETRO_TB_RESULT_STALEMATE RETRO_TB_DRAW
/* The length of the `results` array retro_tb_probe_root fills. */
#define RETRO_TB_MAX_MOVES 256

/*
 * The best move of a position under the fifty-move rule at halfmove clock `rule50`, as
 * Fathom's tb_probe_root: the class of the position at that clock (WDL), the move (FROM, TO,
 * PROMOTES, EP) that keeps it best — the quickest zeroing move of a win, the slowest of a
 * loss, in lila-tablebase's order — and the position's DTZ50 (DTZ). RETRO_TB_RESULT_CHECKMATE
 * or _STALEMATE when the side to move has no move, RETRO_TB_RESULT_FAILED when the probe
 * fails. Unless `results` is NULL, it receives every legal move's result, best first — its
 * class for the side making it, at the clock after it, and the DTZ50 of the position it
 * reaches — followed by RETRO_TB_RESULT_FAILED (RETRO_TB_MAX_MOVES entries at most).
 */
unsigned retro_tb_probe_root(const retro_tb *tb, uint64_t white, uint64_t black, uint64_t kings,
                             uint64_t queens, uint64_t rooks, uint64_t bishops, uint64_t knights,
                             uint64_t pawns, unsigned rule50, unsigned castling, unsigned ep,
                             bool white_to_move, unsigned *results);

#ifdef __cplusplus
}
#endif

#endif /* RETRO_TB_H */
