// Package jsonrpc is JSON-RPC 2.0 for mcpwire: the messages and a [Conn]
// that multiplexes calls over a [Stream].
//
// A [Stream] carries whole messages to and from a peer (the transport
// package gives one over a child's stdio or over HTTP). [NewConn] puts a
// [Conn] on it: one reader goroutine takes every message in; [Conn.Call]
// sends a request and waits for its answer, matched by ID in a map of
// pending calls, so that calls overlap freely; [Conn.Notify] sends a
// notification; requests and notifications from the peer go to the
// handlers of [ConnOptions], each request in a goroutine of its own (a
// bounded number at once; beyond it the peer is answered with an error),
// and their replies go out at most [DefaultReplyRate] in any one-second
// window. When a call's context ends before its answer, the Conn forgets
// it and tells [ConnOptions].OnCancel, so that the layer above can tell
// the peer (MCP's notifications/cancelled); the connection stays up.
//
// Decoding is strict: member names match exactly, "jsonrpc":"2.0" is
// required, IDs ([ID]) are kept exactly as the peer sent them (number or
// string), and a message that breaks the rules is answered with the
// error the specification names, or skipped, never fatal. Batches are
// accepted on receive and never sent. [DecodeMessage] checks a message and
// takes its envelope apart in one pass, noting where the large values
// are; [Response.Cursor] then reads a result's members without a second
// decode. The JSON toolkit this rests on (the one-pass validator, the
// Cursor, unquoting, the line reader) is the sub-package jsonscan.
//
// The package knows nothing of MCP and imports nothing of mcpwire but
// jsonscan and the shared safety package.
package jsonrpc
