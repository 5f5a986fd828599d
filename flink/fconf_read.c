/* flink/fconf_read.c: the three readers of fconf_read() (see fconf.h). */
#include "fconf.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <yaml.h>

#include "ftext.h"
#include "fval.h"


static char *dup_n(const char *s, size_t len) {
    char *p = malloc(len + 1);
    if (p == NULL) return NULL;
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

/* Appends key = value (copied); false when the table or memory is full. */
static bool add_entry(fconf_raw *r, const char *key, size_t klen, const char *value, size_t vlen,
                      uint32_t line, uint32_t col, char *err, size_t n) {
    if (r->count == r->cap) {
        uint32_t cap = r->cap == 0 ? 64 : r->cap * 2;
        if (r->count >= FCONF_ENTRIES_MAX) {
            ftext_say(err, n, "%s:%u:%u: more than %u keys in one configuration file", r->path, line, col, FCONF_ENTRIES_MAX);
            return false;
        }
        fconf_entry *e = realloc(r->entries, cap * sizeof *e);
        if (e == NULL) { ftext_say(err, n, "%s: out of memory", r->path); return false; }
        r->entries = e;
        r->cap = cap;
    }
    fconf_entry *e = &r->entries[r->count];
    *e = (fconf_entry){ .key = dup_n(key, klen), .value = dup_n(value, vlen), .line = line, .col = col,
                        .use = FCONF_UNREAD, .field = -1 };
    if (e->key == NULL || e->value == NULL) {
        free(e->key);
        free(e->value);
        ftext_say(err, n, "%s: out of memory", r->path);
        return false;
    }
    r->count++;
    return true;
}

static bool add_note(fconf_raw *r, uint32_t line, const char *why) {
    char buf[1200];
    snprintf(buf, sizeof buf, "%s:%u: %s", r->path, line, why);
    char **notes = realloc(r->notes, (r->note_count + 1) * sizeof *notes);
    if (notes == NULL) return false;
    r->notes = notes;
    r->notes[r->note_count] = dup_n(buf, strlen(buf));
    if (r->notes[r->note_count] == NULL) return false;
    r->note_count++;
    return true;
}

/* [*s, *e) without Java's trim() characters at either end. */
static void trim_span(const char **s, const char **e) {
    while (*s < *e && fval_java_space(**s)) (*s)++;
    while (*e > *s && fval_java_space((*e)[-1])) (*e)--;
}

/* One line as GlobalConfiguration.loadYAMLResource reads it (Flink 1.x):
 * everything from the first '#' is a comment, the rest trimmed; the key is
 * what comes before the first ": ", the value what follows, both trimmed;
 * a line without ": ", or with an empty key or value, is skipped with a
 * warning. Later lines override earlier ones. */
static bool legacy_line(fconf_raw *r, const char *line, size_t len, uint32_t no, char *err, size_t n) {
    const char *hash = memchr(line, '#', len);
    const char *s = line, *e = hash != NULL ? hash : line + len;
    trim_span(&s, &e);
    if (s == e) return true;
    const char *sep = NULL;
    for (const char *p = s; p + 1 < e; p++) {
        if (p[0] == ':' && p[1] == ' ') { sep = p; break; }
    }
    if (sep == NULL) {
        return add_note(r, no, "Flink skips this line: not a key-value pair (no ': ')");
    }
    const char *ks = s, *ke = sep, *vs = sep + 2, *ve = e;
    trim_span(&ks, &ke);
    trim_span(&vs, &ve);
    if (ks == ke || vs == ve) return add_note(r, no, "Flink skips this line: its key or value is empty");
    return add_entry(r, ks, (size_t)(ke - ks), vs, (size_t)(ve - vs), no, (uint32_t)(ks - line) + 1, err, n);
}

static bool read_legacy(fconf_raw *r, const char *buf, size_t len, char *err, size_t n) {
    uint32_t no = 0;
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(buf + at, '\n', len - at);
        size_t end = nl != NULL ? (size_t)(nl - buf) : len;
        size_t l = end - at;
        if (l > 0 && buf[at + l - 1] == '\r') l--;      /* BufferedReader.readLine drops \r\n */
        no++;
        if (!legacy_line(r, buf + at, l, no, err, n)) {
            if (err[0] == '\0') ftext_say(err, n, "%s: out of memory", r->path);
            return false;
        }
        at = end + 1;
    }
    return true;
}

/* config.yaml: a node flattened under prefix, as Flink's
 * GlobalConfiguration (1.19+) flattens nested maps into dotted keys. */
#define YAML_VISITS_MAX (1u << 20)   /* pairs visited: anchors and aliases can multiply them */

/* A list's scalars joined with ';' (Flink's separator for list values
 * given as text, ConfigurationUtils); a list of maps or lists, or one past
 * 8 KiB, is kept as an empty value with a note. */
