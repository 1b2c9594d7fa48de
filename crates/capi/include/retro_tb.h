/*
 * retro_tb.h: probing retro's verified depth-to-mate tables from C, on 8x8.
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

#ifdef __cplusplus
}
#endif

#endif /* RETRO_TB_H */
