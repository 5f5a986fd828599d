/* model/cfg.h: the configuration of a job run (pipe_cfg) and its pure
 * functions: the defaults (Flink's where Flink has one), validation
 * (cfg_check: user input never asserts), the rescale schedule, the
 * heartbeat settings, the restart strategy's rules, the window bounds.
 *
 * Contract: nothing here reads or changes a run; every function is a
 * function of a pipe_cfg alone. A floor below world.h, tm/ and jm/:
 * it includes sim/, model/flow/ and model/bugs.h only. */
#ifndef MODEL_CFG_H
#define MODEL_CFG_H

#include "../sim/choice.h"
#include "../sim/run.h"
#include "bugs.h"
#include "flow/broker.h"
#include "flow/gate.h"
#include "flow/job.h"
#include "flow/kstate.h"
#include "flow/restart.h"

#include "flow/kstate.h"
#include "flow/restart.h"

#define PIPE_MACHINES_MAX 32u
#define PIPE_RETAINED_MAX 16u
#define PIPE_CONCURRENT_MAX 8u
#define PIPE_FAULTS_MAX 64u
#define PIPE_SOURCE_PARTS_MAX 64u       /* partitions one source task reads at most (its ack carries their offsets) */
#define PIPE_TASK_SLOTS_MAX 64u         /* slots per machine */
#define PIPE_SLOTTED_PEERS_MAX 128u     /* with slots: a task's inputs and outputs (its deployment names their hosts) */
#define PIPE_STOPS_MAX 4u               /* stops and cancels a run's schedule holds */
#define PIPE_RESCALES_MAX 8u            /* rescales a run's schedule holds */
#define PIPE_RESCALE_HANDLES_MAX 8u     /* keyed-state handles (old subtasks) one rescaled task reads at most */
/* PCT's near window: at most 100 us (twice the default data latency). An
 * actor that keeps losing near decisions runs each event up to the window
 * late; wider windows slowed correct runs past the checks' time bounds
 * (I6 at 1 ms on faults/liveness-bound.scn, seed 1), which do not know
 * of it. */
#define PIPE_PCT_NEAR_MAX_NS (100u * 1000u)

typedef enum pipe_mode {
    PIPE_ALIGNED = 1,
    PIPE_AT_LEAST_ONCE,
    PIPE_UNALIGNED,                   /* barriers overtake in-flight data (P5) */
} pipe_mode;

typedef enum pipe_backend {
    PIPE_BACKEND_MEMORY = 1,          /* snapshots kept by the coordinator (JobManager heap) */
    PIPE_BACKEND_DURABLE,             /* an HDFS/S3-like store on the kernel's storage device */
} pipe_backend;

/* Where and how snapshots are written (P6, P7). */
typedef struct pipe_state_cfg {
    pipe_backend backend;
    bool         async;               /* false: the whole write blocks the task (the ABS paper's baseline) */
    bool         incremental;         /* write only keys changed since the last confirmed checkpoint */
    uint32_t     full_every;          /* incremental: a full snapshot after this many increments */
    bool         changelog;           /* FLIP-158: state changes to a durable log, materialized periodically */
    sim_time_ns  materialize_ns;      /* changelog: state.changelog.periodic-materialize.interval (Flink: 10 min) */
    sim_time_ns  sync_ns;             /* the synchronous part's fixed cost (mark a version) */
    dev_cfg      store;               /* durable: the store's latency and bandwidth */
    dev_cfg      memory;              /* memory: the transfer to the coordinator */
} pipe_state_cfg;

#define PIPE_SLOW_MAX 16u

typedef struct pipe_slow {            /* a slow operator: its task's cost x factor for a while */
    uint32_t    task;
    sim_time_ns at_ns;
    sim_time_ns duration_ns;
    uint32_t    factor;
} pipe_slow;

