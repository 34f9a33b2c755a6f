# "lang": "zh": the editor's hovers, code action titles and completion details are Chinese (flag
# names, numbers, rule IDs and the parsers' own help text aside) — a flag of each parser, one
# with a curated note and one without, --resource's GPU plan and the model config's size.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"${WSURI}","initializationOptions":{"lang":"zh"},"capabilities":{}}}
expect {"id":1,"result":"<any>"}
open ${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh ws/scripts/training/text/run-qwen3-4B-8xgpu.sh
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","version":1,"diagnostics":["<contains>",{"code":"R-P01","message":{"<all>":["~推理引擎比模型需要的更宽\n代价：估算：bf16 权重 7.49 GiB","~\n修复：设置 `--rollout-num-gpus-per-engine 1`","!~Cost:","!~Fix:"]}}]}}
# A Relax option with a note.
send {"jsonrpc":"2.0","id":2,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":39,"character":6}}}
expect {"id":2,"result":{"contents":{"value":{"<all>":["~**--max-tokens-per-gpu** · int · 默认值 `None`","~Relax 选项","~**说明：**每卡每个 micro-batch 的 token 预算","~**解析后的值：**`9216`","~基线值 max-tok/GPU = 10240","~（redai-infra 的 Relax 脚本","~，colocate，max-tok 10240，每引擎 8 卡","!~Resolved value","!~Findings","!~Note:","!~baseline","!~Relax recipe","!~engine 8 GPU","!~option"]}}}}
# A Megatron-LM option: the layout in words.
send {"jsonrpc":"2.0","id":3,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":33,"character":6}}}
expect {"id":3,"result":{"contents":{"value":{"<all>":["~Megatron-LM 选项","~**说明：**在层内切分权重与 GEMM","~TP2·PP1·CP1，actor 8 卡 → DP 4","~每卡约 2.01 十亿参数","!~Resolved value","!~ on 8 actor GPUs"]}}}}
# An SGLang option: the engines.
send {"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":49,"character":6}}}
expect {"id":4,"result":{"contents":{"value":{"<all>":["~SGLang ServerArgs 选项","~**说明：**权重 + KV 池占显存的比例","~4 个引擎 × 2 卡","!~engine(s)"]}}}}
# A flag without a curated note: the frame is Chinese, the parser's help stays as written.
send {"jsonrpc":"2.0","id":5,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":44,"character":5}}}
expect {"id":5,"result":{"contents":{"value":{"<all>":["~**--lr** · float · 默认值 `1e-06`","~Initial learning rate.","~**解析后的值：**`1e-6`","!~说明"]}}}}
# --resource: the GPU plan.
send {"jsonrpc":"2.0","id":6,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":62,"character":6}}}
expect {"id":6,"result":{"contents":{"value":{"<all>":["~actor 8 卡，rollout 8 卡（colocate：共 8 卡）","~4 个推理引擎 × 2 卡","!~GPUs"]}}}}
# The `source` line: the model's size and shape.
send {"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":13,"character":2}}}
expect {"id":7,"result":{"contents":{"value":{"<all>":["~**模型配置：**qwen3-4B","~稠密","~B 参数","!~Model config","!~dense"]}}}}
# An SGLang option with a finding.
send {"jsonrpc":"2.0","id":11,"method":"textDocument/hover","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":48,"character":6}}}
expect {"id":11,"result":{"contents":{"value":{"<all>":["~**发现：**","~R-P01 — 推理引擎比模型需要的更宽","!~Findings"]}}}}
# Code actions on the R-P01 flag: the rule's fix and the NOTE, titled in Chinese (R-P01's fix is
# not a safe one, so no fix-all)
# (and the diagnostic each echoes).
send {"jsonrpc":"2.0","id":8,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"range":{"start":{"line":48,"character":6},"end":{"line":48,"character":6}},"context":{"diagnostics":[]}}}
expect {"id":8,"result":["<contains>",{"title":"设置 --rollout-num-gpus-per-engine 1","kind":"quickfix","diagnostics":[{"code":"R-P01","message":{"<all>":["~代价：","!~unknown"]}}]},{"title":"添加 NOTE，接受此设置（R-P01）","kind":"quickfix","edit":{"changes":{"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh":[{"newText":"   # NOTE(perf-doctor): 接受 R-P01：<此设置在这里合理的原因>\n"}]}}}]}
# Completion: the details too.
send {"jsonrpc":"2.0","id":9,"method":"textDocument/completion","params":{"textDocument":{"uri":"${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh"},"position":{"line":33,"character":14}}}
expect {"id":9,"result":{"items":["<contains>",{"label":"--tensor-model-parallel-size","detail":"int · 默认值 1 · Megatron-LM 选项"}]}}
# The commands' messages: an unknown command, a missing argument, a trace that is not there and
# one that is not a trace are answered in Chinese (names and byte offsets as they are).
write traces/bad/rank0.json "{\"traceEvents\": [{\"name\": \"x\", \"ph\": \"X\"} {]}"
send {"jsonrpc":"2.0","id":12,"method":"workspace/executeCommand","params":{"command":"perfDoctor.nope","arguments":["x"]}}
expect {"id":12,"error":{"code":-32602,"message":{"<all>":["~未知命令 `perfDoctor.nope`","!~unknown"]}}}
send {"jsonrpc":"2.0","id":13,"method":"workspace/executeCommand","params":{"command":"perfDoctor.report"}}
expect {"id":13,"error":{"code":-32602,"message":{"<all>":["~需要一个命令和一个参数","!~needs"]}}}
send {"jsonrpc":"2.0","id":14,"method":"workspace/executeCommand","params":{"command":"perfDoctor.compareTraces","arguments":["${TMP}/traces/bad"]}}
expect {"id":14,"error":{"code":-32602,"message":{"<all>":["~perfDoctor.compareTraces：需要两个 trace","!~needs"]}}}
send {"jsonrpc":"2.0","id":15,"method":"workspace/executeCommand","params":{"command":"perfDoctor.traceSummary","arguments":["${TMP}/traces/none-here"]}}
expect {"id":15,"error":{"code":-32803,"message":{"<all>":["~none-here：没有这个 trace 文件或目录","!~No such"]}}}
send {"jsonrpc":"2.0","id":16,"method":"workspace/executeCommand","params":{"command":"perfDoctor.linkTrace","arguments":["${WSURI}/scripts/training/text/run-qwen3-4B-8xgpu.sh","${TMP}/traces/bad/rank0.json"]}}
expect {"id":16,"error":{"code":-32803,"message":{"<all>":["~rank0.json：JSON 无效：事件之后应为 ',' 或 ']'","~（第 42 字节）","!~invalid","!~at byte"]}}}
send {"jsonrpc":"2.0","id":17,"method":"workspace/executeCommand","params":{"command":"perfDoctor.memoryBudget","arguments":["${TMP}/nothing.sh"]}}
expect {"id":17,"error":{"code":-32602,"message":{"<all>":["~需要一个已打开的启动脚本","!~needs"]}}}
send {"jsonrpc":"2.0","id":10,"method":"shutdown"}
expect {"id":10,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
