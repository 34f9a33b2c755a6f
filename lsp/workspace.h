/* workspace: the open documents and the work done on them, apart from the protocol (the way
 * clangd keeps ClangdServer apart from ClangdLSPServer). It owns the documents, which open
 * script sources which (so that a model config's findings come from the launch script that
 * sources it), the compiled rule set, the resumable-build checkpoints, and the choice of what
 * to analyse next. It speaks no JSON-RPC: the server (server.c) tells it what changed, and it
 * hands back diagnostics to publish through a small host interface. */
#ifndef PD_LSP_WORKSPACE_H
#define PD_LSP_WORKSPACE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "audit/audit.h"
#include "lsp/codeaction.h"
#include "audit/settings.h"
#include "lsp/diagnostics.h"
#include "lsp/document.h"
#include "lsp/filemap.h"

/* What the workspace needs from the protocol side. */
typedef struct {
  /* True when a message already waiting will change `uri` (or the settings): a result for it
   * would be stale and is not published. The server reads its pending input first. */
  bool (*superseded)(void *ctx, const char *uri);
  /* Publish `diagnostics` (consumed) for uri; version < 0 means the file is not open. */
  void (*publish)(void *ctx, const char *uri, json_t *diagnostics, long long version);
  /* A problem the user should see (a bad rule file), and a line for the debug log. */
  void (*warn)(void *ctx, const char *message);
  void (*debug)(void *ctx, const char *message);
  void *ctx;
} ws_host;

/* An open document and what was derived from it. */
typedef struct ws_doc ws_doc;
typedef struct ws_workspace ws_workspace;
typedef struct ws_project ws_project; /* a project config file (private) */

/* NULL when the bash grammar is not accepted by the tree-sitter runtime. Free with ws_free. */
ws_workspace *ws_new(const ws_host *host);
void ws_free(ws_workspace *w);

/* Session parameters the server negotiated: position encoding, whether the client shows
 * relatedInformation. */
void ws_set_client(ws_workspace *w, doc_encoding enc, bool related_information);
/* Replaces the settings (see audit/settings.h); returns a description of what was ignored (caller
 * frees) or NULL. Every document is analysed again. */
char *ws_apply_settings(ws_workspace *w, const json_t *settings);
const au_settings *ws_settings(const ws_workspace *w);

/* Workspace folders: `source` never leaves the folder a script is in. */
void ws_add_root(ws_workspace *w, const char *uri);
void ws_remove_root(ws_workspace *w, const char *uri);
/* The first folder's path, or NULL. */
const char *ws_first_root(const ws_workspace *w);

/* Documents. */
void ws_open(ws_workspace *w, const char *uri, const char *language_id, long long version,
             const char *text, size_t len);
ws_doc *ws_find(ws_workspace *w, const char *uri);
/* The open document with this path (normalised), or NULL. */
ws_doc *ws_find_path(ws_workspace *w, const char *path);
/* The document's text, for applying edits; call ws_changed after. */
doc_document *ws_text(ws_doc *d);
void ws_changed(ws_workspace *w, ws_doc *d);
void ws_close(ws_workspace *w, ws_doc *d);

/* A file on disk changed (created: or deleted: `appeared_or_gone`). */
void ws_file_changed(ws_workspace *w, const char *path, bool appeared_or_gone);
void ws_mark_all_dirty(ws_workspace *w);

/* The document to analyse next (launch scripts first), or NULL when all are up to date. */
ws_doc *ws_next_dirty(ws_workspace *w);
/* Analyses d and publishes its diagnostics, unless a queued change supersedes the result. */
void ws_analyse(ws_workspace *w, ws_doc *d);
/* The analysis that covers d (its own, or that of the open script that sources it), brought
 * up to date; NULL when d is not a shell script. *file receives d's index among its files. */
ws_doc *ws_analysis_for(ws_workspace *w, ws_doc *d, int *file);

/* What an up-to-date analysis holds (borrowed; valid until the next change). */
const au_result *ws_result(const ws_doc *d);
const fm_map *ws_map(const ws_doc *d);
act_cache *ws_actions(ws_doc *d);
const char *ws_doc_path(const ws_doc *d);
/* Links the trace at path (a file or folder; NULL or "" unlinks) to d: its measures become
 * evidence on d's findings from the next analysis on (d is marked dirty). Returns NULL and sets
 * *measures (new reference: the trace object of `check --trace`, or NULL before d's first
 * analysis), or the reason the trace cannot be read (borrowed). */
const char *ws_link_trace(ws_workspace *w, ws_doc *d, const char *path, json_t **measures);
/* Why the trace linked to d is another run's (evd_mismatch, in the settings' language; caller
 * frees), or NULL. */
char *ws_trace_mismatch(ws_workspace *w, ws_doc *d);

/* Configurations for one-off work on a script at `path` (a report of a file that is not open,
 * code actions that rebuild the model). */
au_config ws_audit_config(ws_workspace *w, const char *path);
sm_options ws_model_options(ws_workspace *w, const char *path);
TSParser *ws_parser(ws_workspace *w);
dg_options ws_diag_options(const ws_workspace *w);
/* Message `id` of the catalog in the settings' language (args as au_say). Caller frees. */
char *ws_say(ws_workspace *w, au_msg_id id, const ax_value *args);

#endif
