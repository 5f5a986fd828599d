/* model/flow/gatesim.c: token queues and the consumption loop around a gate. */
#include "gatesim.h"

#include <inttypes.h>
#include <string.h>

#define NIL UINT32_MAX

static bool parse_uint(const char **p, uint64_t max, uint64_t *out) {
    const char *s = *p;
    if (*s < '0' || *s > '9') return false;
    uint64_t v = 0;
    while (*s >= '0' && *s <= '9') {
        uint64_t d = (uint64_t)(*s - '0');
        if (v > (max - d) / 10) return false;
        v = v * 10 + d;
        s++;
    }
    *p = s;
    *out = v;
    return true;
}

bool gatesim_parse(const char *text, uint32_t channels, gatesim_token *tok, char *err, size_t err_bytes) {
    const char *p = text;
    uint64_t ckpt = 0, channel;
    gatesim_kind kind;
    switch (*p) {
    case 'r': kind = GATESIM_RECORD; break;
    case 'b': kind = GATESIM_BARRIER; break;
    case 'x': kind = GATESIM_CANCEL; break;
    case 'e': kind = GATESIM_END; break;
    case 'p': kind = GATESIM_PRIORITY; break;
    case 't': kind = GATESIM_TIMEOUT; break;
    default:
        snprintf(err, err_bytes, "token '%s': unknown kind '%c' (expected r@C, b<N>@C, x<N>@C, e@C, p<N>@C or t<N>)",
                 text, *p ? *p : ' ');
        return false;
    }
    p++;
    if (kind != GATESIM_RECORD && kind != GATESIM_END) {
        if (!parse_uint(&p, GATESIM_CKPT_MAX, &ckpt)) {
            snprintf(err, err_bytes, "token '%s': expected a checkpoint id after '%c', as in %c3@0",
                     text, text[0], text[0]);
            return false;
        }
        if (ckpt == 0) {
            snprintf(err, err_bytes, "token '%s': checkpoint ids start at 1", text);
            return false;
        }
    }
    if (kind == GATESIM_TIMEOUT) {
        if (*p != '\0') {
            snprintf(err, err_bytes, "token '%s': a timeout names no channel, as in t3", text);
            return false;
        }
        *tok = (gatesim_token){ .kind = kind, .channel = 0, .ckpt = ckpt };
        return true;
    }
    if (*p != '@') {
        snprintf(err, err_bytes, "token '%s': expected '@' and a channel after '%.*s'", text,
                 (int)(p - text), text);
        return false;
    }
    p++;
    if (!parse_uint(&p, UINT32_MAX, &channel) || *p != '\0') {
        snprintf(err, err_bytes, "token '%s': expected a channel number after '@'", text);
        return false;
    }
    if (channel >= channels) {
        snprintf(err, err_bytes, "token '%s': channel %" PRIu64 " out of range (channels 0 to %" PRIu32 ")",
                 text, channel, channels - 1);
        return false;
    }
    *tok = (gatesim_token){ .kind = kind, .channel = (uint32_t)channel, .ckpt = ckpt };
    return true;
}

void gatesim_init(gatesim *s, gate_mode mode, uint32_t channels, bool legacy_eop, bool show_blocked,
                  gatesim_token *tokens, uint32_t *next, uint32_t capacity, FILE *out) {
    SIM_ASSERT(capacity >= 1 && capacity <= GATESIM_TOKENS_MAX);
    memset(s, 0, sizeof *s);
    gate_init(&s->g, mode, channels, legacy_eop);
    s->tokens = tokens;
    s->next = next;
    s->capacity = capacity;
    s->show_blocked = show_blocked;
    s->out = out;
    for (uint32_t c = 0; c < GATE_CHANNELS_MAX; c++) {
        s->head[c] = s->tail[c] = NIL;
        s->end_token[c] = NIL;
    }
}

static void show(gatesim *s);

static void print_acts(gatesim *s, const gate_acts *acts) {
    for (uint32_t i = 0; i < acts->count; i++) {
        fprintf(s->out, "%s %" PRIu64 "\n", acts->items[i].kind == GATE_TRIGGER ? "trigger" : "abort",
                acts->items[i].ckpt);
    }
}

