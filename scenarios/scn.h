/* scenarios/scn.h: scenario files (*.scn): a job, its checkpointing and
 * restarts, the machines and network, a fault script, bounds, a seed and
 * expectations, read into a pipe configuration (model/pipe.h).
 *
 * Contract:
 * - scn_load() reads a whole file; on any problem it returns false with
 *   one message "file:line:col: what is wrong" in err (unknown names get
 *   the nearest valid one suggested) and never asserts on user input.
 *   Limits: SCN_FILE_BYTES_MAX per file, SCN_LINE_BYTES_MAX per line,
 *   SCN_FAULTS_MAX faults, SCN_EXPECTS_MAX expectations.
 * - Numbers carry units: durations (ns, us, ms, s, min; "1.5s"), sizes
 *   (B, KB, MB, GB, KiB, MiB, GiB), bandwidths (B/s ... GiB/s, and bit/s,
 *   Kbit/s, Mbit/s, Gbit/s), rates ("200000/s"), percentages ("40%"). All
 *   are read exactly, as integers, never through a float.
 * - Faults name machines by number, tasks as vertex[subtask] and links as
 *   vertex[i] -> vertex[j]; they are resolved against the expanded job
 *   when scn_add_faults() (scenarios/inject.h) adds them to a created
 *   pipe. Every fault of a script must fire (scn_unfired()), unless its
 *   line ends with `optional`.
 * - A rescale (`fault at T rescale V to N`) is the JobManager's, not the
 *   kernel's: scn_parse also puts every rescale of the script into
 *   cfg.rescales, in time order (pipe_create sizes the run for them), and
 *   refuses at the fault what a rescale cannot go with.
 * - The syntax, statement by statement with an example each, is in
 *   scenarios/README.md.
 */
#ifndef SCN_H
#define SCN_H

#include "../model/pipe.h"

#define SCN_FILE_BYTES_MAX (1u << 20)
#define SCN_LINE_BYTES_MAX 1024u
#define SCN_FAULTS_MAX     PIPE_FAULTS_MAX
#define SCN_EXPECTS_MAX    32u
#define SCN_ERR_BYTES      512u
#define SCN_FAULT_TEXT_BYTES 512u   /* room for any one fault line (scn_fault_text) */

typedef enum scn_fault_kind {
    SCN_CRASH_MACHINE = 1,
    SCN_CRASH_TASK,
    SCN_PARTITION,
    SCN_DELAY_LINK,
    SCN_CUT_LINK,
    SCN_LOSE_RPC,
    SCN_CRASH_COORDINATOR,      /* the JobManager; with a duration a new one takes over after it */
    SCN_SLOW_STORE,             /* the durable store, factor x slower */
    SCN_FAIL_STORE,             /* the durable store fails writes with a probability */
    SCN_SLOW_TASK,              /* a slow operator: its processing cost x factor */
    SCN_PAUSE_MACHINE,          /* a TaskManager stops (GC pause, SIGSTOP) and resumes with its state */
    SCN_PAUSE_COORDINATOR,      /* the JobManager's coordinator stops and resumes */
    SCN_PAUSE_TASK,             /* one task stops and resumes */
    SCN_DELAY_RPC,              /* RPCs of a task (all to the coordinator, or of one kind) delayed */
    SCN_AMBIGUOUS_STORE,        /* the durable store commits writes but reports them failed, with a probability */
    SCN_RESCALE,                /* the JobManager restarts the job with a vertex at a new parallelism (cfg.rescales) */
    SCN_DUPLICATE_RPC,          /* RPCs of a task (all to the coordinator, or of one kind) delivered twice */
    SCN_STOP_JOB,               /* stop-with-savepoint, then the job submitted again from it (cfg.stops) */
    SCN_CANCEL_JOB,             /* cancel, then the job submitted again from its latest retained checkpoint */
} scn_fault_kind;

/* A fault at a named protocol point instead of a time. */
typedef enum scn_point {
    SCN_AT_TIME = 0,
    SCN_WHEN_ALIGNING,          /* task blocked an input for checkpoint n */
    SCN_WHEN_TRIGGERS,          /* task snapshots checkpoint n */
    SCN_WHEN_STARTS,            /* the coordinator triggers checkpoint n */
    SCN_WHEN_COMPLETES,         /* the coordinator completes checkpoint n */
    SCN_WHEN_SNAPSHOT_SYNC,     /* task finished the sync part of checkpoint n (async part begins) */
    SCN_WHEN_COMMITS,           /* sink task committed its transactions up to checkpoint n */
} scn_point;

