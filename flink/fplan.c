/* flink/fplan.c: both JSON shapes of a Flink plan (see fplan.h). */
#include "fplan.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ftext.h"



static const char *const ship_names[] = { "FORWARD", "RESCALE", "HASH", "REBALANCE", "SHUFFLE",
                                          "BROADCAST", "GLOBAL", "CUSTOM", "UNKNOWN" };

const char *fplan_ship_name(fplan_ship s) {
    assert(s <= FSHIP_UNKNOWN);
    return ship_names[s];
}

static fplan_ship ship_of(const char *text) {
    if (strncmp(text, "Hash Partition", 14) == 0) return FSHIP_HASH;   /* the DataSet optimizer's words */
    if (strcmp(text, "Redistribute") == 0) return FSHIP_REBALANCE;
    for (int i = 0; i < FSHIP_UNKNOWN; i++) {
        size_t k = strlen(ship_names[i]);
        bool same = true;
        for (size_t j = 0; j < k && same; j++) {
            char c = text[j];
            if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
            same = c == ship_names[i][j];
        }
        if (same && text[k] == '\0') return (fplan_ship)i;
    }
    return FSHIP_UNKNOWN;
}

/* HTML entities as JsonPlanGenerator escapes descriptions (StringEscapeUtils
 * .escapeHtml4, then JSON), and <br/> as a line break. */
static void unescape_html(const char *s, char *out, size_t n) {
    static const struct { const char *ent; char c; } ents[] = {
        { "&gt;", '>' }, { "&lt;", '<' }, { "&amp;", '&' }, { "&quot;", '"' }, { "&#39;", '\'' },
        { "&#x27;", '\'' }, { "&apos;", '\'' }, { "<br/>", '\n' }, { "<br>", '\n' }, { "<br />", '\n' },
    };
    size_t o = 0;
    while (*s != '\0' && o + 1 < n) {
        bool hit = false;
        for (size_t i = 0; i < sizeof ents / sizeof ents[0] && !hit; i++) {
            size_t k = strlen(ents[i].ent);
            if (strncmp(s, ents[i].ent, k) == 0) {
                out[o++] = ents[i].c;
                s += k;
                hit = true;
            }
        }
        if (!hit) out[o++] = *s++;
    }
    out[o] = '\0';
}

/* A node's id as text: StreamGraph ids are integers, JobGraph ids strings. */
static bool id_text(json_t *v, char *buf, size_t n) {
    if (json_is_integer(v)) { snprintf(buf, n, "%lld", (long long)json_integer_value(v)); return true; }
    if (json_is_string(v) && json_string_length(v) > 0 && json_string_length(v) < n) {
        ftext_copy(buf, n, json_string_value(v));
        return true;
    }
    return false;
}

static void copy_str(json_t *obj, const char *key, char *buf, size_t n) {
    json_t *v = json_object_get(obj, key);
    ftext_copy(buf, n, json_is_string(v) ? json_string_value(v) : "");
}

/* One line of a chained description: without its tree marks ("+- ",
 * ":- ") and its operator number ("[3]:"). */
static void op_clean(char *s) {
    char *p = s;
    while (*p == ' ' || *p == '+' || *p == ':' || *p == '-' || *p == '|') p++;
    if (*p == '[') {
        char *q = strchr(p, ']');
        if (q != NULL && q[1] == ':') p = q + 2;
    }
    memmove(s, p, strlen(p) + 1);
    size_t k = strlen(s);
    while (k > 0 && (s[k - 1] == ' ' || s[k - 1] == '\r')) s[--k] = '\0';
}

/* The operators of a JobGraph vertex: its description split at line breaks
 * (Flink 1.15+ prints a tree, one operator a line) or at " -> " (older). */
static void split_ops(fplan_node *x) {
    char buf[FPLAN_NAME_BYTES];
    ftext_copy(buf, sizeof buf, x->name);
    const char *sep = strchr(buf, '\n') != NULL ? "\n" : " -> ";
    x->op_count = 0;
    char *s = buf;
    while (s != NULL && x->op_count < FPLAN_OPS_MAX) {
        char *e = strstr(s, sep);
        if (e != NULL) *e = '\0';
        char *op = x->ops[x->op_count];
        ftext_copy(op, sizeof x->ops[0], s);
        op_clean(op);
        if (op[0] != '\0') x->op_count++;
        s = e != NULL ? e + strlen(sep) : NULL;
    }
    if (x->op_count == 0) {
        ftext_copy(x->ops[0], sizeof x->ops[0], x->type[0] ? x->type : "(unnamed)");
        x->op_count = 1;
    }
}

typedef struct pending_in {
    char       id[48];
    fplan_ship ship;
    char       ship_text[48];
} pending_in;

