# A project's .perf-doctor.json governs the scripts under it, as it does for `perf-doctor check`:
# its rule settings apply, the editor's settings overlay it, and a change to the file is picked
# up when the client reports it. Inline `# perf-doctor: disable=` comments silence a finding.
copy ws/scripts/training/text/run-qwen3-4B-8xgpu.sh scripts/training/text/run-qwen3-4B-8xgpu.sh
copy ws/scripts/entrypoint/local.sh scripts/entrypoint/local.sh
copy ws/scripts/models/qwen3-4B.sh scripts/models/qwen3-4B.sh
write .perf-doctor.json "{\"rules\": {\"R-P10\": \"off\"}}"
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${TMPURI}","capabilities":{"textDocument":{"publishDiagnostics":{"codeDescriptionSupport":true}}}}}
expect {"id":1,"result":"<any>"}
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"${TMPURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","languageId":"shellscript","version":1,"text":"SCRIPT_DIR=\"$(cd -- \"$(dirname -- \"${BASH_SOURCE[0]}\")\" &>/dev/null && pwd)\"\nsource \"${SCRIPT_DIR}/../../models/qwen3-4B.sh\"\nA_ARGS=(\n   --tensor-model-parallel-size 2\n   --use-kl-loss --kl-loss-coef 0\n)\npython3 -m relax.entrypoints.train --resource '{\"actor\": [1, 8], \"rollout\": [1, 8]}' --colocate \"${MODEL_ARGS[@]}\" \"${A_ARGS[@]}\"\n"}}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${TMPURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":1,"diagnostics":{"<all>":[["<lacks>",{"code":"R-P10"}],["<contains>",{"code":"R-P24","codeDescription":{"href":"~/docs/rules/R-P24.md"}}]]}}}
# The project file changes: R-P10 comes back (as info), R-P24 is turned off.
write .perf-doctor.json "{\"rules\": {\"R-P10\": \"info\", \"R-P24\": \"off\"}}"
send {"jsonrpc":"2.0","method":"workspace/didChangeWatchedFiles","params":{"changes":[{"uri":"${TMPURI}/.perf-doctor.json","type":2}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${TMPURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":1,"diagnostics":{"<all>":[["<lacks>",{"code":"R-P24"}],["<contains>",{"code":"R-P10","severity":3}]]}}}
# The editor's settings overlay the project's.
send {"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"rules":{"R-P10":"warn"}}}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${TMPURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":1,"diagnostics":["<contains>",{"code":"R-P10","severity":2}]}}
# An inline comment silences the finding on its line.
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${TMPURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2},"contentChanges":[{"range":{"start":{"line":3,"character":33},"end":{"line":3,"character":33}},"text":"  # perf-doctor: disable=R-P10"}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${TMPURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2,"diagnostics":["<lacks>",{"code":"R-P10"}]}}
send {"jsonrpc":"2.0","id":9,"method":"shutdown"}
expect {"id":9,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
