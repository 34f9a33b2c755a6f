# `exit` without a prior shutdown ends the server with status 1 (LSP 3.17).
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
expect {"id":1,"result":{"capabilities":"<any>"}}
send {"jsonrpc":"2.0","method":"exit"}
exit 1
