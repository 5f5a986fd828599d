/* flink/fhist.h: a real Flink job's checkpoint history, and the protocol's
 * rules checked on it.
 *
 * Contract: fhist_read() reads the REST answer GET /jobs/:jobid/checkpoints
 * (CheckpointingStatistics, Flink 1.7 to 2.x: `@class` up to 1.14,
 * `className` from 1.15, "NaN" strings where nothing was measured) into an
 * fhist: its counts, every checkpoint of `history` and `latest` (merged by
 * id, sorted by id), and the latest restore. fhist_details() adds what
 * GET .../checkpoints/details/:id and .../subtasks/:vertexid files hold.
 * fhist_check() then checks the rules below against the configuration the
 * job ran with and returns the findings, each naming its rule, its
 * checkpoint and the fields it read. Every rule only flags what the
 * fields prove: a time the history lacks (a completion, which comes after
 * the latest acknowledgement) is bounded on the side that cannot make a
 * correct run look wrong. Errors name the file and a JSON path. */
#ifndef FHIST_H
#define FHIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fconf.h"

#define FHIST_CKPTS_MAX    65536u
#define FHIST_FINDINGS_MAX 256u

typedef enum fhist_status { FH_IN_PROGRESS, FH_COMPLETED, FH_FAILED } fhist_status;

typedef struct fhist_ckpt {
    int64_t      id;
    fhist_status status;
    bool         savepoint;
    bool         unaligned;          /* checkpoint_type UNALIGNED_CHECKPOINT (1.16.3/1.18+), or a subtask said so */
    char         type[24];           /* checkpoint_type, "" before 1.12 */
    int64_t      trigger_ms, ack_ms; /* ack_ms: latest_ack_timestamp, -1: none */
    int64_t      e2e_ms;             /* end_to_end_duration, -1: nothing acknowledged */
    int64_t      failure_ms;         /* -1: not failed */
    int64_t      subtasks, acked;
    int64_t      state_bytes;
    char         failure[240];
    char         where[48];          /* its JSON path, "$.history[3]" */
    uint32_t     detail_tasks;       /* from a details file: tasks seen, and those not all acknowledged */
    uint32_t     detail_unacked;
} fhist_ckpt;

typedef struct fhist {
    char        path[1024];
    int64_t     total, in_progress, completed, failed, restored;   /* counts; -1 absent */
    fhist_ckpt *ckpts;                 /* by id */
    uint32_t    count;
    bool        has_restore;
    int64_t     restore_id, restore_ms;
    bool        restore_savepoint;
    char        class_key[12];         /* "@class", "className" or "" */
    uint32_t    dups;                  /* ids that `history` lists twice */
    int64_t     dup_id;                /* the first of them */
} fhist;

bool fhist_read(const char *path, fhist *h, char *err, size_t n);
/* Every *.json file of dir that is a checkpoint's details or a subtask's
 * details; false with a sentence for a file that does not read. */
bool fhist_details(fhist *h, const char *dir, uint32_t *files, char *err, size_t n);
void fhist_free(fhist *h);

typedef enum fhist_rule {
    FR_IDS,          /* ids rise with trigger time, none twice; counts add up */
    FR_ACKED,        /* a completed checkpoint was acknowledged by every subtask */
    FR_CONCURRENT,   /* at most max-concurrent checkpoints pending at once */
    FR_MIN_PAUSE,    /* no trigger sooner than min-pause after a completion */
    FR_INTERVAL,     /* periodic triggers on the scheduler's ticks an interval apart (not after a slow or
                        failed checkpoint, nor across a restore) */
    FR_TIMEOUT,      /* completed within the timeout; expired ones at it */
    FR_UNALIGNED,    /* unaligned only where enabled, and after the aligned timeout */
    FR_RESTORE,      /* a restore is of the latest completed checkpoint (or a savepoint) */
    FR_TOLERABLE,    /* past tolerable counted failures (those of the history's era) the job fails over */
    FR_COUNT
} fhist_rule;

const char *fhist_rule_name(fhist_rule r);
const char *fhist_rule_text(fhist_rule r);

typedef struct fhist_finding {
    fhist_rule rule;
    int64_t    ckpt;                   /* -1: the history as a whole */
    char       text[400];
} fhist_finding;

typedef struct fhist_result {
    fhist_finding found[FHIST_FINDINGS_MAX];
    uint32_t      count, dropped;
    uint32_t      checked[FR_COUNT];   /* how many times each rule was applied */
} fhist_result;

/* c: the configuration the job ran with (Flink's defaults when the user
 * gave none); tol_ms: the slack allowed where Flink's own clocks differ
 * (a trigger's timestamp is taken before its timer is armed). */
void fhist_check(const fhist *h, const fconf *c, int64_t tol_ms, fhist_result *r);

#endif
