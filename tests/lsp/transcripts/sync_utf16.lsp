# Incremental sync in UTF-16 (the default): edits that delete and insert across lines, with CJK
# and astral characters before the flag, break and repair the script; every change republishes
# diagnostics with the document version, at positions converted to UTF-16.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${WSURI}","capabilities":{"general":{"positionEncodings":["utf-16"]},"textDocument":{"publishDiagnostics":{"relatedInformation":true}}}}}
expect {"id":1,"result":{"capabilities":{"positionEncoding":"utf-16"}}}
send {"jsonrpc":"2.0","method":"initialized","params":{}}
open ${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh ws/scripts/training/text/run-qwen3-4B-8xgpu.sh
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":1,"diagnostics":["<lacks>",{"code":"R-P10"},{"code":"R-S02"}]}}
# Delete the line "   --sequence-parallel" (34) whole: R-P10 appears on the TP flag (line 33).
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2},"contentChanges":[{"range":{"start":{"line":34,"character":0},"end":{"line":35,"character":0}},"text":""}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2,"diagnostics":["<contains>",{"code":"R-P10","severity":2,"source":"perf-doctor","message":"<any>","range":{"start":{"line":33,"character":3},"end":{"line":33,"character":33}}}]}}
# Join "PERF_ARGS=(" with the flag's line, putting "é😀" (1 + 2 UTF-16 units) before the flag:
# the flag now starts at UTF-16 column 18 (byte column 21).
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":3},"contentChanges":[{"range":{"start":{"line":32,"character":11},"end":{"line":33,"character":3}},"text":" \"é😀\" "}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":3,"diagnostics":["<contains>",{"code":"R-P10","range":{"start":{"line":32,"character":18},"end":{"line":32,"character":48}}}]}}
send {"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":32,"character":20}}}
expect {"id":2,"result":{"contents":{"kind":"markdown","value":{"<all>":["~tensor-model-parallel-size","~Resolved value:** `2`","~R-P10"]}},"range":{"start":{"line":32,"character":18},"end":{"line":32,"character":48}}}}
# Inside the emoji (between its two UTF-16 units) there is no flag.
send {"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":32,"character":15}}}
expect {"id":3,"result":null}
# Insert two comment lines with CJK and an emoji at the top, in two changes of one notification.
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":4},"contentChanges":[{"range":{"start":{"line":1,"character":0},"end":{"line":1,"character":0}},"text":"# 新的注释 🚀\n"},{"range":{"start":{"line":2,"character":0},"end":{"line":2,"character":0}},"text":"# 第二行\n"}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":4,"diagnostics":["<contains>",{"code":"R-P10","range":{"start":{"line":34,"character":18},"end":{"line":34,"character":48}}}]}}
# Break the script: an opening quote after "set -ex" (line 4) swallows the rest of the file.
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":5},"contentChanges":[{"range":{"start":{"line":4,"character":7},"end":{"line":4,"character":7}},"text":" \"oops"}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":5,"diagnostics":["<contains>",{"code":"R-S02","severity":1,"source":"perf-doctor"}]}}
# Repair it: the syntax error is gone and R-P10 is back where it was.
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":6},"contentChanges":[{"range":{"start":{"line":4,"character":7},"end":{"line":4,"character":12}},"text":""}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":6,"diagnostics":{"<all>":[["<lacks>",{"code":"R-S02"}],["<contains>",{"code":"R-P10","range":{"start":{"line":34,"character":18},"end":{"line":34,"character":48}}}]]}}}
# The analysis saw the edited text: the report quotes the joined line.
send {"jsonrpc":"2.0","id":4,"method":"workspace/executeCommand","params":{"command":"perfDoctor.report","arguments":["${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"]}}
expect {"id":4,"result":{"markdown":{"<all>":["~# perf-doctor: run-qwen3-4B-8xgpu.sh","~R-P10","~line 35"]}}}
# A change without a range replaces the whole text.
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":7},"contentChanges":[{"text":"echo 只有一行\n"}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":7,"diagnostics":["<lacks>",{"code":"R-P10"}]}}
send {"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"}}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","diagnostics":[],"version":"<absent>"}}
send {"jsonrpc":"2.0","id":5,"method":"shutdown"}
expect {"id":5,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
