package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// Multi round-trip requests (2026-07-28/basic/patterns/mrtr.mdx): in the
// modern era a server that needs the client's input (elicitation,
// sampling, roots) answers tools/call, prompts/get or resources/read with
// resultType "input_required" and inputRequests; the client answers each
// with the same callbacks as the legacy server requests, and sends the
// original request again (a new id) with inputResponses and the
// requestState it was given, unchanged.

// rounds runs rq until its result is complete, answering the server's
// input requests in between; take reads a result, and returns its head
// (resultType, inputRequests, requestState) without decoding the rest
// unless it is complete.
func (s *Session) rounds(ctx context.Context, rq *request, take func(*jsonrpc.Response) (*resultHead, error)) error {
	base, err := rq.marshal()
	if err != nil {
		return &MethodError{Method: rq.method, Err: fmt.Errorf("marshaling %s params: %v", rq.method, err)}
	}
	cur := rq
	if rq.raw == nil && base != nil {
		cur = &request{}
		*cur = *rq
		cur.raw = base
	}
	for round := 1; ; round++ {
		resp, err := s.callResponse(ctx, cur)
		if err != nil {
			return err
		}
		h, err := take(resp)
		if err != nil {
			return err
		}
		if err := s.checkHead(rq.method, h, true); err != nil {
			return err
		}
		if s.era != EraModern || h.resultType != "input_required" {
			return nil
		}
		if round >= s.opts.MaxInputRounds {
			return &InputRoundsError{Method: rq.method, Rounds: round}
		}
		members := []member{}
		if declared(h.inputRequests) {
			answers, err := s.answerInputs(ctx, rq.method, h.inputRequests)
			if err != nil {
				return err
			}
			members = append(members, member{"inputResponses", answers})
		}
		if h.requestState != nil {
			members = append(members, member{"requestState", jsonrpc.AppendString(nil, *h.requestState)})
		}
		if len(members) == 0 {
			// Neither requests nor state: the server asks to be asked
			// again (the revision allows it), as it was.
			continue
		}
		p, err := addMembers(base, members...)
		if err != nil {
			return &MethodError{Method: rq.method, Err: err}
		}
		if cur == rq {
			cur = &request{}
			*cur = *rq
		}
		cur.raw = p
	}
}

// answerInputs answers the input requests of an input_required result,
// one at a time in the order of their keys, and returns the
// inputResponses object.
func (s *Session) answerInputs(ctx context.Context, method string, raw json.RawMessage) (json.RawMessage, error) {
	var reqs map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(raw, &reqs); err != nil {
		return nil, &ResultError{Method: method, Err: fmt.Errorf("inputRequests: %v", err)}
	}
	keys := make([]string, 0, len(reqs))
	for k := range reqs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := map[string]json.RawMessage{}
	for _, k := range keys {
		in := reqs[k]
		switch in.Method {
		case "elicitation/create", "sampling/createMessage", "roots/list":
		default:
			return nil, &InputError{Method: method, Input: in.Method, Key: k,
				Err: errors.New("not an input request the revision allows (elicitation/create, sampling/createMessage, roots/list)")}
		}
		result, outcome, err := s.answer(ctx, &jsonrpc.Request{Method: in.Method, Params: in.Params})
		if s.opts.OnServerRequest != nil {
			s.opts.OnServerRequest(in.Method, outcome)
		}
		if err != nil {
			if outcome == "method not found" {
				err = fmt.Errorf("the client did not declare the capability (%s)", capabilityFor(in.Method))
			}
			return nil, &InputError{Method: method, Input: in.Method, Key: k, Err: err}
		}
		b, err := jsonrpc.MarshalParams(result)
		if err != nil {
			return nil, &InputError{Method: method, Input: in.Method, Key: k, Err: err}
		}
		out[k] = b
	}
	b, err := jsonrpc.MarshalParams(out)
	if err != nil {
		return nil, &MethodError{Method: method, Err: err}
	}
	return b, nil
}

// capabilityFor names the client capability an input request needs.
func capabilityFor(method string) string {
	switch method {
	case "elicitation/create":
		return "elicitation"
	case "sampling/createMessage":
		return "sampling"
	}
	return "roots"
}
