// This file holds the stream over a connection already made (a session's
// Unix socket): newline-delimited JSON-RPC, as on a stdio server's pipes.

package transport

import (
	"io"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// LineConn returns a newline-delimited JSON-RPC stream over rwc, a
// connection already made and past any handshake of its own. Close
// closes rwc.
func LineConn(rwc io.ReadWriteCloser) jsonrpc.Stream {
	return jsonrpc.NewLineStream(rwc, rwc, rwc)
}
