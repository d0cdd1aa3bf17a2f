// Package transport gives a [jsonrpc.Stream] to an MCP server, over a
// child process's stdio or over HTTP.
//
// [Stdio] starts the server's command in a process group of its own (a
// Job Object on Windows), with the environment [ChildEnv] chooses (PATH,
// HOME, the locale, proxy and CA variables, and the definition's env: no
// other variable of the host), and speaks newline-delimited JSON-RPC over
// its stdin and stdout, with no line-length limit. Its stderr is kept in
// a bounded ring ([StdioConn.StderrTail]) for diagnostics; lines on
// stdout that are not JSON-RPC are counted and skipped. Close closes
// stdin, then stops the group in steps (SIGTERM, then SIGKILL), so that
// no process is left behind; a server that exits is an [*ExitError] with
// its last stderr lines.
//
// [HTTP] speaks the streamable HTTP transport: each message is a POST
// answered with JSON or with a stream of server-sent events; the GET
// stream carries what the server sends on its own; Mcp-Session-Id and
// MCP-Protocol-Version are kept and sent; a stream that drops is resumed
// with Last-Event-ID after the server's retry delay; a session the server
// forgot (404) is replaced once; Close sends DELETE. Legacy selects the
// HTTP+SSE transport of 2024-11-05 instead. The package knows nothing of
// OAuth: it is handed an *http.Client (the manager's has the bearer
// token); redirects are refused, and a status that is not a success is an
// [*HTTPError] that keeps the answer's header (WWW-Authenticate on 401).
package transport