typedef enum pipe_restart {
    PIPE_RESTART_NONE = 1,            /* the first failure fails the job */
    PIPE_RESTART_FIXED_DELAY,
    PIPE_RESTART_FAILURE_RATE,
    PIPE_RESTART_EXPONENTIAL,
} pipe_restart;

typedef struct pipe_ckpt_cfg {
    bool        enabled;
    pipe_mode   mode;
    sim_time_ns interval_ns;
    sim_time_ns min_pause_ns;
    sim_time_ns timeout_ns;
    uint32_t    max_concurrent;
    uint32_t    tolerable_failures;   /* consecutive failed checkpoints tolerated */
    uint32_t    retained;             /* completed checkpoints kept */
    bool        legacy_eop;           /* end of partition aborts (Flink < 1.14) */
    /* Checkpoints after tasks finish (FLIP-147, Flink's default since
     * 1.15) off: a task finishes at the end of its input, and once one
     * has, no checkpoint is triggered or completes (Flink < 1.14). */
    bool        finished_tasks_off;
    sim_time_ns alignment_timeout_ns; /* aligned: switch to unaligned once a checkpoint is this old (0: never) */
} pipe_ckpt_cfg;

/* What a task's failure restarts (Flink's jobmanager.execution.failover-strategy). */
typedef enum pipe_failover {
    PIPE_FAILOVER_REGION = 0,         /* its pipelined region (job_regions), the default as in Flink */
    PIPE_FAILOVER_FULL,               /* every task */
} pipe_failover;

typedef struct pipe_restart_cfg {
    pipe_restart kind;
    pipe_failover failover;           /* a failure with no task to blame (checkpoints, the store) restarts all */
    uint32_t     attempts;            /* fixed delay: restarts allowed */
    sim_time_ns  delay_ns;            /* fixed delay, failure rate */
    uint32_t     max_failures;        /* failure rate: per interval */
    sim_time_ns  interval_ns;         /* failure rate */
    sim_time_ns  initial_ns;          /* exponential */
    sim_time_ns  max_ns;              /* exponential */
    uint32_t     multiplier_milli;    /* exponential, x1000 */
    sim_time_ns  reset_ns;            /* exponential: quiet time that resets the delay */
    uint32_t     jitter_milli;        /* exponential: jitter factor x1000 */
    uint32_t     attempts_before_reset;   /* exponential: attempts allowed until a reset (RS_UNLIMITED: no limit) */
} pipe_restart_cfg;

/* The strategy's rules (model/flow/restart.h) for this configuration, in
 * nanoseconds. */
rs_cfg pipe_restart_rules(const pipe_restart_cfg *r);

/* A rescale: from at_ns on, vertex `vertex` runs at `parallelism` (the
 * JobManager restarts the job for it at at_ns). */
typedef struct pipe_rescale {
    sim_time_ns at_ns;
    uint32_t    vertex;
    uint32_t    parallelism;
} pipe_rescale;

/* How a resumed job takes the snapshot it starts from (FLIP-193, Flink
 * 1.15: execution.savepoint-restore-mode, from 1.20
 * execution.state-recovery.claim-mode; RestoreMode / RecoveryClaimMode),
 * as CheckpointCoordinator.restoreSavepoint and SharedStateRegistryImpl
 * define them. */
typedef enum pipe_claim {
    PIPE_CLAIM_NO_CLAIM = 1,          /* the default: the snapshot stays the user's, the first checkpoint is full */
    PIPE_CLAIM_CLAIM,                 /* the job owns it: subsumed and deleted like its own checkpoints */
    PIPE_CLAIM_LEGACY,                /* never deleted, but later checkpoints may share its files (deprecated in 1.19) */
} pipe_claim;

typedef enum pipe_halt {
    PIPE_HALT_STOP = 1,               /* stop-with-savepoint, no drain (SavepointType.suspend) */
    PIPE_HALT_CANCEL,                 /* cancel; the retained checkpoints stay (RETAIN_ON_CANCELLATION) */
} pipe_halt;

