package cli_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpwire/mcpwire/internal/proctest"
)

// betweenRecording is a modern recording in which, after the tools/list
// answer and before the next request, the server sent a log message and
// then a tools/list_changed (on the live session's listen stream).
const betweenRecording = `{"t":0,"recording":1}
{"t":1,"server":"s","dir":"send","msg":{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}}
{"t":2,"server":"s","dir":"recv","msg":{"jsonrpc":"2.0","id":1,"result":{"capabilities":{"tools":{"listChanged":true},"logging":{}},"supportedVersions":["2026-07-28"],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"rec","version":"1"}}}}}
{"t":3,"server":"s","session":{"transport":"http","era":"modern","protocol":"2026-07-28"}}
{"t":4,"server":"s","dir":"send","msg":{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}}
{"t":5,"server":"s","dir":"recv","msg":{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}}
{"t":6,"server":"s","dir":"recv","msg":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"between"}}}
{"t":7,"server":"s","dir":"recv","msg":{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":9}}}}
{"t":8,"server":"s","dir":"send","msg":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{}}}}
{"t":9,"server":"s","dir":"recv","msg":{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"hi"}]}}}
`

// TestReplayModernHTTPBetweenRequests: a modern recording replayed over
// streamable HTTP sends the change notification that came between two
// requests once the earlier answer is written, on the client's
// subscriptions/listen stream (with that stream's subscription id), as
// the live server did; the log message that came then is not sent: the
// 2026-07-28 revision allows notifications/message only on the stream
// of the request it belongs to, before its answer (logging.mdx), and
// that stream is over. Before, the modern HTTP transport dropped the
// work after an answer, and the listen stream got nothing.
func TestReplayModernHTTPBetweenRequests(t *testing.T) {
	proctest.Check(t)
	r := newRunner(t)
	if err := os.WriteFile(filepath.Join(r.dir, "rec.jsonl"), []byte(betweenRecording), 0o600); err != nil {
		t.Fatal(err)
	}
	url, stop := startListen(t, r, "replay", "--speed", "0", "--listen", "127.0.0.1:0", "rec.jsonl")
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), hang)
	defer cancel()
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	post := func(ctx context.Context, method, name, body string) *http.Response {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	listenCtx, endListen := context.WithCancel(ctx)
	defer endListen()
	listen := post(listenCtx, "subscriptions/listen", "", `{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{`+meta+`,"notifications":{"toolsListChanged":true}}}`)
	defer listen.Body.Close()
	events := bufio.NewScanner(listen.Body)
	next := func() string {
		t.Helper()
		for events.Scan() {
			if data, ok := strings.CutPrefix(events.Text(), "data: "); ok {
				return data
			}
		}
		t.Fatalf("the listen stream ended: %v", events.Err())
		return ""
	}
	if ack := next(); !strings.Contains(ack, "notifications/subscriptions/acknowledged") {
		t.Fatalf("first on the listen stream: %s", ack)
	}
	resp := post(ctx, "tools/list", "", `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{`+meta+`}}`)
	var list struct {
		Result struct{ Tools []struct{ Name string } }
	}
	if err := json.NewDecoder(resp.Body).Decode(&list); err != nil || len(list.Result.Tools) != 1 {
		t.Fatalf("tools/list: %v %+v", err, list)
	}
	resp.Body.Close()
	var note struct {
		Method string
		Params struct {
			Meta map[string]any `json:"_meta"`
		}
	}
	got := next()
	if err := json.Unmarshal([]byte(got), &note); err != nil || note.Method != "notifications/tools/list_changed" || note.Params.Meta["io.modelcontextprotocol/subscriptionId"] != "L" {
		t.Fatalf("next on the listen stream (the log message must not be): %s", got)
	}
	resp = post(ctx, "tools/call", "echo", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{`+meta+`,"name":"echo","arguments":{}}}`)
	var call struct {
		Method string
		Result struct{ Content []struct{ Text string } }
	}
	if err := json.NewDecoder(resp.Body).Decode(&call); err != nil || call.Method != "" || len(call.Result.Content) != 1 || call.Result.Content[0].Text != "hi" {
		t.Errorf("tools/call: %v %+v", err, call)
	}
	resp.Body.Close()
}