static bool yaml_list(fconf_raw *r, yaml_document_t *d, yaml_node_t *v, const char *key, size_t kl, uint32_t line,
                      uint32_t col, char *err, size_t n) {
    char val[8192];
    size_t vl = 0;
    for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
        yaml_node_t *x = yaml_document_get_node(d, *it);
        if (x == NULL || x->type != YAML_SCALAR_NODE || vl + x->data.scalar.length + 2 >= sizeof val) {
            if (!add_note(r, line, "a list of maps or lists, or one above 8 KiB: kept as an empty value")) return false;
            vl = 0;
            break;
        }
        if (vl > 0) val[vl++] = ';';
        memcpy(val + vl, x->data.scalar.value, x->data.scalar.length);
        vl += x->data.scalar.length;
    }
    return add_entry(r, key, kl, val, vl, line, col, err, n);
}

static bool yaml_flatten(fconf_raw *r, yaml_document_t *d, yaml_node_t *node, const char *prefix,
                         int depth, uint32_t *visits, char *err, size_t n) {
    if (depth > 32) {
        ftext_say(err, n, "%s:%lu:%lu: keys nested deeper than 32 levels", r->path,
            (unsigned long)node->start_mark.line + 1, (unsigned long)node->start_mark.column + 1);
        return false;
    }
    for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(d, p->key);
        yaml_node_t *v = yaml_document_get_node(d, p->value);
        uint32_t line = (uint32_t)k->start_mark.line + 1, col = (uint32_t)k->start_mark.column + 1;
        if (++*visits > YAML_VISITS_MAX) {
            ftext_say(err, n, "%s:%u:%u: anchors and aliases expand past %u keys (Flink's YAML loader limits aliases too)",
                      r->path, line, col, YAML_VISITS_MAX);
            return false;
        }
        if (k->type != YAML_SCALAR_NODE) {
            ftext_say(err, n, "%s:%u:%u: a key must be a plain word, not a list or a map", r->path, line, col);
            return false;
        }
        char key[1024];
        int kl = snprintf(key, sizeof key, "%s%s%.*s", prefix, prefix[0] ? "." : "",
                          (int)k->data.scalar.length, (const char *)k->data.scalar.value);
        if (kl < 0 || (size_t)kl >= sizeof key) {
            ftext_say(err, n, "%s:%u:%u: a key longer than 1023 bytes", r->path, line, col);
            return false;
        }
        if (v->type == YAML_MAPPING_NODE) {
            if (!yaml_flatten(r, d, v, key, depth + 1, visits, err, n)) return false;
            continue;
        }
        if (v->type == YAML_SCALAR_NODE) {
            if (!add_entry(r, key, (size_t)kl, (const char *)v->data.scalar.value, v->data.scalar.length, line, col, err, n)) return false;
            continue;
        }
        if (!yaml_list(r, d, v, key, (size_t)kl, line, col, err, n)) return false;
    }
    return true;
}

static bool read_yaml(fconf_raw *r, const char *buf, size_t len, char *err, size_t n) {
    yaml_parser_t p;
    yaml_document_t d;
    if (!yaml_parser_initialize(&p)) { ftext_say(err, n, "%s: out of memory", r->path); return false; }
    yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
    if (!yaml_parser_load(&p, &d)) {
        ftext_say(err, n, "%s:%lu:%lu: YAML: %s", r->path, (unsigned long)p.problem_mark.line + 1,
            (unsigned long)p.problem_mark.column + 1, p.problem != NULL ? p.problem : "unreadable");
        yaml_parser_delete(&p);
        return false;
    }
    bool ok = true;
    yaml_node_t *root = yaml_document_get_root_node(&d);
    if (root != NULL && root->type != YAML_MAPPING_NODE) {
        ftext_say(err, n, "%s:%lu:%lu: a configuration must be a map of keys", r->path,
            (unsigned long)root->start_mark.line + 1, (unsigned long)root->start_mark.column + 1);
        ok = false;
    } else if (root != NULL) {
        uint32_t visits = 0;
        ok = yaml_flatten(r, &d, root, "", 0, &visits, err, n);
    }
    yaml_document_delete(&d);
    yaml_parser_delete(&p);
    return ok;
}

/* The REST answer: every scalar field, nested objects joined with '.'
 * ("externalization.enabled"), as text; fconf_resolve() matches them to the
 * rows' REST names. */
static bool json_flatten(fconf_raw *r, json_t *obj, const char *prefix, int depth, char *err, size_t n) {
    const char *k;
    json_t *v;
    json_object_foreach(obj, k, v) {
        char key[512], val[64];
        int kl = snprintf(key, sizeof key, "%s%s%s", prefix, prefix[0] ? "." : "", k);
        if (kl < 0 || (size_t)kl >= sizeof key) continue;
        const char *text = val;
        if (json_is_object(v) && depth < 4) {
            if (!json_flatten(r, v, key, depth + 1, err, n)) return false;
            continue;
        } else if (json_is_string(v)) {
            text = json_string_value(v);
        } else if (json_is_integer(v)) {
            snprintf(val, sizeof val, "%lld", (long long)json_integer_value(v));
        } else if (json_is_real(v)) {
            snprintf(val, sizeof val, "%.17g", json_real_value(v));
        } else if (json_is_boolean(v)) {
            snprintf(val, sizeof val, "%s", json_is_true(v) ? "true" : "false");
        } else {
            continue;                            /* null, arrays: nothing to set */
        }
        if (!add_entry(r, key, (size_t)kl, text, strlen(text), 0, 0, err, n)) return false;
    }
    return true;
}

