/* str: small string predicates and strict number parsing. */
#ifndef PD_BASE_STR_H
#define PD_BASE_STR_H

#include <stdbool.h>
#include <stddef.h>

bool pd_str_starts(const char *s, const char *prefix);
bool pd_str_ends(const char *s, const char *suffix);
/* Whether the NUL-terminated needle occurs in s[0..n) (s need not be NUL-terminated). */
bool pd_mem_has(const char *s, size_t n, const char *needle);

/* Edit distance of a and b with adjacent transpositions (Damerau), capped: any distance above
 * cap comes back as cap + 1, and so do strings over 64 bytes (names are short). */
size_t pd_edit_distance(const char *a, const char *b, size_t cap);

/* Parses a whole decimal integer (optionally signed); false if s is not exactly one. */
bool pd_parse_long(const char *s, long *out);
/* Parses a whole floating number (1e-6, 0.8, 16); false if s is not exactly one. */
bool pd_parse_double(const char *s, double *out);

/* The offset of the first byte of s[0..n) that does not start a well-formed UTF-8 character
 * (overlong forms, surrogates and code points above U+10FFFF are not), or n when all are. */
size_t pd_utf8_bad(const char *s, size_t n);

#endif
