package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
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
//
// A server feeds this loop, so it is bounded as the legacy server
// requests are: the input requests of one answer
// (Options.MaxInputRequests), those of all the rounds of one request
// (MaxInputTotal), the rounds (MaxInputRounds), the bytes of requestState
// (MaxRequestState), and the rate: each answer waits for a turn of the
// connection's reply rate (32 a second), shared with the replies to
// server requests. The revision gives an input response no error form
// (an InputResponse is a CreateMessageResult, ListRootsResult or
// ElicitResult), and says a client that fails an input request need not
// send the request again "with an error message, as the server is not
// waiting for a response" (client/sampling.mdx, Error Handling). So past
// a bound nothing of that round is answered, the request is not sent
// again, and the caller gets an *InputLimitError;
// Options.OnRefused counts what was refused.

// The bounds of multi round-trip requests, unless Options say otherwise.
const (
	DefaultMaxInputRequests = 64
	DefaultMaxInputTotal    = 256
	DefaultMaxRequestState  = 8 << 20
)

// inputDefaults fills in the bounds of multi round-trip requests.
func (o *Options) inputDefaults() {
	if o.MaxInputRounds <= 0 {
		o.MaxInputRounds = DefaultMaxInputRounds
	}
	if o.MaxInputRequests <= 0 {
		o.MaxInputRequests = DefaultMaxInputRequests
	}
	if o.MaxInputTotal <= 0 {
		o.MaxInputTotal = DefaultMaxInputTotal
	}
	if o.MaxRequestState <= 0 {
		o.MaxRequestState = DefaultMaxRequestState
	}
}

// A Refusal says why server requests or input requests were refused.
type Refusal string

const (
	// RefusedInFlight: a server request past the 256 being handled at
	// once, answered with an error at once.
	RefusedInFlight Refusal = "too many in flight"
	// RefusedUnanswered: a server request past that bound while 256 such
	// error answers wait to be sent: it gets no answer at all.
	RefusedUnanswered Refusal = "unanswered"
	// RefusedRound: the input requests of an answer that holds more than
	// Options.MaxInputRequests.
	RefusedRound Refusal = "too many in one round"
	// RefusedTotal: the input requests of a round that would take the
	// request past Options.MaxInputTotal.
	RefusedTotal Refusal = "too many in all rounds"
	// RefusedState: the input requests of a round whose requestState is
	// longer than Options.MaxRequestState.
	RefusedState Refusal = "requestState too long"
)

// onOverflow is the connection's OnOverflow: a server request past the
// bounds of requests in flight.
func (s *Session) onOverflow(req *jsonrpc.Request, answered bool) {
	if s.opts.OnRefused == nil {
		return
	}
	why := RefusedUnanswered
	if answered {
		why = RefusedInFlight
	}
	s.opts.OnRefused(req.Method, why, 1)
}

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
	total := 0           // input requests answered in the rounds so far
	var last *resultHead // the head of the last answer, which the retry was made of
	for round := 1; ; round++ {
		sc, err := s.startCall(ctx, cur)
		if err != nil {
			return err
		}
		// Sent: sc has what it needs, and lets a big retry go. What
		// take kept of the last answer must not hold that answer (its
		// requestState) while the next one is read.
		cur.more = nil
		if last != nil {
			last.inputRequests, last.requestState = nil, nil
		}
		resp, err := sc.wait()
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
		last = h
		if s.era != EraModern || h.resultType != "input_required" {
			return nil
		}
		if round >= s.opts.MaxInputRounds {
			return &InputRoundsError{Method: rq.method, Rounds: round}
		}
		reqs, err := s.boundInputs(rq.method, h, total)
		if err != nil {
			return err
		}
		total += len(reqs)
		members := []member{}
		if declared(h.inputRequests) {
			answers, err := s.answerInputs(ctx, rq.method, reqs)
			if err != nil {
				return err
			}
			members = append(members, member{"inputResponses", answers})
		}
		if h.requestState != nil {
			members = append(members, member{"requestState", h.requestState})
		}
		if len(members) == 0 {
			// Neither requests nor state: the server asks to be asked
			// again (the revision allows it), as it was.
			continue
		}
		if cur == rq {
			cur = &request{}
			*cur = *rq
		}
		// Added when sent, with _meta: a big requestState goes out
		// from the answer it came in. The members hold it now: the
		// head lets go of it (the call lets go of big members before
		// they are sent), so that nothing holds it while the next
		// answer is read.
		cur.raw, cur.more = base, members
		h.inputRequests, h.requestState = nil, nil
	}
}

// inputRequests are the input requests of one round, by key.
type inputRequests map[string]struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// boundInputs decodes the input requests of h (none when it has none),
// unless they are more than
// the session answers (in this round, or with the total answered in the
// rounds before) or the requestState is too long: then they are refused,
// OnRefused is told, and the error is an *InputLimitError.
func (s *Session) boundInputs(method string, h *resultHead, total int) (inputRequests, error) {
	var reqs inputRequests
	if declared(h.inputRequests) {
		if err := json.Unmarshal(h.inputRequests, &reqs); err != nil {
			return nil, &ResultError{Method: method, Err: fmt.Errorf("inputRequests: %v", err)}
		}
	}
	n := len(reqs)
	var lim *InputLimitError
	switch {
	case len(h.requestState)-2 > s.opts.MaxRequestState:
		lim = &InputLimitError{Method: method, Why: RefusedState, Got: len(h.requestState) - 2, Max: s.opts.MaxRequestState}
	case n > s.opts.MaxInputRequests:
		lim = &InputLimitError{Method: method, Why: RefusedRound, Got: n, Max: s.opts.MaxInputRequests}
	case total+n > s.opts.MaxInputTotal:
		lim = &InputLimitError{Method: method, Why: RefusedTotal, Got: total + n, Max: s.opts.MaxInputTotal}
	default:
		return reqs, nil
	}
	if s.opts.OnRefused != nil {
		by := map[string]int{}
		for _, in := range reqs {
			by[in.Method]++
		}
		for _, m := range slices.Sorted(maps.Keys(by)) {
			s.opts.OnRefused(m, lim.Why, by[m])
		}
	}
	return nil, lim
}

// answerInputs answers the input requests of an input_required result,
// one at a time in the order of their keys and at the connection's reply
// rate, and returns the inputResponses object.
func (s *Session) answerInputs(ctx context.Context, method string, reqs inputRequests) (json.RawMessage, error) {
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
		if err := s.conn.Pace(ctx); err != nil {
			return nil, err
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
