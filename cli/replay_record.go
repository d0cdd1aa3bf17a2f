package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mcpwire/mcpwire/protocol"
	mcpserver "github.com/mcpwire/mcpwire/protocol/server"
)

// A recordedCall is one request of a recording, its answer, and what the
// server sent while it was in flight.
type recordedCall struct {
	method string
	params map[string]any // _meta dropped; nil: not an object
	raw    string         // params as recorded, when not an object
	result json.RawMessage
	err    *recordedError
	token  json.RawMessage // the request's progressToken, if any
	took   float64         // ms from the request to its answer
	events []recordedEvent // in the order received
	// after are the notifications that came after the answer, while no
	// request was in flight (a list_changed, a log message), at ms after
	// the answer.
	after []recordedEvent
}

// maxAfter bounds the notifications kept after one answer (a server's
// periodic log messages between two requests of a long recording).
const maxAfter = 256

// A recordedEvent is a notification or a request the server sent while a
// call was in flight, at ms after the call's request.
type recordedEvent struct {
	at      float64
	method  string
	params  json.RawMessage
	request bool // a server request (sampling, elicitation, roots, ping)
}

// recordedError is a JSON-RPC error as recorded.
type recordedError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// recordLine is what replay reads of a line of a recording.
type recordLine struct {
	T      float64         `json:"t"`
	Server string          `json:"server"`
	Dir    string          `json:"dir"`
	Msg    json.RawMessage `json:"msg"`
}

// recordMsg is what replay reads of a recorded message.
type recordMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *recordedError  `json:"error"`
}

// inFlight is a recorded request waiting for its answer.
type inFlight struct {
	_ [0]func() // not comparable: no equality function in the binary

	call *recordedCall
	t    float64
}

// readRecording loads the calls of a --record file: of server's
// session, or ("") of the one server it holds.
func readRecording(name string, data []byte, server string) (*replayer, error) {
	rp := &replayer{capabilities: map[string]any{}, served: map[*recordedCall]int{}}
	pending := map[string]*inFlight{} // by server and id
	var order []*recordedCall
	var latest *inFlight       // the request most recently sent, still unanswered
	var servers []string       // whose messages the recording holds, in order
	var answered *recordedCall // the call answered last, and when
	var answeredAt float64
	var carry []recordedEvent // for the next request the handler serves
	for i, raw := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var l recordLine
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, fmt.Errorf("%s:%d: not a line of a recording (mcpwire … --record FILE): %v", name, i+1, err)
		}
		var m recordMsg
		if len(l.Msg) == 0 || json.Unmarshal(l.Msg, &m) != nil {
			continue
		}
		if !slices.Contains(servers, l.Server) {
			servers = append(servers, l.Server)
		}
		if server != "" && l.Server != server {
			continue
		}
		hasID := len(m.ID) > 0 && string(m.ID) != "null"
		key := l.Server + "\x00" + string(m.ID)
		switch {
		case l.Dir == "send" && m.Method == "subscriptions/listen":
			// The replay's server keeps its own subscriptions: what comes
			// on the recorded one is the previous answer's after.
		case l.Dir == "send" && m.Method != "" && hasID:
			c := newRecordedCall(m.Method, m.Params)
			if !serverAnswers(m.Method) {
				c.events, carry = carry, nil // at 0: first thing
			}
			f := &inFlight{call: c, t: l.T}
			pending[key], latest = f, f
			order = append(order, c)
		case l.Dir == "recv" && m.Method == "" && hasID:
			f := pending[key]
			if f == nil {
				continue
			}
			delete(pending, key)
			if latest == f {
				latest = nil
				for _, o := range pending {
					if latest == nil || o.t > latest.t {
						latest = o
					}
				}
			}
			f.call.result, f.call.err, f.call.took = m.Result, m.Error, l.T-f.t
			answered, answeredAt = f.call, l.T
			if (f.call.method == "initialize" || f.call.method == "server/discover") && m.Result != nil {
				rp.identity(f.call.method, m.Result)
			}
		case l.Dir == "recv" && m.Method != "":
			ev := recordedEvent{method: m.Method, params: m.Params, request: hasID}
			switch f := owner(pending, latest, l.Server, m); {
			case m.Method == "notifications/subscriptions/acknowledged" || m.Method == "notifications/cancelled":
			case f != nil && !serverAnswers(f.call.method):
				ev.at = l.T - f.t
				f.call.events = append(f.call.events, ev)
			case f == nil && answered != nil && !serverAnswers(answered.method) && !hasID:
				if len(answered.after) < maxAfter {
					ev.at = l.T - answeredAt
					answered.after = append(answered.after, ev)
				}
			case !hasID && len(carry) < maxAfter:
				// Of a request the replay's server answers itself (and so
				// sends nothing of): sent first thing in the next one.
				carry = append(carry, ev)
			}
		}
	}
	for _, c := range order {
		if c.result != nil || c.err != nil {
			rp.calls = append(rp.calls, c)
		}
	}
	if server == "" && len(servers) > 1 {
		return nil, fmt.Errorf("%s holds the sessions of %s: choose one with --server NAME", name, strings.Join(servers, ", "))
	}
	if server != "" && !slices.Contains(servers, server) {
		held := strings.Join(servers, ", ")
		if held == "" {
			held = "none"
		}
		return nil, fmt.Errorf("%s holds no session of %s (it holds %s)", name, server, held)
	}
	if rp.serverInfo == nil {
		return nil, fmt.Errorf("%s holds no answered initialize or server/discover: record a whole session (mcpwire … --record FILE)", name)
	}
	return rp, nil
}

