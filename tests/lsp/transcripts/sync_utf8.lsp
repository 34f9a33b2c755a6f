# The client offers UTF-8: positions are byte columns, both in edits and in diagnostics.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${WSURI}","capabilities":{"general":{"positionEncodings":["utf-8","utf-16"]}}}}
expect {"id":1,"result":{"capabilities":{"positionEncoding":"utf-8"}}}
open ${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh ws/scripts/training/text/run-qwen3-4B-8xgpu.sh
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":1}}
# Line 31 is "# 并行策略：张量并行 2 路 ✅": replace bytes 2..14 ("并行策略") with "X" and delete
# from the end of line 32 through the indentation and flag of line 34 ("--sequence-parallel").
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2},"contentChanges":[{"range":{"start":{"line":31,"character":2},"end":{"line":31,"character":14}},"text":"X"},{"range":{"start":{"line":33,"character":33},"end":{"line":34,"character":22}},"text":""}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2,"diagnostics":["<contains>",{"code":"R-P10","range":{"start":{"line":33,"character":3},"end":{"line":33,"character":33}}}]}}
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":3},"contentChanges":[{"range":{"start":{"line":32,"character":11},"end":{"line":33,"character":3}},"text":" \"é😀\" "}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":3,"diagnostics":["<contains>",{"code":"R-P10","range":{"start":{"line":32,"character":21},"end":{"line":32,"character":51}}}]}}
# A UTF-8 position inside a character snaps to its start (no flag there); byte 22 is in the flag.
send {"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":32,"character":17}}}
expect {"id":2,"result":null}
send {"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":32,"character":22}}}
expect {"id":3,"result":{"range":{"start":{"line":32,"character":21},"end":{"line":32,"character":51}}}}
send {"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":31,"character":3}}}
expect {"id":4,"result":null}
send {"jsonrpc":"2.0","id":5,"method":"shutdown"}
expect {"id":5,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
