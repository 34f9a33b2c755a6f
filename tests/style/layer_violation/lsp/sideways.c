/* A planted violation for style_layers_refuse_sideways: the language server may not include the
 * CLI (the binary's entry point, analyzer/main, is the only place that sees both). Never
 * compiled. */
#include "lsp/server.h"
#include "cli/cli.h"
