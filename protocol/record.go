package protocol

import (
	"context"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// RecordStream is s with every message handed to record as it goes out
// ("send") or comes in ("recv"), encoded as on the wire; nil record is s
// itself. The stream's optional powers (envelopes, the revision,
// cancelling a request) are kept when s has them, so that a recorded
// session speaks as it would unrecorded.
func RecordStream(s jsonrpc.Stream, record func(dir string, msg []byte)) jsonrpc.Stream {
	if record == nil {
		return s
	}
	base := &recStream{Stream: s, record: record}
	if h, ok := s.(httpStream); ok {
		return &recHTTPStream{recStream: base, h: h}
	}
	return base
}

// httpStream is what the HTTP transport adds to a stream.
type httpStream interface {
	envelopeWriter
	SetProtocolVersion(v string)
	CancelRequest(id jsonrpc.ID) bool
}

type recStream struct {
	jsonrpc.Stream
	record func(dir string, msg []byte)
}

func (s *recStream) note(dir string, m jsonrpc.Message) {
	if b, err := jsonrpc.EncodeMessage(m); err == nil {
		s.record(dir, b)
	}
}

func (s *recStream) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := s.Stream.Read(ctx)
	if err == nil {
		s.note("recv", m)
	}
	return m, err
}

func (s *recStream) Write(ctx context.Context, m jsonrpc.Message) error {
	s.note("send", m)
	return s.Stream.Write(ctx, m)
}

type recHTTPStream struct {
	_ [0]func() // not comparable: no equality function in the binary

	*recStream
	h httpStream
}

func (s *recHTTPStream) WriteEnvelope(ctx context.Context, m jsonrpc.Message, env map[string]string) error {
	s.note("send", m)
	return s.h.WriteEnvelope(ctx, m, env)
}

func (s *recHTTPStream) SetProtocolVersion(v string)      { s.h.SetProtocolVersion(v) }
func (s *recHTTPStream) CancelRequest(id jsonrpc.ID) bool { return s.h.CancelRequest(id) }
