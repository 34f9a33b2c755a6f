# Code actions: the analyzer's quick fix (preferred), the NOTE that accepts a setting, the bounded
# profiling block, fix-all; context.only filters them; each applied edit changes the diagnostics.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${WSURI}","capabilities":{"textDocument":{"publishDiagnostics":{"relatedInformation":true},"codeAction":{"codeActionLiteralSupport":{"codeActionKind":{"valueSet":["quickfix","refactor","source"]}},"isPreferredSupport":true}}}}}
expect {"id":1,"result":"<any>"}
open ${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh ws/scripts/training/text/run-qwen3-4B-8xgpu.sh
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":1}}
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2},"contentChanges":[{"range":{"start":{"line":34,"character":0},"end":{"line":35,"character":0}},"text":""}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2,"diagnostics":["<contains>",{"code":"R-P10","severity":2}]}}
send {"jsonrpc":"2.0","id":2,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"range":{"start":{"line":33,"character":5},"end":{"line":33,"character":5}},"context":{"diagnostics":[]}}}
expect {"id":2,"result":["<contains>",{"title":"Add --sequence-parallel","kind":"quickfix","isPreferred":true,"diagnostics":[{"code":"R-P10","range":{"start":{"line":33,"character":3}}}],"edit":{"changes":{"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh":[{"range":{"start":{"line":33,"character":33},"end":{"line":33,"character":33}},"newText":"\n   --sequence-parallel"}]}}},{"title":"Add a NOTE to accept this setting (R-P10)","kind":"quickfix","isPreferred":"<absent>","edit":{"changes":{"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh":[{"range":{"start":{"line":33,"character":0},"end":{"line":33,"character":0}},"newText":"   # NOTE(perf-doctor): accept R-P10: <reason this setting is right here>\n"}]}}},{"title":{"<all>":["~bounded Train Actor profiling block","~train_trace/"]},"kind":"refactor.rewrite","edit":{"changes":{"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh":[{"newText":{"<all>":["~--use-pytorch-profiler","~--profile-target train_overall","~--profile-step-start 3","~--profile-step-end 5"]}}]}}},{"title":"~Fix all safe","kind":"source.fixAll.perfDoctor","edit":{"changes":{"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh":["<contains>",{"newText":"\n   --sequence-parallel"}]}}}]}
# Critical findings (here R-C20: --save-interval without --save) get no "accept" NOTE.
send {"jsonrpc":"2.0","id":3,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"range":{"start":{"line":18,"character":4},"end":{"line":18,"character":4}},"context":{"diagnostics":[]}}}
expect {"id":3,"result":["<lacks>",{"title":"~NOTE"}]}
# context.only narrows the kinds.
send {"jsonrpc":"2.0","id":4,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"range":{"start":{"line":33,"character":5},"end":{"line":33,"character":5}},"context":{"diagnostics":[],"only":["source.fixAll"]}}}
expect {"id":4,"result":[{"kind":"source.fixAll.perfDoctor"}]}
send {"jsonrpc":"2.0","id":5,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"range":{"start":{"line":33,"character":5},"end":{"line":33,"character":5}},"context":{"diagnostics":[],"only":["refactor"]}}}
expect {"id":5,"result":[{"kind":"refactor.rewrite"}]}
# Apply the NOTE: with its placeholder it is no reason yet (R-P10 stays a warning); with a reason,
# R-P10 becomes information, points at the NOTE, and the NOTE is no longer offered.
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":3},"contentChanges":[{"range":{"start":{"line":33,"character":0},"end":{"line":33,"character":0}},"text":"   # NOTE(perf-doctor): accept R-P10: <reason this setting is right here>\n"}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":3,"diagnostics":["<contains>",{"code":"R-P10","severity":2}]}}
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":33},"contentChanges":[{"range":{"start":{"line":33,"character":38},"end":{"line":33,"character":73}},"text":"activations fit: measured 61 GiB"}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":33,"diagnostics":["<contains>",{"code":"R-P10","severity":3,"range":{"start":{"line":34,"character":3}}}]}}
send {"jsonrpc":"2.0","id":6,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"range":{"start":{"line":34,"character":5},"end":{"line":34,"character":5}},"context":{"diagnostics":[]}}}
expect {"id":6,"result":{"<all>":[["<lacks>",{"title":"~NOTE"}],["<contains>",{"title":"Add --sequence-parallel"}]]}}
send {"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":34,"character":10}}}
expect {"id":7,"result":{"contents":{"value":{"<all>":["~Note:","~accept R-P10","~R-P10"]}}}}
# Apply the quick fix (and drop the NOTE): R-P10 is gone.
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":34},"contentChanges":[{"range":{"start":{"line":34,"character":33},"end":{"line":34,"character":33}},"text":"\n   --sequence-parallel"},{"range":{"start":{"line":33,"character":0},"end":{"line":34,"character":0}},"text":""}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":34,"diagnostics":["<lacks>",{"code":"R-P10"}]}}
# Insert the profiling block where the action put it: the flags are read, and it is not offered again.
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":5},"contentChanges":[{"range":{"start":{"line":55,"character":28},"end":{"line":55,"character":28}},"text":"\n   --use-pytorch-profiler\n   --profile-target train_overall\n   --profile-step-start 3\n   --profile-step-end 5"}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":5}}
send {"jsonrpc":"2.0","id":8,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":59,"character":10}}}
expect {"id":8,"result":{"contents":{"value":{"<all>":["~--profile-step-end","~Resolved value:** `5`"]}},"range":{"start":{"line":59,"character":3},"end":{"line":59,"character":23}}}}
send {"jsonrpc":"2.0","id":9,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"range":{"start":{"line":59,"character":5},"end":{"line":59,"character":5}},"context":{"diagnostics":[]}}}
expect {"id":9,"result":["<lacks>",{"kind":"refactor.rewrite"}]}
send {"jsonrpc":"2.0","id":10,"method":"shutdown"}
expect {"id":10,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
