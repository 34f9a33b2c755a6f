# Logs go to stderr; window/logMessage only at the level set by initialize's trace and $/setTrace.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${WSURI}","trace":"off","capabilities":{}}}
expect {"id":1,"result":"<any>"}
open ${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh ws/scripts/training/text/run-qwen3-4B-8xgpu.sh
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":1}}
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///not-open.sh","version":2},"contentChanges":[{"text":""}]}}
silent 300
send {"jsonrpc":"2.0","method":"$/setTrace","params":{"value":"messages"}}
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///not-open.sh","version":2},"contentChanges":[{"text":""}]}}
expect {"method":"window/logMessage","params":{"type":1,"message":"~not open"}}
silent 300
send {"jsonrpc":"2.0","method":"$/setTrace","params":{"value":"verbose"}}
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"text":"# 日志\n"}]}}
expect {"method":"window/logMessage","params":{"type":4,"message":"~textDocument/didChange"}}
expect {"method":"window/logMessage","params":{"type":4,"message":{"<all>":["~analysed","~v2 in"]}}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2}}
send {"jsonrpc":"2.0","method":"$/setTrace","params":{"value":"off"}}
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":3},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":1,"character":0}},"text":""}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":3}}
silent 300
send {"jsonrpc":"2.0","id":2,"method":"shutdown"}
expect {"id":2,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
