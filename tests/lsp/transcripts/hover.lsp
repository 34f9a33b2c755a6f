# Hovers: a flag's documentation, default and resolved value, the GPU plan of --resource, where a
# flag set twice is overridden, the baseline's value, the findings involving it; plain text for
# clients without markdown.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${WSURI}","capabilities":{"textDocument":{"hover":{"contentFormat":["plaintext"]}}}}}
expect {"id":1,"result":"<any>"}
open ${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh ws/scripts/training/text/run-qwen3-4B-8xgpu.sh
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":1}}
send {"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":62,"character":6}}}
expect {"id":2,"result":{"contents":{"kind":"plaintext","value":{"<all>":["~--resource","~default None","~Relax option","~Resolved value: {\"actor\": [1, 8], \"rollout\": [1, 8]}","~GPUs"]}},"range":{"start":{"line":62,"character":3},"end":{"line":62,"character":52}}}}
# On the value of a flag (the JSON), the same hover.
send {"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":62,"character":30}}}
expect {"id":3,"result":{"range":{"start":{"line":62,"character":3}}}}
# Comments, blank lines and the end of the file: nothing.
send {"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":1,"character":5}}}
expect {"id":4,"result":null}
send {"jsonrpc":"2.0","id":5,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":500,"character":0}}}
expect {"id":5,"result":null}
# Set a second time later (argparse: the last one wins).
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2},"contentChanges":[{"range":{"start":{"line":55,"character":28},"end":{"line":55,"character":28}},"text":"\n   --rollout-num-gpus-per-engine 1"}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2}}
send {"jsonrpc":"2.0","id":6,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":48,"character":5}}}
expect {"id":6,"result":{"contents":{"value":{"<all>":["~--rollout-num-gpus-per-engine","~Resolved value: 1","~Set in:","~line 49 (SGLANG_ARGS): 2 (overridden)","~line 57 (MISC_ARGS): 1 (wins: last occurrence)","~baseline"]}},"range":{"start":{"line":48,"character":3},"end":{"line":48,"character":34}}}}
send {"jsonrpc":"2.0","id":7,"method":"shutdown"}
expect {"id":7,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
