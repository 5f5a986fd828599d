/* model/world.h: what the JobManager and the TaskManagers share without a
 * message, because neither owns it: the configuration both were started
 * with, the simulation kernel, the broker the sources read (Kafka), the
 * checkpoint storage (an HDFS/S3-like store, or the JobManager's heap for
 * the memory backend: model/flow/store.h), the external system behind the
 * sinks, and the instrumentation (statistics, coverage counters,
 * observers), which the model writes and never reads to decide anything.
 *
 * Contract: state of a side (a task's, the coordinator's) is never here;
 * model/tm/ and model/jm/ each see the world and their own structures,
 * and learn of each other only by messages (model/proto.h) or by reading
 * the store, which costs device time. */
#ifndef MODEL_WORLD_H
#define MODEL_WORLD_H

#include "flow/store.h"
#include "flow/window.h"
#include "bugs.h"
#include "cfg.h"
#include "event.h"
#include "proto.h"
#include "reach.h"
#include "stats.h"

/* The completed-checkpoint store of the high-availability services
 * (Flink's ZooKeeper/Kubernetes checkpoint store): the handles of the
 * completed checkpoints, as the coordinator's metadata writes left them,
 * oldest first, with references of its own to their files. It outlives
 * the coordinator: a new one reads it back (model/jm/ha.c). */
typedef struct ha_entry {
    uint64_t  ckpt;
    rt_chain *chains;                 /* by task */
    uint64_t *cs_files;               /* by task */
    uint64_t *offsets;                /* by partition */
    uint8_t  *splits;                 /* by partition: model/jm/jm.h SPLIT_* */
    uint16_t  par[JOB_VERTICES_MAX];  /* the parallelism of each vertex when it was taken */
    bool      unclaimed;              /* a snapshot a resumed job restored in NO_CLAIM mode */
    bool      canonical;              /* a savepoint in the canonical format */
    bool      drained;                /* ... taken with drain */
} ha_entry;

typedef struct ha_store {
    ha_entry *entries;
    uint32_t  count, cap;
} ha_store;

/* The user, a client of the cluster (`flink stop`, `flink cancel`,
 * `flink run -s`): what it holds between a job's end and its resume,
 * outside the JobManager (a new one learns it when the user submits). */
typedef struct pipe_client {
    uint32_t    stops_done;           /* stops and cancels of cfg.stops that ended the job */
    bool        waiting;              /* the job ended: it is submitted again at resume_at_ns */
    sim_time_ns resume_at_ns;
    bool        has_snap;
    ha_entry    snap;                 /* the snapshot it resumes from, with references of its own to its files */
    uint64_t   *end_offsets;          /* by partition: where a drained stop ended the input (NULL: it did not) */
    bool        has_orphan;
    ha_entry    orphan;               /* the savepoint of the last stop a new JobManager left unfinished: the
                                         user keeps the newest such, and deletes the one before */
} pipe_client;

struct pipe_world {
    pipe_cfg   cfg;
    sim_run   *run;
    broker     brk;
    store      files;                 /* checkpoint state files and the shared-state registry */
    uint32_t   store_dev;             /* durable store */
    uint32_t   memory_dev;            /* memory backend: the transfer to the JobManager's heap */
    uint32_t   ha_dev;                /* the completed-checkpoint store of the HA services (ZooKeeper) */
    uint8_t   *sink_seen;             /* the sinks' external system: by broker_index, then window results (world_result_index) */
    /* Window results in the external system. A window-key is (window
     * vertex, window, key); each firing of it has a sink_seen entry after
     * the broker's records, and the window-key the value of the highest
     * firing made visible. Sized at set-up from the broker's event times. */
    uint64_t   res_first[JOB_VERTICES_MAX];   /* by vertex: its first window-key */
    uint64_t   res_windows[JOB_VERTICES_MAX]; /* by vertex: window numbers (win_count) */
    uint64_t   res_keys;                      /* keys per window: the broker's key range */
    uint64_t   res_count;                     /* window-keys of every window vertex */
    int64_t   *res_value;                     /* by window-key */
    uint8_t   *res_top;                       /* by window-key: that firing + 1, 0: none visible */
    int64_t   *res_most;                      /* by window-key: the highest value of any firing made visible */
    bool       event_time;                    /* some source emits watermarks */
    ha_store   ha;                    /* durable backend: the completed checkpoints' handles */
    pipe_client client;               /* cfg.stops: the user's side of a stop or cancel and its resume */
    pipe_stats stats;
    pipe_observe_fn observe[PIPE_OBSERVERS_MAX];
    void      *observe_ctx[PIPE_OBSERVERS_MAX];
    uint32_t   observers;
    uint32_t   msg_observers;         /* bit i: observer i takes the message steps too */
    uint64_t   reach[PIPE_REACH_COUNT];   /* protocol coverage: written, never read, by the model */
    /* For the reports, never read by the model: by partition, where its
     * reader of the newest attempt is (an old attempt's zombie does not
     * move it back), and the records its readers were rewound by, summed
     * over the restores (pipe_partitions_rewound). */
    uint64_t  *read_pos, *read_epoch, *rewound;
};
typedef struct pipe_world pipe_world;

/* The window-key of result id (model/flow/window.h), and its firing's
 * sink_seen index. */
static inline uint64_t world_result_wkey(const pipe_world *w, uint64_t id) {
    uint32_t v = win_result_vertex(id);
    uint64_t wi = win_result_index(id), key = win_result_key(id);
    SIM_ASSERT(wi < w->res_windows[v] && key < w->res_keys);
    return w->res_first[v] + wi * w->res_keys + key;
}
static inline uint64_t world_result_index(const pipe_world *w, uint64_t id) {
    return w->brk.records + world_result_wkey(w, id) * WIN_FIRINGS_MAX + win_result_firing(id);
}

enum {                               /* storage operation tags: ckpt << 2 | what */
    IO_KEYED = 0,                    /* a task's keyed state */
    IO_CHANNELS = 1,                 /* a task's channel state (unaligned) */
    IO_METADATA = 2,                 /* the coordinator's checkpoint metadata */
    IO_RESTORE = 3,                  /* a task reads the state its deployment names */
};

/* A source of attempt `epoch` read partition `part` up to `pos`; or set
 * it there for a restore or an assignment (world_rewind: a position
 * behind the reader's counts as rewound). */
static inline void world_read(pipe_world *w, uint32_t part, uint64_t epoch, uint64_t pos) {
    if (epoch < w->read_epoch[part]) return;
    w->read_pos[part] = pos;
    w->read_epoch[part] = epoch;
}
static inline void world_rewind(pipe_world *w, uint32_t part, uint64_t epoch, uint64_t pos) {
    if (epoch < w->read_epoch[part]) return;
    if (w->read_pos[part] > pos) w->rewound[part] += w->read_pos[part] - pos;
    world_read(w, part, epoch, pos);
}

/* Count a reach point (model/reach.c) in world w. */
#define REACHED(w, point) ((void)((w)->reach[PIPE_REACH_##point]++))

static inline const job *world_job(const pipe_world *w) { return &w->cfg.graph; }
static inline bool world_observed(const pipe_world *w) { return w->observers > 0; }

/* Report a protocol step to the observers, in registration order; the
 * caller fills everything but the time. One branch when nobody observes. */
void world_note_ev(pipe_world *w, pipe_event *e);

/* Whether an observer takes message steps, and the report of one to those
 * that do (the caller fills everything but the time). */
static inline bool world_msgs(const pipe_world *w) { return w->msg_observers != 0; }
void world_note_msg(pipe_world *w, pipe_event *e);

#endif
