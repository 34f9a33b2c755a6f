# Lifecycle: requests before initialize, the capabilities, a second initialize, unknown methods,
# shutdown, requests after shutdown, exit with status 0.
send {"jsonrpc":"2.0","id":1,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x.sh"},"position":{"line":0,"character":0}}}
expect {"jsonrpc":"2.0","id":1,"error":{"code":-32002}}
# Notifications before initialize are dropped (no diagnostics for this document).
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///early.sh","languageId":"shellscript","version":1,"text":"echo hi\n"}}}
quiet 300
send {"jsonrpc":"2.0","id":2,"method":"initialize","params":{"processId":null,"rootUri":"${WSURI}","capabilities":{}}}
expect {"id":2,"result":{"capabilities":{"positionEncoding":"utf-16","textDocumentSync":{"openClose":true,"change":2},"hoverProvider":true,"codeActionProvider":{"codeActionKinds":["quickfix","refactor.rewrite","source.fixAll.perfDoctor"]},"executeCommandProvider":{"commands":["perfDoctor.report","perfDoctor.traceSummary","perfDoctor.linkTrace","perfDoctor.compareTraces","perfDoctor.memoryBudget"]},"definitionProvider":true,"referencesProvider":true,"documentSymbolProvider":true,"renameProvider":{"prepareProvider":true},"inlayHintProvider":true,"codeLensProvider":{"resolveProvider":false}},"serverInfo":{"name":"perf-doctor","version":"<any>"}}}
send {"jsonrpc":"2.0","method":"initialized","params":{}}
send {"jsonrpc":"2.0","id":3,"method":"initialize","params":{"capabilities":{}}}
expect {"id":3,"error":{"code":-32600,"message":"~already"}}
send {"jsonrpc":"2.0","id":"abc","method":"textDocument/formatting","params":{"textDocument":{"uri":"file:///x.sh"},"options":{"tabSize":2,"insertSpaces":true}}}
expect {"id":"abc","error":{"code":-32601,"message":"~textDocument/formatting"}}
# Unknown notifications (with or without $/) get no answer at all.
send {"jsonrpc":"2.0","method":"$/progress","params":{"token":1,"value":{}}}
send {"jsonrpc":"2.0","method":"custom/somethingElse","params":{}}
send {"jsonrpc":"2.0","method":"textDocument/didSave","params":{"textDocument":{"uri":"file:///x.sh"}}}
quiet 300
# A shell file that is not a launch script (no train command, no *_ARGS array) gets nothing.
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/build.sh","languageId":"shellscript","version":1,"text":"set -e\nmake -j8 \"$TARGET\"\nif [ -n \"$X\" ]; then echo ${MISSING}; fi\n"}}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"file:///tmp/build.sh","version":1,"diagnostics":[]}}
# A document that is not open: hover says nothing, code actions are an empty list.
send {"jsonrpc":"2.0","id":6,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///not-open.sh"},"position":{"line":0,"character":0}}}
expect {"id":6,"result":null}
send {"jsonrpc":"2.0","id":7,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"file:///not-open.sh"},"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"context":{"diagnostics":[]}}}
expect {"id":7,"result":[]}
send {"jsonrpc":"2.0","id":4,"method":"shutdown"}
expect {"id":4,"result":null}
send {"jsonrpc":"2.0","id":5,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x.sh"},"position":{"line":0,"character":0}}}
expect {"id":5,"error":{"code":-32600}}
send {"jsonrpc":"2.0","id":8,"method":"shutdown"}
expect {"id":8,"error":{"code":-32600}}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
