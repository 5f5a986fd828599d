/* cli/cli.h: the absim command's subcommands and shared argument parsing.
 *
 * Contract: every subcommand takes (argc, argv) with argv[0] its own name,
 * parses with getopt_long, answers --help on stdout with exit 0, and returns
 * the process exit status: 0 ok, 1 a violation or failed expectation,
 * 2 bad input (with one line on stderr saying what is wrong). */
#ifndef CLI_H
#define CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../check/check.h"
#include "../reports/holds.h"
#include "../reports/html.h"
#include "../reports/rpt.h"
#include "../reports/svg.h"
#include "../scenarios/fkind.h"
#include "../scenarios/inject.h"
#include "../scenarios/space.h"
#include "../scenarios/buggify.h"
#include "../flink/fimport.h"

enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

int cli_bench(int argc, char **argv);
int cli_kernel_demo(int argc, char **argv);
int cli_gate(int argc, char **argv);
int cli_coord(int argc, char **argv);
int cli_run(int argc, char **argv);
int cli_replay(int argc, char **argv);
int cli_swarm(int argc, char **argv);
int cli_explain(int argc, char **argv);
int cli_diff(int argc, char **argv);
int cli_shrink(int argc, char **argv);
int cli_import(int argc, char **argv);
int cli_conform(int argc, char **argv);

/* absim import's work (cli/import.c), for conform --plan too: the plan
 * and configuration read, the job built and its scenario text written
 * into *text (malloc'd, *len bytes); the command line (argc, argv) goes
 * into the file's header. False after saying why on stderr (exit 2). */
typedef struct cli_import_req {
    const char  *plan, *config, *out;
    fconf_format format;
    fimp_opts    o;
} cli_import_req;
bool cli_import_text(const char *prog, const cli_import_req *a, int argc, char **argv, char **text, size_t *len,
                     fimp_job *j, uint32_t *unmodelled);

/* The failures of one run, in the order they are found: the violations
 * the checkers kept, the expect lines that failed, the scripted faults
 * that never fired (or the one error that stopped the run). A run can
 * have up to CHECK_KEPT_MAX + SCN_EXPECTS_MAX + SCN_FAULTS_MAX of them;
 * the first CLI_FAILURES_MAX are kept, each cut to CLI_FAILURE_BYTES - 1
 * bytes (ending in "..." when cut), and the others only counted: the
 * list travels in every pool record, so it has a fixed size. */
#define CLI_FAILURES_MAX  16u
#define CLI_FAILURE_BYTES 400u

typedef struct cli_failures {
    uint32_t count;                                  /* text[0 .. count - 1] */
    uint32_t dropped;                                /* found after the list was full */
    char     text[CLI_FAILURES_MAX][CLI_FAILURE_BYTES];
} cli_failures;

