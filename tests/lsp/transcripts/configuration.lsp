# Settings from initializationOptions and workspace/didChangeConfiguration (pushed, or pulled
# with workspace/configuration): per-rule severity and disabling, GPU, syntax diagnostics; bad
# values are reported with window/showMessage; every change republishes.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${WSURI}","initializationOptions":{"rules":{"R-P10":"off"}},"capabilities":{"workspace":{"configuration":true}}}}
expect {"id":1,"result":"<any>"}
open ${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh ws/scripts/training/text/run-qwen3-4B-8xgpu.sh
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":1}}
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2},"contentChanges":[{"range":{"start":{"line":34,"character":0},"end":{"line":35,"character":0}},"text":""}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2,"diagnostics":["<lacks>",{"code":"R-P10"}]}}
# Pushed settings (VS Code style, under the section name): R-P10 becomes an error.
send {"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"perfDoctor":{"rules":{"R-P10":"critical"},"gpu":"H100-80G"}}}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2,"diagnostics":["<contains>",{"code":"R-P10","severity":1}]}}
send {"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"perfDoctor.report","arguments":["${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"]}}
expect {"id":2,"result":{"markdown":{"<all>":["~GPU=H100","~R-P10"]}}}
# Bad values are reported and ignored; the rest applies (rules reset to defaults: R-P10 is a warning).
send {"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"lang":"fr","rules":{"R-P17":"loud"},"syntaxDiagnostics":"yes"}}}
expect {"method":"window/showMessage","params":{"type":2,"message":{"<all>":["~lang","~rules.R-P17","~syntaxDiagnostics"]}}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2,"diagnostics":["<contains>",{"code":"R-P10","severity":2}]}}
# Syntax diagnostics can be switched off.
send {"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"syntaxDiagnostics":false,"disabledRules":["R-P10"]}}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2,"diagnostics":["<lacks>",{"code":"R-P10"}]}}
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":3},"contentChanges":[{"range":{"start":{"line":2,"character":7},"end":{"line":2,"character":7}},"text":" \"oops"}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":3,"diagnostics":["<lacks>",{"code":"R-S02"}]}}
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":4},"contentChanges":[{"range":{"start":{"line":2,"character":7},"end":{"line":2,"character":12}},"text":""}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":4,"diagnostics":["<lacks>",{"code":"R-P10"},{"code":"R-S02"}]}}
# No settings in the notification: the server pulls them (workspace/configuration, its first request).
send {"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":null}}
expect {"jsonrpc":"2.0","id":1,"method":"workspace/configuration","params":{"items":[{"section":"perfDoctor"}]}}
send {"jsonrpc":"2.0","id":1,"result":[{"rules":{"R-P10":"info"}}]}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":4,"diagnostics":["<contains>",{"code":"R-P10","severity":3}]}}
send {"jsonrpc":"2.0","id":3,"method":"shutdown"}
expect {"id":3,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
