# A client with window/showDocument: the trace summary is written next to the traces (the only
# file the server ever writes) and the client is asked to open it.
copy ${HTA}/hta-trace-filter-2rank/sampled_rank-0.json.gz traces/run1/sampled_rank-0.json.gz
copy ${HTA}/hta-trace-filter-2rank/sampled_rank-1.json.gz traces/run1/sampled_rank-1.json.gz
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${TMPURI}","capabilities":{"window":{"showDocument":{"support":true}}}}}
expect {"id":1,"result":"<any>"}
send {"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"perfDoctor.traceSummary","arguments":["${TMPURI}/traces/run1"]}}
expect {"jsonrpc":"2.0","id":1,"method":"window/showDocument","params":{"uri":"${TMPURI}/traces/run1/perf-doctor-trace-summary.md","takeFocus":true}}
expect {"id":2,"result":{"markdown":"~## Measured","uri":"${TMPURI}/traces/run1/perf-doctor-trace-summary.md"}}
exists traces/run1/perf-doctor-trace-summary.md
send {"jsonrpc":"2.0","id":1,"result":{"success":true}}
# A single trace file: the summary goes beside it.
send {"jsonrpc":"2.0","id":3,"method":"workspace/executeCommand","params":{"command":"perfDoctor.traceSummary","arguments":["traces/run1/sampled_rank-0.json.gz"]}}
expect {"jsonrpc":"2.0","id":2,"method":"window/showDocument","params":{"uri":"${TMPURI}/traces/run1/sampled_rank-0.json.gz.perf-doctor-summary.md"}}
expect {"id":3,"result":{"markdown":"~**Source:** 1 file(s)"}}
exists traces/run1/sampled_rank-0.json.gz.perf-doctor-summary.md
send {"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"the client could not open it"}}
# Where the summary cannot be written (here a folder already has that name), it is still
# answered, without a file, and the user is told why.
copy ${HTA}/hta-trace-filter-2rank/sampled_rank-0.json.gz traces/blocked/sampled_rank-0.json.gz
copy ${HTA}/README.md traces/blocked/perf-doctor-trace-summary.md/README.md
send {"jsonrpc":"2.0","id":5,"method":"workspace/executeCommand","params":{"command":"perfDoctor.traceSummary","arguments":["traces/blocked"]}}
expect {"method":"window/showMessage","params":{"type":2,"message":"~cannot write"}}
expect {"id":5,"result":{"markdown":"~## Measured","uri":"<absent>"}}
send {"jsonrpc":"2.0","id":4,"method":"shutdown"}
expect {"id":4,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