static void consume(gatesim *s, uint32_t i) {
    const gatesim_token *t = &s->tokens[i];
    gate_acts acts = { .count = 0 };
    uint64_t ckpt;
    switch (t->kind) {
    case GATESIM_RECORD:
        if (gate_persist_ckpt(&s->g, t->channel, &ckpt)) {
            fprintf(s->out, "persist %" PRIu64 " %" PRIu32 "\n", ckpt, i);
        }
        fprintf(s->out, "emit %" PRIu32 "\n", i);
        break;
    case GATESIM_BARRIER:
        gate_on_barrier(&s->g, t->channel, t->ckpt, &acts);
        print_acts(s, &acts);
        break;
    case GATESIM_CANCEL:
        gate_on_cancel(&s->g, t->channel, t->ckpt, &acts);
        print_acts(s, &acts);
        break;
    case GATESIM_END:
        gate_on_end(&s->g, t->channel, &acts);
        print_acts(s, &acts);
        fprintf(s->out, "emit %" PRIu32 "\n", i);
        break;
    case GATESIM_PRIORITY:
    case GATESIM_TIMEOUT:
        SIM_ASSERT(!"taken on arrival, never queued");
    }
}

/* A priority barrier is taken on arrival: the records queued on its
 * channel are overtaken and, if the checkpoint goes on unaligned, become
 * its channel state. A timeout is taken on arrival too. */
static void take_now(gatesim *s, const gatesim_token *t) {
    gate_acts acts = { .count = 0 };
    if (t->kind == GATESIM_TIMEOUT) {
        gate_on_alignment_timeout(&s->g, t->ckpt, &acts);
        print_acts(s, &acts);
        return;
    }
    gate_on_priority_barrier(&s->g, t->channel, t->ckpt, &acts);
    print_acts(s, &acts);
    bool taken = false;
    for (uint32_t k = 0; k < acts.count; k++) taken |= acts.items[k].kind == GATE_TRIGGER && acts.items[k].ckpt == t->ckpt;
    if (!taken && !(gate_unaligned_pending(&s->g) && s->g.current == t->ckpt)) return;   /* obsolete */
    for (uint32_t i = s->head[t->channel]; i != NIL; i = s->next[i]) {
        if (s->tokens[i].kind == GATESIM_RECORD) fprintf(s->out, "persist %" PRIu64 " %" PRIu32 "\n", t->ckpt, i);
    }
}

/* Everything consumable, in arrival order: the oldest head among the
 * channels that are not blocked, again and again. */
static void drain(gatesim *s) {
    for (;;) {
        uint32_t best = NIL;
        for (uint32_t c = 0; c < s->g.channels; c++) {
            uint32_t h = s->head[c];
            if (h == NIL || gate_blocked(&s->g, c)) continue;
            if (best == NIL || h < s->head[best]) best = c;
        }
        if (best == NIL) return;
        uint32_t i = s->head[best];
        s->head[best] = s->next[i];
        if (s->head[best] == NIL) s->tail[best] = NIL;
        consume(s, i);
    }
}

bool gatesim_feed(gatesim *s, const gatesim_token *tok, char *err, size_t err_bytes) {
    SIM_ASSERT(tok->channel < s->g.channels);
    if (s->count >= s->capacity) {
        snprintf(err, err_bytes, "more than %" PRIu32 " tokens", s->capacity);
        return false;
    }
    if (tok->kind != GATESIM_TIMEOUT && s->end_token[tok->channel] != NIL) {
        snprintf(err, err_bytes, "channel %" PRIu32 " already ended (e@%" PRIu32 " was token %" PRIu32 ")",
                 tok->channel, tok->channel, s->end_token[tok->channel]);
        return false;
    }
    uint32_t i = s->count++;
    s->tokens[i] = *tok;
    s->next[i] = NIL;
    if (tok->kind == GATESIM_PRIORITY || tok->kind == GATESIM_TIMEOUT) {
        if (tok->kind == GATESIM_PRIORITY && s->g.mode == GATE_AT_LEAST_ONCE) {
            snprintf(err, err_bytes, "token %" PRIu32 ": at-least-once barriers are never priority", i);
            return false;
        }
        take_now(s, tok);
        drain(s);
        show(s);
        return true;
    }
    if (tok->kind == GATESIM_END) s->end_token[tok->channel] = i;
    if (s->tail[tok->channel] == NIL) {
        s->head[tok->channel] = i;
    } else {
        s->next[s->tail[tok->channel]] = i;
    }
    s->tail[tok->channel] = i;
    drain(s);
    show(s);
    return true;
}

static void show(gatesim *s) {
    if (s->show_blocked) {
        fputs("blocked", s->out);
        const char *sep = " ";
        for (uint32_t c = 0; c < s->g.channels; c++) {
            if (!gate_blocked(&s->g, c)) continue;
            fprintf(s->out, "%s%" PRIu32, sep, c);
            sep = ",";
        }
        fputc('\n', s->out);
    }
}
