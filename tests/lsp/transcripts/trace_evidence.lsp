# Traces back the findings in the editor: the script's own traces/<tb-experiment-name>/train_trace/
# is found under the workspace root, perfDoctor.linkTrace ties another trace to an open script and
# "" unlinks it, the traceDir setting names one, a trace that cannot be read is an error that says
# so, and perfDoctor.compareTraces answers the comparison. Evidence shows in the diagnostic. A trace
# of another job (HTA's 2-rank set: world size 128, this script trains on 8 GPUs) is linked but
# said not to be this script's, and backs no finding (issue 25).
write run.sh "A_ARGS=(\n   --tensor-model-parallel-size 2\n)\npython3 -m relax.entrypoints.train --resource '{\"actor\": [1, 8], \"rollout\": [1, 8]}' --colocate --tb-experiment-name exp2 \"${A_ARGS[@]}\"\n"
copy ${HTA}/hta-trace-diff-control/control.json.gz traces/exp2/train_trace/control.json.gz
copy ${HTA}/hta-trace-filter-2rank/sampled_rank-0.json.gz other/rank-0.json.gz
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${TMPURI}","capabilities":{}}}
expect {"id":1,"result":{"capabilities":{"executeCommandProvider":{"commands":["<contains>","perfDoctor.linkTrace"]}}}}
open ${TMPURI}/run.sh ${TMP}/run.sh
# the default folder exists: R-P16's exposed communication is measured and confirms it
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${TMPURI}/run.sh","diagnostics":["<contains>",{"code":"R-P16","message":"~Measured (trace, confirms): communication not hidden behind computation"}]}}
# linked to another job's trace (world size 128): linked, said not to be this script's, no verdict
send {"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"perfDoctor.linkTrace","arguments":["${TMPURI}/run.sh","other"]}}
expect {"method":"window/showMessage","params":{"type":2,"message":"this trace is not this script's: it was recorded by 128 ranks (the world size its distributedInfo gives), and the script trains on 8 GPUs; no finding is confirmed or contradicted by it"}}
expect {"id":2,"result":{"trace":"~/other","mismatch":"~not this script's","measures":{"mismatch":"~128 ranks","estimated_vs_measured":"<any>"}}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${TMPURI}/run.sh","diagnostics":["<lacks>",{"message":"~Measured (trace"}]}}
# a trace that is not there: an error naming it, the link is not kept
send {"jsonrpc":"2.0","id":3,"method":"workspace/executeCommand","params":{"command":"perfDoctor.linkTrace","arguments":["${TMPURI}/run.sh","nowhere"]}}
expect {"id":3,"error":{"message":"~nowhere: no such trace file or folder"}}
# unlinked: back to the default folder (HTA's trace-diff control: world size 8, rank 3)
send {"jsonrpc":"2.0","id":4,"method":"workspace/executeCommand","params":{"command":"perfDoctor.linkTrace","arguments":["${TMPURI}/run.sh",""]}}
expect {"id":4,"result":{"trace":null}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${TMPURI}/run.sh","diagnostics":["<contains>",{"code":"R-P16","message":"~Measured (trace, confirms): communication not hidden behind computation 18.9 % of the step (mean of 1 rank"}]}}
# the traceDir setting wins over the default: another job's, so no verdict
send {"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"traceDir":"${TMP}/other"}}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${TMPURI}/run.sh","diagnostics":["<lacks>",{"message":"~Measured (trace"}]}}
# before / after from the editor
send {"jsonrpc":"2.0","id":5,"method":"workspace/executeCommand","params":{"command":"perfDoctor.compareTraces","arguments":["traces/exp2/train_trace","other"]}}
expect {"id":5,"result":{"markdown":"~# Trace comparison"}}
send {"jsonrpc":"2.0","id":6,"method":"workspace/executeCommand","params":{"command":"perfDoctor.compareTraces","arguments":["other"]}}
expect {"id":6,"error":{"message":"~needs two traces"}}
# the trace commands use the gpu setting, as `trace --gpu` does
send {"jsonrpc":"2.0","method":"workspace/didChangeConfiguration","params":{"settings":{"gpu":"H100-80G"}}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${TMPURI}/run.sh"}}
send {"jsonrpc":"2.0","id":7,"method":"workspace/executeCommand","params":{"command":"perfDoctor.traceSummary","arguments":["traces/exp2/train_trace"]}}
expect {"id":7,"result":{"markdown":"~judged as `--gpu` H100 80GB"}}
send {"jsonrpc":"2.0","id":9,"method":"shutdown"}
expect {"id":9,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
