package protocol

import "context"

// ReadResource reads the resource uri (resources/read). Each item of the
// answer's Contents is text or a base64 blob.
func (s *Session) ReadResource(ctx context.Context, uri string) (*ReadResourceResult, error) {
	if err := s.require("resources/read", "resources"); err != nil {
		return nil, err
	}
	var res ReadResourceResult
	if err := s.callInto(ctx, "resources/read", uriParams{uri}, nil, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Subscribe asks for notifications/resources/updated about uri, which
// reach Options.OnResourceUpdated.
func (s *Session) Subscribe(ctx context.Context, uri string) error {
	if err := s.require("resources/subscribe", "resources.subscribe"); err != nil {
		return err
	}
	_, err := s.call(ctx, "resources/subscribe", uriParams{uri}, nil)
	return err
}

// Unsubscribe ends a subscription made with Subscribe.
func (s *Session) Unsubscribe(ctx context.Context, uri string) error {
	if err := s.require("resources/unsubscribe", "resources.subscribe"); err != nil {
		return err
	}
	_, err := s.call(ctx, "resources/unsubscribe", uriParams{uri}, nil)
	return err
}

type uriParams struct {
	URI string `json:"uri"`
}
