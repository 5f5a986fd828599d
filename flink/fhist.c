/* flink/fhist.c: reading a checkpoint history and its details files (see
 * fhist.h); the rules are in fhist_rules.c. */
#include "fhist.h"

#include <assert.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ftext.h"

/* A number field: an integer, a real, or -1 when absent, null or "NaN"
 * (Flink writes NaN as a string where nothing was measured), and when
 * outside +-2^53: no time, count or size Flink prints comes near, and the
 * rules add and subtract them without overflowing. */
#define NUM_MAX (1LL << 53)
static int64_t num(json_t *o, const char *key) {
    json_t *v = json_object_get(o, key);
    if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        return x >= -NUM_MAX && x <= NUM_MAX ? (int64_t)x : -1;
    }
    if (json_is_real(v)) {
        double x = json_real_value(v);
        return x >= -(double)NUM_MAX && x <= (double)NUM_MAX ? (int64_t)x : -1;
    }
    return -1;
}

static bool flag(json_t *o, const char *key) {
    return json_is_true(json_object_get(o, key));
}

static fhist_status status_of(json_t *o, const char *class_key, bool *ok) {
    const char *s = json_string_value(json_object_get(o, "status"));
    const char *k = class_key[0] ? json_string_value(json_object_get(o, class_key)) : NULL;
    *ok = true;
    if ((s != NULL && strcmp(s, "COMPLETED") == 0) || (k != NULL && strcmp(k, "completed") == 0)) return FH_COMPLETED;
    if ((s != NULL && strcmp(s, "FAILED") == 0) || (k != NULL && strcmp(k, "failed") == 0)) return FH_FAILED;
    if ((s != NULL && strcmp(s, "IN_PROGRESS") == 0) || (k != NULL && strcmp(k, "in_progress") == 0)) return FH_IN_PROGRESS;
    *ok = false;
    return FH_IN_PROGRESS;
}

static fhist_ckpt *find(fhist *h, int64_t id) {
    for (uint32_t i = 0; i < h->count; i++) {
        if (h->ckpts[i].id == id) return &h->ckpts[i];
    }
    return NULL;
}

/* One CheckpointStatistics object; a `latest` entry the history already
 * holds adds nothing. */
static bool read_ckpt(fhist *h, json_t *o, const char *where, char *err, size_t n) {
    if (!json_is_object(o)) return true;              /* latest.failed: null */
    int64_t id = num(o, "id");
    bool ok;
    fhist_status st = status_of(o, h->class_key, &ok);
    if (id < 0 || !ok) {
        ftext_say(err, n, "%s: %s: no id or no status (COMPLETED, FAILED, IN_PROGRESS): not a checkpoint", h->path, where);
        return false;
    }
    if (find(h, id) != NULL) {                     /* `latest` repeats history entries; history must not */
        if (strncmp(where, "$.history", 9) == 0 && h->dups++ == 0) h->dup_id = id;
        return true;
    }
    if (h->count == FHIST_CKPTS_MAX) { ftext_say(err, n, "%s: more than %u checkpoints", h->path, FHIST_CKPTS_MAX); return false; }
    fhist_ckpt *c = &h->ckpts[h->count++];
    memset(c, 0, sizeof *c);
    c->id = id;
    c->status = st;
    c->savepoint = flag(o, "is_savepoint");
    ftext_copy(c->type, sizeof c->type, json_is_string(json_object_get(o, "checkpoint_type")) ?
               json_string_value(json_object_get(o, "checkpoint_type")) : "");
    c->unaligned = strcmp(c->type, "UNALIGNED_CHECKPOINT") == 0;
    c->savepoint = c->savepoint || strstr(c->type, "SAVEPOINT") != NULL;
    c->trigger_ms = num(o, "trigger_timestamp");
    c->ack_ms = num(o, "latest_ack_timestamp");
    c->e2e_ms = num(o, "end_to_end_duration");
    c->failure_ms = st == FH_FAILED ? num(o, "failure_timestamp") : -1;
    c->subtasks = num(o, "num_subtasks");
    c->acked = num(o, "num_acknowledged_subtasks");
    c->state_bytes = num(o, "state_size");
    json_t *msg = json_object_get(o, "failure_message");
    ftext_copy(c->failure, sizeof c->failure, json_is_string(msg) ? json_string_value(msg) : "");
    ftext_copy(c->where, sizeof c->where, where);
    return true;
}

static int by_id(const void *a, const void *b) {
    int64_t x = ((const fhist_ckpt *)a)->id, y = ((const fhist_ckpt *)b)->id;
    return (x > y) - (x < y);
}

