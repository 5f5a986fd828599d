/* flink/ftext.c: see ftext.h. */
#include "ftext.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ftext_say(char *err, size_t n, const char *fmt, ...) {
    assert(err != NULL && n > 0);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
}

void ftext_copy(char *dst, size_t n, const char *src) {
    assert(dst != NULL && n > 0 && src != NULL);
    size_t k = strlen(src);
    if (k > n - 1) k = n - 1;
    memcpy(dst, src, k);
    dst[k] = '\0';
}

json_t *ftext_json_file(const char *path, char *err, size_t n) {
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (root == NULL) ftext_say(err, n, "%s:%d:%d: JSON: %s", path, je.line, je.column > 0 ? je.column : 1, je.text);
    return root;
}
