/* flink/ftext.h: the small text helpers flink/'s readers share.
 *
 * Contract: ftext_say() formats an error into err (n bytes, always
 * NUL-terminated); ftext_copy() copies src into dst, cut to fit n bytes
 * with the NUL. Neither allocates nor fails. ftext_json_file() reads a
 * JSON file with jansson, or says "file:line:col: JSON: what" in err and
 * returns NULL; the caller json_decref()s what it returns. */
#ifndef FTEXT_H
#define FTEXT_H

#include <stddef.h>

#include <jansson.h>

void ftext_say(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void ftext_copy(char *dst, size_t n, const char *src);
json_t *ftext_json_file(const char *path, char *err, size_t n);

#endif