/* A stop or cancel of the job at at_ns, and the job submitted again
 * resume_ns after it ended, from the savepoint (stop) or the latest
 * retained checkpoint (cancel), in restore mode `claim`; or a stop with
 * drain, after which the job is over (the last of the schedule). */
typedef struct pipe_stop {
    sim_time_ns at_ns;
    pipe_halt   how;
    sim_time_ns resume_ns;
    pipe_claim  claim;
    bool        drain;                /* a stop with --drain (SavepointType.terminate): the job ends for good */
} pipe_stop;

typedef struct pipe_cfg {
    uint64_t         seed;
    pipe_bug         bug;
    job              graph;
    broker_cfg       broker;
    uint64_t         source_rate_per_s;   /* records per second per source task; 0: as fast as possible */
    pipe_ckpt_cfg    ckpt;
    pipe_state_cfg   state;
    pipe_restart_cfg restart;
    uint32_t         machines;
    /* Slots per machine (Flink's taskmanager.numberOfTaskSlots, slot
     * sharing on: a slot holds one task of every vertex). 0: no slots,
     * each task has its own on its machine and waits for it after a
     * failure. With slots a restart deploys the tasks of a lost
     * TaskManager onto free slots of the others. */
    uint32_t         task_slots;
    sim_time_ns      latency_ns;          /* data links */
    sim_time_ns      jitter_ns;
    uint64_t         bandwidth_bytes_per_s;
    sim_time_ns      rpc_latency_ns;      /* coordinator <-> tasks */
    sim_time_ns      heartbeat_interval_ns;   /* the coordinator asks every TaskManager this often (0: 50 RPC latencies) */
    sim_time_ns      heartbeat_timeout_ns;    /* silent this long: its TaskManager is lost (0: five intervals) */
    uint32_t         credits;             /* receive buffers per channel */
    uint32_t         out_queue;           /* send buffers per channel before backpressure */
    sim_time_ns      buffer_timeout_ns;   /* flush partial buffers after this idle time */
    sim_time_ns      time_max_ns;
    uint64_t         events_max;
    fault_spec       faults[PIPE_FAULTS_MAX];   /* targets: see pipe_task_actor, machines */
    uint32_t         faults_count;
    pipe_slow        slow[PIPE_SLOW_MAX];       /* slow operators */
    uint32_t         slow_count;
    pipe_rescale     rescales[PIPE_RESCALES_MAX];   /* the rescale schedule, in time order */
    uint32_t         rescales_count;
    pipe_stop        stops[PIPE_STOPS_MAX];     /* stops and cancels with their resumes, in time order */
    uint32_t         stops_count;
    /* Filled by pipe_create in its copy (pipe_config): each vertex's
     * parallelism as written, before the graph was expanded at the
     * largest one of the schedule (0: not filled, the graph's). */
    uint32_t         start_parallelism[JOB_VERTICES_MAX];
    /* The order of simultaneous events (sim/choice.h, choice_deviate):
     * by default the order they were pushed in; each of ties (at most
     * CHOICE_TIES_MAX, strictly increasing decisions) lets its at-th
     * decision among simultaneous events (1-based) have its pick-th ready
     * destination go first instead (`schedule tie N pick K` lines; absim
     * explore --ties lists such orders). ties_counted: the decisions meet
     * the choice point and are counted, with or without ties. */
    choice_tie       ties[CHOICE_TIES_MAX];
    uint32_t         ties_count;
    bool             ties_counted;
    /* Or PCT (sim/choice.h, choice_pct) orders them: pct_depth d >= 1
     * (0: off) with d - 1 priority change points among pct_steps order
     * decisions (`schedule pct depth D [steps K]`). The run's seed draws
     * the priorities. pipe_create needs pct_steps: a file that leaves
     * them out gets, from cli_pct_resolve, as many as the same run takes
     * in the default order, its faults armed. pct_near_ns > 0 (`near
     * T`) lets every decision also take the events due within it of the
     * earliest (sim/run.h, near_ns): near-simultaneous events, the
     * earlier ones waiting for a later pick; at most PIPE_PCT_NEAR_MAX_NS. */
    uint32_t         pct_depth;
    uint64_t         pct_steps;
    sim_time_ns      pct_near_ns;
} pipe_cfg;

