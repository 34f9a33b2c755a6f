# A client that registers file watchers dynamically is asked to watch shell scripts, so that
# changes to sourced model configs on disk reach the server.
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"workspace":{"didChangeWatchedFiles":{"dynamicRegistration":true}}}}}
expect {"id":1,"result":"<any>"}
send {"jsonrpc":"2.0","method":"initialized","params":{}}
expect {"jsonrpc":"2.0","id":1,"method":"client/registerCapability","params":{"registrations":[{"id":"perf-doctor-watch","method":"workspace/didChangeWatchedFiles","registerOptions":{"watchers":["<contains>",{"globPattern":"**/*.sh"}]}}]}}
send {"jsonrpc":"2.0","id":1,"result":null}
send {"jsonrpc":"2.0","id":2,"method":"shutdown"}
expect {"id":2,"result":null}
send {"jsonrpc":"2.0","method":"exit"}
exit 0
