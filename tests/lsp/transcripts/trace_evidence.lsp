# Traces back the findings in the editor: the script's own traces/<tb-experiment-name>/train_trace/
# is found under the workspace root, perfDoctor.linkTrace ties another trace to an open script and
# "" unlinks it, the traceDir setting names one, a trace that cannot be read is an error that says
# so, and perfDoctor.compareTraces answers the comparison. Evidence shows in the diagnostic.
write run.sh "A_ARGS=(\n   --tensor-model-parallel-size 2\n)\npython3 -m relax.entrypoints.train --resource '{\"actor\": [1, 8], \"rollout\": [1, 8]}' --colocate --tb-experiment-name exp2 \"${A_ARGS[@]}\"\n"
copy ${HTA}/hta-trace-filter-2rank/sampled_rank-0.json.gz traces/exp2/train_trace/sampled_rank-0.json.gz
copy ${HTA}/hta-trace-filter-2rank/sampled_rank-1.json.gz traces/exp2/train_trace/sampled_rank-1.json.gz
copy ${HTA}/hta-trace-filter-2rank/sampled_rank-0.json.gz other/rank-0.json.gz
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${TMPURI}","capabilities":{}}}
expect {"id":1,"result":{"capabilities":{"executeCommandProvider":{"commands":["<contains>","perfDoctor.linkTrace"]}}}}
open ${TMPURI}/run.sh ${TMP}/run.sh
# the default folder exists: R-P16's exposed communication is measured and confirms it
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${TMPURI}/run.sh","diagnostics":["<contains>",{"code":"R-P16","message":"~Measured (trace, confirms): communication not hidden behind computation"}]}}
# linked to a one-rank trace elsewhere
send {"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"perfDoctor.linkTrace","arguments":["${TMPURI}/run.sh","other"]}}
expect {"id":2,"result":{"trace":"~/other","measures":{"measures":{"exposed_comm_pct":"<any>"},"estimated_vs_measured":"<any>"}}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${TMPURI}/run.sh","diagnostics":["<contains>",{"code":"R-P16","message":"~mean of 1 rank"}]}}
# a trace that is not there: an error naming it, the link is not kept
send {"jsonrpc":"2.0","id":3,"method":"workspace/executeCommand","params":{"command":"perfDoctor.linkTrace","arguments":["${TMPURI}/run.sh","nowhere"]}}
expect {"id":3,"error":{"message":"~nowhere: no such trace file or folder"}}
# unlinked: back to the default folder (2 ranks)
send {"jsonrpc":"2.0","id":4,"method":"workspace/executeCommand","params":{"command":"perfDoctor.linkTrace","arguments":["${TMPURI}/run.sh",""]}}
expect {"id":4,"result":{"trace":null}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${TMPURI}/run.sh","diagnostics":["<contains>",{"code":"R-P16","message":"~mean of 2 ranks"}]}}
# the traceDir setting wins over the default
send {"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"traceDir":"${TMP}/other"}}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${TMPURI}/run.sh","diagnostics":["<contains>",{"code":"R-P16","message":"~mean of 1 rank"}]}}
# before / after from the editor
send {"jsonrpc":"2.0","id":5,"method":"workspace/executeCommand","params":{"command":"perfDoctor.compareTraces","arguments":["traces/exp2/train_trace","other"]}}
expect {"id":5,"result":{"markdown":"~# Trace comparison"}}
send {"jsonrpc":"2.0","id":6,"method":"workspace/executeCommand","params":{"command":"perfDoctor.compareTraces","arguments":["other"]}}
expect {"id":6,"error":{"message":"~needs two traces"}}
send {"jsonrpc":"2.0","id":9,"method":"shutdown"}
expect {"id":9,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
