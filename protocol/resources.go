package protocol

import (
	"context"
	"encoding/json"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// ReadResource reads the resource uri (resources/read). Each item of the
// answer's Contents is text or a base64 blob. A resource that does not
// exist is an error [IsResourceNotFound] recognizes. In the modern era a
// result asking for input is answered and the read sent again.
func (s *Session) ReadResource(ctx context.Context, uri string) (*ReadResourceResult, error) {
	if err := s.require("resources/read", "resources"); err != nil {
		return nil, err
	}
	var res ReadResourceResult
	err := s.rounds(ctx, &request{method: "resources/read", params: uriParams{uri}, name: uri}, func(resp *jsonrpc.Response) (*resultHead, error) {
		return decodeComplete(resp, "resources/read", &res)
	})
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// decodeComplete reads a result's head and, when it is complete, decodes
// the result into out.
func decodeComplete(resp *jsonrpc.Response, method string, out any) (*resultHead, error) {
	h, err := readHead(resp.Result)
	if err != nil {
		return nil, &ResultError{Method: method, Err: err}
	}
	if h.resultType == "input_required" {
		return h, nil
	}
	if err := json.Unmarshal(resp.Result, out); err != nil {
		return nil, &ResultError{Method: method, Err: err}
	}
	return h, nil
}

// Subscribe asks for notifications/resources/updated about uri, which
// reach Options.OnResourceUpdated: with resources/subscribe (legacy), or
// by adding uri to the session's subscriptions/listen stream and waiting
// for the server's acknowledgment (modern).
func (s *Session) Subscribe(ctx context.Context, uri string) error {
	if err := s.require("resources/subscribe", "resources.subscribe"); err != nil {
		return err
	}
	if s.era == EraModern {
		return s.subscribeModern(ctx, "resources/subscribe", uri, true)
	}
	_, err := s.call(ctx, "resources/subscribe", uriParams{uri}, nil)
	return err
}

// Unsubscribe ends a subscription made with Subscribe.
func (s *Session) Unsubscribe(ctx context.Context, uri string) error {
	if err := s.require("resources/unsubscribe", "resources.subscribe"); err != nil {
		return err
	}
	if s.era == EraModern {
		return s.subscribeModern(ctx, "resources/unsubscribe", uri, false)
	}
	_, err := s.call(ctx, "resources/unsubscribe", uriParams{uri}, nil)
	return err
}

type uriParams struct {
	URI string `json:"uri"`
}
