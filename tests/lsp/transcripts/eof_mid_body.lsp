# The client dies in the middle of a message: the server stops cleanly (status 1, no crash).
send {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}
expect {"id":1,"result":"<any>"}
raw "Content-Length: 500\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":2,\"meth"
close
exit 1
