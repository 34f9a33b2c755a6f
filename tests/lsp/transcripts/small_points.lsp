# Smaller points of issue 25: a quick fix anywhere on its finding's range (a flag the train
# command lacks is on its whole first line, not only column 1); saving a sourced model config
# (didSave; a client that watches no files) analyses the scripts that source it again.
copy ws/scripts/training/text/run-qwen3-4B-8xgpu.sh scripts/training/text/run-qwen3-4B-8xgpu.sh
copy ws/scripts/models/qwen3-4B.sh scripts/models/qwen3-4B.sh
copy ws/scripts/entrypoint/local.sh scripts/entrypoint/local.sh
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${TMPURI}","capabilities":{}}}
expect {"id": 1, "result": {"capabilities": {"textDocumentSync": {"save": {"includeText": false}}}}}
open ${TMPURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh ${TMP}/scripts/training/text/run-qwen3-4B-8xgpu.sh
expect {"method": "textDocument/publishDiagnostics", "params": {"uri": "${TMPURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh", "version": 1}}
# without its dropout flags the script leaves Megatron's dropout on: R-P24 is about flags the
# train command lacks, placed on its whole first line
send {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": "${TMPURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh", "version": 2}, "contentChanges": [{"range": {"start": {"line": 53, "character": 0}, "end": {"line": 55, "character": 0}}, "text": ""}]}}
expect {"method": "textDocument/publishDiagnostics", "params": {"uri": "${TMPURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh", "version": 2, "diagnostics": ["<contains>", {"code": "R-P24", "range": {"start": {"line": 57, "character": 0}, "end": {"line": 57, "character": 50}}}]}}
# its quick fix from column 30 of the train command's first line
send {"jsonrpc": "2.0", "id": 2, "method": "textDocument/codeAction", "params": {"textDocument": {"uri": "${TMPURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "range": {"start": {"line": 57, "character": 30}, "end": {"line": 57, "character": 30}}, "context": {"diagnostics": []}}}
expect {"id": 2, "result": ["<contains>", {"kind": "quickfix", "diagnostics": [{"code": "R-P24"}]}]}
# the model config changes on disk (it now sets the dropout) and is saved: the script that
# sources it is analysed again, and R-P24 is gone
write scripts/models/qwen3-4B.sh "# Qwen3-4B (dense) architecture for Megatron. 模型结构 🧠\nMODEL_ARGS=(\n   --swiglu\n   --num-layers 36\n   --hidden-size 2560\n   --ffn-hidden-size 9728\n   --num-attention-heads 32\n   --group-query-attention\n   --num-query-groups 8\n   --use-rotary-position-embeddings\n   --disable-bias-linear\n   --normalization \"RMSNorm\"\n   --norm-epsilon 1e-6\n   --rotary-base 1000000\n   --vocab-size 151936\n   --kv-channels 128\n   --qk-layernorm\n   --attention-dropout 0.0\n   --hidden-dropout 0.0\n)\n"
send {"jsonrpc": "2.0", "method": "textDocument/didSave", "params": {"textDocument": {"uri": "${TMPURI}/scripts/models/qwen3-4B.sh"}}}
expect {"method": "textDocument/publishDiagnostics", "params": {"uri": "${TMPURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh", "version": 2, "diagnostics": ["<lacks>", {"code": "R-P24"}]}}
send {"jsonrpc":"2.0","id":9,"method":"shutdown"}
expect {"id": 9, "result": null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
