# Malformed input gets the JSON-RPC error it deserves, and the server keeps serving.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
expect {"id":1,"result":"<any>"}
# Not JSON.
raw "Content-Length: 9\r\n\r\n{not json"
expect {"id":null,"error":{"code":-32700}}
# Valid JSON but not a message.
raw "Content-Length: 7\r\n\r\n[1,2,3]"
expect {"id":null,"error":{"code":-32600}}
raw "Content-Length: 2\r\n\r\n42"
expect {"id":null,"error":{"code":-32600}}
# No "jsonrpc": "2.0" (the id is still answered), a method that is not a string, params of the wrong type.
send {"id":2,"method":"textDocument/hover","params":{}}
expect {"id":2,"error":{"code":-32600}}
send {"jsonrpc":"2.0","id":3,"method":17}
expect {"id":3,"error":{"code":-32600}}
send {"jsonrpc":"2.0","id":4,"method":"textDocument/hover","params":7}
expect {"id":4,"error":{"code":-32602}}
send {"jsonrpc":"2.0","id":5,"method":"textDocument/hover","params":[1]}
expect {"id":5,"error":{"code":-32602}}
# Missing or wrong params of a known method.
send {"jsonrpc":"2.0","id":6,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x.sh"}}}
expect {"id":6,"error":{"code":-32602,"message":"~position"}}
send {"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{"position":{"line":0,"character":0}}}
expect {"id":7,"error":{"code":-32602}}
send {"jsonrpc":"2.0","id":8,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"file:///x.sh"},"range":{"start":{"line":-1,"character":0}}}}
expect {"id":8,"error":{"code":-32602}}
send {"jsonrpc":"2.0","id":9,"method":"workspace/executeCommand","params":{"command":"perfDoctor.report"}}
expect {"id":9,"error":{"code":-32602}}
send {"jsonrpc":"2.0","id":10,"method":"workspace/executeCommand","params":{"command":"perfDoctor.nope","arguments":["x"]}}
expect {"id":10,"error":{"code":-32602,"message":"~perfDoctor.nope"}}
# Bad framing: no Content-Length, a non-numeric one, garbage before a header. Each is reported
# and the next well-framed message is still served.
raw "Content-Type: text/plain\r\n\r\n"
expect {"id":null,"error":{"code":-32700}}
raw "Content-Length: twelve\r\n\r\n"
expect {"id":null,"error":{"code":-32700}}
raw "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"shutdown\"}\r\n"
expect {"id":null,"error":{"code":-32700}}
raw "junkContent-Length: 46\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"unknown/x\"}"
expect {"id":null,"error":{"code":-32700}}
expect {"id":12,"error":{"code":-32601}}
# A body over the 64 MiB limit is skipped whole; the next message is read normally.
raw "Content-Length: 67108865\r\n\r\n"
pad 67108865
expect {"id":null,"error":{"code":-32600,"message":"~exceeds the limit"}}
# Notifications with bad params: logged, never answered, nothing breaks.
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///never-opened.sh","version":2},"contentChanges":[{"text":"x"}]}}
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":7}}}
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":"oops"}
quiet 300
# Any text, however broken (binary junk, NUL bytes, unbalanced everything), gets a diagnostics list.
send {"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///junk.sh","languageId":"shellscript","version":1,"text":"\u0000\u0001((( \"${ $( `\n<<EOF\n--tensor-model-parallel-size\u0000 ]] fi done esac }}}\n\u00ff\u4e2d\ud83d\ude00 -- python3 -m relax.entrypoints.train --resource '{\"actor\": [1,"}}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"file:///junk.sh","version":1,"diagnostics":"<any>"}}
send {"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///junk.sh","version":2},"contentChanges":[{"range":{"start":{"line":99,"character":0},"end":{"line":0,"character":5}},"text":"start after end: ignored"},{"range":{"start":{"line":1,"character":3},"end":{"line":2,"character":999}},"text":""}]}}
expect {"method":"textDocument/publishDiagnostics","params":{"uri":"file:///junk.sh","version":2,"diagnostics":"<any>"}}
send {"jsonrpc":"2.0","id":13,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///junk.sh"},"position":{"line":4000000000,"character":4000000000}}}
expect {"id":13,"result":"<any>"}
send {"jsonrpc":"2.0","id":14,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"file:///junk.sh"},"range":{"start":{"line":0,"character":0},"end":{"line":9,"character":0}},"context":{"diagnostics":[]}}}
expect {"id":14,"result":"<any>"}
# A response to a request the server never sent is ignored.
send {"jsonrpc":"2.0","id":999,"result":{}}
send {"jsonrpc":"2.0","id":15,"method":"shutdown"}
expect {"id":15,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
