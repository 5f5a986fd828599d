/* scenarios/scn_int.h: the scenario reader's parts, for its files only:
 * lex.c (words, numbers, names), stmt.c (statements), sfault.c and
 * sexpect.c (the fault and expect statements), finish.c (whole-file
 * checks), text.c (writing text back), random.c, write.c, inject.c. Other
 * modules include scn.h. */
#ifndef SCN_INT_H
#define SCN_INT_H

#include "scn.h"

#include <stdarg.h>
#include <stdio.h>

#define TOKS_MAX 64u
#define SCN_FULL_EVERY_MAX 64u      /* SNAP_CHAIN_MAX - 1 (model/proto.h); pipe_create checks it too */
#define SCN_FACTOR_MAX 1000000u     /* slowdowns: the kernel's and the model's limit */

/* The coordinator's RPC latencies `vary network` draws from. */
#define SCN_VARY_RPC_CHOICES 4u
extern const sim_time_ns scn_vary_rpc_ns[SCN_VARY_RPC_CHOICES];   /* scenarios/random.c */

typedef struct tok {
    const char *s;
    uint32_t    len;
    uint32_t    col;
} tok;

/* Where a vertex or an edge was declared, for the checks of the whole job
 * at the end (job_check): its line, and the column of each field
 * (job_field; 0: not written, the name's or the upstream vertex's then). */
typedef struct place {
    uint32_t line;
    uint32_t col[JOB_FIELD_COUNT];
    uint32_t topic_col;               /* a source's `topic`, 0: not written */
} place;

typedef struct pctx {
    scn        *s;
    const char *path;
    uint32_t    line;
    uint32_t    eol_col;
    tok         t[TOKS_MAX];
    uint32_t    n, i;
    char       *err;
    size_t      err_bytes;
    place       vertex_at[JOB_VERTICES_MAX];
    place       edge_at[JOB_EDGES_MAX];
    uint32_t    rate_line;                      /* the first source `rate`, 0: none */
    uint32_t    topic_line[BROKER_TOPICS_MAX];  /* the broker statement of each topic (0: the default's, when written) */
    uint32_t    topic_col[BROKER_TOPICS_MAX];
    uint32_t    topic_size_col[BROKER_TOPICS_MAX];   /* its partitions or records option */
    uint32_t    heartbeat_line, heartbeat_col;   /* the last network statement that set a heartbeat key, 0: none */
    uint32_t    incremental_line, incremental_col;   /* the last `state ... incremental`, 0: none */
    uint32_t    ckpt_line, ckpt_col;             /* the last `checkpoint` statement (not off), 0: none */
    uint32_t    vary_line, vary_col;             /* the last `vary` statement naming unaligned, 0: none */
    bool        interval_set, restart_set;       /* an interval given; a restart statement */
    uint32_t    slots_line, slots_col;           /* the `machines ... slots` that set them, 0: none */
} pctx;

typedef struct lex_unit {
    const char *name;
    uint64_t    mul;        /* in the base unit, times 10^9 for durations: 1 ns = 1 */
} lex_unit;

/* Text appended to a fixed buffer; what does not fit is cut off. */
typedef struct txt_buf {
    char  *s;
    size_t n, used;
} txt_buf;

/* lex.c */
bool lex_fail_at(pctx *c, uint32_t col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool lex_fail_on(pctx *c, uint32_t line, uint32_t col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
bool lex_line(pctx *c, const char *line, size_t len);
bool lex_is(const tok *t, const char *w);
const char *lex_nearest(const tok *t, const char *const *choices);
void lex_choice_list(const char *const *choices, char *list, size_t n);
bool lex_unknown(pctx *c, const tok *t, const char *what, const char *const *choices);
const tok *lex_next(pctx *c, const char *what);
bool lex_more(const pctx *c);
bool lex_expect_word(pctx *c, const char *w);
bool lex_decimal(const tok *t, uint32_t scale_digits, unsigned __int128 *out, uint32_t *rest);
bool lex_count(pctx *c, const tok *t, uint64_t lo, uint64_t hi, uint64_t *out);
bool lex_with_unit(pctx *c, const tok *t, const lex_unit *units, const char *what, const char *example, uint64_t max, uint64_t *out);
bool lex_duration(pctx *c, const tok *t, sim_time_ns *out);
bool lex_opt_duration(pctx *c, sim_time_ns *out);
bool lex_opt_count(pctx *c, uint64_t lo, uint64_t hi, uint64_t *out);
bool lex_percent(pctx *c, const tok *t, sim_ratio *out);
bool lex_milli(pctx *c, const tok *t, uint64_t lo, uint64_t hi, uint32_t *out);
int lex_find_vertex(const pctx *c, const char *s, uint32_t len);
bool lex_vertex_ref(pctx *c, const tok *t, uint32_t *out);
bool lex_task_ref(pctx *c, const tok *t, uint32_t *vertex, uint32_t *subtask);
bool lex_machine_set(pctx *c, const tok *t, uint64_t *mask);
extern const lex_unit lex_duration_units[], lex_bandwidth_units[];

/* text.c */
void txt_put(txt_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void txt_task(txt_buf *b, const job *j, uint32_t v, uint32_t i);
void txt_machines(txt_buf *b, uint64_t mask, uint32_t machines);
void txt_decimal(txt_buf *b, uint64_t whole, uint64_t frac, uint32_t digits);
void txt_duration(txt_buf *b, sim_time_ns ns);
const char *txt_dur(char *buf, size_t n, sim_time_ns ns);
const char *txt_bw(char *buf, size_t n, uint64_t bytes_per_s);

/* finish.c */
bool fin_expand_job(const scn *s, job *j, arena *mem);
bool fin_all(pctx *c);

/* sfault.c, sexpect.c */
bool st_fault(pctx *c);
bool st_compares(scn_expect_kind k);
bool st_expect(pctx *c);

#endif
