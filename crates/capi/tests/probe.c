/* Probes retro's tables through retro_tb.h, from two threads at once, and prints what it
 * finds: the test in c_interface.rs compiles and runs it. */
#include "retro_tb.h"

#include <pthread.h>
#include <stdio.h>

#define SQ(file, rank) (1ULL << (8 * (rank) + (file)))

struct job {
    const retro_tb *tb;
    int failures;
};

/* White: Ka1, Rb2; Black: Kc3. White to move mates in 16 (31 plies); Black to move, the
 * rook is defended: Black is mated (an even number of plies). */
static void *probe_many(void *arg) {
    struct job *job = arg;
    for (int i = 0; i < 20000; i++) {
        int category = 9, plies = -1;
        int r = retro_tb_probe_dtm(job->tb, SQ(0, 0) | SQ(1, 1), SQ(2, 2), SQ(0, 0) | SQ(2, 2),
                                   0, SQ(1, 1), 0, 0, 0, 0, true, &category, &plies);
        if (r != RETRO_TB_OK || category != 1 || plies != 31) {
            job->failures++;
        }
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: probe TABLES_DIR\n");
        return 2;
    }
    if (retro_tb_init("/nonexistent/retro/tables") != NULL) {
        printf("init of a missing directory: not refused\n");
        return 1;
    }
    retro_tb *tb = retro_tb_init(argv[1]);
    if (tb == NULL) {
        printf("init failed\n");
        return 1;
    }
    int category = 9, plies = -1;
    int r = retro_tb_probe_dtm(tb, SQ(0, 0) | SQ(1, 1), SQ(2, 2), SQ(0, 0) | SQ(2, 2), 0,
                               SQ(1, 1), 0, 0, 0, 0, true, &category, &plies);
    printf("KRvK white to move: %d %d %d\n", r, category, plies);
    r = retro_tb_probe_dtm(tb, SQ(0, 0) | SQ(1, 1), SQ(2, 2), SQ(0, 0) | SQ(2, 2), 0, SQ(1, 1),
                           0, 0, 0, 0, false, &category, &plies);
    printf("KRvK black to move: %d %d %d\n", r, category, plies);
    /* Kings side by side: illegal. */
    r = retro_tb_probe_dtm(tb, SQ(0, 0), SQ(1, 0), SQ(0, 0) | SQ(1, 0), 0, 0, 0, 0, 0, 0, true,
                           &category, &plies);
    printf("kings adjacent: %d\n", r);
    /* A queen: KQvK is not in the directory. */
    r = retro_tb_probe_dtm(tb, SQ(0, 0) | SQ(1, 1), SQ(2, 3), SQ(0, 0) | SQ(2, 3), SQ(1, 1), 0,
                           0, 0, 0, 0, true, &category, &plies);
    printf("no table: %d\n", r);
    /* Under the fifty-move rule: a win after a zeroing move, a cursed win 80 plies on. */
    unsigned wdl = retro_tb_probe_wdl(tb, SQ(0, 0) | SQ(1, 1), SQ(2, 2), SQ(0, 0) | SQ(2, 2), 0,
                                      SQ(1, 1), 0, 0, 0, 0, 0, 0, true);
    unsigned late = retro_tb_probe_wdl(tb, SQ(0, 0) | SQ(1, 1), SQ(2, 2), SQ(0, 0) | SQ(2, 2),
                                       0, SQ(1, 1), 0, 0, 0, 80, 0, 0, true);
    unsigned castle = retro_tb_probe_wdl(tb, SQ(0, 0) | SQ(1, 1), SQ(2, 2),
                                         SQ(0, 0) | SQ(2, 2), 0, SQ(1, 1), 0, 0, 0, 0, 1, 0,
                                         true);
    printf("wdl: %u %u %d\n", wdl, late, castle == RETRO_TB_RESULT_FAILED);
    unsigned results[RETRO_TB_MAX_MOVES];
    unsigned root = retro_tb_probe_root(tb, SQ(0, 0) | SQ(1, 1), SQ(2, 2), SQ(0, 0) | SQ(2, 2),
                                        0, SQ(1, 1), 0, 0, 0, 0, 0, 0, true, results);
    int moves = 0;
    while (results[moves] != RETRO_TB_RESULT_FAILED) moves++;
    printf("root: wdl %u dtz %u from %u to %u; %d moves, the first %u %u\n",
           RETRO_TB_RESULT_WDL(root), RETRO_TB_RESULT_DTZ(root), RETRO_TB_RESULT_FROM(root),
           RETRO_TB_RESULT_TO(root), moves, RETRO_TB_RESULT_WDL(results[0]),
           RETRO_TB_RESULT_DTZ(results[0]));
    /* Two threads at once on one handle. */
    struct job jobs[2] = {{tb, 0}, {tb, 0}};
    pthread_t threads[2];
    for (int t = 0; t < 2; t++) pthread_create(&threads[t], NULL, probe_many, &jobs[t]);
    for (int t = 0; t < 2; t++) pthread_join(threads[t], NULL);
    printf("threads: %d failures in 40000 probes\n", jobs[0].failures + jobs[1].failures);
    retro_tb_free(tb);
    return 0;
}
