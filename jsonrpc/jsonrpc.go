package jsonrpc

import "context"

// A Stream carries whole JSON-RPC messages to and from a peer.
//
// Read is called by one goroutine at a time; Write may be called
// concurrently with Read and with other Writes; Close may be called
// concurrently with both and makes a blocked Read return.
type Stream interface {
	// Read returns the next message from the peer. It returns io.EOF when
	// the peer closed the stream cleanly.
	Read(ctx context.Context) (Message, error)
	// Write sends one message to the peer.
	Write(ctx context.Context, msg Message) error
	// Close releases the stream; it is safe to call more than once.
	Close() error
}
