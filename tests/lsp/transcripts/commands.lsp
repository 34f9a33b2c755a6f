# workspace/executeCommand: perfDoctor.report (open document, or a file on disk) and
# perfDoctor.traceSummary (no file written unless the client can show it; then the summary goes
# next to the traces and the client is asked to open it).
copy ${HTA}/hta-trace-filter-2rank/sampled_rank-0.json.gz traces/run1/sampled_rank-0.json.gz
copy ${HTA}/hta-trace-filter-2rank/sampled_rank-1.json.gz traces/run1/sampled_rank-1.json.gz
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${WSURI}","capabilities":{}}}
expect {"id":1,"result":"<any>"}
open ${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh ws/scripts/training/text/run-qwen3-4B-8xgpu.sh
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":1}}
send {"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"perfDoctor.report","arguments":["${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"]}}
expect {"id":2,"result":{"markdown":{"<all>":["~# perf-doctor: run-qwen3-4B-8xgpu.sh","~**Context:** model=qwen3-4B","~## Summary"]}}}
# Not open: read from disk (a path relative to the workspace root works too).
send {"jsonrpc":"2.0","id":3,"method":"workspace/executeCommand","params":{"command":"perfDoctor.report","arguments":["scripts/models/qwen3-4B.sh"]}}
expect {"id":3,"result":{"markdown":"~# perf-doctor: qwen3-4B.sh"}}
send {"jsonrpc":"2.0","id":4,"method":"workspace/executeCommand","params":{"command":"perfDoctor.report","arguments":[{"uri":"${WSURI}/no/such/script.sh"}]}}
expect {"id":4,"error":{"code":-32803,"message":"~no/such/script.sh"}}
# Trace summary without window/showDocument support: the markdown only, nothing written.
send {"jsonrpc":"2.0","id":5,"method":"workspace/executeCommand","params":{"command":"perfDoctor.traceSummary","arguments":["${TMP}/traces/run1"]}}
expect {"id":5,"result":{"markdown":{"<all>":["~**Source:** 2 file(s)","~## Measured"]},"uri":"<absent>"}}
absent traces/run1/perf-doctor-trace-summary.md
send {"jsonrpc":"2.0","id":6,"method":"workspace/executeCommand","params":{"command":"perfDoctor.traceSummary","arguments":["${TMP}/traces/none-here"]}}
expect {"id":6,"error":{"code":-32803,"message":"~perfDoctor.traceSummary"}}
send {"jsonrpc":"2.0","id":7,"method":"shutdown"}
expect {"id":7,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