static bool read_rest(fconf_raw *r, const char *buf, size_t len, char *err, size_t n) {
    json_error_t je;
    json_t *root = json_loadb(buf, len, 0, &je);
    if (root == NULL) {
        ftext_say(err, n, "%s:%d:%d: JSON: %s", r->path, je.line, je.column > 0 ? je.column : 1, je.text);
        return false;
    }
    bool ok = json_is_object(root);
    if (!ok) ftext_say(err, n, "%s:1:1: the checkpoint configuration must be a JSON object", r->path);
    if (ok) ok = json_flatten(r, root, "", 0, err, n);
    json_decref(root);
    return ok;
}

/* A YAML file with a nested map is a config.yaml; a flat one is read as
 * flink-conf.yaml, whose reader is the more lenient of the two. */
static fconf_format sniff(const char *path, const char *buf, size_t len) {
    const char *base = strrchr(path, '/');
    base = base != NULL ? base + 1 : path;
    if (strcmp(base, "config.yaml") == 0) return FCONF_YAML;
    if (strcmp(base, "flink-conf.yaml") == 0) return FCONF_LEGACY;
    size_t i = 0;
    while (i < len && fval_java_space(buf[i])) i++;
    if (i < len && buf[i] == '{') return FCONF_REST;
    for (size_t at = 0; at < len;) {             /* an indented key: nested */
        const char *nl = memchr(buf + at, '\n', len - at);
        size_t end = nl != NULL ? (size_t)(nl - buf) : len;
        if (end > at + 1 && (buf[at] == ' ' || buf[at] == '\t')) {
            const char *s = buf + at, *e = buf + end;
            trim_span(&s, &e);
            if (s < e && *s != '#' && *s != '-' && memchr(s, ':', (size_t)(e - s)) != NULL) return FCONF_YAML;
        }
        at = end + 1;
    }
    return FCONF_LEGACY;
}

static char *slurp(const char *path, size_t *len, char *err, size_t n) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) { ftext_say(err, n, "%s: %s", path, strerror(errno)); return NULL; }
    char *buf = malloc(FCONF_FILE_MAX + 1);
    size_t got = buf != NULL ? fread(buf, 1, FCONF_FILE_MAX + 1, f) : 0;
    bool bad = buf == NULL || ferror(f);
    fclose(f);
    if (bad) { free(buf); ftext_say(err, n, "%s: cannot read it", path); return NULL; }
    if (got > FCONF_FILE_MAX) { free(buf); ftext_say(err, n, "%s: larger than %u MiB", path, FCONF_FILE_MAX >> 20); return NULL; }
    buf[got] = '\0';
    *len = got;
    return buf;
}

const char *fconf_format_name(fconf_format f) {
    switch (f) {
    case FCONF_LEGACY: return "flink-conf.yaml (Flink 1.x's line reader)";
    case FCONF_YAML:   return "config.yaml (standard YAML, Flink 1.19+)";
    case FCONF_REST:   return "REST checkpoints/config JSON";
    case FCONF_AUTO:   break;
    }
    return "auto";
}

bool fconf_read(const char *path, fconf_format format, fconf_raw *out, char *err, size_t n) {
    assert(path != NULL && out != NULL && err != NULL && n > 0);
    memset(out, 0, sizeof *out);
    err[0] = '\0';
    snprintf(out->path, sizeof out->path, "%s", path);
    size_t len = 0;
    char *buf = slurp(path, &len, err, n);
    if (buf == NULL) return false;
    out->format = format != FCONF_AUTO ? format : sniff(path, buf, len);
    bool ok = out->format == FCONF_LEGACY ? read_legacy(out, buf, len, err, n)
            : out->format == FCONF_YAML   ? read_yaml(out, buf, len, err, n)
                                          : read_rest(out, buf, len, err, n);
    free(buf);
    if (!ok) fconf_raw_free(out);
    return ok;
}

void fconf_raw_free(fconf_raw *raw) {
    for (uint32_t i = 0; i < raw->count; i++) {
        free(raw->entries[i].key);
        free(raw->entries[i].value);
    }
    for (uint32_t i = 0; i < raw->note_count; i++) free(raw->notes[i]);
    free(raw->entries);
    free(raw->notes);
    raw->entries = NULL;
    raw->notes = NULL;
    raw->count = raw->cap = raw->note_count = 0;
}