typedef struct scn_fault {
    scn_fault_kind kind;
    scn_point      point;
    uint32_t       point_vertex, point_subtask;
    uint64_t       point_ckpt;
    sim_time_ns    at_ns, duration_ns, delay_ns;   /* at_ns: with a point, the delay after it */
    uint32_t       machine;
    uint32_t       vertex, subtask;            /* task, or a link's producer */
    uint32_t       vertex2, subtask2;          /* a link's consumer */
    uint64_t       machines_a, machines_b;
    sim_ratio      ratio;
    bool           ha;                         /* ambiguous: the HA services' checkpoint store, not the storage */
    uint32_t       factor;                     /* slow store, slow task */
    uint32_t       parallelism;                /* rescale: the new parallelism of `vertex` */
    sim_time_ns    resume_ns;                  /* stop, cancel: the job is submitted again this long after it ended */
    uint32_t       claim;                      /* stop, cancel: the resume's restore mode (pipe_claim) */
    bool           drain;                      /* stop: with --drain, for good (no resume) */
    uint32_t       rpc;                        /* lose or delay rpc: 1 + the kind's index in pipe_rpc_kind_names,
                                                  0: every message from the task to the coordinator */
    bool           optional;                   /* the line ends with 'optional': it may not fire */
    uint32_t       line;                       /* for messages */
    uint32_t       col;                        /* of what the checks after the file may refuse: a link's producer, else the fault's kind */
} scn_fault;

typedef enum scn_expect_kind {
    SCN_EXPECT_FINISHED = 1,    /* the job reached the end of its input */
    SCN_EXPECT_FAILED,          /* the restart strategy gave up */
    SCN_EXPECT_EXACTLY_ONCE,    /* keyed state equals a failure-free run's */
    SCN_EXPECT_DUPLICATES,      /* keyed state counts some records twice */
    SCN_EXPECT_CHECKPOINTS,     /* completed checkpoints compared with a number */
    SCN_EXPECT_RESTARTS,
    SCN_EXPECT_ABORTED,
    SCN_EXPECT_OUTPUT_EXACTLY_ONCE,   /* visible sink output: every record exactly once (I3) */
    SCN_EXPECT_OUTPUT_AT_LEAST_ONCE,  /* every record at least once (I4) */
    SCN_EXPECT_OUTPUT_DUPLICATES,     /* some record visible more than once */
    SCN_EXPECT_FAILOVERS,             /* coordinator failovers compared with a number */
    SCN_EXPECT_UNALIGNED,             /* tasks that triggered unaligned, compared with a number */
    SCN_EXPECT_LIVENESS,              /* I6 with this bound (value, ns) held; at most one per file */
    SCN_EXPECT_FENCED,                /* messages of old attempts dropped (fenced_data + fenced_rpcs) compared */
    SCN_EXPECT_DURATION,              /* mean duration of the completed checkpoints (value, ns) compared */
    SCN_EXPECT_RELOCATED,             /* tasks restarts deployed onto another machine compared (slots) */
    SCN_EXPECT_BACKPRESSURE,          /* the time a task was held up by backpressure (value, ns) compared */
    SCN_EXPECT_CHECKPOINTED_BYTES,    /* the state bytes written for completed checkpoints compared */
    SCN_EXPECT_RESTARTED_TASKS,       /* tasks restarts deployed again compared (region failover: the failed regions') */
    SCN_EXPECT_RECORDS_READ,          /* records the sources read, replays included, compared */
    SCN_EXPECT_LATE_RECORDS,          /* records windows dropped as late, compared */
    SCN_EXPECT_WINDOWS_FIRED,         /* window firings at the watermark, compared */
    SCN_EXPECT_LATE_FIRINGS,          /* window firings on records within the allowed lateness, compared */
    SCN_EXPECT_RESCALED,              /* deployments that changed a vertex's parallelism, compared */
    SCN_EXPECT_OUTPUT_LOST,           /* some record visible fewer times than the input says */
    SCN_EXPECT_CKPT_TRIGGERED,        /* checkpoint `ckpt` was triggered at `value` (ns), to the precision written */
    SCN_EXPECT_CKPT_COMPLETED,        /* checkpoint `ckpt` completed at `value` (ns), to the precision written */
} scn_expect_kind;

typedef enum scn_cmp { SCN_EQ = 1, SCN_GE, SCN_LE, SCN_GT, SCN_LT } scn_cmp;

typedef struct scn_expect {
    scn_expect_kind kind;
    scn_cmp         cmp;
    uint64_t        value;
    uint32_t        line;
    uint32_t        vertex, subtask;  /* backpressure: the task */
    char            task[40];         /* and its name, as written; a checkpoint's time: the time as written */
    uint64_t        ckpt;             /* a checkpoint's time: the checkpoint */
    sim_time_ns     res_ns;           /* and the precision written: the last digit's worth (15.2ms: 100us) */
} scn_expect;