/* The parallelism vertex v runs at from time t on: the last rescale of
 * it at or before t, else its parallelism as written. */
uint32_t pipe_parallelism_at(const pipe_cfg *cfg, uint32_t vertex, sim_time_ns t);
/* The largest and smallest parallelism vertex v takes over the run. */
uint32_t pipe_parallelism_max(const pipe_cfg *cfg, uint32_t vertex);
uint32_t pipe_parallelism_min(const pipe_cfg *cfg, uint32_t vertex);

/* The defaults, into *c. A pipe_cfg is large (the job graph, about 280
 * KB): keep it off the stack (pipe_cfg_default returns a copy, for tests,
 * which run with a full-size stack). */
void     pipe_cfg_init(pipe_cfg *c, uint64_t seed);
pipe_cfg pipe_cfg_default(uint64_t seed);
/* A free slot is offered again this many RPC latencies after the last
 * offer (a TaskManager registers again quickly; its offers are small). */
#define PIPE_SLOT_RETRY_RPCS 5u

/* A split assignment (an operator event) not acknowledged within this many
 * RPC latencies is lost: the job fails over. */
#define PIPE_ASSIGN_TIMEOUT_RPCS 20u

/* The heartbeat interval and timeout a configuration runs with. */
void pipe_heartbeat(const pipe_cfg *c, sim_time_ns *interval_ns, sim_time_ns *timeout_ns);

/* NULL when every window vertex of c fits the model's bounds (its window
 * numbers, its tasks' maps whatever the keys' spread over the subtasks,
 * a map of its whole state, the external system's results), else what
 * is wrong, and *vertex says which window. pipe_create refuses the same. */
const char *pipe_window_problem(const pipe_cfg *c, uint32_t *vertex, char *err, size_t n);

/* Entries a map of window vertex v's whole state may need, with a late
 * aggregate per window-key beside its contents and timer, and one per key:
 * every window of every key, or fewer when the input's records touch
 * fewer (what a fold of the input for the checkers holds at most). */
uint64_t pipe_window_vertex_entries(const pipe_cfg *c, uint32_t v);
/* Keys a map of vertex v's state holds at most (a join tags each key by
 * its input; a window: pipe_window_vertex_entries): what a map to fold the
 * input into, or to read a checkpoint of it back into, must take. */
uint32_t pipe_vertex_map_keys(const pipe_cfg *c, uint32_t v);

/* NULL when c's stops and cancels (cfg.stops) can run, else what is
 * wrong, written into err; cfg_check refuses the same. */
const char *pipe_stops_problem(const pipe_cfg *c, char *err, size_t n);

/* NULL when c is valid, else what is wrong, written into err. */
const char *cfg_check(const pipe_cfg *c, char *err, size_t n);
/* Graph g (a copy of c->graph) with every vertex at the largest parallelism
 * it takes over the rescale schedule; start[v]: its parallelism as written. */
void cfg_widen(const pipe_cfg *c, job *g, uint32_t *start);

/* The most keys of [0, keys) subtask s of vertex v is routed at any
 * parallelism the schedule gives v, into routed[s] (max() with what is
 * there): what a keyed task's map is sized for. */
void cfg_routed(const pipe_cfg *cfg, uint32_t v, uint32_t max_parallelism, uint64_t keys, uint32_t *routed);
/* Map entries a subtask of window vertex x that `routed` keys go to may hold. */
uint64_t cfg_window_entries(const pipe_cfg *cfg, const job_vertex *x, uint64_t routed);

#endif
