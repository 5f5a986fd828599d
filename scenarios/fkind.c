/* scenarios/fkind.c: the one table of fault kinds (scenarios/fkind.h).
 * Its order is the order the reader lists words in an error ("crash,
 * partition, delay, ..."); the random groups draw by draw_at, which keeps
 * every seed's profile as it was when the groups were made. */
#include "fkind.h"

#define D(g1, g2, g3) { g1, g2, g3, 0 }

static const fk_info kinds[] = {
    { .kind = SCN_CRASH_MACHINE, .name = "crash-machine", .verb = "crash", .object = "machine",
      .target = FK_MACHINE, .window = FK_WINDOW_OPTIONAL, .flags = FK_DOWN | FK_BREAKS,
      .kernel = FAULT_MACHINE_CRASH,
      .begins = "%s crashes", .ends = "%s is back (its slots are free again)", .cause = "%s crashed",
      .draw_at = D(1, 0, 0), .draw = fk_draw_crash_machine },
    { .kind = SCN_CRASH_TASK, .name = "crash-task", .verb = "crash", .object = "task",
      .target = FK_TASK, .flags = FK_DOWN | FK_BACK_AT_ONCE | FK_BREAKS, .kernel = FAULT_ACTOR_CRASH,
      .begins = "%s crashes; its TaskManager lives on and offers the slot again", .ends = "%s may run again",
      .cause = "%s crashed", .draw_at = D(2, 0, 0), .draw = fk_draw_crash_task },
    { .kind = SCN_CRASH_COORDINATOR, .name = "crash-coordinator", .verb = "crash", .object = "coordinator",
      .target = FK_COORDINATOR, .window = FK_WINDOW_OPTIONAL, .flags = FK_DOWN | FK_FAILOVER,
      .kernel = FAULT_ACTOR_CRASH,
      .begins = "the %s crashes", .ends = "the %s's machine is back: a new coordinator starts",
      .cause = "the %s crashed", .draw_at = D(0, 1, 0), .draw = fk_draw_nothing },
    { .kind = SCN_PARTITION, .name = "partition", .verb = "partition",
      .target = FK_MACHINES, .window = FK_WINDOW_REQUIRED, .flags = FK_BREAKS, .kernel = FAULT_PARTITION,
      .begins = "the network splits machines %s", .ends = "the partition %s heals",
      .cause = "a partition split machines %s", .draw_at = D(3, 0, 0), .draw = fk_draw_partition },
    { .kind = SCN_DELAY_LINK, .name = "delay-link", .verb = "delay", .object = "link",
      .target = FK_LINK, .param = FK_BY_DELAY, .window = FK_WINDOW_REQUIRED, .kernel = FAULT_LINK_DELAY,
      .begins = "the link %s slows down", .ends = "the link %s is back to its latency",
      .cause = "the link %s was being slowed down", .draw_at = D(4, 0, 0), .draw = fk_draw_link },
    { .kind = SCN_DELAY_RPC, .name = "delay-rpc", .verb = "delay", .object = "rpc",
      .target = FK_RPC, .param = FK_BY_DELAY, .window = FK_WINDOW_REQUIRED, .flags = FK_SILENCES,
      .kernel = FAULT_LINK_DELAY,
      .begins = "messages %s are delayed", .ends = "messages %s are on time again",
      .cause = "messages %s were being delayed", .draw_at = D(0, 0, 5), .draw = fk_draw_delay_rpc },
    { .kind = SCN_CUT_LINK, .name = "cut-link", .verb = "cut", .object = "link",
      .target = FK_LINK, .window = FK_WINDOW_REQUIRED, .flags = FK_BREAKS, .kernel = FAULT_LINK_CUT,
      .begins = "the link %s is cut: its tasks lose the connection", .ends = "the link %s can connect again",
      .cause = "the link %s was cut", .draw_at = D(5, 0, 0), .draw = fk_draw_link },
    { .kind = SCN_LOSE_RPC, .name = "lose-rpc", .verb = "lose", .object = "rpc",
      .target = FK_RPC, .param = FK_RATIO, .param_hint = "a percentage such as 30%",
      .window = FK_WINDOW_REQUIRED, .flags = FK_SILENCES, .kernel = FAULT_LINK_LOSS,
      .begins = "messages %s start to get lost", .ends = "messages %s are no longer lost",
      .cause = "messages %s were being lost", .draw_at = D(6, 0, 4), .draw = fk_draw_lose_rpc },
    { .kind = SCN_SLOW_STORE, .name = "slow-store", .verb = "slow", .object = "store",
      .target = FK_STORE, .param = FK_FACTOR, .window = FK_WINDOW_REQUIRED, .flags = FK_DURABLE,
      .kernel = FAULT_DEV_SLOW,
      .begins = "the %s slows down", .ends = "the %s is back to its speed",
      .cause = "the %s was being slowed down", .draw_at = D(0, 2, 0), .draw = fk_draw_factor },
    { .kind = SCN_SLOW_TASK, .name = "slow-task", .verb = "slow", .object = "task",
      .target = FK_TASK, .param = FK_FACTOR, .window = FK_WINDOW_REQUIRED,
      .max = PIPE_SLOW_MAX, .max_what = "slow tasks",
      .begins = "%s starts to process its records slower", .ends = "%s is back to its speed",
      .cause = "%s was being slowed down", .draw_at = D(0, 4, 0), .draw = fk_draw_slow_task,
      .add = fk_add_slow_task },
    { .kind = SCN_FAIL_STORE, .name = "fail-store", .verb = "fail", .object = "store",
      .target = FK_STORE, .param = FK_RATIO, .param_hint = "a percentage of writes such as 30%",
      .window = FK_WINDOW_REQUIRED, .flags = FK_DURABLE, .kernel = FAULT_DEV_FAIL,
      .begins = "the %s starts to fail writes", .ends = "the %s stops failing writes",
      .cause = "the %s was failing writes", .draw_at = D(0, 3, 0), .draw = fk_draw_ratio },
    { .kind = SCN_PAUSE_MACHINE, .name = "pause-machine", .verb = "pause", .object = "machine",
      .target = FK_MACHINE, .window = FK_WINDOW_REQUIRED, .flags = FK_STALLS | FK_PAUSE,
      .kernel = FAULT_MACHINE_PAUSE,
      .begins = "%s is paused (its tasks keep their state and connections but handle nothing)",
      .ends = "%s resumes and handles what waited for it", .cause = "%s was paused",
      .draw_at = D(0, 0, 1), .draw = fk_draw_pause_machine },
    { .kind = SCN_PAUSE_TASK, .name = "pause-task", .verb = "pause", .object = "task",
      .target = FK_TASK, .window = FK_WINDOW_REQUIRED, .flags = FK_STALLS | FK_PAUSE, .kernel = FAULT_ACTOR_PAUSE,
      .begins = "%s is paused: it handles nothing", .ends = "%s resumes and handles what waited for it",
      .cause = "%s was paused", .draw_at = D(0, 0, 3), .draw = fk_draw_task },
    { .kind = SCN_PAUSE_COORDINATOR, .name = "pause-coordinator", .verb = "pause", .object = "coordinator",
      .target = FK_COORDINATOR, .window = FK_WINDOW_REQUIRED, .flags = FK_SILENCES | FK_PAUSE,
      .kernel = FAULT_ACTOR_PAUSE,
      .begins = "the %s is paused: it triggers, completes and answers nothing", .ends = "the %s resumes",
      .cause = "the %s was paused", .draw_at = D(0, 0, 2), .draw = fk_draw_nothing },
    { .kind = SCN_AMBIGUOUS_STORE, .name = "ambiguous-store", .verb = "ambiguous", .object = "store",
      .target = FK_STORE, .param = FK_RATIO, .param_hint = "a percentage of writes such as 30%",
      .window = FK_WINDOW_REQUIRED, .flags = FK_DURABLE | FK_HA, .kernel = FAULT_DEV_AMBIGUOUS,
      .begins = "the %s reports some writes it took as failed", .ends = "the %s reports its writes truly again",
      .cause = "the %s was reporting committed writes as failed", .draw_at = D(0, 0, 6),
      .draw = fk_draw_ambiguous },
    { .kind = SCN_RESCALE, .name = "rescale", .verb = "rescale",
      .target = FK_VERTEX, .param = FK_TO_PARALLELISM, .flags = FK_AT_TIME,
      .max = PIPE_RESCALES_MAX, .max_what = "rescales",
      .begins = "the JobManager rescales %s: every task is cancelled, to restart from the latest completed "
                "checkpoint at the new parallelism", .ends = "", .cause = "a rescale of %s" },
    { .kind = SCN_DUPLICATE_RPC, .name = "duplicate-rpc", .verb = "duplicate", .object = "rpc",
      .target = FK_RPC, .param = FK_RATIO, .param_hint = "a percentage such as 30%",
      .window = FK_WINDOW_REQUIRED, .kernel = FAULT_LINK_DUP,
      .begins = "messages %s start to arrive twice", .ends = "messages %s arrive once again",
      .cause = "messages %s were arriving twice", .draw_at = { 0, 0, 0, 1 }, .draw = fk_draw_duplicate_rpc },
    { .kind = SCN_STOP_JOB, .name = "stop-job", .verb = "stop", .object = "job",
      .target = FK_JOB, .param = FK_RESUME, .flags = FK_AT_TIME, .max = PIPE_STOPS_MAX,
      .max_what = "stops and cancels",
      .begins = "the JobManager stops the %s with a savepoint: the sources stop (with drain, ending their input "
                "first), every task finishes once the savepoint completed, and without drain the job is submitted "
                "again from it",
      .ends = "", .cause = "a stop of the %s" },
    { .kind = SCN_CANCEL_JOB, .name = "cancel-job", .verb = "cancel", .object = "job",
      .target = FK_JOB, .param = FK_RESUME, .flags = FK_AT_TIME, .max = PIPE_STOPS_MAX,
      .max_what = "stops and cancels",
      .begins = "the %s is cancelled, its retained checkpoints kept, and submitted again from the latest of them",
      .ends = "", .cause = "a cancel of the %s" },
};

#define KINDS_COUNT (sizeof kinds / sizeof kinds[0])

const fk_info *fk_at(uint32_t i) { return i < KINDS_COUNT ? &kinds[i] : NULL; }

const fk_info *fk_of(scn_fault_kind k) {
    for (uint32_t i = 0; i < KINDS_COUNT; i++) {
        if (kinds[i].kind == k) return &kinds[i];
    }
    SIM_ASSERT(!"every scn_fault_kind has a row");
    return NULL;
}