/* Settings a random fault profile draws too (statement `vary`), so a
 * campaign covers checkpoint settings, restart strategies and RPC
 * latencies besides faults. */
enum {
    SCN_VARY_CHECKPOINT = 1u << 0,    /* interval, timeout, min pause, max concurrent, tolerable, alignment timeout */
    SCN_VARY_RESTART    = 1u << 1,    /* the restart strategy and its parameters */
    SCN_VARY_NETWORK    = 1u << 2,    /* the coordinator's RPC latency */
    SCN_VARY_UNALIGNED  = 1u << 3,    /* Flink's test randomisation: unaligned on or off, aligned timeout 0, 100 ms or 2 s */
};

/* Which fault profile a drawn one is (--faults random, --faults buggify). */
enum { SCN_PROFILE_RANDOM = 0, SCN_PROFILE_BUGGIFY = 1 };

typedef struct scn {
    char       path[256];
    uint32_t   vary;               /* SCN_VARY_* */
    uint8_t    profile;            /* the profile --faults draws: SCN_PROFILE_* (a command's option, no statement) */
    pipe_cfg   cfg;                /* faults live in `faults`, not cfg.faults */
    scn_fault  faults[SCN_FAULTS_MAX];
    uint32_t   faults_count;
    scn_expect expects[SCN_EXPECTS_MAX];
    uint32_t   expects_count;
} scn;

bool scn_load(scn *s, const char *path, char *err, size_t err_bytes);
/* The scenario language's defaults, Flink's (scenarios/README.md lists
 * each with its Flink key): checkpoints off until a checkpoint statement,
 * a 10 min timeout, exponential-delay restarts as Flink 1.19+ (none without
 * checkpoints), a strategy's options at Flink's defaults, a 100 ms buffer
 * timeout. The C API's pipe_cfg_init keeps absim's own. */
void scn_flink_defaults(pipe_cfg *g);
bool scn_parse(scn *s, const char *path, const char *text, size_t len, char *err, size_t err_bytes);

/* Swarm testing: append a fault profile drawn for `seed` (which kinds are
 * on, how many, when, for how long) within [0, horizon_ns), from a stream
 * of its own, so a seed always gets the same profile. Returns the number
 * of faults added (the script is bounded by SCN_FAULTS_MAX). The faults
 * drawn are optional: a random profile is not a script, and some of its
 * faults fall after the job has ended. */
uint32_t scn_random_faults(scn *s, uint64_t seed, sim_time_ns horizon_ns);

/* The settings of s->vary drawn for `seed` into s->cfg (from a stream of
 * their own: the fault draws stay the same); scn_random_faults calls it. */
void scn_random_settings(scn *s, uint64_t seed);

/* A duration as the scenario language writes it ("10ms", "1.5s",
 * "250us"); false and the reason, as the reader says it without a
 * place ("'10xs': unknown unit 'xs' (did you mean 'ms'?)"). */
bool scn_parse_duration(const char *text, sim_time_ns *out, char *err, size_t err_bytes);

/* A duration as a scenario line writes it, in human units ("1.5s",
 * "250us"); scn_parse_duration reads it back. Returns buf. */
const char *scn_duration_text(char *buf, size_t n, sim_time_ns ns);

/* One fault as a scenario line would say it, in human units ("fault at
 * 10ms crash machine 1 for 1.5s", "... optional"), without a newline;
 * scn_parse reads it back to the same fault. Returns buf. */
const char *scn_fault_text(const scn *s, const scn_fault *f, char *buf, size_t n);

/* Fault f's protocol point as a line says it, "when agg[1] aligning 3"
 * (f is at a point, not a time). Returns buf. */
const char *scn_point_text(const scn *s, const scn_fault *f, char *buf, size_t n);
/* What fault f does, without when: "crash machine 1 for 20ms". */
const char *scn_fault_what(const scn *s, const scn_fault *f, char *buf, size_t n);

const char *scn_expect_text(const scn_expect *e, char *buf, size_t size_bytes);

/* The I6 bound `expect liveness D` sets (D > 0), or 0: the checkers'
 * default (check_liveness_default). */
sim_time_ns scn_liveness_ns(const scn *s);

/* Write s back as scenario text that scn_parse reads to the same scenario
 * (every statement spelled out, durations in ns, faults as scn_fault_text
 * writes them). */
void scn_write(const scn *s, FILE *f);
/* s written (scn_write) and read back (scn_parse) into out, which may be
 * s: whether the reader takes s as a file would say it (fault targets
 * that exist, stores the backend has, limits), with its message if not. */
bool scn_reparse(const scn *s, scn *out, char *err, size_t err_bytes);

#endif
