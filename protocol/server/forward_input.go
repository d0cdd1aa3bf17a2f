package server

// Server requests for a modern host (2026-07-28/basic/patterns/mrtr.mdx):
// a modern host cannot be sent a request, so when the target asks for
// input (an elicitation, a sample, the roots) during a request of a
// modern host, the forwarder answers that request with input_required
// and an input request of its own, keeps the target's request running,
// and when the host sends its request again with inputResponses and the
// requestState, hands the answer to the target and waits for what comes
// next: another input request, or the result.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"sync"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
)

// Bounds of the relay: rounds in flight at once, and how long a round
// waits for the host to send its request again.
const (
	maxRelays    = 64
	relayPatient = 5 * time.Minute
)

// A relay is one request of a modern host running at the target.
type relay struct {
	asks chan *relayAsk // the target's input requests, one at a time
	done chan relayOut  // the target's answer
	stop context.CancelFunc
	caps ClientCaps // what the host declared in the request that started it

	mu  sync.Mutex
	cur *relayAsk // the input request the host was given
}

// A relayAsk is one input request of the target, waiting for its answer.
type relayAsk struct {
	_ [0]func() // not comparable: no equality function in the binary

	method string
	params any
	reply  chan relayReply
}

type relayReply struct {
	raw json.RawMessage
	err error
}

type relayOut struct {
	_ [0]func() // not comparable: no equality function in the binary

	res any
	err error
}

type relayKey struct{}

// relayOf is the relay a callback's ctx belongs to, if any.
func relayOf(ctx context.Context) *relay {
	r, _ := ctx.Value(relayKey{}).(*relay)
	return r
}

// ask puts an input request to the host of r and waits for its answer.
func (r *relay) ask(ctx context.Context, method string, params any) (json.RawMessage, error) {
	if !declares(r.caps, method) {
		return nil, jsonrpc.NewError(jsonrpc.CodeMethodNotFound, "%s: the host behind the proxy did not declare the capability", method)
	}
	a := &relayAsk{method: method, params: params, reply: make(chan relayReply, 1)}
	select {
	case r.asks <- a:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case rep := <-a.reply:
		return rep.raw, rep.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// An InputRelay turns the server requests a handler's work makes (its
// callbacks ask through Ask) into the input requests of a modern
// client's request: the forwarder's, and mcpwire serve's. The zero value
// is not ready: use NewInputRelay.
type InputRelay struct {
	mu      sync.Mutex
	relays  map[string]*relay // by requestState: relays waiting for their host's input
	running map[*relay]bool   // relays whose work runs
}

// NewInputRelay returns an InputRelay with nothing running.
func NewInputRelay() *InputRelay {
	return &InputRelay{relays: map[string]*relay{}, running: map[*relay]bool{}}
}

// Relays says whether ctx's request is one to serve with Serve: a
// modern request of a method that takes input requests, from a client
// that declared it can answer one (or that answers a round).
func (f *InputRelay) Relays(ctx context.Context, method string) bool {
	mr := Modern(ctx)
	return mr != nil && asksInput(mr, method)
}

// Ask puts a server request to the client whose request ctx serves (or
// to the one request running, when ctx names none): ok is false when
// there is no such request.
func (f *InputRelay) Ask(ctx context.Context, method string, params any) (raw json.RawMessage, ok bool, err error) {
	r := relayOf(ctx)
	if r == nil {
		r = f.soleRelay()
	}
	if r == nil {
		return nil, false, nil
	}
	raw, err = r.ask(ctx, method, params)
	return raw, true, err
}

// Serve serves a modern request that Relays chose: a new one starts
// work in the background (its ctx outlives the request's, and names the
// relay for Ask); one that carries a requestState answers the input
// request of that work. Either way it waits for the work's next input
// request (answered as input_required) or its answer.
func (f *InputRelay) Serve(ctx context.Context, start func(context.Context) (any, error)) (any, error) {
	mr := Modern(ctx)
	if mr.State != nil {
		f.mu.Lock()
		r := f.relays[*mr.State]
		delete(f.relays, *mr.State)
		f.mu.Unlock()
		if r == nil {
			return nil, InvalidParams("requestState is not one this proxy gave, or its round ended")
		}
		r.mu.Lock()
		a := r.cur
		r.mu.Unlock()
		raw, ok := mr.Responses[inputKey(a.method)]
		if !ok {
			r.stop()
			return nil, InvalidParams("inputResponses has no answer for %q", inputKey(a.method))
		}
		a.reply <- relayReply{raw: raw}
		return f.next(ctx, r)
	}
	f.mu.Lock()
	full := len(f.relays) >= maxRelays
	f.mu.Unlock()
	if full {
		return nil, jsonrpc.NewError(jsonrpc.CodeInternalError, "proxy: too many requests wait for their host's input (%d)", maxRelays)
	}
	rctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	r := &relay{asks: make(chan *relayAsk), done: make(chan relayOut, 1), stop: stop, caps: mr.Caps}
	rctx = context.WithValue(rctx, relayKey{}, r)
	f.mu.Lock()
	f.running[r] = true
	f.mu.Unlock()
	go func() {
		res, err := start(rctx)
		f.mu.Lock()
		delete(f.running, r)
		f.mu.Unlock()
		r.done <- relayOut{res: res, err: err}
	}()
	return f.next(ctx, r)
}

// next waits for r's next input request (given to the host as
// input_required, with a fresh requestState) or its answer.
func (f *InputRelay) next(ctx context.Context, r *relay) (any, error) {
	select {
	case a := <-r.asks:
		state := relayState()
		r.mu.Lock()
		r.cur = a
		r.mu.Unlock()
		f.mu.Lock()
		f.relays[state] = r
		f.mu.Unlock()
		time.AfterFunc(relayPatient, func() { f.abandon(state, r) })
		req := map[string]any{"method": a.method}
		if a.params != nil {
			req["params"] = a.params
		}
		return nil, &InputRequired{Requests: map[string]any{inputKey(a.method): req}, State: state}
	case out := <-r.done:
		r.stop()
		return out.res, out.err
	case <-ctx.Done():
		r.stop()
		return nil, ctx.Err()
	}
}

// abandon ends a relay whose host did not come back.
func (f *InputRelay) abandon(state string, r *relay) {
	f.mu.Lock()
	gone := f.relays[state] == r
	if gone {
		delete(f.relays, state)
	}
	f.mu.Unlock()
	if gone {
		r.stop()
	}
}

// relayState is a fresh requestState: random, so that no host can name
// another's round.
func relayState() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "proxy:" + hex.EncodeToString(b)
}

// declares says whether caps declare what method needs.
func declares(caps ClientCaps, method string) bool {
	switch method {
	case "elicitation/create":
		return caps.Elicitation != nil
	case "sampling/createMessage":
		return caps.Sampling != nil
	case "roots/list":
		return caps.Roots != nil
	}
	return false
}

// asksInput says whether a modern request may be relayed: a method
// that takes input requests, from a host that declared it can answer
// one (or one that answers a round).
func asksInput(mr *ModernRequest, method string) bool {
	switch method {
	case "tools/call", "prompts/get", "resources/read":
	default:
		return false
	}
	c := mr.Caps
	return mr.State != nil || c.Elicitation != nil || c.Sampling != nil || c.Roots != nil
}

// soleRelay is the one relay running, when there is exactly one: a
// legacy target's server request names no request of the host, and
// goes to it then.
func (f *InputRelay) soleRelay() *relay {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.running) != 1 {
		return nil
	}
	for r := range f.running {
		return r
	}
	return nil
}
