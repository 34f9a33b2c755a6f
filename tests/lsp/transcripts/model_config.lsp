# The model config a script sources: open in the editor (its buffer is read, edits re-analyse
# the script, findings and hovers in it come from the script's analysis) and changed on disk
# (workspace/didChangeWatchedFiles re-reads it).
copy ws/scripts/training/text/run-qwen3-4B-8xgpu.sh scripts/training/text/run-qwen3-4B-8xgpu.sh
copy ws/scripts/models/qwen3-4B.sh scripts/models/qwen3-4B.sh
copy ws/scripts/entrypoint/local.sh scripts/entrypoint/local.sh
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${TMPURI}","capabilities":{"textDocument":{"publishDiagnostics":{"relatedInformation":true}}}}}
expect {"id":1,"result":"<any>"}
open ${TMPURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh ${TMP}/scripts/training/text/run-qwen3-4B-8xgpu.sh
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${TMPURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":1,"diagnostics":["<lacks>",{"code":"R-C02"}]}}
# Opening the config: it gets its (empty) diagnostics from the script's analysis.
open ${TMPURI}/scripts/models/qwen3-4B.sh ${TMP}/scripts/models/qwen3-4B.sh
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${TMPURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":1}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${TMPURI}/scripts/models/qwen3-4B.sh","version":1,"diagnostics":[]}}
# 8 KV groups -> 3 in the editor buffer (not saved): TP 2 no longer divides them (R-C02, critical).
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${TMPURI}/scripts/models/qwen3-4B.sh","version":2},"contentChanges":[{"range":{"start":{"line":8,"character":22},"end":{"line":8,"character":23}},"text":"3"}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${TMPURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":1,"diagnostics":["<contains>",{"code":"R-C02","severity":1,"range":{"start":{"line":33,"character":3}},"relatedInformation":["<contains>",{"location":{"uri":"${TMPURI}/scripts/models/qwen3-4B.sh"},"message":"<any>"}]}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${TMPURI}/scripts/models/qwen3-4B.sh","version":2}}
# Hover in the config answers from the script's analysis.
send {"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"${TMPURI}/scripts/models/qwen3-4B.sh"},"position":{"line":8,"character":6}}}
expect {"id":2,"result":{"contents":{"value":"~Resolved value:** `3`"},"range":{"start":{"line":8,"character":3},"end":{"line":8,"character":23}}}}
# Hover on the `source` line of the script: the model's size and shape.
send {"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{"textDocument":{"uri":"${TMPURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":13,"character":2}}}
expect {"id":3,"result":{"contents":{"value":{"<all>":["~qwen3-4B","~dense"]}},"range":{"start":{"line":13,"character":0}}}}
# Closing the config without saving: the script reads the file on disk again (8 groups).
send {"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"${TMPURI}/scripts/models/qwen3-4B.sh"}}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${TMPURI}/scripts/models/qwen3-4B.sh","diagnostics":[],"version":"<absent>"}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${TMPURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":1,"diagnostics":["<lacks>",{"code":"R-C02"}]}}
# The file changes on disk: nothing happens until the client says so, then the script is re-analysed.
write scripts/models/qwen3-4B.sh "# Qwen3-4B (dense) architecture for Megatron. \u6a21\u578b\u7ed3\u6784 \ud83e\udde0\nMODEL_ARGS=(\n   --swiglu\n   --num-layers 36\n   --hidden-size 2560\n   --ffn-hidden-size 9728\n   --num-attention-heads 32\n   --group-query-attention\n   --num-query-groups 3\n   --use-rotary-position-embeddings\n   --disable-bias-linear\n   --normalization \"RMSNorm\"\n   --norm-epsilon 1e-6\n   --rotary-base 1000000\n   --vocab-size 151936\n   --kv-channels 128\n   --qk-layernorm\n)\n"
quiet 300
send {"jsonrpc":"2.0","method":"workspace/didChangeWatchedFiles","params":{"changes":[{"uri":"${TMPURI}/scripts/models/qwen3-4B.sh","type":2}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${TMPURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":1,"diagnostics":["<contains>",{"code":"R-C02"}]}}
# A change to an unrelated file re-analyses nothing.
send {"jsonrpc":"2.0","method":"workspace/didChangeWatchedFiles","params":{"changes":[{"uri":"${TMPURI}/elsewhere.sh","type":2}]}}
quiet 300
send {"jsonrpc":"2.0","id":4,"method":"shutdown"}
expect {"id":4,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
