/* cli/text.c: text written into JSON and XML outputs. Paths and messages
 * come from the user's files, so any byte may appear: a byte that does
 * not start a valid UTF-8 sequence is written as '?', since a JSON or XML
 * reader rejects the whole document (or line) for one bad byte. And the
 * words of the shell commands absim prints for the user to run. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The length of the valid UTF-8 sequence at s (1 to 4), 0 when s does
 * not start one (a stray continuation byte, an overlong form, a
 * surrogate, past U+10FFFF, a sequence cut short). */
static size_t utf8_len(const unsigned char *s) {
    unsigned c = s[0];
    size_t n = c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : (c & 0xF0) == 0xE0 ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;         /* also stops at the terminating NUL */
    }
    if (n >= 3) {
        unsigned d = s[1];
        if ((c == 0xE0 && d < 0xA0) || (c == 0xED && d >= 0xA0) || (c == 0xF0 && d < 0x90) || (c == 0xF4 && d >= 0x90)) {
            return 0;
        }
    }
    return n;
}

void cli_json_string(FILE *f, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    while (*p != '\0') {
        size_t n = utf8_len(p);
        if (n == 0) {
            fputc('?', f);
            p++;
            continue;
        }
        if (*p == '"' || *p == '\\') fputc('\\', f);
        if (*p < 0x20) fprintf(f, "\\u%04x", *p); else fwrite(p, 1, n, f);
        p += n;
    }
    fputc('"', f);
}

void cli_xml_string(FILE *f, const char *s, bool attr) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p != '\0') {
        size_t n = utf8_len(p);
        unsigned c = *p;
        if (n == 0 || (c < 0x20 && c != '\t' && c != '\n' && c != '\r')) {
            fputc('?', f);                           /* XML 1.0 has no way to write these */
            p++;
            continue;
        }
        switch (c) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\r': fputs("&#13;", f); break;         /* a reader would turn a raw one into \n */
        case '\t':
        case '\n':                                   /* in an attribute a raw one would read as a space */
            if (attr) fprintf(f, "&#%u;", c); else fputc((int)c, f);
            break;
        default: fwrite(p, 1, n, f);
        }
        p += n;
    }
}

static bool shell_safe(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           strchr("_-./:=+,@%", c) != NULL;
}

const char *cli_shell_word(const char *s, char *buf, size_t n) {
    SIM_ASSERT(n >= 3);
    bool safe = s[0] != '\0';
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0' && safe; p++) safe = shell_safe(*p);
    if (safe) {
        snprintf(buf, n, "%s", s);
        return buf;
    }
    size_t k = 0;
    buf[k++] = '\'';
    for (const char *p = s; *p != '\0' && k + 6 < n; p++) {
        if (*p == '\'') {
            memcpy(buf + k, "'\\''", 4);
            k += 4;
        } else {
            buf[k++] = *p;
        }
    }
    buf[k++] = '\'';
    buf[k] = '\0';
    return buf;
}

static char self_word[1024] = "absim";

void cli_self_set(const char *argv0) {
    if (argv0 != NULL && argv0[0] != '\0') (void)cli_shell_word(argv0, self_word, sizeof self_word);
}

const char *cli_self(void) { return self_word; }
