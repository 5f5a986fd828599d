/* reports/holds.c: what a checkpoint holds, read back from the store (see
 * holds.h). */
#include "holds.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../model/flow/window.h"
#include "../sim/arena.h"
#include "svg.h"

struct rpt_holds {
    pipeline       *p;
    arena           mem;
    kstate          scratch;
    uint64_t        ckpt;             /* read last; 0: none */
    rpt_task_holds *tasks;            /* by task */
    uint64_t       *per_chan;         /* by channel: in-flight records */
    uint64_t        inflight;
};

rpt_holds *rpt_holds_create(pipeline *p) {
    const pipe_cfg *cfg = pipe_config(p);
    const job *j = pipe_job(p);
    uint32_t most = 1;
    for (uint32_t v = 0; v < j->vertices_count; v++) {
        uint32_t k = pipe_vertex_map_keys(cfg, v);
        if (k > most) most = k;
    }
    rpt_holds *h = calloc(1, sizeof *h);
    size_t bytes = kstate_bytes(most, 0) + sizeof(rpt_task_holds) * j->tasks_count +
                   sizeof(uint64_t) * (j->chans_count + 1) + 4096;
    if (h == NULL || !arena_create(&h->mem, bytes)) {
        free(h);
        return NULL;
    }
    h->p = p;
    kstate_init_in(&h->scratch, &h->mem, most);
    h->tasks = arena_alloc(&h->mem, sizeof(rpt_task_holds) * (j->tasks_count + 1), 8);
    h->per_chan = arena_alloc(&h->mem, sizeof(uint64_t) * (j->chans_count + 1), 8);
    return h;
}

void rpt_holds_destroy(rpt_holds *h) {
    if (h == NULL) return;
    arena_destroy(&h->mem);
    free(h);
}

const kstate *rpt_holds_state(rpt_holds *h, uint32_t task) {
    SIM_ASSERT(h->ckpt != 0 && task < pipe_job(h->p)->tasks_count);
    uint32_t files;
    if (h->tasks[task].files == 0 || !pipe_ckpt_task_state(h->p, h->ckpt, task, &h->scratch, &files)) return NULL;
    return &h->scratch;
}

static void read_task(rpt_holds *h, uint32_t t) {
    rpt_task_holds *x = &h->tasks[t];
    *x = (rpt_task_holds){ .files = pipe_ckpt_task_files(h->p, h->ckpt, t) };
    if (x->files == 0) return;
    if (!pipe_ckpt_task_state(h->p, h->ckpt, t, &h->scratch, &x->files)) {
        x->gone = true;
        return;
    }
    uint32_t pos = 0;
    uint64_t key;
    kagg a;
    if (pipe_job(h->p)->vertices[pipe_job(h->p)->tasks[t].vertex].kind == JOB_COMMITTER) {
        x->entries = h->scratch.count;           /* a Sink V2 committer's collector: a key per checkpoint */
        while (kstate_next(&h->scratch, &pos, &key, &a)) x->records += (a.count >> 40) & 0xffu;   /* received */
        return;
    }
    if (pipe_job(h->p)->vertices[pipe_job(h->p)->tasks[t].vertex].kind != JOB_WINDOW) {
        x->entries = h->scratch.count;
        while (kstate_next(&h->scratch, &pos, &key, &a)) x->records += a.count;
        return;
    }
    while (kstate_next(&h->scratch, &pos, &key, &a)) {   /* a purged window's entries are zero: absent */
        switch (win_key_tag(key)) {
        case WIN_CONTENTS: x->entries += a.count > 0; x->records += a.count; break;
        case WIN_TIMER:    x->timers += a.fingerprint != 0; break;
        case WIN_LATE:     x->late += a.count; break;
        }
    }
}