/* One node's fields; its inputs kept by id until every node is read. */
static bool read_node(fplan *p, json_t *o, uint32_t i, pending_in in[FPLAN_INPUTS_MAX], char *err, size_t n) {
    fplan_node *x = &p->nodes[i];
    memset(x, 0, sizeof *x);
    if (!json_is_object(o)) { ftext_say(err, n, "%s: $.nodes[%u]: not an object", p->path, i); return false; }
    if (!id_text(json_object_get(o, "id"), x->id, sizeof x->id)) {
        ftext_say(err, n, "%s: $.nodes[%u].id: missing, or not an integer or a short string", p->path, i);
        return false;
    }
    json_t *par = json_object_get(o, "parallelism");
    if (!json_is_integer(par) || json_integer_value(par) < 1 || json_integer_value(par) > 1 << 15) {
        ftext_say(err, n, "%s: $.nodes[%u].parallelism: not an integer from 1 to 32768", p->path, i);
        return false;
    }
    x->parallelism = (uint32_t)json_integer_value(par);
    json_t *mp = json_object_get(o, "maxParallelism");
    if (json_is_integer(mp) && json_integer_value(mp) > 0 && json_integer_value(mp) <= 1 << 15)
        x->max_parallelism = (uint32_t)json_integer_value(mp);
    char raw[FPLAN_NAME_BYTES];
    copy_str(o, p->shape == FPLAN_STREAM ? "contents" : "description", raw, sizeof raw);
    unescape_html(raw, x->name, sizeof x->name);
    copy_str(o, p->shape == FPLAN_STREAM ? "type" : "operator", raw, sizeof raw);
    unescape_html(raw, x->type, sizeof x->type);
    copy_str(o, "pact", x->pact, sizeof x->pact);
    const char *ins_key = p->shape == FPLAN_STREAM ? "predecessors" : "inputs";
    json_t *ins = json_object_get(o, ins_key);
    if (ins != NULL && !json_is_array(ins)) {
        ftext_say(err, n, "%s: $.nodes[%u].%s: not an array", p->path, i, ins_key);
        return false;
    }
    size_t k;
    json_t *e;
    json_array_foreach(ins, k, e) {
        if (k >= FPLAN_INPUTS_MAX) {
            ftext_say(err, n, "%s: $.nodes[%u].%s: more than %u inputs", p->path, i, ins_key, FPLAN_INPUTS_MAX);
            return false;
        }
        if (!json_is_object(e) || !id_text(json_object_get(e, "id"), in[k].id, sizeof in[k].id)) {
            ftext_say(err, n, "%s: $.nodes[%u].%s[%zu].id: missing", p->path, i, ins_key, k);
            return false;
        }
        copy_str(e, "ship_strategy", in[k].ship_text, sizeof in[k].ship_text);
        in[k].ship = ship_of(in[k].ship_text);
        x->in_count = (uint32_t)k + 1;
    }
    if (p->shape == FPLAN_JOB) split_ops(x);
    return true;
}

static int find_id(const fplan *p, const char *id) {
    for (uint32_t i = 0; i < p->count; i++) {
        if (strcmp(p->nodes[i].id, id) == 0) return (int)i;
    }
    return -1;
}

/* Resolves inputs by id and puts the nodes in topological order (Kahn's,
 * stable: among ready nodes the one listed first). */
static bool link_and_sort(fplan *p, pending_in (*in)[FPLAN_INPUTS_MAX], char *err, size_t n) {
    uint32_t cnt = p->count;
    int32_t *from = calloc((size_t)cnt * FPLAN_INPUTS_MAX, sizeof *from);
    uint32_t *order = calloc(cnt, sizeof *order), *left = calloc(cnt, sizeof *left);
    fplan_node *sorted = calloc(cnt, sizeof *sorted);
    bool ok = from != NULL && order != NULL && left != NULL && sorted != NULL;
    if (!ok) ftext_say(err, n, "%s: out of memory", p->path);
    for (uint32_t i = 0; ok && i < cnt; i++) {
        for (uint32_t k = 0; ok && k < p->nodes[i].in_count; k++) {
            int f = find_id(p, in[i][k].id);
            if (f < 0) { ftext_say(err, n, "%s: $.nodes[%u]: input %u names id %s, which no node has", p->path, i, k, in[i][k].id); ok = false; }
            else from[i * FPLAN_INPUTS_MAX + k] = f;
        }
        left[i] = p->nodes[i].in_count;
    }
    uint32_t done = 0;
    while (ok && done < cnt) {
        uint32_t pick = cnt;
        for (uint32_t i = 0; i < cnt && pick == cnt; i++) {
            if (left[i] == 0) pick = i;
        }
        if (pick == cnt) { ftext_say(err, n, "%s: the plan has a cycle (an iteration): absim models acyclic jobs", p->path); ok = false; break; }
        left[pick] = UINT32_MAX;
        order[pick] = done++;
        for (uint32_t i = 0; i < cnt; i++) {
            for (uint32_t k = 0; k < p->nodes[i].in_count && left[i] != UINT32_MAX; k++) {
                if (from[i * FPLAN_INPUTS_MAX + k] == (int32_t)pick) left[i]--;
            }
        }
    }
    for (uint32_t i = 0; ok && i < cnt; i++) {
        fplan_node *x = &sorted[order[i]];
        *x = p->nodes[i];
        for (uint32_t k = 0; k < x->in_count; k++) {
            x->in[k].from = order[from[i * FPLAN_INPUTS_MAX + k]];
            x->in[k].ship = in[i][k].ship;
            ftext_copy(x->in[k].ship_text, sizeof x->in[k].ship_text, in[i][k].ship_text);
        }
    }
    if (ok) memcpy(p->nodes, sorted, (size_t)cnt * sizeof *sorted);
    free(from);
    free(order);
    free(left);
    free(sorted);
    return ok;
}

