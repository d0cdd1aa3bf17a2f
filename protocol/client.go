package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// handle answers one server request, in a goroutine of its own. The
// request's ctx ends when the server cancels it (notifications/cancelled:
// the connection registered the request before this started, so a
// cancellation right behind it is not lost) or the session closes.
func (s *Session) handle(ctx context.Context, req *jsonrpc.Request) (any, error) {
	result, outcome, err := s.answer(ctx, req)
	if err != nil && ctx.Err() != nil && context.Cause(ctx) == errServerCancelled {
		outcome = "cancelled by the server"
	}
	if s.opts.OnServerRequest != nil {
		s.opts.OnServerRequest(req.Method, outcome)
	}
	return result, err
}

func (s *Session) answer(ctx context.Context, req *jsonrpc.Request) (result any, outcome string, err error) {
	notFound := func() (any, string, error) {
		return nil, "method not found", jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "method not found: %s", req.Method)
	}
	failed := func(err error) (any, string, error) {
		var je *jsonrpc.Error
		if !errors.As(err, &je) {
			je = jsonrpc.NewError(jsonrpc.CodeInternalError, "%s", err.Error())
		}
		return nil, "error: " + je.Message, je
	}
	switch req.Method {
	case "ping":
		return struct{}{}, "answered", nil

	case "roots/list":
		if s.opts.Roots == nil {
			return notFound()
		}
		roots, err := s.opts.Roots(ctx)
		if err != nil {
			return failed(err)
		}
		if roots == nil {
			roots = []Root{}
		}
		return struct {
			Roots []Root `json:"roots"`
		}{roots}, "answered", nil

	case "elicitation/create":
		if s.opts.Elicit == nil {
			return notFound()
		}
		var p ElicitParams
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return failed(jsonrpc.NewError(jsonrpc.CodeInvalidParams, "elicitation/create params: %v", err))
		}
		switch p.Mode {
		case "", "form":
		case "url":
			if s.opts.Declare == nil && (!s.opts.ElicitURL || !hasElicitationModes(s.ProtocolVersion())) {
				return failed(jsonrpc.NewError(jsonrpc.CodeInvalidParams, "url mode elicitation was not declared"))
			}
		default:
			return failed(jsonrpc.NewError(jsonrpc.CodeInvalidParams, "unknown elicitation mode %q", p.Mode))
		}
		res, err := s.opts.Elicit(ctx, &p)
		if err != nil {
			return failed(err)
		}
		if res == nil {
			res = &ElicitResult{Action: "decline"}
		}
		switch res.Action {
		case "accept":
			outcome = "accepted"
		case "decline":
			outcome = "declined"
		case "cancel":
			outcome = "cancelled"
		default:
			return failed(errors.New("elicitation answer has no valid action"))
		}
		return res, outcome, nil

	case "sampling/createMessage":
		if s.opts.Sample == nil {
			return notFound()
		}
		res, err := s.opts.Sample(ctx, req.Params)
		if err != nil {
			var je *jsonrpc.Error
			if errors.As(err, &je) && je.Code == -1 {
				return nil, "declined", je
			}
			return failed(err)
		}
		return res, "answered", nil
	}
	return notFound()
}

// errServerCancelled ends a server request the server cancelled.
var errServerCancelled = errors.New("protocol: the server cancelled its request")

// cancelServing ends the handling of the server's request id, when the
// server sends notifications/cancelled for it.
func (s *Session) cancelServing(params json.RawMessage) {
	var p struct {
		RequestID jsonrpc.ID `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || !p.RequestID.IsValid() {
		return
	}
	s.conn.CancelRequest(p.RequestID, errServerCancelled)
}

// WorkingDirRoots returns the working directory as a root (a file://
// URI, named by its base name), for a caller that chooses to offer it.
func WorkingDirRoots() ([]Root, error) {
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	return []Root{DirRoot(dir)}, nil
}

// DirRoot returns the root for the directory dir (made absolute).
func DirRoot(dir string) Root {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	p := filepath.ToSlash(dir)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive: file:///C:/x
	}
	u := url.URL{Scheme: "file", Path: p}
	return Root{URI: u.String(), Name: filepath.Base(dir)}
}
