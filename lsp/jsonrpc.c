#include "lsp/jsonrpc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

static void invalid(rpc_message *m, int code, const char *msg) {
  m->kind = RPC_INVALID;
  m->err_code = code;
  snprintf(m->err_msg, sizeof m->err_msg, "%s", msg);
}

static bool valid_id(const json_t *id) { return json_is_string(id) || json_is_integer(id); }

void rpc_parse(const char *body, size_t len, rpc_message *m) {
  memset(m, 0, sizeof *m);
  json_error_t e;
  /* Documents may legally contain NUL characters (\u0000); keep them rather than refuse. */
  m->root = json_loadb(body, len, JSON_ALLOW_NUL | JSON_DECODE_ANY, &e);
  if (!m->root) {
    char *msg = pd_xasprintf("parse error at line %d column %d: %s", e.line, e.column, e.text);
    invalid(m, RPC_PARSE_ERROR, msg);
    free(msg);
    return;
  }
  if (json_is_array(m->root)) {
    invalid(m, RPC_INVALID_REQUEST, "batch messages are not supported by LSP");
    return;
  }
  if (!json_is_object(m->root)) {
    invalid(m, RPC_INVALID_REQUEST, "a message must be a JSON object");
    return;
  }
  json_t *id = json_object_get(m->root, "id");
  if (valid_id(id)) m->id = id;
  json_t *version = json_object_get(m->root, "jsonrpc");
  if (!json_is_string(version) || strcmp(json_string_value(version), "2.0") != 0) {
    invalid(m, RPC_INVALID_REQUEST, "\"jsonrpc\" must be \"2.0\"");
    return;
  }
  if (id && !json_is_null(id) && !valid_id(id)) {
    invalid(m, RPC_INVALID_REQUEST, "\"id\" must be an integer or a string");
    return;
  }
  json_t *method = json_object_get(m->root, "method");
  if (method) {
    if (!json_is_string(method)) {
      invalid(m, RPC_INVALID_REQUEST, "\"method\" must be a string");
      return;
    }
    m->method = json_string_value(method);
    m->params = json_object_get(m->root, "params");
    /* Some clients send "params": null for methods without parameters (exit, shutdown);
     * reading it as absent costs nothing and keeps them working. */
    if (m->params && json_is_null(m->params)) m->params = NULL;
    if (m->params && !json_is_object(m->params) && !json_is_array(m->params)) {
      invalid(m, RPC_INVALID_PARAMS, "\"params\" must be an object or an array");
      return;
    }
    m->kind = id ? RPC_REQUEST : RPC_NOTIFICATION;
    if (id && json_is_null(id)) invalid(m, RPC_INVALID_REQUEST, "a request id must not be null");
    return;
  }
  m->result = json_object_get(m->root, "result");
  m->error = json_object_get(m->root, "error");
  if (id && (!m->result) != (!m->error)) {
    m->kind = RPC_RESPONSE;
    return;
  }
  invalid(m, RPC_INVALID_REQUEST, "neither a request, a notification nor a response");
}

void rpc_message_clear(rpc_message *m) {
  json_decref(m->root);
  memset(m, 0, sizeof *m);
}

const char *rpc_id_str(const json_t *id, char *buf, size_t n) {
  if (json_is_integer(id))
    snprintf(buf, n, "%lld", (long long)json_integer_value(id));
  else if (json_is_string(id))
    snprintf(buf, n, "\"%s\"", json_string_value(id));
  else
    snprintf(buf, n, "null");
  return buf;
}

bool rpc_id_equal(const json_t *a, const json_t *b) {
  return a && b && valid_id(a) && json_equal(a, b);
}

static char *dump(json_t *msg, size_t *len) {
  char *s = json_dumps(msg, JSON_COMPACT);
  json_decref(msg);
  if (!s) { /* only on allocation failure inside jansson */
    fprintf(stderr, "perf-doctor: out of memory serialising a message\n");
    abort();
  }
  *len = strlen(s);
  return s;
}

static json_t *envelope(void) { return json_pack("{s:s}", "jsonrpc", "2.0"); }

char *rpc_response(const json_t *id, json_t *result, size_t *len) {
  json_t *msg = envelope();
  json_object_set_new(msg, "id", id ? json_deep_copy(id) : json_null());
  json_object_set_new(msg, "result", result ? result : json_null());
  return dump(msg, len);
}

char *rpc_error(const json_t *id, int code, const char *message, json_t *data, size_t *len) {
  json_t *msg = envelope();
  json_object_set_new(msg, "id", id ? json_deep_copy(id) : json_null());
  json_t *text = json_string(message);
  json_t *err = json_pack("{s:i,s:o}", "code", code, "message",
                          text ? text : json_string("(message was not valid UTF-8)"));
  if (data) json_object_set_new(err, "data", data);
  json_object_set_new(msg, "error", err);
  return dump(msg, len);
}

char *rpc_notification(const char *method, json_t *params, size_t *len) {
  json_t *msg = envelope();
  json_object_set_new(msg, "method", json_string(method));
  if (params) json_object_set_new(msg, "params", params);
  return dump(msg, len);
}

char *rpc_request(long long id, const char *method, json_t *params, size_t *len) {
  json_t *msg = envelope();
  json_object_set_new(msg, "id", json_integer(id));
  json_object_set_new(msg, "method", json_string(method));
  if (params) json_object_set_new(msg, "params", params);
  return dump(msg, len);
}
