/* A planted violation for style_layers_refuse_upward: the script layer may not include the
 * audit layer. Never compiled. */
#include "base/alloc.h"
#include "audit/audit.h"
