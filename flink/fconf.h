/* flink/fconf.h: a Flink job's configuration, read from what Flink prints.
 *
 * Contract: fconf_read() reads one file in one of three formats into a
 * list of key/value entries, each with the line and column it came from:
 *   FCONF_LEGACY  flink-conf.yaml, read line by line as Flink 1.x's
 *                 GlobalConfiguration.loadYAMLResource reads it (a line
 *                 that reader skips is kept as a note, never an error);
 *   FCONF_YAML    config.yaml (Flink 1.19+ and 2.x), standard YAML read
 *                 with libyaml, nested keys joined with '.' as Flink's
 *                 GlobalConfiguration flattens them;
 *   FCONF_REST    the REST answer GET /jobs/:jobid/checkpoints/config
 *                 (CheckpointConfigInfo), read with jansson; its fields
 *                 become the keys they report.
 * fconf_resolve() then reads every key absim models, under its current
 * name and every older spelling, with Flink's default for what is absent,
 * into an fconf; it marks each entry modelled, shadowed (an older spelling
 * or an earlier line that a later one overrides) or not modelled, so no
 * key is silently dropped. Errors are "file:line:col: what" (exit 2 at the
 * command line); nothing here aborts on bad input. */
#ifndef FCONF_H
#define FCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FCONF_ENTRIES_MAX 65536u     /* keys in one file */
#define FCONF_FILE_MAX    (16u << 20) /* bytes of one file */
#define FCONF_ERR_BYTES   512u

typedef enum fconf_format { FCONF_AUTO, FCONF_LEGACY, FCONF_YAML, FCONF_REST } fconf_format;

typedef enum fconf_use {
    FCONF_UNREAD,        /* not yet resolved */
    FCONF_MODELLED,      /* read into the fconf */
    FCONF_SHADOWED,      /* overridden: a later line, or the key's current name */
    FCONF_NOT_MODELLED,  /* a key absim does not model: listed by name */
    FCONF_INVALID,       /* a modelled key whose value Flink would refuse */
} fconf_use;

typedef struct fconf_entry {
    char    *key;
    char    *value;      /* as text; a YAML list's scalars joined with ';' */
    uint32_t line, col;  /* 1-based; 0 for a REST field */
    uint8_t  use;        /* fconf_use */
    int16_t  field;      /* the fconf field it set, or -1 */
} fconf_entry;

typedef struct fconf_raw {
    char         path[1024];
    fconf_format format;
    fconf_entry *entries;
    uint32_t     count, cap;
    char       **notes;   /* lines Flink's reader skips, "file:line: why" */
    uint32_t     note_count;
} fconf_raw;

/* Reads path; format FCONF_AUTO decides by name (config.yaml, flink-conf.yaml),
 * then by content (a JSON object; a YAML file with nested keys; else the
 * legacy reader). Returns false with "file:line:col: what" in err. */
bool fconf_read(const char *path, fconf_format format, fconf_raw *out, char *err, size_t n);
void fconf_raw_free(fconf_raw *raw);
const char *fconf_format_name(fconf_format f);

/* The settings absim models, one field each; fconf.c's table names every
 * field's Flink keys, type, default and source. */
typedef enum fconf_field {
    FC_INTERVAL, FC_MODE, FC_UNALIGNED, FC_TIMEOUT, FC_MIN_PAUSE, FC_MAX_CONCURRENT,
    FC_TOLERABLE, FC_ALIGNED_TIMEOUT, FC_FINISHED_TASKS, FC_RETAINED,
    FC_STORAGE, FC_CHECKPOINT_DIR, FC_BACKEND, FC_INCREMENTAL,
    FC_RESTART, FC_FD_ATTEMPTS, FC_FD_DELAY, FC_FR_MAX, FC_FR_INTERVAL, FC_FR_DELAY,
    FC_EX_INITIAL, FC_EX_MAX, FC_EX_MULTIPLIER, FC_EX_RESET, FC_EX_JITTER, FC_EX_ATTEMPTS,
    FC_FAILOVER, FC_BUFFER_TIMEOUT, FC_BUFFER_TIMEOUT_ON, FC_PARALLELISM, FC_MAX_PARALLELISM,
    FC_SLOTS, FC_HB_INTERVAL, FC_HB_TIMEOUT, FC_CHAINING,
    FC_COUNT
} fconf_field;

typedef enum { FC_MODE_EXACTLY_ONCE, FC_MODE_AT_LEAST_ONCE } fconf_mode;
typedef enum { FC_STORAGE_DEFAULT, FC_STORAGE_JOBMANAGER, FC_STORAGE_FILESYSTEM } fconf_storage;
typedef enum { FC_RS_DEFAULT, FC_RS_NONE, FC_RS_FIXED, FC_RS_RATE, FC_RS_EXP } fconf_restart;

typedef struct fconf {
    int64_t            num[FC_COUNT];   /* durations in ns, counts, enum indexes, booleans 0/1 */
    double             real[FC_COUNT];  /* multipliers and jitter */
    char               text[FC_COUNT][256];  /* strings (backend, dir) */
    bool               set[FC_COUNT];   /* true: a file said it; false: Flink's default */
    const fconf_entry *from[FC_COUNT];  /* the entry that set it */
} fconf;

/* One row per field: its keys, newest first (the current 2.x name, then
 * the older spellings with the versions they were read in), what it means
 * and Flink's default as text. */
typedef enum fconf_type { FT_DURATION, FT_BOOL, FT_INT, FT_DOUBLE, FT_TEXT } fconf_type;

typedef struct fconf_row {
    fconf_field field;
    fconf_type  type;
    const char *keys[4];
    const char *rest;       /* the CheckpointConfigInfo field, or NULL */
    const char *dflt;       /* Flink's default, as a file would say it ("" none) */
    const char *source;     /* the Flink class that defines it */
} fconf_row;
const fconf_row *fconf_row_of(fconf_field f);

/* Resolves every entry of raw (NULL: Flink's defaults alone) into c;
 * false with "file:line:col: key: why" in err for a value Flink would
 * refuse. */
bool fconf_resolve(fconf_raw *raw, fconf *c, char *err, size_t n);

/* For a run of the job: absim's own bound on heartbeats (a timeout above
 * the interval and a round trip), named at the key's line; Flink's
 * defaults always pass. */
bool fconf_check_heartbeat(const fconf_raw *raw, const fconf *c, char *err, size_t n);

#endif
