package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mcpwire/mcpwire/jsonrpc"
	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
)

// CallToolRaw is CallTool for a caller that passes the result on (a
// proxy): args are sent as they are (JSON text; none when empty), and the
// result is returned as the server sent it, JSON text aliasing the
// answer, once its head (resultType, _meta) is checked and its content
// found to be a list. The content is not decoded: the caller trusts it no
// more than the server, and escapes it for its sink. A result without a
// content list, or a task, is decoded (a task followed to its end) and
// encoded again, as CallTool returns it.
func (s *Session) CallToolRaw(ctx context.Context, name string, args json.RawMessage, opts *CallOptions) (json.RawMessage, error) {
	if err := s.require("tools/call", "tools"); err != nil {
		return nil, err
	}
	if len(args) == 0 {
		args = nil
	}
	if s.era == EraLegacy && s.TaskSupport(name) == "required" {
		return encodedResult(s.CallTool(ctx, name, args, opts))
	}
	var out json.RawMessage
	var task *Task
	decoded := false
	err := s.sendToolCall(ctx, name, args, opts, false, func(rq *request) error {
		return s.rounds(ctx, rq, func(resp *jsonrpc.Response) (*resultHead, error) {
			h, content, err := rawHead(resp.Cursor(), "content")
			if err != nil {
				return nil, &ResultError{Method: "tools/call", Err: err}
			}
			if s.era == EraModern && h.resultType == "task" {
				if task, err = decodeTask("tools/call", resp.Result); err != nil {
					return nil, err
				}
				h.resultType = "complete" // the rounds end here
			}
			out, decoded = resp.Result, !content
			return h, nil
		})
	})
	switch {
	case err != nil:
		return nil, err
	case task != nil:
		return encodedResult(s.followTask(ctx, task))
	case decoded:
		// No content list (a null result, a server that left it out): the
		// decoded result has one, as CallTool's caller would see.
		r, _, err := decodeCallResult(jsonscan.NewCursor(out))
		if err != nil {
			return nil, &ResultError{Method: "tools/call", Err: err}
		}
		if r.Content == nil {
			r.Content = []Content{}
		}
		return encodedResult(r, nil)
	}
	return out, nil
}

// rawHead reads the head of a result and whether its member list (the
// content of a tools/call result, the contents of a read) is a list; the
// other members are only checked to be JSON (they are, in a decoded
// answer).
func rawHead(c *jsonscan.Cursor, list string) (h *resultHead, isList bool, err error) {
	h = &resultHead{}
	if c.Null() {
		return h, false, nil
	}
	if c.Kind() != '{' {
		return nil, false, errors.New("the result is not an object")
	}
	err = c.Object(func(key []byte) error {
		if string(key) == list {
			isList = c.Kind() == '['
			if !isList && !c.Null() {
				return fmt.Errorf("%s: not a list", list)
			}
			return nil
		}
		_, err := h.take(c, key)
		return err
	})
	return h, isList, err
}

// encodedResult is res as JSON text.
func encodedResult(res *CallToolResult, err error) (json.RawMessage, error) {
	if err != nil {
		return nil, err
	}
	return jsonrpc.MarshalParams(res)
}

// ReadResourceRaw is ReadResource for a caller that passes the result on
// (a proxy): the result is returned as the server sent it, once its head
// is checked and its contents found to be a list; the contents are not
// decoded. A result without a contents list is decoded and encoded
// again, as ReadResource returns it.
func (s *Session) ReadResourceRaw(ctx context.Context, uri string) (json.RawMessage, error) {
	if err := s.require("resources/read", "resources"); err != nil {
		return nil, err
	}
	rq := &request{method: "resources/read", params: uriParams{uri}, name: uri}
	return s.rawRounds(ctx, rq, "contents", &ReadResourceResult{})
}

// GetPromptRaw is GetPrompt for a caller that passes the result on, as
// ReadResourceRaw is ReadResource: its messages are not decoded.
func (s *Session) GetPromptRaw(ctx context.Context, name string, args map[string]string) (json.RawMessage, error) {
	if err := s.require("prompts/get", "prompts"); err != nil {
		return nil, err
	}
	params := struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments,omitempty"`
	}{name, args}
	rq := &request{method: "prompts/get", params: params, name: name}
	return s.rawRounds(ctx, rq, "messages", &GetPromptResult{})
}

// rawRounds sends rq until its result is complete and returns the
// result's JSON text when its member list is a list; else the result
// decoded into typed and encoded again.
func (s *Session) rawRounds(ctx context.Context, rq *request, list string, typed any) (json.RawMessage, error) {
	var out json.RawMessage
	isList := false
	err := s.rounds(ctx, rq, func(resp *jsonrpc.Response) (*resultHead, error) {
		h, l, err := rawHead(resp.Cursor(), list)
		if err != nil {
			return nil, &ResultError{Method: rq.method, Err: err}
		}
		out, isList = resp.Result, l
		return h, nil
	})
	if err != nil || isList {
		return out, err
	}
	if err := json.Unmarshal(out, typed); err != nil {
		return nil, &ResultError{Method: rq.method, Err: err}
	}
	return jsonrpc.MarshalParams(typed)
}
