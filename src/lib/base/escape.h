/* escape.h: text a crashing process controls, made safe for the journal and the kernel log. */
#ifndef CORESINK_ESCAPE_H
#define CORESINK_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum escape_flags {
	ESCAPE_BACKSLASH = 1 << 0,   /* '\' as "\\": distinct inputs stay distinct (one-line fields) */
	ESCAPE_MULTILINE = 1 << 1,   /* keep newline and tab (/proc files, the environment) */
};

/* The most one input byte can become ("\xNN"). */
#define ESCAPE_GROWTH 4

size_t escape_utf8(const char *s, size_t left, uint32_t *cp);
bool escape_is_control(uint32_t c);
size_t escape_text(char *out, size_t len, const char *in, unsigned flags);
void escape_fputs(FILE *f, const char *s, unsigned flags);
void escape_json(FILE *f, const char *s, size_t n);
char *escape_dup(const char *in, unsigned flags);
bool escape_clean(const char *in);
size_t path_undeleted(const char *path);

#endif
