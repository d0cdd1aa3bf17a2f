package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"

	"github.com/mcpwire/mcpwire/protocol"
)

// recordedAnswers are how the recorded client answered the server's own
// requests (sampling, elicitation, roots), so that verify answers the
// live server the same way: what it declared, and each answer by method
// in the recording's order. Legacy server requests are paired with the
// client's answers by id; a modern input_required's input requests with
// the inputResponses of the retry that followed, by key.
type recordedAnswers struct {
	elicit, elicitURL, sample, roots bool // the capabilities declared
	declared                         bool // the declaration was read

	mu       sync.Mutex // the handlers may be called from several goroutines
	byMethod map[string][]*recordedAnswer
}

// A recordedAnswer is one answer of the recorded client.
type recordedAnswer struct {
	params any // decoded, _meta left out (nil when none)
	result json.RawMessage
	err    *protocol.Error
	used   bool
}

// answeredMethods are the server's requests verify answers from the
// recording.
var answeredMethods = [...]string{"sampling/createMessage", "elicitation/create", "roots/list"}

// declare takes the client capabilities of the recording's first
// request: initialize's (legacy) or those in _meta (modern).
func (a *recordedAnswers) declare(method string, params json.RawMessage) {
	if a.declared {
		return
	}
	var p struct {
		Capabilities json.RawMessage `json:"capabilities"`
		Meta         struct {
			Capabilities json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
		} `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	caps := p.Meta.Capabilities
	if method == "initialize" {
		caps = p.Capabilities
	}
	if caps == nil {
		return
	}
	var c struct {
		Elicitation *struct {
			URL json.RawMessage `json:"url"`
		} `json:"elicitation"`
		Sampling json.RawMessage `json:"sampling"`
		Roots    json.RawMessage `json:"roots"`
	}
	if json.Unmarshal(caps, &c) != nil {
		return
	}
	a.declared = true
	a.elicit, a.sample, a.roots = c.Elicitation != nil, c.Sampling != nil, c.Roots != nil
	a.elicitURL = a.elicit && c.Elicitation.URL != nil
}

// add keeps the client's answer to a server request of method.
func (a *recordedAnswers) add(method string, params, result json.RawMessage, err *protocol.Error) {
	if !slices.Contains(answeredMethods[:], method) {
		return
	}
	if a.byMethod == nil {
		a.byMethod = map[string][]*recordedAnswer{}
	}
	a.byMethod[method] = append(a.byMethod[method], &recordedAnswer{params: withoutMeta(params), result: result, err: err})
}

// withoutMeta is params decoded, _meta left out (nil when none or not
// JSON).
func withoutMeta(params json.RawMessage) any {
	if len(params) == 0 {
		return nil
	}
	v, err := decodeJSON(params)
	if err != nil {
		return nil
	}
	if m, ok := v.(map[string]any); ok {
		delete(m, "_meta")
		if len(m) == 0 {
			return nil
		}
	}
	return v
}

// take is the recorded answer to a request of method with params: the
// first unused one with the same params, else the first unused one,
// else the last one again; nil when the recording answered none.
func (a *recordedAnswers) take(method string, params json.RawMessage) *recordedAnswer {
	want := withoutMeta(params)
	a.mu.Lock()
	defer a.mu.Unlock()
	list := a.byMethod[method]
	pick := func(match func(*recordedAnswer) bool) *recordedAnswer {
		for _, r := range list {
			if !r.used && match(r) {
				r.used = true
				return r
			}
		}
		return nil
	}
	if r := pick(func(r *recordedAnswer) bool { return reflect.DeepEqual(r.params, want) }); r != nil {
		return r
	}
	if r := pick(func(*recordedAnswer) bool { return true }); r != nil {
		return r
	}
	if len(list) > 0 {
		return list[len(list)-1]
	}
	return nil
}

// declares says whether the session declares what answers method: as
// the recorded client did, or (its declaration not read) when the
// recording holds answers to it.
func (a *recordedAnswers) declares(method string, declared bool) bool {
	if a.declared {
		return declared
	}
	return len(a.byMethod[method]) > 0
}

// options are the session's handlers: the recorded client's declaration,
// each request answered as the recording did. A request the recording
// answered none of is declined (elicitation), refused (sampling) or
// offered no root.
func (a *recordedAnswers) options() protocol.Options {
	var o protocol.Options
	if a.declares("elicitation/create", a.elicit) {
		o.ElicitURL = a.elicitURL
		o.Elicit = func(_ context.Context, p *protocol.ElicitParams) (*protocol.ElicitResult, error) {
			q := *p
			q.Meta = nil
			raw, _ := json.Marshal(&q)
			r := a.take("elicitation/create", raw)
			if r == nil {
				return &protocol.ElicitResult{Action: "decline"}, nil
			}
			if r.err != nil {
				return nil, r.err
			}
			var res protocol.ElicitResult
			if err := json.Unmarshal(r.result, &res); err != nil {
				return nil, fmt.Errorf("the recorded answer to elicitation/create: %v", err)
			}
			return &res, nil
		}
	}
	if a.declares("sampling/createMessage", a.sample) {
		o.Sample = func(_ context.Context, p json.RawMessage) (any, error) {
			r := a.take("sampling/createMessage", p)
			switch {
			case r == nil:
				return nil, &protocol.Error{Code: -1, Message: "mcpwire verify: the recording answered no sampling request"}
			case r.err != nil:
				return nil, r.err
			}
			return r.result, nil
		}
	}
	if a.declares("roots/list", a.roots) {
		o.Roots = func(context.Context) ([]protocol.Root, error) {
			r := a.take("roots/list", nil)
			switch {
			case r == nil:
				return []protocol.Root{}, nil
			case r.err != nil:
				return nil, r.err
			}
			var res struct {
				Roots []protocol.Root `json:"roots"`
			}
			if err := json.Unmarshal(r.result, &res); err != nil {
				return nil, fmt.Errorf("the recorded answer to roots/list: %v", err)
			}
			return res.Roots, nil
		}
	}
	return o
}
