/* jsonrpc: JSON-RPC 2.0 envelopes as LSP uses them (the only code that reads or builds them).
 *
 * Parsing classifies a body as request, notification, response or invalid; an invalid body
 * carries the error code and message the peer deserves, and the id when one could be read.
 * Builders return the serialised body (malloc'd, caller frees) and consume the json_t
 * arguments they are given, as jansson's `_new` functions do. */
#ifndef PD_LSP_JSONRPC_H
#define PD_LSP_JSONRPC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Error codes (JSON-RPC 2.0 and LSP 3.17). */
enum {
  RPC_PARSE_ERROR = -32700,
  RPC_INVALID_REQUEST = -32600,
  RPC_METHOD_NOT_FOUND = -32601,
  RPC_INVALID_PARAMS = -32602,
  RPC_INTERNAL_ERROR = -32603,
  RPC_SERVER_NOT_INITIALIZED = -32002,
  RPC_UNKNOWN_ERROR_CODE = -32001,
  RPC_REQUEST_FAILED = -32803,
  RPC_SERVER_CANCELLED = -32802,
  RPC_CONTENT_MODIFIED = -32801,
  RPC_REQUEST_CANCELLED = -32800
};

typedef enum { RPC_REQUEST, RPC_NOTIFICATION, RPC_RESPONSE, RPC_INVALID } rpc_kind;

typedef struct {
  rpc_kind kind;
  json_t *root;       /* owned: the parsed body, NULL when it was not JSON */
  json_t *id;         /* borrowed from root: string or integer; NULL when absent or unusable */
  const char *method; /* requests and notifications */
  json_t *params;     /* borrowed; NULL when absent */
  json_t *result;     /* responses: exactly one of result / error is set */
  json_t *error;
  int err_code;       /* RPC_INVALID: the error to answer */
  char err_msg[160];
} rpc_message;

/* Parses body[0..len). Always fills *m; release with rpc_message_clear. */
void rpc_parse(const char *body, size_t len, rpc_message *m);
void rpc_message_clear(rpc_message *m);

/* Renders an id for logs ("7", "\"abc\"", "null") into buf. */
const char *rpc_id_str(const json_t *id, char *buf, size_t n);
/* True when both ids are present and equal. */
bool rpc_id_equal(const json_t *a, const json_t *b);

/* Serialised messages; caller frees. `id` is borrowed (NULL renders as null); `result`,
 * `params` and `data` are consumed (NULL renders as null / is omitted). */
char *rpc_response(const json_t *id, json_t *result, size_t *len);
char *rpc_error(const json_t *id, int code, const char *message, json_t *data, size_t *len);
char *rpc_notification(const char *method, json_t *params, size_t *len);
char *rpc_request(long long id, const char *method, json_t *params, size_t *len);

#endif
