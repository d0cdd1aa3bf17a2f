package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/jsonrpc/jsonscan"
)

// CallToolRaw sends the arguments as they are and returns the result as
// the server sent it (members it does not know included), after the
// rounds of a multi round-trip request; a result without a content list
// is decoded and encoded as CallTool gives it; a content that is not a
// list is refused.
func TestCallToolRaw(t *testing.T) {
	args := make(chan string, 10)
	s, _ := startModern(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		var p map[string]json.RawMessage
		json.Unmarshal(m.Params, &p)
		if p["requestState"] == nil {
			args <- string(p["arguments"])
		}
		var name string
		json.Unmarshal(p["name"], &name)
		switch {
		case name == "plain":
			return json.RawMessage(`{"content":[{"type":"text","text":"hi"}],"future":{"a":1},"resultType":"complete","_meta":{"k":"v"}}`), nil
		case name == "rounds" && p["requestState"] == nil:
			return json.RawMessage(`{"resultType":"input_required","requestState":"s1"}`), nil
		case name == "rounds":
			return json.RawMessage(`{"resultType":"complete","content":[],"isError":true}`), nil
		case name == "nocontent":
			return json.RawMessage(`{"resultType":"complete","structuredContent":{"n":1}}`), nil
		}
		return json.RawMessage(`{"resultType":"complete","content":"not a list"}`), nil
	}, nil)
	ctx := context.Background()
	for _, c := range []struct{ name, args, want string }{
		{"plain", `{"text":"hi"}`, `{"content":[{"type":"text","text":"hi"}],"future":{"a":1},"resultType":"complete","_meta":{"k":"v"}}`},
		{"rounds", ``, `{"resultType":"complete","content":[],"isError":true}`},
		{"nocontent", `{}`, `{"content":[],"structuredContent":{"n":1}}`},
	} {
		got, err := s.CallToolRaw(ctx, c.name, json.RawMessage(c.args), nil)
		if err != nil || string(got) != c.want {
			t.Errorf("%s: %s, %v; want %s", c.name, got, err, c.want)
		}
		if a := <-args; a != c.args {
			t.Errorf("%s: arguments sent %s, want %s", c.name, a, c.args)
		}
	}
	var re *ResultError
	if _, err := s.CallToolRaw(ctx, "bad", nil, nil); !errors.As(err, &re) {
		t.Errorf("content not a list: %v, want a *ResultError", err)
	}
}

// A legacy server's null result is an empty content list, as CallTool
// gives it.
func TestCallToolRawLegacyNull(t *testing.T) {
	s, _ := startFake(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		return json.RawMessage(`null`), nil
	}, nil)
	got, err := s.CallToolRaw(context.Background(), "x", nil, nil)
	if err != nil || string(got) != `{"content":[]}` {
		t.Errorf("null result: %s, %v", got, err)
	}
}

// FuzzRawHead: the head of a result passed on raw is read without a
// panic, and a content list it finds is one that CallTool's decoder,
// when it takes the result, finds too.
func FuzzRawHead(f *testing.F) {
	for _, seed := range []string{
		`{"content":[{"type":"text","text":"hi"}],"resultType":"complete"}`,
		`{"content":null}`, `{"content":"x"}`, `null`, `[]`, `{}`,
		`{"resultType":"input_required","requestState":"s","inputRequests":{}}`,
		`{"resultType":7}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !json.Valid(data) {
			return
		}
		_, content, err := rawHead(jsonscan.NewCursor(data), "content")
		if err != nil || !content {
			return
		}
		if r, _, err := decodeCallResult(jsonscan.NewCursor(data)); err == nil && r.Content == nil {
			t.Fatalf("%s: a content list the decoder does not see", data)
		}
	})
}

// ReadResourceRaw returns a read's result as the server sent it; one
// without a contents list is decoded and encoded as ReadResource gives
// it; contents that are not a list are refused.
func TestReadResourceRaw(t *testing.T) {
	s, _ := startModern(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		var p struct{ URI string }
		json.Unmarshal(m.Params, &p)
		switch p.URI {
		case "r://list":
			return json.RawMessage(`{"contents":[{"uri":"r://list","text":"x"}],"resultType":"complete","ttlMs":5,"cacheScope":"private","future":true}`), nil
		case "r://none":
			return json.RawMessage(`{"resultType":"complete"}`), nil
		}
		return json.RawMessage(`{"contents":{}}`), nil
	}, nil)
	ctx := context.Background()
	for uri, want := range map[string]string{
		"r://list": `{"contents":[{"uri":"r://list","text":"x"}],"resultType":"complete","ttlMs":5,"cacheScope":"private","future":true}`,
		"r://none": `{"contents":null}`,
	} {
		if got, err := s.ReadResourceRaw(ctx, uri); err != nil || string(got) != want {
			t.Errorf("%s: %s, %v; want %s", uri, got, err, want)
		}
	}
	var re *ResultError
	if _, err := s.ReadResourceRaw(ctx, "r://bad"); !errors.As(err, &re) {
		t.Errorf("contents not a list: %v, want a *ResultError", err)
	}
}

// GetPromptRaw returns a prompt's result as the server sent it; one
// without a messages list is decoded and encoded as GetPrompt gives it.
func TestGetPromptRaw(t *testing.T) {
	s, _ := startModern(t, allCaps, func(f *fakeServer, m *wire) (any, error) {
		var p struct {
			Name      string
			Arguments map[string]string
		}
		json.Unmarshal(m.Params, &p)
		if p.Name == "none" {
			return json.RawMessage(`{"resultType":"complete","description":"d"}`), nil
		}
		return json.RawMessage(`{"messages":[{"role":"user","content":{"type":"text","text":"hi ` + p.Arguments["who"] + `"}}],"resultType":"complete"}`), nil
	}, nil)
	ctx := context.Background()
	got, err := s.GetPromptRaw(ctx, "p", map[string]string{"who": "Ada"})
	if want := `{"messages":[{"role":"user","content":{"type":"text","text":"hi Ada"}}],"resultType":"complete"}`; err != nil || string(got) != want {
		t.Errorf("prompt: %s, %v; want %s", got, err, want)
	}
	got, err = s.GetPromptRaw(ctx, "none", nil)
	if err != nil || !strings.Contains(string(got), `"description":"d"`) || strings.Contains(string(got), "resultType") {
		t.Errorf("prompt without messages: %s, %v", got, err)
	}
}
