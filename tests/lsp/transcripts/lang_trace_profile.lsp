# The editor's lang reaches what the server writes besides diagnostics and hovers (issue 28): the
# trace summary and the comparison (perfDoctor.traceSummary / compareTraces) and the profiling
# block's title are Chinese with "lang": "zh" and English again with "lang": "en"; the inserted
# flags are the profiling plan's (the same `perf-doctor profile` prints).
copy ${HTA}/hta-trace-filter-2rank/sampled_rank-0.json.gz traces/run1/sampled_rank-0.json.gz
copy ${HTA}/hta-trace-filter-2rank/sampled_rank-1.json.gz traces/run1/sampled_rank-1.json.gz
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${WSURI}","initializationOptions":{"lang":"zh"},"capabilities":{"textDocument":{"codeAction":{"codeActionLiteralSupport":{"codeActionKind":{"valueSet":["quickfix","refactor","source"]}}}}}}}
expect {"id":1,"result":"<any>"}
open ${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh ws/scripts/training/text/run-qwen3-4B-8xgpu.sh
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":1}}
send {"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"perfDoctor.traceSummary","arguments":["${TMP}/traces/run1"]}}
expect {"id":2,"result":{"markdown":{"<all>":["~**来源：** 从","~## 测量结果","~## 待验证的假设"]}}}
send {"jsonrpc":"2.0","id":3,"method":"workspace/executeCommand","params":{"command":"perfDoctor.compareTraces","arguments":["${TMP}/traces/run1","${TMP}/traces/run1"]}}
expect {"id":3,"result":{"markdown":{"<all>":["~# Trace 对比","~- 之前：","~| 指标 |"]}}}
send {"jsonrpc":"2.0","id":4,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"range":{"start":{"line":33,"character":5},"end":{"line":33,"character":5}},"context":{"diagnostics":[],"only":["refactor.rewrite"]}}}
expect {"id":4,"result":[{"title":{"<all>":["~插入有界的 Train Actor profiling 参数（第 3-5 步","~traces/<YYYYmmdd_HHMMSS>/train_trace/"]},"kind":"refactor.rewrite","edit":{"changes":{"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh":[{"newText":{"<all>":["~--use-pytorch-profiler","~--profile-target train_overall","~--profile-step-start 3","~--profile-step-end 5","~--profile-with-memory"]}}]}}}]}
# Back to English: the next answers follow the setting.
send {"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"lang":"en"}}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":1,"diagnostics":["<contains>",{"code":"R-C20","message":"~Checkpoint"}]}}
send {"jsonrpc":"2.0","id":5,"method":"workspace/executeCommand","params":{"command":"perfDoctor.traceSummary","arguments":["${TMP}/traces/run1"]}}
expect {"id":5,"result":{"markdown":{"<all>":["~**Source:** 2 file(s)","~## Hypotheses to verify"]}}}
send {"jsonrpc":"2.0","id":6,"method":"workspace/executeCommand","params":{"command":"perfDoctor.compareTraces","arguments":["${TMP}/traces/run1","${TMP}/traces/run1"]}}
expect {"id":6,"result":{"markdown":"~# Trace comparison"}}
send {"jsonrpc":"2.0","id":7,"method":"shutdown"}
expect {"id":7,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
