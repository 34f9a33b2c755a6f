# Completion (issue 24): flag names inside *_ARGS arrays and on the train command, choice values
# after a flag that has choices, nothing in comments, strings or other commands; the
# documentation comes with completionItem/resolve; a half-typed array still completes.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${WSURI}","capabilities":{}}}
expect {"id":1,"result":"<any>"}
open ${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh ws/scripts/training/text/run-qwen3-4B-8xgpu.sh
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":1}}
# a new word "--tensor-mod" at the end of line 45 (OPTIMIZER_ARGS, after --lr 1e-6)
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2},"contentChanges":[{"range":{"start":{"line":44,"character":11},"end":{"line":44,"character":11}},"text":"\n   --tensor-mod"}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2}}
send {"jsonrpc":"2.0","id":2,"method":"textDocument/completion","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":45,"character":15}}}
expect {"id":2,"result":{"isIncomplete":false,"items":["<contains>",{"label":"--tensor-model-parallel-size","kind":10,"detail":"int · default 1 · Megatron-LM option","textEdit":{"range":{"start":{"line":45,"character":3},"end":{"line":45,"character":15}},"newText":"--tensor-model-parallel-size"},"documentation":"<absent>","data":{"flag":"--tensor-model-parallel-size"}}]}}
# letters in order, not only a prefix: --tmps finds it too
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":3},"contentChanges":[{"range":{"start":{"line":45,"character":3},"end":{"line":45,"character":15}},"text":"--tmps"}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":3}}
send {"jsonrpc":"2.0","id":3,"method":"textDocument/completion","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":45,"character":9}}}
expect {"id":3,"result":{"items":["<contains>",{"label":"--tensor-model-parallel-size"}]}}
send {"jsonrpc":"2.0","id":4,"method":"completionItem/resolve","params":{"label":"--tensor-model-parallel-size","data":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","flag":"--tensor-model-parallel-size"}}}
expect {"id":4,"result":{"label":"--tensor-model-parallel-size","documentation":{"kind":"markdown","value":{"<all>":["~**--tensor-model-parallel-size** · int · default `1`","~Megatron-LM option · NVIDIA/Megatron-LM @"]}}}}
# choices after --attention-backend (line 57 is "   --attention-backend flash"): "fl" offers flash
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":4},"contentChanges":[{"range":{"start":{"line":56,"character":25},"end":{"line":56,"character":29}},"text":""}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":4}}
send {"jsonrpc":"2.0","id":5,"method":"textDocument/completion","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":56,"character":25}}}
expect {"id":5,"result":{"items":[{"label":"flash","kind":20,"textEdit":{"range":{"start":{"line":56,"character":23},"end":{"line":56,"character":25}},"newText":"flash"}}]}}
# a comment (line 32), a quoted string (the --resource JSON, line 64) and another command (line 60): nothing
send {"jsonrpc":"2.0","id":6,"method":"textDocument/completion","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":31,"character":8}}}
expect {"id":6,"result":{"items":[]}}
send {"jsonrpc":"2.0","id":7,"method":"textDocument/completion","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":63,"character":20}}}
expect {"id":7,"result":{"items":[]}}
send {"jsonrpc":"2.0","id":8,"method":"textDocument/completion","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":59,"character":30}}}
expect {"id":8,"result":{"items":[]}}
# on the train command itself: "   --colocate" (line 65), typed up to "--colo"
send {"jsonrpc":"2.0","id":9,"method":"textDocument/completion","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":64,"character":9}}}
expect {"id":9,"result":{"items":["<contains>",{"label":"--colocate","detail":"~switch"}]}}
# a half-typed array (no closing parenthesis): still completes, from the text
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":5},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":200,"character":0}},"text":"#!/bin/bash\nNEW_ARGS=(\n   --lr 1e-6\n   --max-tok"}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":5}}
send {"jsonrpc":"2.0","id":10,"method":"textDocument/completion","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":3,"character":12}}}
expect {"id":10,"result":{"items":["<contains>",{"label":"--max-tokens-per-gpu"}]}}
# a position past the end is the end of the text (LSP clamps); a document that is not open: an
# empty list, no error
send {"jsonrpc":"2.0","id":11,"method":"textDocument/completion","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":900,"character":4}}}
expect {"id":11,"result":{"items":["<contains>",{"label":"--max-tokens-per-gpu"}]}}
send {"jsonrpc":"2.0","id":12,"method":"textDocument/completion","params":{"textDocument":{"uri":"${WSURI}/nope.sh"},"position":{"line":0,"character":0}}}
expect {"id":12,"result":{"items":[]}}
send {"jsonrpc":"2.0","id":13,"method":"completionItem/resolve","params":{"label":"x","data":{"uri":"${WSURI}/nope.sh","flag":"--lr"}}}
expect {"id":13,"result":{"label":"x"}}
send {"jsonrpc":"2.0","id":14,"method":"completionItem/resolve","params":[1,2]}
expect {"id":14,"error":{"code":-32602}}
send {"jsonrpc":"2.0","id":15,"method":"shutdown"}
expect {"id":15,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
