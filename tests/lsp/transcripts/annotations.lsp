# Inlay hints and the memory-budget code lens (issue 25): the value a ${VAR} flag takes, the
# derived layout where it is set; the estimate at a glance on line 1, its breakdown through the
# lens' command, in both languages; answers on a half-typed document and an unknown one.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${WSURI}","capabilities":{}}}
expect {"id": 1, "result": {"capabilities": {"inlayHintProvider": true, "codeLensProvider": {"resolveProvider": false}, "executeCommandProvider": {"commands": ["perfDoctor.report", "perfDoctor.traceSummary", "perfDoctor.linkTrace", "perfDoctor.compareTraces", "perfDoctor.memoryBudget"]}}}}
open ${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh ws/scripts/training/text/run-qwen3-4B-8xgpu.sh
expect {"method": "textDocument/publishDiagnostics", "params": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh", "version": 1}}
send {"jsonrpc": "2.0", "id": 2, "method": "textDocument/codeLens", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}}}
expect {"id": 2, "result": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "command": {"title": "💾 Memory per GPU (estimate): ≈ 37.7 of 95.0 GiB on H20 96GB · static 16.9 · activations 14.4 · logits 3.9 · runtime 2.5 · rollout: weights 3.7 GiB + KV ≈ 913921 tokens per engine · needs ≥ 2 GPUs at this layout", "command": "perfDoctor.showMemoryBudget", "arguments": ["${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"]}}]}
send {"jsonrpc": "2.0", "id": 3, "method": "workspace/executeCommand", "params": {"command": "perfDoctor.showMemoryBudget", "arguments": ["${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"]}}
expect {"id": 3, "result": {"markdown": {"<all>": ["~## 💾 Memory budget per GPU (estimate)", "~| **peak** of 95.0 GiB usable on H20 96GB | **37.7** |", "~Smallest number of H20 96GB GPUs for the actor at TP2·PP1·CP1 (peak within 90 % of the device): 2; the script gives it 8."]}}}
send {"jsonrpc": "2.0", "id": 4, "method": "textDocument/inlayHint", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 80, "character": 0}}}}
expect {"id": 4, "result": ["<any-order>", {"position": {"line": 62, "character": 52}, "label": "world 8 GPUs: actor 8, rollout 8", "paddingLeft": true}, {"position": {"line": 16, "character": 41}, "label": "= /models/Qwen3-4B/"}, {"position": {"line": 17, "character": 48}, "label": "= /models/Qwen3-4B_torch_dist"}, {"position": {"line": 22, "character": 62}, "label": "= /data/dapo-math-17k/dapo-math-17k.jsonl"}, {"position": {"line": 33, "character": 33}, "label": "DP 4 of 8 GPUs"}, {"position": {"line": 35, "character": 35}, "label": "DP 4 of 8 GPUs"}, {"position": {"line": 36, "character": 28}, "label": "DP 4 of 8 GPUs"}, {"position": {"line": 48, "character": 34}, "label": "4 engines × 2 GPUs"}]}
# a range: only the hints inside it
send {"jsonrpc": "2.0", "id": 5, "method": "textDocument/inlayHint", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "range": {"start": {"line": 48, "character": 0}, "end": {"line": 49, "character": 0}}}}
expect {"id": 5, "result": [{"label": "4 engines × 2 GPUs"}]}
# TP 4 instead of 2: DP follows, the lens follows
send {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh", "version": 2}, "contentChanges": [{"range": {"start": {"line": 33, "character": 32}, "end": {"line": 33, "character": 33}}, "text": "4"}]}}
expect {"method": "textDocument/publishDiagnostics", "params": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh", "version": 2}}
send {"jsonrpc": "2.0", "id": 6, "method": "textDocument/inlayHint", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "range": {"start": {"line": 33, "character": 0}, "end": {"line": 34, "character": 0}}}}
expect {"id": 6, "result": [{"label": "DP 2 of 8 GPUs"}]}
# in Chinese
send {"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"perfDoctor":{"lang":"zh"}}}}
expect {"method": "textDocument/publishDiagnostics", "params": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}}
send {"jsonrpc": "2.0", "id": 7, "method": "textDocument/codeLens", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}}}
expect {"id": 7, "result": [{"command": {"title": "~💾 每卡显存（估算）"}}]}
send {"jsonrpc": "2.0", "id": 8, "method": "textDocument/inlayHint", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "range": {"start": {"line": 48, "character": 0}, "end": {"line": 49, "character": 0}}}}
expect {"id": 8, "result": [{"label": "4 个引擎 × 2 卡"}]}
# half-typed (an unclosed array): both still answer
send {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh", "version": 3}, "contentChanges": [{"range": {"start": {"line": 40, "character": 0}, "end": {"line": 41, "character": 0}}, "text": ""}]}}
expect {"method": "textDocument/publishDiagnostics", "params": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh", "version": 3}}
send {"jsonrpc": "2.0", "id": 9, "method": "textDocument/codeLens", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}}}
expect {"id": 9, "result": "<any>"}
send {"jsonrpc": "2.0", "id": 10, "method": "textDocument/inlayHint", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 80, "character": 0}}}}
expect {"id": 10, "result": "<any>"}
# not open, and a model config (no lens: it is not the launch script)
send {"jsonrpc": "2.0", "id": 11, "method": "textDocument/codeLens", "params": {"textDocument": {"uri": "${WSURI}/nope.sh"}}}
expect {"id": 11, "result": []}
send {"jsonrpc": "2.0", "id": 12, "method": "textDocument/inlayHint", "params": {"textDocument": {"uri": "${WSURI}/nope.sh"}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}}}
expect {"id": 12, "result": []}
send {"jsonrpc": "2.0", "id": 13, "method": "textDocument/inlayHint", "params": {"textDocument": {"uri": "${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}}}
expect {"id": 13, "error": {"code": -32602}}
send {"jsonrpc": "2.0", "id": 14, "method": "workspace/executeCommand", "params": {"command": "perfDoctor.memoryBudget", "arguments": ["${WSURI}/nope.sh"]}}
expect {"id": 14, "error": {"code": -32602, "message": "~perfDoctor.memoryBudget"}}
send {"jsonrpc":"2.0","id":40,"method":"shutdown"}
expect {"id": 40, "result": null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
