# The launch line as argparse reads it (issue 24): a misspelt flag is reported where it is, with
# the option it was meant to be and its default; no rule reasons from that default (R-P10 would
# say SP is dropped at TP 1) and "fix all" leaves --sequence-parallel alone; the rename fix puts
# it right. Then a value argparse refuses is critical with the nearest choice as a fix.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${WSURI}","capabilities":{}}}
expect {"id":1,"result":{"capabilities":{"completionProvider":{"triggerCharacters":["-"],"resolveProvider":true},"hoverProvider":true,"codeActionProvider":"<any>","executeCommandProvider":"<any>"}}}
open ${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh ws/scripts/training/text/run-qwen3-4B-8xgpu.sh
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":1,"diagnostics":["<lacks>",{"code":"R-A01"}]}}
# --tensor-model-parallel-size 2 (line 34) becomes --tensor-model-paralel-size 2
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2},"contentChanges":[{"range":{"start":{"line":33,"character":18},"end":{"line":33,"character":26}},"text":"paralel"}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":2,"diagnostics":{"<all>":[["<contains>",{"code":"R-A01","severity":2,"range":{"start":{"line":33,"character":3},"end":{"line":33,"character":30}},"message":{"<all>":["~--tensor-model-paralel-size","~stays at its default 1"]}}],["<lacks>",{"code":"R-P10"}]]}}}
send {"jsonrpc":"2.0","id":2,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"range":{"start":{"line":33,"character":10},"end":{"line":33,"character":10}},"context":{"diagnostics":[]}}}
expect {"id":2,"result":["<contains>",{"title":"Rename to --tensor-model-parallel-size","kind":"quickfix","edit":{"changes":{"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh":[{"range":{"start":{"line":33,"character":3},"end":{"line":33,"character":30}},"newText":"--tensor-model-parallel-size"}]}}}]}
# fix all: nothing of it removes or touches line 35 (--sequence-parallel), and the rename is not in it
send {"jsonrpc":"2.0","id":3,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"range":{"start":{"line":33,"character":10},"end":{"line":33,"character":10}},"context":{"diagnostics":[],"only":["source.fixAll"]}}}
expect {"id":3,"result":["<lacks>",{"edit":{"changes":{"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh":["<contains>",{"range":{"start":{"line":34}}}]}}},{"edit":{"changes":{"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh":["<contains>",{"newText":"--tensor-model-parallel-size"}]}}}]}
# apply the rename: the typo is gone and so is R-A01
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":3},"contentChanges":[{"range":{"start":{"line":33,"character":3},"end":{"line":33,"character":30}},"text":"--tensor-model-parallel-size"}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":3,"diagnostics":["<lacks>",{"code":"R-A01"}]}}
# --attention-backend flash (line 56) becomes flashh: argparse refuses the value
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":4},"contentChanges":[{"range":{"start":{"line":55,"character":28},"end":{"line":55,"character":28}},"text":"h"}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":4,"diagnostics":["<contains>",{"code":"R-A03","severity":1,"message":{"<all>":["~invalid","~flashh","~stops the job at start","~flash"]}}]}}
send {"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":55,"character":6}}}
expect {"id":4,"result":{"contents":{"value":{"<all>":["~**--attention-backend**","~Choices: `flash`","~Megatron-LM option","~argparse does not accept this occurrence"]}}}}
send {"jsonrpc":"2.0","id":5,"method":"shutdown"}
expect {"id":5,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
