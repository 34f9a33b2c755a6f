# Navigation (issue 25): definition from an array spread to its definition and appends (in the
# sourced model config too), from $VAR to the assignments that reach it, from a `source` line to
# the file; references across the files that source one another; the outline; rename across
# files, and refused with the reason where it is not safe; every request on a half-typed or
# unknown document answers.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${WSURI}","capabilities":{}}}
expect {"id": 1, "result": {"capabilities": {"definitionProvider": true, "referencesProvider": true, "documentSymbolProvider": true, "renameProvider": {"prepareProvider": true}}}}
open ${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh ws/scripts/training/text/run-qwen3-4B-8xgpu.sh
expect {"method": "textDocument/publishDiagnostics", "params": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh", "version": 1}}
# "${MODEL_ARGS[@]}" (line 66) -> MODEL_ARGS=( in the model config
send {"jsonrpc": "2.0", "id": 2, "method": "textDocument/definition", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "position": {"line": 65, "character": 10}}}
expect {"id": 2, "result": [{"uri": "${WSURI}/scripts/models/qwen3-4B.sh", "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 10}}}]}
# the entrypoint's `source` line -> local.sh; ${MODEL_CONFIG_DIR} -> its export in local.sh
send {"jsonrpc": "2.0", "id": 3, "method": "textDocument/definition", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "position": {"line": 10, "character": 4}}}
expect {"id": 3, "result": [{"uri": "${WSURI}/scripts/entrypoint/local.sh", "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}}]}
send {"jsonrpc": "2.0", "id": 4, "method": "textDocument/definition", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "position": {"line": 13, "character": 14}}}
expect {"id": 4, "result": [{"uri": "${WSURI}/scripts/entrypoint/local.sh", "range": {"start": {"line": 6, "character": 7}, "end": {"line": 6, "character": 23}}}]}
# references of MODEL_DIR: its assignment, its own default, two uses
send {"jsonrpc": "2.0", "id": 5, "method": "textDocument/references", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "position": {"line": 16, "character": 25}, "context": {"includeDeclaration": true}}}
expect {"id": 5, "result": [{"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh", "range": {"start": {"line": 7, "character": 0}, "end": {"line": 7, "character": 9}}}, {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh", "range": {"start": {"line": 7, "character": 13}, "end": {"line": 7, "character": 22}}}, {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh", "range": {"start": {"line": 16, "character": 21}, "end": {"line": 16, "character": 30}}}, {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh", "range": {"start": {"line": 17, "character": 17}, "end": {"line": 17, "character": 26}}}]}
send {"jsonrpc": "2.0", "id": 6, "method": "textDocument/references", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "position": {"line": 16, "character": 25}, "context": {"includeDeclaration": false}}}
expect {"id": 6, "result": [{"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh", "range": {"start": {"line": 7, "character": 13}, "end": {"line": 7, "character": 22}}}, {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh", "range": {"start": {"line": 16, "character": 21}, "end": {"line": 16, "character": 30}}}, {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh", "range": {"start": {"line": 17, "character": 17}, "end": {"line": 17, "character": 26}}}]}
# the outline: arrays with their flags, the train command with the flags on its line
send {"jsonrpc": "2.0", "id": 7, "method": "textDocument/documentSymbol", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}}}
expect {"id": 7, "result": [{"name": "CKPT_ARGS", "kind": 18, "children": [{"name": "--hf-checkpoint", "detail": "/models/Qwen3-4B/"}, {"name": "--ref-load"}, {"name": "--save-interval", "detail": "20"}]}, {"name": "ROLLOUT_ARGS"}, {"name": "PERF_ARGS", "children": ["<contains>", {"name": "--tensor-model-parallel-size", "detail": "2"}]}, {"name": "OPTIMIZER_ARGS"}, {"name": "SGLANG_ARGS"}, {"name": "MISC_ARGS"}, {"name": "train command", "kind": 24, "detail": "relax.entrypoints.train", "range": {"start": {"line": 59, "character": 0}}, "children": [{"name": "--resource"}, {"name": "--colocate"}, {"name": "--max-staleness", "detail": "0"}]}]}
# rename MODEL_ARGS from its use: both files change
send {"jsonrpc": "2.0", "id": 8, "method": "textDocument/rename", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "position": {"line": 65, "character": 10}, "newName": "QWEN_ARGS"}}
expect {"id": 8, "result": {"changes": {"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh": [{"range": {"start": {"line": 65, "character": 6}, "end": {"line": 65, "character": 16}}, "newText": "QWEN_ARGS"}], "${WSURI}/scripts/models/qwen3-4B.sh": [{"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 10}}, "newText": "QWEN_ARGS"}]}}}
send {"jsonrpc": "2.0", "id": 9, "method": "textDocument/prepareRename", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "position": {"line": 6, "character": 3}}}
expect {"id": 9, "result": {"range": {"start": {"line": 6, "character": 0}, "end": {"line": 6, "character": 10}}, "placeholder": "SCRIPT_DIR"}}
# refused: exported (RUNTIME_ENV_JSON), read before it is set (EXP_NAME), a bad name, a name in use, a name bash owns; nothing there
send {"jsonrpc": "2.0", "id": 10, "method": "textDocument/rename", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "position": {"line": 60, "character": 30}, "newName": "RT"}}
expect {"id": 10, "error": {"code": -32803, "message": "`RUNTIME_ENV_JSON` is exported: the programs the script starts may read it by this name"}}
send {"jsonrpc": "2.0", "id": 11, "method": "textDocument/prepareRename", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "position": {"line": 5, "character": 2}}}
expect {"id": 11, "error": {"code": -32803, "message": "~`EXP_NAME` is read at line 6 before the script sets it"}}
send {"jsonrpc": "2.0", "id": 12, "method": "textDocument/rename", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "position": {"line": 6, "character": 2}, "newName": "1X"}}
expect {"id": 12, "error": {"code": -32803, "message": "~not a name bash accepts"}}
send {"jsonrpc": "2.0", "id": 13, "method": "textDocument/rename", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "position": {"line": 6, "character": 2}, "newName": "DATA_DIR"}}
expect {"id": 13, "error": {"message": "`DATA_DIR` is already used at line 9"}}
send {"jsonrpc": "2.0", "id": 14, "method": "textDocument/rename", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "position": {"line": 6, "character": 2}, "newName": "CUDA_HOME"}}
expect {"id": 14, "error": {"message": "~has a meaning of its own"}}
send {"jsonrpc": "2.0", "id": 15, "method": "textDocument/prepareRename", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "position": {"line": 2, "character": 2}}}
expect {"id": 15, "result": null}
send {"jsonrpc": "2.0", "id": 16, "method": "textDocument/definition", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "position": {"line": 2, "character": 2}}}
expect {"id": 16, "result": []}
# conditional assignments reach a use together; an array's appends (one inside a function) all count
send {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": "${TMPURI}/run-nav.sh", "languageId": "shellscript", "version": 1, "text": "#!/bin/bash\nX=1\nif [ \"$(hostname)\" = a ]; then X=2; fi\nA=( --lr \"$X\" )\nA+=( --seed 1 )\nf() { A+=( --micro-batch-size 1 ); }\nf\npython3 -m relax.entrypoints.train \"${A[@]}\"\n"}}}
expect {"method": "textDocument/publishDiagnostics", "params": {"uri": "${TMPURI}/run-nav.sh"}}
send {"jsonrpc": "2.0", "id": 17, "method": "textDocument/definition", "params": {"textDocument": {"uri": "${TMPURI}/run-nav.sh"}, "position": {"line": 3, "character": 11}}}
expect {"id": 17, "result": [{"uri": "${TMPURI}/run-nav.sh", "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 1}}}, {"uri": "${TMPURI}/run-nav.sh", "range": {"start": {"line": 2, "character": 31}, "end": {"line": 2, "character": 32}}}]}
send {"jsonrpc": "2.0", "id": 18, "method": "textDocument/definition", "params": {"textDocument": {"uri": "${TMPURI}/run-nav.sh"}, "position": {"line": 7, "character": 39}}}
expect {"id": 18, "result": [{"uri": "${TMPURI}/run-nav.sh", "range": {"start": {"line": 3, "character": 0}, "end": {"line": 3, "character": 1}}}, {"uri": "${TMPURI}/run-nav.sh", "range": {"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": 1}}}, {"uri": "${TMPURI}/run-nav.sh", "range": {"start": {"line": 5, "character": 6}, "end": {"line": 5, "character": 7}}}]}
send {"jsonrpc": "2.0", "id": 19, "method": "textDocument/definition", "params": {"textDocument": {"uri": "${TMPURI}/run-nav.sh"}, "position": {"line": 6, "character": 0}}}
expect {"id": 19, "result": [{"uri": "${TMPURI}/run-nav.sh", "range": {"start": {"line": 5, "character": 0}, "end": {"line": 5, "character": 1}}}]}
send {"jsonrpc": "2.0", "id": 20, "method": "textDocument/documentSymbol", "params": {"textDocument": {"uri": "${TMPURI}/run-nav.sh"}}}
expect {"id": 20, "result": [{"name": "A", "kind": 18}, {"name": "A", "detail": "appended", "children": [{"name": "--seed", "detail": "1"}]}, {"name": "f", "kind": 12, "range": {"start": {"line": 5, "character": 0}, "end": {"line": 5, "character": 36}}, "children": [{"name": "A", "detail": "appended", "children": [{"name": "--micro-batch-size"}]}]}, {"name": "train command"}]}
send {"jsonrpc": "2.0", "id": 21, "method": "textDocument/rename", "params": {"textDocument": {"uri": "${TMPURI}/run-nav.sh"}, "position": {"line": 6, "character": 0}, "newName": "add_mbs"}}
expect {"id": 21, "result": {"changes": {"${TMPURI}/run-nav.sh": [{"range": {"start": {"line": 5, "character": 0}, "end": {"line": 5, "character": 1}}, "newText": "add_mbs"}, {"range": {"start": {"line": 6, "character": 0}, "end": {"line": 6, "character": 1}}, "newText": "add_mbs"}]}}}
# half-typed: an unclosed quote; every request answers, rename says why not
send {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": "${TMPURI}/run-nav.sh", "version": 2}, "contentChanges": [{"range": {"start": {"line": 3, "character": 9}, "end": {"line": 3, "character": 9}}, "text": "\""}]}}
expect {"method": "textDocument/publishDiagnostics", "params": {"uri": "${TMPURI}/run-nav.sh", "version": 2}}
send {"jsonrpc": "2.0", "id": 22, "method": "textDocument/definition", "params": {"textDocument": {"uri": "${TMPURI}/run-nav.sh"}, "position": {"line": 7, "character": 39}}}
expect {"id": 22, "result": "<any>"}
send {"jsonrpc": "2.0", "id": 23, "method": "textDocument/references", "params": {"textDocument": {"uri": "${TMPURI}/run-nav.sh"}, "position": {"line": 1, "character": 0}, "context": {"includeDeclaration": true}}}
expect {"id": 23, "result": "<any>"}
send {"jsonrpc": "2.0", "id": 24, "method": "textDocument/documentSymbol", "params": {"textDocument": {"uri": "${TMPURI}/run-nav.sh"}}}
expect {"id": 24, "result": "<any>"}
send {"jsonrpc": "2.0", "id": 25, "method": "textDocument/rename", "params": {"textDocument": {"uri": "${TMPURI}/run-nav.sh"}, "position": {"line": 1, "character": 0}, "newName": "Y"}}
expect {"id": 25, "error": {"code": -32803, "message": "~syntax error at line"}}
send {"jsonrpc": "2.0", "id": 26, "method": "textDocument/definition", "params": {"textDocument": {"uri": "${TMPURI}/run-nav.sh"}, "position": {"line": 900, "character": 0}}}
expect {"id": 26, "result": []}
# a document that is not open: empty answers, no error
send {"jsonrpc": "2.0", "id": 27, "method": "textDocument/definition", "params": {"textDocument": {"uri": "${WSURI}/nope.sh"}, "position": {"line": 0, "character": 0}}}
expect {"id": 27, "result": []}
send {"jsonrpc": "2.0", "id": 28, "method": "textDocument/references", "params": {"textDocument": {"uri": "${WSURI}/nope.sh"}, "position": {"line": 0, "character": 0}, "context": {"includeDeclaration": true}}}
expect {"id": 28, "result": []}
send {"jsonrpc": "2.0", "id": 29, "method": "textDocument/documentSymbol", "params": {"textDocument": {"uri": "${WSURI}/nope.sh"}}}
expect {"id": 29, "result": []}
send {"jsonrpc": "2.0", "id": 30, "method": "textDocument/prepareRename", "params": {"textDocument": {"uri": "${WSURI}/nope.sh"}, "position": {"line": 0, "character": 0}}}
expect {"id": 30, "result": null}
send {"jsonrpc": "2.0", "id": 31, "method": "textDocument/definition", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}}}
expect {"id": 31, "error": {"code": -32602}}
# hovers: a spread says what its array holds; a variable its value and where it is set; the
# entrypoint's `source` line names its file (the model config's describes the model)
send {"jsonrpc": "2.0", "id": 32, "method": "textDocument/hover", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "position": {"line": 65, "character": 10}}}
expect {"id": 32, "result": {"contents": {"value": "**MODEL_ARGS**: an array; 15 of the flags argparse sees come from it\n\nSet at qwen3-4B.sh line 2."}}}
send {"jsonrpc": "2.0", "id": 33, "method": "textDocument/hover", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "position": {"line": 16, "character": 25}}}
expect {"id": 33, "result": {"contents": {"value": "**MODEL_DIR** = `/models` (the script's default: the environment may set another value)\n\nSet at line 8."}}}
send {"jsonrpc": "2.0", "id": 34, "method": "textDocument/hover", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "position": {"line": 10, "character": 4}}}
expect {"id": 34, "result": {"contents": {"value": "**Sources** `../../entrypoint/local.sh` (10 lines)"}}}
send {"jsonrpc": "2.0", "id": 35, "method": "textDocument/hover", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "position": {"line": 60, "character": 30}}}
expect {"id": 35, "result": {"contents": {"value": "~**RUNTIME_ENV_JSON** = `{\"env_vars\""}}}
send {"jsonrpc":"2.0","id":40,"method":"shutdown"}
expect {"id": 40, "result": null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