bool rpt_holds_read(rpt_holds *h, uint64_t ckpt) {
    const job *j = pipe_job(h->p);
    h->ckpt = 0;
    if (ckpt == 0 || pipe_ckpt_offsets(h->p, ckpt) == NULL) return false;
    h->ckpt = ckpt;
    for (uint32_t t = 0; t < j->tasks_count; t++) read_task(h, t);
    memset(h->per_chan, 0, sizeof(uint64_t) * (j->chans_count + 1));
    h->inflight = 0;
    pipe_cursor cur = { 0 };
    model_rec r;
    uint32_t chan;
    while (pipe_ckpt_inflight(h->p, ckpt, &cur, &r, &chan)) {
        SIM_ASSERT(chan < j->chans_count);
        h->per_chan[chan]++;
        h->inflight++;
    }
    return true;
}

const uint64_t *rpt_holds_offsets(const rpt_holds *h) {
    SIM_ASSERT(h->ckpt != 0);
    return pipe_ckpt_offsets(h->p, h->ckpt);
}

const rpt_task_holds *rpt_holds_task(const rpt_holds *h, uint32_t task) {
    SIM_ASSERT(h->ckpt != 0 && task < pipe_job(h->p)->tasks_count);
    return &h->tasks[task];
}

uint64_t rpt_holds_chan(const rpt_holds *h, uint32_t chan) {
    SIM_ASSERT(h->ckpt != 0 && chan < pipe_job(h->p)->chans_count);
    return h->per_chan[chan];
}

uint64_t rpt_holds_inflight(const rpt_holds *h) { return h->inflight; }

const char *rpt_holds_unit(job_kind kind, uint32_t entries) {
    bool one = entries == 1;
    if (kind == JOB_COMMITTER) return one ? "checkpoint's committables" : "checkpoints' committables";
    return kind == JOB_WINDOW ? (one ? "window entry" : "window entries") : kind == JOB_KEYED_JOIN ? (one ? "key entry" : "key entries")
                                                                                                   : (one ? "key" : "keys");
}

void rpt_holds_json(const rpt_holds *h, FILE *f) {
    SIM_ASSERT(h->ckpt != 0);
    const job *j = pipe_job(h->p);
    const uint64_t *off = pipe_ckpt_offsets(h->p, h->ckpt);
    fputs("{\"offsets\":[", f);
    for (uint32_t part = 0; part < pipe_broker(h->p)->partitions; part++) fprintf(f, "%s%" PRIu64, part ? "," : "", off[part]);
    fputs("],\"state\":[", f);
    bool first = true;
    char who[64], from[64];
    for (uint32_t t = 0; t < j->tasks_count; t++) {
        const rpt_task_holds *x = &h->tasks[t];
        if (x->files == 0) continue;
        svg_task_name(h->p, t, who, sizeof who);
        fprintf(f, "%s{\"task\":\"%s\",\"files\":%u", first ? "" : ",", who, x->files);
        if (x->gone) fputs(",\"gone\":true}", f);
        else if (j->vertices[j->tasks[t].vertex].kind == JOB_WINDOW)
            fprintf(f, ",\"entries\":%u,\"records\":%" PRIu64 ",\"timers\":%u,\"late\":%" PRIu64 "}", x->entries, x->records,
                    x->timers, x->late);
        else if (j->vertices[j->tasks[t].vertex].kind == JOB_COMMITTER)
            fprintf(f, ",\"entries\":%u,\"committables\":%" PRIu64 "}", x->entries, x->records);
        else fprintf(f, ",\"entries\":%u,\"records\":%" PRIu64 "}", x->entries, x->records);
        first = false;
    }
    fputs("],\"channel_state\":[", f);
    first = true;
    for (uint32_t c = 0; c < j->chans_count; c++) {
        if (h->per_chan[c] == 0) continue;
        svg_task_name(h->p, j->chans[c].producer, from, sizeof from);
        svg_task_name(h->p, j->chans[c].consumer, who, sizeof who);
        fprintf(f, "%s{\"from\":\"%s\",\"to\":\"%s\",\"records\":%" PRIu64 "}", first ? "" : ",", from, who,
                h->per_chan[c]);
        first = false;
    }
    fputs("]}", f);
}