/* Appends one failure ("file:line: expectation failed: ..."). */
void cli_failure_add(cli_failures *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The list on one line, "a; b; c (and N more)", cut to fit buf. */
void cli_failures_join(const cli_failures *f, char *buf, size_t n);
/* "failures":[...],"failures_dropped":N for a JSON object. */
void cli_failures_json(FILE *out, const cli_failures *f);

/* cli/text.c: s as a JSON string (quoted), or as XML text (attr: inside
 * an attribute's quotes); a byte that is not valid UTF-8 becomes '?'. */
void cli_json_string(FILE *f, const char *s);
/* The protocol a run follows, as scenario lines say it ("checkpoint mode
 * aligned interval 5ms ...; restart fixed-delay ..."), and, when one is
 * on, the deliberate bug and what it breaks (cli/story.c). */
void cli_protocol_words(const pipe_cfg *c, char *buf, size_t n);
void cli_xml_string(FILE *f, const char *s, bool attr);
/* s as one shell word for a command absim prints: as it is when every
 * byte is safe (letters, digits, and _ - . / : = + , @ %), else in single
 * quotes with each ' written '\''. Into buf (cut at a byte boundary when
 * short: a caller sizes buf for paths); returns buf. */
const char *cli_shell_word(const char *s, char *buf, size_t n);

/* The program as the user invoked it (argv[0] of main: build/absim,
 * ./absim, or absim found on PATH), shell-quoted: the first word of every
 * command absim prints for the user to run, so it runs as printed from
 * where it was invoked. "absim" until main sets it. */
/* What checkpoint ckpt holds (reports/holds.h reads it back from the
 * store), in explain's words (cli/holds.c): a line with the sources'
 * offsets, each stateful task's keys and the channel state by task, or
 * with detail a line per part. at_ns: when it completed (its attempt's
 * parallelism then names the key groups). */
void cli_holds_tell(const pipeline *p, rpt_holds *h, uint64_t ckpt, sim_time_ns at_ns, bool detail,
                    void (*emit)(void *ctx, const char *text), void *ctx);

void cli_self_set(const char *argv0);
const char *cli_self(void);

/* What happened in a run (cli/story.c), for its summary and --json: each
 * fault of the script (when it was due, began and ended, which tasks a
 * machine crash took down), each failure of the job (when, which task,
 * why, the fault behind it) and each restart (when, from which
 * checkpoint, how many records the sources rewound). Gathered by
 * observing the run's fault steps (fault_observe) and protocol steps,
 * never by acting on it: the run, and its trace hash, stay the same. */
#define CLI_STORY_MAX 32u             /* failures and restarts told; the rest counted */
#define CLI_STORY_NAME 48u
#define CLI_STORY_VICTIMS 160u

typedef struct cli_fault_fate {
    bool        due, begun, ended;    /* due: handed to the run (a point fault: its point was reached) */
    sim_time_ns due_ns, begun_ns, ended_ns;
    char        victims[CLI_STORY_VICTIMS];   /* crash machine: its tasks, "source[1] map[1]" */
} cli_fault_fate;

enum { CLI_FAILOVER = 100 };          /* a cli_incident cause besides pipe_fail_cause */

typedef struct cli_incident {
    sim_time_ns at_ns;
    uint32_t    cause;                /* pipe_fail_cause, or CLI_FAILOVER */
    char        culprit[CLI_STORY_NAME];   /* the task, "" when none */
    uint32_t    fault;                /* the script's fault behind it, or UINT32_MAX */
    uint64_t    ckpt;                 /* checkpoint failures: the one that was one too many */
    pipe_ckpt_end ckpt_end;
    uint32_t    ckpt_why;             /* its abort's reason (ckr_why), 0: none given */
    bool        txn_full;             /* the culprit's transaction log was full */
    uint32_t    restart;              /* the restart that followed (1, 2, ...), 0: none */
} cli_incident;

#define CLI_PARTS_TOLD 8u            /* partitions a restart line lists one by one */

typedef struct cli_restart {
    sim_time_ns at_ns;
    uint64_t    restored;             /* the checkpoint restored, 0: from the beginning */
    sim_time_ns restored_ns;          /* when it completed (or, aborted, when its coordinator aborted it) */
    bool        restored_aborted;     /* its coordinator aborted it: a later one found it in the store */
    uint64_t    rewound;              /* records the sources rewound (read again) */
    uint64_t    part_rewound[CLI_PARTS_TOLD];   /* ... by partition, the first CLI_PARTS_TOLD */
    uint32_t    parts;                /* partitions of the job */
    uint32_t    moved;                /* tasks deployed onto another machine than before (slots) */
    uint32_t    moved_vertex[4], moved_subtask[4], moved_to[4];   /* the first of them, and where */
    uint32_t    regions;              /* region failover: the regions restarted (0: every task) */
    uint32_t    tasks, of;            /* ... their tasks, of the job's */
    char        who[160];             /* ... the first of them, "src[1] map[1] out[1]" */
} cli_restart;

typedef struct cli_story {
    cli_fault_fate faults[SCN_FAULTS_MAX];         /* by the script's index */
    uint8_t        order[SCN_FAULTS_MAX];          /* the script's faults in the order they were due */
    uint32_t       faults_count, scripted;         /* scripted: not drawn by --faults random */
    cli_incident   incidents[CLI_STORY_MAX];
    uint32_t       incidents_count, incidents_all;
    cli_restart    restarts[CLI_STORY_MAX];
    uint32_t       restarts_count, restarts_all;
    uint64_t       pending[8];                     /* checkpoints pending at the end */
    uint32_t       pending_count;
    bool           drawn;                          /* vary drew settings (--faults random) */
    sim_time_ns    end_ns;
    uint64_t       fenced_data, fenced_rpcs;       /* messages of old attempts dropped (pipe_stats), at the end */
    uint64_t       lost_held, lost_paused;       /* RPC messages past the kernel's bounds (sim_stats), at the end */
} cli_story;

/* The run-time side: what the observers need while the run goes on. */
typedef struct cli_story_run {
    cli_story       *st;
    const scn       *s;
    pipeline        *p;
    const scn_armed *arm;
    rpt_recorder    *rec;             /* --trace (and --dot): steps go on to rpt_observe; NULL: none */
    bool             has_slow;        /* the script has slow task windows (told as the run passes them) */
    sim_time_ns      slow_next_ns;    /* no slow window begins or ends before this: steps before it skip the scan */
    bool             slow_begun[SCN_FAULTS_MAX], slow_ended[SCN_FAULTS_MAX];   /* slow task windows told */
    uint64_t         rewound_sum;
    uint64_t        *rewound_at;      /* by restart told, then partition: pipe_partitions_rewound at its step */
    sim_time_ns      last_recovery_ns;
    uint64_t         abort_ckpt;      /* the last checkpoint aborted, and how */
    pipe_ckpt_end    abort_end;
    uint32_t         abort_why;       /* ckr_why */
    uint64_t         txn_overflows;
    uint8_t          host[JOB_TASKS_MAX];   /* each task's machine at its last deployment */
    /* Optional listeners (absim explain): each fault's beginning and end as
     * the run passes it, and every step after the story has seen it. */
    void           (*on_fault)(void *ctx, uint32_t fault, sim_time_ns at_ns, bool begin);
    void            *on_fault_ctx;
    pipe_observe_fn  then;
    void            *then_ctx;
} cli_story_run;

/* Before the run: scn_arm_faults(s, p, arm, cli_story_observe, r) after
 * cli_story_begin(r, ...) (rec NULL when there is no --trace or --dot). */
void cli_story_begin(cli_story_run *r, cli_story *st, const scn *s, pipeline *p, const scn_armed *arm,
                     rpt_recorder *rec, bool drawn);
void cli_story_observe(void *ctx, const pipe_event *e);
/* After the run, with the pipeline still there. */
void cli_story_end(cli_story_run *r);
/* The summary's lines: the faults (sorted by time), the settings vary
 * drew; then the failures and restarts, and checkpoints pending at the
 * end. */
void cli_story_faults(FILE *out, const scn *s, const cli_story *st);
void cli_story_recovery(FILE *out, const scn *s, const cli_story *st, pipe_status status);
/* What fault i of s does as it begins (or ends), in words, with its
 * scenario line: "machine 0 crashes, with source[0] map[0] on it (line
 * 22: fault at 53ms crash machine 0 for 10ms)". */
void cli_fault_words(const scn *s, const cli_story *st, uint32_t i, bool begin, char *buf, size_t n);
/* --json members: ,"faults":[...],"recovery":[...],"pending":[...],"fenced_data":N,"fenced_rpcs":N,"rpc_lost_held":N,"rpc_lost_paused":N,"drawn":{...} */
void cli_story_json(FILE *out, const scn *s, const cli_story *st);

/* --pct DEPTH[/STEPS][~NEAR] (run, replay, swarm, shrink, explain): PCT
 * orders the run's simultaneous events (and with ~NEAR those due within
 * NEAR of each other), as the line `schedule pct depth D steps K near T`
 * would (model/cfg.h, pct_depth). parse: false after saying what is
 * wrong. apply: puts it on s (nothing for depth 0), over a schedule pct
 * line of the file; false after saying why when the file has a schedule
 * tie line. words: " --pct D[/K]" (or "" for depth 0) into buf. */
typedef struct cli_pct {
    uint32_t    depth;
    uint64_t    steps;            /* 0: as many as the default order's run takes */
    sim_time_ns near_ns;          /* 0: simultaneous events only; else `near` (model/cfg.h, pct_near_ns) */
} cli_pct;
bool cli_parse_pct(const char *prog, const char *text, cli_pct *o);
bool cli_apply_pct(const char *prog, scn *s, const cli_pct *o);
const char *cli_pct_words(const cli_pct *o, char *buf, size_t n);
/* The option's value as reports name it: "3", "3/250", "3~20us", or "none" for depth 0. */
const char *cli_pct_value(const cli_pct *o, char *buf, size_t n);

/* schedule pct without steps (cfg->pct_depth > 0, pct_steps 0): the
 * order decisions that cfg's run takes in the default order, with s's
 * faults armed as a run arms them (those at protocol points too), counted
 * by running it once without the checkers, into cfg->pct_steps (at least
 * 1). Every command that runs a scenario calls it first, so that they
 * all run the same PCT run for the same file and seed. False and err
 * when the run cannot be built. */
bool cli_pct_resolve(const scn *s, pipe_cfg *cfg, char *err, size_t err_bytes);

/* What PCT did in a run (sim/choice.h, choice_pct): its depth (0: the
 * run had no PCT) and steps, the order decisions the run took, the
 * destinations met, the change points reached, and the guarantee's
 * probability. */
typedef struct cli_pct_seen {
    uint32_t    depth, met, changed;
    uint64_t    steps, decisions;
    sim_time_ns near_ns;          /* 0: simultaneous events only */
    double      bound;
} cli_pct_seen;

/* One run of a scenario with its expectations checked (absim run, replay,
 * and each seed of swarm). With random_faults, the seed's fault profile is
 * added first (scn_random_faults). `out` gets the summary, or NULL. */
typedef struct cli_outcome {
    bool        ok;
    pipe_status status;
    uint64_t    trace_hash;
    uint64_t    order_decisions;  /* decisions among simultaneous events, when counted (schedule lines), else 0 */
    uint64_t    completed, restarts;
    uint32_t    random_faults;
    cli_story   story;            /* faults, failures and restarts, for the summary and --json */
    pipe_stats  stats;
    check_report report;          /* the checkers' verdicts, violations structured */
    uint32_t    failed_line;      /* the first expect line that failed, 0: none */
    uint32_t    unfired;          /* scripted faults, not optional, that never fired */
    uint64_t    fired;            /* bit i: fault i of the script fired (optional or not) */
    uint64_t    reach[PIPE_REACH_COUNT];   /* protocol coverage: each point's count */
    uint64_t    task_values[SCN_EXPECTS_MAX];   /* by expect line: a task's figure it compares (backpressure, ns) */
    cli_pct_seen pct;             /* schedule pct: what PCT did (depth 0: off) */
    cli_failures failures;
} cli_outcome;

/* --svg and --html (cli/view.c): the space-time diagram and the run
 * viewer, their window (--from, --to) and the tasks drawn (--tasks). */
typedef struct cli_views {
    FILE    *svg, *html;              /* NULL: not asked for */
    svg_opts opts;                    /* window; show and title are set at the end */
    bool     show_given;
    uint8_t  show[JOB_TASKS_MAX];     /* by task, with show_given */
} cli_views;

/* --tasks PATTERN into show (false after saying what is wrong): items
 * separated by commas, each a task (agg[1]) or a vertex (agg), * and ?
 * matching any characters; an item that matches no task is refused. */
bool cli_view_tasks(const char *prog, const char *pattern, const job *j, uint8_t *show);
/* --from, --to: a duration as the scenario language writes it. */
bool cli_view_time(const char *prog, const char *opt, const char *text, sim_time_ns *out);
/* Before the run: a recorder observing p when v asks for a picture
 * (*rec NULL otherwise); false when memory is short. After the run (p
 * still there): the faults, the files (the page's checkpoint pictures
 * from ckpts, the recorder --dot draws from), the recorder freed. */
bool cli_view_begin(const cli_views *v, pipeline *p, svg_recorder **rec);
void cli_view_end(const cli_views *v, svg_recorder *rec, const scn *s, const cli_story *st, const char *summary,
                  const check_report *report, const rpt_recorder *ckpts);

/* One run of s: the kernel's event log to `log`, the summary to `out`, the
 * protocol trace (JSON Lines) to `trace`, the checkpoint picture (DOT) to
 * `dot` (checkpoint dot_ckpt alone, unless 0: CLI_USAGE, with the reason
 * as the first failure, when the run did not trigger it); the space-time
 * diagram and the run viewer as `views` asks; each may be NULL. */
int cli_run_scenario(scn *s, bool random_faults, FILE *log, FILE *out, FILE *trace, FILE *dot, uint64_t dot_ckpt,
                     const cli_views *views,
                     cli_outcome *o);

/* --faults random: append the fault profile swarm draws for s's seed
 * (inside its horizon: how long a failure-free run of s takes, estimated
 * by pipe_horizon_ns); returns how many faults it appended. */
uint32_t cli_random_faults(scn *s);
/* --faults buggify (what cli_random_faults does for a scenario whose
 * profile is SCN_PROFILE_BUGGIFY): the seed's settings (vary) first, then
 * the faults of two-level activation (scenarios/buggify.h) at the points
 * the seed's run of s reaches as it is (its script and schedule), into
 * s's script; the sites and firings into *t. Returns the faults added (0
 * too when the run cannot be built: the caller's pipe_create says why). */
uint32_t cli_buggify_faults(scn *s, bgy_tally *t);
/* Whether everything a command holds at once for cfg (that many pipelines
 * and, if checkers, the invariant checkers) fits PIPE_MEMORY_MAX_BYTES;
 * false and a message naming the largest part and what to lower. */
bool cli_memory_ok(const pipe_cfg *cfg, uint32_t pipelines, bool checkers, char *err, size_t err_bytes);

/* How expectation e fared in the run o: 0 held, else a code that tells
 * ways of failing apart: for a comparison 1 when the count fell short of
 * the value, 2 when it went past (restarts == 1 got 3 is not got 0), 3
 * when it equalled it (restarts > 1 got 1); for
 * finished and failed 1 + the job's status; for the state and output
 * expectations 1 when the job finished and the state (output) was wrong,
 * 2 when it did not finish. */
uint32_t cli_expect_failure(const scn *s, uint32_t i, const cli_outcome *o);   /* of s's expect line i */
/* The verdicts of a finished run of s on p (the checkers' report r, the
 * armed faults), as run prints them to out: the invariants' line, each
 * violation kept, each expect line, each scripted fault that never fired;
 * fills o. CLI_OK, or CLI_FAIL when any failed. */
int cli_verdicts(const scn *s, pipeline *p, const check_report *r, const scn_armed *arm, FILE *out, cli_outcome *o);

/* A pool of child processes, `jobs` at a time, one run each (runs stay
 * single-threaded; a run that dies of an assertion is reported, not
 * fatal). next() gives the parent's next task (false: none left), in the
 * order the parent wants them started; work() runs in the child and fills
 * the result; done() gets it back in the parent, in the order the
 * children end (rc CLI_FAIL and `died` when the child died). Used by
 * absim swarm and absim bugs.
 *
 * The result is one fixed-size record: a child sends sizeof
 * (cli_task_result) bytes through a pipe of its own, so a field added
 * here (a counter array, say) travels without further code. Records may
 * be larger than PIPE_BUF (4096 on Linux, the size up to which a pipe
 * write is atomic): nobody else writes to the pipe, so atomicity is not
 * needed, and both sides loop over partial writes and reads; a record
 * that arrives short counts as a child that died. */
typedef struct cli_task_result {
    int32_t     rc;
    bool        died;
    check_inv   inv;              /* the first violation's invariant, 0: none */
    uint32_t    violated;         /* bit i: invariant i was violated */
    uint32_t    failed_line;      /* the first failed expect line, 0: none */
    pipe_status status;
    uint64_t    trace_hash;
    uint64_t    order_decisions;  /* cli_outcome's */
    double      seconds;          /* the run's wall time (reporting only, never inside a run) */
    cli_failures failures;        /* all of cli_outcome.failures */
    uint64_t    reach[PIPE_REACH_COUNT];   /* protocol coverage of the run (zeros when it died) */
    char        profile[4096];    /* the run's faults, a scenario line each ending in '\n' (cut at a line) */
} cli_task_result;

typedef bool (*cli_pool_next_fn)(void *ctx, uint64_t *task);
typedef void (*cli_pool_work_fn)(void *ctx, uint64_t task, cli_task_result *out);
typedef void (*cli_pool_done_fn)(void *ctx, uint64_t task, const cli_task_result *r);

/* Returns false after printing why (pipe, fork or poll failed); the
 * tasks started until then have all been handed to done(). */
bool cli_pool(const char *prog, uint64_t jobs, void *ctx, cli_pool_next_fn next, cli_pool_work_fn work,
              cli_pool_done_fn done);

/* The body of a pool task that runs one seed of a scenario: a copy of
 * `file` with that seed and bug (the file itself is left as it is), run
 * with its expectations checked, the outcome into `out`. */
void cli_task_run(const scn *file, uint64_t seed, pipe_bug bug, bool random_faults, cli_task_result *out);
uint64_t cli_cores(void);
/* Wall-clock seconds (CLOCK_MONOTONIC), for progress lines and reports
 * only: nothing inside a run reads it. */
double cli_now_s(void);

/* Coverage-guided fault profiles (cli/guide.c, absim swarm --faults
 * guided): runs that reached a point fewer than `target` runs of the
 * campaign reached are kept, and new profiles are mostly mutants of the
 * kept ones, weighted by how rare their points still are; the others,
 * and every one while nothing is kept, the seed's own random profile.
 * profile() fills out with file `file`'s scenario for run `seed` (its
 * faults and drawn settings; settings_seed: the seed the settings were
 * drawn for); learn() takes each run's coverage, in run order, between
 * batches. Deterministic: the same calls in the same order give the same
 * profiles. */
typedef struct cli_guide cli_guide;
cli_guide *cli_guide_new(const scn *files, uint32_t nfiles, uint64_t target);
void cli_guide_free(cli_guide *g);
void cli_guide_profile(cli_guide *g, uint32_t file, uint64_t seed, scn *out, uint64_t *settings_seed);
void cli_guide_learn(cli_guide *g, uint32_t file, const scn *ran, uint64_t settings_seed, const uint64_t *reach);
void cli_guide_tally(const cli_guide *g, uint64_t *fresh, uint64_t *mutants, uint64_t *refused);

int cli_bugs(int argc, char **argv);
int cli_explore(int argc, char **argv);
int cli_merge(int argc, char **argv);
int cli_generate(int argc, char **argv);
int cli_coverage(int argc, char **argv);

/* A file a command writes (cli/out.c): open creates it under a temporary
 * name beside `path` (path NULL: nothing, f NULL; "-": stdout; a path that
 * is not a regular file: in place); commit checks every write, closes it
 * and renames it over `path`; abandon removes it. open and commit print
 * "prog: OPT PATH: what is wrong" when they return false. */
typedef struct cli_out {
    FILE       *f;
    const char *path;
    char        tmp[4096];             /* "" when written in place */
} cli_out;

bool cli_out_open(const char *prog, const char *opt, const char *path, cli_out *o);
/* Inputs (scenario files) a command read: cli_out_open, and any other
 * writer, refuses a path that names one (the same file, by device and
 * inode, whatever the spelling). */
void cli_input_note(const char *path);
bool cli_names_input(const char *path);
/* A temporary file that a fatal signal (interrupt, closed pipe, abort)
 * must remove: noted when made, forgotten when renamed or removed. */
void cli_tmp_note(const char *tmp);
void cli_tmp_forget(const char *tmp);
bool cli_out_commit(const char *prog, const char *opt, cli_out *o);
void cli_out_abandon(cli_out *o);
/* Flushes stdout: false after saying so when a write to it failed. */
bool cli_stdout_ok(const char *prog);

/* absim merge --junit (cli/jmerge.c): the JUnit reports of a swarm
 * campaign's shards as one. add() says FILE:LINE:COL: what is wrong on
 * stderr and returns false for an input that is not one of them; write()
 * returns false when the write failed. */
#define CLI_JMERGE_INPUTS_MAX 4096u
typedef struct cli_jmerge cli_jmerge;
cli_jmerge *cli_jmerge_new(const char *prog);
bool cli_jmerge_add(cli_jmerge *j, const char *path);
bool cli_jmerge_write(cli_jmerge *j, FILE *f);
uint32_t cli_jmerge_inputs(const cli_jmerge *j);
/* After write(): a line on f; whether every shard was there and no case failed. */
bool cli_jmerge_report(const cli_jmerge *j, FILE *f);
void cli_jmerge_free(cli_jmerge *j);

/* --junit (cli/junit.c): a JUnit XML report, one testsuite per name
 * (names[i], which must outlive the report), each with the properties
 * props[0..2 * nprops - 1] (name, value, ...). Cases are numbered 0, 1,
 * 2, ... in the order the report lists them and may be added in any
 * order; each number once. open with path NULL gives *j NULL, and add
 * and commit do nothing with it. open and commit print "prog: --junit
 * PATH: what is wrong" when they return false; commit frees j. */
typedef enum cli_junit_verdict { CLI_JUNIT_PASSED, CLI_JUNIT_FAILURE, CLI_JUNIT_ERROR } cli_junit_verdict;

typedef struct cli_junit_case {
    uint32_t            suite;
    const char         *name, *classname;
    double              seconds;
    cli_junit_verdict   verdict;      /* an error: the run could not be judged (it died) */
    const char         *type;         /* of the failure or error: "invariant I5", "expectation", ... */
    const cli_failures *failures;     /* the message is the first; the body lists all */
    const char         *out;          /* the case's <system-out>, or NULL */
} cli_junit_case;

typedef struct cli_junit cli_junit;

bool cli_junit_open(const char *prog, const char *path, uint32_t nsuites, const char *const *names,
                    const char *const *props, uint32_t nprops, cli_junit **j);
void cli_junit_add(cli_junit *j, uint64_t index, const cli_junit_case *c);
bool cli_junit_commit(const char *prog, cli_junit *j, double seconds);
void cli_junit_abandon(cli_junit *j);

/* --coverage (cli/coverage.c): every reach point's count as one JSON
 * object (false when a write failed); report prints the points reached
 * and the names of those not, and returns how many not. */
bool     cli_cov_write(FILE *f, const uint64_t *counts);
uint32_t cli_cov_report(FILE *f, const uint64_t *counts);

/* Load the one scenario file left in argv after the options (with the
 * seed overridden when seed_given): a malloc'd scenario, or NULL after
 * printing why (the exit status is then CLI_USAGE). */
scn *cli_load_scenario(const char *prog, int argc, char **argv, bool seed_given, uint64_t seed);

/* --bug NAME: one of the deliberate bugs (pipe_bug). */
bool cli_parse_bug(const char *prog, const char *text, pipe_bug *bug);

/* --faults PROFILE: "random" (scn_random_faults) or "buggify"
 * (cli_buggify_faults); *profile is then s->profile's value. words: the
 * option as a command absim prints says it ("" without a profile). */
bool cli_parse_faults(const char *prog, const char *text, bool *random_faults, uint8_t *profile);
const char *cli_faults_words(bool random_faults, uint8_t profile);
/* --config-format: legacy, yaml or rest (flink/fconf.h). */
bool cli_parse_config_format(const char *prog, const char *text, fconf_format *out);

/* Parse helpers: false (after printing "absim OPTION: what is wrong") on bad input. */
bool cli_parse_u64(const char *prog, const char *opt, const char *text, uint64_t lo, uint64_t hi,
                   uint64_t *out);
bool cli_parse_ratio(const char *prog, const char *opt, const char *text, sim_ratio *out);
/* --shard I/N: 0 <= I < N <= 2^20. */
bool cli_parse_shard(const char *prog, const char *text, uint64_t *i, uint64_t *n);
/* --seeds A..B: two whole numbers, A <= B, at most `most` seeds; false
 * after saying what is wrong. */
bool cli_parse_range(const char *prog, const char *text, uint64_t most, uint64_t *a, uint64_t *b);

/* After getopt_long: the message for an unknown option or a missing value
 * (returns CLI_USAGE), and the check that no operands are left over. */
int  cli_bad_option(const char *prog, char **argv);
bool cli_no_operands(const char *prog, int argc, char **argv);


#endif