static void read_counts(fhist *h, json_t *root) {
    json_t *c = json_object_get(root, "counts");
    h->total = num(c, "total");
    h->in_progress = num(c, "in_progress");
    h->completed = num(c, "completed");
    h->failed = num(c, "failed");
    h->restored = num(c, "restored");
    json_t *r = json_object_get(json_object_get(root, "latest"), "restored");
    h->has_restore = json_is_object(r);
    h->restore_id = num(r, "id");
    h->restore_ms = num(r, "restore_timestamp");
    h->restore_savepoint = flag(r, "is_savepoint");
}

/* The discriminator's name: `@class` up to 1.14, `className` from 1.15. */
static void class_key(fhist *h, json_t *hist, json_t *latest) {
    json_t *any = json_array_get(hist, 0);
    if (any == NULL) any = json_object_get(latest, "completed");
    h->class_key[0] = '\0';
    if (json_object_get(any, "className") != NULL) ftext_copy(h->class_key, sizeof h->class_key, "className");
    else if (json_object_get(any, "@class") != NULL) ftext_copy(h->class_key, sizeof h->class_key, "@class");
}

static bool read_all(fhist *h, json_t *root, char *err, size_t n) {
    json_t *hist = json_object_get(root, "history"), *latest = json_object_get(root, "latest");
    if (!json_is_object(json_object_get(root, "counts")) || !json_is_array(hist)) {
        ftext_say(err, n, "%s: $.counts or $.history: missing: not a GET /jobs/:jobid/checkpoints answer", h->path);
        return false;
    }
    read_counts(h, root);
    class_key(h, hist, latest);
    h->ckpts = calloc(json_array_size(hist) + 4, sizeof *h->ckpts);
    if (h->ckpts == NULL) { ftext_say(err, n, "%s: out of memory", h->path); return false; }
    size_t i;
    json_t *o;
    char where[48];
    json_array_foreach(hist, i, o) {
        snprintf(where, sizeof where, "$.history[%zu]", i);
        if (!read_ckpt(h, o, where, err, n)) return false;
    }
    static const char *const kinds[] = { "completed", "savepoint", "failed" };
    for (int k = 0; k < 3; k++) {
        snprintf(where, sizeof where, "$.latest.%s", kinds[k]);
        if (!read_ckpt(h, json_object_get(latest, kinds[k]), where, err, n)) return false;
    }
    qsort(h->ckpts, h->count, sizeof *h->ckpts, by_id);
    return true;
}

bool fhist_read(const char *path, fhist *h, char *err, size_t n) {
    assert(path != NULL && h != NULL && err != NULL);
    memset(h, 0, sizeof *h);
    ftext_copy(h->path, sizeof h->path, path);
    json_t *root = ftext_json_file(path, err, n);
    if (root == NULL) return false;
    bool ok = json_is_object(root) && read_all(h, root, err, n);
    if (!json_is_object(root)) ftext_say(err, n, "%s:1:1: a checkpoint history is a JSON object", path);
    json_decref(root);
    if (!ok) fhist_free(h);
    return ok;
}

void fhist_free(fhist *h) {
    free(h->ckpts);
    h->ckpts = NULL;
    h->count = 0;
}

/* A details file (`tasks`: each vertex's subtasks and acknowledgements)
 * or a subtask details file (`subtasks`: which were unaligned). */
static void take_details(fhist *h, json_t *root) {
    fhist_ckpt *c = find(h, num(root, "id"));
    if (c == NULL) return;
    const char *k;
    json_t *t;
    json_object_foreach(json_object_get(root, "tasks"), k, t) {
        c->detail_tasks++;
        if (num(t, "num_acknowledged_subtasks") != num(t, "num_subtasks")) c->detail_unacked++;
    }
    size_t i;
    json_array_foreach(json_object_get(root, "subtasks"), i, t) {
        if (flag(t, "unaligned_checkpoint")) c->unaligned = true;
    }
}

bool fhist_details(fhist *h, const char *dir, uint32_t *files, char *err, size_t n) {
    DIR *d = opendir(dir);
    *files = 0;
    if (d == NULL) { ftext_say(err, n, "%s: cannot open the folder", dir); return false; }
    struct dirent *e;
    bool ok = true;
    while (ok && (e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 6 || strcmp(e->d_name + len - 5, ".json") != 0) continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        json_t *root = ftext_json_file(path, err, n);
        if (root == NULL) {
            ok = false;
        } else if (json_object_get(root, "tasks") != NULL || json_object_get(root, "subtasks") != NULL) {
            take_details(h, root);
            (*files)++;
        }
        json_decref(root);
    }
    closedir(d);
    return ok;
}
