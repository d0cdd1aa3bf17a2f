package server

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// discoverBody is the result of server/discover before decorate.
func (s *Server) discoverBody() map[string]any {
	o := &s.opts
	return map[string]any{
		"supportedVersions": s.versionsSpoken(),
		"capabilities":      o.Capabilities(),
		"instructions":      o.Instructions(),
	}
}

// DiscoverResult is the result the server answers server/discover with,
// as it sends it (a session's daemon hands it over, so that a command
// need not ask: protocol.Options.Discovered). Options.Hold is applied
// as to a request, with ctx.
func (s *Server) DiscoverResult(ctx context.Context) (json.RawMessage, error) {
	if s.opts.Hold != nil {
		if err := s.opts.Hold(ctx); err != nil {
			return nil, err
		}
	}
	res, err := s.decorate(&jsonrpc.Request{Method: "server/discover"}, s.discoverBody())
	if err != nil {
		return nil, err
	}
	raw, ok := res.(json.RawMessage)
	if !ok {
		return nil, fmt.Errorf("server/discover: a result of type %T", res)
	}
	return raw, nil
}