/* The plan object: the file itself, or its "plan" field (REST). */
static json_t *plan_object(json_t *root) {
    json_t *inner = json_object_get(root, "plan");
    return json_is_object(inner) ? inner : root;
}

static bool read_nodes(fplan *p, json_t *nodes, char *err, size_t n) {
    size_t cnt = json_array_size(nodes);
    if (cnt == 0) { ftext_say(err, n, "%s: $.nodes: empty: a plan with no operators", p->path); return false; }
    if (cnt > FPLAN_NODES_MAX) { ftext_say(err, n, "%s: $.nodes: %zu nodes, more than %u", p->path, cnt, FPLAN_NODES_MAX); return false; }
    json_t *first = json_array_get(nodes, 0);
    bool job = json_object_get(first, "inputs") != NULL || json_object_get(first, "description") != NULL ||
               json_is_string(json_object_get(first, "id"));
    p->shape = job ? FPLAN_JOB : FPLAN_STREAM;
    p->nodes = calloc(cnt, sizeof *p->nodes);
    pending_in (*in)[FPLAN_INPUTS_MAX] = calloc(cnt, sizeof *in);
    bool ok = p->nodes != NULL && in != NULL;
    if (!ok) ftext_say(err, n, "%s: out of memory", p->path);
    p->count = (uint32_t)cnt;
    for (uint32_t i = 0; ok && i < cnt; i++) ok = read_node(p, json_array_get(nodes, i), i, in[i], err, n);
    for (uint32_t i = 0; ok && i < cnt; i++) {
        if (find_id(p, p->nodes[i].id) != (int)i) { ftext_say(err, n, "%s: $.nodes[%u].id: %s appears twice", p->path, i, p->nodes[i].id); ok = false; }
    }
    if (ok) ok = link_and_sort(p, in, err, n);
    free(in);
    return ok;
}

/* GET /jobs/:jobid lists the vertices beside the plan, with their
 * maxParallelism (1.13+), which the plan itself lacks. */
static void vertex_max_parallelism(fplan *p, json_t *root) {
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(root, "vertices"), i, v) {
        json_t *id = json_object_get(v, "id"), *mp = json_object_get(v, "maxParallelism");
        if (!json_is_string(id) || !json_is_integer(mp) || json_integer_value(mp) < 1 || json_integer_value(mp) > 1 << 15)
            continue;
        int k = find_id(p, json_string_value(id));
        if (k >= 0) p->nodes[k].max_parallelism = (uint32_t)json_integer_value(mp);
    }
}

bool fplan_read(const char *path, fplan *out, char *err, size_t n) {
    assert(path != NULL && out != NULL && err != NULL && n > 0);
    memset(out, 0, sizeof *out);
    ftext_copy(out->path, sizeof out->path, path);
    json_t *root = ftext_json_file(path, err, n);
    if (root == NULL) return false;
    json_t *plan = plan_object(root);
    json_t *nodes = json_object_get(plan, "nodes");
    bool ok = json_is_array(nodes);
    if (!ok) ftext_say(err, n, "%s: $%s.nodes: missing: not a Flink plan (getExecutionPlan() or REST /jobs/:jobid/plan)",
                 path, plan != root ? ".plan" : "");
    if (ok) {
        copy_str(plan, "name", out->job_name, sizeof out->job_name);
        copy_str(plan, "type", out->job_type, sizeof out->job_type);
        ok = read_nodes(out, nodes, err, n);
        if (ok && plan != root) vertex_max_parallelism(out, root);
    }
    json_decref(root);
    if (!ok) fplan_free(out);
    return ok;
}

void fplan_free(fplan *p) {
    free(p->nodes);
    p->nodes = NULL;
    p->count = 0;
}

/* StreamingJobGraphGenerator.isChainable, with what a StreamGraph plan does
 * not print taken as Flink's defaults: one slot-sharing group, and every
 * operator but a source chaining as ALWAYS. An operator joins its input's
 * vertex when it has that one input, over a FORWARD edge, at the same
 * parallelism; a source starts a vertex. */
void fplan_chain(fplan *p, bool chaining) {
    p->chains = 0;
    for (uint32_t i = 0; i < p->count; i++) {
        fplan_node *x = &p->nodes[i];
        const fplan_node *up = x->in_count == 1 ? &p->nodes[x->in[0].from] : NULL;
        bool chain = p->shape == FPLAN_STREAM && chaining && up != NULL && x->in[0].ship == FSHIP_FORWARD &&
                     up->parallelism == x->parallelism;
        x->chain = chain ? up->chain : p->chains++;
    }
}
