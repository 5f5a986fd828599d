/* scenarios/fkind.h: the one table of fault kinds (scenarios/fkind.c).
 *
 * A fault line reads `fault at T|when P VERB [OBJECT] TARGET [PARAM]
 * [for D] [optional]`. Each kind is one row: its words, the kind of target
 * it names, its parameter, whether it has a window, the kernel fault it
 * becomes, what it can do to a run (for the summary's cause finder and the
 * pictures), how it is told, and where random profiles draw it. The
 * reader (sfault.c), the writer (scn_fault_text), the injection
 * (inject.c), random profiles (random.c), the run's story (cli/story.c)
 * and the pictures (cli/view.c) read the row; none of them names a kind.
 * A kind's own code is its handlers: how random profiles draw it, for a
 * kind the model runs rather than the kernel how it is handed over, and
 * checks only it needs (a rescale's, in finish.c).
 *
 * Adding a kind: append its scn_fault_kind (scn.h), a row here, and its
 * handlers; a new kind of target or parameter also needs its case in the
 * reader, the writer, the injection, the story and the pictures, each a
 * switch over fk_target or fk_param that names every case (the compiler
 * says which one is missing) and asserts past its end. */
#ifndef SCN_FKIND_H
#define SCN_FKIND_H

#include "scn.h"
#include "../sim/rng.h"

typedef enum fk_target {
    FK_MACHINE = 1,                   /* `machine N` */
    FK_TASK,                          /* `task vertex[i]` */
    FK_COORDINATOR,                   /* `coordinator`: the JobManager's */
    FK_MACHINES,                      /* `A | B`: two sets of machines (jm: the coordinator's) */
    FK_LINK,                          /* `link vertex[i] -> vertex[j]`: a data channel's */
    FK_RPC,                           /* `rpc [KIND] vertex[i]`: the task's RPCs with the coordinator */
    FK_STORE,                         /* `store` (or `ha` where FK_HA): the durable store, the HA services' */
    FK_VERTEX,                        /* `V`: a vertex of the job */
    FK_JOB,                           /* `job`: the whole job (the object word names it) */
} fk_target;

typedef enum fk_param {
    FK_NO_PARAM = 0,
    FK_BY_DELAY,                      /* `by D`: delay_ns */
    FK_RATIO,                         /* `P%`: ratio */
    FK_FACTOR,                        /* `Nx`: factor */
    FK_TO_PARALLELISM,                /* `to N`: parallelism */
    FK_RESUME,                        /* `resume after D [claim|no-claim|legacy]`: resume_ns, claim */
} fk_param;

typedef enum fk_window {
    FK_NO_WINDOW = 0,                 /* no `for D` */
    FK_WINDOW_OPTIONAL,               /* `for D` or none (a crash: its target comes back after D, or never) */
    FK_WINDOW_REQUIRED,
} fk_window;

enum {                                /* fk_info.flags: what a fault of the kind does */
    FK_DOWN = 1u << 0,                /* takes its target down (a crash) */
    FK_BACK_AT_ONCE = 1u << 1,        /* ... and its process restarts at once (a task: its TaskManager lives on) */
    FK_BREAKS = 1u << 2,              /* breaks connections: the tasks on them fail */
    FK_STALLS = 1u << 3,              /* stops tasks handling anything, their connections kept */
    FK_SILENCES = 1u << 4,            /* may keep heartbeat answers from coming in time */
    FK_PAUSE = 1u << 5,               /* a pause: random profiles keep it under twice the heartbeat timeout */
    FK_FAILOVER = 1u << 6,            /* a new coordinator takes over after it */
    FK_DURABLE = 1u << 7,             /* acts on the durable store: needs `state backend durable` */
    FK_HA = 1u << 8,                  /* its target may be `ha`, the HA services' store, instead of `store` */
    FK_AT_TIME = 1u << 9,             /* at a time only, never at a protocol point */
};

/* What a random profile's draw of one fault sees: the group it draws (1
 * to 3), the file, the expanded job, the stream, and for group 1 the task
 * and channel every fault of it draws whether it uses them or not (so
 * seeds keep their profiles). */
typedef struct fk_draw {
    uint32_t        group;
    const scn      *s;
    const job      *j;
    rng            *r;
    const job_task *t;
    const job_chan *c;
    sim_time_ns     hb_timeout_ns;    /* the heartbeat timeout of the file's settings */
} fk_draw;

#define FK_GROUPS 4u

typedef struct fk_info {
    scn_fault_kind kind;
    const char *name;                 /* "crash-machine": reports, JSON */
    const char *verb;                 /* "crash": the word after the time or point */
    const char *object;               /* "machine", or NULL when the target follows the verb */
    fk_target   target;
    fk_param    param;
    const char *param_hint;           /* what the reader expects for the parameter, NULL: its default */
    fk_window   window;
    uint32_t    flags;                /* FK_* */
    fault_kind  kernel;               /* the kernel fault it becomes, 0: the model runs it (add) */
    uint32_t    max;                  /* at most this many in a script (0: SCN_FAULTS_MAX) ... */
    const char *max_what;             /* ... "slow tasks" */
    const char *begins, *ends;        /* the story, as it begins and ends: %s is the target */
    const char *cause;                /* a failure's cause: "%s crashed" (%s is the target) */
    uint8_t     draw_at[FK_GROUPS];   /* its place in random group g + 1 (1: first), 0: not drawn there */
    void      (*draw)(const fk_draw *d, scn_fault *f);   /* its own draws, after its time and window */
    /* A kind the model runs (kernel 0): hand the fault to the pipeline
     * before or during the run. NULL: the pipeline has it from its
     * configuration already (a rescale: cfg.rescales). */
    void      (*add)(pipeline *p, const scn_fault *f, sim_time_ns at_ns);
} fk_info;

/* The row of kind k. */
const fk_info *fk_of(scn_fault_kind k);
/* The rows in the table's order (the order the reader lists words in):
 * the i-th, NULL past the last. */
const fk_info *fk_at(uint32_t i);

/* The handlers the rows name (random.c, inject.c). */
void fk_draw_crash_machine(const fk_draw *d, scn_fault *f);
void fk_draw_crash_task(const fk_draw *d, scn_fault *f);
void fk_draw_partition(const fk_draw *d, scn_fault *f);
void fk_draw_link(const fk_draw *d, scn_fault *f);
void fk_draw_lose_rpc(const fk_draw *d, scn_fault *f);
void fk_draw_nothing(const fk_draw *d, scn_fault *f);
void fk_draw_factor(const fk_draw *d, scn_fault *f);
void fk_draw_ratio(const fk_draw *d, scn_fault *f);
void fk_draw_slow_task(const fk_draw *d, scn_fault *f);
void fk_draw_pause_machine(const fk_draw *d, scn_fault *f);
void fk_draw_task(const fk_draw *d, scn_fault *f);
void fk_draw_delay_rpc(const fk_draw *d, scn_fault *f);
void fk_draw_ambiguous(const fk_draw *d, scn_fault *f);
void fk_draw_duplicate_rpc(const fk_draw *d, scn_fault *f);
void fk_add_slow_task(pipeline *p, const scn_fault *f, sim_time_ns at_ns);

#endif
