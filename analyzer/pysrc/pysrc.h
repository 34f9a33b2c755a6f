/* pysrc: the argparse options a Relax checkout defines, read from its Python sources with the
 * pinned tree-sitter Python grammar, without running anything.
 *
 * Launch scripts live inside a Relax checkout, and the options Relax's own parser has are the
 * ones in that checkout, which may be newer or older than the built-in catalog's commit. This
 * module reads them: every `<parser>.add_argument(...)` call of relax/utils/arguments.py, those
 * in the functions it imports to add options (add_*_arguments from other relax modules, and the
 * module functions those call), and `reset_arg(parser, "--x", default=...)`, Relax's way of
 * changing a Megatron default. Literal arguments are evaluated as Python would (strings with
 * implicit concatenation, numbers, True/False/None, lists, unary minus, integer arithmetic);
 * anything else is kept as its source text (a default "computed" at run time, a type that is
 * some callable). Options added inside a function named like `_pre_parse*` are the pre-parsed
 * ones (parser "pre").
 *
 * The result is a catalog of the Relax part (fc_merge it over the built-in one). Megatron's and
 * SGLang's options are not read here: they come from the built-in catalog. */
#ifndef PD_PYSRC_PYSRC_H
#define PD_PYSRC_PYSRC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "flagcat/flagcat.h"

/* The options of Python source text[0..len) (named `file` in messages), as option objects in the
 * flag catalog's JSON format appended to `options`. `only`: when not NULL, only calls inside
 * these module-level functions (and the module functions they call) count; NULL = every call of
 * the file. Returns false with *err (caller frees: "file:line: what") when the text does not
 * parse as Python; the options found before the error are kept. */
bool ps_read_options(const char *file, const char *text, size_t len, const char *const *only,
                     size_t nonly, json_t *options, char **err);

/* Whether dir looks like a Relax checkout (it has relax/utils/arguments.py). */
bool ps_is_relax_checkout(const char *dir);

/* The nearest directory at or above `path` (a launch script or a folder) that is a Relax
 * checkout; NULL when none is. Caller frees. */
char *ps_find_checkout(const char *path);

/* The catalog of the Relax options the checkout at `root` defines, stamped "<root> (checkout)".
 * NULL with *err (caller frees) naming the file and line when a file it needs does not parse or
 * cannot be read; the caller then keeps the built-in catalog. */
fc_catalog *ps_relax_catalog(const char *root, char **err);

/* The catalogs of one session: the built-in one with Relax's part read from a checkout, one per
 * checkout, read once. */
typedef struct ps_catalogs ps_catalogs;
ps_catalogs *ps_catalogs_new(void);
void ps_catalogs_free(ps_catalogs *cc);
/* The catalog for the script at `path` (may be NULL): relax_src names the checkout (NULL =
 * the one `path` is in, found by walking up; "" = none); no checkout = `builtin` (borrowed).
 * The first time a checkout cannot be read or does not parse, *warning (caller frees) says so
 * ("file:line: ...; using the built-in flag catalog") and `builtin` is used for it from then on.
 * The result is borrowed: from cc, or `builtin` itself. */
const fc_catalog *ps_catalog_for(ps_catalogs *cc, const fc_catalog *builtin, const char *relax_src,
                                 const char *path, char **warning);

#endif
