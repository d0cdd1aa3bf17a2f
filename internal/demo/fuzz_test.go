package demo

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/mcpwire/mcpwire/jsonrpc"
	mcpserver "github.com/mcpwire/mcpwire/protocol/server"
)

// quietPeer refuses to send anything.
type quietPeer struct{}

func (quietPeer) Notify(context.Context, string, any) error { return errors.New("no client") }
func (quietPeer) Call(context.Context, string, any) (json.RawMessage, error) {
	return nil, errors.New("no client")
}

// FuzzHandle feeds any params to every method: an answer or a JSON-RPC
// error, never a panic or a hang.
func FuzzHandle(f *testing.F) {
	methods := []string{"initialize", "ping", "tools/list", "tools/call", "resources/list", "resources/templates/list",
		"resources/read", "resources/subscribe", "resources/unsubscribe", "prompts/list", "prompts/get",
		"completion/complete", "logging/setLevel", "nope"}
	seeds := []string{`{}`, `{"cursor":"` + encodeCursor(3) + `"}`, `{"name":"echo","arguments":{"text":"x"}}`,
		`{"name":"add","arguments":{"a":1,"b":2}}`, `{"name":"big","arguments":{"bytes":10}}`, `{"uri":"demo://item/1"}`,
		`{"name":"greet","arguments":{"name":"a"}}`, `{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"style","value":""}}`,
		`{"level":"debug"}`, `[]`, `{"name":"image"}`, `{"name":"notify","_meta":{"progressToken":1}}`}
	for i, s := range seeds {
		f.Add(uint8(i), s)
	}
	f.Fuzz(func(t *testing.T, m uint8, params string) {
		if !json.Valid([]byte(params)) {
			return
		}
		var call struct {
			Name      string `json:"name"`
			Arguments struct {
				Bytes json.Number `json:"bytes"`
			} `json:"arguments"`
		}
		json.Unmarshal([]byte(params), &call)
		if n, _ := strconv.ParseInt(string(call.Arguments.Bytes), 10, 64); n > 1<<20 || call.Name == "crash" {
			return // big answers and a crash are what they are asked to be
		}
		s := newMCPServer(&Options{ExtraTools: 3, PageSize: 2}).NewSession()
		s.SetInitialized()
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		req := &jsonrpc.Request{ID: jsonrpc.Int64ID(1), Method: methods[int(m)%len(methods)], Params: json.RawMessage(params)}
		res, err := s.Handle(ctx, quietPeer{}, req)
		if a, ok := res.(*mcpserver.AfterReply); ok {
			a.Then()
			res = a.Result
		}
		if err == nil {
			if _, merr := jsonrpc.NewResponse(req.ID, res, nil); merr != nil {
				t.Fatalf("%s: result does not marshal: %v", req.Method, merr)
			}
		}
	})
}

// BenchmarkStdioEcho is sequential echo calls to an in-process demo over pipes.
func BenchmarkStdioEcho(b *testing.B) {
	c := startStdio(b, nil)
	ctx := context.Background()
	if _, err := c.conn.Call(ctx, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bench", "version": "1"}}); err != nil {
		b.Fatal(err)
	}
	params := map[string]any{"name": "echo", "arguments": map[string]any{"text": "hello"}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.conn.Call(ctx, "tools/call", params); err != nil {
			b.Fatal(err)
		}
	}
}
