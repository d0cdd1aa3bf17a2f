package cli

import (
	"context"
	"encoding/json"
	"testing"

	mcpserver "github.com/mcpwire/mcpwire/protocol/server"
)

// FuzzReadRecording: any bytes as a recording are read or refused with an
// error, never a crash; a request replayed against what was read gets an
// answer or a JSON-RPC error.
func FuzzReadRecording(f *testing.F) {
	f.Add([]byte(`{"t":0,"recording":1}
{"t":1,"server":"s","dir":"send","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}}
{"t":2,"server":"s","dir":"recv","msg":{"jsonrpc":"2.0","id":1,"result":{"serverInfo":{"name":"x","version":"1"},"capabilities":{"tools":{}}}}}
{"t":3,"server":"s","dir":"send","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}}
{"t":3.5,"server":"s","dir":"recv","msg":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"a","progress":1}}}
{"t":3.6,"server":"s","dir":"recv","msg":{"jsonrpc":"2.0","id":9,"method":"roots/list"}}
{"t":4,"server":"s","dir":"recv","msg":{"jsonrpc":"2.0","id":2,"result":{"content":[]}}}
`))
	f.Add([]byte(`{"dir":"recv","msg":{"id":1,"error":{"code":-1,"message":"x"}}}`))
	f.Add([]byte("not json\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rp, err := readRecording("fuzz.jsonl", data, "")
		if err != nil {
			return
		}
		params, _ := json.Marshal(map[string]any{"name": "echo", "arguments": map[string]string{"text": "hi"}})
		res, err := replaySession{replayer: rp}.Serve(context.Background(), discardPeer{}, &mcpserver.Request{Method: "tools/call", Params: params})
		if (res == nil) == (err == nil) {
			t.Fatalf("an answer %v and an error %v", res, err)
		}
	})
}

// discardPeer is a client that takes every message and answers none.
type discardPeer struct{}

func (discardPeer) Notify(context.Context, string, any) error { return nil }
func (discardPeer) Call(context.Context, string, any) (json.RawMessage, error) {
	return nil, context.Canceled
}
