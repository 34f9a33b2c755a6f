/* settings: what a user controls — the editor's settings (initializationOptions,
 * workspace/didChangeConfiguration), a project's `.perf-doctor.json`, and the CLI's options all
 * set the same keys, so the editor and `check` judge a script alike.
 *
 * Shape (all keys optional; the same object may be wrapped as {"perfDoctor": {...}}):
 *   {"gpu": "H100-80G", "lang": "en" | "zh", "modelConfigDir": "/path", "extraRules": "/path", "docsUrl": "https://.../docs/rules/",
 *    "rules": {"R-P10": "off" | "critical" | "error" | "warn" | "warning" | "info"},
 *    "disabledRules": ["R-P03"], "syntaxDiagnostics": true, "traceDir": "traces/exp/train_trace",
 *    "relaxSrc": "/path/to/Relax"}
 * A relative traceDir or relaxSrc in a config file is relative to that file's folder. relaxSrc: the
 * Relax checkout whose own options the flag checks use (default: the checkout the script is in,
 * found by walking up from it; "" = the built-in catalog only).
 * A value of the wrong type is reported and ignored; the rest still applies. */
#ifndef PD_AUDIT_SETTINGS_H
#define PD_AUDIT_SETTINGS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "audit/audit.h"

typedef struct {
  char *gpu;              /* NULL = from the script, else assumed H20 */
  char *lang;             /* "en" | "zh" */
  char *model_config_dir; /* NULL = discover */
  char *extra_rules;      /* NULL = none */
  au_override *overrides; /* per-rule severity (-1 = disabled) */
  size_t noverrides, overrides_cap;
  bool syntax_diagnostics; /* false: rule R-S02 (syntax errors) is off */
  char *docs_url;          /* base URL of the rule pages (diagnostic links); NULL = PD_DOCS_URL */
  char *trace_dir;         /* a trace file or folder of the job whose measures become evidence; NULL */
  char *relax_src;         /* the Relax checkout to read Relax's options from; NULL = discover,
                              "" = none (the built-in catalog) */
} au_settings;

/* Defaults: lang "en", syntax diagnostics on, nothing else set. Free with au_settings_free. */
void au_settings_init(au_settings *c);
void au_settings_free(au_settings *c);

/* Replaces *c with the defaults overlaid by the settings in json (NULL or null = defaults).
 * Returns a newline-separated description of the values that were ignored (caller frees), or
 * NULL when everything applied. */
char *au_settings_load(au_settings *c, const json_t *json);
/* Overlays the keys json sets onto *c (the rest stays); result as au_settings_load. */
char *au_settings_apply(au_settings *c, const json_t *json);

/* The project config file that governs a script: `.perf-doctor.json` in the script's directory
 * or the nearest one above it, stopping after a directory that holds `.git` (the repository
 * root) or at the file system root. Caller frees; NULL when there is none. */
char *au_settings_find(const char *script_path);
#define AU_SETTINGS_FILE ".perf-doctor.json"
/* Overlays the settings of a config file onto *c. Returns what was ignored or went wrong,
 * prefixed with the file's path (caller frees), or NULL. */
char *au_settings_apply_file(au_settings *c, const char *path);

/* A severity word ("off", "info", "warn", "warning", "critical", "error", ...): its au_severity,
 * -1 for off, -2 when it is not one. */
int au_settings_severity(const char *word);
/* Sets one rule's severity (-1 = off), replacing an earlier one. */
void au_settings_override(au_settings *c, const char *rule, int sev);

/* The au_config for these settings; pointers borrow from c. */
au_config au_settings_config(const au_settings *c);

#endif
