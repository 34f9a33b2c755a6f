/* config: the server's settings, read from initializationOptions or
 * workspace/didChangeConfiguration.
 *
 * Shape (all keys optional; the same object may be wrapped as {"perfDoctor": {...}}):
 *   {"gpu": "H100-80G", "lang": "en" | "zh", "modelConfigDir": "/path", "extraRules": "/path",
 *    "rules": {"R-P10": "off" | "critical" | "error" | "warn" | "warning" | "info"},
 *    "disabledRules": ["R-P03"], "syntaxDiagnostics": true}
 * A value of the wrong type is reported and ignored; the rest still applies. */
#ifndef PD_LSP_CONFIG_H
#define PD_LSP_CONFIG_H

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
} cfg_settings;

/* Defaults: lang "en", syntax diagnostics on, nothing else set. Free with cfg_free. */
void cfg_init(cfg_settings *c);
void cfg_free(cfg_settings *c);

/* Replaces *c with the defaults overlaid by the settings in json (NULL or null = defaults).
 * Returns a newline-separated description of the values that were ignored (caller frees), or
 * NULL when everything applied. */
char *cfg_load(cfg_settings *c, const json_t *json);

/* The au_config for these settings; pointers borrow from c. */
au_config cfg_audit(const cfg_settings *c);

#endif
