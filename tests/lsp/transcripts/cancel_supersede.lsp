# Cancellation answers -32800; edits that arrive together are analysed once, for the newest
# version (no diagnostics are published for a superseded version); a request queued behind edits
# sees the newest text.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${WSURI}","capabilities":{}}}
expect {"id":1,"result":"<any>"}
open ${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh ws/scripts/training/text/run-qwen3-4B-8xgpu.sh
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":1}}
hold
send {"jsonrpc":"2.0","id":10,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":33,"character":5}}}
send {"jsonrpc":"2.0","id":"s1","method":"textDocument/codeAction","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"range":{"start":{"line":33,"character":5},"end":{"line":33,"character":5}},"context":{"diagnostics":[]}}}
send {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":10}}
send {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":"s1"}}
flush
expect {"id":10,"error":{"code":-32800}}
expect {"id":"s1","error":{"code":-32800}}
# Cancelling something already answered (or unknown) does nothing.
send {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":10}}
send {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":12345}}
send {"jsonrpc":"2.0","method":"$/cancelRequest","params":{}}
quiet 300
# Three edits at once: one analysis, one publish, for version 4.
hold
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2},"contentChanges":[{"range":{"start":{"line":34,"character":0},"end":{"line":35,"character":0}},"text":""}]}}
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":3},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"# 临时\n"}]}}
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":4},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":1,"character":0}},"text":""}]}}
flush
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":4,"diagnostics":["<contains>",{"code":"R-P10","range":{"start":{"line":33,"character":3}}}]}}
quiet 300
# A hover queued behind an edit is answered on the edited text; the edit is published once.
hold
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":5},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"# 一\n# 二\n"}]}}
send {"jsonrpc":"2.0","id":11,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":35,"character":5}}}
flush
expect {"id":11,"result":{"contents":{"value":"~tensor-model-parallel-size"},"range":{"start":{"line":35,"character":3}}}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":5,"diagnostics":["<contains>",{"code":"R-P10","range":{"start":{"line":35,"character":3}}}]}}
quiet 300
# A request whose analysis is still pending can be cancelled; the edit is still published.
hold
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":6},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":2,"character":0}},"text":""}]}}
send {"jsonrpc":"2.0","id":13,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":33,"character":5}}}
send {"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":13}}
flush
expect {"id":13,"error":{"code":-32800}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":6}}
send {"jsonrpc":"2.0","id":14,"method":"shutdown"}
expect {"id":14,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
