package manager

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/mcpwire/mcpwire/oauth"
)

// RecordHTTP is one HTTP exchange of a recorded session: the request's
// method and the headers of both sides that matter to MCP, the answer's
// status. Mcp-Session-Id is an opaque marker ("session-1", the same one
// for the same id), never the id itself; WWW-Authenticate keeps its
// schemes and the parameters a client acts on (resource_metadata, scope,
// error), every other value masked; Authorization is never kept.
type RecordHTTP struct {
	Method string `json:"method"`
	// Status is the answer's status code; 0 when none came (Error says
	// why).
	Status   int               `json:"status,omitempty"`
	Request  map[string]string `json:"request,omitempty"`
	Response map[string]string `json:"response,omitempty"`
	Error    string            `json:"error,omitempty"`
}

// recordedHeaders are the headers an HTTP line keeps, as canonical
// names.
var recordedHeaders = []string{"Content-Type", "Accept", "Mcp-Session-Id", "Mcp-Protocol-Version", "Mcp-Method", "Mcp-Name", "Last-Event-Id", "Www-Authenticate"}

// httpClient is client (nil: the default transport) with its exchanges
// recorded as lines of server.
func (r *Recorder) httpClient(server string, client *http.Client) *http.Client {
	c := http.Client{}
	if client != nil {
		c = *client
	}
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	c.Transport = &recordTransport{rec: r, server: server, base: base}
	return &c
}

// recordTransport records the exchanges of a session's HTTP client.
type recordTransport struct {
	_ [0]func() // not comparable: no equality function in the binary

	rec    *Recorder
	server string
	base   http.RoundTripper
}

// RoundTrip records req and its answer's status and headers; the body
// is the messages, which the session's stream records.
func (t *recordTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	h := &RecordHTTP{Method: req.Method, Request: t.rec.headers(req.Header)}
	if err != nil {
		h.Error = err.Error()
	} else {
		h.Status, h.Response = resp.StatusCode, t.rec.headers(resp.Header)
	}
	t.rec.add(&RecordLine{Server: t.server, HTTP: h})
	return resp, err
}

// headers are the recorded headers of hdr, session ids as markers.
func (r *Recorder) headers(hdr http.Header) map[string]string {
	out := map[string]string{}
	for _, name := range recordedHeaders {
		v := strings.Join(hdr.Values(name), ", ")
		switch {
		case v == "":
			continue
		case name == "Mcp-Session-Id":
			v = r.sessionMarker(v)
		case name == "Www-Authenticate":
			v = maskChallenges(hdr.Values(name))
		}
		out[name] = v
	}
	if hdr.Get("Authorization") != "" {
		out["Authorization"] = "***"
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// sessionMarker is the marker of a session id: session-N, N counting the
// ids of the recording in their order.
func (r *Recorder) sessionMarker(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sessions == nil {
		r.sessions = map[string]int{}
	}
	n, ok := r.sessions[id]
	if !ok {
		n = len(r.sessions) + 1
		r.sessions[id] = n
	}
	return fmt.Sprintf("session-%d", n)
}

// maskChallenges is a WWW-Authenticate value with its schemes and the
// parameters a client acts on; other values (and token68) are ***.
func maskChallenges(values []string) string {
	cs, err := oauth.ParseChallenges(values)
	if err != nil || len(cs) == 0 {
		return "***"
	}
	var out []string
	for _, c := range cs {
		s := c.Scheme
		if c.Token68 != "" {
			s += " ***"
		}
		names := make([]string, 0, len(c.Params))
		for k := range c.Params {
			names = append(names, k)
		}
		sort.Strings(names)
		var params []string
		for _, k := range names {
			v := "***"
			switch k {
			case "resource_metadata", "scope", "error":
				v = c.Params[k]
			}
			params = append(params, fmt.Sprintf("%s=%q", k, v))
		}
		if len(params) > 0 {
			s += " " + strings.Join(params, ", ")
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}