// serverAnswers reports whether the replay's server answers method
// itself, without the recording (protocol/server does).
func serverAnswers(method string) bool {
	switch method {
	case "initialize", "server/discover", "ping", "logging/setLevel":
		return true
	}
	return false
}

// owner is the in-flight request a message of the server belongs to: the
// one whose progressToken a progress notification names, else the one
// sent last.
func owner(pending map[string]*inFlight, latest *inFlight, server string, m recordMsg) *inFlight {
	if m.Method == "notifications/progress" {
		var p struct {
			Token json.RawMessage `json:"progressToken"`
		}
		if json.Unmarshal(m.Params, &p) == nil && len(p.Token) > 0 {
			for _, f := range pending {
				if bytes.Equal(f.call.token, p.Token) {
					return f
				}
			}
		}
	}
	return latest
}

// newRecordedCall reads a recorded request: its params without _meta,
// and the progressToken _meta held.
func newRecordedCall(method string, params json.RawMessage) *recordedCall {
	c := &recordedCall{method: method}
	c.params, c.raw, c.token = paramsOf(params)
	return c
}

// paramsOf decodes params for matching, in one pass: an object without
// _meta (no params: {}, as the modern era sends _meta alone) nor empty
// arguments, or the raw text; and the progressToken _meta held.
func paramsOf(raw json.RawMessage) (params map[string]any, text string, token json.RawMessage) {
	if len(raw) == 0 || string(raw) == "null" {
		return map[string]any{}, "", nil
	}
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers as written: a token is sent back exactly
	if dec.Decode(&v) != nil || v == nil || dec.InputOffset() < int64(len(bytes.TrimRight(raw, " \t\r\n"))) {
		return nil, string(raw), nil
	}
	if meta, ok := v["_meta"].(map[string]any); ok {
		if t, ok := meta["progressToken"]; ok && t != nil {
			token, _ = json.Marshal(t)
		}
	}
	delete(v, "_meta")
	if a, ok := v["arguments"].(map[string]any); ok && len(a) == 0 {
		delete(v, "arguments") // no arguments, as an SDK sends them or not
	}
	return v, "", token
}

// identity takes the server's name, capabilities and instructions from
// its initialize or server/discover answer.
func (rp *replayer) identity(method string, result json.RawMessage) {
	var r struct {
		ServerInfo   json.RawMessage            `json:"serverInfo"`
		Capabilities map[string]any             `json:"capabilities"`
		Instructions string                     `json:"instructions"`
		Meta         map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(result, &r) != nil {
		return
	}
	rp.serverInfo = r.ServerInfo
	if method == "server/discover" {
		rp.serverInfo = r.Meta["io.modelcontextprotocol/serverInfo"]
	}
	rp.era, rp.versions = recordedEra(method, result)
	if r.Capabilities != nil {
		rp.capabilities = r.Capabilities
	}
	rp.instructions = r.Instructions
}

// recordedEra is what the recorded server offered, for replay to offer
// the same (unless --any-era): a legacy server's initialize names its one
// revision; a modern server's discover answer lists its supported ones,
// the legacy among them spoken through initialize (dual era).
func recordedEra(method string, result json.RawMessage) (era string, legacy []string) {
	var r struct {
		ProtocolVersion   string   `json:"protocolVersion"`
		SupportedVersions []string `json:"supportedVersions"`
	}
	_ = json.Unmarshal(result, &r)
	if method == "initialize" {
		if r.ProtocolVersion == "" || protocol.EraOf(r.ProtocolVersion) != protocol.EraLegacy {
			return mcpserver.EraDual, nil // nothing a replay can hold to
		}
		return mcpserver.EraLegacy, []string{r.ProtocolVersion}
	}
	for _, v := range r.SupportedVersions {
		if protocol.EraOf(v) == protocol.EraLegacy {
			legacy = append(legacy, v)
		}
	}
	if len(legacy) == 0 && len(r.SupportedVersions) > 0 {
		return mcpserver.EraModern, nil
	}
	return mcpserver.EraDual, legacy
}

// legacyResult is a recorded result as a legacy session gets it: without
// what the modern era adds to every result (resultType "complete",
// serverInfo in _meta, ttlMs and cacheScope), which a modern recording
// holds and a legacy server never sends. (A modern session gets them
// from the server library, which adds them to any result.) A result
// without them is returned as it is.
func legacyResult(raw json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return raw
	}
	changed := false
	for _, k := range []string{"ttlMs", "cacheScope"} {
		if _, ok := m[k]; ok {
			delete(m, k)
			changed = true
		}
	}
	if string(m["resultType"]) == `"complete"` {
		delete(m, "resultType")
		changed = true
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(m["_meta"], &meta) == nil {
		if _, ok := meta[mcpserver.MetaServerInfo]; ok {
			delete(meta, mcpserver.MetaServerInfo)
			m["_meta"], _ = json.Marshal(meta)
			if len(meta) == 0 {
				delete(m, "_meta")
			}
			changed = true
		}
	}
	if !changed {
		return raw
	}
	out, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return out
}
