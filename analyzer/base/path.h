/* path: lexical path helpers and whole-file reads. */
#ifndef PD_BASE_PATH_H
#define PD_BASE_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* Reads a whole regular file. Returns a NUL-terminated copy (caller frees) and its length,
 * or NULL with errno set. Refuses files larger than max_bytes (errno = EFBIG) and anything that
 * is not a regular file before opening it (errno = EINVAL: opening a FIFO would block). */
char *pd_read_file(const char *path, size_t max_bytes, size_t *len);
/* The message for a pd_read_file failure (errno value err). Static string. */
const char *pd_read_error(int err);
/* Writes text (NUL-terminated) to path, replacing it. False with errno set on failure. */
bool pd_write_file(const char *path, const char *text);

/* Lexically normalised path: `a/./b/../c` -> `a/c`, no trailing slash, "." for empty. It does
 * not touch the file system (symbolic links are not resolved). Caller frees. */
char *pd_path_normalize(const char *path);
/* The path made absolute against the current directory, normalised. Caller frees. */
char *pd_path_absolute(const char *path);
/* Directory part of a path ("." when there is none, "/" for the root). Caller frees. */
char *pd_path_dirname(const char *path);
/* path as seen from the directory of `file` (both absolute and normalised): `b.sh`,
 * `../models/x.sh`; path itself when they share nothing but the root. Caller frees. */
char *pd_path_from(const char *file, const char *path);
/* Creates dir and its missing parents (mode 0777 & umask). 0, or -1 with errno set. */
int pd_mkdirs(const char *dir);
/* The last component of a path (borrowed from it; "" for NULL). */
const char *pd_path_base(const char *path);

#endif
